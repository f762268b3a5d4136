// An object without a license section: the kernel takes it for non-GPL,
// so GPL-only helpers are refused, unless the loader passes a license of
// its own (vercheck --license GPL, as some loaders do for old objects).
#include "progs.h"

// vercheck: reject "cannot call GPL-restricted function from non-GPL compatible program"
SEC("kprobe/do_nanosleep")
int li_nolicense_probe_read(void *ctx)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), ctx);
	return v == 0;
}

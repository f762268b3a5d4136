/* bpf_snprintf's data length must be a multiple of 8 (an array of u64):
 * check_bpf_snprintf_call refuses any other with -EINVAL and logs no
 * message. The log's decisive line is then the last one before: here the
 * warning on the main function's prototype, whose "const void *ctx" has
 * no size, which the kernel logs at every level. */
#include "progs.h"
char _license[] SEC("license") = "GPL";

static const char s11_fmt[] = "%d";

// vercheck: reject "arg#0 reference type('UNKNOWN ') size cannot be determined: -22"
SEC("socket")
int s11_snprintf_odd_len(const void *ctx)
{
	unsigned long long arg = 42;
	char out[8];

	return bpf_snprintf(out, sizeof(out), s11_fmt, &arg, 1);
}

// vercheck: accept
SEC("socket")
int s11_snprintf_len(const void *ctx)
{
	unsigned long long arg = 42;
	char out[8];

	return bpf_snprintf(out, sizeof(out), s11_fmt, &arg, sizeof(arg));
}

#include "progs.h"

/* A global function's struct bpf_dynptr * argument is taken for an skb
 * dynptr on this machine's kernel (a build change of 6.18.44-fc-v1045,
 * not upstream: the log prints type=skb whatever the program type or the
 * caller's dynptr; 6.18.0 assumed a local one). A bpf_dynptr_write
 * through it may then move the packet and destroys the slices taken from
 * it (stablefix.GlobalDynptrSKB). */

extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} g12_gd_arr SEC(".maps");

/* A slice, a write through the dynptr, a read through the slice. */
__noinline int g12_gd_slice_write(struct bpf_dynptr *p)
{
	__u64 buf = 0;
	__u8 *s = bpf_dynptr_slice(p, 0, &buf, 4);

	if (!s)
		return 0;
	bpf_dynptr_write(p, 0, &buf, 1, 0);
	return *s;
}

/* The same read before the write. */
__noinline int g12_gd_slice_read(struct bpf_dynptr *p)
{
	__u64 buf = 0;
	__u8 *s = bpf_dynptr_slice(p, 0, &buf, 4);
	int v;

	if (!s)
		return 0;
	v = *s;
	bpf_dynptr_write(p, 0, &buf, 1, 0);
	return v;
}

/* A local dynptr over a map value, passed to fn. */
static __always_inline int g12_gd_call(int (*fn)(struct bpf_dynptr *))
{
	struct bpf_dynptr ptr;
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&g12_gd_arr, &k);

	if (!v)
		return 0;
	bpf_dynptr_from_mem(v, 8, 0, &ptr);
	return fn(&ptr);
}

/* A local dynptr from a TC program: the function's slice is gone after
 * the write. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without global-dynptr-skb
SEC("tc")
int g12_gd_tc_slice_write(void *ctx)
{
	return g12_gd_call(g12_gd_slice_write);
}

/* The same from a kprobe program, which has no packet at all. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without global-dynptr-skb
SEC("kprobe/do_nanosleep")
int g12_gd_kprobe_slice_write(void *ctx)
{
	return g12_gd_call(g12_gd_slice_write);
}

/* Read before the write: accepted either way. */
// vercheck: accept
SEC("tc")
int g12_gd_tc_slice_read(void *ctx)
{
	return g12_gd_call(g12_gd_slice_read);
}

char _license[] SEC("license") = "GPL";

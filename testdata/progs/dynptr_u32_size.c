#include "progs.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} u32_rb SEC(".maps");

/* A slice's size is the kernel's mem_size, a u32: asking bpf_dynptr_data
 * for 0xffffffff bytes gives (if the call succeeds at run time) 4 GiB of
 * memory to the verifier, not -1 bytes. */
// vercheck: accept
SEC("tc")
int dynptr_data_u32_max(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u64 *data;

	bpf_ringbuf_reserve_dynptr(&u32_rb, 8, 0, &ptr);
	data = bpf_dynptr_data(&ptr, 0, 0xffffffff);
	if (data)
		*data = skb->len;
	bpf_ringbuf_submit_dynptr(&ptr, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";

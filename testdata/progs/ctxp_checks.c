// Helper checks beyond the argument kinds: helpers that may sleep, the
// program types bpf_get_func_ip works in, the flags of
// bpf_get_local_storage, size arguments that are not numbers, maybe-NULL
// pointers given to or-NULL memory arguments, and the cgroup hooks that
// have bpf_get_retval.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, __u64);
} cg_stor SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} arr SEC(".maps");

/* Copying from user memory may fault and sleep. */
// vercheck: reject "helper call might sleep in a non-sleepable prog"
SEC("kprobe/do_nanosleep")
__naked int ctxp_copy_from_user_kprobe(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_copy_from_user];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_copy_from_user)
	: __clobber_all);
}

/* A kprobe knows the probed address. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
__naked int ctxp_func_ip_kprobe(void)
{
	asm volatile (
	"call %[bpf_get_func_ip];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_func_ip)
	: __clobber_all);
}

/* A tracepoint may name the helper but has no address to give. */
// vercheck: reject "func bpf_get_func_ip#173 not supported for program type 5"
SEC("tracepoint/syscalls/sys_enter_getpid")
__naked int ctxp_func_ip_tracepoint(void)
{
	asm volatile (
	"call %[bpf_get_func_ip];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_get_func_ip)
	: __clobber_all);
}

/* bpf_get_local_storage cannot fail, so it takes no flags. */
// vercheck: reject "get_local_storage() doesn't support non-zero flags"
SEC("cgroup_skb/ingress")
__naked int ctxp_local_storage_flags(void)
{
	asm volatile (
	"r1 = %[cg_stor] ll;"
	"r2 = 1;"
	"call %[bpf_get_local_storage];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_get_local_storage), __imm_addr(cg_stor)
	: __clobber_all);
}

/* With zero flags it returns the storage, never NULL. */
// vercheck: accept
SEC("cgroup_skb/ingress")
int ctxp_local_storage(struct __sk_buff *skb)
{
	__u64 *v = bpf_get_local_storage(&cg_stor, 0);

	*v += skb->len;
	return 1;
}

/* A size argument must be a number. */
// vercheck: reject "R3 type=fp expected=scalar"
SEC("socket")
__naked int ctxp_size_pointer(void)
{
	asm volatile (
	"r1 = %[rb] ll;"
	"r2 = r10;"
	"r2 += -8;"
	"r3 = 0;"
	"*(u64 *)(r10 - 8) = r3;"
	"r3 = r10;"
	"r4 = 0;"
	"call %[bpf_ringbuf_output];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_ringbuf_output), __imm_addr(rb)
	: __clobber_all);
}

/* bpf_skc_to_mptcp_sock takes a socket view, not a BTF pointer kind. */
// vercheck: reject "R1 type=ctx expected=sock_common, sock, tcp_sock, xdp_sock"
SEC("tc")
__naked int ctxp_mptcp_ctx(void)
{
	asm volatile (
	"call %[bpf_skc_to_mptcp_sock];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_skc_to_mptcp_sock)
	: __clobber_all);
}

/* A maybe-NULL map value may go where memory or NULL is expected. */
// vercheck: accept
SEC("tc")
__naked int ctxp_csum_diff_maybe_null(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = %[arr] ll;"
	"r2 = r10;"
	"r2 += -8;"
	"call %[bpf_map_lookup_elem];"
	"r1 = r0;"
	"r2 = 4;"
	"r3 = 0;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_csum_diff];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_csum_diff), __imm_addr(arr)
	: __clobber_all);
}

/* Where memory (not NULL) is expected, the value must be checked. */
// vercheck: reject "R2 type=map_value_or_null expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
__naked int ctxp_ringbuf_output_maybe_null(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"r1 = %[arr] ll;"
	"r2 = r10;"
	"r2 += -8;"
	"call %[bpf_map_lookup_elem];"
	"r2 = r0;"
	"r1 = %[rb] ll;"
	"r3 = 8;"
	"r4 = 0;"
	"call %[bpf_ringbuf_output];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem), __imm(bpf_ringbuf_output), __imm_addr(arr), __imm_addr(rb)
	: __clobber_all);
}

/* A device hook may set its return value. */
// vercheck: accept
SEC("cgroup/dev")
__naked int ctxp_dev_set_retval(void)
{
	asm volatile (
	"r1 = -1;"
	"call %[bpf_set_retval];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_set_retval)
	: __clobber_all);
}

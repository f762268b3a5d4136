#include "progs.h"

/* check_func_arg checks an argument's type (check_reg_type) and offset
 * (check_func_arg_reg_off) before it counts the argument's reference ("more
 * than one arg with ref_obj_id"), so a helper call whose later argument
 * holds a second reference of the wrong type or at a refused offset is
 * refused for that type or offset. vercheck counted the reference first for
 * argument kinds whose type failure it did not predict (a sockmap's value,
 * ARG_PTR_TO_DYNPTR) and for offset failures (session 39's review of call
 * paths; both sides rejected, with different messages). */
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s39_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} s39_sockmap SEC(".maps");

extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
			      __u32 buffer__szk) __ksym;

/* clang emits BTF for a kfunc only when C code calls it. */
__attribute__((used)) static void s39_kfunc_btf(void)
{
	bpf_dynptr_slice(0, 0, 0, 0);
}

/* A ring buffer record as both key and value of a sockmap update: the
 * value is a socket argument (resolve_map_arg_type). */
// vercheck: reject "R3 type=ringbuf_mem expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("tc")
__naked int s39_sockmap_value_ringbuf(void)
{
	asm volatile (
	"r1 = %[s39_rb] ll;"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 1f;"
	"r9 = r0;"
	"r1 = %[s39_sockmap] ll;"
	"r2 = r9;"
	"r3 = r9;"
	"r4 = 0;"
	"call %[bpf_map_update_elem];"
	"r1 = r9;"
	"r2 = 0;"
	"call %[bpf_ringbuf_discard];"
	"1: r0 = 0;"
	"exit;"
	:: __imm_addr(s39_rb), __imm_addr(s39_sockmap), __imm(bpf_ringbuf_reserve),
	   __imm(bpf_map_update_elem), __imm(bpf_ringbuf_discard)
	: __clobber_all);
}

/* A ring buffer record as a dynptr argument, after the same record as the
 * memory the dynptr is made from. */
// vercheck: reject "R4 type=ringbuf_mem expected=fp, dynptr_ptr"
SEC("tc")
__naked int s39_dynptr_arg_ringbuf(void)
{
	asm volatile (
	"r1 = %[s39_rb] ll;"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 1f;"
	"r9 = r0;"
	"r1 = r9;"
	"r2 = 8;"
	"r3 = 0;"
	"r4 = r9;"
	"call %[bpf_dynptr_from_mem];"
	"r1 = r9;"
	"r2 = 0;"
	"call %[bpf_ringbuf_discard];"
	"1: r0 = 0;"
	"exit;"
	:: __imm_addr(s39_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_dynptr_from_mem),
	   __imm(bpf_ringbuf_discard)
	: __clobber_all);
}

/* A slice of a ring buffer dynptr (read-only memory that holds the
 * dynptr's reference) moved by 4, after a ring buffer record: the moved
 * slice's offset is refused first. */
// vercheck: reject "dereference of modified rdonly_mem ptr R3 off=4 disallowed"
SEC("tc")
__naked int s39_slice_off_after_ref(void)
{
	asm volatile (
	"r1 = %[s39_rb] ll;"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 1f;"
	"r9 = r0;"
	"r1 = %[s39_rb] ll;"
	"r2 = 16;"
	"r3 = 0;"
	"r4 = r10;"
	"r4 += -64;"
	"call %[bpf_ringbuf_reserve_dynptr];"
	"r1 = r10;"
	"r1 += -64;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 8;"
	"call %[bpf_dynptr_slice];"
	"if r0 == 0 goto 2f;"
	"r7 = r0;"
	"r7 += 4;"
	"r1 = r9;"
	"r2 = 8;"
	"r3 = r7;"
	"r4 = 4;"
	"r5 = 0;"
	"call %[bpf_csum_diff];"
	"2: r1 = r10;"
	"r1 += -64;"
	"r2 = 0;"
	"call %[bpf_ringbuf_discard_dynptr];"
	"r1 = r9;"
	"r2 = 0;"
	"call %[bpf_ringbuf_discard];"
	"1: r0 = 0;"
	"exit;"
	:: __imm_addr(s39_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_ringbuf_reserve_dynptr),
	   __imm(bpf_dynptr_slice), __imm(bpf_csum_diff), __imm(bpf_ringbuf_discard_dynptr),
	   __imm(bpf_ringbuf_discard)
	: __clobber_all);
}

/* Control: the same record twice, both of a type the kind takes. */
// vercheck: reject "more than one arg with ref_obj_id R3"
SEC("tc")
__naked int s39_same_ref_twice(void)
{
	asm volatile (
	"r1 = %[s39_rb] ll;"
	"r2 = 8;"
	"r3 = 0;"
	"call %[bpf_ringbuf_reserve];"
	"if r0 == 0 goto 1f;"
	"r9 = r0;"
	"r1 = r9;"
	"r2 = 8;"
	"r3 = r9;"
	"r4 = 8;"
	"r5 = 0;"
	"call %[bpf_csum_diff];"
	"r1 = r9;"
	"r2 = 0;"
	"call %[bpf_ringbuf_discard];"
	"1: r0 = 0;"
	"exit;"
	:: __imm_addr(s39_rb), __imm(bpf_ringbuf_reserve), __imm(bpf_csum_diff),
	   __imm(bpf_ringbuf_discard)
	: __clobber_all);
}

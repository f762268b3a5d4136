#include "progs.h"

/* Dynptrs: 16-byte objects in the stack built by a helper, read and
 * written through helpers, and (ringbuf ones) released exactly once. */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} dyn_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dyn_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} dyn_user_rb SEC(".maps");

/* Reserves a record, fills it through a slice, submits it. */
// vercheck: accept
SEC("tc")
int dynptr_ringbuf_submit(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u64 *data;

	bpf_ringbuf_reserve_dynptr(&dyn_rb, sizeof(*data), 0, &ptr);
	data = bpf_dynptr_data(&ptr, 0, sizeof(*data));
	if (data)
		*data = skb->len;
	bpf_ringbuf_submit_dynptr(&ptr, 0);
	return 0;
}

/* A reserved dynptr must be submitted or discarded, even if the
 * reservation failed. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int dynptr_ringbuf_leak(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;

	bpf_ringbuf_reserve_dynptr(&dyn_rb, 8, 0, &ptr);
	return 0;
}

/* After the submit the dynptr is gone. */
// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("tc")
int dynptr_use_after_submit(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u64 v = 1;

	bpf_ringbuf_reserve_dynptr(&dyn_rb, 8, 0, &ptr);
	bpf_ringbuf_submit_dynptr(&ptr, 0);
	bpf_dynptr_write(&ptr, 0, &v, sizeof(v), 0);
	return 0;
}

/* ... and so are its slices. */
// vercheck: reject "R6 invalid mem access 'scalar'"
SEC("tc")
__naked int dynptr_slice_after_submit(void)
{
	asm volatile(
		"r1 = %[dyn_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = r10;"
		"r4 += -16;"
		"call %[bpf_ringbuf_reserve_dynptr];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"r3 = 8;"
		"call %[bpf_dynptr_data];"
		"if r0 == 0 goto l0_%=;"
		"r6 = r0;"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = *(u64 *)(r6 + 0);"
		"r0 = 0;"
		"exit;"
	"l0_%=:"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 0;"
		"call %[bpf_ringbuf_discard_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(dyn_rb), __imm(bpf_ringbuf_reserve_dynptr), __imm(bpf_dynptr_data),
		  __imm(bpf_ringbuf_discard_dynptr)
		: __clobber_all);
}

/* A local dynptr over a map value, read into the stack. */
// vercheck: accept
SEC("tc")
int dynptr_local_read(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u32 key = 0;
	__u32 buf = 0;
	__u64 *v = bpf_map_lookup_elem(&dyn_array, &key);

	if (!v)
		return 0;
	bpf_dynptr_from_mem(v, sizeof(*v), 0, &ptr);
	bpf_dynptr_read(&buf, sizeof(buf), &ptr, 0, 0);
	return buf;
}

/* bpf_dynptr_from_mem only takes map values. */
// vercheck: reject "Unsupported reg type fp for bpf_dynptr_from_mem data"
SEC("tc")
int dynptr_from_stack(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	char buf[8] = {};

	bpf_dynptr_from_mem(buf, sizeof(buf), 0, &ptr);
	return 0;
}

/* A local dynptr holds no reference: it cannot be submitted. */
// vercheck: reject "arg 1 is an unacquired reference"
SEC("tc")
int dynptr_submit_local(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr;
	__u32 key = 0;
	__u64 *v = bpf_map_lookup_elem(&dyn_array, &key);

	if (!v)
		return 0;
	bpf_dynptr_from_mem(v, sizeof(*v), 0, &ptr);
	bpf_ringbuf_submit_dynptr(&ptr, 0);
	return 0;
}

/* Reading a dynptr nobody built. */
// vercheck: reject "Expected an initialized dynptr as arg #2"
SEC("tc")
__naked int dynptr_uninit_read(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 4;"
		"r3 = r10;"
		"r3 += -32;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_dynptr_read];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_dynptr_read)
		: __clobber_all);
}

/* A store over a reserved dynptr would lose its reference. */
// vercheck: reject "cannot overwrite referenced dynptr"
SEC("tc")
__naked int dynptr_overwrite_ref(void)
{
	asm volatile(
		"r1 = %[dyn_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = r10;"
		"r4 += -16;"
		"call %[bpf_ringbuf_reserve_dynptr];"
		"r0 = 0;"
		"*(u32 *)(r10 - 8) = r0;"
		"exit;"
		:
		: __imm_addr(dyn_rb), __imm(bpf_ringbuf_reserve_dynptr)
		: __clobber_all);
}

/* A store over a local dynptr destroys it. */
// vercheck: reject "Expected an initialized dynptr as arg #2"
SEC("tc")
__naked int dynptr_overwrite_local(void)
{
	asm volatile(
		"r6 = 0;"
		"*(u32 *)(r10 - 36) = r6;"
		"r2 = r10;"
		"r2 += -36;"
		"r1 = %[dyn_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto l0_%=;"
		"r1 = r0;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = r10;"
		"r4 += -16;"
		"call %[bpf_dynptr_from_mem];"
		"*(u64 *)(r10 - 16) = r6;"
		"r1 = r10;"
		"r1 += -24;"
		"r2 = 4;"
		"r3 = r10;"
		"r3 += -16;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_dynptr_read];"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(dyn_array), __imm(bpf_map_lookup_elem), __imm(bpf_dynptr_from_mem),
		  __imm(bpf_dynptr_read)
		: __clobber_all);
}

/* A dynptr's bytes are not data the program may load. */
// vercheck: reject "invalid read from stack off -16+0 size 8"
SEC("tc")
__naked int dynptr_stack_load(void)
{
	asm volatile(
		"r6 = 0;"
		"*(u32 *)(r10 - 36) = r6;"
		"r2 = r10;"
		"r2 += -36;"
		"r1 = %[dyn_array] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto l0_%=;"
		"r1 = r0;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = r10;"
		"r4 += -16;"
		"call %[bpf_dynptr_from_mem];"
		"r0 = *(u64 *)(r10 - 16);"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(dyn_array), __imm(bpf_map_lookup_elem), __imm(bpf_dynptr_from_mem)
		: __clobber_all);
}

/* A dynptr must sit at a slot boundary. */
// vercheck: reject "Dynptr has to be an uninitialized dynptr"
SEC("tc")
__naked int dynptr_misaligned(void)
{
	asm volatile(
		"r1 = %[dyn_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = r10;"
		"r4 += -20;"
		"call %[bpf_ringbuf_reserve_dynptr];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(dyn_rb), __imm(bpf_ringbuf_reserve_dynptr)
		: __clobber_all);
}

/* A helper writing into the stack may not write over a dynptr. */
// vercheck: reject "potential write to dynptr at off=-16 disallowed"
SEC("tc")
__naked int dynptr_raw_write_over(void)
{
	asm volatile(
		"r1 = %[dyn_rb] ll;"
		"r2 = 8;"
		"r3 = 0;"
		"r4 = r10;"
		"r4 += -16;"
		"call %[bpf_ringbuf_reserve_dynptr];"
		"r1 = r10;"
		"r1 += -16;"
		"r2 = 4;"
		"r3 = r10;"
		"r3 += -16;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_dynptr_read];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(dyn_rb), __imm(bpf_ringbuf_reserve_dynptr), __imm(bpf_dynptr_read)
		: __clobber_all);
}

struct drain_ctx {
	__u64 sum;
};

static long sum_sample(struct bpf_dynptr *dynptr, struct drain_ctx *c)
{
	__u64 v = 0;

	bpf_dynptr_read(&v, sizeof(v), dynptr, 0, 0);
	c->sum += v;
	return 0;
}

static long release_sample(struct bpf_dynptr *dynptr, void *c)
{
	bpf_ringbuf_discard_dynptr(dynptr, 0);
	return 0;
}

/* Drains samples user space wrote, reading each through its dynptr. */
// vercheck: accept
SEC("tc")
int user_ringbuf_sum(struct __sk_buff *skb)
{
	struct drain_ctx c = {};

	bpf_user_ringbuf_drain(&dyn_user_rb, sum_sample, &c, 0);
	return c.sum > 0;
}

/* The callback's dynptr belongs to the helper. */
// vercheck: reject "cannot release unowned const bpf_dynptr"
SEC("tc")
int user_ringbuf_release(struct __sk_buff *skb)
{
	bpf_user_ringbuf_drain(&dyn_user_rb, release_sample, NULL, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";

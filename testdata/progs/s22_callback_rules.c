#include "progs.h"

/* Rules of callbacks and dynptrs no other program here reaches: a
 * callback must return a scalar (prepare_func_exit: "R0 not a scalar
 * value"); a helper that releases a dynptr wants an acquired one; the
 * dynptr bpf_user_ringbuf_drain hands its callback cannot be given to a
 * helper that initialises one; a sleepable helper cannot run between
 * bpf_preempt_disable and bpf_preempt_enable. */

extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, 4096);
} s22_user_rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s22_cb_rb SEC(".maps");

char s22_dyn_buf[16];

static long s22_ret_ptr(__u32 i, void *ctx)
{
	return (long)&s22_dyn_buf;
}

/* A callback returning a pointer into a map value. */
// vercheck: reject "R0 not a scalar value"
SEC("tc")
int s22_cb_returns_pointer(struct __sk_buff *skb)
{
	bpf_loop(4, s22_ret_ptr, NULL, 0);
	return 0;
}

/* A local dynptr given to the ring buffer's submit, which releases it:
 * the reference check comes before the type's. */
// vercheck: reject "arg 1 is an unacquired reference"
SEC("tc")
int s22_dynptr_wrong_type(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	bpf_dynptr_from_mem(s22_dyn_buf, sizeof(s22_dyn_buf), 0, &d);
	bpf_ringbuf_submit_dynptr(&d, 0);
	return 0;
}

static long s22_reinit_const(struct bpf_dynptr *dynptr, void *c)
{
	bpf_dynptr_from_mem(s22_dyn_buf, sizeof(s22_dyn_buf), 0, dynptr);
	return 0;
}

/* The drain callback's const dynptr given to bpf_dynptr_from_mem, which
 * wants an uninitialised one (checked before constness). */
// vercheck: reject "Dynptr has to be an uninitialized dynptr"
SEC("tc")
int s22_const_dynptr_init(struct __sk_buff *skb)
{
	bpf_user_ringbuf_drain(&s22_user_rb, s22_reinit_const, NULL, 0);
	return 0;
}

/* A sleepable helper with preemption disabled. */
// vercheck: reject "sleepable helper bpf_copy_from_user#148 in non-preemptible region"
SEC("uprobe.s")
int s22_sleep_no_preempt(void *ctx)
{
	char buf[8];

	bpf_preempt_disable();
	bpf_copy_from_user(buf, sizeof(buf), NULL);
	bpf_preempt_enable();
	return 0;
}

/* The same helper with preemption enabled again. */
// vercheck: accept
SEC("uprobe.s")
int s22_sleep_preempt_ok(void *ctx)
{
	char buf[8];

	bpf_preempt_disable();
	bpf_preempt_enable();
	bpf_copy_from_user(buf, sizeof(buf), NULL);
	return 0;
}

char _license[] SEC("license") = "GPL";

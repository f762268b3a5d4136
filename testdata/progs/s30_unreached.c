// Refusals no mutant of a fuzz run reached (vercheck-rejectcov over a
// 15-minute run, session 30), each checked against the live kernel here:
// a variable size for bpf_ringbuf_reserve (ARG_CONST_ALLOC_SIZE_OR_ZERO),
// a constant string at a variable offset (ARG_PTR_TO_CONST_STR), a
// sleepable kfunc with preemption disabled, and a maybe-NULL referenced
// pointer for a global function's arg:trusted argument (refused by type,
// "R1 type=ptr_or_null_ expected=...", before the NULL check).
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s30_rb SEC(".maps");

/* A constant size: fine. */
// vercheck: accept
SEC("tc")
int s30_reserve_const(struct __sk_buff *skb)
{
	void *p = bpf_ringbuf_reserve(&s30_rb, 16, 0);

	if (p)
		bpf_ringbuf_discard(p, 0);
	return 0;
}

/* A size only bounded: the reservation's size must be a known constant. */
// vercheck: reject "R2 is not a known constant'"
SEC("tc")
int s30_reserve_var(struct __sk_buff *skb)
{
	void *p = bpf_ringbuf_reserve(&s30_rb, bpf_get_prandom_u32() & 63, 0);

	if (p)
		bpf_ringbuf_discard(p, 0);
	return 0;
}

const char s30_str[8] = "abcdefg";

/* The string from its start: fine. */
// vercheck: accept
SEC("tc")
int s30_strncmp_const(struct __sk_buff *skb)
{
	char buf[8] = {};

	return bpf_strncmp(buf, sizeof(buf), s30_str) & 1;
}

/* The string at a variable offset. */
// vercheck: reject "R3 is not a constant address'"
SEC("tc")
__naked int s30_strncmp_var(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u64 *)(r10 - 8) = r1;"
	"call %[bpf_get_prandom_u32];"
	"r0 &= 3;"
	"r3 = %[s30_str] ll;"
	"r3 += r0;"
	"r1 = r10;"
	"r1 += -8;"
	"r2 = 8;"
	"call %[bpf_strncmp];"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(s30_str), __imm(bpf_get_prandom_u32), __imm(bpf_strncmp)
	: __clobber_all);
}

extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign, __u64 flags) __ksym;

/* A sleepable kfunc with preemption disabled. */
// vercheck: reject "kernel func bpf_copy_from_user_str is sleepable within non-preemptible region"
SEC("syscall")
int s30_sleep_no_preempt(void *ctx)
{
	__u32 data = 0;

	bpf_preempt_disable();
	bpf_copy_from_user_str(&data, sizeof(data), 0, 0);
	bpf_preempt_enable();
	return data;
}

/* The same call after preemption is enabled again: fine. */
// vercheck: accept
SEC("syscall")
int s30_sleep_after_preempt(void *ctx)
{
	__u32 data = 0;

	bpf_preempt_disable();
	bpf_preempt_enable();
	bpf_copy_from_user_str(&data, sizeof(data), 0, 0);
	return data;
}

struct task_struct {
	unsigned int flags;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_from_pid(int pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

__noinline int s30_task_flags(struct task_struct *t __arg_trusted)
{
	return t->flags & 1;
}

/* A referenced task that may be NULL for an argument that may not. */
// vercheck: reject "Caller passes invalid args into func#1 ('s30_task_flags')"
SEC("tp_btf/sched_switch")
int s30_trusted_maybe_null(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);
	int r = s30_task_flags(t);

	if (t)
		bpf_task_release(t);
	return r;
}

/* Checked for NULL first: fine. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int s30_trusted_checked(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);
	int r;

	if (!t)
		return 0;
	r = s30_task_flags(t);
	bpf_task_release(t);
	return r;
}

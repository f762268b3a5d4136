#include "progs.h"

/* Two rules of this kernel build around exceptions and RCU, found by
 * probing by hand (session 32), both false accepts before:
 * - global-call-may-throw: a call of a global function that may raise an
 *   exception (it, or a function it calls, holds a bpf_throw call, reached
 *   or not) checks what bpf_throw checks where the caller stands;
 * - spin-unlock-untrusts-rcu: in a sleepable program, releasing the last
 *   spin lock outside bpf_rcu_read_lock ends the RCU section the lock made:
 *   RCU pointers become untrusted. */
char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
	struct task_struct *real_parent;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern void bpf_throw(__u64 cookie) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern void bpf_preempt_disable(void) __ksym;
extern void bpf_preempt_enable(void) __ksym;

__attribute__((noinline)) int s32_may_throw(int x)
{
	if (x > 5)
		bpf_throw(0);
	return x;
}

static __attribute__((noinline)) int s32_static_throw(int x)
{
	if (x > 7)
		bpf_throw(1);
	return x;
}

__attribute__((noinline)) int s32_throws_via_static(int x)
{
	return s32_static_throw(x) + 1;
}

__attribute__((noinline)) int s32_no_throw(int x)
{
	return x + 2;
}

// vercheck: reject "bpf_throw cannot be used inside bpf_rcu_read_lock-ed region"
// vercheck: accept without global-call-may-throw
SEC("tc")
int s32_throw_call_in_rcu(struct __sk_buff *skb)
{
	int r;

	bpf_rcu_read_lock();
	r = s32_may_throw(skb->len);
	bpf_rcu_read_unlock();
	return r;
}

// vercheck: reject "bpf_throw cannot be used inside bpf_preempt_disable-ed region"
// vercheck: accept without global-call-may-throw
SEC("tc")
int s32_throw_via_static_preempt(struct __sk_buff *skb)
{
	int r;

	bpf_preempt_disable();
	r = s32_throws_via_static(skb->len);
	bpf_preempt_enable();
	return r;
}

/* Nothing held: the call is fine. */
// vercheck: accept
SEC("tc")
int s32_throw_call_free(struct __sk_buff *skb)
{
	return s32_may_throw(skb->len);
}

/* A function that cannot throw, in the section: fine. */
// vercheck: accept
SEC("tc")
int s32_no_throw_call_in_rcu(struct __sk_buff *skb)
{
	int r;

	bpf_rcu_read_lock();
	r = s32_no_throw(skb->len);
	bpf_rcu_read_unlock();
	return r;
}

struct s32_locked {
	struct bpf_spin_lock l;
	int v;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s32_locked);
} s32_locks SEC(".maps");

// vercheck: reject "R1 must be a rcu pointer"
// vercheck: accept without spin-unlock-untrusts-rcu
SEC("syscall")
int s32_rcu_ptr_after_unlock(void *ctx)
{
	struct task_struct *p = bpf_get_current_task_btf();
	int k = 0;
	struct s32_locked *v = bpf_map_lookup_elem(&s32_locks, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	p = p->real_parent;
	bpf_spin_unlock(&v->l);
	if (p) {
		p = bpf_task_acquire(p);
		if (p)
			bpf_task_release(p);
	}
	return 0;
}

/* Inside an explicit RCU section the pointer stays an RCU pointer. */
// vercheck: accept
SEC("syscall")
int s32_rcu_ptr_unlock_in_rcu(void *ctx)
{
	struct task_struct *p = bpf_get_current_task_btf();
	int k = 0;
	struct s32_locked *v = bpf_map_lookup_elem(&s32_locks, &k);

	if (!v)
		return 0;
	bpf_rcu_read_lock();
	bpf_spin_lock(&v->l);
	p = p->real_parent;
	bpf_spin_unlock(&v->l);
	if (p) {
		p = bpf_task_acquire(p);
		if (p)
			bpf_task_release(p);
	}
	bpf_rcu_read_unlock();
	return 0;
}

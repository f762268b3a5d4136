#include "progs.h"

/* Global functions that may sleep (they call a sleeping helper or kfunc,
 * themselves or through their callees: the kernel's might_sleep, marked as
 * it checks the control flow) may only be called where sleeping is
 * allowed: from a sleepable program, outside an RCU read section. The call
 * is refused before the global function is verified. */

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

__attribute__((noinline)) int copy_first_bytes(void)
{
	char buf[8];

	return bpf_copy_from_user(buf, sizeof(buf), 0);
}

/* Sleeps through its callee. */
__attribute__((noinline)) int copy_through(int x)
{
	return copy_first_bytes() + x;
}

__attribute__((noinline)) int add_one(int x)
{
	return x + 1;
}

// vercheck: accept
SEC("iter.s/task")
int mod_global_sleeps_ok(void *ctx)
{
	return copy_through(0) & 1;
}

// vercheck: reject "a non-sleepable BPF program context"
SEC("iter.s/task")
int mod_global_sleeps_in_rcu(void *ctx)
{
	bpf_rcu_read_lock();
	copy_first_bytes();
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "a non-sleepable BPF program context"
SEC("iter/task")
int mod_global_sleeps_not_sleepable(void *ctx)
{
	return copy_through(0) & 1;
}

/* A global function that does not sleep is fine inside the section. */
// vercheck: accept
SEC("iter.s/task")
int mod_global_no_sleep_in_rcu(void *ctx)
{
	int r;

	bpf_rcu_read_lock();
	r = add_one(1);
	bpf_rcu_read_unlock();
	return r & 1;
}

char _license[] SEC("license") = "GPL";

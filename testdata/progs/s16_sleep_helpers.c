#include "progs.h"

/* Helpers whose prototype may sleep (might_sleep) may not be called in an
 * RCU read section. Besides the helpers that copy from user memory, the
 * syscall program's bpf_sys_bpf, bpf_sys_close and
 * bpf_btf_find_by_name_kind may sleep, and the tracing types hand a
 * sleepable program sleepable variants of bpf_get_task_stack (kprobe,
 * tracing, LSM and syscall programs) and of bpf_get_stack (kprobes:
 * uprobe.s). vercheck's table lacked all five: each program below was a
 * false accept, found by reading the kernel's prototypes (then
 * TestHelperSleepLiveKernel, every helper in every such context). */

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

char s16_sh_buf[64];

// vercheck: reject "sleepable helper bpf_sys_close#168 in rcu_read_lock region"
SEC("syscall")
int s16_sh_sys_close(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_sys_close(-1);
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "sleepable helper bpf_btf_find_by_name_kind#167 in rcu_read_lock region"
SEC("syscall")
int s16_sh_btf_find(void *ctx)
{
	char name[8] = "foo";

	bpf_rcu_read_lock();
	bpf_btf_find_by_name_kind(name, sizeof(name), 1, 0);
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "sleepable helper bpf_get_task_stack#141 in rcu_read_lock region"
SEC("syscall")
int s16_sh_sys_task_stack(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();

	bpf_rcu_read_lock();
	bpf_get_task_stack(t, s16_sh_buf, sizeof(s16_sh_buf), 0);
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "sleepable helper bpf_get_stack#67 in rcu_read_lock region"
SEC("uprobe.s")
int s16_sh_uprobe_stack(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_get_stack(ctx, s16_sh_buf, sizeof(s16_sh_buf), BPF_F_USER_STACK);
	bpf_rcu_read_unlock();
	return 0;
}

/* Outside the section the sleepable variant is fine. */
// vercheck: accept
SEC("uprobe.s")
int s16_sh_uprobe_stack_out(void *ctx)
{
	bpf_get_stack(ctx, s16_sh_buf, sizeof(s16_sh_buf), BPF_F_USER_STACK);
	return 0;
}

/* A non-sleepable uprobe gets the plain bpf_get_stack. */
// vercheck: accept
SEC("uprobe")
int s16_sh_uprobe_stack_plain(void *ctx)
{
	bpf_rcu_read_lock();
	bpf_get_stack(ctx, s16_sh_buf, sizeof(s16_sh_buf), BPF_F_USER_STACK);
	bpf_rcu_read_unlock();
	return 0;
}

// vercheck: reject "sleepable helper bpf_get_task_stack#141 in rcu_read_lock region"
SEC("uprobe.s")
int s16_sh_uprobe_task_stack(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();

	bpf_rcu_read_lock();
	bpf_get_task_stack(t, s16_sh_buf, sizeof(s16_sh_buf), 0);
	bpf_rcu_read_unlock();
	return 0;
}

char _license[] SEC("license") = "GPL";

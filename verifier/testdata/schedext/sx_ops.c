/* sched_ext schedulers' struct_ops programs, checked against a kernel BTF
 * that has sched_ext (schedext_test.go): the expectations follow the 6.18
 * sources (kernel/sched/ext.c's bpf_scx_* verifier callbacks and kfunc
 * sets). Built from the repository root with
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -I/usr/include/x86_64-linux-gnu \
 *     -c verifier/testdata/schedext/sx_ops.c -o verifier/testdata/schedext/sx_ops.o
 * (kept with its BTF: the struct_ops map and the CO-RE relocations need it).
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#define __co_re __attribute__((preserve_access_index))

struct sched_ext_entity {
	__u64 slice;
	__u64 dsq_vtime;
	__u32 weight;
	_Bool disallow;
} __co_re;

struct task_struct {
	int pid;
	struct sched_ext_entity scx;
} __co_re;

struct scx_init_task_args;

#define SCX_DSQ_GLOBAL (1ULL << 63)
#define SX_DSQ 7

extern void scx_bpf_dsq_insert(struct task_struct *p, __u64 dsq_id, __u64 slice, __u64 enq_flags) __ksym;
extern __s32 scx_bpf_select_cpu_dfl(struct task_struct *p, __s32 prev_cpu, __u64 wake_flags, _Bool *is_idle) __ksym;
extern __s32 scx_bpf_create_dsq(__u64 dsq_id, __s32 node) __ksym;
extern _Bool scx_bpf_dsq_move_to_local(__u64 dsq_id) __ksym;
extern void scx_bpf_kick_cpu(__s32 cpu, __u64 flags) __ksym;

/* select_cpu: the default idle-CPU pick with a flag on the stack. */
SEC("struct_ops/sx_select_cpu")
__s32 sx_select_cpu(unsigned long long *ctx)
{
	struct task_struct *p = (void *)ctx[0];
	_Bool idle = 0;
	__s32 cpu = scx_bpf_select_cpu_dfl(p, ctx[1], ctx[2], &idle);

	if (idle)
		scx_bpf_dsq_insert(p, SCX_DSQ_GLOBAL, 0, 0);
	return cpu;
}

/* enqueue: the trusted task argument goes to a KF_RCU kfunc. */
SEC("struct_ops/sx_enqueue")
int sx_enqueue(unsigned long long *ctx)
{
	scx_bpf_dsq_insert((void *)ctx[0], SX_DSQ, 5000000, ctx[1]);
	return 0;
}

/* dispatch: prev may be NULL (prev__nullable in the CFI stub). */
SEC("struct_ops/sx_dispatch_checked")
int sx_dispatch_checked(unsigned long long *ctx)
{
	struct task_struct *prev = (void *)ctx[1];

	if (prev && prev->scx.slice == 0)
		prev->scx.slice = 20000000;
	scx_bpf_dsq_move_to_local(SX_DSQ);
	return 0;
}

SEC("struct_ops/sx_dispatch_unchecked")
int sx_dispatch_unchecked(unsigned long long *ctx)
{
	struct task_struct *prev = (void *)ctx[1];

	return prev->pid;
}

/* running: stores into the task's slice and vtime are allowed, into its
 * weight not (bpf_scx_btf_struct_access). */
SEC("struct_ops/sx_running")
int sx_running(unsigned long long *ctx)
{
	struct task_struct *p = (void *)ctx[0];

	p->scx.slice = 1000000;
	p->scx.dsq_vtime += 10;
	p->scx.disallow = 0;
	return 0;
}

SEC("struct_ops/sx_stopping")
int sx_stopping(unsigned long long *ctx)
{
	struct task_struct *p = (void *)ctx[0];

	p->scx.weight = 100;
	return 0;
}

/* init: sleepable, may create a DSQ (KF_SLEEPABLE). */
SEC("struct_ops.s/sx_init")
int sx_init(unsigned long long *ctx)
{
	return scx_bpf_create_dsq(SX_DSQ, -1);
}

/* exit_task is not sleepable: creating a DSQ there is refused, and so is
 * a sleepable program for a member bpf_scx_check_member does not list. */
SEC("struct_ops/sx_exit_task")
int sx_exit_task(unsigned long long *ctx)
{
	return scx_bpf_create_dsq(SX_DSQ + 1, -1);
}

SEC("struct_ops.s/sx_tick")
int sx_tick(unsigned long long *ctx)
{
	scx_bpf_kick_cpu(0, 0);
	return 0;
}

/* A sched_ext kfunc from a program type its sets are not registered for. */
SEC("tc")
int sx_tc_kick(struct __sk_buff *skb)
{
	scx_bpf_kick_cpu(0, 0);
	return 0;
}

struct sched_ext_ops {
	__s32 (*select_cpu)(struct task_struct *p, __s32 prev_cpu, __u64 wake_flags);
	void (*enqueue)(struct task_struct *p, __u64 enq_flags);
	void (*dispatch)(__s32 cpu, struct task_struct *prev);
	void (*tick)(struct task_struct *p);
	void (*running)(struct task_struct *p);
	void (*stopping)(struct task_struct *p, _Bool runnable);
	void (*exit_task)(struct task_struct *p, void *args);
	__s32 (*init)(void);
	char name[128];
};

SEC(".struct_ops.link")
struct sched_ext_ops sx_ops = {
	.select_cpu = (void *)sx_select_cpu,
	.enqueue = (void *)sx_enqueue,
	.dispatch = (void *)sx_dispatch_checked,
	.tick = (void *)sx_tick,
	.running = (void *)sx_running,
	.stopping = (void *)sx_stopping,
	.exit_task = (void *)sx_exit_task,
	.init = (void *)sx_init,
	.name = "sx",
};

SEC(".struct_ops.link")
struct sched_ext_ops sx_ops2 = {
	.dispatch = (void *)sx_dispatch_unchecked,
	.name = "sx2",
};

char _license[] SEC("license") = "GPL";

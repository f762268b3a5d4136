#include "progs.h"

/* The dynptr copies of 6.17 (kernel/trace/bpf_trace.c, registered in the
 * common kfunc set): bpf_probe_read_{kernel,user}{,_str}_dynptr copy
 * without faulting, from any program type; bpf_copy_from_user{,_str}_dynptr
 * and their _task variants may fault and sleep (KF_SLEEPABLE), and the
 * task is a trusted pointer. The destination is an initialised dynptr of
 * any kind; the source pointer is ignored (__ign). A copy into an skb
 * dynptr may move the packet, as bpf_dynptr_write does: builds with the
 * stable entry dynptr-kfunc-pkt-write (the -fc-v1252 and -fc-v1272
 * builds) invalidate every packet pointer after it, and count a global
 * function making one as changing packet data whatever the dynptr; the
 * packet programs here read the pointer they checked before the copy. */

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

extern int bpf_dynptr_from_skb(struct __sk_buff *skb, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern int bpf_probe_read_kernel_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size, const void *unsafe_ptr__ign) __ksym;
extern int bpf_probe_read_user_str_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size, const void *unsafe_ptr__ign) __ksym;
extern int bpf_copy_from_user_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size, const void *unsafe_ptr__ign) __ksym;
extern int bpf_copy_from_user_task_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size, const void *unsafe_ptr__ign,
					  struct task_struct *tsk) __ksym;
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s26_rb SEC(".maps");

// vercheck: accept
SEC("tc")
int s26_probe_read_into_ringbuf(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	long src = 0;

	bpf_ringbuf_reserve_dynptr(&s26_rb, 16, 0, &d);
	bpf_probe_read_kernel_dynptr(&d, 0, 8, &src);
	bpf_probe_read_user_str_dynptr(&d, 8, 8, (void *)0);
	bpf_ringbuf_discard_dynptr(&d, 0);
	return 0;
}

// vercheck: reject "Expected an initialized dynptr as arg #0"
SEC("tc")
int s26_probe_read_uninit(struct __sk_buff *skb)
{
	struct bpf_dynptr d;
	long src = 0;

	asm volatile("" : "=m"(d));
	return bpf_probe_read_kernel_dynptr(&d, 0, 8, &src);
}

/* The packet's first byte checked, then copied over through an skb
 * dynptr, then read through the pointer checked before: the copy moved
 * the packet, as bpf_dynptr_write may. */
// vercheck: reject "R7 invalid mem access 'scalar'"
// vercheck: accept without dynptr-kfunc-pkt-write
SEC("tc")
int s26_probe_read_into_skb(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct bpf_dynptr d;
	long src = 0;

	if (data + 1 > end)
		return 0;
	if (bpf_dynptr_from_skb(skb, 0, &d))
		return 0;
	bpf_probe_read_kernel_dynptr(&d, 0, 1, &src);
	return *(__u8 *)data;
}

// vercheck: reject "program must be sleepable to call sleepable kfunc bpf_copy_from_user_dynptr"
SEC("tc")
int s26_copy_from_user_not_sleepable(struct __sk_buff *skb)
{
	struct bpf_dynptr d;

	bpf_ringbuf_reserve_dynptr(&s26_rb, 16, 0, &d);
	bpf_copy_from_user_dynptr(&d, 0, 8, (void *)0);
	bpf_ringbuf_discard_dynptr(&d, 0);
	return 0;
}

// vercheck: accept
SEC("syscall")
int s26_copy_from_user_sleepable(void *ctx)
{
	struct bpf_dynptr d;

	bpf_ringbuf_reserve_dynptr(&s26_rb, 16, 0, &d);
	bpf_copy_from_user_dynptr(&d, 0, 8, (void *)0);
	bpf_ringbuf_discard_dynptr(&d, 0);
	return 0;
}

/* A task from bpf_task_from_pid may be NULL: passed unchecked, it is no
 * trusted pointer. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg4"
SEC("syscall")
int s26_copy_from_user_task_maybe_null(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);
	struct bpf_dynptr d;

	bpf_ringbuf_reserve_dynptr(&s26_rb, 16, 0, &d);
	bpf_copy_from_user_task_dynptr(&d, 0, 8, (void *)0, t);
	bpf_ringbuf_discard_dynptr(&d, 0);
	if (t)
		bpf_task_release(t);
	return 0;
}

// vercheck: accept
SEC("syscall")
int s26_copy_from_user_task(void *ctx)
{
	struct task_struct *t = bpf_task_from_pid(1);
	struct bpf_dynptr d;

	if (!t)
		return 0;
	bpf_ringbuf_reserve_dynptr(&s26_rb, 16, 0, &d);
	bpf_copy_from_user_task_dynptr(&d, 0, 8, (void *)0, t);
	bpf_ringbuf_discard_dynptr(&d, 0);
	bpf_task_release(t);
	return 0;
}

/* A global function that copies into a local dynptr: the kernel's
 * check_cfg counts the call as changing packet data whatever the
 * dynptr, so the XDP caller's packet pointer is gone after it. */
__attribute__((noinline)) int s26_copy_local(void)
{
	struct bpf_dynptr d;
	long src = 0;
	int err;

	bpf_ringbuf_reserve_dynptr(&s26_rb, 16, 0, &d);
	err = bpf_probe_read_kernel_dynptr(&d, 0, 8, &src);
	bpf_ringbuf_discard_dynptr(&d, 0);
	return err;
}

// vercheck: reject "R6 invalid mem access 'scalar'"
// vercheck: accept without dynptr-kfunc-pkt-write
SEC("xdp")
int s26_global_copy_pkt(struct xdp_md *x)
{
	void *data = (void *)(long)x->data;
	void *end = (void *)(long)x->data_end;

	if (data + 1 > end)
		return 0;
	s26_copy_local();
	return *(__u8 *)data;
}

#include "progs.h"

/* Flavoured kfunc declarations ("name___flavour"), resolved as libbpf
 * resolves them: by the name up to the last "___", and only when the
 * prototypes are compatible, else a weak one stays unresolved
 * (bpf_ksym_exists is false). */

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

extern struct task_struct *bpf_task_acquire___one(struct task_struct *task) __ksym __attribute__((weak));
extern struct task_struct *bpf_task_acquire___two(struct task_struct *p, void *ctx) __ksym __attribute__((weak));
extern void bpf_task_release(struct task_struct *p) __ksym;

#define ksym_exists(sym) (!!(&sym))

static struct task_struct *(*current_task_btf)(void) = (void *)158;

/* ___one is bpf_task_acquire: the acquired task must be released. */
// vercheck: accept
SEC("tc")
int p8_flavor_found(struct __sk_buff *ctx)
{
	struct task_struct *t;

	if (!ksym_exists(bpf_task_acquire___one))
		return 1;
	t = bpf_task_acquire___one(current_task_btf());
	if (!t)
		return 2;
	bpf_task_release(t);
	return 0;
}

/* ___two has another prototype: it is not the kernel's, and a call of it
 * is only on a path the missing symbol rules out. */
// vercheck: accept
SEC("tc")
int p8_flavor_incompatible(struct __sk_buff *ctx)
{
	int x = 0;

	if (ksym_exists(bpf_task_acquire___two))
		return bpf_task_acquire___two(current_task_btf(), &x) != 0;
	return 3;
}

/* Taking ___one's branch and forgetting the release leaks the task. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int p8_flavor_leak(struct __sk_buff *ctx)
{
	if (ksym_exists(bpf_task_acquire___one))
		return bpf_task_acquire___one(current_task_btf()) != 0;
	return 0;
}

char _license[] SEC("license") = "GPL";

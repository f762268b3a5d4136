#include "progs.h"

/* Which pointer fields keep the trust of the pointer they are read from:
 * the kernel lists them in structs it emits into its own BTF
 * ("bpf_iter_meta__safe_trusted", "task_struct__safe_rcu"...), matched by
 * the walked register's struct, the field's name and the type it points
 * to. Every other field read through a trusted pointer gives an untrusted
 * pointer; a plain pointer's fields are untrusted pointers too. A kernel
 * without walk-untrusted (6.18.0) gives plain pointers instead, except in
 * a sleepable program outside an RCU read section. */

struct task_struct {
	int pid;
	struct task_struct *parent;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	void *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} seen SEC(".maps");

/* The seq_file of an iterator's meta (inside an anonymous union of one
 * member) stays trusted, in a sleepable iterator as in any. */
// vercheck: accept
SEC("iter.s/task")
__naked int mod_safe_meta_seq_sleepable(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"r1 = *(u64 *)(r1 + 0);"
		"r2 = r10;"
		"r2 += -8;"
		"r3 = 0;"
		"*(u64 *)(r10 - 8) = r3;"
		"r3 = 8;"
		"call %[bpf_seq_write];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_seq_write)
		: __clobber_all);
}

/* A task's parent is no safe field: an untrusted pointer (a plain one
 * without walk-untrusted)... */
// vercheck: reject "R2 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter/task")
int mod_safe_parent_plain(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_storage_get(&seen, t->parent, 0, 0);
	return 0;
}

/* ... and an untrusted one in a sleepable iterator, whatever the kernel. */
// vercheck: reject "R2 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("iter.s/task")
int mod_safe_parent_sleepable(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	if (t)
		bpf_task_storage_get(&seen, t->parent, 0, 0);
	return 0;
}

/* The vma of a task_vma iterator is a plain pointer: its file is
 * untrusted (plain without walk-untrusted, in a sleepable iterator as
 * well). */
// vercheck: reject "R1 type=untrusted_ptr_ expected=ptr_, trusted_ptr_, rcu_ptr_"
// vercheck: accept without walk-untrusted
SEC("iter.s/task_vma")
__naked int mod_safe_vma_file_plain(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 16);"
		"if r1 == 0 goto l0_%=;"
		"r1 = *(u64 *)(r1 + 88);"
		"call %[bpf_sock_from_file];"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_sock_from_file)
		: __clobber_all);
}

/* A 4-byte read through a BTF pointer zero-extends, as every narrow load
 * does: the pid is in [0, 2^32-1], outside an iterator's return range. */
// vercheck: reject "At program exit the register R0 has smin=0 smax=4294967295 should have been in [0, 1]"
SEC("iter/task")
int mod_safe_narrow_load(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;

	return t ? (unsigned int)t->pid : 0;
}

char _license[] SEC("license") = "GPL";

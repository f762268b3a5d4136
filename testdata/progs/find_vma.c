#include "progs.h"

/* BTF-typed helper arguments: bpf_find_vma and task storage, given the
 * trusted task pointer bpf_get_current_task_btf returns. */

struct vm_area_struct {
	unsigned long vm_start;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} task_store SEC(".maps");

struct vma_ctx {
	__u64 start;
};

static long record_start(struct task_struct *task, struct vm_area_struct *vma, struct vma_ctx *c)
{
	c->start = vma->vm_start;
	return 0;
}

static long bad_vma_return(struct task_struct *task, struct vm_area_struct *vma, void *c)
{
	return 2;
}

static long write_vma(struct task_struct *task, struct vm_area_struct *vma, void *c)
{
	vma->vm_start = 0;
	return 0;
}

/* Looks up the vma holding an address of the current task. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
int find_vma_ok(void *ctx)
{
	struct vma_ctx c = {};
	struct task_struct *task = bpf_get_current_task_btf();

	bpf_find_vma(task, 0x400000, record_start, &c, 0);
	return c.start != 0;
}

// vercheck: reject "At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]"
SEC("kprobe/do_nanosleep")
int find_vma_bad_return(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();

	bpf_find_vma(task, 0, bad_vma_return, NULL, 0);
	return 0;
}

/* The vma is a kernel object: the program may not store into it. */
// vercheck: reject "only read is supported"
SEC("kprobe/do_nanosleep")
int find_vma_write_vma(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();

	bpf_find_vma(task, 0, write_vma, NULL, 0);
	return 0;
}

/* A number is not a task. */
// vercheck: reject "R1 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("kprobe/do_nanosleep")
__naked int find_vma_scalar_task(void)
{
	asm volatile(
		"r1 = 0x1000;"
		"r2 = 0;"
		"r3 = %[cb] ll;"
		"r4 = 0;"
		"r5 = 0;"
		"call %[bpf_find_vma];"
		"r0 = 0;"
		"exit;"
		:
		: [cb] "i"(bad_vma_return), __imm(bpf_find_vma)
		: __clobber_all);
}

/* task->mm (offset of struct task_struct's mm is found at load time by the
 * kernel's BTF walk; here the pointer is the task's first member instead,
 * thread_info, which is not a pointer: use the vma callback's vma). */
static long pass_vma_as_task(struct task_struct *task, struct vm_area_struct *vma, void *c)
{
	bpf_find_vma((struct task_struct *)vma, 0, bad_vma_return, NULL, 0);
	return 0;
}

// vercheck: reject "R1 is of type vm_area_struct but task_struct is expected"
SEC("kprobe/do_nanosleep")
int find_vma_wrong_struct(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();

	bpf_find_vma(task, 0, pass_vma_as_task, NULL, 0);
	return 0;
}

/* Task local storage for the current task, created on first use. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
int task_storage_count(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *v = bpf_task_storage_get(&task_store, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (v)
		*v += 1;
	return 0;
}

/* NULL is a valid task argument for the storage helpers. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
int task_storage_null_task(void *ctx)
{
	__u64 *v = bpf_task_storage_get(&task_store, NULL, NULL, 0);

	return v ? *v : 0;
}

/* The untyped task pointer of bpf_get_current_task is a number. */
// vercheck: reject "R2 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("kprobe/do_nanosleep")
int task_storage_scalar_task(void *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	__u64 *v = bpf_task_storage_get(&task_store, task, NULL, 0);

	return v ? *v : 0;
}

char _license[] SEC("license") = "GPL";

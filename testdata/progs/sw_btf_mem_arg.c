#include "progs.h"

/* A trusted BTF pointer is read-only memory to a helper: the kernel checks
 * a read of the argument's size through the struct (check_ptr_to_btf_access)
 * and refuses it where the helper may write.
 */

struct task_struct {
	char comm[16];
} __attribute__((preserve_access_index));


// vercheck: accept
SEC("tp_btf/task_newtask")
int sw_btf_mem_comm(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];

	return bpf_strncmp(task->comm, sizeof(task->comm), "bash") == 0;
}

// vercheck: reject "access beyond the end of member comm"
SEC("tp_btf/task_newtask")
int sw_btf_mem_comm_too_long(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];

	return bpf_strncmp(task->comm, sizeof(task->comm) + 1, "bash") == 0;
}

// vercheck: reject "bpf_probe_read_kernel() may write into memory pointed by R1 type=trusted_ptr_"
SEC("tp_btf/task_newtask")
int sw_btf_mem_write(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];

	bpf_probe_read_kernel(task->comm, 4, task);
	return 0;
}

char _license[] SEC("license") = "GPL";

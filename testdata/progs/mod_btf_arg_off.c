#include "progs.h"

/* BTF pointers passed to helpers and kfuncs at a fixed offset into a
 * struct: the kernel's btf_struct_ids_match walks from the pointer's
 * struct to the struct that starts at that offset (through nested structs,
 * anonymous unions and array elements) and compares it with the struct the
 * argument wants. Production programs do this with &file->f_path for
 * bpf_d_path. struct cgroup_root holds its struct cgroup (cgrp) at offset
 * 64; struct file holds its struct path (f_path, in an anonymous union) at
 * offset 64. */

struct {
	__uint(type, 32); /* BPF_MAP_TYPE_CGRP_STORAGE */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} cgrp_store SEC(".maps");

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct cgroup {
	int level;
} __attribute__((preserve_access_index));

struct path;

extern _Bool bpf_task_under_cgroup(struct task_struct *, struct cgroup *) __ksym;
extern struct cgroup *bpf_cgroup_acquire(struct cgroup *) __ksym;
extern void bpf_cgroup_release(struct cgroup *) __ksym;

/* Looks up the cgroup storage of the struct at off into the root. */
static __always_inline int storage_at(unsigned long long *ctx, int off)
{
	char *root = (char *)ctx[0];

	return bpf_cgrp_storage_get(&cgrp_store, (struct cgroup *)(root + off), 0, 0) != 0;
}

/* &root->cgrp is a struct cgroup. */
// vercheck: accept
SEC("tp_btf/cgroup_setup_root")
int mod_arg_off_cgrp_storage(unsigned long long *ctx)
{
	return storage_at(ctx, 64);
}

/* At offset 72 lies no struct (the css's ss pointer is there). */
// vercheck: reject "R2 is of type cgroup_root but cgroup is expected"
SEC("tp_btf/cgroup_setup_root")
int mod_arg_off_cgrp_mismatch(unsigned long long *ctx)
{
	return storage_at(ctx, 72);
}

/* The root itself, at offset 0, is no cgroup: its first member is a
 * pointer. */
// vercheck: reject "R2 is of type cgroup_root but cgroup is expected"
SEC("tp_btf/cgroup_setup_root")
int mod_arg_off_cgrp_zero(unsigned long long *ctx)
{
	return storage_at(ctx, 0);
}

/* A kfunc argument walks the same way. */
// vercheck: accept
SEC("tp_btf/cgroup_setup_root")
int mod_arg_off_kfunc(unsigned long long *ctx)
{
	char *root = (char *)ctx[0];

	return bpf_task_under_cgroup(bpf_get_current_task_btf(), (struct cgroup *)(root + 64));
}

/* An acquiring kfunc walks too (only releasing a reference, and no-cast
 * aliases, match strictly). */
// vercheck: accept
SEC("tp_btf/cgroup_setup_root")
int mod_arg_off_kfunc_acquire(unsigned long long *ctx)
{
	char *root = (char *)ctx[0];
	struct cgroup *cg = bpf_cgroup_acquire((struct cgroup *)(root + 64));

	if (cg)
		bpf_cgroup_release(cg);
	return 0;
}

/* The path of the struct at off into the task_file iterator's file. */
static __always_inline int d_path_at(unsigned long long *ctx, int off)
{
	char *file = (char *)ctx[3];
	char buf[64];

	if (!file)
		return 0;
	return bpf_d_path((struct path *)(file + off), buf, sizeof(buf)) > 0;
}

/* bpf_d_path(&file->f_path) from a task_file iterator: the path is the
 * first member of the anonymous union at offset 64. */
// vercheck: accept
SEC("iter/task_file")
int mod_arg_off_d_path(unsigned long long *ctx)
{
	return d_path_at(ctx, 64);
}

/* The file itself is not a path. */
// vercheck: reject "R1 is of type file but path is expected"
SEC("iter/task_file")
int mod_arg_off_d_path_file(unsigned long long *ctx)
{
	return d_path_at(ctx, 0);
}

char _license[] SEC("license") = "GPL";

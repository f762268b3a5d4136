// bpf_cgrp_storage_get and bpf_cgrp_storage_delete take a cgroup or NULL
// (ARG_PTR_TO_BTF_ID_OR_NULL since 6.4, like the task, inode and socket
// storage helpers: the helper checks the pointer at run time).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, 32); /* BPF_MAP_TYPE_CGRP_STORAGE */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sd_cgrp_store SEC(".maps");

// vercheck: accept
SEC("tp_btf/task_newtask")
__naked int sd_cgrp_storage_get_null(void)
{
	asm volatile (
	"r1 = %[sd_cgrp_store] ll;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_cgrp_storage_get];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_cgrp_storage_get), __imm_addr(sd_cgrp_store) : __clobber_all);
}

// vercheck: accept
SEC("tp_btf/task_newtask")
__naked int sd_cgrp_storage_delete_null(void)
{
	asm volatile (
	"r1 = %[sd_cgrp_store] ll;"
	"r2 = 0;"
	"call %[bpf_cgrp_storage_delete];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_cgrp_storage_delete), __imm_addr(sd_cgrp_store) : __clobber_all);
}

/* A number other than NULL is still no cgroup. */
// vercheck: reject "R2 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("tp_btf/task_newtask")
__naked int sd_cgrp_storage_get_number(void)
{
	asm volatile (
	"r1 = %[sd_cgrp_store] ll;"
	"r2 = 1;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_cgrp_storage_get];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_cgrp_storage_get), __imm_addr(sd_cgrp_store) : __clobber_all);
}

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sd_task_store SEC(".maps");

/* With NULL accepted, the map's type is checked after the arguments. */
// vercheck: reject "cannot pass map_type 29 into func bpf_cgrp_storage_get#210"
SEC("tp_btf/task_newtask")
__naked int sd_cgrp_storage_get_task_map(void)
{
	asm volatile (
	"r1 = %[sd_task_store] ll;"
	"r2 = 0;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_cgrp_storage_get];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_cgrp_storage_get), __imm_addr(sd_task_store) : __clobber_all);
}

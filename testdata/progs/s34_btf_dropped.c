#include "progs.h"
#include <bpf/bpf_core_read.h>

/* An object whose BTF the kernel refuses: clang leaves the parameters of
 * a naked function unnamed, and btf_func_check wants them named ("FUNC
 * s34_naked_ctx Invalid arg#1"). libbpf then loads the object without BTF
 * ("BTF is optional, ignoring"): maps without BTF, programs without
 * func_info and line_info. Every program of the object is verified so:
 * a global function is a static one, verified in its caller's context; a
 * bpf_spin_lock in a map value is plain memory, and bpf_spin_lock needs
 * BTF; bpf_obj_new has no program BTF to take a type from; a tail call in
 * a subprogram is refused (check_abnormal_return). vercheck said
 * `unsupported` for all of them (session 34). */
char _license[] SEC("license") = "GPL";

struct s34_val {
	struct bpf_spin_lock lock;
	int x;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s34_val);
} s34_locked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} s34_progs SEC(".maps");

struct s34_obj {
	__u64 a;
};

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

// vercheck: accept
SEC("socket")
__naked int s34_naked_ctx(void *ctx)
{
	asm volatile ("r0 = 0; exit;" ::: __clobber_all);
}

/* With BTF, a global function's int pointer may be NULL and this load is
 * refused; without it the function is static and sees the caller's stack
 * pointer. */
__attribute__((noinline)) int s34_deref(int *p)
{
	return *p;
}

// vercheck: accept
SEC("socket")
int s34_global_is_static(void *ctx)
{
	int v = 3;

	return s34_deref(&v);
}

// vercheck: reject "has to have BTF in order to use bpf_spin_lock"
SEC("tc")
int s34_spin_lock_no_btf(void *ctx)
{
	int key = 0;
	struct s34_val *v = bpf_map_lookup_elem(&s34_locked, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->x++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

/* The lock is plain memory: a program may write it. */
// vercheck: accept
SEC("tc")
int s34_lock_is_data(void *ctx)
{
	int key = 0;
	struct s34_val *v = bpf_map_lookup_elem(&s34_locked, &key);

	if (!v)
		return 0;
	v->lock.val = 1;
	return 0;
}

// vercheck: reject "bpf_obj_new/bpf_percpu_obj_new requires prog BTF"
SEC("tc")
int s34_obj_new_no_btf(void *ctx)
{
	struct s34_obj *o = bpf_obj_new_impl(bpf_core_type_id_local(struct s34_obj), NULL);

	if (o)
		bpf_obj_drop_impl(o, NULL);
	return 0;
}

static __attribute__((noinline)) int s34_tail_sub(void *ctx)
{
	bpf_tail_call(ctx, &s34_progs, 0);
	return 0;
}

// vercheck: reject "tail_call is not allowed in subprogs without BTF"
SEC("tc")
int s34_tail_call_sub(void *ctx)
{
	return s34_tail_sub(ctx);
}

#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Objects of the program's own BTF types: bpf_obj_new allocates one (a
 * referenced pointer to the struct, maybe NULL), the program reads and
 * writes its fields, and bpf_obj_drop frees it, releasing the reference.
 * Special fields (here a bpf_spin_lock) cannot be touched directly. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)

struct lo_node {
	__u64 a;
	__u32 b;
	__u32 c[4];
	struct lo_node *next;
};

struct lo_locked {
	__u64 x;
	struct bpf_spin_lock lock;
	__u64 y;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} lo_out SEC(".maps");

// vercheck: accept
SEC("tc")
int lo_objnew_rw(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);
	__u64 v;

	if (!n)
		return 0;
	n->a = skb->len;
	n->b = 7;
	n->c[2] = n->b + 1;
	v = n->a + n->c[2];
	bpf_obj_drop(n);
	return v & 1;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int lo_objnew_leak(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);

	if (!n)
		return 0;
	n->a = 1;
	return 0;
}

// vercheck: reject "Possibly NULL pointer passed to trusted arg0"
SEC("tc")
int lo_objnew_drop_null(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);

	bpf_obj_drop(n);
	return 0;
}

// vercheck: reject "R0 invalid mem access 'ptr_or_null_'"
SEC("tc")
int lo_objnew_unchecked(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);

	n->a = 1;
	bpf_obj_drop(n);
	return 0;
}

// vercheck: reject "R1 must be referenced or trusted"
SEC("tc")
__naked int lo_objdrop_ctx(void)
{
	asm volatile (
	"r2 = 0;"
	"call %[bpf_obj_drop_impl];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_obj_drop_impl)
	: __clobber_all);
}

// vercheck: reject "R1 must be referenced or trusted"
SEC("tc")
int lo_objdrop_twice(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);

	if (!n)
		return 0;
	bpf_obj_drop(n);
	bpf_obj_drop(n);
	return 0;
}

// vercheck: reject "direct access to bpf_spin_lock is disallowed"
SEC("tc")
int lo_objnew_lock_field(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);
	int v;

	if (!n)
		return 0;
	v = *(volatile int *)&n->lock;
	bpf_obj_drop(n);
	return v;
}

// vercheck: accept
SEC("tc")
int lo_objnew_lock_struct(struct __sk_buff *skb)
{
	struct lo_locked *n = bpf_obj_new(struct lo_locked);
	__u64 v;

	if (!n)
		return 0;
	n->x = 1;
	n->y = 2;
	v = n->x + n->y;
	bpf_obj_drop(n);
	return v;
}

// vercheck: reject "access beyond struct lo_node"
SEC("tc")
int lo_objnew_beyond(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);
	__u64 v;

	if (!n)
		return 0;
	v = ((volatile __u64 *)n)[6];
	bpf_obj_drop(n);
	return v;
}

// vercheck: accept
SEC("tc")
int lo_objnew_ptr_member(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);
	__u64 v;

	if (!n)
		return 0;
	n->next = (void *)0;
	v = (__u64)n->next;
	bpf_obj_drop(n);
	return v != 0;
}

// vercheck: reject "bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct"
SEC("tc")
__naked int lo_objnew_bad_id(void)
{
	asm volatile (
	"r1 = 0;"
	"r2 = 0;"
	"call %[bpf_obj_new_impl];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_obj_new_impl)
	: __clobber_all);
}

// vercheck: reject "R1 must be a known constant"
SEC("tc")
int lo_objnew_var_id(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new_impl(skb->len, NULL);

	if (n)
		bpf_obj_drop(n);
	return 0;
}

// vercheck: accept
SEC("tc")
int lo_objnew_store_ptr(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);
	struct lo_node *m;

	if (!n)
		return 0;
	m = bpf_obj_new(struct lo_node);
	if (!m) {
		bpf_obj_drop(n);
		return 0;
	}
	m->a = 3;
	n->a = m->a;
	bpf_obj_drop(m);
	bpf_obj_drop(n);
	return 0;
}
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

// vercheck: reject "arg#0 expected pointer to allocated object"
SEC("tc")
int lo_objdrop_kernel_ptr(struct __sk_buff *skb)
{
	bpf_obj_drop(bpf_cast_to_kern_ctx(skb));
	return 0;
}

// vercheck: reject "R1 must have zero offset when passed to release func or trusted arg to kfunc"
SEC("tc")
int lo_objdrop_inner(struct __sk_buff *skb)
{
	struct lo_node *n = bpf_obj_new(struct lo_node);

	if (!n)
		return 0;
	bpf_obj_drop(&n->b);
	return 0;
}

char _license[] SEC("license") = "GPL";

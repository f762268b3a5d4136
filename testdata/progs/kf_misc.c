#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Casts, lookups and string kfuncs of the common and generic sets. */

struct sk_buff {
	unsigned int len;
} __attribute__((preserve_access_index));

struct xdp_buff {
	unsigned int frame_sz;
} __attribute__((preserve_access_index));

struct sock {
	unsigned int sk_rcvbuf;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct kmem_cache {
	unsigned int size;
} __attribute__((preserve_access_index));

struct cgroup {
	int level;
} __attribute__((preserve_access_index));

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;
extern void *bpf_rdonly_cast(const void *obj__ign, __u32 btf_id__k) __ksym;
extern struct kmem_cache *bpf_get_kmem_cache(__u64 addr) __ksym;
extern struct task_struct *bpf_task_from_vpid(__s32 vpid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern struct cgroup *bpf_cgroup_from_id(__u64 cgid) __ksym;
extern struct cgroup *bpf_cgroup_ancestor(struct cgroup *cgrp, int level) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;
extern int bpf_strlen(const char *s__ign) __ksym;
extern int bpf_strcmp(const char *s1__ign, const char *s2__ign) __ksym;

/* The kernel's sk_buff behind a tc program's context. */
// vercheck: accept
SEC("tc")
int kf_kern_ctx_skb(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);

	return skb->len > 100;
}

/* ... and the xdp_buff behind an XDP program's. */
// vercheck: accept
SEC("xdp")
int kf_kern_ctx_xdp(struct xdp_md *ctx)
{
	struct xdp_buff *xdp = bpf_cast_to_kern_ctx(ctx);

	return xdp->frame_sz > 100 ? XDP_PASS : XDP_DROP;
}

/* A socket program's context is the kernel's sock. */
// vercheck: accept
SEC("cgroup/sock_create")
int kf_kern_ctx_sock(struct bpf_sock *ctx)
{
	struct sock *sk = bpf_cast_to_kern_ctx(ctx);

	return sk->sk_rcvbuf > 10;
}

/* Only the context may be cast. */
// vercheck: reject "arg#0 expected pointer to ctx, but got fp"
SEC("tc")
__naked int kf_kern_ctx_not_ctx(void)
{
	asm volatile(
		"r1 = r10;"
		"r1 += -8;"
		"call %[bpf_cast_to_kern_ctx];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_cast_to_kern_ctx)
		: __clobber_all);
}

/* A socket filter's context is an sk_buff too. */
// vercheck: accept
SEC("socket")
int kf_kern_ctx_socket(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);

	return skb->len & 1;
}

/* Any value may be read as a struct through bpf_rdonly_cast. */
// vercheck: accept
SEC("tc")
int kf_rdonly_cast_read(struct __sk_buff *ctx)
{
	struct task_struct *t;

	t = bpf_rdonly_cast((void *)(long)ctx->mark, bpf_core_type_id_kernel(struct task_struct));
	return t->pid & 1;
}

/* ... but never written. */
// vercheck: reject "only read is supported"
SEC("tp_btf/task_newtask")
int kf_rdonly_cast_write(void *ctx)
{
	struct task_struct *t;

	t = bpf_rdonly_cast(ctx, bpf_core_type_id_kernel(struct task_struct));
	t->pid = 1;
	return 0;
}

/* The type id must be a constant. */
// vercheck: reject "R2 must be a known constant"
SEC("tc")
__naked int kf_rdonly_cast_var_id(void)
{
	asm volatile(
		"r2 = *(u32 *)(r1 + 0);"
		"call %[bpf_rdonly_cast];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_rdonly_cast)
		: __clobber_all);
}

/* A type id the kernel does not have. */
// vercheck: reject "Unknown type ID 268435455 passed to kfunc bpf_rdonly_cast"
SEC("tc")
__naked int kf_rdonly_cast_bad_id(void)
{
	asm volatile(
		"r2 = 0xfffffff;"
		"call %[bpf_rdonly_cast];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_rdonly_cast)
		: __clobber_all);
}

/* bpf_get_kmem_cache returns an untrusted pointer that may be read. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int kf_kmem_cache(void *ctx)
{
	struct kmem_cache *s = bpf_get_kmem_cache(bpf_get_current_task());

	if (!s)
		return 0;
	return s->size & 1;
}

/* Its argument is an address, not a pointer. */
// vercheck: reject "R1 is not a scalar"
SEC("tp_btf/task_newtask")
int kf_kmem_cache_ptr_arg(void *ctx)
{
	struct kmem_cache *s = bpf_get_kmem_cache((__u64)ctx);

	return s != 0;
}

/* A task looked up by its pid in the current namespace, released. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int kf_task_from_vpid(void *ctx)
{
	struct task_struct *t = bpf_task_from_vpid(1);
	int pid;

	if (!t)
		return 0;
	pid = t->pid;
	bpf_task_release(t);
	return pid & 1;
}

/* ... and not released. */
// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tp_btf/task_newtask")
int kf_task_from_vpid_leak(void *ctx)
{
	struct task_struct *t = bpf_task_from_vpid(1);

	return t != 0;
}

/* A cgroup's ancestor is another reference. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int kf_cgroup_ancestor(void *ctx)
{
	struct cgroup *cg = bpf_cgroup_from_id(1), *anc;
	int level = 0;

	if (!cg)
		return 0;
	anc = bpf_cgroup_ancestor(cg, 1);
	if (anc) {
		level = anc->level;
		bpf_cgroup_release(anc);
	}
	bpf_cgroup_release(cg);
	return level & 1;
}

/* The ancestor wants a trusted or RCU cgroup, never NULL. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg0"
SEC("tp_btf/task_newtask")
int kf_cgroup_ancestor_null(void *ctx)
{
	struct cgroup *cg = bpf_cgroup_from_id(1), *anc;

	anc = bpf_cgroup_ancestor(cg, 1);
	if (anc)
		bpf_cgroup_release(anc);
	if (cg)
		bpf_cgroup_release(cg);
	return 0;
}

/* String kfuncs take any pointer (their arguments are ignored by the
 * verifier and probed at run time). */
// vercheck: accept
SEC("socket")
int kf_strings(struct __sk_buff *skb)
{
	char a[4] = "abc", b[4] = "abd";

	return (bpf_strlen(a) + bpf_strcmp(a, b)) & 1;
}

char _license[] SEC("license") = "GPL";

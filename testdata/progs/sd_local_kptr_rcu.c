// Plain loads of referenced kptrs to the program's own structs: every type
// of the program's BTF is RCU protected (rcu_protected_object), so inside
// an RCU read section btf_ld_kptr_type makes the load an RCU-protected
// allocated object that may be NULL (rcu_ptr_or_null_), which the program
// may write through once checked but owns no reference to; in a sleepable
// program outside a read section it is untrusted, read-only.
#include "progs.h"
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))

struct sd_obj {
	__u64 a;
	__u64 b;
};

struct sd_val {
	struct sd_obj __kptr *owned;
};

/* A refcounted struct loads the same way. */
struct bpf_refcount {
	__u32 __opaque[1];
} __attribute__((aligned(4)));

struct sd_rc_obj {
	__u64 a;
	struct bpf_refcount r;
};

struct sd_rc_val {
	struct sd_rc_obj __kptr *owned;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct sd_val);
} sd_objs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct sd_rc_val);
} sd_rc_objs SEC(".maps");

static __always_inline struct sd_val *sd_lookup(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&sd_objs, &k);
}

/* A new object (which gives the struct its full BTF). */
// vercheck: accept
SEC("tc")
int sd_local_obj_new_drop(struct __sk_buff *skb)
{
	struct sd_obj *o = bpf_obj_new(struct sd_obj);

	if (o)
		bpf_obj_drop(o);
	return 0;
}

/* The same for the refcounted struct. */
// vercheck: accept
SEC("tc")
int sd_local_rc_obj_new_drop(struct __sk_buff *skb)
{
	struct sd_rc_obj *o = bpf_obj_new(struct sd_rc_obj);

	if (o)
		bpf_obj_drop(o);
	return 0;
}

/* Written through once checked. */
// vercheck: accept
SEC("tc")
int sd_local_kptr_rcu_write(struct __sk_buff *skb)
{
	struct sd_val *v = sd_lookup();
	struct sd_obj *o;

	if (!v)
		return 0;
	o = v->owned;
	if (!o)
		return 0;
	o->a = o->b + 1;
	return 0;
}

/* The same through a kptr to a refcounted struct. */
// vercheck: accept
SEC("tc")
int sd_local_kptr_rcu_refcounted_write(struct __sk_buff *skb)
{
	int k = 0;
	struct sd_rc_val *v = bpf_map_lookup_elem(&sd_rc_objs, &k);
	struct sd_rc_obj *o;

	if (!v)
		return 0;
	o = v->owned;
	if (!o)
		return 0;
	o->a = 2;
	return 0;
}

/* Not checked: the RCU pointer may be NULL. */
// vercheck: reject "R1 invalid mem access 'rcu_ptr_or_null_'"
SEC("tc")
__naked int sd_local_kptr_rcu_unchecked(void)
{
	asm volatile (
	"r6 = 0;"
	"*(u32 *)(r10 - 4) = r6;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[sd_objs] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r1 = *(u64 *)(r0 + 0);"
	"r0 = *(u64 *)(r1 + 0);"
	"1:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_map_lookup_elem), __imm_addr(sd_objs) : __clobber_all);
}

/* The program owns no reference to it: it cannot drop it. */
// vercheck: reject "R1 must be referenced or trusted"
SEC("tc")
int sd_local_kptr_rcu_drop(struct __sk_buff *skb)
{
	struct sd_val *v = sd_lookup();
	struct sd_obj *o;

	if (!v)
		return 0;
	o = v->owned;
	if (!o)
		return 0;
	bpf_obj_drop(o);
	return 0;
}

/* A sleepable program outside an RCU read section reads it untrusted. */
// vercheck: reject "only read is supported"
SEC("syscall")
int sd_local_kptr_sleepable_write(void *ctx)
{
	struct sd_val *v = sd_lookup();
	struct sd_obj *o;

	if (!v)
		return 0;
	o = v->owned;
	if (!o)
		return 0;
	o->a = 1;
	return 0;
}

/* Inside a read section it is an RCU pointer again. */
// vercheck: accept
SEC("syscall")
int sd_local_kptr_sleepable_rcu_write(void *ctx)
{
	struct sd_val *v = sd_lookup();
	struct sd_obj *o;

	if (!v)
		return 0;
	bpf_rcu_read_lock();
	o = v->owned;
	if (o)
		o->a = 1;
	bpf_rcu_read_unlock();
	return 0;
}

/* The unlock makes it untrusted: no longer writable. */
// vercheck: reject "only read is supported"
SEC("syscall")
int sd_local_kptr_rcu_unlock_write(void *ctx)
{
	struct sd_val *v = sd_lookup();
	struct sd_obj *o;

	if (!v)
		return 0;
	bpf_rcu_read_lock();
	o = v->owned;
	bpf_rcu_read_unlock();
	if (o)
		o->a = 1;
	return 0;
}

#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Kptrs to objects of the program's own types in map values: bpf_kptr_xchg
 * takes the stored object out as an allocated object the program owns and
 * must drop; a plain load gives an untrusted pointer that may be NULL,
 * readable but not writable, and not an object bpf_obj_drop takes. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))
#define __kptr_untrusted __attribute__((btf_type_tag("kptr_untrusted")))

struct lo_obj {
	__u64 a;
	__u64 b;
};

struct lo_val {
	struct lo_obj __kptr *owned;
	struct lo_obj __kptr_untrusted *seen;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct lo_val);
} lo_objs SEC(".maps");

static __always_inline struct lo_val *lo_lookup(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&lo_objs, &k);
}

// vercheck: accept
SEC("tc")
int lo_kptr_take(struct __sk_buff *skb)
{
	struct lo_val *v = lo_lookup();
	struct lo_obj *o;

	if (!v)
		return 0;
	o = bpf_kptr_xchg(&v->owned, NULL);
	if (!o)
		return 0;
	o->a += o->b;
	bpf_obj_drop(o);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int lo_kptr_take_leak(struct __sk_buff *skb)
{
	struct lo_val *v = lo_lookup();
	struct lo_obj *o;

	if (!v)
		return 0;
	o = bpf_kptr_xchg(&v->owned, NULL);
	if (!o)
		return 0;
	o->a = 1;
	return 0;
}

// vercheck: accept
SEC("tc")
int lo_kptr_load(struct __sk_buff *skb)
{
	struct lo_val *v = lo_lookup();
	struct lo_obj *o;

	if (!v)
		return 0;
	o = v->owned;
	if (!o)
		return 0;
	return o->a == 3;
}

// vercheck: reject "only read is supported"
SEC("tc")
int lo_kptr_load_write(struct __sk_buff *skb)
{
	struct lo_val *v = lo_lookup();
	struct lo_obj *o;

	if (!v)
		return 0;
	o = v->seen;
	if (!o)
		return 0;
	o->a = 3;
	return 0;
}

// vercheck: reject "R1 must be referenced or trusted"
SEC("tc")
int lo_kptr_load_drop(struct __sk_buff *skb)
{
	struct lo_val *v = lo_lookup();
	struct lo_obj *o;

	if (!v)
		return 0;
	o = v->owned;
	if (!o)
		return 0;
	bpf_obj_drop(o);
	return 0;
}

// vercheck: reject "store to referenced kptr disallowed"
SEC("tc")
int lo_kptr_store_owned(struct __sk_buff *skb)
{
	struct lo_val *v = lo_lookup();

	if (!v)
		return 0;
	v->owned = (void *)v->seen;
	return 0;
}

// vercheck: reject "invalid kptr access, R0 type=trusted_ptr_sk_buff expected=ptr_lo_obj or untrusted_ptr_lo_obj"
SEC("tc")
int lo_kptr_store_kernel(struct __sk_buff *skb)
{
	struct lo_val *v = lo_lookup();

	if (!v)
		return 0;
	v->seen = bpf_cast_to_kern_ctx(skb);
	return 0;
}

/* Allocating the type makes clang emit it whole, not as a forward
 * declaration, so that the kptr fields point to a struct. */
// vercheck: accept
SEC("tc")
int lo_kptr_new_drop(struct __sk_buff *skb)
{
	struct lo_obj *o = bpf_obj_new(struct lo_obj);

	if (o)
		bpf_obj_drop(o);
	return 0;
}

char _license[] SEC("license") = "GPL";

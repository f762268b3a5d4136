#include "progs.h"
#include <bpf/bpf_core_read.h>

/* A kptr field counts only when btf_find_kptr takes it: a pointer tagged
 * "kptr" to a struct. One to a forward declaration (a struct the program
 * never defines) is refused, so btf_parse_struct_metas makes no record for
 * a struct whose only special member it is: the object is plain memory,
 * and bpf_kptr_xchg on it finds no kptr at all, at the field or beside
 * it. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))

struct s20_undefined;

struct s20_fwd_holder {
	__u64 pad;
	struct s20_undefined __kptr *leaf;
};

// vercheck: reject "R1 has no valid kptr"
SEC("tc")
int s20_xchg_fwd_kptr(struct __sk_buff *skb)
{
	struct s20_fwd_holder *h = bpf_obj_new(struct s20_fwd_holder);
	struct s20_undefined *old;

	if (!h)
		return 0;
	old = bpf_kptr_xchg(&h->leaf, NULL);
	if (old)
		bpf_obj_drop(old);
	bpf_obj_drop(h);
	return 0;
}

/* One byte past the field: still no kptr, not a wrong offset. */
// vercheck: reject "R1 has no valid kptr"
SEC("tc")
int s20_xchg_fwd_kptr_off(struct __sk_buff *skb)
{
	struct s20_fwd_holder *h = bpf_obj_new(struct s20_fwd_holder);
	struct s20_undefined *old;
	void *dst;

	if (!h)
		return 0;
	dst = &h->leaf;
	asm volatile("%[d] += 1" : [d] "+r"(dst));
	old = bpf_kptr_xchg(dst, NULL);
	if (old)
		bpf_obj_drop(old);
	bpf_obj_drop(h);
	return 0;
}

/* Without a record the field is plain memory: stored and read back. */
// vercheck: accept
SEC("tc")
int s20_fwd_kptr_plain(struct __sk_buff *skb)
{
	struct s20_fwd_holder *h = bpf_obj_new(struct s20_fwd_holder);
	__u64 *slot;
	int ret;

	if (!h)
		return 0;
	slot = (__u64 *)&h->leaf;
	*slot = skb->len;
	ret = *slot & 1;
	bpf_obj_drop(h);
	return ret;
}

/* In a map value the same pointer makes btf_parse_fields fail: the map
 * keeps no record, its value is plain memory, and there is no kptr to
 * exchange. */
struct s20_fwd_val {
	__u64 a;
	struct s20_undefined __kptr *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s20_fwd_val);
} s20_fwd_map SEC(".maps");

// vercheck: reject "R1 has no valid kptr"
SEC("tc")
int s20_map_xchg_fwd_kptr(struct __sk_buff *skb)
{
	int k = 0;
	struct s20_fwd_val *v = bpf_map_lookup_elem(&s20_fwd_map, &k);

	if (!v)
		return 0;
	bpf_kptr_xchg(&v->p, NULL);
	return 0;
}

// vercheck: accept
SEC("tc")
int s20_map_fwd_kptr_plain(struct __sk_buff *skb)
{
	int k = 0;
	struct s20_fwd_val *v = bpf_map_lookup_elem(&s20_fwd_map, &k);

	if (!v)
		return 0;
	*(__u64 *)&v->p = skb->len;
	return *(__u32 *)&v->p & 1;
}

char _license[] SEC("license") = "GPL";

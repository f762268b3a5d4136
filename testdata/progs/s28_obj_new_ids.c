#include "progs.h"
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

/* bpf_obj_new's type id is an id of the BTF the program is loaded with:
 * libbpf loads the object's whole BTF as the compiler numbered it, so an
 * id no bpf_core_type_id_local relocation wrote names whatever type has
 * that number there (the kernel's btf_type_by_id), and one past its last
 * type names none. The ids around a relocated one are the struct's
 * neighbours: its members' types and the types declared after it. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

struct s28_obj {
	__u64 a;
	struct s28_inner {
		__u32 x;
		__u32 y;
	} in;
};

struct s28_after {
	__u64 z;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s28_after);
} s28_objs SEC(".maps");

static __always_inline int new_at(int delta)
{
	void *p = bpf_obj_new_impl(bpf_core_type_id_local(struct s28_obj) + delta, NULL);

	if (p)
		bpf_obj_drop_impl(p, NULL);
	return 0;
}

// vercheck: accept
SEC("tc")
int s28_new_relocated(struct __sk_buff *skb) { return new_at(0); }

/* The next type is the nested struct s28_inner. */
// vercheck: accept
SEC("tc")
int s28_new_next(struct __sk_buff *skb) { return new_at(1); }

/* Then the prototype of bpf_obj_new_impl. */
// vercheck: reject "bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct"
SEC("tc")
int s28_new_next2(struct __sk_buff *skb) { return new_at(2); }

/* The type before is the first program's function. */
// vercheck: reject "bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct"
SEC("tc")
int s28_new_prev(struct __sk_buff *skb) { return new_at(-1); }

// vercheck: reject "bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct"
SEC("tc")
int s28_new_past_end(struct __sk_buff *skb) { return new_at(100000); }

// vercheck: reject "bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct"
SEC("tc")
int s28_new_one(struct __sk_buff *skb)
{
	void *p = bpf_obj_new_impl(1, NULL);

	if (p)
		bpf_obj_drop_impl(p, NULL);
	return 0;
}

// save_aux_ptr_type compares a load's or store's pointer type with its
// flags: a store that sees an object the program owns (MEM_ALLOC) on one
// path and one it loaded from a kptr in an RCU section (MEM_ALLOC |
// MEM_RCU) on another is refused; a load may mix them (the kernel falls
// back to an untrusted access), and so may an atomic, which 6.18 records
// only for the arena.
#include "progs.h"
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))
struct sd_mx_obj { __u64 a; __u64 b; };
struct sd_mx_val { struct sd_mx_obj __kptr *owned; };
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, int); __type(value, struct sd_mx_val); } sd_mx_objs SEC(".maps");
// vercheck: reject "same insn cannot be used with different pointers"
SEC("tc")
int sd_mx_store(struct __sk_buff *skb)
{
	int k = 0;
	struct sd_mx_val *v = bpf_map_lookup_elem(&sd_mx_objs, &k);
	struct sd_mx_obj *n, *o, *p;
	if (!v) return 0;
	n = bpf_obj_new(struct sd_mx_obj);
	if (!n) return 0;
	o = v->owned;
	if (!o) { bpf_obj_drop(n); return 0; }
	p = o;
	if (skb->len & 1)
		p = n;
	asm volatile("" : "+r"(p));
	p->a = 1;
	bpf_obj_drop(n);
	return 0;
}
// vercheck: accept
SEC("tc")
int sd_mx_load(struct __sk_buff *skb)
{
	int k = 0;
	struct sd_mx_val *v = bpf_map_lookup_elem(&sd_mx_objs, &k);
	struct sd_mx_obj *n, *o, *p;
	__u64 r;
	if (!v) return 0;
	n = bpf_obj_new(struct sd_mx_obj);
	if (!n) return 0;
	o = v->owned;
	if (!o) { bpf_obj_drop(n); return 0; }
	p = o;
	if (skb->len & 1)
		p = n;
	asm volatile("" : "+r"(p));
	r = p->a;
	bpf_obj_drop(n);
	return r;
}
// vercheck: accept
SEC("tc")
int sd_mx_atomic(struct __sk_buff *skb)
{
	int k = 0;
	struct sd_mx_val *v = bpf_map_lookup_elem(&sd_mx_objs, &k);
	struct sd_mx_obj *n, *o, *p;
	if (!v) return 0;
	n = bpf_obj_new(struct sd_mx_obj);
	if (!n) return 0;
	o = v->owned;
	if (!o) { bpf_obj_drop(n); return 0; }
	p = o;
	if (skb->len & 1)
		p = n;
	asm volatile("" : "+r"(p));
	__sync_fetch_and_add(&p->a, 1);
	bpf_obj_drop(n);
	return 0;
}

#include "progs.h"
#include <bpf/bpf_core_read.h>

/* A NULL stored into an unreferenced kptr field skips the type match
 * (check_map_kptr_access), and this machine's kernel marks it precise
 * (stablefix.KptrNullStorePrecise): a path storing a number, which the
 * type match refuses, is not pruned against it. Found from a level-2 log
 * difference of bit-flip fuzzing (vercheck logged no precision walk at
 * the store); without the mark it was a false accept. */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define bpf_obj_new(type) ((type *)bpf_obj_new_impl(bpf_core_type_id_local(type), NULL))
#define bpf_obj_drop(kptr) bpf_obj_drop_impl(kptr, NULL)
#define __kptr __attribute__((btf_type_tag("kptr")))
#define __kptr_untrusted __attribute__((btf_type_tag("kptr_untrusted")))

char _license[] SEC("license") = "GPL";

struct s29_obj {
	__u64 a;
};

struct s29_val {
	struct s29_obj __kptr *owned;
	struct s29_obj __kptr_untrusted *seen;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s29_val);
} s29_objs SEC(".maps");

/* NULL on the path walked first, 5 on the other; they join before the
 * store. */
// vercheck: reject "invalid kptr access, R1 type=scalar expected=ptr_s29_obj or untrusted_ptr_s29_obj"
// vercheck: accept without kptr-null-store-precise
SEC("tc")
__naked int s29_kptr_null_then_number(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[s29_objs] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 9f;"
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"if r0 > 5 goto 1f;"
	"r1 = 0;"
	"goto 2f;"
	"1:"
	"r1 = 5;"
	"2:"
	"r2 = 0;"
	"r2 = 0;"
	"r2 = 0;"
	"r2 = 0;"
	"r2 = 0;"
	"if r6 == 7 goto 3f;"
	"3:"
	"*(u64 *)(r6 + 8) = r1;"
	"9:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(s29_objs)
	: __clobber_all);
}

/* NULL on both paths: the precise zeros are equal and the second path is
 * pruned. */
// vercheck: accept
SEC("tc")
__naked int s29_kptr_null_twice(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[s29_objs] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 9f;"
	"r6 = r0;"
	"call %[bpf_get_prandom_u32];"
	"if r0 > 5 goto 1f;"
	"r1 = 0;"
	"goto 2f;"
	"1:"
	"r1 = 0;"
	"2:"
	"r2 = 0;"
	"r2 = 0;"
	"r2 = 0;"
	"r2 = 0;"
	"r2 = 0;"
	"if r6 == 7 goto 3f;"
	"3:"
	"*(u64 *)(r6 + 8) = r1;"
	"9:"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_get_prandom_u32), __imm(bpf_map_lookup_elem), __imm_addr(s29_objs)
	: __clobber_all);
}

/* In C: the object's own type, as bpf_obj_new gives it. */
// vercheck: accept
SEC("tc")
int s29_kptr_c(struct __sk_buff *skb)
{
	int k = 0;
	struct s29_val *v = bpf_map_lookup_elem(&s29_objs, &k);
	struct s29_obj *o;

	if (!v)
		return 0;
	v->seen = 0;
	o = bpf_obj_new(struct s29_obj);
	if (!o)
		return 0;
	o = bpf_kptr_xchg(&v->owned, o);
	if (o)
		bpf_obj_drop(o);
	return 0;
}

/* A read past a struct into its flexible array of empty structs, through
 * a referenced kptr loaded from a map value (a plain BTF pointer to the
 * program's struct): btf_struct_walk takes the offset modulo the element
 * size, 0, and the 6.18 kernel oopses with a divide error (7.x refuses
 * the access: "access beyond struct ... at off 4 size 1"). Never load it;
 * vercheck must say unsupported with ErrKernelFault (found when the 7.3
 * selftests were swept against the live kernel, session 33).
 * Built with: clang-19 -O2 -g -target bpfel -mcpu=v3
 *   -I../../../testdata/progs -I/usr/include/x86_64-linux-gnu -c flex_empty.c */
#include "progs.h"
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;

#define __kptr __attribute__((btf_type_tag("kptr")))

struct fe_empty {};

struct fe_batch {
	int nr;
	struct fe_empty events[];
};

struct fe_value {
	struct fe_batch __kptr *batch;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct fe_value);
} fe_map SEC(".maps");

SEC("syscall")
int fe_stash_and_peek(void *ctx)
{
	struct fe_batch *b, *old;
	struct fe_value *v;
	int key = 0;

	v = bpf_map_lookup_elem(&fe_map, &key);
	if (!v)
		return 0;
	b = bpf_obj_new_impl(bpf_core_type_id_local(struct fe_batch), NULL);
	if (!b)
		return 0;
	b->nr = 1;
	old = bpf_kptr_xchg(&v->batch, b);
	if (old)
		bpf_obj_drop_impl(old, NULL);
	b = v->batch;
	if (!b)
		return 0;
	return b->nr + *(char *)&b->events[0];
}

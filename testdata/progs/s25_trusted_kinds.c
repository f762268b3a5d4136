// A global function's arg:trusted pointer may point to any named kernel
// type, not only a struct (btf_get_ptr_to_btf_id finds the candidate of the
// pointee's kind): an int, an enum or a union. The callee may test it for
// NULL; a load through it walks the type, and btf_struct_walk refuses a
// type that is neither struct nor union ("Type '%s' is not a struct").
// Callers pass NULL (nullable) or a trusted pointer of that very type.
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __arg_trusted __attribute__((btf_decl_tag("arg:trusted")))
#define __arg_nullable __attribute__((btf_decl_tag("arg:nullable")))

__noinline int tk_int(unsigned int *p __arg_trusted __arg_nullable)
{
	return 0;
}

__noinline int tk_int_deref(unsigned int *p __arg_trusted __arg_nullable)
{
	if (!p)
		return 0;
	return *p & 1;
}

__noinline int tk_union(union bpf_attr *a __arg_trusted __arg_nullable)
{
	if (!a)
		return 0;
	return a->map_type & 1;
}

__noinline int tk_enum(enum bpf_map_type *m __arg_trusted __arg_nullable)
{
	if (!m)
		return 0;
	return *m & 1;
}

__noinline int tk_union_nonull(union bpf_attr *a __arg_trusted)
{
	return a->map_type & 1;
}

// vercheck: accept
SEC("tp_btf/sched_switch")
__naked int tk_int_null(void)
{
	asm volatile("r1 = 0; call tk_int; exit;" ::: __clobber_all);
}

// vercheck: reject "Caller passes invalid args into func#1 ('tk_int')"
SEC("tp_btf/sched_switch")
__naked int tk_int_task(void)
{
	asm volatile("call 158; r1 = r0; call tk_int; exit;" ::: __clobber_all);
}

// vercheck: reject "Type 'unsigned int' is not a struct"
SEC("tp_btf/sched_switch")
__naked int tk_int_deref_null(void)
{
	asm volatile("r1 = 0; call tk_int_deref; exit;" ::: __clobber_all);
}

// vercheck: accept
SEC("tp_btf/sched_switch")
__naked int tk_union_null(void)
{
	asm volatile("r1 = 0; call tk_union; exit;" ::: __clobber_all);
}

// vercheck: reject "Type 'bpf_map_type' is not a struct"
SEC("tp_btf/sched_switch")
__naked int tk_enum_null(void)
{
	asm volatile("r1 = 0; call tk_enum; exit;" ::: __clobber_all);
}

// vercheck: reject "Caller passes invalid args into func#1 ('tk_union_nonull')"
SEC("tp_btf/sched_switch")
__naked int tk_union_task(void)
{
	asm volatile("call 158; r1 = r0; call tk_union_nonull; exit;" ::: __clobber_all);
}


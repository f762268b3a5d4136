#include "progs.h"
#include <bpf/bpf_core_read.h>

/* A uptr in an allocated object: btf_parse_struct_metas asks for no
 * BPF_UPTR, so the member is a plain pointer (its load an untrusted
 * read-only pointer), at the top of the struct or nested in a member.
 * vercheck took a top-level one for a field ("direct access to uptr is
 * disallowed", at another instruction than the kernel) and a nested one
 * for an unmodelled nested field (unsupported; the 7.3 selftests'
 * uptr_failure.c:uptr_obj_new). Session 34. */
char _license[] SEC("license") = "GPL";
extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
struct s34_up_data { int a; int b; };
struct s34_up_nested { struct s34_up_data __attribute__((btf_type_tag("uptr"))) *u; };
struct s34_up_ltop { struct bpf_spin_lock l; struct s34_up_data __attribute__((btf_type_tag("uptr"))) *u; long x; };
struct s34_up_lnest { struct bpf_spin_lock l; long x; struct s34_up_nested n; };

// vercheck: reject "R1 cannot write into rdonly_untrusted_mem"
SEC("syscall") int s34_up_ltop_read(void *ctx)
{
	struct s34_up_ltop *v = bpf_obj_new_impl(bpf_core_type_id_local(struct s34_up_ltop), 0);
	if (!v) return 0;
	if (v->u) v->u->a = 0;
	bpf_obj_drop_impl(v, 0);
	return 0;
}
// vercheck: reject "R6 32-bit pointer arithmetic prohibited"
SEC("syscall") int s34_up_ltop_scalar(void *ctx)
{
	struct s34_up_ltop *v = bpf_obj_new_impl(bpf_core_type_id_local(struct s34_up_ltop), 0);
	long r;
	if (!v) return 0;
	r = (long)v->u;
	v->u = (void *)0;
	bpf_obj_drop_impl(v, 0);
	return r & 1;
}
// vercheck: reject "R1 cannot write into rdonly_untrusted_mem"
SEC("syscall") int s34_up_lnest_read(void *ctx)
{
	struct s34_up_lnest *v = bpf_obj_new_impl(bpf_core_type_id_local(struct s34_up_lnest), 0);
	if (!v) return 0;
	if (v->n.u) v->n.u->a = 0;
	bpf_obj_drop_impl(v, 0);
	return 0;
}
// vercheck: reject "R6 32-bit pointer arithmetic prohibited"
SEC("syscall") int s34_up_lnest_scalar(void *ctx)
{
	struct s34_up_lnest *v = bpf_obj_new_impl(bpf_core_type_id_local(struct s34_up_lnest), 0);
	long r;
	if (!v) return 0;
	r = (long)v->n.u;
	v->n.u = (void *)0;
	bpf_obj_drop_impl(v, 0);
	return r & 1;
}

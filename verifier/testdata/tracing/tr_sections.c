/* Tracing sections whose attach types the 6.18 kernel lacks, and sections
 * that name no attach target or one no BTF has
 * (tracingsections_test.go): fsession (BPF_TRACE_FSESSION, which cilium/ebpf v0.22
 * types) and libbpf 1.8's multi-function trampolines (fentry.multi,
 * fexit.multi, fsession.multi and their sleepable forms), which libbpf
 * types and cilium/ebpf does not. Built with:
 * clang-19 -O2 -g -target bpfel -mcpu=v3 -I/usr/include/x86_64-linux-gnu
 *   -c tr_sections.c */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

/* libbpf resolves the function's BTF id; bpf_check_attach_target's
 * default case refuses the unknown attach type: EINVAL, no message. */
SEC("fsession/bpf_fentry_test1")
int tr_fsession(void *ctx)
{
	return 0;
}

/* A target no BTF has: libbpf fails to find it and loads nothing. */
SEC("fsession/vercheck_no_such_function")
int tr_fsession_missing(void *ctx)
{
	return 0;
}

/* No attach BTF id: "Tracing programs must provide btf_id". */
SEC("fentry.multi/bpf_fentry_test*")
int tr_fentry_multi(void *ctx)
{
	return 0;
}

SEC("fexit.multi")
int tr_fexit_multi(void *ctx)
{
	return 0;
}

SEC("fsession.multi/bpf_fentry_test*")
int tr_fsession_multi(void *ctx)
{
	return 0;
}

/* Sleepable: can_be_sleepable refuses the attach type first. */
SEC("fentry.multi.s/bpf_fentry_test*")
int tr_fentry_multi_sleepable(void *ctx)
{
	return 0;
}

/* Sections that name no target: libbpf cannot resolve one and refuses
 * the program (EINVAL), as it refuses a struct_ops program no
 * struct_ops map references. */
SEC("fentry")
int tr_fentry_bare(void *ctx)
{
	return 0;
}

SEC("lsm")
int tr_lsm_bare(void *ctx)
{
	return 0;
}

SEC("struct_ops/tr_unreferenced")
int tr_struct_ops_unreferenced(void *ctx)
{
	return 0;
}

/* Targets no BTF has: libbpf's ESRCH, before any load. */
SEC("lsm/vercheck_no_such_hook")
int tr_lsm_missing(void *ctx)
{
	return 0;
}

SEC("iter/vercheck_no_such_iter")
int tr_iter_missing(void *ctx)
{
	return 0;
}

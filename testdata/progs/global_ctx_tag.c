// Global functions whose arg:ctx argument names a type other than the
// program type's canonical context struct: raw tracepoint, tracepoint and
// perf_event programs accept some of these (u64 pointers, any type, the
// pt_regs register file).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define __ctx_arg __attribute__((btf_decl_tag("arg:ctx")))

struct pt_regs {
	unsigned long r15;
};
struct any_tp_record {
	int unused;
};

__weak int first_raw_arg(unsigned long long *args __ctx_arg)
{
	return args ? 1 : 0;
}

// vercheck: accept
SEC("raw_tp")
int raw_tp_u64_ctx_arg(void *ctx)
{
	return first_raw_arg(ctx);
}

__weak int tp_record_arg(struct any_tp_record *rec __ctx_arg)
{
	return rec ? 2 : 0;
}

// vercheck: accept
SEC("tp")
int tp_any_ctx_arg(void *ctx)
{
	return tp_record_arg(ctx);
}

__weak int regs_arg(struct pt_regs *regs __ctx_arg)
{
	return regs ? 3 : 0;
}

// vercheck: accept
SEC("perf_event")
int perf_pt_regs_ctx_arg(void *ctx)
{
	return regs_arg(ctx);
}

char _license[] SEC("license") = "GPL";

#include "progs.h"

/* bpf_cast_to_kern_ctx in program types whose kernel context is no struct
 * (get_kern_ctx_btf_id: the _kern member of vmlinux's struct
 * bpf_ctx_convert is the tracepoint types' u64 or the BTF-context types'
 * void *): "kern ctx type id N is not a struct", EINVAL. N is the type's
 * id in the running kernel's BTF (u64 is 38 and void * 108 on the
 * -fc-v1252 build), so the expectations leave it out. */

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

// vercheck: reject "is not a struct"
SEC("tracepoint/syscalls/sys_enter_nanosleep")
int s23_kctx_tracepoint(void *ctx)
{
	return bpf_cast_to_kern_ctx(ctx) != 0;
}

// vercheck: reject "is not a struct"
SEC("raw_tp/sys_enter")
int s23_kctx_raw_tp(void *ctx)
{
	return bpf_cast_to_kern_ctx(ctx) != 0;
}

// vercheck: reject "is not a struct"
SEC("raw_tp.w/sys_enter")
int s23_kctx_raw_tp_w(void *ctx)
{
	return bpf_cast_to_kern_ctx(ctx) != 0;
}

// vercheck: reject "is not a struct"
SEC("tp_btf/sys_enter")
int s23_kctx_tp_btf(void *ctx)
{
	return bpf_cast_to_kern_ctx(ctx) != 0;
}

// vercheck: reject "is not a struct"
SEC("syscall")
int s23_kctx_syscall(void *ctx)
{
	return bpf_cast_to_kern_ctx(ctx) != 0;
}

/* A kprobe's kernel context is struct pt_regs: accepted. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
int s23_kctx_kprobe(void *ctx)
{
	return bpf_cast_to_kern_ctx(ctx) != 0;
}

char _license[] SEC("license") = "GPL";

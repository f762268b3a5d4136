#include "progs.h"

/* The syscall program type (BPF_PROG_TYPE_SYSCALL, always sleepable): the
 * context is the caller's buffer, read and written at any aligned offset
 * through the context pointer itself (syscall_prog_is_valid_access); its
 * size is checked at run time. Light skeleton loaders are such programs. */

struct args {
	__u64 a;
	__u32 b;
	__u16 c;
	__u8 d;
	__u64 out;
	char name[16];
};

/* Reads fields of every width and writes a result back. */
// vercheck: accept
SEC("syscall")
int mod_syscall_rw(struct args *ctx)
{
	ctx->out = ctx->a + ctx->b + ctx->c + ctx->d;
	return 0;
}

/* Accesses are aligned to their size. */
// vercheck: reject "invalid bpf_context access off=2 size=4"
SEC("syscall")
__naked int mod_syscall_unaligned(void)
{
	asm volatile("r0 = *(u32 *)(r1 + 2); r0 = 0; exit;" ::: __clobber_all);
}

/* The farthest offset an instruction can name is fine. */
// vercheck: accept
SEC("syscall")
__naked int mod_syscall_far(void)
{
	asm volatile("r0 = *(u8 *)(r1 + 32767); r0 = 0; exit;" ::: __clobber_all);
}

/* Nothing lies before the buffer. */
// vercheck: reject "invalid bpf_context access off=-1 size=1"
SEC("syscall")
__naked int mod_syscall_negative(void)
{
	asm volatile("r0 = *(u8 *)(r1 - 1); r0 = 0; exit;" ::: __clobber_all);
}

/* The context pointer may not be moved. */
// vercheck: reject "dereference of modified ctx ptr R1 off=8 disallowed"
SEC("syscall")
__naked int mod_syscall_modified(void)
{
	asm volatile("r1 += 8; r0 = *(u64 *)(r1 + 0); r0 = 0; exit;" ::: __clobber_all);
}

/* A privileged program may store a pointer into the buffer. */
// vercheck: accept
SEC("syscall")
__naked int mod_syscall_store_ptr(void)
{
	asm volatile("*(u64 *)(r1 + 0) = r10; r0 = 0; exit;" ::: __clobber_all);
}

/* The context is no memory argument for a helper. */
// vercheck: reject "R2 type=ctx expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("syscall")
int mod_syscall_ctx_as_mem(struct args *ctx)
{
	return bpf_sys_bpf(0, ctx, 16);
}

/* A name copied from the context to the stack goes to a syscall helper;
 * any return value is fine. */
// vercheck: accept
SEC("syscall")
int mod_syscall_btf_find(struct args *ctx)
{
	char buf[16];

	__builtin_memcpy(buf, ctx->name, 16);
	return bpf_btf_find_by_name_kind(buf, 16, 1, 0) - 7;
}

char _license[] SEC("license") = "GPL";

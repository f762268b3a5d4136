#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Loads through BTF pointers and bpf_rdonly_cast's type id. */

char _license[] SEC("license") = "GPL";

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/* A narrow scalar load through a BTF pointer is zero-extended like any
 * other load (check_mem_access coerces it to the load's size): the byte
 * indexes a 256-byte stack buffer safely. */
// vercheck: accept
SEC("tp_btf/sched_switch")
__naked int fr_btf_u8_index(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 8);"
	"r3 = *(u8 *)(r2 + 0);"
	"r4 = r10;"
	"r4 += -256;"
	"r4 += r3;"
	"r5 = 0;"
	"*(u8 *)(r4 + 0) = r5;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* A 16-bit load: [0, 0xffff], too large for the buffer. */
// vercheck: reject "invalid variable-offset write to stack R4"
SEC("tp_btf/sched_switch")
__naked int fr_btf_u16_index(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 8);"
	"r3 = *(u16 *)(r2 + 0);"
	"r4 = r10;"
	"r4 += -256;"
	"r4 += r3;"
	"r5 = 0;"
	"*(u8 *)(r4 + 0) = r5;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* A sign-extending byte load: [-128, 127]. */
// vercheck: accept
SEC("tp_btf/sched_switch")
__naked int fr_btf_s8_index(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + 8);"
	"r3 = *(s8 *)(r2 + 0);"
	"r4 = r10;"
	"r4 += -128;"
	"r4 += r3;"
	"r5 = 0;"
	"*(u8 *)(r4 + 0) = r5;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* Only the low 32 bits of bpf_rdonly_cast's type id count. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int fr_rdonly_cast_id_high_bits(void *ctx)
{
	__u64 id = bpf_core_type_id_kernel(struct task_struct);
	long r;

	asm volatile (
	"r1 = %[obj];"
	"r2 = %[id];"
	"r3 = 1;"
	"r3 <<= 32;"
	"r2 |= r3;"
	"call %[bpf_rdonly_cast];"
	"r0 = *(u32 *)(r0 + 0);"
	"%[r] = r0;"
	: [r]"=r"(r) : [obj]"r"(ctx), [id]"r"(id), __imm(bpf_rdonly_cast)
	: "r0", "r1", "r2", "r3", "r4", "r5");
	return r & 1;
}

/* An id that is no type at all. */
// vercheck: reject "Unknown type ID -1 passed to kfunc bpf_rdonly_cast"
SEC("tp_btf/sched_switch")
int fr_rdonly_cast_bad_id(void *ctx)
{
	long r;

	asm volatile (
	"r1 = %[obj];"
	"r2 = -1;"
	"call %[bpf_rdonly_cast];"
	"%[r] = r0;"
	: [r]"=r"(r) : [obj]"r"(ctx), __imm(bpf_rdonly_cast)
	: "r0", "r1", "r2", "r3", "r4", "r5");
	return r != 0;
}

/* A type that is neither a struct nor void. */
// vercheck: reject "kfunc bpf_rdonly_cast type ID argument must be of a struct or void"
SEC("tp_btf/sched_switch")
int fr_rdonly_cast_int(void *ctx)
{
	__u64 id = bpf_core_type_id_kernel(int);
	long r;

	asm volatile (
	"r1 = %[obj];"
	"r2 = %[id];"
	"call %[bpf_rdonly_cast];"
	"%[r] = r0;"
	: [r]"=r"(r) : [obj]"r"(ctx), [id]"r"(id), __imm(bpf_rdonly_cast)
	: "r0", "r1", "r2", "r3", "r4", "r5");
	return r != 0;
}

/* The plain use, so that the kfunc is declared in the object's BTF. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int fr_rdonly_cast_plain(void *ctx)
{
	struct task_struct *t = bpf_rdonly_cast(ctx, bpf_core_type_id_kernel(struct task_struct));

	return t->pid & 1;
}

#include "progs.h"

/* bpf_task_pt_regs (#175) returns the task's user registers as a plain,
 * legacy BTF pointer to struct pt_regs (RET_PTR_TO_BTF_ID without flags):
 * never NULL as far as the verifier knows, readable field by field, not
 * writable, and not trusted. Tracing agents read the syscall arguments of
 * the current task through it. */

struct task_struct;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} regs_store SEC(".maps");

/* Reads regs->di (the first syscall argument) directly. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
__naked int mod_pt_regs_read_di(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r1 = r0;"
		"call %[bpf_task_pt_regs];"
		"r0 = *(u64 *)(r0 + 112);"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_task_pt_regs)
		: __clobber_all);
}

/* The same from a tp_btf program, with the task from the context. */
// vercheck: accept
SEC("tp_btf/task_newtask")
__naked int mod_pt_regs_tp_btf(void)
{
	asm volatile(
		"r1 = *(u64 *)(r1 + 0);"
		"call %[bpf_task_pt_regs];"
		"r0 = *(u64 *)(r0 + 152);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_task_pt_regs)
		: __clobber_all);
}

/* bpf_probe_read_kernel of a field, as PT_REGS_PARM2_CORE does on older
 * loaders: the pointer is any value to the helper. */
// vercheck: accept
SEC("raw_tp/task_newtask")
__naked int mod_pt_regs_probe_read(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r1 = r0;"
		"call %[bpf_task_pt_regs];"
		"r3 = r0;"
		"r3 += 104;"
		"r1 = r10;"
		"r1 += -8;"
		"r2 = 8;"
		"call %[bpf_probe_read_kernel];"
		"r0 = *(u64 *)(r10 - 8);"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_task_pt_regs), __imm(bpf_probe_read_kernel)
		: __clobber_all);
}

/* A NULL check of the plain pointer explores both branches. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
__naked int mod_pt_regs_null_check(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r1 = r0;"
		"call %[bpf_task_pt_regs];"
		"if r0 == 0 goto l0_%=;"
		"r0 = *(u64 *)(r0 + 128);"
		"exit;"
	"l0_%=:"
		"r0 = 1;"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_task_pt_regs)
		: __clobber_all);
}

/* Kernel memory behind a BTF pointer is read-only. */
// vercheck: reject "only read is supported"
SEC("kprobe/do_nanosleep")
__naked int mod_pt_regs_write(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r1 = r0;"
		"call %[bpf_task_pt_regs];"
		"r1 = 0;"
		"*(u64 *)(r0 + 128) = r1;"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_task_pt_regs)
		: __clobber_all);
}

/* struct pt_regs is 168 bytes long. */
// vercheck: reject "access beyond struct pt_regs at off 168 size 8"
SEC("kprobe/do_nanosleep")
__naked int mod_pt_regs_beyond(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r1 = r0;"
		"call %[bpf_task_pt_regs];"
		"r0 = *(u64 *)(r0 + 168);"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_task_pt_regs)
		: __clobber_all);
}

/* The argument must be a task: the context of a kprobe is not. */
// vercheck: reject "R1 type=ctx expected=ptr_, trusted_ptr_, rcu_ptr_"
SEC("kprobe/do_nanosleep")
__naked int mod_pt_regs_ctx_arg(void)
{
	asm volatile(
		"call %[bpf_task_pt_regs];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_task_pt_regs)
		: __clobber_all);
}

/* A privileged program may store the kernel address into a map. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
__naked int mod_pt_regs_store_in_map(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r1 = r0;"
		"call %[bpf_task_pt_regs];"
		"r6 = r0;"
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[regs_store] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 == 0 goto l0_%=;"
		"*(u64 *)(r0 + 0) = r6;"
	"l0_%=:"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_task_pt_regs), __imm(bpf_map_lookup_elem),
		  __imm_addr(regs_store)
		: __clobber_all);
}

/* The pointer spilled and filled keeps its type. */
// vercheck: accept
SEC("kprobe/do_nanosleep")
__naked int mod_pt_regs_spill(void)
{
	asm volatile(
		"call %[bpf_get_current_task_btf];"
		"r1 = r0;"
		"call %[bpf_task_pt_regs];"
		"*(u64 *)(r10 - 8) = r0;"
		"call %[bpf_ktime_get_ns];"
		"r1 = *(u64 *)(r10 - 8);"
		"r0 = *(u64 *)(r1 + 8);"
		"exit;"
		:
		: __imm(bpf_get_current_task_btf), __imm(bpf_task_pt_regs), __imm(bpf_ktime_get_ns)
		: __clobber_all);
}

char _license[] SEC("license") = "GPL";

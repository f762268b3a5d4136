// uptrs (__uptr, 6.13+): a task storage value's pointer to user memory the
// kernel pins when user space updates the element. A load of the field is
// read-write memory of the pointee struct's size that may be NULL
// (check_map_kptr_access, mark_uptr_ld_reg); a store to it is refused.
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __uptr __attribute__((btf_type_tag("uptr")))

struct user_data {
	long a;
	long b;
};

/* Keeps the full struct in the BTF: clang describes a pointee reached only
 * through a type-tagged pointer as a forward declaration, which the kernel
 * does not take for a uptr. */
struct user_data uptr_btf_anchor;

struct value {
	long cnt;
	struct user_data __uptr *udata;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct value);
} uptr_map SEC(".maps");

static void *(*get_current_task_btf)(void) = (void *)158;
static void *(*task_storage_get)(void *map, void *task, void *value, __u64 flags) = (void *)156;

// vercheck: accept
SEC("tp_btf/sched_switch")
int uptr_read_write(void *ctx)
{
	struct value *v = task_storage_get(&uptr_map, get_current_task_btf(), 0, 0);
	struct user_data *u;

	if (!v)
		return 0;
	u = v->udata;
	if (!u)
		return 0;
	u->b = u->a + 1;
	return 0;
}

// vercheck: reject "invalid mem access 'mem_or_null'"
SEC("tp_btf/sched_switch")
int uptr_unchecked(void *ctx)
{
	struct value *v = task_storage_get(&uptr_map, get_current_task_btf(), 0, 0);

	if (!v)
		return 0;
	return v->udata->a & 1;
}

// vercheck: reject "R1 min value is outside of the allowed memory range"
SEC("tp_btf/sched_switch")
__naked int uptr_past_struct(void)
{
	asm volatile (
	"call %[get_current_task_btf];"
	"r2 = r0;"
	"r1 = %[uptr_map] ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[task_storage_get];"
	"if r0 == 0 goto 1f;"
	"r1 = *(u64 *)(r0 + 8);"
	"if r1 == 0 goto 1f;"
	"r0 = *(u64 *)(r1 + 16);"
	"1: r0 = 0;"
	"exit;"
	: : [get_current_task_btf] "i"(158), [task_storage_get] "i"(156), __imm_addr(uptr_map) : __clobber_all);
}

// vercheck: reject "store to uptr disallowed"
SEC("tp_btf/sched_switch")
__naked int uptr_store(void)
{
	asm volatile (
	"call %[get_current_task_btf];"
	"r2 = r0;"
	"r1 = %[uptr_map] ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[task_storage_get];"
	"if r0 == 0 goto 1f;"
	"r1 = 0;"
	"*(u64 *)(r0 + 8) = r1;"
	"1: r0 = 0;"
	"exit;"
	: : [get_current_task_btf] "i"(158), [task_storage_get] "i"(156), __imm_addr(uptr_map) : __clobber_all);
}

// vercheck: reject "uptr access size must be BPF_DW"
SEC("tp_btf/sched_switch")
__naked int uptr_narrow_load(void)
{
	asm volatile (
	"call %[get_current_task_btf];"
	"r2 = r0;"
	"r1 = %[uptr_map] ll;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[task_storage_get];"
	"if r0 == 0 goto 1f;"
	"r1 = *(u32 *)(r0 + 8);"
	"1: r0 = 0;"
	"exit;"
	: : [get_current_task_btf] "i"(158), [task_storage_get] "i"(156), __imm_addr(uptr_map) : __clobber_all);
}

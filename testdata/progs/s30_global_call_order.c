// check_func_call checks a global function's arguments against its BTF
// prototype (btf_check_subprog_call, whose messages go to the log) before
// it refuses the call for a held lock or a context that may not sleep;
// only then does a mismatch fail the call ("Caller passes invalid args").
// Found from a level-2 log difference of mutation fuzzing.
#include "progs.h"
char _license[] SEC("license") = "GPL";

__noinline int s30_sleepy(int x)
{
	char buf[8];

	return bpf_copy_from_user(buf, sizeof(buf), 0) + x;
}

__noinline int s30_plain(int x)
{
	return x + 1;
}

/* A pointer for the scalar argument, in a program that may not sleep:
 * "R1 is not a scalar", then the sleep refusal decides. */
// vercheck: reject "a non-sleepable BPF program context"
SEC("iter/task")
__naked int s30_sleepy_bad_arg(void)
{
	asm volatile (
	"r1 = r10;"
	"call s30_sleepy;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

/* The same call with a scalar: only the sleep refusal. */
// vercheck: reject "a non-sleepable BPF program context"
SEC("iter/task")
__naked int s30_sleepy_good_arg(void)
{
	asm volatile (
	"r1 = 7;"
	"call s30_sleepy;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

struct s30_locked {
	struct bpf_spin_lock l;
	int v;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct s30_locked);
} s30_locks SEC(".maps");

/* A pointer for the scalar argument under a lock: the argument's message,
 * then the lock refusal. */
// vercheck: reject "use static function instead"
SEC("tc")
__naked int s30_locked_bad_arg(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[s30_locks] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto 1f;"
	"r6 = r0;"
	"r1 = r0;"
	"call %[bpf_spin_lock];"
	"r1 = r10;"
	"call s30_plain;"
	"r1 = r6;"
	"call %[bpf_spin_unlock];"
	"1:"
	"r0 = 0;"
	"exit;"
	:
	: __imm_addr(s30_locks), __imm(bpf_map_lookup_elem), __imm(bpf_spin_lock),
	  __imm(bpf_spin_unlock)
	: __clobber_all);
}

/* Without the lock the mismatch decides. */
// vercheck: reject "Caller passes invalid args into func#1 ('s30_plain')"
SEC("tc")
__naked int s30_plain_bad_arg(void)
{
	asm volatile (
	"r1 = r10;"
	"call s30_plain;"
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

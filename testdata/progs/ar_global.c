#include "progs.h"

/* Arena globals and arena arguments. Variables of address space 1
 * (__arena) go to the section ".addr_space.1"; the loader places them
 * in the object's arena map, and a load of one's address is an ld_imm64
 * of the arena map's value (BPF_PSEUDO_MAP_VALUE), which the verifier
 * types as a number (the variable's user address). Dereferencing it,
 * the compiler first casts it to the kernel's address space. A global
 * function's arg:arena argument may be an arena pointer or a number; the
 * callee sees a number and casts it. Lists in the arena are walked with
 * may_goto loops (can_loop), as the selftests' arena programs do. */

#define AR_MAP_TYPE_ARENA 33
#define AR_F_MMAPABLE 1024

#define __arena __attribute__((address_space(1)))
#define __arg_arena __attribute__((btf_decl_tag("arg:arena")))

/* may_goto +0: a loop bound the kernel's budget enforces. */
#define can_loop ({ __label__ l_break, l_continue; int ret = 1;			\
	asm volatile goto("may_goto %l[l_break]" ::: : l_break);		\
	goto l_continue;							\
	l_break: ret = 0;							\
	l_continue:;								\
	ret;									\
})

struct {
	__uint(type, AR_MAP_TYPE_ARENA);
	__uint(map_flags, AR_F_MMAPABLE);
	__uint(max_entries, 16);
} ag_arena SEC(".maps");

struct ag_node {
	struct ag_node __arena *next;
	__u64 value;
};

struct ag_node __arena *ag_head;
__u64 __arena ag_sum;
__u64 __arena ag_counts[64];

// vercheck: accept
SEC("xdp")
int ag_globals(struct xdp_md *ctx)
{
	__u32 i = ctx->rx_queue_index;

	ag_counts[i & 63]++;
	ag_sum += ctx->data_end - ctx->data;
	return XDP_PASS;
}

/* Walk a list of the arena: every next pointer is loaded as a number and
 * cast again before it is followed. */
// vercheck: accept
SEC("xdp")
int ag_list_walk(struct xdp_md *ctx)
{
	struct ag_node __arena *n;
	__u64 sum = 0;

	for (n = ag_head; n && can_loop; n = n->next)
		sum += n->value;
	ag_sum = sum;
	return XDP_PASS;
}

__attribute__((noinline)) int ag_bump(struct ag_node __arena *n __arg_arena)
{
	if (!n)
		return 0;
	n->value++;
	return 1;
}

/* ag_head itself is no arena variable (it points into the arena): this
 * program names no arena, and the cast in the callee is refused. */
// vercheck: reject "addr_space_cast insn can only be used in a program that has an associated arena"
SEC("xdp")
int ag_call_no_arena(struct xdp_md *ctx)
{
	return ag_bump(ag_head) ? XDP_PASS : XDP_DROP;
}

// vercheck: accept
SEC("xdp")
int ag_call_arena_arg(struct xdp_md *ctx)
{
	ag_sum = 0;
	return ag_bump(ag_head) ? XDP_PASS : XDP_DROP;
}

/* The callee sees a number: using it as a pointer without the cast the
 * compiler would insert is refused. */
__attribute__((noinline)) int ag_no_cast(__u64 *n __arg_arena)
{
	return *n & 1;
}

// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("xdp")
int ag_call_no_cast_arena(struct xdp_md *ctx)
{
	ag_sum = 0;
	return ag_no_cast((__u64 *)(unsigned long)bpf_get_prandom_u32());
}

/* An integer may be passed; a program without an arena may call it. */
// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("xdp")
int ag_call_no_cast(struct xdp_md *ctx)
{
	return ag_no_cast((__u64 *)(unsigned long)bpf_get_prandom_u32());
}

/* Only an arena pointer or a number may be passed (the line before the
 * decisive one: "R1 is not a pointer to arena or scalar."). */
// vercheck: reject "Caller passes invalid args into func#1 ('ag_bump')"
SEC("xdp")
__naked int ag_call_ctx(void)
{
	asm volatile (
	"r2 = %[ag_arena] ll;"
	"call ag_bump;"
	"r0 = 2;"
	"exit;"
	:: __imm_addr(ag_arena) : __clobber_all);
}

char _license[] SEC("license") = "GPL";

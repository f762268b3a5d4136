#include "progs.h"

/* bpf_dummy_ops, the struct_ops type BPF_PROG_TEST_RUN runs
 * (net/bpf/bpf_dummy_struct_ops.c): the context is the member's argument
 * list (test_1's state may be NULL: its CFI stub names it __nullable);
 * stores through a BTF pointer reach bpf_dummy_ops_state only, within it;
 * its verifier ops have no get_func_proto, so no helper may be called;
 * only test_sleepable may be implemented by a sleepable program. */

char _license[] SEC("license") = "GPL";

struct bpf_dummy_ops_state {
	int val;
} __attribute__((preserve_access_index));

struct bpf_dummy_ops {
	int (*test_1)(struct bpf_dummy_ops_state *cb);
	int (*test_2)(struct bpf_dummy_ops_state *cb, int a1, unsigned short a2, char a3, unsigned long a4);
	int (*test_sleepable)(struct bpf_dummy_ops_state *cb);
};

#define STATE(ctx) ((struct bpf_dummy_ops_state *)(ctx)[0])

// vercheck: accept
SEC("struct_ops/m13_dummy_checked")
int m13_dummy_checked(unsigned long long *ctx)
{
	struct bpf_dummy_ops_state *st = STATE(ctx);
	int ret;

	if (!st)
		return 0;
	ret = st->val;
	st->val = 0x5a;
	return ret;
}

// vercheck: reject "R1 invalid mem access 'trusted_ptr_or_null_'"
SEC("struct_ops/m13_dummy_unchecked")
int m13_dummy_unchecked(unsigned long long *ctx)
{
	return STATE(ctx)->val;
}

/* test_2's state has no __nullable stub: trusted, never NULL. */
// vercheck: accept
SEC("struct_ops/m13_dummy_test_2")
int m13_dummy_test_2(unsigned long long *ctx)
{
	STATE(ctx)->val = (int)ctx[1] + (unsigned short)ctx[2] + (char)ctx[3] + ctx[4];
	return 0;
}

// vercheck: reject "write access at off 4 with size 4"
SEC("struct_ops/m13_dummy_write_past")
int m13_dummy_write_past(unsigned long long *ctx)
{
	*(volatile int *)((char *)STATE(ctx) + 4) = 1;
	return 0;
}

// vercheck: reject "program of this type cannot use helper bpf_get_prandom_u32#7"
SEC("struct_ops/m13_dummy_helper")
int m13_dummy_helper(unsigned long long *ctx)
{
	STATE(ctx)->val = bpf_get_prandom_u32();
	return 0;
}

// vercheck: accept
SEC("struct_ops.s/m13_dummy_sleepable")
int m13_dummy_sleepable(unsigned long long *ctx)
{
	return STATE(ctx)->val;
}

// vercheck: reject "attach to unsupported member test_2 of struct bpf_dummy_ops"
SEC("struct_ops.s/m13_dummy_sleepable_2")
int m13_dummy_sleepable_2(unsigned long long *ctx)
{
	return 0;
}

SEC(".struct_ops")
struct bpf_dummy_ops m13_dummy_1 = {
	.test_1 = (void *)m13_dummy_checked,
	.test_2 = (void *)m13_dummy_test_2,
	.test_sleepable = (void *)m13_dummy_sleepable,
};

SEC(".struct_ops")
struct bpf_dummy_ops m13_dummy_2 = {
	.test_1 = (void *)m13_dummy_unchecked,
	.test_2 = (void *)m13_dummy_sleepable_2,
};

SEC(".struct_ops")
struct bpf_dummy_ops m13_dummy_3 = {
	.test_2 = (void *)m13_dummy_write_past,
	.test_sleepable = (void *)m13_dummy_helper,
};

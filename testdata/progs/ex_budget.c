#include "progs.h"

/* Programs that exhaust the 1M-insn budget, for the profile's budget
 * explanation (vercheck --profile, and the lines under a complexity-limit
 * rejection): one loop that takes it all, and a path explosion with no
 * loop, kept apart by a precise index. */

/* A loop whose trip count is far past what the budget allows: each
 * iteration differs from the previous one in its counter, so the
 * verifier walks iteration after iteration until the budget runs out. */
// vercheck: reject "BPF program is too large. Processed 1000001 insn"
SEC("socket")
int ex_budget_loop(struct __sk_buff *skb)
{
	__u32 sum = skb->len;
	int i;

#pragma clang loop unroll(disable)
	for (i = 0; i < 1000000; i++) {
		sum = sum * 31 + i;
		barrier_var(sum);
	}
	return sum & 1;
}

struct ex_big {
	__u8 b[4096];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ex_big);
} ex_table SEC(".maps");

/* Twenty independent tests each add their own power of two to idx, so
 * every path reaches the lookup with its own idx; idx then indexes a map
 * value, which makes it precise, so no stored state covers another
 * path's: 2^20 paths, far past the budget. */
#define EX_BIT(i)                  \
	do {                       \
		if (buf[i] > 'm')  \
			idx += 1 << i; \
		barrier_var(idx);  \
	} while (0)

// vercheck: reject "BPF program is too large. Processed 1000001 insn"
SEC("socket")
int ex_budget_paths(struct __sk_buff *skb)
{
	__u8 buf[20];
	__u32 idx = 0, key = 0;
	struct ex_big *v;

	if (bpf_skb_load_bytes(skb, 0, buf, sizeof(buf)))
		return 0;
	EX_BIT(0);
	EX_BIT(1);
	EX_BIT(2);
	EX_BIT(3);
	EX_BIT(4);
	EX_BIT(5);
	EX_BIT(6);
	EX_BIT(7);
	EX_BIT(8);
	EX_BIT(9);
	EX_BIT(10);
	EX_BIT(11);
	EX_BIT(12);
	EX_BIT(13);
	EX_BIT(14);
	EX_BIT(15);
	EX_BIT(16);
	EX_BIT(17);
	EX_BIT(18);
	EX_BIT(19);
	v = bpf_map_lookup_elem(&ex_table, &key);
	if (!v)
		return 0;
	return v->b[idx & 4095];
}

char _license[] SEC("license") = "GPL";

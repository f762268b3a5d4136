#include "progs.h"

/* check_cfg marks a subprogram that may sleep (visit_insn: a sleepable
 * helper or kfunc) only where fetch_kfunc_meta finds the kfunc callable
 * by this program: its registration's program types, then its filter
 * (btf_kfunc_id_set_contains). On a kernel without the arena kfuncs
 * (stable fix no-arena-kfuncs) the global function below is no "global
 * function that may sleep": the call to it passes, and the function's
 * own verification refuses the kfunc. vercheck marked it from the
 * kfunc's program types alone and refused the call (a message difference
 * of the fuzz runs of session 15). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} s16_sm_map SEC(".maps");

extern void bpf_arena_free_pages(void *map, void *ptr, __u32 page_cnt) __ksym;

__noinline int s16_free_pages(int n)
{
	bpf_arena_free_pages(&s16_sm_map, 0, n);
	return 0;
}

// vercheck: reject "calling kernel function bpf_arena_free_pages is not allowed"
// vercheck: reject "a non-sleepable BPF program context" without no-arena-kfuncs
SEC("socket")
int s16_sleep_mark_filtered(struct __sk_buff *skb)
{
	return s16_free_pages(skb->len);
}

struct bpf_key {
	int has_ref;
} __attribute__((preserve_access_index));

extern struct bpf_key *bpf_lookup_user_key(__s32 serial, __u64 flags) __ksym;

__noinline int s16_lookup_key(int serial)
{
	return bpf_lookup_user_key(serial, 0) != 0;
}

/* A socket filter may not call bpf_lookup_user_key (registered for
 * tracing, tc, XDP, struct_ops, syscall and cgroup skb programs): no
 * mark, and the function refuses the call. */
// vercheck: reject "calling kernel function bpf_lookup_user_key is not allowed"
SEC("socket")
int s16_sleep_mark_type(struct __sk_buff *skb)
{
	return s16_lookup_key(skb->len);
}

/* A tc program may call it: the function may sleep, and a tc program is
 * no sleepable context. */
// vercheck: reject "a non-sleepable BPF program context"
SEC("tc")
int s16_sleep_mark_callable(struct __sk_buff *skb)
{
	return s16_lookup_key(skb->len);
}

char _license[] SEC("license") = "GPL";

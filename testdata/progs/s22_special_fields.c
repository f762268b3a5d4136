#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Special fields of map values reached in ways the kernel refuses: a lock
 * or timer whose offset is not constant (process_spin_lock,
 * process_timer_func: "has to be at the constant offset"), an atomic
 * operation on a kptr field (check_map_kptr_access: only LDX/STX/ST), and
 * bpf_for_each_map_elem on a map type without a callback iterator
 * ("callback function not allowed for map"). Constant-offset uses are
 * the controls. */

struct s22_val {
	long pad[2];
	struct bpf_spin_lock lock;
	struct bpf_timer timer;
};

struct s22_node {
	long a;
};

struct s22_kval {
	struct s22_node __kptr *p;
	long n;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct s22_val);
} s22_locks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct s22_kval);
} s22_kptrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s22_rb SEC(".maps");

static __always_inline struct s22_val *s22_lookup(struct __sk_buff *skb)
{
	__u32 k = skb->len & 3;

	return bpf_map_lookup_elem(&s22_locks, &k);
}

/* A lock at its constant offset. */
// vercheck: accept
SEC("tc")
int s22_lock_const(struct __sk_buff *skb)
{
	struct s22_val *v = s22_lookup(skb);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->pad[0]++;
	bpf_spin_unlock(&v->lock);
	return 0;
}

/* A lock reached through a variable offset. */
// vercheck: reject "R1 doesn't have constant offset. bpf_spin_lock has to be at the constant offset"
SEC("tc")
int s22_lock_var(struct __sk_buff *skb)
{
	struct s22_val *v = s22_lookup(skb);
	__u64 off = skb->mark & 8;

	if (!v)
		return 0;
	asm volatile (
	"r1 = %[v];"
	"r1 += 16;"
	"r1 += %[off];"
	"call %[lock];"
	:: [v]"r"(v), [off]"r"(off), [lock]"i"(BPF_FUNC_spin_lock) : "r0", "r1", "r2", "r3", "r4", "r5");
	return 0;
}

/* A timer reached through a variable offset. */
// vercheck: reject "R1 doesn't have constant offset. bpf_timer has to be at the constant offset"
SEC("tc")
int s22_timer_var(struct __sk_buff *skb)
{
	struct s22_val *v = s22_lookup(skb);
	__u64 off = skb->mark & 8;

	if (!v)
		return 0;
	asm volatile (
	"r1 = %[v];"
	"r1 += 24;"
	"r1 += %[off];"
	"r2 = %[map] ll;"
	"r3 = 1;"
	"call %[init];"
	:: [v]"r"(v), [off]"r"(off), [map]"i"(&s22_locks), [init]"i"(BPF_FUNC_timer_init) : "r0", "r1", "r2", "r3", "r4", "r5");
	return 0;
}

/* An atomic add on a kptr field. */
// vercheck: reject "kptr in map can only be accessed using BPF_MEM instruction mode"
SEC("tc")
int s22_kptr_atomic(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct s22_kval *v = bpf_map_lookup_elem(&s22_kptrs, &k);

	if (!v)
		return 0;
	/* The struct's own BTF, not a forward declaration: only then is
	 * the field a kptr. */
	v->n = bpf_core_type_id_local(struct s22_node);
	__sync_fetch_and_add((long *)&v->p, 1);
	return 0;
}

/* A kptr tag on a pointer to a struct the object's BTF only declares
 * (clang emits a forward declaration when nothing else needs the struct):
 * btf_parse_kptr finds no struct, so the field is plain data, and an atomic
 * add on it is a map-value access like any other. */
struct s22_fwd_kval {
	struct s22_fwd_node __kptr *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct s22_fwd_kval);
} s22_fwd_kptrs SEC(".maps");

// vercheck: accept
SEC("tc")
int s22_fwd_kptr_atomic(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct s22_fwd_kval *v = bpf_map_lookup_elem(&s22_fwd_kptrs, &k);

	if (v)
		__sync_fetch_and_add((long *)&v->p, 1);
	return 0;
}

static long s22_rb_cb(void *map, void *key, void *val, void *ctx)
{
	return 0;
}

/* bpf_for_each_map_elem over a ring buffer. */
// vercheck: reject "callback function not allowed for map"
SEC("tc")
int s22_foreach_ringbuf(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s22_rb, s22_rb_cb, NULL, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";

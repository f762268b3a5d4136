#include "progs.h"

/* bpf_spin_lock: a lock in a map value, found through the map's BTF. */

struct locked_val {
	__u32 cnt;
	struct bpf_spin_lock lock;
	__u64 data;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, struct locked_val);
} lock_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} plain_map SEC(".maps");

static __noinline int bump(struct locked_val *v)
{
	v->data++;
	return 0;
}

// vercheck: accept
SEC("tc")
int spin_lock_ok(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked_val *v = bpf_map_lookup_elem(&lock_map, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->cnt++;
	v->data += skb->len;
	bpf_spin_unlock(&v->lock);
	return 0;
}

// A static function may be called while the lock is held.
// vercheck: accept
SEC("tc")
int spin_lock_static_call(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked_val *v = bpf_map_lookup_elem(&lock_map, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	bump(v);
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region"
SEC("tc")
int spin_lock_missing_unlock(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked_val *v = bpf_map_lookup_elem(&lock_map, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	if (skb->len > 100)
		return 1;
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int spin_lock_call_helper(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked_val *v = bpf_map_lookup_elem(&lock_map, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->data = bpf_get_prandom_u32();
	bpf_spin_unlock(&v->lock);
	return 0;
}

// vercheck: reject "bpf_spin_lock cannot be accessed directly by load/store"
SEC("tc")
__naked int spin_lock_direct_access(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[lock_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r1 = *(u32 *)(r0 + 4);"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(lock_map), __imm(bpf_map_lookup_elem)
		: __clobber_all);
}

// vercheck: reject "bpf_spin_unlock without taking a lock"
SEC("tc")
__naked int spin_unlock_without_lock(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[lock_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r1 = r0;"
		"r1 += 4;"
		"call %[bpf_spin_unlock];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(lock_map), __imm(bpf_map_lookup_elem), __imm(bpf_spin_unlock)
		: __clobber_all);
}

// Two lookups are two different elements: unlocking the other one.
// vercheck: reject "bpf_spin_unlock of different lock"
SEC("tc")
__naked int spin_unlock_different(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[lock_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r6 = r0;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[lock_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 2f;"
		"exit;"
		"2: r7 = r0;"
		"r1 = r6;"
		"r1 += 4;"
		"call %[bpf_spin_lock];"
		"r1 = r7;"
		"r1 += 4;"
		"call %[bpf_spin_unlock];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(lock_map), __imm(bpf_map_lookup_elem), __imm(bpf_spin_lock), __imm(bpf_spin_unlock)
		: __clobber_all);
}

// vercheck: reject "off 0 doesn't point to 'struct bpf_spin_lock' that is at 4"
SEC("tc")
__naked int spin_lock_wrong_offset(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[lock_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r1 = r0;"
		"call %[bpf_spin_lock];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(lock_map), __imm(bpf_map_lookup_elem), __imm(bpf_spin_lock)
		: __clobber_all);
}

// vercheck: reject "map 'plain_map' has no valid bpf_spin_lock"
SEC("tc")
__naked int spin_lock_no_lock_field(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[plain_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r1 = r0;"
		"call %[bpf_spin_lock];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(plain_map), __imm(bpf_map_lookup_elem), __imm(bpf_spin_lock)
		: __clobber_all);
}

// vercheck: reject "R1 type=scalar expected=map_value, ptr_"
SEC("tc")
__naked int spin_lock_scalar_arg(void)
{
	asm volatile(
		"r1 = 0;"
		"call %[bpf_spin_lock];"
		"r0 = 0;"
		"exit;"
		:
		: __imm(bpf_spin_lock)
		: __clobber_all);
}

// The second lock is a helper call under the first: refused before any
// lock bookkeeping.
// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
__naked int spin_lock_twice(void)
{
	asm volatile(
		"r1 = 0;"
		"*(u32 *)(r10 - 4) = r1;"
		"r2 = r10;"
		"r2 += -4;"
		"r1 = %[lock_map] ll;"
		"call %[bpf_map_lookup_elem];"
		"if r0 != 0 goto 1f;"
		"exit;"
		"1: r6 = r0;"
		"r1 = r0;"
		"r1 += 4;"
		"call %[bpf_spin_lock];"
		"r1 = r6;"
		"r1 += 4;"
		"call %[bpf_spin_lock];"
		"r0 = 0;"
		"exit;"
		:
		: __imm_addr(lock_map), __imm(bpf_map_lookup_elem), __imm(bpf_spin_lock)
		: __clobber_all);
}

__noinline int global_bump(struct __sk_buff *skb)
{
	return skb ? skb->len : 0;
}

// vercheck: reject "use static function instead"
SEC("tc")
int spin_lock_global_call(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct locked_val *v = bpf_map_lookup_elem(&lock_map, &key);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	v->cnt = global_bump(skb);
	bpf_spin_unlock(&v->lock);
	return 0;
}

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct locked_val);
} lock_array SEC(".maps");

/* Array lookups with a constant in-range key are never NULL, yet each one
 * still names its own lock: unlocking through a second lookup of another
 * slot is a different lock. */
// vercheck: reject "bpf_spin_unlock of different lock"
SEC("tc")
__naked int spin_unlock_other_array_slot(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r1 = 1;"
	"*(u32 *)(r10 - 8) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[lock_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"r6 = r0;"
	"r2 = r10;"
	"r2 += -8;"
	"r1 = %[lock_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"r7 = r0;"
	"r1 = r6;"
	"r1 += 4;"
	"call %[bpf_spin_lock];"
	"r1 = r7;"
	"r1 += 4;"
	"call %[bpf_spin_unlock];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem),
	  __imm(bpf_spin_lock),
	  __imm(bpf_spin_unlock),
	  __imm_addr(lock_array)
	: __clobber_all);
}

/* The same slot looked up and locked, then unlocked through the same
 * pointer: accepted without any NULL check. */
// vercheck: accept
SEC("tc")
__naked int spin_lock_array_no_null_check(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[lock_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"r6 = r0;"
	"r1 = r6;"
	"r1 += 4;"
	"call %[bpf_spin_lock];"
	"r1 = r6;"
	"r1 += 4;"
	"call %[bpf_spin_unlock];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_map_lookup_elem),
	  __imm(bpf_spin_lock),
	  __imm(bpf_spin_unlock),
	  __imm_addr(lock_array)
	: __clobber_all);
}

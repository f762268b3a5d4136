#include "progs.h"
#include <bpf/bpf_core_read.h>

/* Special fields as btf_find_field_one finds them: the member's type as
 * the BTF has it (a special struct behind a typedef, const or volatile is
 * plain data, and so is a struct whose members hold one behind a
 * typedef), at its alignment (a bpf_timer at offset 4 is plain data).
 * And the object sizes bpf_obj_new and bpf_percpu_obj_new take: at most
 * 4088 bytes (the running build), no ENUM64 in a per-CPU object (a
 * "struct of scalars" holds ints and 32-bit enums only). */

extern void *bpf_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_obj_drop_impl(void *kptr, void *meta) __ksym;
extern void *bpf_percpu_obj_new_impl(__u64 local_type_id, void *meta) __ksym;
extern void bpf_percpu_obj_drop_impl(void *kptr, void *meta) __ksym;

typedef struct bpf_spin_lock s23_lock_t;
struct s23_v_typedef { s23_lock_t l; long x; };
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s23_v_typedef);
} s23_typedef_map SEC(".maps");

// vercheck: reject "map 's23_typedef_map' has no valid bpf_spin_lock"
SEC("tc")
int s23_typedef_lock(struct __sk_buff *skb)
{
	int k = 0;
	struct s23_v_typedef *v = bpf_map_lookup_elem(&s23_typedef_map, &k);

	if (!v)
		return 0;
	bpf_spin_lock((struct bpf_spin_lock *)&v->l);
	v->x++;
	bpf_spin_unlock((struct bpf_spin_lock *)&v->l);
	return 0;
}

typedef struct { struct bpf_spin_lock l; long y; } s23_inner_t;
struct s23_v_nested { s23_inner_t in; long x; };
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s23_v_nested);
} s23_nested_map SEC(".maps");

// vercheck: reject "map 's23_nested_map' has no valid bpf_spin_lock"
SEC("tc")
int s23_nested_typedef_lock(struct __sk_buff *skb)
{
	int k = 0;
	struct s23_v_nested *v = bpf_map_lookup_elem(&s23_nested_map, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->in.l);
	v->x++;
	bpf_spin_unlock(&v->in.l);
	return 0;
}

struct s23_v_volatile { volatile struct bpf_spin_lock l; long x; };
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s23_v_volatile);
} s23_volatile_map SEC(".maps");

// vercheck: reject "map 's23_volatile_ma' has no valid bpf_spin_lock"
SEC("tc")
int s23_volatile_lock(struct __sk_buff *skb)
{
	int k = 0;
	struct s23_v_volatile *v = bpf_map_lookup_elem(&s23_volatile_map, &k);

	if (!v)
		return 0;
	bpf_spin_lock((struct bpf_spin_lock *)&v->l);
	v->x++;
	bpf_spin_unlock((struct bpf_spin_lock *)&v->l);
	return 0;
}

/* The typedef'd lock is plain data: loads and stores of it are fine. */
// vercheck: accept
SEC("tc")
int s23_typedef_lock_word(struct __sk_buff *skb)
{
	int k = 0;
	struct s23_v_typedef *v = bpf_map_lookup_elem(&s23_typedef_map, &k);

	if (!v)
		return 0;
	*(volatile __u32 *)&v->l = 1;
	return *(volatile __u32 *)&v->l;
}

struct s23_v_timer4 { int a; struct bpf_timer t; int b; } __attribute__((packed));
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s23_v_timer4);
} s23_timer4_map SEC(".maps");

// vercheck: reject "map 's23_timer4_map' has no valid bpf_timer"
SEC("tc")
int s23_timer_off4(struct __sk_buff *skb)
{
	int k = 0;
	struct s23_v_timer4 *v = bpf_map_lookup_elem(&s23_timer4_map, &k);

	if (!v)
		return 0;
	bpf_timer_init((struct bpf_timer *)((char *)v + 4), &s23_timer4_map, 1);
	return 0;
}

struct s23_big { char b[4089]; };
struct s23_edge { char b[4088]; };

// vercheck: reject "bpf_obj_new type size (4089) is more than the allocator serves"
SEC("tc")
int s23_obj_new_4089(struct __sk_buff *skb)
{
	struct s23_big *p = bpf_obj_new_impl(bpf_core_type_id_local(struct s23_big), 0);

	if (p)
		bpf_obj_drop_impl(p, 0);
	return 0;
}

// vercheck: accept
SEC("tc")
int s23_obj_new_4088(struct __sk_buff *skb)
{
	struct s23_edge *p = bpf_obj_new_impl(bpf_core_type_id_local(struct s23_edge), 0);

	if (p)
		bpf_obj_drop_impl(p, 0);
	return 0;
}

struct s23_e64 { enum { S23_BIG = 0x100000000ULL } e; };

// vercheck: reject "bpf_percpu_obj_new type ID argument must be of a struct of scalars"
SEC("tc")
int s23_percpu_enum64(struct __sk_buff *skb)
{
	struct s23_e64 *p = bpf_percpu_obj_new_impl(bpf_core_type_id_local(struct s23_e64), 0);

	if (p)
		bpf_percpu_obj_drop_impl(p, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";

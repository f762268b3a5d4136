// Pointers with a BTF type tag that is no kptr tag (an __arena pointer's
// "arena", say) in a map value: btf_find_kptr refuses them (EINVAL), so
// btf_parse_fields fails for the whole value, and map_check_btf keeps the
// map with no record: every field of the value is plain memory, a kptr
// beside the tagged pointer too. (A struct holding a bpf_spin_lock, a
// graph field or a kptr besides makes the kernel refuse the whole BTF:
// vercheck gives no verdict there.)
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct m13_node {
	int v;
};

struct task_struct;

#define __m13_arena __attribute__((btf_type_tag("arena")))
#define __m13_kptr __attribute__((btf_type_tag("kptr")))

struct m13_node __m13_arena *m13_arena_ptr;
struct m13_node __attribute__((btf_type_tag("foo"))) *m13_foo_ptr;
struct task_struct __m13_kptr *m13_task_kptr;

struct m13_val {
	__u64 x;
	struct m13_node __m13_arena *p;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct m13_val);
} m13_tagged SEC(".maps");

static struct m13_val *m13_val(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&m13_tagged, &k);
}

// vercheck: accept
SEC("tc")
int m13_tag_read_bss(struct __sk_buff *skb)
{
	return m13_arena_ptr != 0;
}

/* The kptr of .bss is plain memory: the record failed. */
// vercheck: accept
SEC("tc")
int m13_tag_write_bss(struct __sk_buff *skb)
{
	m13_foo_ptr = (void *)(long)skb->len;
	m13_task_kptr = (void *)(long)skb->len;
	return 0;
}

// vercheck: accept
SEC("tc")
int m13_tag_write_val(struct __sk_buff *skb)
{
	struct m13_val *v = m13_val();

	if (!v)
		return 0;
	v->p = (void *)(long)skb->len;
	return v->x & 1;
}

/* What the tagged pointer holds is a number. */
// vercheck: reject "R1 invalid mem access 'scalar'"
SEC("tc")
int m13_tag_deref_val(struct __sk_buff *skb)
{
	struct m13_val *v = m13_val();

	if (!v || !v->p)
		return 0;
	return v->p->v;
}

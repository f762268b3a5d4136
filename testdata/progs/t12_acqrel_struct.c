#include "progs.h"

/* This machine's build (stablefix AcqRelStructTrusted) takes a pointer to
 * a struct of scalars given to an acquiring or releasing kfunc as a BTF
 * object argument, whatever the register holds: it must be referenced or
 * trusted, and a BTF pointer of the struct. Upstream 6.18.0 (and 7.2) take
 * it as plain memory of the struct's size, unless it is the buffer of a
 * memory-and-size pair: a copy on the stack or in a map value is
 * acquired, and bpf_cpumask_release of a ringbuf record releases the
 * record. Pointers to scalars and the kfuncs that neither acquire nor
 * release keep the memory rule. */

struct cpumask {
	unsigned long bits[1];
};

struct bpf_cpumask {
	struct cpumask cpumask;
};

struct nf_conn {
	__u32 mark;
} __attribute__((preserve_access_index));

struct nf_conn___init {
	__u32 mark;
} __attribute__((preserve_access_index));

union nf_inet_addr {
	__u32 all[4];
};

enum nf_nat_manip_type { NF_NAT_MANIP_SRC, NF_NAT_MANIP_DST };

struct bpf_ct_opts {
	__s32 netns_id;
	__s32 error;
	__u8 l4proto;
	__u8 dir;
	__u16 ct_zone_id;
	__u8 ct_zone_dir;
	__u8 reserved[3];
};

extern struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
extern struct bpf_cpumask *bpf_cpumask_acquire(struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_test_cpu(__u32 cpu, const struct cpumask *cpumask) __ksym;
extern struct nf_conn *bpf_skb_ct_lookup(struct __sk_buff *, struct bpf_sock_tuple *, __u32,
					  struct bpf_ct_opts *, __u32) __ksym;
extern struct nf_conn___init *bpf_skb_ct_alloc(struct __sk_buff *, struct bpf_sock_tuple *, __u32,
					       struct bpf_ct_opts *, __u32) __ksym;
extern struct nf_conn *bpf_ct_insert_entry(struct nf_conn___init *) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;
extern int bpf_ct_set_nat_info(struct nf_conn___init *, union nf_inet_addr *, int,
			       enum nf_nat_manip_type) __ksym;

/* sizeof(struct bpf_cpumask) in the kernel: 40 bytes. */
#define T12_CPUMASK_WORDS 5

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64[T12_CPUMASK_WORDS]);
} t12_masks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} t12_rb SEC(".maps");

/* The probe's program: a zeroed copy on the stack acquired. */
// vercheck: reject "R1 must be referenced or trusted"
// vercheck: accept without acqrel-struct-trusted
SEC("tp_btf/task_newtask")
int t12_acquire_stack_copy(void *ctx)
{
	__u64 copy[T12_CPUMASK_WORDS] = {};
	struct bpf_cpumask *m = bpf_cpumask_acquire((struct bpf_cpumask *)copy);

	bpf_cpumask_release(m);
	return 0;
}

/* A map value acquired. */
// vercheck: reject "R1 must be referenced or trusted"
// vercheck: accept without acqrel-struct-trusted
SEC("tp_btf/task_newtask")
int t12_acquire_map_value(void *ctx)
{
	int key = 0;
	__u64 *v = bpf_map_lookup_elem(&t12_masks, &key);
	struct bpf_cpumask *m;

	if (!v)
		return 0;
	m = bpf_cpumask_acquire((struct bpf_cpumask *)v);
	bpf_cpumask_release(m);
	return 0;
}

/* A ringbuf record is referenced, so trusted, but no BTF object: with the
 * memory rule the release kfunc releases the record. */
// vercheck: reject "arg#0 is ringbuf_mem expected mem or socket"
// vercheck: accept without acqrel-struct-trusted
SEC("tp_btf/task_newtask")
int t12_release_ringbuf_record(void *ctx)
{
	void *rec = bpf_ringbuf_reserve(&t12_rb, 64, 0);

	if (!rec)
		return 0;
	bpf_cpumask_release(rec);
	return 0;
}

/* The same record 8 bytes in: the offset check of a released reference
 * comes first, under either rule. */
// vercheck: reject "R1 must have zero offset when passed to release func or trusted arg to kfunc"
SEC("tp_btf/task_newtask")
int t12_release_ringbuf_record_off(void *ctx)
{
	char *rec = bpf_ringbuf_reserve(&t12_rb, 64, 0);

	if (!rec)
		return 0;
	bpf_cpumask_release((struct bpf_cpumask *)(rec + 8));
	return 0;
}

/* The fuzzer's case: a number released. */
// vercheck: reject "R1 must be referenced or trusted"
// vercheck: reject "R1 type=scalar expected=fp" without acqrel-struct-trusted
SEC("tp_btf/task_newtask")
__naked int t12_release_number(void)
{
	asm volatile(
		"r1 = 12;"
		"call %[bpf_cpumask_release];"
		"r0 = 0;"
		"exit;"
		:: __imm(bpf_cpumask_release)
		: __clobber_all);
}

/* The usual life of a mask: made, acquired once more, released twice. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int t12_create_acquire_release(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create();

	if (!m)
		return 0;
	bpf_cpumask_release(bpf_cpumask_acquire(m));
	bpf_cpumask_release(m);
	return 0;
}

/* A mask released twice through R1, which the first call scratched. */
// vercheck: reject "R1 must be referenced or trusted"
// vercheck: reject "variable ? access var_off=(0x0; 0xffffffffffffffff) disallowed" without acqrel-struct-trusted
SEC("tp_btf/task_newtask")
__naked int t12_release_scratched(void)
{
	asm volatile(
		"call %[bpf_cpumask_create];"
		"if r0 == 0 goto 1f;"
		"r1 = r0;"
		"call %[bpf_cpumask_release];"
		"call %[bpf_cpumask_release];"
		"1: r0 = 0;"
		"exit;"
		:: __imm(bpf_cpumask_create), __imm(bpf_cpumask_release)
		: __clobber_all);
}

/* bpf_cpumask_test_cpu neither acquires nor releases (KF_RCU): a stack
 * copy is memory. */
// vercheck: accept
SEC("tp_btf/task_newtask")
int t12_test_cpu_stack_copy(void *ctx)
{
	__u64 copy[T12_CPUMASK_WORDS] = {};

	return bpf_cpumask_test_cpu(0, (const struct cpumask *)copy);
}

/* bpf_skb_ct_lookup(ctx, fp-64, <pointer>, fp-24, 16): with a size that is
 * no scalar, the tuple is no memory-and-size pair but a struct the
 * acquiring kfunc takes as a BTF object; the size's own check comes after. */
// vercheck: reject "R2 must be referenced or trusted"
// vercheck: reject "R3 is not a scalar" without acqrel-struct-trusted
SEC("tc")
__naked int t12_ct_lookup_unsized_tuple(void)
{
	asm volatile(
		"r6 = r1;"
		"r1 = 0;"
		"*(u64 *)(r10 - 64) = r1;"
		"*(u64 *)(r10 - 56) = r1;"
		"*(u64 *)(r10 - 48) = r1;"
		"*(u64 *)(r10 - 40) = r1;"
		"*(u64 *)(r10 - 32) = r1;"
		"*(u64 *)(r10 - 24) = r1;"
		"*(u64 *)(r10 - 16) = r1;"
		"r1 = r6;"
		"r2 = r10;"
		"r2 += -64;"
		"r3 = r10;"
		"r4 = r10;"
		"r4 += -24;"
		"r5 = 16;"
		"call %[bpf_skb_ct_lookup];"
		"if r0 == 0 goto 1f;"
		"r1 = r0;"
		"call %[bpf_ct_release];"
		"1: r0 = 0;"
		"exit;"
		:: __imm(bpf_skb_ct_lookup), __imm(bpf_ct_release)
		: __clobber_all);
}

/* With a scalar size the tuple is a memory-and-size pair: a map value
 * will do. */
// vercheck: accept
SEC("tc")
int t12_ct_lookup_map_tuple(struct __sk_buff *ctx)
{
	struct bpf_ct_opts opts = { .netns_id = -1, .l4proto = 6 };
	int key = 0;
	__u64 *v = bpf_map_lookup_elem(&t12_masks, &key);
	struct nf_conn *ct;

	if (!v)
		return 0;
	ct = bpf_skb_ct_lookup(ctx, (struct bpf_sock_tuple *)v, 12, &opts, sizeof(opts));
	if (ct)
		bpf_ct_release(ct);
	return 0;
}

/* bpf_ct_set_nat_info neither acquires nor releases: its address is
 * memory, a number refused as such. */
// vercheck: reject "R2 type=scalar expected=fp"
SEC("tc")
int t12_nat_info_number(struct __sk_buff *ctx)
{
	struct bpf_sock_tuple tup = {};
	struct bpf_ct_opts opts = { .netns_id = -1, .l4proto = 6 };
	struct nf_conn___init *ct = bpf_skb_ct_alloc(ctx, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
	struct nf_conn *ins;

	if (!ct)
		return 0;
	bpf_ct_set_nat_info(ct, (union nf_inet_addr *)12, 80, NF_NAT_MANIP_DST);
	ins = bpf_ct_insert_entry(ct);
	if (ins)
		bpf_ct_release(ins);
	return 0;
}

char _license[] SEC("license") = "GPL";

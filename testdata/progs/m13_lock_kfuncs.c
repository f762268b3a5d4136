#include "progs.h"

/* Kfuncs called while a bpf_spin_lock is held (do_check's
 * kfunc_spin_allowed). 7.x lets the arena and stream kfuncs through as
 * well as the graph, resilient lock and numeric iterator ones; 6.18 lets
 * only the latter through: an arena kfunc (sleepable in 6.18) or
 * bpf_stream_vprintk_impl under a lock is refused. */

#define M13_MAP_TYPE_ARENA 33
#define M13_F_MMAPABLE 1024

extern void *bpf_arena_alloc_pages(void *map, void *addr, __u32 page_cnt, int node_id, __u64 flags) __ksym;
extern void bpf_arena_free_pages(void *map, void *ptr, __u32 page_cnt) __ksym;
extern int bpf_arena_reserve_pages(void *map, void *ptr, __u32 page_cnt) __ksym;
extern int bpf_stream_vprintk_impl(int stream_id, const char *fmt__str, const void *args,
				   __u32 len__sz, void *aux__prog) __ksym;
struct bpf_iter_num {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

struct {
	__uint(type, M13_MAP_TYPE_ARENA);
	__uint(map_flags, M13_F_MMAPABLE);
	__uint(max_entries, 8);
} m13_arena SEC(".maps");

struct m13_locked {
	struct bpf_spin_lock l;
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct m13_locked);
} m13_locks SEC(".maps");

static const char m13_fmt[] = "n=%llu\n";

static struct m13_locked *m13_elem(void)
{
	int k = 0;

	return bpf_map_lookup_elem(&m13_locks, &k);
}

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("syscall")
int m13_arena_reserve_locked(void *ctx)
{
	struct m13_locked *v = m13_elem();
	int ret;

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	ret = bpf_arena_reserve_pages(&m13_arena, NULL, 1);
	bpf_spin_unlock(&v->l);
	return ret & 1;
}

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("syscall")
int m13_arena_alloc_locked(void *ctx)
{
	struct m13_locked *v = m13_elem();
	void *page;

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	page = bpf_arena_alloc_pages(&m13_arena, NULL, 1, -1, 0);
	bpf_spin_unlock(&v->l);
	if (page)
		bpf_arena_free_pages(&m13_arena, page, 1);
	return 0;
}

// vercheck: accept
SEC("syscall")
int m13_stream_unlocked(void *ctx)
{
	__u64 args[1] = { 7 };

	return bpf_stream_vprintk_impl(1, m13_fmt, args, sizeof(args), 0) & 1;
}

// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int m13_stream_locked(struct __sk_buff *skb)
{
	struct m13_locked *v = m13_elem();
	__u64 args[1] = { 7 };
	int ret;

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	args[0] = v->n;
	ret = bpf_stream_vprintk_impl(1, m13_fmt, args, sizeof(args), 0);
	bpf_spin_unlock(&v->l);
	return ret & 1;
}

// vercheck: accept
SEC("tc")
int m13_iter_num_locked(struct __sk_buff *skb)
{
	struct m13_locked *v = m13_elem();
	struct bpf_iter_num it;
	int *i;

	if (!v)
		return 0;
	bpf_spin_lock(&v->l);
	bpf_iter_num_new(&it, 0, 3);
	while ((i = bpf_iter_num_next(&it)))
		v->n += *i;
	bpf_iter_num_destroy(&it);
	bpf_spin_unlock(&v->l);
	return 0;
}

/* bpf_stream_vprintk_impl's own arguments: the format a constant string
 * of a read-only map (KF_ARG_PTR_TO_CONST_STR), the arguments memory of
 * the size that follows (KF_ARG_PTR_TO_MEM_SIZE), the program passed
 * over (__prog). */
// vercheck: reject "arg#1 doesn't point to a const string"
SEC("tc")
int m13_stream_stack_fmt(struct __sk_buff *skb)
{
	char fmt[8] = "n=%d\n";
	__u64 args[1] = { 7 };

	return bpf_stream_vprintk_impl(1, fmt, args, sizeof(args), 0) & 1;
}

char m13_rw_fmt[8] = "n=%d\n";

// vercheck: reject "R2 does not point to a readonly map'"
SEC("tc")
int m13_stream_rw_fmt(struct __sk_buff *skb)
{
	__u64 args[1] = { 7 };

	return bpf_stream_vprintk_impl(1, m13_rw_fmt, args, sizeof(args), 0) & 1;
}

// vercheck: reject "arg#2 arg#3 memory, len pair leads to invalid memory access"
SEC("xdp")
int m13_stream_args_short(struct xdp_md *xdp)
{
	__u64 args[1] = { 7 };

	return bpf_stream_vprintk_impl(1, m13_fmt, args, 16, 0) & 1;
}

/* Trusted arguments are the default: no NULL where the parameter is not
 * __nullable or __opt, even with a size of 0. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg2"
SEC("xdp")
int m13_stream_no_args(struct xdp_md *xdp)
{
	return bpf_stream_vprintk_impl(2, m13_fmt, 0, 0, 0) & 1;
}

// vercheck: reject "arg#2 arg#3 memory, len pair leads to invalid memory access"
SEC("xdp")
int m13_stream_var_len(struct xdp_md *xdp)
{
	__u64 args[4] = {};

	return bpf_stream_vprintk_impl(2, m13_fmt, args, xdp->data_end - xdp->data, 0) & 1;
}

char _license[] SEC("license") = "GPL";

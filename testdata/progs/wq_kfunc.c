#include "progs.h"

/* BPF workqueues: a struct bpf_wq in a map value, set up with
 * bpf_wq_init(wq, map, 0), given a callback with
 * bpf_wq_set_callback_impl and started with bpf_wq_start. The callback
 * runs later, on its own, in a sleepable context, with (map, key, value)
 * of the element, and must return 0. */

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __ksym;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq,
				    int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__ign) __ksym;
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign, __u64 flags) __ksym;

struct wq_elem {
	__u64 count;
	struct bpf_wq w;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct wq_elem);
} wq_array SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct wq_elem);
} wq_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, __u64);
} wq_plain SEC(".maps");

struct wq_timer_elem {
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct wq_timer_elem);
} wq_timers SEC(".maps");

/* The callback may sleep. */
static int wq_cb(void *map, int *key, void *value)
{
	char buf[8];
	struct wq_elem *e = value;

	bpf_copy_from_user_str(buf, sizeof(buf), (void *)0, 0);
	e->count += *key;
	return 0;
}

static int wq_cb_ret1(void *map, int *key, void *value)
{
	return 1;
}

static struct wq_elem *wq_lookup(void *map)
{
	int key = 0;

	return bpf_map_lookup_elem(map, &key);
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("tc")
int wq_start(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	if (bpf_wq_init(&e->w, &wq_array, 0))
		return 0;
	if (bpf_wq_set_callback_impl(&e->w, wq_cb, 0, NULL))
		return 0;
	return bpf_wq_start(&e->w, 0) & 1;
}

// vercheck: accept
SEC("syscall")
int wq_start_hash(void *ctx)
{
	struct wq_elem *e = wq_lookup(&wq_hash);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &wq_hash, 0);
	bpf_wq_set_callback_impl(&e->w, wq_cb, 0, NULL);
	bpf_wq_start(&e->w, 0);
	return 0;
}

// vercheck: reject "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0"
SEC("tc")
int wq_init_other_map(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &wq_hash, 0);
	return 0;
}

// vercheck: reject "pointer in R2 isn't map pointer"
SEC("tc")
int wq_init_no_map(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);
	__u64 x = 0;

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &x, 0);
	return x;
}

// vercheck: reject "arg#0 doesn't point to a map value"
SEC("tc")
int wq_on_stack(struct __sk_buff *skb)
{
	struct bpf_wq w = {};

	bpf_wq_init(&w, &wq_array, 0);
	return 0;
}

// vercheck: reject "off 0 doesn't point to 'struct bpf_wq' that is at 8"
SEC("tc")
int wq_wrong_field(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	bpf_wq_init((struct bpf_wq *)&e->count, &wq_array, 0);
	return 0;
}

// vercheck: reject "map 'wq_plain' has no valid bpf_wq"
SEC("tc")
int wq_no_wq(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_plain);

	if (!e)
		return 0;
	bpf_wq_init((struct bpf_wq *)e, &wq_plain, 0);
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: reject "At async callback return the register R0 has smin=1 smax=1 should have been in [0, 0]" without sleepable-cb-sleepable-prog
SEC("tc")
int wq_bad_return(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &wq_array, 0);
	bpf_wq_set_callback_impl(&e->w, wq_cb_ret1, 0, NULL);
	return 0;
}

// vercheck: reject "bpf_wq cannot be accessed directly by load/store"
SEC("tc")
int wq_direct_access(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	return e->w.__opaque[0] & 1;
}

// vercheck: reject "tracing progs cannot use bpf_wq yet"
SEC("kprobe/do_nanosleep")
int wq_in_kprobe(void *ctx)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	bpf_wq_start(&e->w, 0);
	return 0;
}

/* A kernel with the async-map-match stable fix compares the map argument
 * with the workqueue's map whatever it holds. Without it (6.18.44-fc-v973)
 * the maps are compared only when the map argument has workqueues itself:
 * a map with other special fields (a timer) is not. (A map with no special
 * field at all makes the 6.18 verifier fault: it reads that map's record,
 * an error pointer.) */
// vercheck: reject "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0"
// vercheck: accept without async-map-match
SEC("tc")
int wq_init_timer_map(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &wq_timers, 0);
	return 0;
}

/* A map value carries its map, but is not trusted. */
// vercheck: reject "R2 must be referenced or trusted"
SEC("tc")
int wq_init_value_as_map(struct __sk_buff *skb)
{
	struct wq_elem *e = wq_lookup(&wq_array);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, e, 0);
	return 0;
}

// vercheck: reject "arg1 expected pointer to func"
SEC("tc")
__naked int wq_callback_not_func(void)
{
	asm volatile (
	"r1 = 0;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[wq_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"if r0 == 0 goto l0_%=;"
	"r1 = r0;"
	"r1 += 8;"
	"r2 = r10;"
	"r3 = 0;"
	"r4 = 0;"
	"call %[bpf_wq_set_callback_impl];"
"l0_%=:"
	"r0 = 0;"
	"exit;"
	:: __imm_addr(wq_array), __imm(bpf_map_lookup_elem), __imm(bpf_wq_set_callback_impl)
	: __clobber_all);
}

char _license[] SEC("license") = "GPL";

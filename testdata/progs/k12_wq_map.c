#include "progs.h"

/* The map argument of bpf_wq_init and bpf_task_work_schedule_*. A kernel
 * with the async-map-match stable fix wants the map the workqueue
 * (task_work) lives in, whatever the map argument holds, and names in its
 * message the field of the workqueue's (task_work's) map: its task_work
 * if it has one, else its workqueue. Without the fix (6.18.44-fc-v973) a
 * map that holds neither is not compared, and the message names the field
 * of the map argument. (A map without any special field makes the 6.18
 * verifier fault: never loaded here, see verifier/testdata/kernelfault.) */

struct bpf_wq {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

struct bpf_task_work {
	__u64 __opaque;
} __attribute__((aligned(8)));

struct task_struct {
	int pid;
};

struct bpf_map {
	int id;
};

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __ksym;
extern int bpf_task_work_schedule_signal_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map,
					      int (*callback)(struct bpf_map *map, void *key, void *value),
					      void *aux__prog) __ksym;

struct k12_wq_elem {
	__u64 count;
	struct bpf_wq w;
};

struct k12_tw_elem {
	__u64 count;
	struct bpf_task_work tw;
};

struct k12_timer_elem {
	struct bpf_timer t;
};

struct k12_lock_elem {
	__u64 count;
	struct bpf_spin_lock l;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_wq_elem);
} k12_wqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_tw_elem);
} k12_tws SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_timer_elem);
} k12_timers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_lock_elem);
} k12_locks SEC(".maps");

struct k12_both_elem {
	struct bpf_wq w;
	struct bpf_task_work tw;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct k12_both_elem);
} k12_boths SEC(".maps");

static struct task_struct *(*current_task_btf)(void) = (void *)158;

static int k12_tw_cb(struct bpf_map *map, void *key, void *value)
{
	return 0;
}

static void *k12_lookup(void *map)
{
	int key = 0;

	return bpf_map_lookup_elem(map, &key);
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("tc")
int k12_wqmap_ok(struct __sk_buff *skb)
{
	struct k12_wq_elem *e = k12_lookup(&k12_wqs);
	struct k12_tw_elem *t = k12_lookup(&k12_tws);

	if (!e || !t)
		return 0;
	bpf_wq_init(&e->w, &k12_wqs, 0);
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &t->tw, &k12_tws, k12_tw_cb, 0);
}

// vercheck: reject "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0"
// vercheck: accept without async-map-match
SEC("tc")
int k12_wqmap_lock(struct __sk_buff *skb)
{
	struct k12_wq_elem *e = k12_lookup(&k12_wqs);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &k12_locks, 0);
	return 0;
}

// vercheck: reject "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0"
// vercheck: reject "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 map_uid=0" without async-map-match
SEC("tc")
int k12_wqmap_tw_map(struct __sk_buff *skb)
{
	struct k12_wq_elem *e = k12_lookup(&k12_wqs);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &k12_tws, 0);
	return 0;
}

// vercheck: reject "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 map_uid=0"
// vercheck: reject "failed callback verification" without async-map-match
SEC("tc")
int k12_wqmap_tw_in_timers(struct __sk_buff *skb)
{
	struct k12_tw_elem *t = k12_lookup(&k12_tws);

	if (!t)
		return 0;
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &t->tw, &k12_timers, k12_tw_cb, 0);
}

// vercheck: reject "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 map_uid=0"
// vercheck: reject "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0" without async-map-match
SEC("tc")
int k12_wqmap_tw_in_wqs(struct __sk_buff *skb)
{
	struct k12_tw_elem *t = k12_lookup(&k12_tws);

	if (!t)
		return 0;
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &t->tw, &k12_wqs, k12_tw_cb, 0);
}

// vercheck: reject "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0"
// vercheck: reject "R2 must be referenced or trusted" without async-map-match
SEC("tc")
int k12_wqmap_timer_value(struct __sk_buff *skb)
{
	struct k12_wq_elem *e = k12_lookup(&k12_wqs);
	struct k12_timer_elem *v = k12_lookup(&k12_timers);

	if (!e || !v)
		return 0;
	bpf_wq_init(&e->w, v, 0);
	return 0;
}

// vercheck: reject "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 map_uid=0"
// vercheck: accept without async-map-match
SEC("tc")
int k12_wqmap_both_wq(struct __sk_buff *skb)
{
	struct k12_both_elem *e = k12_lookup(&k12_boths);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &k12_timers, 0);
	return 0;
}

// vercheck: reject "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 map_uid=0"
// vercheck: reject "failed callback verification" without async-map-match
SEC("tc")
int k12_wqmap_both_tw(struct __sk_buff *skb)
{
	struct k12_both_elem *e = k12_lookup(&k12_boths);

	if (!e)
		return 0;
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &e->tw, &k12_timers, k12_tw_cb, 0);
}

// vercheck: reject "workqueue pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=0"
// vercheck: reject "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 map_uid=0" without async-map-match
SEC("tc")
int k12_wqmap_into_both(struct __sk_buff *skb)
{
	struct k12_wq_elem *e = k12_lookup(&k12_wqs);

	if (!e)
		return 0;
	bpf_wq_init(&e->w, &k12_boths, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";

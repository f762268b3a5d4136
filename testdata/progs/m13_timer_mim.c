#include "progs.h"

/* Timers, workqueues and task_works in the inner maps of a map of maps.
 * Every inner map looked up from one outer map has the same map (the outer
 * map's inner template, inner_map_meta): the kernel tells them apart by
 * map_uid, the id of the lookup that gave the inner map, which the inner
 * map takes once proven non-NULL when its values hold a timer, a workqueue
 * or a task_work, and which lookups in it pass on to their values. The
 * timer (workqueue, task_work) must be initialised with the very inner map
 * it lives in: same map and same map_uid. */

#define CLOCK_MONOTONIC 1

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
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __ksym;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq,
				    int (callback_fn)(void *map, int *key, void *value),
				    unsigned int flags, void *aux__ign) __ksym;
extern int bpf_task_work_schedule_signal_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map,
					      int (*callback)(struct bpf_map *map, void *key, void *value),
					      void *aux__prog) __ksym;

static struct task_struct *(*current_task_btf)(void) = (void *)158;

struct m13_tval {
	__u64 hits;
	struct bpf_timer t;
};

struct m13_wval {
	__u64 hits;
	struct bpf_wq w;
};

struct m13_twval {
	__u64 hits;
	struct bpf_task_work tw;
};

struct m13_tinner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct m13_tval);
} m13_tinner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, int);
	__array(values, struct m13_tinner);
} m13_touter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, int);
	__array(values, struct m13_tinner);
} m13_touter2 SEC(".maps");

struct m13_winner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct m13_wval);
} m13_winner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, int);
	__array(values, struct m13_winner);
} m13_wouter SEC(".maps");

struct m13_twinner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct m13_twval);
} m13_twinner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, int);
	__array(values, struct m13_twinner);
} m13_twouter SEC(".maps");

static int m13_tcb(void *map, int *key, struct m13_tval *val)
{
	val->hits++;
	return 0;
}

/* The callback's map is the timer's inner map, with its uid: a timer of
 * the callback's own value may be initialised with it. */
static int m13_tcb_reinit(void *map, int *key, struct m13_tval *val)
{
	bpf_timer_init(&val->t, map, CLOCK_MONOTONIC);
	return 0;
}

/* The callbacks name the value types, so that the object's BTF has them
 * whole (a map definition's __type alone gives a forward declaration). */
static int m13_wcb(void *map, int *key, struct m13_wval *value)
{
	return 0;
}

static int m13_twcb(struct bpf_map *map, void *key, struct m13_twval *value)
{
	return 0;
}

static __always_inline void *m13_get(void *map, int k)
{
	return bpf_map_lookup_elem(map, &k);
}

// vercheck: accept
SEC("tc")
int m13_mim_timer_ok(struct __sk_buff *skb)
{
	struct m13_tval *v;
	void *inner;

	inner = m13_get(&m13_touter, 0);
	if (!inner)
		return 0;
	v = m13_get(inner, 0);
	if (!v)
		return 0;
	bpf_timer_init(&v->t, inner, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&v->t, m13_tcb);
	bpf_timer_start(&v->t, 1000, 0);
	return 0;
}

// vercheck: accept
SEC("tc")
int m13_mim_timer_cb_reinit(struct __sk_buff *skb)
{
	struct m13_tval *v;
	void *inner;

	inner = m13_get(&m13_touter2, 1);
	if (!inner)
		return 0;
	v = m13_get(inner, 0);
	if (!v)
		return 0;
	bpf_timer_init(&v->t, inner, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&v->t, m13_tcb_reinit);
	return 0;
}

/* Two lookups of the outer map are two inner maps. */
// vercheck: reject "timer pointer in R1 map_uid=1 doesn't match map pointer in R2 map_uid=2"
SEC("tc")
int m13_mim_timer_two_inner(struct __sk_buff *skb)
{
	struct m13_tval *v;
	void *in1, *in2;

	in1 = m13_get(&m13_touter, 0);
	in2 = m13_get(&m13_touter, 1);
	if (!in1 || !in2)
		return 0;
	v = m13_get(in1, 0);
	if (!v)
		return 0;
	bpf_timer_init(&v->t, in2, CLOCK_MONOTONIC);
	return 0;
}

/* The inner map of another outer map is another map. */
// vercheck: reject "timer pointer in R1 map_uid=1 doesn't match map pointer in R2 map_uid=2"
SEC("tc")
int m13_mim_timer_other_outer(struct __sk_buff *skb)
{
	struct m13_tval *v;
	void *in1, *in2;

	in1 = m13_get(&m13_touter, 0);
	if (!in1)
		return 0;
	in2 = m13_get(&m13_touter2, 0);
	if (!in2)
		return 0;
	v = m13_get(in1, 0);
	if (!v)
		return 0;
	bpf_timer_init(&v->t, in2, CLOCK_MONOTONIC);
	return 0;
}

/* The map the program names is not the inner map, though it was the
 * template. */
// vercheck: reject "timer pointer in R1 map_uid=1 doesn't match map pointer in R2 map_uid=0"
SEC("tc")
int m13_mim_timer_named_map(struct __sk_buff *skb)
{
	struct m13_tval *v;
	void *inner;

	inner = m13_get(&m13_touter, 0);
	if (!inner)
		return 0;
	v = m13_get(inner, 0);
	if (!v)
		return 0;
	bpf_timer_init(&v->t, &m13_tinner, CLOCK_MONOTONIC);
	return 0;
}

// vercheck: reject "timer pointer in R1 map_uid=0 doesn't match map pointer in R2 map_uid=1"
SEC("tc")
int m13_mim_timer_named_value(struct __sk_buff *skb)
{
	struct m13_tval *v;
	void *inner;

	inner = m13_get(&m13_touter, 0);
	if (!inner)
		return 0;
	v = m13_get(&m13_tinner, 0);
	if (!v)
		return 0;
	bpf_timer_init(&v->t, inner, CLOCK_MONOTONIC);
	return 0;
}

/* Each path looks its inner map up anew: two uids, so the paths do not
 * prune each other where they meet. */
// vercheck: accept
SEC("tc")
int m13_mim_timer_join(struct __sk_buff *skb)
{
	struct m13_tval *v;
	void *inner;

	if (skb->len > 100)
		inner = m13_get(&m13_touter, 0);
	else
		inner = m13_get(&m13_touter, 1);
	if (!inner)
		return 0;
	v = m13_get(inner, 0);
	if (!v)
		return 0;
	if (skb->mark)
		bpf_timer_init(&v->t, inner, CLOCK_MONOTONIC);
	if (skb->priority)
		bpf_timer_start(&v->t, 1000, 0);
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("tc")
int m13_mim_wq_ok(struct __sk_buff *skb)
{
	struct m13_wval *v;
	void *inner;

	inner = m13_get(&m13_wouter, 0);
	if (!inner)
		return 0;
	v = m13_get(inner, 0);
	if (!v)
		return 0;
	if (bpf_wq_init(&v->w, inner, 0))
		return 0;
	bpf_wq_set_callback_impl(&v->w, (void *)m13_wcb, 0, 0);
	bpf_wq_start(&v->w, 0);
	return 0;
}

// vercheck: reject "workqueue pointer in R1 map_uid=1 doesn't match map pointer in R2 map_uid=2"
SEC("tc")
int m13_mim_wq_two_inner(struct __sk_buff *skb)
{
	struct m13_wval *v;
	void *in1, *in2;

	in1 = m13_get(&m13_wouter, 0);
	in2 = m13_get(&m13_wouter, 1);
	if (!in1 || !in2)
		return 0;
	v = m13_get(in1, 0);
	if (!v)
		return 0;
	bpf_wq_init(&v->w, in2, 0);
	return 0;
}

// vercheck: reject "workqueue pointer in R1 map_uid=1 doesn't match map pointer in R2 map_uid=0"
SEC("tc")
int m13_mim_wq_named_map(struct __sk_buff *skb)
{
	struct m13_wval *v;
	void *inner;

	inner = m13_get(&m13_wouter, 0);
	if (!inner)
		return 0;
	v = m13_get(inner, 0);
	if (!v)
		return 0;
	bpf_wq_init(&v->w, &m13_winner, 0);
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("tc")
int m13_mim_tw_ok(struct __sk_buff *skb)
{
	struct m13_twval *v;
	void *inner;

	inner = m13_get(&m13_twouter, 0);
	if (!inner)
		return 0;
	v = m13_get(inner, 0);
	if (!v)
		return 0;
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, inner, (void *)m13_twcb, 0);
}

// vercheck: reject "bpf_task_work pointer in R2 map_uid=1 doesn't match map pointer in R3 map_uid=2"
SEC("tc")
int m13_mim_tw_two_inner(struct __sk_buff *skb)
{
	struct m13_twval *v;
	void *in1, *in2;

	in1 = m13_get(&m13_twouter, 0);
	in2 = m13_get(&m13_twouter, 1);
	if (!in1 || !in2)
		return 0;
	v = m13_get(in1, 0);
	if (!v)
		return 0;
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, in2, (void *)m13_twcb, 0);
}

/* bpf_for_each_map_elem over an inner map: the callback's map, key and
 * value have the inner map's uid. */
static int m13_each_reinit(void *map, int *key, struct m13_tval *val, void *ctx)
{
	bpf_timer_init(&val->t, map, CLOCK_MONOTONIC);
	return 0;
}

static int m13_each_named(void *map, int *key, struct m13_tval *val, void *ctx)
{
	bpf_timer_init(&val->t, &m13_tinner, CLOCK_MONOTONIC);
	return 0;
}

// vercheck: accept
SEC("tc")
int m13_mim_each_ok(struct __sk_buff *skb)
{
	void *inner = m13_get(&m13_touter, 0);

	if (!inner)
		return 0;
	bpf_for_each_map_elem(inner, m13_each_reinit, 0, 0);
	return 0;
}

// vercheck: reject "timer pointer in R1 map_uid=1 doesn't match map pointer in R2 map_uid=0"
SEC("tc")
int m13_mim_each_named(struct __sk_buff *skb)
{
	void *inner = m13_get(&m13_touter, 0);

	if (!inner)
		return 0;
	bpf_for_each_map_elem(inner, m13_each_named, 0, 0);
	return 0;
}

char _license[] SEC("license") = "GPL";

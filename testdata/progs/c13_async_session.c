#include "progs.h"

/* A kprobe or uprobe session program may not register an asynchronous
 * callback (stablefix async-cb-session, this machine's build only): the
 * task_work kfuncs, which tracing programs may call, are refused there
 * with "async callback in a session program" and the kfunc's "failed
 * callback verification". A synchronous callback (bpf_loop) stays
 * allowed, and a kprobe_multi program may schedule the task_work. Found by
 * the fuzz run of seed 20261321 (its program-type mutation loaded
 * p8_task_work's kprobe as a session program). Timers cannot get there:
 * tracing programs may not use maps with a bpf_timer.
 */

struct bpf_task_work {
	__u64 __opaque;
} __attribute__((aligned(8)));

struct task_struct {
	int pid;
};

struct bpf_map {
	int id;
};

extern int bpf_task_work_schedule_signal_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map,
					      int (*callback)(struct bpf_map *map, void *key, void *value),
					      void *aux__prog) __ksym;
extern int bpf_task_work_schedule_resume_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map,
					      int (*callback)(struct bpf_map *map, void *key, void *value),
					      void *aux__prog) __ksym;

struct tw_elem {
	__u64 count;
	struct bpf_task_work tw;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct tw_elem);
} tw_array SEC(".maps");

struct timer_val {
	__u64 hits;
	struct bpf_timer t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct timer_val);
} timer_map SEC(".maps");

static struct task_struct *(*current_task_btf)(void) = (void *)158;

static int tw_cb(struct bpf_map *map, void *key, void *value)
{
	return 0;
}

static int timer_cb(void *map, __u32 *key, struct timer_val *val)
{
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: reject "failed callback verification" without async-cb-session
SEC("kprobe.session/do_nanosleep")
int c13_ksession_tw(void *ctx)
{
	int key = 0;
	struct tw_elem *v = bpf_map_lookup_elem(&tw_array, &key);

	if (!v)
		return 0;
	bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb, 0);
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: reject "failed callback verification" without async-cb-session
SEC("kprobe.session/do_nanosleep")
int c13_ksession_tw_resume(void *ctx)
{
	int key = 0;
	struct tw_elem *v = bpf_map_lookup_elem(&tw_array, &key);

	if (!v)
		return 0;
	bpf_task_work_schedule_resume_impl(current_task_btf(), &v->tw, &tw_array, tw_cb, 0);
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: reject "failed callback verification" without async-cb-session
SEC("uprobe.session")
int c13_usession_tw(void *ctx)
{
	int key = 0;
	struct tw_elem *v = bpf_map_lookup_elem(&tw_array, &key);

	if (!v)
		return 0;
	bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb, 0);
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("kprobe.multi/do_nanosleep")
int c13_kmulti_tw(void *ctx)
{
	int key = 0;
	struct tw_elem *v = bpf_map_lookup_elem(&tw_array, &key);

	if (!v)
		return 0;
	bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb, 0);
	return 0;
}

static int loop_cb(__u64 i, void *ctx)
{
	return 0;
}

// vercheck: accept
SEC("kprobe.session/do_nanosleep")
int c13_ksession_loop(void *ctx)
{
	bpf_loop(4, loop_cb, 0, 0);
	return 0;
}

// vercheck: reject "tracing progs cannot use bpf_timer yet"
SEC("kprobe.session/do_nanosleep")
int c13_ksession_timer(void *ctx)
{
	__u32 key = 0;
	struct timer_val *v = bpf_map_lookup_elem(&timer_map, &key);

	if (!v)
		return 0;
	bpf_timer_set_callback(&v->t, timer_cb);
	return 0;
}

char _license[] SEC("license") = "GPL";

#include "progs.h"

/* Two of this build's rules about asynchronous callbacks apply at once: a
 * kprobe or uprobe session program (stablefix async-cb-session) that also
 * names a cgroup storage map (async-cb-cgroup-storage) schedules a
 * task_work. The build asks about the storage first: its level-2 log
 * says "async callback in a program with cgroup storage" before the
 * kfunc's "failed callback verification", where vercheck said "async
 * callback in a session program". Found by probing the build's rules by
 * hand (session 32). Only task_work gets there: tracing programs may not
 * use maps with a bpf_timer or a bpf_wq.
 */
char _license[] SEC("license") = "GPL";

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

static struct task_struct *(*current_task_btf)(void) = (void *)158;

struct s32_tw_elem {
	__u64 hits;
	struct bpf_task_work tw;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct s32_tw_elem);
} s32_tw SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_STORAGE);
	__type(key, struct bpf_cgroup_storage_key);
	__type(value, __u64);
} s32_cg SEC(".maps");

static int s32_tw_cb(struct bpf_map *map, void *key, void *value)
{
	return 0;
}

static __always_inline int s32_schedule(void)
{
	int k = 0;
	struct s32_tw_elem *v;

	/* Names the cgroup storage map: enough for the rule. */
	asm volatile("r1 = %[cg] ll" :: [cg] "i"(&s32_cg) : "r1");
	v = bpf_map_lookup_elem(&s32_tw, &k);
	if (!v)
		return 0;
	bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &s32_tw, s32_tw_cb, 0);
	return 0;
}

// vercheck: reject "failed callback verification"
SEC("kprobe.session/do_nanosleep")
int s32_ksession_cgstorage_tw(void *ctx)
{
	return s32_schedule();
}

// vercheck: reject "failed callback verification"
SEC("uprobe.session")
int s32_usession_cgstorage_tw(void *ctx)
{
	return s32_schedule();
}

/* A kprobe_multi program is no session program: the storage alone. */
// vercheck: reject "failed callback verification"
SEC("kprobe.multi/do_nanosleep")
int s32_kmulti_cgstorage_tw(void *ctx)
{
	return s32_schedule();
}

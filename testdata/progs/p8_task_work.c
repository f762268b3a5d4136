#include "progs.h"

/* bpf_task_work_schedule_signal_impl / _resume_impl (6.18): a struct
 * bpf_task_work in a map value, the map, a callback the kernel runs later
 * in the task's context (sleepable, with (map, key, value) of the element,
 * returning any int), scheduled for a trusted task. */

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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct tw_elem);
} tw_hash SEC(".maps");

static struct task_struct *(*current_task_btf)(void) = (void *)158;

/* The callback may sleep and return any number. */
static int tw_cb(struct bpf_map *map, void *key, void *value)
{
	char buf[8];
	struct tw_elem *e = value;

	bpf_copy_from_user(buf, sizeof(buf), (void *)(long)e->count);
	return 0;
}

static int tw_cb_neg(struct bpf_map *map, void *key, void *value)
{
	return -7;
}

static int tw_cb_ptr(struct bpf_map *map, void *key, void *value)
{
	return (long)value;
}

#define TW_PROLOGUE(map)                                         \
	int key = 0;                                             \
	struct tw_elem *v = bpf_map_lookup_elem(&map, &key);     \
	if (!v)                                                  \
		return 0;

/* Schedules the callback for the current task. */
// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("tc")
int p8_tw_signal(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb, 0);
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("tc")
int p8_tw_resume_hash(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_hash)
	return bpf_task_work_schedule_resume_impl(current_task_btf(), &v->tw, &tw_hash, tw_cb, 0);
}

/* The task_work pointer must be the field itself. */
// vercheck: reject "off 0 doesn't point to 'struct bpf_task_work' that is at 8"
SEC("tc")
int p8_tw_wrong_off(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(current_task_btf(), (void *)&v->count, &tw_array, tw_cb, 0);
}

/* Nor on the stack. */
// vercheck: reject "arg#1 doesn't point to a map value"
SEC("tc")
int p8_tw_stack(struct __sk_buff *ctx)
{
	struct bpf_task_work tw = {};

	return bpf_task_work_schedule_signal_impl(current_task_btf(), &tw, &tw_array, tw_cb, 0);
}

/* The map argument must be the map the task_work lives in. */
// vercheck: reject "bpf_task_work pointer in R2 map_uid=0 doesn't match map pointer in R3 map_uid=0"
SEC("tc")
int p8_tw_other_map(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_hash, tw_cb, 0);
}

/* The callback returns a number. */
// vercheck: reject "failed callback verification"
// vercheck: reject "At async callback return the register R0 is not a known value (map_value)" without sleepable-cb-sleepable-prog
SEC("tc")
int p8_tw_cb_ptr(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb_ptr, 0);
}

/* A negative int, as the callback's 32-bit return sets it, is out of the
 * range the kernel checks on all 64 bits. */
// vercheck: reject "failed callback verification"
// vercheck: reject "At async callback return the register R0 has smin=4294967289 smax=4294967289 should have been in [-2147483648, 2147483647]" without sleepable-cb-sleepable-prog
SEC("tc")
int p8_tw_cb_neg(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb_neg, 0);
}

/* The task may not be NULL. */
// vercheck: reject "Possibly NULL pointer passed to trusted arg0"
SEC("tc")
int p8_tw_null_task(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(0, &v->tw, &tw_array, tw_cb, 0);
}

/* The task_work is the kernel's: no load or store of it. */
// vercheck: reject "bpf_task_work cannot be accessed directly by load/store"
SEC("tc")
int p8_tw_direct(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return v->tw.__opaque != 0;
}

/* A kprobe program may use a map with a task_work. */
// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("kprobe/do_nanosleep")
int p8_tw_kprobe(void *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb, 0);
}

/* A socket filter may call it too. */
// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("socket")
int p8_tw_socket(struct __sk_buff *ctx)
{
	TW_PROLOGUE(tw_array)
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &tw_array, tw_cb, 0);
}

char _license[] SEC("license") = "GPL";

#include "progs.h"

/* A call of a task_work kfunc (bpf_task_work_schedule_signal_impl) registers
 * an asynchronous callback: is_async_callback_calling_kfunc, so check_cfg
 * makes the call itself a prune point, as for bpf_timer_set_callback and
 * bpf_wq_set_callback_impl. Here the path that a "may_goto +0" pushes reaches
 * the call in the state the first path stored there and is pruned at it
 * (27 insns); vercheck had no prune point there and walked on (30). Found
 * by the mutation fuzzer from p8_task_work.c. */

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

struct tw_elem {
	__u64 count;
	struct bpf_task_work tw;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, int);
	__type(value, struct tw_elem);
} au10_tw_array SEC(".maps");

#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

static __naked __attribute__((noinline, used)) int au10_tw_cb(void)
{
	asm volatile (
	"r0 = 0;"
	"exit;"
	::: __clobber_all);
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("kprobe/do_nanosleep")
__naked int au10_tw_maygoto0(void)
{
	asm volatile (
	"w6 = 0;"
	"*(u32 *)(r10 - 4) = r6;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[au10_tw_array] ll;"
	"call %[bpf_map_lookup_elem];"
	"r7 = r0;"
	MAY_GOTO(0)
	"call 158;"
	"r7 += 8;"
	"r1 = r0;"
	"r2 = r7;"
	"r3 = %[au10_tw_array] ll;"
	"r4 = au10_tw_cb ll;"
	"r5 = 0;"
	"call %[bpf_task_work_schedule_signal_impl];"
	"exit;"
	:: __imm_addr(au10_tw_array), __imm(bpf_map_lookup_elem),
	   __imm(bpf_task_work_schedule_signal_impl)
	: __clobber_all);
}

static struct task_struct *(*current_task_btf)(void) = (void *)158;

static int au10_tw_cb2(struct bpf_map *map, void *key, void *value)
{
	return 0;
}

// vercheck: reject "failed callback verification"
// vercheck: accept without sleepable-cb-sleepable-prog
SEC("kprobe/do_nanosleep")
int au10_tw_plain(void *ctx)
{
	int key = 0;
	struct tw_elem *v = bpf_map_lookup_elem(&au10_tw_array, &key);

	if (!v)
		return 0;
	return bpf_task_work_schedule_signal_impl(current_task_btf(), &v->tw, &au10_tw_array, au10_tw_cb2, 0);
}

char _license[] SEC("license") = "GPL";

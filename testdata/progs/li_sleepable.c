// BPF_F_SLEEPABLE, which loaders set from the section name ("uprobe.s/",
// "fentry.s/", "lsm.s/"... and "syscall"), changes the verdict: helpers
// that might sleep need it, and it narrows the map types a program may use
// (check_map_prog_compatibility).
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} li_events SEC(".maps");

// bpf_copy_from_user may fault the page in: only sleepable programs.
// vercheck: accept
SEC("uprobe.s")
int li_sleep_copy_sleepable(void *ctx)
{
	__u64 buf = 0;

	bpf_copy_from_user(&buf, sizeof(buf), (void *)0x1000);
	return buf == 0;
}

// vercheck: reject "helper call might sleep in a non-sleepable prog"
SEC("uprobe")
int li_sleep_copy_plain(void *ctx)
{
	__u64 buf = 0;

	bpf_copy_from_user(&buf, sizeof(buf), (void *)0x1000);
	return buf == 0;
}

// A perf event array is no map a sleepable program may use.
// vercheck: reject "Sleepable programs can only use array, hash, ringbuf and local storage maps"
SEC("uprobe.s")
int li_sleep_perf_sleepable(void *ctx)
{
	__u64 v = 1;

	bpf_perf_event_output(ctx, &li_events, BPF_F_CURRENT_CPU, &v, sizeof(v));
	return 0;
}

// vercheck: accept
SEC("uprobe")
int li_sleep_perf_plain(void *ctx)
{
	__u64 v = 1;

	bpf_perf_event_output(ctx, &li_events, BPF_F_CURRENT_CPU, &v, sizeof(v));
	return 0;
}

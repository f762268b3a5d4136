// bpf_for_each_map_elem over a map without for-each operations (a ring
// buffer) with a static callback whose argument carries an "arg:" decl
// tag: push_callback_call checks the callback's prototype against the
// caller's registers first (btf_check_subprog_call logs "arg#0 type tag is
// not supported in static functions"), then set_map_elem_callback_state
// refuses the map ("callback function not allowed for map"). Found as a
// level-2 log difference of mutation fuzzing (seed 20263104).
#include "progs.h"
char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} s31_rb SEC(".maps");

static long s31_tagged_cb(void *map __attribute__((btf_decl_tag("arg:ctx"))), void *key, void *val,
			  void *ctx)
{
	return 0;
}

// vercheck: reject "callback function not allowed for map"
SEC("tc")
int s31_foreach_ringbuf_tagged_cb(struct __sk_buff *skb)
{
	bpf_for_each_map_elem(&s31_rb, s31_tagged_cb, 0, 0);
	return 0;
}

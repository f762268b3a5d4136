#include "progs.h"

/* Spin locks in global data: a hidden variable in a ".data.<name>" section
 * is a map of its own whose value type is the section's BTF Datasec; its
 * variables are the map value's fields, so a bpf_spin_lock variable is the
 * map's lock.
 */

#define private(name) SEC(".data." #name) __attribute__((visibility("hidden"), aligned(8)))

private(A) struct bpf_spin_lock sw_lock_a;
private(A) int sw_counter_a;
private(B) struct bpf_spin_lock sw_lock_b;

// vercheck: accept
SEC("tc")
int sw_global_lock_ok(struct __sk_buff *skb)
{
	bpf_spin_lock(&sw_lock_a);
	sw_counter_a++;
	bpf_spin_unlock(&sw_lock_a);
	return 0;
}

// vercheck: reject "bpf_spin_unlock of different lock"
SEC("tc")
int sw_global_lock_mismatch(struct __sk_buff *skb)
{
	bpf_spin_lock(&sw_lock_a);
	bpf_spin_unlock(&sw_lock_b);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region"
SEC("tc")
int sw_global_lock_held(struct __sk_buff *skb)
{
	bpf_spin_lock(&sw_lock_b);
	return 0;
}

char _license[] SEC("license") = "GPL";

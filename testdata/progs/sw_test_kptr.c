#include "progs.h"

/* Kptrs to net/bpf/test_run.c's struct prog_test_ref_kfunc, which has a
 * destructor registered in vmlinux: a map may own one, and a program that
 * takes it out must release it with bpf_kfunc_call_test_release.
 */

#define __kptr __attribute__((btf_type_tag("kptr")))

struct prog_test_ref_kfunc {
	int a;
	int b;
} __attribute__((preserve_access_index));

extern void bpf_kfunc_call_test_release(struct prog_test_ref_kfunc *p) __ksym;

struct sw_test_val {
	struct prog_test_ref_kfunc __kptr *ref;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct sw_test_val);
} sw_test_kptrs SEC(".maps");

// vercheck: accept
SEC("tc")
int sw_test_kptr_release(struct __sk_buff *skb)
{
	struct prog_test_ref_kfunc *p;
	struct sw_test_val *v;
	int key = 0;

	v = bpf_map_lookup_elem(&sw_test_kptrs, &key);
	if (!v)
		return 0;
	p = bpf_kptr_xchg(&v->ref, NULL);
	if (p)
		bpf_kfunc_call_test_release(p);
	return 0;
}

// vercheck: reject "BPF_EXIT instruction in main prog would lead to reference leak"
SEC("tc")
int sw_test_kptr_leak(struct __sk_buff *skb)
{
	struct prog_test_ref_kfunc *p;
	struct sw_test_val *v;
	int key = 0;

	v = bpf_map_lookup_elem(&sw_test_kptrs, &key);
	if (!v)
		return 0;
	p = bpf_kptr_xchg(&v->ref, NULL);
	return p != 0;
}

char _license[] SEC("license") = "GPL";

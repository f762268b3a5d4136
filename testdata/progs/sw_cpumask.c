#include "progs.h"

/* The cpumask kfuncs (kernel/bpf/cpumask.c): a struct bpf_cpumask the
 * program owns is also a struct cpumask (its first member) for the
 * read-only kfuncs, which take RCU or trusted pointers.
 */

struct cpumask {
	unsigned long bits[1];
};

struct bpf_cpumask {
	struct cpumask cpumask;
};

extern struct bpf_cpumask *bpf_cpumask_create(void) __ksym;
extern void bpf_cpumask_release(struct bpf_cpumask *cpumask) __ksym;
extern void bpf_cpumask_set_cpu(__u32 cpu, struct bpf_cpumask *cpumask) __ksym;
extern _Bool bpf_cpumask_empty(const struct cpumask *cpumask) __ksym;
extern __u32 bpf_cpumask_weight(const struct cpumask *cpumask) __ksym;

// vercheck: accept
SEC("tp_btf/task_newtask")
int sw_cpumask_weight(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create();
	int n;

	if (!m)
		return 0;
	bpf_cpumask_set_cpu(0, m);
	n = bpf_cpumask_empty((const struct cpumask *)m) ? 0 : bpf_cpumask_weight((const struct cpumask *)m);
	bpf_cpumask_release(m);
	return n;
}

// vercheck: reject "Possibly NULL pointer passed to trusted arg0"
SEC("tp_btf/task_newtask")
int sw_cpumask_unchecked(void *ctx)
{
	struct bpf_cpumask *m = bpf_cpumask_create();
	int n = bpf_cpumask_empty((const struct cpumask *)m);

	if (m)
		bpf_cpumask_release(m);
	return n;
}

char _license[] SEC("license") = "GPL";

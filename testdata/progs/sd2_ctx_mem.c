// The context as memory for a kfunc (helpers refuse it by argument type
// before). A program type whose
// verifier ops have no convert_ctx_access (tracing, kprobes, syscall
// programs) has a context the verifier cannot size statically:
// check_helper_mem_access checks a one-byte access at the last byte of
// the memory instead, with the program type's context rules. The other
// types refuse the context as memory outright.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct cpumask {
	unsigned long bits[1];
};

extern _Bool bpf_cpumask_empty(const struct cpumask *cpumask) __ksym;

// The BTF context of tp_btf has 8-byte arguments: the last byte of the
// kernel's struct cpumask (32 bytes with NR_CPUS 256) is none of them.
// vercheck: reject "invalid bpf_context access off=31 size=1"
SEC("tp_btf/task_newtask")
int sd2_ctx_as_cpumask(void *ctx)
{
	return bpf_cpumask_empty((const struct cpumask *)ctx);
}

// A syscall program's context is the caller's buffer, up to 64 KiB.
// vercheck: accept
SEC("syscall")
int sd2_syscall_ctx_as_cpumask(void *ctx)
{
	return bpf_cpumask_empty((const struct cpumask *)ctx);
}

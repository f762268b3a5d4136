/* Programs of types this machine's kernel build refuses to load (fentry,
 * fexit: EPERM before its verifier runs), the seeds of TestSelfCheckSeeds:
 * with -self-check their mutants are checked by vercheck's own search
 * without checkpoints. Built from the repository root with
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -I/usr/include/x86_64-linux-gnu \
 *     -c cmd/vercheck-mutate/testdata/selfcheck.c -o cmd/vercheck-mutate/testdata/selfcheck.o
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} sc_counts SEC(".maps");

SEC("fentry/do_unlinkat")
int BPF_PROG(sc_unlink, int dfd, void *name)
{
	__u32 key = dfd & 3;
	__u64 *v = bpf_map_lookup_elem(&sc_counts, &key);

	if (!v)
		return 0;
	if (dfd > 3)
		*v += 1;
	else
		*v += 2;
	if (name)
		*v += 4;
	return 0;
}

SEC("fexit/do_unlinkat")
int BPF_PROG(sc_unlink_exit, int dfd, void *name, long ret)
{
	__u32 key = ret < 0 ? 1 : 0;
	__u64 *v = bpf_map_lookup_elem(&sc_counts, &key);

	if (v && ret > 0)
		*v += ret;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

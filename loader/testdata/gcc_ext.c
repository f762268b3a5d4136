/* Built with GCC's BPF backend (bpf-gcc -O2 -gbtf -mco-re): its .BTF.ext
 * has empty func_info and line_info subsections, with no record size,
 * which libbpf skips and cilium/ebpf refuses unrepaired. With CORE
 * defined, the object also has a CO-RE relocation, so the CO-RE
 * subsection is not empty.
 * Built with: bpf-gcc -O2 -gbtf -mco-re -c gcc_ext.c -o gcc_empty_ext.o
 *             bpf-gcc -O2 -gbtf -mco-re -DCORE -c gcc_ext.c -o gcc_core_ext.o
 * (GCC 12.2, Debian's gcc-bpf). */

struct __sk_buff {
	unsigned int len;
	unsigned int pkt_type;
};

#ifdef CORE
struct task_struct {
	int pid;
} __attribute__((preserve_access_index));
#endif

__attribute__((section("license"), used)) char _license[] = "GPL";

__attribute__((section("socket"), used)) int gcc_ext_len(struct __sk_buff *skb)
{
#ifdef CORE
	struct task_struct *t = (struct task_struct *)(long)skb->len;
	return __builtin_preserve_access_index(t->pid);
#else
	return skb->len;
#endif
}

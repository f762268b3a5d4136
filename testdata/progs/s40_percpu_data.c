#include "progs.h"
char _license[] SEC("license") = "GPL";

/* Per-CPU global data (libbpf 1.8: ".percpu" and ".percpu.*" sections, a
 * BPF_MAP_TYPE_PERCPU_ARRAY each). The 6.18 kernel has no direct value
 * access to per-CPU arrays, so libbpf's FEAT_PERCPU_DATA probe fails and it
 * does not create these maps; it has relocated the programs before, and a
 * load of such a variable's address names the map's placeholder descriptor,
 * which is no map: the kernel refuses the program before verifying it,
 * reached or not ("fd 4 is not pointing to valid bpf_map", EINVAL; the
 * number is the loading process's, 0 where vercheck's oracle loads it).
 * cilium/ebpf refused to open the object. TestPercpuData. */
int s40_counter SEC(".percpu");
int s40_other SEC(".percpu.x") = 3;
int s40_plain;

// vercheck: reject "fd 0 is not pointing to valid bpf_map"
SEC("tc")
int s40_percpu_load(struct __sk_buff *skb)
{
	s40_counter++;
	return 0;
}

/* Never reached: the kernel resolves every 64-bit immediate load first. */
// vercheck: reject "fd 0 is not pointing to valid bpf_map"
SEC("tc")
__naked int s40_percpu_unreached(void)
{
	asm volatile ("r0 = 0; exit; r1 = %[s40_other] ll; r0 = *(u32 *)(r1 + 0); exit;"
		      :: __imm_addr(s40_other) : __clobber_all);
}

// vercheck: accept
SEC("tc")
int s40_plain_data(struct __sk_buff *skb)
{
	s40_plain++;
	return 0;
}

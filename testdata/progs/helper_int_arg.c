// Integer out-arguments of helpers (bpf_check_mtu's mtu_len) are
// fixed-size memory arguments in 6.18: a scalar there is refused with the
// memory argument's list of accepted pointer types.
#include "progs.h"

char _license[] SEC("license") = "GPL";

// vercheck: reject "R3 type=scalar expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
__naked int check_mtu_scalar_len(void)
{
	asm volatile (
	"r2 = 0;"
	"r3 = 1500;"
	"r4 = 0;"
	"r5 = 0;"
	"call %[bpf_check_mtu];"
	"r0 = 0;"
	"exit;"
	:
	: __imm(bpf_check_mtu)
	: __clobber_all);
}

#include "progs.h"
char _license[] SEC("license") = "GPL";

/* The .kconfig map's layout is the loader's: cilium/ebpf keeps the object's
 * declaration order (CONFIG_BPF_SYSCALL at 0, CONFIG_DEFAULT_HOSTNAME at 1,
 * CONFIG_HZ at 12: 16 bytes), libbpf sorts the externs by alignment, size
 * and name (CONFIG_HZ at 0, CONFIG_BPF_SYSCALL at 4, CONFIG_DEFAULT_HOSTNAME
 * at 5: 13 bytes). An access within one extern reads the same bytes either
 * way; one beyond it reads other externs, padding or past the value
 * depending on the loader (session 35's loader differential: a 4-byte read
 * at a bool's address, accepted as cilium/ebpf lays the map out, refused as
 * libbpf does). Programs without an expectation are vercheck's
 * "unsupported" (TestKconfigLayout); the kernel, given the loader's layout,
 * accepts them. */
extern _Bool CONFIG_BPF_SYSCALL __kconfig;
extern char CONFIG_DEFAULT_HOSTNAME[8] __kconfig;
extern int CONFIG_HZ __kconfig;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} s37_kc_hash SEC(".maps");

// vercheck: accept
SEC("socket")
__naked int s37_kconfig_each_own_type(void)
{
	asm volatile (
	"r1 = %[flag] ll;"
	"r2 = *(u8 *)(r1 + 0);"
	"r1 = %[host] ll;"
	"r3 = *(u64 *)(r1 + 0);"
	"r1 = %[hz] ll;"
	"r4 = *(u32 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:: [flag] "i"(&CONFIG_BPF_SYSCALL), [host] "i"(CONFIG_DEFAULT_HOSTNAME),
	   [hz] "i"(&CONFIG_HZ) : __clobber_all);
}

SEC("socket")
__naked int s37_kconfig_word_at_bool(void)
{
	asm volatile (
	"r1 = %[flag] ll;"
	"r0 = *(u32 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:: [flag] "i"(&CONFIG_BPF_SYSCALL) : __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s37_kconfig_var_in_string(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r0 &= 7;"
	"r1 = %[host] ll;"
	"r1 += r0;"
	"r0 = *(u8 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:: [host] "i"(CONFIG_DEFAULT_HOSTNAME), __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

SEC("socket")
__naked int s37_kconfig_var_past_string(void)
{
	asm volatile (
	"call %[bpf_get_prandom_u32];"
	"r0 &= 7;"
	"r1 = %[host] ll;"
	"r1 += r0;"
	"r0 = *(u16 *)(r1 + 0);"
	"r0 = 0;"
	"exit;"
	:: [host] "i"(CONFIG_DEFAULT_HOSTNAME), __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

SEC("socket")
__naked int s37_kconfig_helper_reads_past_bool(void)
{
	asm volatile (
	"*(u32 *)(r10 - 4) = 0;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[s37_kc_hash] ll;"
	"r3 = %[flag] ll;"
	"r4 = 0;"
	"call %[bpf_map_update_elem];"
	"r0 = 0;"
	"exit;"
	:: [flag] "i"(&CONFIG_BPF_SYSCALL), __imm_addr(s37_kc_hash),
	   __imm(bpf_map_update_elem) : __clobber_all);
}

// vercheck: accept
SEC("socket")
__naked int s37_kconfig_helper_reads_int(void)
{
	asm volatile (
	"*(u32 *)(r10 - 4) = 0;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[s37_kc_hash] ll;"
	"r3 = %[hz] ll;"
	"r4 = 0;"
	"call %[bpf_map_update_elem];"
	"r0 = 0;"
	"exit;"
	:: [hz] "i"(&CONFIG_HZ), __imm_addr(s37_kc_hash),
	   __imm(bpf_map_update_elem) : __clobber_all);
}

// vercheck: reject "R1 min value is outside of the allowed memory range"
SEC("socket")
__naked int s37_kconfig_past_value(void)
{
	asm volatile (
	"r1 = %[hz] ll;"
	"r0 = *(u8 *)(r1 + 4);"
	"r0 = 0;"
	"exit;"
	:: [hz] "i"(&CONFIG_HZ) : __clobber_all);
}

#include "progs.h"

/* ARG_PTR_TO_CONST_STR: the string must live in a frozen read-only map
 * (.rodata), at a known offset, NUL-terminated; bpf_snprintf's format is
 * also parsed against the number of u64 arguments it is given. */

const volatile char name_ro[] = "eth0";
char name_rw[] = "eth0";
const volatile char fmt_two[] = "%u:%llx";

// vercheck: accept
SEC("tc")
int strncmp_rodata(struct __sk_buff *skb)
{
	char buf[8] = "eth1";

	return bpf_strncmp(buf, sizeof(buf), (const char *)name_ro) == 0;
}

// vercheck: reject "R3 does not point to a readonly map'"
SEC("tc")
int strncmp_writable(struct __sk_buff *skb)
{
	char buf[8] = "eth1";

	return bpf_strncmp(buf, sizeof(buf), name_rw) == 0;
}

// vercheck: accept
SEC("tc")
int snprintf_two_args(struct __sk_buff *skb)
{
	char out[32];
	__u64 args[2] = {skb->len, skb->mark};

	return bpf_snprintf(out, sizeof(out), (const char *)fmt_two, args, sizeof(args)) > 0;
}

/* Two conversions, one argument. */
// vercheck: reject "Invalid format string"
SEC("tc")
int snprintf_too_few_args(struct __sk_buff *skb)
{
	char out[32];
	__u64 args[1] = {skb->len};

	return bpf_snprintf(out, sizeof(out), (const char *)fmt_two, args, sizeof(args)) > 0;
}

char _license[] SEC("license") = "GPL";

// sk_reuseport programs: the sk_reuseport_md context (packet bounds, narrow
// reads, the two socket pointers) and the helpers of the type, among them
// bpf_get_socket_cookie, which takes a socket here rather than the context.
#include "progs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} reuse_socks SEC(".maps");

/* Read the first packet byte after checking it against data_end. */
// vercheck: accept
SEC("sk_reuseport")
int ctxp_reuseport_packet(struct sk_reuseport_md *md)
{
	__u8 *data = md->data;

	if ((void *)(data + 1) > md->data_end)
		return SK_DROP;
	return data[0] == 0x45 ? SK_PASS : SK_DROP;
}

/* Direct packet access is read-only in sk_reuseport programs. */
// vercheck: reject "cannot write into packet"
SEC("sk_reuseport")
int ctxp_reuseport_packet_write(struct sk_reuseport_md *md)
{
	__u8 *data = md->data;

	if ((void *)(data + 1) > md->data_end)
		return SK_DROP;
	data[0] = 1;
	return SK_PASS;
}

/* len, ip_protocol and bind_inany may be read narrowly, eth_protocol with
 * two bytes or more. */
// vercheck: accept
SEC("sk_reuseport")
__naked int ctxp_reuseport_narrow(void)
{
	asm volatile (
	"r2 = *(u8 *)(r1 + %[len]);"
	"r3 = *(u16 *)(r1 + %[eth_protocol]);"
	"r4 = *(u8 *)(r1 + %[ip_protocol]);"
	"r5 = *(u16 *)(r1 + %[bind_inany]);"
	"r0 = *(u32 *)(r1 + %[hash]);"
	"r0 = 1;"
	"exit;"
	:
	: __imm_const(len, offsetof(struct sk_reuseport_md, len)),
	  __imm_const(eth_protocol, offsetof(struct sk_reuseport_md, eth_protocol)),
	  __imm_const(ip_protocol, offsetof(struct sk_reuseport_md, ip_protocol)),
	  __imm_const(bind_inany, offsetof(struct sk_reuseport_md, bind_inany)),
	  __imm_const(hash, offsetof(struct sk_reuseport_md, hash))
	: __clobber_all);
}

/* A one-byte read of eth_protocol is narrower than sk_buff's protocol. */
// vercheck: reject "invalid bpf_context access off=20 size=1"
SEC("sk_reuseport")
__naked int ctxp_reuseport_eth_byte(void)
{
	asm volatile (
	"r2 = *(u8 *)(r1 + %[eth_protocol]);"
	"r0 = 1;"
	"exit;"
	:
	: __imm_const(eth_protocol, offsetof(struct sk_reuseport_md, eth_protocol))
	: __clobber_all);
}

/* hash is read whole only. */
// vercheck: reject "invalid bpf_context access off=32 size=2"
SEC("sk_reuseport")
__naked int ctxp_reuseport_hash_narrow(void)
{
	asm volatile (
	"r2 = *(u16 *)(r1 + %[hash]);"
	"r0 = 1;"
	"exit;"
	:
	: __imm_const(hash, offsetof(struct sk_reuseport_md, hash))
	: __clobber_all);
}

/* The context is read-only. */
// vercheck: reject "invalid bpf_context access off=32 size=4"
SEC("sk_reuseport")
__naked int ctxp_reuseport_write(void)
{
	asm volatile (
	"r2 = 0;"
	"*(u32 *)(r1 + %[hash]) = r2;"
	"r0 = 1;"
	"exit;"
	:
	: __imm_const(hash, offsetof(struct sk_reuseport_md, hash))
	: __clobber_all);
}

/* md->sk is never NULL: its fields read without a check; its cookie is
 * the socket's, taken by pointer. */
// vercheck: accept
SEC("sk_reuseport")
int ctxp_reuseport_sk_cookie(struct sk_reuseport_md *md)
{
	struct bpf_sock *sk = md->sk;

	if (sk->family != 2)
		return SK_DROP;
	return bpf_get_socket_cookie(sk) & 1 ? SK_PASS : SK_DROP;
}

/* The context itself is not a socket. */
// vercheck: reject "R1 type=ctx expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_"
SEC("sk_reuseport")
__naked int ctxp_reuseport_ctx_cookie(void)
{
	asm volatile (
	"call %[bpf_get_socket_cookie];"
	"r0 = 1;"
	"exit;"
	:
	: __imm(bpf_get_socket_cookie)
	: __clobber_all);
}

/* md->migrating_sk may be NULL. */
// vercheck: reject "R2 invalid mem access 'sock_common_or_null'"
SEC("sk_reuseport/migrate")
__naked int ctxp_reuseport_migrating_unchecked(void)
{
	asm volatile (
	"r2 = *(u64 *)(r1 + %[migrating_sk]);"
	"r0 = *(u32 *)(r2 + %[family]);"
	"r0 = 1;"
	"exit;"
	:
	: __imm_const(migrating_sk, offsetof(struct sk_reuseport_md, migrating_sk)),
	  __imm_const(family, offsetof(struct bpf_sock, family))
	: __clobber_all);
}

/* Checked, it reads like a sock_common. */
// vercheck: accept
SEC("sk_reuseport/migrate")
int ctxp_reuseport_migrating_checked(struct sk_reuseport_md *md)
{
	struct bpf_sock *sk = md->migrating_sk;

	if (!sk)
		return SK_PASS;
	return sk->family == 10 ? SK_PASS : SK_DROP;
}

/* Select a socket from the group by the packet hash; load a few bytes. */
// vercheck: accept
SEC("sk_reuseport")
int ctxp_reuseport_select(struct sk_reuseport_md *md)
{
	__u32 key = md->hash & 3;
	__u8 buf[4];

	if (bpf_skb_load_bytes(md, 0, buf, sizeof(buf)) < 0)
		return SK_DROP;
	if (bpf_sk_select_reuseport(md, &reuse_socks, &key, 0) < 0)
		return SK_DROP;
	return SK_PASS;
}

/* Packet pointers go to no helper of this type: none has packet access. */
// vercheck: reject "helper access to the packet is not allowed"
SEC("sk_reuseport")
int ctxp_reuseport_select_pkt_key(struct sk_reuseport_md *md)
{
	__u32 *data = md->data;

	if ((void *)(data + 1) > md->data_end)
		return SK_DROP;
	bpf_sk_select_reuseport(md, &reuse_socks, data, 0);
	return SK_PASS;
}

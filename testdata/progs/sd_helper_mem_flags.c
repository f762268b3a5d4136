// Memory arguments of helpers take exactly the register types of
// check_reg_type: a read-only slice (rdonly_mem) only where the helper
// reads (ARG_PTR_TO_MEM | MEM_RDONLY), never as a map key or value or a
// buffer the helper writes; a bpf_dynptr_slice_rdwr slice (PTR_TO_MEM with
// a DYNPTR_TYPE_* flag) wherever memory goes but not as a map key or
// value, whose argument types do not fold that flag away.
#include "progs.h"
char _license[] SEC("license") = "GPL";

extern int bpf_dynptr_from_skb(struct __sk_buff *s, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 4); __type(key, __u32); __type(value, __u64); } sd_rd_map SEC(".maps");

// vercheck: reject "R2 type=rdonly_mem expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
int sd_rd_key_rdonly(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; __u32 buf; __u32 *k;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice(&ptr, 0, &buf, sizeof(buf));
	if (!k) return 0;
	return bpf_map_lookup_elem(&sd_rd_map, k) != 0;
}
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: reject "R2 type=mem expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_" without no-dynptr-slice-rdwr
SEC("tc")
int sd_rd_key_rdwr(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; __u32 buf; __u32 *k;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice_rdwr(&ptr, 0, &buf, sizeof(buf));
	if (!k) return 0;
	return bpf_map_lookup_elem(&sd_rd_map, k) != 0;
}
// vercheck: accept
SEC("tc")
int sd_rd_mem_rdonly(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; __u32 buf; __u32 *k;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice(&ptr, 0, &buf, sizeof(buf));
	if (!k) return 0;
	return bpf_csum_diff(k, 4, 0, 0, 0);
}
// vercheck: reject "R3 type=rdonly_mem expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
int sd_rd_value_rdonly(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; __u64 buf; __u64 *k; __u32 key = 0;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice(&ptr, 0, &buf, sizeof(buf));
	if (!k) return 0;
	return bpf_map_update_elem(&sd_rd_map, &key, k, 0);
}
// vercheck: reject "R3 type=rdonly_mem expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"
SEC("tc")
int sd_rd_uninit_rdonly(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; __u64 buf; __u64 *k;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	k = bpf_dynptr_slice(&ptr, 0, &buf, sizeof(buf));
	if (!k) return 0;
	return bpf_skb_load_bytes(skb, 0, k, 8);
}
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int sd_rd_fixed_rdonly(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[20]; char tb[20]; void *ip; void *th;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	ip = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
	if (!ip) return 0;
	th = bpf_dynptr_slice_rdwr(&ptr, 20, tb, sizeof(tb));
	if (!th) return 0;
	return bpf_tcp_raw_gen_syncookie_ipv4(ip, th, 20) != 0;
}
// vercheck: reject "bpf_dynptr_slice_rdwr() is not allowed"
// vercheck: accept without no-dynptr-slice-rdwr
SEC("tc")
int sd_rd_fixed_rdwr_slice(struct __sk_buff *skb)
{
	struct bpf_dynptr ptr; char buf[20]; char tb[20]; void *ip; void *th;
	if (bpf_dynptr_from_skb(skb, 0, &ptr)) return 0;
	ip = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
	if (!ip) return 0;
	th = bpf_dynptr_slice(&ptr, 20, tb, sizeof(tb));
	if (!th) return 0;
	return bpf_tcp_raw_gen_syncookie_ipv4(ip, th, 20) != 0;
}

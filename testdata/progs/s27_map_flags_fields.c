/* BPF_F_RDONLY_PROG or BPF_F_WRONLY_PROG on a map whose value holds a
 * special field: map_check_btf refuses the map's BTF with EACCES. libbpf
 * creates the map again without BTF, whatever the error, so the value's
 * lock and kptr are plain memory and the program is verified against a
 * map without fields: bpf_spin_lock on it needs BTF, bpf_kptr_xchg finds
 * no kptr, and the access flag still binds the program. */
#include "progs.h"
char _license[] SEC("license") = "GPL";

#define __kptr __attribute__((btf_type_tag("kptr")))

struct task_struct {};

extern void bpf_task_release(struct task_struct *p) __ksym;

struct mf_locked {
	struct bpf_spin_lock lock;
	__u64 v;
};

struct mf_kptr {
	struct task_struct __kptr *task;
	__u64 v;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct mf_locked);
} mf_rdonly_lock SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__uint(map_flags, BPF_F_WRONLY_PROG);
	__type(key, __u32);
	__type(value, struct mf_locked);
} mf_wronly_lock SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__uint(map_flags, BPF_F_RDONLY_PROG);
	__type(key, __u32);
	__type(value, struct mf_kptr);
} mf_rdonly_kptr SEC(".maps");

static void *(*kptr_xchg)(void *dst, void *ptr) = (void *)194;

/* The lock is no field of a map created without BTF. */
// vercheck: reject "map 'mf_rdonly_lock' has to have BTF in order to use bpf_spin_lock"
SEC("tc")
int mf_lock_rdonly(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct mf_locked *v = bpf_map_lookup_elem(&mf_rdonly_lock, &k);

	if (!v)
		return 0;
	bpf_spin_lock(&v->lock);
	bpf_spin_unlock(&v->lock);
	return 0;
}

/* Its bytes are plain data: a read-only program reads them. */
// vercheck: accept
SEC("tc")
int mf_read_lock_bytes(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct mf_locked *v = bpf_map_lookup_elem(&mf_rdonly_lock, &k);

	if (!v)
		return 0;
	return *(volatile __u32 *)&v->lock;
}

/* The access flag stays: no write. */
// vercheck: reject "write into map forbidden, value_size=16 off=8 size=8"
SEC("tc")
int mf_write_rdonly(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct mf_locked *v = bpf_map_lookup_elem(&mf_rdonly_lock, &k);

	if (!v)
		return 0;
	v->v = 1;
	return 0;
}

/* A write-only map's lock bytes may be written as data. */
// vercheck: accept
SEC("tc")
int mf_write_wronly_lock_bytes(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct mf_locked *v = bpf_map_lookup_elem(&mf_wronly_lock, &k);

	if (!v)
		return 0;
	*(volatile __u32 *)&v->lock = 1;
	return 0;
}

/* No read of a write-only map. */
// vercheck: reject "read from map forbidden, value_size=16 off=8 size=8"
SEC("tc")
int mf_read_wronly(struct __sk_buff *skb)
{
	__u32 k = 0;
	struct mf_locked *v = bpf_map_lookup_elem(&mf_wronly_lock, &k);

	if (!v)
		return 0;
	return v->v;
}

/* The kptr is no field either. */
// vercheck: reject "map 'mf_rdonly_kptr' has to have BTF in order to use bpf_kptr_xchg"
SEC("tp_btf/sched_switch")
int mf_kptr_xchg_rdonly(void *ctx)
{
	__u32 k = 0;
	struct mf_kptr *v = bpf_map_lookup_elem(&mf_rdonly_kptr, &k);
	struct task_struct *old;

	if (!v)
		return 0;
	old = kptr_xchg(&v->task, 0);
	if (old)
		bpf_task_release(old);
	return 0;
}

/* ...and its bytes are a scalar to read. */
// vercheck: accept
SEC("tp_btf/sched_switch")
int mf_kptr_read_rdonly(void *ctx)
{
	__u32 k = 0;
	struct mf_kptr *v = bpf_map_lookup_elem(&mf_rdonly_kptr, &k);

	if (!v)
		return 0;
	return *(volatile __u64 *)&v->task != 0;
}

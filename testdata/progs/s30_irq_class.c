#include "progs.h"

/* An irq flag remembers which kfunc class saved it (process_irq_flag):
 * one saved natively (bpf_local_irq_save) cannot be restored by
 * bpf_res_spin_unlock_irqrestore ("lock"). The other way round the held
 * lock refuses the call first. A refusal no fuzz mutant reached
 * (vercheck-rejectcov, session 30). */

char _license[] SEC("license") = "GPL";

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock_irqsave(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;
extern void bpf_res_spin_unlock_irqrestore(struct bpf_res_spin_lock *lock, unsigned long *flags__irq_flag) __ksym;
extern void bpf_local_irq_save(unsigned long *flags) __ksym;
extern void bpf_local_irq_restore(unsigned long *flags) __ksym;

struct s30_elem {
	struct bpf_res_spin_lock lock;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct s30_elem);
} s30_irq_locks SEC(".maps");

/* Saved by the lock, restored natively: no kfunc but the lock's own while
 * the lock is held. */
// vercheck: reject "function calls are not allowed while holding a lock"
SEC("tc")
int s30_lock_flag_native_restore(struct __sk_buff *skb)
{
	__u32 key = 0;
	unsigned long flags;
	struct s30_elem *e = bpf_map_lookup_elem(&s30_irq_locks, &key);

	if (!e)
		return 0;
	if (bpf_res_spin_lock_irqsave(&e->lock, &flags))
		return 0;
	bpf_local_irq_restore(&flags);
	return 0;
}

/* Saved natively, restored by the lock's unlock. */
// vercheck: reject "irq flag acquired by native kfuncs cannot be restored with lock kfuncs"
SEC("tc")
int s30_native_flag_lock_restore(struct __sk_buff *skb)
{
	__u32 key = 0;
	unsigned long flags, lflags;
	struct s30_elem *e = bpf_map_lookup_elem(&s30_irq_locks, &key);

	if (!e)
		return 0;
	bpf_local_irq_save(&flags);
	if (bpf_res_spin_lock_irqsave(&e->lock, &lflags)) {
		bpf_local_irq_restore(&flags);
		return 0;
	}
	bpf_res_spin_unlock_irqrestore(&e->lock, &flags);
	return 0;
}

/* Each flag restored by its own class, innermost first: fine. */
// vercheck: accept
SEC("tc")
int s30_irq_flags_matched(struct __sk_buff *skb)
{
	__u32 key = 0;
	unsigned long flags, lflags;
	struct s30_elem *e = bpf_map_lookup_elem(&s30_irq_locks, &key);

	if (!e)
		return 0;
	bpf_local_irq_save(&flags);
	if (bpf_res_spin_lock_irqsave(&e->lock, &lflags)) {
		bpf_local_irq_restore(&flags);
		return 0;
	}
	bpf_res_spin_unlock_irqrestore(&e->lock, &lflags);
	bpf_local_irq_restore(&flags);
	return 0;
}

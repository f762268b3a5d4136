#include "progs.h"

/* Interrupt-disabled sections: bpf_local_irq_save writes the saved flags
 * into an 8-byte stack slot (STACK_IRQ_FLAG) and opens a section that only
 * bpf_local_irq_restore of that slot closes, innermost first. No section
 * may be open when the program exits, and nothing that might sleep may be
 * called inside one. */

extern void bpf_local_irq_save(unsigned long *flags__irq_flag) __ksym;
extern void bpf_local_irq_restore(unsigned long *flags__irq_flag) __ksym;
extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign, __u64 flags) __ksym;

unsigned long k11_global_flags;

// vercheck: accept
SEC("tc")
int k11_irq_nested(struct __sk_buff *skb)
{
	unsigned long f1, f2;

	bpf_local_irq_save(&f1);
	bpf_local_irq_save(&f2);
	bpf_local_irq_restore(&f2);
	bpf_local_irq_restore(&f1);
	return 0;
}

/* Both arms save into the same slot with different reference ids; the
 * join prunes on the ids being renamed consistently. */
// vercheck: accept
SEC("tc")
int k11_irq_branches(struct __sk_buff *skb)
{
	unsigned long f;
	int r = 0;

	if (skb->len > 100) {
		bpf_local_irq_save(&f);
		r = 1;
	} else {
		bpf_local_irq_save(&f);
		r = 2;
	}
	if (skb->mark)
		r += skb->protocol;
	bpf_local_irq_restore(&f);
	return r;
}

/* A loop saves and restores on every iteration: each save takes a new
 * reference id, and the loop converges on the ids being renamed. A
 * second section stays open around the loop. */
// vercheck: accept
SEC("tc")
int k11_irq_loop(struct __sk_buff *skb)
{
	unsigned long outer, f;
	int n = skb->len & 15, r = 0;

	bpf_local_irq_save(&outer);
	for (int i = 0; i < n; i++) {
		bpf_local_irq_save(&f);
		r += i;
		bpf_local_irq_restore(&f);
	}
	bpf_local_irq_restore(&outer);
	return r;
}

// vercheck: reject "BPF_EXIT instruction in main prog cannot be used inside bpf_local_irq_save-ed region"
SEC("tc")
int k11_irq_exit_open(struct __sk_buff *skb)
{
	unsigned long f1, f2;

	bpf_local_irq_save(&f1);
	bpf_local_irq_save(&f2);
	bpf_local_irq_restore(&f2);
	return 0;
}

// vercheck: reject "cannot restore irq state out of order, expected id=2 acquired at insn_idx=7"
SEC("tc")
int k11_irq_out_of_order(struct __sk_buff *skb)
{
	unsigned long f1, f2;

	bpf_local_irq_save(&f1);
	bpf_local_irq_save(&f2);
	bpf_local_irq_restore(&f1);
	bpf_local_irq_restore(&f2);
	return 0;
}

// vercheck: reject "expected an initialized irq flag as arg#0"
SEC("tc")
int k11_irq_overwritten(struct __sk_buff *skb)
{
	unsigned long f;

	bpf_local_irq_save(&f);
	*(volatile unsigned long *)&f = skb->len;
	bpf_local_irq_restore(&f);
	return 0;
}

/* The saved flags are the kernel's: the program may not read them. */
// vercheck: reject "invalid read from stack"
SEC("tc")
int k11_irq_read_flags(struct __sk_buff *skb)
{
	unsigned long f, v;

	bpf_local_irq_save(&f);
	v = *(volatile unsigned long *)&f;
	bpf_local_irq_restore(&f);
	return v;
}

/* A helper may read memory holding saved flags no more than a load. */
// vercheck: reject "invalid read from stack"
SEC("tc")
int k11_irq_helper_reads_flags(struct __sk_buff *skb)
{
	unsigned long f;
	int r;

	bpf_local_irq_save(&f);
	r = bpf_skb_store_bytes(skb, 0, &f, sizeof(f), 0);
	bpf_local_irq_restore(&f);
	return r;
}

// vercheck: reject "expected uninitialized irq flag as arg#0"
SEC("tc")
int k11_irq_saved_twice(struct __sk_buff *skb)
{
	unsigned long f;

	bpf_local_irq_save(&f);
	bpf_local_irq_save(&f);
	return 0;
}

// vercheck: reject "arg#0 doesn't point to an irq flag on stack"
SEC("tc")
int k11_irq_not_stack(struct __sk_buff *skb)
{
	bpf_local_irq_save(&k11_global_flags);
	return 0;
}

// vercheck: reject "sleepable helper bpf_copy_from_user#148 in IRQ-disabled region"
SEC("syscall")
int k11_irq_sleepable_helper(void *ctx)
{
	unsigned long f;
	__u32 data;

	bpf_local_irq_save(&f);
	bpf_copy_from_user(&data, sizeof(data), 0);
	bpf_local_irq_restore(&f);
	return data;
}

// vercheck: reject "kernel func bpf_copy_from_user_str is sleepable within IRQ-disabled region"
SEC("syscall")
int k11_irq_sleepable_kfunc(void *ctx)
{
	unsigned long f;
	__u32 data;

	bpf_local_irq_save(&f);
	bpf_copy_from_user_str(&data, sizeof(data), 0, 0);
	bpf_local_irq_restore(&f);
	return data;
}

char _license[] SEC("license") = "GPL";

#include "progs.h"

/* check_kfunc_call pushes, for bpf_res_spin_lock, the path where taking
 * the lock failed; when that push is the one past BPF_COMPLEXITY_LIMIT_JMP_SEQ
 * the kernel says so twice: push_stack's "The sequence of 8193 jumps is
 * too complex." and then "failed to push state for failed lock
 * acquisition", the decisive line. vercheck ended at the first (a message
 * difference of the fuzz seed 20261901 run; the program below is its
 * mutant of k11_res_lock.c's loop: a may_goto before the call, and the
 * result compared on 64 bits, so that the failure path, negative only in
 * its low half, is never told apart and every iteration leaves pending
 * states behind). */

char _license[] SEC("license") = "GPL";

struct bpf_res_spin_lock {
	__u32 val;
};

extern int bpf_res_spin_lock(struct bpf_res_spin_lock *lock) __ksym;
extern void bpf_res_spin_unlock(struct bpf_res_spin_lock *lock) __ksym;

struct s19_elem {
	__u64 cnt;
	struct bpf_res_spin_lock lock;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, struct s19_elem);
} s19_locks SEC(".maps");

#define MAY_GOTO(off) ".byte 0xe5, 0; .short " #off "; .long 0;"

// vercheck: reject "failed to push state for failed lock acquisition"
SEC("tc")
__naked int s19_res_lock_jmpseq(void)
{
	asm volatile (
	"r8 = r1;"
	"w1 = 2;"
	"*(u32 *)(r10 - 4) = r1;"
	"r2 = r10;"
	"r2 += -4;"
	"r1 = %[s19_locks] ll;"
	"call %[bpf_map_lookup_elem];"
	"w7 = 0;"
	"*(u64 *)(r10 - 16) = r0;"
	"if r0 == 0 goto 2f;"
	"r9 = *(u32 *)(r8 + 0);"
	"w9 &= 7;"
	"if w9 == 0 goto 2f;"
	"r6 = 0;"
	"r8 = *(u64 *)(r10 - 16);"
	"r8 += 8;"
	"1:"
	"r1 = r8;"
	MAY_GOTO(0)
	"call %[bpf_res_spin_lock];"
	"if r0 == 0 goto 3f;"
	"w7 += 1;"
	"4:"
	"r6 += 1;"
	"if r6 < r9 goto 1b;"
	"2:"
	"w0 = w7;"
	"exit;"
	"3:"
	"r3 = *(u64 *)(r10 - 16);"
	"r1 = *(u64 *)(r3 + 0);"
	"r2 = r6;"
	"r2 += r1;"
	"*(u64 *)(r3 + 0) = r2;"
	"r1 = r8;"
	"call %[bpf_res_spin_unlock];"
	"goto 4b;"
	:: __imm_addr(s19_locks), __imm(bpf_map_lookup_elem), __imm(bpf_res_spin_lock),
	   __imm(bpf_res_spin_unlock)
	: __clobber_all);
}

/* The kfuncs called from C too, which makes clang emit their BTF (the
 * asm above names them only as symbols). */
// vercheck: accept
SEC("tc")
int s19_res_lock_once(struct __sk_buff *skb)
{
	__u32 key = 0;
	struct s19_elem *e = bpf_map_lookup_elem(&s19_locks, &key);

	if (!e || bpf_res_spin_lock(&e->lock))
		return 0;
	e->cnt++;
	bpf_res_spin_unlock(&e->lock);
	return 0;
}

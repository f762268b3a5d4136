#include "progs.h"
char _license[] SEC("license") = "GPL";

/* 6.18's stacksafe compares an iterator slot's type (6.12's did not): an
 * RCU-protected iterator (task, css: KF_RCU_PROTECTED) turns untrusted at
 * bpf_rcu_read_unlock, and that state does not match one stored while the
 * iterator was still in its read section. vercheck compared the iterator's
 * kind, state and reference but not its type, pruned the path that
 * re-locks and resumes the walk, and accepted what the kernel refuses
 * ("expected an RCU CS when using bpf_iter_task_next"): a task-list walk
 * continued across a grace period in a sleepable program. Found by
 * session 35's review of kernel-object iterators. */

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct bpf_iter_task {
	__u64 __opaque[3];
} __attribute__((aligned(8)));

extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task__nullable, unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym;

/* A walk inside one read section (and, being C, the kfuncs' BTF
 * declarations the assembly below needs). */
// vercheck: accept
SEC("syscall")
int s35_iter_task_one_section(void *ctx)
{
	struct bpf_iter_task it;
	struct task_struct *t;
	int n = 0;

	bpf_rcu_read_lock();
	bpf_iter_task_new(&it, NULL, 0);
	while ((t = bpf_iter_task_next(&it)) && n < 8)
		n += t->pid & 1;
	bpf_iter_task_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

/* Sleepable: the loop body drops the RCU read lock and takes it again;
 * the next bpf_iter_task_next() continues a task-list walk started in an
 * earlier RCU critical section.
  * The kernel: "expected an RCU CS when using bpf_iter_task_next". */
// vercheck: reject "expected an RCU CS when using bpf_iter_task_next"
SEC("syscall")
__naked int s35_iter_task_relock_in_body(void)
{
	asm volatile (
	"call %[bpf_rcu_read_lock];"
	"r1 = r10;"
	"r1 += -24;"
	"r2 = 0;"
	"r3 = 0;"
	"call %[bpf_iter_task_new];"
"1:"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_task_next];"
	"if r0 == 0 goto 2f;"
	"call %[bpf_rcu_read_unlock];"
	"call %[bpf_rcu_read_lock];"
	"goto 1b;"
"2:"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_task_destroy];"
	"call %[bpf_rcu_read_unlock];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_iter_task_new), __imm(bpf_iter_task_next), __imm(bpf_iter_task_destroy),
	   __imm(bpf_rcu_read_lock), __imm(bpf_rcu_read_unlock)
	: __clobber_all);
}

/* Non-sleepable: a lock/unlock pair in the body is enough. */
// vercheck: reject "expected an RCU CS when using bpf_iter_task_next"
SEC("socket")
__naked int s35_iter_task_lock_unlock_in_body(void)
{
	asm volatile (
	"r1 = r10;"
	"r1 += -24;"
	"r2 = 0;"
	"r3 = 0;"
	"call %[bpf_iter_task_new];"
"1:"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_task_next];"
	"if r0 == 0 goto 2f;"
	"call %[bpf_rcu_read_lock];"
	"call %[bpf_rcu_read_unlock];"
	"goto 1b;"
"2:"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_task_destroy];"
	"r0 = 0;"
	"exit;"
	:: __imm(bpf_iter_task_new), __imm(bpf_iter_task_next), __imm(bpf_iter_task_destroy),
	   __imm(bpf_rcu_read_lock), __imm(bpf_rcu_read_unlock)
	: __clobber_all);
}

/* No loop: two paths join at bpf_iter_task_next(); the fall-through path
 * (iterator MEM_RCU) is explored first, the branch path re-locks (iterator
 * PTR_UNTRUSTED) and is pruned by vercheck at the join. */
// vercheck: reject "expected an RCU CS when using bpf_iter_task_next"
SEC("syscall")
__naked int s35_iter_task_relock_join(void)
{
	asm volatile (
	"call %[bpf_rcu_read_lock];"
	"r1 = r10;"
	"r1 += -24;"
	"r2 = 0;"
	"r3 = 0;"
	"call %[bpf_iter_task_new];"
	"call %[bpf_get_prandom_u32];"
	"if r0 != 0 goto 2f;"
"1:"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_task_next];"
	"r1 = r10;"
	"r1 += -24;"
	"call %[bpf_iter_task_destroy];"
	"call %[bpf_rcu_read_unlock];"
	"r0 = 0;"
	"exit;"
"2:"
	"call %[bpf_rcu_read_unlock];"
	"call %[bpf_rcu_read_lock];"
	"goto 1b;"
	:: __imm(bpf_iter_task_new), __imm(bpf_iter_task_next), __imm(bpf_iter_task_destroy),
	   __imm(bpf_rcu_read_lock), __imm(bpf_rcu_read_unlock), __imm(bpf_get_prandom_u32)
	: __clobber_all);
}

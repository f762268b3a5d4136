// Package stablefix names the fixes of the Linux 6.18.y stable series that
// change what the verifier accepts, so that vercheck can follow the kernel
// build it runs next to.
//
// Builds of one release differ: the same "6.18.44" may or may not carry a
// fix backported after 6.18.0, and a fix of the verifier changes verdicts
// (a program one build accepts, the next rejects) and figures. vercheck
// models every fix and lets the caller say which ones the target kernel
// lacks ([Set] of missing fixes). The zero Set means "every fix present":
// the strictest semantics, which never accepts what any build rejects, and
// the right default where the target is unknown. [Probe] asks the running
// kernel, as libbpf probes features: each fix has a small program whose
// verdict differs with and without it.
//
// Most entries are upstream fixes that make the verifier stricter. Some
// upstream fixes do the opposite: they let through programs that 6.18.0
// refused. For those the entry is the older, stricter rule itself (its
// name says what it refuses), and a kernel "lacks" it when it carries the
// upstream fix. That keeps one reading for every entry: applying it never
// accepts more, so the zero Set stays the strictest semantics, and a run
// relaxes a rule only where the caller, or the probe of the running
// kernel, says the target no longer has it.
package stablefix

import (
	"errors"
	"fmt"
	"strings"
)

// Fix is one verdict-changing stable fix.
type Fix uint8

// The fixes vercheck follows. Each is named after what it changes; the
// doc says what a kernel with the fix does that one without it does not.
const (
	// PktRangeArith: pointer arithmetic on a packet pointer clears the
	// AT_PKT_END / BEYOND_PKT_END range a comparison with pkt_end left on
	// it. Without the fix the range survives "r += K" and "r -= K", and
	// a later comparison with pkt_end is decided from the stale range.
	PktRangeArith Fix = iota
	// Jmp32PtrNull: a 32-bit compare (JMP32) of a non-NULL pointer with 0
	// is not decided statically: the low half of a valid pointer can be
	// 0, so both edges are explored. Without the fix the kernel decides
	// it as it decides the 64-bit compare.
	Jmp32PtrNull
	// IterFP0: a stack object argument (iterator, irq flags, dynptr) at
	// fp+0 names no stack slot: stack_slot_obj_get_spi refuses any
	// offset >= 0 ("cannot pass in iter at an offset=0"), for a
	// constructor as for a use. The slot index, (-off-1)/8 in C, rounds
	// towards zero, so without the fix fp+0 names the slot at fp-8 for a
	// one-slot object: bpf_iter_num_destroy(r10) destroys the iterator
	// that bpf_iter_num_new(r10-8) built, bpf_local_irq_restore(r10)
	// restores flags saved at fp-8, and bpf_iter_num_new(r10) or
	// bpf_local_irq_save(r10) build in that slot and write above the
	// frame ("invalid write to stack R1 off=0 size=8").
	IterFP0
	// AtomicFetchPrecise: precision backtracking follows the value a
	// fetching atomic (fetch_add, xchg, cmpxchg...) loaded from the stack
	// into that stack slot, as it follows a fill. Without the fix the
	// load register stays marked past the atomic and is resolved by an
	// older write to it, so the slot is not precise and a state with a
	// different value there can be pruned: an unsafe program accepted.
	AtomicFetchPrecise
	// ThrowLockCheck: bpf_throw in a subprogram checks the RCU, IRQ and
	// preempt sections still open, as an exit from the main program
	// does, and says "bpf_throw" in its leak messages ("bpf: Fix
	// exception exit lock checking for subprogs"). Without the fix an
	// exceptional exit from a subprogram inside bpf_rcu_read_lock (or
	// bpf_preempt_disable) is accepted, and the messages of a throw name
	// "BPF_EXIT instruction in main prog".
	ThrowLockCheck
	// VarWriteKeepsSpill: a variable-offset stack write over some bytes
	// of a spilled register leaves the slot's other bytes a spill of no
	// register, so a read of them is refused ("invalid size of register
	// fill"). This is the 6.18.0 rule (check_stack_write_var_off only
	// forgets the register); kernels with upstream 4639eb9e30ab ("bpf: Fix
	// variable length stack write over spilled pointers", 6.18.33) turn
	// the whole slot into plain data (scrub_special_slot), read back as an
	// unknown scalar, and lack this entry.
	VarWriteKeepsSpill
	// SyncLinkedKeepsID: when sync_linked_regs refines a register through
	// a delta (r1 = r0 + 4 refined from r0, or the reverse), the register
	// keeps its own id (upstream "bpf: Preserve id of register in
	// sync_linked_regs()", 6.18.y, January 2026). Without the fix it takes
	// the id of the register it learns from, and the next sync treats it
	// as a plain copy of that register: r1 = r0 + 4 gets r0's bounds, and
	// an access 4 bytes out of bounds is accepted. The fix cuts both ways:
	// a register that took an add-const id gets a fresh one at its next
	// copy, so without the fix a branch linked bounds rule out can also be
	// walked and refused. Applying it (the default) is the safe side: the
	// unsound acceptance is the one a kernel with the fix refuses.
	SyncLinkedKeepsID
	// PktRegsafe: state pruning (regsafe) compares the AT_PKT_END and
	// BEYOND_PKT_END marks a comparison with pkt_end leaves on a packet
	// pointer only with themselves ("bpf: Fix regsafe() for pointers to
	// packet"). Without the fix they are compared as byte counts: a
	// stored mark (negative) covers a current pointer of range 0, and a
	// path on which the pointer was never checked is pruned unverified.
	PktRegsafe
	// LsmSleepableHooks: task_to_inode and inet_conn_established are no
	// longer hooks that sleepable LSM programs (and bpf_d_path) may use
	// (upstream "bpf: Drop task_to_inode and inet_conn_established from
	// lsm sleepable hooks", 6.18.33): both run in contexts that cannot
	// sleep. Without the fix such a program is accepted.
	LsmSleepableHooks
	// InnerMapNullness: a lookup in an inner array map declared with
	// BPF_F_INNER_MAP (a map-in-map whose inner maps may differ in
	// max_entries) returns a maybe-NULL value even with a constant key
	// below the template's max_entries (upstream "bpf: ... eliding map
	// lookup nullness" fix for inner maps, June 2026, Cc stable:
	// can_elide_value_nullness checks the map's flags). Without the fix
	// the NULL check is elided as for a plain array, and a key beyond a
	// smaller runtime inner map reads through NULL.
	InnerMapNullness
	// LsmCgroupSleepable: a sleepable program of attach type
	// BPF_LSM_CGROUP is refused (can_be_sleepable asks for LSM programs
	// of the other attach type; upstream "bpf: Fix sleepable check for
	// tracing/lsm prog", 2026, which 7.x has): the cgroup shim runs the
	// program where it may not sleep. Without the fix 6.18.0 takes any
	// LSM program as one that may sleep on a sleepable hook.
	LsmCgroupSleepable
	// KprobeNoPrivStack: kprobe programs (uprobes and kprobe.multi too)
	// run on one stack. 6.18.0 puts a tracing program's functions of 64
	// stack bytes or more each on a stack of its own where the JIT
	// supports it (bpf_enable_priv_stack: kprobe, tracepoint, perf_event
	// and raw_tracepoint programs, and trampoline programs that cannot
	// recurse), so that only the other functions of a call chain add up
	// to the 512-byte limit. Builds with this entry leave kprobe programs
	// out: every frame counts, and a main function's 80 bytes and a
	// callee's 480 are "combined stack size of 2 calls is 560. Too
	// large". It is the stricter rule; a kernel that gives kprobes
	// private stacks lacks it.
	KprobeNoPrivStack
	// PtrOffsetMessage: a pointer whose bounds are out of range before or
	// after pointer arithmetic is refused with "%s pointer offset %lld is
	// not allowed" (check_reg_sane_offset_ptr, as 7.x has it) where 6.18.0
	// says "value %lld makes %s pointer be out of bounds", "math between
	// %s pointer and register with unbounded min value is not allowed" or
	// "math between %s pointer and %lld is not allowed". The verdict is
	// the same; only the message tells the builds apart, and so does its
	// probe.
	PtrOffsetMessage
	// ScalarAddPtrCopy: "scalar += pointer" (adjust_ptr_min_max_vals with
	// the pointer as the source) gives the destination the pointer's
	// whole register state before the offset is added, as 7.x's
	// "*dst_reg = *ptr_reg" does: its reference (ref_obj_id) and its
	// frame (frameno) too, and a copy of read-only untrusted memory is
	// made for every operator the kernel lets through (+, -, * ... of
	// such memory track no offset). Without the fix (6.18.0) the
	// destination takes the pointer's type, id, bounds, offsets and
	// type-specific fields only, keeps its own reference (none) and
	// frame (that of the scalar, 0 for one made by a mov), and stays the
	// scalar it was where the pointer is untrusted memory. The fix cuts
	// both ways: such a copy can now release the object, and a
	// subprogram's "0 + r10" points into its own frame, where 6.18.0
	// took it for the caller's; but the copy is also invalidated with
	// the reference, where 6.18.0 let it write into a ring buffer record
	// already submitted. Applying it (the default) is the safe side.
	ScalarAddPtrCopy
	// SextFillUnlink: a sign-extending load (BPF_MEMSX) that fills a
	// register from a spilled scalar whose sign bit at the load's width
	// may be set (umax >= 2^(8*size-1)) drops the id linking the filled
	// register to the spilled one (7.x's check_mem_access: "Sign-extension
	// can change the register value relative to a scalar it is linked
	// with by id"). Without the fix the fill stays linked, so a
	// comparison of the sign-extended value bounds the spilled register
	// as if it were the same value: "r7 = *(s8 *)(r10 - 8)" of r6 in
	// [0, 128] and "r7 <= 3" leave r6 in [0, 3] although r6 = 128 passes
	// as r7 = -128. A fill whose value cannot change sign stays linked.
	SextFillUnlink
	// AtomicLoadSrcFirst: a load-acquire tests the pointer kind of its
	// source register (atomic_ptr_type_ok: context, packet, flow keys and
	// sockets take no atomics) before the load, right after checking the
	// register is readable (7.x's check_atomic_load). Without the fix
	// (6.18.0) the test comes after the load, on the register as the load
	// left it, so a load-acquire whose destination is its own source
	// ("r1 = load_acquire((u64 *)(r1 + 48))" from the context) is tested
	// on the loaded value and passes, and a load the access check
	// refuses is refused with that check's message first. The fix cuts
	// both ways: a load-acquire from the stack of a spilled context
	// pointer into its own base register is refused without it (the
	// loaded context is tested) and accepted with it. Applying it (the
	// default) is the safe side: what it refuses is an atomic through a
	// pointer that takes none.
	AtomicLoadSrcFirst
	// Sext32DropsSubreg: a 64-bit sign extension ("r = (sN) r", a
	// BPF_MEMSX load or fill) of a range its 64-bit bounds cannot extend
	// (their bits above N differ, or the extended range changes sign)
	// gives any value of N signed bits and forgets the source's 32-bit
	// bounds (6.18.0's set_sext64_default_val). This is the older,
	// stricter rule: the running 6.18.44-fc-v1045 falls back on the
	// 32-bit bounds where the signed 32-bit range fits in N bits (always
	// for N = 32), which the extension then leaves as they are: it keeps
	// them, takes the 64-bit signed range from the signed 32-bit one (w6
	// in [-3, 3] gives r7 = (s32) r6 in [-3, 3], not [S32_MIN, S32_MAX],
	// and r7 = *(s16 *)(r10 - 8) of it spilled in [-3, 3], not [-32768,
	// 32767]) and syncs; such a kernel lacks this entry.
	Sext32DropsSubreg
	// SliceBufferInvalidate: a dynptr slice (bpf_dynptr_slice(_rdwr))
	// taken with a stack buffer remembers the stack bytes the buffer may
	// occupy (printed "buf=fp[FRAME]OFF+SIZE"), since the kfunc may
	// return the buffer itself. Any later write to one of those bytes (a
	// store, a spill, an atomic, a store at a variable offset that may
	// reach them, a helper filling them, a dynptr or iterator built
	// there), and the exit of the function whose frame holds the buffer,
	// turn every copy of the slice, in registers and spilled, into an
	// unknown scalar; pruning compares the buffer exactly. No upstream
	// commit: found by loading programs into a 6.18.44 build (fc-v1045).
	// Without it (6.18.0) the slice stays memory, and a store through it
	// rewrites stack bytes the verifier believes hold something else, a
	// spilled pointer for one.
	SliceBufferInvalidate
	// SliceRingbufRef: a slice bpf_dynptr_slice(_rdwr) takes of a ringbuf
	// dynptr carries the dynptr's reference (printed "ref_obj_id=N"), as
	// bpf_dynptr_data's slices do, so submitting or discarding the record
	// turns it into an unknown scalar. No upstream commit (6.18.0 says
	// "we don't need to set BPF_REG_0's ref obj id because packet slices
	// are not refcounted"): found by loading programs into a 6.18.44
	// build (fc-v1045). Without it the slice outlives the record: a
	// read or write after bpf_ringbuf_discard_dynptr is accepted.
	SliceRingbufRef
	// KptrPercpuMatch: bpf_kptr_xchg into a per-CPU kptr (__percpu_kptr)
	// wants a per-CPU pointer (MEM_PERCPU), as the kptr reads back as
	// per-CPU memory (map_kptr_match_type, upstream 7.x): a plain
	// bpf_obj_new object is refused before its struct is looked at
	// ("invalid kptr access, R2 type=ptr_ expected=ptr_STRUCT", no struct
	// name after "ptr_"). Without the fix a plain object of the kptr's
	// struct goes in, and comes back out as per-CPU memory.
	KptrPercpuMatch
	// AsyncMapMatch: the map argument of bpf_wq_init and of
	// bpf_task_work_schedule_* must be the map the workqueue (task_work)
	// lives in whatever that map holds, and the message names the field
	// of the workqueue's (task_work's) map: "bpf_task_work pointer in R2
	// ..." when it holds a task_work, "workqueue pointer in R1 ..."
	// otherwise. Without the fix (6.18.0) the maps are compared only when
	// the map argument holds a workqueue or a task_work, and the message
	// names that map's field: a map with a timer, a lock or a kptr is
	// taken for the workqueue's map.
	AsyncMapMatch
	// KfuncOneType: a call instruction of bpf_obj_new, bpf_percpu_obj_new,
	// bpf_obj_drop, bpf_percpu_obj_drop, bpf_refcount_acquire,
	// bpf_list_push_* or bpf_rbtree_add reached with an object of another
	// type than the first time is refused ("same call cannot be used with
	// different types", then two lines of advice, the last "or mark the
	// callee with __attribute__((nomerge))"): the rewrite after
	// verification passes the kfunc the struct's record of one type. The
	// types differ when their btf_struct_meta records do (no record on
	// both sides is the same), or, for the constructors, their sizes, or,
	// for the insertions, the node's offsets. Not in upstream: without the
	// fix (6.18.0, 7.x) the last visit's record wins.
	KfuncOneType
	// WalkUntrusted: a pointer to a struct read through a BTF pointer or
	// a map pointer is untrusted (untrusted_ptr_T: it can be read
	// through, but no helper or kfunc takes it and no store goes
	// through it) unless the walk keeps trust (a field the kernel lists
	// as safe, read through a trusted or RCU pointer) or RCU protection.
	// Without the fix, the 6.18.0 rule, such a pointer is a plain legacy
	// pointer (ptr_T) that helpers with BTF arguments take, when it is
	// read through a plain pointer, through a map pointer, or through an
	// unlisted field of a trusted or RCU pointer inside an RCU read
	// section (task->parent in any non-sleepable program). Found by
	// loading programs on 6.18.44-fc-v1045; upstream (7.2 included)
	// still makes such walks "old deprecated PTR_TO_BTF_ID".
	WalkUntrusted
	// GlobalArgTrusted: a global function's arg:trusted argument takes
	// only a trusted pointer (is_trusted_reg: referenced or carrying
	// only trusted flags, NULL ruled out unless the argument is also
	// arg:nullable): anything else, an RCU or plain BTF pointer, a stack
	// pointer or NULL, is "R1 must be referenced or trusted" (EINVAL),
	// before the type check. Without the fix, the 6.18.0 rule
	// (btf_check_func_arg_match through check_reg_type), a plain or RCU
	// pointer to the argument's struct is taken, and other registers are
	// refused by the type check (EACCES). Found by loading programs on
	// 6.18.44-fc-v1045; upstream 7.2 still has the 6.18.0 rule.
	GlobalArgTrusted
	// AcqRelStructTrusted: a pointer to a struct of scalars passed to an
	// acquiring or releasing kfunc (KF_ACQUIRE, KF_RELEASE), other than
	// the buffer of a memory-and-size pair, is a BTF object argument
	// (KF_ARG_PTR_TO_BTF_ID) whatever the register holds: it must be
	// referenced or trusted ("R1 must be referenced or trusted" for a
	// stack, map value, context, number or uninitialised register) and
	// then a BTF pointer of the struct ("arg#0 is ringbuf_mem expected mem
	// or socket" for a referenced ringbuf record). This build of
	// 6.18.44 has it; upstream 6.18.0 and 7.2 do not: there such an
	// argument is plain memory of the struct's size, so
	// bpf_cpumask_acquire(&copy_on_stack) is accepted, and
	// bpf_cpumask_release of a ringbuf record releases the record. A
	// pointer to a scalar (bpf_crypto_ctx_create's int *err) and the
	// kfuncs that neither acquire nor release are not concerned.
	AcqRelStructTrusted
	// CallbackValueID: the map value a callback receives (r3 of a
	// bpf_for_each_map_elem, timer, workqueue or task_work callback) has
	// an id of its own, allocated when the callback's frame is set up, as
	// a looked-up value has. bpf_spin_lock tells locks apart by map and
	// id, so with the fix a lock taken through an inner for_each
	// callback's value and released through the outer callback's value
	// (another element of the same map) is "bpf_spin_unlock of different
	// lock". Without it both values have id 0 and the unlock of the wrong
	// lock is accepted. Not an upstream change (7.2 has none); found on the
	// 6.18.44-fc-v1045 build.
	CallbackValueID
	// S32RangeLowHalf: __mark_reg_s32_range bounds only the low 32 bits
	// of the register, signed; the upper half stays unknown. It gives r0
	// its value on the path where bpf_res_spin_lock (or _irqsave) failed:
	// with the fix a 32-bit error in [-4095, -1] whose upper half is
	// unknown, so a 64-bit signed compare "r0 s< 0" can go either way
	// and the path where it is false holds no lock. Without it r0 is the
	// 64-bit [-4095, -1], and that compare always jumps. Not an upstream
	// change (7.2 has none); found on the 6.18.44-fc-v1045 build, where
	// only the resilient locks show it (LSM programs, the other user
	// through the hook's retval argument, do not load there), and
	// vercheck applies it to both.
	S32RangeLowHalf
	// NullArgPrecise: a NULL passed to a helper argument that may be NULL
	// is marked precise (upstream "bpf: Mark NULL helper arguments
	// precise", kernel-patches/bpf PR 13620, in 7.x: check_func_arg
	// calls mark_chain_precision before it skips the type checks). Without
	// the fix the zero stays imprecise, and a state where the register
	// holds another number, which the helper refuses, can be pruned
	// against it and accepted. The same series makes the zero flags of
	// bpf_get_local_storage precise, and the 6.18.44-fc-v1045 build a
	// NULL passed to a kfunc's __nullable or __opt parameter too.
	NullArgPrecise
	// GlobalDynptrSKB: a global function's struct bpf_dynptr * argument
	// is taken for an skb dynptr, whatever the program type or the
	// caller's dynptr (the log prints type=skb), where 6.18.0 and 7.x
	// assume a local one. A bpf_dynptr_write through it may move the
	// packet, so it destroys the slices taken from it: with the fix a
	// read through such a slice after the write is refused ("invalid mem
	// access 'scalar'"), without it accepted, although the caller's
	// dynptr can be an skb one. Not an upstream change; found on the
	// 6.18.44-fc-v1045 build.
	GlobalDynptrSKB
	// RCUUnlockKeepsNonOwn: bpf_rcu_read_unlock leaves the non-owning
	// reference mark (NON_OWN_REF) on the RCU pointers it makes
	// untrusted, a refcounted graph node loaded from a kptr under RCU
	// among them, so the next bpf_spin_unlock destroys them (6.18.0 and
	// 7.x, invalidate_rcu_protected_refs). This is the older, stricter
	// rule: the 6.18.44-fc-v1045 build (not upstream) drops the mark
	// there, and the untrusted pointer stays readable after a lock
	// section; that kernel lacks this entry.
	RCUUnlockKeepsNonOwn
	// SzkPrecise: the constant size a kfunc takes in a __szk parameter
	// (bpf_dynptr_slice's buffer__szk, the size of the slice it returns)
	// is marked precise. Without the fix it stays imprecise, so a path
	// asking for a smaller slice is pruned against one that asked for a
	// larger, and a read past the smaller slice is accepted. Not in
	// 6.18.0 nor 7.2 (which marks only __k constants); found on the
	// 6.18.44-fc-v1045 build.
	SzkPrecise
	// GlobalNonNullZero: a global function's memory argument tagged
	// arg:nonnull refuses a known-zero scalar as it refuses a maybe-NULL
	// pointer ("arg#0 is expected to be non-NULL", then "Caller passes
	// invalid args into func#1"), as upstream 7.x's
	// btf_check_func_arg_match does. Without the fix check_mem_reg lets
	// NULL through and the callee, verified once for a valid pointer,
	// dereferences it.
	GlobalNonNullZero
	// PtrVarOffNull: a pointer that cannot be NULL (a map value, a
	// map key, memory) whose variable offset may reach BPF_MAX_VAR_OFF
	// (its smax is 2^29 or more: pointer arithmetic checks only the
	// minimum) is not known to be non-NULL: "if r == 0" after "r += r6",
	// r6 in [0, 2^30), explores both edges, where 6.18.0 decides the
	// compare as for the pointer itself and never walks the NULL edge. A
	// variable offset below 2^29 and fixed offsets leave the compare
	// decided. Found by loading programs into a 6.18.44 build (fc-v1045);
	// no upstream commit.
	PtrVarOffNull
	// LoadAcqProbeMem: a load-acquire (BPF_LOAD_ACQ) refuses a source
	// that a plain load would read through a fault-handling probe (a bare
	// BTF pointer, any untrusted pointer: "BPF_ATOMIC loads from R1
	// untrusted_ptr_ is not allowed"), since the JIT emits the acquire as
	// a plain load with no exception table entry (7.x's
	// is_load_acq_unsafe). Without the fix (6.18.0) such a load is
	// accepted, and a NULL or stale pointer crashes the kernel.
	LoadAcqProbeMem
	// PtrEqNotNull: "if r1 == r2" of a maybe-NULL pointer and another
	// pointer proves the first non-NULL on the equal edge only when the
	// other is of a kind that is never NULL (reg_not_null: a map value,
	// a socket, memory...; 7.x's check_cond_jmp_op). Without the fix
	// (6.18.0) any pointer not marked maybe-NULL proves it, a stack
	// pointer too: "if r0 != r10" lets a maybe-NULL map value through
	// unchecked on the equal edge.
	PtrEqNotNull
	// NotNullNoXskBuf: reg_not_null, which decides a compare of a
	// pointer with 0 (is_branch_taken) and, with PtrEqNotNull, which
	// pointer proves another non-NULL, leaves XDP sockets
	// (PTR_TO_XDP_SOCK, an xskmap value once checked) and buffers
	// (PTR_TO_BUF) out: such a compare is explored both ways (6.18.0).
	// This is the older, stricter rule: the running 6.18.44-fc-v1045, as
	// 7.x, counts them among the kinds that are never NULL, so "if r6 !=
	// 0" of a checked xskmap value only ever jumps; such a kernel lacks
	// this entry.
	NotNullNoXskBuf
	// LinkedDeltaOffCheck: pointer arithmetic with a linked scalar (r8 =
	// r7 + K, which carries the delta K of its link to r7) checks K as if
	// it were an offset of the pointer: |K| >= 2^29 is "map_value pointer
	// offset K is not allowed" whatever the scalar's bounds (6.18.0's
	// check_reg_sane_offset reads reg->off, which holds a linked scalar's
	// delta). This is the older, stricter rule: the running
	// 6.18.44-fc-v1045, as 7.x's check_reg_sane_offset_scalar, looks at
	// the scalar's value only (r7 in [-2^30, 0] gives r8 in [0, 2^30], a
	// valid offset), and lacks this entry.
	LinkedDeltaOffCheck
	// SkbArgBTFID: a kfunc's struct __sk_buff argument (a projection of
	// struct sk_buff) in a program whose context is not __sk_buff, as
	// bpf_dynptr_from_skb in a netfilter program, is a BTF object
	// argument whatever the register holds: a stack pointer, a number or
	// an uninitialised register is "R1 must be referenced or trusted".
	// Without the fix (6.18.0) only a BTF pointer makes it one; any other
	// register makes it memory, and __sk_buff, which holds pointers, is
	// "arg#0 pointer type STRUCT __sk_buff must point to scalar, or
	// struct with scalar". The verdict is the same; only the message
	// tells the builds apart (the -fc-v1045 build has it; not in 7.2).
	SkbArgBTFID
	// AsyncCbSession: a kprobe or uprobe session program (expected
	// attach type BPF_TRACE_KPROBE_SESSION or BPF_TRACE_UPROBE_SESSION)
	// may not register an asynchronous callback: push_callback_call
	// refuses it ("async callback in a session program"; a task_work or
	// workqueue kfunc then adds "kfunc %s#%d failed callback
	// verification"). Synchronous callbacks (bpf_loop) stay allowed.
	// Without the fix the task_work kfuncs, which tracing programs may
	// call, schedule a callback from a session program as from any
	// kprobe. Not upstream (7.2 has no such check); found on this
	// machine's build (fc-v1045) by the fuzz run of seed 20261321, whose
	// mutation loaded a kprobe as a session program.
	AsyncCbSession
	// FastcallReadPtrFrame: a fixed-offset load from the stack counts,
	// for the bpf_fastcall contract (check_fastcall_stack_contract), against
	// the subprogram whose frame it reads: a subprogram that reads its
	// caller's fastcall spill slot through a pointer keeps the caller's
	// spills and fills and their stack, which is then there to be read.
	// Without the fix (upstream 6.18 and 7.2 pass the current frame from
	// check_stack_read_fixed_off) the load revokes the reading
	// subprogram's patterns instead, and the caller's pattern slots are
	// dropped from its stack depth while the callee reads them. Not
	// upstream; found on this machine's build (fc-v1045) by black-box
	// programs (fc13_fastcall.c). It cuts both ways: without the fix a
	// callee that reads its caller's stack loses its own patterns, so a
	// combined stack its fastcall spills alone would fit becomes too large.
	FastcallReadPtrFrame
	// NoArenaKfuncs: the arena kfuncs (bpf_arena_alloc_pages,
	// bpf_arena_free_pages, bpf_arena_reserve_pages) are not registered,
	// so a call to one is "calling kernel function %s is not allowed",
	// whatever the program type. Upstream 6.18 registers kernel/bpf/arena.c's
	// set for every program type at boot; the 6.18.44-fc-v1147 build does
	// not (it refuses the creation of an arena map with EPERM as well, so
	// only a call given another map reaches its verifier). Not a fix but
	// a build that lacks a feature; the entry is the stricter rule, and a
	// kernel that registers the set lacks it.
	NoArenaKfuncs
	// RawTPSignalWaitArgs: the build's raw_tp_null_args lists three more
	// tracepoint arguments than upstream's: the struct kernel_siginfo of
	// signal_generate and signal_deliver (arg1) may encode an error (it
	// can be SEND_SIG_NOINFO or SEND_SIG_PRIV, 0 or 1), so a tp_btf
	// program reads it as a number ("R1 invalid mem access 'scalar'"
	// where it dereferences it), and the struct pid of
	// sched_process_wait (arg0) may be NULL. Not upstream (6.18 and 7.2
	// have none of them); found on the -fc-v1147 build by loading a
	// program per pointer argument of every raw tracepoint (1,785): these
	// three were the only differences, after falco's signal_deliver
	// program had been accepted by vercheck and refused by the kernel.
	RawTPSignalWaitArgs
	// CallbackLoopSCC: an instruction that calls a callback (bpf_loop,
	// bpf_for_each_map_elem, ...) is a loop of its own for the SCC
	// bookkeeping (compute_scc gives it an SCC number), and a state
	// pruned there against an earlier iteration's becomes a back-edge
	// of that SCC (upstream f597664454bd, "bpf: bpf_scc_visit instance
	// and backedges accumulation for bpf_loop()", 6.19 and the 6.18.y
	// stable series). Without the fix the callback's checkpoints are
	// taken for fully explored once their branches end, so their
	// precision marks may lack what a later iteration needs, and a
	// state is pruned against one that is not safe for it: an unsafe
	// program accepted. Found on the 6.18.44-fc-v1252 build, which has
	// it (the -fc-v1147 build does not).
	CallbackLoopSCC
	// JmpSeqE2BIG: a path that leaves more than 8192 branches pending
	// ("The sequence of %d jumps is too complex.", also "... for async
	// cb.") fails the load with E2BIG, as push_stack and push_async_cb
	// return ERR_PTR(-E2BIG) upstream (7.x). Without it (6.18.0) the
	// callers turn the NULL they get into EFAULT. Same verdict and
	// message; only the error number tells the builds apart (the
	// -fc-v1252 build has it; see ProbeErrno).
	JmpSeqE2BIG
	// LookupTypedAtCall: a lookup in a map whose values are objects (a
	// map of maps, an xskmap, a sockmap or sockhash) returns the object,
	// maybe NULL, at once: the inner map pointer
	// ("map_ptr_or_null(id=1,ks=4,vs=8)"; passed on unchecked, "R1 type=
	// map_ptr_or_null expected=map_ptr"), an XDP socket
	// ("xdp_sock_or_null(id=1)"), a socket ("sock_or_null(id=2,
	// ref_obj_id=2)"). Without it (6.18.0) the result is typed as a value
	// of the map until the NULL check turns it into the object
	// ("map_value_or_null(id=1,map=outer,ks=4,vs=4)"). Same verdicts;
	// the messages and the log tell the builds apart (the -fc-v1252
	// build has it).
	LookupTypedAtCall
	// StructOpsRefPtrRet: a struct_ops program hands the reference it
	// returns in R0 back to the kernel only from an operator that returns
	// a pointer; from a void or integer operator (every one of
	// tcp_congestion_ops) the reference leaks ("BPF_EXIT instruction in
	// main prog would lead to reference leak"). Without it (6.18.0)
	// check_reference_leak passes R0's reference over whatever the
	// operator returns, and an acquired cgroup returned from ssthresh is
	// never released. Found on the 6.18.44-fc-v1252 build.
	StructOpsRefPtrRet
	// NoDynptrSliceRdwr: bpf_dynptr_slice_rdwr is refused once its
	// arguments have passed check_kfunc_args ("bpf_dynptr_slice_rdwr()
	// is not allowed"), in every program type and for every kind of
	// dynptr (skb, skb_meta, xdp, local, ringbuf), with a NULL or a
	// stack buffer; the message comes before 6.18.0's "the prog does
	// not allow writes to packet data", and the load fails with EPERM.
	// Upstream 6.18 (and 7.2) gives a tc or XDP program a writable slice
	// (check_kfunc_call's KF_bpf_dynptr_slice_rdwr branch only asks
	// may_access_direct_pkt_data); the 6.18.44-fc-v1252 build
	// refuses all 3,705 programs of TestDynptrLiveKernel that call it
	// (the -fc-v1147 build accepts them). Not upstream; the entry is the
	// stricter rule, and a kernel that allows the kfunc lacks it.
	NoDynptrSliceRdwr
	// DynptrCloneAllFrames: releasing a reference-counted (ringbuf)
	// dynptr, by bpf_ringbuf_submit_dynptr or _discard_dynptr, ends
	// every dynptr that shares its reference in every frame of the
	// state: a clone that a subprogram made in its own frame of its
	// caller's dynptr is "Expected an initialized dynptr" once the
	// subprogram discards the original. Without the fix (upstream
	// 6.18's unmark_stack_slots_dynptr walks only the stack of the frame
	// that holds the released dynptr) that clone stays initialised
	// while its record is gone: a use after free accepted. Found on the
	// 6.18.44-fc-v1252 build by TestDynptrLiveKernel.
	DynptrCloneAllFrames
	// RefcountArgZeroOff: the argument of bpf_refcount_acquire (a
	// __refcounted_kptr parameter) that is a BTF pointer must point at
	// its object's start, as check_func_arg_reg_off's default case
	// checks other kinds: an owning reference moved 8 bytes in is
	// "dereference of modified ptr_ ptr R1 off=8 disallowed", a trusted
	// task moved in "dereference of modified trusted_ptr_ ptr ...".
	// Without it the offset is let through (a BTF pointer may carry a
	// fixed offset as an argument), and an owning reference into the
	// middle of its object is accepted, so that the kfunc takes the
	// refcount at the wrong place. Found on the 6.18.44-fc-v1252 build
	// by TestKfuncArgsLiveKernel and v18_dynptr_kfuncs.c; whether
	// 6.18.0 has it was not established (no 6.18 check_kfunc_args was
	// at hand), so the entry is the stricter rule.
	RefcountArgZeroOff
	// TraceNoPrivStack: tracepoint, raw_tracepoint and trampoline
	// (tp_btf, fentry...) programs run on one stack, like kprobes with
	// KprobeNoPrivStack: a main function's 80 bytes and a callee's 480 are
	// "combined stack size of 2 calls is 560. Too large". Perf_event
	// programs keep their private stacks. Found on the 6.18.44-fc-v1252
	// build, where the call-graph sweep refused 352 tracepoint and raw_tp
	// programs vercheck accepted (the -fc-v1147 build gives all of them
	// private stacks, as 6.18.0's bpf_enable_priv_stack does). Not
	// upstream; the stricter rule, which a kernel giving those programs
	// private stacks lacks.
	TraceNoPrivStack
	// SleepableCbSleepableProg: only a sleepable program may register an
	// asynchronous callback that may sleep (a workqueue's, a task_work's):
	// from any other push_async_cb refuses it ("sleepable callback in a
	// program that is not sleepable", then "kfunc %s#%d failed callback
	// verification", EPERM). Without it (6.18.0) an XDP or tc program
	// schedules a workqueue callback, a kprobe a task_work one. Timer
	// callbacks, which may not sleep, are not concerned. Not upstream;
	// found on the 6.18.44-fc-v1252 build (every wq and task_work program
	// of testdata/progs refused there).
	SleepableCbSleepableProg
	// SleepableInnerMaps: a sleepable program's map of maps must hold
	// inner maps of the types it may use itself (array, hash, ringbuf,
	// local storage...), and the refusal says so: "Sleepable programs can
	// only use array, hash, ringbuf and local storage maps, also as inner
	// maps". Without it (6.18.0) a map of maps is allowed whatever its
	// inner maps, and the message ends at "maps". Found on the
	// 6.18.44-fc-v1252 build by its message; the inner-map check it
	// announces is the stricter rule vercheck applies with it.
	SleepableInnerMaps
	// LoopUnreadSafe: where a loop's marks are still incomplete (the
	// RANGE_WITHIN comparison of iterator, may_goto and bpf_loop loops,
	// and of checkpoints whose SCC has back-edges), what the stored state
	// never relied on is skipped as in normal pruning: a NOT_INIT
	// register, an INVALID stack byte and, where uninitialised stack
	// reads are allowed, a MISC one (upstream 840692326e92, "bpf: allow
	// states pruning for misc/invalid slots in iterator loops", 7.0).
	// Without it such a register or byte must be NOT_INIT or of the same
	// type in the current state. It changes no verdict short of the
	// complexity limits, only how soon loops converge: the
	// 6.18.44-fc-v1252 build has it (bploop_trace.o's bl_var_loop, 2,160
	// instructions there, 3,787 without it), the -fc-v1147 build does
	// not.
	LoopUnreadSafe
	// DynptrKfuncPktWrite: bpf_dynptr_copy into an skb (or skb_meta)
	// dynptr and bpf_dynptr_memset of one may move the packet, as
	// bpf_dynptr_write does: the call invalidates every packet pointer
	// (check_helper_call's BPF_FUNC_dynptr_write rule, on the
	// destination dynptr). And check_cfg counts both kfuncs as changing
	// packet data, whatever the dynptr: a global function holding one,
	// even unreached, invalidates its caller's packet pointers, in XDP
	// too. Without it a packet pointer read before the copy is used
	// after it, when __bpf_skb_store_bytes may have reallocated the
	// packet: a use after free accepted. Found on the 6.18.44-fc-v1252
	// build by the fuzz seed 20261901 run (a global function's
	// bpf_dynptr_write mutated into bpf_dynptr_copy); upstream 6.18
	// does not list the two kfuncs in is_kfunc_pkt_changing.
	DynptrKfuncPktWrite
	// UntrustedMemMismatch: one load instruction reached with read-only
	// untrusted memory (PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED, what
	// bpf_rdonly_cast(p, 0) and a BTF walk to a non-struct give) and
	// with a pointer that is no memory or BTF object (a map value, the
	// stack) is "same insn cannot be used with different pointers": the
	// load is rewritten to a probe read for the one and not the other
	// (save_aux_ptr_type). Two memory or BTF pointers merge into a type
	// that keeps the probe read when either needs it (merge_ptr_types,
	// upstream 09c447564fca, "bpf: Keep fault protection when merging
	// pointer types"). Without it the load keeps the first pointer's
	// kind and a NULL read through the other faults in the kernel.
	// Found on the 6.18.44-fc-v1272 build by the fuzz seed 20262603 run.
	UntrustedMemMismatch
	// KptrNullStorePrecise: a NULL stored into an unreferenced kptr
	// field of a map value (check_map_kptr_access, which skips the type
	// match for a NULL) is marked precise, as the same build's
	// NullArgPrecise marks a NULL helper argument. Without it the zero
	// stays imprecise and a path storing another number, which the
	// type match refuses ("invalid kptr access, R1 type=scalar"), is
	// pruned against it and accepted. Not in upstream 6.18 or 7.x; found
	// on the 6.18.44-fc-v1272 build from a level-2 log difference of the
	// bit-flip fuzz seed 20262902 run.
	KptrNullStorePrecise
	// GlobalPktArgChangesData: a packet pointer (data or metadata) for
	// a global function's memory argument is refused when the function
	// may change packet data, itself or through its callees ("arg#1 is
	// a packet pointer, but func#1 may change packet data", then "Caller
	// passes invalid args"; after the memory check). The function is
	// verified once, for memory no packet change invalidates: without
	// the rule a read through the argument after its own
	// bpf_skb_pull_data reads packet memory the pull may have freed. Not
	// in upstream 6.18 or 7.x; found on the 6.18.44-fc-v1272 build as a
	// message difference of the fuzz seed 20263004 run.
	GlobalPktArgChangesData
	// PktMemArgNeedsWrite: a packet pointer (data or metadata) for a
	// memory argument the callee may write, a global function's or a
	// kfunc's (a memory and size pair, a sized pointer: check_mem_reg,
	// check_kfunc_mem_size_reg, which helpers do not use), is refused in
	// the program types that may only read packet data (cgroup_skb,
	// lwt_in/out/seg6local, sk_reuseport, flow_dissector:
	// may_access_direct_pkt_data for a write fails), "function access to
	// the packet is not allowed", first in the argument's checks. Without
	// the rule a global function, verified once for writable memory,
	// stores into a packet its program may only read, and so does
	// bpf_dynptr_slice copying into a packet buffer. Not in upstream 6.18
	// or 7.x; found on the 6.18.44-fc-v1272 build as a log difference of
	// the fuzz seed 20263102 run (a cgroup_skb mutant of
	// s30_global_pkt_arg.c), then false accepts.
	PktMemArgNeedsWrite
	// AsyncCbCgroupStorage: a program that uses cgroup local storage
	// (names a cgroup storage map in any instruction, reached or not:
	// bpf_cgroup_storage_assign at load time) may not register an
	// asynchronous callback, a timer's, a workqueue's or a task_work's:
	// push_callback_call refuses it ("async callback in a program with
	// cgroup storage"; a kfunc then adds "kfunc %s#%d failed callback
	// verification"), before the build's sleepable-callback check.
	// Synchronous callbacks (bpf_loop) stay allowed. The callback runs
	// outside the cgroup hook that set the program's storage up. Not in
	// upstream 6.18 or 7.x; found on the 6.18.44-fc-v1272 build as a
	// false accept of the fuzz seed 20263105 run.
	AsyncCbCgroupStorage
	// GlobalCallMayThrow: a call of a global function that may raise an
	// exception (it or a function it calls or passes as a callback holds
	// a bpf_throw call, reached or not) checks what bpf_throw checks,
	// where the caller stands: a held reference, an RCU read section, a
	// preempt-disabled or an irq-saved region refuses the call ("bpf_throw
	// would lead to reference leak", "bpf_throw cannot be used inside
	// bpf_rcu_read_lock-ed region", ...), after "Func#%d ('%s') is global
	// and assumed valid". The function, verified once for any caller,
	// throws with the caller's resources held. Not in upstream 6.18 or
	// 7.x; found on the 6.18.44-fc-v1272 build by probing exceptions by
	// hand (false accepts).
	GlobalCallMayThrow
	// SpinUnlockUntrustsRCU: in a sleepable program, where a held spin
	// lock (plain or resilient) is what makes the program an RCU read
	// section (in_rcu_cs), releasing the last lock outside a
	// bpf_rcu_read_lock section ends that section: every RCU pointer
	// becomes untrusted, as at bpf_rcu_read_unlock. Without it a pointer
	// loaded under the lock (task->real_parent) stays rcu_ptr_ after the
	// unlock and may be passed to KF_RCU kfuncs (bpf_task_acquire) while
	// the object may be freed. Not in upstream 6.18; found on the
	// 6.18.44-fc-v1272 build by probing RCU rules by hand (false
	// accepts).
	SpinUnlockUntrustsRCU
	// HiddenExitLiveness: the instructions that may leave a subprogram
	// without reaching its exit (a tail call that succeeds, an
	// LD_ABS/LD_IND whose load fails) have the subprogram's last exit as
	// a second successor in the graph the stack and register liveness
	// walk (check_cfg's visit_abnormal_return_insn, upstream 7.x). A
	// callee's store into its caller's stack after a tail call is then
	// no must-write: the caller's slot stays live before the call, so a
	// path with another value there is not pruned against one whose
	// value the callee's store would replace. Without the fix the slot
	// is dead there, and a read through a value only the tail-call path
	// keeps is accepted. Found on the 6.18.44-fc-v1252 build through
	// the 7.3 selftests (verifier_live_stack.c).
	HiddenExitLiveness
	// XDPNoAdjustMeta: XDP programs may not call bpf_xdp_adjust_meta
	// (xdp_func_proto offers no prototype: "program of this type cannot
	// use helper bpf_xdp_adjust_meta#54"), whatever the attach type.
	// Without the rule the helper moves data_meta as in upstream 6.18.
	// Not in upstream 6.18 or 7.x; found on the 6.18.44-fc-v1300 build by
	// the live helper tables (TestHelperAllowedLiveKernel).
	XDPNoAdjustMeta
	// IterNextUntrusted: the element an iterator's next kfunc returns is
	// an untrusted pointer where the iterator is not RCU protected
	// (untrusted_ptr_vm_area_struct where 6.18.0 has trusted_ptr_; seen
	// for task_vma, css_task and kmem_cache, and applied to every such
	// iterator, dmabuf's too); an RCU-protected iterator's element stays
	// rcu_ptr_. Its fields are still read (as PROBE_MEM loads), but
	// it may not be passed where a trusted pointer is required, and it is
	// not known to be non-NULL (a NULL test explores both branches).
	// Found on the 6.18.44-fc-v1300 build as a log difference of
	// testdata/progs/kf_iter.c (vm_area_struct) and iters_css_task.c of
	// the 6.12 selftests (task_struct), then kmem_cache by hand.
	IterNextUntrusted
	// SockOpsRttMinFullsock: a sock_ops program's read of rtt_min checks
	// is_fullsock first, as the other tcp_sock fields do
	// (SOCK_OPS_GET_FIELD: 4 instructions, 9 when the destination is the
	// context register), where 6.18.0 reads it through the socket pointer
	// unchecked (2). No verdict changes; the rewritten length does, and
	// with it how far a jump over the read reaches. Found on the
	// 6.18.44-fc-v1300 build by TestCtxConvertLiveKernel.
	SockOpsRttMinFullsock
	numFixes
)

// names are the fixes' names in flags, golden files and messages.
var names = [numFixes]string{
	PktRangeArith:            "pkt-range-arith",
	Jmp32PtrNull:             "jmp32-ptr-null",
	IterFP0:                  "iter-fp0",
	AtomicFetchPrecise:       "atomic-fetch-precise",
	ThrowLockCheck:           "throw-lock-check",
	VarWriteKeepsSpill:       "varwrite-keeps-spill",
	SyncLinkedKeepsID:        "sync-linked-keeps-id",
	PktRegsafe:               "pkt-regsafe",
	LsmSleepableHooks:        "lsm-sleepable-hooks",
	InnerMapNullness:         "inner-map-nullness",
	LsmCgroupSleepable:       "lsm-cgroup-sleepable",
	KprobeNoPrivStack:        "kprobe-no-priv-stack",
	PtrOffsetMessage:         "ptr-offset-message",
	ScalarAddPtrCopy:         "scalar-add-ptr-copy",
	SextFillUnlink:           "sext-fill-unlink",
	AtomicLoadSrcFirst:       "atomic-load-src-first",
	Sext32DropsSubreg:        "sext32-drops-subreg",
	SliceBufferInvalidate:    "slice-buffer-invalidate",
	SliceRingbufRef:          "slice-ringbuf-ref",
	KptrPercpuMatch:          "kptr-percpu-match",
	AsyncMapMatch:            "async-map-match",
	KfuncOneType:             "kfunc-one-type",
	WalkUntrusted:            "walk-untrusted",
	GlobalArgTrusted:         "global-arg-trusted",
	AcqRelStructTrusted:      "acqrel-struct-trusted",
	CallbackValueID:          "callback-value-id",
	S32RangeLowHalf:          "s32-range-low-half",
	NullArgPrecise:           "null-arg-precise",
	GlobalDynptrSKB:          "global-dynptr-skb",
	RCUUnlockKeepsNonOwn:     "rcu-unlock-keeps-non-own",
	SzkPrecise:               "szk-precise",
	GlobalNonNullZero:        "global-nonnull-zero",
	PtrVarOffNull:            "ptr-var-off-null",
	LoadAcqProbeMem:          "load-acq-probe-mem",
	PtrEqNotNull:             "ptr-eq-not-null",
	NotNullNoXskBuf:          "not-null-no-xsk-buf",
	LinkedDeltaOffCheck:      "linked-delta-off-check",
	SkbArgBTFID:              "skb-arg-btf-id",
	AsyncCbSession:           "async-cb-session",
	FastcallReadPtrFrame:     "fastcall-read-ptr-frame",
	NoArenaKfuncs:            "no-arena-kfuncs",
	RawTPSignalWaitArgs:      "rawtp-signal-wait-args",
	CallbackLoopSCC:          "callback-loop-scc",
	JmpSeqE2BIG:              "jmp-seq-e2big",
	LookupTypedAtCall:        "lookup-typed-at-call",
	StructOpsRefPtrRet:       "structops-ref-ptr-ret",
	NoDynptrSliceRdwr:        "no-dynptr-slice-rdwr",
	DynptrCloneAllFrames:     "dynptr-clone-all-frames",
	RefcountArgZeroOff:       "refcount-arg-zero-off",
	TraceNoPrivStack:         "tp-no-priv-stack",
	SleepableCbSleepableProg: "sleepable-cb-sleepable-prog",
	SleepableInnerMaps:       "sleepable-inner-maps",
	LoopUnreadSafe:           "loop-unread-prune",
	DynptrKfuncPktWrite:      "dynptr-kfunc-pkt-write",
	UntrustedMemMismatch:     "untrusted-mem-mismatch",
	KptrNullStorePrecise:     "kptr-null-store-precise",
	GlobalPktArgChangesData:  "global-pkt-arg-changes-data",
	PktMemArgNeedsWrite:      "pkt-mem-arg-needs-write",
	AsyncCbCgroupStorage:     "async-cb-cgroup-storage",
	GlobalCallMayThrow:       "global-call-may-throw",
	SpinUnlockUntrustsRCU:    "spin-unlock-untrusts-rcu",
	HiddenExitLiveness:       "hidden-exit-liveness",
	XDPNoAdjustMeta:          "xdp-no-adjust-meta",
	IterNextUntrusted:        "iter-next-untrusted",
	SockOpsRttMinFullsock:    "sockops-rtt-min-fullsock",
}

// String returns the fix's name.
func (f Fix) String() string {
	if f < numFixes {
		return names[f]
	}
	return fmt.Sprintf("Fix(%d)", uint8(f))
}

// All lists every fix, in order.
func All() []Fix {
	out := make([]Fix, numFixes)
	for i := range out {
		out[i] = Fix(i)
	}
	return out
}

// Set is a set of fixes. As a verifier option it holds the fixes the
// target kernel lacks, so that its zero value is the strictest semantics.
// It is comparable: two sets are equal when they hold the same fixes.
type Set struct {
	words [setWords]uint64
}

// setWords is the number of 64-bit words a Set needs for every fix.
const setWords = (int(numFixes) + 63) / 64

// Of returns the set holding fixes.
func Of(fixes ...Fix) Set {
	var s Set
	for _, f := range fixes {
		s.words[f/64] |= 1 << (f % 64)
	}
	return s
}

// Everything is the set of every fix.
var Everything = Of(All()...)

// Has reports whether f is in s.
func (s Set) Has(f Fix) bool { return f < numFixes && s.words[f/64]&(1<<(f%64)) != 0 }

// Empty reports whether s holds no fix.
func (s Set) Empty() bool { return s == Set{} }

// Union returns the fixes in s or in o.
func (s Set) Union(o Set) Set {
	for i := range s.words {
		s.words[i] |= o.words[i]
	}
	return s
}

// Minus returns the fixes in s and not in o.
func (s Set) Minus(o Set) Set {
	for i := range s.words {
		s.words[i] &^= o.words[i]
	}
	return s
}

// Fixes lists the fixes in s, in order.
func (s Set) Fixes() []Fix {
	var out []Fix
	for _, f := range All() {
		if s.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// String lists the fixes of s by name, comma-separated; "none" for the
// empty set.
func (s Set) String() string {
	if s.Empty() {
		return "none"
	}
	var parts []string
	for _, f := range s.Fixes() {
		parts = append(parts, f.String())
	}
	return strings.Join(parts, ",")
}

// ErrUnknownFix is wrapped when a name names no fix.
var ErrUnknownFix = errors.New("unknown stable fix")

// Parse reads a comma-separated list of fix names; "none" and "" are the
// empty set, "all" is [Everything].
func Parse(s string) (Set, error) {
	switch s {
	case "", "none":
		return Set{}, nil
	case "all":
		return Everything, nil
	}
	var out Set
	for name := range strings.SplitSeq(s, ",") {
		f, ok := byName(strings.TrimSpace(name))
		if !ok {
			return Set{}, fmt.Errorf("%q: %w (known: %s)", name, ErrUnknownFix, Everything)
		}
		out = out.Union(Of(f))
	}
	return out, nil
}

func byName(name string) (Fix, bool) {
	for _, f := range All() {
		if names[f] == name {
			return f, true
		}
	}
	return 0, false
}

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
	// IterFP0: an iterator argument at fp+0 names no stack slot. The slot
	// index, (-off-1)/8 in C, rounds towards zero, so without the fix
	// fp+0 names the slot at fp-8: bpf_iter_num_destroy(r10) destroys
	// the iterator that bpf_iter_num_new(r10-8) built. With it the
	// argument is no initialised iterator.
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
	// GlobalArgTrusted: a global function's argument tagged arg:trusted
	// takes only a trusted pointer (is_trusted_reg: referenced, or
	// trusted modifiers alone), refused first with "R1 must be
	// referenced or trusted" (EINVAL). 6.18.0 (and 7.x) check it as a
	// helper's BTF argument (check_reg_type), which takes an RCU pointer
	// or a plain BTF pointer too and words a mismatch "R1 type=...
	// expected=..." (EACCES). Not an upstream change; found on the
	// 6.18.44-fc-v1045 build: without it an RCU pointer (task->real_parent)
	// reaches a callee that takes it for a trusted one.
	GlobalArgTrusted
	// SzkPrecise: the constant size a kfunc takes in a __szk parameter
	// (bpf_dynptr_slice's buffer__szk, the size of the slice it returns)
	// is marked precise. Without the fix it stays imprecise, so a path
	// asking for a smaller slice is pruned against one that asked for a
	// larger, and a read past the smaller slice is accepted. Not in
	// 6.18.0 nor 7.2 (which marks only __k constants); found on the
	// 6.18.44-fc-v1045 build.
	SzkPrecise
	numFixes
)

// names are the fixes' names in flags, golden files and messages.
var names = [numFixes]string{
	PktRangeArith:        "pkt-range-arith",
	Jmp32PtrNull:         "jmp32-ptr-null",
	IterFP0:              "iter-fp0",
	AtomicFetchPrecise:   "atomic-fetch-precise",
	ThrowLockCheck:       "throw-lock-check",
	VarWriteKeepsSpill:   "varwrite-keeps-spill",
	SyncLinkedKeepsID:    "sync-linked-keeps-id",
	PktRegsafe:           "pkt-regsafe",
	LsmSleepableHooks:    "lsm-sleepable-hooks",
	InnerMapNullness:     "inner-map-nullness",
	LsmCgroupSleepable:   "lsm-cgroup-sleepable",
	CallbackValueID:      "callback-value-id",
	S32RangeLowHalf:      "s32-range-low-half",
	NullArgPrecise:       "null-arg-precise",
	GlobalDynptrSKB:      "global-dynptr-skb",
	RCUUnlockKeepsNonOwn: "rcu-unlock-keeps-non-own",
	GlobalArgTrusted:     "global-arg-trusted",
	SzkPrecise:           "szk-precise",
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
type Set uint32

// Of returns the set holding fixes.
func Of(fixes ...Fix) Set {
	var s Set
	for _, f := range fixes {
		s |= 1 << f
	}
	return s
}

// Everything is the set of every fix.
const Everything Set = 1<<numFixes - 1

// Has reports whether f is in s.
func (s Set) Has(f Fix) bool { return s&(1<<f) != 0 }

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
	if s == 0 {
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
		return 0, nil
	case "all":
		return Everything, nil
	}
	var out Set
	for name := range strings.SplitSeq(s, ",") {
		f, ok := byName(strings.TrimSpace(name))
		if !ok {
			return 0, fmt.Errorf("%q: %w (known: %s)", name, ErrUnknownFix, Everything)
		}
		out |= Of(f)
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

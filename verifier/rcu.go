package verifier

// Sleepable paths and RCU read sections: the kernel's in_sleepable and
// in_rcu_cs, bpf_rcu_read_lock and bpf_rcu_read_unlock.
//
// A non-sleepable program always runs inside an RCU read section, so the
// pointers it reads from RCU-protected fields stay valid until it exits. A
// sleepable program (".s" sections, syscall programs) does not: it opens a
// section with bpf_rcu_read_lock, inside which the verifier treats it as a
// non-sleepable one (no sleeping helper or kfunc may be called there), and
// bpf_rcu_read_unlock turns every RCU pointer (MEM_RCU) into an untrusted
// one. 6.18 does not nest the sections: a second lock is refused.

import (
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Kfuncs that open and close an RCU read section.
const (
	kfuncRCUReadLock   = "bpf_rcu_read_lock"
	kfuncRCUReadUnlock = "bpf_rcu_read_unlock"
)

// inSleepable is in_sleepable: the current path belongs to a sleepable
// program and is not one of its asynchronous timer callbacks, which run in
// softirq context.
func (e *env) inSleepable() bool {
	return e.cur.InSleepable
}

// inRCU is in_rcu_cs: the path holds an RCU read section, or a spin lock
// (which disables preemption), or cannot sleep at all.
func (e *env) inRCU() bool {
	return e.cur.ActiveRCU || e.cur.ActiveLocks > 0 || !e.inSleepable()
}

// updateRCULock is the RCU part of check_kfunc_call, after the arguments
// are checked: bpf_rcu_read_lock opens the section, bpf_rcu_read_unlock
// closes it, and a sleepable kfunc may not be called inside it.
func (e *env) updateRCULock(name string, sleepable bool) error {
	lock, unlock := name == kfuncRCUReadLock, name == kfuncRCUReadUnlock
	switch {
	case e.cur.ActiveRCU && (lock || unlock) && e.inRBTreeCallback():
		// The tree's lock is held there: no section to open or close.
		return e.reject(e.insnIdx, "Calling bpf_rcu_read_{lock,unlock} in unnecessary rbtree callback")
	case e.cur.ActiveRCU && lock:
		return e.reject(e.insnIdx, "nested rcu read lock (kernel function %s)", name)
	case e.cur.ActiveRCU && unlock:
		e.untrustRCUPointers()
		e.cur.ActiveRCU = false
	case e.cur.ActiveRCU && sleepable:
		return e.reject(e.insnIdx, "kernel func %s is sleepable within rcu_read_lock region", name)
	case lock:
		e.cur.ActiveRCU = true
	case unlock:
		return e.reject(e.insnIdx, "unmatched rcu read unlock (kernel function %s)", name)
	}
	return nil
}

// untrustRCUPointers is what bpf_rcu_read_unlock does to the state: every
// RCU pointer, in a register, a spilled register or an iterator's slots,
// becomes an untrusted pointer that is no longer NULL-checked either. A
// non-owning reference to an allocated object stays one (and dies at the
// next bpf_spin_unlock) only under stablefix.RCUUnlockKeepsNonOwn.
func (e *env) untrustRCUPointers() {
	clear := states.MemRCU | states.MaybeNull
	if e.opts.MissingFixes.Has(stablefix.RCUUnlockKeepsNonOwn) {
		// The live kernel reads through it afterwards without a
		// reference, but still as an allocated object: its special
		// fields stay out of reach ("direct access to bpf_rb_node is
		// disallowed") and its pointer fields read as numbers
		// (checkAllocAccess).
		clear |= states.NonOwnRef
	}
	untrust := func(r *states.Reg) {
		if r.Flags&states.MemRCU != 0 {
			r.Flags &^= clear
			r.Flags |= states.PtrUntrusted
		}
	}
	st := e.cur
	for i := 0; i <= int(st.CurFrame); i++ {
		f := st.Frames[i]
		for r := range f.Regs() {
			untrust(&f.Regs()[r])
		}
		for s := range f.NumSlots() {
			switch f.Slot(s).Types[states.SlotSize-1] {
			case states.StackSpill, states.StackIter:
				untrust(&f.Slot(s).Spilled)
			}
		}
	}
}

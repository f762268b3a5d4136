package verifier

// Resilient spin locks: bpf_res_spin_lock/unlock and their
// _irqsave/_irqrestore forms (kernel/bpf/rqspinlock.c; the verifier's
// KF_ARG_PTR_TO_RES_SPIN_LOCK and the lock part of check_kfunc_call).
//
// A struct bpf_res_spin_lock lives in a map value or an allocated object,
// as a bpf_spin_lock does, and process_spin_lock checks both. Unlike a
// bpf_spin_lock, several resilient locks may be held at once (released in
// the reverse order), taking one already held is refused as a deadlock,
// and taking one can fail at run time: the call returns 0 with the lock
// held or a negative error without it. check_kfunc_call explores both: it
// pushes, before looking at the arguments, a path where the call returned
// an error in [-MAX_ERRNO, -1] and nothing was taken, and goes on with the
// path where it returned 0 and the lock (and for _irqsave the irq flag) is
// held.

import (
	"errors"

	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// fieldNameResSpinLock is the struct of a resilient lock.
const fieldNameResSpinLock = "bpf_res_spin_lock"

// resLockAcquires reports whether the kfunc takes a resilient lock, and
// so may fail.
func resLockAcquires(name string) bool {
	return name == kfuncResSpinLock || name == kfuncResSpinLockIRQSave
}

// isResLockKfunc is is_bpf_res_spin_lock_kfunc, by name.
func isResLockKfunc(name string) bool {
	_, ok := resLockOp(name)
	return ok
}

// resLockOp is the process_spin_lock flags of a resilient lock kfunc;
// ok is false for any other kfunc.
func resLockOp(name string) (op lockOp, ok bool) {
	switch name {
	case kfuncResSpinLock:
		return lockOp{acquire: true, res: true}, true
	case kfuncResSpinUnlock:
		return lockOp{res: true}, true
	case kfuncResSpinLockIRQSave:
		return lockOp{acquire: true, res: true, irq: true}, true
	case kfuncResSpinUnlockIRQRest:
		return lockOp{res: true, irq: true}, true
	}
	return lockOp{}, false
}

// processResSpinLockArg is check_kfunc_args' KF_ARG_PTR_TO_RES_SPIN_LOCK
// case: argument i points to a resilient lock in a map value or an
// allocated object, which the kfunc takes or drops.
func (e *env) processResSpinLockArg(name string, i int, reg *states.Reg) error {
	if e.inRBTreeCallback() {
		return e.reject(e.insnIdx, "can't res_spin_{lock,unlock} in rbtree cb")
	}
	if reg.Type != states.PtrToMapValue && !isAllocObj(reg) {
		return e.reject(e.insnIdx, "arg#%d doesn't point to map value or allocated object", i)
	}
	op, ok := resLockOp(name)
	if !ok {
		// The kernel fails with EFAULT and no message.
		return e.kernelFault("the 6.18 verifier fails a resilient lock argument of %s with EFAULT", name)
	}
	return e.processSpinLock(i+1, op)
}

// pushResLockFailure is the start of check_kfunc_call for a kfunc that
// takes a resilient lock: it pushes the path where taking the lock
// failed, resumed after the call with r1-r5 unreadable and r0 a 32-bit
// error in [-MAX_ERRNO, -1].
func (e *env) pushResLockFailure() error {
	branch, err := e.pushStack(e.insnIdx+1, e.insnIdx)
	if err != nil {
		var re *RejectError
		if !errors.As(err, &re) {
			return err
		}
		// The push's own message, then check_kfunc_call's, which is
		// the decisive line.
		e.log.errorf(re.Msg)
		return e.rejectAs(re, "failed to push state for failed lock acquisition")
	}
	// The branch sets registers a packed copy may have left out.
	branch.Unpack()
	regs := branch.Cur().Regs()
	for r := 0; r <= maxKfuncArgs; r++ {
		regs[r].MarkNotInit()
	}
	r0 := &regs[0]
	e.markUnknown(r0)
	e.markS32Range(r0, -maxErrno, -1)
	return nil
}

// markS32Range is __mark_reg_s32_range: it bounds reg's low 32 bits,
// signed, to [lo, hi]. Kernels with stablefix.S32RangeLowHalf leave the
// upper half as it was (unknown, for the errno of a resilient lock or the
// retval of an LSM hook); 6.18.0 bounds the 64-bit value to [lo, hi] too.
func (e *env) markS32Range(reg *states.Reg, lo, hi int32) {
	reg.S32Min, reg.S32Max = max(reg.S32Min, lo), min(reg.S32Max, hi)
	if e.opts.MissingFixes.Has(stablefix.S32RangeLowHalf) {
		reg.SMin, reg.SMax = max(reg.SMin, int64(lo)), min(reg.SMax, int64(hi))
	}
	reg.Scalar.Sync()
}

package verifier

// Timers: bpf_timer_init/set_callback/start/cancel and the asynchronous
// callback.
//
// A timer lives in a map value (a struct bpf_timer field, see locks.go).
// Every timer helper takes a pointer to exactly that field. bpf_timer_init
// also takes the map, which must be the map the timer lives in.
//
// bpf_timer_set_callback registers a function the kernel will run later,
// on its own, with (map, key, value) of the timer's element. The verifier
// does not treat it as a call: it pushes a separate path that starts at
// the callback with a fresh state (one frame, no references, no lock), as
// if it were a program of its own (push_async_cb), and the current path
// goes on past the helper. The callback must return 0. Its frame counts
// how many asynchronous registrations led to it (AsyncEntryCnt), so that
// a callback registering itself is not mistaken for an infinite loop.
//
// In an inner map of a map of maps every element of every inner map has
// the same map (the outer map's inner template): the map uid
// (states.Reg.MapUID) tells the inner maps apart, so that bpf_timer_init
// gets the very inner map the timer lives in.

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Return range of a timer callback (the kernel's retval_range(0, 0)).
const (
	asyncCallbackRetMin = 0
	asyncCallbackRetMax = 0
)

// processTimerArg is process_timer_func for an ARG_PTR_TO_TIMER argument:
// the pointer must be the map value's bpf_timer field; the map is
// remembered for the map argument of bpf_timer_init.
func (e *env) processTimerArg(regno int, meta *callMeta) error {
	idx, uid, err := e.checkMapFieldPointer(regno, fieldNameTimer, func(r *mapRecord) int64 { return r.timerOff })
	if err != nil {
		return err
	}
	if meta.mapIdx >= 0 {
		return e.verifierBug("Two map pointers in a timer helper")
	}
	meta.mapIdx, meta.mapUID = idx, uid
	meta.timerMap = true
	return nil
}

// checkMapFieldPointer is check_map_field_pointer: the map value pointer
// in regno must point, at a constant offset, to the value's field name
// (a timer, a workqueue), whose offset fieldOff reads from the map's
// record. It returns the map's index and the pointer's map uid.
func (e *env) checkMapFieldPointer(regno int, name string, fieldOff func(*mapRecord) int64) (int, uint32, error) {
	reg := &e.regs()[regno]
	if !reg.Var.IsConst() {
		return 0, 0, e.reject(e.insnIdx, "R%d doesn't have constant offset. %s has to be at the constant offset", regno, name)
	}
	m := e.mapAt(reg)
	if m == nil {
		return 0, 0, e.reject(e.insnIdx, "kernel subsystem misconfigured verifier")
	}
	rec := e.recordOf(m)
	if !rec.hasBTF {
		return 0, 0, e.reject(e.insnIdx, "map '%s' has to have BTF in order to use %s", e.kernelMapNameOf(m), name)
	}
	if rec.unsupported != "" {
		return 0, 0, e.unsupported(e.insnIdx, "%s: %s", name, rec.unsupported)
	}
	off := fieldOff(rec)
	if off < 0 {
		return 0, 0, e.reject(e.insnIdx, "map '%s' has no valid %s", e.kernelMapNameOf(m), name)
	}
	if at := int64(reg.Var.Value) + int64(reg.Off); at != off {
		return 0, 0, e.reject(e.insnIdx, "off %d doesn't point to 'struct %s' that is at %d", at, name, off)
	}
	return int(reg.Aux), reg.MapUID(), nil
}

// checkTimerMapArg is the bpf_timer_init part of ARG_CONST_MAP_PTR: the
// map must be the one the timer (argument 1) lives in, and of an inner
// map the very one (the same map uid).
func (e *env) checkTimerMapArg(reg *states.Reg, meta *callMeta) error {
	if !meta.timerMap || (int(reg.Aux) == meta.mapIdx && reg.MapUID() == meta.mapUID) {
		return nil
	}
	return e.reject(e.insnIdx, "timer pointer in R1 map_uid=%d doesn't match map pointer in R2 map_uid=%d", meta.mapUID, reg.MapUID())
}

// setTimerCallbackState is set_timer_callback_state: callback(map, key,
// value) of the timer's map, whose map uid the three share; r4 and r5
// unused.
func setTimerCallbackState(mapIdx, mapUID uint32) calleeSetup {
	return func(e *env, caller, callee *states.Frame) {
		callee.Regs()[1].MarkPtr(states.ConstPtrToMap, 0)
		callee.Regs()[1].Aux = mapIdx
		callee.Regs()[1].SetMapUID(mapUID)
		callee.Regs()[2].MarkPtr(states.PtrToMapKey, 0)
		callee.Regs()[2].Aux = mapIdx
		callee.Regs()[2].SetMapUID(mapUID)
		e.markCallbackMapValue(&callee.Regs()[3], mapIdx, mapUID)
		callee.Regs()[4].MarkNotInit()
		callee.Regs()[5].MarkNotInit()
	}
}

// pushAsyncCallback is push_async_cb: a pending path that starts at the
// callback sp in a fresh state, as a program of its own, sleepable or not
// whatever the program is (a workqueue's callback runs in a context that
// may sleep, a timer's does not). A session program may register none
// (stablefix.AsyncCbSession), and only a sleepable program one that may
// sleep (stablefix.SleepableCbSleepableProg).
func (e *env) pushAsyncCallback(sp int, setup calleeSetup, sleepable bool) error {
	e.checkStaticArgs(sp)
	// The build asks about cgroup storage before session programs (a
	// session program naming a cgroup storage map is refused for the
	// storage), and both before the sleepable-callback rule.
	if (e.cgroupStorage[0] != nil || e.cgroupStorage[1] != nil) && !e.opts.MissingFixes.Has(stablefix.AsyncCbCgroupStorage) {
		return e.rejectAs(&RejectError{errno: syscall.EINVAL}, "async callback in a program with cgroup storage")
	}
	if e.isSessionProg() && !e.opts.MissingFixes.Has(stablefix.AsyncCbSession) {
		return e.reject(e.insnIdx, "async callback in a session program")
	}
	if sleepable && !isSleepable(e) && !e.opts.MissingFixes.Has(stablefix.SleepableCbSleepableProg) {
		// The build's check answers EPERM.
		re := e.reject(e.insnIdx, "sleepable callback in a program that is not sleepable").(*RejectError)
		re.errno = syscall.EPERM
		return re
	}
	if e.asyncCallback == nil {
		e.asyncCallback = make([]bool, len(e.cfg.Subprogs))
	}
	if sp < len(e.asyncCallback) {
		e.asyncCallback[sp] = true
	}
	e.markCallbackSubprog(sp)
	if n := len(e.stack) + 1; n > MaxJmpSeq {
		// push_async_cb words the jump-sequence limit its own way.
		return &RejectError{Insn: e.insnIdx, Msg: fmt.Sprintf("The sequence of %d jumps is too complex for async cb.", n), kind: ErrComplexityLimit, errno: e.jmpSeqErrno()}
	}
	st, err := e.pushStack(e.cfg.Subprogs[sp].Start, e.insnIdx)
	if err != nil {
		return err
	}
	caller := e.cur.Frames[e.cur.CurFrame]
	// Unlike a branch, the new path does not descend from the current
	// state: nothing of it survives but the caller's async count.
	if st.Parent != nil {
		st.Parent.Branches--
	}
	for i := int32(1); i <= st.CurFrame; i++ {
		e.pool.PutFrame(st.Frames[i])
		st.Frames[i] = nil
	}
	frames := st.Frames
	refs, hist := st.Refs[:0], st.JmpHistory[:0]
	*st = states.State{Frames: frames, Refs: refs, JmpHistory: hist, Branches: 1, InSleepable: sleepable}
	st.InsnIdx = int32(e.cfg.Subprogs[sp].Start)
	callee := st.Frames[0]
	states.InitFrame(callee, states.MainCallSite, 0, int32(sp))
	// A new frame shows whole in the log (init_func_state).
	e.log.markAllScratched()
	callee.AsyncEntryCnt = caller.AsyncEntryCnt + 1
	// setup may widen the return range (a task_work's callback returns
	// any int).
	callee.CallbackRetMin, callee.CallbackRetMax = asyncCallbackRetMin, asyncCallbackRetMax
	setup(e, caller, callee)
	callee.InAsyncCallbackFn = true
	return nil
}

// checkAsyncReturn is check_return_code for the exit of an asynchronous
// callback: register regno (r0) must be a scalar in the callback's range.
func (e *env) checkAsyncReturn(regno int) error {
	if err := e.checkRegRead(uint8(regno)); err != nil {
		return err
	}
	f := e.cur.Frames[0]
	reg := &e.regs()[regno]
	const ctx = "At async callback return"
	if reg.Type != states.ScalarValue {
		return e.reject(e.insnIdx, "%s the register R%d is not a known value (%s)", ctx, regno, regTypeStr(reg))
	}
	if err := e.markChainPrecision(regno); err != nil {
		return err
	}
	lo, hi := int64(f.CallbackRetMin), int64(f.CallbackRetMax)
	if lo <= reg.SMin && reg.SMax <= hi {
		return nil
	}
	return e.rejectOutOfRange(ctx, regno, reg, lo, hi)
}

// isSessionProg reports whether the program is a kprobe or uprobe
// session program (is_kprobe_session, is_uprobe_session).
func (e *env) isSessionProg() bool {
	return e.progType == ebpf.Kprobe && (e.attach == ebpf.AttachTraceKprobeSession || e.attach == helpers.AttachTraceUprobeSession)
}

// failedCallback is check_kfunc_call's answer when a kfunc's callback
// cannot be pushed (push_callback_call failed with err): its own line
// after the reason, the rejection keeping err's kind.
func (e *env) failedCallback(err error, name string, id int32) error {
	var re *RejectError
	if !errors.As(err, &re) {
		return err
	}
	return e.rejectAs(re, "kfunc %s#%d failed callback verification", name, id)
}

// rejectAs is reject with a message of its own for a failure re that ends
// a step the kernel then reports once more (a callback, a push): the new
// line is the decisive one, and re's kind and error number carry over.
func (e *env) rejectAs(re *RejectError, format string, args ...any) error {
	out := e.reject(e.insnIdx, format, args...).(*RejectError)
	out.kind, out.errno = re.kind, re.errno
	return out
}

package verifier

// Synchronous callbacks: bpf_loop and bpf_for_each_map_elem.
//
// The kernel verifies a callback as a loop around the helper call
// (push_callback_call, Linux 6.7+). At the call it pushes a branch that
// enters the callback in a new frame, its registers set from the helper's
// arguments; the current path goes on past the call with r0 unknown. When
// the callback returns, the path jumps back to the call instruction itself
// (not past it), so the helper is simulated again with the caller's state
// after one more iteration, and pushes the callback again. The iteration
// stops when the call instruction's checkpoint, compared in RANGE_WITHIN
// mode, covers the new state (isStateVisited at CallsCallback insns), or,
// for bpf_loop, when the frame's callback depth reaches the largest loop
// count r1 may hold. Imprecise scalars the callback changed are widened to
// unknown on return, so that counters do not keep the loop from
// converging.
//
// bpf_timer_set_callback registers an asynchronous callback, verified as
// a separate path from a fresh state (timer.go). bpf_find_vma passes the
// callback the task and a vm_area_struct, bpf_user_ringbuf_drain a
// read-only dynptr (findvma.go); both loop like bpf_for_each_map_elem.

import (
	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Helpers that call a callback synchronously.
const (
	fnForEachMapElem = 164
	fnLoop           = 181
)

// Return range of a synchronous callback (the kernel's retval_range(0, 1)
// for bpf_loop and bpf_for_each_map_elem): 0 continues, 1 stops.
const (
	callbackRetMin = 0
	callbackRetMax = 1
)

// forEachMapTypes are the map types whose operations can walk elements
// for bpf_for_each_map_elem (map_set_for_each_callback_args).
var forEachMapTypes = map[ebpf.MapType]bool{
	ebpf.Hash:        true,
	ebpf.PerCPUHash:  true,
	ebpf.LRUHash:     true,
	ebpf.LRUCPUHash:  true,
	ebpf.Array:       true,
	ebpf.PerCPUArray: true,
}

// checkCallbackHelperCall is check_helper_call for the helpers that take a
// callback: the arguments, the callback branch, then the call's effect on
// the current path.
func (e *env) checkCallbackHelperCall(fn *helpers.Proto) error {
	id := fn.ID
	if id != fnLoop && id != fnForEachMapElem && id != fnTimerSetCallback && id != fnFindVMA && id != fnUserRingbufDrain {
		return e.unsupported(e.insnIdx, "helper %s#%d with a callback", fn.Name, id)
	}
	meta := callMeta{mapIdx: -1, constMapKey: -1, pktAccess: fn.PktAccess}
	sp := -1
	for i := range fn.Args {
		if fn.Args[i] != helpers.ArgPtrToFunc {
			if err := e.checkFuncArg(i, fn, &meta); err != nil {
				return err
			}
			continue
		}
		n, err := e.checkFuncPtrArg(i+1, &meta)
		if err != nil {
			return err
		}
		sp = n
	}
	if sp < 0 {
		return e.reject(e.insnIdx, "kernel subsystem misconfigured verifier")
	}
	regs := e.regs()
	caller := e.cur.Frames[e.cur.CurFrame]
	switch id {
	case fnForEachMapElem:
		if meta.mapIdx < 0 {
			return e.reject(e.insnIdx, "kernel subsystem misconfigured verifier")
		}
		if !forEachMapTypes[e.maps[meta.mapIdx].Type] {
			// The map has no for-each operations: -ENOTSUPP, from
			// set_map_elem_callback_state, after push_callback_call
			// has checked the callback's prototype and the depth.
			if err := e.beginCallbackCall(sp); err != nil {
				return err
			}
			return e.rejectAs(&RejectError{errno: errnoENOTSUPP}, "callback function not allowed for map")
		}
		if err := e.pushCallbackCall(sp, setMapElemCallbackState(uint32(meta.mapIdx))); err != nil {
			return err
		}
	case fnFindVMA:
		vma := vmaTypeID()
		if vma == 0 {
			return e.unsupported(e.insnIdx, "struct %s not in kernel BTF", btfVMAStruct)
		}
		if err := e.pushCallbackCall(sp, setFindVMACallbackState(vma)); err != nil {
			return err
		}
	case fnUserRingbufDrain:
		if err := e.pushCallbackCall(sp, setUserRingbufCallbackState); err != nil {
			return err
		}
	case fnTimerSetCallback:
		if meta.mapIdx < 0 {
			return e.reject(e.insnIdx, "kernel subsystem misconfigured verifier")
		}
		if err := e.pushAsyncCallback(sp, setTimerCallbackState(uint32(meta.mapIdx), meta.mapUID), false); err != nil {
			return err
		}
	case fnLoop:
		if err := e.updateLoopInlineState(sp); err != nil {
			return err
		}
		// Whether the loop is over depends on r1's exact bound. The
		// kernel marks it precise whatever it holds, and a pointer
		// there (nr_loops is ARG_ANYTHING) trips its backtracking
		// sanity check: the load fails (EFAULT) after a kernel
		// warning, so no comparison may load it (ErrKernelFault).
		if regs[1].Type != states.ScalarValue {
			return e.backtrackBug("backtracking misuse")
		}
		if err := e.markChainPrecision(1); err != nil {
			return err
		}
		if caller.CallbackDepth >= 0 && uint64(caller.CallbackDepth) < regs[1].UMax {
			if err := e.pushCallbackCall(sp, setLoopCallbackState); err != nil {
				return err
			}
		} else {
			caller.CallbackDepth = 0
			if e.log.level >= 2 {
				e.log.printf("frame%d bpf_loop iteration limit reached\n", e.cur.CurFrame)
			}
		}
	}
	for r := 1; r <= 5; r++ {
		regs[r].MarkNotInit()
	}
	e.markUnknown(&regs[0])
	if meta.mapIdx >= 0 {
		if ok, msg := e.mapHelperAllowed(e.maps[meta.mapIdx].Type, id); !ok {
			return e.reject(e.insnIdx, "%s", msg)
		}
	}
	return nil
}

// loopInlineState is the kernel's bpf_loop_inline_state of one bpf_loop
// call instruction: whether every visit so far allows inlining the loop
// (flags 0, the same callback), decided at the first visit.
type loopInlineState struct {
	initialized, fit bool
	callback         int
}

// updateLoopInlineState is update_loop_inline_state: while a bpf_loop
// call instruction stays fit for inlining, each visit asks whether its
// flags (r4) are 0, and a 0 there becomes precise, since the inlined loop
// relies on it. That mark is part of the states pruning compares; once a
// visit finds the call unfit, later visits no longer look at r4.
func (e *env) updateLoopInlineState(callback int) error {
	prev := e.loopInline[e.insnIdx]
	st := prev
	if st.initialized && !st.fit {
		return nil
	}
	zero, err := e.loopFlagIsZero()
	if err != nil {
		return err
	}
	if !st.initialized {
		st = loopInlineState{initialized: true, fit: zero, callback: callback}
	} else {
		st.fit = zero && st.callback == callback
	}
	if st == prev {
		// Every iteration of a loop calls again: store only a change.
		return nil
	}
	if e.loopInline == nil {
		e.loopInline = make(map[int]loopInlineState)
	}
	e.loopInline[e.insnIdx] = st
	return nil
}

// loopInlineStackSlots is the stack optimize_bpf_loop gives an inlined
// bpf_loop: three 8-byte slots (the counter, the bound and the context).
const loopInlineStackSlots = 3

// addLoopInlineStack is the stack part of optimize_bpf_loop, which runs
// once the program is accepted: each subprogram holding a bpf_loop call
// still fit for inlining grows by the inlined loop's slots, after its depth
// is rounded up to 8 bytes. The kernel reports the grown depths.
func (e *env) addLoopInlineStack() {
	grown := make(map[int]bool)
	for idx, st := range e.loopInline {
		sp := e.cfg.SubprogOf(idx)
		if !st.fit || sp < 0 || sp >= len(e.stackDepth) || grown[sp] {
			continue
		}
		grown[sp] = true
		depth := e.stackDepth[sp]
		e.stackDepth[sp] = (depth+states.SlotSize-1)/states.SlotSize*states.SlotSize + loopInlineStackSlots*states.SlotSize
	}
}

// loopFlagIsZero is loop_flag_is_zero: whether bpf_loop's flags are the
// constant 0, made precise when they are.
func (e *env) loopFlagIsZero() (bool, error) {
	if !e.regs()[4].IsNull() {
		return false, nil
	}
	return true, e.markChainPrecision(4)
}

// checkFuncPtrArg checks an ARG_PTR_TO_FUNC argument and returns the
// callback's subprogram.
func (e *env) checkFuncPtrArg(regno int, meta *callMeta) (int, error) {
	if err := e.checkRegRead(uint8(regno)); err != nil {
		return -1, err
	}
	reg := &e.regs()[regno]
	if err := e.checkPktArg(reg, meta); err != nil {
		return -1, err
	}
	if reg.Type != states.PtrToFunc {
		return -1, e.reject(e.insnIdx, "R%d type=%s expected=func", regno, regTypeStr(reg))
	}
	if err := e.checkPtrOffReg(reg, regno, false); err != nil {
		return -1, err
	}
	sp := int(reg.Aux)
	if sp <= 0 || sp >= len(e.cfg.Subprogs) {
		return -1, e.reject(e.insnIdx, "verifier bug. No program starts at insn %d", sp)
	}
	// The ld_imm64 that took the address checked the BTF func info and
	// that the function is static.
	return sp, nil
}

// calleeSetup fills a callback's entry frame from its caller's frame (the
// kernel's set_*_callback_state). The caller may be a packed frame of a
// pushed branch: its registers are read through Reg.
type calleeSetup func(e *env, caller, callee *states.Frame)

// setLoopCallbackState: callback(u64 index, void *ctx) for bpf_loop(nr,
// cb, ctx, flags).
func setLoopCallbackState(e *env, caller, callee *states.Frame) {
	e.markUnknown(&callee.Regs()[1])
	callee.Regs()[2] = *caller.Reg(3)
}

// setMapElemCallbackState: callback(map, key, value, ctx) for
// bpf_for_each_map_elem(map, cb, ctx, flags); the key and the value have
// the map's uid.
func setMapElemCallbackState(mapIdx uint32) calleeSetup {
	return func(e *env, caller, callee *states.Frame) {
		uid := caller.Reg(1).MapUID()
		callee.Regs()[1] = *caller.Reg(1)
		callee.Regs()[2].MarkPtr(states.PtrToMapKey, 0)
		callee.Regs()[2].Aux = mapIdx
		callee.Regs()[2].SetMapUID(uid)
		e.markCallbackMapValue(&callee.Regs()[3], mapIdx, uid)
		callee.Regs()[4] = *caller.Reg(3)
	}
}

// markCallbackMapValue makes reg the map value a callback of map mapIdx
// (of uid mapUID) receives (for_each_map_elem's, a timer's, a workqueue's,
// a task_work's): never NULL, and with an id of its own
// (stablefix.CallbackValueID) so that two callbacks' values, one nested in
// the other, are two locks for bpf_spin_lock.
func (e *env) markCallbackMapValue(reg *states.Reg, mapIdx, mapUID uint32) {
	reg.MarkPtr(states.PtrToMapValue, 0)
	reg.Aux = mapIdx
	reg.SetMapUID(mapUID)
	if !e.opts.MissingFixes.Has(stablefix.CallbackValueID) {
		reg.ID = e.newID()
	}
}

// beginCallbackCall is what push_callback_call checks of a call of
// callback sp before the callee's state is set up: the callback's
// prototype against the caller's registers (btf_check_subprog_call,
// logged only) and the call depth (setup_func_entry).
func (e *env) beginCallbackCall(sp int) error {
	e.checkStaticArgs(sp)
	if e.cur.CurFrame+1 >= states.MaxCallFrames {
		return e.reject(e.insnIdx, "the call stack of %d frames is too deep", e.cur.CurFrame+2)
	}
	return nil
}

// pushCallbackCall is push_callback_call: a pending branch that enters the
// callback sp from the current instruction, one iteration deeper.
func (e *env) pushCallbackCall(sp int, setup calleeSetup) error {
	if err := e.beginCallbackCall(sp); err != nil {
		return err
	}
	st, err := e.pushStack(e.cfg.Subprogs[sp].Start, e.insnIdx)
	if err != nil {
		return err
	}
	caller := st.Frames[st.CurFrame]
	callee := e.pool.Frame()
	states.InitFrame(callee, int32(e.insnIdx), st.CurFrame+1, int32(sp))
	// A new frame shows whole in the log (init_func_state).
	e.log.markAllScratched()
	setup(e, caller, callee)
	callee.InCallbackFn = true
	e.markCallbackSubprog(sp)
	callee.CallbackRetMin, callee.CallbackRetMax = callbackRetMin, callbackRetMax
	st.CurFrame++
	st.Frames[st.CurFrame] = callee
	e.stackLive.chainMayChange()
	st.CallbackUnrollDepth++
	caller.CallbackDepth++
	e.cur.Frames[e.cur.CurFrame].CallbackDepth = 0
	return nil
}

// returnFromCallback is prepare_func_exit for a callback frame: r0, a
// scalar (processExit checks), must be in the callback's return range;
// the path goes back to the call instruction, with the scalars the
// iteration changed widened.
func (e *env) returnFromCallback() error {
	st := e.cur
	callee := st.Frames[st.CurFrame]
	r0 := &callee.Regs()[0]
	if err := e.markChainPrecision(0); err != nil {
		return err
	}
	lo, hi := int64(callee.CallbackRetMin), int64(callee.CallbackRetMax)
	if r0.SMin < lo || r0.SMax > hi {
		return e.rejectOutOfRange("At callback return", 0, r0, lo, hi)
	}
	callSite := int(callee.CallSite)
	if !e.cfg.CallsCallback(callSite) {
		return e.verifierBug("in callback at %d, callsite %d !calls_callback", e.insnIdx, callSite)
	}
	e.insnIdx = callSite
	e.log.returned(e, callSite)
	st.Frames[st.CurFrame] = nil
	st.CurFrame--
	e.stackLive.chainMayChange()
	e.pool.PutFrame(callee)
	e.log.returnedTo(e)
	if prev := e.prevLoopEntry(st, callSite); prev != nil {
		widenLoopScalars(prev, st)
	}
	return nil
}

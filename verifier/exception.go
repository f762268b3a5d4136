package verifier

// BPF exceptions: the bpf_throw kfunc and exception callbacks.
//
// bpf_throw(cookie) unwinds every frame and ends the program at once. The
// kernel verifies it as an exit from wherever it is called
// (process_bpf_exit_full with exception_exit): no return to the callers,
// no R0 check, but nothing may be left held, in any frame. Without an
// exception callback the cookie becomes the program's return value, so
// check_kfunc_call checks r1 as check_return_code checks r0 at an exit.
// A callback may not throw (its caller, a helper, would be unwound too):
// check_max_stack_depth refuses that after the walk.
//
// An exception callback is a global function named by the main program's
// "exception_callback:NAME" BTF decl tag. Nothing calls it: libbpf appends
// it to the program (the loader does the same), and the kernel makes it a
// subprogram of its own, walks it in check_cfg and verifies it as a second
// entry point, as a global function with one scalar argument that returns
// what the program returns (do_check_subprogs, do_check_common,
// check_return_code's in_exception_callback_fn). It counts as a callback
// (it may not throw) and as an asynchronous one: the stack-depth walk
// starts from it, and a call to it is refused.

import (
	"strings"
	"syscall"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/stablefix"
)

// kfuncThrow is the kfunc that raises an exception.
const kfuncThrow = "bpf_throw"

// exceptionCallbackTag is the prefix of the decl tag that names the main
// program's exception callback (bpf_experimental.h's __exception_cb).
const exceptionCallbackTag = "exception_callback:"

// isThrowCall reports whether in calls bpf_throw (is_bpf_throw_kfunc).
func isThrowCall(in insn.Insn) bool {
	if !in.IsKfuncCall() || in.Off != 0 {
		return false
	}
	info, err := resolveKfunc(in.Imm)
	return err == nil && info.name == kfuncThrow
}

// processThrow is process_bpf_exit_full for the exceptional exit of a
// bpf_throw call that passed check_kfunc_call: the path ends here, from
// any frame. Every frame's references must be released; with
// stablefix.ThrowLockCheck a throw from a subprogram also checks the open
// sections, as an exit from the main program does, and names bpf_throw in
// its messages.
func (e *env) processThrow() (bool, error) {
	checkLock, what := true, kfuncThrow
	if e.opts.MissingFixes.Has(stablefix.ThrowLockCheck) {
		checkLock, what = e.cur.CurFrame == 0, "BPF_EXIT instruction in main prog"
	}
	if err := e.checkResourceLeak(true, checkLock, what); err != nil {
		return false, err
	}
	return true, nil
}

// checkExceptionCallback is bpf_find_exception_callback_insn_off, run when
// the kernel collects subprograms and kfunc calls: the main program's
// "exception_callback:NAME" decl tag must name a global function in the
// program's BTF, whose start it records. cilium/ebpf hands the kernel BTF
// for the functions linked into the program only, so an exception callback
// that neither the program calls nor the loader appended (a static one,
// which libbpf refuses to append) is not found.
func (e *env) checkExceptionCallback() error {
	if len(e.lp.Funcs) == 0 || e.lp.Funcs[0].BTF == nil {
		return nil
	}
	name, found := "", 0
	for _, tag := range e.lp.Funcs[0].BTF.Tags {
		if cb, ok := strings.CutPrefix(tag, exceptionCallbackTag); ok {
			name = cb
			found++
		}
	}
	switch {
	case found == 0:
		return nil
	case found > 1:
		return &RejectError{Msg: "multiple exception callback tags for main subprog"}
	}
	for _, fn := range e.lp.Funcs {
		if fn.Name != name {
			continue
		}
		if !fn.Global {
			return &RejectError{Msg: sprintf("exception callback '%s' must have global linkage", name)}
		}
		if fn.Start == 0 {
			// The main program names itself: its func_info entry's
			// offset is 0, which is no callback's.
			return &RejectError{Msg: "invalid exception callback insn_off in func_info: 0", errno: syscall.EINVAL}
		}
		e.excCbStart = fn.Start
		return nil
	}
	return &RejectError{Msg: sprintf("exception callback '%s' could not be found in BTF", name)}
}

// markExceptionCallback is mark_subprog_exc_cb: once the CFG has made the
// exception callback a subprogram, it is a callback (is_cb) and an
// asynchronous one (is_async_cb).
func (e *env) markExceptionCallback() {
	if e.excCbStart == 0 {
		return
	}
	e.excCb = e.subprogStartingAt(e.excCbStart)
	if e.excCb <= 0 {
		e.excCb = 0
		return
	}
	e.markCallbackSubprog(e.excCb)
	if e.asyncCallback == nil {
		e.asyncCallback = make([]bool, len(e.cfg.Subprogs))
	}
	e.asyncCallback[e.excCb] = true
}

// isExceptionCallback reports whether subprogram sp is the program's
// exception callback (subprog_is_exc_cb).
func (e *env) isExceptionCallback(sp int) bool {
	return e.excCb != 0 && sp == e.excCb
}

// throwInCallback is the bpf_throw part of check_max_stack_depth's walk:
// insn i of subprogram sp, reached through the chain of callers, calls
// bpf_throw while sp or one of its callers is a callback. It returns the
// kernel's rejection, or nil.
func (e *env) throwInCallback(i, sp int, callers []stackWalkFrame) error {
	if !isThrowCall(e.prog[i]) {
		return nil
	}
	if !inCallbackChain(sp, callers, e.isCallbackSubprog) {
		return nil
	}
	return &RejectError{Insn: i, Msg: sprintf("bpf_throw kfunc (insn %d) cannot be called from callback subprog %d", i, sp)}
}

// markCallbackSubprog records that subprogram sp is entered as a callback
// (push_callback_call's is_cb).
func (e *env) markCallbackSubprog(sp int) {
	if e.callbackSubprog == nil {
		e.callbackSubprog = make([]bool, len(e.cfg.Subprogs))
	}
	if sp < len(e.callbackSubprog) {
		e.callbackSubprog[sp] = true
	}
}

// isCallbackSubprog reports whether subprogram sp was entered as a
// callback, synchronous or not, on some path (the kernel's is_cb).
func (e *env) isCallbackSubprog(sp int) bool {
	return sp < len(e.callbackSubprog) && e.callbackSubprog[sp]
}

// checkExceptionCallbackProto is do_check_common's check of the exception
// callback's prototype, after btf_prepare_func_args accepted it as a global
// function's (which returns a scalar in 6.18): it takes one scalar.
func (e *env) checkExceptionCallbackProto(sp int, p *globalProto) string {
	if e.isExceptionCallback(sp) && (len(p.args) != 1 || p.args[0].kind != globalArgScalar) {
		return "exception cb only supports single integer argument"
	}
	return ""
}

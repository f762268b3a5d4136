package verifier

import (
	"fmt"
	"slices"
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// After every path is verified the kernel walks the static call graph
// (check_max_stack_depth): each bpf-to-bpf call and each callback whose
// address is taken adds a frame; the chain may be at most MaxCallFrames
// deep, and the frames' stacks, each rounded to the JIT's granularity,
// may add up to at most MaxStack bytes. Recursion therefore ends here at
// the latest, whatever the simulation saw.
const (
	// jitStackAlign is the granularity of a JITed frame's stack: the
	// kernel rounds each subprogram's depth up to it when the program is
	// to be JITed (bpf_jit_enable=1, or CONFIG_BPF_JIT_ALWAYS_ON).
	jitStackAlign = 16
	// interpStackAlign is the interpreter's granularity, used when the
	// kernel runs programs in its interpreter (helpers.Build.Interpreted).
	interpStackAlign = 32
	// privStackMinSize is the smallest frame that gets a private stack
	// (BPF_PRIV_STACK_MIN_SIZE); such a frame leaves the combined budget.
	privStackMinSize = 64
	// tailCallStackLimit is the caller stack above which a subprogram
	// doing a tail call is refused: the tail call keeps those frames.
	tailCallStackLimit = 256
)

// privStackMode is a subprogram's private-stack state during the walk.
type privStackMode uint8

const (
	privStackUnknown privStackMode = iota
	privStackNone
	privStackAdaptive
)

// privStackSupported reports whether the JIT may give this program's
// frames a private stack (bpf_enable_priv_stack on x86-64): the tracing
// types that do not go through a trampoline, and those that do when the
// trampoline guards against recursion (bpf_prog_check_recur: tracing
// programs but iterators; LSM and struct_ops programs do not qualify, as
// no struct_ops vercheck models asks for a private stack). Kprobe programs
// qualify only on builds that lack stablefix.KprobeNoPrivStack, or when
// attached through kprobe_multi or kprobe_session; tracepoint, raw_tp and
// trampoline programs only on builds that lack
// stablefix.TraceNoPrivStack.
func privStackSupported(t ebpf.ProgramType, attach ebpf.AttachType, missing stablefix.Set) bool {
	switch t {
	case ebpf.Kprobe:
		return missing.Has(stablefix.KprobeNoPrivStack) ||
			attach == ebpf.AttachTraceKprobeMulti || attach == ebpf.AttachTraceKprobeSession
	case ebpf.PerfEvent:
		return true
	case ebpf.TracePoint, ebpf.RawTracepoint:
		return missing.Has(stablefix.TraceNoPrivStack)
	case ebpf.Tracing:
		return attach != ebpf.AttachTraceIter && missing.Has(stablefix.TraceNoPrivStack)
	}
	return false
}

// roundStackDepth is a frame's share of the combined stack
// (round_up_stack_depth): its depth rounded to the JIT's granularity, or,
// on an interpreting kernel, to the interpreter's 32 bytes, at least one
// unit even for an empty frame.
func (e *env) roundStackDepth(depth int) int {
	if e.build.Interpreted {
		return (max(depth, 1) + interpStackAlign - 1) &^ (interpStackAlign - 1)
	}
	return (depth + jitStackAlign - 1) &^ (jitStackAlign - 1)
}

// subprogStartingAt returns the index of the subprogram that starts at
// insn idx, or -1.
func (e *env) subprogStartingAt(idx int) int {
	for i, sp := range e.cfg.Subprogs {
		if sp.Start == idx {
			return i
		}
	}
	return -1
}

// subprogHasTailCall reports whether subprogram sp calls bpf_tail_call.
func (e *env) subprogHasTailCall(sp int) bool {
	s := e.cfg.Subprogs[sp]
	return insn.HasTailCall(e.prog, s.Start, s.End)
}

// checkMaxStackDepth runs the static call-graph walk from the main
// program and from every asynchronous callback (these last first, so that
// what they reach never gets a private stack).
func (e *env) checkMaxStackDepth() error {
	n := len(e.cfg.Subprogs)
	modes := make([]privStackMode, n)
	tail := make([]bool, n)
	anyTail := false
	for sp := range n {
		tail[sp] = e.subprogHasTailCall(sp)
		anyTail = anyTail || tail[sp]
	}
	// reach is each subprogram's tail_call_reachable: its own tail call
	// (check_subprogs), or one of a callee the walk returned from.
	reach := slices.Clone(tail)
	for sp := n - 1; sp >= 0; sp-- {
		if sp != 0 && (sp >= len(e.asyncCallback) || !e.asyncCallback[sp]) {
			continue
		}
		// A tail call anywhere in the program, reached or not
		// (has_tail_call is set by check_subprogs), means no function
		// gets a private stack.
		priv := sp == 0 && !anyTail && privStackSupported(e.progType, e.attach, e.opts.MissingFixes)
		if err := e.checkStackDepthFrom(sp, priv, modes, tail, reach); err != nil {
			return err
		}
	}
	return nil
}

// stackWalkFrame is where the walk resumes in a caller.
type stackWalkFrame struct{ sp, next int }

// checkStackDepthFrom walks every call chain that starts at subprogram
// root, depth first, without recursion of its own. A tail call is looked
// for in the callbacks of the chain when the walk of a function that may
// reach one ends, after its callees' checks (the kernel's
// tail_call_reachable: the function's own tail call on entry, else what
// its callees marked it with).
func (e *env) checkStackDepthFrom(root int, priv bool, modes []privStackMode, tail, reach []bool) error {
	var callers [states.MaxCallFrames]stackWalkFrame
	frame, depth := 0, 0
	sp := root
	i := e.cfg.Subprogs[sp].Start
	enter := true
	tailReachable := false
	for {
		if enter {
			if sp != 0 && tail[sp] && depth >= tailCallStackLimit {
				return &RejectError{Msg: fmt.Sprintf("tail_calls are not allowed when call stack of previous frames is %d bytes. Too large", depth)}
			}
			own := e.roundStackDepth(e.stackDepthOf(sp))
			if priv && modes[sp] == privStackUnknown && own >= privStackMinSize {
				modes[sp] = privStackAdaptive
			}
			if modes[sp] == privStackAdaptive {
				if own > states.MaxStack {
					return &RejectError{Msg: fmt.Sprintf("stack size of subprog %d is %d. Too large", sp, own)}
				}
			} else {
				depth += own
				if depth > states.MaxStack {
					return &RejectError{Msg: fmt.Sprintf("combined stack size of %d calls is %d. Too large", frame+1, depth)}
				}
			}
			enter = false
		}
		end := e.cfg.Subprogs[sp].End
		callee := -1
		for ; i < end && i < len(e.prog); i++ {
			in := e.prog[i]
			if err := e.throwInCallback(i, sp, callers[:frame]); err != nil {
				return err
			}
			if !in.IsPseudoCall() && !in.IsPseudoFunc() {
				continue
			}
			target := e.subprogStartingAt(i + int(in.Imm) + 1)
			if target < 0 {
				continue
			}
			if target < len(e.asyncCallback) && e.asyncCallback[target] && tail[target] {
				// A tail call from a stack of its own: the kernel
				// reports its own bug (EFAULT).
				return e.verifierBug("subprog has tail_call and async cb")
			}
			if target < len(e.asyncCallback) && e.asyncCallback[target] && !in.IsPseudoCall() {
				// An asynchronous callback runs on a stack of its own
				// unless it is also called directly.
				continue
			}
			if in.IsPseudoCall() && e.isExceptionCallback(target) {
				// The message has no newline in the kernel either.
				return &RejectError{Insn: i, Msg: sprintf("insn %d cannot call exception cb directly", i)}
			}
			callee = target
			break
		}
		if callee >= 0 {
			callers[frame] = stackWalkFrame{sp: sp, next: i + 1}
			sp, i = callee, e.cfg.Subprogs[callee].Start
			if !priv {
				modes[sp] = privStackNone
			}
			tailReachable = tail[sp]
			frame++
			if frame >= states.MaxCallFrames {
				return &RejectError{Msg: fmt.Sprintf("the call stack of %d frames is too deep !", frame)}
			}
			enter = true
			continue
		}
		if tailReachable {
			// The function's walk is done: a tail call it may reach
			// may not run in a callback (a synchronous or asynchronous
			// one, the exception callback) or under one, reached or
			// not; else the whole chain may reach it.
			if inCallbackChain(sp, callers[:frame], e.isCallbackOrExceptionCb) {
				return &RejectError{Msg: "cannot tail call within callback", errno: syscall.EINVAL}
			}
			reach[sp] = true
			for _, c := range callers[:frame] {
				reach[c.sp] = true
			}
		}
		if frame == 0 {
			return nil
		}
		if modes[sp] != privStackAdaptive {
			depth -= e.roundStackDepth(e.stackDepthOf(sp))
		}
		frame--
		sp, i = callers[frame].sp, callers[frame].next
		tailReachable = reach[sp]
	}
}

// isCallbackOrExceptionCb is the kernel's is_cb: subprogram sp runs as a
// callback (entered as one on some path) or is the exception callback.
func (e *env) isCallbackOrExceptionCb(sp int) bool {
	return e.isCallbackSubprog(sp) || e.isExceptionCallback(sp)
}

// inCallbackChain reports whether subprogram sp, or one of the callers
// the stack walk entered it from, is a callback by isCb.
func inCallbackChain(sp int, callers []stackWalkFrame, isCb func(int) bool) bool {
	if isCb(sp) {
		return true
	}
	for _, c := range callers {
		if isCb(c.sp) {
			return true
		}
	}
	return false
}

// stackDepthOf is the deepest stack subprogram sp used on any path.
func (e *env) stackDepthOf(sp int) int {
	if sp < len(e.stackDepth) {
		return e.stackDepth[sp]
	}
	return 0
}

// checkInterpreterCalls is fixup_call_args on a kernel that runs programs
// in its interpreter (the code a kernel without CONFIG_BPF_JIT_ALWAYS_ON
// keeps for when no JIT runs): after a successful verification the
// interpreter cannot run a callback, so a program that takes a function's
// address is refused. The kfunc and tail call refusals of the same
// function are met earlier (checkKfuncDecls, mapHelperAllowed).
func (e *env) checkInterpreterCalls() error {
	if !e.build.Interpreted {
		return nil
	}
	for i, in := range e.prog {
		if !in.Filler && in.IsPseudoFunc() {
			return &RejectError{Insn: i, Msg: "callbacks are not allowed in non-JITed programs", errno: syscall.EINVAL}
		}
	}
	return nil
}

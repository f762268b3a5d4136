package verifier

import (
	"errors"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
	"github.com/vercheck/vercheck/why"
)

// maxPathSteps bounds the recorded path. A step holds one frame's
// registers (about a kilobyte); a path longer than this (a loop unrolled
// towards the 1M-insn limit) is explained by its budget, not by a slice.
const maxPathSteps = 1 << 15

// pathRecorder keeps the current path, instruction by instruction, with
// the registers each one saw, for Options.Why. The walk is depth first
// and a pending branch resumes from the prefix that was current when it
// was pushed, so the path is a stack: a push remembers its length, a pop
// cuts back to it.
type pathRecorder struct {
	steps []why.Step
	// depth is the current path's length, which may exceed len(steps).
	depth int
}

// len returns the current path's length (0 when not recording).
func (p *pathRecorder) len() int {
	if p == nil {
		return 0
	}
	return p.depth
}

// truncate cuts the path back to its first n steps.
func (p *pathRecorder) truncate(n int) {
	if p == nil {
		return
	}
	p.depth = n
	if len(p.steps) > n {
		p.steps = p.steps[:n]
	}
}

// visit appends the instruction about to be simulated at insnIdx, with
// the registers of st's current frame.
func (p *pathRecorder) visit(insnIdx int, st *states.State) {
	if p.depth < maxPathSteps {
		p.steps = append(p.steps, why.Step{Insn: int32(insnIdx), Frame: int8(st.CurFrame), Regs: *st.Frames[st.CurFrame].Regs()})
	}
	p.depth++
}

// explain builds the explanation of a rejection when Options.Why asked
// for it, from the recorded failing path and the state at the error. It
// runs before the states are released.
func (e *env) explain(err error) *why.Explanation {
	var re *RejectError
	if !e.opts.Why || !errors.As(err, &re) {
		return nil
	}
	in := why.Input{
		Insns: e.prog,
		Lines: e.lp.Lines.Slice(),
		Err: why.Error{
			Insn: re.Insn, Msg: re.Msg, State: re.State,
			Complexity:  errors.Is(re, ErrComplexityLimit) || errors.Is(re, ErrTimeout) || errors.Is(re, ErrMemoryLimit),
			Unsupported: errors.Is(re, ErrUnsupported),
			KernelFault: errors.Is(re, ErrKernelFault),
		},
		Printer:   &e.log.printer,
		ArgScalar: e.helperArgScalar,
	}
	if e.path != nil && e.cur != nil {
		in.Path, in.PathLen, in.Final = e.path.steps, e.path.depth, e.cur
	}
	return why.Build(in)
}

// helperArgScalar reports, for a helper call at insnIdx, whether its
// argument in register reg is a number rather than a pointer (known false
// for kfuncs and subprograms, whose arguments the explanation does not
// look up).
func (e *env) helperArgScalar(insnIdx int, reg uint8) (scalar, known bool) {
	in := e.prog[insnIdx]
	if !in.IsHelperCall() || reg < insn.R1 || reg > insn.R5 {
		return false, false
	}
	fn, ok := helpers.For(e.progType, e.attach, in.Imm)
	if !ok {
		return false, false
	}
	switch fn.Args[reg-1] {
	case helpers.ArgAnything, helpers.ArgConstSize, helpers.ArgConstSizeOrZero, helpers.ArgConstAllocSizeOrZero:
		return true, true
	}
	return false, true
}

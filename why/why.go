// Package why explains a rejection: the failing instruction and the
// registers there, the backward slice from the faulting register to the
// instruction that gave it its kind or range, the branch decisions taken on
// the failing path, and a hint keyed on the cause the slice found.
//
// The verifier records, when asked (verifier.Options.Why), the failing
// path: every instruction the walk simulated from the entry of the
// function being verified to the error, with the registers of the current
// frame before each one ([Step]). [Build] walks that path backwards from
// the error. It starts from the register the error is about (the one the
// kernel's message names, or the operand of the failing instruction) and
// from what the register holds there: not initialised, maybe NULL, a
// scalar used as a pointer, a packet pointer past its proven range, a
// stack pointer to a slot not written, a value out of range. Then it
// follows the value back through copies (mov, spill and fill, call
// arguments and return values) to the step where the property at fault
// changed last: the origin. The cause ([Cause]) is named from what changed
// there (a call that returned _or_null, arithmetic that made a pointer a
// scalar, a call that released a reference, the last comparison with
// data_end...), never from the message's text.
//
// # JSON
//
// An [Explanation] marshals to
//
//	{insn, text, file, line, source, state, register, cause, summary,
//	 origin: POINT, slice: [POINT], branches: [{insn, text, taken, relevant,
//	 file, line}], branch_count, path_len, hint, no_slice}
//
// POINT is {insn, text, file, line, source, value, note}: an instruction of
// the path, the traced value after it in the log's form, and what it did
// to it. slice goes from the failing instruction back to the origin.
// no_slice says why there is none (a rejection before the walk, at a
// complexity limit, of an instruction refused whatever the registers hold).
package why

import (
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// Cause names what made the program fail, as found by the slice.
type Cause string

// Causes. Each one has its hint (hints).
const (
	// NullUnchecked: a pointer that may be NULL (a helper or kfunc that
	// returns _or_null, a load of a kptr) used without a NULL check.
	NullUnchecked Cause = "null_unchecked"
	// PointerLost: arithmetic turned a pointer into a scalar, then the
	// scalar was used as a pointer.
	PointerLost Cause = "pointer_became_scalar"
	// ReferenceReleased: a call released the reference the register
	// held, then the register was used.
	ReferenceReleased Cause = "reference_released"
	// ScalarAsPointer: a number (loaded, computed, a constant) used as a
	// pointer.
	ScalarAsPointer Cause = "scalar_as_pointer"
	// PacketUnchecked: a packet access with no comparison with data_end
	// on the path proving it.
	PacketUnchecked Cause = "packet_unchecked"
	// PacketRangeShort: the last comparison with data_end, or arithmetic
	// after it, leaves fewer bytes proven than the access needs.
	PacketRangeShort Cause = "packet_range_short"
	// Unbounded: a value with no bound on one side, from the instruction
	// that made it so.
	Unbounded Cause = "unbounded_value"
	// OutOfRange: a bounded value outside what the instruction allows.
	OutOfRange Cause = "value_out_of_range"
	// PointerOffset: a pointer whose fixed offset puts the access outside
	// its object.
	PointerOffset Cause = "pointer_offset"
	// ContextField: a context access the program type does not allow at
	// that offset or size.
	ContextField Cause = "context_field"
	// PointerKind: a pointer of a kind (or trust) the instruction does
	// not take.
	PointerKind Cause = "pointer_kind"
	// UninitRegister: a register read before anything was written to it
	// on the path (or after a call clobbered it).
	UninitRegister Cause = "uninit_register"
	// UninitStack: stack bytes read that no instruction on the path wrote
	// (a branch may have skipped the write).
	UninitStack Cause = "uninit_stack"
	// StackObject: a stack slot that should hold an iterator or dynptr in
	// some state holds something else.
	StackObject Cause = "stack_object"
	// StackBounds: a stack access outside the frame.
	StackBounds Cause = "stack_bounds"
	// UnreleasedReference: the path ends holding a reference acquired on
	// it.
	UnreleasedReference Cause = "unreleased_reference"
	// LockHeld: the instruction is not allowed while the lock taken on
	// the path is held.
	LockHeld Cause = "lock_held"
	// InfiniteLoop: the path came back to an instruction with the same
	// registers as an earlier visit.
	InfiniteLoop Cause = "infinite_loop"

	// The causes without a slice (Explanation.NoSlice says why).

	// Static: the instruction is refused whatever the registers hold.
	Static Cause = "instruction"
	// BeforeWalk: a check of the whole program, before any path.
	BeforeWalk Cause = "program"
	// Complexity: a complexity or time limit, spent over all paths.
	Complexity Cause = "complexity"
	// Unsupported: a feature vercheck does not model.
	Unsupported Cause = "unsupported"
	// KernelFault: a program the kernel's own verifier fails on (a
	// verifier bug: a kernel warning, or an oops), so it never loads.
	KernelFault Cause = "kernel-fault"
)

// Step is one simulated instruction of the failing path: its index, the
// call frame it ran in and that frame's registers before it ran.
type Step struct {
	Insn  int32
	Frame int8
	Regs  [states.NumRegs]states.Reg
}

// Error is the rejection to explain.
type Error struct {
	Insn int
	Msg  string
	// State is the verifier state at the error in the log's form.
	State string
	// Complexity and Unsupported mark a complexity (or time) limit and a
	// feature vercheck does not model; KernelFault a path the kernel's own
	// verifier fails on.
	Complexity, Unsupported, KernelFault bool
}

// Input is what Build needs.
type Input struct {
	// Insns are the program's instructions, Lines its line info.
	Insns []insn.Insn
	Lines []loader.Line
	Err   Error
	// Path is the failing path, entry first, its last step the failing
	// instruction; PathLen its length, more than len(Path) when the
	// recording stopped. Empty for a rejection before the walk.
	Path    []Step
	PathLen int
	// Final is the state at the error (stack slots, references, locks).
	Final *states.State
	// Printer renders registers.
	Printer *states.Printer
	// ArgScalar says whether the call at an instruction takes a number
	// (not a pointer) in a register; known is false when it cannot say.
	ArgScalar func(insnIdx int, reg uint8) (scalar, known bool)
}

// Point is one instruction of the slice.
type Point struct {
	Insn   int    `json:"insn"`
	Text   string `json:"text"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Source string `json:"source,omitempty"`
	// Value is the traced value after the instruction, in the log's
	// form ("map_value_or_null(id=1,...)", "fp-8=????mmmm").
	Value string `json:"value,omitempty"`
	// Note says what the instruction did to the traced value.
	Note string `json:"note"`
}

// Branch is a conditional jump of the failing path and the edge taken.
type Branch struct {
	Insn int    `json:"insn"`
	Text string `json:"text"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Taken says the jump was taken (false: fell through).
	Taken bool `json:"taken"`
	// Relevant says the jump compared a value of the slice.
	Relevant bool `json:"relevant"`
}

// Explanation says why a program was rejected. See the package
// documentation.
type Explanation struct {
	// The failing instruction, its source line and the state there.
	Insn   int    `json:"insn"`
	Text   string `json:"text,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Source string `json:"source,omitempty"`
	State  string `json:"state,omitempty"`
	// Register is the faulting register or stack slot ("R0", "fp-8").
	Register string `json:"register,omitempty"`
	Cause    Cause  `json:"cause"`
	// Summary says the cause in a sentence naming the origin.
	Summary string `json:"summary"`
	// Origin is the instruction that gave the faulting value its kind or
	// range; nil when the value had it since the path's entry, or there
	// is no slice.
	Origin *Point `json:"origin,omitempty"`
	// Slice goes from the failing instruction back to the origin.
	Slice []Point `json:"slice,omitempty"`
	// Branches are the path's last conditional jumps (at most
	// maxBranches), oldest first; BranchCount counts all of them.
	Branches    []Branch `json:"branches,omitempty"`
	BranchCount int      `json:"branch_count"`
	PathLen     int      `json:"path_len"`
	Hint        string   `json:"hint"`
	// NoSlice says why there is no slice ("" when there is one).
	NoSlice string `json:"no_slice,omitempty"`
}

// maxBranches bounds the branch decisions listed: the relevant ones are
// always kept, the others only among the last ones.
const maxBranches = 24

// Build explains the rejection in. It never fails: what it cannot trace
// it says so in NoSlice.
func Build(in Input) *Explanation {
	a := newAnalysis(in)
	x := &Explanation{Insn: in.Err.Insn, State: in.Err.State, PathLen: in.PathLen}
	if in.Err.Insn >= 0 && in.Err.Insn < len(in.Insns) {
		x.Text = insnText(in.Insns, in.Err.Insn)
		x.File, x.Line, x.Source = a.line(in.Err.Insn)
	}
	switch {
	case in.Err.KernelFault:
		x.Cause, x.NoSlice = KernelFault, "the kernel's own verifier fails here (a verifier bug: a kernel warning, then EFAULT): the program will not load"
	case in.Err.Unsupported:
		x.Cause, x.NoSlice = Unsupported, "vercheck does not model this feature: the kernel's verdict is unknown"
	case in.Err.Complexity:
		x.Cause, x.NoSlice = Complexity, "a complexity limit is spent over all paths, not at one instruction: the profile's budget says where it went"
	case len(in.Path) == 0 || in.Final == nil:
		x.Cause, x.NoSlice = BeforeWalk, "rejected by a check of the whole program, before any path was walked"
	case in.PathLen > len(in.Path):
		x.Cause, x.NoSlice = Complexity, "the failing path is too long to trace"
	case int(in.Path[len(in.Path)-1].Insn) != in.Err.Insn:
		x.Cause, x.NoSlice = BeforeWalk, "rejected by a check made after the walk, not on one path"
	default:
		a.explain(x)
	}
	if x.Summary == "" {
		x.Summary = x.NoSlice
	}
	x.Hint = hint(x)
	return x
}

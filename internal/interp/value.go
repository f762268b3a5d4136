// Package interp is a concrete BPF interpreter for tests. It runs a program
// (kernel-numbered instructions from package insn) on one concrete input:
// context bytes, a packet, map contents and helper results chosen by the
// caller. Every register remembers what it holds (a number, or a pointer
// into one real object with an offset) and every memory access is checked
// against the object it points to: the 512-byte stack of its frame, the
// context, one map value, or the packet. Reading an uninitialised register
// or stack byte is reported too. A violation stops the run with a
// *Violation error.
//
// The interpreter exists to check vercheck's safety claims: a program the
// verifier accepts must never produce a violation, whatever the input.
//
// Address model. Each object has a fake base address far from the others
// (see the base constants), so a pointer turned into a number, or compared
// with another pointer, behaves as on a real machine: pointers into one
// object compare by offset, and NULL (a scalar 0) is below every object.
package interp

import (
	"fmt"

	"github.com/vercheck/vercheck/insn"
)

// Kind is what a register (or a spilled stack slot) holds.
type Kind uint8

// Value kinds. The pointer kinds mirror the verifier's register types.
const (
	// Uninit: never written (reading it is a violation).
	Uninit Kind = iota
	// Scalar: a plain 64-bit number in Value.Bits.
	Scalar
	// PtrCtx points into the context; Off is from its start.
	PtrCtx
	// PtrStack points into the stack of call frame Frame; Off is from
	// that frame's frame pointer (so valid offsets are negative).
	PtrStack
	// PtrMap is a map itself (ld_imm64 of a map); Map is its index.
	PtrMap
	// PtrMapValue points into element Elem of map Map; Off is from the
	// start of the value.
	PtrMapValue
	// PtrPacket points into the packet; Off is from data.
	PtrPacket
	// PtrPacketMeta points into the packet metadata; Off is from
	// data_meta.
	PtrPacketMeta
	// PtrPacketEnd is data_end plus Off.
	PtrPacketEnd
	// PtrFunc is the address of a subprogram (ld_imm64 of a function);
	// Off is its instruction index.
	PtrFunc
	numKinds
)

var kindNames = [numKinds]string{
	Uninit: "uninit", Scalar: "scalar", PtrCtx: "ctx", PtrStack: "fp",
	PtrMap: "map_ptr", PtrMapValue: "map_value", PtrPacket: "pkt",
	PtrPacketMeta: "pkt_meta", PtrPacketEnd: "pkt_end", PtrFunc: "func",
}

// String returns the kind's short name.
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// IsPointer reports whether k is one of the pointer kinds.
func (k Kind) IsPointer() bool { return k > Scalar && k < numKinds }

// Value is the content of a register: a scalar or a pointer into one object.
type Value struct {
	Kind Kind
	// Frame is the call depth of the stack a PtrStack points into.
	Frame int
	// Map and Elem identify the map (index in Input.Maps) and element a
	// PtrMap or PtrMapValue refers to.
	Map, Elem int
	// Off is the pointer's offset from its base (see Kind).
	Off int64
	// Bits is a scalar's value.
	Bits uint64
}

// ScalarOf returns the scalar value v.
func ScalarOf(v uint64) Value { return Value{Kind: Scalar, Bits: v} }

// String renders v for diagnostics.
func (v Value) String() string {
	switch v.Kind {
	case Uninit:
		return "uninit"
	case Scalar:
		return fmt.Sprintf("%#x", v.Bits)
	case PtrStack:
		return fmt.Sprintf("fp%d%+d", v.Frame, v.Off)
	case PtrMap:
		return fmt.Sprintf("map#%d", v.Map)
	case PtrMapValue:
		return fmt.Sprintf("map_value#%d[%d]%+d", v.Map, v.Elem, v.Off)
	default:
		return fmt.Sprintf("%s%+d", v.Kind, v.Off)
	}
}

// Fake base addresses of the objects. They are far apart so that no
// in-bounds offset of one object reaches another, and well above zero so
// that NULL compares below every pointer.
const (
	ctxBase = 0x1000_0000
	// stackBase is the bottom of frame 0's stack; each frame gets
	// stackFrameStride bytes above the previous one.
	stackBase        = 0x2000_0000
	stackFrameStride = 0x1_0000
	mapBase          = 0x3000_0000
	mapStride        = 0x100_0000
	mapElemStride    = 0x1_0000
	pktBase          = 0x4000_0000
	funcBase         = 0x5000_0000
	// funcInsnStride is the size of one instruction slot, for function
	// addresses.
	funcInsnStride = insn.Slot
)

// StackSize is the stack of one call frame in bytes.
const StackSize = 512

// Violation kinds: the safety properties the interpreter checks.
const (
	// OutOfBounds: a load or store outside the object the pointer points to.
	OutOfBounds = "out-of-bounds access"
	// UninitRead: an uninitialised register or stack byte was read.
	UninitRead = "uninitialised read"
	// BadPointer: memory was accessed through something that is not a
	// pointer to memory (a scalar, NULL, a map pointer, data_end), or a
	// read-only object was written.
	BadPointer = "bad pointer"
	// Mangled: a pointer was loaded in a form the kernel never allows,
	// such as a sign-extending load of a context field that holds a
	// pointer (the kernel: "invalid bpf_context access"). Here the load
	// would yield a pointer with its upper bits rewritten: any later use
	// is wild, so the load itself is the violation.
	Mangled = "mangled pointer"
	// BadCall: a call with wrong arguments, or a helper the interpreter
	// does not model.
	BadCall = "bad call"
	// StepLimit: the program ran longer than Input.MaxSteps.
	StepLimit = "step limit"
	// BadInsn: an instruction the interpreter cannot execute.
	BadInsn = "bad instruction"
)

// Violation is a failed safety check at one instruction.
type Violation struct {
	PC   int
	Kind string
	Msg  string
}

func (v *Violation) Error() string {
	return fmt.Sprintf("insn %d: %s: %s", v.PC, v.Kind, v.Msg)
}

// Safety reports whether the violation is a broken safety property (as
// opposed to a limit of the interpreter: an unmodelled helper or
// instruction, or the step limit).
func (v *Violation) Safety() bool {
	switch v.Kind {
	case OutOfBounds, UninitRead, BadPointer, Mangled:
		return true
	}
	return false
}

package why

import (
	"fmt"
	"strings"
)

// hint says what to change, keyed on the cause the slice found and
// naming its origin.
func hint(x *Explanation) string {
	at := "on this path"
	if x.Origin != nil {
		at = fmt.Sprintf("after insn %d", x.Origin.Insn)
	}
	switch x.Cause {
	case NullUnchecked:
		return fmt.Sprintf("compare %s with 0 (if (!p) return ...) %s and before insn %d; the check must be on every path to the use", x.Register, at, x.Insn)
	case PointerLost:
		return "the arithmetic made a number of a pointer (the kernel allows only adding or subtracting a scalar to most pointers): do it on the pointer with a scalar operand, or keep the original pointer for the access"
	case ReferenceReleased:
		return fmt.Sprintf("the call at insn %d released the object %s pointed to: use the pointer before releasing it, or look the object up again", originInsn(x), x.Register)
	case ScalarAsPointer:
		return fmt.Sprintf("%s holds a number, not a pointer, %s: was a pointer overwritten, or a value loaded where a pointer was meant?", x.Register, at)
	case PacketUnchecked:
		return "compare the end of the access with data_end first (if (data + off + size > data_end) return ...), on this path and after the last change of the pointer"
	case PacketRangeShort:
		return fmt.Sprintf("the comparison at insn %d proves fewer bytes than the access reads: compare data + off + size of this access with data_end, or check again after moving the pointer", originInsn(x))
	case Unbounded:
		return fmt.Sprintf("%s has no bound on one side %s: bound it with a comparison or a mask before the use (an unsigned type or a check of >= 0 for the minimum)", x.Register, at)
	case OutOfRange:
		return fmt.Sprintf("the range %s has %s is outside what this instruction accepts: tighten the check that sets it", x.Register, at)
	case PointerOffset:
		return fmt.Sprintf("the offset %s has %s puts the access outside its object: check it against the object's size", x.Register, at)
	case ContextField:
		return "this program type cannot access the context at that offset and size: use a field its context struct allows, with the field's own size, through the unmodified context pointer"
	case PointerKind:
		return fmt.Sprintf("%s is of the wrong kind for this instruction %s: pass the pointer the helper or kfunc expects (a checked, trusted one of that type)", x.Register, at)
	case UninitRegister:
		return fmt.Sprintf("%s is not set %s (calls clobber r1-r5): write it on every path before the use", x.Register, at)
	case UninitStack:
		if x.Origin != nil && isCallText(x.Origin.Note) {
			return fmt.Sprintf("the call at insn %d released or destroyed what %s held: use it before that call, or create it again", x.Origin.Insn, x.Register)
		}
		return fmt.Sprintf("write %s on every path before reading it%s", x.Register, skipped(x))
	case StackObject:
		return fmt.Sprintf("%s is not in the state this call needs: create the iterator or dynptr there exactly once, and destroy or release it exactly once, on every path", x.Register)
	case StackBounds:
		return "the access reaches outside the function's stack frame (fp-512 to fp-1): fix the offset"
	case UnreleasedReference:
		return fmt.Sprintf("release the reference acquired at insn %d on every path to this instruction; the branch decisions show the path that misses the release", originInsn(x))
	case InfiniteLoop:
		return fmt.Sprintf("the loop can come back to insn %d with nothing changed: make its exit condition depend on a value that changes every round", x.Insn)
	case LockHeld:
		return fmt.Sprintf("release the lock taken at insn %d before this instruction", originInsn(x))
	case Complexity:
		return "the search grew too large: bound loops more tightly or split the program; vercheck --profile shows where the budget went"
	case Unsupported:
		return "vercheck does not model this feature yet; the kernel may accept or reject the program"
	case KernelFault:
		return "the kernel will not load this program whatever it holds: change the code around this instruction (the message names the kernel's own check that fails)"
	case BeforeWalk:
		return "the program as a whole breaks a rule checked before any path: see the message"
	}
	return "the instruction is not allowed here whatever the registers hold: the program type, license or context (lock, RCU, sleepable) forbids it"
}

// originInsn is the origin's instruction, or -1.
func originInsn(x *Explanation) int {
	if x.Origin == nil {
		return -1
	}
	return x.Origin.Insn
}

// isCallText reports an origin note about a call.
func isCallText(note string) bool { return strings.HasPrefix(note, "the last call") }

// skipped names the branch that skipped a stack write, if found.
func skipped(x *Explanation) string {
	if x.Origin == nil || !strings.Contains(x.Origin.Note, "skipped") {
		return ""
	}
	return fmt.Sprintf(" (the branch at insn %d %s)", x.Origin.Insn, x.Origin.Note)
}

package verifier

import "strings"

// hints explain common rejections in a sentence a program's author can
// act on. Each entry matches a fragment of the kernel's message; the
// first match wins.
var hints = []struct{ fragment, hint string }{
	{"invalid mem access 'map_value_or_null'", "the value a map lookup returns may be NULL: compare it with 0 (if (!v) return ...) before reading or writing through it"},
	{"invalid mem access 'sock_or_null'", "a socket lookup may return NULL: check the pointer before using it"},
	{"_or_null'", "this pointer may be NULL: compare it with 0 before using it"},
	{"invalid mem access 'scalar'", "the register holds a number, not a pointer: a load or store needs a pointer (was a pointer overwritten, or never set on this path?)"},
	{"offset is outside of the packet", "compare the end of the access with data_end first (if (data + off + size > data_end) return ...); the check must cover every byte accessed"},
	{"!read_ok", "the register is read before anything was written to it on this path (helper calls clobber r1-r5)"},
	{"unbounded memory access", "the offset has no upper bound here: bound it with a comparison or a mask (idx &= N-1) before the access"},
	{"min value is negative", "the offset may be negative: use an unsigned type for the index, or check idx >= 0"},
	{"max value is outside of the allowed memory range", "the largest offset the index can take reaches past the end of the object: tighten the bound check"},
	{"min value is outside of the allowed memory range", "the access starts outside the object: check the offset against the object's size"},
	{"invalid access to map value", "the access reaches past the end of the map value: check offsets against the value size"},
	{"has to have BTF in order to use", "the map was created without BTF: its definition names no value type, or the kernel refused its key or value type (map_check_btf: an array or local storage keyed by anything but a 32-bit int, a cgroup storage by another key) and the loader created it again without (use a __u32 key, or the map type's own key type), or the kernel refused the object's whole BTF and libbpf loaded the object without it"},
	{"invalid bpf_context access", "this program type cannot access the context field at that offset and size (see the context struct of the program type)"},
	{"dereference of modified ctx ptr", "read context fields through the original context pointer (r1 at entry), not through a pointer moved by arithmetic"},
	{"At program exit the register R0", "the program's return value must be in the range its program type allows"},
	{"program of this type cannot use helper", "this helper is not available to this program type: use another helper or another program type"},
	{"cannot call GPL-restricted function", "this helper is GPL-only: declare a GPL-compatible license (char LICENSE[] SEC(\"license\") = \"GPL\";)"},
	{"infinite loop detected", "the loop can repeat the same state forever: make its exit condition depend on a value that changes every iteration"},
	{"BPF program is too large", "the verifier explored more than 1,000,000 instructions: bound loops more tightly, or split the program (tail calls, global functions)"},
	{"The sequence of", "too many branches are pending at once: simplify nested conditions or split the program"},
	{"Unreleased reference", "a reference acquired on this path (socket lookup, ringbuf reserve...) is not released before exit"},
	{"frame pointer is read only", "r10 is the frame pointer and cannot be written"},
	{"invalid read from stack", "the stack bytes read here were never written on this path"},
	{"div by zero", "division by the constant 0"},
	{"pointer arithmetic on", "arithmetic is not allowed on this kind of pointer"},
	{"unsupported:", "vercheck does not model this feature yet; the kernel may accept or reject the program"},
}

// hintFor returns the hint for a rejection message, or "".
func hintFor(msg string) string {
	for _, h := range hints {
		if strings.Contains(msg, h.fragment) {
			return h.hint
		}
	}
	return ""
}

// Hint explains the rejection in terms of what to change in the program,
// when vercheck knows a common cause ("" otherwise).
func (e *RejectError) Hint() string {
	if e.kind == ErrKernelFault {
		return kernelFaultHint
	}
	if e.hint != "" {
		return e.hint
	}
	return hintFor(e.Msg)
}

// kernelFaultHint is the hint of every ErrKernelFault refusal, whatever
// its message: the cause is the kernel's, the remedy the program's.
const kernelFaultHint = "the kernel's own verifier fails on this program (a verifier bug: a warning that taints the kernel, an EFAULT, or an oops): it will not load, and no loader should try; change the code around this instruction"

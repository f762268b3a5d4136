package verifier

import (
	"github.com/cilium/ebpf/btf"
)

// maxSmallIntSize is the largest integer, in bytes, the kernel counts as a
// scalar return type (btf_type_is_small_int: up to a u64).
const maxSmallIntSize = 8

// funcScalarReturns says, for each of the program's BTF func_info
// records, whether its function returns a scalar (an integer or an enum),
// for the return-type part of the kernel's check_btf_func: a subprogram
// using LD_ABS/IND or bpf_tail_call, both of which may end the program
// with their own return value, must.
func (e *env) funcScalarReturns() []bool {
	if e.lp == nil || len(e.lp.Funcs) == 0 {
		return nil
	}
	out := make([]bool, len(e.lp.Funcs))
	for i, f := range e.lp.Funcs {
		out[i] = true
		if f.BTF == nil {
			continue
		}
		if proto, ok := f.BTF.Type.(*btf.FuncProto); ok {
			out[i] = scalarBTFReturn(proto.Return)
		}
	}
	return out
}

// scalarBTFReturn reports whether a BTF return type is, past qualifiers
// and typedefs, an integer of at most eight bytes or an enum.
func scalarBTFReturn(t btf.Type) bool {
	switch u := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		return u.Size <= maxSmallIntSize
	case *btf.Enum:
		return true
	}
	return false
}

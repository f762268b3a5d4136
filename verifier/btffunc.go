package verifier

import (
	"fmt"

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

// funcBTFProblem returns why the kernel's BTF load refuses a FUNC, or "":
// btf_func_check wants every parameter of a function named, but for a
// variadic function's last, typeless one (clang leaves the parameters of
// a naked function unnamed). The whole BTF is refused (EINVAL, no
// verifier log): cilium/ebpf's load fails, and libbpf loads the object
// without BTF, every function then static, which vercheck does not
// model. Extern FUNCs (kfunc declarations, whose parameters clang leaves
// unnamed as often as not) are not looked at: libbpf names their
// parameters after its dummy ksym variable before the load
// (bpf_object__collect_externs), and cilium/ebpf sends none.
func funcBTFProblem(fn *btf.Func) string {
	if fn == nil || fn.Linkage == btf.ExternFunc {
		return ""
	}
	proto, ok := fn.Type.(*btf.FuncProto)
	if !ok {
		return ""
	}
	for i, p := range proto.Params {
		if _, void := p.Type.(*btf.Void); p.Name == "" && p.Type != nil && !void {
			return fmt.Sprintf("FUNC %s Invalid arg#%d (an unnamed parameter): the kernel refuses the BTF (cilium/ebpf's load fails; libbpf loads the object without BTF)", fn.Name, i+1)
		}
	}
	return ""
}

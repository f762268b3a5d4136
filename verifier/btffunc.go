package verifier

import (
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/insn"
)

// maxSmallIntSize is the largest integer, in bytes, the kernel counts as a
// scalar return type (btf_type_is_small_int: up to a u64).
const maxSmallIntSize = 8

// checkBTFFuncReturns is the return-type part of the kernel's check of BTF
// function info: a subprogram (not the main program) that uses LD_ABS/IND
// or bpf_tail_call must be declared to return an integer or an enum, since
// both may end the program with their own return value.
func (e *env) checkBTFFuncReturns() error {
	for sp := 1; sp < len(e.cfg.Subprogs); sp++ {
		f := e.funcInfo(sp)
		if f == nil || f.BTF == nil {
			continue
		}
		proto, ok := f.BTF.Type.(*btf.FuncProto)
		if !ok || scalarBTFReturn(proto.Return) {
			continue
		}
		if e.subprogHasLdAbs(sp) {
			return &RejectError{Msg: "LD_ABS is only allowed in functions that return 'int'."}
		}
		if e.subprogHasTailCall(sp) {
			return &RejectError{Msg: "tail_call is only allowed in functions that return 'int'."}
		}
	}
	return nil
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

// subprogHasLdAbs reports whether subprogram sp uses a legacy packet load.
func (e *env) subprogHasLdAbs(sp int) bool {
	s := e.cfg.Subprogs[sp]
	return insn.HasLdAbs(e.prog, s.Start, s.End)
}

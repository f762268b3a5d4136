package mutate

import (
	"fmt"
	"math/rand/v2"
)

// FuncBTFOperator names the mutation that loads the program with other
// BTF for one of its functions: a subprogram made global or static, a
// parameter of another type or with a decl tag (arg:ctx, arg:nonnull,
// ...), another return type. The kernel derives a global function's
// argument types from its BTF (btf_prepare_func_args) and verifies it
// apart from its callers; every other operator keeps the prototypes the
// seeds' authors wrote.
const FuncBTFOperator = "func BTF"

// FuncBTFShare is the probability that a mutant of a program with BTF
// function info gets another prototype for one of its functions.
const FuncBTFShare = 0.06

// FuncEdit is what FuncBTFOperator does to a function's BTF.
type FuncEdit uint8

// The function edits.
const (
	// FuncLinkage makes a static subprogram global, a global one static.
	FuncLinkage FuncEdit = iota + 1
	// FuncParamType gives parameter Param the type ParamTypes[Variant].
	FuncParamType
	// FuncParamTag adds the decl tag ParamTags[Variant] to parameter
	// Param.
	FuncParamTag
	// FuncReturn gives the function the return type ReturnTypes[Variant].
	FuncReturn
)

// The types and tags the function edits draw from, by Variant.
var (
	ParamTypes  = []string{"u64", "u32", "u64 *", "void *", "struct fz_s *", "const char *"}
	ParamTags   = []string{"arg:ctx", "arg:nonnull", "arg:nullable", "arg:trusted", "arg:untrusted", "arg:arena"}
	ReturnTypes = []string{"void", "u64", "void *"}
)

// FuncInfo is what the function-BTF operator knows of one function of the
// seed, in the order of the program's function info.
type FuncInfo struct {
	Params int
}

// FuncBTF is one function of the program loaded with another prototype
// (FuncBTFOperator).
type FuncBTF struct {
	// Func is the function's index in the program's function info.
	Func    int
	Edit    FuncEdit
	Param   int
	Variant int
}

// String describes the edit for a finding's change list.
func (d FuncBTF) String() string {
	switch d.Edit {
	case FuncLinkage:
		return fmt.Sprintf("function #%d linkage toggled", d.Func)
	case FuncParamType:
		return fmt.Sprintf("function #%d parameter %d of type %s", d.Func, d.Param, ParamTypes[d.Variant])
	case FuncParamTag:
		return fmt.Sprintf("function #%d parameter %d tagged %s", d.Func, d.Param, ParamTags[d.Variant])
	}
	return fmt.Sprintf("function #%d returning %s", d.Func, ReturnTypes[d.Variant])
}

// funcBTFVariants lists the edits the operator may give the functions
// funcs: the main program (index 0) keeps its linkage.
func funcBTFVariants(funcs []FuncInfo) []FuncBTF {
	var out []FuncBTF
	for f, fi := range funcs {
		if f > 0 {
			out = append(out, FuncBTF{Func: f, Edit: FuncLinkage})
		}
		for p := range fi.Params {
			for v := range ParamTypes {
				out = append(out, FuncBTF{Func: f, Edit: FuncParamType, Param: p, Variant: v})
			}
			for v := range ParamTags {
				out = append(out, FuncBTF{Func: f, Edit: FuncParamTag, Param: p, Variant: v})
			}
		}
		for v := range ReturnTypes {
			out = append(out, FuncBTF{Func: f, Edit: FuncReturn, Variant: v})
		}
	}
	return out
}

// withFuncBTF gives one function of funcs, drawn from r, an edit drawn
// from funcBTFVariants; ok is false when there is none.
func (m Mutant) withFuncBTF(r *rand.Rand, funcs []FuncInfo) (Mutant, bool) {
	vs := funcBTFVariants(funcs)
	if len(vs) == 0 {
		return m, false
	}
	d := vs[r.IntN(len(vs))]
	m.FuncBTFs = append(m.FuncBTFs[:len(m.FuncBTFs):len(m.FuncBTFs)], d)
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)], FuncBTFOperator+": "+d.String())
	return m.by(FuncBTFOperator), true
}

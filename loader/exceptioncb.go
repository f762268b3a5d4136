package loader

import (
	"debug/elf"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// A program's exception callback (bpf_experimental.h's __exception_cb(NAME):
// an "exception_callback:NAME" decl tag on the program's function) is never
// called by the program: the kernel runs it when bpf_throw unwinds. libbpf
// appends it, and the functions it calls that the program does not, after
// the program's own subprograms (bpf_object__relocate's exception_cb_idx
// step), so that the kernel finds it in the program's func_info and BTF.
// cilium/ebpf links only what the program calls, so the loader appends it
// as libbpf does. libbpf refuses a callback that is not a global function;
// such a program is left as it is (the verifier then says what the kernel
// says of a callback it cannot find).

// exceptionCallbackTag is the prefix of the decl tag naming a program's
// exception callback.
const exceptionCallbackTag = "exception_callback:"

// appendExceptionCallbacks appends to every program of spec the exception
// callback its function's decl tag names, with the functions the callback
// calls that the program lacks. data is the object as cilium/ebpf read it
// into spec; the callback's instructions come from a second reading with
// .text exposed, unless exposed says spec already has .text functions as
// programs. It returns one warning per program so linked.
func (info *elfInfo) appendExceptionCallbacks(spec *ebpf.CollectionSpec, data []byte, exposed bool) []string {
	wanted := map[string]string{} // program -> callback
	for name, ps := range spec.Programs {
		if cb := exceptionCallbackOf(ps); cb != "" && info.isGlobalFunc(cb) && !slices.Contains(functionNames(ps.Instructions), cb) {
			wanted[name] = cb
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	funcs := spec
	if !exposed {
		out, ok := info.exposeTextPrograms(data)
		if !ok {
			return nil
		}
		var err error
		if funcs, err = loadSpec(out); err != nil {
			return nil
		}
	}
	var warnings []string
	for _, name := range slices.Sorted(maps.Keys(wanted)) {
		cb := wanted[name]
		src, ok := funcs.Programs[cb]
		if !ok {
			continue
		}
		ps := spec.Programs[name]
		have := functionNames(ps.Instructions)
		insns := slices.Clone(ps.Instructions)
		for _, fn := range splitFunctions(src.Instructions) {
			if !slices.Contains(have, fn[0].Symbol()) {
				insns = append(insns, fn...)
			}
		}
		ps.Instructions = insns
		warnings = append(warnings, fmt.Sprintf("%s: exception callback %s appended, as libbpf does", name, cb))
	}
	return warnings
}

// exceptionCallbackOf returns the exception callback a program's function
// names in its decl tags, or "".
func exceptionCallbackOf(ps *ebpf.ProgramSpec) string {
	if ps == nil || len(ps.Instructions) == 0 {
		return ""
	}
	fn := btf.FuncMetadata(&ps.Instructions[0])
	if fn == nil {
		return ""
	}
	for _, tag := range fn.Tags {
		if cb, ok := strings.CutPrefix(tag, exceptionCallbackTag); ok {
			return cb
		}
	}
	return ""
}

// isGlobalFunc reports whether the object defines a global function name.
func (info *elfInfo) isGlobalFunc(name string) bool {
	for _, s := range info.symbols {
		if s.name == name && s.typ == elf.STT_FUNC && s.bind == elf.STB_GLOBAL {
			return true
		}
	}
	return false
}

// functionNames lists the functions linked into insns, by the symbol of
// each one's first instruction.
func functionNames(insns asm.Instructions) []string {
	var names []string
	for i := range insns {
		if sym := insns[i].Symbol(); sym != "" {
			names = append(names, sym)
		}
	}
	return names
}

// splitFunctions cuts a linked instruction stream at each function's first
// instruction.
func splitFunctions(insns asm.Instructions) []asm.Instructions {
	var fns []asm.Instructions
	for i := range insns {
		if insns[i].Symbol() != "" || len(fns) == 0 {
			fns = append(fns, nil)
		}
		fns[len(fns)-1] = append(fns[len(fns)-1], insns[i])
	}
	return fns
}

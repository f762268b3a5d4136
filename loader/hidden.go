package loader

import (
	"debug/elf"
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// Global functions of hidden visibility (__attribute__((visibility
// ("hidden"))), scx's and libbpf's __hidden): libbpf marks the BTF FUNC of
// every global .text function whose ELF symbol is STV_HIDDEN or
// STV_INTERNAL static before it hands the object's BTF to the kernel
// (bpf_object__init_prog's mark_btf_static, applied in
// bpf_object_load_prog), so the kernel verifies such a function with its
// caller's state, as a static subprogram, instead of once from its
// prototype as a global one. cilium/ebpf keeps the linkage the compiler
// wrote; the loader makes the change libbpf makes, in the spec both the
// verifier and the kernel comparisons load from.

// hiddenTextFuncs returns the names of the global or weak functions of
// .text (libbpf's subprograms) whose visibility is hidden or internal.
func (info *elfInfo) hiddenTextFuncs() map[string]bool {
	hidden := make(map[string]bool)
	for _, s := range info.symbols {
		sec := info.section(s.section)
		if sec == nil || sec.Name != textSection || !info.isProgramSymbol(s) || s.bind == elf.STB_LOCAL {
			continue
		}
		if s.visibility == elf.STV_HIDDEN || s.visibility == elf.STV_INTERNAL {
			hidden[s.name] = true
		}
	}
	return hidden
}

// markHiddenFuncsStatic gives the BTF functions of spec that are hidden
// global functions of .text static linkage, as libbpf does. The BTF
// function info of every program points to these same types, so each
// program, and the BTF the kernel receives for it, sees the change.
func (info *elfInfo) markHiddenFuncsStatic(spec *ebpf.CollectionSpec) []string {
	hidden := info.hiddenTextFuncs()
	if len(hidden) == 0 {
		return nil
	}
	var marked []string
	mark := func(fn *btf.Func) {
		if fn != nil && hidden[fn.Name] && fn.Linkage == btf.GlobalFunc {
			fn.Linkage = btf.StaticFunc
			marked = append(marked, fn.Name)
		}
	}
	if spec.Types != nil {
		for typ := range spec.Types.All() {
			if fn, ok := typ.(*btf.Func); ok {
				mark(fn)
			}
		}
	}
	for _, ps := range spec.Programs {
		for _, ins := range ps.Instructions {
			mark(btf.FuncMetadata(&ins))
		}
	}
	if len(marked) == 0 {
		return nil
	}
	slices.Sort(marked)
	return []string{fmt.Sprintf("BTF: hidden global functions verified as static, as libbpf marks them (%s)", strings.Join(slices.Compact(marked), ", "))}
}

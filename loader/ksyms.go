package loader

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// Typed ksyms: `extern const struct rq runqueues __ksym;` declares a kernel
// variable the program reads through its BTF type. libbpf resolves it
// against the kernel's BTF (bpf_object__resolve_ksym_var_btf_id) and turns
// each load of its address into an ld_imm64 with src_reg
// BPF_PSEUDO_BTF_ID and the variable's kernel BTF id, which the verifier's
// check_pseudo_btf_id types by that variable. cilium/ebpf v0.22 reads only
// typeless ksyms (`extern const void x __ksym`, a kallsyms address) and
// refuses an object declaring a typed one, so the loader records the typed
// ones, makes them typeless in the object's BTF for cilium/ebpf, and then
// links their loads as libbpf does.

// btfKsymsSection is the BTF-only datasec of extern __ksym declarations.
const btfKsymsSection = ".ksyms"

// pseudoBTFID is BPF_PSEUDO_BTF_ID, the src_reg of an ld_imm64 of a kernel
// BTF object.
const pseudoBTFID = asm.R3

// ksymDecl is what the object declares of one ksym variable: for a
// typed one, the chain of BTF kinds its type is made of (libbpf compares
// it with the kernel's); nil for a typeless one.
type ksymDecl struct {
	shape []int
}

// untypeKsyms returns data with every variable of the .ksyms datasec
// repointed at void, and records them in info, typed when their type was
// more than modifiers of void. data itself is never modified.
func (info *elfInfo) untypeKsyms(data []byte) []byte {
	b := info.parseRawBTF(data)
	if b == nil {
		return data
	}
	var out []byte
	for _, v := range b.datasecVars(btfKsymsSection) {
		if info.ksyms == nil {
			info.ksyms = map[string]ksymDecl{}
		}
		// `const void` is typeless too (libbpf skips the modifiers),
		// but cilium/ebpf wants the void itself.
		k := ksymDecl{}
		if b.skipMods(b.ref(v)) != 0 {
			k.shape = b.shape(b.ref(v))
		}
		info.ksyms[b.name(v)] = k
		if b.ref(v) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(data)
			b.data = out
		}
		b.order.PutUint32(out[b.refField(v):], 0)
	}
	if out == nil {
		return data
	}
	return out
}

// maxShapeDepth bounds the pointers and arrays a shape follows, as
// libbpf's bpf_core_types_are_compat bounds its recursion.
const maxShapeDepth = 32

// shape is the chain of kinds of type id once modifiers and typedefs are
// skipped, following pointers and arrays to what they hold: what
// bpf_core_types_are_compat compares (structs, unions and enums match by
// kind alone, enums of either width with each other).
func (b *rawBTF) shape(id uint32) []int {
	var kinds []int
	for range maxShapeDepth {
		id = b.skipMods(id)
		k := b.kind(id)
		if k == btfKindEnum64 {
			// 32- and 64-bit enums are compatible with each other.
			k = btfKindEnum
		}
		kinds = append(kinds, k)
		switch k {
		case btfKindPtr:
			id = b.ref(id)
		case btfKindArray:
			id = b.order.Uint32(b.data[b.typeStart[id]+btfTypeLen:])
		default:
			return kinds
		}
	}
	return kinds
}

// kernelShape is rawBTF.shape for a type of the kernel's BTF.
func kernelShape(t btf.Type) []int {
	var kinds []int
	for range maxShapeDepth {
		t = btf.UnderlyingType(t)
		switch tt := t.(type) {
		case *btf.Pointer:
			kinds = append(kinds, btfKindPtr)
			t = tt.Target
			continue
		case *btf.Array:
			kinds = append(kinds, btfKindArray)
			t = tt.Type
			continue
		}
		return append(kinds, kernelKind(t))
	}
	return kinds
}

// kernelKind is the BTF kind of a type that is no pointer, array or
// modifier.
func kernelKind(t btf.Type) int {
	switch t.(type) {
	case *btf.Int:
		return btfKindInt
	case *btf.Struct:
		return btfKindStruct
	case *btf.Union:
		return btfKindUnion
	case *btf.Enum:
		return btfKindEnum
	case *btf.Fwd:
		return btfKindFwd
	case *btf.FuncProto:
		return btfKindFuncProto
	case *btf.Float:
		return btfKindFloat
	}
	return 0
}

// typeString names t as C declares it, libbpf's "struct rq" rather than
// the whole type: pointers and arrays by what they hold, qualifiers and
// typedefs by name.
func typeString(t btf.Type) string {
	switch t := t.(type) {
	case *btf.Pointer:
		return typeString(t.Target) + " *"
	case *btf.Array:
		return fmt.Sprintf("%s[%d]", typeString(t.Type), t.Nelems)
	case *btf.Const:
		return "const " + typeString(t.Type)
	case *btf.Volatile:
		return "volatile " + typeString(t.Type)
	case *btf.Struct:
		return "struct " + t.Name
	case *btf.Union:
		return "union " + t.Name
	case *btf.Enum:
		return "enum " + t.Name
	case *btf.Void:
		return "void"
	case *btf.FuncProto:
		return "a function prototype"
	}
	if name := t.TypeName(); name != "" {
		return name
	}
	return fmt.Sprintf("an anonymous %T", t)
}

// errKsym is the error of a typed ksym libbpf cannot link.
var errKsym = errors.New("extern (var ksym)")

// rewriteTypedKsymLoad links a load of typed ksym name as libbpf does: the
// kernel variable's BTF id with BPF_PSEUDO_BTF_ID (vmlinux's BTF, so no
// module fd), or the constant 0 for a weak ksym the kernel does not have.
func rewriteTypedKsymLoad(ins *asm.Instruction, name string, k ksymDecl, target *targetBTF, weak bool) error {
	kernel, err := target.get()
	if err != nil {
		return err
	}
	var v *btf.Var
	if err := kernel.TypeByName(name, &v); err != nil {
		if weak && errors.Is(err, btf.ErrNotFound) {
			ins.Constant = 0
			return nil
		}
		if errors.Is(err, btf.ErrNotFound) {
			return missingTypedKsym(name)
		}
		return fmt.Errorf("%w '%s': not found in kernel BTF", errKsym, name)
	}
	if !slices.Equal(k.shape, kernelShape(v.Type)) {
		return fmt.Errorf("%w '%s': %w: the kernel has %s", errKsym, name, ErrExternIncompatible, typeString(v.Type))
	}
	id, err := kernel.TypeID(v)
	if err != nil {
		return err
	}
	ins.Src = pseudoBTFID
	ins.Constant = int64(id)
	return nil
}

// missingTypedKsym is the error for a strong typed ksym the kernel's BTF
// does not have. libbpf also looks in the modules' BTF; a variable found
// there is a module ksym, which vercheck does not link, and one found
// nowhere is ErrKernelSymbolMissing, which libbpf refuses with ESRCH.
func missingTypedKsym(name string) error {
	mods, err := ModuleBTFs()
	if err != nil {
		return fmt.Errorf("%w '%s': not found in kernel BTF; module BTFs: %w", errKsym, name, err)
	}
	for _, m := range mods {
		var v *btf.Var
		if m.Spec.TypeByName(name, &v) == nil {
			return fmt.Errorf("%w '%s': in module %s's BTF (module ksyms are not linked)", errKsym, name, m.Name)
		}
	}
	return fmt.Errorf("%w '%s': not in the kernel's BTF or a module's: %w", errKsym, name, ErrKernelSymbolMissing)
}

// typedKsym returns the typed ksym the object declares by name, or nil
// (info is nil for a spec read without the ELF file).
func (info *elfInfo) typedKsym(name string) *ksymDecl {
	if info == nil {
		return nil
	}
	k, ok := info.ksyms[name]
	if !ok || k.shape == nil {
		return nil
	}
	return &k
}

// isTypelessKsym reports whether the object declares name as a typeless
// ksym variable.
func (info *elfInfo) isTypelessKsym(name string) bool {
	if info == nil {
		return false
	}
	k, ok := info.ksyms[name]
	return ok && k.shape == nil
}

// resolveTypelessKsymLoad links a load of typeless ksym name as libbpf and
// cilium/ebpf do: the symbol's kallsyms address, or 0 for a weak symbol
// the kernel does not have. The address matters to the verifier only by
// being known and not zero, which a branch on it may test.
func resolveTypelessKsymLoad(ins *asm.Instruction, name string, weak bool) error {
	addr, ok, err := KernelSymbol(name)
	if err != nil {
		return err
	}
	switch {
	case !ok && weak:
		ins.Constant = 0
	case !ok:
		return fmt.Errorf("extern '%s' (strong): %w: not in kallsyms", name, ErrKernelSymbolMissing)
	case addr == 0:
		return fmt.Errorf("extern '%s': the kernel hides its kallsyms address (kptr_restrict)", name)
	default:
		ins.Constant = int64(addr)
	}
	return nil
}

// WithoutLinkMetadata returns ins with only the metadata that survives
// linking: its symbol, source line and BTF function info.
func WithoutLinkMetadata(ins asm.Instruction) asm.Instruction {
	out := asm.Instruction{OpCode: ins.OpCode, Dst: ins.Dst, Src: ins.Src, Offset: ins.Offset, Constant: ins.Constant}
	if sym := ins.Symbol(); sym != "" {
		out = out.WithSymbol(sym)
	}
	if src := ins.Source(); src != nil {
		out = out.WithSource(src)
	}
	if fn := btf.FuncMetadata(&ins); fn != nil {
		out = btf.WithFuncMetadata(out, fn)
	}
	if relo := btf.CORERelocationMetadata(&ins); relo != nil {
		out = btf.WithCORERelocationMetadata(out, relo)
	}
	return out
}

// linkTypedKsyms links the loads of typed ksyms in every program of spec
// as prepareProgram does (rewriteTypedKsymLoad), for callers that hand the
// spec itself to cilium/ebpf: the instructions lose cilium/ebpf's ksym
// metadata, which would make it resolve them again as typeless ksyms.
func (info *elfInfo) linkTypedKsyms(spec *ebpf.CollectionSpec, target *targetBTF) error {
	var errs []error
	for _, ps := range spec.Programs {
		iter := ps.Instructions.Iterate()
		for iter.Next() {
			ins := iter.Ins
			k := info.typedKsym(ins.Reference())
			if !ins.OpCode.IsDWordLoad() || k == nil {
				continue
			}
			if err := rewriteTypedKsymLoad(ins, ins.Reference(), *k, target, info.weak[ins.Reference()]); err != nil {
				errs = append(errs, fmt.Errorf("program %s: insn %d: %w", ps.Name, iter.Offset, err))
				continue
			}
			*ins = WithoutLinkMetadata(*ins)
		}
	}
	return errors.Join(errs...)
}

// unresolvedWeakKfunc reports whether ref, declared as local, is a weak
// kfunc that no kernel function resolves (kfuncID: none of its name, or
// one whose prototype is incompatible).
func (info *elfInfo) unresolvedWeakKfunc(ref string, local *btf.Func, target *targetBTF) bool {
	if info == nil || !info.weak[ref] {
		return false
	}
	_, _, err := kfuncID(ref, local, target)
	return err != nil
}

// linkKfuncsAsLibbpf links, as prepareProgram does (kfuncID), the kfunc
// calls and kfunc address loads that cilium/ebpf would link otherwise than
// libbpf, for callers that hand the spec itself to cilium/ebpf: an extern
// name with a flavour ("name___flavour"), which cilium/ebpf looks up as it
// is where libbpf drops the flavour, and a weak kfunc that does not
// resolve, which cilium/ebpf refuses when its prototype differs from the
// kernel's where libbpf leaves it unresolved (address 0, calls poisoned).
// The instructions lose cilium/ebpf's kfunc metadata so that it leaves
// them as linked. A module kfunc is left to cilium/ebpf, which builds the
// fd_array naming it.
func (info *elfInfo) linkKfuncsAsLibbpf(spec *ebpf.CollectionSpec, target *targetBTF) error {
	var errs []error
	for _, ps := range spec.Programs {
		iter := ps.Instructions.Iterate()
		for iter.Next() {
			ins := iter.Ins
			ref := ins.Reference()
			if ref == "" || !isKfunc(spec, ref) {
				continue
			}
			local := ksymFunc(spec, ref)
			if EssentialName(ref) == ref && !info.unresolvedWeakKfunc(ref, local, target) {
				continue
			}
			var err error
			switch {
			case ins.IsKfuncCall():
				err = rewriteKfuncCall(ins, ref, local, target, info)
			case ins.OpCode.IsDWordLoad():
				err = rewriteKfuncAddress(ins, ref, local, target, info, false)
			default:
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("program %s: insn %d: %w", ps.Name, iter.Offset, err))
				continue
			}
			if ins.Offset == 0 || !ins.IsKfuncCall() {
				*ins = WithoutLinkMetadata(*ins)
			}
		}
	}
	return errors.Join(errs...)
}

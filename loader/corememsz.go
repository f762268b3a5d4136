package loader

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// Loads and stores of a relocated field, as libbpf relocates them.
//
// A CO-RE field-offset relocation on a load or store moves the access to
// the kernel's offset of the field. When the kernel's field has another
// size than the object's own declaration (a local `__u16 mark` against
// `__sk_buff`'s `__u32`, an `int di` against `pt_regs`' `unsigned long`),
// libbpf also changes the access size, where that keeps the value: both
// fields unsigned integers (zero extension) or both pointers; in any other
// case it poisons the instruction, so the verifier refuses it if it is
// reachable ("accesses field incorrectly", bpf_core_calc_relo and
// bpf_core_patch_insn in relo_core.c). cilium/ebpf moves the offset and
// nothing else, so a program relocated its way reads two bytes of a
// four-byte field, or a signed value libbpf would never let it read:
// vercheck verified another program than libbpf loads (session 36's CO-RE
// differential: 210 of 536 context programs accepted where libbpf's
// relocation is rejected, 49 the other way round).
//
// The loader relocates with cilium/ebpf, then, for an object a loader of
// libbpf's kind loads, makes each such access what libbpf makes it. The
// field on both sides is found as libbpf finds it (bpf_core_parse_spec,
// bpf_core_spec_match): the local access path by the accessor string, the
// kernel's by member names, through anonymous members, with libbpf's field
// compatibility; an access whose kernel candidate libbpf would pick lands
// elsewhere than cilium/ebpf's is left as cilium/ebpf relocated it.

// coreReloDesc takes cilium/ebpf's description of a relocation apart
// ("CORERelocation(byte_off, struct foo[0:1:2], local_id=7)"): the kind,
// the accessor and the local type id are not exported otherwise.
var coreReloDesc = regexp.MustCompile(`^CORERelocation\(([a-z_0-9]+), .*\[([0-9:]+)\], local_id=([0-9]+)\)$`)

// coreAccessor is one step of a field access path (libbpf's struct
// bpf_core_accessor): a named member of a struct or union, or an index
// into an array (the first step indexes the root type itself).
type coreAccessor struct {
	parent btf.Type // the struct or union holding the member; nil for an index
	idx    int
	name   string
	elem   btf.Type // for an index, the element type, qualifiers and typedefs skipped
}

// coreFieldSpec is an access path and the bit offset it reaches.
type coreFieldSpec struct {
	accs      []coreAccessor
	bitOffset uint64
}

// LibbpfResizesCORE reports whether libbpf relocates a CO-RE load or
// store of insns otherwise than cilium/ebpf (see libbpfMemSize): a field
// the object declares with another size than the running kernel's (the
// first of its candidates libbpf matches). object is the object's BTF.
// A harness loading a program through cilium/ebpf for a libbpf loader's
// verdict loads such a program as the loader relocates it instead.
func LibbpfResizesCORE(insns asm.Instructions, object *btf.Spec) bool {
	if object == nil {
		return false
	}
	kernel, err := newTargetBTF("").get()
	if err != nil {
		return false
	}
	for i := range insns {
		relo := btf.CORERelocationMetadata(&insns[i])
		if relo == nil {
			continue
		}
		if _, _, _, _, ok := memSizes(&insns[i], relo, object, kernel, false); ok {
			return true
		}
	}
	return false
}

// libbpfMemSize makes the load or store ins, whose field offset the
// relocation relo rewrote, what libbpf makes it: the kernel field's size
// where the two fields are unsigned integers or pointers of different
// sizes, a poisoned instruction where they are of different sizes
// otherwise. local is the object's BTF, target the kernel's. An error is
// an instruction libbpf refuses the object for.
func libbpfMemSize(ins *asm.Instruction, relo *btf.CORERelocation, local, target *btf.Spec) error {
	lsz, tsz, ltyp, ttyp, ok := memSizes(ins, relo, local, target, true)
	if !ok {
		return nil
	}
	return adjustMemSize(ins, relo, lsz, tsz, ltyp, ttyp)
}

// memSizes finds the object's and the kernel's field of a byte-offset
// relocation on the load or store ins, and reports their sizes and types
// when they differ. With relocated, ins holds cilium/ebpf's relocation,
// and a field libbpf finds at another offset than ins's is left alone.
func memSizes(ins *asm.Instruction, relo *btf.CORERelocation, local, target *btf.Spec, relocated bool) (lsz, tsz int, ltyp, ttyp btf.Type, ok bool) {
	switch ins.OpCode.Class() {
	case asm.LdXClass, asm.StClass, asm.StXClass:
	default:
		return 0, 0, nil, nil, false
	}
	m := coreReloDesc.FindStringSubmatch(relo.String())
	if m == nil || m[1] != "byte_off" {
		return 0, 0, nil, nil, false
	}
	var path []int
	for _, s := range strings.Split(m[2], ":") {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, 0, nil, nil, false
		}
		path = append(path, n)
	}
	id, err := strconv.ParseUint(m[3], 10, 32)
	if err != nil {
		return 0, 0, nil, nil, false
	}
	root, err := local.TypeByID(btf.TypeID(id))
	if err != nil {
		return 0, 0, nil, nil, false
	}
	root = btf.UnderlyingType(root)
	lspec, ok := parseFieldSpec(root, path)
	if !ok {
		return 0, 0, nil, nil, false
	}
	lsz, ltyp, ok = fieldSize(lspec)
	if !ok {
		return 0, 0, nil, nil, false
	}
	cands, err := target.AnyTypesByName(essentialName(root.TypeName()))
	if err != nil {
		return 0, 0, nil, nil, false
	}
	for _, cand := range cands {
		if !kindsCoreCompatible(root, cand) {
			continue
		}
		tspec, ok := matchFieldSpec(lspec, btf.UnderlyingType(cand))
		if !ok {
			continue
		}
		// libbpf relocates by its first matching candidate (the others
		// must agree with it); cilium/ebpf by the one that fails fewest
		// of the program's relocations: where they differ, the access is
		// left as cilium/ebpf relocated it.
		if relocated && int64(tspec.bitOffset/8) != int64(ins.Offset) {
			return 0, 0, nil, nil, false
		}
		tsz, ttyp, ok = fieldSize(tspec)
		if !ok || tsz == lsz {
			return 0, 0, nil, nil, false
		}
		return lsz, tsz, ltyp, ttyp, true
	}
	return 0, 0, nil, nil, false
}

// adjustMemSize is bpf_core_calc_relo's memory size rule and
// bpf_core_patch_insn's LDX/ST/STX case for fields of lsz and tsz bytes.
func adjustMemSize(ins *asm.Instruction, relo *btf.CORERelocation, lsz, tsz int, ltyp, ttyp btf.Type) error {
	_, lptr := ltyp.(*btf.Pointer)
	_, tptr := ttyp.(*btf.Pointer)
	li, lint := ltyp.(*btf.Int)
	ti, tint := ttyp.(*btf.Int)
	safe := lptr && tptr || lint && tint && li.Encoding != btf.Signed && ti.Encoding != btf.Signed
	if !safe {
		src := ins.Source()
		*ins = asm.BuiltinFunc(btf.COREBadRelocationSentinel).Call()
		comment := "instruction poisoned by CO-RE: accesses field incorrectly (libbpf: fields of different sizes that are not both unsigned integers or pointers)"
		if src != nil {
			comment += ": " + src.String()
		}
		*ins = ins.WithSource(asm.Comment(comment))
		return nil
	}
	if got := ins.OpCode.Size().Sizeof(); got != lsz {
		return fmt.Errorf("%s: %w: the instruction accesses %d bytes of a %d-byte field (libbpf: unexpected mem size)", relo, ErrMalformed, got, lsz)
	}
	var size asm.Size
	switch tsz {
	case 1:
		size = asm.Byte
	case 2:
		size = asm.Half
	case 4:
		size = asm.Word
	case 8:
		size = asm.DWord
	default:
		return fmt.Errorf("%s: %w: the kernel's field has %d bytes (libbpf: invalid new mem size)", relo, ErrMalformed, tsz)
	}
	ins.OpCode = ins.OpCode.SetSize(size)
	return nil
}

// essentialName is a name without its flavor suffix ("foo___v2" is
// "foo"): bpf_core_essential_name_len, which cuts at the last "___"
// between two other characters than '_'.
func essentialName(name string) string {
	for i := len(name) - 5; i >= 0; i-- {
		if name[i] != '_' && name[i+1] == '_' && name[i+2] == '_' && name[i+3] == '_' && name[i+4] != '_' {
			return name[:i+1]
		}
	}
	return name
}

// parseFieldSpec is bpf_core_parse_spec for a field relocation: the path
// of accessors that path (the accessor string's indices) takes from root,
// anonymous members left out of it, and the bit offset it reaches.
func parseFieldSpec(root btf.Type, path []int) (coreFieldSpec, bool) {
	if len(path) == 0 {
		return coreFieldSpec{}, false
	}
	sz, err := btf.Sizeof(root)
	if err != nil {
		return coreFieldSpec{}, false
	}
	spec := coreFieldSpec{
		accs:      []coreAccessor{{idx: path[0], elem: root}},
		bitOffset: uint64(path[0]) * uint64(sz) * 8,
	}
	t := root
	for _, idx := range path[1:] {
		switch tt := t.(type) {
		case *btf.Struct, *btf.Union:
			members := compositeMembers(tt)
			if idx >= len(members) {
				return coreFieldSpec{}, false
			}
			mem := members[idx]
			spec.bitOffset += uint64(mem.Offset)
			if mem.Name != "" {
				spec.accs = append(spec.accs, coreAccessor{parent: tt, idx: idx, name: mem.Name})
			}
			t = btf.UnderlyingType(mem.Type)
		case *btf.Array:
			elem := btf.UnderlyingType(tt.Type)
			last := spec.accs[len(spec.accs)-1]
			if !isFlexArray(last, tt) && idx >= int(tt.Nelems) {
				return coreFieldSpec{}, false
			}
			esz, err := btf.Sizeof(elem)
			if err != nil {
				return coreFieldSpec{}, false
			}
			spec.accs = append(spec.accs, coreAccessor{idx: idx, elem: elem})
			spec.bitOffset += uint64(idx) * uint64(esz) * 8
			t = elem
		default:
			return coreFieldSpec{}, false
		}
	}
	return spec, true
}

// matchFieldSpec is bpf_core_spec_match for a field relocation: local's
// path followed in the candidate cand, members found by name.
func matchFieldSpec(local coreFieldSpec, cand btf.Type) (coreFieldSpec, bool) {
	var spec coreFieldSpec
	next := cand
	for i, acc := range local.accs {
		t := btf.UnderlyingType(next)
		if acc.name != "" {
			found, nt := matchMember(acc, t, &spec)
			if !found {
				return coreFieldSpec{}, false
			}
			next = nt
			continue
		}
		if i > 0 {
			arr, ok := t.(*btf.Array)
			if !ok {
				return coreFieldSpec{}, false
			}
			if !isFlexArray(spec.accs[len(spec.accs)-1], arr) && acc.idx >= int(arr.Nelems) {
				return coreFieldSpec{}, false
			}
			t = btf.UnderlyingType(arr.Type)
		}
		sz, err := btf.Sizeof(t)
		if err != nil {
			return coreFieldSpec{}, false
		}
		spec.accs = append(spec.accs, coreAccessor{idx: acc.idx, elem: t})
		spec.bitOffset += uint64(acc.idx) * uint64(sz) * 8
		next = t
	}
	return spec, true
}

// matchMember is bpf_core_match_member: the member of the composite t
// named as acc's, looked for through t's anonymous members too, and
// compatible with it (bpf_core_fields_are_compat). Like libbpf it returns
// at the first member of that name, compatible or not.
func matchMember(acc coreAccessor, t btf.Type, spec *coreFieldSpec) (bool, btf.Type) {
	t = btf.UnderlyingType(t)
	if _, ok := t.(*btf.Struct); !ok {
		if _, ok := t.(*btf.Union); !ok {
			return false, nil
		}
	}
	local := compositeMembers(acc.parent)[acc.idx]
	for i, mem := range compositeMembers(t) {
		spec.bitOffset += uint64(mem.Offset)
		switch {
		case mem.Name == "":
			if found, next := matchMember(acc, mem.Type, spec); found {
				return true, next
			}
		case mem.Name == acc.name:
			if !fieldsCoreCompatible(local.Type, mem.Type, 0) {
				// libbpf pops the accessor and leaves the offset.
				return false, nil
			}
			spec.accs = append(spec.accs, coreAccessor{parent: t, idx: i, name: mem.Name})
			return true, mem.Type
		}
		spec.bitOffset -= uint64(mem.Offset)
	}
	return false, nil
}

// fieldSize is the size and type bpf_core_calc_field_relo remembers for a
// byte-offset relocation's load or store: an index's element; a member's
// type, its size that of its innermost array element. Bitfields have none.
func fieldSize(spec coreFieldSpec) (int, btf.Type, bool) {
	last := spec.accs[len(spec.accs)-1]
	if last.name == "" {
		sz, err := btf.Sizeof(last.elem)
		return sz, last.elem, err == nil
	}
	mem := compositeMembers(last.parent)[last.idx]
	if mem.BitfieldSize > 0 {
		return 0, nil, false
	}
	typ := btf.UnderlyingType(mem.Type)
	elem := typ
	for {
		arr, ok := elem.(*btf.Array)
		if !ok {
			break
		}
		elem = btf.UnderlyingType(arr.Type)
	}
	sz, err := btf.Sizeof(elem)
	return sz, typ, err == nil
}

// isFlexArray is is_flex_arr: an array of no elements that is the last
// member of the struct the accessor before it named.
func isFlexArray(prev coreAccessor, arr *btf.Array) bool {
	if prev.name == "" || arr.Nelems > 0 {
		return false
	}
	return prev.idx == len(compositeMembers(prev.parent))-1
}

// compositeMembers are the members of a struct or union.
func compositeMembers(t btf.Type) []btf.Member {
	switch tt := t.(type) {
	case *btf.Struct:
		return tt.Members
	case *btf.Union:
		return tt.Members
	}
	return nil
}

// kindsCoreCompatible is btf_kind_core_compat: the same kind (cilium/ebpf
// has one Go type per BTF kind, and one for enum and enum64 alike, which
// libbpf takes as compatible), forward declarations of the same flavor.
func kindsCoreCompatible(a, b btf.Type) bool {
	if fa, ok := a.(*btf.Fwd); ok {
		fb, ok := b.(*btf.Fwd)
		return ok && fa.Kind == fb.Kind
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b)
}

// maxCompatDepth bounds fieldsCoreCompatible's walk through array
// element types, as libbpf's MAX_TYPES_ARE_COMPAT_DEPTH.
const maxCompatDepth = 32

// fieldsCoreCompatible is bpf_core_fields_are_compat: any two structs or
// unions, pointers and floats of the same kind, enums and forward
// declarations of the same essential name (or an anonymous one), integers,
// and arrays of compatible elements.
func fieldsCoreCompatible(local, target btf.Type, depth int) bool {
	if depth > maxCompatDepth {
		return false
	}
	local, target = btf.UnderlyingType(local), btf.UnderlyingType(target)
	if isComposite(local) && isComposite(target) {
		return true
	}
	if !kindsCoreCompatible(local, target) {
		return false
	}
	switch l := local.(type) {
	case *btf.Pointer, *btf.Float, *btf.Int:
		return true
	case *btf.Enum, *btf.Fwd:
		ln, tn := essentialName(l.TypeName()), essentialName(target.TypeName())
		return ln == "" || tn == "" || ln == tn
	case *btf.Array:
		return fieldsCoreCompatible(l.Type, target.(*btf.Array).Type, depth+1)
	}
	return false
}

// isComposite reports a struct or union.
func isComposite(t btf.Type) bool {
	switch t.(type) {
	case *btf.Struct, *btf.Union:
		return true
	}
	return false
}

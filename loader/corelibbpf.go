package loader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// CO-RE relocations as libbpf relocates them.
//
// libbpf (relo_core.c: bpf_core_calc_relo_insn, bpf_core_patch_insn) and
// cilium/ebpf (btf/core.go) agree on the common cases and differ at the
// edges, and each difference is another program handed to the kernel:
//
//   - a load or store of a field whose kernel size differs from the
//     object's: libbpf resizes it when both are unsigned integers or
//     pointers and poisons it otherwise; cilium/ebpf keeps the size;
//   - candidates: libbpf takes kernel types of the local type's kind only
//     (a union is no candidate for a struct, a typedef none for a
//     struct); cilium/ebpf takes any type of that name;
//   - field compatibility: libbpf compares the element types of arrays
//     (an `int fd_array[64]` is not the kernel's `struct file *`);
//   - several candidates: libbpf relocates by every matching candidate,
//     refuses the object when they disagree, and narrows the local type's
//     candidates to those that matched for its later relocations;
//     cilium/ebpf picks the candidate that fails fewest of a program's
//     relocations;
//   - bpf_core_type_matches: behind a pointer libbpf compares a struct's
//     name and kind only; cilium/ebpf compares its members too.
//
// For an object a loader of libbpf's kind loads, the loader relocates every
// CO-RE relocation but bpf_core_type_id_local (which vercheck numbers its
// own way, see Program.LocalTypes) with the code below, a reading of libbpf
// 1.8's. Candidates are looked for in vmlinux, then, when it has none, in
// the modules' BTF, as libbpf does. The candidate narrowing follows the
// order in which the loader relocates (programs in section order, a
// program's own instructions before its subprograms'), where libbpf goes
// section by section: a local type whose candidates a relocation narrowed
// while relocations in another function also use it makes the program
// unsupported (errCOREOrder), as its relocation could depend on that order.
//
// Which loader will load an object is not known, and a loader trusts an
// accept: a program that cilium/ebpf's relocation turns into other
// instructions keeps those too (Program.CiliumRelocated, made by
// ciliumRelocatesOtherwise), and the verifier accepts it only when both
// programs are accepted.

// coreKind is a relocation kind, as cilium/ebpf names it in its
// description and libbpf in core_relo_kind_str.
type coreKind string

// The relocation kinds.
const (
	coreFieldByteOffset coreKind = "byte_off"
	coreFieldByteSize   coreKind = "byte_sz"
	coreFieldExists     coreKind = "field_exists"
	coreFieldSigned     coreKind = "signed"
	coreFieldLShiftU64  coreKind = "lshift_u64"
	coreFieldRShiftU64  coreKind = "rshift_u64"
	coreTypeIDLocal     coreKind = "local_type_id"
	coreTypeIDTarget    coreKind = "target_type_id"
	coreTypeExists      coreKind = "type_exists"
	coreTypeMatches     coreKind = "type_matches"
	coreTypeSize        coreKind = "type_size"
	coreEnumvalExists   coreKind = "enumval_exists"
	coreEnumvalValue    coreKind = "enumval_value"
)

func (k coreKind) fieldBased() bool {
	switch k {
	case coreFieldByteOffset, coreFieldByteSize, coreFieldExists, coreFieldSigned, coreFieldLShiftU64, coreFieldRShiftU64:
		return true
	}
	return false
}

func (k coreKind) typeBased() bool {
	switch k {
	case coreTypeIDLocal, coreTypeIDTarget, coreTypeExists, coreTypeMatches, coreTypeSize:
		return true
	}
	return false
}

func (k coreKind) enumBased() bool {
	return k == coreEnumvalExists || k == coreEnumvalValue
}

// errCOREOrder marks a program whose CO-RE relocation could depend on the
// order libbpf relocates an object's sections in (see the comment above).
var errCOREOrder = errors.New("CO-RE relocation among several kernel types of one name, narrowed in libbpf's relocation order: not modelled")

// coreReloDesc takes cilium/ebpf's description of a relocation apart
// ("CORERelocation(byte_off, struct foo[0:1:2], local_id=7)"): the kind,
// the accessor and the local type id are not exported otherwise.
var coreReloDesc = regexp.MustCompile(`^CORERelocation\(([a-z_0-9]+), .*\[([0-9:]+)\], local_id=([0-9]+)\)$`)

// coreRelo is one CO-RE relocation record: bpf_core_relo.
type coreRelo struct {
	kind    coreKind
	access  []int
	localID btf.TypeID
}

// coreRelos holds the records of an object's relocations, read once:
// cilium/ebpf's description formats the local type, which costs more than
// the rest of a relocation.
type coreRelos map[*btf.CORERelocation]coreRelo

// get is relo's record; a nil coreRelos reads it afresh.
func (rs coreRelos) get(relo *btf.CORERelocation) (coreRelo, bool) {
	if r, ok := rs[relo]; ok {
		return r, true
	}
	r, ok := parseCORERelo(relo)
	if ok && rs != nil {
		rs[relo] = r
	}
	return r, ok
}

// parseCORERelo reads relo's record from cilium/ebpf's description.
func parseCORERelo(relo *btf.CORERelocation) (coreRelo, bool) {
	m := coreReloDesc.FindStringSubmatch(relo.String())
	if m == nil {
		return coreRelo{}, false
	}
	r := coreRelo{kind: coreKind(m[1])}
	for _, s := range strings.Split(m[2], ":") {
		n, err := strconv.Atoi(s)
		if err != nil {
			return coreRelo{}, false
		}
		r.access = append(r.access, n)
	}
	id, err := strconv.ParseUint(m[3], 10, 32)
	if err != nil {
		return coreRelo{}, false
	}
	r.localID = btf.TypeID(id)
	return r, true
}

// coreCand is a candidate kernel type and the BTF it is in.
type coreCand struct {
	typ  btf.Type
	spec *btf.Spec
}

// coreCands is a local type's candidate list (bpf_core_cand_list) and what
// the order check needs: the functions whose relocations used it, and
// whether one of them narrowed it. Within a function libbpf relocates in
// the instructions' order, as the loader does.
type coreCands struct {
	cands    []coreCand
	funcs    map[string]bool
	narrowed bool
}

// libbpfCORE relocates the programs of one object as libbpf does.
type libbpfCORE struct {
	local   *btf.Spec
	kernel  *btf.Spec
	modules []*btf.Spec
	byType  map[btf.TypeID]*coreCands
	// done holds each relocation's result, by record: a subprogram
	// linked into several programs is relocated once, as libbpf does
	// before it links.
	done map[*btf.CORERelocation]coreResult
	// relos are the object's relocation records.
	relos coreRelos
}

// newLibbpfCORE relocates against the kernel's BTF the programs of an
// object whose BTF is local.
func newLibbpfCORE(local *btf.Spec) *libbpfCORE {
	return &libbpfCORE{local: local, byType: map[btf.TypeID]*coreCands{}, done: map[*btf.CORERelocation]coreResult{}, relos: coreRelos{}}
}

// markOrderSensitive sets errCOREOrder on each program with a relocation
// whose result could depend on the order of the object's relocations.
func (c *libbpfCORE) markOrderSensitive(progs []*Program) {
	if c == nil {
		return
	}
	for _, p := range progs {
		for i := range p.Instructions {
			if relo := btf.CORERelocationMetadata(&p.Instructions[i]); relo != nil && c.orderSensitive(relo) {
				p.Err = errors.Join(p.Err, fmt.Errorf("program %s: %s: %w", p.Name, relo, errCOREOrder))
				break
			}
		}
	}
}

// coreResult is bpf_core_relo_res, with the error that refuses the object.
type coreResult struct {
	poison, validate, failMemSize bool
	origVal, newVal               uint64
	origSize, newSize             int
	origType, newType             btf.Type
	err                           error
}

// relocate patches ins, the instruction of relocation relo in function
// fn, as libbpf does against kernel (and the modules' BTF). bigEndian is
// the object's byte order (bitfield shifts).
func (c *libbpfCORE) relocate(ins *asm.Instruction, relo *btf.CORERelocation, fn string, kernel *btf.Spec, bigEndian bool) error {
	if c.kernel == nil {
		c.kernel = kernel
		if mods, err := ModuleBTFs(); err == nil {
			for _, m := range mods {
				c.modules = append(c.modules, m.Spec)
			}
		}
	}
	res, seen := c.done[relo]
	if !seen {
		r, ok := c.relos.get(relo)
		if !ok {
			return fmt.Errorf("%s: the relocation cannot be read", relo)
		}
		res = c.calc(r, fn, bigEndian)
		c.done[relo] = res
	}
	if res.err != nil {
		return fmt.Errorf("%s: %w", relo, res.err)
	}
	if err := patchCOREInsn(ins, res); err != nil {
		return fmt.Errorf("%s: %w", relo, err)
	}
	return nil
}

// orderSensitive reports whether a relocation of relo's local type could
// depend on the order of the object's relocations.
func (c *libbpfCORE) orderSensitive(relo *btf.CORERelocation) bool {
	r, ok := c.relos[relo]
	if !ok {
		return false
	}
	cl := c.byType[r.localID]
	return cl != nil && cl.narrowed && len(cl.funcs) > 1
}

// calc is bpf_core_calc_relo_insn, for a relocation in function fn.
func (c *libbpfCORE) calc(r coreRelo, fn string, bigEndian bool) coreResult {
	localType, err := c.local.TypeByID(r.localID)
	if err != nil {
		return coreResult{err: fmt.Errorf("%w: local type: %w", ErrMalformed, err)}
	}
	lspec, err := parseCORESpec(r, localType)
	if err != nil {
		return coreResult{err: err}
	}
	if localType.TypeName() == "" {
		return coreResult{err: fmt.Errorf("%w: %s relocation of an anonymous type (libbpf: not supported)", ErrMalformed, r.kind)}
	}
	cl := c.candidates(r.localID, localType)
	cl.funcs[fn] = true
	var (
		targ    coreResult
		targBit uint64
		matched []coreCand
	)
	for _, cand := range cl.cands {
		tspec, ok, err := matchCORESpec(r, lspec, cand)
		if err != nil {
			return coreResult{err: err}
		}
		if !ok {
			continue
		}
		res := calcCORE(r, lspec, &tspec, bigEndian)
		if res.err != nil {
			return res
		}
		switch {
		case len(matched) == 0:
			targ, targBit = res, tspec.bitOffset
		case tspec.bitOffset != targBit:
			return coreResult{err: fmt.Errorf("%w: field offset ambiguity: %d != %d (libbpf refuses the object)", ErrMalformed, tspec.bitOffset, targBit)}
		case res.poison != targ.poison || res.newVal != targ.newVal:
			return coreResult{err: fmt.Errorf("%w: relocation decision ambiguity (libbpf refuses the object)", ErrMalformed)}
		}
		matched = append(matched, cand)
	}
	if len(matched) > 0 {
		if len(matched) < len(cl.cands) && len(cl.cands) > 1 {
			cl.narrowed = true
		}
		cl.cands = matched
		return targ
	}
	return calcCORE(r, lspec, nil, bigEndian)
}

// candidates is bpf_core_find_cands, cached per local type: the kernel's
// types of the local type's essential name and kind, those of the modules
// when vmlinux has none.
func (c *libbpfCORE) candidates(id btf.TypeID, local btf.Type) *coreCands {
	if cl, ok := c.byType[id]; ok {
		return cl
	}
	cl := &coreCands{funcs: map[string]bool{}}
	name := EssentialName(local.TypeName())
	for _, spec := range append([]*btf.Spec{c.kernel}, c.modules...) {
		types, err := spec.AnyTypesByName(name)
		if err != nil {
			continue
		}
		for _, t := range types {
			if kindsCoreCompatible(local, t) {
				cl.cands = append(cl.cands, coreCand{typ: t, spec: spec})
			}
		}
		if len(cl.cands) > 0 {
			break
		}
	}
	c.byType[id] = cl
	return cl
}

// coreSpec is bpf_core_spec: the root type and, for a field relocation,
// the access path and the bit offset it reaches; for an enumerator
// relocation, the enum and the enumerator's index and name.
type coreSpec struct {
	root      btf.Type
	rootID    btf.TypeID
	accs      []coreAccessor
	bitOffset uint64
}

// coreAccessor is one step of a field access path (libbpf's struct
// bpf_core_accessor): a named member of a struct or union, or an index
// into an array (the first step indexes the root type itself); an
// enumerator relocation's one step names the enumerator.
type coreAccessor struct {
	parent btf.Type // the struct, union or enum holding the member; nil for an index
	idx    int
	name   string
	elem   btf.Type // for an index, the element type, qualifiers and typedefs skipped
}

// parseCORESpec is bpf_core_parse_spec.
func parseCORESpec(r coreRelo, local btf.Type) (coreSpec, error) {
	bad := func(why string) (coreSpec, error) {
		return coreSpec{}, fmt.Errorf("%w: %s relocation: %s", ErrMalformed, r.kind, why)
	}
	spec := coreSpec{root: local, rootID: r.localID}
	if r.kind.typeBased() {
		if len(r.access) != 1 || r.access[0] != 0 {
			return bad("a type relocation's accessor is not 0")
		}
		return spec, nil
	}
	if len(r.access) == 0 {
		return bad("no accessor")
	}
	root := btf.UnderlyingType(local)
	if r.kind.enumBased() {
		e, ok := root.(*btf.Enum)
		if !ok || len(r.access) > 1 || r.access[0] >= len(e.Values) {
			return bad("not an enumerator")
		}
		spec.accs = []coreAccessor{{parent: e, idx: r.access[0], name: e.Values[r.access[0]].Name}}
		return spec, nil
	}
	if !r.kind.fieldBased() {
		return bad("unknown kind")
	}
	sz, err := btf.Sizeof(root)
	if err != nil {
		return bad(err.Error())
	}
	spec.accs = []coreAccessor{{idx: r.access[0], elem: root}}
	spec.bitOffset = uint64(r.access[0]) * uint64(sz) * 8
	t := root
	for _, idx := range r.access[1:] {
		switch tt := t.(type) {
		case *btf.Struct, *btf.Union:
			members := compositeMembers(tt)
			if idx >= len(members) {
				return bad("member index out of range")
			}
			mem := members[idx]
			spec.bitOffset += uint64(mem.Offset)
			if mem.Name != "" {
				spec.accs = append(spec.accs, coreAccessor{parent: tt, idx: idx, name: mem.Name})
			}
			t = btf.UnderlyingType(mem.Type)
		case *btf.Array:
			elem := btf.UnderlyingType(tt.Type)
			if !isFlexArray(spec.accs[len(spec.accs)-1], tt) && idx >= int(tt.Nelems) {
				return bad("array index out of range")
			}
			esz, err := btf.Sizeof(elem)
			if err != nil {
				return bad(err.Error())
			}
			spec.accs = append(spec.accs, coreAccessor{idx: idx, elem: elem})
			spec.bitOffset += uint64(idx) * uint64(esz) * 8
			t = elem
		default:
			return bad("a step into a type of unexpected kind")
		}
	}
	return spec, nil
}

// matchCORESpec is bpf_core_spec_match: the candidate's spec, or false.
func matchCORESpec(r coreRelo, local coreSpec, cand coreCand) (coreSpec, bool, error) {
	spec := coreSpec{root: cand.typ}
	if id, err := cand.spec.TypeID(cand.typ); err == nil {
		spec.rootID = id
	}
	switch {
	case r.kind.typeBased():
		if r.kind == coreTypeMatches {
			ok, err := typesMatch(local.root, cand.typ, false, 32)
			return spec, ok, err
		}
		ok, err := typesCompatible(local.root, cand.typ, 32)
		return spec, ok, err
	case r.kind.enumBased():
		e, ok := btf.UnderlyingType(cand.typ).(*btf.Enum)
		if !ok {
			return spec, false, nil
		}
		want := EssentialName(local.accs[0].name)
		for i, v := range e.Values {
			if EssentialName(v.Name) == want {
				spec.accs = []coreAccessor{{parent: e, idx: i, name: v.Name}}
				return spec, true, nil
			}
		}
		return spec, false, nil
	}
	next := cand.typ
	for i, acc := range local.accs {
		t := btf.UnderlyingType(next)
		if acc.name != "" {
			found, nt := matchMember(acc, t, &spec)
			if !found {
				return spec, false, nil
			}
			next = nt
			continue
		}
		if i > 0 {
			arr, ok := t.(*btf.Array)
			if !ok {
				return spec, false, nil
			}
			if !isFlexArray(spec.accs[len(spec.accs)-1], arr) && acc.idx >= int(arr.Nelems) {
				return spec, false, nil
			}
			t = btf.UnderlyingType(arr.Type)
		}
		sz, err := btf.Sizeof(t)
		if err != nil {
			return spec, false, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		spec.accs = append(spec.accs, coreAccessor{idx: acc.idx, elem: t})
		spec.bitOffset += uint64(acc.idx) * uint64(sz) * 8
		next = t
	}
	return spec, true, nil
}

// matchMember is bpf_core_match_member: the member of the composite t
// named as acc's, looked for through t's anonymous members too, and
// compatible with it (bpf_core_fields_are_compat). Like libbpf it stops at
// the first member of that name, compatible or not, leaving that member's
// offset in the spec when it is not.
func matchMember(acc coreAccessor, t btf.Type, spec *coreSpec) (bool, btf.Type) {
	t = btf.UnderlyingType(t)
	if !isComposite(t) {
		return false, nil
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
				return false, nil
			}
			spec.accs = append(spec.accs, coreAccessor{parent: t, idx: i, name: mem.Name})
			return true, mem.Type
		}
		spec.bitOffset -= uint64(mem.Offset)
	}
	return false, nil
}

// calcCORE is bpf_core_calc_relo: the local and the target value of the
// relocation (targ nil: no candidate matched).
func calcCORE(r coreRelo, local coreSpec, targ *coreSpec, bigEndian bool) coreResult {
	res := coreResult{validate: true}
	var err error
	switch {
	case r.kind.fieldBased():
		var v field
		v, err = calcField(r.kind, &local, bigEndian)
		res.origVal, res.origSize, res.origType, res.validate = v.val, v.size, v.typ, v.validate
		if err == nil {
			v, err = calcField(r.kind, targ, bigEndian)
			res.newVal, res.newSize, res.newType = v.val, v.size, v.typ
		}
		if err == nil && res.origSize != res.newSize {
			_, lptr := res.origType.(*btf.Pointer)
			_, tptr := res.newType.(*btf.Pointer)
			li, lint := res.origType.(*btf.Int)
			ti, tint := res.newType.(*btf.Int)
			if !(lptr && tptr) && !(lint && tint && li.Encoding != btf.Signed && ti.Encoding != btf.Signed) {
				res.failMemSize = true
			}
		}
	case r.kind.typeBased():
		res.origVal, res.validate, err = calcType(r.kind, &local)
		if err == nil {
			res.newVal, _, err = calcType(r.kind, targ)
		}
	case r.kind.enumBased():
		res.origVal, err = calcEnum(r.kind, &local)
		if err == nil {
			res.newVal, err = calcEnum(r.kind, targ)
		}
	default:
		err = fmt.Errorf("%w: unrecognized CO-RE relocation %s", ErrMalformed, r.kind)
	}
	if errors.Is(err, errCOREPoison) {
		res.poison, err = true, nil
	}
	res.err = err
	return res
}

// errCOREPoison is libbpf's -EUCLEAN: poison the instruction.
var errCOREPoison = errors.New("poison")

// field is what bpf_core_calc_field_relo computes for one spec.
type field struct {
	val      uint64
	size     int
	typ      btf.Type
	validate bool
}

// calcField is bpf_core_calc_field_relo (spec nil: the field is missing).
func calcField(kind coreKind, spec *coreSpec, bigEndian bool) (field, error) {
	if kind == coreFieldExists {
		if spec == nil {
			return field{validate: true}, nil
		}
		return field{val: 1, validate: true}, nil
	}
	if spec == nil {
		return field{}, errCOREPoison
	}
	bad := func(why string) (field, error) {
		return field{}, fmt.Errorf("%w: %s relocation: %s", ErrMalformed, kind, why)
	}
	acc := spec.accs[len(spec.accs)-1]
	if acc.name == "" {
		sz, err := btf.Sizeof(acc.elem)
		if err != nil {
			return bad(err.Error())
		}
		switch kind {
		case coreFieldByteOffset:
			esz, err := btf.Sizeof(innermostElem(acc.elem))
			if err != nil {
				return bad(err.Error())
			}
			return field{val: spec.bitOffset / 8, size: esz, typ: acc.elem, validate: true}, nil
		case coreFieldByteSize:
			return field{val: uint64(sz), validate: true}, nil
		}
		return bad("cannot be applied to an array access")
	}
	mem := compositeMembers(acc.parent)[acc.idx]
	mt := btf.UnderlyingType(mem.Type)
	bitOff, bitSz := spec.bitOffset, uint64(mem.BitfieldSize)
	bitfield := bitSz > 0
	var byteOff, byteSz uint64
	if bitfield {
		sz, err := btf.Sizeof(mt)
		if err != nil {
			return bad(err.Error())
		}
		byteSz = uint64(sz)
		byteOff = bitOff / 8 / byteSz * byteSz
		for bitOff+bitSz-byteOff*8 > byteSz*8 {
			if byteSz >= 8 {
				return bad("a bitfield no 64-bit load reads")
			}
			byteSz *= 2
			byteOff = bitOff / 8 / byteSz * byteSz
		}
	} else {
		sz, err := btf.Sizeof(mt)
		if err != nil {
			return bad(err.Error())
		}
		byteSz, byteOff = uint64(sz), spec.bitOffset/8
		bitSz = byteSz * 8
	}
	f := field{validate: !bitfield}
	switch kind {
	case coreFieldByteOffset:
		f.val = byteOff
		if !bitfield {
			esz, err := btf.Sizeof(innermostElem(mt))
			if err != nil {
				return bad(err.Error())
			}
			f.size, f.typ = esz, mt
		}
	case coreFieldByteSize:
		f.val = byteSz
	case coreFieldSigned:
		e, isEnum := mt.(*btf.Enum)
		i, isInt := mt.(*btf.Int)
		if isEnum && e.Signed || isInt && i.Encoding&btf.Signed != 0 {
			f.val = 1
		}
		f.validate = true
	case coreFieldLShiftU64:
		if bigEndian {
			f.val = (8-byteSz)*8 + (bitOff - byteOff*8)
		} else {
			f.val = 64 - (bitOff + bitSz - byteOff*8)
		}
	case coreFieldRShiftU64:
		f.val = 64 - bitSz
		f.validate = true
	}
	return f, nil
}

// innermostElem is t's element type through any number of array levels.
func innermostElem(t btf.Type) btf.Type {
	for {
		arr, ok := t.(*btf.Array)
		if !ok {
			return t
		}
		t = btf.UnderlyingType(arr.Type)
	}
}

// calcType is bpf_core_calc_type_relo (spec nil: no such type, 0).
func calcType(kind coreKind, spec *coreSpec) (uint64, bool, error) {
	if spec == nil {
		return 0, true, nil
	}
	switch kind {
	case coreTypeIDTarget:
		// A type id in an instruction may change in linking: libbpf
		// does not check it.
		return uint64(spec.rootID), false, nil
	case coreTypeExists, coreTypeMatches:
		return 1, true, nil
	case coreTypeSize:
		sz, err := btf.Sizeof(spec.root)
		if err != nil {
			return 0, true, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return uint64(sz), true, nil
	}
	return 0, true, fmt.Errorf("%w: unrecognized CO-RE relocation %s", ErrMalformed, kind)
}

// calcEnum is bpf_core_calc_enumval_relo (spec nil: no such enumerator).
// libbpf reads a 32-bit enumerator's value as signed, whatever the enum's
// signedness (btf_enum's val is an __s32).
func calcEnum(kind coreKind, spec *coreSpec) (uint64, error) {
	switch kind {
	case coreEnumvalExists:
		if spec == nil {
			return 0, nil
		}
		return 1, nil
	case coreEnumvalValue:
		if spec == nil {
			return 0, errCOREPoison
		}
		e := spec.accs[0].parent.(*btf.Enum)
		v := e.Values[spec.accs[0].idx].Value
		if e.Size <= 4 {
			v = uint64(int64(int32(uint32(v))))
		}
		return v, nil
	}
	return 0, fmt.Errorf("%w: unrecognized CO-RE relocation %s", ErrMalformed, kind)
}

// patchCOREInsn is bpf_core_patch_insn. A poisoned 64-bit immediate load
// is cilium/ebpf's r10 = 0xbad2310 ll ("frame pointer is read only" where
// it is reached), where libbpf 1.8 writes two calls of the poison helper
// ("invalid func unknown#195896080"): the verdict is the same, and the
// message the one of the loader vercheck reads objects with.
func patchCOREInsn(ins *asm.Instruction, res coreResult) error {
	poison := func() {
		src := ins.Source()
		if ins.OpCode.IsDWordLoad() {
			*ins = asm.LoadImm(asm.R10, btf.COREBadRelocationSentinel, asm.DWord)
		} else {
			*ins = asm.BuiltinFunc(btf.COREBadRelocationSentinel).Call()
		}
		comment := "instruction poisoned by CO-RE"
		if src != nil {
			comment += ": " + src.String()
		}
		*ins = ins.WithSource(asm.Comment(comment))
	}
	switch class := ins.OpCode.Class(); {
	case class.IsALU():
		if ins.OpCode.Source() != asm.ImmSource {
			return fmt.Errorf("%w: an ALU instruction with a register source", ErrMalformed)
		}
		if res.poison {
			poison()
			return nil
		}
		if res.validate && uint64(int64(int32(ins.Constant))) != res.origVal {
			return fmt.Errorf("%w: unexpected ALU immediate %d, want %d (libbpf refuses the object)", ErrMalformed, int32(ins.Constant), res.origVal)
		}
		ins.Constant = int64(int32(uint32(res.newVal)))
	case class == asm.LdXClass || class == asm.StClass || class == asm.StXClass:
		if res.poison {
			poison()
			return nil
		}
		if res.validate && uint64(int64(ins.Offset)) != res.origVal {
			return fmt.Errorf("%w: unexpected offset %d, want %d (libbpf refuses the object)", ErrMalformed, ins.Offset, res.origVal)
		}
		if res.newVal > math.MaxInt16 {
			return fmt.Errorf("%w: offset %d too big (libbpf refuses the object)", ErrMalformed, res.newVal)
		}
		if res.failMemSize {
			// "accesses field incorrectly": fields of different
			// sizes that are not both unsigned integers or pointers.
			poison()
			return nil
		}
		ins.Offset = int16(res.newVal)
		if res.newSize != res.origSize {
			return resizeAccess(ins, res.origSize, res.newSize)
		}
	case ins.OpCode.IsDWordLoad():
		if ins.Src != 0 || ins.Offset != 0 {
			return fmt.Errorf("%w: a 64-bit immediate load of unexpected form", ErrMalformed)
		}
		if res.poison {
			poison()
			return nil
		}
		if res.validate && uint64(ins.Constant) != res.origVal {
			return fmt.Errorf("%w: unexpected 64-bit immediate %d, want %d (libbpf refuses the object)", ErrMalformed, uint64(ins.Constant), res.origVal)
		}
		ins.Constant = int64(res.newVal)
	default:
		return fmt.Errorf("%w: a relocation of an instruction of class %s", ErrMalformed, class)
	}
	return nil
}

// resizeAccess gives the load or store ins, which accesses a field of
// from bytes, the kernel field's size of to bytes.
func resizeAccess(ins *asm.Instruction, from, to int) error {
	if got := ins.OpCode.Size().Sizeof(); got != from {
		return fmt.Errorf("%w: the instruction accesses %d bytes of a %d-byte field (libbpf: unexpected mem size)", ErrMalformed, got, from)
	}
	var size asm.Size
	switch to {
	case 1:
		size = asm.Byte
	case 2:
		size = asm.Half
	case 4:
		size = asm.Word
	case 8:
		size = asm.DWord
	default:
		return fmt.Errorf("%w: the kernel's field has %d bytes (libbpf: invalid new mem size)", ErrMalformed, to)
	}
	ins.OpCode = ins.OpCode.SetSize(size)
	return nil
}

// ciliumRelocatesOtherwise reports whether cilium/ebpf relocates the CO-RE
// relocations of orig into other instructions than libbpf's relocation of
// them, relocated (with lerr its error). orig is left as it is; records
// are the object's relocation records.
func ciliumRelocatesOtherwise(orig, relocated asm.Instructions, lerr error, bo binary.ByteOrder, target *targetBTF, records coreRelos) bool {
	if !slices.ContainsFunc(orig, func(ins asm.Instruction) bool { return btf.CORERelocationMetadata(&ins) != nil }) {
		return false
	}
	cilium := slices.Clone(orig)
	_, cerr := applyCORE(cilium, bo, target, nil, records)
	if cerr != nil || lerr != nil {
		return cerr == nil
	}
	return !slices.EqualFunc(cilium, relocated, func(a, b asm.Instruction) bool {
		return a.OpCode == b.OpCode && a.Dst == b.Dst && a.Src == b.Src && a.Offset == b.Offset && a.Constant == b.Constant
	})
}

// LibbpfLinksOtherwise reports whether libbpf links program ps of spec
// into other instructions than cilium/ebpf does: a kfunc address, or CO-RE
// relocations libbpf relocates otherwise (against the kernel BTF the
// loader uses). A harness that loads programs through cilium/ebpf for a
// libbpf loader's verdict loads such a program through the loader instead
// (see [Program.CiliumRelocated]).
func LibbpfLinksOtherwise(spec *ebpf.CollectionSpec, ps *ebpf.ProgramSpec) bool {
	if takesKfuncAddress(spec, ps.Instructions) {
		return true
	}
	if spec.Types == nil {
		return false
	}
	bo := ps.ByteOrder
	if bo == nil {
		bo = binary.LittleEndian
	}
	target, core := newTargetBTF(""), newLibbpfCORE(spec.Types)
	libbpf := slices.Clone(ps.Instructions)
	_, lerr := applyCORE(libbpf, bo, target, core, core.relos)
	return ciliumRelocatesOtherwise(ps.Instructions, libbpf, lerr, bo, target, core.relos)
}

// takesKfuncAddress reports whether insns load the address of a kfunc,
// which libbpf links as a BTF-id load and cilium/ebpf as a number (see
// rewriteKfuncAddress).
func takesKfuncAddress(spec *ebpf.CollectionSpec, insns asm.Instructions) bool {
	return slices.ContainsFunc(insns, func(ins asm.Instruction) bool {
		ref := ins.Reference()
		return ins.OpCode.IsDWordLoad() && ref != "" && isKfunc(spec, ref)
	})
}

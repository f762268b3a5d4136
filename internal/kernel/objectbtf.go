package kernel

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/vercheck/vercheck/loader"
)

// MapBTF names the BTF the kernel side creates a program's maps with, and
// loads the program with: the kernel finds the special fields of a map's
// values in the map's BTF (map_check_btf), a graph root (bpf_list_head,
// bpf_rb_root) names the struct of its nodes there by name, and a node or
// local kptr of the program matches the map's only when both come from one
// BTF object (btf_struct_ids_match).
type MapBTF uint8

// The loaders' map BTFs.
const (
	// ObjectBTF is libbpf's (bpf_object__load_progs, bpf_object__create_map):
	// the object's whole BTF is loaded once and every map is created with
	// it, btf_key_type_id and btf_value_type_id pointing into it, and every
	// program is loaded with it as its prog_btf_fd.
	ObjectBTF MapBTF = iota
	// KeyValueBTF is cilium/ebpf's: each map is created with a BTF of its
	// key and value types alone, each program with a BTF of the types its
	// function and line info and CO-RE relocations name.
	KeyValueBTF
)

// needsObjectBTF reports whether the verdict on prog depends on the BTF its
// maps and itself are loaded with (see [MapBTF]): a bpf_core_type_id_local
// of its own (bpf_obj_new and the graph kfuncs take such ids), or a map it
// references whose value holds a graph root or a kptr, that limits the
// program's access, or whose type refuses a field of its value. Every
// other program is loaded the same under both loaders, and goes through
// cilium/ebpf.
func needsObjectBTF(obj *loader.Object, prog *loader.Program) bool {
	if prog.ObjectTypes == nil || !objectBTFLoadable(prog) {
		return false
	}
	if len(prog.LocalTypes) > 0 || callsObjNew(prog.Instructions) {
		return true
	}
	iter := prog.Instructions.Iterate()
	for iter.Next() {
		if !boundMapLoad(prog, iter) {
			continue
		}
		idx := mapIndex(iter.Ins)
		if idx < len(obj.Maps) && obj.Maps[idx] != nil &&
			(mapHoldsObjectBTFField(obj.Maps[idx]) || progAccessFlagged(obj.Maps[idx]) || fieldRefusedByType(obj.Maps[idx])) {
			return true
		}
	}
	return false
}

// callsObjNew reports whether insns call bpf_obj_new_impl or
// bpf_percpu_obj_new_impl, whose type id argument names a type of the BTF
// the program is loaded with: an id without a CO-RE relocation (written
// by hand, or a mutant's) is the object's own under libbpf, which loads
// the object's BTF as it is, where cilium/ebpf numbers the types of a
// BTF of its own.
func callsObjNew(insns asm.Instructions) bool {
	for i := range insns {
		ins := &insns[i]
		if !ins.IsKfuncCall() || ins.Offset != 0 {
			continue
		}
		name := ins.Reference()
		if name == "" {
			name = vmlinuxFuncName(btf.TypeID(ins.Constant))
		}
		if name == "bpf_obj_new_impl" || name == "bpf_percpu_obj_new_impl" {
			return true
		}
	}
	return false
}

// vmlinuxFuncName is the name of the running kernel's BTF function of id
// id, "" when there is none.
func vmlinuxFuncName(id btf.TypeID) string {
	vmlinux, err := kernelBTF.Kernel()
	if err != nil {
		return ""
	}
	if fn, err := vmlinux.TypeByID(id); err == nil {
		if f, ok := fn.(*btf.Func); ok {
			return f.Name
		}
	}
	return ""
}

// objectBTFLoadable reports whether the object-BTF load resolves all
// prog needs: not the attach targets of extension and struct_ops programs
// nor of a module's functions, nor kfuncs of modules (their fd_array),
// which cilium/ebpf's loader resolves; such programs go through it.
func objectBTFLoadable(prog *loader.Program) bool {
	if prog.Type == ebpf.Extension || prog.Type == ebpf.StructOps || strings.Contains(prog.AttachTo, ":") {
		return false
	}
	return !slices.ContainsFunc(prog.Instructions, func(ins asm.Instruction) bool {
		return ins.IsKfuncCall() && ins.Offset != 0
	})
}

// mapHoldsObjectBTFField reports whether m's BTF value, or its inner
// map's, holds a graph root or a kptr.
func mapHoldsObjectBTFField(m *loader.Map) bool {
	if m.Inner != nil && mapHoldsObjectBTFField(m.Inner) {
		return true
	}
	return m.Spec != nil && m.Spec.Value != nil && holdsObjectBTFField(m.Spec.Value, map[btf.Type]bool{})
}

// progAccessFlagged reports whether m limits the program's access
// (BPF_F_RDONLY_PROG, BPF_F_WRONLY_PROG) and has a BTF value: map_check_btf
// refuses such a map with EACCES when its value holds a special field, and
// only libbpf creates it again without BTF (cilium/ebpf retries on EINVAL
// and ENOTSUPP alone), so its programs are loaded libbpf's way. The
// read-only global data (.rodata, .kconfig: a datasec value) is left to
// cilium/ebpf, which resolves its externs.
func progAccessFlagged(m *loader.Map) bool {
	return m.Spec != nil && accessFlaggedValue(m.Spec.Value, m.Flags)
}

// accessFlaggedValue is progAccessFlagged of a map's value type and flags.
func accessFlaggedValue(value btf.Type, flags uint32) bool {
	if _, datasec := value.(*btf.Datasec); datasec || value == nil {
		return false
	}
	return flags&(unix.BPF_F_RDONLY_PROG|unix.BPF_F_WRONLY_PROG) != 0
}

// graphRootStructs are the kernel's graph root structs.
var graphRootStructs = map[string]bool{"bpf_list_head": true, "bpf_rb_root": true}

// kptrTags are the type tags of the kptr fields btf_parse_fields finds.
var kptrTags = map[string]bool{"kptr": true, "kptr_untrusted": true, "percpu_kptr": true}

// holdsObjectBTFField walks t's members, elements and variables (not
// through pointers, but to a pointer's type tags) for a graph root or a
// kptr.
func holdsObjectBTFField(t btf.Type, seen map[btf.Type]bool) bool {
	return holdsField(t, graphRootStructs, true, seen)
}

// holdsField walks t as holdsObjectBTFField does for a struct named in
// structs, or, with kptrs, a kptr.
func holdsField(t btf.Type, structs map[string]bool, kptrs bool, seen map[btf.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	in := func(t btf.Type) bool { return holdsField(t, structs, kptrs, seen) }
	switch v := t.(type) {
	case *btf.Struct:
		if structs[v.Name] {
			return true
		}
		return slices.ContainsFunc(v.Members, func(m btf.Member) bool { return in(m.Type) })
	case *btf.Union:
		return slices.ContainsFunc(v.Members, func(m btf.Member) bool { return in(m.Type) })
	case *btf.Datasec:
		return slices.ContainsFunc(v.Vars, func(vs btf.VarSecinfo) bool { return in(vs.Type) })
	case *btf.Pointer:
		tag, ok := v.Target.(*btf.TypeTag)
		return kptrs && ok && kptrTags[tag.Value]
	case *btf.Array:
		return in(v.Type)
	case *btf.Var:
		return in(v.Type)
	case *btf.Typedef, *btf.Const, *btf.Volatile, *btf.Restrict:
		return in(btf.UnderlyingType(v))
	}
	return false
}

// lockLikeStructs are the special fields map_check_btf allows in a hash
// or an array value but not in every map type (locks, timers, workqueues,
// task_works).
var lockLikeStructs = map[string]bool{
	"bpf_spin_lock": true, "bpf_res_spin_lock": true, "bpf_timer": true, "bpf_wq": true, "bpf_task_work": true,
}

// fieldRefusedByType reports whether m's value may hold a special field
// its map type refuses (map_check_btf's EOPNOTSUPP): a lock, timer,
// workqueue or task_work in a map other than a hash, an array or a local
// storage. libbpf creates such a map again without BTF and cilium/ebpf
// fails, so its programs are loaded libbpf's way (a field the type does
// take, an LRU hash's timer, loads the same either way).
func fieldRefusedByType(m *loader.Map) bool {
	return m.Spec != nil && specFieldRefusedByType(m.Spec)
}

// specFieldRefusedByType is fieldRefusedByType of a map spec.
func specFieldRefusedByType(m *ebpf.MapSpec) bool {
	switch m.Type {
	case ebpf.Hash, ebpf.Array, ebpf.SkStorage, ebpf.InodeStorage, ebpf.TaskStorage, ebpf.CgroupStorage:
		return false
	}
	if _, datasec := m.Value.(*btf.Datasec); datasec || m.Value == nil {
		return false
	}
	return holdsField(m.Value, lockLikeStructs, false, map[btf.Type]bool{})
}

// objectBTF is an object's whole BTF as libbpf loads it into the kernel,
// with what one program adds to it (its function and line info). It is
// built from a copy of the object's types, which libbpf's fixups change.
type objectBTF struct {
	builder  btf.Builder
	object   *btf.Spec
	types    *btf.Spec
	handle   *btf.Handle
	funcInfo []byte
	lineInfo []byte
	// remapped are the copies made of types the object's BTF lacks
	// (remap), one per type whatever the number of lookups.
	remapped map[btf.Type]btf.Type
}

// newObjectBTF adds every type of a copy of the object's BTF to a
// builder, in the object's order, as libbpf fixes it up for the kernel
// (fixupExterns). libbpf loads the BTF it read, so every type keeps its
// id; cilium/ebpf keeps decl tags on the types they tag and emits them
// after all others, so each id a decl tag had holds a placeholder here
// (an anonymous int), and the decl tags come after.
func newObjectBTF(object *btf.Spec) (*objectBTF, error) {
	o := &objectBTF{object: object, types: object.Copy(), remapped: map[btf.Type]btf.Type{}}
	var all []btf.Type
	for id := btf.TypeID(1); ; id++ {
		t, err := o.types.TypeByID(id)
		if errors.Is(err, btf.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("object BTF: %w", err)
		}
		if isDeclTag(t) {
			t = &btf.Int{Size: 1}
		}
		all = append(all, t)
	}
	for _, t := range fixupExterns(all) {
		if _, err := o.builder.Add(t); err != nil {
			return nil, fmt.Errorf("object BTF: %w", err)
		}
	}
	return o, nil
}

// isDeclTag reports whether t is a decl tag, a kind cilium/ebpf keeps to
// itself.
func isDeclTag(t btf.Type) bool {
	switch t.(type) {
	case *btf.Int, *btf.Pointer, *btf.Array, *btf.Struct, *btf.Union, *btf.Enum, *btf.Fwd, *btf.Typedef,
		*btf.Volatile, *btf.Const, *btf.Restrict, *btf.Func, *btf.FuncProto, *btf.Var, *btf.Datasec,
		*btf.Float, *btf.TypeTag:
		return false
	}
	return true
}

// fixupExterns does what libbpf's bpf_object__collect_externs does to the
// BTF before loading it: the kernel takes no extern linkage, and a data
// section holds variables only. Extern functions become global; the
// functions in .ksyms are replaced there by one dummy int variable, its
// variables become global ints, each 4 bytes at its own offset; their
// unnamed parameters take the dummy's name (the kernel wants names on a
// global function's parameters). It returns
// the types with the dummy variable added.
func fixupExterns(types []btf.Type) []btf.Type {
	intType := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	for _, t := range types {
		if i, ok := t.(*btf.Int); ok && i.Size == 4 && i.Encoding == btf.Signed {
			intType = i
			break
		}
	}
	var dummy *btf.Var
	for _, t := range types {
		switch v := t.(type) {
		case *btf.Func:
			if v.Linkage == btf.ExternFunc {
				v.Linkage = btf.GlobalFunc
			}
		case *btf.Datasec:
			if v.Name != ".ksyms" {
				continue
			}
			var off uint32
			for i := range v.Vars {
				vs := &v.Vars[i]
				switch vt := vs.Type.(type) {
				case *btf.Func:
					if dummy == nil {
						dummy = &btf.Var{Name: vt.Name, Type: intType, Linkage: btf.GlobalVar}
					}
					nameParams(vt, dummy.Name)
					vs.Type = dummy
				case *btf.Var:
					vt.Linkage, vt.Type = btf.GlobalVar, intType
				}
				vs.Offset, vs.Size = off, 4
				off += 4
			}
			v.Size = off
		}
	}
	if dummy != nil {
		types = append(types, dummy)
	}
	return types
}

// nameParams names fn's unnamed parameters name.
func nameParams(fn *btf.Func, name string) {
	proto, ok := fn.Type.(*btf.FuncProto)
	if !ok {
		return
	}
	for i := range proto.Params {
		if p := &proto.Params[i]; p.Name == "" && p.Type != nil {
			p.Name = name
		}
	}
}

// id is the id in the loaded BTF of t, a type of the object's BTF.
func (o *objectBTF) id(t btf.Type) (btf.TypeID, error) {
	if t == nil {
		return 0, nil
	}
	if _, ok := t.(*btf.Void); ok {
		return 0, nil
	}
	oid, err := o.object.TypeID(t)
	if errors.Is(err, btf.ErrNotFound) {
		// A type the load made (a fuzzer's edited key or wrapped
		// value member): it goes into the loaded BTF after the
		// object's, naming the object's own types where it refers to
		// them. (Copies of those would be other types to the kernel:
		// a second bpf_rb_node is no graph node, btf_parse_struct_metas
		// finds the special structs by name, the first of each.)
		id, err := o.builder.Add(o.remap(t))
		if err != nil {
			return 0, fmt.Errorf("add %s to the object's BTF: %w", t, err)
		}
		return id, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s is not of the object's BTF: %w", t, err)
	}
	return o.idOf(oid)
}

// remap returns t with every type of the object's BTF it refers to
// replaced by that type's copy in the loaded BTF: t itself when it is the
// object's, else a copy of t with its children remapped, made once
// (o.remapped; a new struct may point to itself).
func (o *objectBTF) remap(t btf.Type) btf.Type {
	if t == nil {
		return nil
	}
	if oid, err := o.object.TypeID(t); err == nil {
		if c, err := o.types.TypeByID(oid); err == nil {
			return c
		}
		return t
	}
	if c, ok := o.remapped[t]; ok {
		return c
	}
	c := btf.Copy(t)
	o.remapped[t] = c
	switch v := c.(type) {
	case *btf.Typedef:
		v.Type = o.remap(t.(*btf.Typedef).Type)
	case *btf.Volatile:
		v.Type = o.remap(t.(*btf.Volatile).Type)
	case *btf.Const:
		v.Type = o.remap(t.(*btf.Const).Type)
	case *btf.Restrict:
		v.Type = o.remap(t.(*btf.Restrict).Type)
	case *btf.TypeTag:
		v.Type = o.remap(t.(*btf.TypeTag).Type)
	case *btf.Pointer:
		v.Target = o.remap(t.(*btf.Pointer).Target)
	case *btf.Array:
		v.Type = o.remap(t.(*btf.Array).Type)
		v.Index = o.remap(t.(*btf.Array).Index)
	case *btf.Struct:
		for i, m := range t.(*btf.Struct).Members {
			v.Members[i].Type = o.remap(m.Type)
		}
	case *btf.Union:
		for i, m := range t.(*btf.Union).Members {
			v.Members[i].Type = o.remap(m.Type)
		}
	case *btf.Var:
		v.Type = o.remap(t.(*btf.Var).Type)
	}
	return c
}

// funcType is the object's own FUNC for fn, a function of the program's
// func_info: fn itself may be a copy of it (the loader appends an
// exception callback from another copy of the object's types), and a
// func_info record must name the function's own type in the loaded BTF,
// not a second copy: the kernel finds an exception callback by name
// (btf_find_by_name_kind, the first FUNC of that name) and then looks for
// that id in func_info ("exception callback type id not found in
// func_info"). A FUNC the object has in another form (a mutant's edited
// prototype) takes the place of the object's: an object built with that
// prototype would hold it there, the first FUNC of its name. One the
// object lacks (or has twice) stays what it is.
func (o *objectBTF) funcType(fn *btf.Func) *btf.Func {
	if _, err := o.object.TypeID(fn); err == nil {
		if c, ok := o.remap(fn).(*btf.Func); ok {
			return c
		}
	}
	var own *btf.Func
	if err := o.types.TypeByName(fn.Name, &own); err != nil {
		return fn
	}
	if !sameFunc(own, fn) {
		// The builder marshals own's fields when the BTF is loaded, so
		// the edited prototype's types and tags go with them.
		edited := btf.Copy(fn).(*btf.Func)
		own.Type, own.Linkage, own.Tags, own.ParamTags = edited.Type, edited.Linkage, edited.Tags, edited.ParamTags
	}
	return own
}

// sameFunc reports whether a and b declare the same function: linkage,
// tags, and a prototype whose parameters and return print alike.
func sameFunc(a, b *btf.Func) bool {
	if a.Name != b.Name || a.Linkage != b.Linkage || !slices.Equal(a.Tags, b.Tags) ||
		!slices.EqualFunc(a.ParamTags, b.ParamTags, slices.Equal[[]string]) {
		return false
	}
	pa, okA := a.Type.(*btf.FuncProto)
	pb, okB := b.Type.(*btf.FuncProto)
	if !okA || !okB {
		return okA == okB
	}
	if len(pa.Params) != len(pb.Params) || fmt.Sprint(pa.Return) != fmt.Sprint(pb.Return) {
		return false
	}
	for i := range pa.Params {
		if pa.Params[i].Name != pb.Params[i].Name || fmt.Sprint(pa.Params[i].Type) != fmt.Sprint(pb.Params[i].Type) {
			return false
		}
	}
	return true
}

// idOf is the id in the loaded BTF of the type with id oid in the
// object's BTF.
func (o *objectBTF) idOf(oid btf.TypeID) (btf.TypeID, error) {
	t, err := o.types.TypeByID(oid)
	if err != nil {
		return 0, err
	}
	return o.builder.Add(t)
}

// load marshals the program's function and line info into the BTF and
// loads the BTF into the kernel.
func (o *objectBTF) load(insns asm.Instructions) error {
	var err error
	if o.funcInfo, o.lineInfo, err = btf.MarshalExtInfos(insns, &o.builder); err != nil {
		return fmt.Errorf("marshal func and line info: %w", err)
	}
	if o.handle, err = btf.NewHandle(&o.builder); err != nil {
		return fmt.Errorf("load the object's BTF: %w", err)
	}
	return nil
}

// close releases the loaded BTF.
func (o *objectBTF) close() {
	if o.handle != nil {
		o.handle.Close()
	}
}

// mapCreateAttr is the prefix of union bpf_attr that BPF_MAP_CREATE reads,
// up to map_extra.
type mapCreateAttr struct {
	mapType               uint32
	keySize               uint32
	valueSize             uint32
	maxEntries            uint32
	mapFlags              uint32
	innerMapFD            uint32
	numaNode              uint32
	mapName               [16]byte
	mapIfindex            uint32
	btfFD                 uint32
	btfKeyTypeID          uint32
	btfValueTypeID        uint32
	btfVmlinuxValueTypeID uint32
	mapExtra              uint64
}

// bpfMapCreate is the BPF_MAP_CREATE command of bpf(2).
const bpfMapCreate = 0

// createMap creates m as libbpf does (bpf_object__create_map): with the
// object's BTF and its key and value types' ids in it (a global data
// section has no key type), or, when the kernel refuses them, without
// BTF, then fills in its initial contents and
// freezes a read-only data section, as cilium/ebpf does for its own maps.
// A map of maps is created without BTF, with the template of its inner
// map, which is the object's BTF's.
func (o *objectBTF) createMap(m *loader.Map) (*ebpf.Map, error) {
	attr := mapCreateAttr{
		mapType:    uint32(m.Type),
		keySize:    m.KeySize,
		valueSize:  m.ValueSize,
		maxEntries: m.MaxEntries,
		mapFlags:   m.Flags,
	}
	if m.Spec != nil {
		attr.mapExtra = m.Spec.MapExtra
	}
	if isMapOfMaps(m.Type) {
		inner, err := o.createMap(m.Inner)
		if err != nil {
			return nil, fmt.Errorf("inner map: %w", err)
		}
		// The kernel keeps a copy of the template (bpf_map_meta_alloc).
		defer inner.Close()
		attr.innerMapFD = uint32(inner.FD())
	} else {
		keyID, err := o.id(m.Spec.Key)
		if err != nil {
			return nil, err
		}
		valueID, err := o.id(m.Spec.Value)
		if err != nil {
			return nil, err
		}
		attr.btfFD, attr.btfKeyTypeID, attr.btfValueTypeID = uint32(o.handle.FD()), uint32(keyID), uint32(valueID)
	}
	copy(attr.mapName[:len(attr.mapName)-1], kernelObjName(m.Name))
	fd, _, errno := unix.Syscall(unix.SYS_BPF, bpfMapCreate, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	if errno != 0 && (attr.btfKeyTypeID != 0 || attr.btfValueTypeID != 0) {
		// libbpf creates the map again without BTF, whatever the error
		// (the kernel refused the types in map_check_btf).
		attr.btfFD, attr.btfKeyTypeID, attr.btfValueTypeID = 0, 0, 0
		fd, _, errno = unix.Syscall(unix.SYS_BPF, bpfMapCreate, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	}
	runtime.KeepAlive(&attr)
	if errno != 0 {
		return nil, fmt.Errorf("BPF_MAP_CREATE with the object's BTF: %w", errno)
	}
	em, err := ebpf.NewMapFromFD(int(fd))
	if err != nil {
		unix.Close(int(fd))
		return nil, err
	}
	if err := fillMap(em, m); err != nil {
		em.Close()
		return nil, err
	}
	return em, nil
}

// fillMap writes a global data map's initial contents and freezes a
// read-only one (cilium/ebpf's Map.finalize; libbpf's
// bpf_object__populate_internal_map).
func fillMap(em *ebpf.Map, m *loader.Map) error {
	if m.Contents == nil {
		return nil
	}
	if err := em.Update(uint32(0), m.Contents, ebpf.UpdateAny); err != nil {
		return fmt.Errorf("initial contents: %w", err)
	}
	if strings.HasPrefix(m.Name, ".rodata") || m.Name == ".kconfig" {
		if err := em.Freeze(); err != nil {
			return fmt.Errorf("freeze: %w", err)
		}
	}
	return nil
}

// usesObjectBTF reports whether libbpf creates m with the object's BTF
// here: a map whose value has a BTF type, of a type libbpf gives BTF
// (bpf_object__create_map leaves it out for maps of maps, perf event
// arrays, sockmaps and the like, whose values are no program data; the
// kernel refuses BTF for most of them), or a map of maps whose inner
// template is such a map. Struct_ops maps, which need more than their
// BTF, go through cilium/ebpf.
func usesObjectBTF(m *loader.Map) bool {
	if isMapOfMaps(m.Type) {
		return m.Inner != nil && usesObjectBTF(m.Inner)
	}
	if m.Spec == nil || m.Spec.Value == nil {
		return false
	}
	switch m.Type {
	case ebpf.PerfEventArray, ebpf.CGroupArray, ebpf.StackTrace, ebpf.DevMap, ebpf.DevMapHash,
		ebpf.CPUMap, ebpf.XSKMap, ebpf.SockMap, ebpf.SockHash, ebpf.Queue, ebpf.Stack, ebpf.Arena, ebpf.StructOpsMap:
		return false
	}
	return true
}

// isMapOfMaps reports whether maps of type t hold other maps.
func isMapOfMaps(t ebpf.MapType) bool {
	return t == ebpf.ArrayOfMaps || t == ebpf.HashOfMaps
}

// addMapTypes adds the key and value types of m (or of its inner
// template) to the BTF before it is loaded.
func (o *objectBTF) addMapTypes(m *loader.Map) error {
	if !usesObjectBTF(m) {
		return nil
	}
	if isMapOfMaps(m.Type) {
		return o.addMapTypes(m.Inner)
	}
	if _, err := o.id(m.Spec.Key); err != nil {
		return err
	}
	_, err := o.id(m.Spec.Value)
	return err
}

// errObjectBTFPath is wrapped when a program needs what the object-BTF
// load does not resolve (a kfunc objectBTFLoadable did not see).
var errObjectBTFPath = errors.New("loading with the object's BTF (libbpf's way)")

// loadWithObjectBTF prepares prog as libbpf does: its maps created with
// the object's BTF, and itself to be loaded with that BTF (see
// [ObjectBTF]); fn gets the function that loads it.
func loadWithObjectBTF(obj *loader.Object, prog *loader.Program, fn func(loadFunc) error) error {
	if prog.Err != nil {
		return prog.Err
	}
	ob, err := newObjectBTF(prog.ObjectTypes)
	if err != nil {
		return err
	}
	defer ob.close()
	insns, err := objectBTFInstructions(prog, ob)
	if err != nil {
		return err
	}
	// Map types enter the builder before it is loaded.
	for _, m := range referencedMaps(obj, prog) {
		if err := ob.addMapTypes(m); err != nil {
			return err
		}
	}
	if err := ob.load(insns); err != nil {
		return err
	}
	maps, err := createMapsWith(obj, prog, ob, false)
	if err != nil {
		return err
	}
	defer maps.close()
	if err := bindMaps(prog, insns, maps); err != nil {
		return err
	}
	attachID, err := attachBTFID(prog)
	if err != nil {
		return err
	}
	code, err := encode(insns)
	if err != nil {
		return err
	}
	spec := &ebpf.ProgramSpec{Name: prog.Name, Type: prog.Type, AttachType: prog.AttachType, License: prog.License, Flags: prog.Flags}
	if prog.Spec != nil {
		spec.KernelVersion = prog.Spec.KernelVersion
	}
	p := rawProgram{code: code, btfFD: ob.handle.FD(), withBTF: true, funcInfo: ob.funcInfo, lineInfo: ob.lineInfo, attachBTFID: attachID}
	return fn(func(level ebpf.LogLevel, size uint32) (loaded, error) {
		return rawLoad(spec, p, level, size)
	})
}

// referencedMaps are the maps prog's bound map loads name.
func referencedMaps(obj *loader.Object, prog *loader.Program) []*loader.Map {
	var ms []*loader.Map
	iter := prog.Instructions.Iterate()
	for iter.Next() {
		if !boundMapLoad(prog, iter) {
			continue
		}
		if idx := mapIndex(iter.Ins); idx < len(obj.Maps) && obj.Maps[idx] != nil && !slices.Contains(ms, obj.Maps[idx]) {
			ms = append(ms, obj.Maps[idx])
		}
	}
	return ms
}

// objectBTFInstructions are prog's linked instructions as libbpf hands
// them to the kernel: CO-RE relocations applied (by the loader), a
// bpf_core_type_id_local giving the type's id in the object's BTF, kfunc
// calls resolved in vmlinux.
func objectBTFInstructions(prog *loader.Program, ob *objectBTF) (asm.Instructions, error) {
	insns := slices.Clone(prog.Instructions)
	for i := range insns {
		ins := &insns[i]
		if relo := btf.CORERelocationMetadata(ins); relo != nil {
			if id, ok := loader.LocalTypeID(relo); ok {
				nid, err := ob.idOf(id)
				if err != nil {
					return nil, fmt.Errorf("insn %d: local type id %d: %w", i, id, err)
				}
				ins.Constant = int64(nid)
			}
			*ins = btf.WithCORERelocationMetadata(*ins, nil)
		}
		if isResolvedConstant(ins) {
			*ins = loader.WithoutLinkMetadata(*ins)
		}
		if fn := btf.FuncMetadata(ins); fn != nil {
			*ins = btf.WithFuncMetadata(*ins, ob.funcType(fn))
		}
	}
	if err := resolveVmlinuxKfuncs(insns); err != nil {
		return nil, fmt.Errorf("%w: %w", errObjectBTFPath, err)
	}
	return insns, nil
}

// createMapsWith creates, in the kernel, every map prog references, keyed
// by the object's map index: with the object's BTF ob (when not nil) those
// libbpf creates with it (usesObjectBTF), the others through cilium/ebpf.
func createMapsWith(obj *loader.Object, prog *loader.Program, ob *objectBTF, noBTF bool) (*liveMaps, error) {
	maps := &liveMaps{byIndex: make(map[int]*ebpf.Map), noBTF: noBTF}
	iter := prog.Instructions.Iterate()
	for iter.Next() {
		if !boundMapLoad(prog, iter) {
			continue
		}
		idx := mapIndex(iter.Ins)
		if _, done := maps.byIndex[idx]; done {
			continue
		}
		if idx >= len(obj.Maps) || obj.Maps[idx] == nil {
			maps.close()
			return nil, fmt.Errorf("insn %d: map %d: %w", iter.Index, idx, ErrNoMap)
		}
		lm := obj.Maps[idx]
		m, err := maps.createOneMap(lm, ob)
		if err != nil {
			maps.close()
			return nil, fmt.Errorf("create map %s: %w", lm.Name, err)
		}
		maps.byIndex[idx] = m
	}
	return maps, nil
}

// createOneMap creates lm with the object's BTF ob when there is one and
// libbpf would use it, else through cilium/ebpf, mapping an arena as
// libbpf does (mapArena).
func (l *liveMaps) createOneMap(lm *loader.Map, ob *objectBTF) (*ebpf.Map, error) {
	if ob != nil && usesObjectBTF(lm) {
		return ob.createMap(lm)
	}
	ms := MapSpec(lm)
	if l.noBTF {
		dropMapBTF(ms)
	}
	m, err := ebpf.NewMapWithOptions(ms, ebpf.MapOptions{})
	if err != nil {
		return nil, err
	}
	if err := l.mapArena(m, ms); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// bindMaps binds every bound map load of insns to the created map.
func bindMaps(prog *loader.Program, insns asm.Instructions, maps *liveMaps) error {
	iter := insns.Iterate()
	for iter.Next() {
		ins := iter.Ins
		if !ins.IsLoadFromMap() || prog.MapLoadUnbound(int(iter.Offset)) {
			continue
		}
		*ins = loader.WithoutLinkMetadata(*ins)
		if err := ins.AssociateMap(maps.byIndex[mapIndex(ins)]); err != nil {
			return fmt.Errorf("insn %d: %w", iter.Index, err)
		}
	}
	return nil
}

// attachBTFID is the vmlinux BTF id of a tracing or LSM program's attach
// target, found as libbpf's find_kernel_btf_id does (the prefixes of
// btf_attach_type_prefixes), 0 for other programs.
func attachBTFID(prog *loader.Program) (uint32, error) {
	return vmlinuxAttachID(prog.Type, prog.AttachType, prog.AttachTo)
}

// vmlinuxAttachID is attachBTFID for a program of type typ and attach
// type at that attaches to the vmlinux target named to.
func vmlinuxAttachID(typ ebpf.ProgramType, at ebpf.AttachType, to string) (uint32, error) {
	if typ != ebpf.Tracing && typ != ebpf.LSM {
		return 0, nil
	}
	switch at {
	case loader.AttachTraceFEntryMulti, loader.AttachTraceFExitMulti, loader.AttachTraceFSessionMulti:
		// libbpf 1.8's multi-function sections name a pattern it
		// matches at attach time and load with no target id.
		return 0, nil
	}
	vmlinux, err := kernelBTF.Kernel()
	if err != nil {
		return 0, err
	}
	t, err := attachTarget(vmlinux, typ, at, to)
	if err != nil {
		return 0, fmt.Errorf("attach target %s: %w", to, err)
	}
	id, err := vmlinux.TypeID(t)
	return uint32(id), err
}

// attachTarget is the vmlinux type a tracing or LSM program attaches to:
// the hook's function, the raw tracepoint's btf_trace_ typedef, the
// iterator's bpf_iter_ function.
func attachTarget(vmlinux *btf.Spec, typ ebpf.ProgramType, at ebpf.AttachType, to string) (btf.Type, error) {
	switch {
	case typ == ebpf.LSM:
		return kernelType[*btf.Func](vmlinux, "bpf_lsm_"+to)
	case at == ebpf.AttachTraceRawTp:
		return kernelType[*btf.Typedef](vmlinux, "btf_trace_"+to)
	case at == ebpf.AttachTraceIter:
		return kernelType[*btf.Func](vmlinux, "bpf_iter_"+to)
	}
	return kernelType[*btf.Func](vmlinux, to)
}

// kernelType is the type of kind T named name in vmlinux.
func kernelType[T btf.Type](vmlinux *btf.Spec, name string) (btf.Type, error) {
	var t T
	if err := vmlinux.TypeByName(name, &t); err != nil {
		return nil, err
	}
	return t, nil
}

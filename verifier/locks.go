package verifier

// Special fields of map values, and bpf_spin_lock.
//
// A map created with BTF may hold kernel-managed objects in its value: a
// struct bpf_spin_lock, a struct bpf_timer, kptrs, list and rbtree roots.
// The kernel finds them once, at map creation (btf_parse_fields, giving
// the map's btf_record), and the verifier then
//
//   - refuses any load, store or helper access that touches one of them
//     ("bpf_spin_lock cannot be accessed directly by load/store"),
//   - checks that bpf_spin_lock/unlock and the bpf_timer_* helpers are
//     given a pointer to exactly that field (constant offset, same map),
//   - tracks the lock held on the current path: bpf_spin_lock adds a lock
//     reference (Ref kind RefKindLock, id = the map value pointer's id,
//     Ptr = the map) and sets ActiveLockID/ActiveLockPtr; bpf_spin_unlock
//     must name the same lock and removes it.
//
// While a lock is held, no helper but bpf_spin_unlock and no global
// function may be called, and the main program may not exit. A map value
// pointer into a map with a lock keeps its id after its NULL check, so
// that two lookups in one map stay two different locks.
//
// vercheck reads the record from the map's BTF value type (a struct, or a
// data section). Fields found inside nested structs or arrays make the
// map's accesses unsupported rather than guessed; so do the kptr kinds
// vercheck does not model (kptr.go), at their own accesses.

import (
	"slices"
	"strings"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Helper ids of the lock and timer helpers.
const (
	fnSpinLock         = 93
	fnSpinUnlock       = 94
	fnTimerInit        = 169
	fnTimerSetCallback = 170
	fnTimerStart       = 171
	fnTimerCancel      = 172
	fnFindVMA          = 180
	fnUserRingbufDrain = 209
	lockNameSpin       = "bpf_spin"
	lockNameResSpin    = "bpf_res_spin"
	fieldNameSpinLock  = "bpf_spin_lock"
	fieldNameTimer     = "bpf_timer"
)

// fieldKind is the kind of a special map value field (btf_field_type).
type fieldKind uint8

const (
	fieldSpinLock fieldKind = iota + 1
	fieldTimer
	// fieldWq is a struct bpf_wq (wq.go).
	fieldWq
	// fieldTaskWork is a struct bpf_task_work (taskwork.go).
	fieldTaskWork
	// fieldKptr is a kptr (kptr.go): the kernel allows some loads and
	// stores of it.
	fieldKptr
	// fieldRefcount is a struct bpf_refcount: a program reads and writes
	// it only through the refcount kfuncs.
	fieldRefcount
	// fieldListHead and fieldRBRoot are graph roots, fieldListNode and
	// fieldRBNode graph nodes (graph.go).
	fieldListHead
	fieldRBRoot
	fieldListNode
	fieldRBNode
	// fieldResSpinLock is a struct bpf_res_spin_lock, the resilient lock
	// of bpf_res_spin_lock and bpf_res_spin_lock_irqsave.
	fieldResSpinLock
)

// mapField is one special field of a map value.
type mapField struct {
	kind fieldKind
	// name is the kernel's btf_field_type_name, used in messages.
	name      string
	off, size uint32
	// kptr describes a fieldKptr.
	kptr *kptrField
	// root describes a graph root (fieldListHead, fieldRBRoot).
	root *graphRoot
	// tags are a map value root's declaration tags, kept for the
	// __contains tag until the loader model resolves it (recordOf).
	tags []string
}

// mapRecord is what vercheck knows of a map value's special fields (the
// kernel's btf_record).
type mapRecord struct {
	// hasBTF is set when the map was created with a BTF value type.
	hasBTF bool
	fields []mapField
	// spinLockOff, resSpinLockOff, timerOff, wqOff, taskWorkOff and
	// refcountOff are the offsets of the lock, the resilient lock, the
	// timer, the workqueue, the task_work and the bpf_refcount, or -1.
	spinLockOff, resSpinLockOff, timerOff, wqOff, taskWorkOff, refcountOff int64
	// unsupported says why the record could not be read faithfully; the
	// map's value accesses are then unsupported.
	unsupported string
	// refused is set when the kernel would not create the map at all:
	// a program naming it cannot be loaded.
	refused bool
	// createErr is map_check_btf's refusal of the map's BTF with an
	// errno cilium/ebpf does not retry on (mapbtf.go): no program that
	// names the map is loaded.
	createErr *loader.MapCreateError
	// parsed is set on the record of a program struct the kernel keeps a
	// btf_struct_meta for (localRecord); the others have no record.
	parsed bool
}

// graphRoots are the special structs that hold a collection of the
// program's own objects.
var graphRoots = map[string]bool{"bpf_list_head": true, "bpf_rb_root": true}

// specialStructs maps the kernel object structs to their field kind.
var specialStructs = map[string]fieldKind{
	"bpf_spin_lock":     fieldSpinLock,
	"bpf_timer":         fieldTimer,
	"bpf_res_spin_lock": fieldResSpinLock,
	"bpf_wq":            fieldWq,
	"bpf_task_work":     fieldTaskWork,
	"bpf_list_head":     fieldListHead,
	"bpf_list_node":     fieldListNode,
	"bpf_rb_root":       fieldRBRoot,
	"bpf_rb_node":       fieldRBNode,
	"bpf_refcount":      fieldRefcount,
}

// specialLayouts are the kernel's size and alignment of each special
// struct (btf_field_type_size and _align on x86-64: the UAPI structs'
// sizeof and __alignof__). btf_find_field_one ignores a member of a
// special struct's name that has another size or lies at an offset not a
// multiple of the alignment: it is plain data.
var specialLayouts = map[string]struct{ size, align uint32 }{
	"bpf_spin_lock":     {4, 4},
	"bpf_res_spin_lock": {4, 4},
	"bpf_timer":         {16, 8},
	"bpf_wq":            {16, 8},
	"bpf_task_work":     {8, 8},
	"bpf_list_head":     {16, 8},
	"bpf_list_node":     {24, 8},
	"bpf_rb_root":       {16, 8},
	"bpf_rb_node":       {32, 8},
	"bpf_refcount":      {4, 4},
}

// fieldAt is btf_get_field_type with btf_find_struct and btf_find_kptr
// for a member whose type, as the BTF has it, is t, at byte offset off:
// the kernel takes the member's type as it is, so a special struct behind
// a typedef, const or volatile is plain data, and a kptr may be volatile
// but not const or typedef'd; a special struct of another size, or a
// field off its alignment, is plain data too.
func fieldAt(t btf.Type, off uint32) mapField {
	switch v := t.(type) {
	case *btf.Struct:
		k, ok := specialStructs[v.Name]
		layout, known := specialLayouts[v.Name]
		if !ok || !known || v.Size != layout.size || off%layout.align != 0 {
			return mapField{}
		}
		return mapField{kind: k, name: v.Name, size: v.Size}
	case *btf.Volatile:
		if p, ok := v.Type.(*btf.Pointer); ok && off%pointerSize == 0 {
			return classifyField(p)
		}
	case *btf.Pointer:
		if off%pointerSize == 0 {
			return classifyField(v)
		}
	}
	return mapField{}
}

// recordOf returns the special-field record of m, computing it once.
func (e *env) recordOf(m *loader.Map) *mapRecord {
	if r, ok := e.records[m]; ok {
		return r
	}
	r := e.makeRecord(m)
	if e.records == nil {
		e.records = map[*loader.Map]*mapRecord{}
	}
	e.records[m] = r
	return r
}

// makeRecord computes the special-field record of m as the loader
// creates it: with its BTF, without when the kernel refuses that BTF and
// the loader retries, or without BTF at all (recordWithoutBTF).
func (e *env) makeRecord(m *loader.Map) *mapRecord {
	if e.lp != nil && e.lp.BTFDropped != "" {
		return e.recordWithoutBTF(m)
	}
	r := buildRecord(m)
	if m != nil && m.Spec != nil && containsGraphRoot(m.Spec.Value, 0) {
		e.resolveMapGraphRoots(m, r)
	}
	if r.hasBTF && !r.refused {
		if reason, errno := mapBTFRefusal(m, r); reason != "" {
			if (btfRetried(errno) || e.opts.MapBTF.sharedWithProgram()) && !btfRequired(m.Type) {
				// The loader creates the map again, without BTF
				// (cilium/ebpf on EINVAL and ENOTSUPP, libbpf
				// whatever the errno; see mapbtf.go for why the
				// other errnos stay without a verdict).
				*r = emptyRecord(false)
			} else {
				r.createErr = &loader.MapCreateError{Map: m.Name, Errno: errno, Reason: reason + retryNote(m.Type, errno)}
			}
		}
	}
	return r
}

// recordWithoutBTF is the record of m created without BTF, as libbpf
// creates every map of an object whose BTF the kernel refuses
// (libbpfDropsBTF): no special field; a map type that needs its BTF
// (local storage) is not created at all, and libbpf's load fails.
func (e *env) recordWithoutBTF(m *loader.Map) *mapRecord {
	r := new(mapRecord)
	*r = emptyRecord(false)
	if m != nil && btfRequired(m.Type) {
		r.createErr = &loader.MapCreateError{Map: m.Name, Errno: syscall.EINVAL,
			Reason: "created without BTF, as libbpf creates the maps of an object whose BTF the kernel refuses (" + e.lp.BTFDropped + "), and the map type requires BTF"}
	}
	return r
}

// emptyRecord is a record with no special field.
func emptyRecord(hasBTF bool) mapRecord {
	return mapRecord{hasBTF: hasBTF, spinLockOff: -1, resSpinLockOff: -1, timerOff: -1, wqOff: -1, taskWorkOff: -1, refcountOff: -1}
}

// buildRecord reads the special fields of m's BTF value type.
func buildRecord(m *loader.Map) *mapRecord {
	r := new(mapRecord)
	*r = emptyRecord(false)
	if m == nil || m.Spec == nil || m.Spec.Value == nil {
		return r
	}
	r.hasBTF = true
	if s := refusedStructMeta(m.Spec.Value, 0); s != nil {
		// The map's BTF itself is refused.
		r.unsupported, r.refused = refusedBTFReason(s), true
		return r
	}
	fields, ok := findFields(btf.UnderlyingType(m.Spec.Value), 0)
	if !ok || len(fields) > btfFieldsMax {
		// btf_parse_fields fails and map_check_btf keeps the map with
		// no record at all: its value is plain memory.
		return r
	}
	for _, f := range fields {
		if f.kptr != nil {
			f.kptr.owner = m
		}
		r.fields = append(r.fields, f)
		switch f.kind {
		case fieldSpinLock, fieldResSpinLock:
			if r.hasLock() {
				// btf_parse_fields refuses a second lock of either kind.
				r.unsupported = "two lock fields in one map value"
			}
			if f.kind == fieldSpinLock {
				r.spinLockOff = int64(f.off)
			} else {
				r.resSpinLockOff = int64(f.off)
			}
		case fieldTimer:
			if r.timerOff >= 0 {
				r.unsupported = "two bpf_timer fields in one map value"
			}
			r.timerOff = int64(f.off)
		case fieldWq:
			if r.wqOff >= 0 {
				r.unsupported = "two bpf_wq fields in one map value"
			}
			r.wqOff = int64(f.off)
		case fieldTaskWork:
			if r.taskWorkOff >= 0 {
				r.unsupported = "two bpf_task_work fields in one map value"
			}
			r.taskWorkOff = int64(f.off)
		}
	}
	return r
}

// hasStructMeta reports whether btf_parse_struct_metas parses struct s: a
// member of s is a structMetaMember.
func hasStructMeta(s *btf.Struct) bool {
	return slices.ContainsFunc(s.Members, func(m btf.Member) bool { return structMetaMember(m.Type) })
}

// structMetaMember reports whether a member of type t makes the kernel
// parse its struct when it loads the BTF (btf_parse_struct_metas): a
// bpf_spin_lock, graph root or node, bpf_refcount, or a pointer
// btf_find_kptr takes for a kptr (a valid tag other than uptr, to a
// struct), by the member's very type (no typedef or qualifier in between).
func structMetaMember(t btf.Type) bool {
	switch v := t.(type) {
	case *btf.Struct:
		switch specialStructs[v.Name] {
		case fieldSpinLock, fieldListHead, fieldListNode, fieldRBRoot, fieldRBNode, fieldRefcount:
			return true
		}
	case *btf.Pointer:
		k := parseKptr(v)
		return k != nil && !k.invalid && k.kind != kptrUptr
	}
	return false
}

// refusedStructMeta returns a struct within t (t itself or one nested in
// it) that btf_parse_struct_metas parses and whose record btf_parse_fields
// fails to make (structMetaRefusal): the kernel refuses such a BTF
// whatever map or program uses it; cilium/ebpf's load fails, and libbpf
// loads the object without BTF. nil when there is none.
func refusedStructMeta(t btf.Type, depth int) *btf.Struct {
	if depth > maxFieldNesting {
		return nil
	}
	t = btf.UnderlyingType(t)
	if a, ok := t.(*btf.Array); ok {
		return refusedStructMeta(a.Type, depth+1)
	}
	if s, ok := t.(*btf.Struct); ok && refusesStructMeta(s) {
		return s
	}
	for _, m := range fieldMembers(t) {
		if s := refusedStructMeta(m.typ, depth+1); s != nil {
			return s
		}
	}
	return nil
}

// refusesStructMeta reports whether btf_parse_struct_metas parses struct s
// and fails (structMetaRefusal).
func refusesStructMeta(s *btf.Struct) bool {
	return structMetaRefusal(s) != ""
}

// structMetaRefusal says why btf_parse_struct_metas, which parses struct
// s, fails on it, or "": a pointer whose type tags btf_find_kptr refuses
// (EINVAL), a referenced kptr to a kernel struct without destructor
// (btf_parse_kptr: ENOENT), or no field found at all, every special
// struct of s being of another size or off its alignment (the record is
// NULL: EFAULT).
func structMetaRefusal(s *btf.Struct) string {
	if !hasStructMeta(s) {
		return ""
	}
	if hasInvalidKptr(s, 0) {
		return "a pointer whose type tags the kernel refuses"
	}
	n, noDtor := metaFields(s, 0)
	switch {
	case noDtor != "":
		return "a referenced kptr to struct " + noDtor + ", which has no destructor"
	case n == 0:
		return "special structs of which none is of the kernel's size and alignment"
	}
	return ""
}

// metaFields counts the fields btf_parse_fields finds in t for
// btf_parse_struct_metas (locks, graph roots and nodes, refcounts, kptrs),
// nested structs and arrays included, and names the struct of the first
// referenced kptr without destructor among them.
func metaFields(t btf.Type, depth int) (n int, noDtor string) {
	if depth > maxFieldNesting {
		return 0, ""
	}
	for _, mb := range fieldMembers(t) {
		elem, nelems := flattenArrayRaw(mb.typ)
		if nelems == 0 {
			continue
		}
		f := fieldAt(elem, mb.off)
		switch {
		case f.kind == fieldKptr && f.kptr.kind != kptrUptr:
			if f.kptr.noDtor != "" {
				return n, f.kptr.noDtor
			}
			n++
		case f.kind != 0 && f.kind != fieldTimer && f.kind != fieldWq && f.kind != fieldTaskWork && f.kind != fieldKptr:
			n++
		case f.kind == 0 && isStruct(elem):
			m, nd := metaFields(elem, depth+1)
			if nd != "" {
				return n, nd
			}
			n += m
		}
	}
	return n, ""
}

// hasInvalidKptr reports whether a pointer btf_find_kptr refuses lies in
// t (a member, a nested struct's, an array's element).
func hasInvalidKptr(t btf.Type, depth int) bool {
	if depth > maxFieldNesting {
		return false
	}
	if f := classifyField(t); f.kptr != nil {
		return f.kptr.invalid
	}
	t = btf.UnderlyingType(t)
	if a, ok := t.(*btf.Array); ok {
		return hasInvalidKptr(a.Type, depth+1)
	}
	return slices.ContainsFunc(fieldMembers(t), func(m fieldMember) bool { return hasInvalidKptr(m.typ, depth+1) })
}

// refusedBTFReason says why vercheck gives no verdict for a program whose
// BTF has struct s (refusedStructMeta).
func refusedBTFReason(s *btf.Struct) string {
	return "struct " + s.Name + " has " + structMetaRefusal(s) + ": the kernel refuses the BTF (cilium/ebpf's load fails; libbpf loads the object without BTF)"
}

// classifyField says whether t (a member's type) is itself a special
// field: its kind, message name and size (offset unset), or a zero kind.
func classifyField(t btf.Type) mapField {
	switch v := skipModifiers(t).(type) {
	case *btf.Struct:
		if k, ok := specialStructs[v.Name]; ok {
			return mapField{kind: k, name: v.Name, size: v.Size}
		}
	case *btf.Pointer:
		if k := parseKptr(v); k != nil {
			return mapField{kind: fieldKptr, name: k.kind.fieldName(), size: pointerSize, kptr: k}
		}
	}
	return mapField{}
}

// maxFieldNesting bounds the walk of nested member types.
const maxFieldNesting = 16

// btfFieldsMax is BTF_FIELDS_MAX: the most special fields a record holds.
const btfFieldsMax = 11

// maxFieldResolveDepth is MAX_RESOLVE_DEPTH, how deep btf_find_field
// follows arrays and nested structs.
const maxFieldResolveDepth = 32

// fieldMember is a member of a struct or union, or a variable of a
// Datasec, as btf_find_field sees it.
type fieldMember struct {
	typ  btf.Type
	off  uint32
	tags []string // declaration tags: a graph root's "contains:"
}

// fieldMembers lists the members btf_find_field looks at in t: those of
// a struct or union at a whole byte, or the variables of a Datasec
// (btf_find_datasec_var), whose fields are the variables' types.
func fieldMembers(t btf.Type) []fieldMember {
	var out []fieldMember
	switch v := t.(type) {
	case *btf.Struct, *btf.Union:
		members, _, _ := structMembers(v)
		for _, mb := range members {
			if mb.BitfieldSize == 0 && mb.Offset%8 == 0 {
				out = append(out, fieldMember{mb.Type, uint32(mb.Offset.Bytes()), mb.Tags})
			}
		}
	case *btf.Datasec:
		for _, vs := range v.Vars {
			mb := fieldMember{typ: vs.Type, off: vs.Offset}
			if v, ok := vs.Type.(*btf.Var); ok {
				mb.typ, mb.tags = v.Type, v.Tags
			}
			out = append(out, mb)
		}
	}
	return out
}

// findFields is btf_find_field over the members of t (a struct, union or
// Datasec) at nesting level: every special field, with its offset in t.
// Arrays are flattened and nested structs walked (btf_find_field_one,
// btf_find_nested_struct), their fields repeated per element where the
// kernel allows it (btf_repeat_fields: kptrs and graph roots only). ok is
// false where the kernel's search fails: a repetition it refuses, nesting
// past MAX_RESOLVE_DEPTH, or a pointer whose type tags btf_find_kptr
// refuses.
func findFields(t btf.Type, level int) (fields []mapField, ok bool) {
	for _, mb := range fieldMembers(t) {
		// The member's type as the BTF has it: array elements too
		// (btf_find_field_one follows arrays, nothing else).
		elem, nelems := flattenArrayRaw(mb.typ)
		if nelems == 0 {
			continue
		}
		var found []mapField
		stride := uint32(0)
		f := fieldAt(elem, mb.off)
		if f.kptr != nil && f.kptr.invalid {
			return nil, false
		}
		if f.kind != 0 && f.kind != fieldListNode && f.kind != fieldRBNode {
			// Graph nodes are special only in allocated objects: a map's
			// btf_parse_fields is not asked for them.
			f.tags = mb.tags
			found, stride = []mapField{f}, f.size
		} else if isStruct(elem) {
			if level+1 >= maxFieldResolveDepth {
				return nil, false
			}
			nested, ok := findFields(elem, level+1)
			if !ok {
				return nil, false
			}
			found = nested
			if size, err := btf.Sizeof(elem); err == nil {
				stride = uint32(size)
			}
		}
		if len(found) == 0 {
			continue
		}
		if nelems > 1 && !repeatableFields(found) {
			return nil, false
		}
		for i := 0; i < nelems; i++ {
			for _, f := range found {
				f.off += mb.off + uint32(i)*stride
				fields = append(fields, f)
			}
		}
	}
	return fields, true
}

// repeatableFields reports whether btf_repeat_fields repeats every field
// of fs over an array's elements: kptrs and graph roots only.
func repeatableFields(fs []mapField) bool {
	for _, f := range fs {
		if f.kind != fieldKptr && !graphRoots[f.name] {
			return false
		}
	}
	return true
}

// containsSpecial reports whether a special field appears anywhere inside
// t (a nested struct, union or array member).
func containsSpecial(t btf.Type, depth int) bool {
	if depth > maxFieldNesting {
		return true
	}
	if isAllocSpecial(t) {
		return depth > 0
	}
	switch v := btf.UnderlyingType(t).(type) {
	case *btf.Struct:
		for _, mb := range v.Members {
			if isAllocSpecial(mb.Type) || containsSpecial(mb.Type, depth+1) {
				return true
			}
		}
	case *btf.Union:
		for _, mb := range v.Members {
			if isAllocSpecial(mb.Type) || containsSpecial(mb.Type, depth+1) {
				return true
			}
		}
	case *btf.Array:
		if isAllocSpecial(v.Type) {
			return true
		}
		return containsSpecial(v.Type, depth+1)
	}
	return false
}

// isAllocSpecial reports whether t is a special field of an allocated
// object's record: any but a uptr, which btf_parse_struct_metas does not
// ask for.
func isAllocSpecial(t btf.Type) bool {
	f := classifyField(t)
	return f.kind != 0 && !isUptrField(f)
}

// isUptrField reports whether f is a uptr (BPF_UPTR), a field of task
// storage values only.
func isUptrField(f mapField) bool {
	return f.kind == fieldKptr && f.kptr != nil && f.kptr.kind == kptrUptr
}

// pointerSize is the size of a kptr field.
const pointerSize = 8

// accessRange is the byte range [lo, hi) of a map value that an access of
// size bytes at off by pointer reg may touch, over the pointer's variable
// offset.
func accessRange(reg *states.Reg, off, size int) (lo, hi int64) {
	return reg.SMin + int64(off), int64(reg.UMax) + int64(off) + int64(size)
}

// checkMapFields is the special-field part of check_map_access: no byte
// of the access [smin+off, umax+off+size) may touch a special field, but
// for a load or store (direct) of exactly a kptr.
func (e *env) checkMapFields(regno, off, size int, direct bool) error {
	reg := &e.regs()[regno]
	rec := e.recordOf(e.mapAt(reg))
	if len(rec.fields) == 0 && rec.unsupported == "" {
		return nil
	}
	if rec.unsupported != "" {
		return e.unsupported(e.insnIdx, "map value access: %s", rec.unsupported)
	}
	lo, hi := accessRange(reg, off, size)
	for i := range rec.fields {
		f := &rec.fields[i]
		if lo >= int64(f.off)+int64(f.size) || int64(f.off) >= hi {
			continue
		}
		if f.kind != fieldKptr {
			return e.reject(e.insnIdx, "%s cannot be accessed directly by load/store", f.name)
		}
		if err := e.checkKptrFieldAccess(reg, off, size, f, direct); err != nil {
			return err
		}
	}
	return nil
}

// innerMapHasAsync reports whether the values of map pointer r's map hold
// a timer, a workqueue or a task_work: an inner map of that kind is told
// apart from the others of its outer map by a uid.
func (e *env) innerMapHasAsync(r *states.Reg) bool {
	if int(r.Aux) >= len(e.maps) {
		return false
	}
	rec := e.recordOf(e.maps[r.Aux])
	return rec.timerOff >= 0 || rec.wqOff >= 0 || rec.taskWorkOff >= 0
}

// settleNotNull is mark_ptr_not_null_reg's map part followed by the id
// rule of mark_ptr_or_null_reg: a non-null lookup result of an XSKMAP is an
// xdp_sock, of a SOCKMAP or SOCKHASH a sock; other map values stay map
// values. It reports whether r keeps its id (see mayPointToSpinLock).
func (e *env) settleNotNull(r *states.Reg) bool {
	if r.Type == states.ConstPtrToMap && e.innerMapHasAsync(r) {
		// An inner map whose values hold an asynchronous field takes the
		// lookup's id, unique to each lookup, as its uid
		// (mark_ptr_not_null_reg).
		r.SetMapUID(r.ID)
	}
	if r.Type == states.PtrToMapValue && int(r.Aux) < len(e.maps) {
		// The socket keeps the map it was looked up in (the kernel
		// leaves map_ptr in the register's union, which regs_exact
		// compares): Aux is the map's index plus one, 0 being a
		// socket no map gave.
		switch e.maps[r.Aux].Type {
		case ebpf.XSKMap:
			r.Type, r.Aux = states.PtrToXDPSock, r.Aux+1
		case ebpf.SockMap, ebpf.SockHash:
			r.Type, r.Aux = states.PtrToSocket, r.Aux+1
		}
	}
	return e.mayPointToSpinLock(r)
}

// mayPointToSpinLock is reg_may_point_to_spin_lock: a map value pointer
// whose map holds a lock, or an allocated object whose struct does, keeps
// its id once proven non-NULL.
func (e *env) mayPointToSpinLock(r *states.Reg) bool {
	if isPtrAllocObj(r) && isLocalAux(r.Aux) {
		return e.localRecord(e.btfTypeOf(r.Aux)).hasLock()
	}
	if r.Type != states.PtrToMapValue || int(r.Aux) >= len(e.maps) {
		return false
	}
	return e.recordOf(e.maps[r.Aux]).hasLock()
}

// hasLock reports whether the record holds a lock of either kind
// (btf_record_has_field(rec, BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK)).
func (r *mapRecord) hasLock() bool {
	return r.spinLockOff >= 0 || r.resSpinLockOff >= 0
}

// lockOp names the lock call process_spin_lock checks (its PROCESS_*
// flags).
type lockOp struct {
	// acquire is a lock, not an unlock.
	acquire bool
	// res is a resilient lock (bpf_res_spin_lock and its _irqsave form).
	res bool
	// irq is the _irqsave/_irqrestore form of a resilient lock.
	irq bool
}

// lockName is the lock's prefix in the kernel's messages.
func (op lockOp) lockName() string {
	if op.res {
		return lockNameResSpin
	}
	return lockNameSpin
}

// refKind is the reference kind of the lock the call takes or drops.
func (op lockOp) refKind() uint8 {
	switch {
	case op.res && op.irq:
		return states.RefKindResLockIRQ
	case op.res:
		return states.RefKindResLock
	}
	return states.RefKindLock
}

// processSpinLock is process_spin_lock: bpf_spin_lock/unlock and the
// resilient locks' kfuncs, with the lock pointer in regno.
func (e *env) processSpinLock(regno int, op lockOp) error {
	reg := &e.regs()[regno]
	name := op.lockName()
	if !reg.Var.IsConst() {
		return e.reject(e.insnIdx, "R%d doesn't have constant offset. %s_lock has to be at the constant offset", regno, name)
	}
	lockOff, ptr, err := e.lockRecord(reg, op)
	if err != nil {
		return err
	}
	at := int64(reg.Var.Value) + int64(reg.Off)
	if at != lockOff {
		return e.reject(e.insnIdx, "off %d doesn't point to 'struct %s_lock' that is at %d", at, name, lockOff)
	}
	if op.acquire {
		return e.acquireLock(reg.ID, ptr, op)
	}
	return e.releaseLock(reg.ID, ptr, op)
}

// acquireLock is the lock half of process_spin_lock: a second plain lock
// is refused, as is a resilient lock already held (an AA deadlock), and
// the lock becomes the active one (acquire_lock_state).
func (e *env) acquireLock(id, ptr uint32, op lockOp) error {
	st := e.cur
	switch {
	case !op.res && st.ActiveLocks > 0 && e.findLock(0, 0, false) >= 0:
		return e.reject(e.insnIdx, "Locking two bpf_spin_locks are not allowed")
	case op.res && st.ActiveLocks > 0 && (e.findLockOfKind(states.RefKindResLock, id, ptr) >= 0 || e.findLockOfKind(states.RefKindResLockIRQ, id, ptr) >= 0):
		return e.reject(e.insnIdx, "Acquiring the same lock again, AA deadlock detected")
	}
	st.Refs = append(st.Refs, states.Ref{ID: id, InsnIdx: int32(e.insnIdx), Kind: op.refKind(), Ptr: ptr})
	st.ActiveLocks++
	st.ActiveLockID, st.ActiveLockPtr = id, ptr
	return nil
}

// releaseLock is the unlock half of process_spin_lock: the lock must be
// held, of the same kind, and the most recently taken one; the lock taken
// before it becomes the active one (release_lock_state), and the
// non-owning references the lock protected are invalidated.
func (e *env) releaseLock(id, ptr uint32, op lockOp) error {
	st := e.cur
	name := op.lockName()
	if st.ActiveLocks == 0 {
		return e.reject(e.insnIdx, "%s_unlock without taking a lock", name)
	}
	i := e.findLockOfKind(op.refKind(), id, ptr)
	if i < 0 {
		return e.reject(e.insnIdx, "%s_unlock of different lock", name)
	}
	if id != st.ActiveLockID || ptr != st.ActiveLockPtr {
		return e.reject(e.insnIdx, "%s_unlock cannot be out of order", name)
	}
	st.ActiveLockID, st.ActiveLockPtr = 0, 0
	for _, r := range st.Refs[:i] {
		if states.IsLockRef(r.Kind) {
			st.ActiveLockID, st.ActiveLockPtr = r.ID, r.Ptr
		}
	}
	st.Refs = append(st.Refs[:i], st.Refs[i+1:]...)
	st.ActiveLocks--
	e.invalidateNonOwningRefs()
	if st.ActiveLocks == 0 && !st.ActiveRCU && e.inSleepable() && !e.opts.MissingFixes.Has(stablefix.SpinUnlockUntrustsRCU) {
		// The lock was the sleepable program's RCU read section.
		e.untrustRCUPointers()
	}
	return nil
}

// lockPtrProgBTF is the lock owner (Ref.Ptr) of a lock in an allocated
// object: the kernel names it by the program's BTF, the same for every
// object; a map's locks are named by the map index plus one.
const lockPtrProgBTF = ^uint32(0)

// lockRecord is the part of process_spin_lock that finds, in the record
// of the object reg points into, the offset of the lock op takes, and the
// lock's owner.
func (e *env) lockRecord(reg *states.Reg, op lockOp) (int64, uint32, error) {
	name := op.lockName()
	lockOff := func(rec *mapRecord) int64 {
		if op.res {
			return rec.resSpinLockOff
		}
		return rec.spinLockOff
	}
	if reg.Type != states.PtrToMapValue {
		rec := e.localRecord(e.btfTypeOf(reg.Aux))
		if rec.unsupported != "" {
			return 0, 0, e.unsupported(e.insnIdx, "%s_lock: %s", name, rec.unsupported)
		}
		if lockOff(rec) < 0 {
			return 0, 0, e.reject(e.insnIdx, "local 'kptr' has no valid %s_lock", name)
		}
		return lockOff(rec), lockPtrProgBTF, nil
	}
	m := e.mapAt(reg)
	rec := e.recordOf(m)
	if !rec.hasBTF {
		return 0, 0, e.reject(e.insnIdx, "map '%s' has to have BTF in order to use %s_lock", e.kernelMapNameOf(m), name)
	}
	if rec.unsupported != "" {
		return 0, 0, e.unsupported(e.insnIdx, "%s_lock: %s", name, rec.unsupported)
	}
	if lockOff(rec) < 0 {
		return 0, 0, e.reject(e.insnIdx, "map '%s' has no valid %s_lock", e.kernelMapNameOf(m), name)
	}
	return lockOff(rec), reg.Aux + 1, nil
}

// findLock returns the index in the current refs of the lock of any kind
// with id and ptr (any plain lock when !exact), or -1.
func (e *env) findLock(id, ptr uint32, exact bool) int {
	for i, r := range e.cur.Refs {
		if !states.IsLockRef(r.Kind) || !exact && r.Kind != states.RefKindLock {
			continue
		}
		if !exact || (r.ID == id && r.Ptr == ptr) {
			return i
		}
	}
	return -1
}

// findLockOfKind is find_lock_state for one reference kind: the index of
// the lock of that kind with id and ptr, or -1.
func (e *env) findLockOfKind(kind uint8, id, ptr uint32) int {
	for i, r := range e.cur.Refs {
		if r.Kind == kind && r.ID == id && r.Ptr == ptr {
			return i
		}
	}
	return -1
}

// kernelMapNameLen is BPF_OBJ_NAME_LEN minus the terminating NUL: the
// kernel keeps at most this many bytes of a map's name.
const kernelMapNameLen = 15

// kernelMapNameOf is the name the kernel knows map m by: an inner map
// template (inner_map_meta) has none.
func (e *env) kernelMapNameOf(m *loader.Map) string {
	if e.outerMapOf(m) >= 0 {
		return ""
	}
	return kernelMapName(m)
}

// kernelMapName is the map's name as the kernel knows it (truncated the
// way cilium/ebpf passes it).
func kernelMapName(m *loader.Map) string {
	n := m.Name
	if len(n) > kernelMapNameLen {
		n = n[:kernelMapNameLen]
	}
	return n
}

// kfuncIterNumPrefix names the numeric iterator's kfuncs
// (is_bpf_iter_num_api_kfunc).
const kfuncIterNumPrefix = "bpf_iter_num_"

// fnKptrXchg is bpf_kptr_xchg (kptr.go).
const fnKptrXchg = 194

// checkCallUnderLock is the do_check rule for calls while a lock is held:
// only bpf_spin_unlock, static subprograms (global ones are refused by
// checkFuncCall) and the kfuncs of kfunc_spin_allowed may be called; 6.18
// refuses bpf_kptr_xchg there too. 6.18's kfunc_spin_allowed is the graph,
// numeric iterator and resilient lock kfuncs of vmlinux (a module's kfunc,
// insn.Off != 0, never): 7.x adds the arena and stream kfuncs, which the
// live 6.18 kernel refuses under a lock (m13_lock_kfuncs.c).
func (e *env) checkCallUnderLock(in *insn.Insn) error {
	if e.cur.ActiveLocks == 0 {
		return nil
	}
	switch in.Src {
	case insn.PseudoCall:
		return nil
	case insn.PseudoKfuncCall:
		if isGraphCallUnderLockAllowed(*in) {
			return nil
		}
		if name := kfuncCallName(*in); in.Off == 0 && (isResLockKfunc(name) || strings.HasPrefix(name, kfuncIterNumPrefix)) {
			// Resilient locks nest (reslock.go); a numeric iterator
			// needs nothing a lock forbids.
			return nil
		}
		return e.reject(e.insnIdx, "function calls are not allowed while holding a lock")
	}
	if in.Imm == fnSpinUnlock {
		return nil
	}
	return e.reject(e.insnIdx, "function calls are not allowed while holding a lock")
}

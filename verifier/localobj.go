package verifier

// Objects of the program's own BTF types: bpf_obj_new_impl allocates one,
// bpf_obj_drop_impl frees it (the kernel's check_special_kfunc part for
// KF_bpf_obj_new_impl, the KF_ARG_PTR_TO_ALLOC_BTF_ID case of
// check_kfunc_args, and the MEM_ALLOC paths of check_ptr_to_btf_access and
// btf_struct_access).
//
// bpf_obj_new(type) passes bpf_core_type_id_local(type): the type's id in
// the program's BTF. The result is PTR_TO_BTF_ID | MEM_ALLOC of that
// struct, maybe NULL, holding a reference the program must give back to
// bpf_obj_drop. The program may read and write the object's fields, but
// not its special fields (locks, list and rbtree parts, kptrs: the
// struct's btf_struct_meta record), and a pointer member reads as a
// scalar: an allocated object never yields a kernel pointer.
//
// A register pointing to a program type keeps, in Reg.Aux, localTypeBit
// with the type's index in the env's table, so that it never equals a
// vmlinux id: regsafe compares the two as the kernel compares (btf,
// btf_id) pairs.

import (
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// localTypeBit marks a Reg.Aux naming a type of the program's BTF.
const localTypeBit uint32 = 1 << 31

// localTypes is the env's table of program types that registers point to.
type localTypes struct {
	types []btf.Type
	ids   map[btf.Type]uint32
	// mapIDs are the Aux values of objects that come out of a map's kptr
	// when the map's BTF may be another BTF object than the program's
	// (kptrObjectAux), by struct and map.
	mapIDs map[mapType]uint32
	// fromMap marks those Aux values.
	fromMap map[uint32]bool
	// records caches each struct's btf_struct_meta record.
	records map[btf.Type]*mapRecord
}

// isLocalAux reports whether aux names a program type.
func isLocalAux(aux uint32) bool {
	return aux&localTypeBit != 0
}

// localAux returns the Reg.Aux of program type t, giving it one on first
// sight.
func (e *env) localAux(t btf.Type) uint32 {
	lt := &e.local
	if id, ok := lt.ids[t]; ok {
		return id
	}
	if lt.ids == nil {
		lt.ids = map[btf.Type]uint32{}
	}
	id := localTypeBit | uint32(len(lt.types))
	lt.types = append(lt.types, t)
	lt.ids[t] = id
	return id
}

// mapType names a struct of one map's BTF.
type mapType struct {
	t btf.Type
	m *loader.Map
}

// kptrObjectAux is the Aux of an object taken out of, or loaded from, kptr
// k: a type of the map's BTF. Under libbpf that is the program's BTF, and
// the object's type the program's own; otherwise the map's struct is
// another BTF object's, which btf_struct_ids_match never matches with the
// program's: it gets an Aux of its own, the same for every kptr of the
// map. A kptr field of an allocated object's struct is the program's
// type in any case.
func (e *env) kptrObjectAux(k *kptrField) uint32 {
	if e.opts.MapBTF.sharedWithProgram() || k.owner == nil {
		// A kptr of an allocated object (no owning map) is of the
		// program's BTF whatever the loader.
		return e.localAux(k.local)
	}
	lt := &e.local
	key := mapType{k.local, k.owner}
	if id, ok := lt.mapIDs[key]; ok {
		return id
	}
	if lt.mapIDs == nil {
		lt.mapIDs, lt.fromMap = map[mapType]uint32{}, map[uint32]bool{}
	}
	id := localTypeBit | uint32(len(lt.types))
	lt.types = append(lt.types, k.local)
	lt.mapIDs[key], lt.fromMap[id] = id, true
	return id
}

// btfTypeOf is btf_type_by_id(reg->btf, reg->btf_id): the struct a BTF
// pointer's Aux names, of vmlinux or of the program.
func (e *env) btfTypeOf(aux uint32) btf.Type {
	if !isLocalAux(aux) {
		return btfTypeByID(aux)
	}
	i := int(aux &^ localTypeBit)
	if i >= len(e.local.types) {
		return nil
	}
	return e.local.types[i]
}

// btfNameOf is the name the log prints for a BTF pointer's type.
func (e *env) btfNameOf(aux uint32) string {
	t := e.btfTypeOf(aux)
	if t == nil {
		return ""
	}
	return t.TypeName()
}

// isPtrAllocObj is type_is_ptr_alloc_obj: a pointer to an allocated
// object, owned or not, but not an untrusted one.
func isPtrAllocObj(r *states.Reg) bool {
	return r.Type == states.PtrToBTFID && r.Flags&states.MemAlloc != 0 && r.Flags&states.PtrUntrusted == 0
}

// isAllocObj reports a pointer to an allocated object of the program's
// own type, owned (PTR_TO_BTF_ID | MEM_ALLOC exactly).
func isAllocObj(r *states.Reg) bool {
	return r.Type == states.PtrToBTFID && r.Flags == states.MemAlloc
}

// localRecord is btf_find_struct_meta(...)->record for program struct t:
// its special fields. The kernel makes a record only for structs with a
// member of one of the types btf_parse_struct_metas looks for (a lock, a
// graph root or node, a bpf_refcount, a valid kptr: structMetaMember);
// any other struct has none, and all of its memory is plain data, special
// fields nested deeper or not. A special field nested deeper in a struct
// that has a record makes the struct unsupported here.
func (e *env) localRecord(t btf.Type) *mapRecord {
	lt := &e.local
	if r, ok := lt.records[t]; ok {
		return r
	}
	if lt.records == nil {
		lt.records = map[btf.Type]*mapRecord{}
	}
	r := new(mapRecord)
	*r = emptyRecord(true)
	// A struct whose record is being built is its own graph's node
	// type at most: the cycle ends here.
	lt.records[t] = r
	s, _ := skipModifiers(t).(*btf.Struct)
	if s != nil && hasStructMeta(s) {
		r.parsed = true
		for _, m := range s.Members {
			f := fieldAt(m.Type, uint32(m.Offset.Bytes()))
			if isUptrField(f) {
				// btf_parse_struct_metas asks for no BPF_UPTR: a uptr
				// of an allocated object is a plain pointer member.
				continue
			}
			if f.kind == 0 {
				if containsSpecial(m.Type, 0) {
					r.unsupported = "a special field nested in a struct or array of an allocated object"
				}
				continue
			}
			f.off = uint32(m.Offset.Bytes())
			if f.kind == fieldListHead || f.kind == fieldRBRoot {
				f.root = e.parseGraphRoot(m.Tags, f.kind)
			}
			r.fields = append(r.fields, f)
			switch f.kind {
			case fieldSpinLock:
				r.spinLockOff = int64(f.off)
			case fieldResSpinLock:
				r.resSpinLockOff = int64(f.off)
			case fieldRefcount:
				r.refcountOff = int64(f.off)
			}
		}
	}
	if r.resSpinLockOff >= 0 {
		// btf_parse_struct_metas looks for no bpf_res_spin_lock in 6.18
		// (it is no alloc_obj_field): alone, the lock is plain memory
		// and the object has no record, hence no lock a kfunc may take
		// ("local 'kptr' has no valid bpf_res_spin_lock"). Beside the
		// special fields that make a record, its part in the record is
		// not modelled.
		r.unsupported = "a bpf_res_spin_lock beside other special fields of an allocated object"
	}
	if r.unsupported == "" {
		r.unsupported = e.graphRecordProblem(r)
	}
	return r
}

// Messages of the bpf_obj_new return check.
const (
	msgObjNewStruct = "bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct"
)

// setObjNewReturn is the KF_bpf_obj_new_impl and
// KF_bpf_percpu_obj_new_impl part of check_special_kfunc: the constant
// argument names a struct of the program's BTF, and r0 points to a new
// object of it, per-CPU for bpf_percpu_obj_new (the caller adds
// maybe-NULL and the reference, as for any acquiring kfunc).
func (e *env) setObjNewReturn(meta *kfuncMeta, percpu bool) error {
	if !meta.constantArg {
		return e.internal(e.insnIdx, "bpf_obj_new without a constant type id")
	}
	if meta.constant != uint64(uint32(meta.constant)) {
		return e.reject(e.insnIdx, "local type ID argument must be in range [0, U32_MAX]")
	}
	if len(e.lp.Funcs) == 0 {
		// check_btf_info leaves prog->aux->btf NULL when the load
		// carries no function info (a BTF fd alone is ignored), and the
		// type id means nothing without it.
		return e.reject(e.insnIdx, "bpf_obj_new/bpf_percpu_obj_new requires prog BTF")
	}
	id := uint32(meta.constant)
	t, ok := e.lp.LocalTypes[id]
	switch {
	case ok:
	case id == 0:
		// Type 0 is void in any BTF the program is loaded with.
		return e.reject(e.insnIdx, msgObjNewStruct)
	case e.opts.MapBTF.sharedWithProgram() && e.lp.ObjectTypes != nil:
		// libbpf loads the program with the object's whole BTF as the
		// compiler numbered it: any id is that BTF's, and one it does
		// not have is NULL to btf_type_by_id.
		var err error
		if t, err = e.lp.ObjectTypes.TypeByID(btf.TypeID(id)); err != nil {
			return e.reject(e.insnIdx, msgObjNewStruct)
		}
	default:
		// cilium/ebpf builds the program a BTF of its own: only the ids
		// of bpf_core_type_id_local relocations are known there.
		return e.unsupported(e.insnIdx, "bpf_obj_new type id %d that no bpf_core_type_id_local relocation gives", id)
	}
	if _, isStruct := skipModifiers(t).(*btf.Struct); !isStruct || skipModifiers(t) != t {
		return e.reject(e.insnIdx, msgObjNewStruct)
	}
	if percpu {
		if err := e.checkPercpuObjType(t.(*btf.Struct)); err != nil {
			return err
		}
	} else if size := t.(*btf.Struct).Size; size > maxObjNewSize {
		return e.reject(e.insnIdx, "bpf_obj_new type size (%d) is more than the allocator serves", size)
	}
	if rec := e.localRecord(t); rec.unsupported != "" {
		return e.unsupported(e.insnIdx, "bpf_obj_new: %s", rec.unsupported)
	}
	flags := states.MemAlloc
	if percpu {
		flags |= states.MemPercpu
	}
	r0 := &e.regs()[0]
	r0.MarkPtr(states.PtrToBTFID, flags)
	r0.Aux = e.localAux(t)
	return nil
}

// maxObjNewSize is the largest object bpf_obj_new allocates: the BPF
// memory allocator's largest cache (4096 bytes) less its 8-byte header.
// The running build refuses larger types before the allocator would fail
// at run time ("bpf_obj_new type size (N) is more than the allocator
// serves", bisected live: 4088 loads, 4089 does not); the message is in
// none of the sources at hand, so a build without the check would accept
// what vercheck refuses, the safe way round.
const maxObjNewSize = 4088

// maxPercpuObjSize is BPF_GLOBAL_PERCPU_MA_MAX_SIZE, the largest object
// bpf_percpu_obj_new allocates.
const maxPercpuObjSize = 512

// checkPercpuObjType is the KF_bpf_percpu_obj_new_impl part of
// check_special_kfunc: a per-CPU object is small, made of scalars only
// (nested structs and arrays of them included), and has no special field
// (no btf_struct_meta: a bpf_spin_lock is a struct of scalars).
func (e *env) checkPercpuObjType(t *btf.Struct) error {
	if t.Size > maxPercpuObjSize {
		return e.reject(e.insnIdx, "bpf_percpu_obj_new type size (%d) is greater than %d", t.Size, maxPercpuObjSize)
	}
	if !e.isScalarStructLogged(t) {
		return e.reject(e.insnIdx, "bpf_percpu_obj_new type ID argument must be of a struct of scalars")
	}
	if len(e.localRecord(t).fields) > 0 {
		return e.reject(e.insnIdx, "bpf_percpu_obj_new type ID argument must not contain special fields")
	}
	return nil
}

// checkAllocArg is the KF_ARG_PTR_TO_ALLOC_BTF_ID case of
// check_kfunc_args: bpf_obj_drop takes an owned allocated object.
func (e *env) checkAllocArg(info *kfuncInfo, meta *kfuncMeta, i int, reg *states.Reg) error {
	switch {
	case isAllocObj(reg):
		if info.name != kfuncObjDrop {
			return e.reject(e.insnIdx, "arg#%d expected for bpf_obj_drop_impl()", i)
		}
	case reg.Type == states.PtrToBTFID && reg.Flags == states.MemAlloc|states.MemPercpu:
		if info.name != kfuncPercpuObjDrop {
			return e.reject(e.insnIdx, "arg#%d expected for bpf_percpu_obj_drop_impl()", i)
		}
	default:
		return e.reject(e.insnIdx, "arg#%d expected pointer to allocated object", i)
	}
	if reg.RefObjID == 0 {
		return e.reject(e.insnIdx, "allocated object must be referenced")
	}
	meta.argAux = reg.Aux
	return nil
}

// Names of the kfuncs of allocated objects.
const (
	kfuncObjNew        = "bpf_obj_new_impl"
	kfuncObjDrop       = "bpf_obj_drop_impl"
	kfuncPercpuObjNew  = "bpf_percpu_obj_new_impl"
	kfuncPercpuObjDrop = "bpf_percpu_obj_drop_impl"
)

// checkAllocFieldAccess is the MEM_ALLOC part of btf_struct_access: no
// access may touch a special field of the object's struct.
func (e *env) checkAllocFieldAccess(t btf.Type, off, size int) error {
	rec := e.localRecord(t)
	if rec.unsupported != "" {
		return e.unsupported(e.insnIdx, "allocated object access: %s", rec.unsupported)
	}
	for _, f := range rec.fields {
		if off < int(f.off+f.size) && int(f.off) < off+size {
			return e.reject(e.insnIdx, "direct access to %s is disallowed", f.name)
		}
	}
	return nil
}

// checkAllocAccess is check_ptr_to_btf_access for a pointer to an
// allocated object (MEM_ALLOC): reads and writes go through the default
// btf_struct_access, which refuses the struct's special fields, reads
// pointers to structs as scalars and pointers to anything else as
// read-only untrusted memory.
func (e *env) checkAllocAccess(reg *states.Reg, t btf.Type, off, size int, at access, dst *states.Reg) error {
	if reg.Flags&(states.MemRCU|states.NonOwnRef) == 0 && reg.RefObjID == 0 &&
		(reg.Flags&states.PtrUntrusted == 0 || !e.opts.MissingFixes.Has(stablefix.RCUUnlockKeepsNonOwn)) {
		// check_ptr_to_btf_access takes this for a broken invariant: a
		// read through a local kptr loaded in an RCU section after the
		// section ended (untrusted, no reference) reaches it (a
		// verifier_bug: a kernel warning, EFAULT). The builds without
		// RCUUnlockKeepsNonOwn read through it (untrustRCUPointers).
		return e.verifierBug("ref_obj_id for allocated object must be non-zero")
	}
	if err := e.checkAllocFieldAccess(t, off, size); err != nil {
		return err
	}
	res, msg, err := structWalk(t, off, size, walkOpts{local: true})
	if err != nil {
		return e.unsupported(e.insnIdx, "access to struct %s at off %d size %d: %v", t.TypeName(), off, size, err)
	}
	if msg != "" {
		return e.reject(e.insnIdx, "%s", msg)
	}
	if dst == nil {
		return nil
	}
	e.markWalkedNonBTFPtr(dst, res)
	return nil
}

// loadLocalKptr is btf_ld_kptr_type for a kptr to a program struct: the
// loaded object may be NULL. Inside an RCU read section a per-CPU kptr
// is an RCU-protected per-CPU object, and a referenced kptr an
// RCU-protected allocated object (rcu_safe_kptr: rcu_protected_object holds
// for every type of the program's BTF, refcounted or not), which the
// program may write through (check_ptr_to_btf_access lets MEM_ALLOC objects
// be written) but owns no reference to, a non-owning reference when the
// struct is a graph node; outside one, and for an untrusted kptr, it is an
// untrusted pointer. The object is a type of the map's BTF
// (kptrObjectAux).
func (e *env) loadLocalKptr(k *kptrField, dst *states.Reg) error {
	flags := states.MaybeNull | states.PtrUntrusted
	if k.kind == kptrPercpu && e.inRCU() {
		flags = states.MaybeNull | states.MemRCU | states.MemPercpu
	}
	if rec := e.localRecord(k.local); k.kind == kptrRef && e.inRCU() {
		if rec.unsupported != "" {
			return e.unsupported(e.insnIdx, "load of a kptr to struct %s: %s", k.local.TypeName(), rec.unsupported)
		}
		flags = states.MaybeNull | states.MemRCU | states.MemAlloc
		if rec.hasField(fieldListNode) || rec.hasField(fieldRBNode) {
			flags |= states.NonOwnRef
		}
	}
	dst.MarkPtr(states.PtrToBTFID, flags)
	dst.Aux = e.kptrObjectAux(k)
	dst.ID = e.newID()
	return nil
}

// hasField reports whether the record holds a field of the kind.
func (r *mapRecord) hasField(kind fieldKind) bool {
	for _, f := range r.fields {
		if f.kind == kind {
			return true
		}
	}
	return false
}

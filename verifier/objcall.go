package verifier

// One type per call instruction of the kfuncs the kernel rewrites with the
// object's type: after verification do_misc_fixups passes bpf_obj_new,
// bpf_percpu_obj_new, bpf_obj_drop, bpf_percpu_obj_drop,
// bpf_refcount_acquire, bpf_list_push_* and bpf_rbtree_add the struct's
// btf_struct_meta (and the object's size, the node's offset) the call
// instruction recorded (insn_aux_data kptr_struct_meta, obj_new_size,
// insert_off). A kernel with stablefix.KfuncOneType refuses a call
// instruction reached with another type than the first time: a static
// function called with objects of two structs, or two calls the compiler
// merged. The types compare as the kernel's records do (btf_record_equal:
// the same special fields at the same offsets, kptrs and graph roots of the
// same structs; no record on both sides is equal), with the size for the
// constructors and the node's offset for the insertions. Without the fix
// the last visit's record wins and the rewrite may free or insert an
// object with another struct's record.

import (
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/stablefix"
)

// objCallAux is what the kernel records for one call instruction.
type objCallAux struct {
	// meta is the struct's btf_struct_meta record, nil for none.
	meta *mapRecord
	// size is obj_new_size: the constructed object's size.
	size uint32
	// insertOff is insert_off: the inserted node's offset in its object.
	insertOff int64
}

// Messages of a call instruction reached with two types. The kernel logs
// the first two lines, then fails with the third.
const (
	msgOneTypeSame   = "same call cannot be used with different types"
	msgOneTypeInline = "use one call for each type: inline the static function that holds the call,"
	msgOneTypeMerge  = "or mark the callee with __attribute__((nomerge))"
)

// objCallAuxOf is the record the kernel keeps for the kfunc call just
// checked (its result set, so that r0 names a constructed object), false
// for kfuncs that keep none.
func (e *env) objCallAuxOf(info *kfuncInfo, meta *kfuncMeta) (objCallAux, bool) {
	switch info.name {
	case kfuncObjNew, kfuncPercpuObjNew:
		t := e.btfTypeOf(e.regs()[0].Aux)
		size, _ := btf.Sizeof(t)
		return objCallAux{meta: e.structMeta(t), size: uint32(size)}, true
	case kfuncObjDrop, kfuncPercpuObjDrop, kfuncRefcountAcquire:
		return objCallAux{meta: e.structMeta(e.btfTypeOf(meta.argAux))}, true
	case kfuncListPushFront, kfuncListPushBack, kfuncRBAdd:
		return objCallAux{meta: e.structMeta(e.btfTypeOf(meta.argAux)), insertOff: meta.insertOff}, true
	}
	return objCallAux{}, false
}

// checkObjCallType records the type of the kfunc call just checked and
// refuses, with stablefix.KfuncOneType, a call instruction reached before
// with another.
func (e *env) checkObjCallType(info *kfuncInfo, meta *kfuncMeta) error {
	if e.opts.MissingFixes.Has(stablefix.KfuncOneType) {
		return nil
	}
	cur, ok := e.objCallAuxOf(info, meta)
	if !ok {
		return nil
	}
	if e.objCalls == nil {
		e.objCalls = map[int]objCallAux{}
	}
	prev, seen := e.objCalls[e.insnIdx]
	e.objCalls[e.insnIdx] = cur
	if !seen || prev.size == cur.size && prev.insertOff == cur.insertOff && sameRecord(prev.meta, cur.meta) {
		return nil
	}
	e.log.errorf(msgOneTypeSame)
	e.log.errorf(msgOneTypeInline)
	return e.reject(e.insnIdx, msgOneTypeMerge)
}

// structMeta is btf_find_struct_meta(...)->record of program struct t, nil
// when the kernel makes none.
func (e *env) structMeta(t btf.Type) *mapRecord {
	if t == nil {
		return nil
	}
	if rec := e.localRecord(t); rec.parsed {
		return rec
	}
	return nil
}

// sameRecord is btf_record_equal: the same fields at the same offsets, a
// kptr to the same struct of the same kind, a graph root of the same node
// struct and node offset.
func sameRecord(a, b *mapRecord) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.fields) != len(b.fields) {
		return false
	}
	for i := range a.fields {
		if !sameField(&a.fields[i], &b.fields[i]) {
			return false
		}
	}
	return true
}

// sameField compares two fields of records as btf_record_equal's memcmp.
func sameField(x, y *mapField) bool {
	if x.kind != y.kind || x.off != y.off || x.size != y.size {
		return false
	}
	switch {
	case x.kptr != nil || y.kptr != nil:
		return x.kptr != nil && y.kptr != nil && x.kptr.kind == y.kptr.kind &&
			x.kptr.target == y.kptr.target && x.kptr.local == y.kptr.local
	case x.root != nil || y.root != nil:
		return x.root != nil && y.root != nil && x.root.value == y.root.value && x.root.nodeOff == y.root.nodeOff
	}
	return true
}

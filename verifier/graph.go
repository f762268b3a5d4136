package verifier

// BPF graphs: linked lists and red-black trees of allocated objects (the
// kernel's graph kfuncs: check_kfunc_args' KF_ARG_PTR_TO_LIST_HEAD/
// LIST_NODE/RB_ROOT/RB_NODE/REFCOUNTED_KPTR cases, the graph parts of
// check_kfunc_call, and the graph fields of btf_parse_fields).
//
// A struct bpf_list_head or bpf_rb_root member is a graph root. Its
// __contains(type, field) declaration tag names the struct its nodes are
// and the bpf_list_node/bpf_rb_node member each node is linked by; the
// kernel looks the struct up by name in the BTF the record is parsed
// from. A root must share its allocation with a bpf_spin_lock, and every
// graph kfunc taking a root needs that very lock held
// (check_reg_allocation_locked: same map or program BTF, same register
// id).
//
// References: bpf_obj_new gives an owning reference to an object (a
// register with a ref_obj_id). Pushing it into a list or adding it to a
// tree (bpf_list_push_front/back_impl, bpf_rbtree_add_impl) gives the
// ownership to the graph: every register holding the object becomes a
// non-owning reference (NonOwnRef; also MemRCU when the struct has a
// bpf_refcount), usable while the lock is held and invalidated, like
// every other non-owning reference, by bpf_spin_unlock. Popping
// (bpf_list_pop_front/back) or removing (bpf_rbtree_remove, which takes a
// non-owning or an owning reference, as left and right do since 6.16)
// gives a new owning reference; peeking
// (bpf_list_front/back, bpf_rbtree_first/root/left/right) a non-owning
// one. Node results point into the node struct at the node member
// (mark_reg_graph_node: Off = the member's offset). bpf_refcount_acquire
// gives a new owning reference to an object whose struct has a
// bpf_refcount, from an owning or non-owning one.
//
// bpf_rbtree_add_impl calls its less(a, b) callback synchronously: the
// callback is verified like bpf_loop's, with two non-owning node
// references, and may not lock, unlock or remove (in_rbtree_lock_required_cb).
//
// The kernel refuses a BTF whose graph fields break its rules
// (btf_parse_fields, btf_check_and_fixup_fields): a root without a lock
// beside it or whose __contains names no struct with such a node member,
// a struct both list and tree node without a bpf_refcount, a node that is
// a root of roots (ownership cycles). vercheck says unsupported there.
//
// Loader dependence: roots in allocated objects are parsed from the
// program's BTF. libbpf's is the object's whole BTF; cilium/ebpf's holds
// the types the program's relocations name, and those they refer to: a
// __contains struct the program never allocates is missing there, and
// the kernel refuses the program. vercheck looks the name up among those
// types (the object's BTF under libbpf, the default model), and says
// unsupported when it is not there. A root in a map value (global data
// included) is parsed from the BTF the map was created with
// (Options.MapBTF). libbpf creates every map with the
// object's whole BTF, the very BTF object its programs are loaded with:
// the __contains struct is found and is the programs' own (a data
// section's roots the kernel cannot parse leave the map without special
// fields, as below; a struct's make it refuse the BTF). cilium/ebpf
// creates each map with a BTF of its key and value types alone, a BTF
// object of its own: the struct is missing unless the value refers to it.
// Then a struct holding a root makes the BTF, and the map, fail to load,
// while a root that is a variable of a data section makes the map's
// record an error, kept by map_check_btf: the map has no special fields
// at all (no lock, no root, no kptr). When the struct is there, its
// nodes are not the programs' (btf_struct_ids_match compares BTF
// objects): unsupported, as is a root that is the value itself
// (msgMapGraphRoot). So are graph kfuncs on objects taken out of a map's
// kptr under cilium/ebpf (kptrObjectAux), which are types of the map's
// BTF: only as nodes, where they fail the node check, are they modelled.

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// Names of the graph kfuncs.
const (
	kfuncListPushFront   = "bpf_list_push_front_impl"
	kfuncListPushBack    = "bpf_list_push_back_impl"
	kfuncListPopFront    = "bpf_list_pop_front"
	kfuncListPopBack     = "bpf_list_pop_back"
	kfuncListFront       = "bpf_list_front"
	kfuncListBack        = "bpf_list_back"
	kfuncRBAdd           = "bpf_rbtree_add_impl"
	kfuncRBRemove        = "bpf_rbtree_remove"
	kfuncRBFirst         = "bpf_rbtree_first"
	kfuncRBRoot          = "bpf_rbtree_root"
	kfuncRBLeft          = "bpf_rbtree_left"
	kfuncRBRight         = "bpf_rbtree_right"
	kfuncRefcountAcquire = "bpf_refcount_acquire_impl"
)

// msgMapGraphRoot says why a map value that is a graph root, or an array
// of them, is unsupported under cilium/ebpf's map BTF.
const msgMapGraphRoot = "a bpf_list_head or bpf_rb_root as the map value, in a BTF of the value type alone (cilium/ebpf)"

// graphRoot is the kernel's btf_field_graph_root: the struct a root's
// nodes are, and the offset of their node member.
type graphRoot struct {
	value   btf.Type
	nodeOff uint32
}

// graphTypeNames are btf_field_type_name of the graph fields.
var graphTypeNames = map[fieldKind]string{
	fieldListHead: "bpf_list_head",
	fieldListNode: "bpf_list_node",
	fieldRBRoot:   "bpf_rb_root",
	fieldRBNode:   "bpf_rb_node",
}

// nodeKindOf is the node field kind of a root kind.
func nodeKindOf(root fieldKind) fieldKind {
	if root == fieldListHead {
		return fieldListNode
	}
	return fieldRBNode
}

// graphNodeAlign is __alignof__(struct bpf_list_node) and of struct
// bpf_rb_node.
const graphNodeAlign = 8

// parseGraphRoot is btf_find_graph_root and btf_parse_graph_root for a
// root of the kind declared with tags: its __contains tag names a program
// struct and that struct's node member. It returns nil when the kernel
// would refuse the BTF (the record then says unsupported).
func (e *env) parseGraphRoot(tags []string, kind fieldKind) *graphRoot {
	var values []string
	for _, t := range tags {
		if v, ok := strings.CutPrefix(t, "contains:"); ok {
			values = append(values, v)
		}
	}
	if len(values) != 1 {
		return nil
	}
	typeName, nodeName, ok := strings.Cut(values[0], ":")
	if !ok || nodeName == "" {
		return nil
	}
	value := e.programStruct(typeName)
	if e.opts.MapBTF.sharedWithProgram() && e.lp.ObjectTypes != nil {
		value = objectStruct(e.lp.ObjectTypes, typeName)
	}
	if value == nil {
		return nil
	}
	var root *graphRoot
	for _, vm := range value.Members {
		if vm.Name != nodeName {
			continue
		}
		n, isStruct := vm.Type.(*btf.Struct)
		if root != nil || !isStruct || n.Name != graphTypeNames[nodeKindOf(kind)] ||
			vm.Offset%8 != 0 || vm.Offset.Bytes()%graphNodeAlign != 0 {
			return nil
		}
		root = &graphRoot{value: value, nodeOff: vm.Offset.Bytes()}
	}
	return root
}

// resolveMapGraphRoots finishes the record of a map whose value holds
// graph roots, as the loader model in the options says (see the package
// comment above).
func (e *env) resolveMapGraphRoots(m *loader.Map, r *mapRecord) {
	if !e.opts.MapBTF.sharedWithProgram() {
		if msg, refused := keyValueGraphProblem(m); msg != "" {
			r.unsupported, r.refused = msg, refused
			return
		}
		// btf_parse_fields failed: the map has no special fields.
		*r = emptyRecord(true)
		return
	}
	if r.unsupported != "" {
		return
	}
	for i := range r.fields {
		if f := &r.fields[i]; f.kind == fieldListHead || f.kind == fieldRBRoot {
			f.root = e.parseGraphRoot(f.tags, f.kind)
		}
	}
	msg := e.graphRecordProblem(r)
	if _, isSection := btf.UnderlyingType(m.Spec.Value).(*btf.Datasec); msg != "" && isSection {
		// Roots that are variables of a data section are parsed with
		// the map alone (a struct's, with the BTF, which the kernel
		// then refuses): btf_parse_fields fails, and map_check_btf
		// keeps the error as the record.
		*r = emptyRecord(true)
		return
	}
	r.unsupported = msg
}

// isGraphRootType reports whether t is a bpf_list_head or bpf_rb_root, or
// an array of them.
func isGraphRootType(t btf.Type) bool {
	for range maxFieldNesting {
		a, ok := skipModifiers(t).(*btf.Array)
		if !ok {
			break
		}
		t = a.Type
	}
	k := classifyField(t).kind
	return k == fieldListHead || k == fieldRBRoot
}

// containsGraphRoot reports whether a graph root is anywhere in t.
func containsGraphRoot(t btf.Type, depth int) bool {
	if depth > maxFieldNesting {
		return false
	}
	if isGraphRootType(t) {
		return true
	}
	switch v := btf.UnderlyingType(t).(type) {
	case *btf.Struct:
		return slices.ContainsFunc(v.Members, func(m btf.Member) bool { return containsGraphRoot(m.Type, depth+1) })
	case *btf.Union:
		return slices.ContainsFunc(v.Members, func(m btf.Member) bool { return containsGraphRoot(m.Type, depth+1) })
	case *btf.Array:
		return containsGraphRoot(v.Type, depth+1)
	case *btf.Var:
		return containsGraphRoot(v.Type, depth+1)
	case *btf.Datasec:
		return slices.ContainsFunc(v.Vars, func(vs btf.VarSecinfo) bool { return containsGraphRoot(vs.Type, depth+1) })
	}
	return false
}

// keyValueGraphProblem says why a map with graph roots, created with a
// BTF of its key and value types alone, is not modelled, and whether the
// kernel refuses the map; "" when its record is simply an error: the
// roots are variables of a data section and none of the structs they
// contain is in that BTF. A struct with a root of its own in that BTF has
// a btf_struct_meta, whose parsing fails (the kernel refuses the BTF, and
// the map) unless the struct it contains is there, whose nodes are then
// another BTF object's than the program's.
func keyValueGraphProblem(m *loader.Map) (string, bool) {
	reach := reachableTypes(m.Spec.Key, m.Spec.Value)
	names := map[string]bool{}
	var rootMembers []btf.Member
	for t := range reach {
		if s, ok := t.(*btf.Struct); ok {
			names[s.Name] = true
			for _, mb := range s.Members {
				if isGraphRootType(mb.Type) {
					rootMembers = append(rootMembers, mb)
				}
			}
		}
	}
	if len(rootMembers) > 0 {
		for _, mb := range rootMembers {
			if !names[containsName(mb.Tags)] {
				return "a struct with a graph root whose struct is not in the map's own BTF (cilium/ebpf): the kernel refuses the BTF and the map", true
			}
		}
		return "a struct with a graph root in the map's own BTF (cilium/ebpf): its nodes are another BTF object's than the program's", false
	}
	ds, _ := btf.UnderlyingType(m.Spec.Value).(*btf.Datasec)
	if ds == nil {
		return msgMapGraphRoot, false
	}
	for _, vs := range ds.Vars {
		v, ok := vs.Type.(*btf.Var)
		if !ok || !isGraphRootType(v.Type) {
			continue
		}
		if name := containsName(v.Tags); names[name] {
			return "a graph root whose struct " + name + " is in the map's own BTF (cilium/ebpf), another BTF object than the program's", false
		}
	}
	return "", false
}

// containsName is the struct name a __contains declaration tag among tags
// names, or "".
func containsName(tags []string) string {
	for _, tag := range tags {
		if value, ok := strings.CutPrefix(tag, "contains:"); ok {
			name, _, _ := strings.Cut(value, ":")
			return name
		}
	}
	return ""
}

// programStruct is btf_find_by_name_kind(prog BTF, name, STRUCT), among
// the types the program's bpf_core_type_id_local relocations name and the
// types they reach: those are in the BTF every loader gives the kernel.
// Two different structs of that name, or none, give nil.
func (e *env) programStruct(name string) *btf.Struct {
	var found *btf.Struct
	for t := range reachableTypes(slices.Collect(maps.Values(e.lp.LocalTypes))...) {
		if s, ok := t.(*btf.Struct); ok && s.Name == name {
			if found != nil {
				return nil
			}
			found = s
		}
	}
	return found
}

// reachableTypes are the types a BTF with roots holds: the roots and every
// type they refer to (members, pointer targets, array elements, variables
// of a data section), modifiers skipped. A decl tag refers to its type,
// not the other way round: the struct a __contains tag names is in it
// only if something else refers to it.
func reachableTypes(roots ...btf.Type) map[btf.Type]bool {
	seen := map[btf.Type]bool{}
	var walk func(t btf.Type, depth int)
	walk = func(t btf.Type, depth int) {
		t = skipModifiers(t)
		if t == nil || seen[t] || depth > maxFieldNesting {
			return
		}
		seen[t] = true
		switch v := t.(type) {
		case *btf.Struct:
			for _, m := range v.Members {
				walk(m.Type, depth+1)
			}
		case *btf.Union:
			for _, m := range v.Members {
				walk(m.Type, depth+1)
			}
		case *btf.Pointer:
			walk(v.Target, depth+1)
		case *btf.Array:
			walk(v.Type, depth+1)
		case *btf.Var:
			walk(v.Type, depth+1)
		case *btf.Datasec:
			for _, vs := range v.Vars {
				walk(vs.Type, depth+1)
			}
		}
	}
	for _, t := range roots {
		walk(t, 0)
	}
	return seen
}

// objectStruct is btf_find_by_name_kind(object BTF, name, STRUCT): the
// struct of that name with the smallest id in the object's BTF, the one
// libbpf loads programs and maps with.
func objectStruct(types *btf.Spec, name string) *btf.Struct {
	if types == nil {
		return nil
	}
	var found *btf.Struct
	foundID := btf.TypeID(0)
	for t := range types.All() {
		s, ok := t.(*btf.Struct)
		if !ok || s.Name != name {
			continue
		}
		id, err := types.TypeID(s)
		if err == nil && (found == nil || id < foundID) {
			found, foundID = s, id
		}
	}
	return found
}

// graphRecordProblem is the end of btf_parse_fields for a program struct
// or map value, and btf_check_and_fixup_fields: roots need a
// bpf_spin_lock beside them, a struct that is both a list and a tree
// node needs a bpf_refcount, and a struct that is both a node and a root
// may not own roots (ownership stays acyclic). It returns why the kernel
// would refuse the BTF, or "".
func (e *env) graphRecordProblem(r *mapRecord) string {
	node := r.hasField(fieldListNode) || r.hasField(fieldRBNode)
	if r.hasField(fieldListNode) && r.hasField(fieldRBNode) && r.refcountOff < 0 {
		return "a struct both list and rbtree node without a bpf_refcount (the kernel refuses the BTF)"
	}
	for _, f := range r.fields {
		if f.kind != fieldListHead && f.kind != fieldRBRoot {
			continue
		}
		switch {
		case f.root == nil:
			return "a graph root whose __contains tag the kernel cannot resolve (it refuses the BTF)"
		case r.resSpinLockOff >= 0:
			return "a graph root guarded by a bpf_res_spin_lock"
		case r.spinLockOff < 0:
			return "a graph root without a bpf_spin_lock (the kernel refuses the BTF)"
		case node && e.ownsRoots(f.root.value):
			return "a graph node and root whose nodes are roots too (the kernel refuses the BTF: ELOOP)"
		}
	}
	return ""
}

// checkObjectBTF is btf_parse_struct_metas when the program is loaded
// with the object's whole BTF (libbpf): the kernel parses the special
// fields of every struct of it, and refuses the BTF, and with it the
// program, when one breaks the graph rules or has a pointer whose type
// tags btf_find_kptr refuses, even a struct the program never uses. The
// finding is the BTF's alone, so it is made once per object
// (objectBTFProblems).
func (e *env) checkObjectBTF() error {
	if msg := e.objectBTFFinding(); msg != "" {
		// libbpf drops a refused BTF (libbpfDropsBTF) unless the object
		// needs it: its load fails.
		return e.unsupported(0, "%s; the object has struct_ops maps, which need it, so libbpf's load fails", msg)
	}
	// The FUNCs of the program's own func_info: where the kernel refuses
	// one, cilium/ebpf's load fails (libbpf's drops the BTF: the finding
	// above).
	for _, f := range e.lp.Funcs {
		if msg := funcBTFProblem(f.BTF); msg != "" {
			return e.unsupported(0, "the program's BTF: %s", msg)
		}
	}
	return nil
}

// libbpfDropsBTF returns why libbpf loads the program without BTF, ""
// when it loads it with the object's: the kernel refuses the object's BTF
// (objectBTFFinding) and no struct_ops map needs it (kernel_needs_btf;
// libbpf's load fails then). libbpf then creates every map without BTF
// and loads every program without func_info and line_info
// (bpf_object__sanitize_and_load_btf: "BTF is optional, ignoring").
func (e *env) libbpfDropsBTF() string {
	if slices.ContainsFunc(e.maps, func(m *loader.Map) bool { return m != nil && m.Type == ebpf.StructOpsMap }) {
		return ""
	}
	return e.objectBTFFinding()
}

// objectBTFFinding returns, once per object BTF, why the kernel refuses
// it ("" where it takes it or the program is not loaded with it).
func (e *env) objectBTFFinding() string {
	if !e.opts.MapBTF.sharedWithProgram() || e.lp.ObjectTypes == nil {
		return ""
	}
	key := weak.Make(e.lp.ObjectTypes)
	v, ok := objectBTFProblems.Load(key)
	if !ok {
		var loaded bool
		v, loaded = objectBTFProblems.LoadOrStore(key, e.objectBTFProblem())
		if !loaded {
			runtime.AddCleanup(e.lp.ObjectTypes, func(k weak.Pointer[btf.Spec]) { objectBTFProblems.Delete(k) }, key)
		}
	}
	return v.(string)
}

// PrepareObject does the once-per-object set-up of verifying obj's
// programs with opts, so that a caller timing programs keeps it out of
// the first one's Duration, as Prepare does for the process: the
// kernel's parse of the object's whole BTF, which libbpf loads each
// program with (checkObjectBTF). Calling it is optional.
func PrepareObject(obj *loader.Object, opts Options) {
	for _, p := range obj.Programs {
		if p.Err == nil && p.ObjectTypes != nil {
			newEnv(obj, p, nil, opts).objectBTFFinding()
			return
		}
	}
}

// objectBTFProblems memoises, per object BTF, what objectBTFProblem
// finds: the walk visits every type of the BTF (thousands in an object
// built against vmlinux.h, a third of the time of a small program), and
// every program of an object shares it. The keys are weak: an entry goes
// with its BTF.
var objectBTFProblems sync.Map // weak.Pointer[btf.Spec] -> string

// objectBTFProblem returns why the kernel refuses the object's BTF, or
// "".
func (e *env) objectBTFProblem() string {
	for t := range e.lp.ObjectTypes.All() {
		if fn, ok := t.(*btf.Func); ok {
			if msg := funcBTFProblem(fn); msg != "" {
				return "the object's BTF, which libbpf loads the program with: " + msg
			}
			continue
		}
		s, ok := t.(*btf.Struct)
		if ok && refusesStructMeta(s) {
			return "the object's BTF, which libbpf loads the program with: " + refusedBTFReason(s)
		}
		if !ok || !slices.ContainsFunc(s.Members, func(m btf.Member) bool { return isGraphField(m.Type) }) {
			continue
		}
		if msg := e.graphRecordProblem(e.localRecord(s)); msg != "" {
			return fmt.Sprintf("the object's BTF, which libbpf loads the program with, has struct %s with %s", s.Name, msg)
		}
	}
	return ""
}

// isGraphField reports whether t is a graph root or node.
func isGraphField(t btf.Type) bool {
	switch classifyField(t).kind {
	case fieldListHead, fieldRBRoot, fieldListNode, fieldRBNode:
		return true
	}
	return false
}

// ownsRoots reports whether struct t holds a graph root.
func (e *env) ownsRoots(t btf.Type) bool {
	rec := e.localRecord(t)
	return rec.hasField(fieldListHead) || rec.hasField(fieldRBRoot)
}

// isListAPI is is_bpf_list_api_kfunc.
func isListAPI(name string) bool {
	switch name {
	case kfuncListPushFront, kfuncListPushBack, kfuncListPopFront, kfuncListPopBack, kfuncListFront, kfuncListBack:
		return true
	}
	return false
}

// isRBTreeAPI is is_bpf_rbtree_api_kfunc (and is_rbtree_lock_required_kfunc).
func isRBTreeAPI(name string) bool {
	switch name {
	case kfuncRBAdd, kfuncRBRemove, kfuncRBFirst, kfuncRBRoot, kfuncRBLeft, kfuncRBRight:
		return true
	}
	return false
}

// isGraphAPI is is_bpf_graph_api_kfunc.
func isGraphAPI(name string) bool {
	return isListAPI(name) || isRBTreeAPI(name) || name == kfuncRefcountAcquire
}

// graphArgKinds maps the graph structs a kfunc parameter points to, to
// their argument kinds.
var graphArgKinds = map[string]kfArgKind{
	"bpf_list_head": kfArgListHead,
	"bpf_list_node": kfArgListNode,
	"bpf_rb_root":   kfArgRBRoot,
	"bpf_rb_node":   kfArgRBNode,
}

// inRBTreeCallback is in_rbtree_lock_required_cb: the current frame is,
// or is called from, a callback that an rbtree kfunc (bpf_rbtree_add's
// less) calls, which runs with the tree's lock held.
func (e *env) inRBTreeCallback() bool {
	st := e.cur
	for i := int(st.CurFrame); i > 0; i-- {
		f := st.Frames[i]
		if f.InCallbackFn && isRBTreeAPI(kfuncCallName(e.prog[f.CallSite])) {
			return true
		}
	}
	return false
}

// checkGraphArg is the graph cases of check_kfunc_args: roots, nodes and
// refcounted objects, and less callbacks.
func (e *env) checkGraphArg(info *kfuncInfo, meta *kfuncMeta, i int, reg *states.Reg, kind kfArgKind) error {
	regno := i + 1
	if reg.Type == states.PtrToBTFID && e.local.fromMap[reg.Aux] && (kind == kfArgListHead || kind == kfArgRBRoot) {
		// A node of the map's BTF object fails the node check below,
		// and bpf_refcount_acquire keeps its BTF; a root would bring
		// that BTF's graph records along.
		return e.unsupported(e.insnIdx, "%s argument taken out of a map's kptr: its BTF is the map's, the program's or not by loader (--map-btf)", info.name)
	}
	switch kind {
	case kfArgListHead, kfArgRBRoot:
		if reg.Type != states.PtrToMapValue && !isAllocObj(reg) {
			return e.reject(e.insnIdx, "arg#%d expected pointer to map value or allocated object", i)
		}
		if isAllocObj(reg) && reg.RefObjID == 0 {
			return e.reject(e.insnIdx, "allocated object must be referenced")
		}
		rootKind := fieldListHead
		if kind == kfArgRBRoot {
			rootKind = fieldRBRoot
		}
		return e.processGraphRoot(meta, regno, reg, rootKind)
	case kfArgListNode:
		if !isAllocObj(reg) {
			return e.reject(e.insnIdx, "arg#%d expected pointer to allocated object", i)
		}
		if reg.RefObjID == 0 {
			return e.reject(e.insnIdx, "allocated object must be referenced")
		}
		return e.processGraphNode(meta, regno, reg, fieldListHead)
	case kfArgRBNode:
		if info.name == kfuncRBAdd {
			if !isAllocObj(reg) {
				return e.reject(e.insnIdx, "arg#%d expected pointer to allocated object", i)
			}
			if reg.RefObjID == 0 {
				return e.reject(e.insnIdx, "allocated object must be referenced")
			}
		} else {
			if reg.Flags&states.NonOwnRef == 0 && reg.RefObjID == 0 {
				return e.reject(e.insnIdx, "%s can only take non-owning or refcounted bpf_rb_node pointer", info.name)
			}
			if e.inRBTreeCallback() {
				return e.reject(e.insnIdx, "%s not allowed in rbtree cb", info.name)
			}
		}
		return e.processGraphNode(meta, regno, reg, fieldRBRoot)
	case kfArgRefcounted:
		return e.checkRefcountedArg(meta, i, reg)
	case kfArgCallback:
		if reg.Type != states.PtrToFunc {
			return e.reject(e.insnIdx, "arg%d expected pointer to func", i)
		}
		meta.subprog = int(reg.Aux)
	}
	return nil
}

// regRecord is reg_btf_record: the special fields of the map value or
// allocated object reg points to.
func (e *env) regRecord(reg *states.Reg) *mapRecord {
	if reg.Type == states.PtrToMapValue {
		return e.recordOf(e.mapAt(reg))
	}
	return e.localRecord(e.btfTypeOf(reg.Aux))
}

// fieldAt is btf_record_find: the field of the kind at exactly off.
func (r *mapRecord) fieldAt(off int64, kind fieldKind) *mapField {
	for i := range r.fields {
		if f := &r.fields[i]; f.kind == kind && int64(f.off) == off {
			return f
		}
	}
	return nil
}

// graphFieldArg is the part of __process_kf_arg_ptr_to_graph_root and
// _node common to roots and nodes: the field of the kind at the
// register's constant offset in its map value or object, with the
// record holding it.
func (e *env) graphFieldArg(regno int, reg *states.Reg, kind fieldKind) (*mapField, *mapRecord, error) {
	name := graphTypeNames[kind]
	if !reg.Var.IsConst() {
		return nil, nil, e.reject(e.insnIdx, "R%d doesn't have constant offset. %s has to be at the constant offset", regno, name)
	}
	rec := e.regRecord(reg)
	if rec.unsupported != "" {
		return nil, nil, e.unsupported(e.insnIdx, "%s argument: %s", name, rec.unsupported)
	}
	off := int64(reg.Off) + int64(reg.Var.Value)
	f := rec.fieldAt(off, kind)
	if f == nil {
		return nil, nil, e.reject(e.insnIdx, "%s not found at offset=%d", name, uint32(off))
	}
	return f, rec, nil
}

// processGraphRoot is __process_kf_arg_ptr_to_graph_root: a root of the
// kind at a constant offset, whose lock the path holds; the call's meta
// remembers it.
func (e *env) processGraphRoot(meta *kfuncMeta, regno int, reg *states.Reg, kind fieldKind) error {
	f, rec, err := e.graphFieldArg(regno, reg, kind)
	if err != nil {
		return err
	}
	name := graphTypeNames[kind]
	if !e.allocationLocked(reg) {
		return e.reject(e.insnIdx, "bpf_spin_lock at off=%d must be held for %s", rec.spinLockOff, name)
	}
	if meta.root != nil {
		return e.internal(e.insnIdx, "repeating %s arg", name)
	}
	meta.root = f
	return nil
}

// allocationLocked is check_reg_allocation_locked: the lock of the
// allocation reg points into (its map or the program's BTF, and its id)
// is held. When some other lock is held, the kernel logs so before its
// caller's message.
func (e *env) allocationLocked(reg *states.Reg) bool {
	ptr := lockPtrProgBTF
	if reg.Type == states.PtrToMapValue {
		ptr = reg.Aux + 1
	}
	if e.cur.ActiveLocks == 0 {
		return false
	}
	if e.findLock(reg.ID, ptr, true) < 0 {
		e.log.printf("held lock and object are not in the same allocation\n")
		return false
	}
	return true
}

// processGraphNode is __process_kf_arg_ptr_to_graph_node: a node of the
// root's node kind at a constant offset, in an object of the struct the
// root contains, at the root's node offset.
func (e *env) processGraphNode(meta *kfuncMeta, regno int, reg *states.Reg, rootKind fieldKind) error {
	nodeKind := nodeKindOf(rootKind)
	name := graphTypeNames[nodeKind]
	f, _, err := e.graphFieldArg(regno, reg, nodeKind)
	if err != nil {
		return err
	}
	off := int64(f.off)
	if meta.root == nil || meta.root.root == nil {
		return e.internal(e.insnIdx, "%s argument without its root", name)
	}
	root := meta.root.root
	have := e.btfTypeOf(reg.Aux)
	// btf_struct_ids_match compares BTF objects and ids: an object of a
	// map's own BTF is not the program's struct (kptrObjectAux).
	if reg.Aux != e.localAux(root.value) {
		return e.reject(e.insnIdx, "operation on %s expects arg#1 %s at offset=%d in struct %s, but arg is at offset=%d in struct %s",
			graphTypeNames[rootKind], name, root.nodeOff, root.value.TypeName(), off, have.TypeName())
	}
	meta.argAux, meta.insertOff = reg.Aux, int64(reg.Off)
	if off != int64(root.nodeOff) {
		return e.reject(e.insnIdx, "arg#1 offset=%d, but expected %s at offset=%d in struct %s", off, name, root.nodeOff, root.value.TypeName())
	}
	return nil
}

// checkRefcountedArg is the KF_ARG_PTR_TO_REFCOUNTED_KPTR case: an owning
// or non-owning reference to an object whose struct has a bpf_refcount
// (type_is_ptr_alloc_obj: not an untrusted one, which an RCU unlock makes
// of an object loaded from a kptr).
func (e *env) checkRefcountedArg(meta *kfuncMeta, i int, reg *states.Reg) error {
	if !isPtrAllocObj(reg) {
		return e.reject(e.insnIdx, "arg#%d is neither owning or non-owning ref", i)
	}
	t := e.btfTypeOf(reg.Aux)
	rec := e.localRecord(t)
	if rec.unsupported != "" {
		return e.unsupported(e.insnIdx, "bpf_refcount_acquire: %s", rec.unsupported)
	}
	if len(rec.fields) == 0 {
		// No btf_struct_meta, so no record: the kernel's internal
		// error, with a warning (check_kfunc_args).
		return e.verifierBug("Couldn't find btf_record")
	}
	if rec.refcountOff < 0 {
		return e.reject(e.insnIdx, "arg#%d doesn't point to a type with bpf_refcount field", i)
	}
	meta.argOwningRef = reg.Flags&states.NonOwnRef == 0 && reg.RefObjID != 0
	meta.argAux = reg.Aux
	return nil
}

// setRBAddCallbackState is set_rbtree_add_callback_state: less(a, b)
// gets two non-owning references to nodes of the root's struct.
func setRBAddCallbackState(root *graphRoot) calleeSetup {
	return func(e *env, _, callee *states.Frame) {
		for r := 1; r <= 2; r++ {
			e.markGraphNode(&callee.Regs()[r], root)
			e.setNonOwning(&callee.Regs()[r])
		}
	}
}

// markGraphNode is mark_reg_graph_node: r points to a node of the root's
// struct, at its node member.
func (e *env) markGraphNode(r *states.Reg, root *graphRoot) {
	r.MarkPtr(states.PtrToBTFID, states.MemAlloc)
	r.Aux = e.localAux(root.value)
	r.Off = int32(root.nodeOff)
}

// setNonOwning is ref_set_non_owning: r becomes a non-owning reference,
// RCU protected too when its struct has a bpf_refcount. Callers hold the
// lock (a root argument needed it).
func (e *env) setNonOwning(r *states.Reg) {
	r.Flags |= states.NonOwnRef
	if e.localRecord(e.btfTypeOf(r.Aux)).refcountOff >= 0 {
		r.Flags |= states.MemRCU
	}
}

// convertOwningNonOwning is ref_convert_owning_non_owning followed by
// release_reference: after a push or add, the registers holding the
// object's reference hold a non-owning one, and the reference is gone.
func (e *env) convertOwningNonOwning(id uint32) error {
	if id == 0 {
		return e.internal(e.insnIdx, "ref_obj_id is zero for owning -> non-owning conversion")
	}
	forEachReg(e.cur, func(r *states.Reg) {
		if r.RefObjID == id {
			r.RefObjID = 0
			e.setNonOwning(r)
		}
	})
	return e.releaseReference(id)
}

// invalidateNonOwningRefs is invalidate_non_owning_refs (bpf_spin_unlock):
// non-owning references become unknown scalars (mark_reg_invalid of a
// privileged load).
func (e *env) invalidateNonOwningRefs() {
	forEachReg(e.cur, func(r *states.Reg) {
		if r.Type == states.PtrToBTFID && r.Flags&states.NonOwnRef != 0 {
			e.markUnknown(r)
		}
	})
}

// graphCallEffects is the part of check_kfunc_call between the argument
// checks and the result for graph kfuncs: bpf_rbtree_add's callback, then
// the pushed or added object's conversion to a non-owning reference.
func (e *env) graphCallEffects(info *kfuncInfo, meta *kfuncMeta) error {
	switch info.name {
	case kfuncRBAdd:
		if err := e.pushCallbackCall(meta.subprog, setRBAddCallbackState(meta.root.root)); err != nil {
			return err
		}
	case kfuncListPushFront, kfuncListPushBack:
	default:
		return nil
	}
	return e.convertOwningNonOwning(e.regs()[2].RefObjID)
}

// setGraphReturn is the graph part of check_special_kfunc: r0 is a node
// of the root's struct (pops, removals and peeks) or, for
// bpf_refcount_acquire, the argument's object.
func (e *env) setGraphReturn(info *kfuncInfo, meta *kfuncMeta) (bool, error) {
	r0 := &e.regs()[0]
	switch {
	case info.name == kfuncRefcountAcquire:
		if meta.argAux == 0 {
			return true, e.internal(e.insnIdx, "bpf_refcount_acquire without an argument type")
		}
		r0.MarkPtr(states.PtrToBTFID, states.MemAlloc)
		r0.Aux = meta.argAux
	case isGraphAPI(info.name):
		if meta.root == nil || meta.root.root == nil {
			return true, e.internal(e.insnIdx, "%s without its root", info.name)
		}
		e.markGraphNode(r0, meta.root.root)
	default:
		return false, nil
	}
	return true, nil
}

// returnsGraphNode reports whether a kfunc returns a pointer to a list or
// rbtree node (is_list_node_type, is_rbtree_node_type of its return).
func returnsGraphNode(info *kfuncInfo) bool {
	p, ok := skipModifiers(info.proto.Return).(*btf.Pointer)
	if !ok {
		return false
	}
	name := skipModifiers(p.Target).TypeName()
	return name == "bpf_list_node" || name == "bpf_rb_node"
}

// isGraphCallUnderLockAllowed is the graph part of kfunc_spin_allowed.
func isGraphCallUnderLockAllowed(in insn.Insn) bool {
	return in.Off == 0 && isGraphAPI(kfuncCallName(in))
}

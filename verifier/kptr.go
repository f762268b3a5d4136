package verifier

// Kptrs: kernel object pointers kept in map values (btf_find_kptr,
// check_map_kptr_access, map_kptr_match_type, process_kptr_func and the
// bpf_kptr_xchg parts of check_helper_call).
//
// A pointer member tagged "kptr_untrusted" holds a kernel object the map
// does not own: the program stores a pointer of that struct (or NULL)
// into it, and a load gives an untrusted pointer that may be NULL. One
// tagged "kptr" holds a reference the map owns: only bpf_kptr_xchg moves a
// referenced object in (releasing the program's reference) and the old one
// out (acquiring it); a plain load gives an RCU pointer that may be NULL
// inside an RCU read section when the struct is RCU protected, an
// untrusted one otherwise. A kptr to a struct of the program's own BTF
// holds an object of bpf_obj_new (localobj.go): bpf_kptr_xchg takes it
// out as an allocated object the program owns; a plain load gives an
// untrusted pointer (an RCU-protected allocated one for a refcounted
// struct inside an RCU read section). Moving such an object in makes the
// kernel compare the BTF object the map was created with and the
// program's, one object under libbpf, two under cilium/ebpf: modelled as
// Options.MapBTF says, unsupported without it (localKptrTypeMatch). An
// object taken out is likewise a type of the map's BTF (kptrObjectAux).
// A per-CPU kptr ("percpu_kptr") holds an object of bpf_percpu_obj_new the
// map owns, as a referenced kptr does; a plain load gives an RCU-protected
// per-CPU pointer (percpu.go) inside an RCU read section, an untrusted one
// outside. A uptr ("uptr", task storage only) points to user memory the
// kernel pins, a struct of the program's own types of at most a page:
// a load gives read-write memory of the struct's size that may be NULL
// (mark_uptr_ld_reg), and a store is refused.

import (
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// kptrKind is the kind of a kptr field (its type tag).
type kptrKind uint8

const (
	kptrUnref  kptrKind = iota + 1 // "kptr_untrusted" (BPF_KPTR_UNREF)
	kptrRef                        // "kptr" (BPF_KPTR_REF)
	kptrPercpu                     // "percpu_kptr" (BPF_KPTR_PERCPU)
	kptrUptr                       // "uptr" (BPF_UPTR)
)

// kptrTags maps the BTF type tags of kptr fields to their kind.
var kptrTags = map[string]kptrKind{
	"kptr_untrusted": kptrUnref, "kptr": kptrRef, "percpu_kptr": kptrPercpu, "uptr": kptrUptr,
}

// kptrFieldName is btf_field_type_name for a kptr kind.
func (k kptrKind) fieldName() string {
	switch k {
	case kptrPercpu:
		return "percpu_kptr"
	case kptrUptr:
		return "uptr"
	}
	return "kptr"
}

// kptrField is what the kernel's btf_field_kptr says of a kptr field.
type kptrField struct {
	kind kptrKind
	// target is the vmlinux id of the struct the kptr points to.
	target uint32
	// local is the program struct the kptr points to when vmlinux has
	// none of that name (btf_parse_kptr: an object of bpf_obj_new).
	local btf.Type
	// uptrSize is the size of the struct a uptr points to.
	uptrSize int
	// unsupported says why vercheck does not model the field (the map may
	// not even be created by the kernel).
	unsupported string
	// accessUnsupported says why vercheck does not model loads and stores
	// of a field whose bpf_kptr_xchg it does model.
	accessUnsupported string
	// noDtor names the kernel struct of a referenced kptr that has no
	// destructor kfunc: btf_parse_kptr fails (-ENOENT), and with it the
	// record.
	noDtor string
	// invalid is set when btf_find_kptr refuses the field (-EINVAL): its
	// pointer's type tag is none of the kptr tags, a second type tag
	// follows it, or it points to something other than a struct (a
	// forward declaration, a union). btf_parse_fields then fails for the
	// whole struct, whose special fields are plain memory (the map's
	// record is an error).
	invalid bool
	// owner is the map whose value holds the field: its BTF is the
	// field's (kptrObjectAux).
	owner *loader.Map
}

// kptrDtorStructs are the kernel structs a referenced kptr may point to:
// those with a destructor kfunc registered (btf_find_dtor_kfunc), which
// the map calls on the objects it still owns when it is freed. The
// prog_test_* structs are net/bpf/test_run.c's, built into vmlinux.
var kptrDtorStructs = map[string]bool{
	"task_struct": true, "cgroup": true, "bpf_cpumask": true, "bpf_crypto_ctx": true,
	"prog_test_ref_kfunc": true, "prog_test_member": true,
}

// skbDtor is the destructor kfunc of struct sk_buff, which only kernels
// built with BPF qdiscs (CONFIG_NET_SCH_BPF) register.
const skbDtor = "bpf_kfree_skb"

// hasKptrDtor reports whether the kernel struct name has a destructor
// kfunc (kptrDtorStructs, or sk_buff where vmlinux has skbDtor).
func hasKptrDtor(name string) bool {
	if kptrDtorStructs[name] {
		return true
	}
	if name != "sk_buff" {
		return false
	}
	return btfFuncByName(skbDtor) != nil
}

// rcuProtectedStructs are rcu_protected_types: kernel objects freed only
// after an RCU grace period, so a referenced kptr to one may be read
// without a reference inside an RCU read section.
var rcuProtectedStructs = map[string]bool{
	"cgroup": true, "bpf_cpumask": true, "task_struct": true, "bpf_crypto_ctx": true,
	"prog_test_ref_kfunc": true,
}

// parseKptr is btf_find_kptr and btf_parse_kptr for a pointer member: the
// kptr it declares, or nil when it is no kptr. The pointed-to struct is
// looked up by name in vmlinux, as the kernel does.
func parseKptr(p *btf.Pointer) *kptrField {
	tag, ok := p.Target.(*btf.TypeTag)
	if !ok {
		return nil
	}
	kind, known := kptrTags[tag.Value]
	f := &kptrField{kind: kind}
	target := skipModifiers(tag.Type)
	_, extraTag := tag.Type.(*btf.TypeTag)
	_, isStructKind := target.(*btf.Struct)
	switch {
	case !known:
		f.unsupported, f.invalid = "kptr field with the unknown tag "+tag.Value, true
	case extraTag:
		f.unsupported, f.invalid = "kptr field with a second type tag", true
	case !isStructKind && kind == kptrUptr:
		// btf_find_kptr ignores a uptr where it looks for kptrs only
		// (btf_parse_struct_metas) and refuses it in a map value.
		f.unsupported = "uptr to something that is not a struct"
	case !isStructKind:
		// btf_find_kptr: "Only pointer to struct is allowed".
		f.unsupported, f.invalid = "kptr to something that is not a struct", true
	case target.TypeName() == "":
		f.unsupported = "kptr to an anonymous struct"
	case kind == kptrUptr:
		f.unsupported, f.uptrSize = parseUptr(target)
	default:
		k := btfStructByName(target.TypeName())
		if k != nil {
			f.target = btfTypeID(k)
		}
		switch {
		case f.target == 0:
			f.local = target
		case kind == kptrPercpu:
			// bpf_kptr_xchg treats it as a referenced kptr of a
			// kernel struct (no destructor: the kernel never
			// calls one for a per-CPU kptr).
			f.accessUnsupported = "percpu_kptr to kernel struct " + target.TypeName()
		case kind == kptrRef && !hasKptrDtor(target.TypeName()):
			f.unsupported = "referenced kptr to struct " + target.TypeName() + ", which has no destructor"
			f.noDtor = target.TypeName()
		}
	}
	return f
}

// pageSize is PAGE_SIZE on x86-64: the most memory a uptr may pin.
const pageSize = 4096

// parseUptr is what btf_parse_kptr and btf_check_and_fixup_fields say of
// a uptr to struct target: the struct's size, or why the kernel refuses
// to create the map (a struct vmlinux also has, of size zero or above a
// page), for which vercheck gives no verdict.
func parseUptr(target btf.Type) (unsupported string, size int) {
	size, _ = resolveSize(target)
	switch {
	case btfStructByName(target.TypeName()) != nil:
		return "uptr to kernel struct " + target.TypeName() + " (the kernel refuses the map)", 0
	case size == 0 || size > pageSize:
		return "uptr to a struct of " + fmt.Sprint(size) + " bytes (the kernel refuses the map)", 0
	}
	return "", size
}

// owning reports whether the map owns the object the kptr holds (a
// referenced or per-CPU kptr): only bpf_kptr_xchg moves one in or out.
func (k *kptrField) owning() bool {
	return k.kind == kptrRef || k.kind == kptrPercpu
}

// checkKptrFieldAccess is the kptr case of check_map_access: an access of
// size bytes at off (into the value, fixed and variable offset of reg
// aside) touching kptr field f. direct is false for a helper's access.
func (e *env) checkKptrFieldAccess(reg *states.Reg, off, size int, f *mapField, direct bool) error {
	name := f.kptr.kind.fieldName()
	switch {
	case !direct:
		return e.reject(e.insnIdx, "%s cannot be accessed indirectly by helper", name)
	case !reg.Var.IsConst():
		return e.reject(e.insnIdx, "%s access cannot have variable offset", name)
	case int64(f.off) != int64(off)+int64(reg.Var.Value):
		return e.reject(e.insnIdx, "%s access misaligned expected=%d off=%d", name, f.off, uint64(int64(off)+int64(reg.Var.Value)))
	case size != pointerSize:
		return e.reject(e.insnIdx, "%s access size must be BPF_DW", name)
	}
	return nil
}

// kptrAt returns the kptr field the access at off through map value
// pointer reg starts exactly at (btf_record_find), or nil.
func (e *env) kptrAt(reg *states.Reg, off int) *mapField {
	if !reg.Var.IsConst() {
		return nil
	}
	return e.recordOf(e.mapAt(reg)).kptrFieldAt(int64(off)+int64(reg.Var.Value), true)
}

// checkMapKptrAccess is check_map_kptr_access: the load or store of the
// current instruction at kptr field f, loading into dst or storing from
// valueReg (-1 for an immediate store).
func (e *env) checkMapKptrAccess(f *mapField, valueReg int, dst *states.Reg) error {
	in := e.prog[e.insnIdx]
	k := f.kptr
	if in.Mode() != insn.ModeMEM {
		return e.reject(e.insnIdx, "kptr in map can only be accessed using BPF_MEM instruction mode")
	}
	if k.unsupported != "" {
		return e.unsupported(e.insnIdx, "%s", k.unsupported)
	}
	if k.accessUnsupported != "" {
		return e.unsupported(e.insnIdx, "%s", k.accessUnsupported)
	}
	if in.Class() != insn.ClassLDX && k.owning() {
		return e.reject(e.insnIdx, "store to referenced kptr disallowed")
	}
	if in.Class() != insn.ClassLDX && k.kind == kptrUptr {
		return e.reject(e.insnIdx, "store to uptr disallowed")
	}
	switch in.Class() {
	case insn.ClassLDX:
		if k.kind == kptrUptr {
			e.markUptrLoad(k, dst)
			return nil
		}
		if k.local != nil {
			return e.loadLocalKptr(k, dst)
		}
		dst.MarkPtr(states.PtrToBTFID, e.kptrLoadFlags(k))
		dst.Aux = k.target
		dst.ID = e.newID()
	case insn.ClassSTX:
		val := &e.regs()[valueReg]
		if !val.IsNull() {
			return e.mapKptrMatchType(k, val, valueReg)
		}
		if !e.opts.MissingFixes.Has(stablefix.KptrNullStorePrecise) {
			// The NULL skipped the type match: a state storing
			// another number must not prune against this one.
			return e.markChainPrecision(valueReg)
		}
	case insn.ClassST:
		if in.Imm != 0 {
			return e.reject(e.insnIdx, "BPF_ST imm must be 0 when storing to kptr at off=%d", f.off)
		}
	default:
		return e.reject(e.insnIdx, "kptr in map can only be accessed using BPF_LDX/BPF_STX/BPF_ST")
	}
	return nil
}

// markUptrLoad is mark_uptr_ld_reg: the user memory a uptr points to,
// as big as its struct, NULL until user space sets it.
func (e *env) markUptrLoad(k *kptrField, dst *states.Reg) {
	dst.MarkPtr(states.PtrToMem, states.MaybeNull)
	dst.Range = int32(k.uptrSize)
	dst.ID = e.newID()
}

// kptrLoadFlags is btf_ld_kptr_type for a kptr to a kernel struct: the
// loaded pointer may be NULL, and is an RCU pointer when the map owns an
// RCU-protected object and the path is in an RCU read section, untrusted
// otherwise.
func (e *env) kptrLoadFlags(k *kptrField) states.RegFlags {
	if k.kind == kptrRef && rcuProtectedStructs[btfTypeName(k.target)] && e.inRCU() {
		return states.MaybeNull | states.MemRCU
	}
	return states.MaybeNull | states.PtrUntrusted
}

// mapKptrMatchType is map_kptr_match_type: the pointer in regno, stored
// into kptr k or exchanged into it, must point to k's struct (exactly, for
// a referenced kptr) and carry no flag but those the kptr kind permits.
func (e *env) mapKptrMatchType(k *kptrField, reg *states.Reg, regno int) error {
	// A kernel object may carry trust flags, an object of the program's
	// types only its allocation flag.
	perm := states.MaybeNull | states.PtrTrusted | states.MemRCU
	if k.kind == kptrUnref {
		perm |= states.PtrUntrusted
	}
	if isLocalAux(reg.Aux) {
		perm = states.MaybeNull | states.MemAlloc
		if k.kind == kptrPercpu {
			perm |= states.MemPercpu
		}
	}
	ok := reg.Type == states.PtrToBTFID && reg.Flags&^perm == 0
	if ok && !e.opts.MissingFixes.Has(stablefix.KptrPercpuMatch) {
		// A per-CPU kptr reads back as per-CPU memory: what goes in
		// must be per-CPU, and refused here the message names no
		// struct. Without the fix a plain object goes into a per-CPU
		// kptr of its struct (under libbpf, where the object and the
		// kptr are of one BTF); a per-CPU one never goes into a plain
		// kptr (the permitted flags).
		ok = (k.kind == kptrPercpu) == (reg.Flags&states.MemPercpu != 0)
	}
	regName := ""
	if ok {
		regName = e.btfNameOf(reg.Aux)
	}
	if ok {
		if err := e.checkPtrOffReg(reg, regno, true); err != nil {
			return err
		}
		same, err := e.kptrTypeMatch(k, reg)
		if err != nil {
			return err
		}
		ok = same
	}
	if ok {
		return nil
	}
	name := k.targetName()
	msg := sprintf("invalid kptr access, R%d type=%s%s expected=ptr_%s", regno, regTypeStr(reg), regName, name)
	if k.kind == kptrUnref {
		msg += sprintf(" or untrusted_ptr_%s", name)
	}
	return e.reject(e.insnIdx, "%s", msg)
}

// targetName is the name of the struct the kptr points to.
func (k *kptrField) targetName() string {
	if k.local != nil {
		return k.local.TypeName()
	}
	return btfTypeName(k.target)
}

// kptrTypeMatch is the btf_struct_ids_match of map_kptr_match_type: a
// kernel pointer matches a kernel kptr's struct (or, for an untrusted
// kptr, the struct at its offset); a program's object never matches a
// kernel struct, nor a kernel pointer a program struct, nor, for a
// referenced or per-CPU kptr, another program struct. Whether an object
// of the program's BTF matches a kptr to its own struct depends on the
// loader (localKptrTypeMatch).
func (e *env) kptrTypeMatch(k *kptrField, reg *states.Reg) (bool, error) {
	regLocal := isLocalAux(reg.Aux)
	switch {
	case regLocal && k.local != nil && k.kind != kptrUnref && e.btfTypeOf(reg.Aux) != k.local:
		// A referenced or per-CPU kptr wants its own type exactly (a
		// strict btf_struct_ids_match): another type of the program
		// never matches, in one BTF object or two.
		return false, nil
	case regLocal && k.local != nil:
		return e.localKptrTypeMatch(k, reg)
	case regLocal || k.local != nil:
		if k.kind == kptrUnref {
			// The walk of the register's struct cannot reach a struct
			// of the other BTF, but it logs why it stopped.
			have := btfTypeByID(reg.Aux)
			if regLocal {
				have = e.btfTypeOf(reg.Aux)
			}
			if have != nil {
				_, reason, _ := btfStructIDsMatch(have, int(reg.Off), nil, false)
				e.logWalkReason(reason)
			}
		}
		return false, nil
	}
	same, reason, err := btfStructIDsMatch(btfTypeByID(reg.Aux), int(reg.Off), btfTypeByID(k.target), k.kind != kptrUnref)
	e.logWalkReason(reason)
	if err != nil {
		return false, e.unsupported(e.insnIdx, "kptr store of a pointer at off %d into struct %s: %v", reg.Off, btfTypeName(reg.Aux), err)
	}
	return same, nil
}

// localKptrTypeMatch is btf_struct_ids_match for an object of the
// program's BTF moved into a kptr to a program struct: the kptr's struct
// is the map BTF's (Options.MapBTF). Under libbpf that is the program's
// BTF object, and the object must be of the kptr's struct, at offset 0;
// under cilium/ebpf it is another BTF object, which nothing of the
// program's matches. A kptr field of an allocated object (no owning map)
// is of the program's BTF under any loader.
func (e *env) localKptrTypeMatch(k *kptrField, reg *states.Reg) (bool, error) {
	if k.owner != nil && !e.opts.MapBTF.sharedWithProgram() {
		// Only an object of the map's own BTF: one taken out of a
		// kptr of the same map.
		return reg.Off == 0 && reg.Aux == e.kptrObjectAux(k), nil
	}
	if reg.Off != 0 && k.kind == kptrUnref {
		return false, e.unsupported(e.insnIdx, "kptr store of an object of the program's type %s at off %d", e.btfNameOf(reg.Aux), reg.Off)
	}
	return reg.Off == 0 && e.btfTypeOf(reg.Aux) == k.local, nil
}

// checkKptrXchgDest is process_kptr_func for bpf_kptr_xchg's first
// argument: a map value pointer exactly at a referenced kptr field, whose
// field the call's meta remembers.
func (e *env) checkKptrXchgDest(regno int, meta *callMeta) error {
	reg := &e.regs()[regno]
	var rec *mapRecord
	switch {
	case isAllocObj(reg):
		// A kptr field of an object of the program's own type
		// (type_is_ptr_alloc_obj: the record of its struct). Its offset
		// passes check_func_arg_reg_off first: a fixed one only.
		if err := e.checkPtrOffReg(reg, regno, true); err != nil {
			return err
		}
		rec = e.localRecord(e.btfTypeOf(reg.Aux))
	case reg.Type != states.PtrToMapValue || reg.MaybeNull():
		// check_reg_type: kptr_xchg_dest_types are a map value and
		// PTR_TO_BTF_ID | MEM_ALLOC exactly, so an allocated object
		// with any other flag (maybe-NULL, per-CPU, RCU, a non-owning
		// reference) is refused as any other type.
		return e.reject(e.insnIdx, "R%d type=%s expected=map_value, ptr_", regno, regTypeStr(reg))
	default:
		m := e.mapAt(reg)
		rec = e.recordOf(m)
		if !rec.hasBTF {
			return e.reject(e.insnIdx, "map '%s' has to have BTF in order to use bpf_kptr_xchg", e.kernelMapNameOf(m))
		}
		meta.mapIdx = int(reg.Aux)
	}
	if rec.unsupported != "" {
		return e.unsupported(e.insnIdx, "bpf_kptr_xchg: %s", rec.unsupported)
	}
	if !reg.Var.IsConst() {
		return e.reject(e.insnIdx, "R%d doesn't have constant offset. kptr has to be at the constant offset", regno)
	}
	if !rec.hasKptr() {
		return e.reject(e.insnIdx, "R%d has no valid kptr", regno)
	}
	at := int64(reg.Off) + int64(reg.Var.Value)
	f := rec.kptrFieldAt(at, false)
	switch {
	case f == nil:
		return e.reject(e.insnIdx, "off=%d doesn't point to kptr", at)
	case f.kptr.unsupported != "":
		return e.unsupported(e.insnIdx, "%s", f.kptr.unsupported)
	case !f.kptr.owning():
		return e.reject(e.insnIdx, "off=%d kptr isn't referenced kptr", at)
	}
	meta.kptr = f.kptr
	return nil
}

// kptrFieldAt returns the record's kptr field at offset at, or nil; a
// uptr only with uptr (btf_record_find with BPF_KPTR | BPF_UPTR, as for
// loads and stores, or BPF_KPTR alone, as for bpf_kptr_xchg).
func (r *mapRecord) kptrFieldAt(at int64, uptr bool) *mapField {
	for i := range r.fields {
		if f := &r.fields[i]; f.kptr != nil && int64(f.off) == at && (uptr || f.kptr.kind != kptrUptr) {
			return f
		}
	}
	return nil
}

// hasKptr reports whether the record holds a kptr field of a kind
// bpf_kptr_xchg takes (BPF_KPTR: not a uptr).
func (r *mapRecord) hasKptr() bool {
	for _, f := range r.fields {
		if f.kptr != nil && f.kptr.kind != kptrUptr {
			return true
		}
	}
	return false
}

package verifier

// Kernel BTF: the running kernel's type information (/sys/kernel/btf/vmlinux)
// and the walk the kernel's btf_struct_access makes through a struct when a
// program loads through a BTF-typed pointer (PTR_TO_BTF_ID).
//
// A PTR_TO_BTF_ID register keeps the vmlinux type id of the struct it points
// to in Reg.Aux (module and program BTF are not modelled). A load at a
// constant offset walks the struct's members down to the one holding the
// bytes: a scalar member yields an unknown scalar, a pointer member read at
// its full width yields another BTF pointer (or a scalar when it points to
// something that is not a struct). How much the new pointer is trusted
// depends on the old one and on the field (checkPtrToBTFAccess).

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cilium/ebpf"

	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// ptrSize is the size of a kernel pointer on the 64-bit targets vercheck
// models.
const ptrSize = 8

// bitsPerByte converts BTF member offsets (in bits) to bytes.
const bitsPerByte = 8

// maxStructWalkDepth bounds the nesting the struct walk follows, as the
// kernel bounds its own loop; deeper types are not walked.
const maxStructWalkDepth = 32

// kernelBTF is the vmlinux BTF, the loader's copy (one parse per process).
// loadKernelBTF is a variable so tests can run without kernel BTF.
var (
	kernelBTFOnce sync.Once
	kernelBTFSpec *btf.Spec
	kernelBTFErr  error
	loadKernelBTF = loader.KernelBTF
)

// Prepare does the once-per-process setup that verification of some
// programs needs (parsing the running kernel's BTF) and that of every
// program does (reading the running kernel's build facts, RunningBuild:
// its configuration from /proc/config.gz, ~10 ms in the first program's
// Duration), so that a caller timing programs can keep it out of the
// first one's Duration. Calling it is optional; its error is the one
// those programs would report.
//
// The kernel's BTF is decoded lazily, type by type, and most of vmlinux is
// one connected graph (sk_buff reaches sock, task_struct, file,
// net_device...): the first program that touches any of it paid for
// decoding the whole graph (8-14 ms here, a hundred times a small
// program's verification) inside its own Duration. Prepare decodes it
// once, as the kernel has its BTF decoded from boot.
func Prepare() error {
	_ = RunningBuild()
	spec, err := vmlinux()
	if err != nil {
		return err
	}
	_, _ = spec.AnyTypeByName(warmType)
	return nil
}

// warmType is a type of vmlinux's large connected graph of types.
const warmType = "sk_buff"

// vmlinux returns the running kernel's BTF.
func vmlinux() (*btf.Spec, error) {
	kernelBTFOnce.Do(func() {
		kernelBTFSpec, kernelBTFErr = loadKernelBTF()
		if kernelBTFErr != nil {
			kernelBTFErr = fmt.Errorf("load kernel btf: %w", kernelBTFErr)
		}
	})
	return kernelBTFSpec, kernelBTFErr
}

// vmlinuxType is the running kernel's type of kind T named name; false
// when there is none (or no kernel BTF).
func vmlinuxType[T btf.Type](name string) (T, bool) {
	var t T
	spec, err := vmlinux()
	if err != nil || spec.TypeByName(name, &t) != nil {
		return t, false
	}
	return t, true
}

// btfTypeByID returns vmlinux type id, or nil when unknown.
func btfTypeByID(id uint32) btf.Type {
	spec, err := vmlinux()
	if err != nil {
		return nil
	}
	t, err := spec.TypeByID(btf.TypeID(id))
	if err != nil {
		return nil
	}
	return t
}

// btfTypeID returns the vmlinux id of t (0 when t is not in vmlinux).
func btfTypeID(t btf.Type) uint32 {
	spec, err := vmlinux()
	if err != nil {
		return 0
	}
	id, err := spec.TypeID(t)
	if err != nil {
		return 0
	}
	return uint32(id)
}

// btfTypeName is the name the log prints after "ptr_" for a BTF pointer.
func btfTypeName(id uint32) string {
	t := btfTypeByID(id)
	if t == nil {
		return ""
	}
	return t.TypeName()
}

// isStruct reports a struct or union (btf_type_is_struct).
func isStruct(t btf.Type) bool {
	switch t.(type) {
	case *btf.Struct, *btf.Union:
		return true
	}
	return false
}

// isScalarType is btf_type_is_scalar: an int or an enum of kind ENUM.
// An ENUM64 is none (btf_type_is_enum tests the kind ENUM only); cilium/ebpf
// decodes both kinds into btf.Enum and an 8-byte one is an ENUM64 (it
// encodes exactly those as ENUM64, as clang emits them).
func isScalarType(t btf.Type) bool {
	switch v := t.(type) {
	case *btf.Int:
		return true
	case *btf.Enum:
		return v.Size != 8
	}
	return false
}

// isVoid reports the void type.
func isVoid(t btf.Type) bool {
	_, ok := t.(*btf.Void)
	return ok || t == nil
}

// structMembers returns the members and size of a struct or union.
func structMembers(t btf.Type) ([]btf.Member, uint32, string) {
	switch s := t.(type) {
	case *btf.Struct:
		return s.Members, s.Size, s.Name
	case *btf.Union:
		return s.Members, s.Size, s.Name
	}
	return nil, 0, ""
}

// walkKind is what a struct walk found at the accessed offset.
type walkKind uint8

const (
	walkScalar       walkKind = iota // plain data: the load yields a scalar
	walkPtr                          // a pointer to a struct: a new BTF pointer
	walkStruct                       // a nested struct starting at the offset (btfNestedStruct only)
	walkPtrUntrusted                 // a pointer to anything but a struct: untrusted read-only memory
)

// walkResult is the outcome of btfStructWalk.
type walkResult struct {
	kind walkKind
	// id is the vmlinux id of the pointed-to struct (walkPtr).
	id uint32
	// flags are the pointer's type-tag flags (__rcu, __user, __percpu).
	flags states.RegFlags
	// field is the member name the pointer was read from.
	field string
	// nested is the struct or union found by a walkStruct.
	nested btf.Type
}

// errWalkUnsupported marks struct shapes the walk does not model.
var errWalkUnsupported = errors.New("struct layout not modelled")

// errWalkZeroSizeElem marks a read past a struct into a flexible array of
// empty structs: btf_struct_walk takes the offset modulo the element's
// size, 0, and the 6.18 kernel oopses (a divide error; 7.x refuses it).
var errWalkZeroSizeElem = errors.New("a flexible array of empty structs, whose walk divides by their size 0")

// btfStructWalk is btf_struct_walk for a read of size bytes at off inside
// struct t. A rejection is returned as a *RejectError-ready message.
//
// The walk descends into nested structs and arrays: an array is seen as its
// elements laid end to end (multi-dimensional arrays flattened), while a
// scalar read may run on past its element up to the end of the whole array.
// Reads that start in a hole, or straddle into a member from the bytes
// before it, find no field. Crossing a union of several members or entering
// a flexible array makes the walk untrusted, as in the kernel: scalar reads
// there skip the end-of-member check, and pointers found there are
// untrusted.
func btfStructWalk(t btf.Type, off, size int) (walkResult, string, error) {
	return structWalk(t, off, size, walkOpts{})
}

// walkOpts are the variants of the struct walk.
type walkOpts struct {
	// stopAtStruct makes the walk return a nested struct starting at the
	// offset (btfNestedStruct).
	stopAtStruct bool
	// local walks a type of the program's BTF for an allocated object:
	// no flexible array tail is walked, and a pointer member is plain
	// data (btf_struct_access returns SCALAR_VALUE for WALK_PTR there).
	local bool
}

// btfNestedStruct is the one-byte btf_struct_walk that btf_struct_ids_match
// makes at off: the struct or union member (or array element) starting
// exactly there, found by descending through the members holding off. ok is
// false when a scalar, a pointer or nothing lies there; reason is then the
// walk's log line, if it has one (a pointer member read by one byte).
func btfNestedStruct(t btf.Type, off int) (nested btf.Type, ok bool, reason string, err error) {
	res, msg, err := structWalk(t, off, 1, walkOpts{stopAtStruct: true})
	if err != nil || msg != "" || res.kind != walkStruct {
		return nil, false, msg, err
	}
	return res.nested, true, "", nil
}

// structWalk is btf_struct_walk; stopAtStruct makes it return WALK_STRUCT
// for a nested struct starting at the offset, as the kernel's walk does,
// instead of going on into it (as btf_struct_access's loop goes on with
// offset 0 in the nested struct, which reaches the same field).
func structWalk(t btf.Type, off, size int, opts walkOpts) (walkResult, string, error) {
	untrusted := false
	for depth := 0; depth < maxStructWalkDepth; depth++ {
		t = skipModifiers(t)
		members, tsize, tname := structMembers(t)
		if !isStruct(t) {
			// Only the first type can be one (a global function's
			// arg:trusted pointer to an int or an enum): the walk
			// descends into structs only.
			return walkResult{}, fmt.Sprintf("Type '%s' is not a struct", btfName(t)), nil
		}
		tname = logTypeName(tname)
		if u, ok := t.(*btf.Union); ok && len(u.Members) != 1 {
			untrusted = true
		}
		if off < 0 {
			return negativeOffWalk(members, tsize, tname, off, size)
		}
		if off+size > int(tsize) {
			next, scalar, ok := flexArrayTail(members, off)
			if opts.local {
				ok = false
			}
			if !ok {
				return walkResult{}, fmt.Sprintf("access beyond struct %s at off %d size %d", tname, off, size), nil
			}
			if scalar {
				return walkResult{kind: walkScalar}, "", nil
			}
			// The running 6.18 kernel walks a flexible array's elements
			// untrusted, as it walks unions: their count is unknown, so
			// pointers found there are untrusted and scalar reads skip
			// the end-of-member check (sd_btf_flex_array.c, checked
			// against the live kernel; the 6.12 source has no such rule).
			untrusted = true
			esize, err := btf.Sizeof(next)
			if err != nil {
				return walkResult{}, "", errWalkUnsupported
			}
			if esize == 0 {
				return walkResult{}, "", errWalkZeroSizeElem
			}
			moff := int(members[len(members)-1].Offset / bitsPerByte)
			off = (off - moff) % esize
			t = next
			continue
		}
		next := btf.Type(nil)
		for _, m := range members {
			moff := int(m.Offset / bitsPerByte)
			if off+size <= moff {
				// Members are in offset order: nothing further holds
				// the access.
				break
			}
			if m.BitfieldSize > 0 {
				endBit := int(m.Offset + m.BitfieldSize)
				endByte := (endBit + bitsPerByte - 1) / bitsPerByte
				if off <= moff && endByte <= off+size {
					return walkResult{kind: walkScalar}, "", nil
				}
				continue
			}
			if off < moff {
				// The access starts in a hole before this member.
				break
			}
			mtype := skipModifiers(m.Type)
			msize, err := btf.Sizeof(mtype)
			if err != nil {
				return walkResult{}, "", errWalkUnsupported
			}
			trueEnd := moff + msize
			if off >= trueEnd {
				continue
			}
			if _, ok := mtype.(*btf.Array); ok {
				elem, nelems := flattenArray(mtype)
				if nelems == 0 {
					// An empty array holds nothing.
					continue
				}
				msize /= nelems
				if msize == 0 {
					return walkResult{}, "", errWalkUnsupported
				}
				moff += (off - moff) / msize * msize
				mtype = elem
			}
			if isStruct(mtype) {
				if opts.stopAtStruct && off == moff {
					return walkResult{kind: walkStruct, nested: mtype}, "", nil
				}
				off -= moff
				next = mtype
				break
			}
			if p, ok := mtype.(*btf.Pointer); ok {
				if msize != size || off != moff {
					return walkResult{}, fmt.Sprintf("cannot access ptr member %s with moff %d in struct %s with off %d size %d", logTypeName(m.Name), moff, tname, off, size), nil
				}
				if opts.local {
					if !isStruct(skipModifiers(p.Target)) {
						// WALK_PTR_UNTRUSTED, which
						// btf_struct_access turns into read-only
						// memory for allocated objects too.
						return walkResult{kind: walkPtrUntrusted}, "", nil
					}
					return walkResult{kind: walkScalar}, "", nil
				}
				var fl states.RegFlags
				if tag, ok := p.Target.(*btf.TypeTag); ok {
					switch tag.Value {
					case "user":
						fl = states.MemUser
					case "percpu":
						fl = states.MemPercpu
					case "rcu":
						fl = states.MemRCU
					}
				}
				if untrusted {
					// Walking a union of several members yields
					// untrusted pointers (btf_struct_walk).
					fl |= states.PtrUntrusted
				}
				target := skipModifiers(p.Target)
				if !isStruct(target) {
					return walkResult{kind: walkPtrUntrusted}, "", nil
				}
				id := btfTypeID(target)
				if id == 0 {
					return walkResult{}, "", errWalkUnsupported
				}
				return walkResult{kind: walkPtr, id: id, flags: fl, field: m.Name}, "", nil
			}
			if off+size > trueEnd && !untrusted {
				return walkResult{}, fmt.Sprintf("access beyond the end of member %s (mend:%d) in struct %s with off %d size %d", logTypeName(m.Name), trueEnd, tname, off, size), nil
			}
			return walkResult{kind: walkScalar}, "", nil
		}
		if next == nil {
			return walkResult{}, fmt.Sprintf("struct %s doesn't have field at offset %d", tname, off), nil
		}
		t = next
	}
	return walkResult{}, "", errWalkUnsupported
}

// markUntrustedMem gives dst what a load of a pointer to anything but a
// struct gives: btf_struct_access's PTR_TO_MEM | MEM_RDONLY |
// PTR_UNTRUSTED, of size 0 (mark_btf_ld_reg).
// markWalkedNonBTFPtr is mark_btf_ld_reg for the walk results that are no
// BTF pointer: a scalar, or untrusted read-only memory for a pointer to
// anything but a struct. It reports whether res was one of them.
func (e *env) markWalkedNonBTFPtr(dst *states.Reg, res walkResult) bool {
	switch res.kind {
	case walkScalar:
		e.markUnknown(dst)
		return true
	case walkPtrUntrusted:
		markUntrustedMem(dst)
		return true
	}
	return false
}

func markUntrustedMem(dst *states.Reg) {
	dst.MarkPtr(states.PtrToMem, states.MemRdonly|states.PtrUntrusted)
	dst.Range = 0
}

// anonName is how the kernel prints the name of an anonymous BTF type.
const anonName = "(anon)"

// logTypeName is a BTF name as the kernel's log prints it.
func logTypeName(name string) string {
	if name == "" {
		return anonName
	}
	return name
}

// flattenArray returns the innermost element type of a possibly
// multi-dimensional array and its total element count, skipping modifiers
// on the element types.
func flattenArray(t btf.Type) (btf.Type, int) { return flattenArrayBy(t, skipModifiers) }

// flattenArrayRaw is flattenArray as btf_find_field_one walks arrays: the
// element type as the BTF has it, no modifier skipped.
func flattenArrayRaw(t btf.Type) (btf.Type, int) {
	return flattenArrayBy(t, func(t btf.Type) btf.Type { return t })
}

// flattenArrayBy walks nested arrays of t, passing each element type
// through elem.
func flattenArrayBy(t btf.Type, elem func(btf.Type) btf.Type) (btf.Type, int) {
	n := 1
	for depth := 0; depth < maxStructWalkDepth; depth++ {
		a, ok := t.(*btf.Array)
		if !ok {
			return t, n
		}
		n *= int(a.Nelems)
		t = elem(a.Type)
	}
	return t, 0
}

// negativeOffWalk is btf_struct_walk at a negative offset (a helper's
// BTF pointer argument moved back: btf_struct_ids_match walks it before
// the argument's offset is checked). The walk compares off, an int, with
// the struct's size and its members' offsets, all u32: off+size that
// wraps past the size is "access beyond struct" (off printed unsigned);
// otherwise every member lies before the huge unsigned offset and the
// walk ends without a field. A struct ending with a flexible array would
// take the array's path with that offset, which vercheck does not follow.
func negativeOffWalk(members []btf.Member, tsize uint32, tname string, off, size int) (walkResult, string, error) {
	if uint32(off+size) <= tsize {
		return walkResult{}, fmt.Sprintf("struct %s doesn't have field at offset %d", tname, off), nil
	}
	if len(members) > 0 {
		if a, ok := skipModifiers(members[len(members)-1].Type).(*btf.Array); ok && a.Nelems == 0 {
			return walkResult{}, "", errWalkUnsupported
		}
	}
	return walkResult{}, fmt.Sprintf("access beyond struct %s at off %d size %d", tname, uint32(off), size), nil
}

// walkError turns a struct walk's error into vercheck's answer: the
// kernel's own fault where its walk divides by zero, else unsupported.
func (e *env) walkError(err error, tname string, off, size int) error {
	if errors.Is(err, errWalkZeroSizeElem) {
		return e.kernelFault("load from struct %s at off %d size %d: %v", tname, off, size, err)
	}
	return e.unsupported(e.insnIdx, "load from struct %s at off %d size %d: %v", tname, off, size, err)
}

// flexArrayTail decides a read that runs past the end of a struct: allowed
// only inside a trailing zero-length array at or after its start, of
// integers (scalar) or of structs (next, walked modulo the element size).
func flexArrayTail(members []btf.Member, off int) (next btf.Type, scalar, ok bool) {
	if len(members) == 0 {
		return nil, false, false
	}
	last := members[len(members)-1]
	a, isArr := skipModifiers(last.Type).(*btf.Array)
	if !isArr || a.Nelems != 0 || off < int(last.Offset/bitsPerByte) {
		return nil, false, false
	}
	elem := skipModifiers(a.Type)
	if _, isInt := elem.(*btf.Int); isInt {
		return nil, true, true
	}
	if !isStruct(elem) {
		return nil, false, false
	}
	return elem, false, true
}

// Kinds of field safety the kernel declares for pointer fields, as the
// suffixes of the structs it emits into its BTF for them
// (BTF_TYPE_SAFE_TRUSTED and friends: "task_struct__safe_rcu" lists the
// task fields that are RCU protected).
const (
	safeTrusted       = "__safe_trusted"
	safeTrustedOrNull = "__safe_trusted_or_null"
	safeRCU           = "__safe_rcu"
	safeRCUOrNull     = "__safe_rcu_or_null"
)

// safeFieldCache memoises the safe-field structs by name.
var safeFieldCache sync.Map // map[string][]btf.Member

// btfSafeField is btf_nested_type_is_trusted: whether the kernel's
// "<struct>" + suffix struct lists a pointer member named field that points
// to the type target, where struct is the type the walked register points
// to (not the nested struct holding the field).
func btfSafeField(regType btf.Type, suffix, field string, target uint32) bool {
	name := regType.TypeName() + suffix
	v, ok := safeFieldCache.Load(name)
	if !ok {
		var members []btf.Member
		if st, ok := vmlinuxType[*btf.Struct](name); ok {
			members = st.Members
		}
		v, _ = safeFieldCache.LoadOrStore(name, members)
	}
	for _, m := range v.([]btf.Member) {
		p, ok := m.Type.(*btf.Pointer)
		if ok && m.Name == field && btfTypeID(skipModifiers(p.Target)) == target {
			return true
		}
	}
	return false
}

// isTrustedBTF is is_trusted_reg for a BTF pointer: referenced, or carrying
// only trusted modifiers.
func isTrustedBTF(r *states.Reg) bool {
	if r.RefObjID != 0 {
		return true
	}
	switch r.Type {
	case states.PtrToSocket, states.PtrToSockCommon, states.PtrToTCPSock, states.ConstPtrToMap:
		// reg2btf_ids types are trusted unless modified.
		return r.Flags&^trustedModifiers == 0
	}
	return r.Flags&trustedModifiers != 0 && r.Flags&^trustedModifiers == 0
}

// trustedModifiers are BPF_REG_TRUSTED_MODIFIERS.
const trustedModifiers = states.MemAlloc | states.PtrTrusted | states.NonOwnRef

// checkPtrToBTFAccess is check_ptr_to_btf_access: a load or store of size
// bytes at off (the register's fixed offset included) through the BTF
// pointer in regno, setting dst on a load.
func (e *env) checkPtrToBTFAccess(regno, off, size int, t access, dst *states.Reg) error {
	reg := &e.regs()[regno]
	st := e.btfTypeOf(reg.Aux)
	if st == nil {
		return e.unsupported(e.insnIdx, "BTF type id %d not in kernel BTF", reg.Aux)
	}
	tname := st.TypeName()
	if !e.lp.GPLCompatible && !isLocalAux(reg.Aux) {
		return e.reject(e.insnIdx, "Cannot access kernel 'struct %s' from non-GPL compatible program", tname)
	}
	if off < 0 {
		return e.reject(e.insnIdx, "R%d is ptr_%s invalid negative access: off=%d", regno, tname, off)
	}
	if !reg.Var.IsConst() || reg.Var.Value != 0 {
		return e.reject(e.insnIdx, "R%d is ptr_%s invalid variable offset: off=%d, var_off=%s", regno, tname, off, reg.Var.String())
	}
	if reg.Flags&states.MemUser != 0 {
		return e.reject(e.insnIdx, "R%d is ptr_%s access user memory: off=%d", regno, tname, off)
	}
	if reg.Flags&states.MemPercpu != 0 {
		return e.reject(e.insnIdx, "R%d is ptr_%s access percpu memory: off=%d", regno, tname, off)
	}
	if t == accWrite && reg.Flags&states.PtrUntrusted != 0 {
		// Before any program type's btf_struct_access hook, as 6.12
		// and 7.2 do and 6.18.44-fc-v1045 does (a struct_ops store
		// through bpf_rdonly_cast's tcp_sock is refused).
		return e.reject(e.insnIdx, "only read is supported")
	}
	if t == accWrite && e.progType == ebpf.StructOps && reg.Flags&states.MemAlloc == 0 {
		// The ops type's btf_struct_access hook decides every other
		// store through a kernel struct (check_ptr_to_btf_access).
		return e.checkStructOpsWrite(st, off, size)
	}
	if reg.Flags&states.MemAlloc != 0 {
		return e.checkAllocAccess(reg, st, off, size, t, dst)
	}
	if t == accWrite {
		switch e.progType {
		case ebpf.SchedCLS, ebpf.SchedACT, ebpf.XDP:
			return e.checkNfConnWrite(st, off, size)
		}
		return e.reject(e.insnIdx, "only read is supported")
	}
	res, msg, err := btfStructWalk(st, off, size)
	if err != nil {
		return e.walkError(err, tname, off, size)
	}
	if msg != "" {
		return e.reject(e.insnIdx, "%s", msg)
	}
	if dst == nil {
		return nil
	}
	if e.markWalkedNonBTFPtr(dst, res) {
		return nil
	}
	dst.MarkPtr(states.PtrToBTFID, e.walkedPtrFlags(reg, res))
	dst.Aux = res.id
	if dst.Flags&states.MaybeNull != 0 {
		dst.ID = e.newID()
	}
	return nil
}

// walkedPtrFlags is the trust check_ptr_to_btf_access gives a pointer read
// from field res of the struct reg points to. Walking a trusted or RCU
// pointer keeps trust only through the fields the kernel lists
// (BTF_TYPE_SAFE_*, see btfSafeField); inside an RCU read section (always, for a
// non-sleepable path) RCU fields and __rcu pointers become RCU pointers and
// other fields legacy pointers (walkedLegacyFlags), while outside one every
// other field is untrusted. Walking a plain pointer gives a legacy pointer,
// an untrusted one an untrusted one.
func (e *env) walkedPtrFlags(reg *states.Reg, res walkResult) states.RegFlags {
	flags := res.flags
	regType := e.btfTypeOf(reg.Aux)
	safe := func(suffix string) bool {
		return regType != nil && btfSafeField(regType, suffix, res.field, res.id)
	}
	switch {
	case reg.Flags&states.PtrUntrusted != 0:
		return states.PtrUntrusted
	case !isTrustedBTF(reg) && reg.Flags&states.MemRCU == 0:
		return e.walkedLegacyFlags(flags &^ (trustedModifiers | states.MemRCU))
	case safe(safeTrusted):
		return flags | states.PtrTrusted
	case safe(safeTrustedOrNull):
		return flags | states.PtrTrusted | states.MaybeNull
	case !e.inRCU() || reg.MaybeNull():
		return states.PtrUntrusted
	case safe(safeRCU):
		return flags | states.MemRCU
	case safe(safeRCUOrNull):
		return (flags | states.MemRCU | states.MaybeNull) &^ states.PtrUntrusted
	case flags&states.MemRCU != 0:
		return flags | states.MaybeNull
	}
	// A user or per-CPU field keeps its tag (the kernel's "keep as-is"),
	// which is all clearing the trust flags leaves of it.
	return e.walkedLegacyFlags(flags &^ (trustedModifiers | states.MemRCU))
}

// walkedLegacyFlags are the flags of a BTF pointer a walk gives neither
// trust nor RCU protection, flags being what 6.18.0 gives it: an "old
// deprecated PTR_TO_BTF_ID" that helpers take for compatibility
// (clear_trusted_flags; through a map pointer, the field's type tags). A
// kernel with stablefix.WalkUntrusted makes it untrusted. That kernel's
// BTF carries no type tags, so how it treats a user, per-CPU or __rcu
// field there is not known: vercheck makes that pointer untrusted too
// (keeping the user or per-CPU tag), the stricter choice.
func (e *env) walkedLegacyFlags(flags states.RegFlags) states.RegFlags {
	if e.opts.MissingFixes.Has(stablefix.WalkUntrusted) {
		return flags
	}
	return flags&^(trustedModifiers|states.MemRCU) | states.PtrUntrusted
}

// The connection tracking structs tc and XDP programs may write to.
const (
	nfConnStruct     = "nf_conn"
	nfConnInitStruct = "nf_conn___init"
	nfConnMarkField  = "mark"
)

// checkNfConnWrite is the btf_struct_access hook of tc and XDP programs
// (tc_cls_act_btf_struct_access, xdp_btf_struct_access), which hands
// stores to connection tracking (_nf_conntrack_btf_struct_access): only
// the mark of a struct nf_conn or nf_conn___init may be written.
func (e *env) checkNfConnWrite(st btf.Type, off, size int) error {
	nfConn, ok := btfStructByName(nfConnStruct).(*btf.Struct)
	if !ok {
		// Connection tracking is a module vercheck does not see: the
		// hook's answer depends on whether it is loaded.
		return e.unsupported(e.insnIdx, "store through ptr_%s in a %s program", st.TypeName(), e.progType)
	}
	if name := st.TypeName(); name != nfConnStruct && name != nfConnInitStruct {
		return e.reject(e.insnIdx, "only read is supported")
	}
	markOff, markSize, ok := memberSpan(nfConn, []string{nfConnMarkField})
	if !ok {
		markOff = -1
	}
	markEnd := markOff + markSize
	if off != markOff {
		return e.reject(e.insnIdx, "no write support to nf_conn at off %d", off)
	}
	if off+size > markEnd {
		return e.reject(e.insnIdx, "write access at off %d with size %d beyond the member of nf_conn ended at %d", off, size, markEnd)
	}
	return nil
}

// memberSpan returns the byte offset and size, inside t, of the member
// reached by path (member names, each inside the previous one's struct;
// anonymous structs and unions are searched through).
func memberSpan(t btf.Type, path []string) (off, size int, ok bool) {
	for _, name := range path {
		m, moff, found := findMember(t, name)
		if !found {
			return 0, 0, false
		}
		off += moff
		t = skipModifiers(m.Type)
	}
	size, err := btf.Sizeof(t)
	return off, size, err == nil
}

// findMember finds the member called name in struct or union t, looking
// inside anonymous members, and returns it with its byte offset in t.
func findMember(t btf.Type, name string) (btf.Member, int, bool) {
	members, _, _ := structMembers(skipModifiers(t))
	for _, m := range members {
		moff := int(m.Offset.Bytes())
		if m.Name == name {
			return m, moff, true
		}
		if m.Name == "" {
			if inner, ioff, ok := findMember(m.Type, name); ok {
				return inner, moff + ioff, true
			}
		}
	}
	return btf.Member{}, 0, false
}

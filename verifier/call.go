package verifier

import (
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Kernel constants used by helper checks.
const (
	// maxVarSize is BPF_MAX_VAR_SIZ: the largest size a helper may be
	// given in a register.
	maxVarSize = 1 << 29
	// maxErrno is MAX_ERRNO: helpers that return a length return at least
	// -maxErrno.
	maxErrno = 4095
	// Helper ids with special cases in the verifier.
	fnMapLookupElem      = 1
	fnMapUpdateElem      = 2
	fnMapDeleteElem      = 3
	fnMapPushElem        = 87
	fnMapPopElem         = 88
	fnTailCall           = 12
	fnGetSmpProcessorID  = 8
	fnProbeReadStr       = 45
	fnGetStack           = 67
	fnProbeReadUserStr   = 114
	fnProbeReadKernelStr = 115
	fnGetTaskStack       = 141
	fnGetLocalStorage    = 81
	fnGetFuncIP          = 173
)

// callMeta collects what the argument checks learn about a helper call
// (the kernel's bpf_call_arg_meta).
type callMeta struct {
	mapIdx      int
	rawMode     bool
	rawRegno    int
	accessSize  int
	memSize     int64
	msizeMax    uint64
	refObjID    uint32
	constMapKey int64
	pktAccess   bool
	// timerMap is set when mapIdx came from a bpf_timer argument.
	timerMap bool
	// mapUID is the map uid of mapIdx's map as the argument gave it
	// (meta->map.uid, see states.Reg.MapUID).
	mapUID uint32
	// argRefObjID is the reference an argument carries (meta->ref_obj_id
	// as check_func_arg records it), which a pointer cast passes on.
	argRefObjID uint32
	// kptr is the kptr field bpf_kptr_xchg's first argument points to.
	kptr *kptrField
	// retBTFID is the type of the per-CPU object a per-CPU pointer
	// helper's argument points to (meta->ret_btf_id).
	retBTFID uint32
}

// ptrCastHelpers are is_ptr_cast_function: helpers returning another view
// of their socket argument, which shares the argument's reference.
var ptrCastHelpers = map[int32]bool{
	95:  true, // bpf_sk_fullsock
	96:  true, // bpf_tcp_sock
	136: true, // bpf_skc_to_tcp6_sock
	137: true, // bpf_skc_to_tcp_sock
	138: true, // bpf_skc_to_tcp_timewait_sock
	139: true, // bpf_skc_to_tcp_request_sock
	140: true, // bpf_skc_to_udp6_sock
	196: true, // bpf_skc_to_mptcp_sock
}

// helperMightSleep is the might_sleep of the prototype this program's
// get_func_proto returns for fn: the helper's own, or the sleepable
// variant some tracing types hand a sleepable program (chosen by the
// program's flag, prog->sleepable, whatever the path's context).
func (e *env) helperMightSleep(fn *helpers.Proto) bool {
	return fn.MightSleep || isSleepable(e) && helpers.SleepsInSleepable(e.progType, fn.ID)
}

// checkHelperCall is check_helper_call.
func (e *env) checkHelperCall(in *insn.Insn) error {
	id := in.Imm
	fn, ok := helpers.For(e.progType, e.attach, id)
	if !ok && id == 0 {
		// get_helper_proto: 0 is in range (BPF_FUNC_unspec), but no
		// program type has a prototype for it.
		return e.reject(e.insnIdx, "program of this type cannot use helper bpf_unspec#0")
	}
	if !ok {
		return e.reject(e.insnIdx, "invalid func unknown#%d", id)
	}
	allowed, known := e.helperAllowed(id)
	if !known {
		return e.unsupported(e.insnIdx, "helper %s#%d in a %s program", fn.Name, id, e.progType)
	}
	if !allowed || refusedByBuild(e.progType, id, e.opts.MissingFixes) {
		return e.reject(e.insnIdx, "program of this type cannot use helper %s#%d", fn.Name, id)
	}
	if fn.GPLOnly && !e.lp.GPLCompatible {
		return e.reject(e.insnIdx, "cannot call GPL-restricted function from non-GPL compatible program")
	}
	if err := e.checkHelperGate(fn); err != nil {
		return err
	}
	if err := e.checkHelperTarget(id, fn.Name); err != nil {
		return err
	}
	mightSleep := e.helperMightSleep(fn)
	if mightSleep && !e.inSleepable() {
		return e.reject(e.insnIdx, "helper call might sleep in a non-sleepable prog")
	}
	if mightSleep && e.cur.ActiveRCU {
		return e.reject(e.insnIdx, "sleepable helper %s#%d in rcu_read_lock region", fn.Name, id)
	}
	if mightSleep && e.cur.ActivePreemptLocks > 0 {
		return e.reject(e.insnIdx, "sleepable helper %s#%d in non-preemptible region", fn.Name, id)
	}
	if mightSleep && e.cur.ActiveIRQID != 0 {
		return e.reject(e.insnIdx, "sleepable helper %s#%d in IRQ-disabled region", fn.Name, id)
	}
	if fn.Callback {
		return e.checkCallbackHelperCall(fn)
	}
	meta := callMeta{mapIdx: -1, constMapKey: -1, pktAccess: fn.PktAccess}
	for i := 0; i < 5; i++ {
		if err := e.checkFuncArg(i, fn, &meta); err != nil {
			return err
		}
	}
	if err := e.checkMapHelperWrite(id, meta.mapIdx); err != nil {
		return err
	}
	if id == fnTailCall && e.metaMapType(&meta) != ebpf.ProgramArray {
		// record_func_key runs before the map compatibility check.
		return e.reject(e.insnIdx, "expected prog array map for tail call")
	}
	if id == fnTailCall {
		if err := e.recordTailCallKey(meta.mapIdx); err != nil {
			return err
		}
	}
	if id == fnMapLookupElem {
		e.recordMapCall(meta.mapIdx)
	}
	if meta.rawMode {
		for i := 0; i < meta.accessSize; i++ {
			if err := e.checkMemAccess(meta.rawRegno, i, 1, accWrite, -1, false); err != nil {
				return err
			}
		}
	}
	if id == fnSnprintf {
		if err := e.checkSnprintfCall(); err != nil {
			return err
		}
	}
	regs := e.regs()
	if fn.ReleaseArg > 0 && fn.Args[fn.ReleaseArg-1] == helpers.ArgPtrToDynptr {
		if err := e.unmarkStackSlotsDynptr(int(fn.ReleaseArg)); err != nil {
			return err
		}
	} else if r := &regs[fn.ReleaseArg]; fn.ReleaseArg > 0 && !(id == fnKptrXchg && r.IsNull()) {
		// bpf_kptr_xchg may move NULL into its kptr: nothing to release.
		if r.RefObjID == 0 {
			return e.reject(e.insnIdx, "R%d must be referenced when passed to release function", fn.ReleaseArg)
		}
		release := e.releaseCallReference
		if id == fnKptrXchg {
			release = e.releaseIntoKptr
		}
		if err := release(r.RefObjID, fmt.Sprintf("func %s#%d", fn.Name, id)); err != nil {
			return err
		}
	}
	if id == fnTailCall {
		if err := e.checkResourceLeak(false, true, "tail_call"); err != nil {
			return err
		}
	}
	if id == fnGetLocalStorage && !regs[2].IsNull() {
		// The helper cannot fail, so it has no flags to reject.
		return e.reject(e.insnIdx, "get_local_storage() doesn't support non-zero flags")
	}
	if id == fnGetLocalStorage && !e.opts.MissingFixes.Has(stablefix.NullArgPrecise) {
		// The zero flags decided that the call is valid.
		if err := e.markChainPrecision(2); err != nil {
			return err
		}
	}
	var dynptrID uint32
	changesData := fn.ChangesPktData
	switch id {
	case fnDynptrWrite:
		// A write into an skb dynptr may move the packet.
		changesData = changesData || e.dynptrArgIsSKB(fn)
	case fnDynptrFromMem:
		if regs[1].Type != states.PtrToMapValue {
			return e.reject(e.insnIdx, "Unsupported reg type %s for bpf_dynptr_from_mem data", regTypeStr(&regs[1]))
		}
	case fnDynptrData:
		did, ref, err := e.dynptrDataMeta(fn)
		if err != nil {
			return err
		}
		dynptrID, meta.refObjID = did, ref
	}
	percpuAlloc := false
	if id == fnPerCPUPtr || id == fnThisCPUPtr {
		var err error
		if percpuAlloc, err = e.percpuAllocArg(&regs[1]); err != nil {
			return err
		}
		if percpuAlloc {
			// call_with_percpu_alloc_ptr: do_misc_fixups loads the
			// object's per-CPU pointer before the call.
			if e.percpuAllocCalls == nil {
				e.percpuAllocCalls = map[int]bool{}
			}
			e.percpuAllocCalls[e.insnIdx] = true
		}
	}
	for r := 1; r <= 5; r++ {
		regs[r].MarkNotInit()
	}
	r0 := &regs[0]
	switch fn.Ret {
	case helpers.RetInteger:
		e.markUnknown(r0)
	case helpers.RetVoid:
		r0.MarkNotInit()
	case helpers.RetPtrToMapValueOrNull, helpers.RetPtrToMapValue:
		if meta.mapIdx < 0 {
			return e.reject(e.insnIdx, "kernel subsystem misconfigured verifier")
		}
		m := e.maps[meta.mapIdx]
		var fl states.RegFlags
		if fn.Ret == helpers.RetPtrToMapValueOrNull {
			fl = states.MaybeNull
			if id == fnMapLookupElem && e.canElideValueNullness(m) && meta.constMapKey >= 0 && meta.constMapKey < int64(m.MaxEntries) {
				fl = 0
			}
		}
		if m.Type == ebpf.ArrayOfMaps || m.Type == ebpf.HashOfMaps {
			// A lookup in a map of maps yields the inner map itself.
			inner := e.innerMapIndex(meta.mapIdx)
			if inner < 0 {
				return e.unsupported(e.insnIdx, "map-in-map %q without an inner map definition", m.Name)
			}
			if fl&states.MaybeNull != 0 && e.opts.MissingFixes.Has(stablefix.LookupTypedAtCall) {
				// Printed as the outer map's value until checked.
				fl |= states.OuterMapValue
			}
			r0.MarkPtr(states.ConstPtrToMap, fl)
			r0.Aux = uint32(inner)
		} else if sock, ok := lookupObject(m.Type); ok && fl&states.MaybeNull != 0 && !e.opts.MissingFixes.Has(stablefix.LookupTypedAtCall) {
			// The socket itself from the lookup on, as the NULL check
			// would make it (settleNotNull): Aux is the map's index
			// plus one.
			r0.MarkPtr(sock, fl)
			r0.Aux = uint32(meta.mapIdx) + 1
		} else {
			r0.MarkPtr(states.PtrToMapValue, fl)
			r0.Aux = uint32(meta.mapIdx)
			r0.SetMapUID(meta.mapUID)
			// A lookup proven non-NULL up front still needs its own id when
			// the value holds a lock, so two lookups stay two locks.
			if fl&states.MaybeNull == 0 && e.mayPointToSpinLock(r0) {
				r0.ID = e.newID()
			}
		}
	case helpers.RetPtrToSocketOrNull:
		r0.MarkPtr(states.PtrToSocket, states.MaybeNull)
	case helpers.RetPtrToTCPSockOrNull:
		r0.MarkPtr(states.PtrToTCPSock, states.MaybeNull)
	case helpers.RetPtrToSockCommonOrNull:
		r0.MarkPtr(states.PtrToSockCommon, states.MaybeNull)
	case helpers.RetPtrToAllocMemOrNull:
		r0.MarkPtr(states.PtrToMem, states.MaybeNull|states.MemRingbuf)
		r0.Range = int32(meta.memSize)
	case helpers.RetPtrToDynptrMemOrNull:
		// A slice of the dynptr: it remembers the dynptr's id (Aux) and
		// holds its reference, so releasing the dynptr kills it.
		r0.MarkPtr(states.PtrToMem, states.MaybeNull)
		r0.Range = int32(meta.memSize)
		r0.Aux = dynptrID
		r0.RefObjID = meta.refObjID
	case helpers.RetPtrToBTFID, helpers.RetPtrToBTFIDTrusted, helpers.RetPtrToBTFIDOrNull:
		if err := e.setRetBTFID(fn, r0, meta.kptr); err != nil {
			return err
		}
	case helpers.RetPtrToMemOrBTFID:
		if err := e.setRetMemOrBTFID(r0, &meta, percpuRetFlags(id), percpuAlloc); err != nil {
			return err
		}
	default:
		return e.unsupported(e.insnIdx, "helper %s#%d (return kind)", fn.Name, id)
	}
	if r0.MaybeNull() {
		r0.ID = e.newID()
		// Typed at the call, an inner map takes its uid there too, as
		// the NULL check would give it (settleNotNull): regs_exact then
		// tells two lookups' maps apart from the call on.
		if r0.Type == states.ConstPtrToMap && !e.opts.MissingFixes.Has(stablefix.LookupTypedAtCall) && e.innerMapHasAsync(r0) {
			r0.SetMapUID(r0.ID)
		}
	}
	if ptrCastHelpers[id] {
		r0.RefObjID = meta.argRefObjID
	} else if fn.Acquire || e.lookupAcquires(id, &meta) {
		rid := e.newID()
		e.cur.Refs = append(e.cur.Refs, states.Ref{ID: rid, InsnIdx: int32(e.insnIdx)})
		r0.ID = rid
		r0.RefObjID = rid
	}
	if fn.Ret == helpers.RetInteger {
		switch id {
		case fnGetStack, fnGetTaskStack, fnProbeReadStr, fnProbeReadKernelStr, fnProbeReadUserStr:
			r0.SMax = int64(meta.msizeMax)
			r0.S32Max = int32(meta.msizeMax)
			r0.SMin = -maxErrno
			r0.S32Min = -maxErrno
			r0.Scalar.Sync()
		case fnGetSmpProcessorID:
			n := possibleCPUs() - 1
			r0.UMin, r0.UMax, r0.SMin, r0.SMax = 0, uint64(n), 0, int64(n)
			r0.U32Min, r0.U32Max, r0.S32Min, r0.S32Max = 0, uint32(n), 0, int32(n)
			r0.Scalar.Sync()
		}
	}
	if meta.mapIdx >= 0 {
		if ok, msg := e.mapHelperAllowed(e.maps[meta.mapIdx].Type, id); !ok {
			return e.reject(e.insnIdx, "%s", msg)
		}
	}
	if id == fnGetFuncIP {
		if err := e.checkGetFuncIP(); err != nil {
			return err
		}
	}
	if id == fnTailCall && e.cur.CurFrame > 0 {
		return e.tailCallSubprogExit()
	}
	if changesData {
		e.clearAllPktPointers()
	}
	return nil
}

// tailCallSubprogExit models a tail call made inside a subprogram: when it
// succeeds the whole program ends with the callee's return value, which
// the caller sees as the subprogram returning an unknown scalar with the
// packet possibly changed; when it fails execution simply goes on. The
// second path is queued unchanged, the first is taken now by returning to
// the caller (the kernel's check_helper_call does the same fork).
func (e *env) tailCallSubprogExit() error {
	if _, err := e.pushStack(e.insnIdx+1, e.insnIdx); err != nil {
		return err
	}
	e.clearAllPktPointers()
	e.markUnknown(&e.regs()[0])
	if _, err := e.processExit(); err != nil {
		return err
	}
	// check_helper_call leaves the frame itself: do_check, which did not
	// see an exit, prints no resumed state.
	e.log.printState = false
	// The caller resumes after the call site: step back one slot, as the
	// main loop advances past the instruction just simulated.
	e.insnIdx--
	return nil
}

// bpfFInnerMap is BPF_F_INNER_MAP: the inner map template of a map-in-map
// whose runtime inner maps may have other max_entries.
const bpfFInnerMap = 1 << 12

// canElideValueNullness is can_elide_value_nullness: array lookups with a
// constant in-range key never return NULL. With the stable fix
// stablefix.InnerMapNullness, not in an inner map declared BPF_F_INNER_MAP:
// the template's max_entries says nothing about the runtime map's.
func (e *env) canElideValueNullness(m *loader.Map) bool {
	if m.Flags&bpfFInnerMap != 0 && !e.opts.MissingFixes.Has(stablefix.InnerMapNullness) {
		return false
	}
	return m.Type == ebpf.Array || m.Type == ebpf.PerCPUArray
}

// clearAllPktPointers invalidates packet pointers after a helper that may
// move packet data.
func (e *env) clearAllPktPointers() {
	forEachReg(e.cur, func(r *states.Reg) {
		if isPktAny(r) || isDynptrPktSlice(r) {
			e.markUnknown(r)
		}
	})
}

// releaseReference drops a reference and every register holding it.
func (e *env) releaseReference(id uint32) error {
	if !e.dropReference(id) {
		return e.reject(e.insnIdx, "verifier internal error: reference %d not found", id)
	}
	return nil
}

// releaseCallReference is the release a helper or kfunc call makes
// (callee: "func NAME#ID", "kfunc NAME#ID"). The reference may be gone
// already on a path that cannot happen: a NULL check of one copy of a
// pointer drops it, by id, while another copy proved non-NULL by an
// equality with a non-NULL pointer keeps it; check_helper_call and
// check_kfunc_call then say the reference "has not been acquired before".
func (e *env) releaseCallReference(id uint32, callee string) error {
	if !e.dropReference(id) {
		return e.reject(e.insnIdx, "%s reference has not been acquired before", callee)
	}
	return nil
}

// dropReference is release_reference: it drops reference id and makes
// every register holding it an unknown scalar, or reports that the state
// holds no such reference.
func (e *env) dropReference(id uint32) bool {
	i := slices.IndexFunc(e.cur.Refs, func(r states.Ref) bool { return r.ID == id })
	if i < 0 {
		return false
	}
	e.cur.Refs = slices.Delete(e.cur.Refs, i, i+1)
	forEachReg(e.cur, func(r *states.Reg) {
		if r.RefObjID == id {
			e.markUnknown(r)
		}
	})
	return true
}

// releaseIntoKptr is check_helper_call's release for bpf_kptr_xchg: the
// object now belongs to the map, and the copies of its pointer become
// scalars as in releaseReference, except those to a per-CPU allocated object
// inside an RCU read section: the map frees such an object only after an RCU
// grace period, so they stay readable as untracked RCU pointers
// (percpu_rcu_ptr_), for bpf_per_cpu_ptr and bpf_this_cpu_ptr.
func (e *env) releaseIntoKptr(id uint32, callee string) error {
	if !e.inRCU() {
		return e.releaseCallReference(id, callee)
	}
	forEachReg(e.cur, func(r *states.Reg) {
		if r.RefObjID == id && r.Type == states.PtrToBTFID && r.Flags&(states.MemAlloc|states.MemPercpu) == states.MemAlloc|states.MemPercpu {
			r.RefObjID = 0
			r.Flags = r.Flags&^states.MemAlloc | states.MemRCU
		}
	})
	return e.releaseCallReference(id, callee)
}

// argTypeStr names the register type an argument kind expects.
func (e *env) expectedStr(a helpers.ArgType) string {
	switch a {
	case helpers.ArgConstMapPtr:
		return "map_ptr"
	case helpers.ArgPtrToCtx, helpers.ArgPtrToCtxOrNull:
		return "ctx"
	case helpers.ArgPtrToSocket, helpers.ArgPtrToSocketOrNull:
		return "sock"
	case helpers.ArgPtrToSockCommon:
		return sockTypes
	case helpers.ArgPtrToBTFIDSockCommon, helpers.ArgPtrToBTFIDSockCommonOrNull:
		return sockTypes + ", ptr_, trusted_ptr_"
	case helpers.ArgConstSize, helpers.ArgConstSizeOrZero, helpers.ArgConstAllocSizeOrZero:
		return "scalar"
	case helpers.ArgPtrToFunc:
		return "func"
	case helpers.ArgPtrToAllocMem, helpers.ArgPtrToRingbufMem:
		return "ringbuf_mem"
	case helpers.ArgPtrToTimer, helpers.ArgPtrToConstStr:
		return "map_value"
	case helpers.ArgPtrToKptr:
		return "map_value, ptr_"
	case helpers.ArgPtrToSpinLock:
		return "map_value, ptr_"
	}
	if isMemTypesArg(a) {
		return memTypes
	}
	return "fp"
}

// argMayBeNull reports whether helper argument kind a takes NULL (the
// kernel's type_may_be_null of the arg_type).
func argMayBeNull(a helpers.ArgType) bool {
	switch a {
	case helpers.ArgConstMapPtrOrNull, helpers.ArgPtrToMapValueOrNull, helpers.ArgPtrToMemOrNull,
		helpers.ArgPtrToWritableMemOrNull, helpers.ArgPtrToCtxOrNull, helpers.ArgPtrToSocketOrNull,
		helpers.ArgPtrToBTFIDSockCommonOrNull, helpers.ArgPtrToStackOrNull, helpers.ArgPtrToBTFIDOrNull:
		return true
	}
	return false
}

// isMemTypesArg reports whether the kernel checks argument kind a against
// mem_types (compatible_reg_types: map keys and values, memory, fixed-size
// memory, and the integer out-arguments, which are fixed-size memory in
// 6.18), the list that ends in trusted_ptr_.
func isMemTypesArg(a helpers.ArgType) bool {
	switch a {
	case helpers.ArgPtrToMapKey, helpers.ArgPtrToMapValue, helpers.ArgPtrToUninitMapValue, helpers.ArgPtrToMapValueOrNull,
		helpers.ArgPtrToMem, helpers.ArgPtrToMemOrNull, helpers.ArgPtrToUninitMem, helpers.ArgPtrToWritableMem, helpers.ArgPtrToWritableMemOrNull, helpers.ArgPtrToFixedMem,
		helpers.ArgPtrToInt, helpers.ArgPtrToLong:
		return true
	}
	return false
}

// isMemArgReg is check_reg_type for a memory argument of kind a: after
// folding away the flags the kind allows (MEM_RDONLY for read-only memory,
// PTR_MAYBE_NULL for an or-NULL kind, a dynptr slice's DYNPTR_TYPE_* for
// any ARG_PTR_TO_MEM base), reg must be exactly one of mem_types (the
// trusted BTF pointer aside, see isTrustedBTFMem). So read-only memory
// (rdonly_mem, rdonly_buf) goes only where the helper reads, and a
// bpf_dynptr_slice(_rdwr) slice is no map key or value.
func isMemArgReg(reg *states.Reg, a helpers.ArgType, orNull bool) bool {
	flags := reg.Flags
	switch a {
	case helpers.ArgPtrToMem, helpers.ArgPtrToMemOrNull, helpers.ArgPtrToFixedMem:
		// Memory the helper only reads: the fixed-size headers of the
		// syncookie helpers too, which the running 6.18 takes read-only.
		flags &^= states.MemRdonly
	}
	if orNull {
		flags &^= states.MaybeNull
	}
	switch reg.Type {
	case states.PtrToMem:
		if reg.Aux&dynptrSliceKfunc != 0 && !isArgPtrToMemBase(a) {
			return false
		}
		return flags == 0 || flags == states.MemRingbuf
	case states.PtrToStack, states.PtrToMapValue, states.PtrToMapKey, states.PtrToBuf,
		states.PtrToPacket, states.PtrToPacketMeta:
		return flags == 0
	}
	return false
}

// isArgPtrToMemBase reports whether the kernel's argument type behind kind
// a has base type ARG_PTR_TO_MEM (plain, uninitialised, written,
// fixed-size memory and the integer out-arguments), unlike map keys and
// values.
func isArgPtrToMemBase(a helpers.ArgType) bool {
	switch a {
	case helpers.ArgPtrToMem, helpers.ArgPtrToMemOrNull, helpers.ArgPtrToUninitMem, helpers.ArgPtrToWritableMem, helpers.ArgPtrToWritableMemOrNull,
		helpers.ArgPtrToFixedMem, helpers.ArgPtrToInt, helpers.ArgPtrToLong:
		return true
	}
	return false
}

// isTrustedBTFMem reports whether reg is the trusted BTF pointer mem_types
// lists (PTR_TO_BTF_ID | PTR_TRUSTED), maybe NULL for an or-NULL kind.
func isTrustedBTFMem(reg *states.Reg, orNull bool) bool {
	if reg.Type != states.PtrToBTFID {
		return false
	}
	flags := reg.Flags
	if orNull {
		flags &^= states.MaybeNull
	}
	return flags == states.PtrTrusted
}

// trustedBTFMemArg answers a trusted BTF pointer given as a memory
// argument. check_reg_type finds it in mem_types and then refuses it for
// any argument without MEM_RDONLY ("may write into memory": map keys and
// values, written buffers, integer out-arguments); a read-only one goes on
// to check_func_arg_reg_off and to check_ptr_to_btf_access over the whole
// size (checkHelperMemAccess), here for fixed-size memory (fixedSize),
// with the size argument otherwise.
func (e *env) trustedBTFMemArg(regno int, reg *states.Reg, a helpers.ArgType, fn *helpers.Proto, fixedSize int) error {
	switch a {
	case helpers.ArgPtrToMem, helpers.ArgPtrToMemOrNull, helpers.ArgPtrToFixedMem:
	default:
		return e.reject(e.insnIdx, "%s() may write into memory pointed by R%d type=%s", fn.Name, regno, regTypeStr(reg))
	}
	// check_func_arg_reg_off then lets the BTF pointer carry a fixed,
	// non-negative offset only.
	if err := e.checkFuncArgRegOff(reg, regno, false); err != nil {
		return err
	}
	if a == helpers.ArgPtrToFixedMem {
		return e.checkHelperMemAccess(regno, fixedSize, accRead, false, nil)
	}
	// Read-only: the size argument that follows checks a BTF read of
	// its size (checkHelperMemAccess).
	return nil
}

// sockTypes lists the socket views an ARG_PTR_TO_SOCK_COMMON argument
// accepts, in the order the type mismatch message prints them.
const sockTypes = "sock_common, sock, tcp_sock, xdp_sock"

// memTypes lists the register types the kernel accepts for a memory
// argument (a map key or value included), in the order its type mismatch
// message prints them.
const memTypes = "fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_"

// checkPktArg is check_func_arg's first look at an argument that is not
// ARG_ANYTHING, the callback of a callback helper included: a packet
// pointer to a helper without packet access is refused before its type is
// compared.
func (e *env) checkPktArg(reg *states.Reg, meta *callMeta) error {
	if reg.IsPktPointer() && !e.helperMayAccessPkt(meta) {
		return e.reject(e.insnIdx, "helper access to the packet is not allowed")
	}
	return nil
}

// checkFuncArg is check_func_arg for argument i (register i+1).
func (e *env) checkFuncArg(i int, fn *helpers.Proto, meta *callMeta) error {
	if err := e.checkFuncArgKind(i, fn, meta); err != nil {
		return err
	}
	return e.checkReleaseArg(i, fn)
}

// checkReleaseArg is check_func_arg's test of a release argument (one
// but a dynptr): it must hold a reference or be NULL. The kernel makes it
// while it checks that argument, before the arguments after it, so a
// release of an unreferenced pointer is reported before a later
// argument's "!read_ok".
func (e *env) checkReleaseArg(i int, fn *helpers.Proto) error {
	regno := i + 1
	if int(fn.ReleaseArg) != regno || fn.Args[i] == helpers.ArgPtrToDynptr {
		return nil
	}
	if r := &e.regs()[regno]; r.RefObjID == 0 && !r.IsNull() {
		return e.reject(e.insnIdx, "R%d must be referenced when passed to release function", regno)
	}
	return nil
}

// checkFuncArgKind checks helper argument i against its kind.
func (e *env) checkFuncArgKind(i int, fn *helpers.Proto, meta *callMeta) error {
	a := e.argKind(i, fn, meta)
	regno := i + 1
	if a == helpers.ArgDontCare {
		return nil
	}
	if err := e.checkRegRead(uint8(regno)); err != nil {
		return err
	}
	reg := &e.regs()[regno]
	if a == helpers.ArgAnything {
		return nil
	}
	if a == helpers.ArgUnsupported {
		return e.unsupported(e.insnIdx, "argument %d of helper %s#%d", regno, fn.Name, fn.ID)
	}
	if err := e.checkPktArg(reg, meta); err != nil {
		return err
	}
	if e.sockmapValueArg(a, meta) && a != helpers.ArgPtrToMapValue {
		// resolve_map_arg_type, before the NULL test: a sockmap's value
		// argument is a socket, which only the plain value kind becomes.
		return e.rejectAs(&RejectError{errno: syscall.EINVAL}, "invalid arg_type for sockmap/sockhash")
	}
	if reg.IsNull() && argMayBeNull(a) && !e.opts.MissingFixes.Has(stablefix.NullArgPrecise) {
		// NULL where the kind allows it skips the type checks, and its
		// value decided that: it must stay 0 in a state that prunes.
		if err := e.markChainPrecision(regno); err != nil {
			return err
		}
	}
	// An or-NULL memory kind takes a maybe-NULL pointer as it is (the
	// kernel folds PTR_MAYBE_NULL away before comparing the types).
	orNullMem := a == helpers.ArgPtrToMemOrNull || a == helpers.ArgPtrToWritableMemOrNull || a == helpers.ArgPtrToMapValueOrNull
	typeErr := func() error {
		if isMemTypesArg(a) && isTrustedBTFMem(reg, orNullMem) {
			return e.trustedBTFMemArg(regno, reg, a, fn, int(fn.ArgSize[i]))
		}
		return e.reject(e.insnIdx, "R%d type=%s expected=%s", regno, regTypeStr(reg), e.expectedStr(a))
	}
	isMemArg := func() bool { return isMemArgReg(reg, a, orNullMem) }
	// One referenced argument per call, whatever the helper (the
	// destination of bpf_kptr_xchg, which may be an allocated object,
	// aside): a second one, even the same reference, is refused, after
	// the argument's type check (check_reg_type). A register that check
	// refuses is reported by the kind's checks, so its reference is
	// counted after them.
	refArg := func() error {
		if reg.RefObjID == 0 || a == helpers.ArgPtrToKptr {
			return nil
		}
		if meta.argRefObjID != 0 {
			return e.reject(e.insnIdx, "more than one arg with ref_obj_id R%d %d %d", regno, reg.RefObjID, meta.argRefObjID)
		}
		meta.argRefObjID = reg.RefObjID
		return nil
	}
	typeFailsFirst := e.argTypeRefused(a, reg, orNullMem, meta) ||
		!(reg.IsNull() && argMayBeNull(a)) && argOffRefused(reg, regno, int(fn.ReleaseArg) == regno)
	if !typeFailsFirst {
		if err := refArg(); err != nil {
			return err
		}
	}
	if err := e.checkArgKind(i, fn, a, meta, reg, typeErr, isMemArg); err != nil || !typeFailsFirst {
		return err
	}
	return refArg()
}

// argKind is the kind of helper argument i as check_func_arg checks it:
// resolve_map_arg_type makes the value bpf_map_peek_elem writes into a
// value it reads when the map is a bloom filter (its peek tests whether
// the value is in the set). A sockmap's value is left to
// sockmapValueArg.
func (e *env) argKind(i int, fn *helpers.Proto, meta *callMeta) helpers.ArgType {
	a := fn.Args[i]
	if a == helpers.ArgPtrToUninitMapValue && fn.ID == int32(asm.FnMapPeekElem) && e.metaMapType(meta) == ebpf.BloomFilter {
		return helpers.ArgPtrToMapValue
	}
	return a
}

// metaMapType is the type of the map argument a call has had so far,
// ebpf.UnspecifiedMap before one.
func (e *env) metaMapType(meta *callMeta) ebpf.MapType {
	if meta.mapIdx < 0 {
		return ebpf.UnspecifiedMap
	}
	return e.maps[meta.mapIdx].Type
}

// argTypeRefused reports whether check_reg_type refuses reg for helper
// argument kind a, for checkFuncArgKind's order: a maybe-NULL pointer
// where the kind takes none; a register outside the kind's types (memory,
// sockets, the context, sizes, map pointers, callbacks, stack, map
// values; the kinds of BTF pointers, which a referenced pointer may pass,
// are left to their own checks); a trusted BTF pointer where the helper
// may write (refused as memory the program cannot write). A sockmap's
// value is a socket (resolve_map_arg_type), whose checks
// (checkSockmapValueArg) are all type checks, so they always come first.
func (e *env) argTypeRefused(a helpers.ArgType, reg *states.Reg, orNullMem bool, meta *callMeta) bool {
	if reg.MaybeNull() && !argMayBeNull(a) {
		return true
	}
	if reg.IsNull() && argMayBeNull(a) {
		return false
	}
	switch a {
	case helpers.ArgPtrToMapValue, helpers.ArgPtrToUninitMapValue, helpers.ArgPtrToMapValueOrNull:
		if e.sockmapValueArg(a, meta) {
			// ARG_PTR_TO_BTF_ID_SOCK_COMMON, whose checks
			// (checkSockmapValueArg) are all check_reg_type's: they
			// come first whatever the register.
			return true
		}
	case helpers.ArgPtrToDynptr:
		return reg.Type != states.PtrToStack && reg.Type != states.ConstPtrToDynptr
	case helpers.ArgPtrToSocket, helpers.ArgPtrToSocketOrNull:
		return reg.Type != states.PtrToSocket
	case helpers.ArgPtrToSockCommon:
		return !isSockView(reg)
	case helpers.ArgPtrToCtx, helpers.ArgPtrToCtxOrNull:
		return reg.Type != states.PtrToCtx
	case helpers.ArgConstSize, helpers.ArgConstSizeOrZero, helpers.ArgConstAllocSizeOrZero:
		return reg.Type != states.ScalarValue
	case helpers.ArgConstMapPtr, helpers.ArgConstMapPtrOrNull:
		return reg.Type != states.ConstPtrToMap
	case helpers.ArgPtrToFunc:
		return reg.Type != states.PtrToFunc
	case helpers.ArgPtrToStackOrNull:
		return reg.Type != states.PtrToStack
	case helpers.ArgPtrToConstStr, helpers.ArgPtrToTimer:
		return reg.Type != states.PtrToMapValue
	}
	if !isMemTypesArg(a) || isMemArgReg(reg, a, orNullMem) {
		return false
	}
	if isTrustedBTFMem(reg, orNullMem) {
		switch a {
		case helpers.ArgPtrToMem, helpers.ArgPtrToMemOrNull, helpers.ArgPtrToFixedMem:
			return false
		}
	}
	return true
}

// argOffRefused reports whether check_func_arg_reg_off refuses reg as
// helper argument regno (release: the argument the helper releases, whose
// fixed offset must be 0), which the kernel checks after the type and
// before it counts the argument's reference.
func argOffRefused(reg *states.Reg, regno int, release bool) bool {
	if release {
		return reg.Off != 0 || ptrOffRegMsg(reg, regno, false) != ""
	}
	return argRegOffMsg(reg, regno) != ""
}

// checkArgKind is the part of check_func_arg that depends on argument
// i's kind a (argKind), for checkFuncArgKind: typeErr reports the type check's
// failure, isMemArg whether the register is memory the kind takes.
func (e *env) checkArgKind(i int, fn *helpers.Proto, a helpers.ArgType, meta *callMeta, reg *states.Reg, typeErr func() error, isMemArg func() bool) error {
	regno := i + 1
	switch a {
	case helpers.ArgConstMapPtr, helpers.ArgConstMapPtrOrNull:
		if a == helpers.ArgConstMapPtrOrNull && reg.IsNull() {
			return nil
		}
		if reg.Type != states.ConstPtrToMap || reg.MaybeNull() {
			return typeErr()
		}
		if err := e.checkTimerMapArg(reg, meta); err != nil {
			return err
		}
		meta.mapIdx, meta.mapUID = int(reg.Aux), reg.MapUID()
	case helpers.ArgPtrToMapKey:
		if !isMemArg() {
			return typeErr()
		}
		if err := e.checkFuncArgRegOff(reg, regno, false); err != nil {
			return err
		}
		if meta.mapIdx < 0 {
			return e.reject(e.insnIdx, "invalid map_ptr to access map->key")
		}
		m := e.maps[meta.mapIdx]
		if err := e.checkHelperMemAccess(regno, int(m.KeySize), accRead, false, nil); err != nil {
			return err
		}
		if e.canElideValueNullness(m) {
			meta.constMapKey = e.constMapKey(reg, int(m.KeySize))
		}
	case helpers.ArgPtrToMapValue, helpers.ArgPtrToUninitMapValue, helpers.ArgPtrToMapValueOrNull:
		if e.sockmapValueArg(a, meta) {
			return e.checkSockmapValueArg(i, fn, reg)
		}
		if a == helpers.ArgPtrToMapValueOrNull && reg.IsNull() {
			return nil
		}
		if !isMemArg() {
			return typeErr()
		}
		if err := e.checkFuncArgRegOff(reg, regno, false); err != nil {
			return err
		}
		if meta.mapIdx < 0 {
			return e.reject(e.insnIdx, "invalid map_ptr to access map->value")
		}
		m := e.maps[meta.mapIdx]
		meta.rawMode = a == helpers.ArgPtrToUninitMapValue
		t := accRead
		if meta.rawMode {
			t = accWrite
		}
		return e.checkHelperMemAccess(regno, int(m.ValueSize), t, false, meta)
	case helpers.ArgPtrToConstStr:
		if reg.Type != states.PtrToMapValue || reg.MaybeNull() {
			return typeErr()
		}
		return e.checkConstStrArg(regno)
	case helpers.ArgPtrToMem, helpers.ArgPtrToMemOrNull, helpers.ArgPtrToUninitMem, helpers.ArgPtrToWritableMem, helpers.ArgPtrToWritableMemOrNull:
		if (a == helpers.ArgPtrToMemOrNull || a == helpers.ArgPtrToWritableMemOrNull) && reg.IsNull() {
			return nil
		}
		if !isMemArg() {
			return typeErr()
		}
		if err := e.checkFuncArgRegOff(reg, regno, false); err != nil {
			return err
		}
	case helpers.ArgPtrToFixedMem, helpers.ArgPtrToInt, helpers.ArgPtrToLong:
		if !isMemArg() {
			return typeErr()
		}
		if err := e.checkFuncArgRegOff(reg, regno, false); err != nil {
			return err
		}
		// Fixed-size memory (the syncookie helpers' headers) is read
		// (MEM_RDONLY); the integer out-arguments are written. The long
		// ones (bpf_strtol's result, bpf_get_func_arg's value) are
		// MEM_UNINIT: nothing is read, the helper's writes are made
		// byte by byte after the call (raw mode); bpf_check_mtu's int is
		// read and written in place.
		size, t := int(fn.ArgSize[i]), accRead
		if a == helpers.ArgPtrToInt {
			size, t = 4, accWrite
		} else if a == helpers.ArgPtrToLong {
			size, t = 8, accWrite
		}
		meta.rawMode = a == helpers.ArgPtrToLong
		if err := e.checkHelperMemAccess(regno, size, t, false, meta); err != nil {
			return err
		}
		if a == helpers.ArgPtrToInt || a == helpers.ArgPtrToLong {
			// The int and long out-parameters are fixed-size memory that
			// must also be naturally aligned, whatever the pointer kind.
			return e.checkPtrAlignment(reg, 0, size, true)
		}
		return nil
	case helpers.ArgConstSize, helpers.ArgConstSizeOrZero:
		if reg.Type != states.ScalarValue {
			return typeErr()
		}
		// A writable buffer without MEM_UNINIT is written in place: its
		// stack bytes must already be readable.
		prev := fn.Args[i-1]
		uninit := prev == helpers.ArgPtrToUninitMem
		write := uninit || prev == helpers.ArgPtrToWritableMem || prev == helpers.ArgPtrToWritableMemOrNull
		return e.checkMemSizeReg(regno, uninit, write, a == helpers.ArgConstSizeOrZero, meta)
	case helpers.ArgConstAllocSizeOrZero:
		if reg.Type != states.ScalarValue {
			return typeErr()
		}
		if !reg.IsConst() {
			return e.reject(e.insnIdx, "R%d is not a known constant'", regno)
		}
		meta.memSize = int64(reg.Var.Value)
		return e.markChainPrecision(regno)
	case helpers.ArgPtrToCtx, helpers.ArgPtrToCtxOrNull:
		if a == helpers.ArgPtrToCtxOrNull && reg.IsNull() {
			return nil
		}
		if reg.Type != states.PtrToCtx {
			return typeErr()
		}
		return e.checkPtrOffReg(reg, regno, false)
	case helpers.ArgPtrToSocket, helpers.ArgPtrToSocketOrNull:
		if a == helpers.ArgPtrToSocketOrNull && reg.IsNull() {
			return nil
		}
		// The or-NULL kind takes a maybe-NULL socket as it is.
		if reg.Type != states.PtrToSocket || (reg.MaybeNull() && a != helpers.ArgPtrToSocketOrNull) {
			return typeErr()
		}
	case helpers.ArgPtrToSockCommon:
		if !isSockView(reg) {
			return typeErr()
		}
	case helpers.ArgPtrToBTFIDSockCommon, helpers.ArgPtrToBTFIDSockCommonOrNull:
		orNull := a == helpers.ArgPtrToBTFIDSockCommonOrNull
		if orNull && reg.IsNull() {
			return nil
		}
		flags := reg.Flags
		if orNull {
			// The or-NULL kind takes maybe-NULL pointers as they are.
			flags &^= states.MaybeNull
		}
		switch reg.Type {
		case states.PtrToSocket, states.PtrToSockCommon, states.PtrToTCPSock, states.PtrToXDPSock:
			if flags&states.MaybeNull == 0 {
				return nil
			}
		case states.PtrToBTFID:
			if flags == 0 || flags == states.PtrTrusted {
				return e.checkBTFSockCommonArg(i, fn, orNull)
			}
		}
		return typeErr()
	case helpers.ArgPtrToRingbufMem, helpers.ArgPtrToAllocMem:
		if reg.Type != states.PtrToMem || reg.Flags&states.MemRingbuf == 0 || reg.MaybeNull() {
			return typeErr()
		}
		// A released object must be passed as it was acquired: a fixed
		// offset gets its own message, a variable one the generic check.
		if reg.Off != 0 {
			return e.reject(e.insnIdx, "R%d must have zero offset when passed to release func or trusted arg to kfunc", regno)
		}
		if err := e.checkPtrOffReg(reg, regno, false); err != nil {
			return err
		}
	case helpers.ArgPtrToSpinLock, helpers.ArgPtrToTimer:
		// spin_lock_types also takes an allocated object.
		lockInObj := a == helpers.ArgPtrToSpinLock && isAllocObj(reg)
		if (reg.Type != states.PtrToMapValue || reg.MaybeNull()) && !lockInObj {
			return typeErr()
		}
		// check_func_arg runs check_func_arg_reg_off on every argument
		// after its type check: an allocated object's lock pointer may
		// carry a fixed offset but no variable one, which is refused
		// before process_spin_lock looks for the lock.
		if err := e.checkFuncArgRegOff(reg, regno, false); err != nil {
			return err
		}
		if a == helpers.ArgPtrToTimer {
			return e.processTimerArg(regno, meta)
		}
		if e.inRBTreeCallback() {
			return e.reject(e.insnIdx, "can't spin_{lock,unlock} in rbtree cb")
		}
		switch fn.ID {
		case fnSpinLock:
			return e.processSpinLock(regno, lockOp{acquire: true})
		case fnSpinUnlock:
			return e.processSpinLock(regno, lockOp{})
		}
		return e.verifierBug("spin lock arg on unexpected helper")
	case helpers.ArgPtrToStackOrNull:
		if reg.IsNull() {
			return nil
		}
		if reg.Type != states.PtrToStack {
			return typeErr()
		}
	case helpers.ArgPtrToBTFID, helpers.ArgPtrToBTFIDOrNull:
		return e.checkBTFIDArg(i, fn, a, meta.kptr)
	case helpers.ArgPtrToKptr:
		return e.checkKptrXchgDest(regno, meta)
	case helpers.ArgPtrToPercpuBTFID:
		return e.checkPercpuBTFArg(regno, reg, meta)
	case helpers.ArgPtrToDynptr:
		return e.checkDynptrArg(regno, fn)
	default:
		return e.unsupported(e.insnIdx, "argument kind %d of helper %s#%d", a, fn.Name, fn.ID)
	}
	return nil
}

// isSockView reports a non-NULL socket pointer of one of the four
// socket views (sock_types).
func isSockView(reg *states.Reg) bool {
	switch reg.Type {
	case states.PtrToSocket, states.PtrToSockCommon, states.PtrToTCPSock, states.PtrToXDPSock:
		return !reg.MaybeNull()
	}
	return false
}

// constMapKey reads a constant array-map key from the stack, or -1
// (get_constant_map_key): the key's bytes, counted down from its first
// byte's slot index, must all be STACK_ZERO, or be exactly the bytes of a
// constant scalar spill of the key's size. Relying on the spilled value
// makes it precise.
func (e *env) constMapKey(reg *states.Reg, keySize int) int64 {
	if reg.Type != states.PtrToStack || !reg.Var.IsConst() {
		return -1
	}
	off := int(reg.Off) + int(reg.Var.Value)
	f := e.frameOf(reg)
	slot := -off - 1
	spi := slot / states.SlotSize
	if slot < 0 || spi >= f.NumSlots() {
		return -1
	}
	s := f.Slot(spi)
	first := slot % states.SlotSize
	zeros := 0
	for i := first; i >= 0 && s.Types[i] == states.StackZero; i-- {
		zeros++
	}
	if zeros >= keySize {
		return 0
	}
	if !s.IsSpilledScalarReg() {
		return -1
	}
	spill := 0
	for i := first; i >= 0 && s.Types[i] == states.StackSpill; i-- {
		spill++
	}
	if spill != keySize || !s.Spilled.Var.IsConst() {
		return -1
	}
	// The key's value is precise from here on.
	_ = e.markStackPrecise(reg.FrameNo(), spi)
	return int64(s.Spilled.Var.Value)
}

// checkMemSizeReg is check_mem_size_reg: the size argument of the
// previous memory argument. uninit is MEM_UNINIT (the helper fills the
// buffer: raw mode), write is MEM_WRITE (the access is checked as a write).
func (e *env) checkMemSizeReg(regno int, uninit, write, zeroOK bool, meta *callMeta) error {
	reg := &e.regs()[regno]
	meta.msizeMax = reg.UMax
	m := meta
	if !reg.Var.IsConst() {
		m = nil
	}
	if reg.SMin < 0 {
		return e.reject(e.insnIdx, "R%d min value is negative, either use unsigned or 'var &= const'", regno)
	}
	if reg.UMin == 0 && !zeroOK {
		return e.reject(e.insnIdx, "R%d invalid zero-sized read: u64=[%d,%d]", regno, reg.UMin, reg.UMax)
	}
	if reg.UMax >= maxVarSize {
		return e.reject(e.insnIdx, "R%d unbounded memory access, use 'var &= const' or 'if (var < const)'", regno)
	}
	t := accRead
	if write {
		t = accWrite
	}
	if uninit {
		if m != nil {
			m.rawMode = true
		}
	}
	if err := e.checkHelperMemAccess(regno-1, int(reg.UMax), t, zeroOK, m); err != nil {
		return err
	}
	return e.markChainPrecision(regno)
}

// checkMapHelperWrite is the read-only map rule of record_func_map: a
// program given a map read-only may not change its entries through the
// helpers that update, delete, push or pop them.
func (e *env) checkMapHelperWrite(id int32, mapIdx int) error {
	if mapIdx < 0 || !e.maps[mapIdx].ReadOnly {
		return nil
	}
	switch id {
	case fnMapUpdateElem, fnMapDeleteElem, fnMapPushElem, fnMapPopElem:
		return e.reject(e.insnIdx, "write into map forbidden")
	}
	return nil
}

// checkHelperMemAccess is check_helper_mem_access: size bytes at the
// pointer in regno.
func (e *env) checkHelperMemAccess(regno, size int, t access, zeroOK bool, meta *callMeta) error {
	reg := &e.regs()[regno]
	switch reg.Type {
	case states.PtrToPacket, states.PtrToPacketMeta:
		return e.checkPacketAccess(regno, int(reg.Off), size, zeroOK)
	case states.PtrToMapKey:
		if t == accWrite {
			return e.reject(e.insnIdx, "R%d cannot write into %s", regno, regTypeStr(reg))
		}
		return e.checkMemRegion(regno, int(reg.Off), size, int(e.mapAt(reg).KeySize), false)
	case states.PtrToMapValue:
		m := e.mapAt(reg)
		if err := e.checkMapAccessType(m, int(reg.Off), size, t); err != nil {
			return err
		}
		if err := e.checkMemRegion(regno, int(reg.Off), size, int(m.ValueSize), zeroOK); err != nil {
			return err
		}
		if err := e.checkMapFields(regno, int(reg.Off), size, false); err != nil {
			return err
		}
		return e.checkExternLayout(regno, int(reg.Off), size)
	case states.PtrToMem:
		if t == accWrite && reg.Flags&states.MemRdonly != 0 {
			return e.reject(e.insnIdx, "R%d cannot write into %s", regno, regTypeStr(reg))
		}
		return e.checkMemRegion(regno, int(reg.Off), size, memSize(reg), zeroOK)
	case states.PtrToStack:
		return e.checkStackRangeInit(regno, int(reg.Off), size, zeroOK, t, meta)
	case states.PtrToBuf:
		return e.checkBufferAccess(regno, int(reg.Off), size, t)
	case states.PtrToBTFID:
		// A helper takes a trusted BTF pointer as read-only memory only
		// (trustedBTFMemArg), and so checks a read; a global function's
		// memory argument a read and a write (check_mem_reg).
		return e.checkPtrToBTFAccess(regno, int(reg.Off), size, t, nil)
	case states.PtrToCtx:
		if !convertsCtxAccess(e.progType) {
			return e.checkCtxLastByte(regno, size, t, zeroOK)
		}
	}
	if zeroOK && size == 0 && reg.IsNull() {
		return nil
	}
	return e.reject(e.insnIdx, "R%d type=%s expected=fp", regno, regTypeStr(reg))
}

// checkCtxLastByte is check_helper_mem_access for a context whose program
// type has no convert_ctx_access (tracing, syscall and the like): the
// kernel cannot know the context's size statically and checks an access
// of its last byte, as a one-byte load or store at size-1 would be.
func (e *env) checkCtxLastByte(regno, size int, t access, zeroOK bool) error {
	if size == 0 {
		if zeroOK {
			return nil
		}
		return e.reject(e.insnIdx, "")
	}
	return e.checkMemAccess(regno, size-1, 1, t, -1, false)
}

// convertsCtxAccess reports whether the kernel's verifier ops of program
// type t have a convert_ctx_access: the types whose context is a kernel
// structure behind a user-visible one.
func convertsCtxAccess(t ebpf.ProgramType) bool {
	switch t {
	case ebpf.SocketFilter, ebpf.SchedCLS, ebpf.SchedACT, ebpf.XDP, ebpf.CGroupSKB, ebpf.LWTIn, ebpf.LWTOut,
		ebpf.LWTXmit, ebpf.LWTSeg6Local, ebpf.CGroupSock, ebpf.CGroupSockAddr, ebpf.SockOps, ebpf.SkSKB,
		ebpf.SkMsg, ebpf.FlowDissector, ebpf.SkReuseport, ebpf.SkLookup, ebpf.PerfEvent, ebpf.CGroupSysctl,
		ebpf.CGroupSockopt:
		return true
	}
	return false
}

// wholeSlotAccess is check_stack_range_initialized's byte walk over all
// eight bytes of slot s, done at once where its outcome does not depend
// on the bytes: a slot of INVALID, MISC and ZERO bytes, which a read
// leaves as it is and a write makes all MISC, and a spilled register,
// which a read leaves and a write scrubs (the walk meets the spill at the
// slot's first byte: the register becomes unknown, then every byte MISC).
// It reports false, doing nothing, for other slots: those the walk must
// visit byte by byte.
func wholeSlotAccess(s *states.Slot, t access) bool {
	switch {
	case s.IsPlain():
		if t == accWrite {
			s.MarkMisc()
		}
	case s.IsSpilledReg():
		if t == accWrite {
			s.Spilled.MarkUnknown(false)
			s.MarkMisc()
		}
	default:
		return false
	}
	return true
}

// checkStackRangeInit is check_stack_range_initialized.
func (e *env) checkStackRangeInit(regno, off, size int, zeroOK bool, t access, meta *callMeta) error {
	reg := &e.regs()[regno]
	if size == 0 && !zeroOK {
		return e.reject(e.insnIdx, "invalid zero-sized read")
	}
	if err := e.checkStackAccessWithinBounds(regno, off, size, t); err != nil {
		return err
	}
	f := e.frameOf(reg)
	var minOff, maxOff int
	if reg.Var.IsConst() {
		minOff = int(reg.Var.Value) + off
		maxOff = minOff
	} else {
		if meta != nil && meta.rawMode {
			meta = nil
		}
		minOff = int(reg.SMin) + off
		maxOff = int(reg.SMax) + off
	}
	if meta != nil && meta.rawMode {
		// The byte-by-byte writes that simulate the helper must not land
		// on a dynptr.
		for i := minOff; i < maxOff+size; i++ {
			slot := -i - 1
			if slot >= f.AllocatedStack() {
				continue
			}
			if f.Slot(slot / states.SlotSize).Types[slot%states.SlotSize] == states.StackDynptr {
				return e.reject(e.insnIdx, "potential write to dynptr at off=%d disallowed", i)
			}
		}
		meta.accessSize = size
		meta.rawRegno = regno
		return nil
	}
	if size > 0 {
		// The live 6.18 kernel revokes the frame's fastcall patterns
		// when a helper, kfunc or global function reads their slots
		// (not for a zero-sized read), though neither the 6.12 nor the
		// 7.3 text of check_stack_range_initialized checks the
		// contract: measured, see checkFastcallContract.
		e.checkFastcallContract(int(f.SubProg), minOff)
	}
	marked := -1
	end := maxOff + size
	for i := minOff; i < end; i++ {
		slot := -i - 1
		spi := slot / states.SlotSize
		if spi != marked {
			// Once per slot, not per byte: the mark is the slot's.
			e.markStackRead(reg.FrameNo(), spi)
			marked = spi
		}
		s := f.Slot(spi)
		if slot%states.SlotSize == states.SlotSize-1 && i+states.SlotSize <= end && wholeSlotAccess(s, t) {
			i += states.SlotSize - 1
			continue
		}
		b := &s.Types[slot%states.SlotSize]
		switch {
		case *b == states.StackMisc:
		case *b == states.StackZero || *b == states.StackInvalid:
			if t == accWrite {
				*b = states.StackMisc
			}
		case s.IsSpilledReg():
			if t == accWrite {
				s.Spilled.MarkUnknown(false)
				scrubSlot(s)
			}
		default:
			if reg.Var.IsConst() {
				return e.reject(e.insnIdx, "invalid read from stack R%d off %d+%d size %d", regno, minOff, i-minOff, size)
			}
			return e.reject(e.insnIdx, "invalid read from stack R%d var_off %s+%d size %d", regno, reg.Var.String(), i-minOff, size)
		}
	}
	return nil
}

// checkFuncCall is check_func_call for a bpf-to-bpf call of a static
// subprogram: a new frame, arguments r1-r5 copied.
func (e *env) checkFuncCall(in *insn.Insn) error {
	st := e.cur
	target := e.insnIdx + int(in.Imm) + 1
	sp := e.cfg.SubprogOf(target)
	if sp < 0 || e.cfg.Subprogs[sp].Start != target {
		return e.reject(e.insnIdx, "verifier bug. No program starts at insn %d", target)
	}
	if e.isGlobalSubprog(sp) {
		// A global function is verified on its own and pushes no frame:
		// only setup_func_entry, for the other calls, limits the depth.
		return e.callGlobal(sp)
	}
	e.checkStaticArgs(sp)
	if st.CurFrame+1 >= states.MaxCallFrames {
		return e.reject(e.insnIdx, "the call stack of %d frames is too deep", st.CurFrame+2)
	}
	caller := st.Frames[st.CurFrame]
	callee := e.pool.Frame()
	states.InitFrame(callee, int32(e.insnIdx), st.CurFrame+1, int32(sp))
	for r := 1; r <= 5; r++ {
		callee.Regs()[r] = caller.Regs()[r]
	}
	st.CurFrame++
	st.Frames[st.CurFrame] = callee
	e.stackLive.chainMayChange()
	for r := 0; r <= 5; r++ {
		caller.Regs()[r].MarkNotInit()
	}
	// The callee's frame is new: the log shows all of it next
	// (init_func_state).
	e.log.markAllScratched()
	e.log.call(e)
	e.insnIdx = target
	// The call instruction commits no write marks to the caller's
	// instance (bpf_reset_live_stack_callchain): what it writes is what
	// the callee writes on every path, which propagation sets.
	e.stackLive.recording = false
	return nil
}

// processExit is process_bpf_exit_full: leak checks, return to the caller
// or the program's return code check.
func (e *env) processExit() (bool, error) {
	st := e.cur
	if err := e.checkResourceLeak(false, st.CurFrame == 0, "BPF_EXIT instruction in main prog"); err != nil {
		return false, err
	}
	if st.CurFrame > 0 {
		// Leaving a function also recomputes stack liveness
		// (process_bpf_exit_full).
		e.updateStackLiveness()
		callee := st.Frames[st.CurFrame]
		r0 := callee.Regs()[0]
		if r0.Type == states.PtrToStack {
			// prepare_func_exit's EINVAL.
			return false, e.rejectErrno(syscall.EINVAL, e.insnIdx, "cannot return stack pointer to the caller")
		}
		// A callback's r0 must be a scalar before anything of its frame
		// ends: a slice over its own stack is "not a scalar value".
		if callee.InCallbackFn && r0.Type != states.ScalarValue {
			return false, e.reject(e.insnIdx, "R0 not a scalar value")
		}
		// The callee's stack goes: so do the slices over a buffer in it,
		// the one it returns included (slicebuf.go).
		e.endSlicesOver(int(st.CurFrame), -states.MaxStack, 0)
		r0 = callee.Regs()[0]
		if callee.InCallbackFn {
			err := e.returnFromCallback()
			// do_check prints the state of the path it resumes after
			// every prepare_func_exit, a callback's too.
			e.log.printState = true
			return false, err
		}
		caller := st.Frames[st.CurFrame-1]
		e.log.returned(e, int(callee.CallSite)+1)
		caller.Regs()[0] = r0
		e.insnIdx = int(callee.CallSite) + 1
		st.Frames[st.CurFrame] = nil
		st.CurFrame--
		e.stackLive.chainMayChange()
		e.pool.PutFrame(callee)
		e.log.returnedTo(e)
		e.log.printState = true
		return false, nil
	}
	if err := e.checkExitValue(0); err != nil {
		return false, err
	}
	return true, nil
}

// checkExitValue is check_return_code: the value in register regno (r0
// at an exit, the cookie in r1 at bpf_throw) as the verification's entry
// returns it: from an asynchronous callback, from a global subprogram
// verified on its own, or from the program.
func (e *env) checkExitValue(regno int) error {
	if e.cur.Frames[0].InAsyncCallbackFn {
		return e.checkAsyncReturn(regno)
	}
	if e.subprog != 0 && !e.isExceptionCallback(e.subprog) {
		return e.checkGlobalReturn(regno)
	}
	// The exception callback returns what the program returns
	// (check_return_code's in_exception_callback_fn).
	return e.checkReturnCode(regno)
}

// checkReturnCode is check_return_code for the main program.
func (e *env) checkReturnCode(regno int) error {
	if done, err := e.checkBTFReturnCode(regno); done {
		return err
	}
	if err := e.checkRegRead(uint8(regno)); err != nil {
		return err
	}
	lo, hi, ok := retRange(e.progType, e.attach)
	if !ok {
		return nil
	}
	return e.enforceReturnRange(regno, retvalRange{min: lo, max: hi, ok: true}, false, "")
}

// rejectOutOfRange is the kernel's verbose_invalid_scalar: register regno
// left a function (ctx says which kind of exit) outside the range [lo, hi]
// it must be in.
func (e *env) rejectOutOfRange(ctx string, regno int, r0 *states.Reg, lo, hi int64) error {
	msg := ctx + sprintf(" the register R%d has", regno)
	unknown := true
	if r0.SMin > minInt64 {
		msg += sprintf(" smin=%d", r0.SMin)
		unknown = false
	}
	if r0.SMax < maxInt64 {
		msg += sprintf(" smax=%d", r0.SMax)
		unknown = false
	}
	if unknown {
		msg += " unknown scalar value"
	}
	return e.reject(e.insnIdx, "%s should have been in [%d, %d]", msg, lo, hi)
}

// innerMapIndex returns the index in e.maps of the inner map definition
// of map-in-map i, appending it on first use; -1 when it has none.
func (e *env) innerMapIndex(i int) int {
	m := e.maps[i]
	if m.Inner == nil {
		return -1
	}
	for j, x := range e.maps {
		if x == m.Inner {
			return j
		}
	}
	e.maps = append(e.maps, m.Inner)
	return len(e.maps) - 1
}

// mapInfo is map aux as the log names it. An inner map template is the
// kernel's inner_map_meta, which bpf_map_meta_alloc leaves without a name.
func (e *env) mapInfo(aux uint32) (states.MapInfo, bool) {
	if int(aux) >= len(e.maps) {
		return states.MapInfo{}, false
	}
	m := e.maps[aux]
	info := states.MapInfo{Name: kernelObjName(m.Name), KeySize: m.KeySize, ValueSize: m.ValueSize}
	if e.outerMapOf(m) >= 0 {
		info.Name = ""
	}
	return info, true
}

// outerMapInfo is the map of maps whose lookups yield inner map aux.
func (e *env) outerMapInfo(aux uint32) (states.MapInfo, bool) {
	if int(aux) >= len(e.maps) {
		return states.MapInfo{}, false
	}
	if i := e.outerMapOf(e.maps[aux]); i >= 0 {
		return e.mapInfo(uint32(i))
	}
	return e.mapInfo(aux)
}

// outerMapOf is the index of the map of maps whose inner template is
// inner, or -1.
func (e *env) outerMapOf(inner *loader.Map) int {
	for i, m := range e.maps {
		if m.Inner == inner {
			return i
		}
	}
	return -1
}

// lookupAcquires is the map part of is_acquire_function: a lookup in a
// SOCKMAP or SOCKHASH returns a socket the program holds a reference to.
func (e *env) lookupAcquires(id int32, meta *callMeta) bool {
	if id != fnMapLookupElem || meta.mapIdx < 0 || meta.mapIdx >= len(e.maps) {
		return false
	}
	t := e.maps[meta.mapIdx].Type
	return t == ebpf.SockMap || t == ebpf.SockHash
}

// lookupObject is the kind of object a lookup in a map of type t
// yields once its result is known not to be NULL (mark_ptr_or_null_reg):
// an XDP socket from an xskmap, a socket from a sockmap or sockhash.
func lookupObject(t ebpf.MapType) (states.RegType, bool) {
	switch t {
	case ebpf.XSKMap:
		return states.PtrToXDPSock, true
	case ebpf.SockMap, ebpf.SockHash:
		return states.PtrToSocket, true
	}
	return 0, false
}

// structOpsTakesRef reports whether this struct_ops program's operator
// takes back a reference returned in R0: any operator on kernels that
// lack stablefix.StructOpsRefPtrRet, one returning a pointer on the
// others. An operator vercheck cannot resolve is taken to return none,
// the stricter answer (its return code is refused anyway).
func (e *env) structOpsTakesRef() bool {
	if e.opts.MissingFixes.Has(stablefix.StructOpsRefPtrRet) {
		return true
	}
	tc, err := e.attachTarget()
	if err != nil {
		return false
	}
	_, ptr := skipModifiers(tc.ret).(*btf.Pointer)
	return ptr
}

// checkResourceLeak is check_resource_leak for an instruction (what)
// that leaves the program, or may leave it without returning to this
// frame. With checkLock, no lock, interrupt-disabled section (irq.go),
// RCU read section or preempt-disabled section (preempt.go) may be open.
// References are checked in the main program only (a subprogram's caller
// may still release them), except at an exceptional exit, which never
// returns to the callers; the kernel checks in that order.
func (e *env) checkResourceLeak(exceptionExit, checkLock bool, what string) error {
	st := e.cur
	if checkLock && st.ActiveLocks > 0 {
		return e.reject(e.insnIdx, "%s cannot be used inside bpf_spin_lock-ed region", what)
	}
	if exceptionExit || st.CurFrame == 0 {
		// A struct_ops program may hand the reference R0 holds back to
		// the kernel: check_reference_leak passes it over, and
		// check_return_code then checks its type against the operator's
		// return type (and, for a void operator, nothing). With
		// stablefix.StructOpsRefPtrRet only an operator that returns a
		// pointer takes it; from any other the reference leaks.
		var handedBack uint32
		if e.progType == ebpf.StructOps && !exceptionExit && e.structOpsTakesRef() {
			handedBack = e.regs()[0].RefObjID
		}
		// check_reference_leak names every reference left. The
		// message is built only then: every path's exit comes here,
		// and a builder escapes to the heap.
		leaked := func(r states.Ref) bool {
			return r.Kind == states.RefKindPtr && (handedBack == 0 || r.ID != handedBack)
		}
		if slices.ContainsFunc(st.Refs, leaked) {
			var b strings.Builder
			for _, r := range st.Refs {
				if leaked(r) {
					fmt.Fprintf(&b, "Unreleased reference id=%d alloc_insn=%d\n", r.ID, r.InsnIdx)
				}
			}
			return e.reject(e.insnIdx, "%s%s would lead to reference leak", b.String(), what)
		}
	}
	if checkLock && st.ActiveIRQID != 0 {
		return e.reject(e.insnIdx, "%s cannot be used inside bpf_local_irq_save-ed region", what)
	}
	if checkLock && st.ActiveRCU {
		return e.reject(e.insnIdx, "%s cannot be used inside bpf_rcu_read_lock-ed region", what)
	}
	if checkLock && st.ActivePreemptLocks > 0 {
		return e.reject(e.insnIdx, "%s cannot be used inside bpf_preempt_disable-ed region", what)
	}
	return nil
}

// sockmapValueArg reports whether a is a map value kind of a helper whose
// map argument (in meta) is a sockmap or sockhash: resolve_map_arg_type
// then turns the plain value kind into a socket and refuses the others.
func (e *env) sockmapValueArg(a helpers.ArgType, meta *callMeta) bool {
	switch a {
	case helpers.ArgPtrToMapValue, helpers.ArgPtrToUninitMapValue, helpers.ArgPtrToMapValueOrNull:
	default:
		return false
	}
	mt := e.metaMapType(meta)
	return mt == ebpf.SockMap || mt == ebpf.SockHash
}

// checkSockmapValueArg is the value argument (argument i) of helper fn on
// a sockmap or sockhash: the kernel takes a socket there, not memory
// (resolve_map_arg_type turns the value kind into
// ARG_PTR_TO_BTF_ID_SOCK_COMMON): a socket, or a plain or trusted BTF
// pointer to a struct that begins with struct sock_common.
func (e *env) checkSockmapValueArg(i int, fn *helpers.Proto, reg *states.Reg) error {
	regno := i + 1
	switch reg.Type {
	case states.PtrToSockCommon, states.PtrToSocket, states.PtrToTCPSock, states.PtrToXDPSock:
		if !reg.MaybeNull() {
			return nil
		}
	case states.PtrToBTFID:
		if reg.Flags == 0 || reg.Flags == states.PtrTrusted {
			return e.checkBTFSockCommonArg(i, fn, false)
		}
	}
	return e.reject(e.insnIdx, "R%d type=%s expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_", regno, regTypeStr(reg))
}

// btfSockCommon is the struct an ARG_PTR_TO_BTF_ID_SOCK_COMMON argument
// given as a BTF pointer must start with.
const btfSockCommon = "sock_common"

// checkBTFSockCommonArg checks a BTF pointer passed as a socket argument
// (argument i): like a BTF argument of struct sock_common, which any
// socket struct embeds first.
func (e *env) checkBTFSockCommonArg(i int, fn *helpers.Proto, orNull bool) error {
	p := *fn
	p.ArgBTFName[i] = btfSockCommon
	// The or-NULL kind folds PTR_MAYBE_NULL out of the register's type
	// before matching it (check_reg_type), so a trusted socket that may
	// be NULL passes, as bpf_get_socket_ptr_cookie takes it.
	a := helpers.ArgPtrToBTFID
	if orNull {
		a = helpers.ArgPtrToBTFIDOrNull
	}
	return e.checkBTFIDArg(i, &p, a, nil)
}

// checkGetFuncIP is check_get_func_ip: bpf_get_func_ip needs a probe
// address, which only kprobes and programs run from a trampoline have.
func (e *env) checkGetFuncIP() error {
	switch e.progType {
	case ebpf.Kprobe:
		return nil
	case ebpf.Tracing:
		switch e.attach {
		case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn:
			return nil
		}
		return e.reject(e.insnIdx, "func bpf_get_func_ip#%d supported only for fentry/fexit/fmod_ret programs", fnGetFuncIP)
	}
	return e.reject(e.insnIdx, "func bpf_get_func_ip#%d not supported for program type %d", fnGetFuncIP, uint32(e.progType))
}

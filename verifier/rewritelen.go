package verifier

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// The lengths of the kernel's rewrites (see rewrite.go), per instruction,
// from what the walk recorded: the pointer each load and store went
// through (insn_aux_data ptr_type), the map each lookup named
// (map_ptr_state), the bpf_loop calls fit for inlining, the direct packet
// writes (seen_direct_write). The figures are those of the 6.18 kernel on
// x86-64 with its JIT, loaded by root: no speculation sanitizing, no
// constant blinding, the maps created by a privileged user
// (bypass_spec_v1), per-CPU instructions supported.

// Helpers do_misc_fixups rewrites, other than those named elsewhere.
const (
	fnSkStorageGet     = 107
	fnInodeStorageGet  = 145
	fnTaskStorageGet   = 156
	fnCgrpStorageGet   = 210
	fnJiffies64        = 118
	fnGetBranchSnap    = 176
	fnGetFuncArg       = 183
	fnGetFuncRet       = 184
	fnGetFuncArgCnt    = 185
	innerMapFlag       = 1 << 12 // BPF_F_INNER_MAP
	mapLookupArrayLen  = 7       // array_map_gen_lookup, bypass_spec_v1
	mapLookupPcpuArray = 9       // percpu_array_map_gen_lookup
	mapLookupArrOfMaps = 9       // array_of_map_gen_lookup
)

// mapLookupLen is map_gen_lookup's length per map type (a map type absent
// keeps its call).
var mapLookupLen = map[ebpf.MapType]int{
	ebpf.Array:       mapLookupArrayLen,
	ebpf.PerCPUArray: mapLookupPcpuArray,
	ebpf.ArrayOfMaps: mapLookupArrOfMaps,
	ebpf.Hash:        3, // htab_map_gen_lookup
	ebpf.LRUHash:     6, // htab_lru_map_gen_lookup
	ebpf.PerCPUHash:  5, // htab_percpu_map_gen_lookup
	ebpf.HashOfMaps:  4, // htab_of_map_gen_lookup
	ebpf.XSKMap:      8, // xsk_map_gen_lookup
}

// mapCallPoisoned marks, in env.mapCalls, a map helper call whose paths
// named different maps (the kernel's BPF_MAP_PTR_POISON in
// map_ptr_state): the call is not inlined.
const mapCallPoisoned = -1

// recordMapCall is record_func_map for a bpf_map_lookup_elem call: the
// map of the call's first visit plus one, or mapCallPoisoned. It runs at
// every visit, so it costs a slice store.
func (e *env) recordMapCall(mapIdx int) {
	if mapIdx < 0 {
		return
	}
	if e.mapCalls == nil {
		e.mapCalls = make([]int32, len(e.prog))
	}
	switch st := &e.mapCalls[e.insnIdx]; {
	case *st == 0:
		*st = int32(mapIdx) + 1
	case *st != int32(mapIdx)+1:
		*st = mapCallPoisoned
	}
}

// rewriteLengths gathers the patch length of every instruction the
// passes rewrite.
func (e *env) rewriteLengths() *rewriteLens {
	l := &rewriteLens{byInsn: make([][numPasses]patchLen, len(e.prog))}
	for i, st := range e.loopInline {
		if st.fit && e.seen[i] && st.callback > 0 && st.callback < len(e.cfg.Subprogs) {
			if l.inline == nil {
				l.inline = map[int]int{}
			}
			l.inline[i] = e.cfg.Subprogs[st.callback].Start
		}
	}
	if n, ok := e.prologueLen(); ok {
		l.prologue = n
	} else {
		l.bound("the prologue of a %s program", e.progType)
		l.prologue = 1
	}
	tstampType := e.readsTstampType()
	rndHi32 := e.progFlags()&loader.FlagTestRndHi32 != 0
	for i := range e.prog {
		if !e.seen[i] {
			l.unseen++
			continue
		}
		in := &e.prog[i]
		kind := rewriteKinds[in.Op]
		if kind == 0 && !rndHi32 || in.Filler {
			// Most instructions: none of the tests below passes.
			continue
		}
		// Only the instructions the length functions may give more
		// than one instruction go on to them (ctxPatchLen: loads and
		// stores through a context or socket pointer; fixupPatchLen:
		// divisions by a register, LD_ABS/LD_IND, may_goto, calls;
		// subregPatchLen: atomics, or anything under
		// BPF_F_TEST_RND_HI32): a few instructions each where the
		// three calls cost about a hundred.
		ctx := kind&kindMem != 0 && rewritesPtr(e.auxPtr[i].t)
		fixups := kind&kindFixups != 0
		subreg := rndHi32 || kind&kindAtomic != 0
		if kind&kindJump != 0 && (in.Op != insn.ClassJMP|insn.JmpCall || in.IsPseudoCall()) ||
			kind&kindLdImm64 != 0 && in.IsPseudoFunc() {
			l.jumps = append(l.jumps, int32(i))
		}
		if in.Op == insn.ClassJMP|insn.JmpCall {
			l.throws = l.throws || in.IsKfuncCall() && isThrowCall(*in)
		}
		if ctx {
			l.set(i, passCtx)(e.ctxPatchLen(i, *in, tstampType))
		}
		if fixups {
			l.set(i, passFixups)(e.fixupPatchLen(i, *in))
		}
		if subreg {
			l.set(i, passSubreg)(e.subregPatchLen(i, *in))
		}
	}
	return l
}

// Kinds of opcode for rewriteLengths, bits of rewriteKinds.
const (
	// kindMem: a load or store (LDX, ST, STX), which convert_ctx_accesses
	// may rewrite.
	kindMem = 1 << iota
	// kindAtomic: an atomic (STX|ATOMIC), which
	// opt_subreg_zext_lo32_rnd_hi32 may patch.
	kindAtomic
	// kindFixups: what do_misc_fixups may patch: a division or modulo
	// by a register, LD_ABS/LD_IND, may_goto, a call.
	kindFixups
	// kindJump: a jump with a relative target (insn.Relative), or a
	// call (a bpf-to-bpf call has one).
	kindJump
	// kindLdImm64: an ld_imm64 (a function address has a target).
	kindLdImm64
)

// rewriteKinds is each opcode's kinds.
var rewriteKinds = func() (k [256]uint8) {
	for op := range 256 {
		in := insn.Insn{Op: uint8(op)}
		cls, mode, alu := in.Class(), in.Mode(), in.Op&0xf0
		switch cls {
		case insn.ClassLDX, insn.ClassST:
			k[op] |= kindMem
		case insn.ClassSTX:
			k[op] |= kindMem
			if mode == insn.ModeATOMIC {
				k[op] |= kindAtomic
			}
		case insn.ClassALU, insn.ClassALU64:
			if in.Op&insn.SrcX != 0 && (alu == insn.ALUDiv || alu == insn.ALUMod) {
				k[op] |= kindFixups
			}
		case insn.ClassLD:
			if mode == insn.ModeABS || mode == insn.ModeIND {
				k[op] |= kindFixups
			}
			if in.IsLdImm64() {
				k[op] |= kindLdImm64
			}
		case insn.ClassJMP, insn.ClassJMP32:
			switch {
			case in.Op == insn.ClassJMP|insn.JmpJCOND, in.Op == insn.ClassJMP|insn.JmpCall:
				k[op] |= kindFixups | kindJump
			case alu != insn.JmpCall && alu != insn.JmpExit:
				k[op] |= kindJump
			}
		}
	}
	return k
}()

// rewritesPtr reports the pointer types whose loads and stores
// convert_ctx_accesses may rewrite (ctxPatchLen).
func rewritesPtr(t states.RegType) bool {
	switch t {
	case states.PtrToCtx, states.PtrToSocket, states.PtrToSockCommon, states.PtrToTCPSock, states.PtrToXDPSock:
		return true
	}
	return false
}

// set returns the function recording instruction i's patch length in
// pass: lo..hi, why set when only bounded.
func (l *rewriteLens) set(i, pass int) func(lo, hi int, why string) {
	return func(lo, hi int, why string) {
		if hi <= 1 {
			return
		}
		if l.byInsn[i] == [numPasses]patchLen{} {
			l.patched = append(l.patched, int32(i))
		}
		l.byInsn[i][pass] = patchLen{uint8(lo), uint8(hi)}
		l.count[pass]++
		l.growHi += hi - 1
		if why != "" {
			l.bound("%s", why)
		}
	}
}

// bound notes a length only bounded.
func (l *rewriteLens) bound(format string, args ...any) {
	if !l.unknown {
		l.unknown, l.unknownWhy = true, "the rewrite of "+fmt.Sprintf(format, args...)+" is not modelled"
	}
}

// ctxPatchLen is convert_ctx_accesses' length for instruction i: loads
// and stores through the context or a socket pointer, by the pointer type
// the walk recorded for the instruction. why is set when the length is
// only bounded.
func (e *env) ctxPatchLen(i int, in insn.Insn, tstampType bool) (lo, hi int, why string) {
	cls := in.Class()
	mode := in.Mode()
	var op ctxaccess.Op
	switch {
	case cls == insn.ClassLDX && (mode == insn.ModeMEM || mode == insn.ModeMEMSX):
		op = ctxaccess.Op{SignExt: mode == insn.ModeMEMSX, SameReg: in.Dst == in.Src}
	case (cls == insn.ClassSTX || cls == insn.ClassST) && mode == insn.ModeMEM:
		op = ctxaccess.Op{Store: true, Imm: cls == insn.ClassST}
	default:
		return 1, 1, ""
	}
	op.Off, op.Size = int(in.Off), in.SizeBytes()
	p := e.auxPtr[i]
	if p.flags != 0 {
		return 1, 1, ""
	}
	n, ok := 1, true
	switch p.t {
	case states.PtrToCtx:
		op.TstampTypeAccess = tstampType
		op.RttMinUnchecked = e.opts.MissingFixes.Has(stablefix.SockOpsRttMinFullsock)
		n, ok = e.ctxConvertLen(op)
	case states.PtrToSocket, states.PtrToSockCommon, states.PtrToTCPSock, states.PtrToXDPSock:
		n, ok = ctxaccess.SockRewriteLen(sockKinds[p.t], op)
	}
	if !ok {
		return 1, insnBufSize + 2, fmt.Sprintf("a %d-byte access at offset %d of a %s", op.Size, op.Off, p.t)
	}
	return n, n, ""
}

// subregPatchLen is opt_subreg_zext_lo32_rnd_hi32's length for
// instruction i, only bounded: x86-64's JIT zero-extends 32-bit results
// itself, but a 32-bit cmpxchg whose r0 is later read in 64 bits
// (insn_aux_data zext_dst, which vercheck does not track) gets an
// explicit zero extension, and under BPF_F_TEST_RND_HI32 every 32-bit
// result not so read gets its upper half randomised (3 more
// instructions).
func (e *env) subregPatchLen(i int, in insn.Insn) (lo, hi int, why string) {
	cls := in.Class()
	w := in.Op&0x18 == insn.SizeW
	if cls == insn.ClassSTX && in.Mode() == insn.ModeATOMIC && w && in.Imm == insn.AtomicCmpXchg {
		if e.progFlags()&loader.FlagTestRndHi32 != 0 {
			return 1, 4, "a 32-bit cmpxchg under BPF_F_TEST_RND_HI32"
		}
		return 1, 2, "a 32-bit cmpxchg (its zero extension)"
	}
	if e.progFlags()&loader.FlagTestRndHi32 == 0 {
		return 1, 1, ""
	}
	def32 := false
	switch {
	case cls == insn.ClassALU:
		def32 = !(in.Op&0xf0 == insn.ALUEnd && in.Imm == 64)
	case cls == insn.ClassLDX && in.Mode() == insn.ModeMEM:
		def32 = in.Op&0x18 != insn.SizeDW && e.auxPtr[i].t != states.PtrToCtx
	case cls == insn.ClassSTX && in.Mode() == insn.ModeATOMIC:
		def32 = w && in.Imm&insn.AtomicFetch != 0
	case in.IsKfuncCall():
		def32 = true
	}
	if def32 {
		return 1, 4, "a 32-bit result under BPF_F_TEST_RND_HI32"
	}
	return 1, 1, ""
}

// fixupPatchLen is do_misc_fixups' length for instruction i.
func (e *env) fixupPatchLen(i int, in insn.Insn) (lo, hi int, why string) {
	known := func(n int) (int, int, string) { return n, n, "" }
	switch cls := in.Class(); {
	case cls == insn.ClassALU || cls == insn.ClassALU64:
		op := in.Op & 0xf0
		if (op != insn.ALUDiv && op != insn.ALUMod) || in.Op&insn.SrcX == 0 {
			// By a constant: sdiv/smod by -1 is one instruction too.
			return known(1)
		}
		is64 := cls == insn.ClassALU64
		switch {
		case op == insn.ALUDiv && in.Off == 1:
			return known(8)
		case op == insn.ALUMod && in.Off == 1 && is64:
			return known(7)
		case op == insn.ALUMod && in.Off == 1:
			return known(9)
		case op == insn.ALUDiv:
			return known(4)
		case is64:
			return known(2)
		default:
			return known(4)
		}
	case cls == insn.ClassLD && (in.Mode() == insn.ModeABS || in.Mode() == insn.ModeIND):
		// bpf_gen_ld_abs: the offset (plus a register), the context,
		// the load helper, and a test returning 0 on failure.
		if in.Mode() == insn.ModeIND && in.Imm != 0 {
			return known(7)
		}
		return known(6)
	case cls == insn.ClassJMP && in.Op == insn.ClassJMP|insn.JmpJCOND && in.Src == 0:
		return known(7) // the timed may_goto of x86-64
	case in.IsHelperCall():
		return e.helperPatchLen(i, in.Imm)
	case in.IsKfuncCall() && in.Off == 0:
		info, err := kfuncCallee(in)
		if err != nil || info.proto == nil {
			return 1, insnBufSize, fmt.Sprintf("a call of kfunc %d", in.Imm)
		}
		switch info.name {
		case kfuncObjNew, kfuncPercpuObjNew, kfuncListPushFront, kfuncListPushBack, kfuncRBAdd:
			return known(4)
		case kfuncObjDrop, kfuncPercpuObjDrop, kfuncRefcountAcquire:
			return known(3)
		}
		for _, p := range info.proto.Params {
			if strings.HasSuffix(p.Name, "__prog") {
				// The program's aux passed in the __prog argument
				// (bpf_wq_set_callback_impl, bpf_task_work_schedule_*,
				// bpf_stream_vprintk): an ld_imm64 before the call.
				return known(3)
			}
		}
	}
	return known(1)
}

// helperPatchLen is do_misc_fixups' length for a call of helper id.
func (e *env) helperPatchLen(i int, id int32) (lo, hi int, why string) {
	known := func(n int) (int, int, string) { return n, n, "" }
	tracing := e.progType == ebpf.Tracing
	switch id {
	case fnTimerSetCallback:
		return known(3)
	case fnSkStorageGet, fnInodeStorageGet, fnTaskStorageGet, fnCgrpStorageGet:
		return known(2)
	case fnPerCPUPtr, fnThisCPUPtr:
		if e.percpuAllocCalls[i] {
			return known(2)
		}
	case fnMapLookupElem:
		if e.mapCalls == nil || e.mapCalls[i] <= 0 {
			return known(1)
		}
		m := e.maps[e.mapCalls[i]-1]
		n, inlined := mapLookupLen[m.Type]
		if !inlined {
			return known(1)
		}
		if m.Flags&innerMapFlag != 0 && (m.Type == ebpf.Array || m.Type == ebpf.PerCPUArray || m.Type == ebpf.ArrayOfMaps) {
			return known(1)
		}
		return known(n)
	case fnJiffies64, fnGetSmpProcessorID:
		return known(3)
	case fnGetBranchSnap:
		return known(11)
	case fnKptrXchg:
		return known(2)
	case fnGetFuncArg:
		if tracing {
			return known(9)
		}
	case fnGetFuncRet:
		if tracing {
			if e.attach == ebpf.AttachTraceFExit || e.attach == ebpf.AttachModifyReturn {
				return known(6)
			}
			return known(1)
		}
	}
	if e.progType == ebpf.Extension {
		// resolve_prog_type: the target's type decides the tracing
		// inlines.
		switch id {
		case fnGetFuncArg, fnGetFuncRet:
			return 1, insnBufSize, "a tracing helper in an Extension program"
		}
	}
	return known(1)
}

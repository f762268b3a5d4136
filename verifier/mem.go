package verifier

import (
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// access is a memory access direction.
type access uint8

const (
	accRead access = iota
	accWrite
)

// Program access flags of a map (include/uapi/linux/bpf.h):
// BPF_F_RDONLY_PROG, the program may only read the map's values (the
// loader's Map.ReadOnly says so, with the maps read-only by name or
// type), and BPF_F_WRONLY_PROG, it may only write them.
const (
	bpfFRdonlyProg = 1 << 7
	bpfFWronlyProg = 1 << 8
)

// checkMapAccessType is check_map_access_type: a program may not write a
// map it was given read-only (BPF_F_RDONLY_PROG, .rodata) nor read one it
// was given write-only (BPF_F_WRONLY_PROG). off is the offset into the
// value the access starts at, as the kernel reports it.
func (e *env) checkMapAccessType(m *loader.Map, off, size int, t access) error {
	if t == accWrite && m.ReadOnly {
		return e.reject(e.insnIdx, "write into map forbidden, value_size=%d off=%d size=%d", m.ValueSize, off, size)
	}
	if t == accRead && m.Flags&bpfFWronlyProg != 0 {
		return e.reject(e.insnIdx, "read from map forbidden, value_size=%d off=%d size=%d", m.ValueSize, off, size)
	}
	return nil
}

// checkExternLayout refuses, as unsupported, an access of the .kconfig map
// by register regno at off (the register's own offset included) that is
// not within one extern variable: which bytes lie around an extern
// depends on the loader (loader.Map.Externs), so no one verdict holds for
// libbpf's layout and cilium/ebpf's. Code reading externs as the C types
// it declares never meets this.
func (e *env) checkExternLayout(regno, off, size int) error {
	reg := &e.regs()[regno]
	m := e.mapAt(reg)
	if m == nil || m.Externs == nil {
		return nil
	}
	lo, hi := accessRange(reg, off, size)
	for _, x := range m.Externs {
		if lo >= int64(x.Off) && hi <= int64(x.Off)+int64(x.Size) {
			return nil
		}
	}
	return e.unsupported(e.insnIdx, "%s access off=%d size=%d is not within one extern variable: libbpf and cilium/ebpf lay the externs out differently", m.Name, off, size)
}

// maxPacketOff is MAX_PACKET_OFF: packet offsets beyond it are not tracked.
const maxPacketOff = 0xffff

// Packet range markers for pointers compared with pkt_end.
const (
	atPktEnd     = -1
	beyondPktEnd = -2
)

// frameOf returns the frame a stack pointer points into.
func (e *env) frameOf(r *states.Reg) *states.Frame {
	return e.cur.Frames[r.FrameNo()]
}

// checkLoad simulates LDX (and LDX MEMSX).
func (e *env) checkLoad(in *insn.Insn) error {
	return e.checkLoadAlign(in, false)
}

// checkLoadAlign is checkLoad; strictOnce demands natural alignment of this
// access whatever the program's alignment mode (load-acquire does).
func (e *env) checkLoadAlign(in *insn.Insn, strictOnce bool) error {
	if err := e.checkRegRead(in.Src); err != nil {
		return err
	}
	if err := e.checkRegWrite(in.Dst); err != nil {
		return err
	}
	// The source's kind before the load, which may overwrite it.
	src := auxPtrTypeOf(&e.regs()[in.Src])
	if err := e.checkMemAccessAlign(int(in.Src), int(in.Off), in.SizeBytes(), accRead, int(in.Dst), in.Mode() == insn.ModeMEMSX, strictOnce); err != nil {
		return err
	}
	// The kernel lets plain loads, never load-acquire (the only loads
	// with strict alignment once), mix BTF pointers of different trust.
	if err := e.saveAuxPtrType(src, !strictOnce); err != nil {
		return err
	}
	// check_load_mem ends with reg_bounds_sanity_check of the loaded
	// register: a fill of a spill an infeasible edge left inconsistent is
	// reported again.
	if d := &e.regs()[in.Dst].Scalar; !d.Sane() {
		ctx := "ldx"
		if strictOnce {
			ctx = "atomic_load"
		}
		return e.reportInsane(ctx, d)
	}
	return nil
}

// checkStore simulates STX (register) and ST (immediate) stores.
func (e *env) checkStore(in *insn.Insn) error {
	return e.checkStoreAlign(in, false)
}

// checkStoreAlign is checkStore; strictOnce demands natural alignment of
// this access whatever the program's alignment mode (store-release does).
func (e *env) checkStoreAlign(in *insn.Insn, strictOnce bool) error {
	valueReg := -1
	if in.Class() == insn.ClassSTX {
		if err := e.checkRegRead(in.Src); err != nil {
			return err
		}
		valueReg = int(in.Src)
	}
	if err := e.checkRegRead(in.Dst); err != nil {
		return err
	}
	// Since 6.3 an immediate store into the context is checked like a
	// register store: the context layout says which fields take writes.
	dst := auxPtrTypeOf(&e.regs()[in.Dst])
	if err := e.checkMemAccessAlign(int(in.Dst), int(in.Off), in.SizeBytes(), accWrite, valueReg, false, strictOnce); err != nil {
		return err
	}
	return e.saveAuxPtrType(dst, false)
}

// auxPtrType is the kernel's insn_aux_data ptr_type: a register type with
// its flags.
type auxPtrType struct {
	t     states.RegType
	flags states.RegFlags
}

// auxPtrTypeOf is r's type with its flags.
func auxPtrTypeOf(r *states.Reg) auxPtrType { return auxPtrType{r.Type, r.Flags} }

// saveAuxPtrType is save_aux_ptr_type: one load or store insn must always
// see the same pointer type, flags included, where the kernel rewrites the
// access per insn (the context, sockets, BTF pointers, the arena). A load
// (allowTrustMismatch) may mix pointers to memory and to BTF objects,
// whatever their trust or writability: the kernel then records the merged
// kind (memory if either is, untrusted or read-only if either is), which
// its JIT turns into a probe read; a store may not.
//
// With stablefix.UntrustedMemMismatch, read-only untrusted memory (read
// through a probe) mismatches any other kind too, and a merge keeps the
// probe read when either side needs one (merge_ptr_types).
func (e *env) saveAuxPtrType(cur auxPtrType, allowTrustMismatch bool) error {
	prev := &e.auxPtr[e.insnIdx]
	fixed := !e.opts.MissingFixes.Has(stablefix.UntrustedMemMismatch)
	switch {
	case prev.t == states.NotInit:
		*prev = cur
	case cur == *prev || (ptrMismatchOK(cur, fixed) && ptrMismatchOK(*prev, fixed)):
	case allowTrustMismatch && isMemOrBTFID(cur.t) && isMemOrBTFID(prev.t):
		*prev = mergePtrTypes(cur, *prev, fixed)
	default:
		return e.reject(e.insnIdx, "same insn cannot be used with different pointers")
	}
	return nil
}

// mergePtrTypes is the type save_aux_ptr_type records for a load that
// sees two pointers to memory or BTF objects: memory if either is, and
// with faultProtection (merge_ptr_types) read-only untrusted when either
// may fault on a read, else the union of their untrusted and read-only
// flags.
func mergePtrTypes(a, b auxPtrType, faultProtection bool) auxPtrType {
	merged := auxPtrType{t: states.PtrToBTFID}
	toMem := a.t == states.PtrToMem || b.t == states.PtrToMem
	if toMem {
		merged.t = states.PtrToMem
	}
	if !faultProtection {
		merged.flags = (a.flags | b.flags) & (states.PtrUntrusted | states.MemRdonly)
		return merged
	}
	switch {
	case mayFaultOnDeref(a) || mayFaultOnDeref(b):
		merged.flags = states.PtrUntrusted
		if toMem {
			merged.flags |= states.MemRdonly
		}
	default:
		merged.flags = (a.flags | b.flags) & states.MemRdonly
	}
	return merged
}

// mayFaultOnDeref is bpf_may_fault_on_deref: a bare BTF pointer or any
// untrusted one, which loads read through a probe.
func mayFaultOnDeref(p auxPtrType) bool {
	return (p.t == states.PtrToBTFID && p.flags == 0) || p.flags&states.PtrUntrusted != 0
}

// isMemOrBTFID is is_ptr_to_mem_or_btf_id.
func isMemOrBTFID(t states.RegType) bool {
	return t == states.PtrToMem || t == states.PtrToBTFID
}

// ptrMismatchOK is reg_type_mismatch_ok: whether a load may see p and
// another kind of pointer. With untrustedMem (stablefix.UntrustedMemMismatch)
// untrusted memory may not either.
func ptrMismatchOK(p auxPtrType, untrustedMem bool) bool {
	switch p.t {
	case states.PtrToCtx, states.PtrToSocket, states.PtrToSockCommon, states.PtrToTCPSock,
		states.PtrToXDPSock, states.PtrToBTFID, states.PtrToArena:
		return false
	}
	return !untrustedMem || p.flags&states.PtrUntrusted == 0
}

// checkMemAccess is check_mem_access: an access of size bytes at
// regs[regno] + off. valueReg is the register loaded into or stored from
// (-1 for an immediate store or a helper access).
func (e *env) checkMemAccess(regno, off, size int, t access, valueReg int, signExt bool) error {
	return e.checkMemAccessAlign(regno, off, size, t, valueReg, signExt, false)
}

// checkMemAccessAlign is checkMemAccess with the kernel's
// strict_alignment_once: atomic instructions demand natural alignment of
// every pointer kind, even where plain loads and stores need none.
func (e *env) checkMemAccessAlign(regno, off, size int, t access, valueReg int, signExt, strictOnce bool) error {
	regs := e.regs()
	reg := &regs[regno]
	if err := e.checkPtrAlignment(reg, off, size, strictOnce); err != nil {
		return err
	}
	off += int(reg.Off)
	var dst *states.Reg
	if valueReg >= 0 && t == accRead {
		dst = &regs[valueReg]
	}
	// The cases test distinct types (but the two of PtrToBTFID and
	// PtrToBuf, in order): the stack, the most frequent, comes first.
	switch {
	case reg.Type == states.PtrToStack:
		if err := e.checkStackAccessWithinBounds(regno, off, size, t); err != nil {
			return err
		}
		if t == accRead {
			if err := e.checkStackRead(regno, off, size, valueReg); err != nil {
				return err
			}
		} else {
			if err := e.checkStackWrite(regno, off, size, valueReg); err != nil {
				return err
			}
		}
		// A fill restores the spilled register as is (no coercion) only
		// for full-width fills; narrower loads are coerced below.
	case reg.Type == states.PtrToMapKey && !reg.MaybeNull():
		if t == accWrite {
			return e.reject(e.insnIdx, "write to change key R%d not allowed", regno)
		}
		m := e.mapAt(reg)
		if err := e.checkMemRegion(regno, off, size, int(m.KeySize), false); err != nil {
			return err
		}
		if dst != nil {
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToMapValue && !reg.MaybeNull():
		m := e.mapAt(reg)
		if err := e.checkMapAccessType(m, off, size, t); err != nil {
			return err
		}
		if err := e.checkMemRegion(regno, off, size, int(m.ValueSize), false); err != nil {
			return err
		}
		if err := e.checkMapFields(regno, off, size, true); err != nil {
			return err
		}
		if err := e.checkExternLayout(regno, off, size); err != nil {
			return err
		}
		if f := e.kptrAt(reg, off); f != nil {
			return e.checkMapKptrAccess(f, valueReg, dst)
		}
		if dst != nil {
			if reg.Var.IsConst() && m.ReadOnly && m.Contents != nil {
				moff := off + int(reg.Var.Value)
				if v, ok := readConst(m.Contents, moff, size, signExt); ok {
					dst.MarkConst(v)
					return nil
				}
			}
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToMem && !reg.MaybeNull():
		if t == accWrite && reg.Flags&states.MemRdonly != 0 {
			return e.reject(e.insnIdx, "R%d cannot write into %s", regno, regTypeStr(reg))
		}
		// Untrusted memory is read by probe instructions: no bounds.
		if !isRdonlyUntrustedMem(reg) {
			if err := e.checkMemRegion(regno, off, size, memSize(reg), false); err != nil {
				return err
			}
		}
		if dst != nil {
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToCtx && !reg.MaybeNull():
		if err := e.checkPtrOffReg(reg, regno, false); err != nil {
			return err
		}
		acc, ok := e.ctxCheck(off, size, t == accWrite, e.attach)
		if !ok || signExt && acc.IsPacketPointer() {
			return e.reject(e.insnIdx, "invalid bpf_context access off=%d size=%d", off, size)
		}
		if acc.Kind == ctxaccess.Unmodelled {
			return e.unsupported(e.insnIdx, "context access at off %d size %d", off, size)
		}
		if dst != nil {
			switch acc.Kind {
			case ctxaccess.Scalar:
				e.markUnknown(dst)
			case ctxaccess.Packet, ctxaccess.PacketMeta, ctxaccess.PacketEnd, ctxaccess.Socket, ctxaccess.SockCommon, ctxaccess.FlowKeys, ctxaccess.TPBuffer:
				var rt states.RegType
				switch acc.Kind {
				case ctxaccess.Packet:
					rt = states.PtrToPacket
				case ctxaccess.PacketMeta:
					rt = states.PtrToPacketMeta
				case ctxaccess.PacketEnd:
					rt = states.PtrToPacketEnd
				case ctxaccess.Socket:
					rt = states.PtrToSocket
				case ctxaccess.SockCommon:
					rt = states.PtrToSockCommon
				case ctxaccess.FlowKeys:
					rt = states.PtrToFlowKeys
				case ctxaccess.TPBuffer:
					rt = states.PtrToTPBuffer
				}
				var fl states.RegFlags
				if acc.MaybeNull {
					fl = states.MaybeNull
				}
				dst.MarkPtr(rt, fl)
				if acc.MaybeNull {
					dst.ID = e.newID()
				}
				return nil
			case ctxaccess.BTFID:
				if acc.BTFStruct != "" {
					return e.loadCtxBTFStruct(dst, acc)
				}
				return e.loadTracingArg(dst, off, size, signExt)
			default:
				return e.unsupported(e.insnIdx, "context field yielding a BTF-typed pointer")
			}
		}
	case reg.Type == states.PtrToPacket || reg.Type == states.PtrToPacketMeta:
		if t == accWrite && !e.mayWritePacket() {
			return e.reject(e.insnIdx, "cannot write into packet")
		}
		if err := e.checkPacketAccess(regno, off, size, false); err != nil {
			return err
		}
		if dst != nil {
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToFlowKeys:
		if t == accWrite && valueReg >= 0 && regs[valueReg].IsPointer() && !e.allowPtrLeaks() {
			return e.reject(e.insnIdx, "R%d leaks addr into flow keys", valueReg)
		}
		if off < 0 || size < 0 || off+size > flowKeysSize {
			return e.reject(e.insnIdx, "invalid access to flow keys off=%d size=%d", off, size)
		}
		if dst != nil {
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToSocket || reg.Type == states.PtrToSockCommon || reg.Type == states.PtrToTCPSock || reg.Type == states.PtrToXDPSock:
		if reg.MaybeNull() {
			return e.reject(e.insnIdx, "R%d invalid mem access '%s'", regno, regTypeStr(reg))
		}
		if t == accWrite {
			return e.reject(e.insnIdx, "R%d cannot write into %s", regno, regTypeStr(reg))
		}
		if err := e.checkSockAccess(regno, off, size); err != nil {
			return err
		}
		if dst != nil {
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToBTFID && !reg.MaybeNull():
		// A scalar loaded through a BTF pointer is coerced to the load's
		// size below, like any other load (check_mem_access).
		if err := e.checkPtrToBTFAccess(regno, off, size, t, dst); err != nil {
			return err
		}
	case reg.Type == states.ConstPtrToMap && !reg.MaybeNull():
		if err := e.checkPtrToMapAccess(regno, off, size, t, dst); err != nil {
			return err
		}
	case reg.Type == states.PtrToTPBuffer:
		if err := e.checkTPBufferAccess(regno, off, size, dst); err != nil {
			return err
		}
	case reg.Type == states.PtrToBuf && !reg.MaybeNull():
		if err := e.checkBufferAccess(regno, off, size, t); err != nil {
			return err
		}
		if dst != nil {
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToArena:
		// Arena accesses are not bounded: the JIT makes them fault
		// safely (PROBE_MEM32).
		if dst != nil {
			e.markUnknown(dst)
		}
	case reg.Type == states.PtrToBTFID || reg.Type == states.PtrToBuf:
		if reg.MaybeNull() {
			return e.reject(e.insnIdx, "R%d invalid mem access '%s'", regno, regTypeStr(reg))
		}
		return e.unsupported(e.insnIdx, "memory access through %s", regTypeStr(reg))
	default:
		return e.reject(e.insnIdx, "R%d invalid mem access '%s'", regno, regTypeStr(reg))
	}
	if dst != nil && size < 8 && dst.Type == states.ScalarValue {
		if signExt {
			if dst.UMax >= uint64(1)<<(8*size-1) && !e.opts.MissingFixes.Has(stablefix.SextFillUnlink) {
				// Sign extension may change the value a fill
				// shares with the spilled register: the link
				// goes (clear_scalar_id).
				dst.ID, dst.Off = 0, 0
			}
			dst.Scalar = e.signExtend(dst.Scalar, size, true)
		} else {
			dst.Scalar = states.Truncate(dst.Scalar, size)
		}
	}
	return nil
}

// checkSockAccess is check_sock_access: a read of size bytes at off of the
// socket view regs[regno] points to.
func (e *env) checkSockAccess(regno, off, size int) error {
	reg := &e.regs()[regno]
	if reg.SMin < 0 {
		return e.reject(e.insnIdx, "R%d min value is negative, either use unsigned index or do a if (index >=0) check.", regno)
	}
	var ok bool
	switch reg.Type {
	case states.PtrToSockCommon:
		ok = ctxaccess.SockCommonField(off, size)
	case states.PtrToSocket:
		ok = ctxaccess.BPFSockField(off, size)
	case states.PtrToTCPSock:
		ok = ctxaccess.TCPSockField(off, size)
	case states.PtrToXDPSock:
		ok = ctxaccess.XDPSockField(off, size)
	}
	if !ok {
		return e.reject(e.insnIdx, "R%d invalid %s access off=%d size=%d", regno, regTypeStr(reg), off, size)
	}
	if reg.Type == states.PtrToTCPSock && ctxaccess.TCPSockHalfCounter(off, size) {
		// The access check lets a 32-bit read into the upper half of a
		// 64-bit counter through, but the kernel has no rewrite for it and
		// fails the load after verification (EFAULT).
		return e.verifierBug("error during ctx access conversion (0)")
	}
	return nil
}

// flowKeysSize is sizeof(struct bpf_flow_keys).
const flowKeysSize = 56

// readConst reads a little-endian value from frozen map contents.
func readConst(b []byte, off, size int, signExt bool) (uint64, bool) {
	if off < 0 || off+size > len(b) {
		return 0, false
	}
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[off+i])
	}
	if signExt && size < 8 {
		shift := uint(64 - 8*size)
		v = uint64(int64(v<<shift) >> shift)
	}
	return v, true
}

// mayWritePacket is may_access_direct_pkt_data for a direct write.
// A write it allows is the kernel's seen_direct_write, which makes some
// program types' gen_prologue unclone the packet first (rewrite.go).
func (e *env) mayWritePacket() bool {
	ok := e.mayAccessPkt(accWrite)
	e.seenDirectWrite = e.seenDirectWrite || ok
	return ok
}

// mayAccessPkt is may_access_direct_pkt_data: which program types may read
// or write packet data directly.
func (e *env) mayAccessPkt(t access) bool {
	switch e.progType {
	case ebpf.LWTIn, ebpf.LWTOut, ebpf.LWTSeg6Local, ebpf.SkReuseport, ebpf.FlowDissector, ebpf.CGroupSKB:
		return t == accRead
	case ebpf.SchedCLS, ebpf.SchedACT, ebpf.XDP, ebpf.LWTXmit, ebpf.SkSKB, ebpf.SkMsg, ebpf.CGroupSockopt:
		return true
	}
	return false
}

// helperMayAccessPkt is may_access_direct_pkt_data called for a helper's
// argument: where programs may touch packet data directly, only helpers
// flagged for it may take packet pointers (bpf_skb_load_bytes, for one, may
// not); cgroup sockopt programs may pass them to any helper.
func (e *env) helperMayAccessPkt(meta *callMeta) bool {
	if e.progType == ebpf.CGroupSockopt {
		return true
	}
	if !e.mayAccessPkt(accRead) {
		return false
	}
	return meta.pktAccess
}

// pktIPAlign is NET_IP_ALIGN as the kernel's alignment check assumes it:
// packet data starts two bytes past an aligned address.
const pktIPAlign = 2

// alignDesc names each pointer kind in a misaligned access message.
var alignDesc = map[states.RegType]string{
	states.PtrToFlowKeys:   "flow keys ",
	states.PtrToMapKey:     "key ",
	states.PtrToMapValue:   "value ",
	states.PtrToCtx:        "context ",
	states.PtrToStack:      "stack ",
	states.PtrToSocket:     "sock ",
	states.PtrToSockCommon: "sock_common ",
	states.PtrToTCPSock:    "tcp_sock ",
	states.PtrToXDPSock:    "xdp_sock ",
}

// checkPtrAlignment is check_ptr_alignment on an architecture with
// efficient unaligned access: stack accesses must always be aligned, other
// pointers only under BPF_F_STRICT_ALIGNMENT or when strictOnce asks for
// it (atomic instructions); arena pointers never.
func (e *env) checkPtrAlignment(reg *states.Reg, off, size int, strictOnce bool) error {
	if size == 1 || reg.Type == states.PtrToArena {
		return nil
	}
	strict := strictOnce || e.strictAlignment()
	if reg.Type == states.PtrToPacket || reg.Type == states.PtrToPacketMeta {
		if !strict {
			return nil
		}
		t := reg.Var.Add(states.TnumConst(uint64(int64(pktIPAlign) + int64(reg.Off) + int64(off))))
		if !t.IsAligned(uint64(size)) {
			return e.reject(e.insnIdx, "misaligned packet access off %d+%s+%d+%d size %d", pktIPAlign, reg.Var.String(), reg.Off, off, size)
		}
		return nil
	}
	if reg.Type != states.PtrToStack && !strict {
		return nil
	}
	t := reg.Var.Add(states.TnumConst(uint64(int64(reg.Off) + int64(off))))
	if !t.IsAligned(uint64(size)) {
		desc := alignDesc[reg.Type]
		if reg.MaybeNull() {
			// The kernel names only the exact types: a maybe-NULL
			// pointer (an atomic on an unchecked lookup) has no name.
			desc = ""
		}
		return e.reject(e.insnIdx, "misaligned %saccess off %s+%d+%d size %d", desc, reg.Var.String(), reg.Off, off, size)
	}
	return nil
}

// checkPtrOffReg is __check_ptr_off_reg: ctx-like pointers must be used
// unmodified.
func (e *env) checkPtrOffReg(reg *states.Reg, regno int, fixedOffOK bool) error {
	if msg := ptrOffRegMsg(reg, regno, fixedOffOK); msg != "" {
		return e.reject(e.insnIdx, "%s", msg)
	}
	return nil
}

// ptrOffRegMsg is __check_ptr_off_reg's refusal of reg, "" when it passes.
func ptrOffRegMsg(reg *states.Reg, regno int, fixedOffOK bool) string {
	switch {
	case reg.Off < 0:
		return sprintf("negative offset %s ptr R%d off=%d disallowed", regTypeStr(reg), regno, reg.Off)
	case !fixedOffOK && reg.Off != 0:
		return sprintf("dereference of modified %s ptr R%d off=%d disallowed", regTypeStr(reg), regno, reg.Off)
	case !reg.Var.IsConst() || reg.Var.Value != 0:
		return sprintf("variable %s access var_off=%s disallowed", regTypeStr(reg), reg.Var.String())
	}
	return ""
}

// memAccessMsg is the first line __check_mem_access prints. Its switch is
// on the register's whole type, flags included: a maybe-NULL map value (a
// helper's nullable memory argument) is "memory" there.
func (e *env) memAccessMsg(regno, off, size, memSize int) string {
	reg := &e.regs()[regno]
	if reg.Flags&^states.OuterMapValue != 0 {
		return sprintf("invalid access to memory, mem_size=%d off=%d size=%d", memSize, off, size)
	}
	switch reg.Type {
	case states.PtrToMapKey:
		return sprintf("invalid access to map key, key_size=%d off=%d size=%d", memSize, off, size)
	case states.PtrToMapValue:
		return sprintf("invalid access to map value, value_size=%d off=%d size=%d", memSize, off, size)
	case states.PtrToPacket, states.PtrToPacketMeta, states.PtrToPacketEnd:
		return sprintf("invalid access to packet, off=%d size=%d, R%d(id=%d,off=%d,r=%d)", off, size, regno, reg.ID, off, memSize)
	}
	return sprintf("invalid access to memory, mem_size=%d off=%d size=%d", memSize, off, size)
}

func memOK(off int64, size int, memSize int, zeroOK bool) bool {
	sizeOK := size > 0 || (size == 0 && zeroOK)
	return off >= 0 && sizeOK && off+int64(size) <= int64(memSize)
}

// checkMemRegion is check_mem_region_access: every offset the register's
// variable part allows must keep the access inside [0, memSize).
func (e *env) checkMemRegion(regno, off, size, memSize int, zeroOK bool) error {
	reg := &e.regs()[regno]
	if reg.SMin < 0 && (reg.SMin == minInt64 || int64(off)+reg.SMin != int64(int32(int64(off)+reg.SMin)) || reg.SMin+int64(off) < 0) {
		return e.reject(e.insnIdx, "R%d min value is negative, either use unsigned index or do a if (index >=0) check.", regno)
	}
	if lo := reg.SMin + int64(off); !memOK(lo, size, memSize, zeroOK) {
		return e.reject(e.insnIdx, "%s\nR%d min value is outside of the allowed memory range", e.memAccessMsg(regno, int(lo), size, memSize), regno)
	}
	if reg.UMax >= maxVarOff {
		return e.reject(e.insnIdx, "R%d unbounded memory access, make sure to bounds check any such access", regno)
	}
	if hi := int64(reg.UMax) + int64(off); !memOK(hi, size, memSize, zeroOK) {
		return e.reject(e.insnIdx, "%s\nR%d max value is outside of the allowed memory range", e.memAccessMsg(regno, int(hi), size, memSize), regno)
	}
	return nil
}

// isRdonlyUntrustedMem reports whether reg is read-only untrusted memory
// (rdonly_untrusted_mem): what a BTF walk gives for a pointer to anything
// but a struct. The kernel reads it with probe instructions.
func isRdonlyUntrustedMem(reg *states.Reg) bool {
	return reg.Type == states.PtrToMem && reg.Flags&states.MemRdonly != 0 && reg.Flags&states.PtrUntrusted != 0
}

// memSize is the size of the memory a PtrToMem points to: the kernel's
// mem_size, a u32 (bpf_dynptr_data(..., 0xffffffff) on a dynptr whose size
// the verifier does not know gives 4 GiB of memory, not -1).
func memSize(reg *states.Reg) int {
	return int(uint32(reg.Range))
}

// checkPacketAccess is check_packet_access: the fixed offset must be inside
// the range proven by comparisons with pkt_end.
func (e *env) checkPacketAccess(regno, off, size int, zeroOK bool) error {
	reg := &e.regs()[regno]
	if reg.SMin < 0 {
		return e.reject(e.insnIdx, "R%d min value is negative, either use unsigned index or do a if (index >=0) check.", regno)
	}
	if reg.Range < 0 || !memOK(int64(off), size, int(reg.Range), zeroOK) {
		if reg.Range < 0 {
			// A pointer compared past pkt_end: check_packet_access's
			// own EINVAL, not __check_mem_access's EACCES.
			return e.rejectErrno(syscall.EINVAL, e.insnIdx, "R%d offset is outside of the packet", regno)
		}
		return e.reject(e.insnIdx, "%s\nR%d offset is outside of the packet", e.memAccessMsg(regno, off, size, int(reg.Range)), regno)
	}
	return nil
}

// checkStackAccessWithinBounds is check_stack_access_within_bounds; it
// grows the frame's stack to cover the access.
func (e *env) checkStackAccessWithinBounds(regno, off, size int, t access) error {
	reg := &e.regs()[regno]
	f := e.frameOf(reg)
	extra := " read from"
	if t == accWrite {
		extra = " write to"
	}
	var minOff, maxOff int64
	if reg.Var.IsConst() {
		minOff = int64(reg.Var.Value) + int64(off)
		maxOff = minOff + int64(size)
	} else {
		if reg.SMax >= maxVarOff || reg.SMin <= -maxVarOff {
			return e.reject(e.insnIdx, "invalid unbounded variable-offset%s stack R%d", extra, regno)
		}
		minOff = reg.SMin + int64(off)
		maxOff = reg.SMax + int64(off) + int64(size)
	}
	startBad := minOff < -states.MaxStack || minOff > -1
	if startBad || maxOff > 0 || size < 0 {
		// A start below the frame is check_stack_slot_within_bounds's
		// EACCES; with the start inside, the end above the frame or a
		// negative size is check_stack_access_within_bounds's EINVAL.
		errno := syscall.EINVAL
		if startBad {
			errno = syscall.EACCES
		}
		if reg.Var.IsConst() {
			return e.rejectErrno(errno, e.insnIdx, "invalid%s stack R%d off=%d size=%d", extra, regno, off, size)
		}
		return e.rejectErrno(errno, e.insnIdx, "invalid variable-offset%s stack R%d var_off=%s off=%d size=%d", extra, regno, reg.Var.String(), off, size)
	}
	e.growStack(f, int(-minOff))
	return nil
}

// growStack grows a frame's allocated stack and the subprogram's depth.
func (e *env) growStack(f *states.Frame, bytes int) {
	bytes = (bytes + states.SlotSize - 1) &^ (states.SlotSize - 1)
	if f.AllocatedStack() < bytes {
		f.GrowStack(bytes)
	}
	if sp := int(f.SubProg); sp < len(e.stackDepth) && e.stackDepth[sp] < bytes {
		e.stackDepth[sp] = bytes
	}
}

// isStackSlotSpecial reports dynptr/iter/irq slots.
func isStackSlotSpecial(s *states.Slot) bool {
	switch s.Types[states.SlotSize-1] {
	case states.StackSpill, states.StackDynptr, states.StackIter, states.StackIRQFlag:
		return true
	}
	return false
}

// checkStackWrite is check_stack_write (fixed and variable offset).
func (e *env) checkStackWrite(regno, off, size, valueReg int) error {
	reg := &e.regs()[regno]
	f := e.frameOf(reg)
	if !reg.Var.IsConst() {
		return e.checkStackWriteVarOff(f, reg, off, size, valueReg)
	}
	off += int(reg.Var.Value)
	slot := -off - 1
	spi := slot / states.SlotSize
	e.log.markSlotScratched(spi)
	if err := e.destroyIfDynptrSlot(f, spi); err != nil {
		return err
	}
	e.checkFastcallContract(int(f.SubProg), off)
	s := f.Slot(spi)
	if size == states.SlotSize {
		e.markStackWrite(reg.FrameNo(), spi)
	}
	var val *states.Reg
	if valueReg >= 0 {
		val = &e.regs()[valueReg]
	}
	in := e.prog[e.insnIdx]
	isST := in.Class() == insn.ClassST
	switch {
	case val != nil && off%states.SlotSize == 0 && val.Type == states.ScalarValue:
		fits := regWidth(val) <= 8*size
		if fits {
			e.assignScalarIDBeforeMov(val)
		}
		saveRegisterState(s, val, size)
		if !fits {
			// clear_scalar_id: the link and its delta.
			s.Spilled.ID, s.Spilled.Off = 0, 0
		}
		e.pushJmpHistory(stackAccessFlag(reg.FrameNo(), spi))
	case val == nil && off%states.SlotSize == 0 && isST:
		var tmp states.Reg
		tmp.MarkConst(uint64(int64(in.Imm)))
		saveRegisterState(s, &tmp, size)
		e.pushJmpHistory(stackAccessFlag(reg.FrameNo(), spi))
	case val != nil && isSpillable(val.Type):
		if size != states.SlotSize {
			return e.reject(e.insnIdx, "invalid size of register spill")
		}
		if f != e.cur.Cur() && val.Type == states.PtrToStack {
			return e.reject(e.insnIdx, "cannot spill pointers to stack into stack frame of the caller")
		}
		saveRegisterState(s, val, size)
		e.pushJmpHistory(stackAccessFlag(reg.FrameNo(), spi))
	default:
		typ := states.StackMisc
		forgetSpilledReg(s)
		if isStackSlotSpecial(s) {
			scrubSlot(s)
		}
		if (val != nil && val.IsNull()) || (val == nil && isST && in.Imm == 0) {
			if val != nil {
				if err := e.markChainPrecision(valueReg); err != nil {
					return err
				}
			}
			typ = states.StackZero
		}
		for i := 0; i < size; i++ {
			s.Types[(slot-i)%states.SlotSize] = typ
		}
	}
	e.endSlicesOver(reg.FrameNo(), off, off+size)
	return nil
}

// forgetSpilledReg is what a stack write of plain data does to the
// register a slot held: check_stack_write_fixed_off and _var_off set only
// its type to NOT_INIT, so its ref_obj_id stays behind in a slot of plain
// data. Nothing reads it but the loops that look for a reference by id in
// every slot whatever its kind: the unacquired-reference check of a dynptr
// release (check_func_arg) and unmark_stack_slots_dynptr's search for
// clones, which reports a slot that is no dynptr as a verifier bug.
func forgetSpilledReg(s *states.Slot) {
	ref := s.Spilled.RefObjID
	s.Spilled.MarkNotInit()
	s.Spilled.RefObjID = ref
}

// scrubSlot turns every written byte of a slot that held a spilled
// register or a special object into plain data (scrub_spilled_slot).
func scrubSlot(s *states.Slot) {
	for i := range s.Types {
		if s.Types[i] != states.StackInvalid {
			s.Types[i] = states.StackMisc
		}
	}
}

// isSpillable is is_spillable_regtype: the pointers a stack store keeps as
// a spilled register. A pointer to a callback's dynptr or to a writable
// tracepoint buffer is stored as plain data (STACK_MISC), of any size, and
// reads back as a scalar.
func isSpillable(t states.RegType) bool {
	switch t {
	case states.NotInit, states.ScalarValue, states.ConstPtrToDynptr, states.PtrToTPBuffer:
		return false
	}
	return true
}

// saveRegisterState spills r into the top size bytes of slot s.
func saveRegisterState(s *states.Slot, r *states.Reg, size int) {
	s.Spilled = *r
	i := states.SlotSize
	for ; i > states.SlotSize-size; i-- {
		s.Types[i-1] = states.StackSpill
	}
	for ; i > 0; i-- {
		markSlotMisc(&s.Types[i-1])
	}
}

// markSlotMisc turns a byte into MISC unless it is ZERO or (uninit reads
// being allowed for privileged loaders) INVALID.
func markSlotMisc(t *states.SlotType) {
	if *t == states.StackZero || *t == states.StackInvalid {
		return
	}
	*t = states.StackMisc
}

// stackAccessFlag encodes a stack access in a jump-history entry.
func stackAccessFlag(frame, spi int) uint32 {
	return histStackAccess | uint32(frame)&0x7 | uint32(spi)<<3
}

// histStackAccess marks a history entry as a stack spill or fill.
const histStackAccess = 1 << 31

// checkStackWriteVarOff is check_stack_write_var_off.
func (e *env) checkStackWriteVarOff(f *states.Frame, reg *states.Reg, off, size, valueReg int) error {
	minOff := int(reg.SMin) + off
	maxOff := int(reg.SMax) + off + size
	writingZero := false
	if valueReg >= 0 {
		writingZero = e.regs()[valueReg].IsNull()
	} else if in := e.prog[e.insnIdx]; in.Class() == insn.ClassST && in.Imm == 0 {
		writingZero = true
	}
	for i := minOff; i < maxOff; i++ {
		if err := e.destroyIfDynptrSlot(f, (-i-1)/states.SlotSize); err != nil {
			return err
		}
	}
	e.checkFastcallContract(int(f.SubProg), minOff)
	zeroUsed := false
	for i := minOff; i < maxOff; i++ {
		slot := -i - 1
		spi := slot / states.SlotSize
		e.log.markSlotScratched(spi)
		s := f.Slot(spi)
		b := &s.Types[slot%states.SlotSize]
		// A zero written over a spilled zero keeps the spill.
		if writingZero && *b == states.StackSpill && s.Spilled.Type == states.ScalarValue && s.Spilled.IsNull() {
			zeroUsed = true
			continue
		}
		// Any other byte the write may reach turns its whole slot into
		// plain data if it held a spill or an object (the 6.18 stable
		// scrub_special_slot, upstream 4639eb9e30ab): otherwise the other
		// bytes would still read as a spill of a register that is gone.
		// Kernels without that fix only forget the register
		// (stablefix.VarWriteKeepsSpill).
		forgetSpilledReg(s)
		if isStackSlotSpecial(s) && e.opts.MissingFixes.Has(stablefix.VarWriteKeepsSpill) {
			scrubSlot(s)
		}
		newType := states.StackMisc
		if writingZero && *b == states.StackZero {
			newType = states.StackZero
			zeroUsed = true
		}
		*b = newType
	}
	e.endSlicesOver(reg.FrameNo(), minOff, maxOff)
	if valueReg >= 0 && zeroUsed {
		return e.markChainPrecision(valueReg)
	}
	return nil
}

// checkStackRead is check_stack_read.
func (e *env) checkStackRead(regno, off, size, dstReg int) error {
	reg := &e.regs()[regno]
	f := e.frameOf(reg)
	if !reg.Var.IsConst() {
		if dstReg < 0 {
			return e.reject(e.insnIdx, "variable offset stack pointer cannot be passed into helper function; var_off=%s off=%d size=%d", reg.Var.String(), off, size)
		}
		minOff := int(reg.SMin) + off
		maxOff := int(reg.SMax) + off
		if err := e.checkStackRangeInit(regno, off, size, false, accRead, nil); err != nil {
			return err
		}
		zeros := true
		for i := minOff; i < maxOff+size; i++ {
			slot := -i - 1
			e.markStackRead(reg.FrameNo(), slot/states.SlotSize)
			e.log.markSlotScratched(slot / states.SlotSize)
			s := f.Slot(slot / states.SlotSize)
			b := s.Types[slot%states.SlotSize]
			// Only STACK_ZERO bytes count, not a spilled zero
			// (mark_reg_stack_read).
			if b == states.StackZero {
				continue
			}
			zeros = false
			break
		}
		dst := &e.regs()[dstReg]
		if zeros {
			dst.MarkConstZero()
		} else {
			e.markUnknown(dst)
		}
		e.checkFastcallContract(int(f.SubProg), minOff)
		return nil
	}
	off += int(reg.Var.Value)
	return e.checkStackReadFixed(f, reg.FrameNo(), off, size, dstReg)
}

// checkStackReadFixed is check_stack_read_fixed_off. A fill copies the
// spilled register as it is: unlike a spill or a register move, 6.18 gives
// an id-less spilled scalar no id on a fill, so a later bounds check on the
// filled register does not narrow the slot (and a widened loop counter in
// the stack stays unknown from one callback or iterator iteration to the
// next).
func (e *env) checkStackReadFixed(f *states.Frame, frameNo, off, size, dstReg int) error {
	slot := -off - 1
	spi := slot / states.SlotSize
	e.markStackRead(frameNo, spi)
	e.log.markSlotScratched(spi)
	// check_stack_read_fixed_off checks the frame read from; upstream,
	// the current one (stablefix.FastcallReadPtrFrame).
	if e.opts.MissingFixes.Has(stablefix.FastcallReadPtrFrame) {
		e.checkFastcallContract(int(e.cur.Cur().SubProg), off)
	} else {
		e.checkFastcallContract(int(f.SubProg), off)
	}
	s := f.Slot(spi)
	regs := e.regs()
	if s.IsSpilledReg() {
		spillSize := 1
		for i := states.SlotSize - 1; i > 0 && s.Types[i-1] == states.StackSpill; i-- {
			spillSize++
		}
		sp := &s.Spilled
		if size != states.SlotSize || spillSize != states.SlotSize {
			if sp.Type != states.ScalarValue {
				return e.reject(e.insnIdx, "invalid size of register fill")
			}
			if dstReg < 0 {
				return nil
			}
			if size <= spillSize && off%states.SlotSize == 0 {
				regs[dstReg] = *sp
				if regWidth(sp) > size*8 {
					// clear_scalar_id: the link and its delta.
					regs[dstReg].ID, regs[dstReg].Off = 0, 0
				}
				e.pushJmpHistory(stackAccessFlag(frameNo, spi))
				return nil
			}
			spillCnt, zeroCnt := 0, 0
			for i := 0; i < size; i++ {
				switch s.Types[(slot-i)%states.SlotSize] {
				case states.StackSpill:
					spillCnt++
				case states.StackMisc, states.StackInvalid:
				case states.StackZero:
					zeroCnt++
				default:
					return e.reject(e.insnIdx, "invalid read from stack off %d+%d size %d", off, i, size)
				}
			}
			if spillCnt == size && sp.Var.IsConst() && sp.Var.Value == 0 {
				regs[dstReg].MarkConstZero()
				e.pushJmpHistory(stackAccessFlag(frameNo, spi))
			} else if zeroCnt == size {
				regs[dstReg].MarkConstZero()
			} else {
				e.markUnknown(&regs[dstReg])
			}
			return nil
		}
		if dstReg >= 0 {
			regs[dstReg] = *sp
		} else if sp.IsPointer() && !e.allowPtrLeaks() {
			// An atomic's read for no register: the value would be
			// used as a number.
			return e.reject(e.insnIdx, "leaking pointer from stack off %d", off)
		}
		// Recorded for an atomic's read for no register too (a
		// read-modify-write of the spilled register, which precision
		// backtracking follows to its source as a spill).
		e.pushJmpHistory(stackAccessFlag(frameNo, spi))
		return nil
	}
	zeros := 0
	for i := 0; i < size; i++ {
		switch s.Types[(slot-i)%states.SlotSize] {
		case states.StackMisc, states.StackInvalid:
		case states.StackZero:
			zeros++
		default:
			return e.reject(e.insnIdx, "invalid read from stack off %d+%d size %d", off, i, size)
		}
	}
	if dstReg >= 0 {
		if zeros == size {
			regs[dstReg].MarkConstZero()
		} else {
			e.markUnknown(&regs[dstReg])
		}
	}
	return nil
}

// checkBufferAccess is check_buffer_access for a read or write at off
// (the register's fixed offset included) through the iterator buffer in
// regno (PTR_TO_BUF: the key and value an iterator program over map
// elements sees). The buffer's size is unknown when the program is
// verified: the kernel only requires a constant, non-negative offset and
// records the furthest byte read or written, which it checks against the
// map when the iterator is attached. A read-only buffer (the key) takes
// no writes.
func (e *env) checkBufferAccess(regno, off, size int, t access) error {
	reg := &e.regs()[regno]
	rdonly := reg.Flags&states.MemRdonly != 0
	if rdonly && t == accWrite {
		return e.reject(e.insnIdx, "R%d cannot write into %s", regno, regTypeStr(reg))
	}
	info := "rdwr"
	if rdonly {
		info = "rdonly"
	}
	if off < 0 {
		return e.reject(e.insnIdx, "R%d invalid %s buffer access: off=%d, size=%d", regno, info, off, size)
	}
	if !reg.Var.IsConst() || reg.Var.Value != 0 {
		return e.reject(e.insnIdx, "R%d invalid variable buffer offset: off=%d, var_off=%s", regno, off, reg.Var.String())
	}
	return nil
}

package stablefix

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
)

// probeMap is the array the Jmp32PtrNull probe looks up: with a constant
// key in range, the lookup's result is a map value that is not NULL.
const probeMap = "probe_array"

// probeRingbuf is the ring buffer the ScalarAddPtrCopy and
// SliceRingbufRef probes reserve a record in.
const probeRingbuf = "probe_ringbuf"

// probeXsk is the xskmap the NotNullNoXskBuf probe looks up.
const probeXsk = "probe_xsk"

// probeProgs is the program array the HiddenExitLiveness probe's
// subprogram tail-calls into.
const probeProgs = "probe_progs"

// probeOuter is the array of maps the InnerMapNullness probe looks up in;
// its inner map template is declared BPF_F_INNER_MAP (innerMapFlag).
const (
	probeOuter   = "probe_outer"
	innerMapFlag = 1 << 12
)

// probeWq and probeTimer are the arrays of the AsyncMapMatch probe: the
// first's value is a workqueue, the second's a timer. probeTaskWork's
// value is a task_work (AsyncCbSession).
const (
	probeWq       = "probe_wq"
	probeTimer    = "probe_timer"
	probeTaskWork = "probe_task_work"
)

// probeCgroupStorage is the cgroup storage map the AsyncCbCgroupStorage
// probe names.
const probeCgroupStorage = "probe_cg_storage"

// probeLockedKptr and probePlainKptr are the arrays of the KfuncOneType
// probe: each value is a kptr to a struct of the map's BTF, with a
// bpf_spin_lock (a btf_struct_meta) in the first, without in the second.
const (
	probeLockedKptr = "probe_locked_kptr"
	probePlainKptr  = "probe_plain_kptr"
)

// probePercpuKptr is the array the KptrPercpuMatch probe exchanges a task
// into: its value is one per-CPU kptr to task_struct.
const probePercpuKptr = "probe_pcpu_kptr"

// probeUntrustedKptr is the array the KptrNullStorePrecise probe stores
// into: its value is one unreferenced kptr (kptr_untrusted) to
// task_struct.
const probeUntrustedKptr = "probe_untrusted_kptr"

// probeLocks is the array of struct { struct bpf_spin_lock l; u64 n; }
// the CallbackValueID probe walks; probeResLock the one-element array of
// struct { struct bpf_res_spin_lock l; u64 n; } the S32RangeLowHalf probe
// locks.
const (
	probeLocks   = "probe_locks"
	probeResLock = "probe_res_lock"
)

// Offsets of data and data_end in struct xdp_md.
const (
	xdpData    = 0
	xdpDataEnd = 4
)

// Offsets of data and data_end in struct __sk_buff.
const (
	skbData    = 76
	skbDataEnd = 80
)

// probes build, per fix, an XDP program the kernel rejects with the fix
// and accepts without it (or, for the fixes in probeMessages, rejects
// with another message): the programs the fixes were found with. Most
// are fixed instructions; those that call kfuncs need the kernel's BTF.
var probes = [numFixes]func() (asm.Instructions, error){
	PktRangeArith:            fixed(pktRangeArithProbe),
	Jmp32PtrNull:             fixed(jmp32PtrNullProbe),
	IterFP0:                  iterFP0Probe,
	AtomicFetchPrecise:       fixed(atomicFetchPreciseProbe),
	ThrowLockCheck:           throwLockCheckProbe,
	VarWriteKeepsSpill:       fixed(varWriteKeepsSpillProbe),
	SyncLinkedKeepsID:        fixed(syncLinkedKeepsIDProbe),
	PktRegsafe:               fixed(pktRegsafeProbe),
	LsmSleepableHooks:        fixed(returnZero),
	InnerMapNullness:         fixed(innerMapNullnessProbe),
	LsmCgroupSleepable:       fixed(returnZero),
	KprobeNoPrivStack:        fixed(kprobeNoPrivStackProbe),
	PtrOffsetMessage:         fixed(ptrOffsetMessageProbe),
	ScalarAddPtrCopy:         fixed(scalarAddPtrCopyProbe),
	SextFillUnlink:           fixed(sextFillUnlinkProbe),
	AtomicLoadSrcFirst:       fixed(atomicLoadSrcFirstProbe),
	Sext32DropsSubreg:        fixed(sext32DropsSubregProbe),
	SliceBufferInvalidate:    sliceBufferInvalidateProbe,
	SliceRingbufRef:          sliceRingbufRefProbe,
	KptrPercpuMatch:          kptrPercpuMatchProbe,
	AsyncMapMatch:            asyncMapMatchProbe,
	KfuncOneType:             kfuncOneTypeProbe,
	WalkUntrusted:            walkUntrustedProbe,
	GlobalArgTrusted:         globalArgTrustedProbe,
	AcqRelStructTrusted:      acqRelStructTrustedProbe,
	CallbackValueID:          callbackValueIDProbe,
	S32RangeLowHalf:          s32RangeLowHalfProbe,
	NullArgPrecise:           fixed(nullArgPreciseProbe),
	GlobalDynptrSKB:          globalDynptrSKBProbe,
	RCUUnlockKeepsNonOwn:     rcuUnlockKeepsNonOwnProbe,
	SzkPrecise:               szkPreciseProbe,
	GlobalNonNullZero:        globalNonNullZeroProbe,
	PtrVarOffNull:            fixed(ptrVarOffNullProbe),
	LoadAcqProbeMem:          loadAcqProbeMemProbe,
	PtrEqNotNull:             fixed(ptrEqNotNullProbe),
	NotNullNoXskBuf:          fixed(notNullNoXskBufProbe),
	LinkedDeltaOffCheck:      fixed(linkedDeltaOffCheckProbe),
	SkbArgBTFID:              skbArgBTFIDProbe,
	AsyncCbSession:           asyncCbSessionProbe,
	FastcallReadPtrFrame:     fixed(fastcallReadPtrFrameProbe),
	NoArenaKfuncs:            noArenaKfuncsProbe,
	RawTPSignalWaitArgs:      fixed(rawTPSignalWaitArgsProbe),
	CallbackLoopSCC:          callbackLoopSCCProbe,
	JmpSeqE2BIG:              jmpSeqProbe,
	LookupTypedAtCall:        fixed(lookupTypedAtCallProbe),
	StructOpsRefPtrRet:       structOpsRefPtrRetProbe,
	NoDynptrSliceRdwr:        noDynptrSliceRdwrProbe,
	DynptrCloneAllFrames:     dynptrCloneAllFramesProbe,
	RefcountArgZeroOff:       refcountArgZeroOffProbe,
	TraceNoPrivStack:         fixed(kprobeNoPrivStackProbe),
	SleepableCbSleepableProg: asyncCbSessionProbe,
	SleepableInnerMaps:       fixed(sleepableMapProbe),
	LoopUnreadSafe:           loopUnreadSafeProbe,
	DynptrKfuncPktWrite:      dynptrKfuncPktWriteProbe,
	UntrustedMemMismatch:     untrustedMemMismatchProbe,
	KptrNullStorePrecise:     fixed(kptrNullStorePreciseProbe),
	GlobalPktArgChangesData:  globalPktArgProbe,
	PktMemArgNeedsWrite:      globalPktArgReadOnlyProbe,
	AsyncCbCgroupStorage:     asyncCbCgroupStorageProbe,
	GlobalCallMayThrow:       globalCallMayThrowProbe,
	SpinUnlockUntrustsRCU:    spinUnlockUntrustsRCUProbe,
	HiddenExitLiveness:       hiddenExitLivenessProbe,
	XDPNoAdjustMeta:          fixed(xdpAdjustMetaProbe),
	IterNextUntrusted:        iterNextUntrustedProbe,
	SockOpsRttMinFullsock:    fixed(sockOpsRttMinProbe),
}

// ProbeMessage returns, for a fix that changes a message and not a
// verdict, a substring of the decisive line with which a kernel with the
// fix refuses its probe (every build refuses it); "" for the others,
// whose probe a kernel with the fix refuses and one without accepts.
func ProbeMessage(f Fix) string {
	if f < numFixes {
		return probeMessages[f]
	}
	return ""
}

// probeMessages are, for the fixes that change a message and not a
// verdict, a substring of the message of a kernel with the fix: their
// probes are refused by every build, and the message tells which.
var probeMessages = [numFixes]string{
	PtrOffsetMessage:  "pkt pointer offset -4294967295 is not allowed",
	SkbArgBTFID:       "R1 must be referenced or trusted",
	LookupTypedAtCall: "R1 type=map_ptr_or_null expected=map_ptr",
	// Without the fix: "arg#0 is neither owning or non-owning ref".
	RefcountArgZeroOff: "dereference of modified trusted_ptr_ ptr R1 off=8 disallowed",
	SleepableInnerMaps: "and local storage maps, also as inner maps",
}

// ProbeMasked returns the other fixes that make f's probe refused either
// way: the probe tells a kernel lacking f from one with it only where
// these are missing too. On a kernel that has one of them Probe reports
// f as present, the stricter reading.
func ProbeMasked(f Fix) Set {
	if f < numFixes {
		return probeMasks[f]
	}
	return Set{}
}

// probeMasks: the AsyncCbSession probe schedules a task_work callback,
// which may sleep, from a kprobe session program, which may not; a
// kernel with SleepableCbSleepableProg refuses that first.
var probeMasks = [numFixes]Set{
	AsyncCbSession: Of(SleepableCbSleepableProg),
}

// ProbeErrno returns, for a fix that changes only the error number of a
// rejection, the errno with which a kernel with the fix refuses its probe
// (every build refuses it); 0 for the others.
func ProbeErrno(f Fix) syscall.Errno {
	if f < numFixes {
		return probeErrnos[f]
	}
	return 0
}

// probeErrnos are, for the fixes that change an error number and nothing
// else, the errno of a kernel with the fix.
var probeErrnos = [numFixes]syscall.Errno{
	JmpSeqE2BIG: syscall.E2BIG,
}

// ProbeInsns returns, for a fix that changes how far the search goes and
// no verdict, the insn_processed of a kernel with the fix on its probe
// (every build accepts it); 0 for the others.
func ProbeInsns(f Fix) int {
	if f < numFixes {
		return probeInsns[f]
	}
	return 0
}

// probeInsns are, for the fixes that change only how soon a search
// converges, the instructions a kernel with the fix processes on the
// probe (measured on the 6.18.44-fc-v1252 build; without the fix, 35).
var probeInsns = [numFixes]int{
	LoopUnreadSafe: 22,
}

// ProbeXlated returns, for a fix that changes only how the kernel rewrites
// a program, the rewritten length (xlated_prog_len in instructions) of
// its probe on a kernel with the fix (every build accepts it); 0 for the
// others.
func ProbeXlated(f Fix) int {
	if f < numFixes {
		return probeXlated[f]
	}
	return 0
}

// probeXlated are, for the fixes that change only a rewrite, the probe's
// rewritten length on a kernel with the fix.
var probeXlated = [numFixes]int{
	// SOCK_OPS_GET_FIELD's 4 instructions, the move and the exit (the
	// unchecked read is 2: 4 in all).
	SockOpsRttMinFullsock: 6,
}

// probeTargets make a probe another kind of program than XDP.
var probeTargets = [numFixes]func(*ebpf.ProgramSpec){
	LsmSleepableHooks:  sleepableLSM(ebpf.AttachLSMMac, "task_to_inode"),
	LsmCgroupSleepable: sleepableLSM(ebpf.AttachLSMCgroup, "file_open"),
	KprobeNoPrivStack:  func(p *ebpf.ProgramSpec) { p.Type = ebpf.Kprobe },
	AtomicLoadSrcFirst: func(p *ebpf.ProgramSpec) { p.Type = ebpf.SocketFilter },
	WalkUntrusted:      taskIterator,
	GlobalArgTrusted:   taskIterator,
	// The cpumask kfuncs are not registered for XDP; syscall programs
	// must be sleepable.
	AcqRelStructTrusted: func(p *ebpf.ProgramSpec) { p.Type, p.Flags = ebpf.Syscall, sleepableFlag },
	LoadAcqProbeMem:     taskIterator,
	SkbArgBTFID:         func(p *ebpf.ProgramSpec) { p.Type, p.AttachType = ebpf.Netfilter, ebpf.AttachNetfilter },
	AsyncCbSession:      func(p *ebpf.ProgramSpec) { p.Type, p.AttachType = ebpf.Kprobe, ebpf.AttachTraceKprobeSession },
	// The arena kfuncs are sleepable in 6.18.
	NoArenaKfuncs: func(p *ebpf.ProgramSpec) { p.Type, p.Flags = ebpf.Syscall, sleepableFlag },
	RawTPSignalWaitArgs: func(p *ebpf.ProgramSpec) {
		p.Type, p.AttachType, p.AttachTo = ebpf.Tracing, ebpf.AttachTraceRawTp, "signal_deliver"
	},
	CallbackLoopSCC: func(p *ebpf.ProgramSpec) { p.Flags = testStateFreqFlag },
	StructOpsRefPtrRet: func(p *ebpf.ProgramSpec) {
		p.Type, p.AttachType, p.AttachTo = ebpf.StructOps, ebpf.AttachStructOps, "tcp_congestion_ops:ssthresh"
	},
	RefcountArgZeroOff: taskIterator,
	// The kprobe probe's two frames, in a raw tracepoint program.
	TraceNoPrivStack: func(p *ebpf.ProgramSpec) { p.Type = ebpf.RawTracepoint },
	// The session probe's task_work callback, from a plain kprobe.
	SleepableCbSleepableProg: func(p *ebpf.ProgramSpec) { p.Type = ebpf.Kprobe },
	SleepableInnerMaps:       func(p *ebpf.ProgramSpec) { p.Type, p.Flags = ebpf.Syscall, sleepableFlag },
	DynptrKfuncPktWrite:      func(p *ebpf.ProgramSpec) { p.Type = ebpf.SchedCLS },
	GlobalPktArgChangesData:  func(p *ebpf.ProgramSpec) { p.Type = ebpf.SchedCLS },
	PktMemArgNeedsWrite:      func(p *ebpf.ProgramSpec) { p.Type, p.AttachType = ebpf.CGroupSKB, ebpf.AttachCGroupInetIngress },
	AsyncCbCgroupStorage:     func(p *ebpf.ProgramSpec) { p.Type, p.AttachType = ebpf.CGroupSKB, ebpf.AttachCGroupInetIngress },
	GlobalCallMayThrow:       func(p *ebpf.ProgramSpec) { p.Type = ebpf.SchedCLS },
	SpinUnlockUntrustsRCU:    func(p *ebpf.ProgramSpec) { p.Type, p.Flags = ebpf.Syscall, sleepableFlag },
	IterNextUntrusted:        taskIterator,
	SockOpsRttMinFullsock:    func(p *ebpf.ProgramSpec) { p.Type = ebpf.SockOps },
}

// testStateFreqFlag is BPF_F_TEST_STATE_FREQ: a checkpoint at every
// jump and call.
const testStateFreqFlag = 1 << 3

// sleepableFlag is BPF_F_SLEEPABLE.
const sleepableFlag = 1 << 4

// sleepableLSM makes a probe a sleepable LSM program of attach type at on
// hook.
func sleepableLSM(at ebpf.AttachType, hook string) func(*ebpf.ProgramSpec) {
	return func(p *ebpf.ProgramSpec) {
		p.Type, p.AttachType, p.AttachTo, p.Flags = ebpf.LSM, at, hook, sleepableFlag
	}
}

// returnZero is a program that does nothing: its attach target decides.
var returnZero = asm.Instructions{
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// fixed turns a probe that needs nothing into a builder; each caller gets
// its own copy to link and load.
func fixed(insns asm.Instructions) func() (asm.Instructions, error) {
	return func() (asm.Instructions, error) { return slices.Clone(insns), nil }
}

// hiddenExitLivenessProbe passes fp-8 to a subprogram that tail-calls,
// then stores -16 there, and reads the stack at the offset fp-8 holds
// afterwards: -8 on the first path the walk takes, -1024 on the other.
// Only a tail call counted as a way out of the subprogram keeps fp-8 live
// before the call, so that the second path is not pruned against the
// first; its tail-call path then reads fp-1024. A subprogram may
// tail-call only with BTF func info.
func hiddenExitLivenessProbe() (asm.Instructions, error) {
	insns := hiddenExitLivenessInsns()
	insns[0] = btf.WithFuncMetadata(insns[0], probeFunc("probe", btf.GlobalFunc))
	for i, in := range insns {
		if in.Symbol() == "tail" {
			insns[i] = btf.WithFuncMetadata(in, probeFunc("tail", btf.StaticFunc))
		}
	}
	return insns, nil
}

// hiddenExitLivenessInsns are hiddenExitLivenessProbe's instructions.
func hiddenExitLivenessInsns() asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		storeDWImm(asm.RFP, -8, -8),
		asm.FnGetPrandomU32.Call(),
		asm.JNE.Imm(asm.R0, 42, "far"),
		asm.Ja.Label("call"),
		storeDWImm(asm.RFP, -8, -1024).WithSymbol("far"),
		asm.Mov.Reg(asm.R1, asm.R6).WithSymbol("call"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.Call.Label("tail"),
		asm.LoadMem(asm.R1, asm.RFP, -8, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Reg(asm.R2, asm.R1),
		asm.LoadMem(asm.R0, asm.R2, 0, asm.DWord),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		asm.Mov.Reg(asm.R6, asm.R2).WithSymbol("tail"),
		asm.LoadMapPtr(asm.R2, 0).WithReference(probeProgs),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnTailCall.Call(),
		storeDWImm(asm.R6, 0, -16),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
}

// storeDWImm is `*(u64 *)(dst + off) = imm`, the sign-extended 32-bit
// immediate (asm.StoreImm refuses the double word size).
func storeDWImm(dst asm.Register, off int16, imm int32) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: dst, Offset: off, Constant: int64(imm)}
}

// pktRangeArithProbe reads through a packet pointer moved back after a
// comparison left it beyond data_end.
var pktRangeArithProbe = asm.Instructions{
	asm.LoadMem(asm.R9, asm.R1, xdpData, asm.Word),
	asm.LoadMem(asm.R8, asm.R1, xdpDataEnd, asm.Word),
	asm.Add.Imm(asm.R9, 64),
	asm.JGE.Reg(asm.R9, asm.R8, "beyond"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
	// r9 >= data_end: BEYOND_PKT_END. Moving r9 back must forget it.
	asm.Add.Imm(asm.R9, -64).WithSymbol("beyond"),
	asm.JLT.Reg(asm.R9, asm.R8, "read"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
	asm.LoadMem(asm.R0, asm.R9, 0, asm.Byte).WithSymbol("read"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// atomicFetchPreciseProbe offsets a stack pointer by a value a fetching
// atomic loaded from a slot that differs between two paths.
var atomicFetchPreciseProbe = asm.Instructions{
	// fp-8 holds 1024 on the first path the walk takes, 8 on the
	// other; the fetch brings it into r2, an offset into the stack.
	// Only a precise fp-8 keeps the second path from being pruned
	// against the first.
	asm.FnGetPrandomU32.Call(),
	asm.Mov.Imm(asm.R1, 1024),
	asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
	asm.JEq.Imm(asm.R0, 0, "fetch"),
	asm.Mov.Imm(asm.R1, 8),
	asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
	asm.JEq.Imm(asm.R0, 5, "pad"),
	asm.Mov.Imm(asm.R4, 0).WithSymbol("pad"),
	asm.Mov.Imm(asm.R4, 0),
	asm.Mov.Imm(asm.R4, 0),
	asm.Mov.Imm(asm.R4, 0),
	asm.Mov.Imm(asm.R4, 0),
	asm.JEq.Imm(asm.R0, 6, "fetch"),
	asm.Mov.Imm(asm.R2, 0).WithSymbol("fetch"),
	fetchAdd(asm.RFP, -8, asm.R2),
	asm.Mov.Reg(asm.R3, asm.RFP),
	asm.Add.Imm(asm.R3, -64),
	asm.Add.Reg(asm.R3, asm.R2),
	asm.LoadMem(asm.R0, asm.R3, 0, asm.Byte),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// varWriteKeepsSpillProbe spills a pointer to fp-8, writes one byte
// somewhere in fp-4..fp-1 through a variable offset, then reads the four
// bytes at fp-8 the write did not reach: still a spill of no register
// under the old rule, plain data once the slot is scrubbed.
var varWriteKeepsSpillProbe = asm.Instructions{
	asm.Mov.Reg(asm.R6, asm.R1),
	asm.StoreMem(asm.RFP, -8, asm.R6, asm.DWord),
	asm.FnGetPrandomU32.Call(),
	asm.And.Imm(asm.R0, 3),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -4),
	asm.Add.Reg(asm.R2, asm.R0),
	asm.Mov.Imm(asm.R1, 0),
	asm.StoreMem(asm.R2, 0, asm.R1, asm.Byte),
	asm.LoadMem(asm.R0, asm.RFP, -8, asm.Word),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// syncLinkedKeepsIDProbe reads the stack through r1 = r0 + 4 after two
// comparisons of r0: the first refines r1 through the delta, and a kernel
// without the fix then gives r1 r0's id, so the second copies r0's bounds
// [10, 20] into r1 although r1 is in [14, 24]: fp-24 + 24 is fp+0.
var syncLinkedKeepsIDProbe = asm.Instructions{
	asm.FnGetPrandomU32.Call(),
	asm.And.Imm(asm.R0, 0xff),
	asm.Mov.Reg(asm.R1, asm.R0),
	asm.Add.Imm(asm.R1, 4),
	asm.JLT.Imm(asm.R0, 10, "out"),
	asm.JGT.Imm(asm.R0, 20, "out"),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -24),
	asm.Add.Reg(asm.R2, asm.R1),
	asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
}

// pktRegsafeProbe reads 6 bytes at data after a comparison of data with
// data_end whose two edges join: the fall-through (data beyond data_end)
// is walked first, and the other edge, where data was never checked, must
// not be pruned against it.
var pktRegsafeProbe = asm.Instructions{
	asm.LoadMem(asm.R8, asm.R1, xdpData, asm.Word),
	asm.LoadMem(asm.R9, asm.R1, xdpDataEnd, asm.Word),
	asm.JLE.Reg(asm.R8, asm.R9, "join"),
	asm.FnGetPrandomU32.Call().WithSymbol("join"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Mov.Imm(asm.R0, 0),
	asm.Mov.Imm(asm.R0, 0),
	asm.JGT.Reg(asm.R8, asm.R9, "out"),
	asm.LoadMem(asm.R2, asm.R8, 4, asm.Half),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
}

// innerMapNullnessProbe looks key 1 up in the inner array of probeOuter and
// reads the value without a NULL check: accepted where the kernel elides
// the check (1 is below the template's max_entries), rejected with the fix.
var innerMapNullnessProbe = asm.Instructions{
	asm.StoreImm(asm.RFP, -4, 0, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -4),
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeOuter),
	asm.FnMapLookupElem.Call(),
	asm.JEq.Imm(asm.R0, 0, "out"),
	asm.StoreImm(asm.RFP, -8, 1, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -8),
	asm.Mov.Reg(asm.R1, asm.R0),
	asm.FnMapLookupElem.Call(),
	asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
	asm.Return(),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
}

// ptrVarOffNullProbe moves a map value (not NULL: constant key 0 of an
// array) by up to 2^30-1 bytes and reads out of bounds on the edge where
// it compares equal to 0.
var ptrVarOffNullProbe = asm.Instructions{
	asm.FnGetPrandomU32.Call(),
	asm.Mov.Reg(asm.R6, asm.R0),
	asm.And.Imm(asm.R6, 0x3fffffff),
	asm.StoreImm(asm.RFP, -8, 0, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -8),
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeMap),
	asm.FnMapLookupElem.Call(),
	asm.Add.Reg(asm.R0, asm.R6),
	asm.JEq.Imm(asm.R0, 0, "zero"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
	// Reached only when the compare is explored.
	asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord).WithSymbol("zero"),
	asm.Return(),
}

// ptrEqNotNullProbe looks up a random key (the value may be NULL) and
// reads through the value on the edge where it equals the frame pointer.
var ptrEqNotNullProbe = asm.Instructions{
	asm.FnGetPrandomU32.Call(),
	asm.StoreMem(asm.RFP, -8, asm.R0, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -8),
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeMap),
	asm.FnMapLookupElem.Call(),
	asm.JNE.Reg(asm.R0, asm.RFP, "out"),
	asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
}

// notNullNoXskBufProbe reads above the frame on the edge where a checked
// XDP socket equals 0: reached only where the compare is explored.
var notNullNoXskBufProbe = asm.Instructions{
	asm.StoreImm(asm.RFP, -8, 0, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -8),
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeXsk),
	asm.FnMapLookupElem.Call(),
	asm.JEq.Imm(asm.R0, 0, "out"),
	asm.JNE.Imm(asm.R0, 0, "out"),
	asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
}

// linkedDeltaOffCheckProbe moves a map value by r7 + 2^30 for r7 in
// [-2^30, 0]: a valid offset in [0, 2^30] whose link delta is 2^30.
var linkedDeltaOffCheckProbe = asm.Instructions{
	asm.FnKtimeGetNs.Call(),
	asm.Mov.Reg(asm.R7, asm.R0),
	asm.JSGT.Imm(asm.R7, 0, "out"),
	asm.JSLT.Imm(asm.R7, -1<<30, "out"),
	asm.Mov.Reg(asm.R8, asm.R7),
	asm.Add.Imm(asm.R8, 1<<30),
	asm.StoreImm(asm.RFP, -8, 0, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -8),
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeMap),
	asm.FnMapLookupElem.Call(),
	asm.JEq.Imm(asm.R0, 0, "out"),
	asm.Add.Reg(asm.R0, asm.R8),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
}

// jmp32PtrNullProbe reads out of bounds on the edge of a JMP32 compare of
// a non-NULL map value with 0.
var jmp32PtrNullProbe = asm.Instructions{
	asm.StoreImm(asm.RFP, -8, 0, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -8),
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeMap),
	asm.FnMapLookupElem.Call(),
	asm.JEq.Imm32(asm.R0, 0, "low_half_zero"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
	// Reached only when the JMP32 compare is explored.
	asm.LoadMem(asm.R0, asm.R0, 1000, asm.DWord).WithSymbol("low_half_zero"),
	asm.Return(),
}

// kprobeNoPrivStackProbe is a kprobe program whose main function uses 80 bytes
// of stack and calls one that uses 480: within the limit only where each
// runs on a private stack.
var kprobeNoPrivStackProbe = asm.Instructions{
	asm.Mov.Imm(asm.R1, 0),
	asm.StoreMem(asm.RFP, -80, asm.R1, asm.DWord),
	asm.Call.Label("deep"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
	asm.Mov.Imm(asm.R1, 0).WithSymbol("deep"),
	asm.StoreMem(asm.RFP, -480, asm.R1, asm.DWord),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// ptrOffsetMessageProbe moves a packet pointer back by up to 2^32-1 bytes.
var ptrOffsetMessageProbe = asm.Instructions{
	asm.LoadMem(asm.R9, asm.R1, xdpData, asm.Word),
	asm.FnGetPrandomU32.Call(),
	asm.Mov.Reg32(asm.R0, asm.R0),
	asm.Sub.Reg(asm.R9, asm.R0),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// scalarAddPtrCopyProbe copies a ring buffer record as "r6 = 0; r6 +=
// r0", submits the record through r0 and writes through the copy: a copy
// that took the record's reference is invalidated with it, one that did
// not (6.18.0) still reads as the record.
var scalarAddPtrCopyProbe = asm.Instructions{
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeRingbuf),
	asm.Mov.Imm(asm.R2, 8),
	asm.Mov.Imm(asm.R3, 0),
	asm.FnRingbufReserve.Call(),
	asm.JEq.Imm(asm.R0, 0, "out"),
	asm.Mov.Imm(asm.R6, 0),
	asm.Add.Reg(asm.R6, asm.R0),
	asm.Mov.Reg(asm.R1, asm.R0),
	asm.Mov.Imm(asm.R2, 0),
	asm.FnRingbufSubmit.Call(),
	asm.StoreImm(asm.R6, 0, 0, asm.Byte),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
}

// sextFillUnlinkProbe fills r7 with a sign-extending byte load of r6 in
// [0, 128], spilled, and indexes an 8-byte map value with r6 once r7 is
// at most 3: only a fill still linked to r6 bounds r6 (128 fills as -128,
// which the unsigned comparison sends away, so the link is wrong).
var sextFillUnlinkProbe = slices.Concat(asm.Instructions{
	asm.FnGetPrandomU32.Call(),
	asm.Mov.Reg(asm.R6, asm.R0),
	asm.And.Imm(asm.R6, 0xff),
	asm.JGT.Imm(asm.R6, 128, "out"),
	asm.StoreMem(asm.RFP, -8, asm.R6, asm.DWord),
	asm.LoadMemSX(asm.R7, asm.RFP, -8, asm.Byte),
	asm.JGT.Imm(asm.R7, 3, "out"),
}, readProbeMapAt(asm.R6))

// readProbeMapAt ends a probe: it looks key 0 up in probeMap, reads the
// byte at offset reg of the value and returns 0, where the probe's jumps
// to "out" land too.
func readProbeMapAt(reg asm.Register) asm.Instructions {
	return asm.Instructions{
		asm.StoreImm(asm.RFP, -16, 0, asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeMap),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Add.Reg(asm.R0, reg),
		asm.LoadMem(asm.R0, asm.R0, 0, asm.Byte),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
}

// atomicLoadSrcFirstProbe is "w1 = load_acquire((u32 *)(r1 + 0))" in a
// socket filter: the context's first field (len) replaces the context in
// r1, so only a test of r1 before the load sees a context pointer.
var atomicLoadSrcFirstProbe = asm.Instructions{
	loadAcquire(asm.R1, asm.R1, 0, asm.Word),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// sext32DropsSubregProbe indexes an 8-byte map value with "(s32) r6 + 3"
// where the low half of r6 is in [-3, 3] as a signed value and its high
// half unknown: in [0, 6] where the 32-bit bounds survive the extension,
// anything of 32 bits where they do not.
var sext32DropsSubregProbe = slices.Concat(asm.Instructions{
	asm.FnGetPrandomU32.Call(),
	asm.Mov.Reg(asm.R6, asm.R0),
	asm.JSLT.Imm32(asm.R6, -3, "out"),
	asm.JSGT.Imm32(asm.R6, 3, "out"),
	asm.MovSX32.Reg(asm.R7, asm.R6),
	asm.Add.Imm(asm.R7, 3),
}, readProbeMapAt(asm.R7))

// iterFP0Probe builds an iterator with bpf_iter_num_new(fp-8) and
// destroys it through fp+0. kfuncs are called by their id in the kernel's
// BTF, so the probe needs that BTF.
func iterFP0Probe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_iter_num_new", "bpf_iter_num_destroy")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -8),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Imm(asm.R3, 10),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R1, asm.RFP),
		kfuncCall(ids[1]),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}, nil
}

// xdpAdjustMetaProbe calls bpf_xdp_adjust_meta(ctx, 0) from XDP.
var xdpAdjustMetaProbe = asm.Instructions{
	asm.Mov.Imm(asm.R2, 0),
	asm.FnXdpAdjustMeta.Call(),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// sockOpsRttMinProbe reads rtt_min (offset 92 of struct bpf_sock_ops)
// into another register than the context's.
var sockOpsRttMinProbe = asm.Instructions{
	asm.LoadMem(asm.R2, asm.R1, 92, asm.Word),
	asm.Mov.Imm(asm.R0, 1),
	asm.Return(),
}

// iterNextUntrustedProbe walks the task's VMAs and passes the first one
// as bpf_ringbuf_output's data: memory a helper may read is a trusted BTF
// pointer, never an untrusted one ("R2 type=untrusted_ptr_ expected=...").
func iterNextUntrustedProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_iter_task_vma_new", "bpf_iter_task_vma_next", "bpf_iter_task_vma_destroy")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.LoadMem(asm.R2, asm.R1, iterTaskOff, asm.DWord),
		asm.JEq.Imm(asm.R2, 0, "out"),
		// bpf_iter_task_vma_new(fp-8, task, 0)
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -8),
		asm.Mov.Imm(asm.R3, 0),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -8),
		kfuncCall(ids[1]),
		asm.JEq.Imm(asm.R0, 0, "destroy"),
		// bpf_ringbuf_output(ringbuf, vma, 8, 0)
		asm.Mov.Reg(asm.R2, asm.R0),
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeRingbuf),
		asm.Mov.Imm(asm.R3, 8),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
		asm.Mov.Reg(asm.R1, asm.RFP).WithSymbol("destroy"),
		asm.Add.Imm(asm.R1, -8),
		kfuncCall(ids[2]),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// skbArgBTFIDProbe is a netfilter program that passes a stack pointer as
// bpf_dynptr_from_skb's struct __sk_buff.
func skbArgBTFIDProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_from_skb")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -32),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		kfuncCall(ids[0]),
		asm.Mov.Imm(asm.R0, 1),
		asm.Return(),
	}, nil
}

// throwLockCheckProbe throws from a subprogram inside an RCU read section
// it opened.
func throwLockCheckProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_rcu_read_lock", "bpf_throw")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Call.Label("throwing"),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		kfuncCall(ids[0]).WithSymbol("throwing"),
		asm.Mov.Imm(asm.R1, 0),
		kfuncCall(ids[1]),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}, nil
}

// sliceBufferInvalidateProbe takes a read-only slice of the packet with a
// stack buffer at fp-24, stores over the buffer, and reads through the
// slice: the store ends the slice on a kernel with the fix. (A writable
// slice would do as well, but some builds refuse bpf_dynptr_slice_rdwr:
// NoDynptrSliceRdwr.)
func sliceBufferInvalidateProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_from_xdp", "bpf_dynptr_slice")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -24),
		asm.Mov.Imm(asm.R4, 8),
		kfuncCall(ids[1]),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord),
		asm.LoadMem(asm.R0, asm.R0, 0, asm.Byte),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// sliceRingbufRefProbe reads through a slice of a ringbuf record after
// discarding the record.
func sliceRingbufRefProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_slice")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeRingbuf),
		asm.Mov.Imm(asm.R2, 8),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Reg(asm.R4, asm.RFP),
		asm.Add.Imm(asm.R4, -16),
		asm.FnRingbufReserveDynptr.Call(),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 8),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Imm(asm.R2, 0),
		asm.FnRingbufDiscardDynptr.Call(),
		asm.JEq.Imm(asm.R6, 0, "out"),
		asm.LoadMem(asm.R0, asm.R6, 0, asm.Byte),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// kptrPercpuMatchProbe exchanges a task (bpf_task_from_pid, a trusted
// referenced kernel pointer, never per-CPU) into probePercpuKptr's per-CPU
// kptr to task_struct, and releases what comes out: without the fix the
// kernel matches the struct alone. The program only loads; it never runs,
// so no task is ever stored where the map's free path would take it for a
// per-CPU object.
func kptrPercpuMatchProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_task_from_pid", "bpf_task_release")
	if err != nil {
		return nil, err
	}
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R1, 1),
		kfuncCall(ids[0]),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
	}
	insns = append(insns, lookupKey(probePercpuKptr)...)
	return append(insns,
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.JEq.Imm(asm.R0, 0, "release"),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Reg(asm.R2, asm.R6),
		asm.FnKptrXchg.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R0),
		kfuncCall(ids[1]).WithSymbol("release"),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	), nil
}

// asyncMapMatchProbe initialises the workqueue of probeWq's element with
// probeTimer as its map: a map that holds no workqueue, which a kernel
// without the fix does not compare with the workqueue's.
func asyncMapMatchProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_wq_init")
	if err != nil {
		return nil, err
	}
	insns := append(asm.Instructions{asm.StoreImm(asm.RFP, -4, 0, asm.Word)}, lookupKey(probeWq)...)
	return append(insns,
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.LoadMapPtr(asm.R2, 0).WithReference(probeTimer),
		asm.Mov.Imm(asm.R3, 0),
		kfuncCall(ids[0]),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	), nil
}

// kfuncOneTypeProbe takes the object out of probeLockedKptr's kptr on one
// path, out of probePlainKptr's on the other, and drops it with one
// bpf_obj_drop call: two structs, one with a record, one without.
func kfuncOneTypeProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_obj_drop_impl")
	if err != nil {
		return nil, err
	}
	take := func(m, label string) asm.Instructions {
		insns := lookupKey(m)
		insns[0] = insns[0].WithSymbol(label)
		return append(insns,
			asm.JEq.Imm(asm.R0, 0, "out"),
			asm.Mov.Reg(asm.R1, asm.R0),
			asm.Mov.Imm(asm.R2, 0),
			asm.FnKptrXchg.Call(),
		)
	}
	insns := asm.Instructions{
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.FnGetPrandomU32.Call(),
		asm.JEq.Imm(asm.R0, 0, "plain"),
	}
	insns = append(insns, take(probeLockedKptr, "locked")...)
	insns = append(insns, asm.Ja.Label("drop"))
	insns = append(insns, take(probePlainKptr, "plain")...)
	return append(insns,
		asm.JEq.Imm(asm.R0, 0, "out").WithSymbol("drop"),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, 0),
		kfuncCall(ids[0]),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	), nil
}

// localKptrValue is a map value type of one kptr to a struct of the map's
// BTF (none of vmlinux's) with a long and, if locked, a bpf_spin_lock.
func localKptrValue(name string, locked bool) btf.Type {
	long := &btf.Int{Name: "long", Size: 8, Encoding: btf.Signed}
	obj := &btf.Struct{Name: name + "_obj", Size: 8, Members: []btf.Member{{Name: "a", Type: long}}}
	if locked {
		lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4, Members: []btf.Member{{Name: "val", Type: &btf.Int{Name: "u32", Size: 4}}}}
		obj.Size = 16
		obj.Members = append(obj.Members, btf.Member{Name: "l", Type: lock, Offset: 64})
	}
	kptr := &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: obj}}
	return &btf.Struct{Name: name + "_val", Size: 8, Members: []btf.Member{{Name: "p", Type: kptr}}}
}

// specialValue is a map value type of one field of the kernel's opaque
// struct name, of words 64-bit words (bpf_wq, bpf_timer: 2; bpf_task_work:
// 1).
func specialValue(name string, words uint32) btf.Type {
	u64 := &btf.Int{Name: "u64", Size: 8}
	opaque := &btf.Struct{Name: name, Size: 8 * words, Members: []btf.Member{
		{Name: "__opaque", Type: &btf.Array{Index: &btf.Int{Name: "u32", Size: 4}, Type: u64, Nelems: words}}}}
	return &btf.Struct{Name: name + "_elem", Size: 8 * words, Members: []btf.Member{{Name: "f", Type: opaque}}}
}

// lookupKey looks up in map m the key the probe stored at fp-4, into r0.
func lookupKey(m string) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.LoadMapPtr(asm.R1, 0).WithReference(m),
		asm.FnMapLookupElem.Call(),
	}
}

// percpuKptrValue is the value type of probePercpuKptr.
func percpuKptrValue() btf.Type { return taskKptrValue("probe_pcpu_val", "percpu_kptr") }

// untrustedKptrValue is a map value of one unreferenced kptr to the
// kernel's task_struct.
func untrustedKptrValue() btf.Type { return taskKptrValue("probe_untrusted_val", "kptr_untrusted") }

// taskKptrValue is a map value struct name of one kptr of kind tag (the
// BTF type tag) to the kernel's task_struct.
func taskKptrValue(name, tag string) btf.Type {
	task := &btf.Struct{Name: "task_struct"}
	kptr := &btf.Pointer{Target: &btf.TypeTag{Value: tag, Type: task}}
	return &btf.Struct{Name: name, Size: 8, Members: []btf.Member{{Name: "t", Type: kptr}}}
}

// fetchAdd is "src = atomic_fetch_add((u64 *)(dst + off), src)".
func fetchAdd(dst asm.Register, off int16, src asm.Register) asm.Instruction {
	const fetch = 0x01
	return atomicInsn(int64(asm.Add)|fetch, dst, src, off, asm.DWord)
}

// loadAcquire is "dst = load_acquire((size *)(src + off))", which
// asm.LoadAcquire does not encode (it leaves imm 0, an atomic add).
func loadAcquire(dst, src asm.Register, off int16, size asm.Size) asm.Instruction {
	const loadAcq = 0x100
	return atomicInsn(loadAcq, dst, src, off, size)
}

// atomicInsn is the BPF_ATOMIC instruction of the given imm and size.
func atomicInsn(imm int64, dst, src asm.Register, off int16, size asm.Size) asm.Instruction {
	return asm.Instruction{
		OpCode: asm.OpCode(asm.StXClass).SetMode(asm.AtomicMode).SetSize(size),
		Dst:    dst, Src: src, Offset: off, Constant: imm,
	}
}

// probeBTF holds the running kernel's BTF while Probe runs, so that its
// probes parse vmlinux once: btf.LoadKernelSpec parses it afresh on each
// call, and thirteen probes name kfuncs (a run over one small object
// executed 2.19G instructions with a parse per probe, 1.16G with one).
// It is dropped when Probe returns: kept for the process, the parsed
// spec cost every later collection 11.7M instructions of marking, five
// times a collection of an empty heap.
var probeBTF struct {
	sync.Mutex
	keep bool
	spec *btf.Spec
}

// kernelSpec returns the running kernel's BTF: the one Probe holds while
// it runs, a fresh parse otherwise.
func kernelSpec() (*btf.Spec, error) {
	probeBTF.Lock()
	defer probeBTF.Unlock()
	if probeBTF.spec != nil {
		return probeBTF.spec, nil
	}
	spec, err := btf.LoadKernelSpec()
	if err == nil && probeBTF.keep {
		probeBTF.spec = spec
	}
	return spec, err
}

// holdProbeBTF makes kernelSpec keep the BTF it parses until the returned
// function is called.
func holdProbeBTF() (release func()) {
	probeBTF.Lock()
	probeBTF.keep = true
	probeBTF.Unlock()
	return func() {
		probeBTF.Lock()
		probeBTF.keep, probeBTF.spec = false, nil
		probeBTF.Unlock()
	}
}

// kfuncIDs are the ids of the named kfuncs in the running kernel's BTF.
func kfuncIDs(names ...string) ([]btf.TypeID, error) {
	spec, err := kernelSpec()
	if err != nil {
		return nil, fmt.Errorf("kernel BTF: %w", err)
	}
	ids := make([]btf.TypeID, len(names))
	for i, name := range names {
		var fn *btf.Func
		if err := spec.TypeByName(name, &fn); err != nil {
			return nil, fmt.Errorf("kfunc %s: %w", name, err)
		}
		if ids[i], err = spec.TypeID(fn); err != nil {
			return nil, fmt.Errorf("kfunc %s: %w", name, err)
		}
	}
	return ids, nil
}

// kfuncCall calls the kernel function with BTF id id (BPF_PSEUDO_KFUNC_CALL
// into vmlinux).
func kfuncCall(id btf.TypeID) asm.Instruction {
	return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: int64(id)}
}

// ProbeProgram returns the probe of f as a collection: one XDP program,
// named after the fix, and the maps it uses.
func ProbeProgram(f Fix) (*ebpf.CollectionSpec, error) {
	insns, err := probes[f]()
	if err != nil {
		return nil, fmt.Errorf("probe %s: %w", f, err)
	}
	name := "probe_" + fmt.Sprint(uint8(f))
	prog := &ebpf.ProgramSpec{Name: name, Type: ebpf.XDP, License: "GPL", Instructions: insns}
	if target := probeTargets[f]; target != nil {
		target(prog)
	}
	spec := &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			probeMap:     {Name: probeMap, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4},
			probeRingbuf: {Name: probeRingbuf, Type: ebpf.RingBuf, MaxEntries: 4096},
			probeXsk:     {Name: probeXsk, Type: ebpf.XSKMap, KeySize: 4, ValueSize: 4, MaxEntries: 1},
			probeProgs:   {Name: probeProgs, Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 1},
			probeLocks:   lockedArray(probeLocks, "bpf_spin_lock", 1),
			probeStash:   stashArray(),
			probeResLock: lockedArray(probeResLock, "bpf_res_spin_lock", 1),
			probeOuter: {Name: probeOuter, Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4, MaxEntries: 1,
				InnerMap: &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4, Flags: innerMapFlag}},
			probeUntrustedKptr: {Name: probeUntrustedKptr, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1,
				Key: &btf.Int{Name: "u32", Size: 4}, Value: untrustedKptrValue()},
			probePercpuKptr: {Name: probePercpuKptr, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1,
				Key: &btf.Int{Name: "u32", Size: 4}, Value: percpuKptrValue()},
			probeLockedKptr: {Name: probeLockedKptr, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1,
				Key: &btf.Int{Name: "u32", Size: 4}, Value: localKptrValue("probe_locked", true)},
			probePlainKptr: {Name: probePlainKptr, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1,
				Key: &btf.Int{Name: "u32", Size: 4}, Value: localKptrValue("probe_plain", false)},
			probeWq: {Name: probeWq, Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 1,
				Key: &btf.Int{Name: "u32", Size: 4}, Value: specialValue("bpf_wq", 2)},
			probeTimer: {Name: probeTimer, Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 1,
				Key: &btf.Int{Name: "u32", Size: 4}, Value: specialValue("bpf_timer", 2)},
			probeTaskWork: {Name: probeTaskWork, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1,
				Key: &btf.Int{Name: "u32", Size: 4}, Value: specialValue("bpf_task_work", 1)},
			// The key is struct bpf_cgroup_storage_key (a u64 and a
			// u32, padded); such a map has no max_entries.
			probeCgroupStorage: {Name: probeCgroupStorage, Type: ebpf.CGroupStorage, KeySize: 16, ValueSize: 8},
		},
		Programs: map[string]*ebpf.ProgramSpec{name: prog},
	}
	return spec, nil
}

// ErrNoVerdict is wrapped when the kernel gave no verdict on a probe.
var ErrNoVerdict = errors.New("kernel gave no verdict on the probe")

// Probe loads each fix's probe into the running kernel and returns the
// fixes it lacks. It needs bpf(BPF_PROG_LOAD); where loading is not
// possible it returns an error and callers should keep the zero Set (every
// fix applied), which never accepts what a kernel with the fixes rejects.
// A fix whose probe the kernel refuses to load without a verdict (a build
// that permits no LSM programs, say) stays applied: on such a kernel the
// programs it concerns do not load either.
func Probe() (Set, error) {
	defer holdProbeBTF()()
	var missing Set
	verdicts, reason := 0, ""
	for _, f := range All() {
		spec, err := ProbeProgram(f)
		if err != nil {
			return Set{}, err
		}
		// The verdict and the statistics line are all a probe needs: no
		// branch-level log.
		rs, err := kernel.Options{MapBTF: kernel.KeyValueBTF, VerdictOnly: true}.LoadCollectionSpec(spec)
		if err != nil {
			return Set{}, fmt.Errorf("probe %s: %w", f, err)
		}
		if len(rs) != 1 {
			return Set{}, fmt.Errorf("probe %s: %w", f, ErrNoVerdict)
		}
		if rs[0].NotLoaded {
			reason = fmt.Sprintf("probe %s: %s", f, rs[0].Err)
			continue
		}
		verdicts++
		if n := probeInsns[f]; n != 0 {
			if !rs[0].Accepted || rs[0].InsnProcessed != n {
				missing = missing.Union(Of(f))
			}
			continue
		}
		if errno := probeErrnos[f]; errno != 0 {
			if rs[0].Accepted || rs[0].Errno != errno {
				missing = missing.Union(Of(f))
			}
			continue
		}
		if n := probeXlated[f]; n != 0 {
			if !rs[0].Accepted || rs[0].XlatedInsns != n {
				missing = missing.Union(Of(f))
			}
			continue
		}
		if msg := probeMessages[f]; msg != "" {
			if rs[0].Accepted || !strings.Contains(rs[0].Err, msg) {
				missing = missing.Union(Of(f))
			}
			continue
		}
		if rs[0].Accepted {
			missing = missing.Union(Of(f))
		}
	}
	if verdicts == 0 {
		return Set{}, fmt.Errorf("%w: %s", ErrNoVerdict, reason)
	}
	return missing, nil
}

// taskIterator makes a probe a task iterator program (iter/task): a
// tracing program that every kernel with BPF and BTF loads.
func taskIterator(p *ebpf.ProgramSpec) {
	p.Type, p.AttachType, p.AttachTo = ebpf.Tracing, ebpf.AttachTraceIter, "task"
}

// iterTaskOff is the offset of the task in a task iterator's context,
// struct bpf_iter__task (after the meta pointer).
const iterTaskOff = 8

// walkUntrustedProbe passes a task's parent to bpf_task_pt_regs, whose
// argument is a BTF pointer to a task. The task of a task iterator is
// trusted and parent is no field the kernel lists as safe: the program
// runs in an RCU read section, where the 6.18.0 rule reads it as a plain
// pointer, which the helper takes, and the fix as an untrusted one. The
// field's offset comes from the kernel's BTF.
func walkUntrustedProbe() (asm.Instructions, error) {
	return withTaskParent(asm.FnTaskPtRegs.Call())
}

// loadAcqProbeMemProbe load-acquires through a task's parent, read
// through the trusted task of a task iterator: a pointer plain loads read
// with a fault-handling probe (untrusted on kernels with WalkUntrusted, a
// bare BTF pointer on others).
func loadAcqProbeMemProbe() (asm.Instructions, error) {
	return withTaskParent(loadAcquire(asm.R2, asm.R1, 0, asm.DWord))
}

// withTaskParent is a task iterator's program that runs use with r1 the
// parent of the iterator's task (when there is a task) and returns 0.
func withTaskParent(use asm.Instruction) (asm.Instructions, error) {
	parent, err := memberOffset("task_struct", "parent")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.LoadMem(asm.R1, asm.R1, iterTaskOff, asm.DWord),
		asm.JEq.Imm(asm.R1, 0, "out"),
		asm.LoadMem(asm.R1, asm.R1, parent, asm.DWord),
		use,
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// globalArgTrustedProbe passes the real parent of a task iterator's task,
// an RCU pointer (a field the kernel lists as safe for RCU), to a global
// function whose argument is tagged arg:trusted: the 6.18.0 type check
// takes it, the fix asks for a trusted pointer. The argument is a pointer
// to a struct named task_struct: the kernel takes vmlinux's struct of that
// name.
func globalArgTrustedProbe() (asm.Instructions, error) {
	realParent, err := memberOffset("task_struct", "real_parent")
	if err != nil {
		return nil, err
	}
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	task := &btf.Struct{Name: "task_struct", Size: 4, Members: []btf.Member{{Name: "pid", Type: i32}}}
	main := &btf.Func{Name: "probe_" + fmt.Sprint(uint8(GlobalArgTrusted)), Linkage: btf.GlobalFunc,
		Type: &btf.FuncProto{Return: i32, Params: []btf.FuncParam{{Name: "ctx", Type: &btf.Pointer{Target: &btf.Void{}}}}}}
	callee := &btf.Func{Name: "trusted_arg", Linkage: btf.GlobalFunc,
		Type:      &btf.FuncProto{Return: i32, Params: []btf.FuncParam{{Name: "t", Type: &btf.Pointer{Target: task}}}},
		ParamTags: [][]string{{"arg:trusted"}}}
	return asm.Instructions{
		btf.WithFuncMetadata(asm.LoadMem(asm.R1, asm.R1, iterTaskOff, asm.DWord), main),
		asm.JEq.Imm(asm.R1, 0, "out"),
		asm.LoadMem(asm.R1, asm.R1, realParent, asm.DWord),
		asm.Call.Label(callee.Name),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
		btf.WithFuncMetadata(asm.Mov.Imm(asm.R0, 0), callee).WithSymbol(callee.Name),
		asm.Return(),
	}, nil
}

// memberOffset is the byte offset of member in the kernel's struct name.
func memberOffset(name, member string) (int16, error) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return 0, fmt.Errorf("kernel BTF: %w", err)
	}
	var st *btf.Struct
	if err := spec.TypeByName(name, &st); err != nil {
		return 0, fmt.Errorf("struct %s: %w", name, err)
	}
	for _, m := range st.Members {
		if m.Name == member && m.Offset.Bytes() <= math.MaxInt16 {
			return int16(m.Offset.Bytes()), nil
		}
	}
	return 0, fmt.Errorf("struct %s, member %s: %w", name, member, errNoMember)
}

// errNoMember is wrapped when a struct of the kernel's BTF lacks a member
// a probe reads, or has it past the reach of an instruction's offset.
var errNoMember = errors.New("no such member within an instruction's reach")

// acqRelStructTrustedProbe acquires a struct bpf_cpumask that is a zeroed
// copy on the stack (a struct of scalars: plain memory unless the kfunc's
// acquiring makes it a BTF object argument) and releases what it got.
func acqRelStructTrustedProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_cpumask_acquire", "bpf_cpumask_release")
	if err != nil {
		return nil, err
	}
	const size = 40 // sizeof(struct bpf_cpumask)
	insns := asm.Instructions{asm.Mov.Imm(asm.R1, 0)}
	for off := int16(-size); off < 0; off += 8 {
		insns = append(insns, asm.StoreMem(asm.RFP, off, asm.R1, asm.DWord))
	}
	return append(insns,
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -size),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R1, asm.R0),
		kfuncCall(ids[1]),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	), nil
}

// rawTPSignalWaitArgsProbe reads through signal_deliver's siginfo (its
// arg1, in the second context slot) unchecked: a trusted pointer
// upstream, a number where the build lists the argument as one that may
// encode an error.
var rawTPSignalWaitArgsProbe = asm.Instructions{
	asm.LoadMem(asm.R1, asm.R1, 8, asm.DWord),
	asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// noArenaKfuncsProbe asks bpf_arena_alloc_pages for a page of an array:
// the verifier takes any map for the kfunc's map argument (the kfunc
// finds at run time that it is not an arena), so a kernel that registers
// the arena set accepts it, and one that does not refuses the call. No
// arena map is needed, which some builds refuse to create.
func noArenaKfuncsProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_arena_alloc_pages")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeMap),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Imm(asm.R3, 1),
		asm.Mov.Imm(asm.R4, -1),
		asm.Mov.Imm(asm.R5, 0),
		kfuncCall(ids[0]),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}, nil
}

// probeStash is the one-element array whose value is a kptr to a
// refcounted struct of the probe's own BTF with a bpf_rb_node: loaded
// under RCU it is a non-owning reference.
const probeStash = "probe_stash"

// callbackValueIDProbe walks probeLocks in a bpf_for_each_map_elem
// callback and, for each element, walks it again in a nested one, which
// locks its own value and unlocks the outer callback's (passed through the
// stack): another element of the same map, told apart only by the values'
// ids.
func callbackValueIDProbe() (asm.Instructions, error) {
	insns := asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeLocks),
		loadFunc(asm.R2, "outer_cb"),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnForEachMapElem.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		// outer_cb(map, key, value, ctx): fp-8 = value, walk again.
		asm.StoreMem(asm.RFP, -8, asm.R3, asm.DWord).WithSymbol("outer_cb"),
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeLocks),
		loadFunc(asm.R2, "inner_cb"),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -8),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnForEachMapElem.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		// inner_cb(map, key, value, ctx): lock value, unlock *ctx.
		asm.LoadMem(asm.R6, asm.R4, 0, asm.DWord).WithSymbol("inner_cb"),
		asm.Mov.Reg(asm.R1, asm.R3),
		asm.FnSpinLock.Call(),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.FnSpinUnlock.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
	// Callbacks are static functions, which the kernel learns from the
	// BTF func info of every function.
	for i, fn := range insns {
		switch sym := fn.Symbol(); {
		case i == 0:
			insns[i] = btf.WithFuncMetadata(fn, probeFunc("probe", btf.GlobalFunc))
		case sym != "":
			insns[i] = btf.WithFuncMetadata(fn, probeFunc(sym, btf.StaticFunc))
		}
	}
	return insns, nil
}

// probeFunc is the BTF of a probe's function name: long name(4 u64s).
func probeFunc(name string, linkage btf.FuncLinkage) *btf.Func {
	u64 := &btf.Int{Name: "u64", Size: 8}
	params := make([]btf.FuncParam, 4)
	for i := range params {
		params[i] = btf.FuncParam{Name: fmt.Sprintf("a%d", i), Type: u64}
	}
	return &btf.Func{Name: name, Linkage: linkage, Type: &btf.FuncProto{Return: u64, Params: params}}
}

// s32RangeLowHalfProbe takes the lock of probeResLock and, unless r0 is
// negative as a 64-bit number, releases it: on the path where taking it
// failed r0 is negative only in its low half, so with the fix the release
// is reached holding no lock.
func s32RangeLowHalfProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_res_spin_lock", "bpf_res_spin_unlock")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.LoadMapValue(asm.R1, 0, 0).WithReference(probeResLock),
		kfuncCall(ids[0]),
		asm.JSLT.Imm(asm.R0, 0, "out"),
		asm.LoadMapValue(asm.R1, 0, 0).WithReference(probeResLock),
		kfuncCall(ids[1]),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// nullArgPreciseProbe calls bpf_csum_diff with from NULL on the path
// walked first and from 8, no pointer, on the other, which joins it at
// the call: only a precise NULL keeps the second from being pruned.
var nullArgPreciseProbe = asm.Instructions{
	asm.FnGetPrandomU32.Call(),
	asm.Mov.Imm(asm.R1, 0),
	asm.Mov.Imm(asm.R2, 0),
	asm.Mov.Imm(asm.R3, 0),
	asm.Mov.Imm(asm.R4, 0),
	asm.Mov.Imm(asm.R5, 0),
	asm.JNE.Imm(asm.R0, 0, "other"),
	asm.Ja.Label("join"),
	asm.Mov.Imm(asm.R1, 8).WithSymbol("other"),
	asm.FnCsumDiff.Call().WithSymbol("join"),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// kptrNullStorePreciseProbe stores NULL into probeUntrustedKptr's kptr
// on the path walked first and the number 5 on the other, which joins it
// before the store: only a precise NULL keeps the second from being
// pruned, and the kernel refuses the number.
var kptrNullStorePreciseProbe = slices.Concat(asm.Instructions{asm.StoreImm(asm.RFP, -4, 0, asm.Word)}, lookupKey(probeUntrustedKptr), asm.Instructions{
	asm.JEq.Imm(asm.R0, 0, "out"),
	asm.Mov.Reg(asm.R6, asm.R0),
	asm.FnGetPrandomU32.Call(),
	asm.JGT.Imm(asm.R0, 5, "other"),
	asm.Mov.Imm(asm.R1, 0),
	asm.Ja.Label("join"),
	asm.Mov.Imm(asm.R1, 5).WithSymbol("other"),
	// Enough instructions and jumps for a checkpoint at the store.
	asm.Mov.Imm(asm.R2, 0).WithSymbol("join"),
	asm.Mov.Imm(asm.R2, 0),
	asm.Mov.Imm(asm.R2, 0),
	asm.Mov.Imm(asm.R2, 0),
	asm.Mov.Imm(asm.R2, 0),
	asm.JEq.Imm(asm.R6, 7, "store"),
	asm.StoreMem(asm.R6, 0, asm.R1, asm.DWord).WithSymbol("store"),
	asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
	asm.Return(),
})

// globalDynptrSKBProbe passes a local dynptr over an element of probeMap
// to a global function, which takes a slice of it, writes through the
// dynptr and reads the slice: destroyed by the write where the argument
// is taken for an skb dynptr.
func globalDynptrSKBProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_slice")
	if err != nil {
		return nil, err
	}
	insns := asm.Instructions{
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeMap),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, 8),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Reg(asm.R4, asm.RFP),
		asm.Add.Imm(asm.R4, -24),
		asm.FnDynptrFromMem.Call(),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -24),
		asm.Call.Label("slice_write"),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
		// slice_write(struct bpf_dynptr *p)
		asm.Mov.Reg(asm.R6, asm.R1).WithSymbol("slice_write"),
		asm.Mov.Imm(asm.R2, 0),
		asm.StoreMem(asm.RFP, -8, asm.R2, asm.DWord),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -8),
		asm.Mov.Imm(asm.R4, 4),
		kfuncCall(ids[0]),
		asm.JEq.Imm(asm.R0, 0, "done"),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -8),
		asm.Mov.Imm(asm.R4, 1),
		asm.Mov.Imm(asm.R5, 0),
		asm.FnDynptrWrite.Call(),
		asm.LoadMem(asm.R0, asm.R7, 0, asm.Byte),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("done"),
		asm.Return(),
	}
	u64 := &btf.Int{Name: "u64", Size: 8}
	dynptr := &btf.Pointer{Target: &btf.Struct{Name: "bpf_dynptr", Size: 16, Members: []btf.Member{
		{Name: "__opaque", Type: &btf.Array{Index: &btf.Int{Name: "u32", Size: 4}, Type: u64, Nelems: 2}},
	}}}
	global := &btf.Func{Name: "slice_write", Linkage: btf.GlobalFunc,
		Type: &btf.FuncProto{Return: u64, Params: []btf.FuncParam{{Name: "p", Type: dynptr}}}}
	insns[0] = btf.WithFuncMetadata(insns[0], probeFunc("probe", btf.GlobalFunc))
	for i, ins := range insns {
		if ins.Symbol() == "slice_write" {
			insns[i] = btf.WithFuncMetadata(ins, global)
		}
	}
	return insns, nil
}

// rcuUnlockKeepsNonOwnProbe loads the kptr of probeStash inside an RCU
// read section, leaves it, takes and releases the lock of probeLocks and
// reads through the pointer: destroyed by the unlock where it is still a
// non-owning reference.
func rcuUnlockKeepsNonOwnProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_rcu_read_lock", "bpf_rcu_read_unlock")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.LoadMapValue(asm.R6, 0, 0).WithReference(probeStash),
		asm.LoadMapValue(asm.R9, 0, 0).WithReference(probeLocks),
		kfuncCall(ids[0]),
		asm.LoadMem(asm.R8, asm.R6, 0, asm.DWord),
		kfuncCall(ids[1]),
		asm.JEq.Imm(asm.R8, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R9),
		asm.FnSpinLock.Call(),
		asm.Mov.Reg(asm.R1, asm.R9),
		asm.FnSpinUnlock.Call(),
		asm.LoadMem(asm.R0, asm.R8, 0, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// szkPreciseProbe slices an xdp dynptr with a size of 8 on the path
// walked first and 4 on the other, which joins it at the call, and reads
// byte 6 of the slice: only a precise size keeps the second path from
// being pruned.
func szkPreciseProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_from_xdp", "bpf_dynptr_slice")
	if err != nil {
		return nil, err
	}
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		kfuncCall(ids[0]),
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 8),
		asm.JNE.Imm(asm.R0, 0, "small"),
	}
	// Enough instructions since the branch for a state at the join.
	for range 8 {
		insns = append(insns, asm.Mov.Imm(asm.R5, 0))
	}
	return append(insns,
		asm.Ja.Label("join"),
		asm.Mov.Imm(asm.R4, 4).WithSymbol("small"),
		kfuncCall(ids[1]).WithSymbol("join"),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R0, asm.R0, 6, asm.Byte),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	), nil
}

// loadFunc is "dst = &fn", a callback's address (BPF_PSEUDO_FUNC).
func loadFunc(dst asm.Register, fn string) asm.Instruction {
	return asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: dst, Src: asm.PseudoFunc, Constant: -1}.WithReference(fn)
}

// lockedArray is the spec of an array of n values { struct lock l; u64 n; }:
// the value's BTF names the lock type.
func lockedArray(name, lockType string, n uint32) *ebpf.MapSpec {
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	lock := &btf.Struct{Name: lockType, Size: 4, Members: []btf.Member{{Name: "val", Type: u32}}}
	value := &btf.Struct{Name: "locked", Size: 16, Members: []btf.Member{
		{Name: "l", Type: lock},
		{Name: "n", Type: u64, Offset: 64},
	}}
	return &ebpf.MapSpec{Name: name, Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: n, Key: u32, Value: value}
}

// stashArray is the spec of probeStash.
func stashArray() *ebpf.MapSpec {
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	index := &btf.Int{Name: "u32", Size: 4}
	rbNode := &btf.Struct{Name: "bpf_rb_node", Size: 32, Members: []btf.Member{
		{Name: "__opaque", Type: &btf.Array{Index: index, Type: u64, Nelems: 4}},
	}}
	refcount := &btf.Struct{Name: "bpf_refcount", Size: 4, Members: []btf.Member{
		{Name: "__opaque", Type: &btf.Array{Index: index, Type: u32, Nelems: 1}},
	}}
	node := &btf.Struct{Name: "probe_node", Size: 48, Members: []btf.Member{
		{Name: "key", Type: u64},
		{Name: "node", Type: rbNode, Offset: 64},
		{Name: "ref", Type: refcount, Offset: 320},
	}}
	kptr := &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: node}}
	value := &btf.Struct{Name: "probe_stash", Size: 8, Members: []btf.Member{{Name: "p", Type: kptr}}}
	return &ebpf.MapSpec{Name: probeStash, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1, Key: u32, Value: value}
}

// globalNonNullZeroProbe passes NULL to a global function whose int
// pointer argument is tagged arg:nonnull. Global functions need BTF
// func info, carried by the instructions' metadata.
func globalNonNullZeroProbe() (asm.Instructions, error) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	main := &btf.Func{Name: "probe", Linkage: btf.GlobalFunc, Type: &btf.FuncProto{
		Return: i32, Params: []btf.FuncParam{{Name: "ctx", Type: &btf.Pointer{Target: &btf.Void{}}}}}}
	callee := &btf.Func{Name: "nonnull_arg", Linkage: btf.GlobalFunc, Type: &btf.FuncProto{
		Return: i32, Params: []btf.FuncParam{{Name: "p", Type: &btf.Pointer{Target: i32}}}},
		ParamTags: [][]string{{"arg:nonnull"}}}
	return asm.Instructions{
		btf.WithFuncMetadata(asm.Mov.Imm(asm.R1, 0), main),
		asm.Call.Label("nonnull_arg"),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		btf.WithFuncMetadata(asm.LoadMem(asm.R0, asm.R1, 0, asm.Word), callee).WithSymbol("nonnull_arg"),
		asm.Return(),
	}, nil
}

// asyncCbSessionProbe, a kprobe session program, schedules a task_work
// for the current task with a callback: an asynchronous callback, which
// a kernel with the fix refuses in a session program.
func asyncCbSessionProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_task_work_schedule_signal_impl")
	if err != nil {
		return nil, err
	}
	insns := append(asm.Instructions{asm.StoreImm(asm.RFP, -4, 0, asm.Word)}, lookupKey(probeTaskWork)...)
	insns = append(insns,
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Reg(asm.R2, asm.R6),
		asm.LoadMapPtr(asm.R3, 0).WithReference(probeTaskWork),
		loadFunc(asm.R4, "tw_cb"),
		asm.Mov.Imm(asm.R5, 0),
		kfuncCall(ids[0]),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	)
	return withEmptyCallback(insns, "tw_cb"), nil
}

// withEmptyCallback makes insns the global function "probe" and appends
// the static callback cb, which returns 0.
func withEmptyCallback(insns asm.Instructions, cb string) asm.Instructions {
	insns[0] = btf.WithFuncMetadata(insns[0], probeFunc("probe", btf.GlobalFunc))
	return append(insns,
		btf.WithFuncMetadata(asm.Mov.Imm(asm.R0, 0), probeFunc(cb, btf.StaticFunc)).WithSymbol(cb),
		asm.Return(),
	)
}

// asyncCbCgroupStorageProbe, a cgroup_skb program, names a cgroup storage
// map and sets a timer's callback: a kernel with the fix refuses the
// callback.
func asyncCbCgroupStorageProbe() (asm.Instructions, error) {
	insns := asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeCgroupStorage),
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
	}
	insns = append(insns, lookupKey(probeTimer)...)
	insns = append(insns,
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R0),
		loadFunc(asm.R2, "timer_cb"),
		asm.FnTimerSetCallback.Call(),
		asm.Mov.Imm(asm.R0, 1).WithSymbol("out"),
		asm.Return(),
	)
	return withEmptyCallback(insns, "timer_cb"), nil
}

// globalCallMayThrowProbe, a tc program, calls a global function that
// holds a bpf_throw call no path reaches inside an RCU read section: a
// kernel with the fix refuses the call, one without accepts.
func globalCallMayThrowProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_rcu_read_lock", "bpf_rcu_read_unlock", "bpf_throw")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		btf.WithFuncMetadata(kfuncCall(ids[0]), probeFunc("probe", btf.GlobalFunc)),
		asm.Call.Label("may_throw"),
		kfuncCall(ids[1]),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		btf.WithFuncMetadata(asm.Mov.Imm(asm.R0, 0), &btf.Func{Name: "may_throw", Linkage: btf.GlobalFunc,
			Type: &btf.FuncProto{Return: &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}}}).WithSymbol("may_throw"),
		asm.JEq.Imm(asm.R0, 0, "done"),
		asm.Mov.Imm(asm.R1, 0),
		kfuncCall(ids[2]),
		asm.Return().WithSymbol("done"),
	}, nil
}

// spinUnlockUntrustsRCUProbe, a sleepable syscall program, reads the
// current task's real_parent while it holds probeLocks' spin lock (an RCU
// pointer: the lock makes the section) and passes it to bpf_task_acquire
// after the unlock: a kernel with the fix has made it untrusted there and
// refuses the call.
func spinUnlockUntrustsRCUProbe() (asm.Instructions, error) {
	realParent, err := memberOffset("task_struct", "real_parent")
	if err != nil {
		return nil, err
	}
	ids, err := kfuncIDs("bpf_task_acquire", "bpf_task_release")
	if err != nil {
		return nil, err
	}
	insns := append(asm.Instructions{asm.StoreImm(asm.RFP, -4, 0, asm.Word)}, lookupKey(probeLocks)...)
	return append(insns,
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.FnSpinLock.Call(),
		asm.LoadMem(asm.R7, asm.R7, realParent, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.FnSpinUnlock.Call(),
		asm.JEq.Imm(asm.R7, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R7),
		kfuncCall(ids[0]),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Reg(asm.R1, asm.R0),
		kfuncCall(ids[1]),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	), nil
}

// fastcallReadPtrFrameProbe fills the main frame's 512 bytes and calls a
// subprogram whose only stack is a bpf_fastcall spill of r1 around
// bpf_get_smp_processor_id (inlined for XDP on x86-64) at fp-8, and which
// passes a pointer to that slot to a second subprogram that reads it. A
// kernel with the fix keeps the spill, 512+16 bytes: "combined stack size
// of 2 calls is 528. Too large"; one without drops it.
var fastcallReadPtrFrameProbe = asm.Instructions{
	asm.Mov.Imm(asm.R1, 0),
	asm.StoreMem(asm.RFP, -512, asm.R1, asm.DWord),
	asm.Call.Label("fastcall_spill"),
	asm.Mov.Imm(asm.R0, 2),
	asm.Return(),
	asm.Mov.Imm(asm.R1, 1).WithSymbol("fastcall_spill"),
	asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
	asm.FnGetSmpProcessorId.Call(),
	asm.LoadMem(asm.R1, asm.RFP, -8, asm.DWord),
	asm.Mov.Reg(asm.R1, asm.RFP),
	asm.Add.Imm(asm.R1, -8),
	asm.Call.Label("fastcall_read"),
	asm.Return(),
	asm.LoadMem(asm.R0, asm.R1, 0, asm.DWord).WithSymbol("fastcall_read"),
	asm.Return(),
}

// callbackLoopSCCProbe runs a bpf_loop callback that, on one branch, writes
// 8 bytes at r10 plus a value it reads from its caller's fp-16 (-32, an
// aligned slot) and, on a later branch, changes that value to -31. The
// path that writes -31 reaches the callback's exit after the path that
// never wrote it has been pruned there; only a kernel that keeps the
// callback's checkpoints incomplete until the whole loop is explored
// (callback-loop-scc) walks the next iteration with -31 and refuses the
// misaligned store. The checkpoint at every jump (BPF_F_TEST_STATE_FREQ)
// makes the pruning happen on every build.
func callbackLoopSCCProbe() (asm.Instructions, error) {
	insns := asm.Instructions{
		asm.FnGetPrandomU32.Call(),
		asm.StoreMem(asm.RFP, -8, asm.R0, asm.DWord),
		asm.Mov.Imm(asm.R1, -32),
		asm.StoreMem(asm.RFP, -16, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R1, 7),
		loadFunc(asm.R2, "probe_cb"),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnLoop.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		// The callback: r2 is the caller's frame pointer.
		asm.Mov.Reg(asm.R9, asm.R2).WithSymbol("probe_cb"),
		asm.LoadMem(asm.R8, asm.R9, -8, asm.DWord),
		asm.LoadMem(asm.R6, asm.R9, -16, asm.DWord),
		asm.FnGetPrandomU32.Call(),
		asm.JGT.Reg(asm.R0, asm.R8, "use"),
		asm.FnGetPrandomU32.Call().WithSymbol("second"),
		asm.JGT.Reg(asm.R0, asm.R8, "update"),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
		asm.Mov.Reg(asm.R1, asm.RFP).WithSymbol("use"),
		asm.Add.Reg(asm.R1, asm.R6),
		asm.Mov.Imm(asm.R2, 42),
		asm.StoreMem(asm.R1, 0, asm.R2, asm.DWord),
		asm.Ja.Label("second"),
		asm.Mov.Imm(asm.R1, -31).WithSymbol("update"),
		asm.StoreMem(asm.R9, -16, asm.R1, asm.DWord),
		asm.Ja.Label("out"),
	}
	// The callback is a static function, which the kernel learns from
	// the BTF func info.
	for i, ins := range insns {
		switch {
		case i == 0:
			insns[i] = btf.WithFuncMetadata(ins, probeFunc("probe", btf.GlobalFunc))
		case ins.Symbol() == "probe_cb":
			insns[i] = btf.WithFuncMetadata(ins, probeFunc("probe_cb", btf.StaticFunc))
		}
	}
	return insns, nil
}

// loopUnreadSafeProbe runs an iterator loop whose body spills a constant to
// fp-16, a slot still INVALID in the first iteration's checkpoint at
// bpf_iter_num_next. A kernel with loop-unread-prune prunes the second
// iteration against the first; one without it needs a third.
func loopUnreadSafeProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_iter_num_new", "bpf_iter_num_next", "bpf_iter_num_destroy")
	if err != nil {
		return nil, err
	}
	iterArg := func() asm.Instructions {
		return asm.Instructions{asm.Mov.Reg(asm.R1, asm.RFP), asm.Add.Imm(asm.R1, -8)}
	}
	// fp-24 makes fp-16 part of the stack before the loop.
	insns := asm.Instructions{asm.StoreImm(asm.RFP, -24, 0, asm.Word)}
	insns = append(insns, iterArg()...)
	insns = append(insns, asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 10), kfuncCall(ids[0]))
	next := iterArg()
	next[0] = next[0].WithSymbol("next")
	insns = append(insns, next...)
	insns = append(insns,
		kfuncCall(ids[1]),
		asm.JEq.Imm(asm.R0, 0, "done"),
		asm.Mov.Imm(asm.R6, 1),
		asm.StoreMem(asm.RFP, -16, asm.R6, asm.DWord),
		asm.Ja.Label("next"))
	done := iterArg()
	done[0] = done[0].WithSymbol("done")
	insns = append(insns, done...)
	return append(insns, kfuncCall(ids[2]), asm.Mov.Imm(asm.R0, 0), asm.Return()), nil
}

// dynptrKfuncPktWriteProbe reads a byte of the packet checked before a
// bpf_dynptr_memset of an skb dynptr: the write may move the packet, so a
// kernel with the fix has made the pointer a number by then. A tc
// program.
func dynptrKfuncPktWriteProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_from_skb", "bpf_dynptr_memset")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.LoadMem(asm.R7, asm.R6, skbData, asm.Word),
		asm.LoadMem(asm.R8, asm.R6, skbDataEnd, asm.Word),
		asm.Mov.Reg(asm.R0, asm.R7),
		asm.Add.Imm(asm.R0, 1),
		asm.JGT.Reg(asm.R0, asm.R8, "out"),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Imm(asm.R3, 1),
		asm.Mov.Imm(asm.R4, 0),
		kfuncCall(ids[1]),
		asm.LoadMem(asm.R0, asm.R7, 0, asm.Byte),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// untrustedMemMismatchProbe reads through one load instruction a stack
// slot on one path and read-only untrusted memory (bpf_rdonly_cast of the
// stack's address to no type) on the other.
func untrustedMemMismatchProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_rdonly_cast")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -8),
		asm.Mov.Imm(asm.R2, 0),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.FnGetPrandomU32.Call(),
		asm.JEq.Imm(asm.R0, 0, "load"),
		asm.Mov.Reg(asm.R7, asm.RFP),
		asm.Add.Imm(asm.R7, -8),
		asm.LoadMem(asm.R0, asm.R7, 0, asm.DWord).WithSymbol("load"),
		asm.Return(),
	}, nil
}

// jmpSeqProbe leaves more branches pending than the kernel allows
// (BPF_COMPLEXITY_LIMIT_JMP_SEQ, 8192): each compare of an unknown r0 with
// another constant queues its jump edge while the walk goes on along the
// fall-through. Every build refuses it; the errno tells them apart.
func jmpSeqProbe() (asm.Instructions, error) {
	const jumps = 8200
	insns := make(asm.Instructions, 0, 2*jumps+3)
	insns = append(insns, asm.FnGetPrandomU32.Call())
	for k := range jumps {
		insns = append(insns, asm.JEq.Imm(asm.R0, int32(k), "out"))
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("out"), asm.Return())
	return insns, nil
}

// lookupTypedAtCallProbe passes an unchecked lookup in probeOuter as the
// map of another lookup: refused by every build, as a map_ptr_or_null by
// those with the fix and as a map_value_or_null by the others.
var lookupTypedAtCallProbe = asm.Instructions{
	asm.StoreImm(asm.RFP, -4, 0, asm.Word),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -4),
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeOuter),
	asm.FnMapLookupElem.Call(),
	asm.Mov.Reg(asm.R1, asm.R0),
	asm.Mov.Reg(asm.R2, asm.RFP),
	asm.Add.Imm(asm.R2, -4),
	asm.FnMapLookupElem.Call(),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// structOpsRefPtrRetProbe returns an acquired cgroup from
// tcp_congestion_ops' ssthresh, which returns a u32.
func structOpsRefPtrRetProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_cgroup_from_id")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		kfuncCall(ids[0]),
		asm.Return(),
	}, nil
}

// noDynptrSliceRdwrProbe takes a writable slice of an XDP packet without
// a buffer, which every XDP program may write, and writes through it.
func noDynptrSliceRdwrProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_from_xdp", "bpf_dynptr_slice_rdwr")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Imm(asm.R2, 0),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 8),
		kfuncCall(ids[1]),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.StoreImm(asm.R0, 0, 0, asm.Byte),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}, nil
}

// dynptrCloneAllFramesProbe reserves a ringbuf record as a dynptr at
// fp-16 and passes it to a subprogram, which clones it into its own
// fp-16, discards the original and asks the clone's size: the clone is
// gone on a kernel with the fix.
func dynptrCloneAllFramesProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_dynptr_clone", "bpf_dynptr_size")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference(probeRingbuf),
		asm.Mov.Imm(asm.R2, 8),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Reg(asm.R4, asm.RFP),
		asm.Add.Imm(asm.R4, -16),
		asm.FnRingbufReserveDynptr.Call(),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		asm.Call.Label("sub"),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		asm.Mov.Reg(asm.R6, asm.R1).WithSymbol("sub"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		kfuncCall(ids[0]),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.Mov.Imm(asm.R2, 0),
		asm.FnRingbufDiscardDynptr.Call(),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -16),
		kfuncCall(ids[1]),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}, nil
}

// refcountArgZeroOffProbe passes the current task, a trusted BTF pointer,
// moved 8 bytes in, to bpf_refcount_acquire: refused by every build, at
// the offset by those with the fix and as no allocated object by the
// others.
func refcountArgZeroOffProbe() (asm.Instructions, error) {
	ids, err := kfuncIDs("bpf_refcount_acquire_impl")
	if err != nil {
		return nil, err
	}
	return asm.Instructions{
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Add.Imm(asm.R0, 8),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, 0),
		kfuncCall(ids[0]),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}, nil
}

// sleepableMapProbe names an xskmap, a map sleepable programs may not use,
// from a sleepable syscall program: refused by every build, and the
// message tells whether the build checks inner maps too.
var sleepableMapProbe = asm.Instructions{
	asm.LoadMapPtr(asm.R1, 0).WithReference(probeXsk),
	asm.Mov.Imm(asm.R0, 0),
	asm.Return(),
}

// globalPktArgProbe, a tc program, passes the first word of the packet,
// checked against data_end, to a global function that calls
// bpf_skb_pull_data before it reads the word: a kernel with the fix
// refuses the call.
func globalPktArgProbe() (asm.Instructions, error) {
	return globalPktArgCall(asm.Instructions{
		asm.Mov.Imm(asm.R2, 0),
		asm.FnSkbPullData.Call(),
	}), nil
}

// globalPktArgReadOnlyProbe, a cgroup_skb program (which may only read
// packet data), passes the checked first word of the packet to a global
// function that only reads it: a kernel with the fix refuses the call.
func globalPktArgReadOnlyProbe() (asm.Instructions, error) {
	return globalPktArgCall(nil), nil
}

// globalPktArgCall is a program of an skb context that passes its first
// packet word, checked against data_end, to the global function
// pkt_read(ctx, u32 *p), which runs pre (with the context in r1) and then
// reads the word when p is not NULL. The program returns 1 (an allowed
// verdict for every skb program type).
func globalPktArgCall(pre asm.Instructions) asm.Instructions {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	u32 := &btf.Int{Name: "u32", Size: 4}
	main := &btf.Func{Name: "probe", Linkage: btf.GlobalFunc, Type: &btf.FuncProto{
		Return: i32, Params: []btf.FuncParam{{Name: "ctx", Type: &btf.Pointer{Target: &btf.Void{}}}}}}
	callee := &btf.Func{Name: "pkt_read", Linkage: btf.GlobalFunc, Type: &btf.FuncProto{
		Return: i32, Params: []btf.FuncParam{
			{Name: "skb", Type: &btf.Pointer{Target: &btf.Void{}}},
			{Name: "p", Type: &btf.Pointer{Target: u32}}}},
		ParamTags: [][]string{{"arg:ctx"}, nil}}
	const skbData, skbDataEnd = 76, 80 // offsetof(struct __sk_buff, data), data_end
	insns := asm.Instructions{
		btf.WithFuncMetadata(asm.LoadMem(asm.R2, asm.R1, skbData, asm.Word), main),
		asm.LoadMem(asm.R3, asm.R1, skbDataEnd, asm.Word),
		asm.Mov.Reg(asm.R4, asm.R2),
		asm.Add.Imm(asm.R4, 4),
		asm.JGT.Reg(asm.R4, asm.R3, "out"),
		asm.Call.Label("pkt_read"),
		asm.Mov.Imm(asm.R0, 1).WithSymbol("out"),
		asm.Return(),
		btf.WithFuncMetadata(asm.Mov.Reg(asm.R6, asm.R2), callee).WithSymbol("pkt_read"),
	}
	insns = append(insns, pre...)
	return append(insns,
		asm.Mov.Imm(asm.R0, 0),
		asm.JEq.Imm(asm.R6, 0, "done"),
		asm.LoadMem(asm.R0, asm.R6, 0, asm.Word),
		asm.Return().WithSymbol("done"),
	)
}

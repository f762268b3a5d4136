package stablefix

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
)

// probeMap is the array the Jmp32PtrNull probe looks up: with a constant
// key in range, the lookup's result is a map value that is not NULL.
const probeMap = "probe_array"

// probeOuter is the array of maps the InnerMapNullness probe looks up in;
// its inner map template is declared BPF_F_INNER_MAP (innerMapFlag).
const (
	probeOuter   = "probe_outer"
	innerMapFlag = 1 << 12
)

// Offsets of data and data_end in struct xdp_md.
const (
	xdpData    = 0
	xdpDataEnd = 4
)

// probes build, per fix, an XDP program the kernel rejects with the fix
// and accepts without it: the programs the fixes were found with. Most
// are fixed instructions; those that call kfuncs need the kernel's BTF.
var probes = [numFixes]func() (asm.Instructions, error){
	PktRangeArith:      fixed(pktRangeArithProbe),
	Jmp32PtrNull:       fixed(jmp32PtrNullProbe),
	IterFP0:            iterFP0Probe,
	AtomicFetchPrecise: fixed(atomicFetchPreciseProbe),
	ThrowLockCheck:     throwLockCheckProbe,
	VarWriteKeepsSpill: fixed(varWriteKeepsSpillProbe),
	SyncLinkedKeepsID:  fixed(syncLinkedKeepsIDProbe),
	PktRegsafe:         fixed(pktRegsafeProbe),
	LsmSleepableHooks:  fixed(returnZero),
	InnerMapNullness:   fixed(innerMapNullnessProbe),
	LsmCgroupSleepable: fixed(returnZero),
	KprobeNoPrivStack:  fixed(kprobeNoPrivStackProbe),
}

// probeTargets make a probe another kind of program than XDP.
var probeTargets = [numFixes]func(*ebpf.ProgramSpec){
	LsmSleepableHooks:  sleepableLSM(ebpf.AttachLSMMac, "task_to_inode"),
	LsmCgroupSleepable: sleepableLSM(ebpf.AttachLSMCgroup, "file_open"),
	KprobeNoPrivStack:  func(p *ebpf.ProgramSpec) { p.Type = ebpf.Kprobe },
}

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

// fetchAdd is "src = atomic_fetch_add((u64 *)(dst + off), src)".
func fetchAdd(dst asm.Register, off int16, src asm.Register) asm.Instruction {
	const fetch = 0x01
	return asm.Instruction{
		OpCode: asm.OpCode(asm.StXClass).SetMode(asm.AtomicMode).SetSize(asm.DWord),
		Dst:    dst, Src: src, Offset: off, Constant: int64(asm.Add) | fetch,
	}
}

// kfuncIDs are the ids of the named kfuncs in the running kernel's BTF.
func kfuncIDs(names ...string) ([]btf.TypeID, error) {
	spec, err := btf.LoadKernelSpec()
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
			probeMap: {Name: probeMap, Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4},
			probeOuter: {Name: probeOuter, Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4, MaxEntries: 1,
				InnerMap: &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4, Flags: innerMapFlag}},
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
	var missing Set
	verdicts, reason := 0, ""
	for _, f := range All() {
		spec, err := ProbeProgram(f)
		if err != nil {
			return 0, err
		}
		// The verdict is all a probe needs: no branch-level log.
		rs, err := kernel.Options{MapBTF: kernel.KeyValueBTF, VerdictOnly: true}.LoadCollectionSpec(spec)
		if err != nil {
			return 0, fmt.Errorf("probe %s: %w", f, err)
		}
		if len(rs) != 1 {
			return 0, fmt.Errorf("probe %s: %w", f, ErrNoVerdict)
		}
		if rs[0].NotLoaded {
			reason = fmt.Sprintf("probe %s: %s", f, rs[0].Err)
			continue
		}
		verdicts++
		if rs[0].Accepted {
			missing |= Of(f)
		}
	}
	if verdicts == 0 {
		return 0, fmt.Errorf("%w: %s", ErrNoVerdict, reason)
	}
	return missing, nil
}

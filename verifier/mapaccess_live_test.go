package verifier

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// Map flags of the map access sweep (include/uapi/linux/bpf.h).
const (
	maRdonlyProg = 1 << 7  // BPF_F_RDONLY_PROG
	maWronlyProg = 1 << 8  // BPF_F_WRONLY_PROG
	maNoPrealloc = 1 << 0  // BPF_F_NO_PREALLOC
	maRdonly     = 1 << 3  // BPF_F_RDONLY
	maWronly     = 1 << 4  // BPF_F_WRONLY
	maMmapable   = 1 << 10 // BPF_F_MMAPABLE
)

// maValueSize is the value size of the plain maps of the sweep.
const maValueSize = 16

// maRodata is the value of the sweep's frozen .rodata: bytes at the sign
// edges of every width, a short printable string at 4 ("ab") and no NUL
// from 8 to the end.
var maRodata = []byte{0x7f, 0x80, 0xff, 0x00, 0x61, 0x62, 0x00, 0xff, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}

// mapAccessSweep compares the programs of TestMapAccessLiveKernel with the
// running kernel and counts them.
type mapAccessSweep struct {
	t                                     *testing.T
	missing                               stablefix.Set
	all                                   bool
	n                                     int // programs built, sampled or not
	compared, accepted, differ, noVerdict int
	// messages counts the kernel's decisive lines, notLoaded why the
	// kernel gave no verdict.
	messages, notLoaded map[string]int
}

// sample reports whether the next program built is compared: every one
// with VERCHECK_MAPACCESS_ALL set, one in every stride otherwise.
func (s *mapAccessSweep) sample(stride int) bool {
	s.n++
	return s.all || stride <= 1 || s.n%stride == 0
}

// check loads the program into the kernel and into vercheck and reports
// any difference in verdict, decisive message or insn_processed.
func (s *mapAccessSweep) check(what string, lt protoLiveType, maps []*loader.Map, insns asm.Instructions) {
	obj := &loader.Object{Path: "test", Maps: maps}
	// WithInstructions takes the func info from the instructions' BTF
	// metadata, as cilium/ebpf does for the kernel.
	p := (&loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo, Flags: lt.flags,
		License: "GPL", GPLCompatible: true}).WithInstructions(insns)
	kres := kernel.LoadProgramVerdict(obj, p)
	if kres.NotLoaded {
		s.noVerdict++
		if s.notLoaded[kres.Err]++; s.notLoaded[kres.Err] == 1 && os.Getenv("VERCHECK_MAPACCESS_DEBUG") != "" {
			s.t.Logf("no verdict: %v, %s: %s\n%s", lt, what, kres.Err, listing(insns))
		}
		return
	}
	s.messages[kres.Err]++
	s.compared++
	if kres.Accepted {
		s.accepted++
	}
	res := Verify(obj, p, Options{MissingFixes: s.missing})
	got := ""
	var re *RejectError
	if errors.As(res.Err, &re) {
		got = lastLine(re.Msg)
	} else if res.Err != nil {
		got = res.Err.Error()
	}
	if res.Accepted == kres.Accepted && got == kres.Err && (!res.Accepted || res.Stats.InsnProcessed == kres.InsnProcessed) {
		return
	}
	s.differ++
	var mdesc []string
	for _, m := range maps {
		mdesc = append(mdesc, maDescribe(m))
	}
	what = fmt.Sprintf("%v, %s\nmaps: %s\n%s", lt, what, strings.Join(mdesc, "; "), listing(insns))
	switch {
	case res.Accepted && !kres.Accepted:
		s.t.Errorf("FALSE ACCEPT %s\nkernel %q, vercheck accepts", what, kres.Err)
	case kres.Accepted && !res.Accepted:
		s.t.Errorf("false reject %s\nkernel accepts, vercheck %q", what, got)
	case res.Accepted:
		s.t.Errorf("insn_processed %s\nvercheck %d, kernel %d", what, res.Stats.InsnProcessed, kres.InsnProcessed)
	default:
		s.t.Errorf("message %s\nkernel %q, vercheck %q", what, kres.Err, got)
	}
}

// maDescribe renders a map definition for a report.
func maDescribe(m *loader.Map) string {
	s := fmt.Sprintf("%s %v key %d value %d entries %d flags %#x", m.Name, m.Type, m.KeySize, m.ValueSize, m.MaxEntries, m.Flags)
	if m.Contents != nil {
		s += fmt.Sprintf(" contents % x", m.Contents)
	}
	if m.Inner != nil {
		s += " inner {" + maDescribe(m.Inner) + "}"
	}
	if m.Spec != nil {
		if st, ok := m.Spec.Value.(*btf.Struct); ok {
			var fs []string
			for _, f := range st.Members {
				fs = append(fs, fmt.Sprintf("%s %s@%d", f.Type.TypeName(), f.Name, f.Offset/8))
			}
			s += " value struct {" + strings.Join(fs, "; ") + "}"
		}
	}
	return s
}

// maJump is a conditional jump of off instructions.
func maJump(ins asm.Instruction, off int16) asm.Instruction {
	ins.Offset = off
	return ins
}

// maKeyAndLookup zeroes the key slot fp-8 and puts the value of map 0 at
// key 0 into r6, exiting with 0 when there is none.
func maKeyAndLookup() asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.LoadMapPtr(asm.R1, 0),
		asm.FnMapLookupElem.Call(),
		maJump(asm.JNE.Imm(asm.R0, 0, ""), 2),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		asm.Mov.Reg(asm.R6, asm.R0),
	}
}

// maKeyAndDirect zeroes the key slot and puts the address of map 0's
// value at off into r6 (BPF_PSEUDO_MAP_VALUE).
func maKeyAndDirect(off uint32) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord),
		asm.LoadMapValue(asm.R6, 0, off),
	}
}

// maStoreImm is "*(size *)(r6 + off) = imm"; asm.StoreImm refuses the
// double word the instruction set has.
func maStoreImm(off int, imm int64, sz asm.Size) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(sz), Dst: asm.R6, Offset: int16(off), Constant: imm}
}

// maAccess is an access through r6, the map value pointer.
type maAccess struct {
	name  string
	insns asm.Instructions
}

var maSizes = []asm.Size{asm.Byte, asm.Half, asm.Word, asm.DWord}

// maPlainAccesses are the accesses of the first part of the sweep on a
// value of vs bytes: loads of every width at the start, the last place
// they fit and one byte past, sign-extending loads, stores of registers
// and immediates, atomics, helpers writing into the value and reading from
// it, and accesses at a constant and a variable register offset.
func maPlainAccesses(vs int) []maAccess {
	var out []maAccess
	add := func(name string, insns ...asm.Instruction) {
		out = append(out, maAccess{name, insns})
	}
	for _, sz := range maSizes {
		w := sz.Sizeof()
		for _, off := range []int{0, vs - w, vs - w + 1} {
			add(fmt.Sprintf("ldx %d at %d", w, off), asm.LoadMem(asm.R1, asm.R6, int16(off), sz))
			if sz != asm.DWord {
				add(fmt.Sprintf("ldsx %d at %d", w, off), asm.LoadMemSX(asm.R1, asm.R6, int16(off), sz))
			}
		}
		for _, off := range []int{0, vs - w + 1} {
			add(fmt.Sprintf("stx %d at %d", w, off), asm.Mov.Imm(asm.R1, 1), asm.StoreMem(asm.R6, int16(off), asm.R1, sz))
		}
		if sz == asm.Half || sz == asm.DWord {
			for _, off := range []int{0, vs - w + 1} {
				add(fmt.Sprintf("st %d at %d", w, off), maStoreImm(off, 7, sz))
			}
		}
	}
	for _, sz := range maSizes {
		w := sz.Sizeof()
		for _, off := range []int{-w, 0, 1, vs - w, vs - w + 1} {
			if off == 1 && w == 1 {
				continue
			}
			add(fmt.Sprintf("load-acquire %d at %d", w, off), atomicInsn(asm.LoadAcquire(asm.R1, asm.R6, sz, int16(off))))
		}
		for _, off := range []int{0, 1, vs - w + 1} {
			add(fmt.Sprintf("store-release %d at %d", w, off),
				asm.Mov.Imm(asm.R1, 1), atomicInsn(asm.StoreRelease(asm.R6, asm.R1, sz, int16(off))))
		}
		add(fmt.Sprintf("ldx %d at %d", w, -w), asm.LoadMem(asm.R1, asm.R6, int16(-w), sz))
	}
	add("r6 += 1<<29", asm.Add.Imm(asm.R6, 1<<29))
	add("r6 += (1<<29)-1; r6 += -((1<<29)-1); ldx 1 at 0", asm.Add.Imm(asm.R6, 1<<29-1), asm.Add.Imm(asm.R6, -(1<<29-1)),
		asm.LoadMem(asm.R1, asm.R6, 0, asm.Byte))
	add("r1 = -(1<<29); r6 += r1", asm.Mov.Imm(asm.R1, -(1<<29)), asm.Add.Reg(asm.R6, asm.R1))
	add("ldx 1 at 32767", asm.LoadMem(asm.R1, asm.R6, 32767, asm.Byte))
	add("ldx 1 at -32768", asm.LoadMem(asm.R1, asm.R6, -32768, asm.Byte))
	add("r6 += 20; ldx 1 at -5", asm.Add.Imm(asm.R6, 20), asm.LoadMem(asm.R1, asm.R6, -5, asm.Byte))
	add("r6 += -4; ldsx 2 at 4", asm.Add.Imm(asm.R6, -4), asm.LoadMemSX(asm.R1, asm.R6, 4, asm.Half))
	atomic := func(name string, op asm.AtomicOp, sz asm.Size, off int) {
		add(fmt.Sprintf("%s %d at %d", name, sz.Sizeof(), off),
			asm.Mov.Imm(asm.R0, 0), asm.Mov.Imm(asm.R1, 1), atomicInsn(op.Mem(asm.R6, asm.R1, sz, int16(off))))
	}
	atomic("atomic add", asm.AddAtomic, asm.DWord, 0)
	atomic("atomic add", asm.AddAtomic, asm.Word, vs-4)
	atomic("atomic add", asm.AddAtomic, asm.DWord, vs-7)
	atomic("atomic fetch add", asm.FetchAdd, asm.DWord, vs-8)
	atomic("atomic xchg", asm.Xchg, asm.DWord, 0)
	atomic("atomic xchg", asm.Xchg, asm.Word, vs-4)
	atomic("atomic cmpxchg", asm.CmpXchg, asm.DWord, vs-8)
	atomic("atomic cmpxchg", asm.CmpXchg, asm.DWord, vs)
	helper := func(name string, insns ...asm.Instruction) { add(name, insns...) }
	for _, c := range []struct{ off, size int32 }{{0, int32(vs)}, {int32(vs) / 2, int32(vs)/2 + 1}} {
		helper(fmt.Sprintf("bpf_probe_read_kernel(value+%d, %d, NULL)", c.off, c.size),
			asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, c.off), asm.Mov.Imm(asm.R2, c.size), asm.Mov.Imm(asm.R3, 0),
			asm.FnProbeReadKernel.Call())
		helper(fmt.Sprintf("bpf_trace_printk(value+%d, %d)", c.off, c.size),
			asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, c.off), asm.Mov.Imm(asm.R2, c.size), asm.FnTracePrintk.Call())
	}
	for _, off := range []int32{0, 1} {
		helper(fmt.Sprintf("bpf_get_current_comm(value+%d, %d)", off, vs),
			asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, off), asm.Mov.Imm(asm.R2, int32(vs)), asm.FnGetCurrentComm.Call())
		helper(fmt.Sprintf("bpf_map_update_elem(map, fp-8, value+%d, 0)", off),
			asm.LoadMapPtr(asm.R1, 0), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.Mov.Reg(asm.R3, asm.R6), asm.Add.Imm(asm.R3, off), asm.Mov.Imm(asm.R4, 0), asm.FnMapUpdateElem.Call())
	}
	for _, off := range []int32{0, 4, 8} {
		helper(fmt.Sprintf("bpf_snprintf(NULL, 0, value+%d, NULL, 0)", off),
			asm.Mov.Imm(asm.R1, 0), asm.Mov.Imm(asm.R2, 0), asm.Mov.Reg(asm.R3, asm.R6), asm.Add.Imm(asm.R3, off),
			asm.Mov.Imm(asm.R4, 0), asm.Mov.Imm(asm.R5, 0), asm.FnSnprintf.Call())
	}
	// A constant offset through a register: the value pointer's off.
	add("r6 += 4 (reg); ldx 4 at 0; if r1 != 0x6261 goto bad",
		asm.Mov.Imm(asm.R1, 4), asm.Add.Reg(asm.R6, asm.R1), asm.LoadMem(asm.R1, asm.R6, 0, asm.Word),
		maJump(asm.JNE.Imm(asm.R1, 0x6261, ""), 2), asm.Mov.Imm(asm.R0, 0), asm.Return(),
		asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord))
	add("r6 += 12 (reg); ldx 8 at -4",
		asm.Mov.Imm(asm.R1, 12), asm.Add.Reg(asm.R6, asm.R1), asm.LoadMem(asm.R1, asm.R6, -4, asm.DWord))
	// A variable offset: var_off's bounds against the value size.
	random := func(mask int32) asm.Instructions {
		return asm.Instructions{asm.FnGetPrandomU32.Call(), asm.And.Imm(asm.R0, mask), asm.Add.Reg(asm.R6, asm.R0)}
	}
	add("r6 += rand & 8; ldx 8 at 0", append(random(8), asm.LoadMem(asm.R1, asm.R6, 0, asm.DWord))...)
	add("r6 += rand & 8; ldx 8 at 1", append(random(8), asm.LoadMem(asm.R1, asm.R6, 1, asm.DWord))...)
	add("r6 += rand & 7; stx 8 at 8", append(random(7), asm.Mov.Imm(asm.R1, 1), asm.StoreMem(asm.R6, 8, asm.R1, asm.DWord))...)
	add("r6 += rand; ldx 1 at 0", asm.FnGetPrandomU32.Call(), asm.Add.Reg(asm.R6, asm.R0), asm.LoadMem(asm.R1, asm.R6, 0, asm.Byte))
	add("r6 += (s64)(rand << 32) s>> 40; ldx 1 at 0", asm.FnGetPrandomU32.Call(), asm.LSh.Imm(asm.R0, 32),
		asm.ArSh.Imm(asm.R0, 40), asm.Add.Reg(asm.R6, asm.R0), asm.LoadMem(asm.R1, asm.R6, 0, asm.Byte))
	add("r6 -= rand & 3; ldx 1 at 4", asm.FnGetPrandomU32.Call(), asm.And.Imm(asm.R0, 3), asm.Sub.Reg(asm.R6, asm.R0),
		asm.LoadMem(asm.R1, asm.R6, 4, asm.Byte))
	// Pointers stored into the value (root may leak addresses).
	add("stx 8 at 0 = r6", asm.StoreMem(asm.R6, 0, asm.R6, asm.DWord))
	add("stx 8 at 8 = r10", asm.StoreMem(asm.R6, 8, asm.RFP, asm.DWord))
	add("atomic xchg 8 at 0 = r10", asm.Mov.Reg(asm.R1, asm.RFP), atomicInsn(asm.Xchg.Mem(asm.R6, asm.R1, asm.DWord, 0)))
	// The value pointer through a stack spill and a static subprogram:
	// a frozen value's bytes stay constants there.
	add("spill r6, fill r7; r1 = *(u8 *)(r7 + 1); if r1 != 0x80 goto bad",
		asm.StoreMem(asm.RFP, -16, asm.R6, asm.DWord), asm.LoadMem(asm.R7, asm.RFP, -16, asm.DWord),
		asm.LoadMem(asm.R1, asm.R7, 1, asm.Byte), maJump(asm.JNE.Imm(asm.R1, 0x80, ""), 2),
		asm.Mov.Imm(asm.R0, 0), asm.Return(), asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord))
	add("call f(r6); f: r2 = *(u16 *)(r1 + 4); if r2 != 0x6261 goto bad",
		asm.Mov.Reg(asm.R1, asm.R6), asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall, Constant: 2},
		asm.Mov.Imm(asm.R0, 0), asm.Return(),
		asm.LoadMem(asm.R2, asm.R1, 4, asm.Half), maJump(asm.JNE.Imm(asm.R2, 0x6261, ""), 2),
		asm.Mov.Imm(asm.R0, 0), asm.Return(), asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord))
	return out
}

// maProgram is the program that puts the value into r6 (base), runs the
// access and exits with 0.
func maProgram(base, access asm.Instructions) asm.Instructions {
	insns := append(asm.Instructions{}, base...)
	insns = append(insns, access...)
	return append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
}

// maTypes are the program types of the sweep.
var maTypes = []protoLiveType{
	{pt: ebpf.SchedCLS}, {pt: ebpf.XDP}, {pt: ebpf.SocketFilter}, {pt: ebpf.Kprobe}, {pt: ebpf.TracePoint},
}

// TestMapAccessLiveKernel loads accesses to map values into tc, XDP,
// socket filter, kprobe and tracepoint programs (and sleepable syscall and
// task iterator programs where the map type matters) and compares verdict,
// decisive message and insn_processed with the running kernel. Map values
// are where a program keeps state across runs, so an access the kernel
// would refuse and vercheck lets through (past the value, into a
// read-only map, over a lock, or down a branch the kernel knows is taken)
// is a false accept of the worst kind. The kernel code under test is:
//
//   - check_map_access_type: writes into a BPF_F_RDONLY_PROG map (and a
//     frozen .rodata), reads from a BPF_F_WRONLY_PROG one (BPF_F_RDONLY,
//     BPF_F_WRONLY and BPF_F_MMAPABLE, which restrict user space only, as
//     controls), by load, sign-extending load, store, immediate store,
//     atomic, load-acquire and store-release, and through helper arguments
//     (check_helper_mem_access); also for an inner map's template flags;
//   - check_map_access and check_mem_region_access: the value size edges
//     of every width (value sizes 16 and 13), negative and largest insn
//     offsets, constant, bounded, unbounded and negative variable offsets
//     and the BPF_MAX_VAR_OFF pointer limits, from a lookup and from a
//     BPF_PSEUDO_MAP_VALUE address (and the map types that have none),
//     with and without BPF_F_STRICT_ALIGNMENT;
//   - bpf_map_direct_read: a load at a constant offset from a frozen
//     read-only array is a known constant of the load's width, zero- or
//     sign-extended (a .data with the same bytes is not), which then
//     decides a branch to an invalid stack read, for each width and signed
//     and unsigned 64- and 32-bit compares, with bytes at the sign edges
//     (0x7f, 0x80, 0xff): a wrong constant or width takes the wrong edge,
//     a false accept. Also through a stack spill, a static subprogram, a
//     bpf_for_each_map_elem callback's value argument, and on two paths
//     joined before the branch (the precision that keeps pruning from
//     skipping the second); and bpf_snprintf's ARG_PTR_TO_CONST_STR, which
//     reads the same bytes;
//   - check_map_prog_compatibility: a map whose value holds a
//     bpf_spin_lock (socket filter and tracing programs), a bpf_timer or a
//     bpf_wq (tracing programs), and the map types a sleepable program may
//     name;
//   - the special field rule of check_map_access: a load, store, atomic or
//     helper access overlapping a bpf_spin_lock, bpf_timer or bpf_wq is
//     refused ("%s cannot be accessed directly by load/store"), an adjacent
//     one is not; the kptr rules (check_map_kptr_access: size, alignment,
//     instruction mode, referenced and untrusted stores, helpers), and the
//     offsets process_spin_lock, process_timer_func and bpf_kptr_xchg check;
//   - get_constant_map_key: the NULL-ness a constant in-range array key
//     elides from bpf_map_lookup_elem's result.
//
// The default run samples the matrix (about 8000 programs, 20 seconds);
// VERCHECK_MAPACCESS_ALL=1 runs all of it (about 60000), and
// VERCHECK_MAPACCESS_DEBUG=1 logs the kernel's messages and why it gave no
// verdict.
func TestMapAccessLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	s := &mapAccessSweep{t: t, missing: missing, all: os.Getenv("VERCHECK_MAPACCESS_ALL") != "",
		messages: map[string]int{}, notLoaded: map[string]int{}}
	for _, part := range []struct {
		name string
		run  func(*mapAccessSweep)
	}{
		{"access types and sizes", maPlainSweep}, {"direct reads deciding branches", maBranchSweep},
		{"special fields", maFieldSweep}, {"for_each_map_elem callbacks", maCallbackSweep},
		{"direct reads on joined paths", maJoinSweep},
		{"lookup nullness", maNullnessSweep}, {"inner maps", maInnerSweep},
		{"sleepable map types", maSleepableSweep},
	} {
		n, compared, differ := s.n, s.compared, s.differ
		part.run(s)
		t.Logf("%s: %d of %d programs compared, %d differ", part.name, s.compared-compared, s.n-n, s.differ-differ)
	}
	if os.Getenv("VERCHECK_MAPACCESS_DEBUG") != "" {
		for m, n := range s.messages {
			t.Logf("kernel %5d %q", n, m)
		}
		for m, n := range s.notLoaded {
			t.Logf("no verdict %5d %q", n, m)
		}
	}
	if s.compared == 0 {
		t.Skipf("the kernel gave no verdict on any program (%d not loaded)", s.noVerdict)
	}
	t.Logf("%d programs compared (%d accepted by the kernel), %d differ; %d of %d built without a kernel verdict",
		s.compared, s.accepted, s.differ, s.noVerdict, s.n)
	if s.accepted == 0 || s.accepted == s.compared {
		t.Errorf("the kernel accepted %d of %d programs: the sweep tests nothing", s.accepted, s.compared)
	}
}

// maPlainTypes are the program types of the first part: those of the
// sweep and tc with BPF_F_STRICT_ALIGNMENT.
var maPlainTypes = append(append([]protoLiveType{}, maTypes...), protoLiveType{pt: ebpf.SchedCLS, flags: maStrictAlignment})

// maStrictAlignment is BPF_F_STRICT_ALIGNMENT.
const maStrictAlignment = 1 << 0

// maPlainSweep is the first part: map types × flags × accesses × bases ×
// program types.
func maPlainSweep(s *mapAccessSweep) {
	var maps []*loader.Map
	for _, mt := range []struct {
		typ ebpf.MapType
		max uint32
	}{{ebpf.Array, 1}, {ebpf.Hash, 4}, {ebpf.PerCPUArray, 1}, {ebpf.LRUHash, 4}} {
		for _, flags := range []uint32{0, maRdonlyProg, maWronlyProg} {
			maps = append(maps, &loader.Map{Name: "m", Type: mt.typ, KeySize: 4, ValueSize: maValueSize,
				MaxEntries: mt.max, Flags: flags, ReadOnly: flags&maRdonlyProg != 0})
		}
	}
	// The flags that restrict user space, not programs: BPF_F_RDONLY,
	// BPF_F_WRONLY, and an mmapable array.
	for _, flags := range []uint32{maRdonly, maWronly, maMmapable} {
		maps = append(maps, &loader.Map{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize,
			MaxEntries: 1, Flags: flags})
	}
	// An odd value size.
	for _, flags := range []uint32{0, maRdonlyProg, maWronlyProg} {
		maps = append(maps, &loader.Map{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: 13,
			MaxEntries: 1, Flags: flags, ReadOnly: flags&maRdonlyProg != 0})
	}
	maps = append(maps, &loader.Map{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: 13,
		MaxEntries: 1, Flags: maRdonlyProg, ReadOnly: true, Contents: maRodata[:13]})
	// As the loader makes a .rodata section: BPF_F_RDONLY_PROG, one
	// element, frozen with its contents (cilium/ebpf freezes it by name).
	maps = append(maps, &loader.Map{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize,
		MaxEntries: 1, Flags: maRdonlyProg, ReadOnly: true, Contents: maRodata})
	// The same, mmapable, as libbpf creates it.
	maps = append(maps, &loader.Map{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize,
		MaxEntries: 1, Flags: maRdonlyProg | maMmapable, ReadOnly: true, Contents: maRodata})
	// A .data section: contents, but neither read-only nor frozen.
	maps = append(maps, &loader.Map{Name: ".data", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize,
		MaxEntries: 1, Contents: maRodata})
	for _, m := range maps {
		accesses := maPlainAccesses(int(m.ValueSize))
		bases := []maAccess{{"lookup", maKeyAndLookup()}}
		if m.Type == ebpf.Array || m.Type == ebpf.PerCPUArray {
			bases = append(bases, maAccess{"direct value+0", maKeyAndDirect(0)}, maAccess{"direct value+4", maKeyAndDirect(4)})
		}
		for _, b := range bases {
			for _, a := range accesses {
				for _, lt := range maPlainTypes {
					if !s.sample(9) {
						continue
					}
					s.check(fmt.Sprintf("%s, %s", b.name, a.name), lt, []*loader.Map{m}, maProgram(b.insns, a.insns))
				}
			}
		}
	}
}

// maBranchSweep is the second part: a frozen .rodata holding bytes at the
// sign edges (and, as a control, a .data holding the same bytes, which the
// kernel neither freezes nor reads), a load of every width, zero- or
// sign-extended or load-acquire, at a constant offset reached through the
// instruction's offset or the pointer's, optionally truncated to 32 bits,
// and a conditional jump on it to an invalid stack read.
func maBranchSweep(s *mapAccessSweep) {
	fill := func(b byte) []byte { return bytes.Repeat([]byte{b}, maValueSize) }
	patterns := map[string][]byte{"7f": fill(0x7f), "80": fill(0x80), "ff": fill(0xff), "00": fill(0),
		"mixed": {0x7f, 0x80, 0xff, 0x00, 0x01, 0x7f, 0x80, 0xff, 0xff, 0x00, 0x80, 0x7f, 0x00, 0xff, 0x7f, 0x80}}
	type load struct {
		name string
		sz   asm.Size
		mode int // 0 zero-extending, 1 sign-extending, 2 load-acquire
	}
	var loads []load
	for _, sz := range maSizes {
		w := sz.Sizeof() * 8
		loads = append(loads, load{fmt.Sprintf("u%d", w), sz, 0}, load{fmt.Sprintf("acquire u%d", w), sz, 2})
		if sz != asm.DWord {
			loads = append(loads, load{fmt.Sprintf("s%d", w), sz, 1})
		}
	}
	type jump struct {
		op   asm.JumpOp
		is32 bool
	}
	jumps := []jump{{asm.JEq, false}, {asm.JGT, false}, {asm.JSGT, false}, {asm.JSLT, false},
		{asm.JGT, true}, {asm.JSGT, true}, {asm.JEq, true}}
	ks := []int32{0, 0x7e, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, -0x80, -1}
	for _, pname := range []string{"7f", "80", "ff", "00", "mixed"} {
		rodata := &loader.Map{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize,
			MaxEntries: 1, Flags: maRdonlyProg, ReadOnly: true, Contents: patterns[pname]}
		data := &loader.Map{Name: ".data", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize,
			MaxEntries: 1, Contents: patterns[pname]}
		for _, l := range loads {
			w := l.sz.Sizeof()
			for _, off := range []int{0, 3, maValueSize - w} {
				for _, j := range jumps {
					for _, k := range ks {
						if !s.sample(13) {
							continue
						}
						// The base, the map and the 32-bit truncation
						// follow the sample, the program type too.
						m := rodata
						if s.n%11 == 0 {
							m = data
						}
						ldOff := int16(off)
						var base asm.Instructions
						var bname string
						switch s.n % 3 {
						case 0:
							base, bname = maKeyAndLookup(), "lookup"
						case 1:
							base, bname = maKeyAndDirect(0), "direct value+0"
						default:
							base, bname, ldOff = maKeyAndDirect(uint32(off)), fmt.Sprintf("direct value+%d", off), 0
						}
						lt := maTypes[(s.n/3)%len(maTypes)]
						var body asm.Instructions
						switch l.mode {
						case 0:
							body = append(body, asm.LoadMem(asm.R1, asm.R6, ldOff, l.sz))
						case 1:
							body = append(body, asm.LoadMemSX(asm.R1, asm.R6, ldOff, l.sz))
						default:
							body = append(body, atomicInsn(asm.LoadAcquire(asm.R1, asm.R6, l.sz, ldOff)))
						}
						trunc := ""
						if s.n%7 == 0 {
							body, trunc = append(body, asm.Mov.Reg32(asm.R1, asm.R1)), "; w1 = w1"
						}
						jmp := j.op.Imm(asm.R1, k, "")
						w32 := ""
						if j.is32 {
							jmp, w32 = j.op.Imm32(asm.R1, k, ""), "32"
						}
						body = append(body, maJump(jmp, 2), asm.Mov.Imm(asm.R0, 0), asm.Return(),
							asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord))
						what := fmt.Sprintf("%s %s, %s, r1 = *(%s *)(r6%+d)%s; if r1 %v%s %#x goto bad",
							m.Name, pname, bname, l.name, ldOff, trunc, j.op, w32, k)
						s.check(what, lt, []*loader.Map{m}, maProgram(base, body))
					}
				}
			}
		}
	}
}

// maJoinSweep loads two different constants of a frozen .rodata on two
// paths that join before a branch on them: the branch decided on the
// first path must make the register precise (the jump's mark_chain_precision,
// backtracking through the load), or the second path, which decides it the
// other way, is pruned: a false accept if that way is an invalid access.
func maJoinSweep(s *mapAccessSweep) {
	m := &loader.Map{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize, MaxEntries: 1,
		Flags: maRdonlyProg, ReadOnly: true, Contents: maRodata}
	type load struct {
		name string
		ins  func(off int16) asm.Instruction
	}
	loads := []load{
		{"u8", func(off int16) asm.Instruction { return asm.LoadMem(asm.R1, asm.R6, off, asm.Byte) }},
		{"s8", func(off int16) asm.Instruction { return asm.LoadMemSX(asm.R1, asm.R6, off, asm.Byte) }},
		{"u16", func(off int16) asm.Instruction { return asm.LoadMem(asm.R1, asm.R6, off, asm.Half) }},
		{"s32", func(off int16) asm.Instruction { return asm.LoadMemSX(asm.R1, asm.R6, off, asm.Word) }},
		{"u64", func(off int16) asm.Instruction { return asm.LoadMem(asm.R1, asm.R6, off, asm.DWord) }},
	}
	pairs := [][2]int16{{0, 1}, {1, 0}, {1, 2}, {2, 3}, {3, 2}, {0, 8}, {8, 0}}
	jumps := []struct {
		name string
		ins  func(k int32) asm.Instruction
	}{
		{">", func(k int32) asm.Instruction { return asm.JGT.Imm(asm.R1, k, "") }},
		{"s>", func(k int32) asm.Instruction { return asm.JSGT.Imm(asm.R1, k, "") }},
		{"==", func(k int32) asm.Instruction { return asm.JEq.Imm(asm.R1, k, "") }},
	}
	for _, l := range loads {
		for _, pr := range pairs {
			if l.name == "u64" && (pr[0] > 8 || pr[1] > 8) {
				continue
			}
			for _, j := range jumps {
				for _, k := range []int32{0x7f, 0x80, 0, -1, 0xff} {
					if !s.sample(3) {
						continue
					}
					body := asm.Instructions{
						asm.FnGetPrandomU32.Call(),
						maJump(asm.JEq.Imm(asm.R0, 0, ""), 2),
						l.ins(pr[0]),
						maJump(asm.Ja.Imm(asm.R0, 0, ""), 1),
						l.ins(pr[1]),
						maJump(j.ins(k), 2), asm.Mov.Imm(asm.R0, 0), asm.Return(),
						asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord),
					}
					what := fmt.Sprintf("r1 = rand != 0 ? *(%s *)(value+%d) : *(%s *)(value+%d); if r1 %s %#x goto bad",
						l.name, pr[0], l.name, pr[1], j.name, k)
					s.check(what, maTypes[s.n%len(maTypes)], []*loader.Map{m}, maProgram(maKeyAndLookup(), body))
				}
			}
		}
	}
}

// maField is a map value holding one special field.
type maField struct {
	name      string
	kind      string // lock, timer, wq, kptr, kptr_untrusted
	off, size int    // the field's place in the value
	vs        int    // the value size
	value     *btf.Struct
}

// maFields are the values of the special field part: a bpf_spin_lock at 0
// and at 4, a bpf_timer, a bpf_wq and a referenced and an untrusted kptr
// to task_struct at 8.
func maFields() []maField {
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4, Members: []btf.Member{{Name: "val", Type: u32}}}
	opaque := func(name string) *btf.Struct {
		return &btf.Struct{Name: name, Size: 16, Members: []btf.Member{
			{Name: "__opaque", Type: &btf.Array{Index: u32, Type: u64, Nelems: 2}}}}
	}
	kptr := func(tag string) *btf.Struct {
		p := &btf.Pointer{Target: &btf.TypeTag{Value: tag, Type: &btf.Struct{Name: "task_struct"}}}
		return &btf.Struct{Name: tag + "8", Size: 24, Members: []btf.Member{
			{Name: "a", Type: u64}, {Name: "p", Type: p, Offset: 64}, {Name: "b", Type: u64, Offset: 128}}}
	}
	return []maField{
		{"bpf_spin_lock at 0", "lock", 0, 4, 16, &btf.Struct{Name: "lock0", Size: 16, Members: []btf.Member{
			{Name: "l", Type: lock}, {Name: "a", Type: u32, Offset: 32}, {Name: "b", Type: u64, Offset: 64}}}},
		{"bpf_spin_lock at 4", "lock", 4, 4, 16, &btf.Struct{Name: "lock4", Size: 16, Members: []btf.Member{
			{Name: "a", Type: u32}, {Name: "l", Type: lock, Offset: 32}, {Name: "b", Type: u64, Offset: 64}}}},
		{"bpf_timer at 8", "timer", 8, 16, 32, &btf.Struct{Name: "timer8", Size: 32, Members: []btf.Member{
			{Name: "a", Type: u64}, {Name: "t", Type: opaque("bpf_timer"), Offset: 64}, {Name: "b", Type: u64, Offset: 192}}}},
		{"bpf_wq at 8", "wq", 8, 16, 32, &btf.Struct{Name: "wq8", Size: 32, Members: []btf.Member{
			{Name: "a", Type: u64}, {Name: "w", Type: opaque("bpf_wq"), Offset: 64}, {Name: "b", Type: u64, Offset: 192}}}},
		{"__kptr task_struct at 8", "kptr", 8, 8, 24, kptr("kptr")},
		{"__kptr_untrusted task_struct at 8", "kptr_untrusted", 8, 8, 24, kptr("kptr_untrusted")},
	}
}

// maFieldAccesses are the accesses of the special field part: loads,
// stores and atomics of every width just before, overlapping the edges of
// and just after the field, helpers reading and writing the whole value
// and the field, a variable offset reaching the field, and the field's own
// helpers at its offset and at another.
func maFieldAccesses(f maField) []maAccess {
	var out []maAccess
	add := func(name string, insns ...asm.Instruction) {
		out = append(out, maAccess{name, insns})
	}
	for _, sz := range maSizes {
		w := sz.Sizeof()
		seen := map[int]bool{}
		for _, off := range []int{f.off - w, f.off - w + 1, f.off, f.off + f.size - 1, f.off + f.size} {
			if off < 0 || off > f.vs-w || seen[off] {
				continue
			}
			seen[off] = true
			add(fmt.Sprintf("ldx %d at %d", w, off), asm.LoadMem(asm.R1, asm.R6, int16(off), sz))
			add(fmt.Sprintf("stx %d at %d", w, off), asm.Mov.Imm(asm.R1, 1), asm.StoreMem(asm.R6, int16(off), asm.R1, sz))
			add(fmt.Sprintf("st %d at %d", w, off), maStoreImm(off, 1, sz))
			if sz != asm.DWord {
				add(fmt.Sprintf("ldsx %d at %d", w, off), asm.LoadMemSX(asm.R1, asm.R6, int16(off), sz))
			}
			if off%w == 0 {
				add(fmt.Sprintf("load-acquire %d at %d", w, off), atomicInsn(asm.LoadAcquire(asm.R1, asm.R6, sz, int16(off))))
				add(fmt.Sprintf("store-release %d at %d", w, off),
					asm.Mov.Imm(asm.R1, 0), atomicInsn(asm.StoreRelease(asm.R6, asm.R1, sz, int16(off))))
			}
			if w >= 4 && off%w == 0 {
				add(fmt.Sprintf("atomic add %d at %d", w, off),
					asm.Mov.Imm(asm.R1, 1), atomicInsn(asm.AddAtomic.Mem(asm.R6, asm.R1, sz, int16(off))))
			}
		}
	}
	add("bpf_probe_read_kernel(value+field, field size, NULL)",
		asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, int32(f.off)), asm.Mov.Imm(asm.R2, int32(f.size)),
		asm.Mov.Imm(asm.R3, 0), asm.FnProbeReadKernel.Call())
	add("bpf_probe_read_kernel(value, value size, NULL)",
		asm.Mov.Reg(asm.R1, asm.R6), asm.Mov.Imm(asm.R2, int32(f.vs)), asm.Mov.Imm(asm.R3, 0), asm.FnProbeReadKernel.Call())
	add("bpf_probe_read_kernel(value+field end, rest, NULL)",
		asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, int32(f.off+f.size)), asm.Mov.Imm(asm.R2, int32(f.vs-f.off-f.size)),
		asm.Mov.Imm(asm.R3, 0), asm.FnProbeReadKernel.Call())
	add("bpf_map_update_elem(map, fp-8, value, 0)",
		asm.LoadMapPtr(asm.R1, 0), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
		asm.Mov.Reg(asm.R3, asm.R6), asm.Mov.Imm(asm.R4, 0), asm.FnMapUpdateElem.Call())
	add("bpf_trace_printk(value, value size)",
		asm.Mov.Reg(asm.R1, asm.R6), asm.Mov.Imm(asm.R2, int32(f.vs)), asm.FnTracePrintk.Call())
	add("r6 += rand & 4; ldx 4 at field-4 (or 0)",
		asm.FnGetPrandomU32.Call(), asm.And.Imm(asm.R0, 4), asm.Add.Reg(asm.R6, asm.R0),
		asm.LoadMem(asm.R1, asm.R6, int16(max(f.off-4, 0)), asm.Word))
	other := f.off ^ 4
	if f.size >= 8 {
		other = 0
	}
	for _, off := range []int{f.off, other} {
		switch f.kind {
		case "lock":
			add(fmt.Sprintf("bpf_spin_lock(value+%d); bpf_spin_unlock(value+%d)", off, off),
				asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, int32(off)), asm.FnSpinLock.Call(),
				asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, int32(off)), asm.FnSpinUnlock.Call())
		case "timer":
			add(fmt.Sprintf("bpf_timer_init(value+%d, map, 1)", off),
				asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, int32(off)), asm.LoadMapPtr(asm.R2, 0),
				asm.Mov.Imm(asm.R3, 1), asm.FnTimerInit.Call())
		case "kptr", "kptr_untrusted":
			add(fmt.Sprintf("bpf_kptr_xchg(value+%d, NULL)", off),
				asm.Mov.Reg(asm.R1, asm.R6), asm.Add.Imm(asm.R1, int32(off)), asm.Mov.Imm(asm.R2, 0),
				asm.FnKptrXchg.Call())
		}
	}
	if strings.HasPrefix(f.kind, "kptr") {
		fo := int16(f.off)
		add("r1 = kptr; if r1 == 0 goto out; r2 = *(u32 *)(r1 + 0)",
			asm.LoadMem(asm.R1, asm.R6, fo, asm.DWord), maJump(asm.JEq.Imm(asm.R1, 0, ""), 1),
			asm.LoadMem(asm.R2, asm.R1, 0, asm.Word))
		add("r1 = kptr; *(u64 *)(r6 + 0) = r1",
			asm.LoadMem(asm.R1, asm.R6, fo, asm.DWord), asm.StoreMem(asm.R6, 0, asm.R1, asm.DWord))
		add("r1 = kptr; *(u64 *)(r6 + kptr) = r1",
			asm.LoadMem(asm.R1, asm.R6, fo, asm.DWord), asm.StoreMem(asm.R6, fo, asm.R1, asm.DWord))
		add("*(u64 *)(r6 + kptr) = r6 (a map value)", asm.StoreMem(asm.R6, fo, asm.R6, asm.DWord))
		add("r1 = 0; *(u64 *)(r6 + kptr) = r1", asm.Mov.Imm(asm.R1, 0), asm.StoreMem(asm.R6, fo, asm.R1, asm.DWord))
		add("*(u64 *)(r6 + kptr) = 0", maStoreImm(f.off, 0, asm.DWord))
		add("r1 = kptr; r1 += 8", asm.LoadMem(asm.R1, asm.R6, fo, asm.DWord), asm.Add.Imm(asm.R1, 8))
		add("atomic xchg 8 at kptr", asm.Mov.Imm(asm.R1, 0), atomicInsn(asm.Xchg.Mem(asm.R6, asm.R1, asm.DWord, fo)))
	}
	return out
}

// maFieldSweep is the third part: values with a special field × map types
// × accesses × program types (and a sleepable syscall program).
func maFieldSweep(s *mapAccessSweep) {
	u32 := &btf.Int{Name: "u32", Size: 4}
	types := append(append([]protoLiveType{}, maTypes...), protoLiveType{pt: ebpf.Syscall, flags: loader.FlagSleepable})
	for _, f := range maFields() {
		accesses := maFieldAccesses(f)
		for _, mt := range []struct {
			typ ebpf.MapType
			max uint32
		}{{ebpf.Array, 1}, {ebpf.Hash, 4}, {ebpf.LRUHash, 4}} {
			if mt.typ == ebpf.LRUHash && f.kind == "lock" {
				continue // map_check_btf: no bpf_spin_lock in an LRU hash (EOPNOTSUPP)
			}
			m := &loader.Map{Name: "m", Type: mt.typ, KeySize: 4, ValueSize: uint32(f.vs), MaxEntries: mt.max,
				Spec: &ebpf.MapSpec{Key: u32, Value: f.value}}
			for _, a := range accesses {
				for _, lt := range types {
					if !s.sample(5) {
						continue
					}
					s.check(fmt.Sprintf("%s, lookup, %s", f.name, a.name), lt, []*loader.Map{m},
						maProgram(maKeyAndLookup(), a.insns))
				}
			}
		}
		// (A map whose value has special fields may not be BPF_F_RDONLY_PROG
		// or BPF_F_WRONLY_PROG: map_check_btf refuses to create it.)
	}
}

// maCallbackSweep is the fourth part: bpf_for_each_map_elem's callback
// gets the value as a map value pointer at offset 0 (set_map_elem_callback_state),
// so a load from a frozen .rodata in it is a direct read too, which then
// decides a branch; and the access type and size rules hold there as in the
// main program.
func maCallbackSweep(s *mapAccessSweep) {
	mixed := []byte{0x7f, 0x80, 0xff, 0x00, 0x01, 0x7f, 0x80, 0xff, 0xff, 0x00, 0x80, 0x7f, 0x00, 0xff, 0x7f, 0x80}
	maps := []*loader.Map{
		{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize, MaxEntries: 1, Flags: maRdonlyProg,
			ReadOnly: true, Contents: mixed},
		{Name: ".data", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize, MaxEntries: 1, Contents: mixed},
		{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize, MaxEntries: 1, Flags: maRdonlyProg, ReadOnly: true},
		{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize, MaxEntries: 1, Flags: maWronlyProg},
		{Name: "m", Type: ebpf.Hash, KeySize: 4, ValueSize: maValueSize, MaxEntries: 4},
		{Name: "m", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: maValueSize, MaxEntries: 1},
	}
	var bodies []maAccess
	bad := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return(), asm.LoadMem(asm.R0, asm.RFP, 8, asm.DWord)}
	for _, sz := range maSizes {
		w := sz.Sizeof()
		for _, sx := range []bool{false, true} {
			if sx && sz == asm.DWord {
				continue
			}
			for _, off := range []int{1, maValueSize - w} {
				for _, j := range []struct {
					name string
					ins  asm.Instruction
				}{
					{"> 0x7f", asm.JGT.Imm(asm.R1, 0x7f, "")},
					{"s> 0", asm.JSGT.Imm(asm.R1, 0, "")},
					{"w s< 0", asm.JSLT.Imm32(asm.R1, 0, "")},
					{"== -1", asm.JEq.Imm(asm.R1, -1, "")},
				} {
					ld, kind := asm.LoadMem(asm.R1, asm.R3, int16(off), sz), "u"
					if sx {
						ld, kind = asm.LoadMemSX(asm.R1, asm.R3, int16(off), sz), "s"
					}
					body := append(asm.Instructions{ld, maJump(j.ins, 2)}, bad...)
					bodies = append(bodies, maAccess{fmt.Sprintf("r1 = *(%s%d *)(value+%d); if r1 %s goto bad", kind, w*8, off, j.name), body})
				}
			}
		}
	}
	bodies = append(bodies,
		maAccess{"ldx 8 at 9", asm.Instructions{asm.LoadMem(asm.R1, asm.R3, 9, asm.DWord)}},
		maAccess{"st 8 at 0", asm.Instructions{maStoreImm(0, 1, asm.DWord)}},
		maAccess{"atomic add 8 at 8", asm.Instructions{asm.Mov.Imm(asm.R1, 1), atomicInsn(asm.AddAtomic.Mem(asm.R3, asm.R1, asm.DWord, 8))}},
		maAccess{"bpf_probe_read_kernel(value, 16, NULL)", asm.Instructions{asm.Mov.Reg(asm.R1, asm.R3),
			asm.Mov.Imm(asm.R2, maValueSize), asm.Mov.Imm(asm.R3, 0), asm.FnProbeReadKernel.Call()}},
		maAccess{"ldx 4 at key", asm.Instructions{asm.LoadMem(asm.R1, asm.R2, 0, asm.Word)}},
		maAccess{"ldx 4 at key+1", asm.Instructions{asm.LoadMem(asm.R1, asm.R2, 1, asm.Word)}},
	)
	// The store of the immediate goes through r3: maStoreImm writes r6.
	for i := range bodies {
		for k := range bodies[i].insns {
			if ins := &bodies[i].insns[k]; ins.OpCode.Class() == asm.StClass && ins.Dst == asm.R6 {
				ins.Dst = asm.R3
			}
		}
	}
	intT := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	ptr := &btf.Pointer{Target: &btf.Void{}}
	for _, m := range maps {
		for _, b := range bodies {
			for _, lt := range []protoLiveType{{pt: ebpf.SchedCLS}, {pt: ebpf.Kprobe}} {
				if !s.sample(4) {
					continue
				}
				// r2 = the callback at slot 9: ld_imm64 at 2, so imm 6.
				insns := asm.Instructions{
					asm.LoadMapPtr(asm.R1, 0),
					{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: 6},
					asm.Mov.Imm(asm.R3, 0),
					asm.Mov.Imm(asm.R4, 0),
					asm.FnForEachMapElem.Call(),
					asm.Mov.Imm(asm.R0, 0),
					asm.Return(),
				}
				cb := append(asm.Instructions{}, b.insns...)
				cb = append(cb, asm.Mov.Imm(asm.R0, 0), asm.Return())
				// A callback needs BTF func info (check_ld_imm: "missing
				// btf func_info").
				insns[0] = btf.WithFuncMetadata(insns[0], &btf.Func{Name: "main", Linkage: btf.GlobalFunc,
					Type: &btf.FuncProto{Return: intT, Params: []btf.FuncParam{{Name: "ctx", Type: ptr}}}})
				cb[0] = btf.WithFuncMetadata(cb[0], &btf.Func{Name: "cb", Linkage: btf.StaticFunc,
					Type: &btf.FuncProto{Return: intT, Params: []btf.FuncParam{{Name: "map", Type: ptr},
						{Name: "key", Type: ptr}, {Name: "value", Type: ptr}, {Name: "ctx", Type: ptr}}}})
				insns = append(insns, cb...)
				s.check("bpf_for_each_map_elem callback: "+b.name, lt, []*loader.Map{m}, insns)
			}
		}
	}
}

// maNullnessSweep is the fifth part: bpf_map_lookup_elem on an array or
// per-CPU array with a constant key below max_entries returns a value that
// cannot be NULL (get_constant_map_key, can_elide_value_nullness): the key
// must be on the stack at a constant offset, either STACK_ZERO for the
// whole key or a spill of exactly the key's size holding a constant, which
// is then marked precise. Keys written every way (register and immediate
// stores of every size, zero and other constants, in and out of range,
// unaligned, partly overwritten, not constant, in a map value, and a
// constant differing on two paths that join before the lookup, where an
// imprecise key would let pruning skip the out-of-range one) are looked up
// and the value dereferenced with and without a NULL check.
func maNullnessSweep(s *mapAccessSweep) {
	st := func(off int16, v int64, sz asm.Size) asm.Instruction {
		return asm.Instruction{OpCode: asm.StoreImmOp(sz), Dst: asm.RFP, Offset: off, Constant: v}
	}
	fp := func(off int32) asm.Instructions {
		return asm.Instructions{asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, off)}
	}
	type key struct {
		name  string
		insns asm.Instructions // leaves the key's address in r2
	}
	keys := []key{
		{"*(u32 *)(fp-8) = 0", append(asm.Instructions{st(-8, 0, asm.Word)}, fp(-8)...)},
		{"*(u64 *)(fp-8) = 0", append(asm.Instructions{st(-8, 0, asm.DWord)}, fp(-8)...)},
		{"r1 = 0; *(u64 *)(fp-8) = r1", append(asm.Instructions{asm.Mov.Imm(asm.R1, 0), asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord)}, fp(-8)...)},
		{"r1 = 0; *(u32 *)(fp-8) = r1", append(asm.Instructions{asm.Mov.Imm(asm.R1, 0), asm.StoreMem(asm.RFP, -8, asm.R1, asm.Word)}, fp(-8)...)},
		{"r1 = 3; *(u32 *)(fp-8) = r1", append(asm.Instructions{asm.Mov.Imm(asm.R1, 3), asm.StoreMem(asm.RFP, -8, asm.R1, asm.Word)}, fp(-8)...)},
		{"r1 = 3; *(u64 *)(fp-8) = r1", append(asm.Instructions{asm.Mov.Imm(asm.R1, 3), asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord)}, fp(-8)...)},
		{"*(u32 *)(fp-8) = 1", append(asm.Instructions{st(-8, 1, asm.Word)}, fp(-8)...)},
		{"*(u32 *)(fp-8) = 3", append(asm.Instructions{st(-8, 3, asm.Word)}, fp(-8)...)},
		{"*(u32 *)(fp-8) = 4", append(asm.Instructions{st(-8, 4, asm.Word)}, fp(-8)...)},
		{"*(u32 *)(fp-8) = -1", append(asm.Instructions{st(-8, -1, asm.Word)}, fp(-8)...)},
		{"*(u32 *)(fp-4) = 0; key fp-4", append(asm.Instructions{st(-4, 0, asm.Word)}, fp(-4)...)},
		{"*(u32 *)(fp-4) = 1; key fp-4", append(asm.Instructions{st(-4, 1, asm.Word)}, fp(-4)...)},
		{"*(u32 *)(fp-12) = 0; key fp-12", append(asm.Instructions{st(-12, 0, asm.Word)}, fp(-12)...)},
		{"*(u8 *)(fp-8..fp-5) = 0", append(asm.Instructions{st(-8, 0, asm.Byte), st(-7, 0, asm.Byte), st(-6, 0, asm.Byte), st(-5, 0, asm.Byte)}, fp(-8)...)},
		{"*(u16 *)(fp-8) = 0; *(u16 *)(fp-6) = 0", append(asm.Instructions{st(-8, 0, asm.Half), st(-6, 0, asm.Half)}, fp(-8)...)},
		{"r1 = 0; *(u32 *)(fp-8) = r1; *(u8 *)(fp-7) = 1", append(asm.Instructions{asm.Mov.Imm(asm.R1, 0),
			asm.StoreMem(asm.RFP, -8, asm.R1, asm.Word), st(-7, 1, asm.Byte)}, fp(-8)...)},
		{"r1 = rand & 0; *(u32 *)(fp-8) = r1", append(asm.Instructions{asm.FnGetPrandomU32.Call(), asm.And.Imm(asm.R0, 0),
			asm.StoreMem(asm.RFP, -8, asm.R0, asm.Word)}, fp(-8)...)},
		{"r1 = rand & 1; *(u32 *)(fp-8) = r1", append(asm.Instructions{asm.FnGetPrandomU32.Call(), asm.And.Imm(asm.R0, 1),
			asm.StoreMem(asm.RFP, -8, asm.R0, asm.Word)}, fp(-8)...)},
		{"*(u32 *)(fp-8) = 0; r2 = fp; r2 += -4; r2 += -4", asm.Instructions{st(-8, 0, asm.Word), asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, -4), asm.Add.Imm(asm.R2, -4)}},
		{"*(u32 *)(fp-8) = 0; r2 = fp; r2 += rand & 0; r2 += -8", asm.Instructions{st(-8, 0, asm.Word), asm.FnGetPrandomU32.Call(),
			asm.And.Imm(asm.R0, 0), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Reg(asm.R2, asm.R0), asm.Add.Imm(asm.R2, -8)}},
		{"key in .rodata (zero)", asm.Instructions{asm.LoadMapValue(asm.R2, 1, 3)}},
		{"if rand goto A; *(u32 *)(fp-8) = 0; goto B; A: *(u32 *)(fp-8) = 4; B:", append(asm.Instructions{
			asm.FnGetPrandomU32.Call(), maJump(asm.JEq.Imm(asm.R0, 0, ""), 2), st(-8, 0, asm.Word),
			maJump(asm.Ja.Imm(asm.R0, 0, ""), 1), st(-8, 4, asm.Word)}, fp(-8)...)},
		{"if rand goto A; *(u32 *)(fp-8) = 4; goto B; A: *(u32 *)(fp-8) = 0; B:", append(asm.Instructions{
			asm.FnGetPrandomU32.Call(), maJump(asm.JEq.Imm(asm.R0, 0, ""), 2), st(-8, 4, asm.Word),
			maJump(asm.Ja.Imm(asm.R0, 0, ""), 1), st(-8, 0, asm.Word)}, fp(-8)...)},
		{"if rand goto A; r1 = 0; goto B; A: r1 = 4; B: *(u32 *)(fp-8) = r1", append(asm.Instructions{
			asm.FnGetPrandomU32.Call(), maJump(asm.JEq.Imm(asm.R0, 0, ""), 2), asm.Mov.Imm(asm.R1, 0),
			maJump(asm.Ja.Imm(asm.R0, 0, ""), 1), asm.Mov.Imm(asm.R1, 4), asm.StoreMem(asm.RFP, -8, asm.R1, asm.Word)}, fp(-8)...)},
	}
	rodata := &loader.Map{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize, MaxEntries: 1,
		Flags: maRdonlyProg, ReadOnly: true, Contents: maRodata}
	maps := []*loader.Map{
		{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1},
		{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4},
		{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4, Flags: maRdonlyProg, ReadOnly: true},
		{Name: "m", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: 4},
		{Name: "m", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 4},
		{Name: "m", Type: ebpf.LRUHash, KeySize: 4, ValueSize: 8, MaxEntries: 4},
	}
	bodies := []maAccess{
		{"r1 = *(u32 *)(r0 + 0)", asm.Instructions{asm.LoadMem(asm.R1, asm.R0, 0, asm.Word)}},
		{"if r0 == 0 goto out; r1 = *(u32 *)(r0 + 0)", asm.Instructions{maJump(asm.JEq.Imm(asm.R0, 0, ""), 1),
			asm.LoadMem(asm.R1, asm.R0, 0, asm.Word)}},
	}
	for _, m := range maps {
		for _, k := range keys {
			for _, b := range bodies {
				for _, lt := range []protoLiveType{{pt: ebpf.SchedCLS}, {pt: ebpf.Kprobe}} {
					if !s.sample(2) {
						continue
					}
					insns := append(asm.Instructions{}, k.insns...)
					insns = append(insns, asm.LoadMapPtr(asm.R1, 0), asm.FnMapLookupElem.Call())
					insns = append(insns, b.insns...)
					insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
					s.check(fmt.Sprintf("key %s; r0 = lookup; %s", k.name, b.name), lt, []*loader.Map{m, rodata}, insns)
				}
			}
		}
	}
}

// maInnerSweep is the sixth part: a value of an inner map, reached through
// an array or hash of maps, whose template is read-only or write-only for
// programs (the access type rule applies to the inner map's flags), or
// smaller than the plain maps' values.
func maInnerSweep(s *mapAccessSweep) {
	var inners []*loader.Map
	for _, flags := range []uint32{0, maRdonlyProg, maWronlyProg} {
		inners = append(inners, &loader.Map{Name: "inner", Type: ebpf.Array, KeySize: 4, ValueSize: maValueSize,
			MaxEntries: 1, Flags: flags, ReadOnly: flags&maRdonlyProg != 0})
	}
	inners = append(inners, &loader.Map{Name: "inner", Type: ebpf.Hash, KeySize: 4, ValueSize: 12, MaxEntries: 1,
		Flags: maRdonlyProg, ReadOnly: true})
	var accesses []maAccess
	for _, a := range maPlainAccesses(maValueSize) {
		switch {
		case strings.HasPrefix(a.name, "ldx 8"), strings.HasPrefix(a.name, "stx 8"), strings.HasPrefix(a.name, "st 2"),
			strings.HasPrefix(a.name, "atomic"), strings.HasPrefix(a.name, "bpf_"), strings.HasPrefix(a.name, "load-acquire 4"):
			accesses = append(accesses, a)
		}
	}
	base := asm.Instructions{
		asm.StoreImm(asm.RFP, -8, 0, asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
		asm.LoadMapPtr(asm.R1, 0), asm.FnMapLookupElem.Call(),
		maJump(asm.JNE.Imm(asm.R0, 0, ""), 2), asm.Mov.Imm(asm.R0, 0), asm.Return(),
		asm.Mov.Reg(asm.R1, asm.R0), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8), asm.FnMapLookupElem.Call(),
		maJump(asm.JNE.Imm(asm.R0, 0, ""), 2), asm.Mov.Imm(asm.R0, 0), asm.Return(),
		asm.Mov.Reg(asm.R6, asm.R0),
	}
	for _, outer := range []ebpf.MapType{ebpf.ArrayOfMaps, ebpf.HashOfMaps} {
		for _, in := range inners {
			m := &loader.Map{Name: "outer", Type: outer, KeySize: 4, ValueSize: 4, MaxEntries: 1, Inner: in}
			for _, a := range accesses {
				for _, lt := range []protoLiveType{{pt: ebpf.SchedCLS}, {pt: ebpf.Kprobe}} {
					if !s.sample(3) {
						continue
					}
					// The update helpers name map 0, the outer map.
					s.check("inner map value, "+a.name, lt, []*loader.Map{m}, maProgram(base, a.insns))
				}
			}
		}
	}
}

// maSleepableSweep is the last part: the map types a sleepable program
// may name (check_map_prog_compatibility), each named by a sleepable
// syscall program and by a sleepable and a non-sleepable task iterator.
func maSleepableSweep(s *mapAccessSweep) {
	maps := []*loader.Map{
		{Name: "array", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1},
		{Name: "hash", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 1},
		{Name: "lru", Type: ebpf.LRUHash, KeySize: 4, ValueSize: 8, MaxEntries: 1},
		{Name: "pcpu_array", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: 1},
		{Name: "pcpu_hash", Type: ebpf.PerCPUHash, KeySize: 4, ValueSize: 8, MaxEntries: 1},
		{Name: "lru_pcpu", Type: ebpf.LRUCPUHash, KeySize: 4, ValueSize: 8, MaxEntries: 1},
		{Name: "lpm", Type: ebpf.LPMTrie, KeySize: 8, ValueSize: 8, MaxEntries: 1, Flags: maNoPrealloc},
		{Name: "bloom", Type: ebpf.BloomFilter, ValueSize: 4, MaxEntries: 1},
		{Name: "stack_trace", Type: ebpf.StackTrace, KeySize: 4, ValueSize: 32, MaxEntries: 1},
		{Name: "perf", Type: ebpf.PerfEventArray, KeySize: 4, ValueSize: 4, MaxEntries: 1},
		{Name: "queue", Type: ebpf.Queue, ValueSize: 4, MaxEntries: 1},
		{Name: "stack", Type: ebpf.Stack, ValueSize: 4, MaxEntries: 1},
		{Name: "ringbuf", Type: ebpf.RingBuf, MaxEntries: 4096},
		{Name: "progs", Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 1},
		{Name: "devmap", Type: ebpf.DevMap, KeySize: 4, ValueSize: 4, MaxEntries: 1, ReadOnly: true},
		{Name: "sockmap", Type: ebpf.SockMap, KeySize: 4, ValueSize: 4, MaxEntries: 1},
		{Name: "cgroup_array", Type: ebpf.CGroupArray, KeySize: 4, ValueSize: 4, MaxEntries: 1},
	}
	types := []protoLiveType{{pt: ebpf.Syscall, flags: loader.FlagSleepable},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task", flags: loader.FlagSleepable},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task"}}
	for _, m := range maps {
		for _, lt := range types {
			if !s.sample(1) {
				continue
			}
			s.check("names the map", lt, []*loader.Map{m},
				asm.Instructions{asm.LoadMapPtr(asm.R1, 0), asm.Mov.Imm(asm.R0, 0), asm.Return()})
		}
	}
}

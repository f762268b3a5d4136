package verifier

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/states"
)

// precisionProgs are hand-written socket filters whose pruning depends on
// precision tracking. testdata/precision/NAME.golden holds the Linux 6.18
// verifier's level-2 "mark_precise" lines for each (instruction text and
// state dumps stripped) and its insn_processed, recorded on this project's
// reference machine with cilium/ebpf (LogLevelInstruction|LogLevelStats).
var precisionProgs = map[string]asm.Instructions{
	// r7 is a stack offset after the join, so it is precise and the
	// second path (r7=8) is not pruned at the join.
	"offset": {
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Imm(asm.R7, 0),
		asm.Mov.Imm(asm.R8, 0),
		asm.JGT.Imm(asm.R6, 10, "l1"),
		asm.Mov.Imm(asm.R7, 8),
		asm.Mov.Imm(asm.R8, 3).WithSymbol("l1"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, -16, asm.R1, asm.DWord),
		asm.StoreMem(asm.R10, -8, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Reg(asm.R2, asm.R7),
		asm.Add.Reg(asm.R1, asm.R2),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte),
		asm.Return(),
	},
	// r7 is never used after the join: it stays imprecise and the second
	// path is pruned there.
	"unused": {
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Imm(asm.R7, 0),
		asm.Mov.Imm(asm.R8, 0),
		asm.JGT.Imm(asm.R6, 10, "l1"),
		asm.Mov.Imm(asm.R7, 8),
		asm.Mov.Imm(asm.R8, 3).WithSymbol("l1"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, -16, asm.R1, asm.DWord),
		asm.StoreMem(asm.R10, -8, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, -16),
		asm.Mov.Reg(asm.R2, asm.R7),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	},
	// The offset is spilled, filled back and then used: precision goes
	// through the stack slot (fp-24) and across two checkpoints.
	"spill": {
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Imm(asm.R7, 0),
		asm.JGT.Imm(asm.R6, 10, "l1"),
		asm.Mov.Imm(asm.R7, 8),
		asm.StoreMem(asm.R10, -24, asm.R7, asm.DWord).WithSymbol("l1"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, -16, asm.R1, asm.DWord),
		asm.StoreMem(asm.R10, -8, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R8, 1),
		asm.JGT.Imm(asm.R6, 20, "l2"),
		asm.Mov.Imm(asm.R8, 2),
		asm.LoadMem(asm.R3, asm.R10, -24, asm.DWord).WithSymbol("l2"),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, -16),
		asm.Add.Reg(asm.R1, asm.R3),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte),
		asm.Return(),
	},
	// Branches decided by known values make those values precise; the
	// last path is pruned through propagated precision.
	"branch": {
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Imm(asm.R7, 1),
		asm.JGT.Imm(asm.R6, 10, "l1"),
		asm.Mov.Imm(asm.R7, 2),
		asm.Mov.Imm(asm.R8, 0).WithSymbol("l1"),
		asm.Mov.Imm(asm.R9, 0),
		asm.JGT.Imm(asm.R6, 20, "l2"),
		asm.Mov.Imm(asm.R9, 1),
		asm.JEq.Imm(asm.R7, 2, "l3").WithSymbol("l2"),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 1).WithSymbol("l3"),
		asm.Return(),
	},
	// As "linked", but r0 (linked too) stays live until the exit, so it
	// is part of the linked set and becomes precise as well.
	"linked_live": {
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Reg(asm.R7, asm.R6),
		asm.Mov.Imm(asm.R8, 0),
		asm.JGT.Imm(asm.R6, 7, "out"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, -16, asm.R1, asm.DWord),
		asm.StoreMem(asm.R10, -8, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, -16),
		asm.Add.Reg(asm.R1, asm.R7),
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Byte),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	},
	// r7 = r6 links the two; r0 is linked too but dead at the compare; the bound learnt on r6 is used through r7,
	// so backtracking over the compare wants both (linked registers).
	"linked": {
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Reg(asm.R7, asm.R6),
		asm.Mov.Imm(asm.R8, 0),
		asm.JGT.Imm(asm.R6, 7, "out"),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, -16, asm.R1, asm.DWord),
		asm.StoreMem(asm.R10, -8, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, -16),
		asm.Add.Reg(asm.R1, asm.R7),
		asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	},
}

var (
	markBefore = regexp.MustCompile(`^(mark_precise: frame\d+: regs=\S* stack=\S* before \d+):`)
	// markParent is a parent state line, whose state dump is stripped.
	markParent = regexp.MustCompile(`^(mark_precise: frame\d+: parent state regs=\S* stack=[-0-9,]*):`)
	markOther  = regexp.MustCompile(`^mark_precise: frame\d+: (last_idx|parent state|falling back)`)
)

// precisionTrace keeps the backtracking lines of a level-2 log, in the form
// of the golden files, followed by "processed N".
func precisionTrace(log string, processed int) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimRight(l, " ")
		if m := markBefore.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		} else if m := markParent.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		} else if markOther.MatchString(l) {
			out = append(out, l)
		}
	}
	return append(out, "processed "+strconv.Itoa(processed))
}

func TestPrecisionMatchesKernel(t *testing.T) {
	for name, prog := range precisionProgs {
		t.Run(name, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join("testdata", "precision", name+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSpace(string(golden)), "\n")
			lp := &loader.Program{Name: name, Type: ebpf.SocketFilter, Instructions: resolveJumps(t, prog), License: "GPL", GPLCompatible: true}
			res := Verify(&loader.Object{Path: name}, lp, Options{LogLevel: 2})
			if !res.Accepted {
				t.Fatalf("rejected: %v", res.Err)
			}
			got := precisionTrace(res.Log, res.Stats.InsnProcessed)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("backtracking differs from Linux 6.18 (-kernel +vercheck):\n%s", diff)
			}
		})
	}
}

// resolveJumps returns a copy of insns with every jump to a symbol given
// its offset, as an ELF loader would.
func resolveJumps(t *testing.T, insns asm.Instructions) asm.Instructions {
	t.Helper()
	out := make(asm.Instructions, len(insns))
	copy(out, insns)
	at := make(map[string]int)
	pos := 0
	slot := make([]int, len(out))
	for i, ins := range out {
		slot[i] = pos
		if sym := ins.Symbol(); sym != "" {
			at[sym] = pos
		}
		pos += int(ins.Size() / asm.InstructionSize)
	}
	for i := range out {
		ref := out[i].Reference()
		if ref == "" || out[i].OpCode.JumpOp() == asm.InvalidJumpOp || out[i].OpCode.JumpOp() == asm.Call {
			continue
		}
		target, ok := at[ref]
		if !ok {
			t.Fatalf("unknown label %q", ref)
		}
		out[i].Offset = int16(target - slot[i] - 1)
	}
	return out
}

// Instruction constructors for the backtracking tables.
func tMovImm(dst uint8, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcK, Dst: dst, Imm: imm}
}
func tMovReg(dst, src uint8) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | insn.ALUMov | insn.SrcX, Dst: dst, Src: src}
}
func tALUReg(op, dst, src uint8) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | op | insn.SrcX, Dst: dst, Src: src}
}
func tALUImm(op, dst uint8, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassALU64 | op | insn.SrcK, Dst: dst, Imm: imm}
}
func tLdx(dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassLDX | insn.ModeMEM | insn.SizeDW, Dst: dst, Src: src, Off: off}
}
func tStx(dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassSTX | insn.ModeMEM | insn.SizeDW, Dst: dst, Src: src, Off: off}
}
func tSt(dst uint8, off int16, imm int32) insn.Insn {
	return insn.Insn{Op: insn.ClassST | insn.ModeMEM | insn.SizeDW, Dst: dst, Off: off, Imm: imm}
}
func tJmpReg(op, dst, src uint8, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | op | insn.SrcX, Dst: dst, Src: src, Off: off}
}
func tJmpImm(op, dst uint8, imm int32, off int16) insn.Insn {
	return insn.Insn{Op: insn.ClassJMP | op | insn.SrcK, Dst: dst, Imm: imm, Off: off}
}
func tCall(id int32) insn.Insn { return insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Imm: id} }
func tExit() insn.Insn         { return insn.Insn{Op: insn.ClassJMP | insn.JmpExit} }

// btView is the comparable content of a backtrack.
type btView struct {
	Frame int
	Regs  [states.MaxCallFrames]uint16
	Stack [states.MaxCallFrames]uint64
	Err   bool
}

func regs(rs ...int) uint16 {
	var m uint16
	for _, r := range rs {
		m |= 1 << r
	}
	return m
}

func TestBacktrackInsn(t *testing.T) {
	stackHist := func(frame, spi int) *states.JmpHistEntry {
		return &states.JmpHistEntry{Flags: stackAccessFlag(frame, spi)}
	}
	linked := &states.JmpHistEntry{LinkedRegs: packLinkedRegs([]linkedReg{{0, 1, true}, {0, 3, true}, {0, 2, false}})}
	tests := []struct {
		name string
		in   insn.Insn
		hist *states.JmpHistEntry
		from btView
		want btView
	}{
		{"mov reg moves the mark", tMovReg(1, 2), nil, btView{Regs: [8]uint16{regs(1)}}, btView{Regs: [8]uint16{regs(2)}}},
		{"mov imm ends the chain", tMovImm(1, 5), nil, btView{Regs: [8]uint16{regs(1, 4)}}, btView{Regs: [8]uint16{regs(4)}}},
		{"mov from fp ends the chain", tMovReg(1, 10), nil, btView{Regs: [8]uint16{regs(1)}}, btView{}},
		{"add reg wants both", tALUReg(insn.ALUAdd, 1, 2), nil, btView{Regs: [8]uint16{regs(1)}}, btView{Regs: [8]uint16{regs(1, 2)}}},
		{"add imm keeps dst", tALUImm(insn.ALUAdd, 1, 3), nil, btView{Regs: [8]uint16{regs(1)}}, btView{Regs: [8]uint16{regs(1)}}},
		{"unwanted dst is ignored", tALUReg(insn.ALUAdd, 1, 2), nil, btView{Regs: [8]uint16{regs(3)}}, btView{Regs: [8]uint16{regs(3)}}},
		{"load from memory ends the chain", tLdx(1, 2, 0), nil, btView{Regs: [8]uint16{regs(1)}}, btView{}},
		{"fill wants the slot", tLdx(1, 10, -16), stackHist(0, 1), btView{Regs: [8]uint16{regs(1)}}, btView{Stack: [8]uint64{1 << 1}}},
		{"spill wants the source", tStx(10, 3, -16), stackHist(0, 1), btView{Stack: [8]uint64{1 << 1}}, btView{Regs: [8]uint16{regs(3)}}},
		{"spill of another slot", tStx(10, 3, -8), stackHist(0, 0), btView{Stack: [8]uint64{1 << 1}}, btView{Stack: [8]uint64{1 << 1}}},
		{"store of a constant ends the chain", tSt(10, -16, 7), stackHist(0, 1), btView{Stack: [8]uint64{1 << 1}}, btView{}},
		{"scalar used as a store address", tStx(1, 3, 0), nil, btView{Regs: [8]uint16{regs(1)}}, btView{Err: true}},
		{"compare wants both", tJmpReg(insn.JmpJGT, 1, 2, 0), nil, btView{Regs: [8]uint16{regs(2)}}, btView{Regs: [8]uint16{regs(1, 2)}}},
		{"compare with a stack pointer", tJmpReg(insn.JmpJGT, 1, 2, 0), &states.JmpHistEntry{Flags: histDstRegStack}, btView{Regs: [8]uint16{regs(2)}}, btView{Regs: [8]uint16{regs(2)}}},
		{"compare with a constant", tJmpImm(insn.JmpJGT, 1, 4, 0), nil, btView{Regs: [8]uint16{regs(1)}}, btView{Regs: [8]uint16{regs(1)}}},
		{"linked registers", tJmpImm(insn.JmpJGT, 1, 4, 0), linked, btView{Regs: [8]uint16{regs(1)}}, btView{Regs: [8]uint16{regs(1, 3)}, Stack: [8]uint64{1 << 2}}},
		{"linked registers, none wanted", tJmpImm(insn.JmpJGT, 1, 4, 0), linked, btView{Regs: [8]uint16{regs(5)}}, btView{Regs: [8]uint16{regs(5)}}},
		{"helper sets r0", tCall(7), nil, btView{Regs: [8]uint16{regs(0, 6)}}, btView{Regs: [8]uint16{regs(6)}}},
		{"helper argument still wanted", tCall(7), nil, btView{Regs: [8]uint16{regs(2)}}, btView{Err: true}},
		{"legacy packet load", insn.Insn{Op: insn.ClassLD | insn.ModeABS | insn.SizeW, Imm: 12}, nil, btView{Regs: [8]uint16{regs(0)}}, btView{Err: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := []insn.Insn{tt.in, tExit()}
			e := &env{prog: prog, cfg: mustCFG(t, prog)}
			bt := backtrack{frame: tt.from.Frame, regs: tt.from.Regs, stack: tt.from.Stack}
			err := e.backtrackInsn(0, 1, tt.hist, &bt)
			got := btView{Frame: bt.frame, Regs: bt.regs, Stack: bt.stack}
			if err != nil {
				got = btView{Err: true}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("backtrackInsn(%s) mismatch (-want +got):\n%s", insn.Format(0, tt.in), diff)
			}
		})
	}
}

func mustCFG(t *testing.T, prog []insn.Insn) *insn.CFG {
	t.Helper()
	cfg, err := insn.AnalyzeWith(prog, insn.Options{HelperArgs: (helpers.Build{}).ArgCountFor(ebpf.UnspecifiedProgram, ebpf.AttachNone, helpers.Set{})})
	if err != nil {
		t.Fatalf("analyze: %v", err)
	}
	return cfg
}

// TestBacktrackAcrossCalls walks a bpf-to-bpf call backwards: the callee's
// r0 comes from its r1, which is the caller's r6.
func TestBacktrackAcrossCalls(t *testing.T) {
	prog := []insn.Insn{
		tMovReg(1, 6), // 0: r1 = r6
		{Op: insn.ClassJMP | insn.JmpCall, Src: insn.PseudoCall, Imm: 2}, // 1: call 4
		tJmpImm(insn.JmpJGT, 0, 1, 0),                                    // 2: if r0 > 1 goto +0
		tExit(),                                                          // 3
		tMovReg(0, 1),                                                    // 4: r0 = r1
		tExit(),                                                          // 5
	}
	e := &env{prog: prog, cfg: mustCFG(t, prog)}
	bt := backtrack{}
	bt.setFrameReg(0, 0)
	// Walking back from 2: the exit at 5 enters the callee, 4 moves the
	// mark to r1, the call at 1 hands r1 back to the caller, 0 moves it
	// to r6.
	steps := []struct{ idx, subseq int }{{5, 2}, {4, 5}, {1, 4}, {0, 1}}
	for _, s := range steps {
		if err := e.backtrackInsn(s.idx, s.subseq, nil, &bt); err != nil {
			t.Fatalf("insn %d: %v", s.idx, err)
		}
	}
	want := btView{Regs: [8]uint16{regs(6)}}
	if diff := cmp.Diff(want, btView{Frame: bt.frame, Regs: bt.regs, Stack: bt.stack}); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestBacktrackChain marks precision through a parent checkpoint and checks
// which registers of the parent end up precise.
func TestBacktrackChain(t *testing.T) {
	prog := []insn.Insn{
		tMovImm(1, 1),                  // 0
		tMovImm(2, 2),                  // 1
		tMovReg(3, 1),                  // 2  <- checkpoint P
		tALUReg(insn.ALUAdd, 3, 2),     // 3
		tJmpImm(insn.JmpJGT, 3, 10, 0), // 4  <- r3 precise here
		tExit(),                        // 5
	}
	pool := &states.Pool{}
	e := &env{prog: prog, cfg: mustCFG(t, prog), pool: pool}
	parent := pool.Get()
	parent.InsnIdx, parent.FirstInsnIdx, parent.LastInsnIdx = 2, 0, 1
	parent.Frames[0].Regs()[1].MarkConst(1)
	parent.Frames[0].Regs()[2].MarkConst(2)
	parent.Frames[0].Regs()[5].MarkConst(9) // never involved
	cur := pool.Clone(parent)
	cur.Parent = parent
	cur.FirstInsnIdx, cur.InsnIdx, cur.LastInsnIdx = 2, 4, 3
	cur.Frames[0].Regs()[3].MarkConst(3)
	e.cur = cur

	if err := e.markChainPrecision(3); err != nil {
		t.Fatal(err)
	}
	type marks struct{ R1, R2, R5, CurR3 bool }
	got := marks{parent.Frames[0].Regs()[1].Precise(), parent.Frames[0].Regs()[2].Precise(), parent.Frames[0].Regs()[5].Precise(), cur.Frames[0].Regs()[3].Precise()}
	if diff := cmp.Diff(marks{R1: true, R2: true}, got); diff != "" {
		t.Errorf("precise marks mismatch (-want +got):\n%s", diff)
	}
	if !e.prec.bt.empty() {
		t.Errorf("backtracking state not empty afterwards: %+v", e.prec.bt)
	}

	// A history that leads out of the program is a walk the kernel
	// reports as its own bug ("backtracking idx 7"): the load fails, and
	// the walk has fallen back to all scalars precise.
	cur.JmpHistory = []states.JmpHistEntry{{Idx: 3, PrevIdx: 7}}
	if err := e.markChainPrecision(3); !errors.Is(err, ErrKernelFault) {
		t.Fatalf("markChainPrecision = %v, want ErrKernelFault", err)
	}
	if !parent.Frames[0].Regs()[5].Precise() {
		t.Errorf("fallback did not mark r5 of the parent precise")
	}
}

func TestLinkedRegsPacking(t *testing.T) {
	set := []linkedReg{{0, 6, true}, {2, 63, false}, {7, 9, true}, {1, 0, false}, {3, 5, true}, {0, 1, true}}
	got := unpackLinkedRegs(packLinkedRegs(set), nil)
	if diff := cmp.Diff(set, got, cmp.AllowUnexported(linkedReg{})); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

// TestSCCBackedgeBookkeeping checks the visit life cycle on a loop: the
// entry checkpoint opens the visit, a back-edge makes its marks
// incomplete, and leaving the entry propagates and closes it.
func TestSCCBackedgeBookkeeping(t *testing.T) {
	prog := []insn.Insn{
		tMovImm(1, 0),                  // 0
		tALUImm(insn.ALUAdd, 1, 1),     // 1 <- loop head
		tJmpImm(insn.JmpJLT, 1, 4, -2), // 2
		tExit(),                        // 3
	}
	pool := &states.Pool{}
	e := &env{prog: prog, cfg: mustCFG(t, prog), pool: pool}
	e.store = prune.NewStore(len(prog), prune.DefaultPolicy(), pool)
	entry := pool.Get()
	entry.InsnIdx = 1
	e.maybeEnterSCC(entry)
	if e.incompleteReadMarks(entry) {
		t.Fatalf("marks incomplete before any back-edge")
	}
	be := pool.Clone(entry)
	be.Parent = entry
	if err := e.addSCCBackedge(backedge{st: be, equal: entry}); err != nil {
		t.Fatal(err)
	}
	if !e.incompleteReadMarks(entry) {
		t.Fatalf("marks complete with a pending back-edge")
	}
	if got := e.store.Stats().Backedges; got != 1 {
		t.Errorf("store back-edges = %d, want 1", got)
	}
	e.maybeExitSCC(entry)
	if e.incompleteReadMarks(entry) {
		t.Errorf("marks still incomplete after the loop was left")
	}
	if got := e.store.Stats().Backedges; got != 0 {
		t.Errorf("store back-edges = %d after exit, want 0", got)
	}
}

// TestSubprogExitBug checks the walks out of a callee the kernel's
// backtrack_insn reports as its own bug: they are refused with
// ErrKernelFault (a kernel warning; no comparison may load them), and a
// walk that wants only arguments goes on.
func TestSubprogExitBug(t *testing.T) {
	tests := []struct {
		name  string
		set   func(bt *backtrack)
		frame int
		want  string
	}{
		{"arguments only", func(bt *backtrack) { bt.setFrameReg(1, 2) }, 1, ""},
		{"a callee-saved register", func(bt *backtrack) { bt.setFrameReg(1, 6) }, 1,
			`unsupported: precision backtracking the 6.18 verifier reports as "verifier bug: callback unexpected regs 40" with a kernel warning`},
		{"a slot of the callee's frame", func(bt *backtrack) { bt.setFrameSlot(1, 1) }, 1,
			`unsupported: precision backtracking the 6.18 verifier reports as "verifier bug: callback leftover stack slots 2" with a kernel warning`},
		{"no caller", func(*backtrack) {}, 0,
			`unsupported: precision backtracking the 6.18 verifier reports as "verifier bug: subprog exit from frame 0" with a kernel warning`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{}
			var bt backtrack
			tt.set(&bt)
			bt.frame = tt.frame
			err := e.subprogExitBug("callback", &bt)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrKernelFault) {
					t.Errorf("error %v is no ErrKernelFault", err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWantsAbove checks the test for precision wanted in frames a parent
// state lacks (where the kernel's walk dereferences a missing frame).
func TestWantsAbove(t *testing.T) {
	var bt backtrack
	bt.setFrameReg(0, 1)
	if bt.wantsAbove(0) {
		t.Error("a register of frame 0 is wanted above frame 0")
	}
	bt.setFrameSlot(2, 3)
	if !bt.wantsAbove(1) {
		t.Error("a slot of frame 2 is not wanted above frame 1")
	}
}

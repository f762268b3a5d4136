package verifier

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// rewriteCase is a program whose rewrites after the walk are checked:
// its verdict (a patch refused for a jump's 16-bit range) and the
// rewritten length, against the running kernel when it can load it.
type rewriteCase struct {
	name  string
	lt    liveProgramType
	maps  []*loader.Map
	insns asm.Instructions
	// msg is the expected rejection ("" for an accept), errno its errno.
	msg   string
	errno syscall.Errno
	// xlated is the expected rewritten length of an accepted program.
	xlated int
}

// spanOver is "r6 = rand; r3 = rand (or 1); r0 = 1; if r6 == 0 goto end;
// <op>; n times r2 = 0; end: exit": a jump over op and n fillers. The
// jump is insn 5, op insn 6.
func spanOver(n int, op ...asm.Instruction) asm.Instructions {
	insns := asm.Instructions{
		asm.FnGetPrandomU32.Call(), asm.Mov.Reg(asm.R6, asm.R0),
		asm.FnGetPrandomU32.Call(), asm.Mov.Reg(asm.R3, asm.R0), asm.Mov.Imm(asm.R0, 1),
		jump(asm.JEq, asm.R6, 0, int16(len(op)+n)),
	}
	insns = append(insns, op...)
	for range n {
		insns = append(insns, asm.Mov.Imm(asm.R2, 0))
	}
	return append(insns, asm.Return())
}

// loopBackOver is a bounded loop whose back edge spans op and n fillers:
// "r7 = 0; r3 = rand; top: r0 = 1; <op>; n times r2 = 0; r7 += 1;
// if r7 < 2 goto top; exit". op is insn 4.
func loopBackOver(n int, op ...asm.Instruction) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R7, 0), asm.FnGetPrandomU32.Call(), asm.Mov.Reg(asm.R3, asm.R0),
		asm.Mov.Imm(asm.R0, 1),
	}
	insns = append(insns, op...)
	for range n {
		insns = append(insns, asm.Mov.Imm(asm.R2, 0))
	}
	back := -(len(op) + n + 3)
	return append(insns, asm.Add.Imm(asm.R7, 1), jump(asm.JLT, asm.R7, 2, int16(back)), asm.Return())
}

// jump is a conditional jump on an immediate with an explicit offset.
func jump(op asm.JumpOp, dst asm.Register, imm int32, off int16) asm.Instruction {
	return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(op).SetSource(asm.ImmSource), Dst: dst, Constant: int64(imm), Offset: off}
}

// lookupIn is a bpf_map_lookup_elem of key 0 in map 0, r0 left as is.
func lookupIn() asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 0), asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
		asm.LoadMapPtr(asm.R1, 0), asm.FnMapLookupElem.Call(), asm.Mov.Imm(asm.R0, 0), asm.Return(),
	}
}

// mayGotoOver is "before times r2 = 0; r0 = 0; may_goto +span; span
// times r2 = 0; exit".
func mayGotoOver(before, span int) asm.Instructions {
	var insns asm.Instructions
	for range before {
		insns = append(insns, asm.Mov.Imm(asm.R2, 0))
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JumpOp(0xe0)), Offset: int16(span)})
	for range span {
		insns = append(insns, asm.Mov.Imm(asm.R2, 0))
	}
	return append(insns, asm.Return())
}

// divBy is "r0 = rand; r1 = rand | 1; r0 <op>= r1; exit" (or w0, w1).
func divBy(op asm.Instruction) asm.Instructions {
	return asm.Instructions{
		asm.FnGetPrandomU32.Call(), asm.Mov.Reg(asm.R6, asm.R0), asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R1, asm.R0), asm.Mov.Reg(asm.R0, asm.R6), op, asm.Mov.Imm(asm.R0, 0), asm.Return(),
	}
}

var rewriteCases = []rewriteCase{
	// A division by a register becomes 4 instructions (the zero check):
	// the jump over it grows by 3, to 32,768 past 32,764 fillers.
	{name: "div in a 32767 span", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: spanOver(32764, asm.Div.Reg(asm.R0, asm.R3)),
		msg: "insn 6 cannot be patched due to 16-bit range", errno: syscall.ENOMEM},
	{name: "div in a 32766 span", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: spanOver(32763, asm.Div.Reg(asm.R0, asm.R3)), xlated: 32774},
	// A 64-bit modulo is 2.
	{name: "mod64 in a 32767 span", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: spanOver(32766, asm.Mod.Reg(asm.R0, asm.R3)),
		msg: "insn 6 cannot be patched due to 16-bit range", errno: syscall.ENOMEM},
	{name: "mod64 in a 32766 span", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: spanOver(32765, asm.Mod.Reg(asm.R0, asm.R3)), xlated: 32774},
	// A backward jump grows with a patch at its target or after.
	{name: "div under a back edge", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: loopBackOver(32762, asm.Div.Reg(asm.R0, asm.R3)),
		msg: "insn 4 cannot be patched due to 16-bit range", errno: syscall.ENOMEM},
	{name: "div under a shorter back edge", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: loopBackOver(32761, asm.Div.Reg(asm.R0, asm.R3)), xlated: 32772},
	// The jiffies are 3 instructions.
	{name: "smp id in a span", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: spanOver(32765, asm.FnGetSmpProcessorId.Call()),
		msg: "insn 6 cannot be patched due to 16-bit range", errno: syscall.ENOMEM},

	// Rewritten lengths.
	{name: "div64", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.Div.Reg(asm.R0, asm.R1)), xlated: 11},
	{name: "mod64", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.Mod.Reg(asm.R0, asm.R1)), xlated: 9},
	{name: "div32", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.Div.Reg32(asm.R0, asm.R1)), xlated: 11},
	{name: "mod32", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.Mod.Reg32(asm.R0, asm.R1)), xlated: 11},
	{name: "sdiv64", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.SDiv.Reg(asm.R0, asm.R1)), xlated: 15},
	{name: "smod64", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.SMod.Reg(asm.R0, asm.R1)), xlated: 14},
	{name: "sdiv32", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.SDiv.Reg32(asm.R0, asm.R1)), xlated: 15},
	{name: "smod32", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.SMod.Reg32(asm.R0, asm.R1)), xlated: 16},
	{name: "sdiv by -1", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: divBy(asm.SDiv.Imm(asm.R0, -1)), xlated: 8},
	{name: "ld_abs", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1), asm.LoadAbs(0, asm.Byte), asm.Mov.Imm(asm.R0, 0), asm.Return()}, xlated: 9},
	{name: "ld_ind", lt: liveProgramType{ebpf.SchedCLS, 0}, insns: asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1), asm.Mov.Imm(asm.R7, 2), asm.LoadInd(asm.R0, asm.R7, 4, asm.Half), asm.LoadInd(asm.R0, asm.R7, 0, asm.Word),
		asm.Mov.Imm(asm.R0, 0), asm.Return()}, xlated: 17},
	{name: "smp id and jiffies", lt: liveProgramType{ebpf.Kprobe, 0}, insns: asm.Instructions{
		asm.FnGetSmpProcessorId.Call(), asm.FnJiffies64.Call(), asm.Mov.Imm(asm.R0, 0), asm.Return()}, xlated: 8},
	{name: "dead code removed", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: asm.Instructions{
		asm.Mov.Imm(asm.R0, 0), jump(asm.JEq, asm.R0, 0, 2), asm.Mov.Imm(asm.R1, 1), asm.Mov.Imm(asm.R1, 2), asm.Return()}, xlated: 2},
	{name: "array lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "a", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4}},
		insns: lookupIn(), xlated: 15},
	{name: "array lookup, odd value", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "a", Type: ebpf.Array, KeySize: 4, ValueSize: 12, MaxEntries: 4}},
		insns: lookupIn(), xlated: 15},
	{name: "percpu array lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "a", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: 4}},
		insns: lookupIn(), xlated: 17},
	{name: "hash lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "h", Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 4}},
		insns: lookupIn(), xlated: 11},
	{name: "lru hash lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "h", Type: ebpf.LRUHash, KeySize: 8, ValueSize: 8, MaxEntries: 4}},
		insns: lookupIn(), xlated: 14},
	{name: "percpu hash lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "h", Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 4}},
		insns: lookupIn(), xlated: 13},
	{name: "lru percpu hash lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "h", Type: ebpf.LRUCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 4}},
		insns: lookupIn(), xlated: 9},
	{name: "inner-map array lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "a", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4, Flags: innerMapFlag}},
		insns: lookupIn(), xlated: 9},
	// A direct packet write: the unclone prologue, before the first
	// instruction, itself a context load the pass goes on to rewrite.
	{name: "tc prologue then ctx load", lt: liveProgramType{ebpf.SchedCLS, 0}, insns: asm.Instructions{
		asm.LoadMem(asm.R2, asm.R1, 80, asm.Word), asm.LoadMem(asm.R3, asm.R1, 76, asm.Word),
		asm.Mov.Reg(asm.R4, asm.R3), asm.Add.Imm(asm.R4, 1), {OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.RegSource), Dst: asm.R4, Src: asm.R2, Offset: 2},
		asm.Mov.Imm(asm.R5, 0), asm.StoreMem(asm.R3, 0, asm.R5, asm.Byte), asm.Mov.Imm(asm.R0, 0), asm.Return()}, xlated: 19},
	// A may_goto over 32,763 instructions: its rewritten jump's offset,
	// 32,768, is truncated to -32,768, and the kernel accepts a program
	// whose jump lands 32,766 instructions before it.
	{name: "may_goto truncated", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: mayGotoOver(32800, 32763), xlated: 65575},
	{name: "may_goto loop", lt: liveProgramType{ebpf.SocketFilter, 0}, insns: asm.Instructions{
		asm.Mov.Imm(asm.R0, 0), {OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JumpOp(0xe0)), Offset: 2},
		asm.Add.Imm(asm.R0, 1), {OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: -3}, asm.Mov.Imm(asm.R0, 0), asm.Return()}},
}

// TestRewrites checks each case's verdict and rewritten length.
func TestRewrites(t *testing.T) {
	for _, c := range rewriteCases {
		t.Run(c.name, func(t *testing.T) {
			res := c.verify()
			got := rewriteOutcomeOf(res)
			want := rewriteResult{accepted: c.msg == "", msg: c.msg, errno: c.errno, xlated: c.xlated}
			if c.xlated == 0 && c.msg == "" {
				want.xlated = got.xlated // checked against the kernel only
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(rewriteResult{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRewritesLiveKernel compares each case with the running kernel:
// verdict, message, errno and xlated_prog_len.
func TestRewritesLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	for _, c := range rewriteCases {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.live()
			if err != nil {
				t.Skip(err)
			}
			if diff := cmp.Diff(want, rewriteOutcomeOf(c.verify()), cmp.AllowUnexported(rewriteResult{})); diff != "" {
				t.Errorf("kernel (-) vs vercheck (+):\n%s", diff)
			}
		})
	}
}

// rewriteResult is what the tests compare.
type rewriteResult struct {
	accepted bool
	msg      string
	errno    syscall.Errno
	xlated   int
}

// rewriteOutcomeOf is a vercheck result as compared.
func rewriteOutcomeOf(res *Result) rewriteResult {
	if res.Accepted {
		return rewriteResult{accepted: true, xlated: res.Stats.XlatedInsns}
	}
	var re *RejectError
	if !errors.As(res.Err, &re) {
		return rewriteResult{msg: fmt.Sprint(res.Err)}
	}
	return rewriteResult{msg: re.Msg, errno: res.Errno()}
}

func (c rewriteCase) verify() *Result {
	obj := &loader.Object{Path: "test", Maps: c.maps}
	prog := &loader.Program{Name: "test", Type: c.lt.pt, AttachType: c.lt.at, Instructions: c.insns, GPLCompatible: true}
	return Verify(obj, prog, Options{})
}

// live loads the case into the running kernel.
func (c rewriteCase) live() (rewriteResult, error) {
	insns := slices.Clone(c.insns)
	for _, lm := range c.maps {
		m, err := ebpf.NewMap(kernel.MapSpec(lm))
		if err != nil {
			return rewriteResult{}, err
		}
		defer m.Close()
		for i := range insns {
			if insns[i].IsLoadFromMap() {
				if err := insns[i].AssociateMap(m); err != nil {
					return rewriteResult{}, err
				}
			}
		}
	}
	spec := &ebpf.ProgramSpec{Type: c.lt.pt, AttachType: c.lt.at, Instructions: insns, License: "GPL"}
	p, err := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats})
	if err != nil {
		var ve *ebpf.VerifierError
		if !errors.As(err, &ve) || len(ve.Log) == 0 {
			return rewriteResult{}, err
		}
		var errno syscall.Errno
		errors.As(err, &errno)
		return rewriteResult{msg: kernel.DecisiveLine(strings.Join(ve.Log, "\n")), errno: errno}, nil
	}
	defer p.Close()
	info, err := p.Info()
	if err != nil {
		return rewriteResult{}, err
	}
	size, err := info.TranslatedSize()
	if err != nil {
		return rewriteResult{}, err
	}
	return rewriteResult{accepted: true, xlated: size / asm.InstructionSize}, nil
}

package verifier

import (
	"fmt"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// edgeOp is an instruction sequence the kernel rewrites, placed under a
// jump whose offset the rewrite takes exactly to S16_MAX, or one past.
type edgeOp struct {
	name string
	lt   liveProgramType
	maps []*loader.Map
	// setup runs first (the context stays in r1, r6 is random), op is
	// what the jump spans; setupHasCtx: op needs r1 to be the context.
	setup, op asm.Instructions
	// outside is the part of op's growth outside the jump (a prologue).
	outside int
}

// edgeProgram is "r7 = r1; r6 = rand; r1 = r7; <setup>; r0 = ret;
// if r6 == 0 goto end; <op>; fillers; end: exit" when forward, and a
// two-turn loop whose back edge spans op and the fillers otherwise.
func edgeProgram(e edgeOp, ret int32, fillers int, forward bool) asm.Instructions {
	insns := asm.Instructions{asm.Mov.Reg(asm.R7, asm.R1), asm.FnGetPrandomU32.Call(), asm.Mov.Reg(asm.R6, asm.R0), asm.Mov.Reg(asm.R1, asm.R7)}
	insns = append(insns, e.setup...)
	body := append(asm.Instructions{}, e.op...)
	for range fillers {
		body = append(body, asm.Mov.Imm(asm.R2, 0))
	}
	if forward {
		insns = append(insns, asm.Mov.Imm(asm.R0, ret), jump(asm.JEq, asm.R6, 0, int16(rawLen(body))))
		insns = append(insns, body...)
		return append(insns, asm.Return())
	}
	// r8 counts two turns: top: r1 = r7; <op>; fillers; r8 += 1; if r8 < 2 goto top.
	insns = append(insns, asm.Mov.Imm(asm.R8, 0))
	loop := append(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R7)}, body...)
	loop = append(loop, asm.Add.Imm(asm.R8, 1))
	insns = append(insns, loop...)
	insns = append(insns, jump(asm.JLT, asm.R8, 2, int16(-(rawLen(loop)+1))), asm.Mov.Imm(asm.R0, ret), asm.Return())
	return insns
}

var edgeOps = []edgeOp{
	{name: "div64", lt: liveProgramType{ebpf.SocketFilter, 0}, setup: asm.Instructions{asm.Mov.Reg(asm.R3, asm.R6)}, op: asm.Instructions{asm.Div.Reg(asm.R0, asm.R3)}},
	{name: "smod32", lt: liveProgramType{ebpf.SocketFilter, 0}, setup: asm.Instructions{asm.Mov.Reg(asm.R3, asm.R6)}, op: asm.Instructions{asm.SMod.Reg32(asm.R0, asm.R3)}},
	{name: "ld_abs", lt: liveProgramType{ebpf.SocketFilter, 0}, setup: asm.Instructions{asm.Mov.Reg(asm.R9, asm.R6), asm.Mov.Reg(asm.R6, asm.R1)},
		op: asm.Instructions{asm.LoadAbs(12, asm.Half), asm.Mov.Imm(asm.R0, 0)}},
	{name: "smp id", lt: liveProgramType{ebpf.SocketFilter, 0}, op: asm.Instructions{asm.FnGetSmpProcessorId.Call(), asm.Mov.Imm(asm.R0, 0)}},
	{name: "hash lookup", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "h", Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 4}},
		op: asm.Instructions{asm.Mov.Imm(asm.R1, 0), asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.LoadMapPtr(asm.R1, 0), asm.FnMapLookupElem.Call(), asm.Mov.Imm(asm.R0, 0)}},
	{name: "array lookups", lt: liveProgramType{ebpf.SocketFilter, 0}, maps: []*loader.Map{{Name: "a", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 4}},
		op: asm.Instructions{asm.Mov.Imm(asm.R1, 0), asm.StoreMem(asm.RFP, -8, asm.R1, asm.DWord), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.LoadMapPtr(asm.R1, 0), asm.FnMapLookupElem.Call(), asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.LoadMapPtr(asm.R1, 0), asm.FnMapLookupElem.Call(), asm.Mov.Imm(asm.R0, 0)}},
	{name: "tc ifindex", lt: liveProgramType{ebpf.SchedCLS, 0}, op: asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 40, asm.Word)}},
	{name: "tc narrow hash", lt: liveProgramType{ebpf.SchedCLS, 0}, op: asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 42, asm.Half)}},
	{name: "tc div and tstamp", lt: liveProgramType{ebpf.SchedCLS, 0}, setup: asm.Instructions{asm.Mov.Reg(asm.R3, asm.R6)},
		op: asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 152, asm.DWord), asm.Mod.Reg(asm.R0, asm.R3)}},
	// A direct packet write: the prologue at insn 0 is outside every
	// jump; the ctx loads inside.
	{name: "tc prologue", lt: liveProgramType{ebpf.SchedCLS, 0},
		setup: asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 80, asm.Word), asm.LoadMem(asm.R3, asm.R1, 76, asm.Word), asm.Mov.Reg(asm.R4, asm.R3), asm.Add.Imm(asm.R4, 1),
			{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.RegSource), Dst: asm.R4, Src: asm.R2, Offset: 2}, asm.Mov.Imm(asm.R5, 0), asm.StoreMem(asm.R3, 0, asm.R5, asm.Byte)},
		op: asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 8, asm.Word)}},
	{name: "xdp ingress ifindex", lt: liveProgramType{ebpf.XDP, 0}, op: asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 12, asm.Word)}},
	{name: "sock_ops", lt: liveProgramType{ebpf.SockOps, 0}, op: asm.Instructions{asm.LoadMem(asm.R2, asm.R1, 4, asm.Word), asm.LoadMem(asm.R1, asm.R1, 80, asm.Word)}},
	{name: "may_goto", lt: liveProgramType{ebpf.SocketFilter, 0},
		op:      asm.Instructions{{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JumpOp(0xe0)), Offset: 1}, asm.Mov.Imm(asm.R2, 1)},
		outside: mayGotoPrologueInsns},
	{name: "jiffies", lt: liveProgramType{ebpf.Kprobe, 0}, op: asm.Instructions{asm.FnJiffies64.Call(), asm.Mov.Imm(asm.R0, 0)}},
}

// TestPatchRangeEdgeLiveKernel places each rewrite under a jump, forward
// and backward, so that vercheck's replay takes the jump's offset exactly
// to S16_MAX (accepted) and one past it (refused: "cannot be patched due
// to 16-bit range"), and compares both with the running kernel.
func TestPatchRangeEdgeLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	for _, e := range edgeOps {
		for _, forward := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/forward=%v", e.name, forward), func(t *testing.T) {
				ret := int32(0)
				if lo, _, ok := retRange(e.lt.pt, e.lt.at); ok {
					ret = int32(lo)
				}
				// Short programs with and without op give the rewrite's
				// growth, from which the filler count reaching the edge
				// follows.
				xlated := func(e edgeOp) int {
					res := rewriteCase{lt: e.lt, maps: e.maps, insns: edgeProgram(e, ret, 100, forward)}.verify()
					if !res.Accepted || res.Stats.XlatedInsns == 0 {
						t.Fatalf("the short program: %v, xlated %d", res.Err, res.Stats.XlatedInsns)
					}
					return res.Stats.XlatedInsns
				}
				bare := e
				bare.op = nil
				growth := xlated(e) - xlated(bare) - rawLen(e.op) - e.outside
				span, limit := rawLen(e.op)+100, jumpOffMax // forward: the jump's offset
				if !forward {
					// r1 = r7, r8 += 1 and the jump itself: -(offset).
					span, limit = span+3, -jumpOffMin
				}
				for _, past := range []int{0, 1} {
					fillers := 100 + limit - (span + growth) + past
					c := rewriteCase{lt: e.lt, maps: e.maps, insns: edgeProgram(e, ret, fillers, forward)}
					want, err := c.live()
					if err != nil {
						t.Skip(err)
					}
					got := rewriteOutcomeOf(c.verify())
					if diff := cmp.Diff(want, got, cmp.AllowUnexported(rewriteResult{})); diff != "" {
						t.Errorf("%d past the edge: kernel (-) vs vercheck (+):\n%s", past, diff)
					}
					if wantRefused := past == 1; got.accepted == wantRefused {
						t.Errorf("%d past the edge: vercheck accepted=%v", past, got.accepted)
					}
				}
			})
		}
	}
}

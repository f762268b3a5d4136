package verifier

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
)

// scalarShape is an abstract value a sweep puts in a register: constants
// at the sign and width edges, unknown 64- and 32-bit numbers, ranges
// made by masks, subtraction and branches, tnums with known high bits.
type scalarShape struct {
	name string
	set  func(r asm.Register) asm.Instructions
}

// scalarShapes draw on r8 (an unknown u64 from bpf_ktime_get_ns) and r9
// (skb->len, an unknown u32); exitTo is the distance from the end of a
// shape's instructions to the program's last exit, for the shapes made
// by branches.
func scalarShapes() []scalarShape {
	konst := func(v int64) func(asm.Register) asm.Instructions {
		return func(r asm.Register) asm.Instructions {
			if v == int64(int32(v)) {
				return asm.Instructions{asm.Mov.Imm(r, int32(v))}
			}
			return asm.Instructions{asm.LoadImm(r, v, asm.DWord)}
		}
	}
	from := func(src asm.Register, tail ...func(asm.Register) asm.Instruction) func(asm.Register) asm.Instructions {
		return func(r asm.Register) asm.Instructions {
			insns := asm.Instructions{asm.Mov.Reg(r, src)}
			for _, f := range tail {
				insns = append(insns, f(r))
			}
			return insns
		}
	}
	and := func(v int32) func(asm.Register) asm.Instruction {
		return func(r asm.Register) asm.Instruction { return asm.And.Imm(r, v) }
	}
	or := func(v int32) func(asm.Register) asm.Instruction {
		return func(r asm.Register) asm.Instruction { return asm.Or.Imm(r, v) }
	}
	or32 := func(v int32) func(asm.Register) asm.Instruction {
		return func(r asm.Register) asm.Instruction { return asm.Or.Imm32(r, v) }
	}
	add := func(v int32) func(asm.Register) asm.Instruction {
		return func(r asm.Register) asm.Instruction { return asm.Add.Imm(r, v) }
	}
	rsh := func(v int32) func(asm.Register) asm.Instruction {
		return func(r asm.Register) asm.Instruction { return asm.RSh.Imm(r, v) }
	}
	// Branches to the "r0 = 0; exit" the sweep puts past everything: a
	// jump's offset is patched by the caller (offset -1 marks it).
	out := func(op asm.JumpOp, class asm.Class, v int32) func(asm.Register) asm.Instruction {
		return func(r asm.Register) asm.Instruction {
			return asm.Instruction{OpCode: asm.OpCode(class).SetJumpOp(op).SetSource(asm.ImmSource), Dst: r, Constant: int64(v), Offset: -1}
		}
	}
	return []scalarShape{
		{"0", konst(0)},
		{"1", konst(1)},
		{"-1", konst(-1)},
		{"S32_MAX", konst(0x7fffffff)},
		{"S32_MIN", konst(-0x80000000)},
		{"U32_MAX", konst(0xffffffff)},
		{"S64_MIN", konst(-0x8000000000000000)},
		{"31", konst(31)},
		{"64", konst(64)},
		{"u64", from(asm.R8)},
		{"u32", from(asm.R9)},
		{"[0,255]", from(asm.R9, and(0xff))},
		{"[-128,127]", from(asm.R9, and(0xff), add(-128))},
		{"0x100|[0,15]", from(asm.R9, and(0xf), or(0x100))},
		{"[-5,10]", from(asm.R8, out(asm.JSLT, asm.JumpClass, -5), out(asm.JSGT, asm.JumpClass, 10))},
		{"w[-3,3]", from(asm.R8, out(asm.JSLT, asm.Jump32Class, -3), out(asm.JSGT, asm.Jump32Class, 3))},
		{"[0x80000000,U32_MAX]", from(asm.R9, or32(-0x80000000))},
		{"[0,S64_MAX]", from(asm.R8, rsh(1))},
		{"negative", from(asm.R8, out(asm.JSGT, asm.JumpClass, -1))},
		{"[1,U32_MAX]", from(asm.R9, out(asm.JEq, asm.JumpClass, 0))},
	}
}

// scalarOp is one ALU instruction of the sweep, with a register or an
// immediate source.
type scalarOp struct {
	name string
	ins  func(dst, src asm.Register, imm int32, useImm bool) asm.Instruction
}

// scalarOps lists every ALU and ALU64 operation of the ISA on scalars:
// the arithmetic and bitwise operations, shifts, signed division and
// modulo (offset 1), sign-extending moves (offsets 8, 16, 32), negation
// and the byte swaps.
func scalarOps() []scalarOp {
	var ops []scalarOp
	for _, class := range []asm.Class{asm.ALU64Class, asm.ALUClass} {
		width := "64"
		if class == asm.ALUClass {
			width = "32"
		}
		for _, op := range []asm.ALUOp{asm.Add, asm.Sub, asm.Mul, asm.Div, asm.Mod, asm.Or, asm.And,
			asm.Xor, asm.LSh, asm.RSh, asm.ArSh, asm.Mov} {
			ops = append(ops, scalarOp{fmt.Sprintf("%v%s", op, width), func(dst, src asm.Register, imm int32, useImm bool) asm.Instruction {
				if useImm {
					return asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(op).SetSource(asm.ImmSource), Dst: dst, Constant: int64(imm)}
				}
				return asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(op).SetSource(asm.RegSource), Dst: dst, Src: src}
			}})
		}
		for _, op := range []asm.ALUOp{asm.Div, asm.Mod} {
			ops = append(ops, scalarOp{fmt.Sprintf("s%v%s", op, width), func(dst, src asm.Register, imm int32, useImm bool) asm.Instruction {
				if useImm {
					return asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(op).SetSource(asm.ImmSource), Dst: dst, Constant: int64(imm), Offset: 1}
				}
				return asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(op).SetSource(asm.RegSource), Dst: dst, Src: src, Offset: 1}
			}})
		}
		sx := []int16{8, 16}
		if class == asm.ALU64Class {
			sx = append(sx, 32)
		}
		for _, off := range sx {
			ops = append(ops, scalarOp{fmt.Sprintf("movsx%d_%s", off, width), func(dst, src asm.Register, _ int32, _ bool) asm.Instruction {
				return asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(asm.Mov).SetSource(asm.RegSource), Dst: dst, Src: src, Offset: off}
			}})
		}
		ops = append(ops, scalarOp{"neg" + width, func(dst, _ asm.Register, _ int32, _ bool) asm.Instruction {
			return asm.Instruction{OpCode: asm.OpCode(class).SetALUOp(asm.Neg), Dst: dst}
		}})
	}
	for _, size := range []int64{16, 32, 64} {
		for _, end := range []struct {
			name string
			op   asm.OpCode
		}{
			{"le", asm.OpCode(asm.ALUClass).SetALUOp(asm.Swap).SetSource(asm.ImmSource)},
			{"be", asm.OpCode(asm.ALUClass).SetALUOp(asm.Swap).SetSource(asm.RegSource)},
			{"bswap", asm.OpCode(asm.ALU64Class).SetALUOp(asm.Swap)},
		} {
			ops = append(ops, scalarOp{fmt.Sprintf("%s%d", end.name, size), func(dst, _ asm.Register, _ int32, _ bool) asm.Instruction {
				return asm.Instruction{OpCode: end.op, Dst: dst, Constant: size}
			}})
		}
	}
	return ops
}

// scalarProbe is the conditional jump the sweep puts after each
// operation: is_branch_taken decides it or reg_set_min_max refines both
// edges, and the level-2 log prints the state on each.
type scalarProbe struct {
	op    asm.JumpOp
	class asm.Class
	imm   int32
	reg   bool // compare with r2 instead of imm
}

// TestScalarDomainLiveKernel applies every ALU operation of the ISA, 64-
// and 32-bit, to every pair of twenty scalar shapes (constants at the
// sign and width edges, unknown 64- and 32-bit values, masked, shifted,
// negative and branch-bounded ranges, tnums with known bits) and to ten
// immediates, follows it with a conditional jump (64- or 32-bit, every
// condition, against an edge constant or the source register), and
// compares the running kernel's level-2 log with vercheck's register by
// register (internal/logdiff). The verdicts of these programs hardly ever
// differ, but the state after each instruction is the kernel's whole
// scalar domain (adjust_scalar_min_max_vals, the tnum operations,
// reg_bounds_sync, coerce_reg_to_size_sx, is_branch_taken,
// reg_set_min_max): a bound vercheck computes tighter than the kernel is
// a false accept waiting for the program that uses it. By default every
// 23rd combination; VERCHECK_SCALAR_ALL=1 takes all.
func TestScalarDomainLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	prologue := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.FnKtimeGetNs.Call(),
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.LoadMem(asm.R9, asm.R6, 0, asm.Word),
	}
	shapes := scalarShapes()
	ops := scalarOps()
	imms := []int32{0, 1, -1, 7, 31, 32, 63, 64, 0x7fffffff, -0x80000000}
	var probes []scalarProbe
	for _, op := range []asm.JumpOp{asm.JEq, asm.JNE, asm.JGT, asm.JGE, asm.JLT, asm.JLE, asm.JSGT, asm.JSGE, asm.JSLT, asm.JSLE, asm.JSet} {
		for _, class := range []asm.Class{asm.JumpClass, asm.Jump32Class} {
			for _, imm := range []int32{0, 1, -1, 0x7fffffff, 255, -128} {
				probes = append(probes, scalarProbe{op: op, class: class, imm: imm})
			}
			probes = append(probes, scalarProbe{op: op, class: class, reg: true})
		}
	}
	every := sweepEvery("VERCHECK_SCALAR_ALL", 23)
	n := 0
	for _, op := range ops {
		for _, dst := range shapes {
			for si := 0; si < len(shapes)+len(imms); si++ {
				n++
				if n%every != 0 {
					continue
				}
				useImm := si >= len(shapes)
				var imm int32
				srcName := ""
				body := dst.set(asm.R1)
				if useImm {
					imm = imms[si-len(shapes)]
					srcName = fmt.Sprint(imm)
					// The probe compares with r2 sometimes.
					body = append(body, shapes[n%len(shapes)].set(asm.R2)...)
				} else {
					srcName = shapes[si].name
					body = append(body, shapes[si].set(asm.R2)...)
				}
				body = append(body, op.ins(asm.R1, asm.R2, imm, useImm))
				p := probes[n%len(probes)]
				probe := asm.Instruction{OpCode: asm.OpCode(p.class).SetJumpOp(p.op).SetSource(asm.ImmSource), Dst: asm.R1, Constant: int64(p.imm), Offset: 2}
				if p.reg {
					probe = asm.Instruction{OpCode: asm.OpCode(p.class).SetJumpOp(p.op).SetSource(asm.RegSource), Dst: asm.R1, Src: asm.R2, Offset: 2}
				}
				body = append(body, probe,
					asm.Mov.Imm(asm.R0, 1), asm.Return(),
					asm.Mov.Imm(asm.R0, 2), asm.Return())
				insns := append(append(asm.Instructions{}, prologue...), body...)
				insns = withOutExit(insns)
				prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
				sweep.check(&loader.Object{Path: "test"}, prog, func() string {
					return fmt.Sprintf("%s(%s, %s) then %v", op.name, dst.name, srcName, probe)
				})
			}
		}
	}
	sweep.done()
}

// withOutExit appends "r0 = 0; exit" when a jump has offset -1 and
// points every such jump at it, counting the 64-bit immediate loads as two
// slots: the kernel refuses an unreachable instruction, so a program none
// of whose shapes branches out has no such exit.
func withOutExit(insns asm.Instructions) asm.Instructions {
	isOut := func(ins asm.Instruction) bool {
		return ins.OpCode.Class().IsJump() && ins.OpCode.JumpOp() != asm.Exit && ins.Offset == -1
	}
	if !slices.ContainsFunc(insns, isOut) {
		return insns
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
	slot := make([]int, len(insns)+1)
	for i, ins := range insns {
		slot[i+1] = slot[i] + int(ins.Size()/asm.InstructionSize)
	}
	target := slot[len(insns)-2]
	for i := range insns {
		if isOut(insns[i]) {
			insns[i].Offset = int16(target - slot[i] - 1)
		}
	}
	return insns
}

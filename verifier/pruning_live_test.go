package verifier

import (
	"fmt"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
)

// pruneShape is a value one path of the pruning sweep's diamond puts in
// r3: r6 is the context, r7 a 16-byte map value, r8 an unknown u64, r9
// an unknown u32 (skb->len); a jump with offset -1 leaves the program
// (withOutExit).
type pruneShape struct {
	name string
	set  asm.Instructions
}

// pruneShapes are scalars (constants, masked ranges, unknowns) and
// pointers (map value at fixed and variable offsets, stack, context,
// packet with ranges 0, 8 and 16, packet end): the kinds a stored state
// and a current one can hold in one register.
func pruneShapes() []pruneShape {
	out := func(op asm.JumpOp, dst, src asm.Register) asm.Instruction {
		return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(op).SetSource(asm.RegSource), Dst: dst, Src: src, Offset: -1}
	}
	pkt := func(rng int32) asm.Instructions {
		insns := asm.Instructions{asm.LoadMem(asm.R3, asm.R6, 76, asm.Word)}
		if rng > 0 {
			insns = append(insns, asm.LoadMem(asm.R2, asm.R6, 80, asm.Word),
				asm.Mov.Reg(asm.R1, asm.R3), asm.Add.Imm(asm.R1, rng), out(asm.JGT, asm.R1, asm.R2))
		}
		return insns
	}
	shapes := []pruneShape{}
	for _, v := range []int32{0, 1, 7, 8, 15, 16, -1} {
		shapes = append(shapes, pruneShape{fmt.Sprint(v), asm.Instructions{asm.Mov.Imm(asm.R3, v)}})
	}
	return append(shapes,
		pruneShape{"[0,7]", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9), asm.And.Imm(asm.R3, 7)}},
		pruneShape{"[0,15]", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9), asm.And.Imm(asm.R3, 15)}},
		pruneShape{"[8,15]", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9), asm.And.Imm(asm.R3, 7), asm.Add.Imm(asm.R3, 8)}},
		pruneShape{"[0,255]", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9), asm.And.Imm(asm.R3, 255)}},
		pruneShape{"u32", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9)}},
		pruneShape{"u64", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R8)}},
		pruneShape{"map_value", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R7)}},
		pruneShape{"map_value+8", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R7), asm.Add.Imm(asm.R3, 8)}},
		pruneShape{"map_value+[0,7]", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9), asm.And.Imm(asm.R3, 7), asm.Add.Reg(asm.R3, asm.R7)}},
		pruneShape{"fp-16", asm.Instructions{asm.Mov.Reg(asm.R3, asm.RFP), asm.Add.Imm(asm.R3, -16)}},
		pruneShape{"fp-8", asm.Instructions{asm.Mov.Reg(asm.R3, asm.RFP), asm.Add.Imm(asm.R3, -8)}},
		pruneShape{"ctx", asm.Instructions{asm.Mov.Reg(asm.R3, asm.R6)}},
		pruneShape{"pkt", pkt(0)},
		pruneShape{"pkt(r=8)", pkt(8)},
		pruneShape{"pkt(r=16)", pkt(16)},
		pruneShape{"pkt_end", asm.Instructions{asm.LoadMem(asm.R3, asm.R6, 80, asm.Word)}},
	)
}

// slots counts an instruction sequence's 8-byte slots (a 64-bit
// immediate load takes two).
func slots(insns asm.Instructions) int {
	n := 0
	for _, ins := range insns {
		n += int(ins.Size() / asm.InstructionSize)
	}
	return n
}

// TestPruningLiveKernel builds a diamond whose two paths put a value in
// r3 (twenty-three shapes: scalars, map value, stack, context and packet
// pointers with different offsets and ranges), kept in the register or
// spilled to the stack at 64 or 32 bits, and after the join uses it as a
// map value offset, as a pointer, behind a bounds check, or not at all;
// then compares the running kernel's level-2 log with vercheck's
// (internal/logdiff). The kernel walks the fallthrough path first and
// stores its state at the join; the other path arrives there and is
// pruned exactly when states_equal says the stored state covers it
// (regsafe, stacksafe, the precision and liveness of r3 and the slot), so
// every pair of shapes is a test of the equivalence in both directions: a
// prune the kernel does not make is a false accept, one it makes that
// vercheck misses a different insn_processed. By default every 17th
// program; VERCHECK_PRUNING_ALL=1 takes all.
func TestPruningLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	prologue, maps := pruneSweepSetup()
	type location struct {
		name        string
		store, load asm.Instructions
	}
	locations := []location{
		{"register", nil, nil},
		{"spilled", asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R3, asm.DWord)}, asm.Instructions{asm.LoadMem(asm.R3, asm.RFP, -24, asm.DWord)}},
		{"spilled as u32", asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R3, asm.Word)}, asm.Instructions{asm.LoadMem(asm.R3, asm.RFP, -24, asm.Word)}},
	}
	type use struct {
		name  string
		insns asm.Instructions
	}
	uses := []use{
		{"map value offset", asm.Instructions{asm.Mov.Reg(asm.R2, asm.R7), asm.Add.Reg(asm.R2, asm.R3), asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte)}},
		{"pointer", asm.Instructions{asm.LoadMem(asm.R0, asm.R3, 0, asm.Byte)}},
		{"checked offset", asm.Instructions{
			{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource), Dst: asm.R3, Constant: 7, Offset: -1},
			asm.Mov.Reg(asm.R2, asm.R7), asm.Add.Reg(asm.R2, asm.R3), asm.LoadMem(asm.R0, asm.R2, 8, asm.Byte)}},
		{"unused", nil},
	}
	every := sweepEvery("VERCHECK_PRUNING_ALL", 17)
	shapes := pruneShapes()
	n := 0
	for _, a := range shapes {
		for _, b := range shapes {
			for _, loc := range locations {
				for _, u := range uses {
					n++
					if n%every != 0 {
						continue
					}
					pathA := append(append(asm.Instructions{}, a.set...), loc.store...)
					pathB := append(append(asm.Instructions{}, b.set...), loc.store...)
					insns := append(asm.Instructions{}, prologue...)
					insns = append(insns, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource),
						Dst: asm.R9, Constant: 100, Offset: int16(slots(pathA) + 1)})
					insns = append(insns, pathA...)
					insns = append(insns, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: int16(slots(pathB))})
					insns = append(insns, pathB...)
					// The join: a jump target, so a prune point.
					insns = append(insns, asm.Mov.Imm(asm.R0, 0))
					insns = append(insns, loc.load...)
					insns = append(insns, u.insns...)
					insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
					insns = withOutExit(insns)
					prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
					sweep.check(&loader.Object{Path: "test", Maps: maps}, prog, func() string {
						return fmt.Sprintf("r3 = %s or %s, %s, used as %s", a.name, b.name, loc.name, u.name)
					})
				}
			}
		}
	}
	sweep.done()
}

// TestLoopPruningLiveKernel is TestPruningLiveKernel's sweep around a
// loop: r3 (or its spill) holds one shape on entry and another after each
// iteration, is used inside the body and after the loop, and the loop is
// a may_goto loop (the kernel's loop-head states_equal, the budget's
// stack slot, widening of the may_goto depth) or one counted to three in
// r4 (every iteration explored, r4 precise). The states at the loop head
// are compared the same way, by the level-2 logs. A pruning at a may_goto
// head against a state holding a scalar where the current one held a
// packet pointer was a false accept the independent fuzzer found. By
// default every 37th program; VERCHECK_PRUNING_ALL=1 takes all.
func TestLoopPruningLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	prologue, maps := pruneSweepSetup()
	store := map[string]asm.Instructions{"register": nil,
		"spilled":        {asm.StoreMem(asm.RFP, -24, asm.R3, asm.DWord)},
		"spilled as u32": {asm.StoreMem(asm.RFP, -24, asm.R3, asm.Word)}}
	load := map[string]asm.Instructions{"register": nil,
		"spilled":        {asm.LoadMem(asm.R3, asm.RFP, -24, asm.DWord)},
		"spilled as u32": {asm.LoadMem(asm.R3, asm.RFP, -24, asm.Word)}}
	uses := map[string]asm.Instructions{
		"map value offset": {asm.Mov.Reg(asm.R2, asm.R7), asm.Add.Reg(asm.R2, asm.R3), asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte)},
		"pointer":          {asm.LoadMem(asm.R0, asm.R3, 0, asm.Byte)},
		"shift by it":      {asm.Mov.Imm(asm.R2, 1), asm.LSh.Reg(asm.R2, asm.R3), asm.Mov.Reg(asm.R0, asm.R2)},
		"unused":           nil,
	}
	every := sweepEvery("VERCHECK_PRUNING_ALL", 37)
	shapes := pruneShapes()
	n := 0
	for _, a := range shapes {
		for _, b := range shapes {
			for _, locName := range []string{"register", "spilled", "spilled as u32"} {
				for _, useName := range []string{"map value offset", "pointer", "shift by it", "unused"} {
					for _, counted := range []bool{false, true} {
						n++
						if n%every != 0 {
							continue
						}
						// The body: use the value, then put the other
						// shape in its place.
						body := append(append(asm.Instructions{}, load[locName]...), uses[useName]...)
						body = append(body, b.set...)
						body = append(body, store[locName]...)
						insns := append(asm.Instructions{}, prologue...)
						insns = append(insns, a.set...)
						insns = append(insns, store[locName]...)
						var head asm.Instructions
						if counted {
							insns = append(insns, asm.Mov.Imm(asm.R4, 0))
							head = asm.Instructions{{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGE).SetSource(asm.ImmSource),
								Dst: asm.R4, Constant: 3, Offset: int16(slots(body) + 2)}}
							body = append(body, asm.Add.Imm(asm.R4, 1))
						} else {
							head = asm.Instructions{{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JumpOp(0xe0)), Offset: int16(slots(body) + 1)}}
						}
						back := -(slots(body) + slots(head) + 1)
						insns = append(insns, head...)
						insns = append(insns, body...)
						insns = append(insns, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: int16(back)})
						insns = append(insns, load[locName]...)
						insns = append(insns, uses[useName]...)
						insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
						insns = withOutExit(insns)
						prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
						sweep.check(&loader.Object{Path: "test", Maps: maps}, prog, func() string {
							return fmt.Sprintf("r3 = %s, then %s in a loop (counted %v), %s, used as %s", a.name, b.name, counted, locName, useName)
						})
					}
				}
			}
		}
	}
	sweep.done()
}

// TestLoopStackPruningLiveKernel writes fp-24..fp-17 one of the fourteen
// ways of stackWriteShapes before a loop and another in its body, and reads
// the slot back in the body (before the write), after the loop, or never.
// The loop is a may_goto loop, one counted to three in r4, an open-coded
// bpf_iter_num loop, or bpf_loop's callback writing through its context
// pointer (nine ways: the callback has no register of the main program):
// where a loop's marks are incomplete the kernel
// compares the loop head's states in RANGE_WITHIN mode, in which a slot the
// stored state never wrote (INVALID) or wrote as MISC is skipped on kernels
// with upstream 840692326e92 (stablefix.LoopUnreadSafe) and must keep its
// type on the others. The level-2 logs are compared state by state. By
// default every 9th program; VERCHECK_PRUNING_ALL=1 takes all.
func TestLoopStackPruningLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	prologue, maps := pruneSweepSetup()
	writes := stackWriteShapes()
	iterNew, iterNext, iterDestroy := kfuncID(t, "bpf_iter_num_new"), kfuncID(t, "bpf_iter_num_next"), kfuncID(t, "bpf_iter_num_destroy")
	iterArg := asm.Instructions{asm.Mov.Reg(asm.R1, asm.RFP), asm.Add.Imm(asm.R1, -40)}
	read := asm.Instructions{asm.LoadMem(asm.R3, asm.RFP, -24, asm.DWord), asm.Mov.Reg(asm.R2, asm.R7), asm.Add.Reg(asm.R2, asm.R3), asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte)}
	jmp := func(op asm.JumpOp, dst asm.Register, imm int32, off int) asm.Instruction {
		return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(op).SetSource(asm.ImmSource), Dst: dst, Constant: int64(imm), Offset: int16(off)}
	}
	every := sweepEvery("VERCHECK_PRUNING_ALL", 9)
	n := 0
	for _, a := range writes {
		for _, b := range writes {
			for _, where := range []string{"in the body", "after the loop", "never"} {
				for _, kind := range []string{"may_goto", "counted", "bpf_iter_num"} {
					n++
					if n%every != 0 {
						continue
					}
					body := asm.Instructions{}
					if where == "in the body" {
						body = append(body, read...)
					}
					body = append(body, b.set...)
					insns := append(asm.Instructions{}, prologue...)
					insns = append(insns, a.set...)
					var head, tail asm.Instructions
					switch kind {
					case "may_goto":
						head = asm.Instructions{{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JumpOp(0xe0)), Offset: int16(slots(body) + 1)}}
					case "counted":
						insns = append(insns, asm.Mov.Imm(asm.R4, 0))
						body = append(body, asm.Add.Imm(asm.R4, 1))
						head = asm.Instructions{jmp(asm.JGE, asm.R4, 3, slots(body)+1)}
					case "bpf_iter_num":
						insns = append(insns, iterArg...)
						insns = append(insns, asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 3), kfuncCall(iterNew))
						head = append(append(asm.Instructions{}, iterArg...), kfuncCall(iterNext), jmp(asm.JEq, asm.R0, 0, slots(body)+1))
						tail = append(append(asm.Instructions{}, iterArg...), kfuncCall(iterDestroy))
					}
					back := -(slots(body) + slots(head) + 1)
					insns = append(insns, head...)
					insns = append(insns, body...)
					insns = append(insns, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: int16(back)})
					insns = append(insns, tail...)
					if where == "after the loop" {
						insns = append(insns, read...)
					}
					insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
					insns = withOutExit(insns)
					prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
					sweep.check(&loader.Object{Path: "test", Maps: maps}, prog, func() string {
						return fmt.Sprintf("fp-24 written %q before a %s loop, %q in it, read %s", a.name, kind, b.name, where)
					})
				}
			}
		}
	}
	// bpf_loop(3, cb, fp, 0): the callback writes the caller's fp-24
	// through its context pointer r2 (r1 is the index), so its writes
	// name no register of the main program.
	cbWrites := []pruneShape{
		{"nothing", nil},
		{"st 0 u64", asm.Instructions{storeImm(asm.R2, -24, 0, asm.DWord)}},
		{"st 3 u64", asm.Instructions{storeImm(asm.R2, -24, 3, asm.DWord)}},
		{"st 0 u8 at fp-24", asm.Instructions{storeImm(asm.R2, -24, 0, asm.Byte)}},
		{"st 0 u32 at fp-20", asm.Instructions{storeImm(asm.R2, -20, 0, asm.Word)}},
		{"spill the index", asm.Instructions{asm.StoreMem(asm.R2, -24, asm.R1, asm.DWord)}},
		{"spill the index as u8", asm.Instructions{asm.StoreMem(asm.R2, -24, asm.R1, asm.Byte)}},
		{"spill 5", asm.Instructions{asm.Mov.Imm(asm.R3, 5), asm.StoreMem(asm.R2, -24, asm.R3, asm.DWord)}},
		{"spill 5 as u32", asm.Instructions{asm.Mov.Imm(asm.R3, 5), asm.StoreMem(asm.R2, -24, asm.R3, asm.Word)}},
	}
	cbRead := asm.Instructions{asm.LoadMem(asm.R3, asm.R2, -24, asm.DWord),
		jmp(asm.JGT, asm.R3, 7, 1), asm.Mov.Imm(asm.R0, 0)}
	for _, a := range writes {
		for _, b := range cbWrites {
			for _, where := range []string{"in the body", "after the loop", "never"} {
				n++
				if n%every != 0 {
					continue
				}
				main := append(asm.Instructions{}, prologue...)
				main = append(main, a.set...)
				main = append(main, asm.Mov.Imm(asm.R1, 3),
					asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc},
					asm.Mov.Reg(asm.R3, asm.RFP), asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call())
				if where == "after the loop" {
					main = append(main, read...)
				}
				main = append(main, asm.Mov.Imm(asm.R0, 0), asm.Return())
				main = withOutExit(main)
				cb := asm.Instructions{}
				if where == "in the body" {
					cb = append(cb, cbRead...)
				}
				cb = append(cb, b.set...)
				cb = append(cb, asm.Mov.Imm(asm.R0, 0), asm.Return())
				start := slots(main)
				pointFuncLoads(main, start)
				insns, funcs := cgRawFuncInfo(append(main, cb...), []int{0, start})
				prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns, Funcs: funcs}
				sweep.check(&loader.Object{Path: "test", Maps: maps}, prog, func() string {
					return fmt.Sprintf("fp-24 written %q before a bpf_loop whose callback writes %q, read %s", a.name, b.name, where)
				})
			}
		}
	}
	sweep.done()
}

// stackWriteShapes are fourteen ways of writing fp-24..fp-17: not at all,
// zero or a constant by BPF_ST at several sizes, a spill of an unknown,
// constant or pointer register, partial spills, a write at a variable
// offset (r6 the context, r7 a map value, r8 and r9 unknowns, as
// pruneSweepSetup leaves them).
func stackWriteShapes() []pruneShape {
	st := func(off int16, size asm.Size, v int32) asm.Instruction { return storeImm(asm.RFP, off, v, size) }
	return []pruneShape{
		{"nothing", nil},
		{"st 0 u64", asm.Instructions{st(-24, asm.DWord, 0)}},
		{"st 3 u64", asm.Instructions{st(-24, asm.DWord, 3)}},
		{"st 0 u8 at fp-24", asm.Instructions{st(-24, asm.Byte, 0)}},
		{"st 0 u32 at fp-20", asm.Instructions{st(-20, asm.Word, 0)}},
		{"spill u32 unknown", asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R9, asm.DWord)}},
		{"spill [0,7]", asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9), asm.And.Imm(asm.R1, 7), asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord)}},
		{"spill 5", asm.Instructions{asm.Mov.Imm(asm.R1, 5), asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord)}},
		{"spill 5 as u32", asm.Instructions{asm.Mov.Imm(asm.R1, 5), asm.StoreMem(asm.RFP, -24, asm.R1, asm.Word)}},
		{"spill u64 unknown as u8", asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R8, asm.Byte)}},
		{"spill map value", asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R7, asm.DWord)}},
		{"spill ctx", asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R6, asm.DWord)}},
		{"spill 5, then st u8 at fp-23", asm.Instructions{asm.Mov.Imm(asm.R1, 5), asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord), st(-23, asm.Byte, 1)}},
		{"spill 5, then a byte at fp-24-[0,1]", asm.Instructions{asm.Mov.Imm(asm.R1, 5), asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord),
			asm.StoreMem(asm.RFP, -32, asm.R1, asm.DWord),
			asm.Mov.Reg(asm.R2, asm.R9), asm.And.Imm(asm.R2, 1), asm.Mov.Reg(asm.R1, asm.RFP), asm.Sub.Reg(asm.R1, asm.R2),
			asm.StoreImm(asm.R1, -24, 0, asm.Byte)}},
	}
}

// TestStackPruningLiveKernel is the diamond of TestPruningLiveKernel for
// a stack slot: each path writes fp-24..fp-17 one of fourteen ways (not
// at all, zero or a constant by BPF_ST at several sizes, a spill of an
// unknown, constant or pointer register, partial spills, a write at a
// variable offset), and after the join the slot is read back at one of
// five sizes and offsets, the value used as a map value offset or not.
// The kernel's stacksafe compares the stored slot with the current one
// (STACK_INVALID, STACK_MISC, STACK_ZERO, spills, their liveness and
// precision), and check_stack_read decides what the read yields; the
// level-2 logs are compared state by state. By default every 13th
// program; VERCHECK_PRUNING_ALL=1 takes all.
func TestStackPruningLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	prologue, maps := pruneSweepSetup()
	writes := stackWriteShapes()
	reads := []struct {
		name string
		off  int16
		size asm.Size
	}{{"u64", -24, asm.DWord}, {"u32 at fp-24", -24, asm.Word}, {"u32 at fp-20", -20, asm.Word}, {"u8 at fp-17", -17, asm.Byte}, {"none", 0, 0}}
	every := sweepEvery("VERCHECK_PRUNING_ALL", 13)
	n := 0
	for _, a := range writes {
		for _, b := range writes {
			for _, rd := range reads {
				for _, asOffset := range []bool{false, true} {
					n++
					if n%every != 0 || (rd.size == 0 && asOffset) {
						continue
					}
					insns := append(asm.Instructions{}, prologue...)
					insns = append(insns, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource),
						Dst: asm.R9, Constant: 100, Offset: int16(slots(a.set) + 1)})
					insns = append(insns, a.set...)
					insns = append(insns, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: int16(slots(b.set))})
					insns = append(insns, b.set...)
					insns = append(insns, asm.Mov.Imm(asm.R0, 0))
					if rd.size != 0 {
						insns = append(insns, asm.LoadMem(asm.R3, asm.RFP, rd.off, rd.size))
					}
					if asOffset {
						insns = append(insns, asm.Mov.Reg(asm.R2, asm.R7), asm.Add.Reg(asm.R2, asm.R3), asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte))
					}
					insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
					insns = withOutExit(insns)
					prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
					sweep.check(&loader.Object{Path: "test", Maps: maps}, prog, func() string {
						return fmt.Sprintf("fp-24 written %q or %q, read %s (as an offset %v)", a.name, b.name, rd.name, asOffset)
					})
				}
			}
		}
	}
	sweep.done()
}

// TestCallPruningLiveKernel is the diamond of TestPruningLiveKernel
// across a bpf-to-bpf call: each path passes one of the shapes to a
// static subprogram, in r1 or through a pointer to the caller's stack
// slot holding its spill, from one call site after the join or from one
// call site per path, with the map value in r2; the callee branches (a
// checkpoint inside the callee, where the stored and current states
// differ in the caller's frame or in the callee's argument) and uses the
// value as a map value offset, as a pointer, or not at all. states_equal
// compares every frame and the call sites (func_states_equal, the
// callsite check), and the callee's reads of the caller's stack
// propagate liveness and precision across the frame boundary: the level-2
// logs are compared state by state. By default every 19th program;
// VERCHECK_PRUNING_ALL=1 takes all.
func TestCallPruningLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	prologue, maps := pruneSweepSetup()
	type pass struct {
		name   string
		before asm.Instructions // r3 holds the value: put it in place
		fetch  asm.Instructions // in the callee: the value into r3
	}
	passes := []pass{
		{"in r1", asm.Instructions{asm.Mov.Reg(asm.R1, asm.R3)}, asm.Instructions{asm.Mov.Reg(asm.R3, asm.R1)}},
		{"spilled, pointer in r1", asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R3, asm.DWord), asm.Mov.Reg(asm.R1, asm.RFP), asm.Add.Imm(asm.R1, -24)},
			asm.Instructions{asm.LoadMem(asm.R3, asm.R1, 0, asm.DWord)}},
	}
	uses := []struct {
		name  string
		insns asm.Instructions
	}{
		{"map value offset", asm.Instructions{asm.Add.Reg(asm.R2, asm.R3), asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte)}},
		{"pointer", asm.Instructions{asm.LoadMem(asm.R0, asm.R3, 0, asm.Byte)}},
		{"unused", nil},
	}
	call := func(off int) asm.Instruction {
		return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall, Constant: int64(off)}
	}
	every := sweepEvery("VERCHECK_PRUNING_ALL", 19)
	shapes := pruneShapes()
	n := 0
	for _, a := range shapes {
		for _, b := range shapes {
			for _, p := range passes {
				for _, u := range uses {
					for _, oneSite := range []bool{true, false} {
						n++
						if n%every != 0 {
							continue
						}
						// The callee: fetch the value, a branch on an
						// unknown (a checkpoint), the use.
						callee := append(asm.Instructions{}, p.fetch...)
						callee = append(callee, asm.LoadMem(asm.R4, asm.R2, 0, asm.DWord),
							asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource), Dst: asm.R4, Constant: 5, Offset: 1},
							asm.Mov.Imm(asm.R0, 0))
						callee = append(callee, u.insns...)
						callee = append(callee, asm.Mov.Imm(asm.R0, 0), asm.Return())
						pathA := append(append(asm.Instructions{}, a.set...), p.before...)
						pathB := append(append(asm.Instructions{}, b.set...), p.before...)
						var main asm.Instructions
						main = append(main, prologue...)
						// Calls are placed below; their offsets are fixed
						// up once the main body's length is known.
						tail := asm.Instructions{asm.Mov.Reg(asm.R2, asm.R7), call(0), asm.Mov.Imm(asm.R0, 0), asm.Return()}
						if oneSite {
							main = append(main, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource),
								Dst: asm.R9, Constant: 100, Offset: int16(slots(pathA) + 1)})
							main = append(main, pathA...)
							main = append(main, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: int16(slots(pathB))})
							main = append(main, pathB...)
							main = append(main, tail...)
						} else {
							main = append(main, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource),
								Dst: asm.R9, Constant: 100, Offset: int16(slots(pathA) + len(tail))})
							main = append(main, pathA...)
							main = append(main, tail...)
							main = append(main, pathB...)
							main = append(main, tail...)
						}
						main = withOutExit(main)
						// Point every call at the callee, placed after main.
						pos := 0
						for i := range main {
							if main[i].IsFunctionCall() {
								main[i].Constant = int64(slots(main) - pos - 1)
							}
							pos += int(main[i].Size() / asm.InstructionSize)
						}
						insns := append(main, callee...)
						prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns}
						sweep.check(&loader.Object{Path: "test", Maps: maps}, prog, func() string {
							return fmt.Sprintf("%s or %s passed %s to a callee (one call site %v) that uses it as %s", a.name, b.name, p.name, oneSite, u.name)
						})
					}
				}
			}
		}
	}
	sweep.done()
}

// pruneSweepSetup is the start of the pruning sweeps' programs (tc): r6
// the context, r7 a 16-byte array value (its lookup's NULL leaves through
// an out-jump), r8 an unknown u64, r9 an unknown u32 (skb->len), fp-16
// and fp-8 zeroed; and the array.
func pruneSweepSetup() (asm.Instructions, []*loader.Map) {
	prologue := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.Mov.Imm(asm.R0, 0),
		asm.StoreMem(asm.RFP, -8, asm.R0, asm.DWord),
		asm.StoreMem(asm.RFP, -16, asm.R0, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.LoadMapPtr(asm.R1, 0),
		asm.FnMapLookupElem.Call(),
		{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JEq).SetSource(asm.ImmSource), Dst: asm.R0, Offset: -1},
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.FnKtimeGetNs.Call(),
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.LoadMem(asm.R9, asm.R6, 0, asm.Word),
	}
	return prologue, []*loader.Map{{Name: "arr", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 4}}
}

// TestCallbackPruningLiveKernel is the pruning diamond before a bpf_loop:
// each path spills one of the shapes to fp-24, and bpf_loop (once, three
// times, or a bounded unknown number of times) runs a callback that reads
// the spill through its context pointer and leaves it, overwrites it with
// the loop index or with a constant; after the loop the main program
// reads it back and uses it as a map value offset, a pointer, or not at
// all. The callback's states are checked for convergence at its entry
// and pruned against one another across iterations (the kernel's
// callback_depth, is_state_visited at the callback's first instruction,
// the caller's stack read through a pointer), which production tracing
// programs exercise heavily; the level-2 logs are compared state by
// state. By default every 41st program; VERCHECK_PRUNING_ALL=1 takes all.
func TestCallbackPruningLiveKernel(t *testing.T) {
	sweep := newLogSweep(t)
	prologue, maps := pruneSweepSetup()
	counts := []struct {
		name string
		set  asm.Instruction
	}{{"1", asm.Mov.Imm(asm.R1, 1)}, {"3", asm.Mov.Imm(asm.R1, 3)}, {"[0,3]", asm.And.Imm(asm.R1, 3)}}
	modes := []struct {
		name  string
		insns asm.Instructions
	}{
		{"reads it", nil},
		{"stores the index", asm.Instructions{asm.StoreMem(asm.R2, 0, asm.R1, asm.DWord)}},
		{"stores 5", asm.Instructions{storeImm(asm.R2, 0, 5, asm.DWord)}},
	}
	uses := []struct {
		name  string
		insns asm.Instructions
	}{
		{"map value offset", asm.Instructions{asm.Mov.Reg(asm.R2, asm.R7), asm.Add.Reg(asm.R2, asm.R3), asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte)}},
		{"pointer", asm.Instructions{asm.LoadMem(asm.R0, asm.R3, 0, asm.Byte)}},
		{"unused", nil},
	}
	every := sweepEvery("VERCHECK_PRUNING_ALL", 41)
	shapes := pruneShapes()
	n := 0
	for _, a := range shapes {
		for _, b := range shapes {
			for _, c := range counts {
				for _, m := range modes {
					for _, u := range uses {
						n++
						if n%every != 0 {
							continue
						}
						spill := asm.StoreMem(asm.RFP, -24, asm.R3, asm.DWord)
						pathA := append(append(asm.Instructions{}, a.set...), spill)
						pathB := append(append(asm.Instructions{}, b.set...), spill)
						main := append(asm.Instructions{}, prologue...)
						main = append(main, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource),
							Dst: asm.R9, Constant: 100, Offset: int16(slots(pathA) + 1)})
						main = append(main, pathA...)
						main = append(main, asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: int16(slots(pathB))})
						main = append(main, pathB...)
						main = append(main, asm.Mov.Reg(asm.R1, asm.R9), c.set,
							asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc},
							asm.Mov.Reg(asm.R3, asm.RFP), asm.Add.Imm(asm.R3, -24), asm.Mov.Imm(asm.R4, 0),
							asm.FnLoop.Call(), asm.LoadMem(asm.R3, asm.RFP, -24, asm.DWord))
						main = append(main, u.insns...)
						main = append(main, asm.Mov.Imm(asm.R0, 0), asm.Return())
						main = withOutExit(main)
						// The callback: read the spill, branch on it (a
						// checkpoint), then the mode's store.
						cb := asm.Instructions{asm.LoadMem(asm.R3, asm.R2, 0, asm.DWord),
							asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JGT).SetSource(asm.ImmSource), Dst: asm.R3, Constant: 7, Offset: 1},
							asm.Mov.Imm(asm.R0, 0)}
						cb = append(cb, m.insns...)
						cb = append(cb, asm.Mov.Imm(asm.R0, 0), asm.Return())
						start := slots(main)
						pointFuncLoads(main, start)
						insns, funcs := cgRawFuncInfo(append(main, cb...), []int{0, start})
						prog := &loader.Program{Name: "p", Type: ebpf.SchedCLS, License: "GPL", GPLCompatible: true, Instructions: insns, Funcs: funcs}
						sweep.check(&loader.Object{Path: "test", Maps: maps}, prog, func() string {
							return fmt.Sprintf("fp-24 = %s or %s, bpf_loop(%s) whose callback %s, then used as %s", a.name, b.name, c.name, m.name, u.name)
						})
					}
				}
			}
		}
	}
	sweep.done()
}

// pointFuncLoads makes every function address load (BPF_PSEUDO_FUNC) of
// insns name the subprogram starting at raw slot start, as its relative
// immediate.
func pointFuncLoads(insns asm.Instructions, start int) {
	pos := 0
	for i := range insns {
		if insns[i].Src == asm.PseudoFunc && insns[i].OpCode.IsDWordLoad() {
			insns[i].Constant = int64(start - pos - 1)
		}
		pos += int(insns[i].Size() / asm.InstructionSize)
	}
}

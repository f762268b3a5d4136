package verifier

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
)

// The bpf_fastcall contract: clang spills the live r0-r5 around a call of
// a helper or kfunc with the bpf_fastcall attribute into the lowest stack
// slots of the function, and a kernel that inlines the call drops those
// spill/fill pairs after verification (remove_fastcall_spills_fills),
// shrinking the subprogram's stack depth before check_max_stack_depth
// measures the combined stack. The pairs are verified as written: only the
// stack depth (the combined-stack verdict and the reported depth) changes.

// fastcallKfuncs are the kfuncs flagged KF_FASTCALL in 6.18.
var fastcallKfuncs = map[string]bool{"bpf_cast_to_kern_ctx": true, "bpf_rdonly_cast": true}

// smpFastcallTypes are the program types whose bpf_get_smp_processor_id
// is the proto with allow_fastcall (the tracing, XDP, tc and lwt func
// protos); the others get bpf_base_func_proto's raw one, which is not
// fastcall. Measured on the running kernel (fc13_fastcall.c); LSM and
// struct_ops, not measured, are taken as not fastcall, the stricter rule.
var smpFastcallTypes = map[ebpf.ProgramType]bool{
	ebpf.Kprobe: true, ebpf.TracePoint: true, ebpf.PerfEvent: true, ebpf.RawTracepoint: true,
	ebpf.RawTracepointWritable: true, ebpf.Tracing: true, ebpf.Syscall: true, ebpf.XDP: true,
	ebpf.SchedCLS: true, ebpf.SchedACT: true, ebpf.LWTIn: true, ebpf.LWTOut: true,
	ebpf.LWTXmit: true, ebpf.LWTSeg6Local: true,
}

// fastcallState is what mark_fastcall_patterns records before do_check
// and check_fastcall_stack_contract revokes during it.
type fastcallState struct {
	// pattern marks the spills and fills of a pattern (fastcall_pattern).
	pattern []bool
	// spills is the number of pairs a fastcall call's pattern drops
	// (fastcall_spills_num), 0 for other calls.
	spills []int
	// stackOff is each subprogram's fastcall_stack_off: the pattern slots
	// lie below it.
	stackOff []int
	// keep is keep_fastcall_stack: a pattern around a call that is not
	// fastcall on this kernel keeps the subprogram's stack.
	keep []bool
}

// fastcallSummary is get_call_summary: whether the call is a helper or
// kfunc the kernel knows here, its parameter count, whether it returns
// void, and whether it is fastcall on this kernel (a helper the x86-64
// verifier inlines, bpf_get_smp_processor_id, when the program is JITed;
// a KF_FASTCALL kfunc).
func (e *env) fastcallSummary(call insn.Insn) (params int, void, fastcall, ok bool) {
	switch {
	case call.IsHelperCall():
		n := e.helperArgCount(call.Imm)
		p, known := helpers.Lookup(call.Imm)
		if n < 0 || !known {
			return 0, false, false, false
		}
		fast := call.Imm == 8 && !e.build.Interpreted && smpFastcallTypes[e.progType] // BPF_FUNC_get_smp_processor_id
		return n, p.Ret == helpers.RetVoid, fast, true
	case call.IsKfuncCall():
		n := e.kfuncArgCount(call)
		if n < 0 {
			return 0, false, false, false
		}
		info, err := kfuncCallee(call)
		if err != nil {
			return 0, false, false, false
		}
		_, isVoid := info.proto.Return.(*btf.Void)
		return n, isVoid || info.proto.Return == nil, fastcallKfuncs[info.name], true
	}
	return 0, false, false, false
}

// markFastcallPatterns is mark_fastcall_patterns: for each call, the
// spill/fill pairs of r0-r5 (those the call would not clobber) at
// consecutive slots from the lowest spill slot of the subprogram upwards,
// the i-th spill just before the call matching the i-th fill just after.
func (e *env) markFastcallPatterns() {
	fc := &e.fastcall
	// The per-instruction marks are made when a first pattern is found:
	// most programs have none, and this runs for every program.
	fc.pattern, fc.spills = nil, nil
	fc.stackOff = make([]int, len(e.cfg.Subprogs))
	fc.keep = make([]bool, len(e.cfg.Subprogs))
	const spill, fill = insn.ClassSTX | insn.ModeMEM | insn.SizeDW, insn.ClassLDX | insn.ModeMEM | insn.SizeDW
	for s, sp := range e.cfg.Subprogs {
		lowest := 0
		for i := sp.Start; i < sp.End; i++ {
			if in := e.prog[i]; in.Op == spill && in.Dst == 10 {
				lowest = min(lowest, int(in.Off))
			}
		}
		for idx := sp.Start; idx < sp.End; idx++ {
			if e.prog[idx].Op != insn.ClassJMP|insn.JmpCall {
				continue
			}
			params, void, fast, ok := e.fastcallSummary(e.prog[idx])
			if !ok {
				continue
			}
			lowBit := 0
			if void {
				lowBit = 1
			}
			expected := uint32(0x3f)
			for r := lowBit; r <= params; r++ {
				expected &^= 1 << r
			}
			i, off := 1, lowest
			for ; i <= 6; i, off = i+1, off+8 {
				if idx-i < 0 || idx+i >= len(e.prog) {
					break
				}
				// No spill but the first, no fill and not the call
				// may be a jump target (a stable fix of 6.12 and
				// 6.18 kernels: a path entering the pattern
				// midway would read slots no spill wrote).
				if e.cfg.JumpTarget(idx-i+1) || e.cfg.JumpTarget(idx+i) {
					break
				}
				stx, ldx := e.prog[idx-i], e.prog[idx+i]
				if stx.Op != spill || ldx.Op != fill || stx.Dst != 10 || ldx.Src != 10 ||
					stx.Src != ldx.Dst || expected&(1<<stx.Src) == 0 || int(stx.Off) != off || int(ldx.Off) != off {
					break
				}
				expected &^= 1 << stx.Src
				if fc.pattern == nil {
					fc.pattern, fc.spills = make([]bool, len(e.prog)), make([]int, len(e.prog))
				}
				fc.pattern[idx-i], fc.pattern[idx+i] = true, true
			}
			if i == 1 {
				continue
			}
			if fast {
				fc.spills[idx] = i - 1
			} else {
				fc.keep[s] = true
			}
			fc.stackOff[s] = min(fc.stackOff[s], off)
		}
	}
}

// checkFastcallContract is check_fastcall_stack_contract: an access at or
// below off to the pattern slots of subprogram sp from an instruction
// outside every pattern revokes the subprogram's patterns. The kernel's
// source checks stores and loads, against the subprogram of the frame the
// pointer points into; the live 6.18 kernel also revokes them when a
// helper, kfunc or global function reads a pattern slot through a memory
// argument (checkStackRangeInit; s34_fastcall_helper_read.c shows it:
// the frame keeps its spill slots, and a combined stack depth over 512
// is refused). A program without any pattern has nothing to revoke.
func (e *env) checkFastcallContract(sp, off int) {
	fc := &e.fastcall
	if fc.pattern == nil || sp < 0 || sp >= len(fc.stackOff) || fc.stackOff[sp] <= off || fc.pattern[e.insnIdx] {
		return
	}
	fc.stackOff[sp] = -1 << 15
	for i := e.cfg.Subprogs[sp].Start; i < e.cfg.Subprogs[sp].End; i++ {
		fc.spills[i], fc.pattern[i] = 0, false
	}
}

// fastcallNops marks the spills and fills remove_fastcall_spills_fills
// turns into "goto +0" (NOP), which opt_remove_nops then drops: the
// instructions around each fastcall pattern's call; nil when no pattern
// is left.
func (e *env) fastcallNops() []bool {
	fc := &e.fastcall
	if fc.spills == nil {
		return nil
	}
	nops := make([]bool, len(e.prog))
	for i, n := range fc.spills {
		for j := 1; j <= int(n); j++ {
			for _, k := range [2]int{i - j, i + j} {
				if k >= 0 && k < len(nops) {
					nops[k] = true
				}
			}
		}
	}
	return nops
}

// removeFastcallSpillsFills is the stack part of
// remove_fastcall_spills_fills: a subprogram that keeps a fastcall pattern
// to drop, and no pattern around a call that is not fastcall, has the
// depth its pattern slots start at.
func (e *env) removeFastcallSpillsFills() {
	fc := &e.fastcall
	if fc.spills == nil {
		return // no pattern
	}
	for s, sp := range e.cfg.Subprogs {
		if fc.keep[s] || s >= len(e.stackDepth) {
			continue
		}
		for i := sp.Start; i < sp.End; i++ {
			if fc.spills[i] > 0 {
				e.stackDepth[s] = -fc.stackOff[s]
				break
			}
		}
	}
}

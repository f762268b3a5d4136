package verifier

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestCallGraphLiveKernel builds programs out of functions that call each
// other and compares verdict, decisive message, insn_processed and, for
// accepted programs, the "stack depth" figures with the running kernel.
// It checks the kernel's call-graph rules: check_subprogs (a jump out of
// its function, "last insn is not an exit or jmp", a call into the middle
// of a function, which splits it), check_cfg (unreachable insns,
// back-edges), recursion (which do_check meets as a ninth frame), the
// frame limit of do_check (MAX_CALL_FRAMES, 8) and above all
// check_max_stack_depth and check_max_stack_depth_subprog, run after
// every path is verified: the frames of each static call chain, each
// rounded to 16 bytes, may add up to 512 bytes ("combined stack size of N
// calls is X. Too large"), at most 8 deep ("the call stack of N frames is
// too deep !", where global functions, verified apart, add frames
// do_check never pushed, as do functions whose address is only taken); a
// function doing a tail call may be reached with at most 256 bytes of
// callers' frames (the tail call keeps them); bpf_loop callbacks count
// where their address is loaded, timer and exception callbacks start a
// stack of their own; and bpf_enable_priv_stack gives the frames of 64
// bytes or more (BPF_PRIV_STACK_MIN_SIZE) of tracepoint, raw_tracepoint
// and perf_event programs (and of kprobes, on builds that lack the
// stable fix) a stack of their own, outside the 512-byte budget, unless
// some function of the program holds a tail call (has_tail_call, a
// property of the code, not of the paths). A wrong sum here accepts a
// program whose stack the JIT would overrun: the worst mistake vercheck
// can make.
//
// The programs (cgPrograms) are chains of 1 to 9 functions with frame
// sizes (the deepest slot each writes) among cgFrames, with and without
// a tail call in some function; random call graphs where functions are
// called from several places; bpf_loop callbacks, timer callbacks and
// functions whose address is only taken, with chains of their own;
// global functions (with BTF func info) in a chain; bpf_throw with an
// exception callback; and hand-written listings of the structural errors
// (cgStructural); each for eight program types. The kernel wants func
// info for a function's address and for a tail call outside the main
// function, so those programs carry it. A program the kernel's verifier
// faults on ("verifier bug: No program to jit") and vercheck declines
// with ErrKernelFault, quoting that fault, counts as agreement.
//
// By default all but the static chains, of which a fixed sample of 2000
// (some 7,500 programs, 15 s); VERCHECK_CALLGRAPH_ALL=1 for all (some
// 30,000); VERCHECK_CALLGRAPH_ONLY=s keeps the programs whose listing
// holds s and logs both verdicts of each.
func TestCallGraphLiveKernel(t *testing.T) {
	spec, missing := liveKernelBTF(t)
	var throwID int64
	var throwFn *btf.Func
	if spec.TypeByName("bpf_throw", &throwFn) == nil {
		if id, err := spec.TypeID(throwFn); err == nil {
			throwID = int64(id)
		}
	}
	progs := cgPrograms(throwID != 0)
	if os.Getenv("VERCHECK_CALLGRAPH_ALL") == "" {
		progs = cgSample(progs, 2000)
	}
	only := os.Getenv("VERCHECK_CALLGRAPH_ONLY")
	if only != "" {
		progs = slices.DeleteFunc(progs, func(p cgProg) bool { return !strings.Contains(p.String(), only) })
	}
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	timer := &btf.Struct{Name: "bpf_timer", Size: 16, Members: []btf.Member{
		{Name: "a", Type: u64}, {Name: "b", Type: u64, Offset: 64}}}
	objMaps := []*loader.Map{
		{Name: "jmp", Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 1},
		{Name: "timers", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 1, Spec: &ebpf.MapSpec{
			Key: u32, Value: &btf.Struct{Name: "elem", Size: 16, Members: []btf.Member{{Name: "t", Type: timer}}}}},
	}
	compared, accepted, differ, noVerdict, faults := 0, 0, 0, 0, 0
	var diffs cgDiffs
	reasons := map[string][]string{} // no verdict: why, for which programs
	for _, cp := range progs {
		insns, funcs := cp.build(throwID)
		obj := &loader.Object{Path: "test", Maps: objMaps}
		p := &loader.Program{Name: "main", Type: cp.typ.pt, AttachType: cp.typ.at, License: "GPL",
			GPLCompatible: true, Instructions: insns, Funcs: funcs}
		kres := kernel.LoadProgramVerdict(obj, p)
		if kres.NotLoaded {
			noVerdict++
			if len(reasons[kres.Err]) < 2 {
				reasons[kres.Err] = append(reasons[kres.Err], cp.String())
			}
			continue
		}
		compared++
		if kres.Accepted {
			accepted++
		}
		res := Verify(obj, p, Options{MissingFixes: missing})
		got := ""
		var re *RejectError
		if errors.As(res.Err, &re) {
			got = lastLine(re.Msg)
		} else if res.Err != nil {
			got = res.Err.Error()
		}
		if errors.Is(res.Err, ErrKernelFault) && kres.Err != "" && strings.Contains(got, kres.Err) {
			// vercheck declines a program the kernel's verifier faults
			// on, quoting the fault: agreement.
			faults++
			continue
		}
		// The kernel's "stack depth" line names the functions left once
		// opt_remove_dead_code has dropped those no path reached.
		depth := cgStackDepth(res.Stats.StackDepth)
		if only != "" {
			t.Logf("%s: kernel %v %q insns %d depth %s; vercheck %v %q insns %d depth %s", cp,
				kres.Accepted, kres.Err, kres.InsnProcessed, kres.StackDepth, res.Accepted, got, res.Stats.InsnProcessed, depth)
		}
		if got == kres.Err && (!res.Accepted ||
			res.Stats.InsnProcessed == kres.InsnProcessed && depth == kres.StackDepth) {
			continue
		}
		differ++
		switch {
		case res.Accepted && !kres.Accepted:
			diffs.add(0, "FALSE ACCEPT %s: kernel %q, vercheck accepts", cp, kres.Err)
		case kres.Accepted && !res.Accepted:
			diffs.add(1, "false reject %s: kernel accepts, vercheck %q", cp, got)
		case !res.Accepted:
			diffs.add(2, "message %s: kernel %q, vercheck %q", cp, kres.Err, got)
		case res.Stats.InsnProcessed != kres.InsnProcessed:
			diffs.add(3, "insn_processed %s: vercheck %d, kernel %d", cp, res.Stats.InsnProcessed, kres.InsnProcessed)
		default:
			diffs.add(4, "stack depth %s: vercheck %s, kernel %s", cp, depth, kres.StackDepth)
		}
	}
	diffs.report(t)
	for _, why := range slices.Sorted(maps.Keys(reasons)) {
		t.Logf("no verdict (%s) on %s", why, strings.Join(reasons[why], " | "))
	}
	if compared == 0 {
		t.Skipf("the kernel gave no verdict on any of %d programs", len(progs))
	}
	t.Logf("%d programs compared (%d accepted by the kernel, %d kernel faults vercheck declines as such), %d differ; %d without a verdict",
		compared, accepted, faults, differ, noVerdict)
}

// cgDiffs collects the differences by class, the worst first: false
// accepts, false rejects, other messages, insn_processed, the "stack
// depth" figures. A sweep may find one mistake in hundreds of programs;
// the cgDiffShown shortest of each class are listed, the rest counted,
// so that the tail of the output holds every class.
type cgDiffs [5][]string

const cgDiffShown = 10

var cgDiffClasses = [...]string{"FALSE ACCEPT", "false reject", "message", "insn_processed", "stack depth"}

func (d *cgDiffs) add(class int, format string, args ...any) {
	d[class] = append(d[class], fmt.Sprintf(format, args...))
}

func (d *cgDiffs) report(t *testing.T) {
	t.Helper()
	var counts []string
	for class, msgs := range d {
		// The shortest listings first: the smallest programs that show
		// a difference.
		slices.SortStableFunc(msgs, func(a, b string) int { return len(a) - len(b) })
		for _, m := range msgs[:min(len(msgs), cgDiffShown)] {
			t.Error(m)
		}
		if len(msgs) > cgDiffShown {
			t.Errorf("%s: %d more differences of this class", cgDiffClasses[class], len(msgs)-cgDiffShown)
		}
		counts = append(counts, fmt.Sprintf("%s %d", cgDiffClasses[class], len(msgs)))
	}
	t.Logf("differences by class: %s", strings.Join(counts, ", "))
}

// cgFrames are the frame sizes of the sweep: the deepest stack slot a
// function writes. 64 is BPF_PRIV_STACK_MIN_SIZE, 256 the limit of the
// callers of a tail call, 512 MAX_BPF_STACK; the others fall on either
// side of them and of the 16-byte rounding.
var cgFrames = []int{0, 8, 56, 64, 128, 248, 256, 264, 504, 512}

// cgType is a program type of the sweep.
type cgType struct {
	name string
	pt   ebpf.ProgramType
	at   ebpf.AttachType
}

// cgTypes: the tracepoint, raw_tracepoint and perf_event programs get a
// private stack, kprobes too on builds without the stable fix, the others
// never.
var cgTypes = []cgType{
	{"tc", ebpf.SchedCLS, 0}, {"xdp", ebpf.XDP, 0}, {"socket", ebpf.SocketFilter, 0},
	{"kprobe", ebpf.Kprobe, 0}, {"tracepoint", ebpf.TracePoint, 0}, {"raw_tp", ebpf.RawTracepoint, 0},
	{"perf_event", ebpf.PerfEvent, 0}, {"cgroup_skb", ebpf.CGroupSKB, ebpf.AttachCGroupInetIngress},
}

// cgFn is one function of a generated program. Every function starts
// with r6 = r1 (the context, in a function called from one that has it)
// and writes 0 to its deepest slot; then come, in this order, its calls
// (r1 = r6 before each), the tail call, bpf_loop, the loaded address, the
// timer and bpf_throw; it returns 0.
type cgFn struct {
	frame  int   // the deepest stack slot written, 0 for none
	global bool  // BTF_FUNC_GLOBAL, int f(void *ctx __arg_ctx)
	calls  []int // functions called
	tail   bool  // bpf_tail_call(r6, &jmp, 0)
	loop   int   // when not 0, bpf_loop(1, fN, NULL, 0)
	ref    int   // when not 0, r2 = fN, an address taken and dropped
	timer  int   // when not 0, fN set as the callback of the map's timer
	throw  bool  // bpf_throw(0) when bpf_get_prandom_u32() is 0
}

// cgProg is one program of the sweep: functions (function 0 the main
// one) or a hand-written listing.
type cgProg struct {
	typ  cgType
	fns  []cgFn
	btf  bool // BTF func info for every function (see usesBTF for when it is implied)
	exc  int  // when not 0, the exception callback: a global int fN(u64)
	name string
	raw  asm.Instructions // a hand-written listing
	// rawFuncs are the starts of a listing's functions, for func info
	// (none when nil).
	rawFuncs []int
	// many: one of the static chains, of which the default run samples.
	many bool
}

// usesBTF: the kernel takes a function's address (bpf_loop, timers) only
// from a program with func info ("missing btf func_info"), and a tail
// call only in the main function without it ("tail_call is not allowed
// in subprogs without BTF").
func (p cgProg) usesBTF() bool {
	return p.btf || p.exc != 0 || slices.ContainsFunc(p.fns, func(f cgFn) bool {
		return f.global || f.loop != 0 || f.ref != 0 || f.timer != 0
	}) || len(p.fns) > 1 && slices.ContainsFunc(p.fns[1:], func(f cgFn) bool { return f.tail })
}

// String is the program's listing: per function its frame and what it
// does.
func (p cgProg) String() string {
	var b strings.Builder
	b.WriteString(p.typ.name + ": ")
	if p.raw != nil {
		b.WriteString(p.name)
		return b.String()
	}
	if p.usesBTF() {
		b.WriteString("(func info) ")
	}
	for k, f := range p.fns {
		if k > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "f%d[%d]", k, f.frame)
		if f.global {
			b.WriteString(" global")
		}
		if k == p.exc && k != 0 {
			b.WriteString(" exception-cb")
		}
		for _, c := range f.calls {
			fmt.Fprintf(&b, " call f%d", c)
		}
		if f.tail {
			b.WriteString(" tail_call")
		}
		if f.loop != 0 {
			fmt.Fprintf(&b, " bpf_loop(f%d)", f.loop)
		}
		if f.ref != 0 {
			fmt.Fprintf(&b, " &f%d", f.ref)
		}
		if f.timer != 0 {
			fmt.Fprintf(&b, " timer(f%d)", f.timer)
		}
		if f.throw {
			b.WriteString(" bpf_throw")
		}
	}
	return b.String()
}

// build lays the functions out in order and resolves the calls and
// function addresses; with func info, it returns it too.
func (p cgProg) build(throwID int64) (asm.Instructions, []loader.Func) {
	if p.raw != nil {
		return cgRawFuncInfo(slices.Clone(p.raw), p.rawFuncs)
	}
	type fixup struct{ at, fn int }
	var insns asm.Instructions
	var fixups []fixup
	emit := func(ins ...asm.Instruction) { insns = append(insns, ins...) }
	call := func(fn int) {
		fixups = append(fixups, fixup{len(insns), fn})
		emit(asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall})
	}
	funcPtr := func(dst asm.Register, fn int) {
		fixups = append(fixups, fixup{len(insns), fn})
		emit(asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: dst, Src: asm.PseudoFunc})
	}
	starts := make([]int, len(p.fns))
	for k, f := range p.fns {
		starts[k] = len(insns)
		emit(asm.Mov.Reg(asm.R6, asm.R1))
		if f.frame > 0 {
			emit(cgZero(f.frame))
		}
		for _, c := range f.calls {
			if c == p.exc {
				emit(asm.Mov.Imm(asm.R1, 0)) // the cookie
			} else {
				emit(asm.Mov.Reg(asm.R1, asm.R6))
			}
			call(c)
		}
		if f.tail {
			emit(asm.Mov.Reg(asm.R1, asm.R6), asm.LoadMapPtr(asm.R2, 0), asm.Mov.Imm(asm.R3, 0), asm.FnTailCall.Call())
		}
		if f.loop != 0 {
			emit(asm.Mov.Imm(asm.R1, 1))
			funcPtr(asm.R2, f.loop)
			emit(asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call())
		}
		if f.ref != 0 {
			funcPtr(asm.R2, f.ref)
		}
		if f.timer != 0 {
			// The key, 0, is the function's deepest slot (frame >= 8).
			emit(asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, int32(-f.frame)),
				asm.LoadMapPtr(asm.R1, 1), asm.FnMapLookupElem.Call())
			skip := asm.JEq.Imm(asm.R0, 0, "")
			skip.Offset = 10 // the 10 slots below
			emit(skip, asm.Mov.Reg(asm.R7, asm.R0),
				asm.Mov.Reg(asm.R1, asm.R7), asm.LoadMapPtr(asm.R2, 1), asm.Mov.Imm(asm.R3, 1), asm.FnTimerInit.Call(),
				asm.Mov.Reg(asm.R1, asm.R7))
			funcPtr(asm.R2, f.timer)
			emit(asm.FnTimerSetCallback.Call())
		}
		if f.throw {
			skip := asm.JNE.Imm(asm.R0, 0, "")
			skip.Offset = 2
			emit(asm.FnGetPrandomU32.Call(), skip, asm.Mov.Imm(asm.R1, 0),
				asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: throwID})
		}
		emit(asm.Mov.Imm(asm.R0, 0), asm.Return())
	}
	slot := make([]int, len(insns)+1)
	for i, ins := range insns {
		slot[i+1] = slot[i] + int(ins.Size()/asm.InstructionSize)
	}
	for _, fx := range fixups {
		insns[fx.at].Constant = int64(slot[starts[fx.fn]] - slot[fx.at] - 1)
	}
	if !p.usesBTF() {
		return insns, nil
	}
	intT := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	ctx := []btf.FuncParam{{Name: "ctx", Type: &btf.Pointer{Target: &btf.Void{}}}}
	funcs := make([]loader.Func, len(p.fns))
	for k, f := range p.fns {
		fn := &btf.Func{Name: fmt.Sprintf("f%d", k), Linkage: btf.StaticFunc, Type: &btf.FuncProto{Return: intT, Params: ctx}}
		switch {
		case k == 0:
			fn.Name, fn.Linkage = "main", btf.GlobalFunc
			if p.exc != 0 {
				fn.Tags = []string{fmt.Sprintf("exception_callback:f%d", p.exc)}
			}
		case k == p.exc:
			fn.Linkage = btf.GlobalFunc
			fn.Type = &btf.FuncProto{Return: intT, Params: []btf.FuncParam{{Name: "cookie", Type: &btf.Int{Name: "u64", Size: 8}}}}
		case f.global:
			fn.Linkage = btf.GlobalFunc
			fn.ParamTags = [][]string{{"arg:ctx"}}
		}
		insns[starts[k]] = btf.WithFuncMetadata(insns[starts[k]], fn)
		funcs[k] = loader.Func{Start: slot[starts[k]], Name: fn.Name, Global: fn.Linkage == btf.GlobalFunc, BTF: fn}
	}
	return insns, funcs
}

// cgRawFuncInfo gives a listing func info: static functions at starts
// (raw slots), main global.
func cgRawFuncInfo(insns asm.Instructions, starts []int) (asm.Instructions, []loader.Func) {
	if starts == nil {
		return insns, nil
	}
	intT := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	proto := &btf.FuncProto{Return: intT, Params: []btf.FuncParam{{Name: "ctx", Type: &btf.Pointer{Target: &btf.Void{}}}}}
	var funcs []loader.Func
	slot := 0
	for i := range insns {
		if k := slices.Index(starts, slot); k >= 0 {
			fn := &btf.Func{Name: fmt.Sprintf("f%d", k), Linkage: btf.StaticFunc, Type: proto}
			if k == 0 {
				fn.Name, fn.Linkage = "main", btf.GlobalFunc
			}
			insns[i] = btf.WithFuncMetadata(insns[i], fn)
			funcs = append(funcs, loader.Func{Start: slot, Name: fn.Name, Global: k == 0, BTF: fn})
		}
		slot += int(insns[i].Size() / asm.InstructionSize)
	}
	return insns, funcs
}

// cgZero is *(u64 *)(r10 - off) = 0 (asm.StoreImm refuses DWord).
func cgZero(off int) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: asm.RFP, Offset: int16(-off)}
}

// cgStackDepth formats vercheck's stack depths as the kernel's "stack
// depth" line does.
func cgStackDepth(depths []int) string {
	s := make([]string, len(depths))
	for i, d := range depths {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "+")
}

// cgSample keeps n of the static chains, chosen with a fixed seed, and
// every other program, in their order.
func cgSample(progs []cgProg, n int) []cgProg {
	var many []int
	for i, p := range progs {
		if p.many {
			many = append(many, i)
		}
	}
	rng := rand.New(rand.NewPCG(18, 6))
	keep := make([]bool, len(progs))
	for _, k := range rng.Perm(len(many))[:min(n, len(many))] {
		keep[many[k]] = true
	}
	var out []cgProg
	for i, p := range progs {
		if keep[i] || !p.many {
			out = append(out, p)
		}
	}
	return out
}

// cgChain is n functions, each calling the next, with these frames.
func cgChain(frames ...int) []cgFn {
	fns := make([]cgFn, len(frames))
	for k := range fns {
		fns[k].frame = frames[k]
		if k+1 < len(fns) {
			fns[k].calls = []int{k + 1}
		}
	}
	return fns
}

// cgPrograms generates every program of the sweep, in a fixed order.
func cgPrograms(haveThrow bool) []cgProg {
	rng := rand.New(rand.NewPCG(6, 18))
	frame := func() int { return cgFrames[rng.IntN(len(cgFrames))] }
	var progs []cgProg
	add := func(typ cgType, fns []cgFn, withBTF bool) {
		progs = append(progs, cgProg{typ: typ, fns: fns, btf: withBTF})
	}
	for _, typ := range cgTypes {
		// Static chains: the main function's frame and the others',
		// with no tail call or one in the first, the second or the last
		// function.
		for n := 1; n <= 9; n++ {
			for _, m := range cgFrames {
				for _, s := range cgFrames {
					frames := make([]int, n)
					for k := range frames {
						frames[k] = s
					}
					frames[0] = m
					if n == 1 && s != cgFrames[0] {
						continue
					}
					for _, tail := range slices.Compact([]int{-1, 0, min(1, n-1), n - 1}) {
						fns := cgChain(frames...)
						if tail >= 0 {
							fns[tail].tail = true
						}
						progs = append(progs, cgProg{typ: typ, fns: fns, many: true})
					}
				}
			}
			// Random frames, a random tail call.
			for range 12 {
				frames := make([]int, n)
				for k := range frames {
					frames[k] = frame()
				}
				fns := cgChain(frames...)
				if k := rng.IntN(n + 2); k < n {
					fns[k].tail = true
				}
				add(typ, fns, rng.IntN(4) == 0)
			}
		}
		// Random call graphs: function k is called by an earlier one,
		// and maybe by more, so that the same function is reached from
		// several places along chains of different weights.
		for range 60 {
			n := 2 + rng.IntN(8)
			fns := make([]cgFn, n)
			for k := range fns {
				fns[k].frame = frame()
			}
			for k := 1; k < n; k++ {
				parent := rng.IntN(k)
				fns[parent].calls = append(fns[parent].calls, k)
				for j := range k {
					if j != parent && rng.IntN(5) == 0 {
						fns[j].calls = append(fns[j].calls, k)
					}
				}
			}
			for k := range fns {
				rng.Shuffle(len(fns[k].calls), func(i, j int) { fns[k].calls[i], fns[k].calls[j] = fns[k].calls[j], fns[k].calls[i] })
			}
			if k := rng.IntN(n + 2); k < n {
				fns[k].tail = true
			}
			globals := rng.IntN(3) == 0
			for k := 1; k < n && globals; k++ {
				fns[k].global = rng.IntN(2) == 0
			}
			add(typ, fns, globals)
		}
		// bpf_loop callbacks: a chain of d0+1 functions whose last calls
		// bpf_loop with a chain of d1+1 functions (or only loads its
		// address, or sets it as a timer callback: a stack of its own).
		for _, how := range []string{"loop", "ref", "timer"} {
			for d0 := range 4 {
				for d1 := range 8 {
					for range 3 {
						frames := make([]int, d0+1+d1+1)
						for k := range frames {
							frames[k] = frame()
						}
						if how == "timer" {
							frames[d0] = max(frames[d0], 8)
						}
						fns := cgChain(frames...)
						fns[d0].calls = nil
						switch how {
						case "loop":
							fns[d0].loop = d0 + 1
						case "ref":
							fns[d0].ref = d0 + 1
						case "timer":
							fns[d0].timer = d0 + 1
						}
						if rng.IntN(3) == 0 {
							fns[rng.IntN(d0+1)].tail = true
						}
						add(typ, fns, true)
					}
				}
			}
		}
		// A function both a callback's and the main function's chain
		// call: f0 calls f1, which calls f2; f3, a bpf_loop or timer
		// callback of f0, calls f2 too. A function an asynchronous
		// callback reaches gets no private stack in the main chain either.
		for _, timer := range []bool{false, true} {
			for range 16 {
				fns := []cgFn{{frame: max(frame(), 8), calls: []int{1}}, {frame: frame(), calls: []int{2}},
					{frame: frame()}, {frame: frame(), calls: []int{2}}}
				if timer {
					fns[0].timer = 3
				} else {
					fns[0].loop = 3
				}
				if rng.IntN(4) == 0 {
					fns[rng.IntN(2)].tail = true
				}
				add(typ, fns, true)
			}
		}
		// Global functions in a chain: they are verified apart, and do_check
		// pushes no frame for them, but check_max_stack_depth walks them.
		for n := 2; n <= 9; n++ {
			for _, s := range cgFrames {
				fns := cgChain(slices.Repeat([]int{s}, n)...)
				for k := 1; k < n; k++ {
					fns[k].global = true
				}
				add(typ, fns, true)
			}
			for range 8 {
				frames := make([]int, n)
				for k := range frames {
					frames[k] = frame()
				}
				fns := cgChain(frames...)
				for k := 1; k < n; k++ {
					fns[k].global = rng.IntN(2) == 0
				}
				if k := rng.IntN(n + 2); k < n {
					fns[k].tail = true
				}
				add(typ, fns, true)
			}
		}
		// bpf_throw and an exception callback with a chain of its own.
		if haveThrow {
			for d := range 9 {
				for range 3 {
					frames := make([]int, 1+d+1)
					for k := range frames {
						frames[k] = frame()
					}
					fns := cgChain(frames...)
					fns[0].calls, fns[0].throw = nil, true
					progs = append(progs, cgProg{typ: typ, fns: fns, btf: true, exc: 1})
				}
			}
			// bpf_throw in a bpf_loop callback and in a function it
			// calls; the exception callback called directly; bpf_throw
			// in a chain whose frames reach the limit.
			cb := []cgFn{{frame: 8, loop: 1}, {frame: 8, throw: true}, {frame: 8}}
			progs = append(progs, cgProg{typ: typ, fns: cb, btf: true, exc: 2})
			cb = []cgFn{{frame: 8, loop: 1}, {frame: 8, calls: []int{2}}, {frame: 8, throw: true}, {frame: 8}}
			progs = append(progs, cgProg{typ: typ, fns: cb, btf: true, exc: 3})
			direct := []cgFn{{frame: 8, calls: []int{1}, throw: true}, {frame: 8}}
			progs = append(progs, cgProg{typ: typ, fns: direct, btf: true, exc: 1})
			deep := cgChain(256, 128, 64, 56)
			deep[3].throw = true
			deep = append(deep, cgFn{frame: 8})
			progs = append(progs, cgProg{typ: typ, fns: deep, btf: true, exc: 4})
		}
		progs = append(progs, cgStructural(typ)...)
	}
	return progs
}

// cgStructural are hand-written listings of the call graph's structural
// errors and their neighbours.
func cgStructural(typ cgType) []cgProg {
	callTo := func(off int64) asm.Instruction {
		return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall, Constant: off}
	}
	funcAt := func(dst asm.Register, off int64) asm.Instruction {
		return asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: dst, Src: asm.PseudoFunc, Constant: off}
	}
	jmp := func(op asm.JumpOp, dst asm.Register, imm int32, off int16) asm.Instruction {
		return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(op), Dst: dst, Constant: int64(imm), Offset: off}
	}
	ja := func(off int16) asm.Instruction {
		return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: off}
	}
	r0 := func(v int64) asm.Instruction { return asm.Mov.Imm(asm.R0, int32(v)) }
	exit := asm.Return()
	listings := []struct {
		name  string
		insns asm.Instructions
		funcs []int // function starts for func info, or nil
	}{
		{"f1 calls itself", asm.Instructions{callTo(2), r0(0), exit, callTo(-1), r0(0), exit}, nil},
		{"f1 calls itself after a branch", asm.Instructions{callTo(2), r0(0), exit,
			asm.FnGetPrandomU32.Call(), jmp(asm.JEq, asm.R0, 0, 1), callTo(-3), r0(0), exit}, nil},
		{"f1 and f2 call each other", asm.Instructions{callTo(2), r0(0), exit, callTo(2), r0(0), exit, callTo(-4), r0(0), exit}, nil},
		{"f1 calls main", asm.Instructions{callTo(2), r0(0), exit, callTo(-4), r0(0), exit}, nil},
		{"main calls itself", asm.Instructions{callTo(-1), r0(0), exit}, nil},
		{"call into the middle of f1", asm.Instructions{callTo(3), callTo(3), r0(0), exit, asm.Mov.Imm(asm.R1, 0), r0(0), exit}, nil},
		{"call into the middle of f1, past its branch", asm.Instructions{callTo(3), callTo(4), r0(0), exit,
			jmp(asm.JEq, asm.R1, 0, 1), asm.Mov.Imm(asm.R1, 0), r0(0), exit}, nil},
		{"f1 jumps back into main", asm.Instructions{callTo(2), r0(0), exit, jmp(asm.JEq, asm.R1, 0, -2), r0(0), exit}, nil},
		{"main jumps into f1", asm.Instructions{jmp(asm.JEq, asm.R1, 0, 3), callTo(2), r0(0), exit, r0(0), exit}, nil},
		{"main ja into f1", asm.Instructions{callTo(2), ja(1), exit, r0(0), exit}, nil},
		{"f1 jumps past the end", asm.Instructions{callTo(2), r0(0), exit, jmp(asm.JEq, asm.R1, 0, 2), r0(0), exit}, nil},
		{"main falls through into f1", asm.Instructions{callTo(1), r0(0), r0(0), exit}, nil},
		{"f1 ends with a call", asm.Instructions{callTo(2), r0(0), exit, r0(0), callTo(-2)}, nil},
		{"f1 ends with ja back", asm.Instructions{callTo(2), r0(0), exit, r0(0), jmp(asm.JNE, asm.R0, 0, 1), exit, ja(-4)}, nil},
		{"f1 loops forever", asm.Instructions{callTo(2), r0(0), exit, r0(0), jmp(asm.JEq, asm.R0, 0, -2), exit}, nil},
		{"bounded loop in f1 around a call", asm.Instructions{callTo(2), r0(0), exit,
			asm.Mov.Imm(asm.R6, 0), callTo(4), asm.Add.Imm(asm.R6, 1), jmp(asm.JLT, asm.R6, 3, -3), r0(0), exit, r0(0), exit}, nil},
		{"unreachable insn after main", asm.Instructions{r0(0), exit, r0(1), exit}, nil},
		{"unreachable f1 called by dead code", asm.Instructions{r0(0), exit, callTo(1), exit, r0(0), exit}, nil},
		{"call past the end", asm.Instructions{callTo(5), r0(0), exit}, nil},
		{"call before the start", asm.Instructions{r0(0), callTo(-3), exit}, nil},
		{"call into an ld_imm64", asm.Instructions{callTo(3), r0(0), exit, asm.LoadImm(asm.R0, 1<<40, asm.DWord), r0(0), exit}, nil},
		{"address of main taken", asm.Instructions{funcAt(asm.R2, -1), r0(0), exit}, []int{0}},
		{"address taken of a function never called", asm.Instructions{funcAt(asm.R2, 3), r0(0), exit, cgZero(512), r0(0), exit}, []int{0, 4}},
		{"bpf_loop callback calls bpf_loop with itself", asm.Instructions{
			asm.Mov.Imm(asm.R1, 1), funcAt(asm.R2, 6), asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call(), r0(0), exit,
			asm.Mov.Imm(asm.R1, 1), funcAt(asm.R2, -2), asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call(), r0(0), exit},
			[]int{0, 8}},
		{"bpf_loop callback calls its caller", asm.Instructions{callTo(2), r0(0), exit,
			asm.Mov.Imm(asm.R1, 1), funcAt(asm.R2, 6), asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call(), r0(0), exit,
			callTo(-9), r0(0), exit}, []int{0, 3, 11}},
		{"tail call in a bpf_loop callback", asm.Instructions{
			asm.Mov.Reg(asm.R6, asm.R1), asm.Mov.Imm(asm.R1, 1), funcAt(asm.R2, 6), asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call(), r0(0), exit,
			asm.LoadMapPtr(asm.R2, 0), asm.Mov.Imm(asm.R3, 0), asm.FnTailCall.Call(), r0(0), exit}, []int{0, 9}},
		{"512 in main, 8 in a bpf_loop callback", asm.Instructions{
			cgZero(512), asm.Mov.Imm(asm.R1, 1), funcAt(asm.R2, 6), asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call(), r0(0), exit,
			cgZero(8), r0(0), exit}, []int{0, 9}},
		// has_tail_call is a property of the code (check_subprogs), not of
		// the paths: a tail call no path reaches takes the private stack
		// away all the same. f0 256 bytes, f1 264.
		{"tail call in f1 on a path never taken", asm.Instructions{
			asm.Mov.Reg(asm.R6, asm.R1), cgZero(256), asm.Mov.Reg(asm.R1, asm.R6), callTo(2), r0(0), exit,
			asm.Mov.Reg(asm.R6, asm.R1), cgZero(264), r0(0), jmp(asm.JEq, asm.R0, 0, 5),
			asm.Mov.Reg(asm.R1, asm.R6), asm.LoadMapPtr(asm.R2, 0), asm.Mov.Imm(asm.R3, 0), asm.FnTailCall.Call(), r0(0), exit},
			[]int{0, 6}},
		// A call no path makes: opt_remove_dead_code drops the call and
		// f1, and the kernel's "stack depth" line names one function.
		{"call on a path never taken", asm.Instructions{r0(0), jmp(asm.JEq, asm.R0, 0, 1), callTo(2), r0(0), exit,
			cgZero(8), r0(0), exit}, nil},
		{"a call never made, to a function between main and a called one", asm.Instructions{
			r0(0), jmp(asm.JEq, asm.R0, 0, 1), callTo(3), callTo(5), r0(0), exit,
			cgZero(8), r0(0), exit, cgZero(16), r0(0), exit}, nil},
		{"tail call in main on a path never taken, f1 called", asm.Instructions{
			asm.Mov.Reg(asm.R6, asm.R1), cgZero(256), r0(0), jmp(asm.JEq, asm.R0, 0, 5),
			asm.Mov.Reg(asm.R1, asm.R6), asm.LoadMapPtr(asm.R2, 0), asm.Mov.Imm(asm.R3, 0), asm.FnTailCall.Call(),
			callTo(2), r0(0), exit, cgZero(264), r0(0), exit}, nil},
	}
	var out []cgProg
	for _, l := range listings {
		out = append(out, cgProg{typ: typ, name: l.name, raw: l.insns, rawFuncs: l.funcs})
	}
	return out
}

package insn

import "math"

// Subprog is one function of the program: the kernel instructions
// [Start, End). Subprogram 0 is the main program.
type Subprog struct {
	Start, End int
}

// Per-instruction control-flow flags, one bit each in CFG.flags.
const (
	flagPrune uint8 = 1 << iota
	flagJmp
	flagForceCheckpoint
	flagCallsCallback
	flagJumpTarget
)

// CFG holds the control-flow facts the verifier needs about a validated
// program, all indexed by kernel instruction number. It is built by
// Analyze and read-only afterwards.
type CFG struct {
	// Subprogs lists the functions in instruction order.
	Subprogs []Subprog
	// HasLoops is set when the depth-first walk met a back-edge (a loop,
	// or a recursive bpf-to-bpf call). Privileged loads allow it.
	HasLoops bool
	// HasSCCs is set when some instruction belongs to a strongly
	// connected component (SCC is not 0 for it): a loop, or with
	// Options.CallbackSCC a call that runs a callback.
	HasSCCs bool

	prog  []Insn
	opts  Options
	flags []uint8
	live  []uint16
	scc   []uint32
	// postorder holds, per subprogram, its reachable instructions in
	// depth-first postorder (the order the kernel's dataflow uses);
	// subprogram i's are postorder[postorderStart[i]:postorderStart[i+1]].
	postorder      []int32
	postorderStart []int
	// succ holds each instruction's successors (successors), the
	// fall-through first and len(prog) for none, found once: every
	// analysis after check_cfg and the verifier's liveness visit each
	// instruction's successors, the strongly connected components' walk
	// several times, and decoding them each time was a tenth of the
	// analyses of a 3,800-instruction program.
	succ [][2]int32
	// sc is the scratch of the analysis under way (nil after it).
	sc *scratch
}

// Postorder returns the instructions of subprogram sp reachable from its
// start, in the depth-first postorder of the kernel's compute_postorder:
// the order its stack liveness sweeps them in.
func (g *CFG) Postorder(sp int) []int32 {
	return g.postorder[g.postorderStart[sp]:g.postorderStart[sp+1]]
}

// Analyze validates prog with the load-time checks (see Check) for a
// privileged loader and computes its control-flow facts. Instruction-level
// field checks (CheckFields, CheckInsn) are left to the simulation, which
// is where the kernel makes them.
func Analyze(prog []Insn) (*CFG, error) { return AnalyzeWith(prog, Options{}) }

// AnalyzeWith is Analyze with explicit options.
func AnalyzeWith(prog []Insn, opts Options) (*CFG, error) {
	sc := getScratch(len(prog))
	defer putScratch(sc)
	g, err := analyzeStatic(prog, opts, sc)
	if err != nil {
		return nil, err
	}
	g.succ = successorTable(prog)
	g.computePostorder()
	g.computeSCC()
	g.computeLiveRegs()
	g.sc = nil
	return g, nil
}

// successorTable lists the successors of every instruction of prog.
func successorTable(prog []Insn) [][2]int32 {
	n := int32(len(prog))
	succ := make([][2]int32, n)
	var buf [2]int
	for i := range succ {
		succ[i] = [2]int32{n, n}
		for k, t := range successors(prog, buf[:0], i) {
			succ[i][k] = int32(t)
		}
	}
	return succ
}

func newCFG(prog []Insn, starts []int, opts Options) *CFG {
	g := &CFG{
		prog:     prog,
		opts:     opts,
		flags:    make([]uint8, len(prog)),
		Subprogs: make([]Subprog, len(starts)),
	}
	for i, s := range starts {
		g.Subprogs[i] = Subprog{Start: s, End: subprogEnd(starts, i, len(prog))}
	}
	return g
}

func (g *CFG) has(i int, f uint8) bool { return i >= 0 && i < len(g.flags) && g.flags[i]&f != 0 }

// PrunePoint reports whether the verifier looks for an equivalent state
// (is_state_visited) before simulating insn i.
func (g *CFG) PrunePoint(i int) bool { return g.has(i, flagPrune) }

// JmpPoint reports whether reaching insn i is recorded in the jump history
// (it has a predecessor other than i-1). Every JmpPoint is also a
// PrunePoint (flagJmp is only ever set with flagPrune): the verifier's
// walk asks JmpPoint only at prune points.
func (g *CFG) JmpPoint(i int) bool { return g.has(i, flagJmp) }

// JumpTarget reports whether insn i is the target of a jump (conditional,
// may_goto or goto) or the entry of a function called or named by
// ld_imm64 (the kernel's jump_target, which bpf_fastcall patterns must not
// contain). The instruction after a call is not one, unlike a JmpPoint.
func (g *CFG) JumpTarget(i int) bool { return g.has(i, flagJumpTarget) }

// ForceCheckpoint reports whether a state is always checkpointed at insn i
// (callback-calling helpers, iterator next, may_goto).
func (g *CFG) ForceCheckpoint(i int) bool { return g.has(i, flagForceCheckpoint) }

// CallsCallback reports whether insn i is a call that runs a callback
// synchronously (bpf_loop and friends); such a call is verified as a loop.
func (g *CFG) CallsCallback(i int) bool { return g.has(i, flagCallsCallback) }

// SubprogOf returns the index of the subprogram containing insn i, or -1
// when i is outside the program.
func (g *CFG) SubprogOf(i int) int {
	if i < 0 || i >= len(g.prog) {
		return -1
	}
	lo, hi := 0, len(g.Subprogs)-1
	for lo < hi {
		m := lo + (hi-lo+1)/2
		if g.Subprogs[m].Start <= i {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// SubprogAt returns the index of the subprogram starting exactly at insn i,
// or -1.
func (g *CFG) SubprogAt(i int) int {
	s := g.SubprogOf(i)
	if s < 0 || g.Subprogs[s].Start != i {
		return -1
	}
	return s
}

// LiveRegsBefore returns the registers that may be read at or after insn i
// before being written, bit r for register r (the kernel's
// live_regs_before). Bits above r10 can be set by instructions whose uses
// the kernel does not model precisely (LD_ABS/LD_IND).
func (g *CFG) LiveRegsBefore(i int) uint16 {
	if i < 0 || i >= len(g.live) {
		return 0
	}
	return g.live[i]
}

// SCC returns the strongly connected component of insn i, numbered from 1
// in the order the kernel's compute_scc numbers them, or 0 when i belongs
// to no loop (nor, with Options.CallbackSCC, to a call that runs a
// callback).
func (g *CFG) SCC(i int) int {
	if i < 0 || i >= len(g.scc) {
		return 0
	}
	return int(g.scc[i])
}

// Len returns the number of instructions (kernel slots) of the program.
func (g *CFG) Len() int { return len(g.prog) }

// Successors appends to dst the instructions that may run right after insn
// i within its subprogram (calls fall through; exit has none) and returns
// the extended slice. This is the kernel's bpf_insn_successors.
func (g *CFG) Successors(dst []int, i int) []int {
	for _, t := range g.succ[i] {
		if int(t) < len(g.prog) {
			dst = append(dst, int(t))
		}
	}
	return dst
}

func successors(prog []Insn, dst []int, i int) []int {
	in := prog[i]
	fall, jump := true, false
	if in.IsJmpClass() {
		switch in.JmpOp() {
		case JmpExit:
			fall = false
		case JmpJA:
			fall, jump = false, true
		case JmpCall:
		default:
			jump = true
		}
	}
	if fall {
		if t := i + in.Width(); t < len(prog) {
			dst = append(dst, t)
		}
	}
	if jump {
		if t := i + int(in.JumpOffset()) + 1; t >= 0 && t < len(prog) {
			dst = append(dst, t)
		}
	}
	return dst
}

// DFS states of check_cfg: an instruction is discovered when pushed,
// remembers which of its edges were labelled, and is explored when popped.
const (
	cfgDiscovered  uint8 = 0x10
	cfgExplored    uint8 = 0x20
	cfgFallthrough uint8 = 1
	cfgBranch      uint8 = 2
	cfgStateMask   uint8 = 0xf0
)

// Results of visiting one instruction during check_cfg.
const (
	doneExploring = 0
	keepExploring = 1
)

// cfgWalk is the state of one check_cfg depth-first walk.
type cfgWalk struct {
	g     *CFG
	state []uint8
	stack []int
}

// checkCFG is the kernel's check_cfg: an iterative depth-first walk from
// insn 0 that follows fall-through edges, jumps and bpf-to-bpf calls,
// marks the prune/jump/checkpoint flags, and rejects unreachable code,
// jumps out of the program and (when unprivileged) back-edges.
func (g *CFG) checkCFG() error {
	w := &cfgWalk{g: g, state: zeroed(&g.sc.u8, len(g.prog)), stack: append(empty(&g.sc.ints, len(g.prog)), 0)}
	w.state[0] = cfgDiscovered
	if err := w.walk(); err != nil {
		return err
	}
	// Nothing calls the exception callback: check_cfg walks it on its own
	// once the main walk is done.
	if cb := g.opts.ExceptionCallback; cb > 0 && cb < len(g.prog) && w.state[cb] != cfgExplored {
		w.state[cb] = cfgDiscovered
		w.stack = append(w.stack, cb)
		if err := w.walk(); err != nil {
			return err
		}
	}
	for i := 0; i < len(g.prog); i++ {
		if w.state[i] != cfgExplored {
			return errAt(i, "unreachable insn %d", i)
		}
		if g.prog[i].IsLdImm64() {
			if i+1 < len(g.prog) && w.state[i+1] != 0 {
				return errAt(i, "jump into the middle of ldimm64 insn %d", i)
			}
			i++
		}
	}
	return nil
}

// walk runs the depth-first walk until its stack is empty.
func (w *cfgWalk) walk() error {
	for len(w.stack) > 0 {
		t := w.stack[len(w.stack)-1]
		ret, err := w.visit(t)
		if err != nil {
			return err
		}
		if ret == doneExploring {
			w.state[t] = cfgExplored
			w.stack = w.stack[:len(w.stack)-1]
		}
	}
	return nil
}

// push labels edge e from t to target. It returns keepExploring when
// target is newly discovered and must be walked first.
func (w *cfgWalk) push(t, target int, e uint8) (int, error) {
	if w.state[t] >= cfgDiscovered|e {
		return doneExploring, nil
	}
	if target < 0 || target >= len(w.g.prog) {
		return 0, errAt(t, "jump out of range from insn %d to %d", t, target)
	}
	if e == cfgBranch {
		w.g.flags[target] |= flagPrune | flagJmp | flagJumpTarget
	}
	switch {
	case w.state[target] == 0:
		w.state[t] = cfgDiscovered | e
		w.state[target] = cfgDiscovered
		w.stack = append(w.stack, target)
		return keepExploring, nil
	case w.state[target]&cfgStateMask == cfgDiscovered:
		if w.g.opts.Unprivileged {
			return 0, errAt(t, "back-edge from insn %d to %d", t, target)
		}
		w.g.HasLoops = true
		return doneExploring, nil
	default:
		w.state[t] = cfgDiscovered | e
		return doneExploring, nil
	}
}

func (w *cfgWalk) visitCall(t int, visitCallee bool) (int, error) {
	in := w.g.prog[t]
	next := t + in.Width()
	if ret, err := w.push(t, next, cfgFallthrough); ret != doneExploring || err != nil {
		return ret, err
	}
	w.g.flags[next] |= flagPrune | flagJmp
	if !visitCallee {
		return doneExploring, nil
	}
	w.g.flags[t] |= flagPrune
	return w.push(t, t+int(in.Imm)+1, cfgBranch)
}

func (w *cfgWalk) visit(t int) (int, error) {
	g := w.g
	in := g.prog[t]
	if in.IsPseudoFunc() {
		return w.visitCall(t, true)
	}
	if !in.IsJmpClass() {
		return w.push(t, t+in.Width(), cfgFallthrough)
	}
	switch in.JmpOp() {
	case JmpExit:
		return doneExploring, nil
	case JmpCall:
		g.markCall(t, in)
		return w.visitCall(t, in.Src == PseudoCall)
	case JmpJA:
		if in.SrcIsReg() {
			return 0, errAt(t, "unsupported indirect jump at insn %d", t)
		}
		target := t + int(in.JumpOffset()) + 1
		if ret, err := w.push(t, target, cfgFallthrough); ret != doneExploring || err != nil {
			return ret, err
		}
		g.flags[target] |= flagPrune | flagJmp | flagJumpTarget
		return doneExploring, nil
	default:
		g.flags[t] |= flagPrune
		if in.IsMayGoto() {
			g.flags[t] |= flagForceCheckpoint
		}
		if ret, err := w.push(t, t+1, cfgFallthrough); ret != doneExploring || err != nil {
			return ret, err
		}
		return w.push(t, t+int(in.Off)+1, cfgBranch)
	}
}

// markCall sets the flags a helper or kfunc call gets in visit_insn.
func (g *CFG) markCall(t int, in Insn) {
	kind := KfuncPlain
	if in.IsKfuncCall() && g.opts.KfuncKind != nil {
		kind = g.opts.KfuncKind(in)
	}
	helper := in.IsHelperCall()
	if (helper && in.Imm == HelperTimerSetCallback) || kind == KfuncAsyncCB {
		g.flags[t] |= flagPrune
	}
	if (helper && isSyncCallbackHelper(in.Imm)) || kind == KfuncSyncCB {
		g.flags[t] |= flagCallsCallback | flagForceCheckpoint | flagPrune | flagJmp
	}
	if kind == KfuncIterNext {
		g.flags[t] |= flagPrune | flagForceCheckpoint
	}
}

func isSyncCallbackHelper(id int32) bool {
	switch id {
	case HelperForEachMapElem, HelperFindVMA, HelperLoop, HelperUserRingbufDrain:
		return true
	}
	return false
}

// computePostorder lists, subprogram by subprogram, the instructions
// reachable from the subprogram's start in depth-first postorder.
func (g *CFG) computePostorder() {
	n := len(g.prog)
	const (
		discovered uint8 = 1
		explored   uint8 = 2
	)
	// Instruction indices as int32, as the results hold them.
	state, stack := zeroed(&g.sc.u8, n), empty(&g.sc.i32[0], n)
	g.postorder = make([]int32, 0, n)
	g.postorderStart = make([]int, 0, len(g.Subprogs)+1)
	for _, sp := range g.Subprogs {
		g.postorderStart = append(g.postorderStart, len(g.postorder))
		stack = append(stack[:0], int32(sp.Start))
		for len(stack) > 0 {
			top := int(stack[len(stack)-1])
			state[top] |= discovered
			if state[top]&explored != 0 {
				g.postorder = append(g.postorder, int32(top))
				stack = stack[:len(stack)-1]
				continue
			}
			for _, s := range g.succ[top] {
				if s < int32(n) && state[s] == 0 {
					stack = append(stack, s)
					state[s] |= discovered
				}
			}
			state[top] |= explored
		}
	}
	g.postorderStart = append(g.postorderStart, len(g.postorder))
}

// Register masks of the liveness analysis.
const (
	// allRegsMask stands for "every register": the kernel's default use
	// set for instructions it does not model.
	allRegsMask uint16 = math.MaxUint16
	// callerSavedMask is r0-r5, clobbered by every call.
	callerSavedMask uint16 = 1<<(MaxArgs+1) - 1
	r0Mask          uint16 = 1 << R0
)

// argsMask returns the bits of r1..rn.
func argsMask(n int) uint16 {
	if n <= 0 {
		return 0
	}
	if n > MaxArgs {
		n = MaxArgs
	}
	return uint16(1)<<(n+1) - 2
}

// useDef returns the registers insn in reads and writes, as the kernel's
// compute_insn_live_regs models them.
func (g *CFG) useDef(in Insn) (use, def uint16) {
	src, dst := uint16(1)<<in.Src, uint16(1)<<in.Dst
	use = allRegsMask
	switch in.Class() {
	case ClassLD:
		if in.IsLdImm64() {
			return 0, dst
		}
	case ClassLDX:
		if in.Mode() == ModeMEM || in.Mode() == ModeMEMSX {
			return src, dst
		}
	case ClassST:
		if in.Mode() == ModeMEM {
			return dst, 0
		}
	case ClassSTX:
		switch in.Mode() {
		case ModeMEM:
			return dst | src, 0
		case ModeATOMIC:
			switch in.Imm {
			case AtomicCmpXchg:
				return r0Mask | dst | src, r0Mask
			case AtomicLoadAcq:
				return src, dst
			case AtomicStoreRel:
				return dst | src, 0
			}
			if in.Imm&AtomicFetch != 0 {
				return dst | src, src
			}
			return dst | src, 0
		}
	case ClassALU, ClassALU64:
		switch in.ALUOp() {
		case ALUEnd:
			return dst, dst
		case ALUMov:
			if in.SrcIsReg() {
				return src, dst
			}
			return 0, dst
		}
		if in.SrcIsReg() {
			return dst | src, dst
		}
		return dst, dst
	case ClassJMP, ClassJMP32:
		switch in.JmpOp() {
		case JmpJA, JmpJCOND:
			return 0, 0
		case JmpExit:
			return r0Mask, 0
		case JmpCall:
			return g.callUses(in), callerSavedMask
		}
		if in.SrcIsReg() {
			return dst | src, 0
		}
		return dst, 0
	}
	return use, 0
}

// callUses returns the argument registers a call reads: the callee's
// parameter count when the options know it, r1-r5 otherwise (always for
// bpf-to-bpf calls, as in the kernel).
func (g *CFG) callUses(in Insn) uint16 {
	n := -1
	switch {
	case in.IsHelperCall() && g.opts.HelperArgs != nil:
		n = g.opts.HelperArgs(in.Imm)
	case in.IsKfuncCall() && g.opts.KfuncArgs != nil:
		n = g.opts.KfuncArgs(in)
	}
	if n < 0 {
		return argsMask(MaxArgs)
	}
	return argsMask(n)
}

// computeLiveRegs is the kernel's compute_live_registers: a backward
// may-live dataflow over the intra-procedural successors, iterated in
// postorder to a fixed point.
func (g *CFG) computeLiveRegs() {
	n := len(g.prog)
	use, def, out := zeroed(&g.sc.u16[0], n), zeroed(&g.sc.u16[1], n), zeroed(&g.sc.u16[2], n)
	// Each instruction's (at most two) successors, found once: the
	// fixed point visits every instruction several times. A missing one
	// is n, whose live set, one past the program's, stays empty.
	live := make([]uint16, n+1)
	succ := g.succ
	for i, in := range g.prog {
		use[i], def[i] = g.useDef(in)
	}
	for changed := true; changed; {
		changed = false
		for _, p := range g.postorder {
			i := int(p)
			newOut := live[succ[i][0]] | live[succ[i][1]]
			newIn := newOut&^def[i] | use[i]
			if newOut != out[i] || newIn != live[i] {
				out[i], live[i] = newOut, newIn
				changed = true
			}
		}
	}
	g.live = live[:n]
}

// computeSCC numbers the strongly connected components of the
// intra-procedural graph with an iterative Tarjan walk in the kernel's
// visiting order. A single instruction only gets a number when it jumps
// to itself.
func (g *CFG) computeSCC() {
	n := len(g.prog)
	const notOnStack = math.MaxUint32
	pre, low := zeroed(&g.sc.u32[0], n), zeroed(&g.sc.u32[1], n)
	g.scc = make([]uint32, n)
	stack, dfs := empty(&g.sc.i32[0], n), empty(&g.sc.i32[1], n)
	nextPre, nextSCC := uint32(1), uint32(1)
	for root := 0; root < n; root++ {
		if pre[root] != 0 {
			continue
		}
		stack = stack[:0]
		dfs = append(dfs[:0], int32(root))
	walk:
		for len(dfs) > 0 {
			w := int(dfs[len(dfs)-1])
			if pre[w] == 0 {
				pre[w], low[w] = nextPre, nextPre
				nextPre++
				stack = append(stack, int32(w))
			}
			succ := g.succ[w]
			for _, s := range succ {
				if s == int32(n) {
					continue
				}
				if pre[s] == 0 {
					dfs = append(dfs, s)
					continue walk
				}
				low[w] = min(low[w], low[s])
			}
			if low[w] < pre[w] {
				dfs = dfs[:len(dfs)-1]
				continue
			}
			assign := int(stack[len(stack)-1]) != w
			for _, s := range succ {
				if int(s) == w {
					assign = true
				}
			}
			if g.opts.CallbackSCC && g.has(w, flagCallsCallback) {
				// The callback's runs: a loop through w.
				assign = true
			}
			for {
				t := int(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
				low[t] = notOnStack
				if assign {
					g.scc[t] = nextSCC
				}
				if t == w {
					break
				}
			}
			if assign {
				nextSCC++
				g.HasSCCs = true
			}
			dfs = dfs[:len(dfs)-1]
		}
	}
}

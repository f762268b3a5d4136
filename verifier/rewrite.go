package verifier

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"syscall"
)

// The kernel's rewrites of an accepted program, as lengths.
//
// After do_check accepts a program, bpf_check rewrites it before the JIT,
// in this order: optimize_bpf_loop inlines the bpf_loop calls fit for it;
// the dead-code passes delete what no path reached (deadcode.go);
// convert_ctx_accesses patches a prologue in at the first instruction
// (gen_prologue, for a program writing packet data directly) and replaces
// each load or store through a context or socket pointer by the
// instructions its program type's convert_ctx_access emits; do_misc_fixups
// adds the default exception callback, replaces divisions by a register,
// LD_ABS/LD_IND, may_goto, inlined helpers (map lookups, jiffies, the CPU
// id...) and some kfunc calls, then gives each function holding a may_goto
// a prologue. Every replacement goes through bpf_patch_insn_data: the
// instruction at pos becomes n instructions and every relative jump
// across pos is fixed up (bpf_adj_branches).
//
// Jump offsets are 16 bits. Once a program is longer than S16_MAX
// instructions, bpf_patch_insn_single first probes whether fixing up the
// jumps would push one past S16_MIN..S16_MAX, and if so the patch fails
// with ERANGE: the kernel logs "insn N cannot be patched due to 16-bit
// range" (N the patched instruction's index in the program as loaded) and
// the load fails with ENOMEM, after do_check accepted the program. A jump
// over 32,760 instructions, one of which is a division by a register
// (4 instructions after the rewrite), is enough.
//
// rewriteProgram replays the passes on lengths alone. It needs, for each
// patched instruction, the length of its patch: known exactly for the
// rewrites modelled (rewritelen.go), bounded (1..insnBufSize) for the
// others. With bounds, the replay runs twice, with every unknown length at
// its smallest and at its largest: the offsets only grow with the lengths,
// so when both runs fail at the same patch, or both pass, so does the
// kernel; when they disagree vercheck cannot tell and says so
// (unsupported) rather than guess. The same replay gives the rewritten
// program's length, the kernel's xlated_prog_len (Stats.XlatedInsns), when
// every length is known.

// jumpRange is the range of a 16-bit jump offset (S16_MIN..S16_MAX).
const (
	jumpOffMin = math.MinInt16
	jumpOffMax = math.MaxInt16
)

// insnBufSize is the kernel's INSN_BUF_SIZE: no patch is longer (a
// convert_ctx_access or a gen_ld_abs reaching it is a misconfiguration).
const insnBufSize = 32

// rewritePatch is one bpf_patch_insn_data: the instruction at pos (in the
// program as the pass found it) replaced by lo..hi instructions (lo == hi
// when the length is known).
type rewritePatch struct {
	pos    int
	lo, hi int
	// mayGoto: the patch replaces a may_goto, whose jump moves to the
	// patch's second instruction, aimed at the same instruction; its
	// offset grows by the patch's length minus two on the way.
	// longMayGoto: that offset would not fit 16 bits, and the 6.18
	// kernel jumps over a gotol instead, one instruction more
	// (measured: "if ax != 0 goto +1; gotol"), whose 32-bit offset no
	// patch can push out of range.
	mayGoto, longMayGoto bool
	// keepsLast: the patch ends with the instruction it replaces (a
	// prologue), which the pass goes on to rewrite as any other.
	keepsLast bool
	// funcRefAt, when positive, is the patch's slot holding a bpf-to-bpf
	// call to funcTarget (an index in the program the pass found): the
	// inlined bpf_loop's call of its callback.
	funcRefAt, funcTarget int
}

// patchFailure is the first patch of a replay bpf_adj_branches refuses.
type patchFailure struct {
	phase, patch int
	orig         int
}

// rewriteOutcome is one replay of the passes.
type rewriteOutcome struct {
	fail *patchFailure
	// unmodelled says why the replay could not follow the kernel (a
	// backward may_goto whose rewritten jump no longer fits its offset
	// field, whose form 6.18 takes then is not measured), "" otherwise.
	unmodelled string
	// xlated is the rewritten program's length, prog the program the
	// passes leave (when none refuses it).
	xlated int
	prog   *fixupProg
}

// rewriteProgram replays the kernel's rewrites of the accepted program:
// the 16-bit refusal, the function targets jit_subprogs looks up
// (checkJitFunctionTargets) and the rewritten length.
func (e *env) rewriteProgram() error {
	lens := e.rewriteLengths()
	if n, ok := e.xlatedSingleFunction(lens); ok {
		e.xlated = n
		return nil
	}
	lo := e.replayRewrites(lens, false)
	out := lo
	if lens.unknown {
		hi := e.replayRewrites(lens, true)
		if lo.unmodelled == "" && hi.unmodelled == "" && !samePatchFailure(lo.fail, hi.fail) {
			at := e.insnIdx
			if lo.fail != nil {
				at = lo.fail.orig
			} else if hi.fail != nil {
				at = hi.fail.orig
			}
			return e.unsupported(at, "the kernel's rewrites may push a jump past 16 bits (\"cannot be patched due to 16-bit range\"): %s", lens.unknownWhy)
		}
		out.xlated = 0
	}
	if out.unmodelled != "" {
		return e.unsupported(0, "%s", out.unmodelled)
	}
	e.xlated = out.xlated
	if f := out.fail; f != nil {
		return &RejectError{Insn: f.orig, Msg: fmt.Sprintf("insn %d cannot be patched due to 16-bit range", f.orig), errno: syscall.ENOMEM}
	}
	return e.checkJitFunctionTargets(out.prog)
}

// samePatchFailure reports whether two replays end alike.
func samePatchFailure(a, b *patchFailure) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.phase == b.phase && a.patch == b.patch
}

// Passes of the replay, in the kernel's order.
const (
	phaseLoopInline = iota
	phaseCtxPrologue
	phaseCtx
	phaseFixups
	phaseMayGotoPrologue
	phaseSubreg
)

// replayRewrites runs the passes with every unknown length at its
// smallest (hi false) or largest.
func (e *env) replayRewrites(lens *rewriteLens, hi bool) rewriteOutcome {
	p := e.fixupProgram()
	var out rewriteOutcome
	apply := func(phase int, patches []rewritePatch) bool {
		if out.fail != nil || out.unmodelled != "" {
			return false
		}
		k, why := p.firstOverflow(patches, hi)
		if why != "" {
			out.unmodelled = why
			return false
		}
		if k >= 0 {
			out.fail = &patchFailure{phase: phase, patch: k, orig: p.insns[patches[k].pos].orig}
			return false
		}
		p.applyPatches(patches, hi)
		return true
	}
	if !apply(phaseLoopInline, lens.loopInline(p)) {
		return out
	}
	p.hardWireDeadBranches()
	p.removeDeadCode()
	p.removeNops()
	if n := lens.prologue; n > 1 {
		if !apply(phaseCtxPrologue, []rewritePatch{{pos: 0, lo: n, hi: n, keepsLast: true}}) {
			return out
		}
		p.keepTarget(0, n-1)
	}
	if !apply(phaseCtx, lens.patches(p, passCtx)) {
		return out
	}
	if e.excCb == 0 && lens.throws {
		p.appendHiddenExceptionCallback()
	}
	if !apply(phaseFixups, lens.patches(p, passFixups)) {
		return out
	}
	if k := p.insertMayGotoPrologues(); k >= 0 {
		out.fail = &patchFailure{phase: phaseMayGotoPrologue, patch: k, orig: p.insns[k].orig}
		return out
	}
	if !apply(phaseSubreg, lens.patches(p, passSubreg)) {
		return out
	}
	out.xlated, out.prog = len(p.insns), p
	return out
}

// firstOverflow is the probe of bpf_patch_insn_single over a pass: the
// index of the first patch (in order) at which some 16-bit jump would
// leave its range, -1 for none. The patches are in ascending order of
// position, as the passes apply them. A forward jump grows with each
// patch strictly between it and its target, a backward one with each
// patch from its target (included) up to it (bpf_adj_delta_to_off); so
// each jump's first overflow is a search in the running sum of growths
// over the patches its span holds.
func (p *fixupProg) firstOverflow(patches []rewritePatch, hi bool) (int, string) {
	if len(patches) == 0 {
		return -1, ""
	}
	pos := make([]int, len(patches))
	cum := make([]int, len(patches)+1) // cum[k+1]: growth of patches 0..k
	for k, pt := range patches {
		pos[k] = pt.pos
		cum[k+1] = cum[k] + pt.length(hi) - 1
	}
	total := cum[len(patches)]
	if len(p.insns)+total <= jumpOffMax {
		// The probe runs only once the program outgrows S16_MAX, and no
		// jump can be longer than the program.
		return -1, ""
	}
	mayGotoPatch := map[int]int{}
	for k, pt := range patches {
		if pt.mayGoto {
			mayGotoPatch[pt.pos] = k
		}
	}
	first := -1
	// truncAt is the first patch that leaves a may_goto's rewritten jump
	// beyond 16 bits: the kernel truncates the offset there (the patch
	// is built with it, not fixed up), and what follows is not modelled.
	truncAt, truncWhy := -1, ""
	truncate := func(k int, why string) {
		if truncAt < 0 || k < truncAt {
			truncAt, truncWhy = k, why
		}
	}
	note := func(k int) {
		if k >= 0 && (first < 0 || k < first) {
			first = k
		}
	}
	// overflowIn is the first patch in [a, b) at which off0 plus (or,
	// backward, minus) the growth since a leaves the range.
	overflowIn := func(a, b, slack int) int {
		if a >= b || cum[b]-cum[a] <= slack {
			return -1
		}
		return a + sort.Search(b-a, func(j int) bool { return cum[a+j+1]-cum[a] > slack })
	}
	for s, f := range p.insns {
		if !f.jump16 || f.target < 0 {
			continue
		}
		t := f.target
		off := t - s - 1
		if total+abs(off) <= jumpOffMax {
			continue
		}
		if k, ok := mayGotoPatch[s]; ok {
			n := patches[k].length(hi)
			if t > s {
				// Patches between the may_goto and its target come
				// after it: the new jump starts at off+n-2.
				if patches[k].longMayGoto {
					continue // its jump is a gotol: 32 bits
				}
				off += n - 2
				a := sort.SearchInts(pos, s+1)
				b := sort.SearchInts(pos, t)
				note(overflowIn(a, b, jumpOffMax-off))
				continue
			}
			// Backward: the patches from the target up to the may_goto
			// come first, then the jump moves one slot down.
			a := sort.SearchInts(pos, t)
			if j := overflowIn(a, k, off-jumpOffMin); j >= 0 {
				note(j)
			} else if off-(cum[k]-cum[a])-1 < jumpOffMin {
				truncate(k, "a backward may_goto whose rewritten jump no longer fits 16 bits, which the kernel truncates")
			}
			continue
		}
		if t > s {
			a := sort.SearchInts(pos, s+1)
			b := sort.SearchInts(pos, t)
			note(overflowIn(a, b, jumpOffMax-off))
		} else {
			a := sort.SearchInts(pos, t)
			b := sort.SearchInts(pos, s)
			note(overflowIn(a, b, off-jumpOffMin))
		}
	}
	if truncAt >= 0 && (first < 0 || truncAt < first) {
		return -1, truncWhy
	}
	return first, ""
}

// length is the patch's length in a replay.
func (pt rewritePatch) length(hi bool) int {
	if hi {
		return pt.hi
	}
	return pt.lo
}

// abs is |x|.
func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// applyPatches rebuilds the program after a pass: each patched
// instruction becomes its patch (the patch's own instructions are not
// patched again by the pass, and jumps inside a patch are short, so they
// are not followed), targets and function starts move with the code
// (bpf_adj_branches, adjust_subprog_starts: a target at a patched
// instruction lands on its patch's first instruction).
func (p *fixupProg) applyPatches(patches []rewritePatch, hi bool) {
	if len(patches) == 0 {
		return
	}
	n := len(p.insns)
	// newIdx[i]: where instruction i (or its patch) starts.
	newIdx := make([]int, n+1)
	grow := 0
	k := 0
	for i := 0; i <= n; i++ {
		newIdx[i] = i + grow
		if k < len(patches) && patches[k].pos == i {
			grow += patches[k].length(hi) - 1
			k++
		}
	}
	out := make([]fixupInsn, 0, n+grow)
	k = 0
	for i, f := range p.insns {
		if f.target >= 0 && f.target <= n {
			f.target = newIdx[f.target]
		}
		if k >= len(patches) || patches[k].pos != i {
			out = append(out, f)
			continue
		}
		pt := patches[k]
		k++
		for j := range pt.length(hi) {
			slot := fixupInsn{orig: f.orig, target: -1, seen: true}
			switch {
			case pt.keepsLast && j == pt.length(hi)-1:
				slot = f
			case pt.longMayGoto && j == 1:
				// The test on the loop budget, jumping over the gotol;
				// still a may_goto to the prologue pass.
				slot.mayGotoShape = true
			case pt.longMayGoto && j == 2:
				slot.target = f.target // a gotol: no 16-bit range
			case pt.mayGoto && j == 1:
				// The may_goto's jump, now a conditional jump on the
				// loop budget (still a may_goto to opt_remove_nops and
				// the prologue pass, which ran or look for it).
				slot.target, slot.jump16, slot.cond, slot.mayGotoShape = f.target, true, true, true
			case pt.funcRefAt > 0 && j == pt.funcRefAt:
				slot.target, slot.funcRef = newIdx[pt.funcTarget], true
			}
			out = append(out, slot)
		}
	}
	p.insns = out
	for i, s := range p.starts {
		p.starts[i] = newIdx[min(s, n)]
	}
}

// keepTarget is adjust_jmp_off after a prologue: the jumps that targeted
// the instruction at pos, now the prologue's first, move to the
// instruction itself, delta further.
func (p *fixupProg) keepTarget(pos, delta int) {
	for k := range p.insns {
		if (k < pos || k >= pos+delta) && p.insns[k].target == pos && !p.insns[k].funcRef {
			p.insns[k].target += delta
		}
	}
}

// rewriteLens is what each instruction's rewrite measures, gathered once
// from the walk (rewritelen.go).
type rewriteLens struct {
	// inline holds, per bpf_loop call fit for inlining, its callback's
	// first instruction.
	inline map[int]int
	// prologue is gen_prologue's length with the original first
	// instruction (0 for none).
	prologue int
	// byInsn holds, per instruction as loaded, the patch lengths of
	// convert_ctx_accesses, do_misc_fixups and
	// opt_subreg_zext_lo32_rnd_hi32 (passCtx...), and count how many
	// instructions each pass patches.
	byInsn [][numPasses]patchLen
	count  [numPasses]int
	// growHi is how much the per-instruction passes could grow the
	// program at most: every patch, at its largest, less the
	// instruction it replaces.
	growHi int
	// unseen counts the instructions no path reached; jumps lists the
	// others that point somewhere (insn.Relative), patched those some
	// pass patches: what the count of xlatedSingleFunction looks at.
	unseen         int
	jumps, patched []int32
	// throws: some path calls bpf_throw (env.seenThrow).
	throws bool
	// unknown says some length is only bounded, unknownWhy which.
	unknown    bool
	unknownWhy string
}

// loopInlineLen is the length of inline_bpf_loop's patch.
const loopInlineLen = 19

// loopInlineCallSlot is the inlined loop's call of its callback.
const loopInlineCallSlot = 12

// loopInline lists optimize_bpf_loop's patches over the program as
// verified.
func (l *rewriteLens) loopInline(p *fixupProg) []rewritePatch {
	var out []rewritePatch
	for i, cb := range l.inline {
		out = append(out, rewritePatch{pos: i, lo: loopInlineLen, hi: loopInlineLen, funcRefAt: loopInlineCallSlot, funcTarget: cb})
	}
	slices.SortFunc(out, func(a, b rewritePatch) int { return a.pos - b.pos })
	return out
}

// patches lists a pass's patches over p: each instruction as loaded
// (not one a pass inserted) that pass rewrites.
func (l *rewriteLens) patches(p *fixupProg, pass int) []rewritePatch {
	if l.count[pass] == 0 {
		return nil
	}
	out := make([]rewritePatch, 0, l.count[pass])
	for i, f := range p.insns {
		if !f.primary {
			continue
		}
		n := l.byInsn[f.orig][pass]
		if n.hi <= 1 {
			continue
		}
		pt := rewritePatch{pos: i, lo: int(n.lo), hi: int(n.hi), mayGoto: f.mayGotoShape}
		if pt.mayGoto && f.target > i && f.target-i-1+pt.hi-2 > jumpOffMax {
			pt.lo, pt.hi, pt.longMayGoto = pt.lo+1, pt.hi+1, true
		}
		out = append(out, pt)
	}
	return out
}

// Per-instruction passes, indexes of patchLens.
const (
	passCtx = iota
	passFixups
	passSubreg
	numPasses
)

// patchLen is one pass's patch length for an instruction: lo..hi
// instructions (no patch: 0 or 1). No patch is longer than insnBufSize
// plus the narrow-load and sign-extension instructions.
type patchLen struct{ lo, hi uint8 }

package verifier

// Precision tracking.
//
// A scalar is "precise" in a checkpoint when some path below that
// checkpoint relied on its exact range for safety: a pointer offset, a
// helper's size argument, a branch the verifier decided, a return code.
// Only the precise scalars of a stored (old) state constrain pruning; an
// imprecise one matches any scalar (states.RegSafe in NotExact mode).
//
// Like Linux 6.18 for a privileged loader, vercheck starts every scalar
// imprecise and forgets inherited marks whenever it stores a checkpoint
// (states.Pool.CheckpointImprecise), so that each checkpoint is as general as
// possible. When an instruction uses a scalar's value, markChainPrecision
// walks backwards over the instructions of the current path, one
// checkpoint at a time, and computes which registers and stack slots the
// value came from. The walk follows straight-line code by decrementing the
// instruction index and everything else (jumps, calls, returns, spills and
// fills) through the jump history recorded while the path was simulated
// (states.JmpHistEntry). At each checkpoint on the way up, the registers
// and slots still wanted are marked precise; the walk stops when nothing is
// left to find. Whenever the walk meets something it cannot follow (a
// stack access through a pointer it cannot track, a legacy packet load, a
// history that does not add up) it falls back, as the kernel does, to
// marking every scalar of every ancestor precise: always sound, only less
// general.
//
// The current (not yet stored) state's own marks never matter, so the walk
// never sets them. When a path is pruned against an old state, the old
// state's precise marks are requirements on the pruned path too:
// propagatePrecision replays them as a backtracking request from the
// current state, so the current state's ancestors inherit them.
//
// Loops need one more step (see scc.go): a checkpoint inside a loop can be
// matched before all the paths below it have reported their marks, so
// those matches are remembered as back-edges and re-propagated once the
// loop's exploration is complete.

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Jump-history flag layout. A stack spill or fill entry carries
// histStackAccess, the frame number in its low bits and the slot index
// above them (stackAccessFlag in mem.go builds it); a conditional jump
// comparing a stack pointer carries histDstRegStack/histSrcRegStack so
// that backtracking does not ask for the pointer's precision.
const (
	// histFrameMask selects the frame number: MaxCallFrames (8) frames
	// fit in 3 bits.
	histFrameMask = 0x7
	// histSpiShift and histSpiMask select the slot index: 512/8 = 64
	// slots fit in 6 bits.
	histSpiShift = 3
	histSpiMask  = 0x3f
	// histDstRegStack: the jump's destination register was a stack
	// pointer (the kernel's INSN_F_DST_REG_STACK).
	histDstRegStack = 1 << 30
	// histSrcRegStack: the jump's source register was a stack pointer
	// (INSN_F_SRC_REG_STACK).
	histSrcRegStack = 1 << 29
)

// Linked-register sets recorded at a conditional jump. Registers that
// share an id gain range together when one of them is compared
// (syncLinkedRegs), so when backtracking meets the jump and one of them is
// wanted, all of them are. The set is packed into JmpHistEntry.LinkedRegs
// like the kernel packs it: the count in the low bits, then one entry per
// register or spilled slot.
const (
	// maxLinkedRegs is LINKED_REGS_MAX: at most six linked scalars are
	// tracked per jump; the ids of the others are dropped.
	maxLinkedRegs = 6
	// linkedCountBits holds the count (0..6).
	linkedCountBits = 4
	// linkedEntryBits is one entry: 3 bits of frame, 6 bits of register
	// or slot index, 1 bit "is a register".
	linkedEntryBits  = 10
	linkedFrameMask  = 0x7
	linkedIndexShift = 3
	linkedIndexMask  = 0x3f
	linkedIsRegBit   = 1 << 9
	linkedCountMask  = 1<<linkedCountBits - 1
	linkedEntryMask  = 1<<linkedEntryBits - 1
)

// argRegsMask is the set r1-r5, the registers a call passes arguments in
// (BPF_REGMASK_ARGS).
const argRegsMask uint16 = 0x3e

// maxBackedgeIters bounds the fixed-point iteration of back-edge
// propagation (MAX_BACKEDGE_ITERS); past it every scalar is made precise.
const maxBackedgeIters = 64

// errBacktrack means backtracking met an instruction or a history it
// cannot follow; the caller falls back to marking all scalars precise.
var errBacktrack = errors.New("precision backtracking cannot follow this path")

// backtrackBug is a walk out of a subprogram or a callback that still
// wants something the caller cannot provide: a register other than the
// arguments, or a stack slot of the callee's frame (one the callee read
// uninitialised, which a privileged program may). backtrack_insn reports
// each as a verifier_bug and fails the load with EFAULT after a kernel
// warning, which taints the kernel, so vercheck refuses the program as
// one the kernel's verifier faults on (ErrKernelFault): no comparison
// loads it. The walk itself falls back to forcing every scalar precise,
// as for errBacktrack, and the main loop ends the verification
// (takePrecisionFault).
func (e *env) backtrackBug(format string, args ...any) error {
	return e.kernelFault("precision backtracking the 6.18 verifier reports as \"verifier bug: "+format+"\" with a kernel warning", args...)
}

// verifierBug refuses a program on a path where the 6.18 verifier reports
// "verifier bug: ..." (its verifier_bug: a kernel warning, then EFAULT,
// since "bpf: Warn on internal verifier errors" made every internal error
// one): the kernel verifies no such program, and each load of one taints
// the kernel that runs it, so no comparison may load it (ErrKernelFault).
func (e *env) verifierBug(format string, args ...any) error {
	return e.kernelFault("the 6.18 verifier reports \"verifier bug: "+format+"\" with a kernel warning", args...)
}

// kernelFault refuses a program the kernel's verifier faults on (a
// verifier_bug warning or an oops, in its precision walk and elsewhere):
// ErrKernelFault, no comparison may load it.
func (e *env) kernelFault(format string, args ...any) error {
	err := e.unsupported(e.insnIdx, format, args...)
	err.(*RejectError).kind = ErrKernelFault
	return err
}

// backtrackIdxBug records the walk leaving the program (before insn 0,
// its first instruction not met): the kernel's __mark_chain_precision
// reports it as a verifier bug, its index taken as unsigned.
func (e *env) backtrackIdxBug(i int) {
	if e.prec.fault == nil {
		e.prec.fault = e.backtrackBug("backtracking idx %d", i)
	}
}

// takePrecisionFault returns, once, the backtracking bug met since the
// last call.
func (e *env) takePrecisionFault() error {
	// Called twice per insn, almost always without a fault: the test
	// spares the store of a nil interface and its write-barrier check.
	if e.prec.fault == nil {
		return nil
	}
	err := e.prec.fault
	e.prec.fault = nil
	return err
}

// linkedReg is one member of a linked-register set.
type linkedReg struct {
	frame int
	index int // register number or slot index
	isReg bool
}

// in returns the scalar l names in st.
func (l linkedReg) in(st *states.State) *states.Reg {
	f := st.Frames[l.frame]
	if l.isReg {
		return f.Reg(l.index)
	}
	return &f.Slot(l.index).Spilled
}

// packLinkedRegs encodes a linked-register set for the jump history.
func packLinkedRegs(set []linkedReg) uint64 {
	var v uint64
	for i := len(set) - 1; i >= 0; i-- {
		r := set[i]
		ent := uint64(r.frame&linkedFrameMask) | uint64(r.index&linkedIndexMask)<<linkedIndexShift
		if r.isReg {
			ent |= linkedIsRegBit
		}
		v = v<<linkedEntryBits | ent
	}
	return v<<linkedCountBits | uint64(len(set))
}

// unpackLinkedRegs decodes a set packed by packLinkedRegs into dst.
func unpackLinkedRegs(v uint64, dst []linkedReg) []linkedReg {
	n := int(v & linkedCountMask)
	v >>= linkedCountBits
	dst = dst[:0]
	for i := 0; i < n && i < maxLinkedRegs; i++ {
		ent := v & linkedEntryMask
		dst = append(dst, linkedReg{
			frame: int(ent & linkedFrameMask),
			index: int(ent>>linkedIndexShift) & linkedIndexMask,
			isReg: ent&linkedIsRegBit != 0,
		})
		v >>= linkedEntryBits
	}
	return dst
}

// collectLinkedRegs returns the scalars of st (live registers r0-r9 and
// spilled slots, innermost frame first) whose id, without the add-const
// flag, is id. A register dead at its frame's instruction is left out: it
// can never be compared again, and wanting its precision could only
// spread spurious marks (the Linux 6.18 stable fix "collect only live
// registers in linked regs"). Past maxLinkedRegs members the remaining
// ones lose their id, as in the kernel, so that they are no longer
// synchronised.
func (e *env) collectLinkedRegs(st *states.State, id uint32, set []linkedReg) []linkedReg {
	id &^= states.AddConstID
	add := func(r *states.Reg, frame, index int, isReg bool) {
		if r.Type != states.ScalarValue || r.ID&^states.AddConstID != id {
			return
		}
		if len(set) < maxLinkedRegs {
			set = append(set, linkedReg{frame: frame, index: index, isReg: isReg})
			return
		}
		r.ID, r.Off = 0, 0
	}
	for fr := int(st.CurFrame); fr >= 0; fr-- {
		f := st.Frames[fr]
		live := e.cfg.LiveRegsBefore(st.FrameInsnIdx(fr))
		for r := 0; r < states.RegFP; r++ {
			if live&(1<<r) != 0 {
				add(f.Reg(r), fr, r, true)
			}
		}
		for spi := range f.NumSlots() {
			if f.Slot(spi).IsSpilledReg() {
				add(&f.Slot(spi).Spilled, fr, spi, false)
			}
		}
	}
	return set
}

// backtrack is the set of registers and stack slots, per frame, whose
// precision is still wanted while walking backwards (the kernel's
// backtrack_state).
type backtrack struct {
	// frame is the frame of the instruction being walked.
	frame int
	regs  [states.MaxCallFrames]uint16
	stack [states.MaxCallFrames]uint64
}

func (bt *backtrack) reset() { *bt = backtrack{} }

func (bt *backtrack) empty() bool {
	for i := 0; i <= bt.frame && i < states.MaxCallFrames; i++ {
		if bt.regs[i] != 0 || bt.stack[i] != 0 {
			return false
		}
	}
	return true
}

func (bt *backtrack) setFrameReg(fr, r int)   { bt.regs[fr] |= 1 << r }
func (bt *backtrack) clearFrameReg(fr, r int) { bt.regs[fr] &^= 1 << r }
func (bt *backtrack) setReg(r int)            { bt.setFrameReg(bt.frame, r) }
func (bt *backtrack) clearReg(r int)          { bt.clearFrameReg(bt.frame, r) }
func (bt *backtrack) isReg(r int) bool        { return bt.regs[bt.frame]&(1<<r) != 0 }
func (bt *backtrack) regMask() uint16         { return bt.regs[bt.frame] }
func (bt *backtrack) stackMask() uint64       { return bt.stack[bt.frame] }

// wantsAbove reports whether bt wants a register or slot in a frame
// above frame.
func (bt *backtrack) wantsAbove(frame int) bool {
	for fr := frame + 1; fr < len(bt.regs); fr++ {
		if bt.regs[fr] != 0 || bt.stack[fr] != 0 {
			return true
		}
	}
	return false
}

func (bt *backtrack) setFrameSlot(fr, spi int)     { bt.stack[fr] |= 1 << spi }
func (bt *backtrack) clearFrameSlot(fr, spi int)   { bt.stack[fr] &^= 1 << spi }
func (bt *backtrack) isFrameSlot(fr, spi int) bool { return bt.stack[fr]&(1<<spi) != 0 }
func (bt *backtrack) isFrameReg(fr, r int) bool    { return bt.regs[fr]&(1<<r) != 0 }
func histSlot(flags uint32) (frame, spi int) {
	return int(flags & histFrameMask), int(flags>>histSpiShift) & histSpiMask
}
func histHasFlag(h *states.JmpHistEntry, f uint32) bool { return h != nil && h.Flags&f != 0 }

// passes reports whether the history entry h (nil: none) of an
// instruction that reads no wanted register leaves bt unchanged: it links
// no registers (syncLinked) and, for a spill or fill, names a slot nobody
// wants (only a store to a wanted slot changes bt; a fill does too little
// to be worth a separate test). Precision walks in loops pass a spill or
// fill at every other step (loop3), so these must not cost a call of
// backtrackInsn each.
func (bt *backtrack) passes(h *states.JmpHistEntry) bool {
	if h == nil {
		return true
	}
	if h.LinkedRegs != 0 {
		return false
	}
	if h.Flags&histStackAccess == 0 {
		return true
	}
	fr, spi := histSlot(h.Flags)
	return !bt.isFrameSlot(fr, spi)
}

// syncLinked wants every member of the entry's linked-register set as
// soon as it wants one of them (bt_sync_linked_regs).
// The test is kept apart so that it inlines: most entries link nothing.
func (bt *backtrack) syncLinked(h *states.JmpHistEntry, scratch []linkedReg) {
	if h != nil && h.LinkedRegs != 0 {
		bt.syncLinkedSet(h.LinkedRegs, scratch)
	}
}

func (bt *backtrack) syncLinkedSet(packed uint64, scratch []linkedReg) {
	set := unpackLinkedRegs(packed, scratch)
	some := false
	for _, r := range set {
		if (r.isReg && bt.isFrameReg(r.frame, r.index)) || (!r.isReg && bt.isFrameSlot(r.frame, r.index)) {
			some = true
			break
		}
	}
	if !some {
		return
	}
	for _, r := range set {
		if r.isReg {
			bt.setFrameReg(r.frame, r.index)
		} else {
			bt.setFrameSlot(r.frame, r.index)
		}
	}
}

// precision is the verifier's precision-tracking and loop bookkeeping.
type precision struct {
	bt backtrack
	// scratch receives the linked-register sets backtracking unpacks,
	// and linked the set a conditional jump collects: fixed arrays, so
	// that neither allocates (a set has at most maxLinkedRegs members).
	scratch, linked [maxLinkedRegs]linkedReg
	// histStamp is e.insnProcessed when the last jump-history entry was
	// pushed: a second push during the same instruction merges into it.
	histStamp int
	// visits are the open SCC visits (scc.go), by key and in the order
	// they were made: a checkpoint's states.State.SCCVisit indexes
	// visitList.
	visits      map[sccKey]*sccVisit
	visitList   []*sccVisit
	pendingHook bool
	// fault is the first backtracking walk the kernel reports as its own
	// bug (backtrackBug), for the main loop to end the verification with.
	fault error
	// wants holds, per instruction, the registers whose precision makes
	// walking back over it do something when it has no history entry
	// (wantsTable); built on the first walk of a program.
	wants []uint32
}

// walkAlways in a wants entry marks an instruction that backtrackInsn
// must always see: calls, exits, legacy packet loads, malformed registers.
const walkAlways = 1 << 31

// wantsTable computes, for each instruction, the registers of the
// walk's current frame that backtrackInsn reads when the instruction
// carries no jump-history entry: with none of them wanted, walking back
// over the instruction leaves the backtracking state as it is (the early
// returns of the kernel's backtrack_insn). Precision walks are long
// (loop3 walks 22 instructions per instruction simulated), and most
// steps pass an instruction that defines a register nobody wants; the
// table turns each such step into one mask test.
func wantsTable(prog []insn.Insn) []uint32 {
	wants := make([]uint32, len(prog))
	for i, in := range prog {
		wants[i] = instructionWants(in)
	}
	return wants
}

func instructionWants(in insn.Insn) uint32 {
	if in.Op == 0 {
		return 0
	}
	if int(in.Dst) >= states.NumRegs || int(in.Src) >= states.NumRegs {
		return walkAlways
	}
	dst := uint32(1) << in.Dst
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64:
		if op := in.ALUOp(); op != insn.ALUMov && (!in.SrcIsReg() || op == insn.ALUEnd || op == insn.ALUNeg) {
			// dst is computed from itself and a constant: walking back
			// over it wants what was wanted (loop counters: "r3 += 1").
			return 0
		}
		return dst
	case insn.ClassLD:
		if m := in.Mode(); m == insn.ModeABS || m == insn.ModeIND {
			// A legacy packet load may be a subprogram's hidden exit,
			// which moves the walk between frames.
			return walkAlways
		}
		return dst
	case insn.ClassLDX:
		return dst
	case insn.ClassSTX, insn.ClassST:
		if load, ok := fetchLoadReg(&in); ok {
			return dst | 1<<load
		}
		return dst
	default: // jumps
		switch op := in.JmpOp(); {
		case op == insn.JmpCall || op == insn.JmpExit:
			return walkAlways
		case op == insn.JmpJA:
			return 0
		case in.SrcIsReg():
			return dst | 1<<in.Src
		}
		return 0
	}
}

// pushJmpHistoryEntry records the current instruction in the path's jump
// history (push_jmp_history). A second record during the same instruction
// (a spill after the jump-point entry, the two sides of an atomic, linked
// registers) merges into the first.
func (e *env) pushJmpHistoryEntry(flags uint32, linked uint64) {
	st := e.cur
	n := len(st.JmpHistory)
	if n > 0 && e.prec.histStamp == e.insnProcessed && st.JmpHistory[n-1].Idx == int32(e.insnIdx) {
		st.JmpHistory[n-1].Flags |= flags
		st.JmpHistory[n-1].LinkedRegs = linked
		return
	}
	e.prec.histStamp = e.insnProcessed
	// The instruction simulated before this one: e.prevIdx already names
	// the current one while it is being simulated, LastInsnIdx does not.
	st.JmpHistory = append(st.JmpHistory, states.JmpHistEntry{Idx: int32(e.insnIdx), PrevIdx: st.LastInsnIdx, Flags: flags, LinkedRegs: linked})
}

// markChainPrecision makes the value of register regno of the current
// frame precise on the current path: it and everything it was computed
// from are marked precise in the current state's ancestors
// (mark_chain_precision). A register that is not a scalar needs nothing.
func (e *env) markChainPrecision(regno int) error {
	if regno < 0 || regno >= states.RegFP {
		return nil
	}
	cur := e.cur
	if cur.Frames[cur.CurFrame].Regs()[regno].Type != states.ScalarValue {
		return nil
	}
	e.prec.bt.reset()
	e.prec.bt.setFrameReg(int(cur.CurFrame), regno)
	e.backtrackChain(cur, nil)
	// A walk the kernel reports as its own bug fails the instruction
	// there (mark_chain_precision returns -EFAULT), before any check
	// that relied on the precision.
	return e.takePrecisionFault()
}

// markStackPrecise makes the scalar spilled in slot spi of frame precise
// on the current path (the kernel sets the slot in its backtracking state
// and calls mark_chain_precision_batch).
func (e *env) markStackPrecise(frame, spi int) error {
	if frame < 0 || frame >= states.MaxCallFrames || spi < 0 || spi > histSpiMask {
		return nil
	}
	e.prec.bt.reset()
	e.prec.bt.setFrameSlot(frame, spi)
	e.backtrackChain(e.cur, nil)
	return nil
}

// propagatePrecision carries the precise marks of old, an explored state
// that subsumed cur, into cur's ancestors: every precise scalar register
// or spilled slot of old becomes a backtracking request from cur. changed,
// if not nil, is set when some ancestor gained a mark.
func (e *env) propagatePrecision(old, cur *states.State, changed *bool) {
	bt := &e.prec.bt
	bt.reset()
	// The level-2 log names what is propagated, frame by frame:
	// "frame 1: propagating r6,r8,fp-176". Each name is a prefix and a
	// number, formatted only when logged: formatting them on every hit
	// was 40% of this function's time.
	logged := func(fr int, first bool, prefix string, n int) bool {
		if e.log.level >= 2 {
			if first {
				e.log.printf("frame %d: propagating %s%d", fr, prefix, n)
			} else {
				e.log.printf(",%s%d", prefix, n)
			}
		}
		return false
	}
	for fr := int(old.CurFrame); fr >= 0; fr-- {
		first := true
		regs, slots := old.Frames[fr].PreciseScalars()
		for ; regs != 0; regs &= regs - 1 {
			r := bits.TrailingZeros16(regs)
			first = logged(fr, first, "r", r)
			bt.setFrameReg(fr, r)
		}
		for ; slots != 0; slots &= slots - 1 {
			if spi := bits.TrailingZeros64(slots); spi <= histSpiMask {
				first = logged(fr, first, "fp", states.SlotOffset(spi))
				bt.setFrameSlot(fr, spi)
			}
		}
		if !first && e.log.level >= 2 {
			e.log.printf("\n")
		}
	}
	e.backtrackChain(cur, changed)
}

// markAllScalarsPrecise is the fallback: every scalar of every ancestor of
// st is made precise. st itself is skipped, as its marks do not matter.
// A loop back-edge's ancestors may include a checkpoint the kernel has
// freed, whose frames mark_all_scalars_precise dereferences: a kernel
// fault, as in backtrackChain.
func (e *env) markAllScalarsPrecise(st *states.State) {
	for p := st.Parent; p != nil; p = p.Parent {
		if p.Freed {
			e.freedCheckpointFault(p)
			return
		}
	}
	if e.log.level >= 2 {
		e.log.printf("mark_precise: frame%d: falling back to forcing all scalars precise\n", st.CurFrame)
		logForcedPrecise(&e.log, st.Parent)
	}
	if st.Parent != nil {
		st.Parent.MarkAllScalarsPrecise()
	}
}

// logForcedPrecise logs, as bpf_mark_all_scalars_precise does, each
// imprecise scalar of st and its ancestors that the fallback is about to
// mark: registers, then spilled scalars, frame by frame.
func logForcedPrecise(l *logger, st *states.State) {
	for ; st != nil; st = st.Parent {
		for i := 0; i <= int(st.CurFrame); i++ {
			f := st.Frames[i]
			for j := 0; j < states.RegFP; j++ {
				if r := f.Reg(j); r.Type == states.ScalarValue && !r.Precise() {
					l.printf("force_precise: frame%d: forcing r%d to be precise\n", i, j)
				}
			}
			for j := range f.NumSlots() {
				if sl := f.Slot(j); sl.IsSpilledScalarReg() && !sl.Spilled.Precise() {
					l.printf("force_precise: frame%d: forcing fp%d to be precise\n", i, states.SlotOffset(j))
				}
			}
		}
	}
}

// freedCheckpointFault records, once, that a precision walk reached st, a
// checkpoint the kernel has freed (only a loop back-edge's walk,
// propagate_backedges, can): its frames are gone (NULL after
// free_verifier_state, or reused memory) and the walk dereferences them.
func (e *env) freedCheckpointFault(st *states.State) {
	if e.prec.fault == nil {
		e.prec.fault = e.kernelFault("precision propagation along a loop back-edge reaches the checkpoint at insn %d, which the 6.18 verifier has already freed (evicted, its paths done): it reads freed memory and oopses", st.InsnIdx)
	}
}

// backtrackChain walks back from start, through start's history and then
// each ancestor's, satisfying the requests in e.prec.bt (the kernel's
// __mark_chain_precision). It always leaves bt empty.
func (e *env) backtrackChain(start *states.State, changed *bool) {
	bt := &e.prec.bt
	bt.frame = int(start.CurFrame)
	if bt.empty() {
		return
	}
	fallback := func() {
		e.markAllScalarsPrecise(start)
		bt.reset()
	}
	if len(e.prec.wants) != len(e.prog) {
		e.prec.wants = wantsTable(e.prog)
	}
	wants, verbose := e.prec.wants, e.log.level >= 2
	st := start
	firstIdx := int(st.FirstInsnIdx)
	lastIdx := int(start.InsnIdx)
	subseq := -1
	skipFirst := true
	for {
		if e.log.level >= 2 {
			e.log.printf("mark_precise: frame%d: last_idx %d first_idx %d subseq_idx %d \n", bt.frame, lastIdx, firstIdx, subseq)
		}
		if lastIdx < 0 {
			// The walk reached the entry of the program: only a global
			// subprogram's arguments may still be wanted there.
			if st.CurFrame == 0 && st.Frames[0].SubProg > 0 && st.Frames[0].CallSite == states.MainCallSite &&
				bt.stackMask() == 0 && bt.regMask()&^argRegsMask == 0 {
				for m := bt.regMask(); m != 0; m &= m - 1 {
					r := bits.TrailingZeros16(m)
					bt.clearReg(r)
					if reg := st.Frames[0].Reg(r); reg.Type == states.ScalarValue {
						st.Frames[0].SetRegPrecise(r, reg)
						setChanged(changed)
					}
				}
				return
			}
			// Anything else wanted at a function's entry is the
			// kernel's own bug (EFAULT, with a warning).
			if e.prec.fault == nil {
				e.prec.fault = e.backtrackBug("backtracking func entry subprog %d reg_mask %x stack_mask %x", st.Frames[0].SubProg, bt.regMask(), bt.stackMask())
			}
			fallback()
			return
		}
		// The walk inside st, get_prev_insn_idx inlined: the next
		// unconsumed history entry (the last of the first hist) is
		// kept at hand, as most steps only test against it.
		hist := len(st.JmpHistory)
		histAt := lastHistIdx(st, hist)
	walk:
		for i := lastIdx; ; {
			var h *states.JmpHistEntry
			if i == histAt {
				h = &st.JmpHistory[hist-1]
			}
			if skipFirst {
				skipFirst = false
			} else if !verbose && wants[i]&(uint32(bt.regs[bt.frame])|walkAlways) == 0 && bt.passes(h) {
				// Nothing wanted here: bt is unchanged, and not empty.
			} else if err := e.backtrackInsn(i, subseq, h, bt); err != nil {
				if err != errBacktrack && e.prec.fault == nil {
					e.prec.fault = err
				}
				fallback()
				return
			} else if bt.empty() {
				return
			}
			subseq = i
			// A state may loop back to its own first instruction; it
			// is only left when no history remains.
			if i == firstIdx && (hist == 0 || (hist == 1 && histAt == i)) {
				break
			}
			if h != nil {
				i = int(h.PrevIdx)
				hist--
				histAt = lastHistIdx(st, hist)
			} else {
				i--
			}
			if i < 0 || i >= len(e.prog) {
				e.backtrackIdxBug(i)
				fallback()
				return
			}
			if verbose {
				continue
			}
			// Most steps pass an instruction that wants nothing (the
			// test above), with or without a history entry that
			// leaves bt as it is: run over those in a loop of its own,
			// which keeps the mask in a register, and leave the rest
			// to the loop above. Each step is one of the loop above.
			mask := uint32(bt.regs[bt.frame]) | walkAlways
			for wants[i]&mask == 0 {
				if i == histAt {
					h := &st.JmpHistory[hist-1]
					if !bt.passes(h) {
						break
					}
					subseq = i
					if i == firstIdx && hist == 1 {
						break walk
					}
					i = int(h.PrevIdx)
					hist--
					histAt = lastHistIdx(st, hist)
					if i < 0 || i >= len(e.prog) {
						e.backtrackIdxBug(i)
						fallback()
						return
					}
					continue
				}
				subseq = i
				if i == firstIdx && hist == 0 {
					break walk
				}
				if i--; i < 0 {
					e.backtrackIdxBug(i)
					fallback()
					return
				}
			}
		}
		st = st.Parent
		if st == nil {
			break
		}
		if st.Freed {
			e.freedCheckpointFault(st)
			bt.reset()
			return
		}
		top := bt.frame
		if top > int(st.CurFrame) {
			// The kernel's walk reads the parent's frames from bt's
			// frame down, st->frame[fr] for each, and a parent may
			// have fewer frames than the walk's (a state entered in a
			// callback whose parent ends before the call). A missing
			// frame is a NULL pointer, dereferenced when anything is
			// wanted in it or when the level-2 log prints it: a
			// kernel oops in __mark_chain_precision (seen from
			// propagate_precision at a may_goto loop inside a
			// bpf_loop callback). With nothing wanted there the
			// kernel walks on, its frame number unchanged, and may
			// meet the missing frame again further up.
			if bt.wantsAbove(int(st.CurFrame)) || e.log.level >= 2 {
				if e.prec.fault == nil {
					e.prec.fault = e.kernelFault("precision wanted in frame %d of a parent state with %d frames: the 6.18 verifier dereferences the missing frame and oopses", bt.frame, st.CurFrame+1)
				}
				fallback()
				return
			}
			top = int(st.CurFrame)
		}
		for fr := top; fr >= 0; fr-- {
			f := st.Frames[fr]
			for m := bt.regs[fr]; m != 0; m &= m - 1 {
				r := bits.TrailingZeros16(m)
				reg := f.Reg(r)
				if reg.Type != states.ScalarValue || reg.Precise() {
					bt.clearFrameReg(fr, r)
					continue
				}
				f.SetRegPrecise(r, reg)
				setChanged(changed)
			}
			for m := bt.stack[fr]; m != 0; m &= m - 1 {
				spi := bits.TrailingZeros64(m)
				if spi >= f.NumSlots() {
					if e.prec.fault == nil {
						e.prec.fault = e.backtrackBug("stack slot %d, total slots %d", spi, f.NumSlots())
					}
					fallback()
					return
				}
				s := f.Slot(spi)
				if !s.IsSpilledScalarReg() || s.Spilled.Precise() {
					bt.clearFrameSlot(fr, spi)
					continue
				}
				f.SetSlotPrecise(spi, s)
				setChanged(changed)
			}
		}
		if e.log.level >= 2 {
			for fr := top; fr >= 0; fr-- {
				e.log.printf("mark_precise: frame%d: parent state regs=%s stack=%s: ", fr, fmtRegMask(bt.regs[fr]), fmtStackMask(bt.stack[fr]))
				e.log.appendState(st, fr, true)
			}
		}
		if bt.empty() {
			return
		}
		subseq = firstIdx
		lastIdx = int(st.LastInsnIdx)
		firstIdx = int(st.FirstInsnIdx)
	}
	// Something is still wanted above the first state: a value came from
	// somewhere the walk could not see (e.g. a stack access through a
	// pointer other than r10).
	if !bt.empty() {
		fallback()
	}
}

func setChanged(changed *bool) {
	if changed != nil {
		*changed = true
	}
}

// lastHistIdx is the instruction of the last of the first n entries of
// st's history, or -1 when n is 0 (get_jmp_hist_entry's test).
func lastHistIdx(st *states.State, n int) int {
	if n == 0 {
		return -1
	}
	return int(st.JmpHistory[n-1].Idx)
}

// backtrackInsn updates bt for walking backwards over instruction idx:
// the registers and slots wanted after it become those wanted before it
// (backtrack_insn). subseq is the instruction walked just before (the one
// that runs after idx), h the history entry recorded at idx, if any.
func (e *env) backtrackInsn(idx, subseq int, h *states.JmpHistEntry, bt *backtrack) error {
	in := &e.prog[idx]
	if in.Op == 0 {
		// The second slot of an ld_imm64.
		return nil
	}
	if e.log.level >= 2 {
		e.log.printf("mark_precise: frame%d: regs=%s stack=%s before %d: %s\n", bt.frame, fmtRegMask(bt.regMask()), fmtStackMask(bt.stackMask()), idx, e.insnText(idx))
	}
	bt.syncLinked(h, e.prec.scratch[:0])
	dreg, sreg := int(in.Dst), int(in.Src)
	if dreg >= states.NumRegs || sreg >= states.NumRegs {
		return errBacktrack
	}
	class := in.Class()
	if class == insn.ClassSTX && in.Mode() == insn.ModeATOMIC && in.Imm == insn.AtomicLoadAcq {
		// A load-acquire defines its destination exactly as a load does.
		class = insn.ClassLDX
	}
	switch class {
	case insn.ClassALU, insn.ClassALU64:
		if !bt.isReg(dreg) {
			return nil
		}
		switch op := in.ALUOp(); {
		case op == insn.ALUEnd || op == insn.ALUNeg:
			// dreg is computed from itself only.
			return nil
		case op == insn.ALUMov:
			bt.clearReg(dreg)
			if in.SrcIsReg() && sreg != states.RegFP {
				bt.setReg(sreg)
			}
		default:
			if in.SrcIsReg() && sreg != states.RegFP {
				bt.setReg(sreg)
			}
		}
	case insn.ClassLDX:
		if !bt.isReg(dreg) {
			return nil
		}
		bt.clearReg(dreg)
		// Only a fill from the stack carries a value worth following;
		// any other load yields a value whose range is its own.
		if !histHasFlag(h, histStackAccess) {
			return nil
		}
		fr, spi := histSlot(h.Flags)
		bt.setFrameSlot(fr, spi)
	case insn.ClassSTX, insn.ClassST:
		// A fetching atomic also loads: its load register took the old
		// value of the location. Kernels with stablefix.AtomicFetchPrecise
		// backtrack it as a load and nothing else (backtrack_insn's
		// BPF_LDX branch, is_atomic_fetch_insn): a load register nobody
		// wants ends the step, a wanted one is followed into the stack
		// slot as a fill is, and the slot is never cleared as a store's
		// would be. Older ones take it for a store and leave the load
		// register marked, to be resolved wrongly further up (and may
		// prune an unsafe path).
		if load, ok := fetchLoadReg(in); ok && !e.opts.MissingFixes.Has(stablefix.AtomicFetchPrecise) {
			if !bt.isReg(load) {
				return nil
			}
			bt.clearReg(load)
			if !histHasFlag(h, histStackAccess) {
				return nil
			}
			bt.setFrameSlot(histSlot(h.Flags))
			break
		}
		if bt.isReg(dreg) {
			// A scalar used as the address of a store: pointer
			// arithmetic the walk cannot follow.
			return errBacktrack
		}
		// A store, or an atomic read-modify-write of a spilled register
		// (whose read recorded the slot): the slot's value came from
		// the source register.
		if !histHasFlag(h, histStackAccess) {
			return nil
		}
		fr, spi := histSlot(h.Flags)
		if !bt.isFrameSlot(fr, spi) {
			return nil
		}
		bt.clearFrameSlot(fr, spi)
		if in.Class() == insn.ClassSTX {
			bt.setReg(sreg)
		}
	case insn.ClassJMP, insn.ClassJMP32:
		return e.backtrackJmp(idx, subseq, in, h, bt)
	case insn.ClassLD:
		legacy := in.Mode() == insn.ModeABS || in.Mode() == insn.ModeIND
		if legacy && subseq >= 0 && subseq != idx+1 {
			// The load's hidden exit (a failed packet load in a
			// subprogram returns 0 to the caller, check_ld_abs): the
			// next instruction of the path is the caller's, so walking
			// back enters the subprogram's frame, as over an exit. The
			// caller's r0 came from the load: no precision is tracked
			// through it (upstream "backtrack_insn(): Handle
			// ld_{abs,ind} subprog exit edge", in the 6.18.44 builds
			// here; without it the kernel reports its own bug).
			if bt.isReg(0) {
				return errBacktrack
			}
			if bt.frame+1 >= states.MaxCallFrames {
				return e.backtrackBug("subprog enter from frame %d", bt.frame)
			}
			bt.frame++
			return nil
		}
		if !bt.isReg(dreg) {
			return nil
		}
		bt.clearReg(dreg)
		if legacy {
			return errBacktrack
		}
	}
	bt.syncLinked(h, e.prec.scratch[:0])
	return nil
}

// subprogExitBug checks a walk back out of a callee (of kind "static
// subprog" or "callback") as backtrack_insn does: only the argument
// registers may still be wanted, no stack slot of the callee's frame,
// and there must be a caller's frame (bt_subprog_exit).
func (e *env) subprogExitBug(kind string, bt *backtrack) error {
	switch {
	case bt.regMask()&^argRegsMask != 0:
		return e.backtrackBug("%s unexpected regs %x", kind, bt.regMask())
	case bt.stackMask() != 0:
		return e.backtrackBug("%s leftover stack slots %x", kind, bt.stackMask())
	case bt.frame == 0:
		return e.backtrackBug("subprog exit from frame 0")
	}
	return nil
}

// backtrackJmp is backtrackInsn for the jump class: calls and exits move
// the walk between frames, conditional jumps want both operands.
func (e *env) backtrackJmp(idx, subseq int, in *insn.Insn, h *states.JmpHistEntry, bt *backtrack) error {
	dreg, sreg := int(in.Dst), int(in.Src)
	switch {
	case in.IsPseudoCall():
		target := idx + int(in.Imm) + 1
		sp := e.cfg.SubprogAt(target)
		if sp < 0 {
			return errBacktrack
		}
		if e.isGlobalSubprog(sp) {
			// A global function's body is not on the path; it sets r0
			// and takes its arguments from a prototype, so r1-r5 must
			// have been found after the call.
			if bt.regMask()&argRegsMask != 0 {
				return e.backtrackBug("global subprog unexpected regs %x", bt.regMask())
			}
			bt.clearReg(0)
			return nil
		}
		// Walking back over the call leaves the callee: only its
		// arguments may still be wanted, and they come from the caller.
		if err := e.subprogExitBug("static subprog", bt); err != nil {
			return err
		}
		for r := 1; r <= 5; r++ {
			if bt.isReg(r) {
				bt.clearReg(r)
				bt.setFrameReg(bt.frame-1, r)
			}
		}
		bt.frame--
		return nil
	case in.JmpOp() == insn.JmpCall && e.cfg.CallsCallback(idx) && idx != subseq-1:
		// Walking back from a callback's first instruction over the
		// helper or kfunc that ran it leaves the callback's frame. Its
		// r1-r5 were set by the helper, not passed by the caller, so
		// they are dropped rather than handed to the caller; anything
		// else still wanted in the callback's frame is a walk the
		// kernel treats as its own bug, which stays sound here as the
		// big-hammer fallback.
		if err := e.subprogExitBug("callback", bt); err != nil {
			return err
		}
		for r := 1; r <= 5; r++ {
			bt.clearReg(r)
		}
		bt.frame--
		return nil
	case in.JmpOp() == insn.JmpCall:
		if in.Src == insn.PseudoKfuncCall && in.Imm == 0 {
			return errBacktrack
		}
		// A helper sets r0 and clobbers r1-r5, which must have been
		// found after the call. They can still be wanted when the walk
		// came to the call from an async callback's first instructions:
		// the callback's state starts with first_insn_idx 0, so the
		// kernel walks on into the code that registered the callback.
		bt.clearReg(0)
		if bt.regMask()&argRegsMask != 0 {
			return e.backtrackBug("backtracking call unexpected regs %x", bt.regMask())
		}
		if in.Src == 0 && in.Imm == fnTailCall && subseq-idx != 1 {
			// A tail call taken inside a subprogram returned to the
			// caller (tailCallSubprogExit): the next instruction of
			// the path is the caller's, so walking back over the
			// call enters the subprogram's frame, as over an exit.
			if bt.frame+1 >= states.MaxCallFrames {
				return e.backtrackBug("subprog enter from frame %d", bt.frame)
			}
			bt.frame++
		}
	case in.JmpOp() == insn.JmpExit:
		// Walking back over an exit enters the callee that returned.
		// From a callback, the caller's r1-r5 wanted at the call that
		// ran it: 6.18.0 drops them here; kernels with the fix keep them
		// through the callback's body and drop them at the call (the
		// case above), upstream "backtrack cb args precise", which
		// came with stablefix.NullArgPrecise. It changes only the walk
		// the log shows: the caller's registers at the call were made
		// precise before the callback's frame was copied from it.
		fromSubprogCall := subseq-1 >= 0 && e.prog[subseq-1].IsPseudoCall()
		keepArgs := !e.opts.MissingFixes.Has(stablefix.NullArgPrecise)
		if subseq >= 0 && e.cfg.CallsCallback(subseq) && !keepArgs {
			for r := 1; r <= 5; r++ {
				bt.clearReg(r)
			}
		}
		if (fromSubprogCall || !keepArgs) && bt.regMask()&argRegsMask != 0 {
			return e.backtrackBug("backtracking exit unexpected regs %x", bt.regMask())
		}
		if bt.frame+1 >= states.MaxCallFrames {
			return e.backtrackBug("subprog enter from frame %d", bt.frame)
		}
		r0 := fromSubprogCall && bt.isReg(0)
		bt.clearReg(0)
		bt.frame++
		if r0 {
			bt.setReg(0)
		}
		return nil
	case in.SrcIsReg():
		if !bt.isReg(dreg) && !bt.isReg(sreg) {
			return nil
		}
		// Both operands decided the branch.
		if !histHasFlag(h, histSrcRegStack) {
			bt.setReg(sreg)
		}
		if !histHasFlag(h, histDstRegStack) {
			bt.setReg(dreg)
		}
	}
	bt.syncLinked(h, e.prec.scratch[:0])
	return nil
}

// recordTailCallKey is the precision part of the kernel's record_func_key:
// a tail call whose index (r3) is a constant inside the program array lets
// the kernel patch a direct jump, so that constant is relied upon and made
// precise.
func (e *env) recordTailCallKey(mapIdx int) error {
	if mapIdx < 0 || mapIdx >= len(e.maps) {
		return nil
	}
	const indexReg = 3
	r := &e.regs()[indexReg]
	if r.Type != states.ScalarValue || !r.Var.IsConst() || r.Var.Value >= uint64(e.maps[mapIdx].MaxEntries) {
		e.tailCalls.record(e.insnIdx, mapIdx, 0, false)
		return nil
	}
	if err := e.markChainPrecision(indexReg); err != nil {
		return err
	}
	e.tailCalls.record(e.insnIdx, mapIdx, r.Var.Value, true)
	return nil
}

// fmtRegMask renders a register set as the kernel's log does ("r0,r2").
func fmtRegMask(m uint16) string {
	var b strings.Builder
	for ; m != 0; m &= m - 1 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString("r" + strconv.Itoa(bits.TrailingZeros16(m)))
	}
	return b.String()
}

// fmtStackMask renders a slot set as frame-pointer offsets ("-8,-24").
func fmtStackMask(m uint64) string {
	var b strings.Builder
	for ; m != 0; m &= m - 1 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(states.SlotOffset(bits.TrailingZeros64(m))))
	}
	return b.String()
}

// fetchLoadReg is the register a fetching atomic loads the old value
// into (BPF_FETCH: the source register; BPF_CMPXCHG: r0); ok is false for
// any other instruction.
func fetchLoadReg(in *insn.Insn) (reg int, ok bool) {
	const fetch, cmpxchg = 0x01, 0xf1
	if in.Class() != insn.ClassSTX || in.Mode() != insn.ModeATOMIC || in.Imm&fetch == 0 || in.Imm == insn.AtomicLoadAcq {
		return 0, false
	}
	if in.Imm == cmpxchg {
		return 0, true
	}
	return int(in.Src), true
}

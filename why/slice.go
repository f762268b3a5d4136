package why

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

// analysis holds what the parts of Build share.
type analysis struct {
	in   Input
	path []Step
	// last is the index in path of the failing step.
	last int
	// relevant marks the steps of branches that compared a traced value.
	relevant map[int]bool
}

func newAnalysis(in Input) *analysis {
	return &analysis{in: in, path: in.Path, last: len(in.Path) - 1, relevant: map[int]bool{}}
}

// line returns the source line of instruction idx as the kernel's
// find_linfo does: the last line-info record at or before it.
func (a *analysis) line(idx int) (string, int, string) {
	if idx >= len(a.in.Lines) {
		idx = len(a.in.Lines) - 1
	}
	for ; idx >= 0; idx-- {
		if l := a.in.Lines[idx]; l.Line != 0 || l.File != "" {
			return l.File, int(l.Line), strings.TrimSpace(l.Source)
		}
	}
	return "", 0, ""
}

// insnText is instruction idx as the log prints it.
func insnText(insns []insn.Insn, idx int) string { return insn.Format(idx, insns[idx]) }

// point describes step k of the path, with the value of reg after it.
func (a *analysis) point(k int, val *states.Reg, frame int8, note string) Point {
	idx := int(a.path[k].Insn)
	p := Point{Insn: idx, Text: insnText(a.in.Insns, idx), Note: note}
	p.File, p.Line, p.Source = a.line(idx)
	if val != nil {
		p.Value = a.reg(val, frame)
	}
	return p
}

// reg renders a register in the log's form.
func (a *analysis) reg(r *states.Reg, frame int8) string {
	if a.in.Printer == nil {
		return r.Type.String()
	}
	return string(a.in.Printer.AppendReg(nil, r, int32(frame)))
}

// regInMsg finds the register a kernel message is about: "R3 ..." or an
// argument "arg#0", "arg #1", "arg0" (r1 onwards).
var (
	regInMsg = regexp.MustCompile(`\bR(\d+)\b`)
	argInMsg = regexp.MustCompile(`\barg ?#?(\d)\b`)
)

// faultReg returns the register the error is about: the one the message
// names, else the base of a failing memory access or the scalar operand
// of failing pointer arithmetic.
func (a *analysis) faultReg() (uint8, bool) {
	if m := regInMsg.FindStringSubmatch(a.in.Err.Msg); m != nil {
		if n, _ := strconv.Atoi(m[1]); n < states.NumRegs {
			return uint8(n), true
		}
	}
	if m := argInMsg.FindStringSubmatch(a.in.Err.Msg); m != nil {
		if n, _ := strconv.Atoi(m[1]); n < insn.MaxArgs {
			return uint8(n + 1), true
		}
	}
	s := &a.path[a.last]
	in := a.in.Insns[s.Insn]
	if writes(in, insn.R10) {
		// Whatever the operands, r10 is read only.
		return 0, false
	}
	if in.Dst >= states.NumRegs || in.Src >= states.NumRegs {
		// An operand numbered past r10 ("R14 is invalid") holds nothing.
		return 0, false
	}
	if base, ok := memBase(in); ok {
		return base, true
	}
	if isALU(in) && in.SrcIsReg() {
		// Pointer arithmetic refused: the scalar operand is at fault.
		d, src := s.Regs[in.Dst].Type, s.Regs[in.Src].Type
		switch {
		case d != states.ScalarValue && d != states.NotInit && src == states.ScalarValue:
			return in.Src, true
		case src != states.ScalarValue && src != states.NotInit && d == states.ScalarValue:
			return in.Dst, true
		}
	}
	return 0, false
}

// memBase returns the base register of a load or store.
func memBase(in insn.Insn) (uint8, bool) {
	switch in.Class() {
	case insn.ClassLDX:
		return in.Src, true
	case insn.ClassST, insn.ClassSTX:
		return in.Dst, true
	}
	return 0, false
}

func isALU(in insn.Insn) bool {
	return in.Class() == insn.ClassALU || in.Class() == insn.ClassALU64
}

func isCall(in insn.Insn) bool { return in.Op == insn.ClassJMP|insn.JmpCall }

// isCopy reports a 64-bit register move, which copies a value whole.
func isCopy(in insn.Insn) bool {
	return in.Op == insn.ClassALU64|insn.ALUMov|insn.SrcX && in.Off == 0
}

// explain fills x from the failing path.
func (a *analysis) explain(x *Explanation) {
	r, ok := a.faultReg()
	if ok {
		x.Register = "R" + strconv.Itoa(int(r))
		a.explainReg(x, r)
	} else {
		a.explainNoReg(x)
	}
	a.branches(x)
}

// explainReg classifies the fault by what register r holds at the error
// and traces the property at fault back to its origin.
func (a *analysis) explainReg(x *Explanation, r uint8) {
	s := &a.path[a.last]
	v := &s.Regs[r]
	in := a.in.Insns[s.Insn]
	base, isMem := memBase(in)
	usedAsPtr := (isMem && base == r) || (isCall(in) && r >= insn.R1 && r <= insn.R5)
	scalarArg, known := a.argScalar(int(s.Insn), r)
	if !known {
		// Without a prototype, a constant passed is taken for a NULL or
		// a number meant as a pointer, anything else for a size.
		scalarArg = !v.Var.IsConst()
	}
	switch {
	case v.Type == states.NotInit:
		t := a.trace(r, propInit)
		x.Cause = UninitRegister
		a.finish(x, t, fmt.Sprintf("R%d is not initialised", r))
	case v.MaybeNull():
		t := a.trace(r, propType)
		x.Cause = NullUnchecked
		a.finish(x, t, fmt.Sprintf("R%d may be NULL (%s)", r, a.reg(v, s.Frame)))
	case v.Type == states.ScalarValue && usedAsPtr && (!isCall(in) || !scalarArg):
		a.explainScalarPointer(x, r)
	case v.Type == states.ScalarValue:
		a.explainRange(x, r, v)
	case v.Type == states.PtrToStack && usedAsPtr:
		a.explainStack(x, r, v, in)
	case v.IsPktPointer() && usedAsPtr:
		a.explainPacket(x, r)
	case v.Type == states.PtrToCtx && isMem && base == r:
		t := a.trace(r, propOffset)
		x.Cause = ContextField
		a.finish(x, t, fmt.Sprintf("R%d points into the context at offset %d", r, v.Off+int32(in.Off)))
	case isMem && base == r && !v.Var.IsConst():
		a.explainRange(x, r, v)
	case isMem && base == r:
		t := a.trace(r, propOffset)
		x.Cause = PointerOffset
		a.finish(x, t, fmt.Sprintf("R%d is %s, accessed at offset %d", r, a.reg(v, s.Frame), in.Off))
	default:
		t := a.trace(r, propType)
		x.Cause = PointerKind
		a.finish(x, t, fmt.Sprintf("R%d is %s", r, a.reg(v, s.Frame)))
	}
}

// explainScalarPointer explains a scalar used as a pointer by the kind of
// instruction that made it a scalar.
func (a *analysis) explainScalarPointer(x *Explanation, r uint8) {
	t := a.trace(r, propType)
	x.Cause = ScalarAsPointer
	if t.origin >= 0 {
		in := a.in.Insns[a.path[t.origin].Insn]
		wasPtr := t.before.Type != states.NotInit && t.before.Type != states.ScalarValue
		switch {
		case wasPtr && isALU(in) && in.ALUOp() != insn.ALUMov:
			x.Cause = PointerLost
		case wasPtr && isCall(in) && t.reg != insn.R0:
			x.Cause = ReferenceReleased
		}
	}
	a.finish(x, t, fmt.Sprintf("R%d is a scalar where a pointer is needed", r))
}

// explainRange explains a value (a scalar, or a pointer's variable
// offset) whose range the instruction refuses: where it got that range.
func (a *analysis) explainRange(x *Explanation, r uint8, v *states.Reg) {
	t := a.trace(r, propBounds)
	x.Cause = OutOfRange
	if unbounded(&v.Scalar) {
		x.Cause = Unbounded
	}
	what := "R%d's value is %s"
	if v.Type != states.ScalarValue {
		what = "R%d's variable offset is %s"
	}
	a.finish(x, t, fmt.Sprintf(what, r, rangeText(&v.Scalar)))
}

// unbounded reports a value with no bound on one side.
func unbounded(s *states.Scalar) bool {
	const maxU = ^uint64(0)
	return s.UMax == maxU || s.SMin == -1<<63 || s.SMax == 1<<63-1 || s.UMax >= 1<<29
}

// rangeText renders a value's bounds.
func rangeText(s *states.Scalar) string {
	if s.Var.IsConst() {
		return strconv.FormatInt(int64(s.Var.Value), 10)
	}
	return fmt.Sprintf("smin=%d smax=%d umin=%d umax=%d", s.SMin, s.SMax, s.UMin, s.UMax)
}

// explainPacket explains a packet access past the proven range: the step
// that last set the range of the pointer.
func (a *analysis) explainPacket(x *Explanation, r uint8) {
	v := &a.path[a.last].Regs[r]
	in := a.in.Insns[a.path[a.last].Insn]
	if base, isMem := memBase(in); isMem && base == r && v.Var.IsConst() && int64(v.Off)+int64(v.Var.Value)+int64(in.Off) >= 0 &&
		int64(v.Off)+int64(v.Var.Value)+int64(in.Off)+int64(in.SizeBytes()) <= int64(v.Range) {
		// The access lies inside the proven range: no comparison is
		// missing, the access itself is refused here (a packet write in
		// a program type that may only read packets, an atomic on one).
		x.Cause, x.NoSlice = Static, fmt.Sprintf("R%d's access lies within the %d bytes proven: the program type or the instruction's kind is refused, whatever the range", r, v.Range)
		return
	}
	t := a.trace(r, propPktRange)
	x.Cause = PacketUnchecked
	if t.origin >= 0 && a.in.Insns[a.path[t.origin].Insn].IsConditional() {
		x.Cause = PacketRangeShort
	}
	a.finish(x, t, fmt.Sprintf("R%d is a packet pointer at offset %d with %d bytes proven", r, v.Off, v.Range))
}

// argScalar asks Input.ArgScalar, when there is one.
func (a *analysis) argScalar(idx int, r uint8) (bool, bool) {
	if a.in.ArgScalar == nil || !isCall(a.in.Insns[idx]) {
		return false, false
	}
	return a.in.ArgScalar(idx, r)
}

// explainNoReg explains an error that names no register: a reference
// held at exit, a lock held at a call, or the instruction itself.
func (a *analysis) explainNoReg(x *Explanation) {
	in := a.in.Insns[a.path[a.last].Insn]
	f := a.in.Final
	var want uint8 = states.RefKindPtr
	ends := in.Op == insn.ClassJMP|insn.JmpExit || (in.Class() == insn.ClassLD && !in.IsLdImm64())
	switch {
	case ends && hasRef(f, states.RefKindPtr):
		x.Cause = UnreleasedReference
	case (isCall(in) || ends) && f.ActiveLocks > 0 && hasRef(f, states.RefKindLock):
		x.Cause, want = LockHeld, states.RefKindLock
	case a.repeated() >= 0:
		j := a.repeated()
		x.Cause = InfiniteLoop
		a.finish(x, traced{origin: j, links: []link{{step: j, frame: a.path[j].Frame, note: "the same registers here, one round earlier"}}},
			fmt.Sprintf("the path came back to insn %d in the state it had", a.path[a.last].Insn))
		return
	default:
		x.Cause, x.NoSlice = Static, "the message names no register and the state holds nothing the instruction conflicts with: it is refused whatever the registers hold (program type, license, call context)"
		return
	}
	ref := lastRef(f, want)
	t := traced{origin: a.lastStepAt(int(ref.InsnIdx)), reg: insn.R0}
	what := fmt.Sprintf("the path reaches insn %d holding reference %d", a.path[a.last].Insn, ref.ID)
	if want == states.RefKindLock {
		what = fmt.Sprintf("insn %d runs with a lock held", a.path[a.last].Insn)
	}
	if t.origin >= 0 {
		t.links = []link{{step: t.origin, note: "acquired here"}}
	}
	a.finish(x, t, what)
}

// repeated returns the earlier step of the path at the failing
// instruction, in the same frame with the same registers, or -1.
func (a *analysis) repeated() int {
	s := &a.path[a.last]
	for k := a.last - 1; k >= 0; k-- {
		if p := &a.path[k]; p.Insn == s.Insn && p.Frame == s.Frame && p.Regs == s.Regs {
			return k
		}
	}
	return -1
}

// hasRef reports a reference of kind k in st.
func hasRef(st *states.State, k uint8) bool {
	for _, r := range st.Refs {
		if r.Kind == k {
			return true
		}
	}
	return false
}

// lastRef returns the most recently acquired reference of kind k.
func lastRef(st *states.State, k uint8) states.Ref {
	var out states.Ref
	for _, r := range st.Refs {
		if r.Kind == k {
			out = r
		}
	}
	return out
}

// lastStepAt returns the last step of the path at instruction idx, or -1.
func (a *analysis) lastStepAt(idx int) int {
	for k := a.last; k >= 0; k-- {
		if int(a.path[k].Insn) == idx {
			return k
		}
	}
	return -1
}

// finish writes the slice, origin and summary of a traced fault.
func (a *analysis) finish(x *Explanation, t traced, what string) {
	fr := a.path[a.last].Frame
	x.Slice = append(x.Slice, a.point(a.last, nil, fr, "fails here"))
	for _, l := range t.links {
		x.Slice = append(x.Slice, a.point(l.step, l.val, l.frame, l.note))
	}
	if t.origin >= 0 {
		o := x.Slice[len(x.Slice)-1]
		x.Origin = &o
		x.Summary = fmt.Sprintf("%s: %s at insn %d (%s)", what, o.Note, o.Insn, a.in.Insns[o.Insn].String())
		return
	}
	x.Summary = what + ": " + t.entryNote
}

// branches lists the conditional jumps of the path with the edge taken.
func (a *analysis) branches(x *Explanation) {
	var all []Branch
	for k := 0; k < a.last; k++ {
		idx := int(a.path[k].Insn)
		in := a.in.Insns[idx]
		if !in.IsConditional() {
			continue
		}
		b := Branch{Insn: idx, Text: insnText(a.in.Insns, idx), Taken: int(a.path[k+1].Insn) != idx+1, Relevant: a.relevant[k] || a.comparesPktEnd(k, x.Cause)}
		b.File, b.Line, _ = a.line(idx)
		all = append(all, b)
	}
	x.BranchCount = len(all)
	// Keep the relevant ones and the last others, in path order.
	others := maxBranches
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Relevant || others > 0 {
			if !all[i].Relevant {
				others--
			}
			x.Branches = append(x.Branches, all[i])
		}
	}
	for i, j := 0, len(x.Branches)-1; i < j; i, j = i+1, j-1 {
		x.Branches[i], x.Branches[j] = x.Branches[j], x.Branches[i]
	}
}

// comparesPktEnd reports, for a packet cause, a jump at step k comparing
// a packet pointer with the packet's end.
func (a *analysis) comparesPktEnd(k int, c Cause) bool {
	if c != PacketUnchecked && c != PacketRangeShort {
		return false
	}
	in := a.in.Insns[a.path[k].Insn]
	if !in.SrcIsReg() {
		return false
	}
	d, s := &a.path[k].Regs[in.Dst], &a.path[k].Regs[in.Src]
	return d.Type == states.PtrToPacketEnd || s.Type == states.PtrToPacketEnd
}

package why

import (
	"fmt"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

// prop is the property of a value the fault is about; the trace looks for
// the step where it last changed.
type prop int

const (
	// propInit: initialised or not.
	propInit prop = iota
	// propType: the kind of the value, with its flags (maybe NULL...).
	propType
	// propBounds: a scalar's range, or a pointer's variable offset.
	propBounds
	// propOffset: a pointer's kind and offsets.
	propOffset
	// propPktRange: the bytes proven past a packet pointer.
	propPktRange
)

// same reports whether a and b agree on p.
func (p prop) same(a, b *states.Reg) bool {
	switch p {
	case propInit:
		return (a.Type == states.NotInit) == (b.Type == states.NotInit)
	case propType:
		return a.Type == b.Type && a.Flags == b.Flags
	case propBounds:
		return a.Scalar == b.Scalar
	case propOffset:
		return a.Type == b.Type && a.Off == b.Off && a.Scalar == b.Scalar
	default:
		return a.Type == b.Type && a.Range == b.Range
	}
}

// link is one step of a slice: the traced value after it and what the
// step did.
type link struct {
	step  int
	val   *states.Reg
	frame int8
	note  string
}

// traced is the result of a trace: the links from the fault back, the
// origin step (-1: the value had its property since the path's entry,
// entryNote says so), the register traced at the origin and its value
// before the origin.
type traced struct {
	links     []link
	origin    int
	reg       uint8
	before    states.Reg
	entryNote string
}

// tracer walks the path backwards.
type tracer struct {
	a     *analysis
	p     prop
	frame int8
	reg   uint8
	// after is the traced value after step k, before step k+1.
	after states.Reg
	t     traced
}

// trace follows register r of the failing step back along the path to
// the step where p last changed, through copies, spills and fills, call
// arguments and return values, and the scalar added to a pointer.
func (a *analysis) trace(r uint8, p prop) traced {
	s := &a.path[a.last]
	tr := tracer{a: a, p: p, frame: s.Frame, reg: r, after: s.Regs[r], t: traced{origin: -1}}
	for k := a.last - 1; k >= 0; k-- {
		next, done := tr.step(k)
		if done {
			return tr.t
		}
		k = next
	}
	tr.t.reg = tr.reg
	tr.t.entryNote = fmt.Sprintf("so since the entry of the path (R%d = %s)", tr.reg, a.reg(&tr.after, tr.frame))
	return tr.t
}

// step looks at step k. It returns the step to go on from (plus one, as
// the caller decrements) or done when the origin is found.
func (tr *tracer) step(k int) (next int, done bool) {
	a := tr.a
	s := &a.path[k]
	switch {
	case s.Frame > tr.frame:
		return tr.leaveCallee(k)
	case s.Frame < tr.frame:
		return tr.enterCallee(k)
	}
	in := a.in.Insns[s.Insn]
	if in.IsConditional() && (in.Dst == tr.reg || (in.SrcIsReg() && in.Src == tr.reg)) {
		a.relevant[k] = true
	}
	before := s.Regs[tr.reg]
	if !writes(in, tr.reg) {
		switch {
		case tr.p.same(&before, &tr.after):
			tr.after = before
			return k, false
		case in.IsConditional() && tr.p != propPktRange:
			tr.link(k, "narrowed by this branch")
			tr.after = before
			return k, false
		}
		// Changed by an instruction that does not write it: a call that
		// released it, a comparison that proved a packet range.
		tr.origin(k, before, originNote(in, tr.reg, &before, &tr.after, a))
		return k, true
	}
	switch {
	case isCopy(in):
		tr.link(k, fmt.Sprintf("copied from R%d", in.Src))
		tr.reg = in.Src
		tr.after = s.Regs[in.Src]
		return k, false
	case in.Class() == insn.ClassLDX && s.Regs[in.Src].Type == states.PtrToStack:
		return tr.fill(k, in)
	case isALU(in) && in.ALUOp() != insn.ALUMov && tr.p == propBounds && before.Type != states.ScalarValue &&
		in.SrcIsReg() && s.Regs[in.Src].Type == states.ScalarValue && !tr.p.same(&before, &tr.after):
		// A pointer's variable offset comes from the scalar added.
		tr.link(k, fmt.Sprintf("offset moved by R%d", in.Src))
		tr.reg = in.Src
		tr.after = s.Regs[in.Src]
		return k, false
	case isALU(in) && in.ALUOp() != insn.ALUMov && tr.p.same(&before, &tr.after):
		// Arithmetic that kept the property: the same value goes on.
		tr.after = before
		return k, false
	}
	tr.origin(k, before, originNote(in, tr.reg, &before, &tr.after, a))
	return k, true
}

// writes reports whether in writes register r: an ALU or load
// destination, a call's r0-r5, an atomic fetch's source.
func writes(in insn.Insn, r uint8) bool {
	switch in.Class() {
	case insn.ClassALU, insn.ClassALU64, insn.ClassLDX:
		return in.Dst == r
	case insn.ClassLD:
		return in.Dst == r || (!in.IsLdImm64() && r <= insn.R5)
	case insn.ClassSTX:
		return in.Mode() == insn.ModeATOMIC && in.Imm&insn.AtomicFetch != 0 &&
			(in.Src == r || (in.Imm == insn.AtomicCmpXchg && r == insn.R0))
	}
	return isCall(in) && r <= insn.R5
}

// link records step k of the slice with the traced value after it.
func (tr *tracer) link(k int, note string) {
	v := tr.after
	tr.t.links = append(tr.t.links, link{step: k, val: &v, frame: tr.frame, note: note})
}

// origin ends the trace at step k.
func (tr *tracer) origin(k int, before states.Reg, note string) {
	tr.link(k, note)
	tr.t.origin, tr.t.reg, tr.t.before = k, tr.reg, before
}

// leaveCallee handles a step k inside a subprogram that returned before
// step k+1: r0 is the callee's, the others are the caller's, untouched by
// the callee, or clobbered by the call (r1-r5).
func (tr *tracer) leaveCallee(k int) (int, bool) {
	a := tr.a
	if tr.reg == insn.R0 {
		tr.link(k, "returned by the subprogram")
		tr.frame = a.path[k].Frame
		return k + 1, false
	}
	j := k
	for j >= 0 && a.path[j].Frame != tr.frame {
		j--
	}
	if j < 0 {
		return -1, false
	}
	if tr.reg >= insn.R1 && tr.reg <= insn.R5 {
		tr.origin(j, a.path[j].Regs[tr.reg], "the call clobbers R1-R5")
		return j, true
	}
	return j + 1, false
}

// enterCallee handles the call at step k that entered the traced frame:
// r1-r5 are the caller's arguments, the others start uninitialised.
func (tr *tracer) enterCallee(k int) (int, bool) {
	a := tr.a
	if tr.reg >= insn.R1 && tr.reg <= insn.R5 && a.in.Insns[a.path[k].Insn].IsPseudoCall() {
		tr.link(k, fmt.Sprintf("passed as argument R%d", tr.reg))
		tr.frame = a.path[k].Frame
		tr.after = a.path[k].Regs[tr.reg]
		return k, false
	}
	note := "the called function starts with it"
	if !a.in.Insns[a.path[k].Insn].IsPseudoCall() {
		note = "the helper passes it to the callback"
	}
	tr.origin(k, states.Reg{}, note)
	return k, true
}

// fill follows a load from the stack at step k back to the store that
// spilled the value, or ends there when no store on the path did.
func (tr *tracer) fill(k int, in insn.Insn) (int, bool) {
	a := tr.a
	base := &a.path[k].Regs[in.Src]
	addr, ok := stackAddr(base, in.Off)
	if !ok {
		tr.origin(k, a.path[k].Regs[tr.reg], "loaded from the stack")
		return k, true
	}
	j := a.lastStore(k, base.FrameNo(), addr, in.SizeBytes())
	if j < 0 {
		tr.origin(k, a.path[k].Regs[tr.reg], fmt.Sprintf("loaded from fp%d, which no store on the path wrote", addr))
		return k, true
	}
	tr.link(k, fmt.Sprintf("filled from fp%d", addr))
	st := a.in.Insns[a.path[j].Insn]
	if st.Class() != insn.ClassSTX || st.Mode() != insn.ModeMEM {
		tr.origin(j, states.Reg{}, fmt.Sprintf("stored to fp%d", addr))
		return j, true
	}
	spilled := a.path[j].Regs[st.Src]
	if !tr.p.same(&spilled, &tr.after) {
		// The slot changed since (a variable-offset store, a narrower
		// fill): the load is where the value came from.
		tr.origin(k, a.path[k].Regs[tr.reg], fmt.Sprintf("loaded %s from fp%d", typeName(&tr.after), addr))
		return k, true
	}
	tr.frame = a.path[j].Frame
	tr.reg = st.Src
	tr.after = spilled
	tr.link(j, fmt.Sprintf("spilled to fp%d", addr))
	return j, false
}

// stackAddr is the frame offset a stack pointer plus off points at.
func stackAddr(r *states.Reg, off int16) (int, bool) {
	if r.Type != states.PtrToStack || !r.Var.IsConst() {
		return 0, false
	}
	return int(r.Off) + int(int64(r.Var.Value)) + int(off), true
}

// lastStore returns the last step before k that stored to [addr,
// addr+size) of frame frameNo, or -1.
func (a *analysis) lastStore(k int, frameNo, addr, size int) int {
	for j := k - 1; j >= 0; j-- {
		in := a.in.Insns[a.path[j].Insn]
		if in.Class() != insn.ClassST && in.Class() != insn.ClassSTX {
			continue
		}
		b := &a.path[j].Regs[in.Dst]
		at, ok := stackAddr(b, in.Off)
		if ok && b.FrameNo() == frameNo && at < addr+size && addr < at+in.SizeBytes() {
			return j
		}
	}
	return -1
}

// originNote says what the origin instruction in did to register r.
func originNote(in insn.Insn, r uint8, before, after *states.Reg, a *analysis) string {
	switch {
	case isCall(in) && r == insn.R0:
		return "the call returns " + typeName(after)
	case isCall(in) && after.Type == states.NotInit:
		return fmt.Sprintf("the call clobbers R%d", r)
	case isCall(in):
		return fmt.Sprintf("the call turned R%d from %s into %s", r, typeName(before), typeName(after))
	case in.IsConditional():
		return fmt.Sprintf("the comparison proves %d bytes", after.Range)
	case in.Class() == insn.ClassLDX || in.Class() == insn.ClassLD:
		return "loaded " + typeName(after)
	case isALU(in) && in.ALUOp() != insn.ALUMov && before.Type != states.ScalarValue && before.Type != states.NotInit && after.Type == states.ScalarValue:
		return fmt.Sprintf("arithmetic turned %s into a scalar", typeName(before))
	case isALU(in) && before.Type == after.Type && after.Type != states.ScalarValue:
		return fmt.Sprintf("arithmetic moved the pointer to %s", a.reg(after, 0))
	case isALU(in):
		return fmt.Sprintf("R%d becomes %s", r, a.reg(after, 0))
	}
	return fmt.Sprintf("R%d becomes %s", r, typeName(after))
}

// typeName is the kernel's name for a register's kind.
func typeName(r *states.Reg) string {
	if r.Type == states.ScalarValue {
		return "a scalar"
	}
	return string(states.AppendType(nil, r.Type, r.Flags))
}

package gen

import (
	"errors"
	"math/rand/v2"

	"github.com/vercheck/vercheck/insn"
)

var errUnresolved = errors.New("generated program has an unresolvable jump")

// kind is what the generator believes a register or stack slot holds.
type kind uint8

const (
	kNone kind = iota
	kScalar
	kCtx
	kPkt
	kPktEnd
	kMapVal
	kStack
)

// Stack layout used by the generator: slots 0..numSlots-1 below the frame
// pointer (slot s covers fp-8*(s+1) .. fp-8*s).
const (
	numSlots = 24
	slotSize = 8
	// keySlot is reserved for map keys.
	keySlot = numSlots - 1
)

// gstate is the generator's view of one path.
type gstate struct {
	regs      [insn.NumRegs]kind
	slotInit  [numSlots]bool
	slotPtr   [numSlots]kind
	reserved  uint16 // registers the current construct must not touch
	inSubprog bool
}

// merge keeps what both paths agree on.
func merge(a, b gstate) gstate {
	out := a
	for i := range out.regs {
		if a.regs[i] != b.regs[i] {
			out.regs[i] = kNone
		}
	}
	for s := range out.slotInit {
		out.slotInit[s] = a.slotInit[s] && b.slotInit[s] && a.slotPtr[s] == b.slotPtr[s]
		if !out.slotInit[s] {
			out.slotPtr[s] = kNone
		}
	}
	return out
}

// generator holds one program being generated.
type generator struct {
	r   *rand.Rand
	cfg Config
	b   builder
	st  gstate
	// budget is the number of statements still to generate.
	budget int
	// subLabel is the subprogram's label, or unbound until first called.
	subLabel int
	// loops counts nested loops: the counter register is shared.
	loops int
}

// Size limits of generated constructs.
const (
	maxDepth     = 3
	maxLoopIters = 6
	maxBlock     = 4
	// scratch registers for scalars.
)

// scalarRegs may hold scalars (r6-r8 hold the context and packet).
var scalarRegs = []uint8{insn.R0, insn.R1, insn.R2, insn.R3, insn.R4, insn.R5, insn.R9}

func (g *generator) oops() bool { return g.r.Float64() < g.cfg.Mistakes }

func (g *generator) pick(n int) int { return g.r.IntN(n) }

// main generates the whole program: prologue, statements, exit, and the
// subprogram if it was called.
func (g *generator) main() {
	g.subLabel = -1
	g.st.regs[insn.R1] = kCtx
	g.st.regs[insn.R10] = kStack
	g.b.emit(movReg(regCtx, insn.R1))
	g.b.emit(ldx(regData, regCtx, xdpData, 4))
	g.b.emit(ldx(regDataEnd, regCtx, xdpDataEnd, 4))
	g.st.regs[regCtx], g.st.regs[regData], g.st.regs[regDataEnd] = kCtx, kPkt, kPktEnd
	g.budget = g.cfg.Stmts
	for g.budget > 0 {
		g.stmt(0)
	}
	g.ret()
	if g.subLabel >= 0 {
		g.subprog()
	}
}

// ret sets r0 and exits.
func (g *generator) ret() {
	switch {
	case g.oops() && g.oops():
		// Return whatever r0 holds (maybe nothing).
	case g.st.regs[insn.R0] == kScalar && g.pick(2) == 0:
		g.b.emit(alu(insn.ClassALU64, insn.ALUAnd, insn.R0, 0, 0, 3, false))
	default:
		g.b.emit(movImm(insn.R0, xdpPass))
	}
	g.b.emit(exit())
}

// subprog emits the subprogram: r1 is a scalar or a pointer to an
// initialised caller stack slot, r2 a scalar.
func (g *generator) subprog() {
	g.b.bind(g.subLabel)
	g.st = gstate{inSubprog: true}
	g.st.regs[insn.R10] = kStack
	g.st.regs[insn.R2] = kScalar
	g.b.emit(ldx(insn.R3, insn.R1, 0, 8)) // r1 is always a stack pointer here
	g.st.regs[insn.R3] = kScalar
	g.budget = 1 + g.pick(g.cfg.Stmts/2+1)
	for g.budget > 0 {
		g.stmt(1)
	}
	if g.st.regs[insn.R0] != kScalar {
		g.b.emit(movReg(insn.R0, insn.R3))
	}
	g.b.emit(exit())
}

// scalar returns a register holding a scalar, making one if needed.
func (g *generator) scalar() uint8 {
	var c []uint8
	for _, r := range scalarRegs {
		if g.st.regs[r] == kScalar && g.st.reserved&(1<<r) == 0 {
			c = append(c, r)
		}
	}
	if len(c) > 0 && g.pick(4) != 0 {
		return c[g.pick(len(c))]
	}
	r := g.freeReg()
	g.b.emit(movImm(r, int32(randValue(g.r))))
	g.st.regs[r] = kScalar
	return r
}

// freeReg returns a register the current construct may overwrite.
func (g *generator) freeReg() uint8 {
	for {
		r := scalarRegs[g.pick(len(scalarRegs))]
		if g.st.reserved&(1<<r) == 0 {
			return r
		}
	}
}

// stmt generates one statement at nesting depth d.
func (g *generator) stmt(d int) {
	g.budget--
	type choice struct {
		w int
		f func(int)
	}
	choices := []choice{
		{6, g.aluStmt},
		{3, g.spillFill},
		{3, g.branch},
		{2, g.loop},
		{3, g.mapLookup},
		{3, g.packet},
		{1, g.ctxRead},
		{1, g.helperCall},
		{1, g.subCall},
		{1, g.atomic},
	}
	total := 0
	for _, c := range choices {
		total += c.w
	}
	n := g.pick(total)
	for _, c := range choices {
		if n < c.w {
			c.f(d)
			return
		}
		n -= c.w
	}
}

// block generates up to maxBlock statements.
func (g *generator) block(d int) {
	n := 1 + g.pick(maxBlock)
	for range n {
		g.budget--
		g.stmtNoBudget(d)
	}
}

func (g *generator) stmtNoBudget(d int) {
	g.budget++
	g.stmt(d)
}

// aluOps are the ALU operations with their cpu v4 variants (off field).
var aluOps = []struct {
	op  uint8
	off int16
}{
	{insn.ALUAdd, 0}, {insn.ALUSub, 0}, {insn.ALUMul, 0}, {insn.ALUDiv, 0}, {insn.ALUDiv, insn.OffSigned},
	{insn.ALUMod, 0}, {insn.ALUMod, insn.OffSigned}, {insn.ALUOr, 0}, {insn.ALUAnd, 0}, {insn.ALUXor, 0},
	{insn.ALULsh, 0}, {insn.ALURsh, 0}, {insn.ALUArsh, 0}, {insn.ALUNeg, 0}, {insn.ALUMov, 0},
	{insn.ALUMov, 8}, {insn.ALUMov, 16}, {insn.ALUMov, 32}, {insn.ALUEnd, 0},
}

// aluStmt emits one ALU instruction on scalars.
func (g *generator) aluStmt(int) {
	dst := g.scalar()
	class := insn.ClassALU64
	if g.pick(3) == 0 {
		class = insn.ClassALU
	}
	o := aluOps[g.pick(len(aluOps))]
	if o.op == insn.ALUMov && o.off == 32 && class == insn.ClassALU {
		o.off = 16
	}
	switch o.op {
	case insn.ALUNeg:
		g.b.emit(alu(class, o.op, dst, 0, 0, 0, false))
		return
	case insn.ALUEnd:
		widths := []int32{16, 32, 64}
		in := alu(class, o.op, dst, 0, 0, widths[g.pick(len(widths))], false)
		if class == insn.ClassALU && g.pick(2) == 0 {
			in.Op |= insn.EndToBE
		}
		g.b.emit(in)
		return
	}
	if g.pick(2) == 0 {
		src := g.scalar()
		g.b.emit(alu(class, o.op, dst, src, o.off, 0, true))
		return
	}
	imm := int32(randValue(g.r))
	switch o.op {
	case insn.ALULsh, insn.ALURsh, insn.ALUArsh:
		bits := int32(64)
		if class == insn.ClassALU {
			bits = 32
		}
		imm = int32(g.pick(int(bits)))
		if g.oops() {
			imm = bits
		}
	case insn.ALUDiv, insn.ALUMod:
		if imm == 0 && !g.oops() {
			imm = 1 + int32(g.pick(7))
		}
	}
	if o.op == insn.ALUMov && o.off != 0 {
		// movsx has no immediate form.
		g.b.emit(alu(class, o.op, dst, g.scalar(), o.off, 0, true))
		return
	}
	g.b.emit(alu(class, o.op, dst, 0, o.off, imm, false))
	if o.op == insn.ALUMov {
		g.st.regs[dst] = kScalar
	}
}

// slotOff is the frame-pointer offset of slot s.
func slotOff(s int) int16 { return int16(-slotSize * (s + 1)) }

// spillFill stores to or loads from the stack.
func (g *generator) spillFill(int) {
	s := g.pick(keySlot)
	sizes := []int{1, 2, 4, 8}
	size := sizes[g.pick(len(sizes))]
	sub := int16(slotSize-size) * int16(g.pick(2)) // aligned start inside the slot
	switch g.pick(4) {
	case 0: // spill a register (pointers too)
		var c []uint8
		for r := insn.R0; r < insn.R10; r++ {
			if g.st.regs[r] != kNone {
				c = append(c, r)
			}
		}
		if len(c) == 0 {
			return
		}
		r := c[g.pick(len(c))]
		g.b.emit(stx(insn.R10, r, slotOff(s), slotSize))
		g.st.slotInit[s], g.st.slotPtr[s] = true, kNone
		if g.st.regs[r] != kScalar {
			g.st.slotPtr[s] = g.st.regs[r]
		}
	case 1: // narrow store of a scalar or an immediate
		if g.pick(2) == 0 {
			g.b.emit(stx(insn.R10, g.scalar(), slotOff(s)+sub, size))
		} else {
			g.b.emit(st(insn.R10, slotOff(s)+sub, size, int32(randValue(g.r))))
		}
		if size == slotSize {
			g.st.slotInit[s] = true
		}
		if g.st.slotPtr[s] != kNone {
			g.st.slotInit[s] = false
			g.st.slotPtr[s] = kNone
		}
	default: // fill
		if !g.st.slotInit[s] && !g.oops() {
			return
		}
		dst := g.freeReg()
		if g.st.slotPtr[s] != kNone {
			g.b.emit(ldx(dst, insn.R10, slotOff(s), slotSize))
			g.st.regs[dst] = g.st.slotPtr[s]
			return
		}
		if g.pick(4) == 0 && size < slotSize {
			g.b.emit(ldxsx(dst, insn.R10, slotOff(s)+sub, size))
		} else {
			g.b.emit(ldx(dst, insn.R10, slotOff(s)+sub, size))
		}
		g.st.regs[dst] = kScalar
	}
}

// jmpOps are the conditional jumps.
var jmpOps = []uint8{insn.JmpJEQ, insn.JmpJNE, insn.JmpJGT, insn.JmpJGE, insn.JmpJLT, insn.JmpJLE,
	insn.JmpJSET, insn.JmpJSGT, insn.JmpJSGE, insn.JmpJSLT, insn.JmpJSLE}

// cond emits a conditional jump on scalars to label l.
func (g *generator) cond(l int) {
	class := insn.ClassJMP
	if g.pick(3) == 0 {
		class = insn.ClassJMP32
	}
	op := jmpOps[g.pick(len(jmpOps))]
	a := g.scalar()
	if g.pick(2) == 0 {
		g.b.jmpTo(jmpReg(class, op, a, g.scalar()), l)
		return
	}
	g.b.jmpTo(jmpImm(class, op, a, int32(randValue(g.r))), l)
}

// branch emits if/else.
func (g *generator) branch(d int) {
	if d >= maxDepth {
		g.aluStmt(d)
		return
	}
	elseL, endL := g.b.newLabel(), g.b.newLabel()
	g.cond(elseL)
	before := g.st
	g.block(d + 1)
	thenSt := g.st
	if g.pick(2) == 0 {
		g.b.bind(elseL)
		g.st = merge(thenSt, before)
		g.b.bind(endL)
		return
	}
	g.b.jmpTo(insn.Insn{Op: insn.ClassJMP | insn.JmpJA}, endL)
	g.b.bind(elseL)
	g.st = before
	g.block(d + 1)
	g.st = merge(thenSt, g.st)
	g.b.bind(endL)
}

// loop emits a bounded loop counting in regLoop.
func (g *generator) loop(d int) {
	if d >= maxDepth || g.loops > 0 || g.st.inSubprog {
		g.aluStmt(d)
		return
	}
	g.loops++
	defer func() { g.loops-- }()
	n := 1 + g.pick(maxLoopIters)
	g.b.emit(movImm(regLoop, 0))
	g.st.regs[regLoop] = kScalar
	head := g.b.newLabel()
	g.b.bind(head)
	saved := g.st.reserved
	g.st.reserved |= 1 << regLoop
	entry := g.st
	g.block(d + 1)
	g.restore(entry)
	g.st = merge(entry, g.st)
	g.st.reserved = saved
	g.b.emit(addImm(regLoop, 1))
	if g.oops() {
		// An unbounded variant: the exit test can never end the loop.
		g.b.jmpTo(jmpImm(insn.ClassJMP, insn.JmpJNE, regLoop, 0), head)
	} else {
		g.b.jmpTo(jmpImm(insn.ClassJMP, insn.JmpJLT, regLoop, int32(n)), head)
	}
	g.st.regs[regLoop] = kScalar
}

// callClobbered is the mask of r0-r5, which a call overwrites.
const callClobbered = 1<<(insn.R5+1) - 1

// restore re-establishes, at the end of a loop body, what the body assumed
// at its start, so that the next iteration sees the same kinds: scalars
// become 0 again, pointers are copied back from the registers that always
// hold them.
func (g *generator) restore(entry gstate) {
	from := map[kind]uint8{kCtx: regCtx, kPkt: regData, kPktEnd: regDataEnd, kStack: insn.R10}
	for r := insn.R0; r < insn.R10; r++ {
		k := entry.regs[r]
		if k == kNone || k == g.st.regs[r] || g.st.reserved&(1<<r) != 0 {
			continue
		}
		if src, ok := from[k]; ok {
			g.b.emit(movReg(r, src))
		} else {
			g.b.emit(movImm(r, 0))
		}
		g.st.regs[r] = k
		if k == kMapVal {
			g.st.regs[r] = kScalar
		}
	}
	for s := range entry.slotInit {
		if !entry.slotInit[s] || (g.st.slotInit[s] && g.st.slotPtr[s] == entry.slotPtr[s]) {
			continue
		}
		if src, ok := from[entry.slotPtr[s]]; ok {
			g.b.emit(stx(insn.R10, src, slotOff(s), slotSize))
			g.st.slotPtr[s] = entry.slotPtr[s]
		} else {
			g.b.emit(st(insn.R10, slotOff(s), slotSize, 0))
			g.st.slotPtr[s] = kNone
		}
		g.st.slotInit[s] = true
	}
}

// clobber marks r1-r5 as dead after a call.
func (g *generator) clobber() {
	for r := insn.R1; r <= insn.R5; r++ {
		g.st.regs[r] = kNone
	}
}

// mapLookup looks up a key and accesses the value.
func (g *generator) mapLookup(d int) {
	if g.st.reserved&callClobbered != 0 {
		return
	}
	mi := g.pick(2)
	keySize, valSize := arrayKeySize, arrayValueSize
	if mi == mapHash {
		keySize, valSize = hashKeySize, hashValueSize
	}
	if !g.oops() {
		g.b.emit(st(insn.R10, slotOff(keySlot), slotSize, int32(g.pick(arrayEntries+1))))
		g.st.slotInit[keySlot] = true
		g.st.slotPtr[keySlot] = kNone
	}
	_ = keySize
	g.b.ldImm64(insn.R1, insn.PseudoMapFD, int32(mi), 0)
	g.b.emit(movReg(insn.R2, insn.R10))
	g.b.emit(addImm(insn.R2, int32(slotOff(keySlot))))
	g.b.emit(call(fnMapLookup))
	g.clobber()
	g.st.regs[insn.R0] = kNone
	skip := g.b.newLabel()
	if !g.oops() {
		g.b.jmpTo(jmpImm(insn.ClassJMP, insn.JmpJEQ, insn.R0, 0), skip)
	}
	before := g.st
	g.st.regs[insn.R0] = kMapVal
	g.st.reserved |= 1 << insn.R0
	if g.pick(4) == 0 {
		g.ptrHalfCompare(insn.R0, valSize)
	}
	for range 1 + g.pick(3) {
		g.memAccess(insn.R0, valSize, true)
	}
	if g.pick(2) == 0 && d < maxDepth {
		g.block(d + 1)
	}
	g.st.reserved &^= 1 << insn.R0
	g.st = merge(before, g.st)
	g.st.regs[insn.R0] = kNone
	g.b.bind(skip)
}

// memAccess loads or stores through base, which points to at least n
// valid bytes; sometimes at a variable offset.
func (g *generator) memAccess(base uint8, n int, varOff bool) {
	sizes := []int{1, 2, 4, 8}
	size := sizes[g.pick(len(sizes))]
	for size > n {
		size /= 2
	}
	if size == 0 {
		return
	}
	ptr := base
	limit := n - size
	if varOff && g.pick(3) == 0 && limit > 0 {
		// Variable offset: ptr = base + (x & mask), mask < limit.
		mask := int32(1)
		for int(mask*2+1) <= limit {
			mask = mask*2 + 1
		}
		if g.oops() {
			mask = mask*2 + 1
		}
		x := g.scalar()
		tmp := g.freeRegExcept(base, x)
		g.b.emit(movReg(tmp, x))
		g.b.emit(alu(insn.ClassALU64, insn.ALUAnd, tmp, 0, 0, mask, false))
		g.b.emit(alu(insn.ClassALU64, insn.ALUAdd, tmp, base, 0, 0, true))
		g.st.regs[tmp] = g.st.regs[base]
		ptr = tmp
		limit -= int(mask)
	}
	off := 0
	if limit > 0 {
		off = g.pick(limit + 1)
	}
	off &^= size - 1
	if g.oops() {
		off = limit + 1
	}
	if g.pick(2) == 0 {
		dst := g.freeRegExcept(base, ptr)
		g.b.emit(ldx(dst, ptr, int16(off), size))
		g.st.regs[dst] = kScalar
		return
	}
	if g.pick(2) == 0 {
		g.b.emit(st(ptr, int16(off), size, int32(randValue(g.r))))
		return
	}
	src := g.scalar()
	g.b.emit(stx(ptr, src, int16(off), size))
}

// freeRegExcept is freeReg avoiding the given registers.
func (g *generator) freeRegExcept(avoid ...uint8) uint8 {
	for {
		r := g.freeReg()
		ok := true
		for _, a := range avoid {
			if r == a {
				ok = false
			}
		}
		if ok {
			return r
		}
	}
}

// packet checks that n bytes of the packet are there and accesses them.
func (g *generator) packet(d int) {
	if g.st.inSubprog {
		return
	}
	n := 1 + g.pick(maxPacketCheck)
	p := g.freeReg()
	g.st.reserved |= 1 << p
	defer func() { g.st.reserved &^= 1 << p }()
	g.b.emit(movReg(p, regData))
	if g.pick(3) == 0 {
		// Start at a variable offset below varPktMask.
		x := g.scalar()
		tmp := g.freeRegExcept(p, x)
		g.b.emit(movReg(tmp, x))
		g.b.emit(alu(insn.ClassALU64, insn.ALUAnd, tmp, 0, 0, varPktMask, false))
		g.b.emit(alu(insn.ClassALU64, insn.ALUAdd, p, tmp, 0, 0, true))
	}
	g.st.regs[p] = kPkt
	end := g.freeRegExcept(p)
	g.b.emit(movReg(end, p))
	g.b.emit(addImm(end, int32(n)))
	g.st.regs[end] = kPkt
	skip := g.b.newLabel()
	before := g.st
	if !g.oops() {
		if g.pick(2) == 0 {
			g.b.jmpTo(jmpReg(insn.ClassJMP, insn.JmpJGT, end, regDataEnd), skip)
		} else {
			g.b.jmpTo(jmpReg(insn.ClassJMP, insn.JmpJLT, regDataEnd, end), skip)
		}
	}
	for range 1 + g.pick(3) {
		// A variable offset added after the check loses the range.
		g.memAccess(p, n, false)
	}
	if g.pick(3) == 0 {
		g.pktRecheck(p, n)
	}
	if g.pick(3) == 0 && d < maxDepth {
		g.block(d + 1)
	}
	g.st = merge(before, g.st)
	g.b.bind(skip)
}

// Packet access shapes.
const (
	maxPacketCheck = 40
	varPktMask     = 15
)

// ctxRead reads a scalar field of xdp_md.
func (g *generator) ctxRead(int) {
	if g.st.inSubprog {
		return
	}
	offs := []int16{xdpIngressIfindex, xdpRxQueueIndex}
	off, size := offs[g.pick(len(offs))], 4
	if g.oops() {
		off, size = xdpCtxSize, 4
	}
	dst := g.freeReg()
	switch {
	case g.oops():
		// A sign-extending load of a pointer field (data, data_end,
		// data_meta): the kernel never allows it.
		g.b.emit(ldxsx(dst, regCtx, int16(4*g.pick(3)), size))
	case g.pick(4) == 0:
		g.b.emit(ldxsx(dst, regCtx, off, size))
	default:
		g.b.emit(ldx(dst, regCtx, off, size))
	}
	g.st.regs[dst] = kScalar
}

// ptrHalfCompare compares the 32-bit half of a non-NULL pointer with 0
// (JMP32): it may well be 0 for a real pointer, so the verifier must
// explore both edges; the pointer is used on each.
func (g *generator) ptrHalfCompare(ptr uint8, n int) {
	op := insn.JmpJEQ
	if g.pick(2) == 0 {
		op = insn.JmpJNE
	}
	l := g.b.newLabel()
	g.b.jmpTo(jmpImm(insn.ClassJMP32, op, ptr, 0), l)
	g.memAccess(ptr, n, false)
	g.b.bind(l)
}

// pktCompareOps are the comparisons a packet pointer may take with
// data_end, with the edge on which the pointer is proven at least one
// byte before data_end: "taken" when the jump proves it, else the fall
// through. For ops with no such edge the access is a mistake the
// verifier must reject.
var pktCompareOps = []struct {
	op          uint8
	endFirst    bool
	safeOnTaken bool
}{
	{insn.JmpJLT, false, true},  // q < end: taken
	{insn.JmpJGE, false, false}, // q >= end: fall through
	{insn.JmpJGT, true, true},   // end > q: taken
	{insn.JmpJLE, true, false},  // end <= q: fall through
	{insn.JmpJLE, false, true},  // q <= end: q may equal end
	{insn.JmpJGT, false, false}, // q > end: fall through, q may equal end
	{insn.JmpJEQ, false, false}, // q == end: nothing on either edge
	{insn.JmpJNE, true, true},   // end != q: nothing on either edge
	{insn.JmpJSLT, false, true}, // signed: the verifier learns no range
	{insn.JmpJSGE, true, false}, // signed
}

// pktRecheck moves packet pointer p (n bytes checked) by a constant, up
// or down, compares the result with data_end again (64 or 32 bit, either
// operand first, any comparison) and reads one byte through it on one
// edge. Ranges learnt from comparisons must not survive the arithmetic
// (AT_PKT_END, BEYOND_PKT_END), and only some edges prove anything.
func (g *generator) pktRecheck(p uint8, n int) {
	q := g.freeRegExcept(p)
	g.b.emit(movReg(q, p))
	k := int32(1 + g.pick(2*n+8))
	if g.pick(2) == 0 {
		k = -k
	}
	g.b.emit(addImm(q, k))
	c := pktCompareOps[g.pick(len(pktCompareOps))]
	class := insn.ClassJMP
	if g.pick(5) == 0 {
		class = insn.ClassJMP32
	}
	cmp := jmpReg(class, c.op, q, regDataEnd)
	if c.endFirst {
		cmp = jmpReg(class, c.op, regDataEnd, q)
	}
	taken, join := g.b.newLabel(), g.b.newLabel()
	g.b.jmpTo(cmp, taken)
	dst := g.freeRegExcept(p, q)
	if !c.safeOnTaken {
		g.b.emit(ldx(dst, q, 0, 1))
	}
	g.b.jmpTo(jmpImm(insn.ClassJMP, insn.JmpJA, 0, 0), join)
	g.b.bind(taken)
	if c.safeOnTaken {
		g.b.emit(ldx(dst, q, 0, 1))
	}
	g.b.bind(join)
	// Each register was written on one edge only, or holds a pointer of
	// unknown range: nothing later relies on either.
	g.st.regs[dst], g.st.regs[q] = kNone, kNone
}

// helperCall calls a helper returning a number.
func (g *generator) helperCall(int) {
	if g.st.reserved&callClobbered != 0 {
		return
	}
	if g.pick(2) == 0 {
		g.b.emit(call(fnPrandomU32))
	} else {
		g.b.emit(call(fnKtimeGetNs))
	}
	g.clobber()
	g.st.regs[insn.R0] = kScalar
}

// subCall calls the subprogram with r1 pointing to an initialised stack
// slot and r2 a scalar.
func (g *generator) subCall(int) {
	if g.st.inSubprog || g.st.reserved&callClobbered != 0 {
		return
	}
	s := g.pick(keySlot)
	if !g.st.slotInit[s] || g.st.slotPtr[s] != kNone {
		g.b.emit(st(insn.R10, slotOff(s), slotSize, int32(randValue(g.r))))
		g.st.slotInit[s], g.st.slotPtr[s] = true, kNone
	}
	x := g.scalar()
	if x != insn.R2 {
		g.b.emit(movReg(insn.R2, x))
	}
	g.b.emit(movReg(insn.R1, insn.R10))
	g.b.emit(addImm(insn.R1, int32(slotOff(s))))
	if g.subLabel < 0 {
		g.subLabel = g.b.newLabel()
	}
	g.b.callTo(g.subLabel)
	g.clobber()
	g.st.regs[insn.R0] = kScalar
}

// atomic emits an atomic operation on an initialised stack slot.
func (g *generator) atomic(int) {
	s := g.pick(keySlot)
	if !g.st.slotInit[s] || g.st.slotPtr[s] != kNone {
		return
	}
	ops := []int32{insn.AtomicAdd, insn.AtomicOr, insn.AtomicAnd, insn.AtomicXor,
		insn.AtomicAdd | insn.AtomicFetch, insn.AtomicXor | insn.AtomicFetch, insn.AtomicXchg, insn.AtomicCmpXchg}
	op := ops[g.pick(len(ops))]
	if op == insn.AtomicCmpXchg && (g.st.regs[insn.R0] != kScalar || g.st.reserved&1 != 0) {
		return
	}
	src := g.scalar()
	size := slotSize
	if g.pick(2) == 0 {
		size = 4
	}
	g.b.emit(insn.Insn{Op: insn.ClassSTX | insn.ModeATOMIC | sizeCode(size), Dst: insn.R10, Src: src, Off: slotOff(s), Imm: op})
	if op == insn.AtomicCmpXchg {
		g.st.regs[insn.R0] = kScalar
	}
}

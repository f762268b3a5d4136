package mutate

import (
	"regexp"
	"strconv"

	"github.com/vercheck/vercheck/insn"
)

// PastErrorOperator names the follow-up edits of PastError in a mutant's
// Operators.
const PastErrorOperator = "past error"

// readOkRE finds the register of an uninitialised read ("R3 !read_ok").
var readOkRE = regexp.MustCompile(`^R([0-9]+) !read_ok`)

// PastError returns the programs that go on where m was rejected, at
// instruction at with message msg: the instruction replaced by something
// of the same shape the verifier accepts more often (a load by a constant
// into its register, a store, atomic or ALU operation by goto +0, a
// conditional jump by a may_goto with the same target, which keeps both
// edges, a call by r0 = 0, its offset by 0, an ALU source clamped to a
// byte) or, before an exit or an uninitialised read, the register set to
// 0. The first error a verifier reports hides every check after it: a
// mutant both verifiers reject says nothing of the rest of the program,
// while its follow-ups do. Follow-ups keep the control flow graph
// (no instruction becomes unreachable), so they are refused by check_cfg
// no more often than m.
func PastError(m Mutant, at int, msg string) []Mutant {
	if at < 0 || at >= len(m.Insns) || m.Insns[at].Filler {
		return nil
	}
	var out []Mutant
	for _, e := range pastErrorEdits(m.Insns, at, msg) {
		if mm, err := m.apply(e, m.describe(PastErrorOperator, e)); err == nil {
			out = append(out, mm.by(PastErrorOperator))
		}
	}
	return out
}

// pastErrorEdits lists the edits that let a verifier go past instruction
// at of prog, which it rejected with msg.
func pastErrorEdits(prog []insn.Insn, at int, msg string) []edit {
	in := prog[at]
	var out []edit
	if sm := readOkRE.FindStringSubmatch(msg); sm != nil {
		if r, err := strconv.Atoi(sm[1]); err == nil && r < 10 {
			out = append(out, insertion(at, movImm(uint8(r), 0)))
		}
	}
	switch in.Class() {
	case insn.ClassLDX:
		out = append(out, rewrite(at, movImm(in.Dst, 0)))
		out = append(out, zeroOffset(at, in)...)
	case insn.ClassST, insn.ClassSTX:
		out = append(out, pastStore(at, in)...)
	case insn.ClassALU, insn.ClassALU64:
		out = append(out, rewrite(at, gotoInsn(0)))
		if in.Dst != insn.R10 {
			out = append(out, rewrite(at, movImm(in.Dst, 0)))
		}
		if in.SrcIsReg() && in.Src != insn.R10 {
			out = append(out, insertion(at, insn.Insn{Op: insn.ClassALU | insn.ALUAnd | insn.SrcK, Dst: in.Src, Imm: 0xff}))
		}
	case insn.ClassLD:
		out = append(out, pastLd(at, in)...)
	case insn.ClassJMP, insn.ClassJMP32:
		out = append(out, pastJump(at, in)...)
	}
	return out
}

// zeroOffset is the access at at with offset 0, when it has another.
func zeroOffset(at int, in insn.Insn) []edit {
	if in.Off == 0 {
		return nil
	}
	in.Off = 0
	return []edit{rewrite(at, in)}
}

// pastStore drops a store or atomic (goto +0), gives it offset 0, and
// for an atomic that writes a register, sets that register instead.
func pastStore(at int, in insn.Insn) []edit {
	out := append([]edit{rewrite(at, gotoInsn(0))}, zeroOffset(at, in)...)
	if in.Mode() != insn.ModeATOMIC {
		return out
	}
	switch {
	case in.Imm == insn.AtomicCmpXchg:
		out = append(out, rewrite(at, movImm(insn.R0, 0)))
	case in.Imm == insn.AtomicLoadAcq:
		out = append(out, rewrite(at, movImm(in.Dst, 0)))
	case in.Imm&insn.AtomicFetch != 0:
		out = append(out, rewrite(at, movImm(in.Src, 0)))
	}
	return out
}

// pastLd replaces a legacy packet load by r0 = 0 and an ld_imm64 of a
// map or a constant by the constant 0 and goto +0; an ld_imm64 of a
// function stays: its subprogram would lose its only reference.
func pastLd(at int, in insn.Insn) []edit {
	switch {
	case in.Mode() == insn.ModeABS || in.Mode() == insn.ModeIND:
		return []edit{rewrite(at, movImm(insn.R0, 0))}
	case in.IsLdImm64() && !in.IsPseudoFunc():
		return []edit{{at: at, del: 2, repl: []insn.Insn{movImm(in.Dst, 0), gotoInsn(0)}}}
	}
	return nil
}

// pastJump replaces a conditional jump by a may_goto to the same place,
// a helper or kfunc call by r0 = 0, and puts r0 = 0 before an exit.
// Calls of subprograms stay (their callee would become unreachable).
func pastJump(at int, in insn.Insn) []edit {
	switch {
	case in.IsHelperCall(), in.IsKfuncCall():
		return []edit{rewrite(at, movImm(insn.R0, 0))}
	case in.Op == insn.ClassJMP|insn.JmpExit:
		return []edit{insertion(at, movImm(insn.R0, 0))}
	case in.IsConditional() && !in.IsMayGoto():
		return []edit{rewrite(at, mayGotoInsn(in.Off))}
	}
	return nil
}

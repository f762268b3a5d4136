package mutate

import (
	"fmt"
	"math"
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// Mutant is a program derived from an original by edits, with what is
// needed to carry the original's metadata (source lines, function
// records) over to it.
type Mutant struct {
	// Insns are the kernel-numbered instructions (an ld_imm64 takes two).
	Insns []insn.Insn
	// Origin[i] is the original index of instruction i, or -1 when the
	// instruction was inserted. A rewritten instruction keeps its origin.
	Origin []int
	// Target[j] is where a jump to original instruction j lands now; it
	// has one more entry than the original, for the end of the program.
	// A function that started at j starts at Target[j].
	Target []int
	// Changes describe the applied edits in order, one line each.
	Changes []string
	// Operators name the operator of each mutation, in order (deletions
	// by Minimise are not mutations).
	Operators []string
	// ProgType, when not nil, is the program type and attach type the
	// mutant is loaded as instead of the original's.
	ProgType *ProgType
	// ToggleSleepable loads the mutant with the original's
	// BPF_F_SLEEPABLE flag inverted.
	ToggleSleepable bool
	// ToggleFlags are load flags (BPF_F_*) the mutant is loaded with
	// toggled from the original's (LoadFlagsOperator).
	ToggleFlags uint32
	// MapDefs are maps of the seed's object the mutant is loaded with
	// other definitions of (MapDefOperator).
	MapDefs []MapDef
	// MapBTFs are maps of the seed's object the mutant is loaded with
	// other BTF or types of (MapBTFOperator).
	MapBTFs []MapBTF
	// FuncBTFs are functions of the program loaded with other BTF
	// (FuncBTFOperator).
	FuncBTFs []FuncBTF
	// DataEdits are changes of the initial bytes of read-only data maps
	// the mutant is loaded with (RodataOperator).
	DataEdits []DataEdit
	// AttachTo, when not empty, is the attach target the mutant is
	// loaded against instead of the original's (AttachTargetOperator).
	AttachTo string
}

// Identity returns the unmutated program prog.
func Identity(prog []insn.Insn) Mutant {
	m := Mutant{Insns: slices.Clone(prog), Origin: make([]int, len(prog)), Target: make([]int, len(prog)+1)}
	for i := range m.Origin {
		m.Origin[i] = i
	}
	for i := range m.Target {
		m.Target[i] = i
	}
	return m
}

// edit replaces Insns[at:at+del] with repl. With len(repl) == del the
// edit rewrites in place and no instruction moves; otherwise the program
// is spliced and every jump, call and function address across the seam is
// fixed up so that it still reaches the same instruction.
type edit struct {
	at, del int
	repl    []insn.Insn
}

// rewrite is the in-place edit replacing the instruction at i.
func rewrite(i int, in insn.Insn) edit {
	return edit{at: i, del: 1, repl: []insn.Insn{in}}
}

// insertion places ins before instruction i; jumps to i land on it.
func insertion(i int, ins ...insn.Insn) edit {
	return edit{at: i, repl: ins}
}

// deletion removes n instructions from i; jumps into them land on the
// instruction after them.
func deletion(i, n int) edit {
	return edit{at: i, del: n}
}

// splicer maps instruction indexes across one edit.
type splicer struct {
	edit
	n int // length before the edit
}

// shift is how far the instructions after the edited range move.
func (s splicer) shift() int { return len(s.repl) - s.del }

// position is the new index of instruction j, which lies outside the
// edited range.
func (s splicer) position(j int) int {
	if j < s.at {
		return j
	}
	return j + s.shift()
}

// target is where a jump to old index j lands after the edit: the
// edited range's own entries keep their place as far as the replacement
// reaches, and a jump into a deleted instruction lands on whatever
// follows it.
func (s splicer) target(j int) int {
	switch {
	case j < s.at:
		return j
	case j < s.at+s.del:
		return s.at + min(j-s.at, len(s.repl))
	case j == s.at && s.del == 0:
		// An insertion: a jump to the instruction it precedes runs it.
		return s.at
	default:
		return j + s.shift()
	}
}

// apply applies e to m. It fails, leaving m unchanged, when the edit would
// split an ld_imm64 or leave no instruction (loaders refuse an empty
// program before any verifier sees it), or a fixed-up jump no longer fits
// its field.
func (m Mutant) apply(e edit, change string) (Mutant, error) {
	n := len(m.Insns)
	empties := n-e.del+len(e.repl) == 0
	if e.at < 0 || e.at+e.del > n || empties || splitsLdImm64(m.Insns, e.at) || splitsLdImm64(m.Insns, e.at+e.del) {
		return m, fmt.Errorf("edit of %d at %d: %w", e.del, e.at, errBadEdit)
	}
	s := splicer{edit: e, n: n}
	out := make([]insn.Insn, 0, n+s.shift())
	origin := make([]int, 0, n+s.shift())
	out = append(out, m.Insns[:e.at]...)
	origin = append(origin, m.Origin[:e.at]...)
	for k, in := range e.repl {
		out = append(out, in)
		if len(e.repl) == e.del {
			origin = append(origin, m.Origin[e.at+k])
		} else {
			origin = append(origin, -1)
		}
	}
	out = append(out, m.Insns[e.at+e.del:]...)
	origin = append(origin, m.Origin[e.at+e.del:]...)
	if s.shift() != 0 {
		for j, in := range m.Insns {
			if j >= e.at && j < e.at+e.del {
				continue
			}
			fixed, err := retarget(in, j, s)
			if err != nil {
				return m, err
			}
			out[s.position(j)] = fixed
		}
	}
	target := make([]int, len(m.Target))
	for j, t := range m.Target {
		target[j] = s.target(t)
	}
	changes := append(slices.Clone(m.Changes), change)
	return Mutant{Insns: out, Origin: origin, Target: target, Changes: changes, Operators: m.Operators, ProgType: m.ProgType, ToggleSleepable: m.ToggleSleepable, ToggleFlags: m.ToggleFlags, MapDefs: m.MapDefs, MapBTFs: m.MapBTFs, FuncBTFs: m.FuncBTFs, DataEdits: m.DataEdits, AttachTo: m.AttachTo}, nil
}

// splitsLdImm64 reports whether a cut before index i falls between the two
// slots of an ld_imm64.
func splitsLdImm64(prog []insn.Insn, i int) bool {
	return i > 0 && i < len(prog) && prog[i].Filler
}

// retarget returns in (at old index j) with its relative jump, call or
// function address recomputed for the edit s.
func retarget(in insn.Insn, j int, s splicer) (insn.Insn, error) {
	rel, ok := in.Relative()
	if !ok {
		return in, nil
	}
	off := int64(s.target(j+int(rel)+1)) - int64(s.position(j)) - 1
	if usesImm(in) {
		if off < math.MinInt32 || off > math.MaxInt32 {
			return in, fmt.Errorf("insn %d: offset %d: %w", j, off, errBadEdit)
		}
		in.Imm = int32(off)
		return in, nil
	}
	if off < math.MinInt16 || off > math.MaxInt16 {
		return in, fmt.Errorf("insn %d: offset %d: %w", j, off, errBadEdit)
	}
	in.Off = int16(off)
	return in, nil
}

// usesImm reports whether the relative distance of in is in its imm field.
func usesImm(in insn.Insn) bool {
	return in.IsPseudoCall() || in.IsPseudoFunc() || in.Op == insn.ClassJMP32|insn.JmpJA
}

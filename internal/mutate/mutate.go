// Package mutate derives programs from ones the verifier accepts by a few
// small changes, each aimed at one verifier rule: plain and
// sign-extending loads and movs, 64- and 32-bit jumps and ALU operations,
// flipped jump conditions, edge immediates and offsets, swapped
// registers, spill widths, stack slots, the frame pointer as an operand,
// removed NULL checks, bounds checks off by one, inserted and deleted
// instructions; and operators written from outside vercheck's picture of
// the verifier (stress.go): range guards and edge arithmetic before a
// use, partial spills, variable stack and argument offsets, other call
// arguments, repeated calls, moved instructions, legacy packet loads;
// and operators against the kernel's rules for resources and calls
// (resources.go): call blocks repeated, dropped and moved, calls inside
// sections, early exits, return values, stack objects exchanged and
// overwritten, variable constant arguments, address space casts, loops.
// Most mutants of a safe program stay safe or become unsafe
// in one precise way, which is what a differential test against the
// kernel's verifier needs: each disagreement is a small, explainable
// difference.
//
// Offsets at the exact edge of an object come from concrete runs
// (FindEdges, with the interpreter of package interp): the last offset
// inside a map value, the stack or the checked packet, and the first one
// outside.
//
// Every function here is pure and deterministic: the same program, random
// source and edges give the same mutant. Mutants keep the bookkeeping
// (Mutant.Origin, Mutant.Target) needed to carry source lines and function
// records from the original program over to them, and Minimise shrinks a
// mutant by deletion while a property holds.
package mutate

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// errBadEdit is wrapped when an edit cannot be applied.
var errBadEdit = errors.New("edit does not fit the program")

// EdgeShare is the probability that a mutant of a program with edges
// starts with an edge offset.
const EdgeShare = 0.3

// Env is what Mutate knows of a program besides its instructions.
type Env struct {
	// Edges are the program's accesses placed at the edges of their
	// objects (FindEdges).
	Edges []Edge
	// ValueSizes are the value sizes of the object's maps, by map index
	// (the imm of a map ld_imm64), -1 where the index names no map; their
	// number is the number of maps.
	ValueSizes []int
	// Kfuncs are the kfunc calls of the object's programs.
	Kfuncs []insn.Insn
	// ProgArrays are the indexes of the object's program array maps.
	ProgArrays []int32
	// ProgTypes are the other program types the program may be loaded
	// as (OtherProgTypes).
	ProgTypes []ProgType
	// MaySleep is set when the program's type may be loaded sleepable
	// (tracing, LSM, uprobe, struct_ops and syscall programs).
	MaySleep bool
	// Helpers are the helpers the program's type may call.
	Helpers []int32
	// TypeKfuncs are calls of the kfuncs in vmlinux that the program's
	// type may call, from the objects of every seed.
	TypeKfuncs []insn.Insn
	// Maps describe the object's maps by index, for MapDefOperator.
	Maps []MapInfo
	// Funcs describe the program's functions in the order of its BTF
	// function info, for FuncBTFOperator.
	Funcs []FuncInfo
	// AttachTargets are the other attach targets the program may be
	// loaded against (AttachTargets), for AttachTargetOperator.
	AttachTargets []string
	// Operators, when not empty, are the names of the only operators
	// Mutate draws (besides the edge operator): a run aimed at one
	// family of rules.
	Operators []string
}

// share is the probability p with which Mutate applies the operator
// called name to a mutant of a program it applies to: 0 when env does
// not allow it, 1 when env names it among the only operators to draw (a
// run aimed at its rules), p otherwise.
func (env Env) share(name string, p float64) float64 {
	switch {
	case len(env.Operators) == 0:
		return p
	case slices.Contains(env.Operators, name):
		return 1
	}
	return 0
}

// drawn returns the operators Mutate draws from for env.
func (env Env) drawn() []operator {
	if len(env.Operators) == 0 {
		return operators
	}
	var out []operator
	for _, op := range operators {
		if slices.Contains(env.Operators, op.name) {
			out = append(out, op)
		}
	}
	return out
}

// Mutate applies n random mutations to prog, drawing operators, sites and
// variants from r. When env has edges (from FindEdges on prog), the first
// mutation places an access at an edge with probability EdgeShare; when
// it has other program types, the next loads the mutant as one of them
// with probability ProgTypeShare; when it has other attach targets, the
// next loads it against one with probability AttachTargetShare; when its
// type may sleep, the next
// toggles BPF_F_SLEEPABLE with probability SleepableShare; the next
// toggles another load flag with probability LoadFlagsShare; when it loads
// a map, the next gives the map another definition with probability
// MapDefShare, the next other BTF with probability MapBTFShare, and the
// next other read-only data with probability RodataShare; when
// it has function info, the next gives a function another prototype with
// probability FuncBTFShare.
// Fewer than n mutations are applied only when no operator applies.
func Mutate(prog []insn.Insn, r *rand.Rand, n int, env Env) Mutant {
	m := Identity(prog)
	if edges := env.Edges; len(edges) > 0 && r.Float64() < EdgeShare {
		e := edges[r.IntN(len(edges))]
		if eds := edgeEdits(prog, e); len(eds) > 0 {
			ed := pick(r, eds)
			if mm, err := m.apply(ed, m.describe(edgeOperator, ed)); err == nil {
				m = mm.by(edgeOperator)
				n--
			}
		}
	}
	if len(env.ProgTypes) > 0 && n > 0 && r.Float64() < env.share(ProgTypeOperator, ProgTypeShare) {
		m = m.withProgType(r, env)
		n--
	}
	if len(env.AttachTargets) > 0 && m.ProgType == nil && n > 0 && r.Float64() < env.share(AttachTargetOperator, AttachTargetShare) {
		m = m.withAttachTarget(r, env.AttachTargets)
		n--
	}
	if env.MaySleep && n > 0 && r.Float64() < env.share(SleepableOperator, SleepableShare) {
		m = m.withSleepableToggled()
		n--
	}
	if n > 0 && r.Float64() < env.share(LoadFlagsOperator, LoadFlagsShare) {
		m = m.withLoadFlagToggled(r)
		n--
	}
	if n > 0 && len(env.Maps) > 0 && r.Float64() < env.share(MapDefOperator, MapDefShare) {
		if mm, ok := m.withMapDef(r, env.Maps); ok {
			m = mm
			n--
		}
	}
	if n > 0 && len(env.Maps) > 0 && r.Float64() < env.share(MapBTFOperator, MapBTFShare) {
		if mm, ok := m.withMapBTF(r, env.Maps); ok {
			m = mm
			n--
		}
	}
	if n > 0 && len(env.Maps) > 0 && r.Float64() < env.share(RodataOperator, RodataShare) {
		if mm, ok := m.withRodata(r, env.Maps); ok {
			m = mm
			n--
		}
	}
	if n > 0 && len(env.Funcs) > 0 && r.Float64() < env.share(FuncBTFOperator, FuncBTFShare) {
		if mm, ok := m.withFuncBTF(r, env.Funcs); ok {
			m = mm
			n--
		}
	}
	ops := env.drawn()
	order := r.Perm(len(ops))
	for tries := 0; n > 0 && tries < len(ops); tries++ {
		op := ops[order[tries]]
		eds := op.siteEdits(r, env, m.Insns)
		if len(eds) == 0 {
			continue
		}
		e := pick(r, eds)
		mm, err := m.apply(e, m.describe(op.name, e))
		if err != nil {
			continue
		}
		m = mm.by(op.name)
		n--
		order = r.Perm(len(ops))
		tries = -1
	}
	return m
}

// edgeOperator names the edge mutation.
const edgeOperator = "edge"

// by records that the last edit of m was made by operator name.
func (m Mutant) by(name string) Mutant {
	m.Operators = append(m.Operators[:len(m.Operators):len(m.Operators)], name)
	return m
}

func pick(r *rand.Rand, eds []edit) edit { return eds[r.IntN(len(eds))] }

// siteTries is how many instructions drawn at random siteEdits tries
// before it scans the whole program.
const siteTries = 16

// siteEdits returns the edits of the operator at one instruction of prog
// it can change, drawn from r, or none when it can change none. Random
// draws come first: the operators that apply almost everywhere make
// hundreds of edits per instruction, too many to list for every
// instruction of a long program; the scan finds the rare sites.
func (op operator) siteEdits(r *rand.Rand, env Env, prog []insn.Insn) []edit {
	for range siteTries {
		if eds := op.edits(env, prog, r.IntN(len(prog))); len(eds) > 0 {
			return eds
		}
	}
	sites := op.sites(env, prog)
	if len(sites) == 0 {
		return nil
	}
	return op.edits(env, prog, sites[r.IntN(len(sites))])
}

// sites returns the instructions of prog the operator can change.
func (op operator) sites(env Env, prog []insn.Insn) []int {
	var out []int
	for i := range prog {
		if len(op.edits(env, prog, i)) > 0 {
			out = append(out, i)
		}
	}
	return out
}

// describe renders edit e of operator name on m, before it is applied.
func (m Mutant) describe(name string, e edit) string {
	switch {
	case e.del == len(e.repl):
		return fmt.Sprintf("%s @%d: %s  ->  %s", name, e.at, m.Insns[e.at], e.repl[0])
	case e.del == 0:
		return fmt.Sprintf("%s @%d: %s", name, e.at, e.repl[0])
	default:
		return fmt.Sprintf("%s @%d: %s", name, e.at, m.Insns[e.at])
	}
}

// Minimise shrinks m by deleting instructions while keep holds, in the
// manner of delta debugging: chunks of half the program, then of halving
// sizes, down to single instructions, repeated until a pass deletes
// nothing. keep must hold for m; it is called at most budget times.
// The result's Changes are m's, plus one line counting the deletions.
func Minimise(m Mutant, keep func(Mutant) bool, budget int) Mutant {
	orig := m
	deleted := 0
	for chunk := max(len(m.Insns)/2, 1); budget > 0; {
		progress := false
		for i := 0; i < len(m.Insns) && budget > 0; {
			end := min(i+chunk, len(m.Insns))
			if end < len(m.Insns) && m.Insns[end].Filler {
				end++
			}
			cand, err := m.apply(deletion(i, end-i), "")
			if err != nil {
				i = end
				continue
			}
			budget--
			if keep(cand) {
				m, progress = cand, true
				deleted += end - i
				continue
			}
			i = end
		}
		if chunk == 1 && !progress {
			break
		}
		chunk = max(chunk/2, 1)
	}
	m.Changes = append(orig.Changes[:len(orig.Changes):len(orig.Changes)],
		fmt.Sprintf("minimised: %d of %d instructions deleted", deleted, len(orig.Insns)))
	return m
}

// Package soundness checks vercheck's verdicts by concrete execution.
//
// For a program vercheck accepts, the concrete interpreter (package interp)
// runs it on many random inputs. Three properties must hold on every run:
//
//  1. safety: no out-of-bounds access, no read of an uninitialised
//     register, no access through something that is not a pointer to
//     memory (interp reports these);
//  2. containment: at every executed instruction, the concrete registers
//     of the current frame lie inside one abstract state the verifier
//     recorded for that instruction (Options.Observe): scalars are
//     members of the abstract scalar, pointers have the abstract kind,
//     object and an offset inside the abstract offset, packet pointers
//     have at least the abstract range of bytes before data_end, and a
//     pointer the verifier believes non-NULL is not NULL;
//  3. pruning consistency: the program is also accepted when the
//     verifier stores no voluntary checkpoints.
//
// Containment is only exact when the verifier explored the concrete path
// itself. A pruned path continues as the checkpoint that subsumed it, and
// the checkpoint may differ in registers that did not matter (imprecise
// scalars, dead registers), so later states need not contain the concrete
// values. The states are therefore recorded in a second verification that
// stores no voluntary checkpoints, and containment is checked only when
// that run pruned nothing (Report.Strict).
package soundness

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/gen"
	"github.com/vercheck/vercheck/internal/interp"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/states"
	"github.com/vercheck/vercheck/verifier"
)

// maxStatesPerInsn caps the recorded abstract states of one instruction;
// past it the instruction is not checked for containment (Report.Capped).
const maxStatesPerInsn = 4096

// snap is the part of an abstract state containment looks at.
type snap struct {
	depth int32
	regs  [states.NumRegs]states.Reg
}

// Recorder collects the abstract states of one verification.
type Recorder struct {
	byInsn map[int][]snap
	capped map[int]bool
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{byInsn: map[int][]snap{}, capped: map[int]bool{}}
}

// Observe is a verifier.Options.Observe callback: it copies the current
// frame's registers of st.
func (r *Recorder) Observe(idx int, st *states.State) {
	if len(r.byInsn[idx]) >= maxStatesPerInsn {
		r.capped[idx] = true
		return
	}
	s := snap{depth: st.CurFrame, regs: *st.Cur().Regs()}
	r.byInsn[idx] = append(r.byInsn[idx], s)
}

// Finding kinds.
const (
	// KindSafety: the interpreter found a safety violation.
	KindSafety = "safety"
	// KindContainment: a concrete state lies in no recorded abstract state.
	KindContainment = "containment"
	// KindPruning: accepted with pruning, rejected without voluntary
	// checkpoints.
	KindPruning = "pruning"
)

// Finding is one violation of a soundness property.
type Finding struct {
	Seed uint64
	Kind string
	PC   int
	Msg  string
}

func (f Finding) String() string {
	return fmt.Sprintf("seed %d: %s at insn %d: %s", f.Seed, f.Kind, f.PC, f.Msg)
}

// Report is the outcome of checking one program.
type Report struct {
	// Verdict is vercheck's verdict ("accepted", "rejected", ...).
	Verdict string
	// Runs is the number of concrete runs.
	Runs int
	// Strict is set when containment was checked.
	Strict bool
	// Skipped counts runs that stopped on an interpreter limit (an
	// unmodelled helper, the step limit).
	Skipped  int
	Findings []Finding
}

// errStop ends a run after the first containment finding.
var errStop = errors.New("containment violated")

// Check verifies p and, if vercheck accepts it, runs it on inputs random
// inputs drawn from r.
func Check(p *gen.Program, inputs int, r *rand.Rand) Report {
	res := verifier.Verify(p.Object, p.Prog, verifier.Options{})
	rep := Report{Verdict: res.Verdict()}
	if !res.Accepted {
		return rep
	}
	rec := NewRecorder()
	noCheckpoints := prune.NoCheckpointPolicy()
	res2 := verifier.Verify(p.Object, p.Prog, verifier.Options{Policy: &noCheckpoints, Observe: rec.Observe})
	if !res2.Accepted {
		if res2.Verdict() == "rejected" && !errors.Is(res2.Err, verifier.ErrComplexityLimit) {
			rep.Findings = append(rep.Findings, Finding{Seed: p.Seed, Kind: KindPruning, Msg: fmt.Sprintf("rejected without checkpoints: %v", res2.Err)})
		}
		return rep
	}
	rep.Strict = res2.Stats.Hits == 0
	for range inputs {
		rep.Runs++
		in := gen.Input(r)
		var found *Finding
		if rep.Strict {
			in.Trace = func(pc int, m *interp.Machine) error {
				if rec.capped[pc] {
					return nil
				}
				if msg, ok := rec.contains(pc, m); !ok {
					found = &Finding{Seed: p.Seed, Kind: KindContainment, PC: pc, Msg: msg}
					return errStop
				}
				return nil
			}
		}
		_, err := interp.Run(p.Insns, in)
		if found != nil {
			rep.Findings = append(rep.Findings, *found)
			break
		}
		var v *interp.Violation
		if errors.As(err, &v) {
			if !v.Safety() {
				rep.Skipped++
				continue
			}
			rep.Findings = append(rep.Findings, Finding{Seed: p.Seed, Kind: KindSafety, PC: v.PC, Msg: v.Error()})
			break
		}
		if err != nil {
			rep.Findings = append(rep.Findings, Finding{Seed: p.Seed, Kind: KindSafety, Msg: err.Error()})
			break
		}
	}
	return rep
}

// contains reports whether the machine's registers lie inside one of the
// states recorded at pc; if not, it describes the closest state.
func (r *Recorder) contains(pc int, m *interp.Machine) (string, bool) {
	snaps := r.byInsn[pc]
	if len(snaps) == 0 {
		return "instruction reached concretely but never by the verifier", false
	}
	regs := m.Regs()
	best, bestMiss := -1, states.NumRegs+1
	for k, s := range snaps {
		if int(s.depth) != m.Depth() {
			continue
		}
		miss := 0
		for i := range regs {
			if _, ok := regContains(s.regs[i], regs[i], m); !ok {
				miss++
			}
		}
		if miss == 0 {
			return "", true
		}
		if miss < bestMiss {
			best, bestMiss = k, miss
		}
	}
	if best < 0 {
		return fmt.Sprintf("no state at call depth %d", m.Depth()), false
	}
	var miss []string
	for i := range regs {
		if why, ok := regContains(snaps[best].regs[i], regs[i], m); !ok {
			miss = append(miss, fmt.Sprintf("r%d=%v not in %s (%s)", i, regs[i], snaps[best].regs[i], why))
		}
	}
	return fmt.Sprintf("%d states, closest: %s", len(snaps), strings.Join(miss, "; ")), false
}

// ptrKinds maps verifier pointer types to interpreter kinds.
var ptrKinds = map[states.RegType]interp.Kind{
	states.PtrToCtx:        interp.PtrCtx,
	states.PtrToStack:      interp.PtrStack,
	states.ConstPtrToMap:   interp.PtrMap,
	states.PtrToMapValue:   interp.PtrMapValue,
	states.PtrToPacket:     interp.PtrPacket,
	states.PtrToPacketMeta: interp.PtrPacketMeta,
	states.PtrToPacketEnd:  interp.PtrPacketEnd,
	states.PtrToFunc:       interp.PtrFunc,
}

// regContains reports whether the concrete value v is described by the
// abstract register a.
func regContains(a states.Reg, v interp.Value, m *interp.Machine) (string, bool) {
	switch {
	case a.Type == states.NotInit || v.Kind == interp.Uninit:
		// The verifier forgot a value it will not read, or the concrete
		// register was never written (a read would be caught).
		return "", true
	case a.Type == states.ScalarValue:
		if v.Kind != interp.Scalar {
			// A pointer the verifier treats as a number (leaked).
			return "pointer in a scalar", true
		}
		return "value", a.Scalar.Contains(v.Bits)
	}
	if v.Kind == interp.Scalar {
		if v.Bits == 0 && a.Flags&states.MaybeNull != 0 {
			return "", true
		}
		return "scalar in a pointer", false
	}
	want, ok := ptrKinds[a.Type]
	if !ok || want != v.Kind {
		return "pointer kind", false
	}
	switch v.Kind {
	case interp.PtrStack:
		if a.FrameNo() != v.Frame {
			return "frame", false
		}
	case interp.PtrMap, interp.PtrMapValue:
		if int(a.Aux) != v.Map {
			return "map", false
		}
	case interp.PtrFunc:
		return "", true
	}
	varOff := uint64(v.Off - int64(a.Off))
	if !a.Scalar.Contains(varOff) {
		return "offset", false
	}
	if a.Range > 0 {
		avail := int64(m.PacketLen())
		if v.Kind == interp.PtrPacketMeta {
			avail = int64(m.MetaLen())
		}
		if v.Kind != interp.PtrPacketEnd && int64(varOff)+int64(a.Range) > avail {
			return "range past the end of the packet", false
		}
	}
	return "", true
}

// Minimise shrinks a program with a finding to a smaller one with a
// finding of the same kind: it repeatedly replaces single instructions by
// no-ops (ja +0) and keeps the change when the finding persists. keep
// says whether a candidate still shows the bug.
func Minimise(code []insn.Insn, keep func([]insn.Insn) bool) []insn.Insn {
	cur := append([]insn.Insn(nil), code...)
	nop := insn.Insn{Op: insn.ClassJMP | insn.JmpJA}
	for changed := true; changed; {
		changed = false
		for i := range cur {
			if cur[i].Filler || cur[i] == nop || (cur[i].IsJmpClass() && cur[i].JmpOp() == insn.JmpExit) {
				continue
			}
			cand := append([]insn.Insn(nil), cur...)
			cand[i] = nop
			if cur[i].IsLdImm64() {
				cand[i+1] = nop
			}
			if keep(cand) {
				cur, changed = cand, true
			}
		}
	}
	return dropNops(cur)
}

// dropNops removes ja +0 instructions, fixing jump and call offsets.
func dropNops(code []insn.Insn) []insn.Insn {
	nop := insn.Insn{Op: insn.ClassJMP | insn.JmpJA}
	newIdx := make([]int, len(code)+1)
	n := 0
	for i, in := range code {
		newIdx[i] = n
		if in != nop {
			n++
		}
	}
	newIdx[len(code)] = n
	out := make([]insn.Insn, 0, n)
	for i, in := range code {
		if in == nop {
			continue
		}
		if in.IsJmpClass() && !in.Filler {
			switch {
			case in.JmpOp() == insn.JmpCall && in.Src == insn.PseudoCall:
				in.Imm = int32(newIdx[i+1+int(in.Imm)] - newIdx[i] - 1)
			case in.JmpOp() == insn.JmpJA && in.Class() == insn.ClassJMP32:
				in.Imm = int32(newIdx[i+1+int(in.Imm)] - newIdx[i] - 1)
			case in.JmpOp() != insn.JmpCall && in.JmpOp() != insn.JmpExit:
				t := i + 1 + int(in.Off)
				if t >= 0 && t <= len(code) {
					in.Off = int16(newIdx[t] - newIdx[i] - 1)
				}
			}
		}
		out = append(out, in)
	}
	return out
}

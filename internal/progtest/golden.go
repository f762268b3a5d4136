package progtest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/stablefix"
)

// GoldenName is the file, in the programs directory, that records the live
// kernel's verdicts.
const GoldenName = "kernel-golden.json"

// Verdicts, named as in the corpus's kernel CSV.
const (
	// VerdictAccepted: the verifier accepted the program.
	VerdictAccepted = "accepted"
	// VerdictRejected: the verifier rejected the program.
	VerdictRejected = "rejected"
	// VerdictNotLoaded: the kernel gave no verdict (kernel.Result.NotLoaded);
	// named as the corpus CSV names it.
	VerdictNotLoaded = "load-setup-failed"
)

// Golden is the kernel's recorded verdict on one program of one object.
type Golden struct {
	// File is the object's base name, such as "map_value_oob.o".
	File string `json:"file"`
	// Program is the program's name.
	Program string `json:"program"`
	// Verdict is one of VerdictAccepted, VerdictRejected, VerdictNotLoaded.
	Verdict string `json:"verdict"`
	// Error is the decisive log line of a rejection (or the setup error).
	Error string `json:"error,omitempty"`
	// InsnProcessed and the state counts are the kernel's statistics.
	InsnProcessed    int `json:"insn_processed"`
	MaxStatesPerInsn int `json:"max_states_per_insn"`
	TotalStates      int `json:"total_states"`
	PeakStates       int `json:"peak_states"`
	// StackDepth is the kernel's "stack depth" line.
	StackDepth string `json:"stack_depth"`
	// Release is the kernel release that produced the record.
	Release string `json:"kernel_release"`
	// MissingFixes are the stable fixes that kernel lacked
	// (stablefix.Set's String, "none" for none): the semantics its
	// verdict and figures follow.
	MissingFixes string `json:"kernel_missing_fixes,omitempty"`
}

// Missing returns the stable fixes the recording kernel lacked; a record
// that does not say lacked none.
func (g Golden) Missing() (stablefix.Set, error) {
	set, err := stablefix.Parse(g.MissingFixes)
	if err != nil {
		return stablefix.Set{}, fmt.Errorf("golden %s: %s: %w", g.File, g.Program, err)
	}
	return set, nil
}

// Accepted reports whether the kernel accepted the program.
func (g Golden) Accepted() bool { return g.Verdict == VerdictAccepted }

// FromResult turns a kernel result for a program of object file into a
// golden record. The verification time is left out: it differs between loads.
func FromResult(file string, r kernel.Result) Golden {
	g := Golden{
		File:             file,
		Program:          r.Program,
		Verdict:          VerdictRejected,
		Error:            r.Err,
		InsnProcessed:    r.InsnProcessed,
		MaxStatesPerInsn: r.MaxStatesPerInsn,
		TotalStates:      r.TotalStates,
		PeakStates:       r.PeakStates,
		StackDepth:       r.StackDepth,
		Release:          r.Release,
	}
	switch {
	case r.NotLoaded:
		g.Verdict = VerdictNotLoaded
	case r.Accepted:
		g.Verdict = VerdictAccepted
	}
	return g
}

// SortGolden orders records by file, then program.
func SortGolden(gs []Golden) {
	slices.SortFunc(gs, func(a, b Golden) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return strings.Compare(a.Program, b.Program)
	})
}

// WriteGolden writes records as indented JSON, one array element per
// program, sorted by file and program.
func WriteGolden(w io.Writer, gs []Golden) error {
	gs = slices.Clone(gs)
	SortGolden(gs)
	b, err := json.MarshalIndent(gs, "", "  ")
	if err != nil {
		return fmt.Errorf("encode golden: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write golden: %w", err)
	}
	return nil
}

// ReadGolden reads a golden file written by [WriteGolden].
func ReadGolden(path string) ([]Golden, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	var gs []Golden
	if err := json.Unmarshal(b, &gs); err != nil {
		return nil, fmt.Errorf("golden %s: %w", path, err)
	}
	return gs, nil
}

// KeepVerdicts returns fresh with each record the running kernel gave no
// verdict on (VerdictNotLoaded) replaced by the earlier record of the same
// program when that one holds a verdict. Kernel builds of one release
// differ in what they permit (some refuse iterator loads with EPERM), and
// a build that cannot load a program must not erase what another build
// said about it. kept lists the earlier records that were kept.
func KeepVerdicts(fresh, old []Golden) (merged, kept []Golden) {
	type key struct{ file, program string }
	earlier := make(map[key]Golden, len(old))
	for _, g := range old {
		earlier[key{g.File, g.Program}] = g
	}
	merged = slices.Clone(fresh)
	for i, g := range merged {
		prev, ok := earlier[key{g.File, g.Program}]
		if g.Verdict != VerdictNotLoaded || !ok || prev.Verdict == VerdictNotLoaded {
			continue
		}
		merged[i] = prev
		kept = append(kept, prev)
	}
	return merged, kept
}

// GoldenDiff is how records regenerated on the running kernel differ from
// the checked-in ones.
type GoldenDiff struct {
	// Stale are differences in records made by the running kernel's own
	// build: the checked-in file is out of date, or the kernel is not
	// deterministic. Either way a test should fail.
	Stale []string
	// Drift are differences in records made by another build of the
	// kernel: stable fixes change figures between builds of one release.
	// They are reported, not failed on.
	Drift []string
	// Reprobed are records of the running build whose figures and verdict
	// hold but whose list of missing fixes differs from what the probes
	// say now. One build cannot change its fixes; the probes can: a probe
	// added after the record was made names a fix the record never asked
	// about. Such records are reported, not failed on: the build that made
	// them may not be at hand when the probe lands (regenerate them on it).
	Reprobed []string
	// NotLoaded are programs the running kernel gave no verdict on.
	NotLoaded []string
	// Compared counts the records compared; OtherBuild those made by
	// another build than the running one.
	Compared, OtherBuild int
}

// DiffGolden compares checked-in records with records regenerated on the
// kernel release running, program by program. Records the running kernel
// could not load are listed, not compared.
func DiffGolden(checkedIn, live []Golden, running string) GoldenDiff {
	type key struct{ file, program string }
	byKey := make(map[key]Golden, len(live))
	for _, g := range live {
		byKey[key{g.File, g.Program}] = g
	}
	var d GoldenDiff
	for _, want := range checkedIn {
		name := want.File + ": " + want.Program
		got, ok := byKey[key{want.File, want.Program}]
		switch {
		case !ok:
			d.Stale = append(d.Stale, name+": not loaded by the live run")
			continue
		case got.Verdict == VerdictNotLoaded && want.Verdict != VerdictNotLoaded:
			d.NotLoaded = append(d.NotLoaded, name+": "+got.Error)
			continue
		}
		d.Compared++
		diff := describeDiff(want, got)
		if want.Release != running {
			d.OtherBuild++
			if diff != "" {
				d.Drift = append(d.Drift, name+": "+diff)
			}
			continue
		}
		switch {
		case diff == "":
		case describeDiff(want, withFixes(got, want.MissingFixes)) == "":
			d.Reprobed = append(d.Reprobed, name+": "+diff)
		default:
			d.Stale = append(d.Stale, name+": "+diff)
		}
	}
	return d
}

// withFixes is g with its list of missing fixes replaced.
func withFixes(g Golden, missing string) Golden {
	g.MissingFixes = missing
	return g
}

// describeDiff lists the fields two records of one program disagree on,
// "field: golden -> live", ignoring the release; "" when they agree.
func describeDiff(want, got Golden) string {
	want.Release, got.Release = "", ""
	var parts []string
	add := func(field string, a, b any) {
		if a != b {
			parts = append(parts, fmt.Sprintf("%s %v -> %v", field, a, b))
		}
	}
	add("verdict", want.Verdict, got.Verdict)
	add("error", want.Error, got.Error)
	add("insn_processed", want.InsnProcessed, got.InsnProcessed)
	add("max_states_per_insn", want.MaxStatesPerInsn, got.MaxStatesPerInsn)
	add("total_states", want.TotalStates, got.TotalStates)
	add("peak_states", want.PeakStates, got.PeakStates)
	add("stack_depth", want.StackDepth, got.StackDepth)
	add("kernel_missing_fixes", want.MissingFixes, got.MissingFixes)
	return strings.Join(parts, ", ")
}

package progtest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/vercheck/vercheck/internal/kernel"
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
	// VerdictSetupFailed: the program never reached the verifier.
	VerdictSetupFailed = "load-setup-failed"
)

// Golden is the kernel's recorded verdict on one program of one object.
type Golden struct {
	// File is the object's base name, such as "map_value_oob.o".
	File string `json:"file"`
	// Program is the program's name.
	Program string `json:"program"`
	// Verdict is one of VerdictAccepted, VerdictRejected, VerdictSetupFailed.
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
	case r.SetupFailed:
		g.Verdict = VerdictSetupFailed
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

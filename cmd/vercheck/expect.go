package main

import (
	"fmt"
	"io"

	"github.com/vercheck/vercheck/expect"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// expectRow is a row's comparison with the program's own tags (--expect).
type expectRow struct {
	// Failure is what the tags say: true for __failure.
	Failure bool `json:"failure"`
	// VerdictDiffers is set when vercheck's verdict is not the tags'.
	VerdictDiffers bool `json:"verdict_differs,omitempty"`
	// Problems lists where vercheck differs from the tags: its verdict,
	// the messages its log lacks. Empty when it agrees.
	Problems []string `json:"problems,omitempty"`
	// Skip says why the tags do not apply here.
	Skip string `json:"skip,omitempty"`
}

// verifyExpected verifies prog as the tags of its function say the test
// loads it (their load flags, their log level) and compares the result
// with them; exp is nil for a program without tags.
func verifyExpected(obj *loader.Object, prog *loader.Program, opts verifier.Options) (*verifier.Result, *expectRow) {
	exp, ok, err := expect.Of(prog)
	switch {
	case err != nil:
		return verifier.Verify(obj, prog, opts), &expectRow{Skip: err.Error()}
	case !ok:
		return verifier.Verify(obj, prog, opts), nil
	case exp.Skip != "":
		return verifier.Verify(obj, prog, opts), &expectRow{Failure: exp.Failure, Skip: exp.Skip}
	}
	p := *prog
	p.Flags |= exp.ProgFlags
	if lvl := exp.LogLevel & 3; lvl > opts.LogLevel {
		opts.LogLevel = lvl
	}
	res := verifier.Verify(obj, &p, opts)
	if res.Verdict() != verdictAccepted && res.Verdict() != "rejected" {
		// Unsupported, a time limit, an error: no verdict to compare.
		return res, &expectRow{Failure: exp.Failure, Skip: "no verdict: " + res.Verdict()}
	}
	return res, &expectRow{Failure: exp.Failure, VerdictDiffers: exp.Failure == res.Accepted, Problems: exp.Check(res.Accepted, res.Log)}
}

// expectSummary counts a run's comparisons with the programs' tags.
type expectSummary struct {
	tagged, skipped, agree, verdictDiffs, messageDiffs int
}

// summarizeExpect counts rows and returns those that differ.
func summarizeExpect(rows []row) (expectSummary, []row) {
	var s expectSummary
	var diffs []row
	for _, r := range rows {
		e := r.Expect
		if e == nil {
			continue
		}
		s.tagged++
		switch {
		case e.Skip != "":
			s.skipped++
		case len(e.Problems) == 0:
			s.agree++
		case e.VerdictDiffers:
			s.verdictDiffs++
			diffs = append(diffs, r)
		default:
			s.messageDiffs++
			diffs = append(diffs, r)
		}
	}
	return s, diffs
}

// writeExpect prints the programs that differ from their tags, then the
// counts.
func writeExpect(w io.Writer, rows []row) expectSummary {
	s, diffs := summarizeExpect(rows)
	for _, r := range diffs {
		for _, p := range r.Expect.Problems {
			fmt.Fprintf(w, "%s: %s: %s\n", r.File, r.Program, p)
		}
	}
	fmt.Fprintf(w, "expectations (the programs' own __success/__failure/__msg tags): %d programs tagged, %d agree, %d verdicts differ, %d only messages differ, %d not compared\n",
		s.tagged, s.agree, s.verdictDiffs, s.messageDiffs, s.skipped)
	return s
}

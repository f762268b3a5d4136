package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/oracle"
)

// TestOpStats: an operator is counted once per mutant, kernel verdicts
// and findings by class.
func TestOpStats(t *testing.T) {
	s := opStats{}
	s.add([]string{"delete", "delete", "map"}, oracle.Outcome{Class: oracle.BothAccept})
	s.add([]string{"map"}, oracle.Outcome{Class: oracle.FalseAccept})
	s.add([]string{"map"}, oracle.Outcome{Class: oracle.KernelNoLoad})
	want := opStats{
		"delete": {mutants: 1, judged: 1, accepted: 1},
		"map":    {mutants: 3, judged: 2, accepted: 1, findings: 1},
	}
	if diff := cmp.Diff(want, s, cmp.AllowUnexported(opCount{})); diff != "" {
		t.Errorf("counts mismatch (-want +got):\n%s", diff)
	}
	var b strings.Builder
	s.print(&b, 4)
	if !strings.Contains(b.String(), "map                             3   75.0%     50.0%        1") {
		t.Errorf("table:\n%s", b.String())
	}
}

package profile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	a := &Profile{InsnProcessed: 100,
		Lines: []Line{
			{File: "/a/loop.c", Line: 13, Source: "for (i = 0; i < 16; i++) {", Counters: Counters{Visits: 48}},
			{File: "/a/loop.c", Line: 14, Source: "  sum += i;", Counters: Counters{Visits: 16, StatesAdded: 1}},
			{File: "/a/loop.c", Line: 20, Source: "}", Counters: Counters{Visits: 1}},
			{File: "/a/loop.c", Line: 22, Source: "}", Counters: Counters{Visits: 1}},
			{File: "/a/loop.c", Line: 30, Source: "return 0;", Counters: Counters{Visits: 3}},
		},
		Loops: []Loop{{SCC: 1, Header: 2, File: "/a/loop.c", Line: 14, Source: "  sum += i;", Counters: Counters{Visits: 96}}},
	}
	b := &Profile{InsnProcessed: 150,
		Lines: []Line{
			// Moved down by two lines, same text: matched.
			{File: "/b/loop.c", Line: 16, Source: "sum += i;", Counters: Counters{Visits: 40, StatesAdded: 2}},
			{File: "/b/loop.c", Line: 22, Source: "}", Counters: Counters{Visits: 2}},
			{File: "/b/loop.c", Line: 32, Source: "return 0;", Counters: Counters{Visits: 3}},
			{File: "/b/loop.c", Line: 15, Source: "for (i = 0; i < 40; i++) {", Counters: Counters{Visits: 120}},
		},
		Loops: []Loop{{SCC: 1, Header: 2, File: "/b/loop.c", Line: 16, Source: "sum += i;", Counters: Counters{Visits: 240}}},
	}
	got := Compare("count", a, b)
	want := Comparison{Program: "count", InsnProcessedA: 100, InsnProcessedB: 150, Changes: []Change{
		{Kind: "loop", File: "loop.c", Source: "sum += i;", LinesA: []int{14}, LinesB: []int{16}, VisitsA: 96, VisitsB: 240, Diff: 144},
		{Kind: "line", File: "loop.c", Source: "for (i = 0; i < 40; i++) {", LinesA: []int{}, LinesB: []int{15}, VisitsB: 120, Diff: 120},
		{Kind: "line", File: "loop.c", Source: "for (i = 0; i < 16; i++) {", LinesA: []int{13}, LinesB: []int{}, VisitsA: 48, Diff: -48},
		{Kind: "line", File: "loop.c", Source: "sum += i;", LinesA: []int{14}, LinesB: []int{16}, VisitsA: 16, VisitsB: 40, Diff: 24, StatesA: 1, StatesB: 2},
	}}
	// "}" (twice in A, once in B: 2 visits each side) and the return
	// did not change and are left out.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare mismatch (-want +got):\n%s", diff)
	}
	if got := Compare("gone", a, nil); got.InsnProcessedB != 0 || len(got.Changes) != 5 {
		t.Errorf("against nothing: %d changes, insn_processed_b %d; want every line and loop, 0", len(got.Changes), got.InsnProcessedB)
	}
}

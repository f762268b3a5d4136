package loader

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineTable(t *testing.T) {
	a := Line{File: "a.c", Source: "x = 1;", Line: 3, Col: 2}
	b := Line{File: "a.c", Source: "return x;", Line: 4}
	poisoned := Line{Source: "instruction poisoned by CO-RE"}
	tests := []struct {
		name  string
		lines []Line
		want  []Line // nil: the table is empty
	}{
		{"none", nil, nil},
		{"no slot has a line", make([]Line, 3), nil},
		{"shared texts", []Line{a, {}, b, a, {}}, []Line{a, {}, b, a, {}}},
		{"no file", []Line{poisoned, {Line: 7}}, []Line{poisoned, {Line: 7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := NewLineTable(tt.lines)
			if diff := cmp.Diff(tt.want, tab.Slice()); diff != "" {
				t.Errorf("Slice() (-want +got):\n%s", diff)
			}
			if tab.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", tab.Len(), len(tt.want))
			}
			var slots []int
			for i, l := range tt.want {
				if got, want := tab.Has(i), l != (Line{}); got != want {
					t.Errorf("Has(%d) = %v, want %v", i, got, want)
				}
				if l != (Line{}) {
					slots = append(slots, i)
				}
			}
			if diff := cmp.Diff(slots, tab.Slots()); diff != "" {
				t.Errorf("Slots() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLineTableSharesTexts checks that a text several slots name is kept
// once.
func TestLineTableSharesTexts(t *testing.T) {
	l := Line{File: "prog.c", Source: "if (x) return 0;", Line: 9}
	tab := NewLineTable([]Line{l, l, l})
	if want := len(l.File) + len(l.Source); len(tab.text) != want {
		t.Errorf("text holds %d bytes, want %d", len(tab.text), want)
	}
}

package profile

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Change is how one source line, or one loop, of a program changed in
// visits between two builds A and B. Lines are matched by their text
// (file name and trimmed source), since line numbers move between builds;
// lines of one file with the same text are summed.
type Change struct {
	// Kind is "line" or "loop" (a loop is named by its header's line).
	Kind   string `json:"kind"`
	File   string `json:"file"`
	Source string `json:"source"`
	// LinesA and LinesB are the line numbers the text has in each build
	// (empty where it is absent).
	LinesA []int `json:"lines_a"`
	LinesB []int `json:"lines_b"`
	// VisitsA and VisitsB are the summed visits; Diff is B - A.
	VisitsA int `json:"visits_a"`
	VisitsB int `json:"visits_b"`
	Diff    int `json:"diff"`
	// StatesA and StatesB are the checkpoints stored there.
	StatesA int `json:"states_a"`
	StatesB int `json:"states_b"`
}

// Comparison is what changed in one program's verification between two
// builds: its totals and every line and loop whose visits changed, the
// largest absolute change first.
type Comparison struct {
	Program        string   `json:"program"`
	InsnProcessedA int      `json:"insn_processed_a"`
	InsnProcessedB int      `json:"insn_processed_b"`
	Changes        []Change `json:"changes"`
}

// changeKey matches lines across builds.
type changeKey struct {
	kind, file, source string
}

// Compare says which source lines and loops of a program grew or shrank in
// visits from build a to build b. A nil profile counts as empty (a program
// refused before its walk).
func Compare(program string, a, b *Profile) Comparison {
	c := Comparison{Program: program, Changes: []Change{}}
	acc := map[changeKey]*Change{}
	var order []changeKey
	add := func(k changeKey, line, visits, states int, inB bool) {
		ch := acc[k]
		if ch == nil {
			ch = &Change{Kind: k.kind, File: k.file, Source: k.source, LinesA: []int{}, LinesB: []int{}}
			acc[k] = ch
			order = append(order, k)
		}
		if inB {
			ch.VisitsB += visits
			ch.StatesB += states
			ch.LinesB = appendLine(ch.LinesB, line)
		} else {
			ch.VisitsA += visits
			ch.StatesA += states
			ch.LinesA = appendLine(ch.LinesA, line)
		}
	}
	for i, p := range []*Profile{a, b} {
		if p == nil {
			continue
		}
		if i == 0 {
			c.InsnProcessedA = p.InsnProcessed
		} else {
			c.InsnProcessedB = p.InsnProcessed
		}
		for _, l := range p.Lines {
			add(keyOf("line", l.File, l.Source), l.Line, l.Visits, l.StatesAdded, i == 1)
		}
		for _, l := range p.Loops {
			src := l.Source
			if src == "" {
				// No line info: the header's index is all there is.
				src = "loop at insn " + strconv.Itoa(l.Header)
			}
			add(keyOf("loop", l.File, src), l.Line, l.Visits, l.StatesAdded, i == 1)
		}
	}
	for _, k := range order {
		ch := acc[k]
		ch.Diff = ch.VisitsB - ch.VisitsA
		if ch.Diff != 0 {
			c.Changes = append(c.Changes, *ch)
		}
	}
	slices.SortStableFunc(c.Changes, func(x, y Change) int {
		return cmp.Or(cmp.Compare(abs(y.Diff), abs(x.Diff)), cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Source, y.Source))
	})
	return c
}

// keyOf matches a line by its file's base name (builds may live in other
// directories) and its text without surrounding space.
func keyOf(kind, file, source string) changeKey {
	return changeKey{kind: kind, file: filepath.Base(file), source: strings.TrimSpace(source)}
}

// appendLine adds a line number once (0: no line info).
func appendLine(lines []int, n int) []int {
	if n == 0 || slices.Contains(lines, n) {
		return lines
	}
	return append(lines, n)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// LinesText renders line numbers as "12,40" ("-" for none).
func LinesText(lines []int) string {
	if len(lines) == 0 {
		return "-"
	}
	s := make([]string, len(lines))
	for i, n := range lines {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

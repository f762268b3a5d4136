package profile

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Reasons shown per line in the text form: the most frequent, and the
// next ones while they explain at least minReasonShare of the misses.
const (
	maxReasonsShown = 3
	minReasonShare  = 0.10
)

// WriteText writes the profile as tables for a terminal: the totals, the
// top source lines and instructions by visits, the subprograms, the loops
// and the source lines with the most misses and why. top bounds each
// table's rows.
func (p *Profile) WriteText(w io.Writer, top int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "  insn_processed %s, states stored %s, hits %s, misses %s, evicted %s, longest state list %d\n",
		group(p.InsnProcessed), group(p.StatesAdded), group(p.Hits), group(p.Misses), group(p.Evictions), p.MaxStates)
	p.writeLines(&b, top)
	p.writeInsns(&b, top)
	p.writeSubprogs(&b)
	p.writeLoops(&b, top)
	p.writeMissReasons(&b, top)
	_, err := io.WriteString(w, b.String())
	return err
}

// counterHeader names the counter columns every table starts with.
var counterHeader = []string{"VISITS", "SHARE", "STATES", "HITS", "MISSES", "EVICTED", "LIST"}

// counterCells are the counter columns of one row.
func (p *Profile) counterCells(c Counters, more ...string) []string {
	return append([]string{group(c.Visits), p.share(c.Visits), group(c.StatesAdded),
		group(c.Hits), group(c.Misses), group(c.Evictions), strconv.Itoa(c.MaxStates)}, more...)
}

// share is n as a percentage of insn_processed.
func (p *Profile) share(n int) string {
	if p.InsnProcessed == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(p.InsnProcessed), 'f', 1, 64) + "%"
}

func (p *Profile) writeLines(b *strings.Builder, top int) {
	if len(p.Lines) == 0 {
		b.WriteString("  (no BTF line info: no per-line figures)\n")
		return
	}
	var rows [][]string
	for _, l := range topBy(p.Lines, top, func(l Line) int { return l.Visits }) {
		rows = append(rows, p.counterCells(l.Counters, where(l.File, l.Line), quote(l.Source)))
	}
	writeTable(b, "hottest source lines", append(counterHeader, "LINE", "SOURCE"), rows)
}

func (p *Profile) writeInsns(b *strings.Builder, top int) {
	var rows [][]string
	for _, in := range topBy(p.Insns, top, func(i Insn) int { return i.Visits }) {
		rows = append(rows, p.counterCells(in.Counters, strconv.Itoa(in.Insn), in.Text, where(in.File, in.Line)))
	}
	writeTable(b, "hottest instructions", append(counterHeader, "INSN", "CODE", "LINE"), rows)
}

func (p *Profile) writeSubprogs(b *strings.Builder) {
	var rows [][]string
	for _, s := range p.Subprogs {
		name := s.Name
		if name == "" {
			name = "func#" + strconv.Itoa(s.Index)
		}
		rows = append(rows, p.counterCells(s.Counters, strconv.Itoa(s.StackDepth), strconv.Itoa(s.Start), name))
	}
	writeTable(b, "subprograms", append(counterHeader, "STACK", "START", "NAME"), rows)
}

func (p *Profile) writeLoops(b *strings.Builder, top int) {
	var rows [][]string
	for _, l := range topBy(p.Loops, top, func(l Loop) int { return l.Visits }) {
		rows = append(rows, p.counterCells(l.Counters, group(l.Iterations), group(l.Entries), strconv.Itoa(l.Size),
			strconv.Itoa(l.Header), where(l.File, l.Line), quote(l.Source)))
	}
	if len(rows) > 0 {
		writeTable(b, "loops", append(counterHeader, "ITERATIONS", "ENTRIES", "SIZE", "HEADER", "LINE", "SOURCE"), rows)
	}
}

// writeTable writes a titled table: cells that hold numbers (digits,
// commas, a final %) are aligned right, the others left.
func writeTable(b *strings.Builder, title string, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	fmt.Fprintf(b, "\n  %s\n", title)
	for _, r := range append([][]string{header}, rows...) {
		line := " "
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-len(c))
			if isNumber(c) || (len(rows) > 0 && isNumber(rows[0][i]) && c == header[i]) {
				line += " " + pad + c
			} else {
				line += " " + c + pad
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// isNumber reports whether a cell holds a number.
func isNumber(s string) bool {
	s = strings.TrimSuffix(s, "%")
	return s != "" && strings.Trim(s, "0123456789,.-") == ""
}

// writeMissReasons lists the places with the most misses and why, by
// source line, or by instruction without line info.
func (p *Profile) writeMissReasons(b *strings.Builder, top int) {
	if p.Misses == 0 {
		return
	}
	b.WriteString("\n  why stored states did not match\n")
	if len(p.Lines) > 0 {
		for _, l := range topBy(p.Lines, top, func(l Line) int { return l.Misses }) {
			fmt.Fprintf(b, "  %s (%s): %s\n", where(l.File, l.Line), quote(l.Source), missSummary(l.Misses, l.MissReasons))
		}
		return
	}
	for _, in := range topBy(p.Insns, top, func(i Insn) int { return i.Misses }) {
		fmt.Fprintf(b, "  insn %d (%s): %s\n", in.Insn, quote(in.Text), missSummary(in.Misses, in.MissReasons))
	}
}

// missSummary says "4,312 misses, 81% because ..., 12% because ...".
func missSummary(misses int, reasons []Reason) string {
	var b strings.Builder
	b.WriteString(count(misses, "miss", "misses"))
	for i, r := range reasons {
		share := float64(r.Count) / float64(misses)
		if i >= maxReasonsShown || (i > 0 && share < minReasonShare) {
			break
		}
		fmt.Fprintf(&b, ", %.0f%% because %s", 100*share, r.Text)
	}
	return b.String()
}

// topBy returns the n elements of s with the largest key (ties keep s's
// order), without zero keys.
func topBy[T any](s []T, n int, key func(T) int) []T {
	s = slices.Clone(s)
	slices.SortStableFunc(s, func(a, b T) int { return cmp.Compare(key(b), key(a)) })
	i := slices.IndexFunc(s, func(t T) bool { return key(t) == 0 })
	if i >= 0 {
		s = s[:i]
	}
	return s[:min(n, len(s))]
}

// where formats a source position as "file.c:120", "" without one.
func where(file string, line int) string {
	if line == 0 {
		return ""
	}
	return filepath.Base(file) + ":" + strconv.Itoa(line)
}

// maxSourceWidth bounds a quoted source line in a table.
const maxSourceWidth = 60

// quote shows a line of source or code between backquotes, trimmed.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxSourceWidth {
		s = s[:maxSourceWidth-3] + "..."
	}
	return "`" + s + "`"
}

// group formats n with thousands separators: 1234567 → "1,234,567".
func group(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// count says "1 miss" or "4,312 misses".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return group(n) + " " + many
}

package why

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints the explanation for a terminal, each line indented by
// indent.
func (x *Explanation) WriteText(w io.Writer, indent string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%swhy: %s: %s\n", indent, x.Cause, x.Summary)
	if x.Text != "" {
		fmt.Fprintf(&b, "%s  at %s%s\n", indent, x.Text, sourceText(x.File, x.Line, x.Source))
	}
	if x.State != "" {
		fmt.Fprintf(&b, "%s  state: %s\n", indent, strings.TrimSpace(x.State))
	}
	if len(x.Slice) > 0 {
		fmt.Fprintf(&b, "%s  slice (back from the failing instruction):\n", indent)
		rows := make([][]string, len(x.Slice))
		for i, p := range x.Slice {
			rows[i] = []string{p.Text, p.Note, p.Value}
		}
		writeColumns(&b, indent+"    ", rows)
	}
	if x.BranchCount > 0 {
		fmt.Fprintf(&b, "%s  branches on the path (%d, the last %d shown, * compares a traced value):\n", indent, x.BranchCount, len(x.Branches))
		rows := make([][]string, len(x.Branches))
		for i, br := range x.Branches {
			mark := " "
			if br.Relevant {
				mark = "*"
			}
			edge := "fell through"
			if br.Taken {
				edge = "taken"
			}
			rows[i] = []string{mark + " " + br.Text, edge, sourceText(br.File, br.Line, "")}
		}
		writeColumns(&b, indent+"   ", rows)
	}
	fmt.Fprintf(&b, "%s  hint: %s\n", indent, x.Hint)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeColumns writes rows aligned in columns, each line starting with
// indent (kept out of the tabwriter, which would take a tab for a column).
func writeColumns(b *strings.Builder, indent string, rows [][]string) {
	var t strings.Builder
	tw := tabwriter.NewWriter(&t, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	for _, l := range strings.SplitAfter(t.String(), "\n") {
		if l != "" {
			b.WriteString(indent + strings.TrimRight(l, " \n") + "\n")
		}
	}
}

// sourceText renders a source position, "" when there is none.
func sourceText(file string, line int, src string) string {
	if file == "" {
		return ""
	}
	s := fmt.Sprintf("  (%s:%d", baseName(file), line)
	if src != "" {
		s += ": " + src
	}
	return s + ")"
}

// baseName is the last element of a path.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

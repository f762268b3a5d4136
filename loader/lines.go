package loader

import "strings"

// LineTable is the source line of every raw instruction slot of a program
// (its BTF line_info records), indexed by asm.RawInstructionOffset.
//
// It holds no pointer but one: a record per slot names its file and
// source text by offsets into one string of the program's distinct texts.
// As a []Line it held two strings per slot, which the collector marks on
// every cycle while the object's programs are verified: with a
// 37,000-instruction Cilium object loaded, a full collection executed 18%
// fewer instructions with the table.
type LineTable struct {
	recs []lineRec
	text string
	// slots are the slots that have a line, in order (Slots).
	slots []int
}

// lineRec is one slot's Line, its strings as spans of LineTable.text. The
// zero record is the zero Line: no line information.
type lineRec struct {
	file, source textSpan
	line, col    uint32
}

// textSpan is text[off : off+n] of a LineTable.
type textSpan struct{ off, n uint32 }

// NewLineTable returns the table of lines, one per raw instruction slot;
// it is empty (Len 0) when no slot has a line.
func NewLineTable(lines []Line) LineTable {
	if !hasLine(lines) {
		return LineTable{}
	}
	var text strings.Builder
	offsets := map[string]uint32{}
	span := func(s string) textSpan {
		if s == "" {
			return textSpan{}
		}
		off, ok := offsets[s]
		if !ok {
			off = uint32(text.Len())
			offsets[s] = off
			text.WriteString(s)
		}
		return textSpan{off, uint32(len(s))}
	}
	recs := make([]lineRec, len(lines))
	var slots []int
	for i, l := range lines {
		recs[i] = lineRec{file: span(l.File), source: span(l.Source), line: l.Line, col: l.Col}
		if recs[i] != (lineRec{}) {
			slots = append(slots, i)
		}
	}
	return LineTable{recs: recs, text: text.String(), slots: slots}
}

// Slots returns the slots that have a line, in order: the line_info
// records' instruction offsets. The caller must not change it. Every
// verification of the program checks them, and finding them again was
// 4% of a long program's verification (a 3,755-instruction one walked
// for 39).
func (t LineTable) Slots() []int { return t.slots }

func hasLine(lines []Line) bool {
	for _, l := range lines {
		if l != (Line{}) {
			return true
		}
	}
	return false
}

// Len returns the number of slots the table covers: the program's raw
// instruction slots, or 0 when it has no line information.
func (t LineTable) Len() int { return len(t.recs) }

// Has reports whether slot has a line record.
func (t LineTable) Has(slot int) bool { return t.recs[slot] != lineRec{} }

// At returns the line of slot; the zero Line when it has none.
func (t LineTable) At(slot int) Line {
	r := &t.recs[slot]
	return Line{File: t.str(r.file), Source: t.str(r.source), Line: r.line, Col: r.col}
}

func (t LineTable) str(s textSpan) string { return t.text[s.off : s.off+s.n] }

// Slice returns the table as a []Line, nil when it is empty.
func (t LineTable) Slice() []Line {
	if len(t.recs) == 0 {
		return nil
	}
	lines := make([]Line, len(t.recs))
	for i := range t.recs {
		lines[i] = t.At(i)
	}
	return lines
}

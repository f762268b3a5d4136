package profile

import (
	"cmp"
	"slices"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// Counters are the search's figures for one instruction, or summed over a
// source line, a subprogram or a loop (MaxStates is then the maximum).
type Counters struct {
	// Visits counts simulated instructions (they sum to insn_processed).
	Visits int `json:"visits"`
	// StatesAdded counts checkpoints stored (they sum to total_states).
	StatesAdded int `json:"states_added"`
	// Hits and Misses count comparisons with stored states that pruned
	// the path and that did not.
	Hits   int `json:"hits"`
	Misses int `json:"misses"`
	// Evictions counts stored states dropped for missing too often.
	Evictions int `json:"evictions"`
	// MaxStates is the longest list of stored states walked without a
	// prune.
	MaxStates int `json:"max_states"`
}

// add sums o into c.
func (c *Counters) add(o Counters) {
	c.Visits += o.Visits
	c.StatesAdded += o.StatesAdded
	c.Hits += o.Hits
	c.Misses += o.Misses
	c.Evictions += o.Evictions
	c.MaxStates = max(c.MaxStates, o.MaxStates)
}

// zero reports whether nothing was counted.
func (c Counters) zero() bool { return c == Counters{} }

// Reason is one reason stored states failed to match, with how often.
type Reason struct {
	// Kind is a states.MismatchKind name ("range", "spill"...) or
	// "ancestor".
	Kind string `json:"kind"`
	// Where is the register or stack slot ("R3", "fp-16", "R6 (frame 0)"
	// for a caller's), "" when the difference is in none.
	Where string `json:"where,omitempty"`
	// Old and Cur are an example of the differing values, stored state
	// first ("[0,255]", "map_value(off=8)", "mmmmmmmm").
	Old string `json:"old,omitempty"`
	Cur string `json:"cur,omitempty"`
	// Precise says the stored value was a precise scalar: its range
	// mattered to safety below the stored state.
	Precise bool `json:"precise,omitempty"`
	// Ancestor says the stored state was an ancestor of the current path
	// (a loop iteration still open), so the difference is what its
	// exact comparison found.
	Ancestor bool `json:"ancestor,omitempty"`
	// Count is the number of misses with this reason.
	Count int `json:"count"`
	// Text says it in a sentence: "R3's range differs ([0,255] vs
	// [0,4095], precise)".
	Text string `json:"text"`
}

// Insn is the profile of one instruction.
type Insn struct {
	Insn int    `json:"insn"`
	Text string `json:"text"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Counters
	MissReasons []Reason `json:"miss_reasons,omitempty"`
}

// Line is the profile of one source line: the sum over the instructions
// the line info maps to it.
type Line struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Source string `json:"source"`
	// Insns are the instructions of the line that were visited.
	Insns []int `json:"insns"`
	Counters
	MissReasons []Reason `json:"miss_reasons,omitempty"`
}

// Subprog is the profile of one subprogram (bpf-to-bpf function).
type Subprog struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	// Start and End delimit its instructions [Start, End).
	Start      int `json:"start"`
	End        int `json:"end"`
	StackDepth int `json:"stack_depth"`
	Counters
}

// Loop is the profile of one loop of the control-flow graph.
type Loop struct {
	// SCC is the loop's component number, Header the instruction it is
	// entered at, with the header's source line.
	SCC    int    `json:"scc"`
	Header int    `json:"header"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Source string `json:"source,omitempty"`
	// Size is the number of instructions in the loop.
	Size int `json:"size"`
	// Entries and Iterations count the header's visits from outside the
	// loop and through a back-edge.
	Entries    int `json:"entries"`
	Iterations int `json:"iterations"`
	Counters
	MissReasons []Reason `json:"miss_reasons,omitempty"`
}

// Profile is where one verification spent its processed instructions and
// why its stored states did not prune. See the package documentation for
// what is counted and the JSON form.
type Profile struct {
	// The totals: InsnProcessed is insn_processed, StatesAdded
	// total_states, MaxStates max_states_per_insn.
	InsnProcessed int `json:"insn_processed"`
	StatesAdded   int `json:"states_added"`
	Hits          int `json:"hits"`
	Misses        int `json:"misses"`
	Evictions     int `json:"evictions"`
	MaxStates     int `json:"max_states"`
	// Insns holds every instruction with a nonzero counter, in order.
	Insns []Insn `json:"insns"`
	// Lines holds every source line with a nonzero counter, by file and
	// line.
	Lines    []Line    `json:"lines"`
	Subprogs []Subprog `json:"subprogs"`
	Loops    []Loop    `json:"loops"`
	// Blocks are the basic blocks of the control-flow graph, in order.
	Blocks []Block `json:"blocks"`
}

// Program is what Build needs to know of the verified program.
type Program struct {
	// Insns are the program's instructions, by kernel index.
	Insns []insn.Insn
	// Lines and Funcs are the loader's line and function info.
	Lines []loader.Line
	Funcs []loader.Func
	// StackDepth is each subprogram's stack depth.
	StackDepth []int
	// Printer renders registers in reasons (map names...).
	Printer *states.Printer
}

// Build makes the profile of a finished verification from what r
// recorded.
func Build(r *Recorder, p Program) *Profile {
	b := builder{r: r, p: p, lineOf: lineIndex(p.Lines, len(r.insns))}
	r.flushUnsampled()
	b.reasonsByInsn()
	prof := &Profile{}
	prof.Insns = b.insns()
	var total Counters
	for _, in := range prof.Insns {
		total.add(in.Counters)
	}
	prof.InsnProcessed, prof.StatesAdded, prof.MaxStates = total.Visits, total.StatesAdded, total.MaxStates
	prof.Hits, prof.Misses, prof.Evictions = total.Hits, total.Misses, total.Evictions
	prof.Lines = b.lines()
	prof.Subprogs = b.subprogs()
	prof.Loops = b.loops()
	prof.Blocks = b.blocks()
	// Empty lists are [] in JSON, never null: scripts iterate them.
	prof.Insns = nonNil(prof.Insns)
	prof.Lines = nonNil(prof.Lines)
	prof.Loops = nonNil(prof.Loops)
	return prof
}

// nonNil returns s, or an empty slice for nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// builder holds what the parts of Build share.
type builder struct {
	r *Recorder
	p Program
	// lineOf is, per instruction, its source line in p.Lines' terms.
	lineOf []loader.Line
	// reasons holds each instruction's miss reasons, most frequent first.
	reasons map[int][]Reason
}

// lineIndex maps every instruction to its source line as the kernel's
// find_linfo does: the last line-info record at or before it.
func lineIndex(lines []loader.Line, n int) []loader.Line {
	out := make([]loader.Line, n)
	var last loader.Line
	for i := range out {
		if i < len(lines) && (lines[i].Line != 0 || lines[i].File != "") {
			last = lines[i]
		}
		out[i] = last
	}
	return out
}

// reasonsByInsn turns the recorded reasons into Reasons per instruction.
func (b *builder) reasonsByInsn() {
	b.reasons = make(map[int][]Reason)
	for k, acc := range b.r.reasons {
		b.reasons[int(k.insn)] = append(b.reasons[int(k.insn)], newReason(k, acc, b.p.Printer))
	}
	for i := range b.reasons {
		sortReasons(b.reasons[i])
	}
}

// sortReasons orders reasons most frequent first, then by text, so the
// order is stable.
func sortReasons(rs []Reason) {
	slices.SortFunc(rs, func(a, b Reason) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Text, b.Text))
	})
}

// mergeReasons sums reasons that name the same difference at the same
// place (kind, where, ancestor) over several instructions, keeping the
// most frequent one's example.
func mergeReasons(lists ...[]Reason) []Reason {
	type key struct {
		kind, where string
		ancestor    bool
	}
	idx := map[key]int{}
	var out []Reason
	for _, l := range lists {
		for _, r := range l {
			k := key{r.Kind, r.Where, r.Ancestor}
			i, ok := idx[k]
			if !ok {
				idx[k] = len(out)
				out = append(out, r)
				continue
			}
			if r.Count > out[i].Count {
				r.Count += out[i].Count
				out[i] = r
			} else {
				out[i].Count += r.Count
			}
		}
	}
	sortReasons(out)
	return out
}

// insns builds the per-instruction table.
func (b *builder) insns() []Insn {
	var out []Insn
	for i, c := range b.r.insns {
		if c.zero() {
			continue
		}
		ln := b.lineOf[i]
		out = append(out, Insn{Insn: i, Text: b.p.Insns[i].String(), File: ln.File, Line: int(ln.Line), Counters: c, MissReasons: b.reasons[i]})
	}
	return out
}

// lineKey identifies a source line.
type lineKey struct {
	file string
	line uint32
}

// lines sums the instructions per source line.
func (b *builder) lines() []Line {
	idx := map[lineKey]int{}
	var out []Line
	var reasons [][][]Reason
	for i, c := range b.r.insns {
		ln := b.lineOf[i]
		if c.zero() || ln.Line == 0 {
			continue
		}
		k := lineKey{ln.File, ln.Line}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, Line{File: ln.File, Line: int(ln.Line), Source: ln.Source})
			reasons = append(reasons, nil)
		}
		out[j].Insns = append(out[j].Insns, i)
		out[j].add(c)
		reasons[j] = append(reasons[j], b.reasons[i])
	}
	for j := range out {
		out[j].MissReasons = mergeReasons(reasons[j]...)
	}
	slices.SortFunc(out, func(a, b Line) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return out
}

// subprogs sums the instructions per subprogram.
func (b *builder) subprogs() []Subprog {
	var out []Subprog
	for i, sp := range b.r.cfg.Subprogs {
		s := Subprog{Index: i, Name: b.funcName(sp.Start), Start: sp.Start, End: sp.End}
		if i < len(b.p.StackDepth) {
			s.StackDepth = b.p.StackDepth[i]
		}
		for j := sp.Start; j < sp.End; j++ {
			s.add(b.r.insns[j])
		}
		out = append(out, s)
	}
	return out
}

// funcName names the subprogram starting at start from the BTF func
// info, or "" without one.
func (b *builder) funcName(start int) string {
	for _, f := range b.p.Funcs {
		if f.Start == start {
			return f.Name
		}
	}
	return ""
}

// loops sums the instructions per loop.
func (b *builder) loops() []Loop {
	var out []Loop
	for i, l := range b.r.loops {
		ln := b.lineOf[l.Header]
		lp := Loop{SCC: l.SCC, Header: l.Header, File: ln.File, Line: int(ln.Line), Source: ln.Source, Size: len(l.Insns),
			Entries: b.r.entries[i], Iterations: b.r.iterations[i]}
		var reasons [][]Reason
		for _, j := range l.Insns {
			lp.add(b.r.insns[j])
			reasons = append(reasons, b.reasons[j])
		}
		lp.MissReasons = mergeReasons(reasons...)
		out = append(out, lp)
	}
	return out
}

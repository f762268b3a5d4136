package main

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vercheck/vercheck/loader"
)

const compareUsage = `usage: vercheck compare [flags] A B
       vercheck compare --policies P1,P2,... [flags] PATH...

Joins the rows of A and B (CSV files from vercheck or veristat, the
kernel's corpus CSV, or two objects verified now) by object and program,
and shows each figure's A and B value, difference and percent, like
veristat -C. Object paths are compared relative to each side's common
directory; two objects are joined by program name alone.

With --profile, A and B are two builds (objects, or vercheck --profile-out
files): per program joined by name, shows which source lines and loops grew
or shrank in visits, matched by their text since line numbers move, the
largest absolute change first (a table, or JSON with --format json).

With --policies, verifies each program once per pruning policy (one after
the other, so time and allocation are comparable) and shows each policy's
figures next to the first policy's. Policies are separated by commas, or by
semicolons when a policy has options of its own ("default;nodrop,free=end").

Filters (-f, repeatable): FIGURE OP VALUE, where FIGURE is a figure name
with an optional _a, _b, _diff or _pct suffix and OP one of < <= > >= = !=;
without a suffix a filter holds when it holds for A or for B. Any other
filter is a program-name glob, OBJECT/PROGRAM for an object glob too, and a
leading ! excludes. Sort (-s): FIGURE[_a|_b|_diff|_pct][:asc], largest
first unless :asc; file_name and prog_name sort by name.

Figures: verdict, total_insns (insn_processed, insns), max_states_per_insn,
total_states (states), peak_states (peak), duration (duration_us,
verification_time_usec), and from vercheck's own files hits, misses,
evictions, stack_depth.

Flags:
`

// Canonical figure names (veristat's).
const (
	figVerdict   = "verdict"
	figInsns     = "total_insns"
	figMaxStates = "max_states_per_insn"
	figStates    = "total_states"
	figPeak      = "peak_states"
	figDuration  = "duration"
	figHits      = "hits"
	figMisses    = "misses"
	figEvictions = "evictions"
	figStack     = "stack_depth"
	figFile      = "file_name"
	figProg      = "prog_name"
)

// figureAliases maps every accepted column or figure name to its
// canonical name: veristat's, vercheck's and the kernel corpus CSV's.
var figureAliases = map[string]string{
	"verdict": figVerdict, "total_insns": figInsns, "insn_processed": figInsns, "insns": figInsns,
	"max_states_per_insn": figMaxStates, "max_states": figMaxStates,
	"total_states": figStates, "states": figStates, "peak_states": figPeak, "peak": figPeak,
	"duration": figDuration, "duration_us": figDuration, "verification_time_usec": figDuration,
	"file_name": figFile, "object": figFile, "prog_name": figProg, "program": figProg,
	"hits": figHits, "misses": figMisses, "evictions": figEvictions, "stack_depth": figStack,
}

// defaultFigures are shown when -e is not given (veristat's default set).
var defaultFigures = []string{figVerdict, figInsns, figStates, figPeak, figDuration}

// record is one program's figures from one side, by canonical name.
type record struct {
	file, prog string
	values     map[string]string
}

// num returns a numeric figure, NaN when absent or not a number.
func (r *record) num(fig string) float64 {
	if r == nil {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(r.values[fig], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// normalizeVerdict maps veristat's and the kernel CSV's verdicts onto
// vercheck's.
func normalizeVerdict(v string) string {
	switch strings.ToLower(v) {
	case "success":
		return verdictAccepted
	case "failure":
		return verdictRejected
	}
	return v
}

// readRecords reads a CSV with a header naming its columns; copies of the
// header further down (CSVs of several shards concatenated) are skipped.
func readRecords(r io.Reader) ([]record, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read csv: %w", err)
	}
	if len(recs) == 0 {
		return nil, errors.New("read csv: empty file")
	}
	cols := make(map[int]string)
	for i, h := range recs[0] {
		if canon, ok := figureAliases[strings.TrimSpace(h)]; ok {
			if _, dup := cols[i]; !dup {
				cols[i] = canon
			}
		}
	}
	hasProg := false
	for _, c := range cols {
		hasProg = hasProg || c == figProg
	}
	if !hasProg {
		return nil, errors.New("read csv: no prog_name (or program) column")
	}
	var out []record
	for _, rec := range recs[1:] {
		if slices.Equal(rec, recs[0]) {
			continue // the header again: shard CSVs concatenated with cat
		}
		r := record{values: make(map[string]string)}
		for i, v := range rec {
			c, ok := cols[i]
			if !ok {
				continue
			}
			switch c {
			case figFile:
				r.file = v
			case figProg:
				r.prog = v
			case figVerdict:
				r.values[c] = normalizeVerdict(v)
			default:
				if _, set := r.values[c]; !set {
					r.values[c] = v
				}
			}
		}
		if r.prog == "" {
			continue // an object-level row (nothing loaded)
		}
		out = append(out, r)
	}
	return out, nil
}

// rowsToRecords turns verification rows into records, leaving out rows of
// unreadable objects.
func rowsToRecords(rows []row) []record {
	var out []record
	for _, r := range rows {
		if r.Program != "" {
			out = append(out, rowRecord(r))
		}
	}
	return out
}

// relativize rewrites each record's file relative to the common directory
// of all of them, so that runs from different working directories join.
func relativize(recs []record) {
	if len(recs) == 0 {
		return
	}
	common := filepath.Dir(filepath.Clean(recs[0].file))
	for _, r := range recs[1:] {
		for !isWithin(filepath.Clean(r.file), common) {
			parent := filepath.Dir(common)
			if parent == common {
				common = ""
				break
			}
			common = parent
		}
	}
	for i := range recs {
		if rel, err := filepath.Rel(common, filepath.Clean(recs[i].file)); err == nil && common != "" {
			recs[i].file = rel
		}
	}
}

func isWithin(file, dir string) bool {
	return dir == "." && !filepath.IsAbs(file) && !strings.HasPrefix(file, "..") ||
		dir == "/" && filepath.IsAbs(file) ||
		strings.HasPrefix(file, dir+string(filepath.Separator))
}

// pair is one joined program.
type pair struct {
	file, prog string
	a, b       *record
}

// join pairs records by program and object, in A's order then B's
// extras. Objects match by the longest common suffix of their paths, down
// to the base name: a veristat CSV of one folder ("bpf_lxc.o") joins a
// vercheck CSV of a tree ("cilium/bpf_lxc.o"). A B record whose best
// candidates tie (two A objects share the suffix) stays unjoined rather
// than joined by guess.
func join(as, bs []record) []pair {
	type key struct{ base, prog string }
	byBase := make(map[key][]int)
	out := make([]pair, 0, len(as))
	seen := make(map[[2]string]bool)
	for i := range as {
		id := [2]string{as[i].file, as[i].prog}
		if seen[id] {
			continue
		}
		seen[id] = true
		k := key{path.Base(filepath.ToSlash(as[i].file)), as[i].prog}
		byBase[k] = append(byBase[k], len(out))
		out = append(out, pair{file: as[i].file, prog: as[i].prog, a: &as[i]})
	}
	for i := range bs {
		b := &bs[i]
		best, bestLen, tie := -1, 0, false
		for _, j := range byBase[key{path.Base(filepath.ToSlash(b.file)), b.prog}] {
			if out[j].b != nil {
				continue
			}
			switch n := commonSuffix(out[j].file, b.file); {
			case n > bestLen:
				best, bestLen, tie = j, n, false
			case n == bestLen:
				tie = true
			}
		}
		if best >= 0 && !tie {
			out[best].b = b
			continue
		}
		out = append(out, pair{file: b.file, prog: b.prog, b: b})
	}
	return out
}

// commonSuffix counts the trailing path components x and y share.
func commonSuffix(x, y string) int {
	xs := strings.Split(filepath.ToSlash(x), "/")
	ys := strings.Split(filepath.ToSlash(y), "/")
	n := 0
	for n < len(xs) && n < len(ys) && xs[len(xs)-1-n] == ys[len(ys)-1-n] {
		n++
	}
	return n
}

// joinCounts says how many records of each side were joined.
func joinCounts(pairs []pair) (joined, onlyA, onlyB int) {
	for _, p := range pairs {
		switch {
		case p.a != nil && p.b != nil:
			joined++
		case p.a != nil:
			onlyA++
		default:
			onlyB++
		}
	}
	return joined, onlyA, onlyB
}

// Sides of a figure a filter or sort key can name.
const (
	sideEither = ""
	sideA      = "_a"
	sideB      = "_b"
	sideDiff   = "_diff"
	sidePct    = "_pct"
)

// value returns one side of a figure for p.
func (p pair) value(fig, side string) float64 {
	a, b := p.a.num(fig), p.b.num(fig)
	switch side {
	case sideA:
		return a
	case sideB:
		return b
	case sideDiff:
		return b - a
	case sidePct:
		return pct(a, b)
	}
	return math.NaN()
}

// pct is the change from a to b in percent; NaN when a is 0 and b is not.
func pct(a, b float64) float64 {
	if a == 0 {
		if b == 0 {
			return 0
		}
		return math.NaN()
	}
	return 100 * (b - a) / a
}

// figureRef is a figure and a side, parsed from "total_insns_diff".
type figureRef struct{ fig, side string }

func parseFigureRef(s string) (figureRef, error) {
	s = strings.TrimSpace(s)
	if c, ok := figureAliases[s]; ok {
		return figureRef{fig: c}, nil
	}
	for _, side := range []string{sideA, sideB, sideDiff, sidePct} {
		if base, ok := strings.CutSuffix(s, side); ok {
			if c, ok := figureAliases[base]; ok {
				return figureRef{fig: c, side: side}, nil
			}
		}
	}
	return figureRef{}, fmt.Errorf("unknown figure %q", s)
}

// filter is one -f argument.
type filter struct {
	// A figure comparison, with a number, a verdict or another figure
	// ("verdict_a!=verdict_b", "total_insns_b>total_insns_a")...
	ref   figureRef
	op    string
	num   float64
	str   string
	isNum bool
	rhs   *figureRef
	// ...or a glob on the program (and object) name.
	glob, fileGlob string
	deny           bool
}

// filterOps lists comparison operators, two-character ones first so that
// "<=" is not read as "<".
var filterOps = []string{"<=", ">=", "!=", "==", "<", ">", "="}

func parseFilter(s string) (filter, error) {
	for _, op := range filterOps {
		i := strings.Index(s, op)
		if i <= 0 {
			continue
		}
		ref, err := parseFigureRef(s[:i])
		if err != nil {
			return filter{}, fmt.Errorf("filter %q: %w", s, err)
		}
		f := filter{ref: ref, op: op, str: strings.TrimSpace(s[i+len(op):])}
		if op == "==" {
			f.op = "="
		}
		if rhs, err := parseFigureRef(f.str); err == nil {
			if rhs.fig != ref.fig && (rhs.fig == figVerdict || ref.fig == figVerdict) {
				return filter{}, fmt.Errorf("filter %q: a verdict compares only with a verdict", s)
			}
			f.rhs = &rhs
			return f, nil
		}
		if n, err := strconv.ParseFloat(f.str, 64); err == nil {
			f.num, f.isNum = n, true
		} else if ref.fig != figVerdict {
			return filter{}, fmt.Errorf("filter %q: %q is not a number", s, f.str)
		}
		return f, nil
	}
	f := filter{glob: s}
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		f.deny, f.glob = true, rest
	}
	if i := strings.LastIndex(f.glob, "/"); i >= 0 {
		f.fileGlob, f.glob = f.glob[:i], f.glob[i+1:]
	}
	for _, g := range []string{f.glob, f.fileGlob} {
		if _, err := path.Match(g, ""); err != nil {
			return filter{}, fmt.Errorf("filter %q: %w", s, err)
		}
	}
	return f, nil
}

func (f filter) isGlob() bool { return f.op == "" }

// matchGlob reports whether p's names match the glob (object globs match
// the path or its base name).
func (f filter) matchGlob(p pair) bool {
	if ok, _ := path.Match(f.glob, p.prog); !ok {
		return false
	}
	if f.fileGlob == "" {
		return true
	}
	full, _ := path.Match(f.fileGlob, filepath.ToSlash(p.file))
	base, _ := path.Match(f.fileGlob, filepath.Base(p.file))
	return full || base
}

// matchFigures compares two figures of p ("verdict_a!=verdict_b"); a
// figure without a side stands for A.
func (f filter) matchFigures(p pair) bool {
	side := func(r figureRef) figureRef {
		if r.side == sideEither {
			r.side = sideA
		}
		return r
	}
	l, r := side(f.ref), side(*f.rhs)
	if l.fig == figVerdict {
		a, b := p.verdict(l.side), p.verdict(r.side)
		if a == "" || b == "" {
			return false
		}
		return (a == b) == (f.op == "=")
	}
	g := f
	g.rhs, g.ref, g.isNum = nil, l, true
	g.num = p.value(r.fig, r.side)
	return !math.IsNaN(g.num) && g.matchFigure(p)
}

// matchFigure applies a figure comparison to one side (or either).
func (f filter) matchFigure(p pair) bool {
	if f.rhs != nil {
		return f.matchFigures(p)
	}
	if f.ref.side == sideEither {
		for _, side := range []string{sideA, sideB} {
			g := f
			g.ref.side = side
			if g.matchFigure(p) {
				return true
			}
		}
		return false
	}
	if !f.isNum {
		var rec *record
		switch f.ref.side {
		case sideA:
			rec = p.a
		case sideB:
			rec = p.b
		}
		if rec == nil {
			return false
		}
		eq := strings.EqualFold(rec.values[f.ref.fig], normalizeVerdict(f.str))
		return eq == (f.op != "!=")
	}
	v := p.value(f.ref.fig, f.ref.side)
	if math.IsNaN(v) {
		return false
	}
	switch f.op {
	case "<":
		return v < f.num
	case "<=":
		return v <= f.num
	case ">":
		return v > f.num
	case ">=":
		return v >= f.num
	case "!=":
		return v != f.num
	}
	return v == f.num
}

// applyFilters keeps pairs that pass every figure filter, match some
// allowing glob (when there is one) and no denying glob.
func applyFilters(pairs []pair, filters []filter) []pair {
	var out []pair
	for _, p := range pairs {
		keep, allowGlobs, allowed := true, false, false
		for _, f := range filters {
			switch {
			case !f.isGlob():
				keep = keep && f.matchFigure(p)
			case f.deny:
				keep = keep && !f.matchGlob(p)
			default:
				allowGlobs = true
				allowed = allowed || f.matchGlob(p)
			}
		}
		if keep && (!allowGlobs || allowed) {
			out = append(out, p)
		}
	}
	return out
}

// sortKey is one -s argument.
type sortKey struct {
	ref figureRef
	asc bool
	// abs sorts by the absolute value ("|total_insns_diff|"): the largest
	// changes either way first.
	abs bool
}

// parseSort reads sort keys: FIGURE, with a direction as veristat marks it
// (a leading or trailing ^ for ascending, v for descending) or after a
// colon (:asc, :desc), and |FIGURE| for the absolute value.
func parseSort(s string) ([]sortKey, error) {
	var keys []sortKey
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, dir, _ := strings.Cut(part, ":")
		var k sortKey
		switch {
		case strings.HasPrefix(name, "^") || strings.HasSuffix(name, "^"):
			name, dir = strings.Trim(name, "^"), "asc"
		case strings.HasSuffix(name, "v"):
			if _, err := parseFigureRef(name); err != nil {
				name, dir = strings.TrimSuffix(name, "v"), "desc"
			}
		case strings.HasPrefix(name, "v"):
			if _, err := parseFigureRef(name); err != nil {
				name, dir = strings.TrimPrefix(name, "v"), "desc"
			}
		}
		if inner, ok := strings.CutPrefix(name, "|"); ok && strings.HasSuffix(inner, "|") {
			name, k.abs = strings.TrimSuffix(inner, "|"), true
		}
		switch dir {
		case "", "desc":
		case "asc":
			k.asc = true
		default:
			return nil, fmt.Errorf("sort %q: direction %q (want asc or desc)", part, dir)
		}
		ref, err := parseFigureRef(name)
		if err != nil {
			return nil, fmt.Errorf("sort %q: %w", part, err)
		}
		if ref.side == sideEither {
			ref.side = sideA
		}
		if ref.fig == figFile || ref.fig == figProg {
			k.asc = dir != "desc"
		}
		k.ref = ref
		keys = append(keys, k)
	}
	return keys, nil
}

// sortPairs orders pairs by keys; missing values go last either way.
func sortPairs(pairs []pair, keys []sortKey) {
	slices.SortStableFunc(pairs, func(x, y pair) int {
		for _, k := range keys {
			var c int
			switch k.ref.fig {
			case figFile:
				c = cmp.Compare(x.file, y.file)
			case figProg:
				c = cmp.Compare(x.prog, y.prog)
			case figVerdict:
				c = cmp.Compare(x.verdict(k.ref.side), y.verdict(k.ref.side))
			default:
				vx, vy := x.value(k.ref.fig, k.ref.side), y.value(k.ref.fig, k.ref.side)
				if k.abs {
					vx, vy = math.Abs(vx), math.Abs(vy)
				}
				switch nx, ny := math.IsNaN(vx), math.IsNaN(vy); {
				case nx && ny:
					continue
				case nx:
					return 1
				case ny:
					return -1
				}
				c = cmp.Compare(vx, vy)
			}
			if !k.asc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
}

func (p pair) verdict(side string) string {
	rec := p.a
	if side == sideB {
		rec = p.b
	}
	if rec == nil {
		return ""
	}
	return rec.values[figVerdict]
}

// cell renders A, B and the difference of one figure.
func (p pair) cells(fig string) (a, b, diff string) {
	get := func(r *record) string {
		if r == nil {
			return "-"
		}
		if v, ok := r.values[fig]; ok && v != "" {
			return v
		}
		return "-"
	}
	a, b = get(p.a), get(p.b)
	if fig == figVerdict {
		switch {
		case p.a == nil || p.b == nil:
			return a, b, "-"
		case a == b:
			return a, b, "MATCH"
		}
		return a, b, "MISMATCH"
	}
	va, vb := p.a.num(fig), p.b.num(fig)
	if math.IsNaN(va) || math.IsNaN(vb) {
		return a, b, "-"
	}
	if q := pct(va, vb); !math.IsNaN(q) {
		return a, b, fmt.Sprintf("%+g (%+.2f%%)", vb-va, q)
	}
	return a, b, fmt.Sprintf("%+g", vb-va)
}

// figureTitles are the table headings of the figures.
var figureTitles = map[string]string{
	figVerdict: "Verdict", figInsns: "Insns", figMaxStates: "Max states/insn",
	figStates: "States", figPeak: "Peak states", figDuration: "Duration (us)",
}

func writeCompareTable(w io.Writer, pairs []pair, figs []string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := []string{"File", "Program"}
	for _, f := range figs {
		t := figureTitles[f]
		head = append(head, t+" (A)", t+" (B)", t+" (DIFF)")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, p := range pairs {
		cols := []string{p.file, p.prog}
		for _, f := range figs {
			a, b, d := p.cells(f)
			cols = append(cols, a, b, d)
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	tw.Flush()
}

func writeCompareCSV(w io.Writer, pairs []pair, figs []string) error {
	cw := csv.NewWriter(w)
	head := []string{figFile, figProg}
	for _, f := range figs {
		head = append(head, f+sideA, f+sideB, f+sideDiff)
	}
	if err := cw.Write(head); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	for _, p := range pairs {
		rec := []string{p.file, p.prog}
		for _, f := range figs {
			a, b, d := p.cells(f)
			rec = append(rec, a, b, d)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	return cw.Error()
}

// compareJSON is one joined program in compare's JSON output: per figure
// the A and B values as the inputs have them and the difference ("MATCH"
// or "MISMATCH" for verdicts), "-" where a side has none.
type compareJSON struct {
	File    string                       `json:"file_name"`
	Program string                       `json:"prog_name"`
	Figures map[string]compareJSONFigure `json:"figures"`
}

type compareJSONFigure struct {
	A    string `json:"a"`
	B    string `json:"b"`
	Diff string `json:"diff"`
}

func writeCompareJSON(w io.Writer, pairs []pair, figs []string) error {
	out := make([]compareJSON, 0, len(pairs))
	for _, p := range pairs {
		c := compareJSON{File: p.file, Program: p.prog, Figures: make(map[string]compareJSONFigure, len(figs))}
		for _, f := range figs {
			a, b, d := p.cells(f)
			c.Figures[f] = compareJSONFigure{a, b, d}
		}
		out = append(out, c)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, " ") }

func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("vercheck compare", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, compareUsage)
		fset.PrintDefaults()
	}
	var common commonFlags
	common.register(fset)
	var filterArgs listFlag
	fset.Var(&filterArgs, "f", "filter: FIGURE OP VALUE, or a [OBJECT/]PROGRAM glob, ! to exclude (repeatable)")
	sortArg := fset.String("s", "", "sort keys: FIGURE[_a|_b|_diff|_pct][:asc], comma-separated")
	figArg := fset.String("e", strings.Join(defaultFigures, ","), "figures to show, comma-separated")
	format := fset.String("format", "table", "output format: table, csv or json")
	policies := fset.String("policies", "", "compare pruning policies on the given objects instead of two inputs")
	profileDiff := fset.Bool("profile", false, "compare the profiles of two builds (objects or --profile-out files): which source lines and loops grew or shrank in visits, per program")
	profileTop := fset.Int("profile-top", 20, "rows per program with --profile (0: all)")
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitAccepted
		}
		return exitUsage
	}
	if *format != "table" && *format != "csv" && *format != "json" {
		fmt.Fprintf(stderr, "vercheck compare: unknown format %q (want table, csv or json)\n", *format)
		return exitUsage
	}
	var filters []filter
	for _, a := range filterArgs {
		f, err := parseFilter(a)
		if err != nil {
			fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
			return exitUsage
		}
		filters = append(filters, f)
	}
	keys, err := parseSort(*sortArg)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
		return exitUsage
	}
	var figs []string
	for name := range strings.SplitSeq(*figArg, ",") {
		ref, err := parseFigureRef(name)
		if err != nil || ref.side != sideEither || ref.fig == figFile || ref.fig == figProg {
			fmt.Fprintf(stderr, "vercheck compare: -e: unknown figure %q\n", name)
			return exitUsage
		}
		figs = append(figs, ref.fig)
	}
	if *policies != "" {
		out := policyOutput{keys: keys, figs: figs, format: *format}
		return runPolicies(*policies, fset.Args(), common, filters, out, stdout, stderr)
	}
	if fset.NArg() != 2 {
		fmt.Fprintln(stderr, "vercheck compare: want two inputs (CSV files or objects)")
		fset.Usage()
		return exitUsage
	}
	if *profileDiff {
		return runProfileCompare(fset.Args(), common, *format, *profileTop, stdout, stderr)
	}

	sides := make([][]record, 2)
	objects := 0
	for i, in := range fset.Args() {
		recs, isObject, err := readInput(in, common)
		if err != nil {
			fmt.Fprintf(stderr, "vercheck compare: %s: %v\n", in, err)
			return exitUsage
		}
		if isObject {
			objects++
		}
		sides[i] = recs
	}
	for i := range sides {
		if objects == len(sides) {
			// Two objects: the same programs under different file names.
			for j := range sides[i] {
				sides[i][j].file = ""
			}
			continue
		}
		relativize(sides[i])
	}
	all := join(sides[0], sides[1])
	joined, onlyA, onlyB := joinCounts(all)
	fmt.Fprintf(stderr, "vercheck compare: joined %d of %d programs; %d only in A, %d only in B\n", joined, len(all), onlyA, onlyB)
	pairs := applyFilters(all, filters)
	sortPairs(pairs, keys)
	var err2 error
	switch *format {
	case "csv":
		err2 = writeCompareCSV(stdout, pairs, figs)
	case "json":
		err2 = writeCompareJSON(stdout, pairs, figs)
	default:
		writeCompareTable(stdout, pairs, figs)
	}
	if err2 != nil {
		fmt.Fprintf(stderr, "vercheck compare: %v\n", err2)
		return exitUsage
	}
	return exitAccepted
}

// readInput reads a CSV file, or verifies an object (or directory) now.
func readInput(in string, common commonFlags) ([]record, bool, error) {
	if strings.EqualFold(filepath.Ext(in), ".csv") {
		f, err := os.Open(in)
		if err != nil {
			return nil, false, err
		}
		defer f.Close()
		recs, err := readRecords(f)
		return recs, false, err
	}
	opts, err := common.options()
	if err != nil {
		return nil, true, err
	}
	files, err := loader.FindObjects([]string{in})
	if err != nil {
		return nil, true, err
	}
	rows, unreadable := verifyAll(files, runConfig{opts: opts, jobs: common.jobs})
	if len(unreadable) > 0 && len(rowsToRecords(rows)) == 0 {
		return nil, true, errors.New(rows[0].Error)
	}
	return rowsToRecords(rows), true, nil
}

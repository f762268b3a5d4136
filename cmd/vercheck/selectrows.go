package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// selection is veristat's -e, -f, -s and -n for the main mode: which
// programs, in which order, how many, with which columns.
type selection struct {
	filters []filter
	keys    []sortKey
	// limit is -n: at most this many rows (0: all).
	limit int
	// columns is -e: the figures to show (nil: the usual table).
	columns []string
}

// parseSelection reads the flags into a selection.
func parseSelection(filterArgs []string, sortArg, columnsArg string, limit int) (selection, error) {
	sel := selection{limit: limit}
	if limit < 0 {
		return sel, fmt.Errorf("-n %d: want a count", limit)
	}
	for _, a := range filterArgs {
		f, err := parseFilter(a)
		if err != nil {
			return sel, err
		}
		if !f.isGlob() && f.ref.side != sideEither && f.ref.side != sideA {
			return sel, fmt.Errorf("filter %q: a single run has no %s side", a, f.ref.side)
		}
		sel.filters = append(sel.filters, f)
	}
	keys, err := parseSort(sortArg)
	if err != nil {
		return sel, err
	}
	for _, k := range keys {
		if k.ref.side != sideA {
			return sel, fmt.Errorf("sort %q: a single run has no %s side", sortArg, k.ref.side)
		}
	}
	sel.keys = keys
	if columnsArg != "" {
		for name := range strings.SplitSeq(columnsArg, ",") {
			ref, err := parseFigureRef(name)
			if err != nil || ref.side != sideEither {
				return sel, fmt.Errorf("-e: unknown column %q", name)
			}
			sel.columns = append(sel.columns, ref.fig)
		}
	}
	return sel, nil
}

// active reports whether the selection changes which rows are shown.
func (s selection) active() bool {
	return len(s.filters) > 0 || len(s.keys) > 0 || s.limit > 0
}

// apply returns the selected rows. Rows of unreadable objects have no
// figures: they pass no figure filter and sort last.
func (s selection) apply(rows []row) []row {
	if !s.active() {
		return rows
	}
	pairs := make([]pair, len(rows))
	byPair := make(map[*record]row, len(rows))
	for i, r := range rows {
		rec := rowRecord(r)
		pairs[i] = pair{file: r.File, prog: r.Program, a: &rec}
		byPair[&rec] = r
	}
	pairs = applyFilters(pairs, s.filters)
	sortPairs(pairs, s.keys)
	if s.limit > 0 && len(pairs) > s.limit {
		pairs = pairs[:s.limit]
	}
	out := make([]row, len(pairs))
	for i, p := range pairs {
		out[i] = byPair[p.a]
	}
	return out
}

// rowRecord is a row's figures by canonical name.
func rowRecord(r row) record {
	values := map[string]string{figFile: r.File, figProg: r.Program, figVerdict: r.Verdict}
	if r.Program != "" {
		values[figInsns] = strconv.Itoa(r.Insns)
		values[figMaxStates] = strconv.Itoa(r.MaxStates)
		values[figStates] = strconv.Itoa(r.States)
		values[figPeak] = strconv.Itoa(r.Peak)
		values[figDuration] = strconv.FormatInt(r.Duration, 10)
		values[figHits] = strconv.Itoa(r.Hits)
		values[figMisses] = strconv.Itoa(r.Misses)
		values[figEvictions] = strconv.Itoa(r.Evictions)
		values[figStack] = strconv.Itoa(r.StackDepth)
	}
	return record{file: r.File, prog: r.Program, values: values}
}

// writeColumns prints the chosen columns of rows, as a table or as CSV.
func writeColumns(w io.Writer, rows []row, columns []string, csvOut bool) error {
	if csvOut {
		recs := make([][]string, 0, len(rows)+1)
		recs = append(recs, columns)
		for _, r := range rows {
			recs = append(recs, columnValues(r, columns))
		}
		cw := csv.NewWriter(w)
		if err := cw.WriteAll(recs); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(columns, "\t")))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(columnValues(r, columns), "\t"))
	}
	return tw.Flush()
}

func columnValues(r row, columns []string) []string {
	rec := rowRecord(r)
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = rec.values[c]
	}
	return out
}

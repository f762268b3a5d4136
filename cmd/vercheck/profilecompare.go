package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/profile"
)

// profileCompareFile is the JSON of vercheck compare --profile.
type profileCompareFile struct {
	Version  int                  `json:"version"`
	Programs []profile.Comparison `json:"programs"`
}

// runProfileCompare is vercheck compare --profile A B: per program joined
// by name, which source lines and loops grew or shrank in visits from
// build A to build B, the largest absolute change first. A and B are
// objects (verified now, with a profile) or --profile-out files.
func runProfileCompare(inputs []string, common commonFlags, format string, top int, stdout, stderr io.Writer) int {
	if format == "csv" {
		fmt.Fprintln(stderr, "vercheck compare: --profile writes a table or JSON")
		return exitUsage
	}
	var sides [2]map[string]*profile.Profile
	for i, in := range inputs {
		profs, err := readProfiles(in, common)
		if err != nil {
			fmt.Fprintf(stderr, "vercheck compare: %s: %v\n", in, err)
			return exitUsage
		}
		sides[i] = profs
	}
	out := profileCompareFile{Version: profileVersion, Programs: []profile.Comparison{}}
	onlyA, onlyB := 0, 0
	for _, name := range sortedKeys(sides[0]) {
		b, ok := sides[1][name]
		if !ok {
			onlyA++
			continue
		}
		out.Programs = append(out.Programs, profile.Compare(name, sides[0][name], b))
	}
	for name := range sides[1] {
		if _, ok := sides[0][name]; !ok {
			onlyB++
		}
	}
	fmt.Fprintf(stderr, "vercheck compare: joined %d programs; %d only in A, %d only in B\n", len(out.Programs), onlyA, onlyB)
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", " ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "vercheck compare: %v\n", err)
			return exitUsage
		}
		return exitAccepted
	}
	writeProfileChanges(stdout, out.Programs, top)
	return exitAccepted
}

// readProfiles returns the profile of every program of in, by name: a
// --profile-out file, or objects verified now with profiling on.
func readProfiles(in string, common commonFlags) (map[string]*profile.Profile, error) {
	out := map[string]*profile.Profile{}
	if strings.EqualFold(filepath.Ext(in), ".json") {
		data, err := os.ReadFile(in)
		if err != nil {
			return nil, err
		}
		var f profileFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("not a --profile-out file: %w", err)
		}
		for _, r := range f.Programs {
			out[r.Program] = r.Profile
		}
		return out, nil
	}
	opts, err := common.options()
	if err != nil {
		return nil, err
	}
	opts.Verifier.Profile = true
	files, err := loader.FindObjects([]string{in})
	if err != nil {
		return nil, err
	}
	rows, _ := verifyAll(files, runConfig{opts: opts, jobs: common.jobs})
	for _, r := range rows {
		if r.Program != "" {
			out[r.Program] = r.Profile
		}
	}
	if len(out) == 0 && len(rows) > 0 {
		return nil, fmt.Errorf("no program: %s", rows[0].Error)
	}
	return out, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// writeProfileChanges prints, per program, its insn_processed in A and B
// and its top changed lines and loops.
func writeProfileChanges(w io.Writer, comps []profile.Comparison, top int) {
	for _, c := range comps {
		fmt.Fprintf(w, "%s: insn_processed %d -> %d (%+d)\n", c.Program, c.InsnProcessedA, c.InsnProcessedB, c.InsnProcessedB-c.InsnProcessedA)
		if len(c.Changes) == 0 {
			fmt.Fprintln(w, "  no line or loop changed in visits")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  DIFF\tVISITS_A\tVISITS_B\tSTATES_A\tSTATES_B\tKIND\tLINE A→B\tSOURCE")
		for i, ch := range c.Changes {
			if top > 0 && i == top {
				fmt.Fprintf(tw, "  …\t\t\t\t\t%d more\t\t\n", len(c.Changes)-top)
				break
			}
			fmt.Fprintf(tw, "  %+d\t%d\t%d\t%d\t%d\t%s\t%s:%s→%s\t%s\n", ch.Diff, ch.VisitsA, ch.VisitsB, ch.StatesA, ch.StatesB,
				ch.Kind, ch.File, profile.LinesText(ch.LinesA), profile.LinesText(ch.LinesB), ch.Source)
		}
		tw.Flush()
	}
}

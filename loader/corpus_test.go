package loader

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// corpusDir finds the shared corpus: /work/shared/corpus or ../../shared
// relative to the package directory.
func corpusDir(t *testing.T) string {
	t.Helper()
	for _, dir := range []string{"/work/shared/corpus", filepath.Join("..", "..", "shared", "corpus")} {
		if _, err := os.Stat(filepath.Join(dir, "kernel-6.18.csv")); err == nil {
			return dir
		}
	}
	t.Skip("shared corpus not found")
	return ""
}

type csvRow struct {
	object, section, program, progType, verdict string
	insnCount                                   int
}

func readKernelCSV(t *testing.T, dir string) []csvRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "kernel-6.18.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := make(map[string]int)
	for i, name := range recs[0] {
		col[name] = i
	}
	var rows []csvRow
	for _, r := range recs[1:] {
		n, _ := strconv.Atoi(r[col["insn_count"]])
		rows = append(rows, csvRow{
			object: r[col["object"]], section: r[col["section"]], program: r[col["program"]],
			progType: r[col["prog_type"]], verdict: r[col["verdict"]], insnCount: n,
		})
	}
	return rows
}

// TestKernelCorpus checks that every object the kernel verified (accepted or
// rejected) loads with the same programs, types and instruction counts.
func TestKernelCorpus(t *testing.T) {
	dir := corpusDir(t)
	rows := readKernelCSV(t, dir)
	want := make(map[string][]string) // object -> "section program type insns"
	for _, r := range rows {
		if r.verdict != "accepted" && r.verdict != "rejected" {
			continue
		}
		want[r.object] = append(want[r.object], fmt.Sprintf("%s %s %s %d", r.section, r.program, r.progType, r.insnCount))
	}
	objects := make([]string, 0, len(want))
	for o := range want {
		objects = append(objects, o)
	}
	slices.Sort(objects)
	for _, o := range objects {
		t.Run(o, func(t *testing.T) {
			obj, err := Open(filepath.Join(dir, o), Options{})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			got := make([]string, 0, len(obj.Programs))
			found := make(map[string]bool)
			for _, p := range obj.Programs {
				found[p.Name] = true
			}
			for _, p := range obj.Programs {
				if !slices.ContainsFunc(want[o], func(s string) bool { return slices.Contains(splitFields(s), p.Name) }) {
					continue
				}
				got = append(got, fmt.Sprintf("%s %s %s %d", p.Section, p.Name, p.Type, rawLen(p)))
			}
			w := slices.Sorted(slices.Values(want[o]))
			slices.Sort(got)
			if diff := cmp.Diff(w, got); diff != "" {
				t.Errorf("programs mismatch (-want +got):\n%s", diff)
			}
			for _, p := range obj.Programs {
				if p.Err != nil && found[p.Name] && slices.ContainsFunc(want[o], func(s string) bool { return splitFields(s)[1] == p.Name }) {
					t.Errorf("program %s: %v", p.Name, p.Err)
				}
			}
		})
	}
}

func splitFields(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func rawLen(p *Program) int {
	n := 0
	for i := range p.Instructions {
		n += int(p.Instructions[i].Width())
	}
	return n
}

// TestCorpusNoPanic opens every file of the corpus, including the malformed
// ones: each either loads or returns an error that names the file.
func TestCorpusNoPanic(t *testing.T) {
	dir := corpusDir(t)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) == ".csv" || filepath.Ext(path) == ".md" || filepath.Ext(path) == ".json" {
			return err
		}
		_, oerr := Open(path, Options{})
		if oerr != nil && !errors.Is(oerr, os.ErrNotExist) {
			if msg := oerr.Error(); len(msg) < len(path) || msg[:len(path)] != path {
				t.Errorf("%s: error does not name the file: %v", path, oerr)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCorpusDetails(t *testing.T) {
	dir := corpusDir(t)
	type mapInfo struct {
		Name, Inner string
		ReadOnly    bool
		Contents    int
	}
	tests := []struct {
		object   string
		program  string
		funcs    []Func
		warnings []string // must all appear
		maps     []mapInfo
	}{
		{
			object:  "cilium-ebpf-testdata/loader-clang-22-el.elf",
			program: "xdp_prog",
			funcs: []Func{
				{Start: 0, Name: "xdp_prog", Global: true}, {Start: 32, Name: "global_fn", Global: true},
				{Start: 44, Name: "static_fn"}, {Start: 47, Name: "global_fn2", Global: true},
				{Start: 50, Name: "global_fn3", Global: true},
			},
			maps: []mapInfo{
				{Name: ".bss", Contents: 4}, {Name: ".data", Contents: 4}, {Name: ".data.test", Contents: 4},
				{Name: ".rodata", ReadOnly: true, Contents: 24}, {Name: ".rodata.cst32", ReadOnly: true, Contents: 32},
				{Name: ".rodata.test", ReadOnly: true, Contents: 4}, {Name: "bpf_decl_map"}, {Name: "btf_decl_map"},
				{Name: "btf_outer_map", Inner: "btf_outer_map_inner"}, {Name: "btf_outer_map_anon", Inner: "btf_outer_map_anon_inner"},
				{Name: "btf_pin"}, {Name: "btf_typedef_map"}, {Name: "hash_map"}, {Name: "hash_map2"}, {Name: "perf_event_array"},
			},
		},
		{
			object:  "ebpf-samples/linux/test_map_in_map_kern.o",
			program: "trace_sys_connect",
			warnings: []string{
				"ELF: filled 8 zero st_size symbols",
				"a_of_port_a: inner map = port_a (legacy map def)",
				"h_of_port_h: dropped bpf_map_def tail (inner_map_idx=1 numa_node=0)",
				"h_of_port_h: inner map = port_h (legacy map def)",
			},
			maps: []mapInfo{
				{Name: "a_of_port_a", Inner: "port_a"}, {Name: "h_of_port_a", Inner: "port_a"},
				{Name: "h_of_port_h", Inner: "port_h"}, {Name: "inline_result_h"}, {Name: "port_a"},
				{Name: "port_h"}, {Name: "reg_result_h"},
			},
		},
		{
			object:  "ebpf-samples/cilium/bpf_lb.o",
			program: "from_netdev",
			warnings: []string{
				"ELF: filled 18 zero st_size symbols",
				"cilium_calls_111: dropped iproute2 bpf_elf_map tail (id=2 pinning=2 inner_id=0)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.object, func(t *testing.T) {
			obj, err := Open(filepath.Join(dir, tt.object), Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.warnings {
				if !slices.Contains(obj.Warnings, w) {
					t.Errorf("missing warning %q in %q", w, obj.Warnings)
				}
			}
			if tt.maps != nil {
				var got []mapInfo
				for _, m := range obj.Maps {
					mi := mapInfo{Name: m.Name, ReadOnly: m.ReadOnly, Contents: len(m.Contents)}
					if m.Inner != nil {
						mi.Inner = m.Inner.Name
					}
					got = append(got, mi)
				}
				if diff := cmp.Diff(tt.maps, got); diff != "" {
					t.Errorf("maps mismatch (-want +got):\n%s", diff)
				}
			}
			i := slices.IndexFunc(obj.Programs, func(p *Program) bool { return p.Name == tt.program })
			if i < 0 {
				t.Fatalf("program %s not found", tt.program)
			}
			p := obj.Programs[i]
			if p.Err != nil {
				t.Fatalf("program error: %v", p.Err)
			}
			if tt.funcs != nil {
				if diff := cmp.Diff(tt.funcs, p.Funcs, cmpopts.IgnoreFields(Func{}, "BTF")); diff != "" {
					t.Errorf("funcs mismatch (-want +got):\n%s", diff)
				}
			}
			if p.Lines.Len() > 0 && p.Lines.Len() != rawLen(p) {
				t.Errorf("len(Lines) = %d, want %d raw slots", p.Lines.Len(), rawLen(p))
			}
			// Every map reference must name a valid map index.
			for _, ins := range p.Instructions {
				if ins.IsLoadFromMap() {
					if idx := int(uint32(ins.Constant)); idx >= len(obj.Maps) {
						t.Errorf("%v: map index %d out of range", ins, idx)
					}
				}
			}
		})
	}
}

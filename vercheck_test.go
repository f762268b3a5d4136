package vercheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// hashMap is the map every test program looks up.
func hashMap() *ebpf.MapSpec {
	return &ebpf.MapSpec{Name: "table", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 16}
}

// lookupInsns looks up key 0 in map ref and reads the value, testing it for
// NULL first when checked.
func lookupInsns(ref string, checked bool) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -4, asm.R1, asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.LoadMapPtr(asm.R1, 0).WithReference(ref),
		asm.FnMapLookupElem.Call(),
	}
	if checked {
		insns = append(insns, asm.JEq.Imm(asm.R0, 0, "out"))
	}
	insns = append(insns, asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord))
	if checked {
		insns = append(insns, asm.Return(), asm.Mov.Imm(asm.R0, 0).WithSymbol("out"))
	}
	return append(insns, asm.Return())
}

func progSpec(name string, insns asm.Instructions) *ebpf.ProgramSpec {
	return &ebpf.ProgramSpec{Name: name, Type: ebpf.SocketFilter, License: "GPL", Instructions: insns}
}

// testPrograms are small programs with known kernel verdicts.
func testPrograms() map[string]*ebpf.ProgramSpec {
	return map[string]*ebpf.ProgramSpec{
		"ok":        progSpec("ok", asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}),
		"no_r0":     progSpec("no_r0", asm.Instructions{asm.Return()}),
		"checked":   progSpec("checked", lookupInsns("table", true)),
		"unchecked": progSpec("unchecked", lookupInsns("table", false)),
	}
}

// outcome is what a test compares of one result.
type outcome struct {
	Program  string
	Verdict  string
	Insns    int
	Insn     int
	Msg      string
	Rejected bool
}

func outcomeOf(r *verifier.Result) outcome {
	o := outcome{Program: r.Program, Verdict: r.Verdict(), Insns: r.Stats.InsnProcessed}
	var re *verifier.RejectError
	if errors.As(r.Err, &re) {
		o.Insn, o.Msg, o.Rejected = re.Insn, re.Msg, true
	}
	return o
}

func TestVerifyCollectionSpec(t *testing.T) {
	tests := []struct {
		name    string
		progs   []string
		want    []outcome
		wantErr []string // programs named by the joined error
	}{
		{
			name:  "all accepted",
			progs: []string{"ok", "checked"},
			want: []outcome{
				{Program: "checked", Verdict: "accepted", Insns: 11},
				{Program: "ok", Verdict: "accepted", Insns: 2},
			},
		},
		{
			name:  "rejections are joined",
			progs: []string{"ok", "no_r0", "unchecked"},
			want: []outcome{
				{Program: "no_r0", Verdict: "rejected", Insns: 1, Msg: "R0 !read_ok", Rejected: true},
				{Program: "ok", Verdict: "accepted", Insns: 2},
				{Program: "unchecked", Verdict: "rejected", Insns: 7, Insn: 7, Msg: "R0 invalid mem access 'map_value_or_null'", Rejected: true},
			},
			wantErr: []string{"no_r0", "unchecked"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := testPrograms()
			spec := &ebpf.CollectionSpec{Maps: map[string]*ebpf.MapSpec{"table": hashMap()}, Programs: map[string]*ebpf.ProgramSpec{}}
			for _, p := range tt.progs {
				spec.Programs[p] = all[p]
			}
			results, err := VerifyCollectionSpec(spec, &Options{Parallel: 2})
			var got []outcome
			for _, r := range results {
				got = append(got, outcomeOf(r))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("results mismatch (-want +got):\n%s", diff)
			}
			var gotErr []string
			for _, e := range unjoin(err) {
				var pe *ProgramError
				if !errors.As(e, &pe) {
					t.Fatalf("error %v is not a *ProgramError", e)
				}
				gotErr = append(gotErr, pe.Program)
			}
			if diff := cmp.Diff(tt.wantErr, gotErr); diff != "" {
				t.Errorf("error programs mismatch (-want +got):\n%s", diff)
			}
			if err != nil {
				var re *verifier.RejectError
				if !errors.As(err, &re) {
					t.Errorf("errors.As(%v, *verifier.RejectError) = false", err)
				}
			}
		})
	}
}

// unjoin splits an errors.Join error.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestVerifyBadInput(t *testing.T) {
	if _, err := VerifyCollectionSpec(nil, nil); err == nil {
		t.Error("VerifyCollectionSpec(nil) succeeded")
	}
	if _, err := VerifyProgramSpec(nil, nil, nil); err == nil {
		t.Error("VerifyProgramSpec(nil) succeeded")
	}
	// A reference to a map that is not given cannot be prepared.
	res, err := VerifyProgramSpec(progSpec("p", lookupInsns("nowhere", true)), nil, nil)
	if err == nil || (res != nil && res.Accepted) {
		t.Errorf("VerifyProgramSpec with a missing map = %v, %v; want an error", res, err)
	}
}

// fakeMap stands in for a live *ebpf.Map bound to an instruction.
type fakeMap struct{ typ ebpf.MapType }

func (fakeMap) FD() int              { return -1 }
func (m fakeMap) Type() ebpf.MapType { return m.typ }
func (fakeMap) KeySize() uint32      { return 4 }
func (fakeMap) ValueSize() uint32    { return 8 }
func (fakeMap) MaxEntries() uint32   { return 16 }
func (fakeMap) Flags() uint32        { return 0 }

func TestVerifyProgramSpecBoundMap(t *testing.T) {
	tests := []struct {
		name    string
		checked bool
		want    outcome
	}{
		{"checked", true, outcome{Program: "bound", Verdict: "accepted", Insns: 11}},
		{"unchecked", false, outcome{Program: "bound", Verdict: "rejected", Insns: 7, Insn: 7,
			Msg: "R0 invalid mem access 'map_value_or_null'", Rejected: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			insns := lookupInsns("", tt.checked)
			if err := insns[4].AssociateMap(fakeMap{ebpf.Hash}); err != nil {
				t.Fatal(err)
			}
			spec := progSpec("bound", insns)
			res, err := VerifyProgramSpec(spec, nil, nil)
			if res == nil {
				t.Fatalf("VerifyProgramSpec: %v", err)
			}
			if diff := cmp.Diff(tt.want, outcomeOf(res)); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
			if (err == nil) != tt.checked {
				t.Errorf("error = %v, want one only for the unchecked program", err)
			}
			if ref := spec.Instructions[4].Reference(); ref != "" {
				t.Errorf("caller's spec modified: reference %q", ref)
			}
		})
	}
}

// TestAgainstKernel checks the test programs' verdicts and insn_processed
// against the running kernel.
func TestAgainstKernel(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	spec := &ebpf.CollectionSpec{Maps: map[string]*ebpf.MapSpec{"table": hashMap()}, Programs: testPrograms()}
	kres, err := kernel.LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	results, _ := VerifyCollectionSpec(spec, nil)
	type figures struct {
		Program  string
		Accepted bool
		Insns    int
	}
	var want, got []figures
	for _, k := range kres {
		want = append(want, figures{k.Program, k.Accepted, k.InsnProcessed})
	}
	for _, r := range results {
		got = append(got, figures{r.Program, r.Accepted, r.Stats.InsnProcessed})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("vercheck vs kernel (-kernel +vercheck):\n%s", diff)
	}
}

// TestStableFixProbes: vercheck models each stable fix both ways: the
// fix's probe program is rejected where the fix is applied and accepted
// where the target kernel lacks it, which is what stablefix.Probe reads
// from the running kernel.
func TestStableFixProbes(t *testing.T) {
	for _, f := range stablefix.All() {
		t.Run(f.String(), func(t *testing.T) {
			// Fixes that would refuse the probe either way stay out.
			masked := stablefix.ProbeMasked(f)
			for _, missing := range []stablefix.Set{masked, masked.Union(stablefix.Of(f))} {
				opts := &Options{Verifier: verifier.Options{MissingFixes: missing}}
				spec, err := stablefix.ProbeProgram(f)
				if err != nil {
					t.Skipf("no probe here: %v", err)
				}
				results, err := VerifyCollectionSpec(spec, opts)
				if len(results) != 1 {
					t.Fatalf("missing %v: %d results (%v)", missing, len(results), err)
				}
				if figure, got, n := probeFigure(f, results[0]); n != 0 {
					// Accepted either way; insn_processed or the
					// rewritten length tells.
					if !results[0].Accepted {
						t.Errorf("missing %v: refused (%v); want an accept", missing, results[0].Err)
						continue
					}
					if (got == n) == missing.Has(f) {
						t.Errorf("missing %v: %s %d, want %v %d", missing, figure, got, map[bool]string{true: "other than", false: ""}[missing.Has(f)], n)
					}
					continue
				}
				if errno := stablefix.ProbeErrno(f); errno != 0 {
					// Refused either way; the errno tells.
					if results[0].Accepted {
						t.Errorf("missing %v: accepted; want a refusal", missing)
						continue
					}
					if got := results[0].Errno(); (got == errno) == missing.Has(f) {
						t.Errorf("missing %v: errno %v, want %v %v", missing, got, map[bool]string{true: "other than", false: ""}[missing.Has(f)], errno)
					}
					continue
				}
				if msg := stablefix.ProbeMessage(f); msg != "" {
					// Refused either way; the message tells.
					got := results[0].Err
					if results[0].Accepted || got == nil || strings.Contains(got.Error(), msg) == missing.Has(f) {
						t.Errorf("missing %v: accepted %v, error %v; want a refusal %s %q", missing, results[0].Accepted, got, map[bool]string{true: "without", false: "with"}[missing.Has(f)], msg)
					}
					continue
				}
				if got, want := results[0].Accepted, missing.Has(f); got != want {
					t.Errorf("missing %v: accepted %v, want %v (%v)", missing, got, want, err)
				}
			}
		})
	}
}

// probeFigure returns, for a fix whose probe every build accepts, the
// figure that tells the builds apart, its value in res and its value on a
// kernel with the fix (0 for the other fixes).
func probeFigure(f stablefix.Fix, res *verifier.Result) (figure string, got, want int) {
	if n := stablefix.ProbeInsns(f); n != 0 {
		return "insns processed", res.Stats.InsnProcessed, n
	}
	return "rewritten length", res.Stats.XlatedInsns, stablefix.ProbeXlated(f)
}

// TestVerifyProgramSpecUnboundMapLoad checks that a map load naming no map
// (no Reference, no AssociateMap) is a raw file descriptor, as cilium/ebpf
// hands it to the kernel, and not an index into the maps given: both are
// rejected with the kernel's message, by vercheck and by the running kernel.
func TestVerifyProgramSpecUnboundMapLoad(t *testing.T) {
	valueLoad := asm.Instructions{asm.LoadMapValue(asm.R1, 0, 0), asm.LoadMem(asm.R0, asm.R1, 0, asm.DWord), asm.Return()}
	tests := []struct {
		name  string
		insns asm.Instructions
		want  outcome
	}{
		{"map_fd", lookupInsns("", true), outcome{Program: "raw", Verdict: "rejected", Insn: 4,
			Msg: "fd 0 is not pointing to valid bpf_map", Rejected: true}},
		{"map_value", valueLoad, outcome{Program: "raw", Verdict: "rejected",
			Msg: "fd 0 is not pointing to valid bpf_map", Rejected: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := progSpec("raw", tt.insns)
			maps := map[string]*ebpf.MapSpec{"table": hashMap()}
			res, err := VerifyProgramSpec(spec, maps, nil)
			if res == nil {
				t.Fatalf("VerifyProgramSpec: %v", err)
			}
			if diff := cmp.Diff(tt.want, outcomeOf(res)); diff != "" {
				t.Errorf("result mismatch (-want +got):\n%s", diff)
			}
			if kernel.Available() != nil {
				return
			}
			_, kerr := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats})
			var ve *ebpf.VerifierError
			if !errors.As(kerr, &ve) {
				t.Fatalf("kernel load: %v, want a verifier rejection", kerr)
			}
			if got := kernel.DecisiveLine(strings.Join(ve.Log, "\n")); got != tt.want.Msg {
				t.Errorf("kernel says %q, want %q", got, tt.want.Msg)
			}
		})
	}
}

// TestVerifyFile: an object is read with vercheck's loader, whose
// warnings come back with the results; an unreadable file is an error
// without results.
func TestVerifyFile(t *testing.T) {
	res, err := VerifyFile("testdata/progs/map_lookup_unchecked.o", nil)
	if res == nil || len(res.Results) != 1 {
		t.Fatalf("VerifyFile = %+v, %v", res, err)
	}
	var rej *verifier.RejectError
	if !errors.As(err, &rej) || rej.Insn != 7 {
		t.Errorf("error %v, want a rejection at insn 7", err)
	}
	if res, err := VerifyFile("vercheck.go", nil); res != nil || err == nil {
		t.Errorf("VerifyFile of a Go source = %+v, %v; want an error", res, err)
	}
	spec := &Options{TypeOverride: ebpf.XDP}
	res, err = VerifyFile("testdata/progs/xdp_parse.o", spec)
	if err != nil || res.Results[0].Type != ebpf.XDP {
		t.Errorf("VerifyFile with a type override = %+v, %v", res, err)
	}
}

// TestFuncAddressNeedsFuncInfo: the kernel refuses the ld_imm64 that takes
// a function's address in a program without BTF func info, even when the
// address is never used (check_ld_imm; the live kernel said so at that
// instruction on a mutant the fuzzer found), and vercheck says the same
// at the same instruction.
func TestFuncAddressNeedsFuncInfo(t *testing.T) {
	insns := asm.Instructions{
		// r2 = the function at slot 4 (the ld_imm64 takes slots 0-1).
		{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: 3},
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
	spec := &ebpf.ProgramSpec{Name: "fnaddr", Type: ebpf.XDP, License: "GPL", Instructions: insns}
	res, err := VerifyProgramSpec(spec, nil, nil)
	if res == nil {
		t.Fatalf("VerifyProgramSpec: %v", err)
	}
	var rej *verifier.RejectError
	if !errors.As(err, &rej) || rej.Msg != "missing btf func_info" || rej.Insn != 0 {
		t.Errorf("got %v, want the kernel's missing btf func_info at insn 0", err)
	}
}

// TestVerifyFileInnerMap: a map-in-map whose inner map its loader sets is
// unsupported until the caller names the template, as a libbpf user
// calls bpf_map__set_inner_map_fd; then the lookup in the inner map is
// checked against it (an 8-byte value read through the object's array,
// out of bounds in a 4-byte one).
func TestVerifyFileInnerMap(t *testing.T) {
	const path = "loader/testdata/mim_no_inner.o"
	tests := []struct {
		name  string
		inner map[string]loader.InnerMap
		want  string
	}{
		{"left to the loader", nil, "unsupported"},
		{"the object's array", map[string]loader.InnerMap{"outer": {Name: "template"}}, "accepted"},
		{"a 4-byte value", map[string]loader.InnerMap{"outer": {Spec: &ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1}}}, "rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := VerifyFile(path, &Options{InnerMaps: tt.inner})
			if res == nil || len(res.Results) != 1 {
				t.Fatalf("VerifyFile = %+v, %v", res, err)
			}
			if diff := cmp.Diff(tt.want, res.Results[0].Verdict()); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMapBTFByEntry: an object file is verified as libbpf loads it (maps
// with the object's BTF: a global list head finds its nodes' struct), a
// cilium/ebpf spec as cilium/ebpf loads it (each map with its key and
// value types alone: the data section has no special field), unless the
// options say which.
func TestMapBTFByEntry(t *testing.T) {
	const path, prog = "testdata/progs/g11_graph_maps.o", "g11_global_list"
	const cilium = "map '.bss.A' has no valid bpf_spin_lock"
	verdict := func(results []*verifier.Result) string {
		for _, r := range results {
			if r.Program == prog {
				return errMsgOf(r)
			}
		}
		return "missing"
	}
	file, _ := VerifyFile(path, nil)
	// The loader's spec: it repairs what cilium/ebpf alone cannot read of
	// the object (a relocation against one of its .bss.NAME sections).
	spec, _, err := loader.LoadCollectionSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	fromSpec, _ := VerifyCollectionSpec(spec, nil)
	fileAsCilium, _ := VerifyFile(path, &Options{Verifier: verifier.Options{MapBTF: verifier.MapBTFKeyValue}})
	specAsLibbpf, _ := VerifyCollectionSpec(spec, &Options{Verifier: verifier.Options{MapBTF: verifier.MapBTFObject}})
	got := []string{verdict(file.Results), verdict(fromSpec), verdict(fileAsCilium.Results), verdict(specAsLibbpf)}
	want := []string{"", cilium, cilium, ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts of %s (file, spec, file as cilium/ebpf, spec as libbpf) (-want +got):\n%s", prog, diff)
	}
}

// errMsgOf is a result's rejection message, "" when it was accepted.
func errMsgOf(r *verifier.Result) string {
	var rej *verifier.RejectError
	if errors.As(r.Err, &rej) {
		return rej.Msg
	}
	if r.Err != nil {
		return r.Err.Error()
	}
	return ""
}

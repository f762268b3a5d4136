package kernel

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vercheck/vercheck/loader"
)

func TestMapSpec(t *testing.T) {
	legacy := &ebpf.MapSpec{Name: "legacy", Type: ebpf.Hash, KeySize: 4, ValueSize: 4, MaxEntries: 1,
		Pinning: ebpf.PinByName, Extra: nil}
	tests := []struct {
		name string
		in   *loader.Map
		want *ebpf.MapSpec
	}{
		{
			name: "classic fields repaired by the loader win, pinning off",
			in:   &loader.Map{Name: "legacy", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 16, Spec: legacy},
			want: &ebpf.MapSpec{Name: "legacy", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 16},
		},
		{
			name: "global data keeps its bytes",
			in:   &loader.Map{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: 2, MaxEntries: 1, ReadOnly: true, Contents: []byte{1, 2}},
			want: &ebpf.MapSpec{Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: 2, MaxEntries: 1,
				Contents: []ebpf.MapKV{{Key: uint32(0), Value: []byte{1, 2}}}},
		},
		{
			name: "program arrays lose their contents, inner maps follow",
			in: &loader.Map{Name: "jmp", Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4, MaxEntries: 2,
				Spec:  &ebpf.MapSpec{Name: "jmp", Contents: []ebpf.MapKV{{Key: uint32(0), Value: "other"}}},
				Inner: &loader.Map{Name: "inner", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1}},
			want: &ebpf.MapSpec{Name: "jmp", Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4, MaxEntries: 2,
				InnerMap: &ebpf.MapSpec{Name: "inner", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, MapSpec(tt.in), cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(ebpf.MapSpec{})); diff != "" {
				t.Errorf("MapSpec mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadObjectMatchesCollectionSpec loads the test objects both ways:
// from vercheck's linking and from cilium/ebpf's spec. The kernel must say
// the same of both.
func TestLoadObjectMatchesCollectionSpec(t *testing.T) {
	skipUnlessAvailable(t)
	objs, err := filepath.Glob("../../testdata/progs/*.o")
	if err != nil || len(objs) == 0 {
		t.Fatalf("no test objects: %v", err)
	}
	ignore := cmpopts.IgnoreFields(Result{}, "Log", "VerificationTime")
	for _, path := range objs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			spec, err := ebpf.LoadCollectionSpec(path)
			if err != nil {
				t.Skipf("cilium/ebpf cannot read it: %v", err)
			}
			if hasFlavouredKfunc(spec) {
				t.Skip("cilium/ebpf resolves flavoured kfunc names (name___flavour) as they are, the loader as libbpf does")
			}
			want, err := LoadCollectionSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			if refusesIncompatibleKfunc(want) {
				t.Skip("cilium/ebpf refuses a weak kfunc whose prototype differs from the kernel's, libbpf and the loader leave it unresolved")
			}
			// Linked as cilium/ebpf links it (CO-RE, kfunc addresses),
			// the program the spec's load hands the kernel.
			obj, err := loader.Open(path, loader.Options{CiliumLinking: true})
			if err != nil {
				t.Fatal(err)
			}
			if hasStaticHiddenFunc(spec, obj) {
				t.Skip("cilium/ebpf keeps hidden global functions global, the loader makes them static as libbpf does")
			}
			if funcsDiffer(spec, obj) {
				t.Skip("cilium/ebpf links another function for a global function's address (the first of its section), the loader the one libbpf links")
			}
			if typedByLoaderOnly(spec, obj) {
				t.Skip("cilium/ebpf leaves untyped the sections libbpf 1.8 types (sleepable tracepoints), the loader types them as libbpf does")
			}
			var kconfig *btf.Datasec
			if spec.Types != nil && spec.Types.TypeByName(".kconfig", &kconfig) == nil {
				t.Skip("cilium/ebpf fills .kconfig by its own rules, the loader by libbpf's")
			}
			// Both the way cilium/ebpf loads a spec's maps, so that the
			// two paths load the same program.
			got, err := Options{MapBTF: KeyValueBTF}.LoadObject(obj)
			if err != nil {
				t.Fatal(err)
			}
			// The loader appends exception callbacks as libbpf does,
			// cilium/ebpf does not: the kernel sees two programs there.
			want, got = withoutAppendedCallbacks(obj, want), withoutAppendedCallbacks(obj, got)
			want, got = notLoadedByErrno(want), notLoadedByErrno(got)
			sortByName := cmpopts.SortSlices(func(a, b Result) bool { return a.Program < b.Program })
			if diff := cmp.Diff(want, got, ignore, sortByName); diff != "" {
				t.Errorf("LoadObject vs LoadCollectionSpec (-spec +object):\n%s", diff)
			}
		})
	}
}

// notLoadedByErrno keeps of a load that gave no verdict only its errno:
// the two paths word a map their loader cannot create differently ("load
// P: map M" from cilium/ebpf's collection, "create map M" from the
// object's), where the kernel's answer is the same.
func notLoadedByErrno(results []Result) []Result {
	for i := range results {
		if results[i].NotLoaded {
			results[i].Err, _, _ = strings.Cut(results[i].Err, ": ")
		}
	}
	return results
}

// withoutAppendedCallbacks drops the results of the programs the loader
// appended an exception callback to (its warnings name them).
func withoutAppendedCallbacks(obj *loader.Object, results []Result) []Result {
	appended := map[string]bool{}
	for _, w := range obj.Warnings {
		if name, _, ok := strings.Cut(w, ": exception callback "); ok {
			appended[name] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(results), func(r Result) bool { return appended[r.Program] })
}

func TestLoadObjectSetupFailure(t *testing.T) {
	skipUnlessAvailable(t)
	obj := &loader.Object{Programs: []*loader.Program{{Name: "broken", Err: loader.ErrUnknownProgramType}}}
	got, err := LoadObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].NotLoaded || got[0].Err == "" {
		t.Errorf("LoadObject = %+v, want one setup failure", got)
	}
	if _, err := LoadObject(nil); err == nil {
		t.Error("LoadObject(nil) succeeded")
	}
}

// hasStaticHiddenFunc reports whether the loader made static a function
// cilium/ebpf reads as global (a hidden global function).
func hasStaticHiddenFunc(spec *ebpf.CollectionSpec, obj *loader.Object) bool {
	global := make(map[string]bool)
	for _, ps := range spec.Programs {
		for i := range ps.Instructions {
			if fn := btf.FuncMetadata(&ps.Instructions[i]); fn != nil && fn.Linkage == btf.GlobalFunc {
				global[fn.Name] = true
			}
		}
	}
	for _, p := range obj.Programs {
		for _, f := range p.Funcs {
			if global[f.Name] && !f.Global {
				return true
			}
		}
	}
	return false
}

// typedByLoaderOnly reports whether a program cilium/ebpf leaves without a
// type has one in the loader's object (sections only libbpf knows).
func typedByLoaderOnly(spec *ebpf.CollectionSpec, obj *loader.Object) bool {
	for _, p := range obj.Programs {
		if ps := spec.Programs[p.Name]; ps != nil && ps.Type == ebpf.UnspecifiedProgram && p.Type != ebpf.UnspecifiedProgram {
			return true
		}
	}
	return false
}

// refusesIncompatibleKfunc reports whether cilium/ebpf refused to link a
// program of rs for a kfunc whose prototype differs from the kernel's.
func refusesIncompatibleKfunc(rs []Result) bool {
	for _, r := range rs {
		if r.NotLoaded && strings.Contains(r.Err, "incompatible") {
			return true
		}
	}
	return false
}

// funcsDiffer reports whether a program of obj holds other functions than
// its spec in cilium/ebpf.
func funcsDiffer(spec *ebpf.CollectionSpec, obj *loader.Object) bool {
	for _, p := range obj.Programs {
		ps := spec.Programs[p.Name]
		if ps == nil {
			continue
		}
		var names []string
		for _, ins := range ps.Instructions {
			if sym := ins.Symbol(); sym != "" {
				names = append(names, sym)
			}
		}
		var got []string
		for _, f := range p.Funcs {
			got = append(got, f.Name)
		}
		if !slices.Equal(names, got) {
			return true
		}
	}
	return false
}

// hasFlavouredKfunc reports whether a program of spec calls or takes the
// address of a kfunc declared with a flavour suffix.
func hasFlavouredKfunc(spec *ebpf.CollectionSpec) bool {
	for _, ps := range spec.Programs {
		for _, ins := range ps.Instructions {
			if (ins.IsKfuncCall() || ins.OpCode.IsDWordLoad()) && strings.Contains(ins.Reference(), "___") {
				return true
			}
		}
	}
	return false
}

// TestNewProgramAsCilium: a program loaded as a collection of one, with
// the process's kernel BTF cache (newProgram), gets the same answer as
// from ebpf.NewProgramWithOptions: the program loads, or fails with the
// same verifier log, or with the same error when a map load is left
// unbound (which goes the old way).
func TestNewProgramAsCilium(t *testing.T) {
	skipUnlessAvailable(t)
	unbound := asm.LoadMapPtr(asm.R1, 0).WithReference("nowhere")
	tests := []struct {
		name  string
		insns asm.Instructions
	}{
		{"accepted", asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}},
		{"rejected", asm.Instructions{asm.Mov.Reg(asm.R0, asm.R2), asm.Return()}},
		{"unbound map", asm.Instructions{unbound, asm.Mov.Imm(asm.R0, 0), asm.Return()}},
	}
	opts := ebpf.ProgramOptions{LogLevel: ebpf.LogLevelBranch, LogSizeStart: 1 << 16}
	outcome := func(p *ebpf.Program, err error) string {
		if err != nil {
			return err.Error()
		}
		defer p.Close()
		return "loaded"
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := &ebpf.ProgramSpec{Name: "vercheck_t", Type: ebpf.SocketFilter, License: "GPL", Instructions: tc.insns}
			want := outcome(ebpf.NewProgramWithOptions(spec, opts))
			got := outcome(newProgram(spec, opts))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("newProgram differs from NewProgramWithOptions (-cilium +ours):\n%s", diff)
			}
		})
	}
}

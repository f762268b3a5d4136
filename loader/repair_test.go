package loader

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

// progsDir holds the C test programs and their objects.
var progsDir = filepath.Join("..", "testdata", "progs")

// TestValuesTypedef opens an object whose map-in-map definitions name the
// inner map through typedefs (__array(values, some_typedef_t)), which
// cilium/ebpf alone refuses, and checks the inner map each outer map gets.
func TestValuesTypedef(t *testing.T) {
	obj, err := Open(filepath.Join(progsDir, "mod_loader_values.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type inner struct {
		Outer                        string
		Type                         ebpf.MapType
		KeySize, ValueSize, Capacity uint32
	}
	var got []inner
	for _, m := range obj.Maps {
		if m.Inner != nil {
			got = append(got, inner{m.Name, m.Inner.Type, m.Inner.KeySize, m.Inner.ValueSize, m.Inner.MaxEntries})
		}
	}
	want := []inner{
		{"outer_by_const_typedef", ebpf.Hash, 4, 8, 16},
		{"outer_by_typedef", ebpf.Hash, 4, 8, 16},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inner maps (-want +got):\n%s", diff)
	}
	wantWarning := "BTF: map definitions declare their values through a typedef, resolved as libbpf does: outer_by_const_typedef (inner_counts), outer_by_typedef (inner_counts)"
	if diff := cmp.Diff([]string{wantWarning}, obj.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestTextOnlyObject opens an object whose functions all live in .text:
// without a program type it has no programs (libbpf opens it too); with one, its global
// functions are programs of that type, their static callees subprograms
// with line and function info.
func TestTextOnlyObject(t *testing.T) {
	path := filepath.Join("testdata", "text_only.o")
	if obj, err := Open(path, Options{}); err != nil || len(obj.Programs) != 0 || len(obj.Warnings) != 1 {
		t.Fatalf("Open without a type: %+v, %v; want no programs and a warning, as libbpf opens it", obj, err)
	}
	obj, err := Open(path, Options{TypeOverride: ebpf.SocketFilter})
	if err != nil {
		t.Fatal(err)
	}
	type prog struct {
		Name, Section string
		Type          ebpf.ProgramType
		Funcs         []string
		Lines         bool
	}
	var got []prog
	for _, p := range obj.Programs {
		if p.Err != nil {
			t.Fatalf("%s: %v", p.Name, p.Err)
		}
		var funcs []string
		for _, f := range p.Funcs {
			funcs = append(funcs, f.Name)
		}
		got = append(got, prog{p.Name, p.Section, p.Type, funcs, p.Lines.Len() > 0 && p.Lines.At(0).Line != 0})
	}
	want := []prog{
		{"first", ".text", ebpf.SocketFilter, []string{"first", "twice"}, true},
		{"second", ".text", ebpf.SocketFilter, []string{"second"}, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("programs (-want +got):\n%s", diff)
	}
}

// TestLegacyMapByIndex checks that a legacy inner_map_idx counts the map
// symbols of every legacy maps section in section order, then offset: the
// single "maps" section of bpf_load.c objects and the "maps/<name>"
// sections of PREVAIL's alike.
func TestLegacyMapByIndex(t *testing.T) {
	info := &elfInfo{legacyMaps: map[string]legacyMapSym{
		"outer": {section: 4, offset: 0},
		"inner": {section: 5, offset: 0},
		"first": {section: 3, offset: 28},
		"zero":  {section: 3, offset: 0},
	}}
	info.orderLegacyMaps()
	var got []string
	for i := range 5 {
		got = append(got, info.legacyMapByIndex(i))
	}
	if diff := cmp.Diff([]string{"zero", "first", "outer", "inner", ""}, got); diff != "" {
		t.Errorf("maps by index (-want +got):\n%s", diff)
	}
}

// TestDuplicateStaticFuncs opens an object linked from two units that each
// define a static twice(): each program must be linked with its own unit's
// function.
func TestDuplicateStaticFuncs(t *testing.T) {
	obj, err := Open(filepath.Join("testdata", "linked.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string][]string)
	for _, p := range obj.Programs {
		if p.Err != nil {
			t.Fatalf("%s: %v", p.Name, p.Err)
		}
		for _, f := range p.Funcs {
			got[p.Name] = append(got[p.Name], f.Name)
		}
	}
	want := map[string][]string{"first": {"first", "twice"}, "second": {"second", "twice"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}
	// second's twice is x + x + 1: its last instruction before exit is
	// an or.
	second := obj.Programs[1].Instructions
	if op := second[len(second)-2].OpCode; op.ALUOp() != asm.Or {
		t.Errorf("second links %v before its exit, want its own twice() (an or)", second[len(second)-2])
	}
	if diff := cmp.Diff([]string{"ELF: functions of one name from several linked units renamed (twice -> twice.2)"}, obj.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestBSSSections opens an object with globals in a ".bss.G" section,
// which cilium/ebpf alone refuses: the section is a zero-filled data map
// of its own named ".bss.G" as libbpf names it, its BTF data section
// describing the lock and the counter, and the programs load through it,
// without a warning (libbpf reads such sections as they are).
func TestBSSSections(t *testing.T) {
	obj, err := Open(filepath.Join(progsDir, "gr_global.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type section struct {
		Name      string
		ValueSize uint32
		Vars      []string
	}
	var got []section
	for _, m := range obj.Maps {
		ds, ok := m.Spec.Value.(*btf.Datasec)
		if !ok {
			continue
		}
		s := section{Name: m.Name, ValueSize: m.ValueSize}
		for _, v := range ds.Vars {
			s.Vars = append(s.Vars, v.Type.TypeName())
		}
		got = append(got, s)
	}
	want := []section{{Name: ".bss.G", ValueSize: 16, Vars: []string{"gr_glock", "gr_counter"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("data sections (-want +got):\n%s", diff)
	}
	for _, p := range obj.Programs {
		if p.Err != nil {
			t.Errorf("%s: %v", p.Name, p.Err)
		}
	}
	if len(obj.Warnings) != 0 {
		t.Errorf("warnings: %q", obj.Warnings)
	}
}

// TestArenaGlobals opens an object with __arena globals (".addr_space.1",
// which cilium/ebpf alone refuses): no map is made of the section, and
// each load of a variable's address is a value load of the arena map at
// the variable's offset, as libbpf links it.
func TestArenaGlobals(t *testing.T) {
	obj, err := Open(filepath.Join(progsDir, "ar_global.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	arena := -1
	for i, m := range obj.Maps {
		names = append(names, m.Name)
		if m.Type == ebpf.Arena {
			arena = i
		}
	}
	if diff := cmp.Diff([]string{".bss", "ag_arena"}, names); diff != "" {
		t.Fatalf("maps (-want +got):\n%s", diff)
	}
	type load struct {
		Map    int
		Offset uint32
	}
	var got []load
	for _, p := range obj.Programs {
		if p.Name != "ag_globals" {
			continue
		}
		for _, ins := range p.Instructions {
			if ins.IsLoadFromMap() && ins.Src == asm.PseudoMapValue {
				got = append(got, load{int(uint32(ins.Constant)), uint32(uint64(ins.Constant) >> 32)})
			}
		}
	}
	// ag_counts (512 bytes) comes first in the section, then ag_sum.
	want := []load{{arena, 0}, {arena, 512}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loads of ag_globals (-want +got):\n%s", diff)
	}
}

// TestArenaGlobalsRefused: libbpf refuses __arena globals without one
// arena map of the size to hold them.
func TestArenaGlobalsRefused(t *testing.T) {
	page := uint32(os.Getpagesize())
	tests := []struct {
		name   string
		arenas []*Map
		data   uint32
		want   error
	}{
		{"no arena", nil, 8, ErrNoArenaMap},
		{"two arenas", []*Map{{Type: ebpf.Arena, MaxEntries: 1}, {Type: ebpf.Arena, MaxEntries: 1}}, 8, ErrManyArenas},
		{"too small", []*Map{{Type: ebpf.Arena, MaxEntries: 1}}, page + 1, ErrArenaTooSmall},
		{"fits", []*Map{{Type: ebpf.Arena, MaxEntries: 2}}, page + 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := &mapTable{list: tt.arenas, arenaData: tt.data}
			ins := asm.LoadMapValue(asm.R1, 0, 16)
			if err := table.rewriteArenaLoad(&ins); !errors.Is(err, tt.want) {
				t.Errorf("rewriteArenaLoad() = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestUnnamedLinkedCode opens an object linked from two units that both
// define the weak scale(): the dropped copy stays in .text without a
// symbol, and offset(), a static function after it, must keep its own BTF
// function info (static, two arguments), as libbpf loads it, not the dead
// copy's. The variable limit, weak in one unit, keeps the dropped copy's
// BTF offset, which cilium/ebpf alone refuses.
func TestUnnamedLinkedCode(t *testing.T) {
	obj, err := Open(filepath.Join("testdata", "linked_weak.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name   string
		Global bool
		Params int
	}
	got := make(map[string][]fn)
	for _, p := range obj.Programs {
		if p.Err != nil {
			t.Fatalf("%s: %v", p.Name, p.Err)
		}
		for _, f := range p.Funcs {
			got[p.Name] = append(got[p.Name], fn{f.Name, f.Global, len(f.BTF.Type.(*btf.FuncProto).Params)})
		}
	}
	want := map[string][]fn{
		"first":  {{"first", true, 1}, {"scale", true, 1}},
		"second": {{"second", true, 1}, {"offset", false, 2}, {"scale", true, 1}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("functions (-want +got):\n%s", diff)
	}
	wantWarnings := []string{
		"BTF: data-section variables the linker placed at a dropped weak copy's offset, matched by name as libbpf does (limit)",
		"ELF: code without a symbol (weak definitions the linker dropped) named and left out of every program, as libbpf leaves it (unlinked.3.18)",
	}
	if diff := cmp.Diff(wantWarnings, obj.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestObjectWithoutCode opens an object that holds maps and no code: as
// libbpf's open, it is read with its maps and no programs, where an object
// whose code all lives in .text is still refused without a program type.
func TestObjectWithoutCode(t *testing.T) {
	obj, err := Open(filepath.Join("testdata", "maps_only.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var maps []string
	for _, m := range obj.Maps {
		maps = append(maps, m.Name)
	}
	got := struct {
		Programs int
		Maps     []string
	}{len(obj.Programs), maps}
	want := struct {
		Programs int
		Maps     []string
	}{0, []string{"counts"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
}

// TestLinkedTypeIDImmediate opens an object linked from two units whose
// second unit's types the linker renumbered: the type id immediate of its
// bpf_core_type_id_kernel still holds the compiler's id, which libbpf does
// not check against the relocation (bpf_core_calc_type_relo) and
// cilium/ebpf does ("invalid immediate"). The program must open, with the
// kernel's id of task_struct as its immediate.
func TestLinkedTypeIDImmediate(t *testing.T) {
	kernel, err := btf.LoadKernelSpec()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	var task *btf.Struct
	if err := kernel.TypeByName("task_struct", &task); err != nil {
		t.Skipf("no task_struct in the kernel's BTF: %v", err)
	}
	want, err := kernel.TypeID(task)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := Open(filepath.Join("testdata", "linked_typeid.o"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, p := range obj.Programs {
		if p.Err != nil {
			t.Fatalf("%s: %v", p.Name, p.Err)
		}
		for _, ins := range p.Instructions {
			if btf.CORERelocationMetadata(&ins) != nil {
				got = append(got, ins.Constant)
			}
		}
	}
	if diff := cmp.Diff([]int64{int64(want)}, got); diff != "" {
		t.Errorf("relocated immediates (-want +got):\n%s", diff)
	}
}

// TestUnlinkedExternObject opens one unit of a program built from two: an
// extern variable defined in the other unit, in an object whose .kconfig
// section makes cilium/ebpf take it for a kconfig value. The error names
// the extern and says what to do, rather than cilium/ebpf's "kconfig ...
// not found in .kconfig" under ErrMalformed. Of two such externs it names
// the first by name on every run (cilium/ebpf names either).
func TestUnlinkedExternObject(t *testing.T) {
	for range 8 {
		_, err := Open(filepath.Join("testdata", "unlinked_extern.o"), Options{})
		if !errors.Is(err, ErrUnresolvedExtern) {
			t.Fatalf("Open: %v, want %v", err, ErrUnresolvedExtern)
		}
		if errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "extern shared_base:") {
			t.Fatalf("Open: %v, want shared_base named and no ErrMalformed", err)
		}
	}
}

// TestExternMapObject opens one unit of a program built from two whose
// map definitions are partly extern (testdata/extern_map.c): the error
// names the first such map and what to do, as libbpf refuses the unit,
// not cilium/ebpf's count of the .maps section's symbols.
func TestExternMapObject(t *testing.T) {
	_, err := Open(filepath.Join("testdata", "extern_map.o"), Options{})
	if !errors.Is(err, ErrUnresolvedExtern) || errors.Is(err, ErrMalformed) {
		t.Fatalf("Open: %v, want %v and no %v", err, ErrUnresolvedExtern, ErrMalformed)
	}
	if !strings.Contains(err.Error(), "extern map map_b:") {
		t.Errorf("Open: %v, want map_b named", err)
	}
}

// TestEmptyProgramRefused: a program symbol of size 0 at another
// program's offset (an empty function) makes the object malformed, as
// libbpf refuses it, where cilium/ebpf gave the next program's func_info
// to the function after it.
func TestEmptyProgramRefused(t *testing.T) {
	_, err := Open(filepath.Join("testdata", "empty_prog.o"), Options{})
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "corrupted program 'a_empty', offset 0, size 0") {
		t.Errorf("Open: %v, want the corrupted program a_empty", err)
	}
}

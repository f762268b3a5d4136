package loader

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var ignoreMetadata = cmpopts.IgnoreFields(asm.Instruction{}, "Metadata")

// elfHeader builds a bare ELF64 little-endian header for machine with no
// sections: enough for the machine and class checks.
func elfHeader(t *testing.T, machine elf.Machine) []byte {
	t.Helper()
	hdr := elf.Header64{
		Type:    uint16(elf.ET_REL),
		Machine: uint16(machine),
		Version: uint32(elf.EV_CURRENT),
		Ehsize:  uint16(binary.Size(elf.Header64{})),
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, &hdr); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParseErrors(t *testing.T) {
	bpfHeader := elfHeader(t, elf.EM_BPF)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrNotELF},
		{"text", []byte("hello, world"), ErrNotELF},
		{"truncated header", bpfHeader[:20], ErrMalformed},
		{"x86-64", elfHeader(t, elf.EM_X86_64), ErrNotBPF},
		{"no sections", bpfHeader, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const path = "obj.o"
			_, err := Parse(path, tt.data, Options{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse() error = %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("error %q does not start with the file name", err)
			}
		})
	}
}

func TestOpenMissingFile(t *testing.T) {
	_, err := Open("/nonexistent/prog.o", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "/nonexistent/prog.o: ") {
		t.Fatalf("Open() error = %v, want one naming the file", err)
	}
}

// linkSpec is a collection with a map, a .rodata global, a bpf-to-bpf call
// and a .kconfig-free program: the shapes FromCollectionSpec must rewrite.
func linkSpec() *ebpf.CollectionSpec {
	main := asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference("counts").WithSymbol("entry"),
		asm.LoadMapValue(asm.R2, 0, 4).WithReference(".rodata"),
		asm.Call.Label("sub"),
		asm.Return(),
		asm.Mov.Imm(asm.R0, 7).WithSymbol("sub"),
		asm.Return(),
	}
	return &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"counts":  {Name: "counts", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 16},
			".rodata": {Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1, Flags: bpfFRdonlyProg, Contents: []ebpf.MapKV{{Key: uint32(0), Value: []byte{1, 2, 3, 4, 5, 6, 7, 8}}}},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"entry": {Name: "entry", Type: ebpf.XDP, AttachType: ebpf.AttachXDP, SectionName: "xdp", License: "Dual MIT/GPL", Instructions: main},
		},
		ByteOrder: binary.LittleEndian,
	}
}

func TestFromCollectionSpecLinks(t *testing.T) {
	spec := linkSpec()
	obj, err := FromCollectionSpec("synthetic.o", spec, Options{TargetBTF: "/nonexistent"})
	if err != nil {
		t.Fatal(err)
	}

	gotMaps := make([]string, len(obj.Maps))
	for i, m := range obj.Maps {
		gotMaps[i] = m.Name
	}
	if diff := cmp.Diff([]string{".rodata", "counts"}, gotMaps); diff != "" {
		t.Errorf("map order mismatch (-want +got):\n%s", diff)
	}
	if ro := obj.Maps[0]; !ro.ReadOnly || !bytes.Equal(ro.Contents, []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf(".rodata: ReadOnly=%v Contents=%v, want read-only with contents", ro.ReadOnly, ro.Contents)
	}

	if len(obj.Programs) != 1 {
		t.Fatalf("got %d programs, want 1", len(obj.Programs))
	}
	p := obj.Programs[0]
	if p.Err != nil {
		t.Fatalf("program error: %v", p.Err)
	}
	const counts, rodata = 1, 0
	want := asm.Instructions{
		{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R1, Src: asm.PseudoMapFD, Constant: counts},
		{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoMapValue, Constant: 4<<32 | rodata},
		{OpCode: asm.Call.Op(asm.ImmSource), Src: asm.PseudoCall, Constant: 1}, // slot 4 -> slot 6
		asm.Return(),
		asm.Mov.Imm(asm.R0, 7),
		asm.Return(),
	}
	if diff := cmp.Diff(want, p.Instructions, ignoreMetadata); diff != "" {
		t.Errorf("instructions mismatch (-want +got):\n%s", diff)
	}
	if !p.GPLCompatible {
		t.Errorf("license %q: GPLCompatible = false, want true", p.License)
	}
	// The spec handed in must not be modified.
	if c := spec.Programs["entry"].Instructions[0].Constant; c != 0 {
		t.Errorf("spec instruction rewritten in place: constant %d", c)
	}
}

// TestFromCollectionSpecUnboundMapLoads checks that a map load no
// relocation names keeps its immediate and is listed by raw slot, while the
// relocated loads around it are rewritten to map indexes.
func TestFromCollectionSpecUnboundMapLoads(t *testing.T) {
	spec := linkSpec()
	spec.Programs["entry"].Instructions = asm.Instructions{
		asm.LoadMapPtr(asm.R3, 5).WithSymbol("entry"),
		asm.LoadMapValue(asm.R4, 6, 8),
		asm.LoadMapPtr(asm.R1, 0).WithReference("counts"),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
	obj, err := FromCollectionSpec("synthetic.o", spec, Options{TargetBTF: "/nonexistent"})
	if err != nil {
		t.Fatal(err)
	}
	p := obj.Programs[0]
	if p.Err != nil {
		t.Fatalf("program error: %v", p.Err)
	}
	if diff := cmp.Diff([]int{0, 2}, p.UnboundMapLoads); diff != "" {
		t.Errorf("unbound map loads mismatch (-want +got):\n%s", diff)
	}
	got := []int64{p.Instructions[0].Constant, p.Instructions[1].Constant, p.Instructions[2].Constant}
	if diff := cmp.Diff([]int64{5, 8<<32 | 6, 1}, got); diff != "" {
		t.Errorf("map load immediates mismatch (-want +got):\n%s", diff)
	}
	for slot, want := range map[int]bool{0: true, 2: true, 4: false} {
		if got := p.MapLoadUnbound(slot); got != want {
			t.Errorf("MapLoadUnbound(%d) = %v, want %v", slot, got, want)
		}
	}
}

func TestFromCollectionSpecErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*ebpf.CollectionSpec)
		opts   Options
		want   error
	}{
		{
			name: "unknown map",
			modify: func(s *ebpf.CollectionSpec) {
				delete(s.Maps, "counts")
			},
			want: ErrMapNotFound,
		},
		{
			name: "unresolved call",
			modify: func(s *ebpf.CollectionSpec) {
				insns := s.Programs["entry"].Instructions
				s.Programs["entry"].Instructions = insns[:4]
			},
			want: ErrUnresolvedExtern,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := linkSpec()
			tt.modify(spec)
			obj, err := FromCollectionSpec("synthetic.o", spec, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := obj.Programs[0].Err; !errors.Is(err, tt.want) {
				t.Errorf("program error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestTypeOverrideAndGuess(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		override ebpf.ProgramType
		want     ebpf.ProgramType
		warns    int
	}{
		{"override wins", "xdp_thing.o", ebpf.SchedACT, ebpf.SchedACT, 0},
		{"guess from name", "xdp_thing.o", ebpf.UnspecifiedProgram, ebpf.XDP, 1},
		{"default", "thing.o", ebpf.UnspecifiedProgram, ebpf.SocketFilter, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := linkSpec()
			spec.Programs["entry"].Type = ebpf.UnspecifiedProgram
			spec.Programs["entry"].SectionName = "my-section"
			obj, err := FromCollectionSpec(tt.path, spec, Options{TypeOverride: tt.override})
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				Type  ebpf.ProgramType
				Warns int
			}{obj.Programs[0].Type, len(obj.Warnings)}
			want := struct {
				Type  ebpf.ProgramType
				Warns int
			}{tt.want, tt.warns}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGuessProgramType(t *testing.T) {
	tests := []struct {
		path string
		maps []string
		want ebpf.ProgramType
	}{
		{"cilium/bpf_xdp.o", []string{"cilium_calls_xdp"}, ebpf.XDP},
		{"cilium/bpf_lxc.o", []string{"cilium_ct4_global"}, ebpf.SchedCLS},
		{"linux/lwt_len_hist_kern.o", nil, ebpf.LWTOut},
		{"linux/test_cgrp2_tc_kern.o", nil, ebpf.SchedCLS},
		{"linux/tcbpf1_kern.o", nil, ebpf.SchedCLS},
		{"linux/tcp_synrto_kern.o", nil, ebpf.SocketFilter},
		{"suricata/lb.o", nil, ebpf.SocketFilter},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, _ := GuessProgramType(tt.path, tt.maps)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("GuessProgramType mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsGPLCompatible(t *testing.T) {
	tests := []struct {
		license string
		want    bool
	}{
		{"GPL", true},
		{"GPL v2", true},
		{"Dual BSD/GPL", true},
		{"GPL\x00junk", true},
		{"MIT", false},
		{"gpl", false},
		{"", false},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, IsGPLCompatible(tt.license)); diff != "" {
			t.Errorf("IsGPLCompatible(%q) mismatch (-want +got):\n%s", tt.license, diff)
		}
	}
}

// TestRuntimeMaxEntries checks the sizes assumed for maps an object leaves
// at max_entries 0 for its loader to set: outer maps and inner maps alike
// (a ring buffer per CPU in an array of maps), and the value size of a
// stack trace map left at 0.
func TestRuntimeMaxEntries(t *testing.T) {
	ringbuf := &ebpf.MapSpec{Name: "rb", Type: ebpf.RingBuf}
	spec := &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"ringbufs": {Name: "ringbufs", Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4, InnerMap: ringbuf},
			"events":   {Name: "events", Type: ebpf.RingBuf},
			"storage":  {Name: "storage", Type: ebpf.TaskStorage, KeySize: 4, ValueSize: 8},
			"stacks":   {Name: "stacks", Type: ebpf.StackTrace, KeySize: 4},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"entry": {Name: "entry", Type: ebpf.SocketFilter, License: "GPL", Instructions: asm.Instructions{
				asm.Mov.Imm(asm.R0, 0).WithSymbol("entry"), asm.Return(),
			}},
		},
	}
	obj, err := FromCollectionSpec("synthetic.o", spec, Options{TargetBTF: "/nonexistent"})
	if err != nil {
		t.Fatal(err)
	}
	page := uint32(os.Getpagesize())
	got := make(map[string]uint32)
	for _, m := range obj.Maps {
		got[m.Name] = m.MaxEntries
		if m.Inner != nil {
			got[m.Name+".inner"] = m.Inner.MaxEntries
		}
		if m.Type == ebpf.StackTrace {
			got[m.Name+".value_size"] = m.ValueSize
		}
	}
	want := map[string]uint32{"events": page, "ringbufs": 1, "ringbufs.inner": page, "storage": 0,
		"stacks": 1, "stacks.value_size": 127 * 8}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("max_entries (-want +got):\n%s", diff)
	}
	if ringbuf.MaxEntries != 0 {
		t.Errorf("inner map spec modified: max_entries %d", ringbuf.MaxEntries)
	}
}

// TestWithInstructionsLocalTypes: a program rebuilt from its instructions
// keeps the local types its CO-RE relocations name, and drops them when
// the instructions no longer carry the relocations (a bare constant names
// whatever the loader's BTF has at that id).
func TestWithInstructionsLocalTypes(t *testing.T) {
	obj, err := Open("../testdata/progs/lo_objnew.o", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var prog *Program
	for _, p := range obj.Programs {
		if len(p.LocalTypes) > 0 {
			prog = p
			break
		}
	}
	if prog == nil {
		t.Fatal("no program with local types")
	}
	if got := prog.WithInstructions(prog.Instructions).LocalTypes; len(got) != len(prog.LocalTypes) {
		t.Errorf("same instructions: %d local types, want %d", len(got), len(prog.LocalTypes))
	}
	bare := make(asm.Instructions, len(prog.Instructions))
	for i, ins := range prog.Instructions {
		bare[i] = asm.Instruction{OpCode: ins.OpCode, Dst: ins.Dst, Src: ins.Src, Offset: ins.Offset, Constant: ins.Constant}
	}
	if got := prog.WithInstructions(bare).LocalTypes; len(got) != 0 {
		t.Errorf("instructions without relocations: %d local types, want 0", len(got))
	}
}

// TestMapInMapValueSize: an outer map whose definition gives no value size
// has the 4-byte values loaders create it with (an inner map fd); other
// maps keep theirs. map_perf_test_kern.o of the corpus defines such a map.
func TestMapInMapValueSize(t *testing.T) {
	tests := []struct {
		typ  ebpf.MapType
		size uint32
		want uint32
	}{
		{ebpf.ArrayOfMaps, 0, 4},
		{ebpf.HashOfMaps, 0, 4},
		{ebpf.ArrayOfMaps, 4, 4},
		{ebpf.Array, 0, 0},
	}
	for _, tt := range tests {
		if got := convertMap("m", &ebpf.MapSpec{Type: tt.typ, ValueSize: tt.size}).ValueSize; got != tt.want {
			t.Errorf("%v with value size %d: %d, want %d", tt.typ, tt.size, got, tt.want)
		}
	}
}

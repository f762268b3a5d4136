package loader

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/cilium/ebpf/btf"
)

func TestKernelVersionCode(t *testing.T) {
	tests := []struct {
		release string
		want    uint32
		ok      bool
	}{
		{"6.18.44-fc-v769", 6<<16 | 18<<8 | 44, true},
		{"5.15.0-91-generic", 5<<16 | 15<<8, true},
		{"4.19.300", 4<<16 | 19<<8 | 255, true},
		{"6.1", 6<<16 | 1<<8, true},
		{"6.9-rc1", 6<<16 | 9<<8, true},
		{"", 0, false},
		{"linux", 0, false},
		{"6", 0, false},
	}
	for _, tt := range tests {
		got, ok := kernelVersionCode(tt.release)
		if got != tt.want || ok != tt.ok {
			t.Errorf("kernelVersionCode(%q) = %#x, %v; want %#x, %v", tt.release, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFillKconfig(t *testing.T) {
	u32 := &btf.Int{Name: "unsigned int", Size: 4}
	u64 := &btf.Int{Name: "unsigned long long", Size: 8}
	boolT := &btf.Int{Name: "_Bool", Size: 1, Encoding: btf.Bool}
	charT := &btf.Int{Name: "char", Size: 1, Encoding: btf.Char | btf.Signed}
	// clang emits char as a signed one-byte int, no char encoding.
	clangChar := &btf.Int{Name: "char", Size: 1, Encoding: btf.Signed}
	tristate := &btf.Enum{Name: "libbpf_tristate", Size: 4}
	str := &btf.Array{Type: charT, Index: u32, Nelems: 8}
	vars := []struct {
		name string
		typ  btf.Type
		size uint32
	}{
		{"LINUX_KERNEL_VERSION", u32, 4},
		{"CONFIG_BPF_SYSCALL", boolT, 1},
		{"CONFIG_NF_CONNTRACK", tristate, 4},
		{"CONFIG_HZ", u64, 8},
		{"CONFIG_DEFAULT_HOSTNAME", str, 8},
		{"CONFIG_MISSING", u32, 4},
		{"CONFIG_PREEMPT", charT, 1},
		{"CONFIG_BAD", boolT, 1},
		{"CONFIG_SMP", clangChar, 1},
		{"LINUX_HAS_BPF_COOKIE", boolT, 1},
		{"LINUX_HAS_SYSCALL_WRAPPER", boolT, 1},
	}
	ds := &btf.Datasec{Name: ".kconfig"}
	var off uint32
	for _, v := range vars {
		ds.Vars = append(ds.Vars, btf.VarSecinfo{Type: &btf.Var{Name: v.name, Type: v.typ}, Offset: off, Size: v.size})
		off += 8
	}
	ds.Size = off
	cfg, err := parseKconfig(strings.NewReader(`# comment
CONFIG_BPF_SYSCALL=y
CONFIG_NF_CONNTRACK=m
CONFIG_HZ=0x3e8
CONFIG_DEFAULT_HOSTNAME="a-very-long-name"
# CONFIG_MISSING is not set
CONFIG_PREEMPT=y
CONFIG_BAD=m
CONFIG_SMP=y
`))
	if err != nil {
		t.Fatal(err)
	}
	data, warnings := fillKconfig(ds, kernelTarget{release: "6.18.1", config: cfg}, binary.LittleEndian)
	old, _ := fillKconfig(ds, kernelTarget{release: "5.10.0", config: cfg, noKprobes: true}, binary.LittleEndian)
	le := binary.LittleEndian
	got := map[string]any{
		"plain char":              data[64],
		"cookie":                  data[72],
		"wrapper":                 data[80],
		"cookie before 5.15":      old[72],
		"wrapper without kprobes": old[80],
		"version":                 le.Uint32(data[0:]),
		"bool":                    data[8],
		"tristate":                le.Uint32(data[16:]),
		"hz":                      le.Uint64(data[24:]),
		"hostname":                string(data[32:40]),
		"missing":                 le.Uint32(data[40:]),
		"char":                    data[48],
		"bad":                     data[56],
		"warnings":                len(warnings),
	}
	want := map[string]any{
		"version":  uint32(6<<16 | 18<<8 | 1),
		"bool":     byte(1),
		"tristate": uint32(tristateModule),
		"hz":       uint64(1000),
		"hostname": "a-very-\x00",
		"missing":  uint32(0),
		"char":     byte('y'),
		"bad":      byte(0),
		"warnings": 1,

		"plain char":              byte('y'),
		"cookie":                  byte(1),
		"wrapper":                 byte(1),
		"cookie before 5.15":      byte(0),
		"wrapper without kprobes": byte(0),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fillKconfig (-want +got):\n%s", diff)
	}
}

// TestKconfigOffsetTracksCilium pins the cilium/ebpf metadata layout that
// kconfigOffset reads: an extern __kconfig load in a checked-in object must
// be found, and a plain instruction must not.
func TestKconfigOffsetTracksCilium(t *testing.T) {
	obj, err := Open("../testdata/progs/kconfig_version.o", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var kidx = -1
	for i, m := range obj.Maps {
		if m.Name == kconfigMapName {
			kidx = i
		}
	}
	if kidx < 0 {
		t.Fatal("no .kconfig map")
	}
	found := 0
	for _, ins := range obj.Programs[0].Instructions {
		if ins.OpCode.IsDWordLoad() && ins.Src == asm.PseudoMapValue && int(uint32(ins.Constant)) == kidx {
			found++
		}
	}
	if found != 1 {
		t.Errorf("found %d loads from .kconfig, want 1", found)
	}
	if _, ok := kconfigOffset(&asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord)}); ok {
		t.Error("kconfigOffset found metadata on a plain instruction")
	}
}

// TestWeakKconfigExterns opens an object with weak extern __kconfig
// variables, one the kernel configuration sets and one it lacks, which
// cilium/ebpf alone refuses: Open reads it, and LoadCollectionSpec hands
// the kernel a .kconfig map of the spec that every extern load refers to,
// filled as libbpf fills it (the lacking variable zero).
func TestWeakKconfigExterns(t *testing.T) {
	const path = "../testdata/progs/kconfig_weak.o"
	if _, err := Open(path, Options{}); err != nil {
		t.Fatalf("Open: %v", err)
	}
	spec, _, err := LoadCollectionSpec(path)
	if err != nil {
		t.Fatalf("LoadCollectionSpec: %v", err)
	}
	ms, ok := spec.Maps[kconfigMapName]
	if !ok || len(ms.Contents) != 1 {
		t.Fatalf("spec has no filled %s map: %+v", kconfigMapName, ms)
	}
	var refs []string
	for _, name := range []string{"kconfig_weak_missing", "kconfig_weak_set"} {
		for _, ins := range spec.Programs[name].Instructions {
			if _, meta := kconfigOffset(&ins); meta {
				t.Errorf("%s: a load keeps cilium/ebpf's kconfig metadata: %v", name, ins)
			}
			if ins.Reference() == kconfigMapName {
				refs = append(refs, fmt.Sprintf("%s+%d", name, ins.Constant>>32))
			}
		}
	}
	if diff := cmp.Diff([]string{"kconfig_weak_missing+0", "kconfig_weak_set+4"}, refs); diff != "" {
		t.Errorf("loads of %s (-want +got):\n%s", kconfigMapName, diff)
	}
}

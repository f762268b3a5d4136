package loader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"syscall"
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
	weak := map[string]bool{"CONFIG_MISSING": true}
	data, warnings, err := fillKconfig(ds, kernelTarget{release: "6.18.1", config: cfg}, binary.LittleEndian, weak)
	var kerr *KconfigError
	if !errors.As(err, &kerr) || kerr.Errno != syscall.EINVAL || !strings.Contains(kerr.Msg, "'CONFIG_BAD': value 'm' implies tristate or char type") {
		t.Errorf("fillKconfig refused with %v, want CONFIG_BAD's m for a bool (EINVAL)", err)
	}
	old, _, _ := fillKconfig(ds, kernelTarget{release: "5.10.0", config: cfg, noKprobes: true}, binary.LittleEndian, weak)
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
		"warnings": 0,

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

// TestKconfigRefusals: the objects libbpf refuses for one __kconfig
// variable (bpf_object__resolve_externs), each alone in its .kconfig
// section, with the errno its load returns; nil where libbpf fills it.
func TestKconfigRefusals(t *testing.T) {
	boolT := &btf.Int{Name: "_Bool", Size: 1, Encoding: btf.Bool}
	u8 := &btf.Int{Name: "unsigned char", Size: 1}
	s8 := &btf.Int{Name: "signed char", Size: 1, Encoding: btf.Signed}
	u16 := &btf.Int{Name: "unsigned short", Size: 2}
	s32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	u64 := &btf.Int{Name: "unsigned long long", Size: 8}
	str := &btf.Array{Type: s8, Index: s32, Nelems: 4}
	otherEnum := &btf.Enum{Name: "my_tristate", Size: 4}
	cfg := map[string]string{
		"CONFIG_HZ": "250", "CONFIG_Y": "y", "CONFIG_M": "m", "CONFIG_STR": `"abc"`,
		"CONFIG_BIG": "65536", "CONFIG_NEG": "-1", "CONFIG_HEX": "0x10", "CONFIG_OCT": "010",
		"CONFIG_BAD_NUM": "12abc", "CONFIG_ONE": "1",
	}
	tests := []struct {
		name string
		typ  btf.Type
		weak bool
		want syscall.Errno // 0: filled, no refusal
	}{
		{"CONFIG_HZ", u16, false, 0},
		{"CONFIG_HZ", boolT, false, syscall.EINVAL},  // implies integer type
		{"CONFIG_ONE", boolT, false, syscall.EINVAL}, // numbers never go into a bool
		{"CONFIG_Y", s32, false, syscall.EINVAL},     // implies bool, tristate, or char
		{"CONFIG_Y", u8, false, 0},                   // a char takes the letter
		{"CONFIG_M", boolT, false, syscall.EINVAL},
		{"CONFIG_STR", s32, false, syscall.EINVAL},
		{"CONFIG_STR", str, false, 0},
		{"CONFIG_HZ", str, false, syscall.EINVAL},
		{"CONFIG_BIG", u16, false, syscall.EINVAL}, // ERANGE, but a config line's failure is EINVAL
		{"CONFIG_NEG", s32, false, 0},
		{"CONFIG_NEG", u16, false, syscall.EINVAL},
		{"CONFIG_HEX", u8, false, 0},
		{"CONFIG_OCT", u8, false, 0},
		{"CONFIG_BAD_NUM", s32, false, syscall.EINVAL},
		{"CONFIG_ABSENT", s32, false, syscall.ESRCH},
		{"CONFIG_ABSENT", s32, true, 0},
		{"CONFIG_Y", otherEnum, false, syscall.EOPNOTSUPP},
		{"LINUX_KERNEL_VERSION", u8, false, syscall.ERANGE},
		{"LINUX_KERNEL_VERSION", u64, false, 0},
		{"LINUX_HAS_BPF_COOKIE", boolT, false, 0},
		{"LINUX_SOMETHING_NEW", s32, false, syscall.EINVAL},
		{"LINUX_SOMETHING_NEW", s32, true, 0},
		{"NOT_A_CONFIG", s32, true, syscall.EINVAL},
	}
	for _, tt := range tests {
		size, _ := btf.Sizeof(tt.typ)
		ds := &btf.Datasec{Name: ".kconfig", Size: uint32(size), Vars: []btf.VarSecinfo{
			{Type: &btf.Var{Name: tt.name, Type: tt.typ}, Size: uint32(size)}}}
		_, _, err := fillKconfig(ds, kernelTarget{release: "6.18.1", config: cfg}, binary.LittleEndian, map[string]bool{tt.name: tt.weak})
		var got syscall.Errno
		var kerr *KconfigError
		if errors.As(err, &kerr) {
			got = kerr.Errno
		}
		if got != tt.want {
			t.Errorf("%s as %v (weak %v): refusal %v (%v), want errno %v", tt.name, tt.typ, tt.weak, got, err, tt.want)
		}
	}
}

func TestStrtoull(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"250", 250, true}, {"0x3e8", 1000, true}, {"0X10", 16, true}, {"010", 8, true}, {"0", 0, true},
		{"-1", 1<<64 - 1, true}, {"+7", 7, true}, {" 5", 5, true},
		{"08", 0, false}, {"12abc", 0, false}, {"", 0, false}, {"0x", 0, false},
		{"18446744073709551615", 1<<64 - 1, true}, {"18446744073709551616", 0, false}, {"1_000", 0, false},
	}
	for _, tt := range tests {
		got, ok := strtoull(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("strtoull(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestBuildRecord checks the special fields read from a map's BTF value
// type: their kind, offset and size, and the cases vercheck refuses to
// guess.
func TestBuildRecord(t *testing.T) {
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4, Members: []btf.Member{{Name: "val", Type: u32}}}
	resLock := &btf.Struct{Name: "bpf_res_spin_lock", Size: 4, Members: []btf.Member{{Name: "val", Type: u32}}}
	timer := &btf.Struct{Name: "bpf_timer", Size: 16, Members: []btf.Member{{Name: "a", Type: u64}, {Name: "b", Type: u64, Offset: 64}}}
	listHead := &btf.Struct{Name: "bpf_list_head", Size: 16}
	listNode := &btf.Struct{Name: "bpf_list_node", Size: 24}
	progLocal := &btf.Struct{Name: "prog_local"}
	kptr := &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: progLocal}}
	nested := &btf.Struct{Name: "inner", Size: 8, Members: []btf.Member{{Name: "l", Type: lock}}}
	value := func(members ...btf.Member) *loader.Map {
		return &loader.Map{Name: "m", Type: ebpf.Hash, Spec: &ebpf.MapSpec{Value: &btf.Struct{Name: "v", Size: 64, Members: members}}}
	}
	headAndKptr := value(
		btf.Member{Name: "head", Type: listHead},
		btf.Member{Name: "p", Type: kptr, Offset: 128},
	)
	kptrArray := value(btf.Member{Name: "in", Type: &btf.Struct{Name: "holder", Size: 16, Members: []btf.Member{
		{Name: "ps", Type: &btf.Array{Type: kptr, Nelems: 2}},
	}}})
	type got struct {
		HasBTF                bool
		Fields                []mapField
		SpinLockOff, TimerOff int64
		ResSpinLockOff        int64
		Unsupported           string
	}
	tests := []struct {
		name string
		m    *loader.Map
		want got
	}{
		{"no BTF", &loader.Map{Name: "legacy"}, got{SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: -1}},
		{"plain value", value(btf.Member{Name: "x", Type: u64}), got{HasBTF: true, SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: -1}},
		{"lock and timer", value(
			btf.Member{Name: "cnt", Type: u32},
			btf.Member{Name: "lock", Type: lock, Offset: 32},
			btf.Member{Name: "t", Type: timer, Offset: 64},
		), got{HasBTF: true, Fields: []mapField{
			{kind: fieldSpinLock, name: "bpf_spin_lock", off: 4, size: 4},
			{kind: fieldTimer, name: "bpf_timer", off: 8, size: 16},
		}, SpinLockOff: 4, TimerOff: 8, ResSpinLockOff: -1}},
		// btf_find_field_one takes a member's type as the BTF has it: a
		// typedef'd timer, a volatile lock and a timer off its 8-byte
		// alignment are plain data.
		{"typedef, qualifier, misalignment: plain data", value(
			btf.Member{Name: "lock", Type: &btf.Volatile{Type: lock}},
			btf.Member{Name: "t", Type: &btf.Typedef{Name: "timer_t", Type: timer}, Offset: 64},
			btf.Member{Name: "t4", Type: timer, Offset: 224},
		), got{HasBTF: true, SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: -1}},
		{"list head and kptr", headAndKptr, got{HasBTF: true, Fields: []mapField{
			{kind: fieldListHead, name: "bpf_list_head", off: 0, size: 16},
			{kind: fieldKptr, name: "kptr", off: 16, size: 8,
				kptr: &kptrField{kind: kptrRef, local: progLocal, owner: headAndKptr}},
		}, SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: -1}},
		{"list node is no map field", value(btf.Member{Name: "n", Type: listNode}), got{HasBTF: true, SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: -1}},
		{"global data", &loader.Map{Name: ".data.A", Type: ebpf.Array, Spec: &ebpf.MapSpec{Value: &btf.Datasec{Name: ".data.A", Size: 16, Vars: []btf.VarSecinfo{
			{Type: &btf.Var{Name: "cnt", Type: u64}, Offset: 0, Size: 8},
			{Type: &btf.Var{Name: "lock", Type: lock}, Offset: 8, Size: 4},
		}}}}, got{HasBTF: true, Fields: []mapField{
			{kind: fieldSpinLock, name: "bpf_spin_lock", off: 8, size: 4},
		}, SpinLockOff: 8, TimerOff: -1, ResSpinLockOff: -1}},
		{"nested lock", value(btf.Member{Name: "x", Type: u64}, btf.Member{Name: "in", Type: nested, Offset: 64}), got{HasBTF: true,
			Fields:      []mapField{{kind: fieldSpinLock, name: "bpf_spin_lock", off: 8, size: 4}},
			SpinLockOff: 8, TimerOff: -1, ResSpinLockOff: -1}},
		{"lock array: no record", value(btf.Member{Name: "ls", Type: &btf.Array{Type: lock, Nelems: 2}}), got{HasBTF: true, SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: -1}},
		{"kptr array in a nested struct", kptrArray, got{HasBTF: true, Fields: []mapField{
			{kind: fieldKptr, name: "kptr", off: 0, size: 8, kptr: &kptrField{kind: kptrRef, local: progLocal, owner: kptrArray}},
			{kind: fieldKptr, name: "kptr", off: 8, size: 8, kptr: &kptrField{kind: kptrRef, local: progLocal, owner: kptrArray}},
		}, SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: -1}},
		{"two locks", value(btf.Member{Name: "a", Type: lock}, btf.Member{Name: "b", Type: lock, Offset: 32}), got{HasBTF: true,
			Fields: []mapField{
				{kind: fieldSpinLock, name: "bpf_spin_lock", off: 0, size: 4},
				{kind: fieldSpinLock, name: "bpf_spin_lock", off: 4, size: 4},
			}, SpinLockOff: 4, TimerOff: -1, ResSpinLockOff: -1, Unsupported: "two lock fields in one map value"}},
		{"resilient lock", value(btf.Member{Name: "x", Type: u64}, btf.Member{Name: "l", Type: resLock, Offset: 64}), got{HasBTF: true,
			Fields:      []mapField{{kind: fieldResSpinLock, name: "bpf_res_spin_lock", off: 8, size: 4}},
			SpinLockOff: -1, TimerOff: -1, ResSpinLockOff: 8}},
		{"both lock kinds", value(btf.Member{Name: "a", Type: lock}, btf.Member{Name: "b", Type: resLock, Offset: 32}), got{HasBTF: true,
			Fields: []mapField{
				{kind: fieldSpinLock, name: "bpf_spin_lock", off: 0, size: 4},
				{kind: fieldResSpinLock, name: "bpf_res_spin_lock", off: 4, size: 4},
			}, SpinLockOff: 0, TimerOff: -1, ResSpinLockOff: 4, Unsupported: "two lock fields in one map value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := buildRecord(tt.m)
			g := got{r.hasBTF, r.fields, r.spinLockOff, r.timerOff, r.resSpinLockOff, r.unsupported}
			if diff := cmp.Diff(tt.want, g, cmp.AllowUnexported(mapField{}, kptrField{})); diff != "" {
				t.Errorf("record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKernelMapName checks the kernel's 15-byte truncation of map names.
func TestKernelMapName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"lock_map", "lock_map"},
		{"a_very_long_map_name", "a_very_long_map"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, kernelMapName(&loader.Map{Name: tt.in})); diff != "" {
			t.Errorf("kernelMapName(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

package verifier

import (
	"testing"

	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

// TestParseKptr checks the kptr a tagged pointer member declares: its kind,
// the vmlinux struct it points to, and why vercheck leaves some alone.
func TestParseKptr(t *testing.T) {
	if _, err := vmlinux(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	task := btfTypeID(btfStructByName("task_struct"))
	myNode := &btf.Struct{Name: "my_node"}
	userData := &btf.Struct{Name: "user_data", Size: 16}
	ptr := func(tag, target string) *btf.Pointer {
		if target == myNode.Name {
			return &btf.Pointer{Target: &btf.TypeTag{Value: tag, Type: myNode}}
		}
		return &btf.Pointer{Target: &btf.TypeTag{Value: tag, Type: &btf.Struct{Name: target}}}
	}
	tests := []struct {
		name string
		p    *btf.Pointer
		want *kptrField
	}{
		{"untagged", &btf.Pointer{Target: &btf.Struct{Name: "task_struct"}}, nil},
		{"unreferenced", ptr("kptr_untrusted", "task_struct"), &kptrField{kind: kptrUnref, target: task}},
		{"referenced", ptr("kptr", "task_struct"), &kptrField{kind: kptrRef, target: task}},
		{"referenced without destructor", ptr("kptr", "file"), &kptrField{kind: kptrRef, target: btfTypeID(btfStructByName("file")),
			unsupported: "referenced kptr to struct file, which has no destructor", noDtor: "file"}},
		{"program struct", ptr("kptr", "my_node"), &kptrField{kind: kptrRef, local: myNode}},
		{"per-CPU", ptr("percpu_kptr", "my_node"), &kptrField{kind: kptrPercpu, local: myNode}},
		{"per-CPU kernel struct", ptr("percpu_kptr", "task_struct"), &kptrField{kind: kptrPercpu, target: task,
			accessUnsupported: "percpu_kptr to kernel struct task_struct"}},
		{"unknown tag", ptr("kptr_weird", "task_struct"), &kptrField{unsupported: "kptr field with the unknown tag kptr_weird", invalid: true}},
		{"second tag", &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: &btf.TypeTag{Value: "arena", Type: myNode}}},
			&kptrField{kind: kptrRef, unsupported: "kptr field with a second type tag", invalid: true}},
		{"uptr", &btf.Pointer{Target: &btf.TypeTag{Value: "uptr", Type: userData}}, &kptrField{kind: kptrUptr, uptrSize: 16}},
		{"uptr to a kernel struct", ptr("uptr", "task_struct"), &kptrField{kind: kptrUptr,
			unsupported: "uptr to kernel struct task_struct (the kernel refuses the map)"}},
		{"uptr to more than a page", &btf.Pointer{Target: &btf.TypeTag{Value: "uptr", Type: &btf.Struct{Name: "big", Size: 4097}}},
			&kptrField{kind: kptrUptr, unsupported: "uptr to a struct of 4097 bytes (the kernel refuses the map)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, parseKptr(tt.p), cmp.AllowUnexported(kptrField{})); diff != "" {
				t.Errorf("kptr mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefusedStructMeta(t *testing.T) {
	node := &btf.Struct{Name: "node", Size: 4}
	arenaPtr := &btf.Pointer{Target: &btf.TypeTag{Value: "arena", Type: node}}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4}
	withLock := &btf.Struct{Name: "locked", Size: 16, Members: []btf.Member{
		{Name: "l", Type: lock}, {Name: "p", Type: arenaPtr, Offset: 64},
	}}
	plain := &btf.Struct{Name: "plain", Size: 16, Members: []btf.Member{
		{Name: "x", Type: &btf.Int{Size: 8}}, {Name: "p", Type: arenaPtr, Offset: 64},
	}}
	outer := &btf.Struct{Name: "outer", Size: 32, Members: []btf.Member{
		{Name: "a", Type: &btf.Array{Type: withLock, Nelems: 2}},
	}}
	u8 := &btf.Int{Name: "char", Size: 1}
	misaligned := &btf.Struct{Name: "packed", Size: 5, Members: []btf.Member{
		{Name: "c", Type: u8}, {Name: "l", Type: lock, Offset: 8},
	}}
	misalignedNode := &btf.Struct{Name: "packed_node", Size: 32, Members: []btf.Member{
		{Name: "c", Type: u8}, {Name: "l", Type: lock, Offset: 8}, {Name: "n", Type: &btf.Struct{Name: "bpf_list_node", Size: 24}, Offset: 64},
	}}
	wrongSize := &btf.Struct{Name: "big_lock", Size: 8, Members: []btf.Member{
		{Name: "l", Type: &btf.Struct{Name: "bpf_spin_lock", Size: 8}},
	}}
	noDtor := &btf.Struct{Name: "with_file", Size: 16, Members: []btf.Member{
		{Name: "l", Type: lock}, {Name: "f", Type: &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: &btf.Struct{Name: "file"}}}, Offset: 64},
	}}
	tests := []struct {
		name string
		t    btf.Type
		want *btf.Struct
	}{
		{"lock and arena pointer", withLock, withLock},
		{"arena pointer alone", plain, nil},
		{"nested in an array", outer, withLock},
		{"a lock alone", &btf.Struct{Name: "l", Size: 4, Members: []btf.Member{{Name: "l", Type: lock}}}, nil},
		{"a misaligned lock alone (no field: EFAULT)", misaligned, misaligned},
		{"a misaligned lock beside a list node", misalignedNode, nil},
		{"a lock of another size alone", wrongSize, wrongSize},
		{"a lock and a referenced kptr without destructor (ENOENT)", noDtor, noDtor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, refusedStructMeta(tt.t, 0)); diff != "" {
				t.Errorf("refusedStructMeta mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

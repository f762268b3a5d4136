package main

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/mutate"
	"github.com/vercheck/vercheck/loader"
)

// TestWithMapBTF: the map-BTF edits change the map's type, key or one
// value member's type as described, on copies: the seed's map and types
// stay as they were.
func TestWithMapBTF(t *testing.T) {
	u32 := &btf.Int{Name: "u32", Size: 4}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4}
	value := &btf.Struct{Name: "v", Size: 8, Members: []btf.Member{{Name: "l", Type: lock}, {Name: "x", Type: u32, Offset: 32}}}
	seed := &loader.Map{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1,
		Spec: &ebpf.MapSpec{Name: "m", Type: ebpf.Array, Key: u32, Value: value}}

	m := withMapBTF(seed, mutate.MapBTF{Type: uint32(ebpf.LRUHash)})
	if m.Type != ebpf.LRUHash || m.Spec.Type != ebpf.LRUHash || seed.Type != ebpf.Array || seed.Spec.Type != ebpf.Array {
		t.Errorf("type: got %v/%v, seed %v/%v", m.Type, m.Spec.Type, seed.Type, seed.Spec.Type)
	}
	m = withMapBTF(seed, mutate.MapBTF{Key: mutate.KeyEnum})
	if e, ok := m.Spec.Key.(*btf.Enum); !ok || e.Size != 4 || seed.Spec.Key != u32 {
		t.Errorf("enum key: got %v, seed's %v", m.Spec.Key, seed.Spec.Key)
	}
	m = withMapBTF(seed, mutate.MapBTF{Member: 0, Wrap: mutate.WrapTypedef})
	s, ok := m.Spec.Value.(*btf.Struct)
	if !ok {
		t.Fatalf("value %v", m.Spec.Value)
	}
	if td, ok := s.Members[0].Type.(*btf.Typedef); !ok || td.Type.(*btf.Struct).Name != "bpf_spin_lock" {
		t.Errorf("member 0: %v, want a typedef of bpf_spin_lock", s.Members[0].Type)
	}
	if value.Members[0].Type != lock {
		t.Errorf("the seed's value changed: %v", value.Members[0].Type)
	}
}

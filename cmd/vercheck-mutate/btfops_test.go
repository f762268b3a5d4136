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
// stay as they were, and the new types refer to the seed's own.
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
	if td, ok := s.Members[0].Type.(*btf.Typedef); !ok || td.Type != lock {
		t.Errorf("member 0: %v, want a typedef of the seed's own bpf_spin_lock", s.Members[0].Type)
	}
	if s.Members[1].Type != u32 {
		t.Errorf("member 1: %v, want the seed's own u32 (a copy is another type to the kernel)", s.Members[1].Type)
	}
	if value.Members[0].Type != lock {
		t.Errorf("the seed's value changed: %v", value.Members[0].Type)
	}
}

// TestEditedFunc: the function-BTF edits change a copy of the function's
// BTF as described: linkage, a parameter's type or tags, the return type.
func TestEditedFunc(t *testing.T) {
	u32 := &btf.Int{Name: "u32", Size: 4}
	fn := &btf.Func{Name: "f", Linkage: btf.StaticFunc, Type: &btf.FuncProto{Return: u32,
		Params: []btf.FuncParam{{Name: "a", Type: u32}, {Name: "b", Type: u32}}}}
	if g := editedFunc(fn, mutate.FuncBTF{Edit: mutate.FuncLinkage}); g.Linkage != btf.GlobalFunc || fn.Linkage != btf.StaticFunc {
		t.Errorf("linkage: %v (the seed's %v)", g.Linkage, fn.Linkage)
	}
	g := editedFunc(fn, mutate.FuncBTF{Edit: mutate.FuncParamTag, Param: 1, Variant: 0})
	if len(g.ParamTags) != 2 || len(g.ParamTags[1]) != 1 || g.ParamTags[1][0] != mutate.ParamTags[0] || fn.ParamTags != nil {
		t.Errorf("param tags: %q (the seed's %q)", g.ParamTags, fn.ParamTags)
	}
	g = editedFunc(fn, mutate.FuncBTF{Edit: mutate.FuncParamType, Param: 0, Variant: 2})
	if _, ok := g.Type.(*btf.FuncProto).Params[0].Type.(*btf.Pointer); !ok || fn.Type.(*btf.FuncProto).Params[0].Type != u32 {
		t.Errorf("param type: %v", g.Type.(*btf.FuncProto).Params[0].Type)
	}
	g = editedFunc(fn, mutate.FuncBTF{Edit: mutate.FuncReturn, Variant: 0})
	if _, ok := g.Type.(*btf.FuncProto).Return.(*btf.Void); !ok {
		t.Errorf("return: %v", g.Type.(*btf.FuncProto).Return)
	}
}

package loader

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"
)

// TestInnerMaps gives a map-in-map whose definition leaves its inner map
// to the loader an inner map template: a map of the object or one
// described, and refuses what names no such pair.
func TestInnerMaps(t *testing.T) {
	const path = "testdata/mim_no_inner.o"
	type shape struct {
		Name            string
		Type            ebpf.MapType
		Key, Value, Max uint32
		InnerInner      bool
	}
	tests := []struct {
		name  string
		inner map[string]InnerMap
		want  *shape
		err   error
	}{
		{"left to the loader", nil, nil, nil},
		{"a map of the object", map[string]InnerMap{"outer": {Name: "template"}},
			&shape{Name: "template", Type: ebpf.Array, Key: 4, Value: 8, Max: 1}, nil},
		{"a described map", map[string]InnerMap{"outer": {Spec: &ebpf.MapSpec{Type: ebpf.Hash, KeySize: 4, ValueSize: 16, MaxEntries: 8}}},
			&shape{Name: "outer.inner", Type: ebpf.Hash, Key: 4, Value: 16, Max: 8}, nil},
		{"no such outer map", map[string]InnerMap{"nope": {Name: "template"}}, nil, ErrInnerMap},
		{"not a map-in-map", map[string]InnerMap{"template": {Name: "outer"}}, nil, ErrInnerMap},
		{"itself", map[string]InnerMap{"outer": {Name: "outer"}}, nil, ErrInnerMap},
		{"no such inner map", map[string]InnerMap{"outer": {Name: "nope"}}, nil, ErrInnerMap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := Open(path, Options{InnerMaps: tt.inner})
			if !errors.Is(err, tt.err) {
				t.Fatalf("Open: %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			var got *shape
			for _, m := range obj.Maps {
				if m.Name == "outer" && m.Inner != nil {
					in := m.Inner
					got = &shape{Name: in.Name, Type: in.Type, Key: in.KeySize, Value: in.ValueSize, Max: in.MaxEntries, InnerInner: in.Inner != nil}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("inner map of outer (-want +got):\n%s", diff)
			}
		})
	}
}

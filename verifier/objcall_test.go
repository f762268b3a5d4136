package verifier

import (
	"testing"

	"github.com/cilium/ebpf/btf"
)

// TestSameRecord: records compare as btf_record_equal does, field by
// field, kptrs by their struct and graph roots by their node struct.
func TestSameRecord(t *testing.T) {
	a, b := &btf.Struct{Name: "a"}, &btf.Struct{Name: "b"}
	lock := func(off uint32) mapField { return mapField{kind: fieldSpinLock, off: off, size: 4} }
	kptr := func(to btf.Type) mapField {
		return mapField{kind: fieldKptr, off: 8, size: 8, kptr: &kptrField{kind: kptrRef, local: to}}
	}
	root := func(value btf.Type, nodeOff uint32) mapField {
		return mapField{kind: fieldListHead, off: 16, size: 16, root: &graphRoot{value: value, nodeOff: nodeOff}}
	}
	rec := func(fields ...mapField) *mapRecord { return &mapRecord{fields: fields} }
	tests := []struct {
		name string
		x, y *mapRecord
		want bool
	}{
		{"no records", nil, nil, true},
		{"a record and none", rec(lock(0)), nil, false},
		{"same lock", rec(lock(8)), rec(lock(8)), true},
		{"lock elsewhere", rec(lock(8)), rec(lock(16)), false},
		{"more fields", rec(lock(0)), rec(lock(0), kptr(a)), false},
		{"kptrs to one struct", rec(lock(0), kptr(a)), rec(lock(0), kptr(a)), true},
		{"kptrs to two structs", rec(lock(0), kptr(a)), rec(lock(0), kptr(b)), false},
		{"roots of one node", rec(lock(0), root(a, 8)), rec(lock(0), root(a, 8)), true},
		{"roots of two nodes", rec(lock(0), root(a, 8)), rec(lock(0), root(b, 8)), false},
		{"roots at two node offsets", rec(lock(0), root(a, 8)), rec(lock(0), root(a, 16)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameRecord(tt.x, tt.y); got != tt.want {
				t.Errorf("sameRecord = %v, want %v", got, tt.want)
			}
			if got := sameRecord(tt.y, tt.x); got != tt.want {
				t.Errorf("sameRecord (swapped) = %v, want %v", got, tt.want)
			}
		})
	}
}

package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// TestHoldsMapPtr: which registers the kernel finds a map pointer in, for
// a "__map" kfunc argument, and which vercheck cannot tell.
func TestHoldsMapPtr(t *testing.T) {
	type answer struct{ Set, Known bool }
	tests := []struct {
		typ  states.RegType
		want answer
	}{
		{states.ConstPtrToMap, answer{true, true}},
		{states.PtrToMapValue, answer{true, true}},
		{states.PtrToMapKey, answer{true, true}},
		{states.PtrToBTFID, answer{true, true}},
		{states.ScalarValue, answer{false, true}},
		{states.PtrToStack, answer{false, true}},
		{states.PtrToCtx, answer{false, true}},
		{states.PtrToArena, answer{false, true}},
		{states.PtrToPacket, answer{false, false}},
		{states.PtrToMem, answer{false, false}},
	}
	for _, tt := range tests {
		reg := states.Reg{Type: tt.typ}
		set, known := holdsMapPtr(&reg)
		if diff := cmp.Diff(tt.want, answer{set, known}); diff != "" {
			t.Errorf("holdsMapPtr(%v) mismatch (-want +got):\n%s", tt.typ, diff)
		}
	}
}

// TestArenaValueOffset: an arena global's offset may reach the end of the
// arena, not beyond (arena_map_direct_value_addr).
func TestArenaValueOffset(t *testing.T) {
	const page = arenaPageSize
	m := &loader.Map{Type: ebpf.Arena, MaxEntries: 2}
	tests := []struct {
		off    uint32
		reject bool
	}{
		{0, false},
		{2*page - 8, false},
		{2 * page, false},
		{2*page + 1, true},
	}
	for _, tt := range tests {
		msg, _ := directValueError(m, tt.off)
		if got := msg != ""; got != tt.reject {
			t.Errorf("directValueError(%d) = %q, want a rejection: %v", tt.off, msg, tt.reject)
		}
	}
}

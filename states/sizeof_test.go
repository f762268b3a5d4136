package states

import (
	"reflect"
	"testing"
)

// TestSizeof guards the sizes of the structs copied on every branch and
// checkpoint: a register is copied 11 times per frame plus once per stack
// slot. Growing one of them is a deliberate decision; update the table.
func TestSizeof(t *testing.T) {
	tests := []struct {
		val  any
		size uintptr
	}{
		{Reg{}, 96},
		{Slot{}, 104},
	}
	for _, tt := range tests {
		got := reflect.TypeOf(tt.val).Size()
		if got != tt.size {
			t.Errorf("unsafe.Sizeof(%T) = %d, want %d", tt.val, got, tt.size)
		}
	}
}

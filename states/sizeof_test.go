package states

import (
	"reflect"
	"testing"
)

// TestSizeof guards the sizes of the structs copied on every branch and
// checkpoint: a register is copied 11 times per frame plus once per stack
// slot. Growing one of them is a deliberate decision; update the table.
// A State and a Frame must stay within a size class whose objects start
// on a cache line (192 bytes): their layouts put what comparisons read
// first in whole lines.
func TestSizeof(t *testing.T) {
	tests := []struct {
		val  any
		size uintptr
	}{
		{Reg{}, 96},
		{Slot{}, 104},
		{State{}, 184},
		{Frame{}, 192},
	}
	for _, tt := range tests {
		got := reflect.TypeOf(tt.val).Size()
		if got != tt.size {
			t.Errorf("unsafe.Sizeof(%T) = %d, want %d", tt.val, got, tt.size)
		}
	}
}

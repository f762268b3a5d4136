package states

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGrowStack(t *testing.T) {
	tests := []struct {
		name    string
		initial int // allocated bytes before
		grow    int
		want    int // allocated bytes after
	}{
		{"from empty, whole slot", 0, 8, 8},
		{"rounds up", 0, 9, 16},
		{"never shrinks", 64, 8, 64},
		{"zero request", 16, 0, 16},
		{"negative request", 16, -5, 16},
		{"capped at MaxStack", 0, MaxStack + 100, MaxStack},
		{"full stack", 8, MaxStack, MaxStack},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Frame
			f.GrowStack(tt.initial)
			f.GrowStack(tt.grow)
			if got := f.AllocatedStack(); got != tt.want {
				t.Errorf("AllocatedStack() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestGrowStackZeroesReusedMemory(t *testing.T) {
	var f Frame
	f.GrowStack(32)
	for i := range f.NumSlots() {
		f.Slot(i).Types[0] = StackMisc
		f.Slot(i).Spilled.MarkConst(uint64(i))
	}
	f.stack = f.stack[:1] // as after copying a smaller stack in
	f.GrowStack(32)
	want := Slot{}
	for i := 1; i < 4; i++ {
		if diff := cmp.Diff(want, *f.Slot(i), allowReg); diff != "" {
			t.Errorf("slot %d not reset (-want +got):\n%s", i, diff)
		}
	}
	if f.Slot(0).Types[0] != StackMisc {
		t.Errorf("slot 0 lost its contents")
	}
}

func TestSlotAt(t *testing.T) {
	var f Frame
	f.GrowStack(16)
	tests := []struct {
		off      int
		wantSpi  int // -1: no slot
		wantByte int
	}{
		{-1, 0, 7},
		{-8, 0, 0},
		{-4, 0, 4},
		{-9, 1, 7},
		{-16, 1, 0},
		{-17, -1, -1}, // not allocated
		{0, -1, -1},   // at fp
		{8, -1, -1},   // above fp
	}
	for _, tt := range tests {
		s, b := f.SlotAt(tt.off)
		spi := -1
		for i := range f.NumSlots() {
			if s == f.Slot(i) {
				spi = i
			}
		}
		if s != nil && spi == -1 {
			t.Errorf("SlotAt(%d) returned a slot outside the stack", tt.off)
		}
		if spi != tt.wantSpi || b != tt.wantByte {
			t.Errorf("SlotAt(%d) = slot %d byte %d, want slot %d byte %d", tt.off, spi, b, tt.wantSpi, tt.wantByte)
		}
		if tt.wantSpi >= 0 && SlotIndex(tt.off) != tt.wantSpi {
			t.Errorf("SlotIndex(%d) = %d, want %d", tt.off, SlotIndex(tt.off), tt.wantSpi)
		}
	}
	if got := SlotOffset(1); got != -16 {
		t.Errorf("SlotOffset(1) = %d, want -16", got)
	}
}

func TestSlotPredicates(t *testing.T) {
	var scalar, ptr Reg
	scalar.MarkConst(3)
	ptr.MarkPtr(PtrToCtx, 0)
	spill := func(n int, r Reg) Slot { // spill of the low n bytes over MISC
		var s Slot
		for i := range s.Types {
			s.Types[i] = StackMisc
		}
		for i := SlotSize - n; i < SlotSize; i++ {
			s.Types[i] = StackSpill
		}
		s.Spilled = r
		return s
	}
	misc := Slot{Types: [SlotSize]SlotType{StackMisc, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc}}
	halfInvalid := Slot{Types: [SlotSize]SlotType{StackInvalid, StackInvalid, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc, StackMisc}}
	type preds struct{ Spilled, SpilledScalar, SpilledScalar64, AllMisc, AllMiscUninit, Valid bool }
	tests := []struct {
		name string
		s    Slot
		want preds
	}{
		{"empty", Slot{}, preds{AllMiscUninit: true}},
		{"misc", misc, preds{AllMisc: true, AllMiscUninit: true, Valid: true}},
		{"half invalid", halfInvalid, preds{AllMiscUninit: true, Valid: true}},
		{"64-bit scalar spill", spill(8, scalar), preds{Spilled: true, SpilledScalar: true, SpilledScalar64: true, Valid: true}},
		{"32-bit scalar spill", spill(4, scalar), preds{Spilled: true, SpilledScalar: true, Valid: true}},
		{"pointer spill", spill(8, ptr), preds{Spilled: true, Valid: true}},
	}
	for _, tt := range tests {
		s := tt.s
		got := preds{s.IsSpilledReg(), s.IsSpilledScalarReg(), s.IsSpilledScalarReg64(), s.IsAllMisc(false), s.IsAllMisc(true), s.IsValid()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: predicates mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	s := spill(8, scalar)
	s.Invalidate()
	var want Slot
	want.Spilled.MarkNotInit()
	if diff := cmp.Diff(want, s, allowReg); diff != "" {
		t.Errorf("Invalidate mismatch (-want +got):\n%s", diff)
	}
}

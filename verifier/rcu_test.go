package verifier

import (
	"testing"

	"github.com/vercheck/vercheck/states"
)

// TestBTFSafeField checks the kernel's safe-field lists as its BTF holds
// them: a field matches by the walked struct, its name and the type it
// points to.
func TestBTFSafeField(t *testing.T) {
	if _, err := vmlinux(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	id := func(name string) uint32 { return btfTypeID(btfStructByName(name)) }
	tests := []struct {
		regType, suffix, field, target string
		want                           bool
	}{
		{"task_struct", safeRCU, "real_parent", "task_struct", true},
		{"task_struct", safeTrusted, "real_parent", "task_struct", false},
		{"task_struct", safeRCU, "parent", "task_struct", false},
		{"task_struct", safeRCU, "real_parent", "cgroup", false},
		{"bpf_iter_meta", safeTrusted, "seq", "seq_file", true},
		{"mm_struct", safeRCUOrNull, "exe_file", "file", true},
		{"file", safeTrusted, "f_inode", "inode", true},
	}
	for _, tt := range tests {
		rt := btfStructByName(tt.regType)
		if rt == nil || id(tt.target) == 0 {
			t.Fatalf("struct %s or %s not in kernel BTF", tt.regType, tt.target)
		}
		if got := btfSafeField(rt, tt.suffix, tt.field, id(tt.target)); got != tt.want {
			t.Errorf("btfSafeField(%s%s, %s, %s) = %v, want %v", tt.regType, tt.suffix, tt.field, tt.target, got, tt.want)
		}
	}
}

// TestUntrustRCUPointers checks what bpf_rcu_read_unlock leaves of RCU
// pointers in registers, spilled registers and iterator slots.
func TestUntrustRCUPointers(t *testing.T) {
	st := states.NewState()
	f := st.Frames[0]
	f.Regs()[1].MarkPtr(states.PtrToBTFID, states.MemRCU|states.MaybeNull)
	f.Regs()[2].MarkPtr(states.PtrToBTFID, states.PtrTrusted)
	f.GrowStack(2 * states.SlotSize)
	f.Slot(0).Spilled.MarkPtr(states.PtrToBTFID, states.MemRCU)
	f.Slot(1).Spilled.MarkPtr(states.PtrToStack, states.MemRCU)
	for b := range states.SlotSize {
		f.Slot(0).Types[b] = states.StackSpill
		f.Slot(1).Types[b] = states.StackIter
	}
	e := &env{cur: st}
	e.untrustRCUPointers()
	for _, c := range []struct {
		name string
		got  states.RegFlags
		want states.RegFlags
	}{
		{"RCU register", f.Regs()[1].Flags, states.PtrUntrusted},
		{"trusted register", f.Regs()[2].Flags, states.PtrTrusted},
		{"spilled RCU register", f.Slot(0).Spilled.Flags, states.PtrUntrusted},
		{"RCU iterator", f.Slot(1).Spilled.Flags, states.PtrUntrusted},
	} {
		if c.got != c.want {
			t.Errorf("%s: flags %#x, want %#x", c.name, c.got, c.want)
		}
	}
}

package kfuncs

import (
	"testing"

	"github.com/cilium/ebpf"
)

// TestLookup reads registrations of each kind: a generic set's kfunc
// (tracing, tc, xdp..., not socket filters), a common-set one (every
// program type), a kprobe-session filter, a sched_ext kfunc (the struct_ops
// hook), and one vercheck does not model.
func TestLookup(t *testing.T) {
	tests := []struct {
		name  string
		pt    ebpf.ProgramType
		known bool
		flags Flags
		in    bool
	}{
		{"bpf_task_acquire", ebpf.Tracing, true, Acquire | RCU | RetNull, true},
		{"bpf_task_acquire", ebpf.SocketFilter, true, Acquire | RCU | RetNull, false},
		{"bpf_rcu_read_lock", ebpf.SocketFilter, true, 0, true},
		{"bpf_session_cookie", ebpf.Kprobe, true, SessionOnly, true},
		{"scx_bpf_pick_any_cpu", ebpf.StructOps, true, RCU, true},
		{"scx_bpf_pick_any_cpu", ebpf.XDP, true, RCU, false},
		{"bpf_kfunc_call_test_acquire", ebpf.SchedCLS, false, 0, false},
	}
	for _, tt := range tests {
		d, ok := Lookup(tt.name)
		if ok != tt.known || d.Flags != tt.flags || (ok && d.AllowedIn(tt.pt) != tt.in) {
			t.Errorf("%s in %v: known %v flags %#x allowed %v; want %v %#x %v", tt.name, tt.pt, ok, d.Flags, ok && d.AllowedIn(tt.pt), tt.known, tt.flags, tt.in)
		}
	}
}

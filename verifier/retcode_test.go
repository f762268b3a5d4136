package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"
)

func TestRetRange(t *testing.T) {
	type rng struct {
		Min, Max int64
		OK       bool
	}
	tests := []struct {
		pt   ebpf.ProgramType
		at   ebpf.AttachType
		want rng
	}{
		{ebpf.SocketFilter, 0, rng{}},
		{ebpf.XDP, ebpf.AttachXDP, rng{}},
		{ebpf.SchedCLS, 0, rng{}},
		{ebpf.Kprobe, 0, rng{}},
		{ebpf.Kprobe, ebpf.AttachTraceKprobeSession, rng{0, 1, true}},
		{ebpf.CGroupSKB, ebpf.AttachCGroupInetIngress, rng{0, 1, true}},
		{ebpf.CGroupSKB, ebpf.AttachCGroupInetEgress, rng{0, 3, true}},
		{ebpf.SkLookup, ebpf.AttachSkLookup, rng{0, 1, true}},
		{ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate, rng{0, 1, true}},
		{ebpf.SockOps, ebpf.AttachCGroupSockOps, rng{0, 1, true}},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, rng{0, 1, true}},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Bind, rng{0, 3, true}},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP4Recvmsg, rng{1, 1, true}},
		{ebpf.CGroupSysctl, ebpf.AttachCGroupSysctl, rng{0, 1, true}},
		{ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt, rng{0, 1, true}},
		{ebpf.CGroupDevice, ebpf.AttachCGroupDevice, rng{0, 1, true}},
		{ebpf.Netfilter, ebpf.AttachNetfilter, rng{0, 1, true}},
		{ebpf.Tracing, ebpf.AttachTraceRawTp, rng{}},
		{ebpf.Tracing, ebpf.AttachTraceIter, rng{0, 1, true}},
		// Decided per attach target by checkBTFReturnCode.
		{ebpf.LSM, ebpf.AttachLSMMac, rng{}},
		{ebpf.StructOps, 0, rng{}},
	}
	for _, tt := range tests {
		lo, hi, ok := retRange(tt.pt, tt.at)
		if diff := cmp.Diff(tt.want, rng{lo, hi, ok}); diff != "" {
			t.Errorf("retRange(%v, %v) mismatch (-want +got):\n%s", tt.pt, tt.at, diff)
		}
	}
}

package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"
)

func TestMapHelperCompatible(t *testing.T) {
	type result struct {
		OK  bool
		Msg string
	}
	tests := []struct {
		mt   ebpf.MapType
		fn   asm.BuiltinFunc
		want result
	}{
		{ebpf.Hash, asm.FnMapLookupElem, result{OK: true}},
		{ebpf.Array, asm.FnMapUpdateElem, result{OK: true}},
		{ebpf.ProgramArray, asm.FnTailCall, result{OK: true}},
		{ebpf.ProgramArray, asm.FnMapLookupElem, result{Msg: "cannot pass map_type 3 into func bpf_map_lookup_elem#1"}},
		{ebpf.Hash, asm.FnTailCall, result{Msg: "cannot pass map_type 1 into func bpf_tail_call#12"}},
		{ebpf.PerfEventArray, asm.FnPerfEventOutput, result{OK: true}},
		{ebpf.Array, asm.FnPerfEventOutput, result{Msg: "cannot pass map_type 2 into func bpf_perf_event_output#25"}},
		{ebpf.DevMap, asm.FnRedirectMap, result{OK: true}},
		{ebpf.XSKMap, asm.FnMapLookupElem, result{OK: true}},
		{ebpf.CPUMap, asm.FnMapLookupElem, result{Msg: "cannot pass map_type 16 into func bpf_map_lookup_elem#1"}},
		{ebpf.Hash, asm.FnRedirectMap, result{Msg: "cannot pass map_type 1 into func bpf_redirect_map#51"}},
		{ebpf.RingBuf, asm.FnRingbufReserve, result{OK: true}},
		{ebpf.RingBuf, asm.FnMapLookupElem, result{Msg: "cannot pass map_type 27 into func bpf_map_lookup_elem#1"}},
		{ebpf.SockMap, asm.FnSockMapUpdate, result{OK: true}},
		{ebpf.SockHash, asm.FnSockMapUpdate, result{Msg: "cannot pass map_type 18 into func bpf_sock_map_update#53"}},
		{ebpf.Queue, asm.FnMapPushElem, result{OK: true}},
		{ebpf.Hash, asm.FnMapPushElem, result{Msg: "cannot pass map_type 1 into func bpf_map_push_elem#87"}},
		{ebpf.PerCPUArray, asm.FnMapLookupPercpuElem, result{OK: true}},
		{ebpf.CGroupStorage, asm.FnGetLocalStorage, result{OK: true}},
		{ebpf.CgroupStorage, asm.FnCgrpStorageGet, result{OK: true}},
		{ebpf.CGroupStorage, asm.FnCgrpStorageGet, result{Msg: "cannot pass map_type 19 into func bpf_cgrp_storage_get#210"}},
	}
	for _, tt := range tests {
		ok, msg := mapHelperCompatible(tt.mt, int32(tt.fn))
		if diff := cmp.Diff(tt.want, result{ok, msg}); diff != "" {
			t.Errorf("mapHelperCompatible(%v, %v) mismatch (-want +got):\n%s", tt.mt, tt.fn, diff)
		}
	}
}

package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
)

// mapFuncResult is a check_map_func_compatibility verdict: whether the
// call is allowed and, when not, the kernel's message.
type mapFuncResult struct {
	OK  bool
	Msg string
}

// TestMapHelperCompatible checks the two switches of Linux 6.18's
// check_map_func_compatibility: for every map type the map switch names, a
// helper it allows and one it refuses; for every helper the helper switch
// names, a map type it allows and one it refuses; and map types neither
// switch restricts. Map type and helper numbers are the uapi enums
// (bpf_map_type, bpf_func_id), helper names func_id_name's.
func TestMapHelperCompatible(t *testing.T) {
	ok := mapFuncResult{OK: true}
	tests := []struct {
		mt   ebpf.MapType
		fn   asm.BuiltinFunc
		want mapFuncResult
	}{
		// The map switch.
		{ebpf.ProgramArray, asm.FnTailCall, ok},
		{ebpf.ProgramArray, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 3 into func bpf_map_lookup_elem#1"}},
		{ebpf.ProgramArray, asm.FnPerfEventOutput, mapFuncResult{Msg: "cannot pass map_type 3 into func bpf_perf_event_output#25"}},
		{ebpf.PerfEventArray, asm.FnPerfEventRead, ok},
		{ebpf.PerfEventArray, asm.FnPerfEventOutput, ok},
		{ebpf.PerfEventArray, asm.FnPerfEventReadValue, ok},
		{ebpf.PerfEventArray, asm.FnSkbOutput, ok},
		{ebpf.PerfEventArray, asm.FnXdpOutput, ok},
		{ebpf.PerfEventArray, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 4 into func bpf_map_lookup_elem#1"}},
		{ebpf.RingBuf, asm.FnRingbufOutput, ok},
		{ebpf.RingBuf, asm.FnRingbufReserve, ok},
		{ebpf.RingBuf, asm.FnRingbufQuery, ok},
		{ebpf.RingBuf, asm.FnRingbufReserveDynptr, ok},
		{ebpf.RingBuf, asm.FnRingbufSubmitDynptr, ok},
		{ebpf.RingBuf, asm.FnRingbufDiscardDynptr, ok},
		{ebpf.RingBuf, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 27 into func bpf_map_lookup_elem#1"}},
		{ebpf.RingBuf, asm.FnUserRingbufDrain, mapFuncResult{Msg: "cannot pass map_type 27 into func bpf_user_ringbuf_drain#209"}},
		{ebpf.UserRingbuf, asm.FnUserRingbufDrain, ok},
		{ebpf.UserRingbuf, asm.FnRingbufOutput, mapFuncResult{Msg: "cannot pass map_type 31 into func bpf_ringbuf_output#130"}},
		{ebpf.StackTrace, asm.FnGetStackid, ok},
		{ebpf.StackTrace, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 7 into func bpf_map_lookup_elem#1"}},
		{ebpf.CGroupArray, asm.FnSkbUnderCgroup, ok},
		{ebpf.CGroupArray, asm.FnCurrentTaskUnderCgroup, ok},
		{ebpf.CGroupArray, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 8 into func bpf_map_lookup_elem#1"}},
		{ebpf.CGroupStorage, asm.FnGetLocalStorage, ok},
		{ebpf.CGroupStorage, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 19 into func bpf_map_lookup_elem#1"}},
		{ebpf.PerCPUCGroupStorage, asm.FnGetLocalStorage, ok},
		{ebpf.PerCPUCGroupStorage, asm.FnMapUpdateElem, mapFuncResult{Msg: "cannot pass map_type 21 into func bpf_map_update_elem#2"}},
		{ebpf.DevMap, asm.FnRedirectMap, ok},
		{ebpf.DevMap, asm.FnMapLookupElem, ok},
		{ebpf.DevMap, asm.FnMapUpdateElem, mapFuncResult{Msg: "cannot pass map_type 14 into func bpf_map_update_elem#2"}},
		{ebpf.DevMapHash, asm.FnRedirectMap, ok},
		{ebpf.DevMapHash, asm.FnMapLookupElem, ok},
		{ebpf.DevMapHash, asm.FnMapDeleteElem, mapFuncResult{Msg: "cannot pass map_type 25 into func bpf_map_delete_elem#3"}},
		{ebpf.CPUMap, asm.FnRedirectMap, ok},
		{ebpf.CPUMap, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 16 into func bpf_map_lookup_elem#1"}},
		{ebpf.XSKMap, asm.FnRedirectMap, ok},
		{ebpf.XSKMap, asm.FnMapLookupElem, ok},
		{ebpf.XSKMap, asm.FnMapUpdateElem, mapFuncResult{Msg: "cannot pass map_type 17 into func bpf_map_update_elem#2"}},
		{ebpf.ArrayOfMaps, asm.FnMapLookupElem, ok},
		{ebpf.ArrayOfMaps, asm.FnMapUpdateElem, mapFuncResult{Msg: "cannot pass map_type 12 into func bpf_map_update_elem#2"}},
		{ebpf.HashOfMaps, asm.FnMapLookupElem, ok},
		{ebpf.HashOfMaps, asm.FnMapDeleteElem, mapFuncResult{Msg: "cannot pass map_type 13 into func bpf_map_delete_elem#3"}},
		// Socket map updates and deletes depend on the program type
		// (may_update_sockmap, TestMapFuncCompatibility); without one the
		// table allows them.
		{ebpf.SockMap, asm.FnSkRedirectMap, ok},
		{ebpf.SockMap, asm.FnSockMapUpdate, ok},
		{ebpf.SockMap, asm.FnMsgRedirectMap, ok},
		{ebpf.SockMap, asm.FnSkSelectReuseport, ok},
		{ebpf.SockMap, asm.FnMapLookupElem, ok},
		{ebpf.SockMap, asm.FnMapUpdateElem, ok},
		{ebpf.SockMap, asm.FnMapDeleteElem, ok},
		{ebpf.SockMap, asm.FnSkRedirectHash, mapFuncResult{Msg: "cannot pass map_type 15 into func bpf_sk_redirect_hash#72"}},
		{ebpf.SockMap, asm.FnMapPushElem, mapFuncResult{Msg: "cannot pass map_type 15 into func bpf_map_push_elem#87"}},
		{ebpf.SockHash, asm.FnSkRedirectHash, ok},
		{ebpf.SockHash, asm.FnSockHashUpdate, ok},
		{ebpf.SockHash, asm.FnMsgRedirectHash, ok},
		{ebpf.SockHash, asm.FnSkSelectReuseport, ok},
		{ebpf.SockHash, asm.FnMapLookupElem, ok},
		{ebpf.SockHash, asm.FnMapUpdateElem, ok},
		{ebpf.SockHash, asm.FnMapDeleteElem, ok},
		{ebpf.SockHash, asm.FnSockMapUpdate, mapFuncResult{Msg: "cannot pass map_type 18 into func bpf_sock_map_update#53"}},
		{ebpf.SockHash, asm.FnMsgRedirectMap, mapFuncResult{Msg: "cannot pass map_type 18 into func bpf_msg_redirect_map#60"}},
		{ebpf.ReusePortSockArray, asm.FnSkSelectReuseport, ok},
		{ebpf.ReusePortSockArray, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 20 into func bpf_map_lookup_elem#1"}},
		{ebpf.Queue, asm.FnMapPeekElem, ok},
		{ebpf.Queue, asm.FnMapPopElem, ok},
		{ebpf.Queue, asm.FnMapPushElem, ok},
		{ebpf.Queue, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 22 into func bpf_map_lookup_elem#1"}},
		{ebpf.Stack, asm.FnMapPeekElem, ok},
		{ebpf.Stack, asm.FnMapPopElem, ok},
		{ebpf.Stack, asm.FnMapPushElem, ok},
		{ebpf.Stack, asm.FnMapUpdateElem, mapFuncResult{Msg: "cannot pass map_type 23 into func bpf_map_update_elem#2"}},
		{ebpf.SkStorage, asm.FnSkStorageGet, ok},
		{ebpf.SkStorage, asm.FnSkStorageDelete, ok},
		{ebpf.SkStorage, asm.FnKptrXchg, ok},
		{ebpf.SkStorage, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 24 into func bpf_map_lookup_elem#1"}},
		{ebpf.SkStorage, asm.FnInodeStorageGet, mapFuncResult{Msg: "cannot pass map_type 24 into func bpf_inode_storage_get#145"}},
		{ebpf.InodeStorage, asm.FnInodeStorageGet, ok},
		{ebpf.InodeStorage, asm.FnInodeStorageDelete, ok},
		{ebpf.InodeStorage, asm.FnKptrXchg, ok},
		{ebpf.InodeStorage, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 28 into func bpf_map_lookup_elem#1"}},
		{ebpf.InodeStorage, asm.FnTaskStorageGet, mapFuncResult{Msg: "cannot pass map_type 28 into func bpf_task_storage_get#156"}},
		{ebpf.TaskStorage, asm.FnTaskStorageGet, ok},
		{ebpf.TaskStorage, asm.FnTaskStorageDelete, ok},
		{ebpf.TaskStorage, asm.FnKptrXchg, ok},
		{ebpf.TaskStorage, asm.FnMapUpdateElem, mapFuncResult{Msg: "cannot pass map_type 29 into func bpf_map_update_elem#2"}},
		{ebpf.TaskStorage, asm.FnSkStorageDelete, mapFuncResult{Msg: "cannot pass map_type 29 into func bpf_sk_storage_delete#108"}},
		{ebpf.TaskStorage, asm.FnCgrpStorageDelete, mapFuncResult{Msg: "cannot pass map_type 29 into func bpf_cgrp_storage_delete#211"}},
		{ebpf.CgroupStorage, asm.FnCgrpStorageGet, ok},
		{ebpf.CgroupStorage, asm.FnCgrpStorageDelete, ok},
		{ebpf.CgroupStorage, asm.FnKptrXchg, ok},
		{ebpf.CgroupStorage, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 32 into func bpf_map_lookup_elem#1"}},
		{ebpf.CgroupStorage, asm.FnGetLocalStorage, mapFuncResult{Msg: "cannot pass map_type 32 into func bpf_get_local_storage#81"}},
		{ebpf.BloomFilter, asm.FnMapPeekElem, ok},
		{ebpf.BloomFilter, asm.FnMapPushElem, ok},
		{ebpf.BloomFilter, asm.FnMapPopElem, mapFuncResult{Msg: "cannot pass map_type 30 into func bpf_map_pop_elem#88"}},
		{ebpf.BloomFilter, asm.FnMapLookupElem, mapFuncResult{Msg: "cannot pass map_type 30 into func bpf_map_lookup_elem#1"}},

		// Map types the map switch leaves out go to any helper the helper
		// switch does not restrict.
		{ebpf.Hash, asm.FnMapLookupElem, ok},
		{ebpf.Hash, asm.FnMapDeleteElem, ok},
		{ebpf.Hash, asm.FnKptrXchg, ok},
		{ebpf.Array, asm.FnMapUpdateElem, ok},
		{ebpf.LRUHash, asm.FnMapUpdateElem, ok},
		{ebpf.LPMTrie, asm.FnMapLookupElem, ok},
		{ebpf.LPMTrie, asm.FnMapPushElem, mapFuncResult{Msg: "cannot pass map_type 11 into func bpf_map_push_elem#87"}},
		{ebpf.StructOpsMap, asm.FnMapLookupElem, ok},
		{ebpf.StructOpsMap, asm.FnRedirectMap, mapFuncResult{Msg: "cannot pass map_type 26 into func bpf_redirect_map#51"}},
		{ebpf.Arena, asm.FnMapLookupElem, ok},
		{ebpf.Arena, asm.FnGetLocalStorage, mapFuncResult{Msg: "cannot pass map_type 33 into func bpf_get_local_storage#81"}},

		// The helper switch.
		{ebpf.Hash, asm.FnTailCall, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_tail_call#12"}},
		{ebpf.Array, asm.FnTailCall, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_tail_call#12"}},
		{ebpf.Array, asm.FnPerfEventRead, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_perf_event_read#22"}},
		{ebpf.Array, asm.FnPerfEventOutput, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_perf_event_output#25"}},
		{ebpf.Hash, asm.FnPerfEventReadValue, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_perf_event_read_value#55"}},
		{ebpf.RingBuf, asm.FnSkbOutput, mapFuncResult{Msg: "cannot pass map_type 27 into func bpf_skb_output#111"}},
		{ebpf.Hash, asm.FnXdpOutput, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_xdp_output#121"}},
		{ebpf.PerfEventArray, asm.FnRingbufOutput, mapFuncResult{Msg: "cannot pass map_type 4 into func bpf_ringbuf_output#130"}},
		{ebpf.UserRingbuf, asm.FnRingbufReserve, mapFuncResult{Msg: "cannot pass map_type 31 into func bpf_ringbuf_reserve#131"}},
		{ebpf.Array, asm.FnRingbufQuery, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_ringbuf_query#134"}},
		{ebpf.Hash, asm.FnRingbufReserveDynptr, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_ringbuf_reserve_dynptr#198"}},
		{ebpf.Array, asm.FnRingbufSubmitDynptr, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_ringbuf_submit_dynptr#199"}},
		{ebpf.Array, asm.FnRingbufDiscardDynptr, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_ringbuf_discard_dynptr#200"}},
		{ebpf.Hash, asm.FnUserRingbufDrain, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_user_ringbuf_drain#209"}},
		{ebpf.Hash, asm.FnGetStackid, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_get_stackid#27"}},
		{ebpf.Array, asm.FnCurrentTaskUnderCgroup, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_current_task_under_cgroup#37"}},
		{ebpf.Hash, asm.FnSkbUnderCgroup, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_skb_under_cgroup#33"}},
		{ebpf.Hash, asm.FnRedirectMap, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_redirect_map#51"}},
		{ebpf.SockMap, asm.FnRedirectMap, mapFuncResult{Msg: "cannot pass map_type 15 into func bpf_redirect_map#51"}},
		{ebpf.SockHash, asm.FnSkRedirectMap, mapFuncResult{Msg: "cannot pass map_type 18 into func bpf_sk_redirect_map#52"}},
		{ebpf.Hash, asm.FnMsgRedirectMap, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_msg_redirect_map#60"}},
		{ebpf.Array, asm.FnSockMapUpdate, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_sock_map_update#53"}},
		{ebpf.Hash, asm.FnMsgRedirectHash, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_msg_redirect_hash#71"}},
		{ebpf.SockMap, asm.FnSockHashUpdate, mapFuncResult{Msg: "cannot pass map_type 15 into func bpf_sock_hash_update#70"}},
		{ebpf.Hash, asm.FnSkRedirectHash, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_sk_redirect_hash#72"}},
		{ebpf.Array, asm.FnGetLocalStorage, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_get_local_storage#81"}},
		{ebpf.Array, asm.FnSkSelectReuseport, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_sk_select_reuseport#82"}},
		{ebpf.Hash, asm.FnMapPopElem, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_map_pop_elem#88"}},
		{ebpf.Hash, asm.FnMapPeekElem, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_map_peek_elem#89"}},
		{ebpf.Hash, asm.FnMapPushElem, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_map_push_elem#87"}},
		{ebpf.PerCPUArray, asm.FnMapLookupPercpuElem, ok},
		{ebpf.PerCPUHash, asm.FnMapLookupPercpuElem, ok},
		{ebpf.LRUCPUHash, asm.FnMapLookupPercpuElem, ok},
		{ebpf.LRUHash, asm.FnMapLookupPercpuElem, mapFuncResult{Msg: "cannot pass map_type 9 into func bpf_map_lookup_percpu_elem#195"}},
		{ebpf.Array, asm.FnMapLookupPercpuElem, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_map_lookup_percpu_elem#195"}},
		{ebpf.Hash, asm.FnSkStorageGet, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_sk_storage_get#107"}},
		{ebpf.Hash, asm.FnInodeStorageDelete, mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_inode_storage_delete#146"}},
		{ebpf.Array, asm.FnTaskStorageDelete, mapFuncResult{Msg: "cannot pass map_type 2 into func bpf_task_storage_delete#157"}},
		{ebpf.CGroupStorage, asm.FnCgrpStorageGet, mapFuncResult{Msg: "cannot pass map_type 19 into func bpf_cgrp_storage_get#210"}},

		// func_id_name names ids without a helper.
		{ebpf.ProgramArray, 0, mapFuncResult{Msg: "cannot pass map_type 3 into func bpf_unspec#0"}},
		{ebpf.ProgramArray, 212, mapFuncResult{Msg: "cannot pass map_type 3 into func unknown#212"}},
	}
	for _, tt := range tests {
		ok, msg := mapHelperCompatible(tt.mt, int32(tt.fn))
		if diff := cmp.Diff(tt.want, mapFuncResult{ok, msg}); diff != "" {
			t.Errorf("mapHelperCompatible(%v, %v) mismatch (-want +got):\n%s", tt.mt, tt.fn, diff)
		}
	}
}

// TestMapFuncCompatibility checks what check_map_func_compatibility adds
// to the table for a program: may_update_sockmap's program types, and the
// refusal of tail calls from an interpreted program with bpf-to-bpf calls.
func TestMapFuncCompatibility(t *testing.T) {
	ok := mapFuncResult{OK: true}
	tests := []struct {
		name     string
		progType ebpf.ProgramType
		attach   ebpf.AttachType
		mt       ebpf.MapType
		fn       asm.BuiltinFunc
		want     mapFuncResult
	}{
		{"tc update", ebpf.SchedCLS, 0, ebpf.SockMap, asm.FnMapUpdateElem, ok},
		{"act delete", ebpf.SchedACT, 0, ebpf.SockHash, asm.FnMapDeleteElem, ok},
		{"socket filter update", ebpf.SocketFilter, 0, ebpf.SockMap, asm.FnMapUpdateElem, ok},
		{"xdp update", ebpf.XDP, 0, ebpf.SockHash, asm.FnMapUpdateElem, ok},
		{"sk_reuseport delete", ebpf.SkReuseport, 0, ebpf.SockMap, asm.FnMapDeleteElem, ok},
		{"flow dissector update", ebpf.FlowDissector, 0, ebpf.SockMap, asm.FnMapUpdateElem, ok},
		{"sk_lookup delete", ebpf.SkLookup, 0, ebpf.SockHash, asm.FnMapDeleteElem, ok},
		{"iterator update", ebpf.Tracing, ebpf.AttachTraceIter, ebpf.SockMap, asm.FnMapUpdateElem, ok},
		{"fentry update", ebpf.Tracing, ebpf.AttachTraceFEntry, ebpf.SockMap, asm.FnMapUpdateElem,
			mapFuncResult{Msg: "cannot update sockmap in this context\ncannot pass map_type 15 into func bpf_map_update_elem#2"}},
		{"sock_ops delete", ebpf.SockOps, 0, ebpf.SockMap, asm.FnMapDeleteElem, ok},
		{"sock_ops update", ebpf.SockOps, 0, ebpf.SockHash, asm.FnMapUpdateElem,
			mapFuncResult{Msg: "cannot update sockmap in this context\ncannot pass map_type 18 into func bpf_map_update_elem#2"}},
		{"sk_msg update", ebpf.SkMsg, 0, ebpf.SockHash, asm.FnMapUpdateElem,
			mapFuncResult{Msg: "cannot update sockmap in this context\ncannot pass map_type 18 into func bpf_map_update_elem#2"}},
		{"kprobe delete", ebpf.Kprobe, 0, ebpf.SockMap, asm.FnMapDeleteElem,
			mapFuncResult{Msg: "cannot update sockmap in this context\ncannot pass map_type 15 into func bpf_map_delete_elem#3"}},
		{"kprobe lookup", ebpf.Kprobe, 0, ebpf.SockMap, asm.FnMapLookupElem, ok},
		// may_update_sockmap says nothing of helpers other than update and
		// delete.
		{"tc push", ebpf.SchedCLS, 0, ebpf.SockMap, asm.FnMapPushElem,
			mapFuncResult{Msg: "cannot pass map_type 15 into func bpf_map_push_elem#87"}},
		{"update of a hash", ebpf.Kprobe, 0, ebpf.Hash, asm.FnMapUpdateElem, ok},
	}
	for _, tt := range tests {
		e := &env{progType: tt.progType, attach: tt.attach, cfg: &insn.CFG{Subprogs: make([]insn.Subprog, 1)}}
		ok, msg := e.mapHelperAllowed(tt.mt, int32(tt.fn))
		if diff := cmp.Diff(tt.want, mapFuncResult{ok, msg}); diff != "" {
			t.Errorf("%s: mapHelperAllowed(%v, %v) mismatch (-want +got):\n%s", tt.name, tt.mt, tt.fn, diff)
		}
	}

	tailCalls := []struct {
		name        string
		mt          ebpf.MapType
		subprogs    int
		interpreted bool
		want        mapFuncResult
	}{
		{"JIT with subprogs", ebpf.ProgramArray, 2, false, ok},
		{"interpreter without subprogs", ebpf.ProgramArray, 1, true, ok},
		// The map type is checked first.
		{"interpreter with subprogs, wrong map", ebpf.Hash, 2, true,
			mapFuncResult{Msg: "cannot pass map_type 1 into func bpf_tail_call#12"}},
	}
	for _, tt := range tailCalls {
		e := &env{progType: ebpf.SchedCLS, cfg: &insn.CFG{Subprogs: make([]insn.Subprog, tt.subprogs)},
			build: helpers.Build{Interpreted: tt.interpreted}}
		ok, msg := e.mapHelperAllowed(tt.mt, int32(asm.FnTailCall))
		if diff := cmp.Diff(tt.want, mapFuncResult{ok, msg}); diff != "" {
			t.Errorf("%s: mapHelperAllowed(%v, bpf_tail_call) mismatch (-want +got):\n%s", tt.name, tt.mt, diff)
		}
	}
	// An interpreted program with bpf-to-bpf calls may not tail call at
	// all; the message is left to TestInterpretedBuild.
	e := &env{progType: ebpf.SchedCLS, cfg: &insn.CFG{Subprogs: make([]insn.Subprog, 2)},
		build: helpers.Build{Interpreted: true}}
	if ok, msg := e.mapHelperAllowed(ebpf.ProgramArray, int32(asm.FnTailCall)); ok {
		t.Errorf("interpreter with subprogs: mapHelperAllowed(ProgramArray, bpf_tail_call) = true, %q; want refused", msg)
	}
}

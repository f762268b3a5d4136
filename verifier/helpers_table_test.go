package verifier

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"
)

func TestHelperProto(t *testing.T) {
	tests := []struct {
		id   int32
		want HelperProto
	}{
		{1, HelperProto{Name: "bpf_map_lookup_elem", ID: 1, Ret: RetPtrToMapValueOrNull,
			Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey}, PktAccess: true}},
		{2, HelperProto{Name: "bpf_map_update_elem", ID: 2, Ret: RetInteger,
			Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey, ArgPtrToMapValue, ArgAnything}, PktAccess: true}},
		{6, HelperProto{Name: "bpf_trace_printk", ID: 6, Ret: RetInteger,
			Args: [5]ArgType{ArgPtrToMem, ArgConstSize}, GPLOnly: true}},
		{9, HelperProto{Name: "bpf_skb_store_bytes", ID: 9, Ret: RetInteger,
			Args:           [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToMem, ArgConstSize, ArgAnything},
			ChangesPktData: true}},
		{12, HelperProto{Name: "bpf_tail_call", ID: 12, Ret: RetVoid,
			Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything}}},
		{23, HelperProto{Name: "bpf_redirect", ID: 23, Ret: RetInteger,
			Args: [5]ArgType{ArgAnything, ArgAnything}}},
		{51, HelperProto{Name: "bpf_redirect_map", ID: 51, Ret: RetInteger,
			Args: [5]ArgType{ArgConstMapPtr, ArgAnything, ArgAnything}}},
		{84, HelperProto{Name: "bpf_sk_lookup_tcp", ID: 84, Ret: RetPtrToSocketOrNull,
			Args:      [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSize, ArgAnything, ArgAnything},
			PktAccess: true, Acquire: true}},
		{86, HelperProto{Name: "bpf_sk_release", ID: 86, Ret: RetInteger,
			Args: [5]ArgType{ArgPtrToBTFIDSockCommon}, ReleaseArg: 1}},
		{131, HelperProto{Name: "bpf_ringbuf_reserve", ID: 131, Ret: RetPtrToAllocMemOrNull,
			Args: [5]ArgType{ArgConstMapPtr, ArgConstAllocSizeOrZero, ArgAnything}, Acquire: true}},
		{132, HelperProto{Name: "bpf_ringbuf_submit", ID: 132, Ret: RetVoid,
			Args: [5]ArgType{ArgPtrToRingbufMem, ArgAnything}, ReleaseArg: 1}},
		{181, HelperProto{Name: "bpf_loop", ID: 181, Ret: RetInteger,
			Args: [5]ArgType{ArgAnything, ArgPtrToFunc, ArgPtrToStackOrNull, ArgAnything}, Callback: true}},
		{206, HelperProto{Name: "bpf_tcp_raw_check_syncookie_ipv4", ID: 206, Ret: RetInteger,
			Args: [5]ArgType{ArgPtrToFixedMem, ArgPtrToFixedMem}, ArgSize: [5]int32{20, 20}, GPLOnly: true, PktAccess: true}},
		{211, HelperProto{Name: "bpf_cgrp_storage_delete", ID: 211, Ret: RetInteger,
			Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFID}, ArgBTFName: [5]string{"", "cgroup"}}},
	}
	for _, tt := range tests {
		got, ok := helperProto(tt.id)
		if !ok {
			t.Errorf("helperProto(%d): not found", tt.id)
			continue
		}
		if diff := cmp.Diff(tt.want, *got); diff != "" {
			t.Errorf("helperProto(%d) mismatch (-want +got):\n%s", tt.id, diff)
		}
	}
}

func TestHelperProtoUnknown(t *testing.T) {
	for _, id := range []int32{-1, 0, 212, 233685214} {
		if p, ok := helperProto(id); ok {
			t.Errorf("helperProto(%d) = %s, want not found", id, p.Name)
		}
	}
}

// TestHelperNamesMatchUAPI checks every entry against cilium/ebpf's list of
// helper ids, which is generated from the UAPI header: the id must match
// the index and the name must spell the same UAPI name.
func TestHelperNamesMatchUAPI(t *testing.T) {
	for id := int32(1); id <= maxHelperID; id++ {
		p, ok := helperProto(id)
		if !ok {
			t.Errorf("helper %d missing", id)
			continue
		}
		want := strings.ToLower(strings.TrimPrefix(asm.BuiltinFunc(id).String(), "Fn"))
		got := strings.ReplaceAll(strings.TrimPrefix(p.Name, "bpf_"), "_", "")
		if got != want {
			t.Errorf("helper %d: name %q does not match UAPI %q", id, p.Name, asm.BuiltinFunc(id).String())
		}
	}
}

// TestHelperProtoConsistency checks invariants of the table: size
// arguments follow a memory argument, fixed-size memory has a size, BTF
// arguments name their type where the kernel fixes one.
func TestHelperProtoConsistency(t *testing.T) {
	memArgs := map[ArgType]bool{ArgPtrToMem: true, ArgPtrToMemOrNull: true, ArgPtrToUninitMem: true,
		ArgPtrToUninitMemOrNull: true}
	for id := int32(1); id <= maxHelperID; id++ {
		p, _ := helperProto(id)
		for i, a := range p.Args {
			switch a {
			case ArgConstSize, ArgConstSizeOrZero:
				if i == 0 || !memArgs[p.Args[i-1]] {
					t.Errorf("%s arg%d: size without a memory argument before it", p.Name, i+1)
				}
			case ArgPtrToFixedMem:
				if p.ArgSize[i] <= 0 {
					t.Errorf("%s arg%d: fixed-size memory without a size", p.Name, i+1)
				}
			}
		}
		if p.ReleaseArg < 0 || int(p.ReleaseArg) > len(p.Args) {
			t.Errorf("%s: release arg %d out of range", p.Name, p.ReleaseArg)
		}
	}
}

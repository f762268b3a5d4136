package helpers

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"
)

func TestHelperProto(t *testing.T) {
	tests := []struct {
		id   int32
		want Proto
	}{
		{1, Proto{Name: "bpf_map_lookup_elem", ID: 1, Ret: RetPtrToMapValueOrNull,
			Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey}, PktAccess: true}},
		{2, Proto{Name: "bpf_map_update_elem", ID: 2, Ret: RetInteger,
			Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey, ArgPtrToMapValue, ArgAnything}, PktAccess: true}},
		{6, Proto{Name: "bpf_trace_printk", ID: 6, Ret: RetInteger,
			Args: [5]ArgType{ArgPtrToMem, ArgConstSize}, GPLOnly: true}},
		{9, Proto{Name: "bpf_skb_store_bytes", ID: 9, Ret: RetInteger,
			Args:           [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToMem, ArgConstSize, ArgAnything},
			ChangesPktData: true}},
		{12, Proto{Name: "bpf_tail_call", ID: 12, Ret: RetVoid,
			Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything}}},
		{23, Proto{Name: "bpf_redirect", ID: 23, Ret: RetInteger,
			Args: [5]ArgType{ArgAnything, ArgAnything}}},
		{51, Proto{Name: "bpf_redirect_map", ID: 51, Ret: RetInteger,
			Args: [5]ArgType{ArgConstMapPtr, ArgAnything, ArgAnything}}},
		{84, Proto{Name: "bpf_sk_lookup_tcp", ID: 84, Ret: RetPtrToSocketOrNull,
			Args:      [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSizeOrZero, ArgAnything, ArgAnything},
			PktAccess: true, Acquire: true}},
		{86, Proto{Name: "bpf_sk_release", ID: 86, Ret: RetInteger,
			Args: [5]ArgType{ArgPtrToBTFIDSockCommon}, ReleaseArg: 1}},
		{131, Proto{Name: "bpf_ringbuf_reserve", ID: 131, Ret: RetPtrToAllocMemOrNull,
			Args: [5]ArgType{ArgConstMapPtr, ArgConstAllocSizeOrZero, ArgAnything}, Acquire: true}},
		{132, Proto{Name: "bpf_ringbuf_submit", ID: 132, Ret: RetVoid,
			Args: [5]ArgType{ArgPtrToRingbufMem, ArgAnything}, ReleaseArg: 1}},
		{181, Proto{Name: "bpf_loop", ID: 181, Ret: RetInteger,
			Args: [5]ArgType{ArgAnything, ArgPtrToFunc, ArgPtrToStackOrNull, ArgAnything}, Callback: true}},
		{206, Proto{Name: "bpf_tcp_raw_check_syncookie_ipv4", ID: 206, Ret: RetInteger,
			Args: [5]ArgType{ArgPtrToFixedMem, ArgPtrToFixedMem}, ArgSize: [5]int32{20, 20}, GPLOnly: true, PktAccess: true}},
		{211, Proto{Name: "bpf_cgrp_storage_delete", ID: 211, Ret: RetInteger,
			Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull}, ArgBTFName: [5]string{"", "cgroup"}}},
	}
	for _, tt := range tests {
		got, ok := Lookup(tt.id)
		if !ok {
			t.Errorf("Lookup(%d): not found", tt.id)
			continue
		}
		if diff := cmp.Diff(tt.want, *got); diff != "" {
			t.Errorf("Lookup(%d) mismatch (-want +got):\n%s", tt.id, diff)
		}
	}
}

func TestHelperProtoUnknown(t *testing.T) {
	for _, id := range []int32{-1, 0, 212, 233685214} {
		if p, ok := Lookup(id); ok {
			t.Errorf("Lookup(%d) = %s, want not found", id, p.Name)
		}
	}
}

// TestHelperNamesMatchUAPI checks every entry against cilium/ebpf's list of
// helper ids, which is generated from the UAPI header: the id must match
// the index and the name must spell the same UAPI name.
func TestHelperNamesMatchUAPI(t *testing.T) {
	for id := int32(1); id <= MaxID; id++ {
		p, ok := Lookup(id)
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
		ArgPtrToWritableMem: true, ArgPtrToWritableMemOrNull: true}
	for id := int32(1); id <= MaxID; id++ {
		p, _ := Lookup(id)
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

func TestHelperProtoFor(t *testing.T) {
	// argsOf summarises the part of a prototype the variants change.
	type argsOf struct {
		Args       [5]ArgType
		ArgBTFName [5]string
		Gate       Gate
	}
	tests := []struct {
		name string
		pt   ebpf.ProgramType
		at   ebpf.AttachType
		fn   asm.BuiltinFunc
		want argsOf
	}{
		{"socket cookie of a socket filter's skb", ebpf.SocketFilter, 0, asm.FnGetSocketCookie,
			argsOf{Args: [5]ArgType{ArgPtrToCtx}}},
		{"socket cookie of a cgroup sock's socket", ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate, asm.FnGetSocketCookie,
			argsOf{Args: [5]ArgType{ArgPtrToCtx}}},
		{"socket cookie in sk_reuseport", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, asm.FnGetSocketCookie,
			argsOf{Args: [5]ArgType{ArgPtrToBTFIDSockCommonOrNull}}},
		{"socket cookie in tracing", ebpf.Tracing, ebpf.AttachTraceRawTp, asm.FnGetSocketCookie,
			argsOf{Args: [5]ArgType{ArgPtrToBTFIDSockCommonOrNull}}},
		{"classid in tc", ebpf.SchedCLS, 0, asm.FnGetCgroupClassid, argsOf{Args: [5]ArgType{ArgPtrToCtx}}},
		{"classid in lwt", ebpf.LWTXmit, 0, asm.FnGetCgroupClassid, argsOf{Args: [5]ArgType{ArgPtrToCtx}}},
		{"classid of the current task", ebpf.Kprobe, 0, asm.FnGetCgroupClassid, argsOf{}},
		{"setsockopt in sock_ops", ebpf.SockOps, 0, asm.FnSetsockopt,
			argsOf{Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgPtrToMem, ArgConstSize}}},
		{"setsockopt in a cgroup setsockopt hook", ebpf.CGroupSockopt, ebpf.AttachCGroupSetsockopt, asm.FnSetsockopt,
			argsOf{Args: [5]ArgType{ArgPtrToBTFIDSockCommon, ArgAnything, ArgAnything, ArgPtrToMem, ArgConstSize}}},
		{"sk_storage_get in tc", ebpf.SchedCLS, 0, asm.FnSkStorageGet,
			argsOf{Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDSockCommon, ArgPtrToMapValueOrNull, ArgAnything}}},
		{"sk_storage_get in cgroup sock", ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate, asm.FnSkStorageGet,
			argsOf{Args: [5]ArgType{ArgConstMapPtr, ArgPtrToCtx, ArgPtrToMapValueOrNull, ArgAnything}}},
		{"sk_storage_get in tracing", ebpf.Tracing, ebpf.AttachTraceRawTp, asm.FnSkStorageGet,
			argsOf{Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull, ArgPtrToMapValueOrNull, ArgAnything},
				ArgBTFName: [5]string{"", "sock_common"}, Gate: GateSkStorageTracing}},
		{"sk_assign in tc", ebpf.SchedCLS, 0, asm.FnSkAssign,
			argsOf{Args: [5]ArgType{ArgPtrToCtx, ArgPtrToBTFIDSockCommon, ArgAnything}}},
		{"sk_assign in sk_lookup", ebpf.SkLookup, ebpf.AttachSkLookup, asm.FnSkAssign,
			argsOf{Args: [5]ArgType{ArgPtrToCtx, ArgPtrToSocketOrNull, ArgAnything}}},
		{"xdp_get_buff_len in xdp", ebpf.XDP, 0, asm.FnXdpGetBuffLen, argsOf{Args: [5]ArgType{ArgPtrToCtx}}},
		{"xdp_get_buff_len in tracing", ebpf.Tracing, ebpf.AttachTraceFEntry, asm.FnXdpGetBuffLen,
			argsOf{Args: [5]ArgType{ArgPtrToBTFID}, ArgBTFName: [5]string{"xdp_buff"}}},
	}
	for _, tt := range tests {
		p, ok := For(tt.pt, tt.at, int32(tt.fn))
		if !ok {
			t.Errorf("%s: no prototype", tt.name)
			continue
		}
		if p.ID != int32(tt.fn) {
			t.Errorf("%s: prototype of helper %d, want %d", tt.name, p.ID, tt.fn)
		}
		got := argsOf{Args: p.Args, ArgBTFName: p.ArgBTFName, Gate: p.Gate}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestHelperVariantsConsistent checks every variant against its table
// entry: same id and name, and no program type given two variants of one
// helper.
func TestHelperVariantsConsistent(t *testing.T) {
	for id, vs := range helperVariants {
		base, ok := Lookup(id)
		if !ok {
			t.Errorf("variants of unknown helper %d", id)
			continue
		}
		seen := map[ebpf.ProgramType]bool{}
		for _, v := range vs {
			if v.proto.ID != id || v.proto.Name != base.Name {
				t.Errorf("helper %d: variant %s#%d", id, v.proto.Name, v.proto.ID)
			}
			if len(v.types) == 0 {
				t.Errorf("helper %s: variant for no program type", base.Name)
			}
			for _, pt := range v.types {
				if seen[pt] && len(v.attach) == 0 {
					t.Errorf("helper %s: two variants for %v", base.Name, pt)
				}
				seen[pt] = true
			}
		}
	}
}

func TestHelperArgCountFor(t *testing.T) {
	tests := []struct {
		pt   ebpf.ProgramType
		fn   asm.BuiltinFunc
		want int
	}{
		{ebpf.SchedCLS, asm.FnGetCgroupClassid, 1},
		{ebpf.SchedCLS, asm.FnGetPrandomU32, 0},
		{ebpf.SocketFilter, asm.FnGetCgroupClassid, 0},
		{ebpf.XDP, asm.FnSkbCgroupId, -1}, // not callable there: r1-r5
		{ebpf.SchedCLS, asm.FnSkbStoreBytes, 5},
		{ebpf.SchedCLS, 0, -1},
	}
	for _, tt := range tests {
		if got := (Build{}).ArgCountFor(tt.pt, 0, Set{})(int32(tt.fn)); got != tt.want {
			t.Errorf("%v %v: %d arguments, want %d", tt.pt, tt.fn, got, tt.want)
		}
	}
}

package verifier

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
)

// TestReturnRangeLiveKernel exits programs of every type the running
// kernel loads without a BTF target (and the BTF types it loads here)
// with constants around the edges of check_return_code's ranges, and
// compares the kernel's verdict and decisive message with vercheck's.
// The ranges are a table per program and attach type in the kernel
// (and a narrower range than the kernel's, a false accept).
func TestReturnRangeLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	types := []protoLiveType{
		{pt: ebpf.SocketFilter}, {pt: ebpf.Kprobe}, {pt: ebpf.SchedCLS}, {pt: ebpf.SchedACT}, {pt: ebpf.TracePoint},
		{pt: ebpf.XDP}, {pt: ebpf.PerfEvent}, {pt: ebpf.CGroupSKB}, {pt: ebpf.CGroupSKB, at: ebpf.AttachCGroupInetEgress},
		{pt: ebpf.CGroupSKB, at: ebpf.AttachCGroupInetIngress},
		{pt: ebpf.CGroupSock, at: ebpf.AttachCGroupInetSockCreate}, {pt: ebpf.CGroupSock, at: ebpf.AttachCGroupInet6PostBind},
		{pt: ebpf.CGroupSock, at: ebpf.AttachCgroupInetSockRelease},
		{pt: ebpf.LWTIn}, {pt: ebpf.LWTOut}, {pt: ebpf.LWTXmit}, {pt: ebpf.LWTSeg6Local},
		{pt: ebpf.SockOps}, {pt: ebpf.SkSKB}, {pt: ebpf.SkSKB, at: ebpf.AttachSkSKBStreamParser},
		{pt: ebpf.SkSKB, at: ebpf.AttachSkSKBStreamVerdict}, {pt: ebpf.CGroupDevice}, {pt: ebpf.SkMsg},
		{pt: ebpf.RawTracepoint}, {pt: ebpf.RawTracepointWritable},
		{pt: ebpf.CGroupSockAddr, at: ebpf.AttachCGroupInet4Bind}, {pt: ebpf.CGroupSockAddr, at: ebpf.AttachCGroupInet6Connect},
		{pt: ebpf.CGroupSockAddr, at: ebpf.AttachCGroupUDP4Recvmsg}, {pt: ebpf.CGroupSockAddr, at: ebpf.AttachCGroupUDP6Sendmsg},
		{pt: ebpf.CGroupSockAddr, at: ebpf.AttachCgroupUnixGetsockname}, {pt: ebpf.CGroupSockAddr, at: ebpf.AttachCgroupUnixConnect},
		{pt: ebpf.CGroupSockAddr, at: ebpf.AttachCgroupInet6GetPeername},
		{pt: ebpf.SkReuseport}, {pt: ebpf.SkReuseport, at: ebpf.AttachSkReuseportSelectOrMigrate},
		{pt: ebpf.FlowDissector}, {pt: ebpf.CGroupSysctl, at: ebpf.AttachCGroupSysctl},
		{pt: ebpf.CGroupSockopt, at: ebpf.AttachCGroupGetsockopt}, {pt: ebpf.CGroupSockopt, at: ebpf.AttachCGroupSetsockopt},
		{pt: ebpf.SkLookup, at: ebpf.AttachSkLookup}, {pt: ebpf.Netfilter, at: ebpf.AttachNetfilter},
		{pt: ebpf.XDP, at: ebpf.AttachXDPDevMap}, {pt: ebpf.XDP, at: ebpf.AttachXDPCPUMap},
		{pt: ebpf.Kprobe, at: ebpf.AttachTraceKprobeMulti}, {pt: ebpf.Kprobe, at: ebpf.AttachTraceUprobeMulti},
		{pt: ebpf.Syscall, flags: loader.FlagSleepable},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task"},
	}
	values := []int64{-1, 0, 1, 2, 3, 4, 5, 7, 8, 0x7fffffff, -0x80000000, 0x100000000, 0x100000001}
	compared := 0
	for _, lt := range types {
		for _, v := range values {
			insns := asm.Instructions{asm.LoadImm(asm.R0, v, asm.DWord), asm.Return()}
			line, ok := liveVerdict(lt, insns, nil, "GPL")
			if !ok {
				continue
			}
			compared++
			p := &loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo,
				Flags: lt.flags, GPLCompatible: true, Instructions: insns}
			res := Verify(&loader.Object{Path: "test"}, p, Options{MissingFixes: missing})
			got := ""
			var re *RejectError
			if errors.As(res.Err, &re) {
				got = lastLine(re.Msg)
			} else if res.Err != nil {
				got = res.Err.Error()
			}
			if got != line {
				t.Errorf("%v r0 = %#x: kernel %q, vercheck %q", lt, v, line, got)
			}
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any program")
	}
	t.Logf("%d exits compared", compared)
}

package verifier

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/ctxaccess"
)

// ctxAccessSizes maps access widths to load/store sizes.
var ctxAccessSizes = map[int]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord}

// TestCtxLayoutLiveKernel compares every layout with the running kernel:
// for each offset around the struct, each width and both directions, it
// loads a one-access program and checks whether the kernel reports
// "invalid bpf_context access".
func TestCtxLayoutLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	// maxProbeOff bounds the offsets tried for large contexts
	// (tracepoint records).
	const maxProbeOff = 256
	types := ctxLiveTypes
	for _, lt := range types {
		check, csize := ctxaccess.Layout(lt.pt)
		exit := int32(0)
		if lo, _, ok := retRange(lt.pt, lt.at); ok {
			exit = int32(lo)
		}
		for off := -sizeU64; off < min(csize+2*sizeU64, maxProbeOff); off++ {
			for size, asmSize := range ctxAccessSizes {
				for _, write := range []bool{false, true} {
					var insns asm.Instructions
					if write {
						insns = asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.StoreMem(asm.R1, int16(off), asm.R2, asmSize)}
					} else {
						insns = asm.Instructions{asm.LoadMem(asm.R0, asm.R1, int16(off), asmSize)}
					}
					insns = append(insns, asm.Mov.Imm(asm.R0, exit), asm.Return())
					log, err := liveLoad(lt, insns)
					if err != nil && !strings.Contains(log, "invalid bpf_context access") {
						t.Errorf("%v/%v off=%d size=%d write=%v: unexpected kernel error: %v", lt.pt, lt.at, off, size, write, err)
						continue
					}
					if _, got := check(off, size, write, lt.at); got != (err == nil) {
						t.Errorf("%v/%v off=%d size=%d write=%v: layout says %v, kernel %v", lt.pt, lt.at, off, size, write, got, err == nil)
					}
				}
			}
		}
	}
}

// ctxLiveTypes are the program types, with an attach type where it
// decides the layout, whose contexts the live tests of layouts,
// operations and rewrites load programs of.
var ctxLiveTypes = []liveProgramType{
	{ebpf.SocketFilter, 0}, {ebpf.SchedCLS, 0}, {ebpf.CGroupSKB, ebpf.AttachCGroupInetIngress}, {ebpf.LWTIn, 0},
	{ebpf.SkSKB, 0}, {ebpf.FlowDissector, 0}, {ebpf.XDP, 0}, {ebpf.XDP, ebpf.AttachXDPDevMap}, {ebpf.Kprobe, 0},
	{ebpf.TracePoint, 0}, {ebpf.RawTracepoint, 0}, {ebpf.PerfEvent, 0},
	{ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate}, {ebpf.CGroupSock, ebpf.AttachCGroupInet6PostBind},
	{ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect}, {ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP6Sendmsg},
	{ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP4Recvmsg}, {ebpf.SockOps, 0}, {ebpf.SkMsg, 0},
	{ebpf.SkLookup, ebpf.AttachSkLookup}, {ebpf.CGroupSysctl, ebpf.AttachCGroupSysctl},
	{ebpf.CGroupDevice, ebpf.AttachCGroupDevice}, {ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt},
	{ebpf.CGroupSockopt, ebpf.AttachCGroupSetsockopt}, {ebpf.SkReuseport, ebpf.AttachSkReuseportSelect},
	{ebpf.SkReuseport, ebpf.AttachSkReuseportSelectOrMigrate}, {ebpf.RawTracepointWritable, 0},
	{ebpf.Netfilter, ebpf.AttachNetfilter}, {ebpf.Syscall, 0},
}

package verifier

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

func TestHelperAllowed(t *testing.T) {
	type res struct{ Allowed, Known bool }
	tests := []struct {
		name string
		pt   ebpf.ProgramType
		at   ebpf.AttachType
		fn   asm.BuiltinFunc
		want res
	}{
		{"xdp redirect_map", ebpf.XDP, ebpf.AttachXDP, asm.FnRedirectMap, res{true, true}},
		{"xdp skb_store_bytes", ebpf.XDP, ebpf.AttachXDP, asm.FnSkbStoreBytes, res{false, true}},
		{"xdp sock_map_update", ebpf.XDP, ebpf.AttachXDP, asm.FnSockMapUpdate, res{false, true}},
		{"socket filter redirect", ebpf.SocketFilter, 0, asm.FnRedirect, res{false, true}},
		{"socket filter skb_store_bytes", ebpf.SocketFilter, 0, asm.FnSkbStoreBytes, res{false, true}},
		{"socket filter skb_load_bytes", ebpf.SocketFilter, 0, asm.FnSkbLoadBytes, res{true, true}},
		{"socket filter map_lookup", ebpf.SocketFilter, 0, asm.FnMapLookupElem, res{true, true}},
		{"tc redirect", ebpf.SchedCLS, 0, asm.FnRedirect, res{true, true}},
		{"tc skb_store_bytes", ebpf.SchedACT, 0, asm.FnSkbStoreBytes, res{true, true}},
		// CONFIG_BPF_KPROBE_OVERRIDE is off on the reference kernel.
		{"kprobe override_return", ebpf.Kprobe, 0, asm.FnOverrideReturn, res{false, true}},
		// The reference kernel is locked down.
		{"kprobe probe_write_user", ebpf.Kprobe, 0, asm.FnProbeWriteUser, res{false, true}},
		{"kprobe probe_read", ebpf.Kprobe, 0, asm.FnProbeRead, res{true, true}},
		{"tracepoint get_stackid", ebpf.TracePoint, 0, asm.FnGetStackid, res{true, true}},
		{"perf_event read_value", ebpf.PerfEvent, 0, asm.FnPerfProgReadValue, res{true, true}},
		{"kprobe perf_prog_read_value", ebpf.Kprobe, 0, asm.FnPerfProgReadValue, res{false, true}},
		{"sockaddr connect bind", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, asm.FnBind, res{true, true}},
		{"sockaddr sendmsg bind", ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP4Sendmsg, asm.FnBind, res{false, true}},
		{"sockaddr recvmsg set_retval", ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP4Recvmsg, asm.FnSetRetval, res{false, true}},
		{"device set_retval", ebpf.CGroupDevice, ebpf.AttachCGroupDevice, asm.FnSetRetval, res{true, true}},
		{"device without attach type set_retval", ebpf.CGroupDevice, 0, asm.FnSetRetval, res{false, true}},
		{"sk_reuseport socket cookie", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, asm.FnGetSocketCookie, res{true, true}},
		{"netfilter map lookup", ebpf.Netfilter, ebpf.AttachNetfilter, asm.FnMapLookupElem, res{true, true}},
		{"netfilter skb_load_bytes", ebpf.Netfilter, ebpf.AttachNetfilter, asm.FnSkbLoadBytes, res{false, true}},
		{"sk_lookup sk_assign", ebpf.SkLookup, ebpf.AttachSkLookup, asm.FnSkAssign, res{true, true}},
		{"fentry get_func_arg", ebpf.Tracing, ebpf.AttachTraceFEntry, asm.FnGetFuncArg, res{true, true}},
		{"fentry get_func_ret", ebpf.Tracing, ebpf.AttachTraceFEntry, asm.FnGetFuncRet, res{false, true}},
		{"unknown id", ebpf.XDP, 0, 212, res{false, true}},
		{"lsm map lookup", ebpf.LSM, ebpf.AttachLSMMac, asm.FnMapLookupElem, res{true, true}},
		{"lsm inode storage", ebpf.LSM, ebpf.AttachLSMMac, asm.FnInodeStorageGet, res{true, true}},
		{"lsm mac get_retval", ebpf.LSM, ebpf.AttachLSMMac, asm.FnGetRetval, res{false, true}},
		{"lsm cgroup get_retval", ebpf.LSM, ebpf.AttachLSMCgroup, asm.FnGetRetval, res{true, true}},
		{"lsm cgroup get_func_arg", ebpf.LSM, ebpf.AttachLSMCgroup, asm.FnGetFuncArg, res{false, true}},
	}
	for _, tt := range tests {
		allowed, known := (helpers.Build{}).Allowed(tt.pt, tt.at, helpers.Set{}, int32(tt.fn))
		if diff := cmp.Diff(tt.want, res{allowed, known}); diff != "" {
			t.Errorf("%s: Allowed mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestStructOpsHelperAllowed checks the helpers each struct_ops type adds
// to the base set (bpf_tcp_ca_get_func_proto; sched_ext's is the base set).
func TestStructOpsHelperAllowed(t *testing.T) {
	tests := []struct {
		target string
		fn     asm.BuiltinFunc
		want   bool
	}{
		{"tcp_congestion_ops:cong_avoid", asm.FnTcpSendAck, true},
		{"tcp_congestion_ops:cong_avoid", asm.FnPerfEventOutput, false},
		{"tcp_congestion_ops:cong_avoid", asm.FnTaskStorageGet, true},
		{"sched_ext_ops:enqueue", asm.FnTcpSendAck, false},
		{"sched_ext_ops:enqueue", asm.FnTaskStorageGet, true},
		{"sched_ext_ops:enqueue", asm.FnSkStorageGet, false},
		{"unknown_ops:member", asm.FnTcpSendAck, false},
	}
	for _, tt := range tests {
		got, known := (helpers.Build{}).Allowed(ebpf.StructOps, ebpf.AttachNone, structOpsHelpers(tt.target), int32(tt.fn))
		if !known || got != tt.want {
			t.Errorf("%s %v: allowed %v (known %v), want %v", tt.target, tt.fn, got, known, tt.want)
		}
	}
}

// liveProgramType is a program type and attach type the live-kernel tests
// load programs as.
type liveProgramType struct {
	pt ebpf.ProgramType
	at ebpf.AttachType
}

var (
	bpfUsableOnce sync.Once
	bpfUsableErr  error
)

// skipIfNoBPF skips a test when this machine cannot load BPF programs
// (not root, no bpf(), a sandbox): such tests are optional.
func skipIfNoBPF(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("live-kernel test skipped in short mode")
	}
	if !bpfUsable() {
		t.Skipf("cannot load BPF programs here: %v", bpfUsableErr)
	}
}

// probeRunning asks the running kernel once which stable fixes it lacks.
var probeRunning = sync.OnceValues(stablefix.Probe)

// liveMissing returns the stable fixes the running kernel lacks, and skips
// the test where it cannot be probed.
func liveMissing(t *testing.T) stablefix.Set {
	t.Helper()
	missing, err := probeRunning()
	if err != nil {
		t.Skipf("cannot probe the running kernel: %v", err)
	}
	return missing
}

// liveAllowed is whether vercheck lets a program of type pt call helper
// id on the running kernel: its build's helper tables (RunningBuild:
// configuration, lockdown level) less the calls the stable fixes it
// carries refuse (refusedByBuild); known is false for a program type not
// modelled.
func liveAllowed(missing stablefix.Set, pt ebpf.ProgramType, at ebpf.AttachType, id int32) (allowed, known bool) {
	allowed, known = RunningBuild().Allowed(pt, at, helpers.Set{}, id)
	return allowed && !refusedByBuild(pt, id, missing), known
}

// liveLoad loads a program into the running kernel and returns the
// verifier's log on rejection.
func liveLoad(lt liveProgramType, insns asm.Instructions) (string, error) {
	spec := &ebpf.ProgramSpec{Type: lt.pt, AttachType: lt.at, Instructions: insns, License: "GPL"}
	if lt.pt == ebpf.Syscall {
		// The kernel loads syscall programs only as sleepable ones.
		spec.Flags = loader.FlagSleepable
	}
	p, err := ebpf.NewProgram(spec)
	if err == nil {
		p.Close()
		return "", nil
	}
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		return strings.Join(ve.Log, "\n"), err
	}
	return err.Error(), err
}

// TestHelperAllowedLiveKernel compares the running kernel's build
// (liveAllowed: its configuration, lockdown level and stable fixes) with the running
// kernel for every helper and every program type it can load without a
// BTF target. The sets describe 6.18, so a different release may
// disagree.
func TestHelperAllowedLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	types := []liveProgramType{
		{ebpf.SocketFilter, 0}, {ebpf.Kprobe, 0}, {ebpf.SchedCLS, 0}, {ebpf.SchedACT, 0}, {ebpf.TracePoint, 0},
		{ebpf.XDP, 0}, {ebpf.PerfEvent, 0}, {ebpf.CGroupSKB, 0}, {ebpf.CGroupSKB, ebpf.AttachCGroupInetEgress},
		{ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate}, {ebpf.LWTIn, 0}, {ebpf.LWTOut, 0}, {ebpf.LWTXmit, 0},
		{ebpf.SockOps, 0}, {ebpf.SkSKB, 0}, {ebpf.CGroupDevice, 0}, {ebpf.SkMsg, 0}, {ebpf.RawTracepoint, 0},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Bind}, {ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Connect},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP4Recvmsg}, {ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixGetsockname},
		{ebpf.LWTSeg6Local, 0}, {ebpf.SkReuseport, 0}, {ebpf.FlowDissector, 0},
		{ebpf.CGroupSysctl, ebpf.AttachCGroupSysctl}, {ebpf.RawTracepointWritable, 0},
		{ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt}, {ebpf.CGroupSockopt, ebpf.AttachCGroupSetsockopt},
		{ebpf.SkLookup, ebpf.AttachSkLookup}, {ebpf.Netfilter, ebpf.AttachNetfilter},
		{ebpf.CGroupSock, ebpf.AttachCGroupInet6PostBind}, {ebpf.CGroupSock, ebpf.AttachCgroupInetSockRelease},
		{ebpf.CGroupSKB, ebpf.AttachCGroupInetIngress}, {ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP6Sendmsg},
		{ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixConnect}, {ebpf.CGroupSockAddr, ebpf.AttachCgroupInet6GetPeername},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Bind}, {ebpf.SkReuseport, ebpf.AttachSkReuseportSelectOrMigrate},
		{ebpf.FlowDissector, ebpf.AttachFlowDissector}, {ebpf.SkSKB, ebpf.AttachSkSKBStreamVerdict},
		{ebpf.SkMsg, ebpf.AttachSkMsgVerdict}, {ebpf.CGroupDevice, ebpf.AttachCGroupDevice},
		{ebpf.CGroupSysctl, 0}, {ebpf.XDP, ebpf.AttachXDPDevMap}, {ebpf.XDP, ebpf.AttachXDPCPUMap},
		{ebpf.SkSKB, ebpf.AttachSkSKBStreamParser}, {ebpf.Kprobe, ebpf.AttachTraceKprobeMulti},
		{ebpf.Kprobe, ebpf.AttachTraceUprobeMulti}, {ebpf.SockOps, ebpf.AttachCGroupSockOps},
	}
	missing := liveMissing(t)
	for _, lt := range types {
		for id := int32(1); id <= helpers.MaxID; id++ {
			insns := asm.Instructions{asm.BuiltinFunc(id).Call(), asm.Mov.Imm(asm.R0, 0), asm.Return()}
			log, err := liveLoad(lt, insns)
			live := err == nil || !(strings.Contains(log, "cannot use helper") ||
				strings.Contains(log, "unknown func") || strings.Contains(log, "invalid func"))
			got, known := liveAllowed(missing, lt.pt, lt.at, id)
			if !known {
				t.Errorf("%v/%v: program type not modelled", lt.pt, lt.at)
				break
			}
			if got != live {
				t.Errorf("%v/%v helper %v (%d): Allowed %v, kernel %v", lt.pt, lt.at, asm.BuiltinFunc(id), id, got, live)
			}
		}
	}
}

// TestHelperAllowedLiveKernelBTF is TestHelperAllowedLiveKernel for the
// BTF tracing programs, which need an attach target. The reference
// machine refuses every trampoline program (fentry, fexit, fmod_ret) with
// EPERM before verifying it, so only tp_btf and iterators are compared.
func TestHelperAllowedLiveKernelBTF(t *testing.T) {
	skipIfNoBPF(t)
	types := []protoLiveType{
		{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task"},
	}
	missing := liveMissing(t)
	for _, lt := range types {
		for id := int32(1); id <= helpers.MaxID; id++ {
			insns := asm.Instructions{asm.BuiltinFunc(id).Call(), asm.Mov.Imm(asm.R0, 0), asm.Return()}
			kerr, ok := liveVerdict(lt, insns, nil, "GPL")
			if !ok {
				t.Errorf("%v helper %d: the kernel did not verify the probe", lt, id)
				continue
			}
			live := !strings.Contains(kerr, "cannot use helper") && !strings.Contains(kerr, "unknown func") &&
				!strings.Contains(kerr, "invalid func")
			got, known := liveAllowed(missing, lt.pt, lt.at, id)
			if !known {
				t.Errorf("%v: program type not modelled", lt)
				break
			}
			if got != live {
				t.Errorf("%v helper %v (%d): Allowed %v, kernel %v", lt, asm.BuiltinFunc(id), id, got, live)
			}
		}
	}
}

package verifier

// Return-value ranges: the kernel's check_return_code (6.18). Program types
// whose return value the kernel reads as a verdict or an action code must
// leave R0 inside a fixed range at the main program's exit; the rest may
// return anything.

import "github.com/cilium/ebpf"

// Verdict and action codes the ranges are made of.
const (
	// retReject and retAccept are the two verdicts of cgroup, sock_ops,
	// sk_lookup (SK_DROP/SK_PASS) and netfilter (NF_DROP/NF_ACCEPT)
	// programs.
	retReject = 0
	retAccept = 1
	// retSockAddrBindMax is the top of a bind hook's range: bit 1 asks
	// the kernel to skip its own port-capability check.
	retSockAddrBindMax = 3
	// retCgroupEgressMax is the top of a cgroup skb egress program's
	// range: bit 1 tells the stack to signal congestion (return codes 2
	// and 3 need the newer bpf_prog_run_array_cg path the egress hook
	// uses).
	retCgroupEgressMax = 3
)

// retRange gives the range R0 must have at program exit for a program of
// type pt attached as at. ok is false when any value is allowed (and for
// program types whose range depends on BTF that vercheck does not model:
// LSM, struct_ops, extensions).
func retRange(pt ebpf.ProgramType, at ebpf.AttachType) (min, max int64, ok bool) {
	switch pt {
	case ebpf.CGroupSockAddr:
		switch at {
		case ebpf.AttachCGroupUDP4Recvmsg, ebpf.AttachCGroupUDP6Recvmsg, ebpf.AttachCgroupUnixRecvmsg,
			ebpf.AttachCgroupInet4GetPeername, ebpf.AttachCgroupInet6GetPeername, ebpf.AttachCgroupUnixGetpeername,
			ebpf.AttachCgroupInet4GetSockname, ebpf.AttachCgroupInet6GetSockname, ebpf.AttachCgroupUnixGetsockname:
			// These hooks cannot refuse: they must say "accept".
			return retAccept, retAccept, true
		case ebpf.AttachCGroupInet4Bind, ebpf.AttachCGroupInet6Bind:
			return retReject, retSockAddrBindMax, true
		}
		return retReject, retAccept, true
	case ebpf.CGroupSKB:
		if at == ebpf.AttachCGroupInetEgress {
			return retReject, retCgroupEgressMax, true
		}
		return retReject, retAccept, true
	case ebpf.CGroupSock, ebpf.SockOps, ebpf.CGroupDevice, ebpf.CGroupSysctl, ebpf.CGroupSockopt:
		return retReject, retAccept, true
	case ebpf.SkLookup, ebpf.Netfilter:
		return retReject, retAccept, true
	case ebpf.Kprobe:
		if at == ebpf.AttachTraceKprobeSession {
			// A session entry program returns 0 to run the exit
			// program too, 1 to skip it.
			return 0, 1, true
		}
		return 0, 0, false
	case ebpf.Tracing:
		switch at {
		case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit:
			return 0, 0, true
		case ebpf.AttachTraceIter:
			return 0, 1, true
		}
		return 0, 0, false
	}
	return 0, 0, false
}

package helpers

// Which helpers each program type may call: the kernel's get_func_proto per
// program type (bpf_base_func_proto, bpf_sk_base_func_proto, sk_filter,
// tc_cls_act, xdp, the tracing families, cgroup_*, sock_ops, sk_skb, sk_msg,
// lwt_*, flow_dissector, sk_lookup, ...), as sets of helper ids.
//
// The sets describe Linux 6.18 as the reference machine builds and runs it:
// vercheck runs as root, so the base helpers gated on CAP_BPF or CAP_PERFMON
// (bpf_probe_read_kernel, bpf_get_current_task, bpf_snprintf_btf, timers,
// dynptrs, ...) are allowed. Two configuration facts of that kernel matter:
//   - CONFIG_BPF_KPROBE_OVERRIDE is off, so no program may call
//     bpf_override_return;
//   - the kernel is locked down (integrity), so bpf_probe_write_user is
//     refused to every program.
// Some sets depend on the expected attach type: the cgroup hooks whose
// return value the program may set get bpf_get_retval/bpf_set_retval (and
// expected attach type 0 is BPF_CGROUP_INET_INGRESS, which has neither),
// connect hooks get bpf_bind, trampolines and tp_btf programs their attach
// cookie. Each set was checked against the live kernel by loading a program
// per (type, attach type, helper) and reading the verifier's answer (see
// TestHelperAllowedLiveKernel); the prototype a type sees for each helper
// it may call is checked the same way (TestHelperProtoLiveKernel).
//
// Some helpers also put a condition on the calling program (the kernel's
// bpf_func_proto.allowed: Proto.Gate), checked by the verifier
// once the helper is known to be available.

import (
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// setWords is the number of 64-bit words a Set needs to hold
// every helper id up to MaxID.
const setWords = (int(MaxID) + 64) / 64

// Set is a set of helper ids.
type Set [setWords]uint64

// NewSet returns the set of the given helpers.
func NewSet(fns ...asm.BuiltinFunc) Set {
	var s Set
	for _, fn := range fns {
		id := int(fn)
		s[id/64] |= 1 << (id % 64)
	}
	return s
}

// has reports whether id is in the set.
func (s Set) Has(id int32) bool {
	if id <= 0 || id > MaxID {
		return false
	}
	return s[id/64]&(1<<(id%64)) != 0
}

// union returns the set of helpers in s or in any of others.
func (s Set) Union(others ...Set) Set {
	for _, o := range others {
		for i := range s {
			s[i] |= o[i]
		}
	}
	return s
}

// without returns s less the given helpers.
func (s Set) Without(fns ...asm.BuiltinFunc) Set {
	for _, fn := range fns {
		id := int(fn)
		s[id/64] &^= 1 << (id % 64)
	}
	return s
}

// minus returns s less the helpers in o.
func (s Set) minus(o Set) Set {
	for i := range s {
		s[i] &^= o[i]
	}
	return s
}

// Allowed reports whether a program of type pt (attach type at) may
// call helper id on a kernel of build b, per the kernel's get_func_proto
// for that type. extra are the helpers the program's attach target adds
// (an iterator's target, IterTarget; a struct_ops type's own set). known
// is false for program types vercheck does not model (the caller reports
// them as unsupported); allowed is then false too.
func (b Build) Allowed(pt ebpf.ProgramType, at ebpf.AttachType, extra Set, id int32) (allowed bool, known bool) {
	set, ok := b.AllowedSet(pt, at, extra)
	return set.Has(id), ok
}

// AllowedSet is the set Allowed tests: every helper a program of type pt
// (attach type at) may call on a kernel of build b, with extra added. It
// depends on the program alone, so a verifier makes it once per program
// rather than at every call. ok is false (and the set empty) for program
// types vercheck does not model.
func (b Build) AllowedSet(pt ebpf.ProgramType, at ebpf.AttachType, extra Set) (set Set, ok bool) {
	set, ok = allowedHelpers(pt, at)
	if !ok {
		return Set{}, false
	}
	return b.adjust(set.Union(extra), pt), true
}

// allowedHelpers returns the full set of helpers a program type may call.
func allowedHelpers(pt ebpf.ProgramType, at ebpf.AttachType) (Set, bool) {
	c := helpersCommon
	switch pt {
	case ebpf.SocketFilter:
		return c.Union(helpersSkBase, helpersSocketFilter), true
	case ebpf.SchedCLS, ebpf.SchedACT:
		return c.Union(helpersSkBase, helpersTc), true
	case ebpf.XDP:
		return c.Union(helpersSkBase, helpersXdp), true
	case ebpf.Kprobe, ebpf.TracePoint, ebpf.RawTracepoint, ebpf.RawTracepointWritable:
		return c.Union(helpersTrace), true
	case ebpf.PerfEvent:
		return c.Union(helpersTrace, helpersPerfEvent), true
	case ebpf.Tracing:
		return c.Union(helpersTracing, tracingAttachHelpers(at)), true
	case ebpf.Syscall:
		return c.Union(helpersSyscall), true
	case ebpf.CGroupSKB:
		return c.Union(helpersSkBase, helpersCgroupSKB), true
	case ebpf.CGroupSock:
		return c.Union(helpersCgroupSock, cgroupRetvalHelpers(at)), true
	case ebpf.CGroupSockAddr:
		s := c.Union(helpersSkBase, helpersSockAddr, cgroupRetvalHelpers(at))
		if at == ebpf.AttachCGroupInet4Connect || at == ebpf.AttachCGroupInet6Connect {
			s = s.Union(NewSet(asm.FnBind))
		}
		return s, true
	case ebpf.SockOps:
		return c.Union(helpersSkBase, helpersSockOps), true
	case ebpf.SkSKB:
		return c.Union(helpersSkBase, helpersSkSKB), true
	case ebpf.SkMsg:
		return c.Union(helpersSkBase, helpersSkMsg), true
	case ebpf.LWTIn:
		return c.Union(helpersSkBase, helpersLwtOut, NewSet(asm.FnLwtPushEncap)), true
	case ebpf.LWTOut:
		return c.Union(helpersSkBase, helpersLwtOut), true
	case ebpf.LWTXmit:
		return c.Union(helpersSkBase, helpersLwtOut, helpersLwtXmit), true
	case ebpf.LWTSeg6Local:
		return c.Union(helpersSkBase, helpersLwtOut, helpersLwtSeg6Local), true
	case ebpf.FlowDissector:
		return c.Union(helpersSkBase, helpersFlowDissector), true
	case ebpf.SkLookup:
		return c.Union(helpersSkBase, helpersSkLookup), true
	case ebpf.SkReuseport:
		return c.Union(helpersSkReuseport), true
	case ebpf.CGroupDevice:
		return c.Union(helpersCgroupDevice, cgroupRetvalHelpers(at)), true
	case ebpf.CGroupSysctl:
		return c.Union(helpersCgroupSysctl, cgroupRetvalHelpers(at)), true
	case ebpf.CGroupSockopt:
		s := c.Union(helpersCgroupSockopt, cgroupRetvalHelpers(at))
		if at == ebpf.AttachCGroupSetsockopt {
			s = s.Union(NewSet(asm.FnSetsockopt, asm.FnGetsockopt))
		}
		return s, true
	case ebpf.Netfilter:
		return c, true
	case ebpf.LSM:
		return c.Union(lsmHelpers(at)), true
	case ebpf.StructOps:
		// The ops type adds its own (the extra set of Allowed).
		return c, true
	}
	return Set{}, false
}

// lsmHelpers is bpf_lsm_func_proto's set on top of the tracing set: the
// inode and socket storages, spin locks, bpf_bprm_opts_set, the IMA hashes
// (which their gate keeps to sleepable hooks); the trampoline helpers
// (function arguments, attach cookie) for LSM_MAC only; the cgroup helpers
// (local storage, retval) for LSM_CGROUP only. The hook-dependent sockopt
// helpers are left out.
func lsmHelpers(at ebpf.AttachType) Set {
	s := helpersTracing.Union(NewSet(
		asm.FnInodeStorageGet, asm.FnInodeStorageDelete, asm.FnSkStorageGet,
		asm.FnSkStorageDelete, asm.FnSpinLock, asm.FnSpinUnlock, asm.FnBprmOptsSet,
		asm.FnImaInodeHash, asm.FnImaFileHash,
	))
	if at == ebpf.AttachLSMCgroup {
		s = s.Without(asm.FnGetAttachCookie)
		return s.Union(NewSet(asm.FnGetLocalStorage, asm.FnGetRetval, asm.FnSetRetval))
	}
	return s.Union(NewSet(asm.FnGetFuncArg, asm.FnGetFuncRet, asm.FnGetFuncArgCnt))
}

// cgroupRetvalHelpers is what cgroup_common_func_proto gives a cgroup
// program for its expected attach type: bpf_get_retval and bpf_set_retval,
// except at the hooks whose return value is not the program's to change
// (the skb and sock_ops hooks, recvmsg, getpeername and getsockname).
// Expected attach type 0 is BPF_CGROUP_INET_INGRESS, so a cgroup device or
// sysctl program loaded without one has neither.
func cgroupRetvalHelpers(at ebpf.AttachType) Set {
	switch at {
	case ebpf.AttachCGroupInetIngress, ebpf.AttachCGroupInetEgress, ebpf.AttachCGroupSockOps,
		ebpf.AttachCGroupUDP4Recvmsg, ebpf.AttachCGroupUDP6Recvmsg, ebpf.AttachCgroupUnixRecvmsg,
		ebpf.AttachCgroupInet4GetPeername, ebpf.AttachCgroupInet6GetPeername, ebpf.AttachCgroupUnixGetpeername,
		ebpf.AttachCgroupInet4GetSockname, ebpf.AttachCgroupInet6GetSockname, ebpf.AttachCgroupUnixGetsockname:
		return Set{}
	}
	return NewSet(asm.FnGetRetval, asm.FnSetRetval)
}

// tracingAttachHelpers is what a BTF tracing program gains from its attach
// type: programs run from a trampoline can read their arguments (and, on
// exit, the return value) and, like tp_btf programs, their attach cookie;
// iterators can print into their seq_file.
func tracingAttachHelpers(at ebpf.AttachType) Set {
	switch at {
	case ebpf.AttachTraceRawTp:
		return NewSet(asm.FnGetAttachCookie)
	case ebpf.AttachTraceFEntry:
		return NewSet(asm.FnGetFuncArg, asm.FnGetFuncArgCnt, asm.FnGetAttachCookie)
	case ebpf.AttachTraceFExit, ebpf.AttachModifyReturn:
		return NewSet(asm.FnGetFuncArg, asm.FnGetFuncRet, asm.FnGetFuncArgCnt, asm.FnGetAttachCookie)
	case ebpf.AttachTraceIter:
		return NewSet(asm.FnSeqPrintf, asm.FnSeqWrite, asm.FnSeqPrintfBtf)
	}
	return Set{}
}

// IterTarget are the helpers an iterator's target adds for its
// programs (bpf_iter_get_func_proto asks the target's get_func_proto):
// the tcp and unix socket iterators may set and read options of the socket
// they visit.
func IterTarget(target string) Set {
	switch target {
	case "tcp", "unix":
		return NewSet(asm.FnSetsockopt, asm.FnGetsockopt)
	}
	return Set{}
}

// The helper sets. Each per-type set lists what the type adds to
// helpersCommon (and to the parent set its comment names).
var (
	// helpersCommon is bpf_base_func_proto as root sees it (CAP_BPF and
	// CAP_PERFMON granted): every program type may call these.
	helpersCommon = NewSet(
		asm.FnMapLookupElem, asm.FnMapUpdateElem, asm.FnMapDeleteElem, asm.FnKtimeGetNs,
		asm.FnTracePrintk, asm.FnGetPrandomU32, asm.FnGetSmpProcessorId, asm.FnTailCall,
		asm.FnGetCurrentPidTgid, asm.FnGetCurrentUidGid, asm.FnGetCurrentComm,
		asm.FnGetCgroupClassid, asm.FnPerfEventRead, asm.FnGetCurrentTask,
		asm.FnCurrentTaskUnderCgroup, asm.FnGetNumaNodeId, asm.FnPerfEventReadValue,
		asm.FnGetCurrentCgroupId, asm.FnMapPushElem, asm.FnMapPopElem, asm.FnMapPeekElem,
		asm.FnSpinLock, asm.FnSpinUnlock, asm.FnStrtol, asm.FnStrtoul, asm.FnSendSignal,
		asm.FnProbeReadUser, asm.FnProbeReadKernel, asm.FnProbeReadUserStr, asm.FnProbeReadKernelStr,
		asm.FnSendSignalThread, asm.FnJiffies64, asm.FnGetNsCurrentPidTgid,
		asm.FnGetCurrentAncestorCgroupId, asm.FnKtimeGetBootNs, asm.FnRingbufOutput,
		asm.FnRingbufReserve, asm.FnRingbufSubmit, asm.FnRingbufDiscard, asm.FnRingbufQuery,
		asm.FnGetTaskStack, asm.FnCopyFromUser, asm.FnSnprintfBtf, asm.FnPerCpuPtr, asm.FnThisCpuPtr,
		asm.FnTaskStorageGet, asm.FnTaskStorageDelete, asm.FnGetCurrentTaskBtf, asm.FnForEachMapElem,
		asm.FnSnprintf, asm.FnTimerInit, asm.FnTimerSetCallback, asm.FnTimerStart, asm.FnTimerCancel,
		asm.FnTaskPtRegs, asm.FnGetBranchSnapshot, asm.FnTraceVprintk, asm.FnFindVma, asm.FnLoop,
		asm.FnStrncmp, asm.FnCopyFromUserTask, asm.FnKptrXchg, asm.FnMapLookupPercpuElem,
		asm.FnDynptrFromMem, asm.FnRingbufReserveDynptr, asm.FnRingbufSubmitDynptr,
		asm.FnRingbufDiscardDynptr, asm.FnDynptrRead, asm.FnDynptrWrite, asm.FnDynptrData,
		asm.FnKtimeGetTaiNs, asm.FnUserRingbufDrain, asm.FnCgrpStorageGet, asm.FnCgrpStorageDelete,
	)
	// helpersSkBase is what bpf_sk_base_func_proto adds to the common set:
	// the BTF socket casts and the coarse clock.
	helpersSkBase = NewSet(
		asm.FnSkcToTcp6Sock, asm.FnSkcToTcpSock, asm.FnSkcToTcpTimewaitSock,
		asm.FnSkcToTcpRequestSock, asm.FnSkcToUdp6Sock, asm.FnKtimeGetCoarseNs, asm.FnSkcToUnixSock,
		asm.FnSkcToMptcpSock,
	)
	// helpersSocketFilter: sk_filter_func_proto: skb loads, socket cookie and uid, netns cookie.
	helpersSocketFilter = NewSet(
		asm.FnPerfEventOutput, asm.FnSkbLoadBytes, asm.FnGetSocketCookie, asm.FnGetSocketUid,
		asm.FnSkbLoadBytesRelative, asm.FnGetNetnsCookie,
	)
	// helpersTc: tc_cls_act_func_proto: the full skb toolbox of tc classifiers and actions.
	helpersTc = NewSet(
		asm.FnSkbStoreBytes, asm.FnL3CsumReplace, asm.FnL4CsumReplace, asm.FnCloneRedirect,
		asm.FnSkbVlanPush, asm.FnSkbVlanPop, asm.FnSkbGetTunnelKey, asm.FnSkbSetTunnelKey,
		asm.FnRedirect, asm.FnGetRouteRealm, asm.FnPerfEventOutput, asm.FnSkbLoadBytes,
		asm.FnCsumDiff, asm.FnSkbGetTunnelOpt, asm.FnSkbSetTunnelOpt, asm.FnSkbChangeProto,
		asm.FnSkbChangeType, asm.FnSkbUnderCgroup, asm.FnGetHashRecalc, asm.FnSkbChangeTail,
		asm.FnSkbPullData, asm.FnCsumUpdate, asm.FnSetHashInvalid, asm.FnSkbChangeHead,
		asm.FnGetSocketCookie, asm.FnGetSocketUid, asm.FnSetHash, asm.FnSkbAdjustRoom,
		asm.FnSkbGetXfrmState, asm.FnSkbLoadBytesRelative, asm.FnFibLookup, asm.FnSkbCgroupId,
		asm.FnSkbAncestorCgroupId, asm.FnSkLookupTcp, asm.FnSkLookupUdp, asm.FnSkRelease,
		asm.FnSkFullsock, asm.FnTcpSock, asm.FnSkbEcnSetCe, asm.FnGetListenerSock,
		asm.FnSkcLookupTcp, asm.FnTcpCheckSyncookie, asm.FnSkStorageGet, asm.FnSkStorageDelete,
		asm.FnTcpGenSyncookie, asm.FnGetNetnsCookie, asm.FnSkAssign, asm.FnCsumLevel,
		asm.FnSkbCgroupClassid, asm.FnRedirectNeigh, asm.FnRedirectPeer, asm.FnCheckMtu,
		asm.FnSkbSetTstamp, asm.FnTcpRawGenSyncookieIpv4, asm.FnTcpRawGenSyncookieIpv6,
		asm.FnTcpRawCheckSyncookieIpv4, asm.FnTcpRawCheckSyncookieIpv6,
	)
	// helpersXdp: xdp_func_proto: packet adjustment, redirects, FIB and socket lookups, syncookies.
	helpersXdp = NewSet(
		asm.FnRedirect, asm.FnPerfEventOutput, asm.FnCsumDiff, asm.FnXdpAdjustHead,
		asm.FnRedirectMap, asm.FnXdpAdjustMeta, asm.FnXdpAdjustTail, asm.FnFibLookup,
		asm.FnSkLookupTcp, asm.FnSkLookupUdp, asm.FnSkRelease, asm.FnSkcLookupTcp,
		asm.FnTcpCheckSyncookie, asm.FnTcpGenSyncookie, asm.FnCheckMtu, asm.FnXdpGetBuffLen,
		asm.FnXdpLoadBytes, asm.FnXdpStoreBytes, asm.FnTcpRawGenSyncookieIpv4,
		asm.FnTcpRawGenSyncookieIpv6, asm.FnTcpRawCheckSyncookieIpv4, asm.FnTcpRawCheckSyncookieIpv6,
	)
	// helpersTrace: the kprobe, tracepoint and raw tracepoint protos: probe_read, stacks, perf output.
	helpersTrace = NewSet(
		asm.FnProbeRead, asm.FnPerfEventOutput, asm.FnGetStackid, asm.FnProbeReadStr, asm.FnGetStack,
		asm.FnGetFuncIp, asm.FnGetAttachCookie,
	)
	// helpersPerfEvent: pe_prog_func_proto, on top of helpersTrace: perf counters and branch records.
	helpersPerfEvent = NewSet(
		asm.FnPerfProgReadValue, asm.FnReadBranchRecords,
	)
	// helpersTracing: tracing_prog_func_proto (BTF tracing programs), for any attach type.
	helpersTracing = NewSet(
		asm.FnProbeRead, asm.FnPerfEventOutput, asm.FnGetStackid, asm.FnProbeReadStr,
		asm.FnGetSocketCookie, asm.FnGetStack, asm.FnSkStorageGet, asm.FnSkStorageDelete,
		asm.FnSkbOutput, asm.FnXdpOutput, asm.FnSkcToTcp6Sock, asm.FnSkcToTcpSock,
		asm.FnSkcToTcpTimewaitSock, asm.FnSkcToTcpRequestSock, asm.FnSkcToUdp6Sock, asm.FnDPath,
		asm.FnSockFromFile, asm.FnGetFuncIp, asm.FnSkcToUnixSock,
		asm.FnXdpGetBuffLen, asm.FnSkcToMptcpSock,
	)
	// helpersSyscall: syscall_prog_func_proto: the tracing helpers plus the sys_bpf family.
	helpersSyscall = NewSet(
		asm.FnProbeRead, asm.FnPerfEventOutput, asm.FnGetStackid, asm.FnProbeReadStr,
		asm.FnGetSocketCookie, asm.FnGetStack, asm.FnSkStorageGet, asm.FnSkStorageDelete,
		asm.FnSkbOutput, asm.FnXdpOutput, asm.FnSkcToTcp6Sock, asm.FnSkcToTcpSock,
		asm.FnSkcToTcpTimewaitSock, asm.FnSkcToTcpRequestSock, asm.FnSkcToUdp6Sock, asm.FnDPath,
		asm.FnSockFromFile, asm.FnSysBpf, asm.FnBtfFindByNameKind, asm.FnSysClose, asm.FnGetFuncIp,
		asm.FnSkcToUnixSock, asm.FnKallsymsLookupName, asm.FnXdpGetBuffLen, asm.FnSkcToMptcpSock,
	)
	// helpersCgroupSKB: cg_skb_func_proto.
	helpersCgroupSKB = NewSet(
		asm.FnPerfEventOutput, asm.FnSkbLoadBytes, asm.FnGetSocketCookie, asm.FnGetSocketUid,
		asm.FnSkbLoadBytesRelative, asm.FnSkbCgroupId, asm.FnGetLocalStorage,
		asm.FnSkbAncestorCgroupId, asm.FnSkLookupTcp, asm.FnSkLookupUdp, asm.FnSkRelease,
		asm.FnSkFullsock, asm.FnTcpSock, asm.FnSkbEcnSetCe, asm.FnGetListenerSock,
		asm.FnSkcLookupTcp, asm.FnSkStorageGet, asm.FnSkStorageDelete, asm.FnGetNetnsCookie,
		asm.FnSkCgroupId, asm.FnSkAncestorCgroupId,
	)
	// helpersCgroupSock: sock_filter_func_proto (cgroup sock programs).
	helpersCgroupSock = NewSet(
		asm.FnPerfEventOutput, asm.FnGetSocketCookie, asm.FnGetLocalStorage, asm.FnSkStorageGet,
		asm.FnGetNetnsCookie, asm.FnKtimeGetCoarseNs,
	)
	// helpersSockAddr: sock_addr_func_proto, for every attach type.
	helpersSockAddr = NewSet(
		asm.FnPerfEventOutput, asm.FnGetSocketCookie, asm.FnSetsockopt, asm.FnGetsockopt,
		asm.FnGetLocalStorage, asm.FnSkLookupTcp, asm.FnSkLookupUdp, asm.FnSkRelease,
		asm.FnSkcLookupTcp, asm.FnSkStorageGet, asm.FnSkStorageDelete, asm.FnGetNetnsCookie,
	)
	// helpersSockOps: sock_ops_func_proto.
	helpersSockOps = NewSet(
		asm.FnPerfEventOutput, asm.FnGetSocketCookie, asm.FnSetsockopt, asm.FnSockMapUpdate,
		asm.FnGetsockopt, asm.FnSockOpsCbFlagsSet, asm.FnSockHashUpdate, asm.FnGetLocalStorage,
		asm.FnTcpSock, asm.FnSkStorageGet, asm.FnSkStorageDelete, asm.FnGetNetnsCookie,
		asm.FnLoadHdrOpt, asm.FnStoreHdrOpt, asm.FnReserveHdrOpt,
	)
	// helpersSkSKB: sk_skb_func_proto.
	helpersSkSKB = NewSet(
		asm.FnSkbStoreBytes, asm.FnPerfEventOutput, asm.FnSkbLoadBytes, asm.FnSkbChangeTail,
		asm.FnSkbPullData, asm.FnSkbChangeHead, asm.FnGetSocketCookie, asm.FnGetSocketUid,
		asm.FnSkbAdjustRoom, asm.FnSkRedirectMap, asm.FnSkRedirectHash, asm.FnSkLookupTcp,
		asm.FnSkLookupUdp, asm.FnSkRelease, asm.FnSkcLookupTcp,
	)
	// helpersSkMsg: sk_msg_func_proto.
	helpersSkMsg = NewSet(
		asm.FnPerfEventOutput, asm.FnMsgRedirectMap, asm.FnMsgApplyBytes, asm.FnMsgCorkBytes,
		asm.FnMsgPullData, asm.FnMsgRedirectHash, asm.FnMsgPushData, asm.FnMsgPopData,
		asm.FnSkStorageGet, asm.FnSkStorageDelete, asm.FnGetNetnsCookie,
	)
	// helpersLwtOut: lwt_out_func_proto (lwt_in adds bpf_lwt_push_encap).
	helpersLwtOut = NewSet(
		asm.FnGetRouteRealm, asm.FnPerfEventOutput, asm.FnSkbLoadBytes, asm.FnCsumDiff,
		asm.FnSkbUnderCgroup, asm.FnGetHashRecalc, asm.FnSkbPullData,
	)
	// helpersLwtXmit: lwt_xmit_func_proto, on top of helpersLwtOut.
	helpersLwtXmit = NewSet(
		asm.FnSkbStoreBytes, asm.FnL3CsumReplace, asm.FnL4CsumReplace, asm.FnCloneRedirect,
		asm.FnSkbGetTunnelKey, asm.FnSkbSetTunnelKey, asm.FnRedirect, asm.FnSkbGetTunnelOpt,
		asm.FnSkbSetTunnelOpt, asm.FnSkbChangeTail, asm.FnCsumUpdate, asm.FnSetHashInvalid,
		asm.FnSkbChangeHead, asm.FnLwtPushEncap, asm.FnCsumLevel,
	)
	// helpersLwtSeg6Local: lwt_seg6local_func_proto, on top of helpersLwtOut.
	helpersLwtSeg6Local = NewSet(
		asm.FnLwtSeg6StoreBytes, asm.FnLwtSeg6AdjustSrh, asm.FnLwtSeg6Action,
	)
	// helpersFlowDissector: flow_dissector_func_proto.
	helpersFlowDissector = NewSet(
		asm.FnSkbLoadBytes,
	)
	// helpersSkLookup: sk_lookup_func_proto.
	helpersSkLookup = NewSet(
		asm.FnPerfEventOutput, asm.FnSkRelease, asm.FnSkAssign,
	)
	// helpersSkReuseport: sk_reuseport_func_proto.
	helpersSkReuseport = NewSet(
		asm.FnSkbLoadBytes, asm.FnGetSocketCookie, asm.FnSkbLoadBytesRelative,
		asm.FnSkSelectReuseport, asm.FnKtimeGetCoarseNs,
	)
	// helpersCgroupDevice: cgroup_dev_func_proto.
	helpersCgroupDevice = NewSet(
		asm.FnPerfEventOutput, asm.FnGetLocalStorage,
	)
	// helpersCgroupSysctl: sysctl_func_proto.
	helpersCgroupSysctl = NewSet(
		asm.FnPerfEventOutput, asm.FnGetLocalStorage, asm.FnSysctlGetName,
		asm.FnSysctlGetCurrentValue, asm.FnSysctlGetNewValue, asm.FnSysctlSetNewValue,
		asm.FnKtimeGetCoarseNs,
	)
	// helpersCgroupSockopt: cg_sockopt_func_proto, for every attach type.
	helpersCgroupSockopt = NewSet(
		asm.FnPerfEventOutput, asm.FnGetLocalStorage, asm.FnTcpSock, asm.FnSkStorageGet,
		asm.FnSkStorageDelete, asm.FnGetNetnsCookie,
	)
)

// dPathTargets are the kernel functions a trampoline program may call
// bpf_d_path from (the kernel's btf_allowlist_d_path): hooks that get a
// path the caller holds a reference on.
var dPathTargets = map[string]bool{
	"security_file_permission": true, "security_inode_getattr": true, "security_file_open": true,
	"security_path_truncate": true, "vfs_truncate": true, "vfs_fallocate": true, "dentry_open": true,
	"vfs_getattr": true, "filp_close": true,
}

// skStoragePrefix names the socket storage functions a tracing program
// calling the socket storage helpers may not trace (it could recurse).
const skStoragePrefix = "bpf_sk_storage"

// DPathTarget reports whether a trampoline program attached to the kernel
// function fn may call bpf_d_path (btf_allowlist_d_path).
func DPathTarget(fn string) bool { return dPathTargets[fn] }

// TracesSkStorage reports whether the kernel function fn is one of the
// socket storage functions, which a tracing program calling the socket
// storage helpers may not trace (bpf_sk_storage_tracing_allowed: it could
// recurse).
func TracesSkStorage(fn string) bool { return strings.HasPrefix(fn, skStoragePrefix) }

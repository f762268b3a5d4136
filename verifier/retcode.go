package verifier

// Return-value ranges: the kernel's check_return_code (6.18). Program types
// whose return value the kernel reads as a verdict or an action code must
// leave R0 inside a fixed range at the main program's exit; the rest may
// return anything.

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/states"
)

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
// program types whose range depends on the attach target's BTF: LSM and
// struct_ops, which checkBTFReturnCode handles, and extensions).
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
		if at == ebpf.AttachTraceKprobeSession || at == helpers.AttachTraceUprobeSession {
			// A session entry program (kprobe or uprobe) returns 0 to
			// run the exit program too, 1 to skip it.
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

// retvalRange is the kernel's bpf_retval_range: the values R0 may hold at
// exit; ok is false when any value is allowed.
type retvalRange struct {
	min, max int64
	ok       bool
}

// checkBTFReturnCode is check_return_code for the program types whose exit
// rules come from the attach target's BTF (LSM, struct_ops). done is false
// for the other types, which retRange describes.
func (e *env) checkBTFReturnCode(regno int) (done bool, err error) {
	if e.progType != ebpf.LSM && e.progType != ebpf.StructOps {
		return false, nil
	}
	tc, err := e.attachTarget()
	if err != nil {
		return true, e.unsupported(e.insnIdx, "attach target of %s: %v", e.progType, err)
	}
	if e.progType == ebpf.LSM {
		return true, e.checkLSMReturnCode(tc, regno)
	}
	return true, e.checkStructOpsReturnCode(tc, regno)
}

// checkStructOpsReturnCode is check_return_code for struct_ops programs:
// nothing for a void member; for a member returning a pointer, R0 must be
// NULL (a referenced pointer of the member's type is not modelled); any
// value otherwise.
func (e *env) checkStructOpsReturnCode(tc *tracingCtx, regno int) error {
	ret := skipModifiers(tc.ret)
	if isVoid(ret) {
		return nil
	}
	if err := e.checkRegRead(uint8(regno)); err != nil {
		return err
	}
	if _, ptr := ret.(*btf.Pointer); !ptr {
		return nil
	}
	if reg := &e.regs()[regno]; reg.Type != states.ScalarValue && reg.RefObjID != 0 {
		return e.unsupported(e.insnIdx, "struct_ops program returning a referenced pointer")
	}
	return e.enforceReturnRange(regno, retvalRange{ok: true}, false, "")
}

// enforceReturnRange checks register regno against r at program exit: a
// scalar, made precise, whose 64-bit (or, for is32, 32-bit) signed bounds
// lie inside r. note is a second line the kernel prints after an
// out-of-range message.
func (e *env) enforceReturnRange(regno int, r retvalRange, is32 bool, note string) error {
	r0 := &e.regs()[regno]
	if r0.Type != states.ScalarValue {
		return e.reject(e.insnIdx, "At program exit the register R%d is not a known value (%s)", regno, regTypeStr(r0))
	}
	if err := e.markChainPrecision(regno); err != nil {
		return err
	}
	within := r.min <= r0.SMin && r0.SMax <= r.max
	if is32 {
		within = r.min <= int64(r0.S32Min) && int64(r0.S32Max) <= r.max
	}
	if within {
		return nil
	}
	err := e.rejectOutOfRange("At program exit", regno, r0, r.min, r.max)
	if re, ok := err.(*RejectError); ok && note != "" {
		re.Msg += "\n" + note
	}
	return err
}

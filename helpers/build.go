package helpers

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// Build holds the facts of a kernel build and boot that change which
// helpers a program may call, beyond its release: two builds of the same
// 6.18.y release may differ in them. The zero value is the reference
// machine's build (the kernel the tables were checked against): no
// bpf_override_return, lockdown in integrity mode, no
// bpf_verify_pkcs7_signature. A fact that cannot be read is left at that
// value.
type Build struct {
	// KprobeOverride is CONFIG_BPF_KPROBE_OVERRIDE: kprobe programs may
	// call bpf_override_return (kprobe_prog_func_proto).
	KprobeOverride bool
	// Lockdown is the kernel's lockdown level, which takes helpers away
	// from every program (security_locked_down in the get_func_proto of
	// the base and tracing sets).
	Lockdown Lockdown
	// Interpreted is a kernel that runs programs in its interpreter: one
	// built without CONFIG_BPF_JIT, or without CONFIG_BPF_JIT_ALWAYS_ON
	// and with the JIT off (net.core.bpf_jit_enable=0, the boot default
	// without CONFIG_BPF_JIT_DEFAULT_ON). Its verifier knows no JIT will
	// run (prog->jit_requested is false) and refuses what only a JIT
	// supports: kfunc calls, arenas, tail calls from programs with
	// bpf-to-bpf calls, callbacks; it also rounds each frame's stack to
	// 32 bytes instead of 16 in the combined stack limit.
	Interpreted bool
	// SignatureVerification is CONFIG_SYSTEM_DATA_VERIFICATION: the
	// generic kfunc set registers bpf_verify_pkcs7_signature. The
	// function is built with CONFIG_KEYS alone (it then returns
	// -EOPNOTSUPP), so the kernel's BTF has it either way, and a build
	// without the option refuses a call ("calling kernel function
	// bpf_verify_pkcs7_signature is not allowed").
	SignatureVerification bool
	// Seg6BPF is CONFIG_IPV6_SEG6_BPF: lwt_seg6local programs may call
	// bpf_lwt_seg6_store_bytes, bpf_lwt_seg6_adjust_srh and
	// bpf_lwt_seg6_action (lwt_seg6local_func_proto offers them only
	// then). A build without IPv6 segment routing tunnels (the
	// 6.18.44-fc-v1252 build) refuses the calls ("program of this type
	// cannot use helper"); the zero value is that stricter answer.
	Seg6BPF bool
}

// Lockdown is a kernel lockdown level (the lockdown LSM's modes).
type Lockdown uint8

// Lockdown levels. The zero value is integrity, the reference machine's.
const (
	// LockdownIntegrity refuses bpf_probe_write_user
	// (LOCKDOWN_BPF_WRITE_USER).
	LockdownIntegrity Lockdown = iota
	// LockdownNone refuses nothing: tracing programs may call
	// bpf_probe_write_user.
	LockdownNone
	// LockdownConfidentiality also refuses the helpers that read kernel
	// memory (LOCKDOWN_BPF_READ_KERNEL): bpf_probe_read_kernel(_str) and
	// their compat forms bpf_probe_read(_str).
	LockdownConfidentiality
)

// ParseLockdown reads a lockdown level as the kernel spells it ("none",
// "integrity", "confidentiality").
func ParseLockdown(s string) (Lockdown, bool) {
	switch s {
	case "none":
		return LockdownNone, true
	case "integrity":
		return LockdownIntegrity, true
	case "confidentiality":
		return LockdownConfidentiality, true
	}
	return LockdownIntegrity, false
}

// String is the level as the kernel spells it.
func (l Lockdown) String() string {
	switch l {
	case LockdownNone:
		return "none"
	case LockdownConfidentiality:
		return "confidentiality"
	}
	return "integrity"
}

// readKernelHelpers are the helpers that read kernel memory, which the
// confidentiality level takes away.
var readKernelHelpers = NewSet(asm.FnProbeReadKernel, asm.FnProbeReadKernelStr, asm.FnProbeRead, asm.FnProbeReadStr)

// tracingFamily reports whether a program type's helpers come from
// bpf_tracing_func_proto, which offers bpf_probe_write_user.
func tracingFamily(pt ebpf.ProgramType) bool {
	switch pt {
	case ebpf.Kprobe, ebpf.TracePoint, ebpf.RawTracepoint, ebpf.RawTracepointWritable,
		ebpf.PerfEvent, ebpf.Tracing, ebpf.LSM, ebpf.Syscall:
		return true
	}
	return false
}

// adjust applies the build's facts to the set a program type pt may call.
func (b Build) adjust(s Set, pt ebpf.ProgramType) Set {
	if b.KprobeOverride && pt == ebpf.Kprobe {
		s = s.Union(NewSet(asm.FnOverrideReturn))
	}
	if !b.Seg6BPF && pt == ebpf.LWTSeg6Local {
		s = s.minus(helpersLwtSeg6Local)
	}
	switch b.Lockdown {
	case LockdownNone:
		if tracingFamily(pt) {
			s = s.Union(NewSet(asm.FnProbeWriteUser))
		}
	case LockdownConfidentiality:
		s = s.minus(readKernelHelpers)
	}
	return s
}

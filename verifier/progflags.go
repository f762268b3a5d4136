package verifier

import (
	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// modelledProgFlags are the load flags vercheck verifies as the kernel
// does. BPF_F_TEST_RND_HI32 only changes how the verified program is
// rewritten (random upper halves after 32-bit writes), never the verdict.
// BPF_F_XDP_HAS_FRAGS changes no check of the 6.18 verifier either: it
// matters when the program is attached or tail-called, and the frag-aware
// helpers (bpf_xdp_load_bytes, bpf_xdp_get_buff_len...) are allowed with
// or without it. BPF_F_TEST_REG_INVARIANTS turns the kernel's reset of
// inconsistent bounds into a failed load (boundsSanityCheck).
// BPF_F_XDP_DEV_BOUND_ONLY matters only to a device-bound program
// (bpf_prog_dev_bound_init, for a load with a prog_ifindex), which
// vercheck's never are: bpf_prog_load takes it and changes nothing.
const modelledProgFlags = loader.FlagStrictAlignment | loader.FlagAnyAlignment | loader.FlagTestRndHi32 |
	loader.FlagTestStateFreq | loader.FlagSleepable | loader.FlagXDPHasFrags | loader.FlagTestRegInvariants |
	loader.FlagXDPDevBoundOnly

// progFlags returns the load flags of the program being verified.
func (e *env) progFlags() uint32 {
	if e.lp == nil {
		return 0
	}
	return e.lp.Flags
}

// isSleepable reports a program loaded with BPF_F_SLEEPABLE (the ".s"
// sections and "syscall" get it from their loader).
func isSleepable(e *env) bool {
	return e.progFlags()&loader.FlagSleepable != 0
}

// strictAlignment is the kernel's env->strict_alignment on an architecture
// with efficient unaligned access (bpf_check): BPF_F_STRICT_ALIGNMENT asks
// for it and BPF_F_ANY_ALIGNMENT, applied after, takes it back.
func (e *env) strictAlignment() bool {
	f := e.progFlags()
	return f&loader.FlagStrictAlignment != 0 && f&loader.FlagAnyAlignment == 0
}

// testStateFreq is env->test_state_freq (BPF_F_TEST_STATE_FREQ, honoured
// for privileged loads, which the oracle's are): a checkpoint at every
// prune point, and no loop heuristic holding them back.
func (e *env) testStateFreq() bool {
	return e.progFlags()&loader.FlagTestStateFreq != 0
}

// checkProgFlags rejects flags vercheck does not model and the
// program types that may not take the flags given (the start of the
// kernel's check_attach_btf_id).
func (e *env) checkProgFlags() error {
	if other := e.progFlags() &^ modelledProgFlags; other != 0 {
		return e.unsupported(0, "program load flags %s", loader.FormatProgFlags(other))
	}
	sleepable := isSleepable(e)
	if e.progType == ebpf.Syscall {
		if !sleepable {
			return e.reject(0, "Syscall programs can only be sleepable")
		}
		return nil
	}
	if sleepable && !e.canBeSleepable() {
		return e.reject(0, "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable")
	}
	return nil
}

// canBeSleepable is can_be_sleepable: the tracing attach types whose
// trampoline may sleep, LSM (but BPF_LSM_CGROUP on kernels with the stable
// fix), struct_ops, and kprobe-type programs (which only uprobes will
// attach).
func (e *env) canBeSleepable() bool {
	if e.lp != nil && e.lp.Type == ebpf.Extension {
		// can_be_sleepable asks the program's own type.
		return false
	}
	switch e.progType {
	case ebpf.Tracing:
		switch e.attach {
		case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn, ebpf.AttachTraceIter:
			return true
		}
		return false
	case ebpf.LSM:
		// stablefix.LsmCgroupSleepable: the cgroup shim may not sleep.
		return e.attach != ebpf.AttachLSMCgroup || e.opts.MissingFixes.Has(stablefix.LsmCgroupSleepable)
	case ebpf.Kprobe, ebpf.StructOps:
		return true
	}
	return false
}

// sleepableMapTypes are the maps a sleepable program may use
// (check_map_prog_compatibility): their lookups are safe outside an RCU
// read section.
var sleepableMapTypes = map[ebpf.MapType]bool{
	ebpf.Hash: true, ebpf.LRUHash: true, ebpf.Array: true, ebpf.PerCPUHash: true, ebpf.PerCPUArray: true,
	ebpf.LRUCPUHash: true, ebpf.ArrayOfMaps: true, ebpf.HashOfMaps: true, ebpf.RingBuf: true,
	ebpf.UserRingbuf: true, ebpf.InodeStorage: true, ebpf.SkStorage: true, ebpf.TaskStorage: true,
	ebpf.CgroupStorage: true, ebpf.Queue: true, ebpf.Stack: true, ebpf.Arena: true,
}

package verifier

import (
	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/helpers"
)

// checkHelperGate applies a helper's extra condition on the program (the
// kernel's bpf_func_proto.allowed), before its arguments are looked at.
func (e *env) checkHelperGate(fn *helpers.Proto) error {
	target := ""
	if e.lp != nil {
		target = e.lp.AttachTo
	}
	ok := true
	switch fn.Gate {
	case helpers.GateNone:
		return nil
	case helpers.GateDPath:
		switch {
		case e.progType == ebpf.LSM:
			ok = e.lsmSleepableHook()
		case e.progType != ebpf.Tracing, e.attach == ebpf.AttachTraceRawTp:
			// A tp_btf program's attach id is its typedef, never a
			// listed function.
			ok = false
		case e.attach != ebpf.AttachTraceIter:
			ok = helpers.DPathTarget(target)
		}
	case helpers.GateSkStorageTracing:
		switch e.attach {
		case ebpf.AttachTraceIter, ebpf.AttachTraceRawTp:
		case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit:
			ok = !helpers.TracesSkStorage(target)
		default:
			ok = false
		}
	case helpers.GateIMA:
		ok = e.lsmSleepableHook()
	default:
		return e.unsupported(e.insnIdx, "helper %s#%d (gate %d)", fn.Name, fn.ID, fn.Gate)
	}
	if !ok {
		return e.reject(e.insnIdx, "helper call is not allowed in probe")
	}
	return nil
}

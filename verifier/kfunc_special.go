package verifier

// kfuncs whose result the kernel does not derive from the BTF return type
// alone (check_special_kfunc), and the per-kfunc rules of check_kfunc_args
// that name one function.

import (
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// kernCtxStruct is the kernel struct behind each program type's context
// (the kern_ctx_type column of the kernel's bpf_types.h), for the program
// types whose kernel context is a struct. The others' (u64 arrays, void)
// bpf_cast_to_kern_ctx results are not modelled.
var kernCtxStruct = map[ebpf.ProgramType]string{
	ebpf.SocketFilter:   "sk_buff",
	ebpf.SchedCLS:       "sk_buff",
	ebpf.SchedACT:       "sk_buff",
	ebpf.CGroupSKB:      "sk_buff",
	ebpf.LWTIn:          "sk_buff",
	ebpf.LWTOut:         "sk_buff",
	ebpf.LWTXmit:        "sk_buff",
	ebpf.LWTSeg6Local:   "sk_buff",
	ebpf.SkSKB:          "sk_buff",
	ebpf.XDP:            "xdp_buff",
	ebpf.CGroupSock:     "sock",
	ebpf.CGroupSockAddr: "bpf_sock_addr_kern",
	ebpf.SockOps:        "bpf_sock_ops_kern",
	ebpf.SkMsg:          "sk_msg",
	ebpf.FlowDissector:  "bpf_flow_dissector",
	ebpf.Kprobe:         "pt_regs",
	ebpf.PerfEvent:      "bpf_perf_event_data_kern",
	ebpf.CGroupDevice:   "bpf_cgroup_dev_ctx",
	ebpf.CGroupSysctl:   "bpf_sysctl_kern",
	ebpf.CGroupSockopt:  "bpf_sockopt_kern",
	ebpf.SkReuseport:    "sk_reuseport_kern",
	ebpf.SkLookup:       "bpf_sk_lookup_kern",
	ebpf.Netfilter:      "bpf_nf_ctx",
}

// kernCtxArg is the bpf_cast_to_kern_ctx part of the context argument
// check (get_kern_ctx_btf_id): the kernel struct the result points to.
func (e *env) kernCtxArg(meta *kfuncMeta) error {
	name, ok := kernCtxStruct[e.progType]
	if !ok {
		if id, notStruct := kernCtxNotStruct(e.progType); notStruct {
			re := e.reject(e.insnIdx, "kern ctx type id %d is not a struct", id).(*RejectError)
			re.errno = syscall.EINVAL
			return re
		}
		return e.unsupported(e.insnIdx, "bpf_cast_to_kern_ctx in a %s program", e.progType)
	}
	id := btfTypeID(btfStructByName(name))
	if id == 0 {
		return e.unsupported(e.insnIdx, "bpf_cast_to_kern_ctx: struct %s not in kernel BTF", name)
	}
	meta.kernCtxID = id
	return nil
}

// kernCtxNotStruct reports whether the kernel context of progType is no
// struct, as get_kern_ctx_btf_id finds it: the type of the
// BPF_PROG_TYPE_<TYPE>_kern member of vmlinux's struct bpf_ctx_convert
// (the tracepoint types' u64, the BTF-context types' void *, which
// bpf_cast_to_kern_ctx refuses), with its type id for the message.
func kernCtxNotStruct(progType ebpf.ProgramType) (uint32, bool) {
	spec, err := vmlinux()
	if err != nil {
		return 0, false
	}
	var types *btf.Enum
	var conv *btf.Struct
	if spec.TypeByName("bpf_prog_type", &types) != nil || spec.TypeByName("bpf_ctx_convert", &conv) != nil {
		return 0, false
	}
	for _, v := range types.Values {
		if v.Value != uint64(progType) {
			continue
		}
		for _, m := range conv.Members {
			if m.Name != v.Name+"_kern" {
				continue
			}
			switch m.Type.(type) {
			case *btf.Struct, *btf.Union:
				return 0, false
			}
			return btfTypeID(m.Type), true
		}
	}
	return 0, false
}

// cssTaskIterAllowed is check_css_task_iter_allowlist: LSM programs, BPF
// iterators and sleepable programs may walk a cgroup's tasks.
func (e *env) cssTaskIterAllowed() bool {
	switch e.progType {
	case ebpf.LSM:
		return true
	case ebpf.Tracing:
		if e.attach == ebpf.AttachTraceIter {
			return true
		}
	}
	return e.inSleepable()
}

// setSpecialKfuncReturn is check_special_kfunc for the kfuncs vercheck
// models: it sets r0 and reports true when the kfunc is one of them.
func (e *env) setSpecialKfuncReturn(info *kfuncInfo, meta *kfuncMeta) (bool, error) {
	r0 := &e.regs()[0]
	switch info.name {
	case "bpf_cast_to_kern_ctx":
		if meta.kernCtxID == 0 {
			return true, e.internal(e.insnIdx, "bpf_cast_to_kern_ctx without a context type")
		}
		r0.MarkPtr(states.PtrToBTFID, states.PtrTrusted)
		r0.Aux = meta.kernCtxID
		return true, nil
	case "bpf_rdonly_cast":
		if !meta.constantArg {
			return true, e.internal(e.insnIdx, "bpf_rdonly_cast without a constant type id")
		}
		// The kernel looks the type up with the low 32 bits of the
		// constant (btf_type_by_id takes a u32) and prints it whole.
		id := uint32(meta.constant)
		t := btfTypeByID(id)
		if t == nil {
			return true, e.reject(e.insnIdx, "Unknown type ID %d passed to kfunc bpf_rdonly_cast", int64(meta.constant))
		}
		if !isStruct(t) {
			if _, isVoid := t.(*btf.Void); isVoid {
				// Untrusted read-only memory of size zero, read
				// with the kernel's probe loads.
				markUntrustedMem(r0)
				return true, nil
			}
			return true, e.reject(e.insnIdx, "kfunc bpf_rdonly_cast type ID argument must be of a struct or void")
		}
		r0.MarkPtr(states.PtrToBTFID, states.PtrUntrusted)
		r0.Aux = id
		return true, nil
	case "bpf_dynptr_slice", "bpf_dynptr_slice_rdwr":
		return true, e.setDynptrSliceReturn(info, meta)
	case kfuncObjNew, kfuncPercpuObjNew:
		return true, e.setObjNewReturn(meta, info.name == kfuncPercpuObjNew)
	}
	return e.setGraphReturn(info, meta)
}

// setDynptrSliceReturn sets r0 for bpf_dynptr_slice(_rdwr): memory of the
// constant size asked for, read-only for bpf_dynptr_slice, tied to its
// dynptr, maybe NULL. A writable slice needs a program type that may write
// packets, whatever the dynptr, and a kernel that allows the kfunc at all
// (stablefix.NoDynptrSliceRdwr).
func (e *env) setDynptrSliceReturn(info *kfuncInfo, meta *kfuncMeta) error {
	if !meta.constantArg {
		return e.internal(e.insnIdx, "%s no constant size", info.name)
	}
	var flags states.RegFlags
	if info.name == "bpf_dynptr_slice" {
		flags = states.MemRdonly
	} else if !e.opts.MissingFixes.Has(stablefix.NoDynptrSliceRdwr) {
		// The build's refusal fails the load with EPERM.
		return e.rejectErrno(syscall.EPERM, e.insnIdx, "%s() is not allowed", info.name)
	} else if !e.mayWritePacket() {
		return e.reject(e.insnIdx, "the prog does not allow writes to packet data")
	}
	if meta.dynptr.id == 0 {
		return e.internal(e.insnIdx, "no dynptr id")
	}
	// The slice's mem_size is a u32: the constant's high bits are
	// dropped (with no buffer nothing else bounds it). Range holds its
	// bits; memSize reads them back unsigned, so a slice of 2 GiB or
	// more covers every offset BPF_MAX_VAR_OFF allows.
	size := uint32(meta.constant)
	r0 := &e.regs()[0]
	r0.MarkPtr(states.PtrToMem, flags)
	r0.Range = int32(size)
	// Packet slices are not reference counted: the dynptr's id is all
	// they keep, with the packet mark that lets a packet change kill
	// them.
	r0.Aux = meta.dynptr.id | dynptrSliceKfunc
	if meta.dynptr.typ.isPacket() {
		r0.Aux |= dynptrSlicePkt
	}
	if meta.buf.Size != 0 {
		r0.Buf = meta.buf
		e.sliceBufs = true
	}
	if !e.opts.MissingFixes.Has(stablefix.SliceRingbufRef) {
		// The slice lives as long as the dynptr's reference, if any.
		r0.RefObjID = meta.dynptr.ref
	}
	return nil
}

package verifier

// Iterator programs (SEC("iter/<target>"), BPF_TRACE_ITER; the kernel's
// bpf_iter.c and each target's bpf_iter_reg).
//
// An iterator program runs once per object the target walks, with a context
// struct bpf_iter__<target>: a trusted pointer to the bpf_iter_meta (the
// seq_file and the position), then the object pointers. The verifier reads
// the layout from the prototype of the "bpf_iter_<target>" function, whose
// arguments are that struct's members; the target's ctx_arg_info table then
// overrides the object slots: they may be NULL (the last call of an
// iteration passes NULL), trusted only for some targets, and the map
// iterators' key and value slots are maybe-NULL buffers whose size the
// attach step checks (vercheck tracks the pointer; a load through it is
// unsupported). The program returns 0 or 1.

import (
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/states"
)

// iterFuncPrefix names the functions that give each target's context.
const iterFuncPrefix = "bpf_iter_"

// Slot offsets of the objects in struct bpf_iter__<target>: the meta
// pointer comes first.
const (
	iterSlot1 = 1 * sizeU64
	iterSlot2 = 2 * sizeU64
	iterSlot3 = 3 * sizeU64
)

// Register types of the ctx_arg_info entries.
const (
	iterObj        = states.MaybeNull                     // PTR_TO_BTF_ID_OR_NULL
	iterTrustedObj = states.MaybeNull | states.PtrTrusted // ... | PTR_TRUSTED
	iterBuf        = states.MaybeNull                     // PTR_TO_BUF | PTR_MAYBE_NULL
	iterRdonlyBuf  = states.MaybeNull | states.MemRdonly  // ... | MEM_RDONLY
)

// iterTargets is each 6.18 target's ctx_arg_info. Whether an object is
// trusted was read from the live kernel's messages
// ("trusted_ptr_or_null_" against "ptr_or_null_").
var iterTargets = map[string][]ctxArgInfo{
	"task":               {{off: iterSlot1, flags: iterTrustedObj}},
	"task_file":          {{off: iterSlot1, flags: iterObj}, {off: iterSlot3, flags: iterObj}},
	"task_vma":           {{off: iterSlot1, flags: iterObj}, {off: iterSlot2, flags: iterObj}},
	"bpf_map":            {{off: iterSlot1, flags: iterTrustedObj}},
	"bpf_map_elem":       {{off: iterSlot2, flags: iterRdonlyBuf, buffer: true}, {off: iterSlot3, flags: iterBuf, buffer: true}},
	"bpf_prog":           {{off: iterSlot1, flags: iterObj}},
	"bpf_link":           {{off: iterSlot1, flags: iterObj}},
	"bpf_sk_storage_map": {{off: iterSlot2, flags: iterObj}, {off: iterSlot3, flags: iterBuf, buffer: true}},
	"sockmap":            {{off: iterSlot2, flags: iterRdonlyBuf, buffer: true}, {off: iterSlot3, flags: iterObj}},
	"cgroup":             {{off: iterSlot1, flags: iterTrustedObj}},
	"kmem_cache":         {{off: iterSlot1, flags: iterTrustedObj}},
	"dmabuf":             {{off: iterSlot1, flags: iterObj}},
	"ksym":               {{off: iterSlot1, flags: iterObj}},
	"netlink":            {{off: iterSlot1, flags: iterObj}},
	"tcp":                {{off: iterSlot1, flags: iterTrustedObj}},
	"udp":                {{off: iterSlot1, flags: iterTrustedObj}},
	"unix":               {{off: iterSlot1, flags: iterObj}},
	"ipv6_route":         {{off: iterSlot1, flags: iterObj}},
}

// iterContext resolves an iterator target.
func iterContext(spec *btf.Spec, target string) (*tracingCtx, error) {
	proto, err := attachFunc(spec, "iterator", iterFuncPrefix+target)
	if err != nil {
		return nil, err
	}
	info, ok := iterTargets[target]
	if !ok {
		return nil, fmt.Errorf("iterator target %q", target)
	}
	return &tracingCtx{
		name:    iterFuncPrefix + target,
		params:  proto.Params,
		all:     proto.Params,
		ret:     proto.Return,
		trusted: true,
		strict:  true,
		argInfo: info,
	}, nil
}

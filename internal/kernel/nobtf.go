package kernel

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/vercheck/vercheck/loader"
)

// libbpf without BTF: when the kernel refuses an object's BTF
// (BPF_BTF_LOAD fails: a FUNC with an unnamed parameter, a struct whose
// special fields btf_parse_struct_metas cannot parse), libbpf goes on
// without it unless a struct_ops map needs it
// (bpf_object__sanitize_and_load_btf: "BTF is optional, ignoring"): every
// map is created without BTF and every program loaded without
// prog_btf_fd, func_info and line_info. cilium/ebpf's load fails instead,
// so under libbpf's map BTF ([ObjectBTF]) such programs are loaded
// libbpf's way, and get the verdict the verifier models for them
// (verifier's libbpfDropsBTF).

// refusedObjectBTFs caches objectBTFRefused by object BTF; the keys are
// weak, an entry goes with its BTF.
var refusedObjectBTFs sync.Map // weak.Pointer[btf.Spec] -> bool

// libbpfDropsBTF reports whether libbpf loads prog, and creates its maps,
// without BTF: the kernel refuses the object's BTF and no struct_ops map
// of the object needs it. Programs whose load needs what only
// cilium/ebpf's path resolves (objectBTFLoadable) are left to it.
func libbpfDropsBTF(obj *loader.Object, prog *loader.Program) bool {
	if prog.ObjectTypes == nil || !objectBTFLoadable(prog) ||
		slices.ContainsFunc(obj.Maps, func(m *loader.Map) bool { return m != nil && m.Type == ebpf.StructOpsMap }) {
		return false
	}
	return objectBTFRefused(prog.ObjectTypes)
}

// specDropsBTF is libbpfDropsBTF for a collection spec's programs (the
// loader's path loads them as libbpf does then).
func specDropsBTF(spec *ebpf.CollectionSpec) bool {
	for _, m := range spec.Maps {
		if m.Type == ebpf.StructOpsMap {
			return false
		}
	}
	return spec.Types != nil && objectBTFRefused(spec.Types)
}

// objectBTFRefused reports whether BPF_BTF_LOAD refuses spec as libbpf
// loads it (newObjectBTF), asking the kernel once per BTF.
func objectBTFRefused(spec *btf.Spec) bool {
	key := weak.Make(spec)
	if v, ok := refusedObjectBTFs.Load(key); ok {
		return v.(bool)
	}
	refused := false
	if ob, err := newObjectBTF(spec); err == nil {
		h, err := btf.NewHandle(&ob.builder)
		if err == nil {
			h.Close()
		}
		// libbpf goes on without BTF whatever the kernel's errno
		// (EINVAL for a malformed type, ENOENT for a graph root whose
		// node struct btf_parse_struct_metas cannot find...).
		var errno unix.Errno
		refused = errors.As(err, &errno)
	}
	if _, loaded := refusedObjectBTFs.LoadOrStore(key, refused); !loaded {
		runtime.AddCleanup(spec, func(k weak.Pointer[btf.Spec]) { refusedObjectBTFs.Delete(k) }, key)
	}
	return refused
}

// dropProgramBTF makes spec a program libbpf loads without BTF (see
// libbpfDropsBTF): no function and line info, and no CO-RE relocation
// left for cilium/ebpf to apply (libbpf relocated bpf_core_type_id_local
// against the object's BTF, which the kernel never sees).
func dropProgramBTF(spec *ebpf.ProgramSpec) {
	for i := range spec.Instructions {
		ins := &spec.Instructions[i]
		*ins = btf.WithFuncMetadata(*ins, nil)
		*ins = btf.WithCORERelocationMetadata(*ins, nil)
		*ins = ins.WithSource(nil)
	}
}

// dropMapBTF makes ms, and its inner map's template, a map without BTF.
func dropMapBTF(ms *ebpf.MapSpec) {
	ms.Key, ms.Value = nil, nil
	if ms.InnerMap != nil {
		dropMapBTF(ms.InnerMap)
	}
}

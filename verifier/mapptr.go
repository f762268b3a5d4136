package verifier

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/states"
)

// mapStructNames names, per map type, the kernel struct that embeds struct
// bpf_map for that type (the struct a map's ops declare for BTF access).
// Loads through a map pointer walk this struct of the running kernel's BTF.
// Map types missing here are not modelled.
var mapStructNames = map[ebpf.MapType]string{
	ebpf.Hash:                "bpf_htab",
	ebpf.PerCPUHash:          "bpf_htab",
	ebpf.LRUHash:             "bpf_htab",
	ebpf.LRUCPUHash:          "bpf_htab",
	ebpf.HashOfMaps:          "bpf_htab",
	ebpf.Array:               "bpf_array",
	ebpf.PerCPUArray:         "bpf_array",
	ebpf.ProgramArray:        "bpf_array",
	ebpf.PerfEventArray:      "bpf_array",
	ebpf.CGroupArray:         "bpf_array",
	ebpf.ArrayOfMaps:         "bpf_array",
	ebpf.RingBuf:             "bpf_ringbuf_map",
	ebpf.UserRingbuf:         "bpf_ringbuf_map",
	ebpf.StackTrace:          "bpf_stack_map",
	ebpf.Queue:               "bpf_queue_stack",
	ebpf.Stack:               "bpf_queue_stack",
	ebpf.BloomFilter:         "bpf_bloom_filter",
	ebpf.DevMap:              "bpf_dtab",
	ebpf.DevMapHash:          "bpf_dtab",
	ebpf.CPUMap:              "bpf_cpu_map",
	ebpf.XSKMap:              "xsk_map",
	ebpf.SockMap:             "bpf_stab",
	ebpf.SockHash:            "bpf_shtab",
	ebpf.ReusePortSockArray:  "reuseport_array",
	ebpf.SkStorage:           "bpf_local_storage_map",
	ebpf.TaskStorage:         "bpf_local_storage_map",
	ebpf.InodeStorage:        "bpf_local_storage_map",
	ebpf.CgroupStorage:       "bpf_local_storage_map",
	ebpf.LPMTrie:             "lpm_trie",
	ebpf.CGroupStorage:       "bpf_cgroup_storage_map",
	ebpf.PerCPUCGroupStorage: "bpf_cgroup_storage_map",
	ebpf.Arena:               arenaMapStruct,
}

// mapStruct returns the vmlinux struct behind a map of type t, or nil when
// the type or the kernel BTF is unknown.
func mapStruct(t ebpf.MapType) *btf.Struct {
	name, ok := mapStructNames[t]
	if !ok {
		return nil
	}
	s, _ := btfStructByName(name).(*btf.Struct)
	return s
}

// checkPtrToMapAccess is check_ptr_to_map_access: a load of size bytes at
// off through a map pointer reads the map's kernel struct, as a read-only
// BTF walk (root loaders only, as vercheck models). dst is set on a load.
func (e *env) checkPtrToMapAccess(regno, off, size int, t access, dst *states.Reg) error {
	m := e.mapAt(&e.regs()[regno])
	if m == nil {
		return e.unsupported(e.insnIdx, "map pointer without a map")
	}
	st := mapStruct(m.Type)
	if st == nil {
		return e.unsupported(e.insnIdx, "map_ptr access for map type %s", m.Type)
	}
	if off < 0 {
		return e.reject(e.insnIdx, "R%d is %s invalid negative access: off=%d", regno, st.Name, off)
	}
	if t == accWrite {
		return e.reject(e.insnIdx, "only read from %s is supported", st.Name)
	}
	res, msg, err := btfStructWalk(st, off, size)
	if err != nil {
		return e.walkError(err, st.Name, off, size)
	}
	if msg != "" {
		return e.reject(e.insnIdx, "%s", msg)
	}
	if dst == nil {
		return nil
	}
	// A pointer to anything but a struct (the map's name, its exclusive
	// program's hash) reads as untrusted read-only memory, as through
	// any BTF pointer.
	if e.markWalkedNonBTFPtr(dst, res) {
		return nil
	}
	// The new pointer is neither trusted nor RCU protected.
	dst.MarkPtr(states.PtrToBTFID, e.walkedLegacyFlags(res.flags))
	dst.Aux = res.id
	return nil
}

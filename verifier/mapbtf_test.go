package verifier

import (
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestMapBTFRefusal checks map_check_btf's model: which key and value
// types the kernel refuses for each map type, and with which errno (on
// EINVAL and ENOTSUPP loaders create the map again without BTF, so the
// record is empty; on any other the map is not created).
func TestMapBTFRefusal(t *testing.T) {
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4}
	timer := &btf.Struct{Name: "bpf_timer", Size: 16}
	locked := &btf.Struct{Name: "locked", Size: 16, Members: []btf.Member{{Name: "l", Type: lock}, {Name: "v", Type: u64, Offset: 64}}}
	timed := &btf.Struct{Name: "timed", Size: 24, Members: []btf.Member{{Name: "t", Type: timer}, {Name: "v", Type: u64, Offset: 128}}}
	plain := &btf.Struct{Name: "plain", Size: 8, Members: []btf.Member{{Name: "v", Type: u64}}}
	enumKey := &btf.Enum{Name: "e", Size: 4}
	k4 := &btf.Struct{Name: "k4", Size: 4, Members: []btf.Member{{Name: "a", Type: u32}}}
	cgKey := &btf.Struct{Name: "bpf_cgroup_storage_key", Size: 16, Members: []btf.Member{
		{Name: "cgroup_inode_id", Type: u64}, {Name: "attach_type", Type: u32, Offset: 64}}}
	badCgKey := &btf.Struct{Name: "k16", Size: 16, Members: []btf.Member{
		{Name: "a", Type: u32}, {Name: "b", Type: u64, Offset: 64}}}
	sec := &btf.Datasec{Name: ".bss", Size: 8}
	m := func(typ ebpf.MapType, key, value btf.Type, flags uint32) *loader.Map {
		ks, vs := int(0), 0
		if key != nil {
			ks, _ = btf.Sizeof(key)
		}
		vs, _ = btf.Sizeof(value)
		return &loader.Map{Name: "m", Type: typ, KeySize: uint32(ks), ValueSize: uint32(vs), MaxEntries: 1, Flags: flags,
			Spec: &ebpf.MapSpec{Key: key, Value: value}}
	}
	type got struct {
		HasBTF bool
		Errno  syscall.Errno
	}
	tests := []struct {
		name string
		m    *loader.Map
		want got
	}{
		{"array, u32 key, lock", m(ebpf.Array, u32, locked, 0), got{true, 0}},
		{"array, typedef u32 key", m(ebpf.Array, &btf.Typedef{Name: "idx", Type: u32}, locked, 0), got{true, 0}},
		{"array, const u32 key", m(ebpf.Array, &btf.Const{Type: u32}, locked, 0), got{true, 0}},
		{"array, enum key: retried without BTF", m(ebpf.Array, enumKey, locked, 0), got{false, 0}},
		{"array, struct key: retried without BTF", m(ebpf.Array, k4, timed, 0), got{false, 0}},
		{"array, no key, data section", m(ebpf.Array, nil, sec, 0), got{true, 0}},
		{"array, no key, struct value", m(ebpf.Array, nil, plain, 0), got{false, 0}},
		{"hash, struct key", m(ebpf.Hash, k4, locked, 0), got{true, 0}},
		{"hash, no key", m(ebpf.Hash, nil, plain, 0), got{false, 0}},
		{"LRU hash with a lock: EOPNOTSUPP, libbpf retries without BTF", m(ebpf.LRUHash, u32, locked, 0), got{false, 0}},
		{"LRU hash with a timer", m(ebpf.LRUHash, u32, timed, 0), got{true, 0}},
		{"per-CPU array with a lock: retried", m(ebpf.PerCPUArray, u32, locked, 0), got{false, 0}},
		{"per-CPU hash with a timer: retried", m(ebpf.PerCPUHash, u32, timed, 0), got{false, 0}},
		{"socket storage with a timer: local storage requires BTF", m(ebpf.SkStorage, u32, timed, 0), got{true, syscall.EOPNOTSUPP}},
		{"socket storage with a lock", m(ebpf.SkStorage, u32, locked, 0), got{true, 0}},
		{"socket storage, u64 key: local storage requires BTF", m(ebpf.SkStorage, u64, locked, 0), got{true, syscall.EINVAL}},
		{"read-only for programs, with a lock: EACCES, libbpf retries without BTF", m(ebpf.Array, u32, locked, bpfFRdonlyProg), got{false, 0}},
		{"read-only for programs, no field", m(ebpf.Array, u32, plain, bpfFRdonlyProg), got{true, 0}},
		{"cgroup storage, u64 key", m(ebpf.CGroupStorage, u64, locked, 0), got{true, 0}},
		{"cgroup storage, struct key of 8", m(ebpf.CGroupStorage, &btf.Struct{Name: "k8", Size: 8, Members: []btf.Member{{Name: "id", Type: u64}}}, locked, 0), got{false, 0}},
		{"cgroup storage, storage key", m(ebpf.CGroupStorage, cgKey, locked, 0), got{true, 0}},
		{"cgroup storage, other 16-byte key", m(ebpf.CGroupStorage, badCgKey, locked, 0), got{false, 0}},
		{"LPM trie, int key", m(ebpf.LPMTrie, u64, plain, 0), got{false, 0}},
		{"key size differs", &loader.Map{Name: "m", Type: ebpf.Hash, KeySize: 8, ValueSize: 16, MaxEntries: 1,
			Spec: &ebpf.MapSpec{Key: u32, Value: locked}}, got{false, 0}},
		{"perf event array", m(ebpf.PerfEventArray, u32, u32, 0), got{false, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{}
			r := e.recordOf(tt.m)
			g := got{HasBTF: r.hasBTF}
			if r.createErr != nil {
				g.Errno = r.createErr.Errno
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

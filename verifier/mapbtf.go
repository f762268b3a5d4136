package verifier

import (
	"fmt"
	"slices"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/loader"
)

// The map's BTF: what BPF_MAP_CREATE does with the key and value types a
// loader names (map_check_btf, kernel/bpf/syscall.c, and the map types'
// map_check_btf ops).
//
// The kernel checks the key's and value's sizes against the map's, parses
// the value's special fields (btf_parse_fields), refuses fields the map
// type cannot hold, and lets the map type check the key's kind: an array
// or local storage is keyed by a 32-bit int, a cgroup storage by a u64 or
// struct bpf_cgroup_storage_key, an LPM trie by a struct, a hash by
// anything but void, a bloom filter by nothing. What a refusal means
// depends on the loader, not the kernel: on EINVAL (and the kernel's
// internal ENOTSUPP of the maps that take no BTF) both libbpf and
// cilium/ebpf create the map again without BTF, and the map then has no
// special fields at all: a bpf_spin_lock in its value is plain memory and
// bpf_spin_lock on it fails with "map 'm' has to have BTF in order to use
// bpf_spin_lock". Any other errno (EOPNOTSUPP for a field the map type
// cannot hold, EACCES for BPF_F_RDONLY_PROG on a map with fields) fails
// cilium/ebpf's load, where vercheck gives no verdict (ErrMapCreate).
// libbpf retries without BTF whatever the errno: under libbpf's map BTF
// (Options.MapBTF) a map refused for its access flags or for a field its
// type cannot hold is verified as one without fields, as the kernel
// harness loads it libbpf's way (internal/kernel's progAccessFlagged and
// fieldRefusedByType). Local storage needs its BTF: the retry fails too.

// btfRetried reports whether a map creation that fails with errno is
// retried without BTF by both loaders (libbpf's bpf_object__create_map
// retries on any error, cilium/ebpf's createMap on EINVAL and ENOTSUPP).
func btfRetried(errno syscall.Errno) bool {
	return errno == syscall.EINVAL || errno == errnoENOTSUPP
}

// btfRequired reports whether maps of type t cannot be created without
// BTF key and value types (bpf_local_storage_map_alloc_check): a retry
// without BTF fails as well.
func btfRequired(t ebpf.MapType) bool {
	switch t {
	case ebpf.SkStorage, ebpf.InodeStorage, ebpf.TaskStorage, ebpf.CgroupStorage:
		return true
	}
	return false
}

// retryNote says what the loaders do after map_check_btf refused a map of
// type t with errno.
func retryNote(t ebpf.MapType, errno syscall.Errno) string {
	switch {
	case btfRequired(t):
		return " (map_check_btf; the loaders' retry without BTF fails too: the map type requires BTF)"
	case btfRetried(errno):
		return " (map_check_btf)"
	}
	return " (map_check_btf; libbpf creates the map again without BTF)"
}

// noBTFMapTypes are the map types whose map_check_btf op is
// map_check_no_btf: their values are other kernel objects, and BTF for
// them is refused with ENOTSUPP.
var noBTFMapTypes = map[ebpf.MapType]bool{
	ebpf.ProgramArray: true, ebpf.PerfEventArray: true, ebpf.CGroupArray: true, ebpf.ArrayOfMaps: true,
	ebpf.HashOfMaps: true, ebpf.CPUMap: true, ebpf.DevMap: true, ebpf.DevMapHash: true,
	ebpf.StackTrace: true, ebpf.SockMap: true, ebpf.SockHash: true, ebpf.XSKMap: true,
}

// checkedMapTypes are the other map types with a map_check_btf op; a
// type with none takes no BTF without a key (EINVAL).
var checkedMapTypes = map[ebpf.MapType]bool{
	ebpf.Array: true, ebpf.PerCPUArray: true, ebpf.Hash: true, ebpf.PerCPUHash: true,
	ebpf.LRUHash: true, ebpf.LRUCPUHash: true, ebpf.CGroupStorage: true, ebpf.PerCPUCGroupStorage: true,
	ebpf.LPMTrie: true, ebpf.BloomFilter: true, ebpf.SkStorage: true, ebpf.InodeStorage: true,
	ebpf.TaskStorage: true, ebpf.CgroupStorage: true, ebpf.Arena: true,
}

// fieldMapTypes are, for each kind of special field, the map types whose
// values may hold it (map_check_btf's switch on the record's field mask).
// Graph nodes are not parsed in map values at all.
var fieldMapTypes = map[fieldKind][]ebpf.MapType{
	fieldSpinLock: {ebpf.Hash, ebpf.Array, ebpf.CGroupStorage, ebpf.SkStorage, ebpf.InodeStorage,
		ebpf.TaskStorage, ebpf.CgroupStorage},
	fieldTimer: {ebpf.Hash, ebpf.LRUHash, ebpf.Array},
	fieldKptr: {ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash, ebpf.Array, ebpf.PerCPUArray,
		ebpf.SkStorage, ebpf.InodeStorage, ebpf.TaskStorage, ebpf.CgroupStorage},
	fieldListHead: {ebpf.Hash, ebpf.LRUHash, ebpf.Array},
}

// fieldMapTypeRule maps each field kind to the entry of fieldMapTypes
// that governs it (the resilient lock is a lock, a workqueue and a
// task_work are timers, a refcount is a kptr, an rb root a list head).
var fieldMapTypeRule = map[fieldKind]fieldKind{
	fieldSpinLock: fieldSpinLock, fieldResSpinLock: fieldSpinLock,
	fieldTimer: fieldTimer, fieldWq: fieldTimer, fieldTaskWork: fieldTimer,
	fieldKptr: fieldKptr, fieldRefcount: fieldKptr,
	fieldListHead: fieldListHead, fieldRBRoot: fieldListHead,
}

// mapBTFRefusal returns why, and with which errno, BPF_MAP_CREATE refuses
// the BTF key and value types m names, given rec, the record of its value
// (with unsupported set when vercheck could not read the record, whose
// field checks are then left out); "" when the kernel takes them.
func mapBTFRefusal(m *loader.Map, rec *mapRecord) (string, syscall.Errno) {
	key := m.Spec.Key
	if _, void := key.(*btf.Void); void {
		key = nil
	}
	if key != nil {
		if size, err := btf.Sizeof(key); err != nil || uint32(size) != m.KeySize {
			return fmt.Sprintf("its BTF key type %s is not of key_size %d", key.TypeName(), m.KeySize), syscall.EINVAL
		}
	} else if !noBTFMapTypes[m.Type] && !checkedMapTypes[m.Type] {
		return "a " + m.Type.String() + " map takes no BTF without a key type", syscall.EINVAL
	}
	if size, err := btf.Sizeof(m.Spec.Value); err != nil || uint32(size) != m.ValueSize {
		return fmt.Sprintf("its BTF value type %s is not of value_size %d", m.Spec.Value.TypeName(), m.ValueSize), syscall.EINVAL
	}
	if rec.unsupported != "" {
		return "", 0
	}
	if reason, errno := fieldRefusal(m, rec); reason != "" {
		return reason, errno
	}
	if noBTFMapTypes[m.Type] {
		return "a " + m.Type.String() + " map takes no BTF", errnoENOTSUPP
	}
	if reason := keyKindRefusal(m, key); reason != "" {
		return reason, syscall.EINVAL
	}
	return "", 0
}

// fieldRefusal is map_check_btf's checks of a parsed record: no access
// flags for the program, and only fields the map type can hold.
func fieldRefusal(m *loader.Map, rec *mapRecord) (string, syscall.Errno) {
	var fields []mapField
	for _, f := range rec.fields {
		if f.kind != fieldListNode && f.kind != fieldRBNode {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return "", 0
	}
	if m.Flags&(bpfFRdonlyProg|bpfFWronlyProg) != 0 {
		return "BPF_F_RDONLY_PROG or BPF_F_WRONLY_PROG on a map whose value holds a " + fields[0].name, syscall.EACCES
	}
	for _, f := range fields {
		name := f.name
		if f.kind == fieldKptr && f.kptr != nil && f.kptr.kind == kptrUptr {
			// A uptr lives in task storage only.
			if m.Type != ebpf.TaskStorage {
				return "a uptr in a " + m.Type.String() + " map value", syscall.EOPNOTSUPP
			}
			continue
		}
		if !slices.Contains(fieldMapTypes[fieldMapTypeRule[f.kind]], m.Type) {
			if name == "" {
				name = "kptr"
			}
			return "a " + name + " in a " + m.Type.String() + " map value", syscall.EOPNOTSUPP
		}
	}
	return "", 0
}

// keyKindRefusal is the map types' own map_check_btf: the kind of key
// (nil for none) each accepts, "" when key passes.
func keyKindRefusal(m *loader.Map, key btf.Type) string {
	var k btf.Type
	if key != nil {
		k = btf.UnderlyingType(key)
	}
	switch m.Type {
	case ebpf.Array, ebpf.PerCPUArray:
		// array_map_check_btf: a u32 index, or no key for a global data
		// section (a one-element array of a DATASEC).
		if k == nil {
			if _, sec := btf.UnderlyingType(m.Spec.Value).(*btf.Datasec); m.Type != ebpf.Array || m.MaxEntries != 1 || !sec {
				return "an array without a key type that is no global data section"
			}
			return ""
		}
		if !isIntOfSize(k, 4) {
			return "an array whose BTF key type " + key.TypeName() + " is no 32-bit int"
		}
	case ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash:
		if k == nil {
			return "a hash map without a key type"
		}
	case ebpf.SkStorage, ebpf.InodeStorage, ebpf.TaskStorage, ebpf.CgroupStorage:
		if !isIntOfSize(k, 4) {
			return "local storage whose BTF key type is no 32-bit int"
		}
	case ebpf.CGroupStorage, ebpf.PerCPUCGroupStorage:
		return cgroupStorageKeyRefusal(m, k)
	case ebpf.LPMTrie:
		if _, ok := k.(*btf.Struct); !ok {
			return "an LPM trie whose BTF key type is no struct"
		}
	case ebpf.BloomFilter:
		if k != nil {
			return "a bloom filter with a key type"
		}
	}
	return ""
}

// cgroupStorageKeySize is sizeof(struct bpf_cgroup_storage_key): a
// cgroup storage with keys of this size is isolated per attach type.
const cgroupStorageKeySize = 16

// cgroupStorageKeyRefusal is cgroup_storage_check_btf: the key is a u64
// cgroup inode id, or struct bpf_cgroup_storage_key's two members (a u64
// at 0, a u32 at 8) when the key has its size.
func cgroupStorageKeyRefusal(m *loader.Map, k btf.Type) string {
	if m.KeySize != cgroupStorageKeySize {
		if !isIntOfSize(k, 8) {
			return "a cgroup storage whose BTF key type is no u64"
		}
		return ""
	}
	s, ok := k.(*btf.Struct)
	if !ok || len(s.Members) != 2 || !isRegIntMember(s.Members[0], 0, 8) || !isRegIntMember(s.Members[1], 8, 4) {
		return "a cgroup storage whose BTF key type is not struct bpf_cgroup_storage_key's layout"
	}
	return ""
}

// isIntOfSize reports whether t, modifiers skipped, is an int of size
// bytes.
func isIntOfSize(t btf.Type, size uint32) bool {
	i, ok := t.(*btf.Int)
	return ok && i.Size == size
}

// isRegIntMember is btf_member_is_reg_int: m is an int of size bytes at
// byte offset off, no bitfield.
func isRegIntMember(m btf.Member, off, size uint32) bool {
	return m.BitfieldSize == 0 && m.Offset == btf.Bits(off*8) && isIntOfSize(btf.UnderlyingType(m.Type), size)
}

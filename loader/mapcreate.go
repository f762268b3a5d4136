package loader

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// Map definition flags (include/uapi/linux/bpf.h) that BPF_MAP_CREATE
// checks.
const (
	mapFNoPrealloc   = 1 << 0
	mapFNoCommonLRU  = 1 << 1
	mapFNumaNode     = 1 << 2
	mapFRdonly       = 1 << 3
	mapFWronly       = 1 << 4
	mapFZeroSeed     = 1 << 6
	mapFWronlyProg   = 1 << 8
	mapFClone        = 1 << 9
	mapFMmapable     = 1 << 10
	mapFPreserveElem = 1 << 11
	mapFInnerMap     = 1 << 12

	// mapFAccessMask is BPF_F_ACCESS_MASK.
	mapFAccessMask = mapFRdonly | bpfFRdonlyProg | mapFWronly | mapFWronlyProg
	// arrayCreateFlags is arraymap.c's ARRAY_CREATE_FLAG_MASK.
	arrayCreateFlags = mapFNumaNode | mapFMmapable | mapFAccessMask | mapFPreserveElem | mapFInnerMap
	// htabCreateFlags is hashtab.c's HTAB_CREATE_FLAG_MASK.
	htabCreateFlags = mapFNoPrealloc | mapFNoCommonLRU | mapFNumaNode | mapFAccessMask | mapFZeroSeed
)

// errNotSupp is the kernel's internal ENOTSUPP (524), which map creation
// returns to user space as it is.
const errNotSupp = syscall.Errno(524)

// MapCreateError is a map definition the kernel refuses to create
// (BPF_MAP_CREATE fails with Errno, before any program is loaded): a
// program that uses the map gets no verifier verdict.
type MapCreateError struct {
	// Map is the map's name in the object.
	Map string
	// Errno is what BPF_MAP_CREATE returns.
	Errno syscall.Errno
	// Reason names the rule of the kernel's that refuses the definition.
	Reason string
}

// Error says which map the kernel refuses to create, with which errno,
// and why.
func (e *MapCreateError) Error() string {
	return fmt.Sprintf("map %s: the kernel refuses to create it (%s): %s", e.Map, errnoName(e.Errno), e.Reason)
}

// errnoName returns the symbolic name of the errnos map creation fails with.
func errnoName(errno syscall.Errno) string {
	switch errno {
	case syscall.EINVAL:
		return "EINVAL"
	case syscall.EACCES:
		return "EACCES"
	case errNotSupp:
		return "ENOTSUPP"
	case syscall.EOPNOTSUPP:
		return "EOPNOTSUPP"
	}
	return errno.Error()
}

// CreateError returns why BPF_MAP_CREATE would refuse m or its inner map
// template, or nil. It follows map_create and the map_alloc_check of the
// array, hash, ring buffer, queue and stack, bloom filter and local
// storage families (flags outside the type's mask, read-only and
// write-only together, zero or wrong sizes); other map types, the checks
// of the value's BTF (map_check_btf), and limits that depend on the
// machine (memory, NUMA nodes) are left to the kernel.
func (m *Map) CreateError() error {
	if m.Inner != nil {
		if err := m.Inner.CreateError(); err != nil {
			return err
		}
		if reason, errno := innerTemplateRefusal(m.Inner); reason != "" {
			return &MapCreateError{Map: m.Name, Errno: errno, Reason: reason}
		}
	}
	if reason, errno := createRefusal(m); reason != "" {
		return &MapCreateError{Map: m.Name, Errno: errno, Reason: reason}
	}
	return nil
}

// createRefusal returns the reason and errno of CreateError's refusal, or
// "".
func createRefusal(m *Map) (string, syscall.Errno) {
	f := m.Flags
	if f&mapFRdonly != 0 && f&mapFWronly != 0 {
		return "BPF_F_RDONLY and BPF_F_WRONLY together", syscall.EINVAL
	}
	if f&bpfFRdonlyProg != 0 && f&mapFWronlyProg != 0 {
		return "BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG together", syscall.EINVAL
	}
	switch m.Type {
	case ebpf.ProgramArray, ebpf.PerfEventArray, ebpf.CGroupArray, ebpf.ArrayOfMaps:
		// fd_array_map_alloc_check, then array_map_alloc_check.
		if reason, errno := fdValueRefusal(m); reason != "" {
			return reason, errno
		}
		if f&(bpfFRdonlyProg|mapFWronlyProg) != 0 {
			return "BPF_F_RDONLY_PROG or BPF_F_WRONLY_PROG on a map of file descriptors", syscall.EINVAL
		}
		return arrayRefusal(m)
	case ebpf.Array, ebpf.PerCPUArray:
		return arrayRefusal(m)
	case ebpf.HashOfMaps:
		// fd_htab_map_alloc_check, then htab_map_alloc_check.
		if reason, errno := fdValueRefusal(m); reason != "" {
			return reason, errno
		}
		return htabRefusal(m)
	case ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash:
		return htabRefusal(m)
	case ebpf.RingBuf, ebpf.UserRingbuf:
		return ringbufRefusal(m)
	case ebpf.Queue, ebpf.Stack:
		return queueStackRefusal(m)
	case ebpf.BloomFilter:
		return bloomRefusal(m)
	case ebpf.SkStorage, ebpf.InodeStorage, ebpf.TaskStorage, ebpf.CgroupStorage:
		return localStorageRefusal(m)
	}
	return "", 0
}

// innerTemplateRefusal is bpf_map_meta_alloc's refusal of the inner map
// an outer map is created with: maps of maps nest one level (EINVAL), and
// a map type without map_meta_equal, whose maps the kernel cannot tell
// apart from the template (a program array, whose owner program type is
// fixed at its first use, cgroup storage), is no inner map (ENOTSUPP).
func innerTemplateRefusal(inner *Map) (string, syscall.Errno) {
	switch inner.Type {
	case ebpf.ArrayOfMaps, ebpf.HashOfMaps:
		return fmt.Sprintf("inner map %s: maps of maps nest one level", inner.Type), syscall.EINVAL
	case ebpf.ProgramArray, ebpf.CGroupStorage, ebpf.PerCPUCGroupStorage:
		return fmt.Sprintf("inner map %s: the kernel takes no such inner map (no map_meta_equal)", inner.Type), errNotSupp
	}
	return "", 0
}

// fdValueRefusal is the value size check of the maps whose values are
// file descriptors of other kernel objects.
func fdValueRefusal(m *Map) (string, syscall.Errno) {
	if m.ValueSize != 4 {
		return fmt.Sprintf("value_size %d: the values are 4-byte file descriptors", m.ValueSize), syscall.EINVAL
	}
	return "", 0
}

// ringbufRefusal is ringbuf_map_alloc: no keys or values, and a size that
// is a power of two and a whole number of pages.
func ringbufRefusal(m *Map) (string, syscall.Errno) {
	n := m.MaxEntries
	switch {
	case m.Flags&^mapFNumaNode != 0:
		return fmt.Sprintf("%s on a ring buffer", mapFlagNames(m.Flags&^mapFNumaNode)), syscall.EINVAL
	case m.KeySize != 0 || m.ValueSize != 0:
		return fmt.Sprintf("key_size %d, value_size %d: a ring buffer has neither", m.KeySize, m.ValueSize), syscall.EINVAL
	case !isRingbufSize(n):
		return fmt.Sprintf("max_entries %d: a ring buffer's size is a power of two and a multiple of the %d-byte page", n, os.Getpagesize()), syscall.EINVAL
	}
	return "", 0
}

// queueStackRefusal is queue_stack_map_alloc_check.
func queueStackRefusal(m *Map) (string, syscall.Errno) {
	const mask = mapFNumaNode | mapFAccessMask
	switch {
	case m.Flags&^mask != 0:
		return fmt.Sprintf("%s on a queue or stack", mapFlagNames(m.Flags&^mask)), syscall.EINVAL
	case m.MaxEntries == 0:
		return "max_entries 0", syscall.EINVAL
	case m.KeySize != 0:
		return fmt.Sprintf("key_size %d: a queue or stack has no keys", m.KeySize), syscall.EINVAL
	case m.ValueSize == 0:
		return "value_size 0", syscall.EINVAL
	}
	return "", 0
}

// bloomRefusal is bloom_map_alloc's checks.
func bloomRefusal(m *Map) (string, syscall.Errno) {
	const mask = mapFNumaNode | mapFZeroSeed | mapFAccessMask
	switch {
	case m.Flags&^mask != 0:
		return fmt.Sprintf("%s on a bloom filter", mapFlagNames(m.Flags&^mask)), syscall.EINVAL
	case m.KeySize != 0:
		return fmt.Sprintf("key_size %d: a bloom filter has no keys", m.KeySize), syscall.EINVAL
	case m.ValueSize == 0:
		return "value_size 0", syscall.EINVAL
	case m.MaxEntries == 0:
		return "max_entries 0", syscall.EINVAL
	}
	return "", 0
}

// localStorageRefusal is bpf_local_storage_map_alloc_check: storage that
// lives with a socket, inode, task or cgroup is allocated on demand
// (BPF_F_NO_PREALLOC is required), has no entry count of its own, and is
// keyed by a 4-byte descriptor.
func localStorageRefusal(m *Map) (string, syscall.Errno) {
	const mask = mapFNoPrealloc | mapFClone
	switch {
	case m.Flags&^mask != 0:
		return fmt.Sprintf("%s on local storage", mapFlagNames(m.Flags&^mask)), syscall.EINVAL
	case m.Flags&mapFNoPrealloc == 0:
		return "local storage without BPF_F_NO_PREALLOC", syscall.EINVAL
	case m.MaxEntries != 0:
		return fmt.Sprintf("max_entries %d: local storage has none", m.MaxEntries), syscall.EINVAL
	case m.KeySize != 4:
		return fmt.Sprintf("key_size %d: local storage is keyed by a 4-byte descriptor", m.KeySize), syscall.EINVAL
	case m.ValueSize == 0:
		return "value_size 0", syscall.EINVAL
	case !hasBTFKeyValue(m):
		// "Enforce BTF for userspace sk dumping".
		return "local storage without BTF key and value types", syscall.EINVAL
	}
	return "", 0
}

// hasBTFKeyValue reports whether m is created with BTF key and value
// types (both type ids non-zero).
func hasBTFKeyValue(m *Map) bool {
	if m.Spec == nil || m.Spec.Key == nil || m.Spec.Value == nil {
		return false
	}
	_, voidKey := m.Spec.Key.(*btf.Void)
	_, voidValue := m.Spec.Value.(*btf.Void)
	return !voidKey && !voidValue
}

// arrayRefusal is array_map_alloc_check.
func arrayRefusal(m *Map) (string, syscall.Errno) {
	f := m.Flags
	switch {
	case m.MaxEntries == 0 && m.Type != ebpf.PerfEventArray:
		// Loaders size a perf event array left at 0 to the CPUs.
		return "max_entries 0", syscall.EINVAL
	case m.KeySize != 4:
		return fmt.Sprintf("key_size %d: an array's keys are 4-byte indexes", m.KeySize), syscall.EINVAL
	case m.ValueSize == 0:
		return "value_size 0", syscall.EINVAL
	case f&^arrayCreateFlags != 0:
		return fmt.Sprintf("%s on an array", mapFlagNames(f&^arrayCreateFlags)), syscall.EINVAL
	case m.Type != ebpf.Array && f&(mapFMmapable|mapFInnerMap) != 0:
		return "BPF_F_MMAPABLE or BPF_F_INNER_MAP on an array other than BPF_MAP_TYPE_ARRAY", syscall.EINVAL
	case m.Type != ebpf.PerfEventArray && f&mapFPreserveElem != 0:
		return "BPF_F_PRESERVE_ELEMS on a map other than a perf event array", syscall.EINVAL
	}
	return "", 0
}

// htabRefusal is htab_map_alloc_check.
func htabRefusal(m *Map) (string, syscall.Errno) {
	f := m.Flags
	lru := m.Type == ebpf.LRUHash || m.Type == ebpf.LRUCPUHash
	switch {
	case f&^htabCreateFlags != 0:
		return fmt.Sprintf("%s on a hash map", mapFlagNames(f&^htabCreateFlags)), syscall.EINVAL
	case !lru && f&mapFNoCommonLRU != 0:
		return "BPF_F_NO_COMMON_LRU on a map that is not an LRU hash", syscall.EINVAL
	case lru && f&mapFNoPrealloc != 0:
		return "BPF_F_NO_PREALLOC on an LRU hash", errNotSupp
	case m.MaxEntries == 0:
		return "max_entries 0", syscall.EINVAL
	case m.KeySize == 0:
		return "key_size 0", syscall.EINVAL
	case m.ValueSize == 0:
		return "value_size 0", syscall.EINVAL
	}
	return "", 0
}

// mapFlagBits names the map flags of include/uapi/linux/bpf.h by bit.
var mapFlagBits = [...]string{
	"BPF_F_NO_PREALLOC", "BPF_F_NO_COMMON_LRU", "BPF_F_NUMA_NODE", "BPF_F_RDONLY", "BPF_F_WRONLY",
	"BPF_F_STACK_BUILD_ID", "BPF_F_ZERO_SEED", "BPF_F_RDONLY_PROG", "BPF_F_WRONLY_PROG", "BPF_F_CLONE",
	"BPF_F_MMAPABLE", "BPF_F_PRESERVE_ELEMS", "BPF_F_INNER_MAP", "BPF_F_LINK", "BPF_F_PATH_FD",
	"BPF_F_VTYPE_BTF_OBJ_FD", "BPF_F_TOKEN_FD", "BPF_F_SEGV_ON_FAULT", "BPF_F_NO_USER_CONV",
}

// mapFlagNames names the bits of flags, "|"-separated, an unnamed bit as
// its value.
func mapFlagNames(flags uint32) string {
	var names []string
	for bit := 0; bit < 32; bit++ {
		if flags&(1<<bit) == 0 {
			continue
		}
		if bit < len(mapFlagBits) {
			names = append(names, mapFlagBits[bit])
		} else {
			names = append(names, fmt.Sprintf("%#x", uint32(1)<<bit))
		}
	}
	return strings.Join(names, "|")
}

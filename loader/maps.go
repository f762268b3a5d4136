package loader

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// bpfFRdonlyProg is BPF_F_RDONLY_PROG from include/uapi/linux/bpf.h: the
// program may only read the map, so a frozen map's contents are constants.
const bpfFRdonlyProg = 1 << 7

// kconfigMapName is the virtual map cilium/ebpf and libbpf create for
// extern __kconfig variables.
const kconfigMapName = ".kconfig"

// Legacy map definition tails, in 32-bit words after the classic five
// (type, key_size, value_size, max_entries, map_flags).
const (
	mapDefWord = 4 // every legacy map field is a u32
	// bpfMapDefTailWords is samples/bpf's struct bpf_map_def tail:
	// inner_map_idx and numa_node.
	bpfMapDefTailWords = 2
	// iproute2TailMinWords is the shortest iproute2 struct bpf_elf_map tail
	// we interpret: id, pinning and inner_id (inner_idx may follow).
	iproute2TailMinWords = 3
)

// mapTable assigns each map of a collection its index.
type mapTable struct {
	list     []*Map
	index    map[string]int
	warnings []string
	// arenaData is the size of the arena's globals (arenaSection), which
	// live in the arena map rather than in a map of their own.
	arenaData uint32
	// kconfigRefusal is libbpf's refusal of the object for one of its
	// .kconfig variables (a *KconfigError), nil if it has none.
	kconfigRefusal error
}

// newMapTable indexes the maps of spec. iproute2 says whether the object was
// built for iproute2 (tc), whose struct bpf_elf_map continues with id and
// pinning where samples/bpf's struct bpf_map_def has inner_map_idx and
// numa_node: both are seven words long, so the loader must be told.
func newMapTable(spec *ebpf.CollectionSpec, info *elfInfo, iproute2 bool, kconfigFile string) *mapTable {
	t := &mapTable{index: make(map[string]int)}

	names := make([]string, 0, len(spec.Maps))
	for name, ms := range spec.Maps {
		if ms != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		if name == arenaSection {
			t.arenaData = spec.Maps[name].ValueSize
			continue
		}
		m := convertMap(name, spec.Maps[name])
		t.assumeRuntimeMaxEntries("map "+name, m)
		if m.Inner != nil {
			t.assumeRuntimeMaxEntries("inner map of "+name, m.Inner)
		}
		t.add(name, m)
	}

	var weak map[string]bool
	if info != nil {
		weak = info.weak
	}
	t.addKconfig(spec, kconfigFile, weak)
	t.resolveLegacyTails(spec, info, iproute2)
	return t
}

// runtimeMaxEntries is the size assumed for a map the object leaves at
// max_entries 0, which its own loader sets at run time (to the number of
// CPUs or interfaces, say): the kernel refuses a zero size, so the smallest
// it accepts is used, a page for ring buffers and one entry otherwise. It
// is 0 for the types cilium/ebpf sizes itself (perf event arrays) and the
// types whose size must be 0 (per-object storage).
func runtimeMaxEntries(t ebpf.MapType) uint32 {
	switch t {
	case ebpf.PerfEventArray, ebpf.SkStorage, ebpf.InodeStorage, ebpf.TaskStorage, ebpf.CgroupStorage,
		ebpf.CGroupStorage, ebpf.PerCPUCGroupStorage:
		return 0
	case ebpf.RingBuf, ebpf.UserRingbuf:
		return uint32(os.Getpagesize())
	}
	return 1
}

// runtimeStackValueSize is the value size assumed for a stack trace map
// the object leaves at value_size 0: 127 frames of 8 bytes.
const runtimeStackValueSize = 127 * 8

// assumeRuntimeMaxEntries gives map m (named what in the warning) the size
// runtimeMaxEntries assumes when the object leaves it at 0: an outer map
// and the inner map of a map-in-map alike, such as a ring buffer per CPU
// whose size the loader picks.
func (t *mapTable) assumeRuntimeMaxEntries(what string, m *Map) {
	if m.Type == ebpf.StackTrace && m.ValueSize == 0 {
		// bcc's tools size the stacks at run time too
		// (bpf_map__set_value_size): the kernel refuses a value size
		// of 0, and the deepest stack it records by default is
		// kernel.perf_event_max_stack's 127 frames.
		m.ValueSize = runtimeStackValueSize
		t.warnings = append(t.warnings, fmt.Sprintf("%s: value_size 0 (its loader sets it at run time): assumed %d", what, runtimeStackValueSize))
	}
	if (m.Type == ebpf.RingBuf || m.Type == ebpf.UserRingbuf) && m.MaxEntries != 0 {
		if n := ringbufSize(m.MaxEntries); n != m.MaxEntries {
			t.warnings = append(t.warnings, fmt.Sprintf("%s: max_entries %d rounded up to %d, a power-of-2 number of pages, as libbpf does", what, m.MaxEntries, n))
			m.MaxEntries = n
		}
	}
	if m.MaxEntries != 0 {
		return
	}
	if n := runtimeMaxEntries(m.Type); n != 0 {
		m.MaxEntries = n
		t.warnings = append(t.warnings, fmt.Sprintf("%s: max_entries 0 (its loader sets it at run time): assumed %d", what, n))
	}
}

// ringbufSize is libbpf's adjust_ringbuf_sz: a ring buffer's size as the
// kernel wants it, a power-of-2 multiple of the page size, rounded up from
// the size the object asks for (which stays as it is when no such
// multiple fits in 32 bits, for the kernel to refuse).
func ringbufSize(size uint32) uint32 {
	if isRingbufSize(size) {
		return size
	}
	page := uint64(os.Getpagesize())
	for mul := uint64(1); mul*page <= math.MaxUint32; mul <<= 1 {
		if mul*page > uint64(size) {
			return uint32(mul * page)
		}
	}
	return size
}

// isRingbufSize reports whether n is a size the kernel takes for a ring
// buffer: a power of two and a whole number of pages.
func isRingbufSize(n uint32) bool {
	return n != 0 && n&(n-1) == 0 && n%uint32(os.Getpagesize()) == 0
}

func (t *mapTable) add(name string, m *Map) {
	t.index[name] = len(t.list)
	t.list = append(t.list, m)
}

// kernelMakesRdonlyProg reports whether the kernel creates maps of type t
// with BPF_F_RDONLY_PROG whatever the loader asks: a lookup in a device map
// gives the program the kernel's own entry (dev_map_init_map). (A CPU map
// is not: programs may not look into it at all.)
func kernelMakesRdonlyProg(t ebpf.MapType) bool {
	return t == ebpf.DevMap || t == ebpf.DevMapHash
}

// mapReadOnly reports whether a program may only read the values of a map
// of type t named name created with flags: BPF_F_RDONLY_PROG, which
// loaders set on .rodata (and freeze it), or a type the kernel makes so.
func mapReadOnly(name string, t ebpf.MapType, flags uint32) bool {
	return flags&bpfFRdonlyProg != 0 || strings.HasPrefix(name, ".rodata") || kernelMakesRdonlyProg(t)
}

// WithDefinition returns a copy of m created with maxEntries entries and
// flags instead of its own (a loader that resizes or restricts a map
// before it loads the programs).
func (m *Map) WithDefinition(maxEntries, flags uint32) *Map {
	c := *m
	c.MaxEntries, c.Flags = maxEntries, flags
	c.ReadOnly = mapReadOnly(c.Name, c.Type, flags)
	return &c
}

// WithContents returns a copy of m whose initial value bytes are
// contents (a loader that rewrites a global data map before it loads the
// programs, as libbpf's skeletons set .rodata).
func (m *Map) WithContents(contents []byte) *Map {
	c := *m
	c.Contents = contents
	return &c
}

// WithTypes returns a copy of m created as a map of type t with key and
// value as its BTF key and value types (a loader given other types than
// the object's). Its sizes stay m's.
func (m *Map) WithTypes(t ebpf.MapType, key, value btf.Type) *Map {
	c := *m
	c.Type = t
	c.ReadOnly = mapReadOnly(c.Name, t, c.Flags)
	if m.Spec != nil {
		c.Spec = m.Spec.Copy()
		c.Spec.Type, c.Spec.Key, c.Spec.Value = t, key, value
	}
	return &c
}

// convertMap turns a cilium/ebpf map spec into a Map; the legacy tail is
// handled separately because it needs the other maps.
func convertMap(name string, ms *ebpf.MapSpec) *Map {
	m := &Map{
		Name:       name,
		Type:       ms.Type,
		KeySize:    ms.KeySize,
		ValueSize:  ms.ValueSize,
		MaxEntries: ms.MaxEntries,
		Flags:      ms.Flags,
		Spec:       ms,
		ReadOnly:   mapReadOnly(name, ms.Type, ms.Flags),
	}
	if isMapInMap(ms.Type) && m.ValueSize == 0 {
		// An outer map's values are inner map fds: cilium/ebpf and libbpf
		// create it with 4-byte values when the object gives none (BTF
		// map definitions), and the verifier checks helper arguments
		// against that size.
		m.ValueSize = mapInMapValueSize
	}
	if ms.Type == ebpf.PerfEventArray {
		// cilium/ebpf and libbpf create a perf event array with 4-byte
		// keys and values (CPU index, perf event fd) when the definition
		// gives none (it may give only 4), and the verifier checks a key
		// or value argument against those sizes.
		m.KeySize, m.ValueSize = perfEventArrayFieldSize, perfEventArrayFieldSize
	}
	if isGlobalDataName(name) && len(ms.Contents) == 1 {
		if b, ok := ms.Contents[0].Value.([]byte); ok {
			m.Contents = slices.Clone(b)
		}
	}
	if ds, ok := ms.Value.(*btf.Datasec); ok && name == kconfigMapName {
		m.Externs = externExtents(ds)
	}
	if ms.InnerMap != nil && ms.InnerMap != ms {
		m.Inner = convertMap(ms.InnerMap.Name, ms.InnerMap)
	}
	return m
}

// isGlobalDataName reports whether a map holds global variables, by the
// section naming rule clang, libbpf and cilium/ebpf share.
func isGlobalDataName(name string) bool {
	return name == ".bss" || strings.HasPrefix(name, ".data") || strings.HasPrefix(name, ".rodata")
}

// addKconfig adds the virtual .kconfig map when the object declares extern
// __kconfig variables, filled as cilium/ebpf fills it at load time: from
// the kernel configuration at kconfigFile (the running kernel's when
// empty) and the running kernel's release. Values that cannot be found
// are zero, with a warning.
func (t *mapTable) addKconfig(spec *ebpf.CollectionSpec, kconfigFile string, weak map[string]bool) {
	if spec.Types == nil {
		return
	}
	var ds *btf.Datasec
	if err := spec.Types.TypeByName(kconfigMapName, &ds); err != nil || ds == nil || ds.Size == 0 {
		return
	}
	if _, ok := t.index[kconfigMapName]; ok {
		return
	}
	target, err := loadKernelTarget(kconfigFile)
	if err != nil {
		t.warnings = append(t.warnings, fmt.Sprintf(".kconfig: %v", err))
	}
	bo := spec.ByteOrder
	if bo == nil {
		bo = binary.LittleEndian
	}
	contents, warnings, refusal := fillKconfig(ds, target, bo, weak)
	t.warnings = append(t.warnings, warnings...)
	t.kconfigRefusal = refusal
	t.add(kconfigMapName, &Map{
		Name:       kconfigMapName,
		Type:       ebpf.Array,
		KeySize:    mapDefWord,
		ValueSize:  ds.Size,
		MaxEntries: 1,
		Flags:      bpfFRdonlyProg,
		ReadOnly:   true,
		Contents:   contents,
		Externs:    externExtents(ds),
	})
}

// externExtents is where the variables of a .kconfig section lie.
func externExtents(ds *btf.Datasec) []Extent {
	out := make([]Extent, 0, len(ds.Vars))
	for _, v := range ds.Vars {
		out = append(out, Extent{Off: v.Offset, Size: v.Size})
	}
	return out
}

// readTail decodes the words of a legacy map definition after the classic
// five, which cilium/ebpf keeps in MapSpec.Extra.
func readTail(ms *ebpf.MapSpec, bo binary.ByteOrder) ([]uint32, bool) {
	if ms.Extra == nil || ms.Extra.Size() == 0 {
		return nil, false
	}
	buf := make([]byte, ms.Extra.Size())
	if n, err := ms.Extra.ReadAt(buf, 0); err != nil && n != len(buf) {
		return nil, false
	}
	var words []uint32
	for i := 0; i+mapDefWord <= len(buf); i += mapDefWord {
		words = append(words, bo.Uint32(buf[i:]))
	}
	return words, true
}

// mapInMapValueSize is the value size of an outer map: a u32 map fd.
const mapInMapValueSize = 4

// perfEventArrayFieldSize is the key and value size of a perf event
// array as its loaders create it.
const perfEventArrayFieldSize = 4

func isMapInMap(typ ebpf.MapType) bool {
	return typ == ebpf.ArrayOfMaps || typ == ebpf.HashOfMaps
}

// resolveLegacyTails interprets the words after the classic five of legacy
// map definitions: they only matter to find the inner map of a map-in-map.
func (t *mapTable) resolveLegacyTails(spec *ebpf.CollectionSpec, info *elfInfo, iproute2 bool) {
	bo := spec.ByteOrder
	if bo == nil {
		bo = binary.LittleEndian
	}
	tails := make(map[string][]uint32)
	ids := make(map[uint32]string) // iproute2 id -> map name
	for _, m := range t.list {
		if m.Spec == nil {
			continue
		}
		tail, ok := readTail(m.Spec, bo)
		if !ok {
			continue
		}
		tails[m.Name] = tail
		if (iproute2 || len(tail) >= iproute2TailMinWords) && len(tail) > 0 && tail[0] != 0 {
			if _, dup := ids[tail[0]]; !dup {
				ids[tail[0]] = m.Name
			}
		}
	}

	for _, m := range t.list {
		w, ok := tails[m.Name]
		if !ok {
			continue
		}
		if iproute2 && len(w) == bpfMapDefTailWords {
			// The seven-word iproute2 layout: id and pinning, no inner_id.
			w = append(slices.Clone(w), 0)
		}
		var inner string
		switch {
		case len(w) == bpfMapDefTailWords:
			if w[0] != 0 || w[1] != 0 {
				t.warnings = append(t.warnings, fmt.Sprintf("%s: dropped bpf_map_def tail (inner_map_idx=%d numa_node=%d)", m.Name, w[0], w[1]))
			}
			if isMapInMap(m.Type) {
				inner = info.legacyMapByIndex(int(w[0]))
			}
		case len(w) >= iproute2TailMinWords:
			if w[0] != 0 || w[1] != 0 || w[2] != 0 {
				t.warnings = append(t.warnings, fmt.Sprintf("%s: dropped iproute2 bpf_elf_map tail (id=%d pinning=%d inner_id=%d)", m.Name, w[0], w[1], w[2]))
			}
			if isMapInMap(m.Type) && w[2] != 0 {
				inner = ids[w[2]]
			}
		default:
			t.warnings = append(t.warnings, fmt.Sprintf("%s: dropped %d-word map definition tail", m.Name, len(w)))
		}
		if inner == "" || inner == m.Name || m.Inner != nil {
			continue
		}
		if idx, ok := t.index[inner]; ok {
			cp := *t.list[idx]
			cp.Inner = nil
			m.Inner = &cp
			t.warnings = append(t.warnings, fmt.Sprintf("%s: inner map = %s (legacy map def)", m.Name, inner))
		}
	}
}

// ErrInnerMap reports an [Options.InnerMaps] entry that names no
// map-in-map of the object, or no usable inner map.
var ErrInnerMap = errors.New("bad inner map")

// setInnerMaps gives each map-in-map of inner, by outer map name, its
// inner map template: a copy of a map the object defines, or one built
// from a spec. An outer map that already has one keeps it only if it is
// the same map.
func (t *mapTable) setInnerMaps(inner map[string]InnerMap) error {
	for _, outer := range slices.Sorted(maps.Keys(inner)) {
		oi, ok := t.index[outer]
		if !ok || !isMapInMap(t.list[oi].Type) {
			return fmt.Errorf("%w: %q is not a map-in-map of the object", ErrInnerMap, outer)
		}
		var in *Map
		switch want := inner[outer]; {
		case want.Spec != nil:
			in = convertMap(cmp.Or(want.Spec.Name, outer+".inner"), want.Spec)
		default:
			ii, ok := t.index[want.Name]
			if !ok || ii == oi {
				return fmt.Errorf("%w: %q names no other map of the object for %q", ErrInnerMap, want.Name, outer)
			}
			cp := *t.list[ii]
			in = &cp
		}
		in.Inner = nil
		if isMapInMap(in.Type) {
			return fmt.Errorf("%w: the inner map of %q is itself a map-in-map", ErrInnerMap, outer)
		}
		m := t.list[oi]
		if m.Inner != nil && m.Inner.Name != in.Name {
			return fmt.Errorf("%w: %q already has the inner map %q", ErrInnerMap, outer, m.Inner.Name)
		}
		m.Inner = in
		t.warnings = append(t.warnings, fmt.Sprintf("%s: inner map = %s (given)", outer, in.Name))
	}
	return nil
}

// legacyMapByIndex returns the map a legacy inner_map_idx names: the map
// at that position in legacyOrder.
func (info *elfInfo) legacyMapByIndex(idx int) string {
	if info == nil || idx < 0 || idx >= len(info.legacyOrder) {
		return ""
	}
	return info.legacyOrder[idx]
}

// arenaSection holds the globals of the arena's address space (__arena).
// libbpf creates no map for it: the variables live in the object's arena
// map, from its first page (on kernels that refuse ld_imm64 offsets of
// 512 MiB and more, as 6.18 does, libbpf keeps them at the start rather
// than at the end of the arena).
const arenaSection = ".addr_space.1"

// Errors of the arena's globals, as libbpf refuses the object.
var (
	// ErrNoArenaMap: the object has __arena globals but no arena map.
	ErrNoArenaMap = errors.New("to use global __arena variables the ARENA map should be explicitly declared in SEC(\".maps\")")
	// ErrArenaTooSmall: the arena cannot hold the object's globals.
	ErrArenaTooSmall = errors.New("declared ARENA map size is too small to hold global __arena variables")
	// ErrManyArenas: an object may declare one arena map only.
	ErrManyArenas = errors.New("only single ARENA map is supported")
)

// rewriteArenaLoad points a load of an __arena global's address at the
// arena map (libbpf's RELO_DATA on the arena: BPF_PSEUDO_MAP_VALUE with
// the variable's offset in the arena).
func (t *mapTable) rewriteArenaLoad(ins *asm.Instruction) error {
	idx := -1
	for i, m := range t.list {
		if m.Type != ebpf.Arena {
			continue
		}
		if idx >= 0 {
			return ErrManyArenas
		}
		idx = i
	}
	if idx < 0 {
		return ErrNoArenaMap
	}
	page := uint64(os.Getpagesize())
	if (uint64(t.arenaData)+page-1)/page > uint64(t.list[idx].MaxEntries) {
		return fmt.Errorf("%w (%d bytes)", ErrArenaTooSmall, t.arenaData)
	}
	offset := uint64(ins.Constant) >> 32
	ins.Src = asm.PseudoMapValue
	ins.Constant = int64(offset<<32 | uint64(uint32(idx)))
	return nil
}

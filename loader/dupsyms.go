package loader

import (
	"cmp"
	"debug/elf"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Objects linked from several compilation units (bpftool gen object,
// libbpf's static linker) keep every unit's static functions, so two
// functions may share a name: libbpf tells them apart by symbol, while
// cilium/ebpf keys functions by name and refuses the object. The loader
// gives every such function but one a name of its own ("<name>.<n>")
// before cilium/ebpf reads the object: calls between functions are
// resolved by offset, so only the names change.

// Where an Elf64_Shdr keeps its file offset and size (sh_offset, sh_size).
const (
	shdrOffOffset = 0x18
	shdrOffSize   = 0x20
)

// renameDuplicateFuncs returns data with the duplicate function symbols
// renamed (a global one keeps its name; otherwise the first in file
// order), the new names appended to a copy of the symbol string table at
// the end of the file. data itself is never modified.
func (info *elfInfo) renameDuplicateFuncs(data []byte) ([]byte, []string) {
	dups := info.duplicateFuncs()
	strtab := info.section(info.strtabIdx)
	if len(dups) == 0 || strtab == nil || strtab.Type != elf.SHT_STRTAB || !info.is64 {
		return data, nil
	}
	hdr, ok := info.sectionHeaderOffset(info.strtabIdx, data)
	if !ok || strtab.Offset+strtab.Size > uint64(len(data)) {
		return data, nil
	}
	out := slices.Clone(data)
	names := slices.Clone(data[strtab.Offset : strtab.Offset+strtab.Size])
	taken := make(map[string]bool)
	for _, s := range info.symbols {
		taken[s.name] = true
	}
	var renamed []string
	for _, group := range dups {
		for n, s := range group[1:] {
			name := ""
			for i := n + 2; ; i++ {
				if name = s.name + "." + strconv.Itoa(i); !taken[name] {
					break
				}
			}
			taken[name] = true
			pos, ok := info.symField(s, 0, 4, len(out))
			if !ok {
				return data, nil
			}
			info.order.PutUint32(out[pos:], uint32(len(names)))
			names = append(append(names, name...), 0)
			renamed = append(renamed, s.name+" -> "+name)
		}
	}
	info.order.PutUint64(out[hdr+shdrOffOffset:], uint64(len(out)))
	info.order.PutUint64(out[hdr+shdrOffSize:], uint64(len(names)))
	out = append(out, names...)
	return out, []string{fmt.Sprintf("ELF: functions of one name from several linked units renamed (%s)", strings.Join(renamed, ", "))}
}

// duplicateFuncs groups the function symbols that share a name, the one
// that keeps it first: a global or weak one, else the first in file order.
func (info *elfInfo) duplicateFuncs() [][]elfSymbol {
	byName := make(map[string][]elfSymbol)
	var order []string
	for _, s := range info.symbols {
		if !info.isProgramSymbol(s) {
			continue
		}
		if byName[s.name] == nil {
			order = append(order, s.name)
		}
		byName[s.name] = append(byName[s.name], s)
	}
	var groups [][]elfSymbol
	for _, name := range order {
		g := byName[name]
		if len(g) < 2 {
			continue
		}
		slices.SortStableFunc(g, func(a, b elfSymbol) int {
			return cmp.Or(cmp.Compare(localRank(a), localRank(b)), cmp.Compare(a.section, b.section), cmp.Compare(a.value, b.value))
		})
		groups = append(groups, g)
	}
	return groups
}

// localRank orders global and weak symbols before local ones.
func localRank(s elfSymbol) int {
	if s.bind == elf.STB_LOCAL {
		return 1
	}
	return 0
}

// sectionHeaderOffset returns the file offset of section idx's header.
func (info *elfInfo) sectionHeaderOffset(idx int, data []byte) (uint64, bool) {
	o := info.order
	shoff, shentsize := o.Uint64(data[offShoff:]), uint64(o.Uint16(data[offShentsize:]))
	pos := shoff + uint64(idx)*shentsize
	return pos, idx > 0 && pos+shdrOffSize+8 <= uint64(len(data))
}

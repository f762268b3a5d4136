package loader

import (
	"bytes"
	"debug/elf"
	"fmt"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
)

// Code no symbol names, in objects linked by libbpf's static linker
// (bpftool gen object, libbpf-rs's Linker as sched-ext/scx builds its
// schedulers). When several units define one weak function (a static
// inline helper of a shared header made __weak, scx's
// arena_spin_lock_slowpath), the linker keeps the first definition's
// symbol and drops the others' (linker_append_elf_sym), but every unit's
// section data is appended whole, with its .BTF.ext records: the dropped
// copies stay in the section as code without a symbol. libbpf splits a
// section by its symbols (bpf_object__add_programs) and takes each
// subprogram's func, line and CO-RE records by instruction offset
// (adjust_prog_btf_ext_info), so the dead copies and their records are
// never loaded. cilium/ebpf decodes each symbol's instructions and counts
// instruction offsets over them alone, so every record past such a gap
// lands on the wrong instruction: functions of later units lose their
// func info ("number of funcs in func_info doesn't match number of
// subprogs") and CO-RE relocations are applied to other instructions. The
// loader gives each gap a symbol of its own, a function no call names, so
// cilium/ebpf counts its instructions and links it into no program, which
// is what libbpf loads.

// unlinkedPrefix starts the names given to unnamed code: a dot keeps them
// apart from any C identifier.
const unlinkedPrefix = "unlinked."

// unnamedCode is a stretch of an executable section no symbol covers.
type unnamedCode struct {
	section int
	offset  uint64
	size    uint64
}

// name is the symbol name the loader gives the stretch.
func (u unnamedCode) name() string {
	return fmt.Sprintf("%s%d.%x", unlinkedPrefix, u.section, u.offset)
}

// unnamedCodeGaps returns the stretches of instructions in executable
// sections that lie between function symbols, not after the last one (a
// gap there shifts no record of a function), and are not padding (all
// zero).
func (info *elfInfo) unnamedCodeGaps(data []byte) []unnamedCode {
	bySection := make(map[int][]elfSymbol)
	for _, s := range info.symbols {
		if info.isProgramSymbol(s) && s.size > 0 {
			bySection[s.section] = append(bySection[s.section], s)
		}
	}
	var gaps []unnamedCode
	for idx, syms := range bySection {
		sec := info.section(idx)
		slices.SortFunc(syms, func(a, b elfSymbol) int { return int(a.value) - int(b.value) })
		end := uint64(0)
		for _, s := range syms {
			if s.value > end && !allZero(data, sec, end, s.value) {
				gaps = append(gaps, unnamedCode{section: idx, offset: end, size: s.value - end})
			}
			end = max(end, s.value+s.size)
		}
	}
	slices.SortFunc(gaps, func(a, b unnamedCode) int {
		if a.section != b.section {
			return a.section - b.section
		}
		return int(a.offset) - int(b.offset)
	})
	return gaps
}

// allZero reports whether bytes [from, to) of section sec are all zero, or
// cannot be read.
func allZero(data []byte, sec *elf.SectionHeader, from, to uint64) bool {
	start, end := sec.Offset+from, sec.Offset+to
	if end > uint64(len(data)) || start > end {
		return true
	}
	return bytes.Count(data[start:end], []byte{0}) == int(end-start)
}

// nameUnlinkedCode returns data with a global function symbol for each
// stretch of unnamed code (see unnamedCodeGaps), the symbol and string
// tables copied, extended, to the end of the file; data itself is never
// modified. It returns the names given.
func (info *elfInfo) nameUnlinkedCode(data []byte) ([]byte, []string) {
	gaps := info.unnamedCodeGaps(data)
	if len(gaps) == 0 || !info.is64 || info.symtabEnt != elf64SymSize {
		return data, nil
	}
	symHdr, ok1 := info.sectionHeaderOffset(info.symtabIndex(), data)
	strHdr, ok2 := info.sectionHeaderOffset(info.strtabIdx, data)
	if !ok1 || !ok2 {
		return data, nil
	}
	o := info.order
	symOff, symSize := o.Uint64(data[symHdr+shdrOffOffset:]), o.Uint64(data[symHdr+shdrOffSize:])
	strOff, strSize := o.Uint64(data[strHdr+shdrOffOffset:]), o.Uint64(data[strHdr+shdrOffSize:])
	if symOff+symSize > uint64(len(data)) || strOff+strSize > uint64(len(data)) {
		return data, nil
	}
	names := slices.Clone(data[strOff : strOff+strSize])
	syms := slices.Clone(data[symOff : symOff+symSize])
	var given []string
	for _, g := range gaps {
		entry := make([]byte, elf64SymSize)
		o.PutUint32(entry[0:], uint32(len(names)))
		entry[4] = byte(elf.STB_GLOBAL)<<4 | byte(elf.STT_FUNC)
		o.PutUint16(entry[6:], uint16(g.section))
		o.PutUint64(entry[8:], g.offset)
		o.PutUint64(entry[elf64SymSizeOffset:], g.size)
		syms = append(syms, entry...)
		names = append(append(names, g.name()...), 0)
		given = append(given, g.name())
	}
	out := slices.Clone(data)
	o.PutUint64(out[symHdr+shdrOffOffset:], uint64(len(out)))
	o.PutUint64(out[symHdr+shdrOffSize:], uint64(len(syms)))
	out = append(out, syms...)
	o.PutUint64(out[strHdr+shdrOffOffset:], uint64(len(out)))
	o.PutUint64(out[strHdr+shdrOffSize:], uint64(len(names)))
	out = append(out, names...)
	return out, given
}

// symtabIndex returns the section index of the symbol table.
func (info *elfInfo) symtabIndex() int {
	for i, s := range info.sections {
		if s.Type == elf.SHT_SYMTAB {
			return i
		}
	}
	return 0
}

// dropUnlinkedPrograms removes from spec the programs cilium/ebpf made of
// unnamed code in program sections (code of a dropped weak program), which
// libbpf does not load, and returns the warning that says what was named.
func dropUnlinkedPrograms(spec *ebpf.CollectionSpec, given []string) []string {
	if len(given) == 0 {
		return nil
	}
	for name := range spec.Programs {
		if strings.HasPrefix(name, unlinkedPrefix) {
			delete(spec.Programs, name)
		}
	}
	return []string{fmt.Sprintf("ELF: code without a symbol (weak definitions the linker dropped) named and left out of every program, as libbpf leaves it (%s)", strings.Join(given, ", "))}
}

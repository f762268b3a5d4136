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

// The same linker keeps, in the BTF data section of a global variable that
// one unit defines weak and another strong (scx_lavd's is_autopilot_on), the
// entry of the copy it dropped, at that copy's offset, while the symbol is
// the kept one's. libbpf matches data-section variables to symbols by name
// alone (btf_fixup_datasec) and loads the section's BTF as it is;
// cilium/ebpf refuses the whole object ("datasec offset doesn't match ELF
// symbol offset") while it builds its variable specs. The loader hides
// such a symbol from those specs (cilium/ebpf skips hidden symbols there),
// which changes nothing the kernel receives.

// stOtherOffset is where an Elf64_Sym keeps st_other, the visibility.
const stOtherOffset = 5

// hideMisplacedDataVars returns data with every global data symbol whose
// data section's BTF places a variable of its name elsewhere marked
// hidden; data itself is never modified. It returns the names hidden.
func (info *elfInfo) hideMisplacedDataVars(data []byte) ([]byte, []string) {
	b := info.parseRawBTF(data)
	if b == nil {
		return data, nil
	}
	btfOffsets := b.datasecVarOffsets()
	var out []byte
	var hidden []string
	for _, s := range info.symbols {
		sec := info.section(s.section)
		if sec == nil || s.typ != elf.STT_OBJECT || s.bind == elf.STB_LOCAL || s.visibility != elf.STV_DEFAULT {
			continue
		}
		off, ok := btfOffsets[sec.Name][s.name]
		if !ok || uint64(off) == s.value {
			continue
		}
		pos, ok := info.symField(s, stOtherOffset, 1, len(data))
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(data)
		}
		out[pos] = out[pos]&^3 | byte(elf.STV_HIDDEN)
		hidden = append(hidden, s.name)
	}
	if out == nil {
		return data, nil
	}
	return out, []string{fmt.Sprintf("BTF: data-section variables the linker placed at a dropped weak copy's offset, matched by name as libbpf does (%s)", strings.Join(hidden, ", "))}
}

// datasecVarOffsets returns, by data section name, the offset of each
// variable its BTF data section lists, for the data sections whose size
// and offsets a linker filled in (clang leaves them zero, for the loader
// to fill from the symbols, as btf_fixup_datasec and cilium/ebpf do).
func (b *rawBTF) datasecVarOffsets() map[string]map[string]uint32 {
	const secinfoLen = 12 // struct btf_var_secinfo: type, offset, size
	out := make(map[string]map[string]uint32)
	for id := uint32(1); b.valid(id); id++ {
		if b.kind(id) != btfKindDatasec || b.order.Uint32(b.data[b.refField(id):]) == 0 {
			continue
		}
		vars := make(map[string]uint32)
		start := b.typeStart[id] + btfTypeLen
		for i := range b.vlenAt(b.typeStart[id]) {
			entry := start + i*secinfoLen
			vars[b.name(b.order.Uint32(b.data[entry:]))] = b.order.Uint32(b.data[entry+4:])
		}
		out[b.name(id)] = vars
	}
	return out
}

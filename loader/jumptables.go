package loader

import (
	"debug/elf"
	"errors"

	"github.com/cilium/ebpf"
)

// Jump tables. clang compiles an indirect jump (a switch, a computed goto)
// for cpu v4 to a "gotox" instruction whose register holds an address out
// of a table in the ".jumptables" section; the program loads the table's
// address with a 64-bit immediate load relocated against a symbol of that
// section. libbpf 1.8 turns each such load into one of a
// BPF_MAP_TYPE_INSN_ARRAY map (create_jt_map, at relocation time), a map
// type the 6.18 kernel does not have: the map's creation fails with
// EINVAL, and libbpf refuses the program ("prog '%s': relo #%d: can't
// create jump table: sym_off %u") whether or not the load is reached, before
// the kernel sees it. 6.18 itself does not know gotox ("unknown opcode 0d"),
// which a program without a table meets. cilium/ebpf refuses the whole
// object (a relocation into a section it does not know).
//
// The loader reads the section under a data section name of the same length
// (jumpTablesStandIn), so that its relocations become loads of a map
// cilium/ebpf knows, then refuses every program holding one
// (ErrJumpTable) and drops the stand-in map.

// jumpTablesSection is where clang puts jump tables (libbpf's
// JUMPTABLES_SEC).
const jumpTablesSection = ".jumptables"

// jumpTablesStandIn replaces jumpTablesSection while cilium/ebpf reads the
// object: a data section name of the same length.
const jumpTablesStandIn = ".datajmptbl"

// ErrJumpTable means a program loads the address of a jump table, which
// libbpf 1.8 can only hand the kernel as a BPF_MAP_TYPE_INSN_ARRAY map, a
// map type the 6.18 kernel lacks: libbpf refuses the program (EINVAL).
var ErrJumpTable = errors.New("the program loads a jump table's address (.jumptables), which libbpf makes a BPF_MAP_TYPE_INSN_ARRAY map, a map type the 6.18 kernel does not have (libbpf: can't create jump table)")

// renameJumpTables returns data with the jump table section renamed to its
// stand-in and its table symbols (clang's global NOTYPE "jt0_5") typed as
// objects, which cilium/ebpf reads as global variables of a data section,
// and whether it renamed it. data itself is never modified.
func (info *elfInfo) renameJumpTables(data []byte) ([]byte, bool) {
	idx := -1
	for i, s := range info.sections {
		if s.Name == jumpTablesStandIn {
			return data, false
		}
		if s.Name == jumpTablesSection {
			idx = i
		}
	}
	if idx < 0 || !info.is64 || info.symtabEnt < elf64SymSize {
		return data, false
	}
	out, ok := info.renameSection(data, info.sections[idx], jumpTablesStandIn)
	if !ok {
		return data, false
	}
	for _, s := range info.symbols {
		if s.section != idx || s.typ != elf.STT_NOTYPE {
			continue
		}
		if pos, ok := info.symField(s, elf64SymInfoOffset, 1, len(out)); ok {
			out[pos] = byte(elf.ST_INFO(s.bind, elf.STT_OBJECT))
		}
	}
	return out, true
}

// dropJumpTablesMap removes the map cilium/ebpf made of the renamed jump
// table section; the loads that name it stay, for rewriteReferences to
// refuse.
func dropJumpTablesMap(spec *ebpf.CollectionSpec, renamed bool) {
	if renamed {
		dropDataMap(spec, jumpTablesStandIn)
	}
}

package loader

import (
	"debug/elf"
	"slices"
)

// The .BTF.ext section (struct btf_ext_header, then the func_info,
// line_info and CO-RE relocation subsections, each opening with its
// record size). GCC's BPF backend writes subsections of length zero, with
// no record size, for the kinds of information it does not emit: libbpf
// skips an empty subsection (btf_ext_parse_sec_info returns at once when
// its length is 0), cilium/ebpf reads a record size first and refuses the
// object. The repair makes an empty subsection read as what libbpf takes
// it for: no records.

// btfExtSection is the name of the section.
const btfExtSection = ".BTF.ext"

// Byte offsets in struct btf_ext_header.
const (
	btfExtHdrLen      = 4  // u32 hdr_len, after magic, version and flags
	btfExtFuncInfoOff = 8  // u32 func_info_off, then u32 func_info_len
	btfExtLineInfoOff = 16 // u32 line_info_off, then u32 line_info_len
	btfExtCoreReloOff = 24 // u32 core_relo_off, then u32 core_relo_len (when hdr_len reaches them)
	btfExtMinHdrLen   = 24 // the header up to line_info_len
	btfExtCoreHdrLen  = 32 // the header with the CO-RE fields
	extRecordSizeLen  = 4  // the u32 record size that opens a subsection
)

// emptyExtStandIn is the name an all-empty .BTF.ext section is given: the
// tail of its own name in the section name table, so that no string
// changes, and cilium/ebpf finds no ext info, as libbpf finds none in it.
const emptyExtStandIn = ".ext"

// repairEmptyExtInfo returns data with the empty func_info and line_info
// subsections of the object's .BTF.ext made readable by cilium/ebpf: each
// is pointed at the record size that opens a non-empty subsection, with
// the length of that one word, so that it reads as a record size and no
// records. When no subsection holds anything, the section is hidden
// instead (renamed ".ext"). data itself is never modified.
func (info *elfInfo) repairEmptyExtInfo(data []byte) ([]byte, []string) {
	idx, base, size, ok := info.extSection(data)
	if !ok {
		return data, nil
	}
	o := info.order
	hdrLen := int(o.Uint32(data[base+btfExtHdrLen:]))
	if hdrLen < btfExtMinHdrLen || hdrLen > size {
		return data, nil
	}
	subsections := []int{btfExtFuncInfoOff, btfExtLineInfoOff}
	if hdrLen >= btfExtCoreHdrLen {
		subsections = append(subsections, btfExtCoreReloOff)
	}
	var empty []int
	filled := -1
	for _, field := range subsections {
		if o.Uint32(data[base+field+4:]) == 0 {
			if field != btfExtCoreReloOff {
				empty = append(empty, field)
			}
		} else if filled < 0 {
			filled = int(o.Uint32(data[base+field:]))
		}
	}
	if len(empty) == 0 {
		return data, nil
	}
	if filled < 0 {
		out, ok := info.hideSection(data, idx)
		if !ok {
			return data, nil
		}
		return out, []string{"BTF: the .BTF.ext section holds no records (as GCC writes it); read as no ext info, as libbpf does"}
	}
	out := slices.Clone(data)
	for _, field := range empty {
		o.PutUint32(out[base+field:], uint32(filled))
		o.PutUint32(out[base+field+4:], extRecordSizeLen)
	}
	return out, []string{"BTF: empty func_info or line_info subsections in .BTF.ext (as GCC writes them); read as no records, as libbpf does"}
}

// extSection finds the .BTF.ext section in data: its index, file offset
// and size.
func (info *elfInfo) extSection(data []byte) (idx, base, size int, ok bool) {
	for i, s := range info.sections {
		if s.Name != btfExtSection || s.Type == elf.SHT_NOBITS {
			continue
		}
		if s.Offset+s.Size > uint64(len(data)) || s.Size < btfExtMinHdrLen {
			return 0, 0, 0, false
		}
		base = int(s.Offset)
		if info.order.Uint16(data[base:]) != btfMagic {
			return 0, 0, 0, false
		}
		return i, base, int(s.Size), true
	}
	return 0, 0, 0, false
}

// hideSection returns data with section idx named by the tail of its own
// name that emptyExtStandIn is: only the header's sh_name changes.
func (info *elfInfo) hideSection(data []byte, idx int) ([]byte, bool) {
	name := info.sections[idx].Name
	tail := len(name) - len(emptyExtStandIn)
	if tail < 0 || name[tail:] != emptyExtStandIn {
		return data, false
	}
	hdr, ok := info.sectionHeaderOffset(idx, data)
	if !ok || hdr+shdrOffName+4 > uint64(len(data)) {
		return data, false
	}
	out := slices.Clone(data)
	field := out[hdr+shdrOffName:]
	info.order.PutUint32(field, info.order.Uint32(field)+uint32(tail))
	return out, true
}

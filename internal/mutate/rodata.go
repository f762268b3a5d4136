package mutate

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// RodataOperator names the mutation that loads the program with other
// bytes in a read-only global data map (.rodata). Loaders freeze such a
// map, and the verifier reads it as known constants: a load from it is a
// constant scalar that decides branches (the `const volatile` knobs of
// production programs turn whole features on and off), and the
// helpers that take a constant string (bpf_snprintf's and
// bpf_trace_printk's format, bpf_strncmp's operand) parse it at load
// time. Every other operator keeps the bytes the seeds' authors wrote,
// so those parsers and the code behind a knob's other value were never
// met.
const RodataOperator = "read-only data"

// RodataShare is the probability that a mutant of a program that loads a
// read-only data map gets other bytes in it.
const RodataShare = 0.08

// DataEdit replaces bytes of a global data map's initial contents
// (RodataOperator).
type DataEdit struct {
	// Index is the map's index (the imm of its ld_imm64).
	Index int
	// Offset is where Bytes go in the map's value.
	Offset int
	Bytes  []byte
}

// rodataBytes are the single bytes the operator writes: the end of a
// string, the characters of printf conversions and their neighbours,
// ASCII's edges, and bytes above ASCII that the kernel's ctype table
// (Latin-1) calls space, punctuation and letter.
var rodataBytes = []byte{0, 1, '%', 'p', 'd', 's', 'l', 'x', 'c', 'K', 'k', 'u', 'B', 'i', 'I', '4', '6', ' ', '.', '\t', '0', '9', 0x7f, 0x80, 0x9f, 0xa0, 0xa1, 0xc0, 0xd7, 0xff}

// rodataWords are the values the operator writes as a 4- or 8-byte word:
// the knobs' off and on, and the edges of signed and unsigned ranges.
var rodataWords = []uint64{0, 1, 2, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 1 << 32, 1<<63 - 1, 1 << 63, ^uint64(0)}

// withRodata gives m other bytes in one read-only data map it loads: a
// byte, or a little-endian word at an offset aligned to its size, near
// where an ld_imm64 points into the map or anywhere in it.
func (m Mutant) withRodata(r *rand.Rand, maps []MapInfo) (Mutant, bool) {
	type site struct{ k, off int }
	var sites []site
	for _, in := range m.Insns {
		if in.Filler || !in.IsLdImm64() || (in.Src != insn.PseudoMapFD && in.Src != insn.PseudoMapValue) {
			continue
		}
		k := int(in.Imm)
		if k < 0 || k >= len(maps) || len(maps[k].Rodata) == 0 {
			continue
		}
		off := 0
		if in.Src == insn.PseudoMapValue {
			off = int(uint32(in.Imm2))
		}
		if off < len(maps[k].Rodata) {
			sites = append(sites, site{k, off})
		}
	}
	if len(sites) == 0 {
		return m, false
	}
	s := sites[r.IntN(len(sites))]
	data := m.rodata(maps, s.k)
	off := s.off
	if r.IntN(2) == 0 {
		off = r.IntN(len(data))
	} else {
		off = min(off+r.IntN(16), len(data)-1)
	}
	var b []byte
	switch size := []int{1, 1, 4, 8}[r.IntN(4)]; {
	case size == 1 || len(data) < size:
		b = []byte{rodataBytes[r.IntN(len(rodataBytes))]}
	default:
		off = min(off/size*size, len(data)/size*size-size)
		w := rodataWords[r.IntN(len(rodataWords))]
		b = binary.LittleEndian.AppendUint64(nil, w)[:size]
	}
	d := DataEdit{Index: s.k, Offset: off, Bytes: b}
	m.DataEdits = append(slices.Clone(m.DataEdits), d)
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)],
		fmt.Sprintf("%s: map #%d bytes %d..%d % x -> % x", RodataOperator, s.k, off, off+len(b), data[off:off+len(b)], b))
	return m.by(RodataOperator), true
}

// rodata returns the initial bytes of map k of maps as m loads it.
func (m Mutant) rodata(maps []MapInfo, k int) []byte {
	return ApplyDataEdits(maps[k].Rodata, k, m.DataEdits)
}

// ApplyDataEdits returns the contents of map k, data, with the edits of
// edits that name it applied in order; data itself is left as it is.
func ApplyDataEdits(data []byte, k int, edits []DataEdit) []byte {
	out, cloned := data, false
	for _, d := range edits {
		if d.Index != k || d.Offset < 0 || d.Offset >= len(data) {
			continue
		}
		if !cloned {
			out, cloned = slices.Clone(data), true
		}
		copy(out[d.Offset:], d.Bytes)
	}
	return out
}

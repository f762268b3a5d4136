package loader

import (
	"debug/elf"
	"math"
	"slices"
)

// A program takes a function's address with a 64-bit immediate load
// (bpf_loop's callback, a timer's). clang relocates it against the
// section symbol, with the function's offset in the immediate, when the
// function is static, and against the function's own symbol, with 0 in
// the immediate, when it is global. libbpf adds the symbol's value to the
// immediate either way (RELO_SUBPROG_ADDR), and the kernel then refuses a
// global callback ("callback function not static"). cilium/ebpf v0.22
// looks the function up at the immediate alone in both cases, so a global
// function's address became the first function of its section: vercheck
// verified another program than libbpf loads, and accepted one the kernel
// refuses. The loader moves the symbol's value into the immediate before
// cilium/ebpf reads the object, which then finds the function libbpf does.

// rBPF64_64 is R_BPF_64_64, the relocation of a 64-bit immediate load.
const rBPF64_64 = 1

// ldImm64Opcode is the opcode of a 64-bit immediate load (BPF_LD | BPF_IMM
// | BPF_DW).
const ldImm64Opcode = 0x18

// addressGlobalFuncs returns data with the immediate of every 64-bit
// immediate load relocated against a global function's own symbol
// increased by the symbol's value; data itself is never modified.
func (info *elfInfo) addressGlobalFuncs(data []byte) []byte {
	out := data
	for _, rs := range info.sections {
		target := info.section(int(rs.Info))
		if target == nil || target.Type != elf.SHT_PROGBITS || target.Flags&elf.SHF_EXECINSTR == 0 || target.Offset+target.Size > uint64(len(data)) {
			continue
		}
		for _, r := range info.relocations(rs, data) {
			s := r.sym
			if r.typ != rBPF64_64 || r.off+8 > target.Size || s.typ != elf.STT_FUNC || s.bind != elf.STB_GLOBAL || s.value == 0 {
				continue
			}
			at := target.Offset + r.off
			if data[at] != ldImm64Opcode {
				continue
			}
			imm := int64(int32(info.order.Uint32(data[at+4:]))) + int64(s.value)
			if imm > math.MaxInt32 {
				continue
			}
			if len(out) > 0 && &out[0] == &data[0] {
				out = slices.Clone(data)
			}
			info.order.PutUint32(out[at+4:], uint32(int32(imm)))
		}
	}
	return out
}

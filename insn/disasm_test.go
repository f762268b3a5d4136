package insn

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// disasmProg is an accepted program exercising most instruction forms,
// with the kernel's rendering of each instruction.
var disasmProg = []struct {
	insns []Insn
	want  string
}{
	{prog(movImm(R0, 0)), "0: (b7) r0 = 0"},
	{prog(st(SizeDW, R10, -8, 5)), "1: (7a) *(u64 *)(r10 -8) = 5"},
	{prog(ldx(SizeW, R1, R10, -8)), "2: (61) r1 = *(u32 *)(r10 -8)"},
	{prog(stx(SizeH, R10, R1, -16)), "3: (6b) *(u16 *)(r10 -16) = r1"},
	{prog(Insn{Op: ClassLDX | ModeMEMSX | SizeB, Dst: R2, Src: R10, Off: -8}), "4: (91) r2 = *(s8 *)(r10 -8)"},
	{prog(aluImm(ALUAdd, R2, -1)), "5: (07) r2 += -1"},
	{prog(Insn{Op: ClassALU | ALUXor | SrcX, Dst: R2, Src: R1}), "6: (ac) w2 ^= w1"},
	{prog(with(movReg(R3, R2), func(i *Insn) { i.Off = 16 })), "7: (bf) r3 = (s16)r2"},
	{prog(with(aluImm(ALUMod, R3, 3), func(i *Insn) { i.Off = OffSigned })), "8: (97) r3 s%= 3"},
	{prog(Insn{Op: ClassALU64 | ALUNeg, Dst: R3}), "9: (87) r3 = -r3"},
	{prog(Insn{Op: ClassALU | ALUEnd | EndToBE, Dst: R3, Imm: 16}), "10: (dc) r3 = be16 r3"},
	{prog(Insn{Op: ClassALU64 | ALUEnd, Dst: R3, Imm: 32}), "11: (d7) r3 = bswap32 r3"},
	{prog(Insn{Op: ClassSTX | ModeATOMIC | SizeDW, Dst: R10, Src: R1, Off: -8, Imm: AtomicAdd}), "12: (db) lock *(u64 *)(r10 -8) += r1"},
	{prog(Insn{Op: ClassSTX | ModeATOMIC | SizeW, Dst: R10, Src: R1, Off: -8, Imm: AtomicOr | AtomicFetch}), "13: (c3) r1 = atomic_fetch_or((u32 *)(r10 -8), r1)"},
	{prog(Insn{Op: ClassSTX | ModeATOMIC | SizeDW, Dst: R10, Src: R1, Off: -8, Imm: AtomicXchg}), "14: (db) r1 = atomic64_xchg((u64 *)(r10 -8), r1)"},
	{prog(Insn{Op: ClassSTX | ModeATOMIC | SizeDW, Dst: R10, Src: R1, Off: -8, Imm: AtomicCmpXchg}), "15: (db) r0 = atomic64_cmpxchg((u64 *)(r10 -8), r0, r1)"},
	{prog(Insn{Op: ClassSTX | ModeATOMIC | SizeW, Dst: R4, Src: R10, Off: -8, Imm: AtomicLoadAcq}), "16: (c3) r4 = load_acquire((u32 *)(r10 -8))"},
	{prog(Insn{Op: ClassSTX | ModeATOMIC | SizeDW, Dst: R10, Src: R4, Off: -8, Imm: AtomicStoreRel}), "17: (db) store_release((u64 *)(r10 -8), r4)"},
	{ldImm64(R5, 0, 0x1122334455667788), "18: (18) r5 = 0x1122334455667788"},
	{prog(jmpImm(JmpJGT, R1, 5, 0)), "20: (25) if r1 > 0x5 goto pc+0"},
	{prog(Insn{Op: ClassJMP32 | JmpJSLT | SrcX, Dst: R1, Src: R2, Off: 0}), "21: (ce) if w1 s< w2 goto pc+0"},
	{prog(ja(0)), "22: (05) goto pc+0"},
	{prog(Insn{Op: ClassJMP32 | JmpJA}), "23: (06) gotol pc+0"},
	{prog(Insn{Op: ClassJMP | JmpJCOND}), "24: (e5) may_goto pc+0"},
	{prog(call(7)), "25: (85) call bpf_get_prandom_u32#7"},
	{prog(exit()), "26: (95) exit"},
}

func TestFormat(t *testing.T) {
	var want, got []string
	idx := 0
	for _, line := range disasmProg {
		want = append(want, line.want)
		got = append(got, Format(idx, line.insns[0]))
		idx += len(line.insns)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Format mismatch (-want +got):\n%s", diff)
	}
}

func TestStringCalls(t *testing.T) {
	tests := []struct {
		in   Insn
		want string
	}{
		{call(1), "call bpf_map_lookup_elem#1"},
		{call(233685214), "call unknown#233685214"},
		{callPC(-5), "call pc-5"},
		{Insn{Op: ClassJMP | JmpCall, Src: PseudoKfuncCall, Imm: 42}, "call kernel-function#42"},
		{ldImm64(R1, PseudoMapFD, 3)[0], "r1 = map[id:3]"},
		{ldImm64(R1, PseudoMapValue, 3|16<<32)[0], "r1 = map[id:3][0]+16"},
		{Insn{Op: ClassLD | ModeABS | SizeH, Imm: 12}, "r0 = *(u16 *)skb[12]"},
		{Insn{Op: ClassLD | ModeIND | SizeB, Src: R3, Imm: 2}, "r0 = *(u8 *)skb[r3 + 2]"},
		{Insn{Op: ClassALU64 | ALUMov | SrcX, Dst: R1, Src: R2, Off: OffAddrSpaceCast, Imm: 1}, "r1 = addr_space_cast(r2, 0, 1)"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.in.String()); diff != "" {
			t.Errorf("String() mismatch (-want +got):\n%s", diff)
		}
	}
}

// badMayGoto is a may_goto opcode with a source register: not may_goto
// to the disassembler, and bpf_jmp_string has no JCOND operator.
var badMayGoto = Insn{Op: ClassJMP | JmpJCOND, Dst: R1, Src: R1, Imm: 0x100}

// TestKernelDisasmBadMayGoto: the kernel refuses badMayGoto ("invalid
// may_goto imm 256") after printing it as a conditional jump.
func TestKernelDisasmBadMayGoto(t *testing.T) {
	const want = "0: (e5) if r1 (null) 0x100 goto pc+0"
	if got := Format(0, badMayGoto); got != want {
		t.Fatalf("Format = %q, want %q", got, want)
	}
	requireKernel(t)
	log := kernelLog(t, Encode([]Insn{badMayGoto, exit()}))
	if !strings.Contains(log, "\n"+want+"\n") {
		t.Errorf("kernel log lacks %q:\n%s", want, log)
	}
}

// TestKernelDisasm loads disasmProg and compares our lines with the
// kernel's level-2 log.
func TestKernelDisasm(t *testing.T) {
	requireKernel(t)
	var p []Insn
	var want []string
	for _, line := range disasmProg {
		p = append(p, line.insns...)
		want = append(want, line.want)
	}
	log := kernelLog(t, Encode(p))
	re := regexp.MustCompile(`^\d+: \(`)
	seen := map[string]bool{}
	var got []string
	for _, l := range strings.Split(log, "\n") {
		if !re.MatchString(l) {
			continue
		}
		if j := strings.Index(l, " ;"); j >= 0 {
			l = l[:j]
		}
		l = strings.TrimSpace(l)
		if !seen[l] {
			seen[l] = true
			got = append(got, l)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kernel disassembly mismatch (-ours +kernel):\n%s", diff)
	}
}

// TestFormatBug: an encoding print_bpf_insn cannot name is printed as
// "idx: BUG_...", without the opcode in front (an atomic with an unknown
// operation, a BPF_ST of another mode).
func TestFormatBug(t *testing.T) {
	tests := []struct {
		in   Insn
		want string
	}{
		{Insn{Op: ClassSTX | ModeATOMIC | SizeW, Dst: R10, Src: R1, Off: -8, Imm: 0x10}, "4: BUG_c3"},
		{Insn{Op: ClassSTX | ModeATOMIC | SizeW, Dst: R10, Src: R1, Off: -8, Imm: AtomicAdd}, "4: (c3) lock *(u32 *)(r10 -8) += r1"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, Format(4, tc.in)); diff != "" {
			t.Errorf("Format mismatch (-want +got):\n%s", diff)
		}
	}
}

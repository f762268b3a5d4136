package insn

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type validateCase struct {
	name string
	prog []Insn
	// want is our message ("" when Validate accepts) and wantInsn the
	// instruction it is about.
	want     string
	wantInsn int
	// kernel is the last verifier log line when it differs from want
	// (for example an accepted program the kernel rejects later).
	kernel string
}

func with(i Insn, f func(*Insn)) Insn { f(&i); return i }

var validateCases = []validateCase{
	{name: "minimal", prog: prog(movImm(R0, 0), exit())},
	{name: "last insn not exit", prog: prog(movImm(R0, 0)),
		want: "last insn is not an exit or jmp", wantInsn: 0},
	{name: "jump past end", prog: prog(movImm(R0, 0), jmpImm(JmpJEQ, R0, 0, 5), exit()),
		want: "jump out of range from insn 1 to 7", wantInsn: 1},
	{name: "jump before start", prog: prog(movImm(R0, 0), ja(-3), exit()),
		want: "jump out of range from insn 1 to -1", wantInsn: 1},
	{name: "gotol wrapping past 2^31", prog: prog(movImm(R0, 0), Insn{Op: ClassJMP32 | JmpJA, Imm: math.MaxInt32}, exit()),
		want: "jump out of range from insn 1 to -2147483647", wantInsn: 1},
	{name: "unknown opcode", prog: prog(movImm(R0, 0), Insn{Op: 0xff}, exit()),
		want: "unknown opcode ff", wantInsn: 1},
	{name: "ldsx dw unknown", prog: prog(movImm(R0, 0), Insn{Op: ClassLDX | ModeMEMSX | SizeDW, Src: R10, Off: -8}, exit()),
		want: "unknown opcode 99", wantInsn: 1},
	{name: "bswap from reg unknown", prog: prog(movImm(R0, 0), Insn{Op: ClassALU64 | ALUEnd | SrcX, Imm: 16}, exit()),
		want: "unknown opcode df", wantInsn: 1},
	{name: "jmp32 exit unknown", prog: prog(movImm(R0, 0), Insn{Op: ClassJMP32 | JmpExit}, exit()),
		want: "unknown opcode 96", wantInsn: 1},
	{name: "ldx reserved imm", prog: prog(movImm(R0, 0), with(ldx(SizeDW, R1, R10, -8), func(i *Insn) { i.Imm = 1 }), exit()),
		want: "BPF_LDX uses reserved fields", wantInsn: 1},
	{name: "ldx atomic mode", prog: prog(movImm(R0, 0), Insn{Op: ClassLDX | ModeATOMIC | SizeDW, Src: R10, Off: -8}, exit()),
		want: "BPF_LDX uses reserved fields", wantInsn: 1},
	{name: "ld_imm64 bad second half", prog: prog(movImm(R0, 0), ldImm64(R1, 0, 1)[0], Insn{Filler: true, Dst: 1}, exit()),
		want: "invalid bpf_ld_imm64 insn", wantInsn: 1},
	{name: "ld_imm64 unknown pseudo", prog: prog(movImm(R0, 0), ldImm64(R1, 7, 1), exit()),
		want: "unrecognized bpf_ld_imm64 insn", wantInsn: 1},
	{name: "ld_imm64 plain", prog: prog(ldImm64(R0, 0, 0x1122334455667788), exit())},
	{name: "unreachable", prog: prog(movImm(R0, 0), exit(), exit()),
		want: "unreachable insn 2", wantInsn: 2},
	{name: "jump into ld_imm64", prog: prog(movImm(R0, 0), jmpImm(JmpJEQ, R0, 0, 1), ldImm64(R1, 0, 7), exit()),
		want: "jump into the middle of ldimm64 insn 2", wantInsn: 2},
	{name: "bounded loop", prog: prog(movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2), exit())},
	{name: "alu reserved off", prog: prog(movImm(R0, 0), with(aluImm(ALUAdd, R0, 1), func(i *Insn) { i.Off = 2 }), exit()),
		want: "BPF_ALU uses reserved fields", wantInsn: 1},
	{name: "alu signed add", prog: prog(movImm(R0, 0), with(aluImm(ALUAdd, R0, 1), func(i *Insn) { i.Off = 1 }), exit()),
		want: "BPF_ALU uses reserved fields", wantInsn: 1},
	{name: "alu reg with imm", prog: prog(movImm(R0, 0), with(aluReg(ALUAdd, R0, R0), func(i *Insn) { i.Imm = 3 }), exit()),
		want: "BPF_ALU uses reserved fields", wantInsn: 1},
	{name: "mov imm with src", prog: prog(with(movImm(R0, 0), func(i *Insn) { i.Src = 1 }), exit()),
		want: "BPF_MOV uses reserved fields", wantInsn: 0},
	{name: "mov32 sx32", prog: prog(movImm(R0, 0), Insn{Op: ClassALU | ALUMov | SrcX, Dst: R1, Src: R0, Off: 32}, exit()),
		want: "BPF_MOV uses reserved fields", wantInsn: 1},
	{name: "neg with imm", prog: prog(movImm(R0, 0), Insn{Op: ClassALU64 | ALUNeg, Imm: 1}, exit()),
		want: "BPF_NEG uses reserved fields", wantInsn: 1},
	{name: "end bad width", prog: prog(movImm(R0, 0), Insn{Op: ClassALU | ALUEnd | EndToBE, Imm: 8}, exit()),
		want: "BPF_END uses reserved fields", wantInsn: 1},
	{name: "r11 written", prog: prog(movImm(R0, 0), movImm(11, 1), exit()),
		want: "R11 is invalid", wantInsn: 1},
	{name: "r12 read", prog: prog(movImm(R0, 0), aluReg(ALUAdd, R0, 12), exit()),
		want: "R12 is invalid", wantInsn: 1},
	{name: "div by zero", prog: prog(movImm(R0, 1), aluImm(ALUDiv, R0, 0), exit()),
		want: "div by zero", wantInsn: 1},
	{name: "shift too far", prog: prog(movImm(R0, 1), aluImm(ALULsh, R0, 64), exit()),
		want: "invalid shift 64", wantInsn: 1},
	{name: "write r10", prog: prog(movImm(R0, 0), movImm(R10, 0), exit()),
		want: "frame pointer is read only", wantInsn: 1},
	{name: "call dst set", prog: prog(with(call(7), func(i *Insn) { i.Dst = 1 }), movImm(R0, 0), exit()),
		want: "BPF_CALL uses reserved fields", wantInsn: 0},
	{name: "ja with imm", prog: prog(movImm(R0, 0), with(ja(0), func(i *Insn) { i.Imm = 1 }), exit()),
		want: "BPF_JA uses reserved fields", wantInsn: 1},
	{name: "exit with imm", prog: prog(movImm(R0, 0), with(exit(), func(i *Insn) { i.Imm = 1 })),
		want: "BPF_EXIT uses reserved fields", wantInsn: 1},
	{name: "jeq imm with src", prog: prog(movImm(R0, 0), with(jmpImm(JmpJEQ, R0, 0, 0), func(i *Insn) { i.Src = 1 }), exit()),
		want: "BPF_JMP/JMP32 uses reserved fields", wantInsn: 1},
	{name: "st with src", prog: prog(movImm(R0, 0), with(st(SizeDW, R10, -8, 0), func(i *Insn) { i.Src = 1 }), exit()),
		want: "BPF_ST uses reserved fields", wantInsn: 1},
	{name: "stx with imm", prog: prog(movImm(R0, 0), with(stx(SizeDW, R10, R0, -8), func(i *Insn) { i.Imm = 1 }), exit()),
		want: "BPF_STX uses reserved fields", wantInsn: 1},
	{name: "atomic mul", prog: prog(movImm(R0, 0), Insn{Op: ClassSTX | ModeATOMIC | SizeDW, Dst: R10, Src: R0, Off: -8, Imm: int32(ALUMul)}, exit()),
		want: "BPF_ATOMIC uses invalid atomic opcode 20", wantInsn: 1},
	{name: "atomic add byte", prog: prog(movImm(R0, 0), Insn{Op: ClassSTX | ModeATOMIC | SizeB, Dst: R10, Src: R0, Off: -8, Imm: AtomicAdd}, exit()),
		want: "invalid atomic operand size", wantInsn: 1},
	{name: "call to invalid destination", prog: prog(movImm(R0, 0), callPC(100), exit()),
		want: "call to invalid destination", wantInsn: 1},
	{name: "jump across subprogs", prog: prog(callPC(2), movImm(R0, 0), exit(), movImm(R0, 0), ja(-4)),
		want: "jump out of range from insn 4 to 1", wantInsn: 4},
	{name: "subprog falls through", prog: prog(movImm(R0, 0), callPC(1), exit(), movImm(R0, 1)),
		want: "last insn is not an exit or jmp", wantInsn: 3},
	{name: "gotol", prog: prog(movImm(R0, 0), Insn{Op: ClassJMP32 | JmpJA, Imm: 0}, exit())},
	{name: "may_goto", prog: prog(movImm(R0, 0), Insn{Op: ClassJMP | JmpJCOND, Off: 0}, exit())},
	{name: "cpu v4 alu", prog: prog(
		movImm(R0, 7),
		with(aluImm(ALUDiv, R0, 2), func(i *Insn) { i.Off = OffSigned }),
		with(movReg(R1, R0), func(i *Insn) { i.Off = 8 }),
		Insn{Op: ClassALU64 | ALUEnd, Dst: R1, Imm: 16},
		exit())},
	{name: "memsx and acquire", prog: prog(
		st(SizeDW, R10, -8, 5),
		Insn{Op: ClassLDX | ModeMEMSX | SizeB, Dst: R0, Src: R10, Off: -8},
		Insn{Op: ClassSTX | ModeATOMIC | SizeDW, Dst: R1, Src: R10, Off: -8, Imm: AtomicLoadAcq},
		exit())},
	{name: "subprogram call", prog: prog(movImm(R1, 1), callPC(1), exit(), movImm(R0, 0), exit())},
}

func TestValidate(t *testing.T) {
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.prog)
			type result struct {
				Msg  string
				Insn int
			}
			var got result
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Validate() = %v, want an *Error", err)
				}
				got = result{e.Msg, e.Insn}
			}
			want := result{tc.want, tc.wantInsn}
			if tc.want == "" {
				want.Insn = 0
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateEmpty(t *testing.T) {
	if err := Validate(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Validate(nil) = %v, want ErrEmpty", err)
	}
}

func TestCheckUnprivileged(t *testing.T) {
	tests := []struct {
		name string
		prog []Insn
		want string
	}{
		{"back-edge", prog(movImm(R0, 0), aluImm(ALUAdd, R0, 1), jmpImm(JmpJLT, R0, 10, -2), exit()),
			"back-edge from insn 2 to 1"},
		{"bpf2bpf call", prog(movImm(R0, 0), callPC(1), exit(), movImm(R0, 0), exit()),
			"loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN"},
		{"straight line", prog(movImm(R0, 0), exit()), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := Check(tc.prog, Options{Unprivileged: true}); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckLineInfo: every subprogram's first instruction must have a
// line_info record, and no record may name an instruction of opcode 0
// (check_btf_line, record by record).
func TestCheckLineInfo(t *testing.T) {
	exit := Insn{Op: ClassJMP | JmpExit}
	prog := []Insn{exit, exit, exit, exit, exit, exit, exit}
	zeroAt3 := slices.Clone(prog)
	zeroAt3[3] = Insn{}
	tests := []struct {
		name   string
		prog   []Insn
		lines  []int
		starts []int
		want   string
	}{
		{"a record at opcode 0", zeroAt3, []int{0, 3, 4}, []int{0, 4}, "Invalid insn code at line_info[1].insn_off"},
		{"opcode 0 before a missing start", zeroAt3, []int{1, 3}, []int{0, 4}, "missing bpf_line_info for func#0"},
		{"opcode 0 past the last start", zeroAt3, []int{0, 3}, []int{0}, "Invalid insn code at line_info[1].insn_off"},
		{"opcode 0 unnamed", zeroAt3, []int{0, 4}, []int{0, 4}, ""},
		{"no line info", prog, nil, []int{0, 4}, ""},
		{"every start named", prog, []int{0, 2, 4, 5}, []int{0, 4}, ""},
		{"the main function's first instruction unnamed", prog, []int{1, 2, 4}, []int{0, 4}, "missing bpf_line_info for func#0"},
		{"a subprogram's start skipped", prog, []int{0, 2, 5}, []int{0, 4}, "missing bpf_line_info for func#1"},
		{"records end before the last subprogram", prog, []int{0, 2}, []int{0, 4, 6}, "missing bpf_line_info for 2 funcs starting from func#1"},
	}
	for _, tt := range tests {
		got := ""
		if err := checkLineInfo(tt.prog, tt.lines, tt.starts); err != nil {
			got = err.Msg
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: message (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCheckFuncInfo: the BTF func_info records must name the subprograms
// the calls define, one each, at their starts (check_btf_func); without
// them, no subprogram but the main one may use LD_ABS or a tail call
// (check_abnormal_return).
func TestCheckFuncInfo(t *testing.T) {
	exit := Insn{Op: ClassJMP | JmpExit}
	ldAbs := Insn{Op: ClassLD | ModeABS | SizeB}
	tailCall := Insn{Op: ClassJMP | JmpCall, Imm: HelperTailCall}
	plain := []Insn{exit, exit, exit, exit, exit, exit}
	withLdAbs := []Insn{ldAbs, exit, exit, exit, ldAbs, exit}
	withTailCall := []Insn{exit, exit, exit, exit, tailCall, exit}
	tests := []struct {
		name     string
		prog     []Insn
		starts   []int
		funcInfo []int
		scalar   []bool
		want     string
	}{
		{"no func info", plain, []int{0, 4}, nil, nil, ""},
		{"matching", plain, []int{0, 4}, []int{0, 4}, nil, ""},
		{"a record without its call", plain, []int{0}, []int{0, 4}, nil, "number of funcs in func_info doesn't match number of subprogs"},
		{"a record elsewhere", plain, []int{0, 4}, []int{0, 5}, nil, "func_info BTF section doesn't match subprog layout in BPF program"},
		{"LD_ABS in a subprogram without func info", withLdAbs, []int{0, 4}, nil, nil, "LD_ABS is not allowed in subprogs without BTF"},
		{"LD_ABS in the main program without func info", withLdAbs, []int{0}, nil, nil, ""},
		{"tail call in a subprogram without func info", withTailCall, []int{0, 4}, nil, nil, "tail_call is not allowed in subprogs without BTF"},
		{"tail call in a subprogram with func info", withTailCall, []int{0, 4}, []int{0, 4}, nil, ""},
		{"LD_ABS in a subprogram returning void", withLdAbs, []int{0, 4}, []int{0, 4}, []bool{true, false},
			"LD_ABS is only allowed in functions that return 'int'."},
		{"tail call in a subprogram returning a pointer", withTailCall, []int{0, 4}, []int{0, 4}, []bool{true, false},
			"tail_call is only allowed in functions that return 'int'."},
		{"LD_ABS in a main program returning void", withLdAbs, []int{0, 4}, []int{0, 4}, []bool{false, true}, ""},
	}
	for _, tt := range tests {
		got := ""
		if err := checkFuncInfo(tt.prog, tt.starts, Options{FuncInfo: tt.funcInfo, ScalarReturns: tt.scalar}); err != nil {
			got = err.Msg
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

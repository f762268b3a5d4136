package verifier_test

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestCallMain: a call of the main program goes the global-function way,
// and the kernel trusts the main program's prototype only when its one
// argument is the context (do_check_common marks it unreliable otherwise,
// and btf_check_subprog_call then refuses the call). ELF objects cannot
// carry such a call (linkers refuse the self-reference), so the programs
// are built here; the messages are the live 6.18 kernel's, seen on
// mutants of cilium/ebpf's loader-*.elf:xdp_prog (no arguments).
func TestCallMain(t *testing.T) {
	intType := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	xdpMd := &btf.Pointer{Target: &btf.Struct{Name: "xdp_md"}}
	tests := []struct {
		name   string
		params []btf.FuncParam
		r1     asm.Instruction
		want   string
	}{
		{"no arguments", nil, asm.Mov.Imm(asm.R1, 1), "Caller passes invalid args into func#0 ('main')"},
		{"an integer argument", []btf.FuncParam{{Name: "x", Type: intType}}, asm.Mov.Imm(asm.R1, 1),
			"Caller passes invalid args into func#0 ('main')"},
		{"the context, given a scalar", []btf.FuncParam{{Name: "ctx", Type: xdpMd}}, asm.Mov.Imm(asm.R1, 1),
			"Caller passes invalid args into func#0 ('main')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			main := &btf.Func{Name: "main", Linkage: btf.GlobalFunc, Type: &btf.FuncProto{Return: intType, Params: tt.params}}
			insns := asm.Instructions{
				tt.r1,
				{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall, Constant: -2},
				asm.Mov.Imm(asm.R0, 0),
				asm.Return(),
			}
			prog := &loader.Program{Name: "main", Type: ebpf.XDP, Instructions: insns, GPLCompatible: true,
				Funcs: []loader.Func{{Start: 0, Name: "main", Global: true, BTF: main}}}
			if got := errMsg(verifier.Verify(&loader.Object{Path: "test"}, prog, verifier.Options{})); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

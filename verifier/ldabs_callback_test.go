package verifier_test

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestLdAbsInCallback: an LD_ABS in a bpf_loop callback reads the skb in
// R6, which the 6.18 kernel checks first and which a callback has not
// initialised (s7_ld_abs_ctx_off.c has the live kernel's verdict; with R6
// set, s39_ld_abs_callback.c).
func TestLdAbsInCallback(t *testing.T) {
	const bpfLoop = 181
	insns := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.Mov.Imm(asm.R1, 1),
		{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: 6},
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 0),
		asm.BuiltinFunc(bpfLoop).Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
		// The callback, at slot 9.
		{OpCode: asm.OpCode(asm.LdClass).SetMode(asm.AbsMode).SetSize(asm.Word), Constant: 0},
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
	obj := &loader.Object{Path: "test"}
	prog := &loader.Program{Name: "test", Type: ebpf.SocketFilter, Instructions: insns, GPLCompatible: true,
		Funcs: []loader.Func{{Start: 0, Name: "main"}, {Start: 9, Name: "cb"}}}
	res := verifier.Verify(obj, prog, verifier.Options{})
	if res.Accepted {
		t.Fatal("accepted an LD_ABS through an uninitialised R6 inside a bpf_loop callback")
	}
	if !strings.Contains(res.Err.Error(), "R6 !read_ok") {
		t.Errorf("unexpected rejection %q", res.Err)
	}
}

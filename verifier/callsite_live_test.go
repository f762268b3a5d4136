package verifier

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestCallSiteOrder checks that call sites are refused in instruction
// order, as add_subprog_and_kfunc walks them: a bpf-to-bpf call whose
// target lies outside the program and a kfunc call whose BTF id names no
// function (vmlinux's type 1 is an integer) are each refused where the
// first of them stands. No ELF object can hold such calls (loaders refuse
// the jump), so the programs are built here; where bpf() is permitted the
// running kernel's message is compared too.
func TestCallSiteOrder(t *testing.T) {
	badCall := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall, Constant: 2049}
	badKfunc := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: 1}
	tests := []struct {
		name  string
		calls asm.Instructions
		want  RejectError
	}{
		{"call first", asm.Instructions{badCall, badKfunc}, RejectError{Insn: 1, Msg: "call to invalid destination"}},
		{"kfunc first", asm.Instructions{badKfunc, badCall}, RejectError{Insn: 1, Msg: "kernel btf_id 1 is not a function"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			insns := append(append(asm.Instructions{asm.Mov.Imm(asm.R0, 0)}, tt.calls...), asm.Return())
			checkSocketRejection(t, insns, tt.want)
		})
	}
}

// bpfUsable reports whether this process may load BPF programs, for tests
// whose live comparison is an addition to what they check without it.
func bpfUsable() bool {
	bpfUsableOnce.Do(func() {
		_, bpfUsableErr = liveLoad(liveProgramType{pt: ebpf.SocketFilter},
			asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()})
	})
	return bpfUsableErr == nil
}

// TestKfuncDistill checks add_kfunc_call's last test, the model the JIT
// needs to call the function (btf_distill_func_proto), on kernel functions
// no kfunc set names: a variadic one and one taking a struct of size 0 by
// value. add_kfunc_call makes it at load time, before any check of
// whether the program may call the function. The ids are the running
// kernel's; where bpf() is permitted its message is compared too.
func TestKfuncDistill(t *testing.T) {
	spec, err := vmlinux()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	tests := []struct {
		fn   string
		want string
	}{
		{"_printk", "The function _printk with variable args is unsupported."},
		{"ctx_flush_and_put", "The function ctx_flush_and_put has malformed void argument."},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			var fn *btf.Func
			if err := spec.TypeByName(tt.fn, &fn); err != nil {
				t.Skipf("%s not in this kernel's BTF: %v", tt.fn, err)
			}
			id, err := spec.TypeID(fn)
			if err != nil {
				t.Fatal(err)
			}
			call := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: int64(id)}
			insns := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return(), call, asm.Return()}
			checkSocketRejection(t, insns, RejectError{Insn: 2, Msg: tt.want})
		})
	}
}

// checkSocketRejection verifies insns as a GPL socket filter and checks
// vercheck's rejection against want, and, where bpf() is permitted, the
// running kernel's message.
func checkSocketRejection(t *testing.T, insns asm.Instructions, want RejectError) {
	t.Helper()
	obj := &loader.Object{Path: "test"}
	p := &loader.Program{Name: "p", Type: ebpf.SocketFilter, License: "GPL", GPLCompatible: true, Instructions: insns}
	res := Verify(obj, p, Options{})
	var re *RejectError
	if !errors.As(res.Err, &re) {
		t.Fatalf("verdict %v, want a rejection", res.Err)
	}
	if d := cmp.Diff(want, RejectError{Insn: re.Insn, Msg: re.Msg}, cmp.AllowUnexported(RejectError{})); d != "" {
		t.Errorf("rejection (-want +got):\n%s", d)
	}
	if testing.Short() || !bpfUsable() {
		return
	}
	if k := kernel.LoadProgramVerdict(obj, p); !k.NotLoaded && k.Err != want.Msg {
		t.Errorf("the running kernel refuses with %q, want %q", k.Err, want.Msg)
	}
}

package verifier

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
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
	tests := []struct {
		fn   string
		want string
	}{
		{"_printk", "The function _printk with variable args is unsupported."},
		{"ctx_flush_and_put", "The function ctx_flush_and_put has malformed void argument."},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			call := kfuncCall(kfuncID(t, tt.fn))
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

// TestKfuncCallLiveness checks the argument registers compute_live_registers
// takes a kfunc call to use (get_call_summary): its parameters when a kfunc
// set registers the function for the program type, r1-r5 when
// fetch_kfunc_meta fails, as for a static kernel function without the
// bpf_kfunc tag that no set registers (a mutated BTF id). The call stands
// after a refused instruction: only the live-register table the level-2 log
// prints before the walk shows it. Where bpf() is permitted the running
// kernel's table line is compared too.
func TestKfuncCallLiveness(t *testing.T) {
	tests := []struct {
		fn   string
		want string
	}{
		{"bpf_lookup", "2: .12345.... (85) call bpf_lookup#"},
		{"bpf_dynptr_slice", "2: .1234..... (85) call bpf_dynptr_slice#"},
	}
	for _, tt := range tests {
		t.Run(tt.fn, func(t *testing.T) {
			call := kfuncCall(kfuncID(t, tt.fn))
			insns := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.LoadMem(asm.R0, asm.R10, -8, asm.DWord), call, asm.Return()}
			p := &loader.Program{Name: "p", Type: ebpf.SocketFilter, License: "GPL", GPLCompatible: true, Instructions: insns}
			res := Verify(&loader.Object{Path: "test"}, p, Options{LogLevel: 2})
			want := tt.want + fmt.Sprint(call.Constant)
			if got := tableLine(res.Log, 2); got != want {
				t.Errorf("vercheck's live registers: %q, want %q", got, want)
			}
			if testing.Short() || !bpfUsable() {
				return
			}
			_, err := ebpf.NewProgramWithOptions(&ebpf.ProgramSpec{Type: ebpf.SocketFilter, License: "GPL", Instructions: insns}, ebpf.ProgramOptions{LogLevel: 2})
			var ve *ebpf.VerifierError
			if !errors.As(err, &ve) {
				t.Fatalf("the running kernel: %v, want a verifier log", err)
			}
			if got := tableLine(strings.Join(ve.Log, "\n"), 2); got != want {
				t.Errorf("the running kernel's live registers: %q, want %q", got, want)
			}
		})
	}
}

// tableLine returns the line of the live-register table of a level-2 log
// for instruction idx, trimmed.
func tableLine(log string, idx int) string {
	prefix := fmt.Sprintf("%d: ", idx)
	_, table, _ := strings.Cut(log, "Live regs before insn:")
	for _, line := range strings.Split(table, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

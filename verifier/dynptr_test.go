package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// tcProg is a GPL tc program made of insns.
func tcProg(insns ...asm.Instruction) *loader.Program {
	return &loader.Program{Name: "p", Type: ebpf.SchedCLS, GPLCompatible: true, Instructions: insns}
}

// stackPtr builds "reg = r10 + off".
func stackPtr(reg asm.Register, off int32) asm.Instructions {
	return asm.Instructions{asm.Mov.Reg(reg, asm.RFP), asm.Add.Imm(reg, off)}
}

// dynptrProg is a tc program: setup, then "r0 = 0; exit".
func dynptrProg(setup ...asm.Instructions) *loader.Program {
	var insns asm.Instructions
	for _, s := range setup {
		insns = append(insns, s...)
	}
	return tcProg(append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())...)
}

// Dynptr argument checks that need no map: the programs are rejected
// before or at the helper call.
func TestDynptrArgs(t *testing.T) {
	fromMem := func(dynptrOff int32) asm.Instructions {
		return append(append(stackPtr(asm.R1, -8), asm.Mov.Imm(asm.R2, 8), asm.Mov.Imm(asm.R3, 0)),
			append(stackPtr(asm.R4, dynptrOff), asm.FnDynptrFromMem.Call())...)
	}
	read := func(dynptrOff int32) asm.Instructions {
		return append(append(stackPtr(asm.R1, -40), asm.Mov.Imm(asm.R2, 4)),
			append(stackPtr(asm.R3, dynptrOff), asm.Mov.Imm(asm.R4, 0), asm.Mov.Imm(asm.R5, 0), asm.FnDynptrRead.Call())...)
	}
	tests := []struct {
		name string
		prog *loader.Program
		want progOutcome
	}{
		{"from_mem of stack memory", dynptrProg(fromMem(-24)),
			progOutcome{"rejected", "Unsupported reg type fp for bpf_dynptr_from_mem data"}},
		{"misaligned dynptr", dynptrProg(fromMem(-20)),
			progOutcome{"rejected", "Dynptr has to be an uninitialized dynptr"}},
		{"dynptr in the top slot only", dynptrProg(fromMem(-8)),
			progOutcome{"rejected", "Dynptr has to be an uninitialized dynptr"}},
		{"scalar dynptr", dynptrProg(append(append(stackPtr(asm.R1, -8), asm.Mov.Imm(asm.R2, 8), asm.Mov.Imm(asm.R3, 0)),
			asm.Mov.Imm(asm.R4, 0), asm.FnDynptrFromMem.Call())),
			progOutcome{"rejected", "R4 type=scalar expected=fp, dynptr_ptr"}},
		{"read of a never-built dynptr", dynptrProg(read(-32)),
			progOutcome{"rejected", "Expected an initialized dynptr as arg #2"}},
		{"submit of a never-built dynptr", dynptrProg(stackPtr(asm.R1, -16), asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.FnRingbufSubmitDynptr.Call()}),
			progOutcome{"rejected", "arg 1 is an unacquired reference"}},
		{"data of a never-built dynptr", dynptrProg(stackPtr(asm.R1, -16), asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 8), asm.FnDynptrData.Call()}),
			progOutcome{"rejected", "Expected an initialized dynptr as arg #0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, verifyInsns(t, tt.prog)); diff != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDynptrTypeString(t *testing.T) {
	got := []string{dynptrInvalid.String(), dynptrLocal.String(), dynptrRingbuf.String(), dynptrSKB.String(), dynptrXDP.String(), dynptrType(99).String()}
	want := []string{"<invalid>", "local", "ringbuf", "skb", "xdp", "<invalid>"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dynptr type names mismatch (-want +got):\n%s", diff)
	}
}

// BTF pointer arguments, with a raw tracepoint's trusted task argument.
func TestBTFIDHelperArgs(t *testing.T) {
	if _, err := vmlinux(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	tpBTF := func(insns ...asm.Instruction) *loader.Program {
		return &loader.Program{Name: "p", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp,
			AttachTo: "task_newtask", GPLCompatible: true, Instructions: insns}
	}
	tests := []struct {
		name string
		prog *loader.Program
		want progOutcome
	}{
		{"current task to get_task_stack", tpBTF(
			asm.FnGetCurrentTaskBtf.Call(),
			asm.Mov.Reg(asm.R1, asm.R0),
			asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.Mov.Imm(asm.R3, 8), asm.Mov.Imm(asm.R4, 0),
			asm.FnGetTaskStack.Call(),
			asm.Mov.Imm(asm.R0, 0), asm.Return()),
			progOutcome{Verdict: "accepted"}},
		{"tracepoint task to get_task_stack", tpBTF(
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.Mov.Imm(asm.R3, 8), asm.Mov.Imm(asm.R4, 0),
			asm.FnGetTaskStack.Call(),
			asm.Mov.Imm(asm.R0, 0), asm.Return()),
			progOutcome{Verdict: "accepted"}},
		{"scalar task", tpBTF(
			asm.Mov.Imm(asm.R1, 0),
			asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.Mov.Imm(asm.R3, 8), asm.Mov.Imm(asm.R4, 0),
			asm.FnGetTaskStack.Call(),
			asm.Mov.Imm(asm.R0, 0), asm.Return()),
			progOutcome{"rejected", "R1 type=scalar expected=ptr_, trusted_ptr_, rcu_ptr_"}},
		{"task moved off its start", tpBTF(
			asm.FnGetCurrentTaskBtf.Call(),
			asm.Mov.Reg(asm.R1, asm.R0),
			asm.Add.Imm(asm.R1, 8),
			asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -8),
			asm.Mov.Imm(asm.R3, 8), asm.Mov.Imm(asm.R4, 0),
			asm.FnGetTaskStack.Call(),
			asm.Mov.Imm(asm.R0, 0), asm.Return()),
			progOutcome{"rejected", "R1 is of type task_struct but task_struct is expected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, verifyInsns(t, tt.prog)); diff != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/kfuncs"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

func TestKfuncAllowedIn(t *testing.T) {
	tests := []struct {
		kfunc string
		pt    ebpf.ProgramType
		want  bool
	}{
		{"bpf_dynptr_from_skb", ebpf.SchedCLS, true},
		{"bpf_dynptr_from_skb", ebpf.SchedACT, true},
		{"bpf_dynptr_from_skb", ebpf.SocketFilter, true},
		{"bpf_dynptr_from_skb", ebpf.CGroupSKB, true},
		{"bpf_dynptr_from_skb", ebpf.LWTXmit, true},
		{"bpf_dynptr_from_skb", ebpf.SkSKB, true},
		{"bpf_dynptr_from_skb", ebpf.Netfilter, true},
		{"bpf_dynptr_from_skb", ebpf.Tracing, true},
		{"bpf_dynptr_from_skb", ebpf.XDP, false},
		{"bpf_dynptr_from_skb", ebpf.Kprobe, false},
		{"bpf_dynptr_from_xdp", ebpf.XDP, true},
		{"bpf_dynptr_from_xdp", ebpf.SchedCLS, false},
		{"bpf_dynptr_slice", ebpf.Kprobe, true},
		{"bpf_iter_task_new", ebpf.SocketFilter, true},
		{"bpf_task_from_vpid", ebpf.SchedCLS, true},
		{"bpf_task_from_vpid", ebpf.SocketFilter, false},
	}
	for _, tt := range tests {
		def, ok := kfuncs.Lookup(tt.kfunc)
		if !ok {
			t.Errorf("%s not in the kfunc table", tt.kfunc)
			continue
		}
		if got := def.AllowedIn(tt.pt); got != tt.want {
			t.Errorf("%s in %s: allowedIn = %v, want %v", tt.kfunc, tt.pt, got, tt.want)
		}
	}
}

func TestDynptrPktSlice(t *testing.T) {
	slice := func(typ states.RegType, aux uint32) *states.Reg {
		var r states.Reg
		r.MarkPtr(typ, states.MemRdonly)
		r.Aux = aux
		return &r
	}
	tests := []struct {
		name string
		reg  *states.Reg
		want bool
	}{
		{"skb slice", slice(states.PtrToMem, 3|dynptrSlicePkt), true},
		{"local slice", slice(states.PtrToMem, 3), false},
		{"map value", slice(states.PtrToMapValue, dynptrSlicePkt), false},
	}
	for _, tt := range tests {
		if got := isDynptrPktSlice(tt.reg); got != tt.want {
			t.Errorf("%s: isDynptrPktSlice = %v, want %v", tt.name, got, tt.want)
		}
	}
	var packet []dynptrType
	for typ := dynptrInvalid; typ <= dynptrXDP; typ++ {
		if typ.isPacket() {
			packet = append(packet, typ)
		}
	}
	if diff := cmp.Diff([]dynptrType{dynptrSKB, dynptrXDP}, packet); diff != "" {
		t.Errorf("packet dynptr types mismatch (-want +got):\n%s", diff)
	}
}

// concat joins instruction lists.
func concat(parts ...[]asm.Instruction) asm.Instructions {
	var out asm.Instructions
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestKfuncDynptrs(t *testing.T) {
	fromSKB := kfuncCall(kfuncID(t, "bpf_dynptr_from_skb"))
	fromXDP := kfuncCall(kfuncID(t, "bpf_dynptr_from_xdp"))
	slice := kfuncCall(kfuncID(t, "bpf_dynptr_slice"))
	sliceRW := kfuncCall(kfuncID(t, "bpf_dynptr_slice_rdwr"))
	clone := kfuncCall(kfuncID(t, "bpf_dynptr_clone"))
	prog := func(pt ebpf.ProgramType, insns asm.Instructions) *loader.Program {
		return &loader.Program{Name: "p", Type: pt, GPLCompatible: true, Instructions: insns}
	}
	// build: the dynptr at fp-16 over the context in r1.
	build := func(ctor asm.Instruction) []asm.Instruction {
		return concat([]asm.Instruction{asm.Mov.Imm(asm.R2, 0)}, stackPtr(asm.R3, -16), []asm.Instruction{ctor})
	}
	// takeSlice: r0 = slice(&dynptr at fp-off, 0, NULL, 4).
	takeSlice := func(fn asm.Instruction, off int32) []asm.Instruction {
		return concat(stackPtr(asm.R1, -off), []asm.Instruction{
			asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 4), fn})
	}
	exit := []asm.Instruction{asm.Mov.Imm(asm.R0, 0), asm.Return()}
	// writeByte: dynptr_write(&dynptr at fp-16, 0, fp-24, 1, 0).
	writeByte := concat([]asm.Instruction{asm.Mov.Imm(asm.R1, 0), asm.StoreMem(asm.RFP, -24, asm.R1, asm.DWord)},
		stackPtr(asm.R1, -16), []asm.Instruction{asm.Mov.Imm(asm.R2, 0)}, stackPtr(asm.R3, -24),
		[]asm.Instruction{asm.Mov.Imm(asm.R4, 1), asm.Mov.Imm(asm.R5, 0), asm.FnDynptrWrite.Call()})
	// writeSlice writes through the slice in r0 unless it is NULL.
	writeSlice := []asm.Instruction{skipIfNull(asm.R0, 2), asm.Mov.Imm(asm.R1, 1), asm.StoreMem(asm.R0, 0, asm.R1, asm.Word)}
	// rdwrAllowed: a kernel that lets programs call
	// bpf_dynptr_slice_rdwr at all.
	rdwrAllowed := stablefix.Of(stablefix.NoDynptrSliceRdwr)
	tests := []struct {
		name    string
		prog    *loader.Program
		want    progOutcome
		missing stablefix.Set
	}{
		{"tc writes through a writable slice", prog(ebpf.SchedCLS, concat(build(fromSKB), takeSlice(sliceRW, 16), writeSlice, exit)),
			progOutcome{"accepted", ""}, rdwrAllowed},
		{"writable slice refused", prog(ebpf.SchedCLS, concat(build(fromSKB), takeSlice(sliceRW, 16), writeSlice, exit)),
			progOutcome{"rejected", "bpf_dynptr_slice_rdwr() is not allowed"}, stablefix.Set{}},
		{"lwt_in: the refusal comes first", prog(ebpf.LWTIn, concat(build(fromSKB), takeSlice(sliceRW, 16), exit)),
			progOutcome{"rejected", "bpf_dynptr_slice_rdwr() is not allowed"}, stablefix.Set{}},
		{"read-only slice", prog(ebpf.SchedCLS, concat(build(fromSKB), takeSlice(slice, 16),
			[]asm.Instruction{skipIfNull(asm.R0, 2), asm.Mov.Imm(asm.R1, 1), asm.StoreMem(asm.R0, 0, asm.R1, asm.Word)}, exit)),
			progOutcome{"rejected", "R0 cannot write into rdonly_mem"}, stablefix.Set{}},
		{"slice read past its size", prog(ebpf.SchedCLS, concat(build(fromSKB), takeSlice(slice, 16),
			[]asm.Instruction{skipIfNull(asm.R0, 1), asm.LoadMem(asm.R1, asm.R0, 2, asm.Word)}, exit)),
			progOutcome{"rejected", "invalid access to memory, mem_size=4 off=2 size=4\nR0 min value is outside of the allowed memory range"}, stablefix.Set{}},
		{"lwt_in may not write packets", prog(ebpf.LWTIn, concat(build(fromSKB), takeSlice(sliceRW, 16), exit)),
			progOutcome{"rejected", "the prog does not allow writes to packet data"}, rdwrAllowed},
		{"skb slice killed by a write into its dynptr", prog(ebpf.SchedCLS, concat(build(fromSKB), takeSlice(slice, 16),
			[]asm.Instruction{skipIfNull(asm.R0, 13), asm.Mov.Reg(asm.R6, asm.R0)}, writeByte,
			[]asm.Instruction{asm.LoadMem(asm.R0, asm.R6, 0, asm.Word), asm.Return()}, exit)),
			progOutcome{"rejected", "R6 invalid mem access 'scalar'"}, stablefix.Set{}},
		{"xdp slice survives a write into its dynptr", prog(ebpf.XDP, concat(build(fromXDP), takeSlice(slice, 16),
			[]asm.Instruction{skipIfNull(asm.R0, 14), asm.Mov.Reg(asm.R6, asm.R0)}, writeByte,
			[]asm.Instruction{asm.LoadMem(asm.R0, asm.R6, 0, asm.Word), asm.And.Imm(asm.R0, 1), asm.Return()}, exit)),
			progOutcome{"accepted", ""}, stablefix.Set{}},
		{"clone of an skb dynptr is an skb dynptr", prog(ebpf.SchedCLS, concat(build(fromSKB), stackPtr(asm.R1, -16),
			stackPtr(asm.R2, -32), []asm.Instruction{clone}, takeSlice(slice, 32),
			[]asm.Instruction{skipIfNull(asm.R0, 13), asm.Mov.Reg(asm.R6, asm.R0)}, writeByte,
			[]asm.Instruction{asm.LoadMem(asm.R0, asm.R6, 0, asm.Word), asm.Return()}, exit)),
			progOutcome{"rejected", "R6 invalid mem access 'scalar'"}, stablefix.Set{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, verifyInsnsLacking(t, tt.prog, tt.missing)); diff != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// regAfterLacking is regAfter on a kernel lacking the stable fixes missing.
func regAfterLacking(t *testing.T, p *loader.Program, idx int, pick func(*states.Reg) bool, missing stablefix.Set) *states.Reg {
	t.Helper()
	var got *states.Reg
	opts := Options{MissingFixes: missing, Observe: func(i int, st *states.State) {
		r := st.Cur().Regs()[0]
		if i == idx && got == nil && pick(&r) {
			got = &r
		}
	}}
	res := Verify(&loader.Object{Path: "test"}, p, opts)
	if res.Err != nil {
		t.Fatalf("verify: %v", res.Err)
	}
	if got == nil {
		t.Fatalf("no state at insn %d", idx)
	}
	return got
}

func TestIterNextPointerTrust(t *testing.T) {
	taskNew := kfuncCall(kfuncID(t, "bpf_iter_task_new"))
	taskNext := kfuncCall(kfuncID(t, "bpf_iter_task_next"))
	taskDestroy := kfuncCall(kfuncID(t, "bpf_iter_task_destroy"))
	vmaNew := kfuncCall(kfuncID(t, "bpf_iter_task_vma_new"))
	vmaNext := kfuncCall(kfuncID(t, "bpf_iter_task_vma_next"))
	vmaDestroy := kfuncCall(kfuncID(t, "bpf_iter_task_vma_destroy"))
	// loop: setup; new(&it at fp-24, r2, 0); next; destroy. The element
	// is observed on the path where next returned one (not NULL), at the
	// instruction after next.
	loop := func(pt ebpf.ProgramType, setup []asm.Instruction, newCall, next, destroy asm.Instruction) *loader.Program {
		insns := concat(setup, stackPtr(asm.R1, -24), []asm.Instruction{asm.Mov.Imm(asm.R3, 0), newCall},
			stackPtr(asm.R1, -24), []asm.Instruction{next, asm.Mov.Reg(asm.R6, asm.R0)},
			stackPtr(asm.R1, -24), []asm.Instruction{destroy, asm.Mov.Imm(asm.R0, 0), asm.Return()})
		p := &loader.Program{Name: "p", Type: pt, GPLCompatible: true, Instructions: insns}
		if pt == ebpf.Tracing {
			p.AttachType, p.AttachTo = ebpf.AttachTraceRawTp, "task_newtask"
		}
		return p
	}
	nonNull := func(r *states.Reg) bool { return r.Type == states.PtrToBTFID }
	vmaLoop := loop(ebpf.Tracing, []asm.Instruction{asm.FnGetCurrentTaskBtf.Call(), asm.Mov.Reg(asm.R2, asm.R0)}, vmaNew, vmaNext, vmaDestroy)
	tests := []struct {
		name    string
		prog    *loader.Program
		idx     int
		missing stablefix.Set
		want    states.RegFlags
	}{
		{"task iterator (RCU protected)", loop(ebpf.SocketFilter, []asm.Instruction{asm.Mov.Imm(asm.R2, 0)}, taskNew, taskNext, taskDestroy),
			8, stablefix.Set{}, states.MemRCU},
		{"vma iterator", vmaLoop, 9, stablefix.Set{}, states.PtrUntrusted},
		{"vma iterator holding the mmap lock", vmaLoop, 9, stablefix.Of(stablefix.IterNextUntrusted), states.PtrTrusted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := regAfterLacking(t, tt.prog, tt.idx, nonNull, tt.missing)
			if diff := cmp.Diff(tt.want, r.Flags); diff != "" {
				t.Errorf("element flags mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

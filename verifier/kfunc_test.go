package verifier

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// kfuncID returns the vmlinux BTF id of a kernel function, skipping the
// test when the running kernel has no BTF or no such function.
func kfuncID(t *testing.T, name string) int64 {
	t.Helper()
	spec, err := vmlinux()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	var fn *btf.Func
	if err := spec.TypeByName(name, &fn); err != nil {
		t.Skipf("kernel function %s not in BTF: %v", name, err)
	}
	id, err := spec.TypeID(fn)
	if err != nil {
		t.Fatal(err)
	}
	return int64(id)
}

// kfuncCall builds a call of the kernel function with BTF id id.
func kfuncCall(id int64) asm.Instruction {
	return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: id}
}

// skipIfNull builds "if reg == 0 goto pc+skip".
func skipIfNull(reg asm.Register, skip int16) asm.Instruction {
	in := asm.JEq.Imm(reg, 0, "")
	in.Offset = skip
	return in
}

// progOutcome is what a test program's verification says.
type progOutcome struct {
	Verdict string
	Msg     string
}

func verifyInsns(t *testing.T, p *loader.Program) progOutcome {
	t.Helper()
	return verifyInsnsLacking(t, p, stablefix.Set{})
}

// verifyInsnsLacking verifies p for a kernel lacking the stable fixes
// missing.
func verifyInsnsLacking(t *testing.T, p *loader.Program, missing stablefix.Set) progOutcome {
	t.Helper()
	res := Verify(&loader.Object{Path: "test"}, p, Options{MissingFixes: missing})
	out := progOutcome{Verdict: res.Verdict()}
	var re *RejectError
	if errors.As(res.Err, &re) {
		out.Msg = re.Msg
	} else if res.Err != nil {
		out.Msg = res.Err.Error()
	}
	return out
}

func TestKfuncCalls(t *testing.T) {
	create := kfuncID(t, "bpf_cpumask_create")
	release := kfuncID(t, "bpf_cpumask_release")
	taskAcquire := kfuncID(t, "bpf_task_acquire")
	taskRelease := kfuncID(t, "bpf_task_release")
	tpBTF := func(insns ...asm.Instruction) *loader.Program {
		return &loader.Program{Name: "p", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp,
			AttachTo: "task_newtask", GPLCompatible: true, Instructions: insns}
	}
	tests := []struct {
		name string
		prog *loader.Program
		want progOutcome
	}{
		{"create checked and released", tpBTF(
			kfuncCall(create),
			skipIfNull(asm.R0, 2),
			asm.Mov.Reg(asm.R1, asm.R0),
			kfuncCall(release),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"accepted", ""}},
		{"release of a maybe-null pointer", tpBTF(
			kfuncCall(create),
			asm.Mov.Reg(asm.R1, asm.R0),
			kfuncCall(release),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"rejected", "Possibly NULL pointer passed to trusted arg0"}},
		{"leaked reference", tpBTF(
			kfuncCall(create),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"rejected", "Unreleased reference id=2 alloc_insn=0\nBPF_EXIT instruction in main prog would lead to reference leak"}},
		{"release of a non-referenced pointer", tpBTF(
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			kfuncCall(taskRelease),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"rejected", "release kernel function bpf_task_release expects refcounted PTR_TO_BTF_ID"}},
		{"acquire a trusted task argument", tpBTF(
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			kfuncCall(taskAcquire),
			skipIfNull(asm.R0, 2),
			asm.Mov.Reg(asm.R1, asm.R0),
			kfuncCall(taskRelease),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"accepted", ""}},
		{"wrong struct passed", tpBTF(
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			kfuncCall(release),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"rejected", "kernel function bpf_cpumask_release args#0 expected pointer to STRUCT bpf_cpumask but R1 has a pointer to STRUCT task_struct"}},
		{"scalar passed as task", tpBTF(
			asm.LoadMem(asm.R1, asm.R1, 8, asm.DWord),
			kfuncCall(taskAcquire),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"rejected", "arg#0 pointer type STRUCT task_struct must point to scalar, or struct with scalar"}},
		{"not allowed in tc", &loader.Program{Name: "p", Type: ebpf.SchedCLS, GPLCompatible: true, Instructions: asm.Instructions{
			kfuncCall(create),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		}}, progOutcome{"rejected", "calling kernel function bpf_cpumask_create is not allowed"}},
		{"non-GPL program", &loader.Program{Name: "p", Type: ebpf.SchedCLS, Instructions: asm.Instructions{
			kfuncCall(create),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		}}, progOutcome{"rejected", "cannot call kernel function from non-GPL compatible program"}},
		// A kernel function in no kfunc table of vercheck's and without
		// the bpf_kfunc tag the kernel's BTF gives every kfunc: in no
		// kfunc set (the kernel found its address, so the call is
		// refused where it is reached).
		{"no kfunc", tpBTF(
			kfuncCall(kfuncID(t, "bpf_prog_put")),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"rejected", "calling kernel function bpf_prog_put is not allowed"}},
		{"fmod_ret set alone", tpBTF(
			asm.Mov.Imm(asm.R1, 0),
			kfuncCall(kfuncID(t, "bpf_fentry_test1")),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		), progOutcome{"rejected", "calling kernel function bpf_fentry_test1 is not allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "no kfunc" && !kernelTagsKfuncs() {
				// A BTF without kfunc tags (pahole before 1.26)
				// cannot tell a kfunc vercheck lacks from a plain
				// function.
				tt.want = progOutcome{"unsupported", "unsupported: kfunc bpf_prog_put"}
			}
			if diff := cmp.Diff(tt.want, verifyInsns(t, tt.prog)); diff != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKfuncModuleOffset: a kfunc call's offset names a module BTF by its
// index in fd_array (find_kfunc_desc_btf): a negative one is refused, and
// so is any with no module BTF, when loaders pass no fd_array (EPROTO).
// Both before the walk, for a call no path reaches too.
func TestKfuncModuleOffset(t *testing.T) {
	call := func(off int16) *loader.Program {
		return &loader.Program{Name: "p", Type: ebpf.SchedCLS, GPLCompatible: true, Instructions: asm.Instructions{
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
			{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Offset: off, Constant: 1},
			asm.Return(),
		}}
	}
	want := progOutcome{"rejected", "negative offset disallowed for kernel module function call\nfailed to find BTF for kernel function"}
	if diff := cmp.Diff(want, verifyInsns(t, call(-1))); diff != "" {
		t.Errorf("offset -1 (-want +got):\n%s", diff)
	}
	if haveModuleBTFs() {
		t.Skip("this kernel has module BTF: an offset names one of them")
	}
	for _, off := range []int16{1, 16} {
		want := progOutcome{"rejected", "kfunc offset > 0 without fd_array is invalid\nfailed to find BTF for kernel function"}
		if diff := cmp.Diff(want, verifyInsns(t, call(off))); diff != "" {
			t.Errorf("offset %d (-want +got):\n%s", off, diff)
		}
	}
}

func TestTracingContext(t *testing.T) {
	if _, err := vmlinux(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	tc, err := tracingContext(ebpf.AttachTraceRawTp, "task_newtask")
	if err != nil {
		t.Skipf("tracepoint not in BTF: %v", err)
	}
	type result struct {
		OK, Ptr bool
		Name    string
		Trusted bool
	}
	tests := []struct {
		off, size int
		want      result
	}{
		{0, 8, result{OK: true, Ptr: true, Name: "task_struct", Trusted: true}},
		{0, 4, result{}},
		{8, 8, result{OK: true}},
		{8, 4, result{OK: true}},
		{16, 8, result{}},
		{4, 4, result{}},
	}
	for _, tt := range tests {
		a, ok := tc.access(tt.off, tt.size, 0)
		got := result{OK: ok, Ptr: a.ptr}
		if a.ptr {
			got.Name = btfTypeName(a.id)
			r := states.Reg{Type: states.PtrToBTFID, Flags: a.flags}
			got.Trusted = isTrustedBTF(&r)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("access(%d, %d) mismatch (-want +got):\n%s", tt.off, tt.size, diff)
		}
	}
}

func TestBTFStructWalk(t *testing.T) {
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	inner := &btf.Struct{Name: "inner", Size: 8, Members: []btf.Member{
		{Name: "a", Type: u32, Offset: 0}, {Name: "b", Type: u32, Offset: 32},
	}}
	outer := &btf.Struct{Name: "outer", Size: 40, Members: []btf.Member{
		{Name: "x", Type: u64, Offset: 0},
		{Name: "in", Type: inner, Offset: 64},
		{Name: "arr", Type: &btf.Array{Type: u32, Nelems: 2}, Offset: 128},
		{Name: "flags", Type: u32, Offset: 192, BitfieldSize: 3},
		{Name: "p", Type: &btf.Pointer{Target: u64}, Offset: 256},
	}}
	type result struct {
		Scalar bool
		// UntrustedMem is a pointer to something other than a struct.
		UntrustedMem bool
		Msg          string
		Err          bool
	}
	tests := []struct {
		name      string
		off, size int
		want      result
	}{
		{"first member", 0, 8, result{Scalar: true}},
		{"nested member", 12, 4, result{Scalar: true}},
		{"array element", 20, 4, result{Scalar: true}},
		{"bitfield", 24, 4, result{Scalar: true}},
		{"past the member", 4, 8, result{Msg: "access beyond the end of member x (mend:8) in struct outer with off 4 size 8"}},
		{"past the struct", 36, 8, result{Msg: "access beyond struct outer at off 36 size 8"}},
		{"padding", 28, 4, result{Msg: "struct outer doesn't have field at offset 28"}},
		{"narrow pointer read", 32, 4, result{Msg: "cannot access ptr member p with moff 32 in struct outer with off 32 size 4"}},
		{"pointer to a scalar", 32, 8, result{UntrustedMem: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, msg, err := btfStructWalk(outer, tt.off, tt.size)
			ok := err == nil && msg == ""
			got := result{Scalar: ok && res.kind == walkScalar, UntrustedMem: ok && res.kind == walkPtrUntrusted, Msg: msg, Err: err != nil}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("walk mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBTFStructWalkKernelRules(t *testing.T) {
	u8 := &btf.Int{Name: "u8", Size: 1}
	u32 := &btf.Int{Name: "u32", Size: 4}
	u64 := &btf.Int{Name: "u64", Size: 8}
	elem := &btf.Struct{Name: "elem", Size: 8, Members: []btf.Member{
		{Name: "v", Type: u64, Offset: 0},
	}}
	union := &btf.Union{Size: 8, Members: []btf.Member{
		{Name: "w", Type: u32, Offset: 0}, {Name: "d", Type: u64, Offset: 0},
	}}
	s := &btf.Struct{Name: "s", Size: 48, Members: []btf.Member{
		{Name: "bytes", Type: &btf.Array{Type: u8, Nelems: 8}, Offset: 0},
		{Name: "grid", Type: &btf.Array{Type: &btf.Array{Type: u32, Nelems: 2}, Nelems: 2}, Offset: 64},
		{Name: "small", Type: u32, Offset: 192},
		{Name: "u", Type: union, Offset: 256},
		{Name: "tail", Type: &btf.Array{Type: elem, Nelems: 0}, Offset: 320},
	}}
	type result struct {
		Scalar bool
		Msg    string
	}
	tests := []struct {
		name      string
		off, size int
		inUnion   bool
		want      result
	}{
		{"scalar array read spans elements", 2, 4, false, result{Scalar: true}},
		{"scalar array read past the array", 4, 8, false, result{Msg: "access beyond the end of member bytes (mend:8) in struct s with off 4 size 8"}},
		{"two-dimensional array element", 20, 4, false, result{Scalar: true}},
		{"read starts in a hole", 28, 8, false, result{Msg: "struct s doesn't have field at offset 28"}},
		{"read straddles into a member", 30, 4, false, result{Msg: "struct s doesn't have field at offset 30"}},
		{"union of two relaxes the member end", 2, 4, true, result{Scalar: true}},
		{"flexible array of structs", 48, 8, false, result{Scalar: true}},
		{"flexible array element modulo", 60, 8, false, result{Msg: "access beyond struct elem at off 4 size 8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := btf.Type(s)
			if tt.inUnion {
				st = &btf.Struct{Name: "wrap", Size: 8, Members: []btf.Member{{Name: "u", Type: union}}}
			}
			res, msg, err := btfStructWalk(st, tt.off, tt.size)
			if err != nil {
				t.Fatalf("walk: %v", err)
			}
			got := result{Scalar: msg == "" && res.kind == walkScalar, Msg: msg}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("walk mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBTFStructIDsMatch(t *testing.T) {
	u64 := &btf.Int{Name: "u64", Size: 8}
	path := &btf.Struct{Name: "path", Size: 16, Members: []btf.Member{
		{Name: "mnt", Type: &btf.Pointer{Target: u64}, Offset: 0},
		{Name: "dentry", Type: &btf.Pointer{Target: u64}, Offset: 64},
	}}
	pathUnion := &btf.Union{Size: 16, Members: []btf.Member{
		{Name: "f_path", Type: &btf.Const{Type: path}, Offset: 0},
		{Name: "__f_path", Type: path, Offset: 0},
	}}
	file := &btf.Struct{Name: "file", Size: 40, Members: []btf.Member{
		{Name: "f_lock", Type: u64, Offset: 0},
		{Name: "f_op", Type: &btf.Pointer{Target: u64}, Offset: 64},
		{Name: "", Type: pathUnion, Offset: 128},
		{Name: "paths", Type: &btf.Array{Type: path, Nelems: 1}, Offset: 256},
	}}
	wrap := &btf.Struct{Name: "wrap", Size: 40, Members: []btf.Member{{Name: "f", Type: file, Offset: 0}}}
	tests := []struct {
		name   string
		have   btf.Type
		off    int
		strict bool
		want   bool
		reason string
	}{
		{"the struct itself", path, 0, false, true, ""},
		{"through an anonymous union", file, 16, false, true, ""},
		{"an array element", file, 32, false, true, ""},
		{"nested struct at offset 0, then its member", wrap, 16, false, true, ""},
		{"a scalar member", file, 0, false, false, ""},
		{"a pointer member", file, 8, false, false, "cannot access ptr member f_op with moff 8 in struct file with off 8 size 1"},
		{"inside the path, not at its start", file, 24, false, false, "cannot access ptr member dentry with moff 8 in struct path with off 8 size 1"},
		{"strict match does not walk", file, 16, true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason, err := btfStructIDsMatch(tt.have, tt.off, path, tt.strict)
			if err != nil {
				t.Fatalf("match: %v", err)
			}
			if got != tt.want || reason != tt.reason {
				t.Errorf("btfStructIDsMatch(%s, %d) = %v, %q, want %v, %q", tt.have.TypeName(), tt.off, got, reason, tt.want, tt.reason)
			}
		})
	}
}

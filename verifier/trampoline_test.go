package verifier

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
)

// TestTrampolineTargets: what the kernel checks of an fentry, fexit or
// fmod_ret target before any instruction (btf_distill_func_proto, the
// modifiable rule, btf_id_deny, noreturn_deny). From the 6.18 sources:
// the reference machine refuses to load trampoline programs (EPERM), so
// these could not be checked against a live kernel. Targets the running
// kernel's BTF lacks are skipped.
func TestTrampolineTargets(t *testing.T) {
	tests := []struct {
		attach ebpf.AttachType
		target string
		// want is a piece of the rejection message, "" for an accept,
		// "unsupported" for no verdict.
		want string
	}{
		{ebpf.AttachTraceFEntry, "bpf_fentry_test1", ""},
		{ebpf.AttachTraceFExit, "do_unlinkat", ""},
		{ebpf.AttachTraceFEntry, "do_exit", ""},
		{ebpf.AttachTraceFExit, "do_exit", "Attaching fexit/fmod_ret to __noreturn functions is rejected."},
		{ebpf.AttachTraceFEntry, "_printk", "The function _printk with variable args is unsupported."},
		{ebpf.AttachTraceFEntry, "current_time", "The function current_time return type STRUCT is unsupported."},
		{ebpf.AttachTraceFEntry, "rtnl_fill_ifinfo", "arguments. Too many."},
		{ebpf.AttachTraceFEntry, "adjust_scalar_min_max_vals", "The function adjust_scalar_min_max_vals arg3 type STRUCT is unsupported."},
		{ebpf.AttachModifyReturn, "bpf_modify_return_test", ""},
		{ebpf.AttachModifyReturn, "security_file_open", ""},
		{ebpf.AttachTraceFEntry, "__rcu_read_lock", "btf_id_deny"},
		{ebpf.AttachTraceFEntry, "migrate_disable", "unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.attach.String()+" "+tt.target, func(t *testing.T) {
			if btfFuncByName(tt.target) == nil {
				t.Skipf("vmlinux has no function %s", tt.target)
			}
			p := &loader.Program{Name: "p", Type: ebpf.Tracing, AttachType: tt.attach, AttachTo: tt.target, GPLCompatible: true,
				Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}}
			res := Verify(&loader.Object{Path: "test"}, p, Options{})
			got := ""
			if res.Err != nil {
				got = res.Err.Error()
			}
			switch {
			case tt.want == "unsupported":
				if res.Verdict() != "unsupported" {
					t.Errorf("verdict %s (%v), want unsupported", res.Verdict(), res.Err)
				}
			case (tt.want == "") != res.Accepted || !strings.Contains(got, tt.want):
				t.Errorf("verdict %s (%v), want %q", res.Verdict(), res.Err, tt.want)
			}
		})
	}
}

// TestMissingAttachTarget: a trampoline or tp_btf target, or a struct_ops
// type, that neither the kernel's BTF nor a module's has cannot be
// resolved by the loader (libbpf: "failed to find kernel BTF type ID",
// "struct ... is not found in kernel BTF", ESRCH), so the program is never
// loaded: a rejection saying so, not "unsupported" (sched_ext_ops on a
// kernel built without sched_ext).
func TestMissingAttachTarget(t *testing.T) {
	if _, err := vmlinux(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	tests := []struct {
		typ    ebpf.ProgramType
		attach ebpf.AttachType
		target string
		want   string
	}{
		{ebpf.StructOps, ebpf.AttachNone, "vercheck_no_such_ops:init", `attach target struct_ops type "vercheck_no_such_ops" is in neither`},
		{ebpf.Tracing, ebpf.AttachTraceFEntry, "vercheck_no_such_function", `attach target function "vercheck_no_such_function" is in neither`},
		{ebpf.Tracing, ebpf.AttachTraceFExit, "vercheck_no_such_function", `attach target function "vercheck_no_such_function" is in neither`},
		{ebpf.Tracing, ebpf.AttachModifyReturn, "vercheck_no_such_function", `attach target function "vercheck_no_such_function" is in neither`},
		{ebpf.Tracing, ebpf.AttachTraceRawTp, "vercheck_no_such_tp", `attach target raw tracepoint "btf_trace_vercheck_no_such_tp" is in neither`},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String()+"/"+tt.attach.String(), func(t *testing.T) {
			p := &loader.Program{Name: "p", Type: tt.typ, AttachType: tt.attach, AttachTo: tt.target, GPLCompatible: true,
				Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}}
			res := Verify(&loader.Object{Path: "test"}, p, Options{})
			var re *RejectError
			if !errors.As(res.Err, &re) || res.Verdict() != "rejected" {
				t.Fatalf("verdict %s (%v), want rejected", res.Verdict(), res.Err)
			}
			if !strings.Contains(re.Msg, tt.want) || re.errno != syscall.ESRCH {
				t.Errorf("rejected with %q (errno %v), want %q and ESRCH", re.Msg, re.errno, tt.want)
			}
		})
	}
}

// TestKernelSymbolMissing: a strong kfunc or typeless ksym the running
// kernel has nowhere (not in its BTF, no module's, not in kallsyms: the
// corpus's bpf_testmod kfuncs where the module is not loaded) makes the
// loader give up, as libbpf does (ESRCH): a rejection that says so.
func TestKernelSymbolMissing(t *testing.T) {
	tests := []struct{ file, prog, want string }{
		{"cilium-ebpf-testdata/invalid-kfunc-el.elf", "call_kfunc", `kfunc "bpf_kfunc_call_test_mem_len_pass1": no such kernel symbol`},
		{"cilium-ebpf-testdata/kfunc-kmod-el.elf", "call_kfunc", `kfunc "bpf_testmod_test_mod_kfunc": no such kernel symbol`},
		{"cilium-ebpf-testdata/ksym-el.elf", "missing_ksym_test", `extern 'missing_ksym' (strong): no such kernel symbol`},
		{"cilium-ebpf-testdata/ksym-el.elf", "missing_typed_ksym_test", `extern (var ksym) 'missing_typed_ksym': not in the kernel's BTF or a module's: no such kernel symbol`},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.prog, func(t *testing.T) {
			obj, err := loader.Open(filepath.Join("../../shared/corpus", tt.file), loader.Options{})
			if err != nil {
				t.Skipf("corpus object: %v", err)
			}
			p := obj.Program(tt.prog)
			if p == nil {
				t.Fatalf("no program %s", tt.prog)
			}
			if p.Err == nil {
				t.Skipf("the running kernel resolves %s's externs", tt.prog)
			}
			res := Verify(obj, p, Options{})
			var re *RejectError
			if !errors.As(res.Err, &re) || res.Verdict() != "rejected" {
				t.Fatalf("verdict %s (%v), want rejected", res.Verdict(), res.Err)
			}
			if !strings.Contains(re.Msg, tt.want) || re.errno != syscall.ESRCH {
				t.Errorf("rejected with %q (errno %v), want %q and ESRCH", re.Msg, re.errno, tt.want)
			}
		})
	}
}

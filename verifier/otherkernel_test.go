package verifier_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// schedExtBTFEnv names a kernel BTF built with sched_ext (raw BTF or a
// vmlinux), such as the .BTF section of a distribution kernel's vmlinux;
// the running kernel (6.18.44 here) has no sched_ext, and CI has no such
// file, so the test is skipped without it.
const schedExtBTFEnv = "VERCHECK_SCHED_EXT_BTF"

// ownProcessEnv marks the process a test re-runs itself in: the verifier
// keeps one kernel BTF per process (loader.UseKernelBTF), which the
// package's other tests have already taken for the running kernel's.
const ownProcessEnv = "VERCHECK_TEST_OWN_PROCESS"

// inOwnProcess re-runs test name alone in a process of its own and
// reports false, or, in that process, reports true: the caller then sets
// the process's kernel BTF and checks.
func inOwnProcess(t *testing.T, name string) bool {
	t.Helper()
	if os.Getenv(ownProcessEnv) == name {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), ownProcessEnv+"="+name)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s in its own process: %v\n%s", name, err, out)
	}
	return false
}

// TestSchedExtOps verifies the sched_ext_ops programs of
// testdata/schedext/sx_ops.o against a kernel BTF with sched_ext. The
// expectations follow the 6.18 sources (kernel/sched/ext.c): trusted task
// arguments passed to KF_RCU kfuncs, dispatch's prev__nullable, stores
// into the task's scx.slice, dsq_vtime and disallow only (a refused store
// logs no message), the sleepable members of bpf_scx_check_member, a
// KF_SLEEPABLE kfunc, and the kfunc sets' program types.
func TestSchedExtOps(t *testing.T) {
	path := os.Getenv(schedExtBTFEnv)
	if path == "" {
		t.Skipf("%s names no kernel BTF with sched_ext", schedExtBTFEnv)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s: %v", schedExtBTFEnv, err)
	}
	if !inOwnProcess(t, "TestSchedExtOps") {
		return
	}
	if err := loader.UseKernelBTF(path); err != nil {
		t.Fatal(err)
	}
	obj, err := loader.Open("testdata/schedext/sx_ops.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const unmessaged = "rejected without a message"
	want := map[string]string{
		"sx_select_cpu":         "",
		"sx_enqueue":            "",
		"sx_dispatch_checked":   "",
		"sx_dispatch_unchecked": "R1 invalid mem access 'trusted_ptr_or_null_'",
		"sx_running":            "",
		"sx_stopping":           unmessaged,
		"sx_init":               "",
		"sx_exit_task":          "program must be sleepable to call sleepable kfunc scx_bpf_create_dsq",
		"sx_tick":               "attach to unsupported member tick of struct sched_ext_ops",
		"sx_tc_kick":            "calling kernel function scx_bpf_kick_cpu is not allowed",
	}
	got := map[string]string{}
	for _, p := range obj.Programs {
		res := verifier.Verify(obj, p, verifier.Options{})
		msg := errMsg(res)
		if msg == "" && !res.Accepted {
			msg = unmessaged
		}
		got[p.Name] = msg
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sched_ext verdicts (-want +got):\n%s", diff)
	}
}

// Module kfuncs: moduleKernelBTFEnv names a kernel BTF built with
// CONFIG_NF_CONNTRACK=m (raw BTF or a vmlinux) and moduleBTFEnv its
// nf_conntrack module (the .ko or its raw .BTF), such as a distribution
// kernel's; the test is skipped without them.
const (
	moduleKernelBTFEnv = "VERCHECK_MODULE_KERNEL_BTF"
	moduleBTFEnv       = "VERCHECK_MODULE_BTF"
)

// TestModuleKfuncs verifies ../testdata/progs/p8_ct_module.o, whose
// connection-tracking kfuncs such a kernel has in its nf_conntrack
// module's BTF: the loader finds them there (the call's insn.Off is the
// module's fd_array index) and the verifier checks them with the module's
// prototypes. The expectations are the running kernel's, which has the
// same kfuncs built in (the programs' own expectation comments), with the
// same insn_processed.
func TestModuleKfuncs(t *testing.T) {
	kernel, module := os.Getenv(moduleKernelBTFEnv), os.Getenv(moduleBTFEnv)
	if kernel == "" || module == "" {
		t.Skipf("%s and %s name no kernel and module BTF", moduleKernelBTFEnv, moduleBTFEnv)
	}
	if !inOwnProcess(t, "TestModuleKfuncs") {
		return
	}
	if err := loader.UseKernelBTF(kernel); err != nil {
		t.Fatal(err)
	}
	if err := loader.UseModuleBTF([]string{module}); err != nil {
		t.Fatal(err)
	}
	obj, err := loader.Open("../testdata/progs/p8_ct_module.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		Msg   string
		Insns int
	}
	want := map[string]outcome{
		"p8_ct_lookup_release": {"", 25},
		"p8_ct_leak":           {"Unreleased reference id=2 alloc_insn=18\nBPF_EXIT instruction in main prog would lead to reference leak", 24},
		"p8_ct_unchecked":      {"R0 invalid mem access 'ptr_or_null_'", 19},
	}
	got := map[string]outcome{}
	for _, p := range obj.Programs {
		res := verifier.Verify(obj, p, verifier.Options{})
		got[p.Name] = outcome{errMsg(res), res.Stats.InsnProcessed}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("module kfunc verdicts (-want +got):\n%s", diff)
	}
}

// TestMissingAttachTargetOtherKernel: checked against another kernel's
// BTF whose modules were not named (here a copy of the running kernel's),
// a trampoline target the kernel's BTF lacks may be a module's: no
// verdict, where the running kernel's complete set of modules makes it a
// rejection (TestMissingAttachTarget).
func TestMissingAttachTargetOtherKernel(t *testing.T) {
	raw, err := os.ReadFile("/sys/kernel/btf/vmlinux")
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	if !inOwnProcess(t, "TestMissingAttachTargetOtherKernel") {
		return
	}
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := loader.UseKernelBTF(path); err != nil {
		t.Fatal(err)
	}
	if loader.ModuleBTFsComplete() {
		t.Fatalf("modules of a kernel BTF given by path, none named, reported complete")
	}
	p := &loader.Program{Name: "p", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceFEntry, AttachTo: "vercheck_no_such_function",
		GPLCompatible: true, Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}}
	res := verifier.Verify(&loader.Object{Path: "test"}, p, verifier.Options{})
	if res.Verdict() != "unsupported" {
		t.Errorf("verdict %s (%v), want unsupported", res.Verdict(), res.Err)
	}
}

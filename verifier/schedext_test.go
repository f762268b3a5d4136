package verifier_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// schedExtBTFEnv names a kernel BTF built with sched_ext (raw BTF or a
// vmlinux), such as the .BTF section of a distribution kernel's vmlinux;
// the running kernel (6.18.44 here) has no sched_ext, and CI has no such
// file, so the test is skipped without it.
const schedExtBTFEnv = "VERCHECK_SCHED_EXT_BTF"

// schedExtChildEnv marks the process the test re-runs itself in: the
// verifier keeps one kernel BTF per process (loader.UseKernelBTF), which
// the package's other tests have already taken for the running kernel's.
const schedExtChildEnv = "VERCHECK_SCHED_EXT_CHILD"

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
	if os.Getenv(schedExtChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSchedExtOps$", "-test.v")
		cmd.Env = append(os.Environ(), schedExtChildEnv+"=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: TestSchedExtOps") {
			t.Fatalf("child test: %v\n%s", err, out)
		}
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

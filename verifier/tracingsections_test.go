package verifier

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestTracingAttachTargets checks testdata/tracing/tr_sections.o: tracing
// sections whose attach types the 6.18 kernel lacks get the loader's
// typing (libbpf 1.8's for the multi-function sections) and the kernel's
// refusal, where vercheck had guessed the multi sections socket filters
// and accepted them, and called fsession unsupported; programs that name
// no attach target, or one no BTF has, are the loader's refusal with
// libbpf's errno, where LSM, iterator and struct_ops programs were
// unsupported.
func TestTracingAttachTargets(t *testing.T) {
	obj, err := loader.Open("testdata/tracing/tr_sections.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type verdict struct {
		Attach, Msg, Errno string
		Sleepable          bool
	}
	got := map[string]verdict{}
	for _, p := range obj.Programs {
		r := Verify(obj, p, Options{})
		re, ok := r.Err.(*RejectError)
		if !ok || re.kind != nil {
			t.Fatalf("%s: %s (%v), want a rejection", p.Name, r.Verdict(), r.Err)
		}
		got[p.Name] = verdict{attachTypeString(p.AttachType), re.Msg, r.Errno().Error(), p.Flags&loader.FlagSleepable != 0}
	}
	const btfID = "Tracing programs must provide btf_id"
	bare := "the program names no attach target: the loader refuses it and never loads it (libbpf: no BTF-based attach target is specified, use bpf_program__set_attach_target())"
	noBTF := func(kind, name string) string {
		return fmt.Sprintf(`attach target %s %q is in neither the kernel's BTF nor a module's: the loader cannot resolve it (failed to find kernel BTF type ID) and the program is never loaded`, kind, name)
	}
	want := map[string]verdict{
		"tr_fentry_bare":             {"TraceFEntry", bare, "invalid argument", false},
		"tr_lsm_bare":                {"LSMMac", bare, "invalid argument", false},
		"tr_struct_ops_unreferenced": {"no attach type (0)", `the program names no attach target: the loader refuses it and never loads it (libbpf: SEC("struct_ops") program isn't referenced anywhere, did you forget to use it?)`, "invalid argument", false},
		"tr_lsm_missing":             {"LSMMac", noBTF("LSM hook", "bpf_lsm_vercheck_no_such_hook"), "no such process", false},
		"tr_iter_missing":            {"TraceIter", noBTF("iterator", "bpf_iter_vercheck_no_such_iter"), "no such process", false},
		"tr_fsession":                {"BPF_TRACE_FSESSION (58)", "", "invalid argument", false},
		"tr_fsession_missing":        {"BPF_TRACE_FSESSION (58)", noBTF("function", "vercheck_no_such_function"), "no such process", false},
		"tr_fentry_multi":            {"BPF_TRACE_FENTRY_MULTI (59)", btfID, "invalid argument", false},
		"tr_fexit_multi":             {"BPF_TRACE_FEXIT_MULTI (60)", btfID, "invalid argument", false},
		"tr_fsession_multi":          {"BPF_TRACE_FSESSION_MULTI (61)", btfID, "invalid argument", false},
		"tr_fentry_multi_sleepable":  {"BPF_TRACE_FENTRY_MULTI (59)", "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable", "invalid argument", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

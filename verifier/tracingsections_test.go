package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestTracingAttachTypesOf618 checks testdata/tracing/tr_sections.o:
// tracing sections whose attach types the 6.18 kernel lacks get the
// loader's typing (libbpf 1.8's for the multi-function sections) and the
// kernel's refusal, where vercheck had guessed the multi sections socket
// filters and accepted them, and called fsession unsupported.
func TestTracingAttachTypesOf618(t *testing.T) {
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
	missing := `attach target function "vercheck_no_such_function" is in neither the kernel's BTF nor a module's: the loader cannot resolve it (failed to find kernel BTF type ID) and the program is never loaded`
	want := map[string]verdict{
		"tr_fsession":               {"BPF_TRACE_FSESSION (58)", "", "invalid argument", false},
		"tr_fsession_missing":       {"BPF_TRACE_FSESSION (58)", missing, "no such process", false},
		"tr_fentry_multi":           {"BPF_TRACE_FENTRY_MULTI (59)", btfID, "invalid argument", false},
		"tr_fexit_multi":            {"BPF_TRACE_FEXIT_MULTI (60)", btfID, "invalid argument", false},
		"tr_fsession_multi":         {"BPF_TRACE_FSESSION_MULTI (61)", btfID, "invalid argument", false},
		"tr_fentry_multi_sleepable": {"BPF_TRACE_FENTRY_MULTI (59)", "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable", "invalid argument", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

package verifier

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestKconfigLayout: an access to the .kconfig map beyond one extern
// variable reads bytes whose meaning is the loader's (cilium/ebpf keeps
// the declaration order, libbpf sorts the externs and packs the value), so
// it is unsupported; accesses within one extern, direct, at a variable
// offset or through a helper, are verified, and an access past the value
// is the kernel's rejection under the loader's layout.
func TestKconfigLayout(t *testing.T) {
	obj, err := loader.Open("../testdata/progs/s37_kconfig_layout.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"s37_kconfig_each_own_type":          "accepted",
		"s37_kconfig_var_in_string":          "accepted",
		"s37_kconfig_helper_reads_int":       "accepted",
		"s37_kconfig_word_at_bool":           "unsupported",
		"s37_kconfig_var_past_string":        "unsupported",
		"s37_kconfig_helper_reads_past_bool": "unsupported",
		"s37_kconfig_past_value":             "rejected",
	}
	got := map[string]string{}
	for _, p := range obj.Programs {
		res := Verify(obj, p, Options{})
		got[p.Name] = res.Verdict()
		if res.Verdict() == "unsupported" {
			if !errors.Is(res.Err, ErrUnsupported) || !strings.Contains(res.Err.Error(), "is not within one extern variable") {
				t.Errorf("%s: %v, want the extern layout's refusal", p.Name, res.Err)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestKconfigRefused: an object with a strong __kconfig variable that the
// kernel's configuration does not set is refused by libbpf as a whole
// (ESRCH), so every program is rejected, not only the one that reads it.
func TestKconfigRefused(t *testing.T) {
	if _, err := loader.KernelConfig(""); err != nil {
		t.Skipf("the running kernel's configuration is unknown: %v", err)
	}
	got := map[string]string{}
	for name, re := range loaderRejections(t, "../testdata/progs/s37_kconfig_refused.o") {
		got[name] = fmt.Sprintf("%s %v", re.Msg, re.errno)
	}
	const msg = "extern 'CONFIG_VERCHECK_NOT_A_KERNEL_OPTION' (strong): not resolved: the loader refuses the object, as libbpf does, and never loads the program no such process"
	want := map[string]string{"s37_kconfig_strong_missing": msg, "s37_kconfig_unread": msg}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rejections (-want +got):\n%s", diff)
	}
}

// loaderRejections verifies every program of the object at path and
// returns each one's rejection, failing t for a program that is not
// rejected or is unsupported: the refusals of a loader.
func loaderRejections(t *testing.T, path string) map[string]*RejectError {
	t.Helper()
	obj, err := loader.Open(path, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]*RejectError{}
	for _, p := range obj.Programs {
		r := Verify(obj, p, Options{})
		var re *RejectError
		if !errors.As(r.Err, &re) || re.kind != nil {
			t.Fatalf("%s: %s (%v), want a rejection", p.Name, r.Verdict(), r.Err)
		}
		res[p.Name] = re
	}
	return res
}

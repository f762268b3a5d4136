package verifier_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// TestExtension verifies the freplace programs of testdata/freplace/fr_ext.o
// against the functions of fr_target.o. This kernel build refuses
// Extension loads (EPERM), so the expectations follow the 6.18 sources:
// btf_check_func_type_match's messages, the extension verified as the
// target's program type (its context, its helpers, its main exit range),
// and static targets refused.
func TestExtension(t *testing.T) {
	obj, err := loader.Open("testdata/freplace/fr_ext.o", loader.Options{ExtensionTarget: "testdata/freplace/fr_target.o"})
	if err != nil {
		t.Fatal(err)
	}
	const unsupported = "unsupported"
	want := map[string]string{
		"fr_new_len":         "",
		"fr_new_len_helper":  "",
		"fr_new_len_short":   "fr_new_len_short() has 1 args while fr_len() has 2 args",
		"fr_new_len_long":    "arg1 in fr_new_len_long() has size 8 while fr_len() has 4",
		"fr_new_len_ctx":     "arg0 fr_new_len_ctx(struct xdp_md *) doesn't match fr_len(struct __sk_buff *)",
		"fr_new_static":      "fr_static() is not a global function",
		"fr_new_static_mem":  "Cannot replace static functions",
		"fr_new_verdict":     "",
		"fr_new_verdict_bad": "At program exit the register R0 has smin=7 smax=7 should have been in [0, 1]",
		"fr_new_main":        "",
	}
	got := map[string]string{}
	for _, p := range obj.Programs {
		res := verifier.Verify(obj, p, verifier.Options{})
		msg := errMsg(res)
		if strings.HasPrefix(msg, unsupported) {
			msg = unsupported
		}
		got[p.Name] = msg
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("freplace verdicts (-want +got):\n%s", diff)
	}

	// Without a target, an extension is unsupported, never accepted.
	bare, err := loader.Open("testdata/freplace/fr_ext.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res := verifier.Verify(bare, bare.Programs[0], verifier.Options{}); !strings.HasPrefix(errMsg(res), unsupported) {
		t.Errorf("%s without a target: %q, want unsupported", bare.Programs[0].Name, errMsg(res))
	}
}

package loader

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExceptionCallbacks appends each program's exception callback as
// libbpf does: after the program's own functions, once, and not when the
// program already calls it.
func TestExceptionCallbacks(t *testing.T) {
	obj, err := Open("../testdata/progs/p7_exception_cb.o", Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	funcs := linkedFuncs(obj)
	want := map[string][]string{
		"p7_exc_cb_ok":       {"p7_exc_cb_ok", "p7_cb_cookie"},
		"p7_exc_cb_bad_ret":  {"p7_exc_cb_bad_ret", "p7_cb_two"},
		"p7_exc_cb_two_args": {"p7_exc_cb_two_args", "p7_cb_args"},
		"p7_exc_cb_called":   {"p7_exc_cb_called", "p7_cb_called"},
		"p7_exc_cb_throws":   {"p7_exc_cb_throws", "p7_cb_throws"},
	}
	if diff := cmp.Diff(want, funcs); diff != "" {
		t.Errorf("functions linked into each program (-want +got):\n%s", diff)
	}
}

// linkedFuncs names the functions linked into each program of obj, in
// order.
func linkedFuncs(obj *Object) map[string][]string {
	funcs := map[string][]string{}
	for _, p := range obj.Programs {
		for _, f := range p.Funcs {
			funcs[p.Name] = append(funcs[p.Name], f.Name)
		}
	}
	return funcs
}

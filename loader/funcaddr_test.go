package loader

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFuncAddressTargets: a function whose address a program takes is the
// one libbpf links, global (relocated against its own symbol) or static
// (against the section), whatever function comes first in .text.
func TestFuncAddressTargets(t *testing.T) {
	obj, err := Open("../testdata/progs/s35_global_func_addr.o", Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	funcs := linkedFuncs(obj)
	want := map[string][]string{
		"s35_global_cb_addr": {"s35_global_cb_addr", "s35_global_cb"},
		"s35_static_cb_addr": {"s35_static_cb_addr", "s35_static_cb"},
	}
	if diff := cmp.Diff(want, funcs); diff != "" {
		t.Errorf("functions linked into each program (-want +got):\n%s", diff)
	}
}

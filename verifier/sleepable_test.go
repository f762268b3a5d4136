package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestSyscallStubInjectable: without the error-injection list, a system
// call stub's place in it follows from CONFIG_FUNCTION_ERROR_INJECTION;
// any other function stays unknown.
func TestSyscallStubInjectable(t *testing.T) {
	if typ, err := loader.KernelSymbolType("__x64_sys_openat"); err != nil || typ != 'T' {
		t.Skip("kallsyms does not list __x64_sys_openat as text (not an x86-64 kernel, or unreadable)")
	}
	v, _, err := loader.KernelConfigValue("CONFIG_FUNCTION_ERROR_INJECTION")
	if err != nil {
		t.Skipf("kernel config: %v", err)
	}
	type answer struct{ Known, Injectable bool }
	tests := []struct {
		fn   string
		want answer
	}{
		{"__x64_sys_openat", answer{true, v == "y"}},
		{"do_sys_openat2", answer{false, false}},
		{"__x64_sys_no_such_syscall", answer{false, false}},
	}
	for _, tt := range tests {
		known, injectable := syscallStubInjectable(tt.fn)
		if diff := cmp.Diff(tt.want, answer{known, injectable}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.fn, diff)
		}
	}
}

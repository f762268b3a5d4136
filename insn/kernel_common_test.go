package insn

import (
	"os"
	"testing"
)

// requireKernel skips a test that compares with the running kernel unless
// VERCHECK_KERNEL=1 (it needs root and Linux 6.18).
func requireKernel(t *testing.T) {
	t.Helper()
	if os.Getenv("VERCHECK_KERNEL") != "1" {
		t.Skip("set VERCHECK_KERNEL=1 to compare with the running kernel (needs root)")
	}
}

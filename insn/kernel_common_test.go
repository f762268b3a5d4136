package insn

import (
	"sync"
	"testing"
)

// The kernel oracle is asked once per test binary whether it can be used.
var (
	kernelOnce   sync.Once
	kernelReason string
)

// requireKernel skips a test that compares with the running kernel where
// programs cannot be loaded (not Linux, no privileges, bpf() disabled):
// it loads the smallest valid program once and skips with the reason when
// the kernel refuses it.
func requireKernel(t *testing.T) {
	t.Helper()
	kernelOnce.Do(func() {
		kernelReason = kernelUnavailable()
	})
	if kernelReason != "" {
		t.Skipf("kernel verifier not usable here: %s", kernelReason)
	}
}

package stablefix

import "testing"

// TestProbeBTFHeldOnlyWhileProbing checks that the probes share one parse
// of the kernel's BTF while Probe holds it, and that nothing keeps it
// afterwards (the collector would mark it for the rest of the process).
func TestProbeBTFHeldOnlyWhileProbing(t *testing.T) {
	release := holdProbeBTF()
	first, err := kernelSpec()
	if err != nil {
		release()
		t.Skipf("no kernel BTF: %v", err)
	}
	second, _ := kernelSpec()
	release()
	if first != second {
		t.Error("two probes parsed the kernel's BTF twice while it was held")
	}
	if probeBTF.spec != nil {
		t.Error("the kernel's BTF is still held after the release")
	}
	if third, _ := kernelSpec(); third == first || probeBTF.spec != nil {
		t.Error("a parse outside Probe was shared or kept")
	}
}

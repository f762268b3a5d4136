//go:build !linux

package insn

import "testing"

func kernelVerdict(t *testing.T, _ []byte) string {
	t.Skip("the kernel oracle needs Linux")
	return ""
}

func kernelLog(t *testing.T, _ []byte) string {
	t.Skip("the kernel oracle needs Linux")
	return ""
}

func kernelUnavailable() string { return "the kernel oracle needs Linux" }

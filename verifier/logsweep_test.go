package verifier

import (
	"errors"
	"os"
	"testing"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/logdiff"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// logSweep runs the programs of a sweep through the running kernel and
// vercheck at log level 2 and reports where the two logs part
// (internal/logdiff): a register or slot printed with different values,
// another instruction walked, another message. It counts what it
// compared for the sweep's closing line.
type logSweep struct {
	t       *testing.T
	missing stablefix.Set
	// compared counts the programs the kernel gave a log for, accepted
	// those vercheck accepted, differ those whose logs part.
	compared, accepted, differ int
}

// newLogSweep skips the test where bpf() or the kernel BTF is missing.
func newLogSweep(t *testing.T) *logSweep {
	_, missing := liveKernelBTF(t)
	return &logSweep{t: t, missing: missing}
}

// check compares the logs of one program; what names it in a report.
// A load refused for lack of permission (EPERM: a program type this
// kernel build does not load) skips the test.
func (s *logSweep) check(obj *loader.Object, prog *loader.Program, what func() string) {
	s.t.Helper()
	klog, err := kernel.ProgramLog(obj, prog, 2)
	if err != nil || klog == "" {
		if errors.Is(err, os.ErrPermission) {
			s.t.Skipf("the kernel refuses %v programs: %v", prog.Type, err)
		}
		return
	}
	s.compared++
	res := Verify(obj, prog, Options{LogLevel: 2, MissingFixes: s.missing})
	if res.Accepted {
		s.accepted++
	}
	if d := logdiff.Compare(res.Log, klog); d != nil {
		s.differ++
		s.t.Errorf("%s: %s", what(), d)
	}
}

// done logs the figures, or skips when the kernel gave no log at all.
func (s *logSweep) done() {
	s.t.Helper()
	if s.compared == 0 {
		s.t.Skip("the kernel gave no log for any program")
	}
	s.t.Logf("%d programs compared (%d accepted by vercheck), %d logs differ", s.compared, s.accepted, s.differ)
}

// sweepEvery is 1 when the environment variable name is set (take every
// program of the sweep), else the sampling stride n.
func sweepEvery(name string, n int) int {
	if os.Getenv(name) != "" {
		return 1
	}
	return n
}

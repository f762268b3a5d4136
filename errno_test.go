package vercheck

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// TestErrnoLikeKernel: for every program of testdata/progs both vercheck
// and the running kernel reject, Result.Errno is the errno the kernel
// returned.
func TestErrnoLikeKernel(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
	missing, err := stablefix.Probe()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := filepath.Glob("testdata/progs/*.o")
	if err != nil || len(objs) == 0 {
		t.Fatalf("no objects: %v", err)
	}
	compared := 0
	for _, path := range objs {
		obj, err := loader.Open(path, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range obj.Programs {
			res := verifier.Verify(obj, p, verifier.Options{MissingFixes: missing})
			if res.Accepted || res.Verdict() != "rejected" {
				continue
			}
			k := kernel.LoadProgramVerdict(obj, p)
			if k.Accepted || k.NotLoaded {
				continue
			}
			compared++
			if got := res.Errno(); got != k.Errno {
				t.Errorf("%s: %s: errno %s, kernel %s (%s)", filepath.Base(path), p.Name, errnoName(got), errnoName(k.Errno), k.Err)
			}
		}
	}
	if compared < 100 {
		t.Errorf("only %d rejections compared", compared)
	}
}

func errnoName(e interface{ Error() string }) string { return fmt.Sprintf("%v", e) }

// TestProgramErrorErrno: errors.Is finds the kernel's errno through the
// error VerifyFile returns.
func TestProgramErrorErrno(t *testing.T) {
	_, err := VerifyFile("testdata/progs/map_lookup_unchecked.o", nil)
	if !errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EINVAL) {
		t.Errorf("errors.Is(%v, EACCES) = false or EINVAL matched", err)
	}
}

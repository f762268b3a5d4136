package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunPprofProfiles: --cpuprofile and --memprofile write gzipped pprof
// protobufs; an unwritable path is a usage error naming the flag.
func TestRunPprofProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-q", "--cpuprofile", cpu, "--memprofile", mem, "../../testdata/progs/bounded_loop.o"}, &stdout, &stderr); code != exitAccepted {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	for _, path := range []string{cpu, mem} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: not gzipped: %v", path, err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %d bytes of profile, %v", path, len(b), err)
		}
	}

	for _, flag := range []string{"--cpuprofile", "--memprofile"} {
		stderr.Reset()
		bad := filepath.Join(dir, "missing", "p.pprof")
		if code := run([]string{"-q", flag, bad, "../../testdata/progs/bounded_loop.o"}, &stdout, &stderr); code != exitUsage {
			t.Errorf("%s to %s: exit %d, want %d", flag, bad, code, exitUsage)
		}
		if !strings.Contains(stderr.String(), flag) {
			t.Errorf("%s: the error does not name the flag:\n%s", flag, stderr.String())
		}
	}
}

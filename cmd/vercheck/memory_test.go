package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runMainEnv makes the test binary run the command itself (TestMain), so
// that a benchmark can measure whole runs in processes of their own.
const runMainEnv = "VERCHECK_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// peakRSS runs the command with args in a process of its own and returns
// its peak resident set, in kilobytes.
func peakRSS(tb testing.TB, args ...string) int64 {
	tb.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	// Rejections make the exit status 1; only the memory matters here.
	_ = cmd.Run()
	if cmd.ProcessState == nil {
		tb.Fatalf("vercheck %s did not run", strings.Join(args, " "))
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		tb.Skip("no rusage on this platform")
	}
	return ru.Maxrss
}

// BenchmarkDirectoryRSS runs vercheck over a directory of objects
// ($VERCHECK_RSS_DIR, the shared corpus by default) and over each of its
// objects alone, one process each, and reports the directory run's peak
// RSS over that of the largest single object (issue 13: at most 1.2,
// whatever the number of objects).
func BenchmarkDirectoryRSS(b *testing.B) {
	dir := os.Getenv("VERCHECK_RSS_DIR")
	if dir == "" {
		dir = "../../../shared/corpus"
	}
	var objs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".o") || strings.HasSuffix(path, ".elf")) {
			objs = append(objs, path)
		}
		return err
	})
	if err != nil || len(objs) == 0 {
		b.Skipf("no objects under %s: %v", dir, err)
	}
	for b.Loop() {
		var largest int64
		var largestObj string
		for _, o := range objs {
			if rss := peakRSS(b, "-j", "1", "-q", o); rss > largest {
				largest, largestObj = rss, o
			}
		}
		all := peakRSS(b, "-j", "1", "-q", dir)
		b.ReportMetric(float64(all)/1024, "dir_MB")
		b.ReportMetric(float64(largest)/1024, "largest_object_MB")
		b.ReportMetric(float64(all)/float64(largest), "rss_ratio")
		b.Logf("%d objects; largest alone: %s", len(objs), largestObj)
	}
}

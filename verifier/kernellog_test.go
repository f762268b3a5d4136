package verifier_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/logdiff"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// updateKernelLogs rewrites the list of programs whose logs are identical
// to the kernel's.
var updateKernelLogs = flag.Bool("update-kernel-logs", false, "rewrite testdata/kernel-log-identical.txt from the running kernel")

// identicalLogsFile lists "object program level" for every program of
// testdata/progs whose vercheck log is, after normaliseLog, the running
// kernel's log of the same level.
const identicalLogsFile = "testdata/kernel-log-identical.txt"

// maxLogInsns bounds the programs compared: level-2 logs of long searches
// are large and slow to produce on both sides.
const maxLogInsns = 20000

// Patterns of normaliseLog.
var (
	// verificationTime is the stats line that differs between any two
	// loads; it follows a message printed without a newline on its line.
	verificationTime = regexp.MustCompile(`(?m)verification time \d+ usec$`)
	// mapAddress is an ld_imm64 of a map or map value: the kernel prints
	// the object's address (allow_ptr_leaks), vercheck its map index.
	mapAddress = regexp.MustCompile(`0x[0-9a-f]{16}|map\[id:\d+\](\[0\]\+\d+)?`)
	// commentGap is the blank before a state comment, which depends on the
	// length of the instruction text.
	commentGap = regexp.MustCompile(` +;`)
	// trailingBlanks end some kernel lines ("subseq_idx -1 "); cilium/ebpf
	// trims them from the log of a rejected program only.
	trailingBlanks = regexp.MustCompile(`(?m)[ \t]+$`)
)

// normaliseLog makes a vercheck log and a kernel log of the same search
// comparable: the verification time goes, map addresses and map indexes
// become MAP (and the blank before the state comment of such a line one
// space, as the two differ in length), lines lose trailing blanks, and the
// log ends with one newline.
func normaliseLog(log string) string {
	log = verificationTime.ReplaceAllString(log, "verification time N usec")
	log = trailingBlanks.ReplaceAllString(log, "")
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	for i, l := range lines {
		if mapAddress.MatchString(l) {
			lines[i] = commentGap.ReplaceAllString(mapAddress.ReplaceAllString(l, "MAP"), " ;")
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// firstDifference describes the first line where vercheck's log (got)
// and the kernel's (want) differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: vercheck %q, kernel %q", i+1, gl, wl)
		}
	}
	return "no line differs"
}

// logKey names one compared log.
func logKey(object, program string, level int) string {
	return fmt.Sprintf("%s %s %d", object, program, level)
}

// TestLogsMatchKernel compares, for every program of testdata/progs with
// fewer than maxLogInsns processed instructions, vercheck's level 1 and 2
// logs with the running kernel's (internal/kernel.ProgramLog, same level
// with the stats trailer). The programs listed in identicalLogsFile must
// stay identical, and no level-2 log may print a register or stack slot
// with a value the kernel's prints differently (package logdiff); the
// counts are logged. It needs bpf(BPF_PROG_LOAD).
func TestLogsMatchKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every program into the kernel twice")
	}
	missing, err := stablefix.Probe()
	if err != nil {
		t.Skipf("no bpf(): %v", err)
	}
	want := map[string]bool{}
	if b, err := os.ReadFile(identicalLogsFile); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			want[l] = true
		}
	}
	paths, err := filepath.Glob("../testdata/progs/*.o")
	if err != nil {
		t.Fatal(err)
	}
	var identical []string
	compared := [3]int{}
	same := [3]int{}
	for _, path := range paths {
		obj, err := loader.Open(path, loader.Options{})
		if err != nil {
			t.Fatal(err)
		}
		object := filepath.Base(path)
		for _, prog := range obj.Programs {
			if prog.Err != nil {
				continue
			}
			for level := 1; level <= 2; level++ {
				res := verifier.Verify(obj, prog, verifier.Options{LogLevel: level, MissingFixes: missing})
				if res.Stats.InsnProcessed >= maxLogInsns {
					break
				}
				klog, err := kernel.ProgramLog(obj, prog, level)
				if err != nil || klog == "" {
					break
				}
				compared[level]++
				if d := logdiff.Compare(res.Log, klog); level == 2 && d != nil && d.Kind == logdiff.State {
					// Where the searches agree, every register and
					// slot both logs print must hold the same value.
					t.Errorf("%s %s: the logs' states part %s", object, prog.Name, d)
				}
				key := logKey(object, prog.Name, level)
				if normaliseLog(res.Log) == normaliseLog(klog) {
					same[level]++
					identical = append(identical, key)
					continue
				}
				if want[key] {
					t.Errorf("%s: log no longer the kernel's (%s); diff it with vercheck --kernel -v%s --log-dir", key, firstDifference(normaliseLog(res.Log), normaliseLog(klog)), strings.Repeat("v", level-1))
				}
			}
		}
	}
	for level := 1; level <= 2; level++ {
		t.Logf("level %d: %d of %d logs identical to the kernel's", level, same[level], compared[level])
	}
	if *updateKernelLogs {
		slices.Sort(identical)
		if err := os.WriteFile(identicalLogsFile, []byte(strings.Join(identical, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

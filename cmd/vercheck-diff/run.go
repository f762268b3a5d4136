package main

import (
	"cmp"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/gen"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFalseAccept = 1 // vercheck accepted a program the kernel rejects
	exitUsage       = 2
	exitNoKernel    = 3 // bpf() is not permitted here
)

// Log buffer size for the kernel's branch-level log of a rejection.
const kernelLogSize = 16 << 20

// topReasons is how many vercheck-only rejection reasons are listed.
const topReasons = 15

// numberRE blanks numbers so that rejection reasons group.
var numberRE = regexp.MustCompile(`-?[0-9]+`)

// counts is the agreement table.
type counts struct {
	both, neither, onlyVercheck, onlyKernel int
	vercheckError, setupFailed              int
	sameMsg, diffMsg                        int
	sameInsns, diffInsns                    int
	tooStrict                               map[string]int
	msgDiffs                                map[string]int
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vercheck-diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 1000, "number of programs")
	seed := fs.Uint64("seed", 1, "first seed")
	mistakes := fs.Float64("mistakes", 0.05, "probability of an unsafe construct")
	out := fs.String("out", "internal/gen/testdata/diff", "directory for vercheck-accepts/kernel-rejects programs")
	timeout := fs.Duration("timeout", 10*time.Second, "vercheck time limit per program")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if err := kernel.Available(); err != nil {
		fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
		return exitNoKernel
	}
	// vercheck follows the stable fixes of the kernel it is compared with.
	missing, err := stablefix.Probe()
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
		return exitNoKernel
	}
	maps, err := createMaps()
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
		return exitNoKernel
	}
	defer func() {
		for _, m := range maps {
			m.Close()
		}
	}()
	c := counts{tooStrict: map[string]int{}, msgDiffs: map[string]int{}}
	for s := *seed; s < *seed+uint64(*n); s++ {
		p, err := gen.Generate(s, gen.Config{Mistakes: *mistakes})
		if err != nil {
			fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
			return exitUsage
		}
		res := verifier.Verify(p.Object, p.Prog, verifier.Options{Timeout: *timeout, LogLevel: 1, MissingFixes: missing})
		kacc, klog, kerr := loadKernel(p.Prog.Instructions, maps)
		if kerr != nil {
			c.setupFailed++
			fmt.Fprintf(stderr, "seed %d: kernel setup: %v\n", s, kerr)
			continue
		}
		switch v := res.Verdict(); {
		case v == "error" || v == "unsupported" || v == "timeout":
			c.vercheckError++
		case res.Accepted && kacc:
			c.both++
			if kst, err := kernel.ParseStats(klog); err == nil {
				if kst.InsnProcessed == res.Stats.InsnProcessed {
					c.sameInsns++
				} else {
					c.diffInsns++
				}
			}
		case res.Accepted && !kacc:
			c.onlyVercheck++
			if err := save(*out, p, res, klog); err != nil {
				fmt.Fprintf(stderr, "vercheck-diff: %v\n", err)
			}
			fmt.Fprintf(stdout, "seed %d: vercheck accepts, kernel rejects: %s\n", s, kernel.DecisiveLine(klog))
		case !res.Accepted && kacc:
			c.onlyKernel++
			c.tooStrict[numberRE.ReplaceAllString(lastLine(res.Err.Error()), "N")]++
		default:
			c.neither++
			kmsg := kernel.DecisiveLine(klog)
			if lastLine(res.Err.Error()) == kmsg {
				c.sameMsg++
			} else {
				c.diffMsg++
				key := numberRE.ReplaceAllString(lastLine(res.Err.Error()), "N") + "  <->  " + numberRE.ReplaceAllString(kmsg, "N")
				c.msgDiffs[key]++
			}
		}
	}
	printTable(stdout, *n, c)
	if c.onlyVercheck > 0 {
		return exitFalseAccept
	}
	return exitOK
}

// lastLine returns the last line of a multi-line message: the kernel's
// decisive line is the last one it prints.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// createMaps creates the kernel maps of gen.Maps, shared by every program
// (programs are only loaded, never run).
func createMaps() ([]*ebpf.Map, error) {
	var out []*ebpf.Map
	for _, m := range gen.Maps() {
		km, err := ebpf.NewMap(&ebpf.MapSpec{Name: m.Name, Type: m.Type, KeySize: m.KeySize, ValueSize: m.ValueSize, MaxEntries: m.MaxEntries})
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, fmt.Errorf("create map %s: %w", m.Name, err)
		}
		out = append(out, km)
	}
	return out, nil
}

// loadKernel loads the program into the kernel with its map references
// bound to maps. It returns the verdict and the verifier log; err is set
// when the program never reached the verifier.
func loadKernel(code asm.Instructions, maps []*ebpf.Map) (bool, string, error) {
	ins := slices.Clone(code)
	for i := range ins {
		if !ins[i].IsLoadFromMap() {
			continue
		}
		idx := int(int32(ins[i].Constant))
		if idx < 0 || idx >= len(maps) {
			return false, "", fmt.Errorf("insn %d: map index %d", i, idx)
		}
		if err := ins[i].AssociateMap(maps[idx]); err != nil {
			return false, "", fmt.Errorf("insn %d: %w", i, err)
		}
	}
	spec := &ebpf.ProgramSpec{Name: "gen", Type: ebpf.XDP, License: "GPL", Instructions: ins}
	prog, err := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats})
	if err == nil {
		log := prog.VerifierLog
		prog.Close()
		return true, log, nil
	}
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) {
		return false, "", err
	}
	log := strings.Join(ve.Log, "\n")
	// Load again for the failing path; keep the short log if that fails.
	_, berr := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{
		LogLevel: ebpf.LogLevelBranch | ebpf.LogLevelStats, LogSizeStart: kernelLogSize,
	})
	if errors.As(berr, &ve) && len(ve.Log) > 0 {
		log = strings.Join(ve.Log, "\n")
	}
	return false, log, nil
}

// save writes a vercheck-accepts/kernel-rejects program with both logs.
func save(dir string, p *gen.Program, res *verifier.Result, klog string) error {
	d := filepath.Join(dir, fmt.Sprintf("seed-%d", p.Seed))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("save seed %d: %w", p.Seed, err)
	}
	var text strings.Builder
	for i, in := range p.Insns {
		if in.Filler {
			continue
		}
		fmt.Fprintf(&text, "%d: %s\n", i, in)
	}
	files := map[string]string{
		"prog.txt":     text.String(),
		"prog.hex":     hex.EncodeToString(insn.Encode(p.Insns)) + "\n",
		"vercheck.log": tail(res.Log),
		"kernel.log":   tail(klog),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			return fmt.Errorf("save seed %d: %w", p.Seed, err)
		}
	}
	return nil
}

// maxSavedLogLines keeps saved logs small: the failing path's end is what
// explains a rejection.
const maxSavedLogLines = 200

// tail returns the last maxSavedLogLines lines of log.
func tail(log string) string {
	lines := strings.Split(log, "\n")
	if len(lines) > maxSavedLogLines {
		lines = lines[len(lines)-maxSavedLogLines:]
	}
	return strings.Join(lines, "\n")
}

// printTable prints the agreement table and the top disagreement reasons.
func printTable(w io.Writer, n int, c counts) {
	fmt.Fprintf(w, "\n%d generated programs\n", n)
	fmt.Fprintf(w, "%-32s %8s %8s\n", "", "kernel+", "kernel-")
	fmt.Fprintf(w, "%-32s %8d %8d\n", "vercheck accepts", c.both, c.onlyVercheck)
	fmt.Fprintf(w, "%-32s %8d %8d\n", "vercheck rejects", c.onlyKernel, c.neither)
	fmt.Fprintf(w, "vercheck error/unsupported: %d, kernel setup failures: %d\n", c.vercheckError, c.setupFailed)
	fmt.Fprintf(w, "both accept: insn_processed equal %d, different %d\n", c.sameInsns, c.diffInsns)
	fmt.Fprintf(w, "both reject: same message %d, different %d\n", c.sameMsg, c.diffMsg)
	printTop(w, "vercheck rejects, kernel accepts (vercheck's reason):", c.tooStrict)
	printTop(w, "both reject with different messages (vercheck <-> kernel):", c.msgDiffs)
}

func printTop(w io.Writer, title string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "%s\n", title)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b))
	})
	for i, k := range keys {
		if i == topReasons {
			break
		}
		fmt.Fprintf(w, "  %6d  %s\n", m[k], k)
	}
}

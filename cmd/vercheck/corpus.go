package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vercheck/vercheck"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// runConfig says how a corpus run verifies each program.
type runConfig struct {
	// opts are the library's options; the command reads each object with
	// vercheck.OpenFile and verifies with opts.Verifier.
	opts vercheck.Options
	jobs int
	// withKernel also loads each program into the running kernel.
	withKernel bool
	// kernelLogLevel, when set with withKernel, keeps the kernel's own log
	// of that level for each program (--log-dir writes it beside ours).
	kernelLogLevel int
	// expect compares each program with its own tags (package expect),
	// verifying it as they say the test loads it.
	expect bool
	// progress, when set, receives a progress line (terminals only).
	progress io.Writer
	// warnings, when set, receives the loader's warnings about an object
	// without programs, which has no row to carry them.
	warnings io.Writer
}

// task is one program to verify; out is where its row goes.
type task struct {
	obj  *loader.Object
	prog *loader.Program
	out  *row
	// left counts the object's programs not yet verified; the worker that
	// finishes the last one reports the object done.
	left *atomic.Int32
}

// verifyAll loads the objects one after another and verifies their
// programs on cfg.jobs workers; rows come back in input order (objects as
// given, programs in the object's order) whatever order the workers finish
// in. At most one object per worker is open at a time: the next one is
// opened when an earlier one's last program is verified, and is garbage
// from then on, so a sweep over ten thousand objects needs the memory of
// its largest objects, not of all of them (with -j 1, of its largest one).
// It also returns the files that could not be read as objects.
func verifyAll(files []string, cfg runConfig) ([]row, []string) {
	jobs := max(cfg.jobs, 1)
	// Set-up costs stay out of the first program's duration. A kernel
	// without BTF is no error here: the programs that need it say so.
	_ = verifier.Prepare()
	perFile := make([][]row, len(files))
	warnings := make([][]string, len(files))
	prog := newProgress(cfg.progress, len(files))
	tasks := make(chan task, jobs)
	// open holds one token per object being verified.
	open := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for t := range tasks {
				var res *verifier.Result
				var exp *expectRow
				if cfg.expect {
					res, exp = verifyExpected(t.obj, t.prog, cfg.opts.Verifier)
				} else {
					res = verifier.Verify(t.obj, t.prog, cfg.opts.Verifier)
				}
				r := toRow(res)
				r.Expect = exp
				r.Budget = budget(t.obj, t.prog, res, cfg.opts.Verifier)
				if cfg.withKernel && errors.Is(res.Err, verifier.ErrKernelFault) {
					// The kernel's verifier would oops on it: not loaded.
					r.Kernel = toKernelRow(kernel.Result{Program: t.prog.Name, NotLoaded: true, Err: "not loaded: " + verifier.ErrKernelFault.Error()})
				} else if cfg.withKernel {
					kopts := kernelOptions(cfg.opts.Verifier.MapBTF)
					r.Kernel = toKernelRow(kopts.LoadProgram(t.obj, t.prog))
					if cfg.kernelLogLevel > 0 {
						r.Kernel.Log, _ = kopts.ProgramLog(t.obj, t.prog, cfg.kernelLogLevel)
					}
					if cfg.kernelLogLevel >= 2 && r.Kernel.Log != "" {
						r.Kernel.LogsCompared = true
						r.Kernel.LogDivergence = logDivergence(res, r.Kernel.Log)
					}
				}
				*t.out = r
				if t.left.Add(-1) == 0 {
					prog.done(t.obj.Path)
					collectAfterObject()
					<-open
				}
			}
		})
	}
	var unreadable []string
	for i, f := range files {
		open <- struct{}{}
		obj, err := vercheck.OpenFile(f, &cfg.opts)
		if err != nil {
			<-open
			unreadable = append(unreadable, f)
			// The row names the file; the loader's message does too.
			msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "vercheck: "), f+": ")
			perFile[i] = []row{{File: f, Verdict: verdictError, Error: msg}}
			prog.done(f)
			continue
		}
		warnings[i] = obj.Warnings
		if len(obj.Programs) == 0 {
			if cfg.warnings != nil {
				writeWarnings(cfg.warnings, []row{{File: f, Warnings: obj.Warnings}})
			}
			<-open
			prog.done(f)
			continue
		}
		verifier.PrepareObject(obj, cfg.opts.Verifier)
		perFile[i] = make([]row, len(obj.Programs))
		left := new(atomic.Int32)
		left.Store(int32(len(obj.Programs)))
		for j, p := range obj.Programs {
			tasks <- task{obj: obj, prog: p, out: &perFile[i][j], left: left}
		}
	}
	close(tasks)
	wg.Wait()
	prog.finish()

	var rows []row
	for i, r := range perFile {
		if len(r) > 0 && warnings[i] != nil {
			// The loader's warnings go with the object's first row:
			// once per object.
			r[0].Warnings = warnings[i]
		}
		rows = append(rows, r...)
	}
	return rows, unreadable
}

// Progress line timing: nothing is shown for runs shorter than
// progressDelay, and the line is redrawn at most every progressEvery.
const (
	progressDelay = 500 * time.Millisecond
	progressEvery = 100 * time.Millisecond
)

// progress draws a one-line "[done/total] name" on a terminal.
type progress struct {
	w     io.Writer
	total int
	start time.Time
	mu    sync.Mutex
	count atomic.Int64
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, total: total, start: time.Now()}
}

func (p *progress) done(name string) {
	n := p.count.Add(1)
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < progressDelay || now.Sub(p.last) < progressEvery {
		return
	}
	p.last = now
	p.shown = true
	// \r returns to the line start, \033[K clears the rest of it.
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s %s", n, p.total, now.Sub(p.start).Round(time.Second), name)
}

func (p *progress) finish() {
	if p.w == nil || !p.shown {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}

// isTerminal reports whether w is a character device (a terminal), so
// that progress lines never end up in files or pipes.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// kernelOptions loads programs into the kernel with the map BTF the
// verifier models: the kernel must judge what vercheck verified.
func kernelOptions(m verifier.MapBTF) kernel.Options {
	if m == verifier.MapBTFKeyValue {
		return kernel.Options{MapBTF: kernel.KeyValueBTF}
	}
	return kernel.Options{MapBTF: kernel.ObjectBTF}
}

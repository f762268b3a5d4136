package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// runConfig says how a corpus run verifies each program.
type runConfig struct {
	lopts loader.Options
	vopts verifier.Options
	jobs  int
	// withKernel also loads each program into the running kernel.
	withKernel bool
	// progress, when set, receives a progress line (terminals only).
	progress io.Writer
}

// task is one program to verify; out is where its row goes.
type task struct {
	obj  *loader.Object
	prog *loader.Program
	out  *row
}

// verifyAll loads every object and verifies its programs on cfg.jobs
// workers; rows come back in input order (objects as given, programs in
// the object's order) whatever order the workers finish in. The bool
// reports whether some object could not be read.
func verifyAll(files []string, cfg runConfig) ([]row, bool) {
	jobs := max(cfg.jobs, 1)
	perFile := make([][]row, len(files))
	var tasks []task
	loadFailed := false
	for i, f := range files {
		obj, err := loader.Open(f, cfg.lopts)
		if err != nil {
			loadFailed = true
			perFile[i] = []row{{File: f, Verdict: verdictError, Error: err.Error()}}
			continue
		}
		perFile[i] = make([]row, len(obj.Programs))
		for j, p := range obj.Programs {
			tasks = append(tasks, task{obj: obj, prog: p, out: &perFile[i][j]})
		}
	}

	prog := newProgress(cfg.progress, len(tasks))
	ch := make(chan task)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for t := range ch {
				r := toRow(verifier.Verify(t.obj, t.prog, cfg.vopts))
				if cfg.withKernel {
					r.Kernel = toKernelRow(kernel.LoadProgram(t.obj, t.prog))
				}
				*t.out = r
				prog.done(t.prog.Name)
			}
		})
	}
	for _, t := range tasks {
		ch <- t
	}
	close(ch)
	wg.Wait()
	prog.finish()

	var rows []row
	for _, r := range perFile {
		rows = append(rows, r...)
	}
	return rows, loadFailed
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

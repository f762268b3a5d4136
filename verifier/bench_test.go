package verifier_test

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// corpusProgram is one program of the shared corpus the kernel verified,
// with the kernel's median verification time.
type corpusProgram struct {
	path     string
	obj      *loader.Object
	prog     *loader.Program
	kernelUS float64
}

// loadCorpusPrograms loads every program of kernel-6.18.csv that the
// kernel accepted or rejected.
func loadCorpusPrograms(tb testing.TB) []corpusProgram {
	f, err := os.Open(filepath.Join(corpusDir, "kernel-6.18.csv"))
	if err != nil {
		tb.Skipf("shared corpus not present: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	objs := map[string]*loader.Object{}
	var out []corpusProgram
	for _, r := range recs[1:] {
		if v := r[col["verdict"]]; v != "accepted" && v != "rejected" {
			continue
		}
		path := filepath.Join(corpusDir, r[col["object"]])
		obj, ok := objs[path]
		if !ok {
			obj, err = loader.Open(path, loader.Options{})
			if err != nil {
				tb.Fatal(err)
			}
			objs[path] = obj
		}
		us, _ := strconv.ParseFloat(r[col["verification_time_usec"]], 64)
		for _, p := range obj.Programs {
			if p.Name == r[col["program"]] {
				out = append(out, corpusProgram{path, obj, p, us})
			}
		}
	}
	return out
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration { return processUsage().cpu }

// usage is what the process has used so far: CPU time (user and system),
// system time alone and minor page faults.
type usage struct {
	cpu, sys time.Duration
	minflt   int64
}

// processUsage returns the process's usage so far (zero if the system
// cannot say).
func processUsage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	return usage{
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		sys:    time.Duration(ru.Stime.Nano()),
		minflt: ru.Minflt,
	}
}

// BenchmarkCorpus verifies every program of the shared corpus once per
// iteration, on one core, and reports vercheck's time per processed insn
// and its time relative to the kernel's own verification time for the
// same programs (kernel_ratio < 1: faster than the kernel). cpu_ratio is
// the same ratio for the process's CPU time, which other load on the
// machine disturbs less than the wall time.
func BenchmarkCorpus(b *testing.B) {
	progs := loadCorpusPrograms(b)
	var kernelUS float64
	for _, p := range progs {
		kernelUS += p.kernelUS
	}
	_, perIter, cpuPerIter := verifyEach(b, progs)
	b.ReportMetric(perIter/(kernelUS*1000), "kernel_ratio")
	b.ReportMetric(cpuPerIter/(kernelUS*1000), "cpu_ratio")
}

// verifyEach verifies every program once per benchmark iteration and
// reports instructions and time per instruction; it returns the
// instructions processed per iteration and the wall and CPU time per
// iteration in nanoseconds.
func verifyEach(b *testing.B, progs []corpusProgram) (insns int, perIter, cpuPerIter float64) {
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		insns = 0
		for _, p := range progs {
			insns += verifier.Verify(p.obj, p.prog, verifier.Options{}).Stats.InsnProcessed
		}
	}
	b.StopTimer()
	cpuPerIter = float64((cpuTime() - cpu0).Nanoseconds()) / float64(b.N)
	perIter = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(insns), "insns/op")
	b.ReportMetric(perIter/float64(insns), "ns/insn")
	b.ReportMetric(cpuPerIter/float64(insns), "cpu_ns/insn")
	return insns, perIter, cpuPerIter
}

// BenchmarkCorpusParallel verifies the corpus as a corpus run does, on
// every core (GOMAXPROCS workers), and reports the wall time relative to
// the kernel's summed verification time for the same programs.
func BenchmarkCorpusParallel(b *testing.B) {
	progs := loadCorpusPrograms(b)
	var kernelUS float64
	for _, p := range progs {
		kernelUS += p.kernelUS
	}
	workers := runtime.GOMAXPROCS(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next := make(chan corpusProgram)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range next {
					verifier.Verify(p.obj, p.prog, verifier.Options{})
				}
			}()
		}
		for _, p := range progs {
			next <- p
		}
		close(next)
		wg.Wait()
	}
	b.StopTimer()
	perIter := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(workers), "workers")
	b.ReportMetric(perIter/(kernelUS*1000), "kernel_ratio")
}

// BenchmarkObjects verifies every program of the objects named by the
// space-separated globs in $VERCHECK_BENCH (for instance the kernel's
// scale programs built locally) once per iteration, and reports time and
// CPU time per processed instruction. Comparing two builds: build each
// test binary with `go test -c` and run them alternately.
func BenchmarkObjects(b *testing.B) {
	progs := benchPrograms(b)
	if len(progs) == 0 {
		b.Skip("set VERCHECK_BENCH to globs of objects to verify")
	}
	// The kernel's BTF is parsed once, outside the measured loop.
	_ = verifier.Prepare()
	verifyEach(b, progs)
}

// BenchmarkSmallPrograms verifies the programs of testdata/progs that
// process fewer than smallProgramInsns instructions and reports the time
// per program: what a verification costs besides its search (the
// environment, the control-flow analyses, the explored-state store, the
// liveness tables, the pool), which such programs are nearly all of. The
// kernel takes 20-30 us on them here; vercheck's per-program costs
// decide whether it stays within twice that.
func BenchmarkSmallPrograms(b *testing.B) {
	progs := smallPrograms()
	if len(progs) == 0 {
		b.Skip("no small program in testdata/progs")
	}
	_ = verifier.Prepare()
	_, perIter, _ := verifyEach(b, progs)
	b.ReportMetric(perIter/float64(len(progs))/1000, "us/prog")
	b.ReportMetric(float64(len(progs)), "programs")
}

// smallProgramInsns bounds the instructions a small program processes.
const smallProgramInsns = 100

// smallPrograms returns the programs of testdata/progs that process fewer
// than smallProgramInsns instructions (and at least one), found once per
// process by verifying every program.
var smallPrograms = sync.OnceValue(func() []corpusProgram {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "progs", "*.o"))
	var progs []corpusProgram
	for _, path := range paths {
		obj, err := loader.Open(path, loader.Options{})
		if err != nil {
			continue
		}
		for _, p := range obj.Programs {
			n := verifier.Verify(obj, p, verifier.Options{}).Stats.InsnProcessed
			if n > 0 && n < smallProgramInsns {
				progs = append(progs, corpusProgram{path: path, obj: obj, prog: p})
			}
		}
	}
	return progs
})

// benchPrograms returns every program of the objects named by the
// space-separated globs in $VERCHECK_BENCH whose name matches the regular
// expression $VERCHECK_BENCH_PROGS (every program when it is unset), so
// that one program of an object can be timed and profiled alone.
func benchPrograms(b *testing.B) []corpusProgram {
	var progs []corpusProgram
	match, err := regexp.Compile(os.Getenv("VERCHECK_BENCH_PROGS"))
	if err != nil {
		b.Fatalf("VERCHECK_BENCH_PROGS: %v", err)
	}
	for _, glob := range strings.Fields(os.Getenv("VERCHECK_BENCH")) {
		paths, err := filepath.Glob(glob)
		if err != nil {
			b.Fatal(err)
		}
		for _, path := range paths {
			obj, err := loader.Open(path, loader.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, p := range obj.Programs {
				if match.MatchString(p.Name) {
					progs = append(progs, corpusProgram{path: path, obj: obj, prog: p})
				}
			}
		}
	}
	return progs
}

// BenchmarkLiveRatio measures vercheck against the running kernel in one
// run: each program of the objects $VERCHECK_BENCH names (the shared
// corpus when unset) is verified by vercheck and then loaded into the
// kernel, alternately, so that both see the same machine load; the
// kernel's time is its own "verification time". kernel_ratio is the sum
// of vercheck's times over the sum of the kernel's, over the programs the
// kernel gave a verdict on; programs/op counts those; vercheck_cpu_s/op is
// the process's CPU time over vercheck's verifications (the wall time less
// what other work on the core took: the kernel's deferred freeing of the
// last load's maps and program runs there), vercheck_sys_s/op its system
// part and vercheck_minflt/op the page faults taken in them. Between kernel
// loads the same verifications take longer than in BenchmarkCorpus: a
// first pass faults in the heap's growth (use -benchtime 3x), the kernel's
// deferred work is charged to the process, and the load leaves the caches
// cold (doc/performance.md, session 49). Needs bpf(2).
//
// The loads are made by a child process (kernelSide), on the same CPUs:
// loading through cilium/ebpf allocates several times what vercheck does
// (map and program specs copied, instructions and BTF marshalled), and in
// this process the collector would collect that garbage inside vercheck's
// timed verifications, a cost no vercheck run alone pays. What is left of
// the difference with BenchmarkCorpus (0.60 s of CPU a corpus pass there,
// 0.69-0.76 s here, sessions 44-45) is the switch to the child and back:
// this loop without the loads takes 0.615 s, with a round trip to the
// child that loads nothing 0.69 s, and with a 3 ms sleep instead 0.65 s
// (session 45). Running the child on another CPU did not help (its loads'
// IPIs then interrupt vercheck).
func BenchmarkLiveRatio(b *testing.B) {
	if err := kernel.Available(); err != nil {
		b.Skipf("no kernel to compare with: %v", err)
	}
	progs := benchPrograms(b)
	if len(progs) == 0 {
		progs = loadCorpusPrograms(b)
	}
	side, err := startKernelSide()
	if err != nil {
		b.Fatal(err)
	}
	defer side.close()
	_ = verifier.Prepare()
	var ours, theirs, oursCPU, oursSys time.Duration
	var oursFaults int64
	compared := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		compared = 0
		for _, p := range progs {
			u0 := processUsage()
			t0 := time.Now()
			res := verifier.Verify(p.obj, p.prog, verifier.Options{})
			took := time.Since(t0)
			u1 := processUsage()
			if errors.Is(res.Err, verifier.ErrKernelFault) {
				continue // never loaded: the kernel would oops
			}
			kr, err := side.load(p.path, p.prog.Name)
			if err != nil {
				b.Fatal(err)
			}
			if kr.NotLoaded {
				continue
			}
			ours += took
			oursCPU += u1.cpu - u0.cpu
			oursSys += u1.sys - u0.sys
			oursFaults += u1.minflt - u0.minflt
			theirs += kr.VerificationTime
			compared++
		}
	}
	b.StopTimer()
	if theirs > 0 {
		b.ReportMetric(float64(ours)/float64(theirs), "kernel_ratio")
	}
	b.ReportMetric(float64(compared), "programs/op")
	b.ReportMetric(ours.Seconds()/float64(b.N), "vercheck_s/op")
	b.ReportMetric(oursCPU.Seconds()/float64(b.N), "vercheck_cpu_s/op")
	b.ReportMetric(oursSys.Seconds()/float64(b.N), "vercheck_sys_s/op")
	b.ReportMetric(float64(oursFaults)/float64(b.N), "vercheck_minflt/op")
	b.ReportMetric(theirs.Seconds()/float64(b.N), "kernel_s/op")
}

// kernelSideEnv marks the test binary run as BenchmarkLiveRatio's kernel
// side.
const kernelSideEnv = "VERCHECK_KERNEL_SIDE"

// kernelLoad is a request to the kernel side: a program of an object file.
type kernelLoad struct {
	Path, Prog string
}

// kernelVerdict is the kernel side's answer to a kernelLoad.
type kernelVerdict struct {
	NotLoaded        bool
	VerificationTime time.Duration
	Err              string // the request could not be served
}

// kernelSide is a child process of the test binary that loads programs
// into the running kernel on request (TestKernelSide), so that the
// loading's allocations land in another heap than vercheck's.
type kernelSide struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	enc *json.Encoder
	dec *json.Decoder
}

// startKernelSide starts the kernel side, inheriting the CPU affinity.
func startKernelSide() (*kernelSide, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKernelSide$", "-test.bench=^$", "-test.count=1")
	cmd.Env = append(os.Environ(), kernelSideEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("kernel side: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("kernel side: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("kernel side: %w", err)
	}
	return &kernelSide{cmd: cmd, in: in, enc: json.NewEncoder(in), dec: json.NewDecoder(out)}, nil
}

// load asks the kernel side to load program prog of the object at path.
func (k *kernelSide) load(path, prog string) (kernelVerdict, error) {
	var v kernelVerdict
	if err := k.enc.Encode(kernelLoad{path, prog}); err != nil {
		return v, fmt.Errorf("kernel side: %w", err)
	}
	if err := k.dec.Decode(&v); err != nil {
		return v, fmt.Errorf("kernel side: %w", err)
	}
	if v.Err != "" {
		return v, fmt.Errorf("kernel side: %s", v.Err)
	}
	return v, nil
}

// close ends the kernel side and waits for it.
func (k *kernelSide) close() {
	k.in.Close()
	_ = k.cmd.Wait()
}

// TestKernelSide is BenchmarkLiveRatio's kernel side when the benchmark
// runs the test binary as its child (kernelSideEnv set): it reads
// kernelLoad requests from stdin, loads each program with
// kernel.LoadProgramVerdict and writes a kernelVerdict to stdout, until
// stdin closes. Objects are opened as the benchmark opens them
// (loader.Options{}), once each.
func TestKernelSide(t *testing.T) {
	if os.Getenv(kernelSideEnv) == "" {
		t.Skip("BenchmarkLiveRatio's kernel side; runs only as the benchmark's child process")
	}
	objs := map[string]*loader.Object{}
	dec, enc := json.NewDecoder(os.Stdin), json.NewEncoder(os.Stdout)
	for {
		var req kernelLoad
		if err := dec.Decode(&req); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Error(err)
			}
			return
		}
		if err := enc.Encode(serveKernelLoad(objs, req)); err != nil {
			t.Fatal(err)
		}
	}
}

// serveKernelLoad loads the program req names into the kernel, opening
// its object into objs if it is not there yet.
func serveKernelLoad(objs map[string]*loader.Object, req kernelLoad) kernelVerdict {
	obj, ok := objs[req.Path]
	if !ok {
		var err error
		if obj, err = loader.Open(req.Path, loader.Options{}); err != nil {
			return kernelVerdict{Err: err.Error()}
		}
		objs[req.Path] = obj
	}
	for _, p := range obj.Programs {
		if p.Name == req.Prog {
			kr := kernel.LoadProgramVerdict(obj, p)
			return kernelVerdict{NotLoaded: kr.NotLoaded, VerificationTime: kr.VerificationTime}
		}
	}
	return kernelVerdict{Err: fmt.Sprintf("%s: no program %s", req.Path, req.Prog)}
}

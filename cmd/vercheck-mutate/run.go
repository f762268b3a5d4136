package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/mutate"
	"github.com/vercheck/vercheck/internal/oracle"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFalseAccept = 1 // vercheck accepted a mutant the kernel rejects, or (-self-check) one it rejects without checkpoints
	exitUsage       = 2
	exitNoKernel    = 3 // bpf() is not permitted here
)

// maxMutations is the most mutations one mutant gets.
const maxMutations = 3

// config is the command line.
type config struct {
	n, jobs, gen, maxSeedInsns int
	keep, minimiseBudget       int
	minimisePerReason          int
	// pastError is how many follow-ups past the first error a mutant
	// both verifiers reject gets (mutate.PastError).
	pastError         int
	seed, genSeed     uint64
	timeout, duration time.Duration
	out, findings     string
	progress          int
	// compareLogs is oracle.Options.CompareLogs for the mutants.
	compareLogs int
	// rejected adds the programs both verifiers reject alike to the
	// seeds.
	rejected bool
	// selfCheck adds the programs vercheck accepts and the kernel cannot
	// load to the seeds, and checks their mutants with
	// oracle.Options.SelfCheck.
	selfCheck bool
	// ops, when not empty, are the only operators drawn.
	ops []string
	// replay lists the mutants to show again instead of a run.
	replay []replayed
	paths  []string
	// missing are the stable fixes the running kernel lacks (probed).
	missing stablefix.Set
}

// judging returns the oracle's options for this run: vercheck follows
// the stable fixes of the kernel it is compared with.
func (c config) judging(logs bool) oracle.Options {
	return oracle.Options{Timeout: c.timeout, Logs: logs, MissingFixes: c.missing, CompareLogs: c.compareLogs, SelfCheck: c.selfCheck}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("vercheck-mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.n, "n", 1000, "number of mutants")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed of the run")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "vercheck time limit per program (beyond twice this: a hang)")
	fs.DurationVar(&c.duration, "duration", 0, "stop making mutants after this long (0: make all -n)")
	fs.IntVar(&c.jobs, "j", 1, "mutants judged in parallel")
	fs.IntVar(&c.gen, "gen", 50, "generated seed programs (package internal/gen) besides the objects")
	fs.Uint64Var(&c.genSeed, "gen-seed", 1, "seed of the first generated seed program")
	fs.IntVar(&c.maxSeedInsns, "max-seed-insns", 4000, "longest seed program, in instructions")
	fs.IntVar(&c.keep, "keep", 2, "programs saved per class, reason and operators")
	fs.IntVar(&c.minimiseBudget, "minimise", 600, "most verifications spent minimising one finding")
	fs.IntVar(&c.minimisePerReason, "minimise-per-reason", 6, "most findings minimised per class and reason")
	fs.StringVar(&c.out, "out", "mutfuzz-out", "directory for the saved programs")
	fs.StringVar(&c.findings, "findings", "", "markdown file each new false accept is appended to")
	fs.BoolVar(&c.rejected, "rejected", false, "also mutate the programs both verifiers reject with the same message")
	fs.BoolVar(&c.selfCheck, "self-check", false, "also mutate the programs vercheck accepts and the kernel cannot load (a program type this build refuses), and verify each such mutant vercheck accepts again without voluntary checkpoints: a rejection there is a pruning-differs finding")
	fs.IntVar(&c.pastError, "past-error", 3, "follow-ups of a mutant both verifiers reject, each going on past the instruction vercheck rejected")
	fs.IntVar(&c.compareLogs, "compare-logs", 0, "compare the level-2 logs of mutants both verifiers judge alike that process at most this many instructions (0: never); a difference is a log-differs finding")
	fs.IntVar(&c.progress, "progress", 0, "print a progress line every this many mutants (0: never)")
	ops := fs.String("ops", "", "draw only the operators `NAME,...` (\"resources\": the resource and call family; \"program type\", \"sleepable\", \"load flags\", \"map definition\", \"map BTF\", \"read-only data\", \"func BTF\" and \"attach target\" change the load instead of the code)")
	replay := fs.String("replay", "", "judge only the mutants `I,J.K,...` of the run (J.K: the K-th follow-up of J) and print them with both logs")
	err := fs.Parse(args)
	if err != nil {
		return c, err
	}
	for _, f := range strings.FieldsFunc(*replay, func(r rune) bool { return r == ',' }) {
		rp, err := parseReplayed(f)
		if err != nil {
			return c, err
		}
		c.replay = append(c.replay, rp)
	}
	if c.ops, err = operatorNames(*ops); err != nil {
		return c, err
	}
	c.paths = fs.Args()
	if c.jobs < 1 || c.n < 0 {
		return c, fmt.Errorf("-j must be at least 1 and -n not negative")
	}
	return c, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintf(stderr, "vercheck-mutate: %v\n", err)
		}
		return exitUsage
	}
	if err := kernel.Available(); err != nil {
		fmt.Fprintf(stderr, "vercheck-mutate: %v\n", err)
		return exitNoKernel
	}
	if cfg.missing, err = stablefix.Probe(); err != nil {
		fmt.Fprintf(stderr, "vercheck-mutate: %v\n", err)
		return exitNoKernel
	}
	seeds, err := loadSeeds(cfg, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck-mutate: %v\n", err)
		return exitUsage
	}
	if len(seeds) == 0 {
		fmt.Fprintf(stderr, "vercheck-mutate: no program both verifiers accept\n")
		return exitUsage
	}
	kfuncsOf := kfuncsByType(seeds)
	targetsOf := attachTargetsByKind(seeds)
	for _, s := range seeds {
		s.env.Operators = cfg.ops
		s.env.TypeKfuncs = kfuncsOf(s.prog.Type)
		pt := mutate.ProgType{Type: s.prog.Type, Attach: s.prog.AttachType}
		s.env.AttachTargets = mutate.AttachTargets(pt, s.prog.AttachTo, targetsOf[pt])
	}
	f := &fuzzer{cfg: cfg, seeds: seeds, stdout: stdout, stderr: stderr, start: time.Now(), groups: map[string]int{}, minimised: map[string]int{}, ops: opStats{}}
	if len(cfg.replay) > 0 {
		code := exitOK
		for _, rp := range cfg.replay {
			code = max(code, f.replay(rp))
		}
		return code
	}
	stopSignals := f.stopOnSignal()
	made := inOrder(cfg.n, cfg.jobs, f.stop, f.judge, f.record)
	stopSignals()
	fmt.Fprintf(stdout, "\n%d mutants of %d seeds in %v (%d could not be made into programs)\n",
		made, len(seeds), time.Since(f.start).Round(time.Second), f.skipped)
	f.tally.Print(stdout)
	fmt.Fprintf(stdout, "kernel verifier bugs: %d\n", f.kernelBugs)
	f.ops.print(stdout, f.tally.Programs)
	if f.tally.Count(oracle.FalseAccept) > 0 || f.tally.Count(oracle.PruningDiffers) > 0 {
		return exitFalseAccept
	}
	return exitOK
}

// operatorNames parses -ops: operator names separated by commas, the
// family name "resources" standing for its operators.
func operatorNames(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		switch {
		case name == "":
		case name == "resources":
			out = append(out, mutate.ResourceOperators()...)
		case slices.Contains(mutate.Operators(), name), slices.Contains(mutate.LoadOperators(), name):
			out = append(out, name)
		default:
			return nil, fmt.Errorf("-ops: no operator %q", name)
		}
	}
	return out, nil
}

// loadSeeds judges every candidate and keeps those both verifiers accept
// (and, with -rejected, those both reject alike).
func loadSeeds(cfg config, stdout io.Writer) ([]*seed, error) {
	var st seedStats
	cands, err := candidates(cfg.paths, cfg.gen, cfg.genSeed, &st)
	if err != nil {
		return nil, err
	}
	var seeds []*seed
	inOrder(len(cands), cfg.jobs, nil, func(i int) seedVerdict {
		// A seed is judged on its verdict: its log is what the
		// mutants' logs are compared against, not a finding itself.
		opts := cfg.judging(false)
		opts.CompareLogs = 0
		return judgeCandidate(cands[i], cfg.maxSeedInsns, cfg.rejected, opts)
	}, func(_ int, v seedVerdict) {
		st.count(v)
		if v.seed != nil {
			seeds = append(seeds, v.seed)
		}
	})
	withEdges := 0
	for _, s := range seeds {
		if len(s.env.Edges) > 0 {
			withEdges++
		}
	}
	notAlike := "not accepted by both"
	if cfg.rejected {
		notAlike = "judged differently"
	}
	fmt.Fprintf(stdout, "%d seeds (%d with edge accesses) of %d programs; left out: %d longer than %d instructions, %d %s, %d the kernel could not load; %d unreadable objects\n",
		len(seeds), withEdges, len(cands), st.tooLarge, cfg.maxSeedInsns, st.notAccepted, notAlike, st.kernelNoLoad, st.unreadable)
	for _, d := range st.differing {
		fmt.Fprintf(stdout, "  seed judged differently: %s\n", d)
	}
	if st.pruningDiffers > 0 {
		fmt.Fprintf(stdout, "%d programs vercheck accepts only with pruning (seeds left out: run vercheck with --prune-policy checkpoint=2147483647/2147483647,loop=2147483647/2147483647 on them)\n", st.pruningDiffers)
	}
	return seeds, nil
}

// inOrder computes work(i) for i in [0, n) on jobs goroutines and hands
// each result to consume in index order, so that what consume does never
// depends on jobs. Once stop (when not nil) reports true, no new index is
// started. It returns how many indexes were consumed.
func inOrder[R any](n, jobs int, stop func() bool, work func(i int) R, consume func(i int, r R)) int {
	type result struct {
		i int
		r R
	}
	indexes := make(chan int)
	results := make(chan result, jobs)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range indexes {
				results <- result{i, work(i)}
			}
		})
	}
	go func() {
		for i := 0; i < n && (stop == nil || !stop()); i++ {
			indexes <- i
		}
		close(indexes)
		wg.Wait()
		close(results)
	}()
	pending := map[int]R{}
	next := 0
	for res := range results {
		pending[res.i] = res.r
		for r, ok := pending[next]; ok; r, ok = pending[next] {
			delete(pending, next)
			consume(next, r)
			next++
		}
	}
	return next
}

// fuzzer holds a run's seeds and what it found so far.
type fuzzer struct {
	cfg            config
	seeds          []*seed
	stdout, stderr io.Writer
	start          time.Time
	tally          oracle.Tally
	// groups counts the findings by class, reason and operators;
	// minimised counts the false accepts minimised, by reason.
	groups, minimised map[string]int
	// skipped counts mutants that could not be turned into a program.
	skipped int
	// ops counts the mutants by operator.
	ops opStats
	// kernelBugs counts the mutants the kernel's verifier reported a
	// verifier bug on.
	kernelBugs int
	// interrupted is set by SIGINT or SIGTERM: the run makes no new
	// mutant, judges those under way and prints its tally, as at the end
	// of -duration.
	interrupted atomic.Bool
}

// stop reports whether the run's time is up or it was interrupted.
func (f *fuzzer) stop() bool {
	return f.interrupted.Load() || f.cfg.duration > 0 && time.Since(f.start) > f.cfg.duration
}

// stopOnSignal makes SIGINT and SIGTERM end the run early with its tally
// (a background job started without job control ignores SIGINT until a
// handler is installed). The returned function removes the handler.
func (f *fuzzer) stopOnSignal() func() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(f.stderr, "vercheck-mutate: %v: finishing the mutants under way\n", s)
			f.interrupted.Store(true)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// trial is one mutant and its outcome.
type trial struct {
	// label names the mutant: its index, and for a follow-up past the
	// first error, ".K" for the K-th follow-up.
	label  string
	seed   *seed
	mutant mutate.Mutant
	// prog is the mutant made into a program; err is set when it could
	// not be.
	prog    *loader.Program
	err     error
	outcome oracle.Outcome
}

// mutant draws mutant i of the run from its own random stream, which it
// returns for the mutant's follow-ups. A mutant none of the run's
// operators changed (a seed they cannot apply to; with -ops naming
// operators only some seeds can take, most of them) is drawn again from
// another seed, up to seedDraws times.
func (f *fuzzer) mutant(i int) (*seed, mutate.Mutant, *rand.Rand) {
	r := rand.New(rand.NewPCG(f.cfg.seed, uint64(i)))
	for draw := 1; ; draw++ {
		s := f.seeds[r.IntN(len(f.seeds))]
		m := mutate.Mutate(s.code, r, 1+r.IntN(maxMutations), s.env)
		if changedBy(m, s.env.Operators) || draw == seedDraws {
			return s, m, r
		}
	}
}

// changedBy reports whether one of ops (any operator when ops is empty)
// made a change of m; the edge placement, which every run may draw, does
// not count for a run aimed at ops.
func changedBy(m mutate.Mutant, ops []string) bool {
	if len(ops) == 0 {
		return len(m.Operators) > 0
	}
	return slices.ContainsFunc(m.Operators, func(name string) bool { return slices.Contains(ops, name) })
}

// seedDraws bounds the seeds drawn for one mutant.
const seedDraws = 16

// judge makes mutant i and runs both verifiers on it, then on up to
// -past-error follow-ups, each going on past the instruction vercheck
// rejected the one before at, while both verifiers reject.
func (f *fuzzer) judge(i int) []trial {
	s, m, r := f.mutant(i)
	chain := []trial{f.judgeMutant(strconv.Itoa(i), s, m)}
	for k := 1; k <= f.cfg.pastError; k++ {
		next, ok := followUp(chain[k-1], r)
		if !ok {
			break
		}
		chain = append(chain, f.judgeMutant(fmt.Sprintf("%d.%d", i, k), s, next))
	}
	return chain
}

// judgeMutant makes m into a program and runs both verifiers on it.
func (f *fuzzer) judgeMutant(label string, s *seed, m mutate.Mutant) trial {
	t := trial{label: label, seed: s, mutant: m}
	prog, err := s.program(m)
	if err != nil {
		t.err = err
		return t
	}
	t.outcome = oracle.Judge(s.object(m), prog, f.cfg.judging(false))
	t.prog = prog
	return t
}

// followUp draws, when both verifiers rejected t, a mutant that goes on
// past the instruction vercheck rejected (mutate.PastError): the first
// error hides every later check, and a false accept behind it.
func followUp(t trial, r *rand.Rand) (mutate.Mutant, bool) {
	if t.err != nil || (t.outcome.Class != oracle.BothReject && t.outcome.Class != oracle.MessageDiffers && t.outcome.Class != oracle.ErrnoDiffers) {
		return mutate.Mutant{}, false
	}
	var rej *verifier.RejectError
	if !errors.As(t.outcome.Vercheck.Err, &rej) {
		return mutate.Mutant{}, false
	}
	next := mutate.PastError(t.mutant, rej.Insn, rej.Msg)
	if len(next) == 0 {
		return mutate.Mutant{}, false
	}
	return next[r.IntN(len(next))], true
}

// record counts a trial and saves the first few of each group: finding
// class, reason and the set of mutation operators. Kernel refusals are
// saved too: they show mutants the tool should not make. A false accept
// is printed. Saved false accepts, false rejects, insn_processed
// differences and vercheck errors are minimised while their class and
// reason have had fewer than -minimise-per-reason minimisations; a
// minimised false accept goes to the findings file.
func (f *fuzzer) record(i int, chain []trial) {
	if f.cfg.progress > 0 && (i+1)%f.cfg.progress == 0 {
		fmt.Fprintf(f.stderr, "%d mutants, %d programs, %v, %d false accepts", i+1, f.tally.Programs, time.Since(f.start).Round(time.Second), f.tally.Count(oracle.FalseAccept))
		if f.cfg.selfCheck {
			fmt.Fprintf(f.stderr, ", %d pruning differences", f.tally.Count(oracle.PruningDiffers))
		}
		fmt.Fprintln(f.stderr)
	}
	for _, t := range chain {
		f.recordTrial(t)
	}
}

// recordTrial counts and saves one mutant or follow-up (see record).
func (f *fuzzer) recordTrial(t trial) {
	if t.err != nil {
		f.skipped++
		return
	}
	if r, ok := t.outcome.TimeRatio(); ok && r > oracle.SlowRatio {
		t.outcome = f.retime(t)
	}
	f.tally.Add(t.outcome)
	f.ops.add(t.mutant.Operators, t.outcome)
	o := t.outcome
	f.noteKernelBug(t)
	if !o.Class.Finding() && o.Class != oracle.KernelNoLoad {
		return
	}
	switch o.Class {
	case oracle.FalseAccept:
		fmt.Fprintf(f.stdout, "mutant %s (%s): vercheck accepts, kernel rejects: %s\n", t.label, t.seed.name, o.Kernel.Err)
	case oracle.PruningDiffers:
		fmt.Fprintf(f.stdout, "mutant %s (%s): vercheck accepts, rejects without checkpoints: %s\n", t.label, t.seed.name, o.Reason())
	}
	reason := o.Reason()
	ops := slices.Compact(slices.Sorted(slices.Values(t.mutant.Operators)))
	group := fmt.Sprintf("%s: %s %q", o.Class, reason, ops)
	f.groups[group]++
	if f.groups[group] > f.cfg.keep {
		return
	}
	code, prog := t.mutant, t.prog
	key := o.Class.String() + ": " + reason
	minimised := minimisable(o.Class) && f.minimised[key] < f.cfg.minimisePerReason
	if minimised {
		f.minimised[key]++
		code, prog = f.minimise(t)
	}
	// Judge again for both logs; the class is the same (both verifiers
	// are deterministic), unless vercheck's time limit was near. A
	// program whose kernel load never returned is not loaded again: the
	// kernel's verifier oopsed on it and would again.
	if !o.KernelHung() {
		o = oracle.Judge(t.seed.object(code), prog, f.cfg.judging(true))
	}
	dir := filepath.Join(f.cfg.out, o.Class.String(), "m"+t.label)
	if err := oracle.Save(dir, code.Insns, o, f.info(t.label, t.seed, code, o, reason)); err != nil {
		fmt.Fprintf(f.stderr, "vercheck-mutate: %v\n", err)
	}
	if minimised && (o.Class == oracle.FalseAccept || o.Class == oracle.PruningDiffers) && f.cfg.findings != "" {
		if err := f.appendFinding(t.label, t.seed, code, o, reason); err != nil {
			fmt.Fprintf(f.stderr, "vercheck-mutate: %v\n", err)
		}
	}
}

// retimes is how many more times a program that took vercheck more than
// oracle.SlowRatio times the kernel's time is verified by both.
const retimes = 2

// retime verifies a program that took vercheck more than oracle.SlowRatio
// times the kernel's time again, retimes more times on both sides, and
// returns t's outcome with the pair of times of the lowest ratio: a load
// on the machine (the other core's work, a collection, the kernel's
// deferred freeing) only ever adds time to one side of one try. A program
// still over the ratio is saved under the output directory's "slow" and
// printed: no program may take vercheck more than twice the kernel's time.
func (f *fuzzer) retime(t trial) oracle.Outcome {
	best, ratio := lowestRatio(t.outcome, retimes, func() oracle.Outcome {
		return oracle.Judge(t.seed.object(t.mutant), t.prog, f.cfg.judging(false))
	})
	if ratio <= oracle.SlowRatio {
		return best
	}
	v, k := best.Vercheck, best.Kernel
	reason := fmt.Sprintf("vercheck %v, kernel %v for %d insns (%.2fx, the lowest of %d tries)",
		v.Stats.Duration.Round(time.Millisecond), k.VerificationTime.Round(time.Millisecond), v.Stats.InsnProcessed, ratio, retimes+1)
	fmt.Fprintf(f.stdout, "mutant %s (%s): slow: %s\n", t.label, t.seed.name, reason)
	dir := filepath.Join(f.cfg.out, "slow", "m"+t.label)
	if err := oracle.Save(dir, t.mutant.Insns, best, f.info(t.label, t.seed, t.mutant, best, reason)); err != nil {
		fmt.Fprintf(f.stderr, "vercheck-mutate: %v\n", err)
	}
	return best
}

// lowestRatio judges a program n more times with again and returns, of
// first and those outcomes, the one whose time ratio (oracle's TimeRatio)
// is lowest, with that ratio; an outcome without a ratio is passed over.
func lowestRatio(first oracle.Outcome, n int, again func() oracle.Outcome) (oracle.Outcome, float64) {
	best := first
	ratio, _ := best.TimeRatio()
	for range n {
		o := again()
		if r, ok := o.TimeRatio(); ok && r < ratio {
			best, ratio = o, r
		}
	}
	return best, ratio
}

// kernelBugMark starts the message of the kernel's verifier_bug(): an
// internal inconsistency, reported with a WARN that taints the kernel.
const kernelBugMark = "verifier bug"

// noteKernelBug prints a mutant the kernel's verifier reported an
// internal bug on, whatever its class: a program vercheck must refuse
// with ErrKernelFault so that no comparison loads it again (the WARN is
// printed once per boot, the log message every time).
func (f *fuzzer) noteKernelBug(t trial) {
	k, v := t.outcome.Kernel, t.outcome.Vercheck
	if !strings.Contains(k.Err, kernelBugMark) {
		return
	}
	if k.Errno == syscall.EFAULT && v != nil && !v.Accepted && v.Errno() == syscall.EFAULT {
		// cilium/ebpf calls every EFAULT a verifier bug; vercheck's own
		// EFAULT rejection (the jump-sequence limit, whose log the
		// loader drops) is an agreement.
		return
	}
	f.kernelBugs++
	fmt.Fprintf(f.stdout, "mutant %s (%s): the kernel's verifier reports a bug (a WARN; guard it with ErrKernelFault): %s\n",
		t.label, t.seed.name, t.outcome.Kernel.Err)
}

// replayed names a mutant to replay: its index and which follow-up.
type replayed struct{ mutant, step int }

// parseReplayed reads "I" (mutant I) or "I.K" (its K-th follow-up).
func parseReplayed(f string) (replayed, error) {
	is, ks, hasStep := strings.Cut(f, ".")
	i, err := strconv.Atoi(is)
	k := 0
	if err == nil && hasStep {
		k, err = strconv.Atoi(ks)
	}
	if err != nil || i < 0 || k < 0 {
		return replayed{}, fmt.Errorf("-replay: bad mutant %q", f)
	}
	return replayed{i, k}, nil
}

// replay judges one mutant (or follow-up) alone, minimises it when its
// class is one record minimises, and prints it with both verdicts and
// logs, to look at a saved finding again.
func (f *fuzzer) replay(rp replayed) int {
	chain := f.judge(rp.mutant)
	if rp.step >= len(chain) {
		fmt.Fprintf(f.stderr, "vercheck-mutate: mutant %d has %d follow-ups\n", rp.mutant, len(chain)-1)
		return exitUsage
	}
	t := chain[rp.step]
	if t.err != nil {
		fmt.Fprintf(f.stderr, "vercheck-mutate: mutant %s: %v\n", t.label, t.err)
		return exitUsage
	}
	code, prog := t.mutant, t.prog
	if minimisable(t.outcome.Class) {
		code, prog = f.minimise(t)
	}
	o := oracle.Judge(t.seed.object(code), prog, f.cfg.judging(true))
	fmt.Fprintf(f.stdout, "%s\n%s\n--- vercheck\n%s\n--- kernel\n%s\n",
		f.info(t.label, t.seed, code, o, o.Reason()), oracle.Listing(code.Insns), o.Vercheck.Log, o.Kernel.Log)
	if o.Class == oracle.FalseAccept {
		return exitFalseAccept
	}
	return exitOK
}

// minimisable reports whether findings of class c are minimised: the
// ones a fix starts from.
func minimisable(c oracle.Class) bool {
	switch c {
	case oracle.FalseAccept, oracle.PruningDiffers, oracle.FalseReject, oracle.InsnsDiffer, oracle.XlatedDiffers, oracle.VercheckError, oracle.LogDiffers:
		return true
	}
	return false
}

// minimise deletes instructions from a finding while it keeps its class
// and reason; for an insn_processed difference, whose reason is the
// difference itself, only the class.
func (f *fuzzer) minimise(t trial) (mutate.Mutant, *loader.Program) {
	last := t.prog
	class, reason := t.outcome.Class, t.outcome.Reason()
	keep := func(m mutate.Mutant) bool {
		prog, err := t.seed.program(m)
		if err != nil {
			return false
		}
		o := oracle.Judge(t.seed.object(m), prog, f.cfg.judging(false))
		if o.Class != class || (class != oracle.InsnsDiffer && class != oracle.XlatedDiffers && o.Reason() != reason) {
			return false
		}
		last = prog
		return true
	}
	m := mutate.Minimise(t.mutant, keep, f.cfg.minimiseBudget)
	// last is the program of the smallest mutant kept, which is m.
	return m, last
}

// info describes a saved trial: where it came from and both verdicts.
func (f *fuzzer) info(label string, s *seed, m mutate.Mutant, o oracle.Outcome, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mutant %s of -seed %d\nseed program: %s\nclass: %s\nreason: %s\n", label, f.cfg.seed, s.name, o.Class, reason)
	for _, c := range m.Changes {
		fmt.Fprintf(&b, "change: %s\n", c)
	}
	v, k := o.Vercheck, o.Kernel
	fmt.Fprintf(&b, "vercheck: %s, insn_processed %d", v.Verdict(), v.Stats.InsnProcessed)
	if v.Err != nil {
		fmt.Fprintf(&b, ": %v", v.Err)
	}
	fmt.Fprintf(&b, "\nkernel: accepted %v, insn_processed %d: %s\n", k.Accepted, k.InsnProcessed, k.Err)
	if o.Divergence != nil {
		fmt.Fprintf(&b, "logs part %s\n", o.Divergence)
	}
	var rej *verifier.RejectError
	if kat, ok := kernelStopInsn(k.Log); ok && !k.Accepted && errors.As(v.Err, &rej) {
		// Where each verifier stopped: a false accept can hide behind a
		// message difference when the kernel stops earlier.
		fmt.Fprintf(&b, "stopped at: vercheck insn %d, kernel insn %d\n", rej.Insn, kat)
	}
	return b.String()
}

// insnLineRE matches an instruction line of a kernel log ("12: (bf) r1 = r6").
var insnLineRE = regexp.MustCompile(`(?m)^([0-9]+): \(`)

// kernelStopInsn returns the instruction the kernel's log shows last: on
// the failing path of a rejection, the one it rejected.
func kernelStopInsn(log string) (int, bool) {
	all := insnLineRE.FindAllStringSubmatch(log, -1)
	if len(all) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(all[len(all)-1][1])
	return n, err == nil
}

// findingLogLines is how much of the kernel's log a finding shows.
const findingLogLines = 40

// appendFinding appends a false accept or a pruning difference, minimised,
// to the findings file.
func (f *fuzzer) appendFinding(label string, s *seed, m mutate.Mutant, o oracle.Outcome, reason string) error {
	fh, err := os.OpenFile(f.cfg.findings, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("findings: %w", err)
	}
	defer fh.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "\n## %s (%s)\n\n", reason, strings.Join(m.Operators, ", "))
	fmt.Fprintf(&b, "mutant %s of `-seed %d`, seed program `%s` (%s)\n\n", label, f.cfg.seed, s.name, s.prog.Type)
	for _, c := range m.Changes {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	who, log := "kernel", o.Kernel.Log
	if o.Class == oracle.PruningDiffers {
		// o.Vercheck is the verification without checkpoints.
		fmt.Fprintf(&b, "\nkernel: no verdict (`%s`); vercheck accepts, and rejects without voluntary checkpoints: `%s`\n\n```\n%s```\n",
			o.Kernel.Err, verifier.DecisiveLine(o.Vercheck.Err), oracle.Listing(m.Insns))
		who, log = "vercheck without checkpoints", o.Vercheck.Log
	} else {
		fmt.Fprintf(&b, "\nkernel: `%s`; vercheck accepts (insn_processed %d)\n\n```\n%s```\n", o.Kernel.Err, o.Vercheck.Stats.InsnProcessed, oracle.Listing(m.Insns))
	}
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) > findingLogLines {
		lines = lines[len(lines)-findingLogLines:]
	}
	fmt.Fprintf(&b, "\n%s log (end):\n\n```\n%s\n```\n", who, strings.Join(lines, "\n"))
	if _, err := fh.WriteString(b.String()); err != nil {
		return fmt.Errorf("findings: %w", err)
	}
	return nil
}

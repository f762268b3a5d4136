// Package oracle compares vercheck with the running kernel's verifier on
// one program at a time, for the differential testers (cmd/vercheck-diff,
// cmd/vercheck-mutate): it runs both, sorts the pair of verdicts into an
// outcome class, tallies the classes with their most common reasons, and
// saves disagreeing programs with both logs.
package oracle

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/logdiff"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// Class is the outcome of running one program through both verifiers.
type Class int

// Outcome classes. The first four are agreements; the rest are findings,
// the worst first.
const (
	// BothAccept: both accept, with the same insn_processed.
	BothAccept Class = iota
	// BothReject: both reject, with the same message.
	BothReject
	// KernelNoLoad: the kernel refused the program before its verifier
	// gave a verdict (no "processed" line): map creation, BTF, program
	// type or attach target. Not a rejection.
	KernelNoLoad
	// Unsupported: vercheck does not model a feature the program uses.
	Unsupported
	// BothSlow: vercheck reached its time limit on a program the kernel
	// itself took longer than that limit to verify, and vercheck was not
	// more than twice as slow per processed instruction: a limit too
	// short for the program, not vercheck being slow.
	BothSlow
	// FalseAccept: vercheck accepts, the kernel rejects with a verifier
	// message. The worst bug vercheck can have.
	FalseAccept
	// PruningDiffers: the kernel gave no verdict, and vercheck accepts
	// with its pruning but rejects with no voluntary checkpoints
	// (Options.SelfCheck): a path was pruned against a checkpoint that
	// did not subsume it. A false accept found without the kernel.
	PruningDiffers
	// VercheckError: vercheck failed (an internal error or a panic).
	VercheckError
	// VercheckHang: vercheck did not finish within the time limit.
	VercheckHang
	// FalseReject: vercheck rejects, the kernel accepts.
	FalseReject
	// MessageDiffers: both reject, with different messages.
	MessageDiffers
	// ErrnoDiffers: both reject with the same message, but bpf() would
	// return another error number than vercheck's Result.Errno, which a
	// loader branches on.
	ErrnoDiffers
	// InsnsDiffer: both accept, with different insn_processed.
	InsnsDiffer
	// XlatedDiffers: both accept alike, but the program the kernel's
	// rewrites leave (xlated_prog_len) is not as long as vercheck's
	// replay of them says (Stats.XlatedInsns): a rewrite length modelled
	// wrong, which decides the 16-bit jump range refusal of long programs.
	XlatedDiffers
	// LogDiffers: both verifiers judge alike (the same verdict, figures
	// and message), but their level-2 logs show a different state or
	// search (Options.CompareLogs): a divergence of the abstract domain
	// that has not decided a verdict yet.
	LogDiffers
	numClasses
)

var classNames = [numClasses]string{
	BothAccept: "both-accept", BothReject: "both-reject", KernelNoLoad: "kernel-no-load",
	Unsupported: "unsupported", BothSlow: "both-slow", FalseAccept: "false-accept", PruningDiffers: "pruning-differs", VercheckError: "vercheck-error",
	VercheckHang: "vercheck-hang", FalseReject: "false-reject", MessageDiffers: "message-differs", ErrnoDiffers: "errno-differs",
	InsnsDiffer: "insns-differ", XlatedDiffers: "xlated-differs", LogDiffers: "log-differs",
}

// String returns the class's name, also used as a directory name.
func (c Class) String() string {
	if c >= 0 && c < numClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Finding reports whether the class is a disagreement worth a look.
func (c Class) Finding() bool { return c >= FalseAccept }

// Outcome is both verdicts on one program and their class.
type Outcome struct {
	Class    Class
	Vercheck *verifier.Result
	Kernel   kernel.Result
	// Divergence is where the level-2 logs of a LogDiffers outcome part
	// (Vercheck.Log and Kernel.Log are then those logs).
	Divergence *logdiff.Divergence
}

// hangGrace is how much longer than its own time limit vercheck may run
// before Judge stops waiting: vercheck checks its limit between
// instructions, so a loop inside one instruction would never end.
const hangGrace = 2

// Options control Judge.
type Options struct {
	// Timeout bounds vercheck's time on one program (0: no bound).
	Timeout time.Duration
	// Logs keeps the logs of both failing paths (vercheck's log level 1,
	// the kernel's branch level, which costs a second load of a rejected
	// program). Without it, the outcome holds only the messages and the
	// kernel's stats-level log.
	Logs bool
	// MissingFixes are the stable fixes the kernel lacks (stablefix.Probe):
	// vercheck is compared under the semantics of the kernel it runs next to.
	MissingFixes stablefix.Set
	// CompareLogs, when positive, compares vercheck's and the kernel's
	// level-2 logs (package logdiff) of every program both judge alike
	// that processed at most CompareLogs instructions; a difference
	// makes the outcome LogDiffers. It costs a second load and a second
	// verification at log level 2.
	CompareLogs int
	// SelfCheck verifies a program the kernel gives no verdict on
	// (KernelNoLoad: a program type this build refuses, a module it
	// lacks) and vercheck accepts a second time, under
	// prune.NoCheckpointPolicy; a rejection short of the complexity
	// limit makes the outcome PruningDiffers. It is the only oracle for
	// such programs.
	SelfCheck bool
}

// Judge verifies prog of obj with vercheck and loads it into the kernel,
// and classifies the pair.
func Judge(obj *loader.Object, prog *loader.Program, opts Options) Outcome {
	load, level := kernel.LoadProgramVerdict, 0
	if opts.Logs {
		load, level = kernel.LoadProgram, 1
	}
	vres, hung := verifyWithin(obj, prog, verifier.Options{Timeout: opts.Timeout, LogLevel: level, MissingFixes: opts.MissingFixes})
	kres := kernel.Result{Program: prog.Name, NotLoaded: true, Err: "not loaded: " + verifier.ErrKernelFault.Error()}
	if vres == nil || !errors.Is(vres.Err, verifier.ErrKernelFault) {
		// A program vercheck knows the kernel's verifier faults on is
		// never loaded: the oops would take the load (and this process)
		// with it.
		kres = loadWithin(load, obj, prog)
	}
	o := Outcome{Vercheck: vres, Kernel: kres}
	o.Class = classify(vres, kres, hung)
	if o.Class == VercheckHang && kernelAsSlow(vres, kres, opts.Timeout) {
		o.Class = BothSlow
	}
	if o.Class == KernelNoLoad && opts.SelfCheck && vres.Accepted {
		selfCheck(&o, obj, prog, opts)
	}
	if (o.Class == BothAccept || o.Class == BothReject) && opts.CompareLogs > 0 && vres.Stats.InsnProcessed <= opts.CompareLogs {
		compareLogs(&o, obj, prog, opts)
	}
	return o
}

// selfCheck verifies prog again with no voluntary checkpoints and makes o
// PruningDiffers, with that verification as o.Vercheck, when it rejects
// the program short of a limit. Pruning only skips paths a checkpoint
// subsumes, so without it every path the first verification pruned is
// walked: a rejection there is an unsafe path the first one never saw.
// A complexity limit or a timeout says nothing (without checkpoints
// loops run to the limit).
func selfCheck(o *Outcome, obj *loader.Object, prog *loader.Program, opts Options) {
	policy := prune.NoCheckpointPolicy()
	level := 0
	if opts.Logs {
		level = 1
	}
	vres, hung := verifyWithin(obj, prog, verifier.Options{Timeout: opts.Timeout, LogLevel: level, MissingFixes: opts.MissingFixes, Policy: &policy})
	if hung || vres.Accepted || vres.Verdict() != "rejected" || errors.Is(vres.Err, verifier.ErrComplexityLimit) {
		return
	}
	o.Class, o.Vercheck = PruningDiffers, vres
}

// compareLogs verifies prog again at log level 2, loads it again with the
// kernel's level-2 log, and makes o LogDiffers, with both logs, when the
// logs part. A load that gives no log leaves o as it is.
func compareLogs(o *Outcome, obj *loader.Object, prog *loader.Program, opts Options) {
	vres, hung := verifyWithin(obj, prog, verifier.Options{Timeout: opts.Timeout, LogLevel: 2, MissingFixes: opts.MissingFixes})
	if hung || vres.Verdict() != o.Vercheck.Verdict() {
		return
	}
	klog, err := kernel.ProgramLog(obj, prog, 2)
	if err != nil || klog == "" {
		return
	}
	if d := logdiff.CompareKept(vres.Log, vres.LogTruncated, klog); d != nil {
		o.Class, o.Divergence = LogDiffers, d
		o.Vercheck = vres
		o.Kernel.Log = klog
	}
}

// verifyWithin runs vercheck and gives up waiting after hangGrace times
// its limit; the verification then goes on in the background. Over its
// time or state-memory limit, vercheck hung.
func verifyWithin(obj *loader.Object, prog *loader.Program, opts verifier.Options) (*verifier.Result, bool) {
	timeout := opts.Timeout
	done := make(chan *verifier.Result, 1)
	go func() { done <- verifier.Verify(obj, prog, opts) }()
	if timeout <= 0 {
		return <-done, false
	}
	select {
	case r := <-done:
		return r, errors.Is(r.Err, verifier.ErrTimeout) || errors.Is(r.Err, verifier.ErrMemoryLimit)
	case <-time.After(hangGrace * timeout):
		return &verifier.Result{Program: prog.Name, Err: fmt.Errorf("no result after %v: %w", hangGrace*timeout, verifier.ErrTimeout)}, true
	}
}

// kernelLoadWait is how long Judge waits for the kernel's verdict. The
// kernel stops its own verifier at 1M instructions, seconds in; a load
// that has not returned long after that never will: the kernel's
// verifier oopsed and took the loading thread with it. Judge then
// reports the program as not loaded and goes on, so that one oops no
// longer stops a whole run.
const kernelLoadWait = 3 * time.Minute

// loadHungPrefix starts the error of a kernel load that did not return.
const loadHungPrefix = "kernel load did not return after"

// KernelHung reports whether the kernel's load of the program never
// returned: its verifier most likely oopsed on it, and loading it again
// would oops the kernel again.
func (o Outcome) KernelHung() bool {
	return o.Kernel.NotLoaded && strings.HasPrefix(o.Kernel.Err, loadHungPrefix)
}

// loadWithin runs load and waits at most kernelLoadWait for its result;
// a load that does not return is left behind.
func loadWithin(load func(*loader.Object, *loader.Program) kernel.Result, obj *loader.Object, prog *loader.Program) kernel.Result {
	done := make(chan kernel.Result, 1)
	go func() { done <- load(obj, prog) }()
	select {
	case r := <-done:
		return r
	case <-time.After(kernelLoadWait):
		return kernel.Result{Program: prog.Name, NotLoaded: true,
			Err: fmt.Sprintf("%s %v (its verifier faulted? see dmesg)", loadHungPrefix, kernelLoadWait)}
	}
}

// slowerFactor is how much slower per processed instruction than the
// kernel vercheck may be before a timeout counts as a hang.
const slowerFactor = 2

// kernelAsSlow reports whether a vercheck timeout is the limit's doing:
// vercheck stopped itself at its limit (it did not hang inside an
// instruction), the kernel's own verification took longer than that
// limit, and vercheck processed instructions at least half as fast.
func kernelAsSlow(v *verifier.Result, k kernel.Result, timeout time.Duration) bool {
	if timeout <= 0 || k.NotLoaded || k.VerificationTime < timeout || v.Stats.InsnProcessed == 0 || k.InsnProcessed == 0 {
		return false
	}
	perV := float64(v.Stats.Duration) / float64(v.Stats.InsnProcessed)
	perK := float64(k.VerificationTime) / float64(k.InsnProcessed)
	return perV <= slowerFactor*perK
}

// classify sorts a pair of verdicts into its class.
func classify(v *verifier.Result, k kernel.Result, hung bool) Class {
	switch verdict := v.Verdict(); {
	case verdict == "memory" && k.NotLoaded:
		// Both ran out of memory (the kernel's ENOMEM), or the kernel
		// gave no verdict anyway.
		return KernelNoLoad
	case hung:
		return VercheckHang
	case verdict == "error":
		return VercheckError
	case k.NotLoaded && v.Accepted && k.Errno == syscall.EFAULT:
		// EFAULT from the load of a program vercheck accepts: the kernel's
		// verifier refused it by one of its verifier_bug paths (during
		// do_check or in the rewrites after it, jit_subprogs' "No program
		// to jit") or with its jump-sequence limit, whose log cilium/ebpf
		// drops. A program vercheck accepts and the kernel refuses.
		return FalseAccept
	case k.NotLoaded:
		return KernelNoLoad
	case verdict == "unsupported":
		return Unsupported
	case v.Accepted && !k.Accepted:
		return FalseAccept
	case !v.Accepted && k.Accepted:
		return FalseReject
	case v.Accepted && v.Stats.InsnProcessed != k.InsnProcessed:
		return InsnsDiffer
	case v.Accepted && v.Stats.XlatedInsns > 0 && k.XlatedInsns > 0 && v.Stats.XlatedInsns != k.XlatedInsns:
		return XlatedDiffers
	case v.Accepted:
		return BothAccept
	case SameMessage(verifier.DecisiveLine(v.Err), k.Err):
		if k.Errno != 0 && v.Errno() != k.Errno && !ProcessErrno(k.Err) {
			return ErrnoDiffers
		}
		return BothReject
	default:
		return MessageDiffers
	}
}

// ProcessErrno reports whether the errno of the rejection with message
// msg depends on the loading process rather than the program: a map
// descriptor that is no map is EINVAL where the descriptor is open and
// EBADF where it is closed (__bpf_map_get), which vercheck cannot see.
func ProcessErrno(msg string) bool {
	return strings.HasPrefix(msg, "fd ") && strings.HasSuffix(msg, "is not pointing to valid bpf_map")
}

// SameMessage reports whether vercheck's rejection message agrees with
// the kernel's decisive line (see kernel.DecisiveLine): the line is one
// of the lines of vercheck's message, which like the kernel's log may
// take two lines ("invalid access ..." then "R1 offset is outside of the
// packet").
func SameMessage(vercheckMsg, kernelLine string) bool {
	want := strings.TrimSpace(kernelLine)
	for _, line := range strings.Split(vercheckMsg, "\n") {
		if strings.TrimSpace(line) == want {
			return true
		}
	}
	return false
}

// numberRE matches numbers, which Reason blanks so that reasons group.
var numberRE = regexp.MustCompile(`-?[0-9]+`)

// Reason returns what the outcome's class turns on, with numbers
// blanked so that similar outcomes share it: the kernel's message for a
// false accept or a rejection both make, vercheck's for a false reject (for a pruning difference,
// its rejection without checkpoints), both for differing messages, vercheck's error or unsupported feature, the kernel's setup
// error.
func (o Outcome) Reason() string {
	var r string
	switch o.Class {
	case FalseAccept, BothReject:
		r = o.Kernel.Err
	case FalseReject, PruningDiffers:
		r = lastLine(o.Vercheck.Err.Error())
	case MessageDiffers:
		r = lastLine(o.Vercheck.Err.Error()) + "  <->  " + o.Kernel.Err
	case ErrnoDiffers:
		r = fmt.Sprintf("%s: %s  <->  %s", o.Kernel.Err, verifier.ErrnoName(o.Vercheck.Errno()), verifier.ErrnoName(o.Kernel.Errno))
	case VercheckError, Unsupported:
		r = firstLine(o.Vercheck.Err.Error())
	case KernelNoLoad:
		r = o.Kernel.Err
	case InsnsDiffer:
		return fmt.Sprintf("%+d", o.Vercheck.Stats.InsnProcessed-o.Kernel.InsnProcessed)
	case XlatedDiffers:
		return fmt.Sprintf("%+d", o.Vercheck.Stats.XlatedInsns-o.Kernel.XlatedInsns)
	case LogDiffers:
		return divergenceReason(o.Divergence)
	}
	return numberRE.ReplaceAllString(r, "N")
}

// opcodeRE finds an instruction's opcode in a log line ("(bf)").
var opcodeRE = regexp.MustCompile(`\([0-9a-f]{2}\)`)

// divergenceReason groups log divergences: the kind, the opcode of the
// instruction before it, and for a state the register or slot and the
// kinds of both values ("state after (07): R scalar/pkt").
func divergenceReason(d *logdiff.Divergence) string {
	op := opcodeRE.FindString(d.Insn)
	if d.Kind != logdiff.State {
		return numberRE.ReplaceAllString(fmt.Sprintf("%s after %s: %.60s  <->  %.60s", d.Kind, op, d.Vercheck, d.Kernel), "N")
	}
	kindOf := func(v string) string {
		k, _, _ := strings.Cut(v, "(")
		return numberRE.ReplaceAllString(k, "N")
	}
	return fmt.Sprintf("state after %s: %s %s/%s", op, strings.TrimRight(d.Name, "-0123456789"), kindOf(d.Vercheck), kindOf(d.Kernel))
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

// firstLine returns the first line of s (a panic's message before its
// stack trace).
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

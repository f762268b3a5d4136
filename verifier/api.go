package verifier

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/profile"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
	"github.com/vercheck/vercheck/why"
)

// Kernel limits reproduced by vercheck.
const (
	// MaxProcessedInsns is BPF_COMPLEXITY_LIMIT_INSNS: the most
	// instructions one verification may simulate, over all paths.
	MaxProcessedInsns = 1_000_000
	// MaxJmpSeq is BPF_COMPLEXITY_LIMIT_JMP_SEQ: the most pending branch
	// states at once.
	MaxJmpSeq = 8192
	// DefaultMaxStateBytes is Options.MaxStateBytes's default. Programs
	// the kernel verifies store up to some 300,000 states (a tracing
	// program at 688k insns under BPF_F_TEST_STATE_FREQ: 1.3 GB of RSS,
	// past 1 GiB by this count); the kernel holds as much itself.
	DefaultMaxStateBytes = 4 << 30
	// maxVarOff is BPF_MAX_VAR_OFF: the largest offset pointer
	// arithmetic may produce.
	maxVarOff = 1 << 29
)

// Sentinel errors callers may test with errors.Is.
var (
	// ErrComplexityLimit: the processed-instruction or jump-sequence limit
	// was reached.
	ErrComplexityLimit = errors.New("complexity limit reached")
	// ErrUnsupported: the program uses a feature vercheck does not model.
	ErrUnsupported = errors.New("unsupported")
	// ErrTimeout: the per-program time limit ran out.
	ErrTimeout = errors.New("time limit reached")
	// ErrMemoryLimit: the stored states outgrew Options.MaxStateBytes.
	// The kernel has no such limit: it goes on until an allocation fails
	// (ENOMEM, a load without a verdict) or its own limits stop it, which
	// can take it minutes and tens of gigabytes of kernel memory. So
	// this, like a timeout, is no verdict.
	ErrMemoryLimit = errors.New("state memory limit reached")
	// ErrKernelFault: an unsupported program the running kernel's own
	// verifier is known to fault on (an oops, and a load that never
	// returns): it must not be loaded to compare. It is also
	// ErrUnsupported.
	ErrKernelFault = fmt.Errorf("%w: the kernel's verifier faults on it", ErrUnsupported)
	// ErrMapCreate: the program uses a map the kernel refuses to create
	// (a loader.MapCreateError says why, and errors.As finds it): the
	// load fails before the verifier runs, so there is no verdict. It is
	// also ErrUnsupported.
	ErrMapCreate = fmt.Errorf("%w: the kernel refuses to create a map the program uses", ErrUnsupported)
	// ErrInternal: vercheck itself failed (a bug); the program's verdict
	// is unknown.
	ErrInternal = errors.New("internal error")
)

// Options control one verification.
type Options struct {
	// Policy is the pruning policy; the zero value means the kernel's.
	Policy *prune.Policy
	// Timeout bounds the wall time of one program's verification (0: none).
	Timeout time.Duration
	// LogLevel 0 keeps no log, 1 keeps the failing path, 2 every state.
	LogLevel int
	// MaxStateBytes caps the memory of the states stored over one
	// verification, evicted ones included, as vercheck estimates it; past
	// it, verification stops with ErrMemoryLimit, no verdict. 0 means
	// DefaultMaxStateBytes, a negative value no cap.
	MaxStateBytes int64
	// MissingFixes are the 6.18.y stable fixes the target kernel lacks
	// (package stablefix). The zero value applies every fix: the
	// strictest semantics, never accepting what any 6.18.y build rejects.
	// Set it from stablefix.Probe to follow the kernel running here.
	MissingFixes stablefix.Set
	// Profile asks for the search's profile in Result.Profile: visits,
	// stored states, hits, misses and evictions per instruction, and why
	// stored states did not match (package profile). It costs time and
	// memory; without it the verifier only tests a nil pointer at its
	// hooks.
	Profile bool
	// Why asks, for a rejection, for its explanation in Result.Why: the
	// failing path's instructions and branch decisions, and the backward
	// slice from the faulting register to the instruction that gave it
	// its kind or range (package why). It records every path's registers
	// as the walk goes; without it the verifier only tests a nil pointer
	// per instruction.
	Why bool
	// MapBTF is the BTF the loader creates maps with, which decides what
	// the kernel makes of graph roots in map values (graph.go). The zero
	// value is libbpf's, the loader of nearly every program with graph
	// roots in its maps.
	MapBTF MapBTF
	// Kernel holds the facts of the target kernel's build that change
	// which helpers a program may call (CONFIG_BPF_KPROBE_OVERRIDE, the
	// lockdown level) and whether a JIT runs it (an interpreting kernel
	// refuses kfuncs, arenas, callbacks). nil means the running kernel's
	// (RunningBuild).
	Kernel *helpers.Build
	// Observe, when set, is called with the abstract state before every
	// simulated instruction (after pruning decided to go on). It must not
	// keep or modify st. It exposes the abstract domain raw, for soundness
	// checks by concrete execution (internal/soundness); Profile is the
	// supported view of the search for tools and reports.
	Observe func(insnIdx int, st *states.State)

	// packAllPending stores every pending branch packed
	// (states.Pool.ClonePacked), not only those beyond the
	// packPendingAfter-th: tests check with it that the layout changes no
	// figure.
	packAllPending bool
}

// stateMemoryLimit is the state-memory limit in force (0: none).
func (o *Options) stateMemoryLimit() int64 {
	switch {
	case o.MaxStateBytes < 0:
		return 0
	case o.MaxStateBytes == 0:
		return DefaultMaxStateBytes
	}
	return o.MaxStateBytes
}

// MapBTF names the BTF a loader creates a map with: the kernel finds the
// special fields of its values in it (map_check_btf), and graph roots
// (bpf_list_head, bpf_rb_root) name the struct of their nodes there by
// name.
type MapBTF uint8

// The loaders' map BTFs.
const (
	// MapBTFDefault is the loader's own: libbpf's (MapBTFObject) for the
	// verifier and for object files; vercheck's entries for cilium/ebpf
	// specs make it MapBTFKeyValue.
	MapBTFDefault MapBTF = iota
	// MapBTFObject is libbpf's: every map is created with the object's
	// whole BTF, the very BTF object the programs are loaded with.
	MapBTFObject
	// MapBTFKeyValue is cilium/ebpf's: each map is created with a BTF of
	// its key and value types alone, a BTF object of its own.
	MapBTFKeyValue
)

// sharedWithProgram reports whether maps are created with the programs'
// own BTF object (libbpf's way), so that the program's types and the
// map's are the same types (btf_struct_ids_match).
func (m MapBTF) sharedWithProgram() bool {
	return m != MapBTFKeyValue
}

// Stats are the kernel's verification figures plus vercheck's own.
type Stats struct {
	InsnProcessed    int
	MaxStatesPerInsn int
	TotalStates      int
	PeakStates       int
	// StackDepth is the stack depth of each subprogram, in order, as the
	// kernel's "stack depth" line prints it: after an accept, without the
	// subprograms no path reached (the kernel removes them as dead code)
	// and with the hidden default exception callback of a program that
	// may throw.
	StackDepth []int
	// XlatedInsns is the length of the program after the kernel's
	// rewrites of an accepted program (bpf_prog_info's xlated_prog_len in
	// instructions): 0 when a rewrite's length is not modelled.
	XlatedInsns int
	Duration    time.Duration
	// Hits and Misses count prune-point lookups; Evicted the states dropped.
	Hits, Misses, Evicted int
}

// Result is the outcome of verifying one program.
type Result struct {
	Object   string
	Program  string
	Section  string
	Type     ebpf.ProgramType
	Accepted bool
	Stats    Stats
	// Err is nil when the program was accepted; otherwise a *RejectError
	// (errors.As) or an error wrapping ErrUnsupported/ErrInternal/ErrTimeout/
	// ErrMemoryLimit.
	Err error
	// Log is the kernel-style log when Options.LogLevel > 0.
	Log string
	// LogTruncated says that Log is only the last 16 MiB of a longer log,
	// as the kernel's rotating log keeps a buffer's worth: its first line
	// may start mid-line.
	LogTruncated bool
	// Profile is the search's profile when Options.Profile is set and the
	// program got as far as being walked (nil when it was refused before:
	// an invalid instruction, an unsupported program type...).
	Profile *profile.Profile
	// Why explains a rejection when Options.Why is set (nil for an
	// accepted program).
	Why *why.Explanation
}

// Verdict is "accepted", "rejected", "unsupported", "timeout" (the
// Options.Timeout ran out: no verdict, unlike the kernel's complexity
// limits, which are rejections), "memory" (Options.MaxStateBytes ran
// out: no verdict either) or "error".
func (r *Result) Verdict() string {
	switch {
	case r.Accepted:
		return "accepted"
	case errors.Is(r.Err, ErrTimeout):
		return "timeout"
	case errors.Is(r.Err, ErrMemoryLimit):
		return "memory"
	case errors.Is(r.Err, ErrUnsupported):
		return "unsupported"
	case errors.Is(r.Err, ErrInternal):
		return "error"
	default:
		return "rejected"
	}
}

// RejectError is a rejection: the instruction, its source line, the
// kernel-style message and the register state at that point.
type RejectError struct {
	Insn int
	Line loader.Line
	Msg  string
	// State is the verifier state at the failing instruction, in the
	// kernel's log format.
	State string
	// kind is a sentinel (ErrUnsupported, ErrComplexityLimit...) or nil.
	kind error
	// errno, when set, is the kernel's error number for this rejection
	// where the message alone does not decide it (see Result.Errno).
	errno syscall.Errno
	// preceding, for a rejection the kernel logs no message for, is the
	// last line its log holds at every level before it (see
	// DecisiveLine).
	preceding string
	// hint, when set, is Hint's answer: the explanation of a rejection
	// whose message (often none) cannot carry it.
	hint string
}

// DecisiveLine is what the kernel's log shows as the reason for err (see
// kernel.DecisiveLine), to compare with it: a rejection's message, or,
// for a rejection the kernel refuses without a message (bpf_snprintf
// given a data length that is no multiple of 8), the last line the kernel
// logs at every level before it, such as the warning on the main
// function's prototype, or nothing.
func DecisiveLine(err error) string {
	var re *RejectError
	if errors.As(err, &re) {
		// A rejection wrapped with context (Verify's note that it is
		// cilium/ebpf's relocation of the program) is still its message.
		if re.Msg == "" {
			return re.preceding
		}
		return re.Msg
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// Error returns the kernel-style message (for an unsupported feature, it
// starts with "unsupported:").
func (e *RejectError) Error() string { return e.Msg }

// Unwrap returns the rejection's kind sentinel, if any.
func (e *RejectError) Unwrap() error { return e.kind }

// Where formats the location of the rejection: "file:line: insn N".
func (e *RejectError) Where() string {
	if e.Line.File != "" {
		return fmt.Sprintf("%s:%d: insn %d", e.Line.File, e.Line.Line, e.Insn)
	}
	return fmt.Sprintf("insn %d", e.Insn)
}

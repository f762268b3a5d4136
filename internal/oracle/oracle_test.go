package oracle

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/logdiff"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

func accepted(insns int) *verifier.Result {
	return &verifier.Result{Accepted: true, Stats: verifier.Stats{InsnProcessed: insns}}
}

func rejected(msg string) *verifier.Result {
	return &verifier.Result{Err: &verifier.RejectError{Msg: msg}}
}

func failed(sentinel error) *verifier.Result {
	return &verifier.Result{Err: fmt.Errorf("%w: boom 12\nstack", sentinel)}
}

func kAccepted(insns int) kernel.Result { return kernel.Result{Accepted: true, InsnProcessed: insns} }

func kRejected(msg string) kernel.Result { return kernel.Result{Err: msg, InsnProcessed: 3} }

var kNoLoad = kernel.Result{NotLoaded: true, Err: "load x: bad address"}

// TestClassify checks every class and its reason.
func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		v      *verifier.Result
		k      kernel.Result
		hung   bool
		class  Class
		reason string
	}{
		{"both accept", accepted(7), kAccepted(7), false, BothAccept, ""},
		{"insns differ", accepted(9), kAccepted(7), false, InsnsDiffer, "+2"},
		{"rewritten lengths differ", xlated(accepted(7), 12), xlatedK(kAccepted(7), 10), false, XlatedDiffers, "+2"},
		{"rewritten length unknown", accepted(7), xlatedK(kAccepted(7), 10), false, BothAccept, ""},
		{"both reject", rejected("R0 !read_ok"), kRejected("R0 !read_ok"), false, BothReject, "RN !read_ok"},
		{"two-line message", rejected("invalid access to packet, off=0 size=1\nR1 offset is outside of the packet"),
			kRejected("R1 offset is outside of the packet"), false, BothReject, "RN offset is outside of the packet"},
		{"messages differ", rejected("R1 type=fp expected=map_ptr"), kRejected("invalid bpf_context access off=4 size=4"), false,
			MessageDiffers, "RN type=fp expected=map_ptr  <->  invalid bpf_context access off=N size=N"},
		{"errnos differ", rejected("div by zero"), kernel.Result{Err: "div by zero", Errno: syscall.EACCES}, false,
			ErrnoDiffers, "div by zero: EINVAL  <->  EACCES"},
		{"same errno", rejected("div by zero"), kernel.Result{Err: "div by zero", Errno: syscall.EINVAL}, false, BothReject, "div by zero"},
		{"the loading process's descriptor", rejected("fd 1000 is not pointing to valid bpf_map"),
			kernel.Result{Err: "fd 1000 is not pointing to valid bpf_map", Errno: syscall.EBADF}, false, BothReject, "fd N is not pointing to valid bpf_map"},
		{"false accept", accepted(3), kRejected("invalid bpf_context access off=4 size=4"), false,
			FalseAccept, "invalid bpf_context access off=N size=N"},
		{"false reject", rejected("R2 min value is negative"), kAccepted(3), false, FalseReject, "RN min value is negative"},
		{"kernel could not load", accepted(3), kNoLoad, false, KernelNoLoad, "load x: bad address"},
		{"kernel EFAULT on an accepted program", accepted(3), kernel.Result{NotLoaded: true, Errno: syscall.EFAULT, Err: "kernel could not load (EFAULT): load x: bad address"}, false,
			FalseAccept, "kernel could not load (EFAULT): load x: bad address"},
		{"kernel EFAULT on a rejected program", rejected("R0 !read_ok"), kernel.Result{NotLoaded: true, Errno: syscall.EFAULT, Err: "kernel could not load (EFAULT): load x: bad address"}, false,
			KernelNoLoad, "kernel could not load (EFAULT): load x: bad address"},
		{"unsupported", failed(verifier.ErrUnsupported), kAccepted(3), false, Unsupported, "unsupported: boom N"},
		{"internal error", failed(verifier.ErrInternal), kNoLoad, false, VercheckError, "internal error: boom N"},
		{"hang", failed(verifier.ErrTimeout), kAccepted(3), true, VercheckHang, ""},
		{"over the state-memory limit", failed(verifier.ErrMemoryLimit), kRejected("R0 !read_ok"), true, VercheckHang, ""},
		{"both out of memory", failed(verifier.ErrMemoryLimit), kernel.Result{NotLoaded: true, Errno: syscall.ENOMEM, Err: "kernel could not load (ENOMEM): cannot allocate memory"}, true,
			KernelNoLoad, "kernel could not load (ENOMEM): cannot allocate memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Outcome{Class: classify(tt.v, tt.k, tt.hung), Vercheck: tt.v, Kernel: tt.k}
			if o.Class != tt.class {
				t.Fatalf("class %v, want %v", o.Class, tt.class)
			}
			if diff := cmp.Diff(tt.reason, o.Reason()); diff != "" {
				t.Errorf("reason mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTally: the table counts every class and lists the reasons of
// findings by frequency.
func TestTally(t *testing.T) {
	var tl Tally
	fa := Outcome{Class: FalseAccept, Vercheck: accepted(1), Kernel: kRejected("invalid bpf_context access off=4 size=4")}
	tl.Add(fa)
	tl.Add(fa)
	tl.Add(Outcome{Class: BothAccept, Vercheck: accepted(1), Kernel: kAccepted(1)})
	tl.Add(Outcome{Class: LogDiffers, Vercheck: accepted(1), Kernel: kAccepted(1), Divergence: &logdiff.Divergence{
		Kind: logdiff.State, Insn: "3: (07) r1 += 8", Name: "R1", Vercheck: "pkt(r=8)", Kernel: "scalar(umax=8)"}})
	var b bytes.Buffer
	tl.Print(&b)
	for _, want := range []string{
		"kernel verdicts: 4 of 4 programs, 50.0% accepted",
		"false-accept (1 reasons):\n       2  invalid bpf_context access off=N size=N",
		"log-differs (1 reasons):\n       1  state after (07): R pkt/scalar",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if got := tl.Count(FalseAccept); got != 2 {
		t.Errorf("false accepts %d, want 2", got)
	}
}

// TestTallyBigPrograms: programs both verifiers took past BigInsns
// instructions are timed against the kernel; smaller ones are not.
func TestTallyBigPrograms(t *testing.T) {
	timed := func(insns int, v, k time.Duration) Outcome {
		r := accepted(insns)
		r.Stats.Duration = v
		kr := kAccepted(insns)
		kr.VerificationTime = k
		return Outcome{Class: BothAccept, Vercheck: r, Kernel: kr}
	}
	var tl Tally
	tl.Add(timed(BigInsns, 10*time.Millisecond, 40*time.Millisecond))
	tl.Add(timed(BigInsns+5, 30*time.Millisecond, 10*time.Millisecond))
	tl.Add(timed(BigInsns*2, 10*time.Millisecond, 20*time.Millisecond))
	tl.Add(timed(BigInsns-1, time.Second, time.Millisecond))
	var b bytes.Buffer
	tl.Print(&b)
	want := fmt.Sprintf("programs both verified past %d insns: 3; vercheck/kernel time median 0.50, max 3.00, over 2x: 1", BigInsns)
	if !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
}

func TestClassNames(t *testing.T) {
	for c := range numClasses {
		if classNames[c] == "" {
			t.Errorf("class %d has no name", c)
		}
	}
	if got := Class(-1).String(); got != "Class(-1)" {
		t.Errorf("invalid class renders as %q", got)
	}
	if !errors.Is(failed(verifier.ErrTimeout).Err, verifier.ErrTimeout) {
		t.Fatal("test helper does not wrap")
	}
}

// TestKernelAsSlow: a vercheck timeout is the limit's doing only when the
// kernel took longer than the limit and vercheck was at most twice as
// slow per processed instruction.
func TestKernelAsSlow(t *testing.T) {
	stopped := func(insns int, d time.Duration) *verifier.Result {
		return &verifier.Result{Stats: verifier.Stats{InsnProcessed: insns, Duration: d}}
	}
	slowKernel := kernel.Result{InsnProcessed: 1000001, VerificationTime: 22 * time.Second}
	tests := []struct {
		name string
		v    *verifier.Result
		k    kernel.Result
		want bool
	}{
		{"faster per insn than the kernel", stopped(548865, 3*time.Second), slowKernel, true},
		{"over twice as slow per insn", stopped(221185, 10*time.Second), slowKernel, false},
		{"the kernel finished within the limit", stopped(548865, 3*time.Second), kernel.Result{InsnProcessed: 1000001, VerificationTime: 2 * time.Second}, false},
		{"no result at all", &verifier.Result{}, slowKernel, false},
		{"the kernel gave no verdict", stopped(548865, 3*time.Second), kernel.Result{NotLoaded: true, VerificationTime: 22 * time.Second}, false},
	}
	for _, tt := range tests {
		if got := kernelAsSlow(tt.v, tt.k, 3*time.Second); got != tt.want {
			t.Errorf("%s: kernelAsSlow = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLoadWithin: a load that returns gives its result.
func TestLoadWithin(t *testing.T) {
	want := kernel.Result{Program: "p", Accepted: true, InsnProcessed: 3}
	got := loadWithin(func(*loader.Object, *loader.Program) kernel.Result { return want }, nil, &loader.Program{Name: "p"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loadWithin mismatch (-want +got):\n%s", diff)
	}
}

// TestKernelHung checks which outcomes are loads that never returned.
func TestKernelHung(t *testing.T) {
	tests := []struct {
		name   string
		kernel kernel.Result
		want   bool
	}{
		{"never returned", kernel.Result{NotLoaded: true, Err: loadHungPrefix + " 3m0s (its verifier faulted? see dmesg)"}, true},
		{"refused before verifying", kernel.Result{NotLoaded: true, Err: "kernel could not load (EFAULT): bad address"}, false},
		{"a rejection", kernel.Result{Err: "R1 !read_ok"}, false},
	}
	for _, tt := range tests {
		if got := (Outcome{Kernel: tt.kernel}).KernelHung(); got != tt.want {
			t.Errorf("%s: KernelHung = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// xlated sets vercheck's rewritten length.
func xlated(r *verifier.Result, n int) *verifier.Result { r.Stats.XlatedInsns = n; return r }

// xlatedK sets the kernel's rewritten length.
func xlatedK(r kernel.Result, n int) kernel.Result { r.XlatedInsns = n; return r }

package oracle

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// TopReasons is how many reasons Tally.Print lists per class.
const TopReasons = 15

// Tally counts outcomes by class, and within each finding class by
// reason.
type Tally struct {
	// Programs counts every outcome added.
	Programs int
	counts   [numClasses]int
	reasons  [numClasses]map[string]int
	// logDiffersAccepted counts the LogDiffers outcomes both accepted.
	logDiffersAccepted int
	// noVerdictAccepted counts the KernelNoLoad outcomes vercheck
	// accepted: with Options.SelfCheck, those it checked against itself
	// (PruningDiffers are the ones that failed).
	noVerdictAccepted int
	// bigRatios holds vercheck's time over the kernel's for every
	// program both verified to at least BigInsns processed instructions
	// (accepted, or stopped at the complexity limit): the programs where
	// a slow search shows.
	bigRatios []float64
}

// BigInsns is the insn_processed, on both sides, from which Tally times
// a program against the kernel.
const BigInsns = 100_000

// SlowRatio is the time ratio to the kernel no program may exceed.
const SlowRatio = 2

// TimeRatio is vercheck's verification time over the kernel's for a
// program both verified to at least BigInsns processed instructions
// (accepted, or stopped at the complexity limit): the programs where a
// slow search shows. false for any other outcome.
func (o Outcome) TimeRatio() (float64, bool) {
	v, k := o.Vercheck, o.Kernel
	if v == nil || k.NotLoaded || v.Stats.InsnProcessed < BigInsns || k.InsnProcessed < BigInsns || k.VerificationTime <= 0 {
		return 0, false
	}
	return float64(v.Stats.Duration) / float64(k.VerificationTime), true
}

// Add counts one outcome.
func (t *Tally) Add(o Outcome) {
	t.Programs++
	t.counts[o.Class]++
	if o.Class == LogDiffers && o.Vercheck.Accepted {
		t.logDiffersAccepted++
	}
	if o.Class == KernelNoLoad && o.Vercheck != nil && o.Vercheck.Accepted {
		t.noVerdictAccepted++
	}
	if r, ok := o.TimeRatio(); ok {
		t.bigRatios = append(t.bigRatios, r)
	}
	if !o.Class.Finding() && o.Class != KernelNoLoad && o.Class != Unsupported && o.Class != BothReject {
		return
	}
	if t.reasons[o.Class] == nil {
		t.reasons[o.Class] = map[string]int{}
	}
	t.reasons[o.Class][o.Reason()]++
}

// Count returns how many outcomes of class c were added.
func (t *Tally) Count(c Class) int { return t.counts[c] }

// Print writes the agreement table, the count of every class, and the
// most common reasons of each class with any.
func (t *Tally) Print(w io.Writer) {
	bothAcc := t.counts[BothAccept] + t.counts[InsnsDiffer] + t.counts[XlatedDiffers] + t.logDiffersAccepted
	bothRej := t.counts[BothReject] + t.counts[MessageDiffers] + t.counts[ErrnoDiffers] + t.counts[LogDiffers] - t.logDiffersAccepted
	kAcc := bothAcc + t.counts[FalseReject]
	kRej := bothRej + t.counts[FalseAccept]
	fmt.Fprintf(w, "%-32s %8s %8s\n", "", "kernel+", "kernel-")
	fmt.Fprintf(w, "%-32s %8d %8d\n", "vercheck accepts", bothAcc, t.counts[FalseAccept])
	fmt.Fprintf(w, "%-32s %8d %8d\n", "vercheck rejects", t.counts[FalseReject], bothRej)
	if judged := kAcc + kRej; judged > 0 {
		fmt.Fprintf(w, "kernel verdicts: %d of %d programs, %.1f%% accepted\n", judged, t.Programs, 100*float64(kAcc)/float64(judged))
	}
	if n := t.noVerdictAccepted + t.counts[PruningDiffers]; n > 0 {
		fmt.Fprintf(w, "no kernel verdict, vercheck accepts: %d (%d of them rejected without checkpoints)\n", n, t.counts[PruningDiffers])
	}
	for c := range numClasses {
		fmt.Fprintf(w, "  %-16s %8d\n", c, t.counts[c])
	}
	t.printBig(w)
	for c := range numClasses {
		t.printTop(w, c)
	}
}

// printBig summarises the time ratios of the programs both verifiers
// took past BigInsns instructions.
func (t *Tally) printBig(w io.Writer) {
	n := len(t.bigRatios)
	if n == 0 {
		return
	}
	r := slices.Sorted(slices.Values(t.bigRatios))
	over := 0
	for _, x := range r {
		if x > SlowRatio {
			over++
		}
	}
	fmt.Fprintf(w, "programs both verified past %d insns: %d; vercheck/kernel time median %.2f, max %.2f, over %dx: %d\n",
		BigInsns, n, r[n/2], r[n-1], SlowRatio, over)
}

// printTop lists the most common reasons of class c.
func (t *Tally) printTop(w io.Writer, c Class) {
	m := t.reasons[c]
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "%s (%d reasons):\n", c, len(m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b))
	})
	for i, k := range keys {
		if i == TopReasons {
			break
		}
		fmt.Fprintf(w, "  %6d  %s\n", m[k], k)
	}
}

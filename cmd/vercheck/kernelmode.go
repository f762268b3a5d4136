package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/vercheck/vercheck/internal/logdiff"
	"github.com/vercheck/vercheck/internal/oracle"
	"github.com/vercheck/vercheck/verifier"
)

// Figures of the kernel comparison summary.
const (
	// p90 is the quantile reported next to the median of a ratio.
	p90 = 0.9
	// worstShown is how many programs the summary lists as the furthest
	// from the kernel's insn_processed.
	worstShown = 5
)

// ratio is vercheck's figure over the kernel's; NaN when the kernel's is 0
// (no meaningful ratio).
func ratio(ours, theirs float64) float64 {
	if theirs == 0 {
		if ours == 0 {
			return 1
		}
		return math.NaN()
	}
	return ours / theirs
}

// quantile returns the q-quantile of sorted values by the nearest-rank
// method (q=0.5: the median); NaN for no values.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// isFalseAccept: vercheck accepts what the kernel rejects. This is the
// one disagreement that makes vercheck unsafe to rely on.
func isFalseAccept(r row) bool {
	return r.Kernel != nil && r.Verdict == verdictAccepted && r.Kernel.Verdict == verdictRejected
}

// comparable reports whether both sides gave a verdict on r.
func comparable(r row) bool {
	if r.Kernel == nil || r.Program == "" {
		return false
	}
	ours := r.Verdict == verdictAccepted || r.Verdict == verdictRejected
	theirs := r.Kernel.Verdict == verdictAccepted || r.Kernel.Verdict == verdictRejected
	return ours && theirs
}

// sameMessage reports whether both sides rejected r with the same
// decisive message (see oracle.SameMessage).
func sameMessage(r row) bool {
	if r.Kernel == nil || r.Verdict != verdictRejected || r.Kernel.Verdict != verdictRejected {
		return false
	}
	return oracle.SameMessage(r.decisive, r.Kernel.Error)
}

// kernelSummary is the verdict agreement and figure ratios of a --kernel run.
type kernelSummary struct {
	Release string
	// Compared counts programs both sides gave a verdict on; Agree those
	// with the same verdict.
	Compared, Agree int
	// FalseAccepts and FalseRejects are the two kinds of disagreement.
	FalseAccepts, FalseRejects []row
	// NotLoaded are the programs the kernel gave no verdict on (it refused
	// the load before verifying, say EPERM for a program type this build
	// does not permit): never rejections, never false accepts.
	NotLoaded []row
	// NotCompared counts programs where one side had no verdict (the
	// kernel could not load it, vercheck unsupported or in error).
	NotCompared int
	// BothRejected counts programs both sides rejected; SameMessage those
	// rejected with the kernel's decisive message, SameErrno those of them
	// with its errno too (or an errno of the loading process's, which no
	// verifier can know: oracle.ProcessErrno).
	BothRejected, SameMessage, SameErrno int
	// Ratios are vercheck/kernel insn_processed over programs with the
	// same verdict, sorted; Exact counts the equal ones.
	Ratios []float64
	Exact  int
	// XlatedCompared counts the programs both accepted whose rewritten
	// length both sides know, XlatedSame those where it is equal, and
	// XlatedDiffer the others.
	XlatedCompared, XlatedSame int
	XlatedDiffer               []row
	// TimeRatios are vercheck/kernel verification times, sorted.
	TimeRatios []float64
	// TimeSum and KernelTimeSum are the summed verification times of the
	// programs in TimeRatios: the ratio a sweep pays, which the median
	// of per-program ratios (small programs, fixed costs) does not show.
	TimeSum, KernelTimeSum time.Duration
	// Worst are the programs furthest from the kernel's insn_processed.
	Worst []row
	// LogsCompared counts the programs whose level-2 logs were compared
	// (-vv); LogsDiverge are those whose logs part.
	LogsCompared int
	LogsDiverge  []row
}

// logDivergence compares a program's level-2 logs state by state and
// describes where they first part, or returns "". A vercheck log that
// keeps only its last 16 MiB is compared with the same part of the
// kernel's (logdiff.CompareTail).
func logDivergence(res *verifier.Result, kernelLog string) string {
	if d := logdiff.CompareKept(res.Log, res.LogTruncated, kernelLog); d != nil {
		return d.String()
	}
	return ""
}

func summarizeKernel(rows []row, release string) kernelSummary {
	s := kernelSummary{Release: release}
	var same []row
	for _, r := range rows {
		if r.Program == "" || r.Kernel == nil {
			continue
		}
		if !comparable(r) {
			s.NotCompared++
			if r.Kernel.Verdict == verdictNotLoaded {
				s.NotLoaded = append(s.NotLoaded, r)
			}
			continue
		}
		s.Compared++
		if r.Kernel.LogsCompared {
			s.LogsCompared++
			if r.Kernel.LogDivergence != "" {
				s.LogsDiverge = append(s.LogsDiverge, r)
			}
		}
		switch {
		case r.Verdict == r.Kernel.Verdict:
			s.Agree++
			same = append(same, r)
			if r.Verdict == verdictRejected {
				s.BothRejected++
				if sameMessage(r) {
					s.SameMessage++
					if r.Errno == r.Kernel.Errno || oracle.ProcessErrno(r.Kernel.Error) {
						s.SameErrno++
					}
				}
			}
		case isFalseAccept(r):
			s.FalseAccepts = append(s.FalseAccepts, r)
		default:
			s.FalseRejects = append(s.FalseRejects, r)
		}
	}
	for _, r := range same {
		if r.Xlated > 0 && r.Kernel.Xlated > 0 {
			s.XlatedCompared++
			if r.Xlated == r.Kernel.Xlated {
				s.XlatedSame++
			} else {
				s.XlatedDiffer = append(s.XlatedDiffer, r)
			}
		}
		q := ratio(float64(r.Insns), float64(r.Kernel.Insns))
		if math.IsNaN(q) {
			continue
		}
		if r.Insns == r.Kernel.Insns {
			s.Exact++
		}
		s.Ratios = append(s.Ratios, q)
		if t := ratio(float64(r.Duration), float64(r.Kernel.Duration)); !math.IsNaN(t) && r.Kernel.Duration > 0 {
			s.TimeRatios = append(s.TimeRatios, t)
			s.TimeSum += time.Duration(r.Duration) * time.Microsecond
			s.KernelTimeSum += time.Duration(r.Kernel.Duration) * time.Microsecond
		}
	}
	slices.Sort(s.Ratios)
	slices.Sort(s.TimeRatios)
	for _, r := range same {
		if distance(r) > 1 {
			s.Worst = append(s.Worst, r)
		}
	}
	slices.SortStableFunc(s.Worst, func(a, b row) int {
		return cmp.Compare(distance(b), distance(a))
	})
	s.Worst = s.Worst[:min(worstShown, len(s.Worst))]
	return s
}

// distance is how far a row's insn_processed is from the kernel's, as a
// factor >= 1 either way.
func distance(r row) float64 {
	q := ratio(float64(r.Insns), float64(r.Kernel.Insns))
	switch {
	case math.IsNaN(q):
		return math.Inf(1)
	case q == 0:
		return math.Inf(1)
	case q < 1:
		return 1 / q
	}
	return q
}

func fmtRatio(q float64) string {
	if math.IsNaN(q) {
		return "-"
	}
	return fmt.Sprintf("%.2f", q)
}

func percent(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// writeFalseAccepts prints the loudest lines of a --kernel run; they come
// before anything else.
func writeFalseAccepts(w io.Writer, rows []row) {
	for _, r := range rows {
		if isFalseAccept(r) {
			fmt.Fprintf(w, "!!! FALSE ACCEPT: %s: %s: vercheck accepts, the kernel rejects: %s\n", r.File, r.Program, r.Kernel.Error)
		}
	}
}

// writeKernelTable prints vercheck's and the kernel's figures side by side.
func writeKernelTable(w io.Writer, rows []row, withLog bool) {
	writeFalseAccepts(w, rows)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLAG\tOBJECT\tPROGRAM\tVERCHECK\tKERNEL\tINSNS\tK_INSNS\tRATIO\tMAX_ST\tK_MAX_ST\tSTATES\tK_STATES\tPEAK\tK_PEAK\tTIME\tK_TIME\tT_RATIO")
	for _, r := range rows {
		k := r.Kernel
		if k == nil {
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t-\t%d\t-\t-\t%d\t-\t%d\t-\t%d\t-\t%s\t-\t-\n",
				r.File, r.Program, r.Verdict, r.Insns, r.MaxStates, r.States, r.Peak, usDuration(r.Duration))
			continue
		}
		flag := ""
		switch {
		case isFalseAccept(r):
			flag = "!!!"
		case comparable(r) && r.Verdict != k.Verdict:
			flag = "differs"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n",
			flag, r.File, r.Program, r.Verdict, k.Verdict,
			r.Insns, k.Insns, fmtRatio(ratio(float64(r.Insns), float64(k.Insns))),
			r.MaxStates, k.MaxStates, r.States, k.States, r.Peak, k.Peak,
			usDuration(r.Duration), usDuration(k.Duration), fmtRatio(ratio(float64(r.Duration), float64(k.Duration))))
	}
	tw.Flush()
	writeDiagnostics(w, rows, withLog)
	for _, r := range rows {
		if r.Kernel != nil && r.Kernel.Error != "" && r.Kernel.Verdict != verdictAccepted && !sameMessage(r) {
			fmt.Fprintf(w, "%s: %s: kernel %s: %s\n", r.File, r.Program, r.Kernel.Verdict, firstLines(r.Kernel.Error))
			if withLog && r.Kernel.Log != "" {
				fmt.Fprintln(w, r.Kernel.Log)
			}
		}
	}
}

// writeKernelSummary prints the agreement and ratio summary.
func writeKernelSummary(w io.Writer, s kernelSummary) {
	fmt.Fprintf(w, "kernel comparison (Linux %s, %s):\n", s.Release, time.Now().Format(time.DateOnly))
	fmt.Fprintf(w, "  false accepts (vercheck accepts, kernel rejects): %d\n", len(s.FalseAccepts))
	for _, r := range s.FalseAccepts {
		fmt.Fprintf(w, "    !!! %s: %s: %s\n", r.File, r.Program, r.Kernel.Error)
	}
	fmt.Fprintf(w, "  verdict agreement: %d/%d (%.1f%%); %d not compared (no verdict on one side)\n",
		s.Agree, s.Compared, percent(s.Agree, s.Compared), s.NotCompared)
	fmt.Fprintf(w, "  kernel could not load (no verdict): %d\n", len(s.NotLoaded))
	for _, r := range s.NotLoaded {
		fmt.Fprintf(w, "    %s: %s: %s\n", r.File, r.Program, r.Kernel.Error)
	}
	fmt.Fprintf(w, "  false rejects (vercheck rejects, kernel accepts): %d\n", len(s.FalseRejects))
	fmt.Fprintf(w, "  rejected by both with the kernel's message: %d/%d (%.1f%%), with its errno too: %d\n",
		s.SameMessage, s.BothRejected, percent(s.SameMessage, s.BothRejected), s.SameErrno)
	fmt.Fprintf(w, "  insn_processed vercheck/kernel over %d programs with the same verdict: median %s, p90 %s, exact %d (%.1f%%)\n",
		len(s.Ratios), fmtRatio(quantile(s.Ratios, 0.5)), fmtRatio(quantile(s.Ratios, p90)), s.Exact, percent(s.Exact, len(s.Ratios)))
	if s.XlatedCompared > 0 {
		fmt.Fprintf(w, "  rewritten length (xlated insns) the kernel's: %d/%d (%.1f%%)\n",
			s.XlatedSame, s.XlatedCompared, percent(s.XlatedSame, s.XlatedCompared))
		for _, r := range s.XlatedDiffer[:min(worstShown, len(s.XlatedDiffer))] {
			fmt.Fprintf(w, "    %s: %s: %d vs %d\n", r.File, r.Program, r.Xlated, r.Kernel.Xlated)
		}
	}
	fmt.Fprintf(w, "  verification time vercheck/kernel: median %s, p90 %s; summed %s / %s = %s\n",
		fmtRatio(quantile(s.TimeRatios, 0.5)), fmtRatio(quantile(s.TimeRatios, p90)),
		s.TimeSum.Round(time.Millisecond), s.KernelTimeSum.Round(time.Millisecond),
		fmtRatio(ratio(float64(s.TimeSum), float64(s.KernelTimeSum))))
	if s.LogsCompared > 0 {
		fmt.Fprintf(w, "  level-2 logs the same state by state (every register and slot both print): %d/%d (%.1f%%)\n",
			s.LogsCompared-len(s.LogsDiverge), s.LogsCompared, percent(s.LogsCompared-len(s.LogsDiverge), s.LogsCompared))
		for _, r := range s.LogsDiverge[:min(worstShown, len(s.LogsDiverge))] {
			fmt.Fprintf(w, "    %s: %s: %s\n", r.File, r.Program, r.Kernel.LogDivergence)
		}
	}
	if len(s.Worst) > 0 {
		fmt.Fprintf(w, "  furthest from the kernel's insn_processed:\n")
		for _, r := range s.Worst {
			fmt.Fprintf(w, "    %s: %s: %d vs %d (%s)\n", r.File, r.Program, r.Insns, r.Kernel.Insns,
				fmtRatio(ratio(float64(r.Insns), float64(r.Kernel.Insns))))
		}
	}
}

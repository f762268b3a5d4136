package kernel

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrNoStats is returned by [ParseStats] when a log holds no statistics
// trailer, which happens when the kernel failed before the verifier ran or the
// log was loaded without the stats level.
var ErrNoStats = errors.New("no verifier statistics line in log")

// Stats holds the figures the kernel prints at the end of a verifier log when
// the stats level (BPF_LOG_STATS) is requested.
type Stats struct {
	// InsnProcessed counts instructions simulated over all paths.
	InsnProcessed int
	// InsnLimit is the complexity limit the kernel quoted (1000000 on 6.18).
	InsnLimit int
	// MaxStatesPerInsn is the longest list of checkpoints at one instruction.
	MaxStatesPerInsn int
	// TotalStates counts every checkpoint the verifier created.
	TotalStates int
	// PeakStates is the largest number of checkpoints alive at once.
	PeakStates int
	// MarkRead is the longest read-mark walk; always 0 on Linux 6.18.
	MarkRead int
	// VerificationTime is the kernel's own timing of the whole check.
	VerificationTime time.Duration
	// StackDepth is the per-subprogram stack depth list, "+"-joined, as printed.
	StackDepth string
}

// Prefixes of the three trailer lines printed with BPF_LOG_STATS.
const (
	processedPrefix = "processed "
	timePrefix      = "verification time "
	stackPrefix     = "stack depth "
)

// timeRE matches the verification time line. Some error messages lack their
// final newline (such as "expected prog array map for tail call"), so the
// kernel glues this line to the end of theirs; it is therefore matched at the
// end of a line rather than at its start.
var timeRE = regexp.MustCompile(`verification time (\d+) usec$`)

// Prefixes of the state dumps the kernel prints after some errors (the
// "infinite loop detected" family shows the current and the old state).
const (
	curStatePrefix = "cur state:"
	oldStatePrefix = "old state:"
)

// isTrailerLine reports whether line belongs to the statistics trailer.
func isTrailerLine(line string) bool {
	return strings.HasPrefix(line, processedPrefix) ||
		strings.HasPrefix(line, timePrefix) ||
		strings.HasPrefix(line, stackPrefix)
}

// sourcePrefix starts the source line annotations ("; x = y; @ file.c:12")
// that the kernel prints from BTF line info, sometimes after the error.
const sourcePrefix = "; "

// isContextLine reports whether line is a state dump or a source annotation
// that accompanies an error message rather than being one.
func isContextLine(line string) bool {
	return strings.HasPrefix(line, curStatePrefix) || strings.HasPrefix(line, oldStatePrefix) ||
		strings.HasPrefix(line, sourcePrefix)
}

// ParseStats extracts the statistics trailer from a verifier log. The
// "processed" line is required; the time and stack depth lines are optional
// (the kernel prints them only at the stats level). When a log holds several
// trailers, the last one wins.
func ParseStats(log string) (Stats, error) {
	var (
		s     Stats
		found bool
	)
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, processedPrefix):
			var err error
			s, err = parseProcessed(line, s)
			if err != nil {
				return Stats{}, err
			}
			found = true
		case strings.HasPrefix(line, timePrefix) || timeRE.MatchString(line):
			m := timeRE.FindStringSubmatch(line)
			if m == nil {
				return Stats{}, fmt.Errorf("parse %q: malformed verification time", line)
			}
			usec, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil {
				return Stats{}, fmt.Errorf("parse %q: %w", line, err)
			}
			s.VerificationTime = time.Duration(usec) * time.Microsecond
		case strings.HasPrefix(line, stackPrefix):
			s.StackDepth = strings.TrimPrefix(line, stackPrefix)
		}
	}
	if !found {
		return Stats{}, ErrNoStats
	}
	return s, nil
}

// parseProcessed reads the "processed N insns (limit M) ..." line into s.
func parseProcessed(line string, s Stats) (Stats, error) {
	_, err := fmt.Sscanf(line,
		"processed %d insns (limit %d) max_states_per_insn %d total_states %d peak_states %d mark_read %d",
		&s.InsnProcessed, &s.InsnLimit, &s.MaxStatesPerInsn, &s.TotalStates, &s.PeakStates, &s.MarkRead)
	if err != nil {
		return Stats{}, fmt.Errorf("parse %q: %w", line, err)
	}
	return s, nil
}

// DecisiveLine returns the line of a verifier log that explains a rejection:
// the last non-empty line that is neither part of the statistics trailer nor
// context printed after the error: a state dump ("cur state:", "old
// state:") or a source annotation ("; ..."). A verification time glued to
// the end of a message is cut off, and so is a note glued to its start
// (unterminatedNoteRE). It returns "" for an empty log.
func DecisiveLine(log string) string {
	lines := strings.Split(log, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if loc := timeRE.FindStringIndex(line); loc != nil {
			line = strings.TrimSpace(line[:loc[0]])
		}
		if line == "" || isTrailerLine(line) || isContextLine(line) {
			continue
		}
		if loc := unterminatedNoteRE.FindStringIndex(line); loc != nil && loc[1] < len(line) {
			line = line[loc[1]:]
		}
		return line
	}
	return ""
}

// unterminatedNoteRE matches a note the kernel logs without a newline, so
// that the message after it shares its line: btf_ctx_access's "marking
// pointer argN as scalar as it may encode error" (for raw tracepoint
// arguments that may hold an error pointer), which the rejection of a
// load through that argument follows.
var unterminatedNoteRE = regexp.MustCompile(`^marking pointer arg\d+ as scalar as it may encode error`)

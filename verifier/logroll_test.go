package verifier

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLogKeepsTail: a log longer than logKeep keeps its last logKeep
// bytes, as the kernel's rolling log keeps what fits its buffer, while
// positions stay those of the whole log, so that rewinds to a pushed
// branch's position land where the kernel's do.
func TestLogKeepsTail(t *testing.T) {
	defer func(k int) { logKeep = k }(logKeep)
	logKeep = 64
	l := &logger{level: 1}
	l.printf("short\n")
	if l.truncated() {
		t.Errorf("a log shorter than logKeep is truncated")
	}
	l.reset(0)
	var full strings.Builder
	for i := range 40 {
		line := fmt.Sprintf("%d: r0 = %d\n", i, i)
		l.printf("%s", line)
		full.WriteString(line)
	}
	want := full.String()
	type view struct {
		Pos       int
		Text      string
		Truncated bool
	}
	if diff := cmp.Diff(view{len(want), want[len(want)-logKeep:], true}, view{l.pos(), l.String(), l.truncated()}); diff != "" {
		t.Errorf("after %d bytes (-want +got):\n%s", len(want), diff)
	}
	// A rewind inside the kept tail truncates it there.
	p := len(want) - 10
	l.reset(p)
	if diff := cmp.Diff(view{p, want[p-logKeep : p], true}, view{l.pos(), l.String(), l.truncated()}); diff != "" {
		t.Errorf("rewound to %d (-want +got):\n%s", p, diff)
	}
	// A rewind before it leaves nothing, at that position.
	l.reset(5)
	l.printf("x\n")
	if diff := cmp.Diff(view{7, "x\n", true}, view{l.pos(), l.String(), l.truncated()}); diff != "" {
		t.Errorf("rewound to 5 (-want +got):\n%s", diff)
	}
}

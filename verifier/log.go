package verifier

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

// logger renders the kernel-style verifier log. Level 1 keeps the path
// that failed (the kernel rewinds the log when it pops a branch); level 2
// keeps everything.
type logger struct {
	level int
	b     strings.Builder
	// marks[i] is the log length when pending branch i was pushed; a pop
	// at level 1 rewinds to it.
	printer states.Printer
}

func (l *logger) String() string { return l.b.String() }

func (l *logger) printf(format string, args ...any) {
	if l.level == 0 {
		return
	}
	fmt.Fprintf(&l.b, format, args...)
}

func (l *logger) initial(e *env) {
	if l.level == 0 {
		return
	}
	l.printf("func#0 @0\n")
	l.printf("0: %s\n", e.cur.String())
}

func (l *logger) pruned(e *env) {
	if l.level == 0 {
		return
	}
	if e.prevIdx >= 0 && e.prevIdx+1 != e.insnIdx {
		l.printf("from %d to %d: safe\n", e.prevIdx, e.insnIdx)
	} else {
		l.printf("%d: safe\n", e.insnIdx)
	}
}

func (l *logger) insn(e *env) {
	if l.level == 0 {
		return
	}
	if ln := lineAt(e.lp, e.insnIdx); ln.Source != "" && (e.insnIdx == 0 || lineAt(e.lp, e.insnIdx-1) != ln) {
		l.printf("; %s @ %s:%d\n", strings.TrimSpace(ln.Source), baseName(ln.File), ln.Line)
	}
	l.printf("%s\n", insn.Format(e.insnIdx, e.prog[e.insnIdx]))
	if l.level >= 2 {
		l.printf("%d: %s\n", e.insnIdx, e.cur.String())
	}
}

func (l *logger) popped(e *env) {
	if l.level == 0 {
		return
	}
	if l.level < 2 {
		l.b.Reset()
	}
	l.printf("from %d to %d: %s\n", e.prevIdx, e.insnIdx, e.cur.String())
}

func (l *logger) branchState(e *env) {
	if l.level < 2 {
		return
	}
}

func (l *logger) call(e *env) {
	if l.level < 2 {
		return
	}
	l.printf("caller:\n%s\ncallee:\n", e.cur.String())
}

func (l *logger) errorf(msg string) {
	l.printf("%s\n", msg)
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// regTypeStr is reg_type_str: the kernel's name of a register's type.
func regTypeStr(r *states.Reg) string {
	return string(states.AppendType(nil, r.Type, r.Flags))
}

var (
	cpuOnce sync.Once
	cpuN    int
)

// possibleCPUs is the kernel's nr_cpu_ids on this machine (the bound of
// bpf_get_smp_processor_id), read from sysfs.
func possibleCPUs() int {
	cpuOnce.Do(func() {
		cpuN = 1
		b, err := os.ReadFile("/sys/devices/system/cpu/possible")
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		if i := strings.LastIndexAny(s, "-,"); i >= 0 {
			s = s[i+1:]
		}
		if n, err := strconv.Atoi(s); err == nil {
			cpuN = n + 1
		}
	})
	return cpuN
}

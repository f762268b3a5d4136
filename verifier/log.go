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
	// pending is the level-1 line of the insn being simulated, finished
	// by after() once its effect is known.
	pending     string
	before      [states.NumRegs]states.Reg
	beforeFrame int32
	// justPopped is true from a pop until the next simulated insn: a
	// prune then reads "from X to Y: safe", as in the kernel.
	justPopped bool
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
	if l.justPopped {
		l.printf("from %d to %d: safe\n", e.prevIdx, e.insnIdx)
	} else {
		l.printf("%d: safe\n", e.insnIdx)
	}
}

// logAlign is the column the kernel aligns a line's register state to.
const logAlign = 40

func (l *logger) insn(e *env) {
	if l.level == 0 {
		return
	}
	if ln := lineAt(e.lp, e.insnIdx); ln.Source != "" && (e.insnIdx == 0 || lineAt(e.lp, e.insnIdx-1) != ln) {
		l.printf("; %s @ %s:%d\n", strings.TrimSpace(ln.Source), baseName(ln.File), ln.Line)
	}
	l.justPopped = false
	line := insn.Format(e.insnIdx, e.prog[e.insnIdx])
	// The line is finished by after(), with the registers the insn
	// changed.
	l.pending = line
	l.before = e.cur.Frames[e.cur.CurFrame].Regs
	l.beforeFrame = e.cur.CurFrame
}

// after completes the line of the insn just simulated with the registers
// it wrote, as the kernel's level-1 log does.
func (l *logger) after(e *env) {
	if l.level == 0 || l.pending == "" {
		return
	}
	line := l.pending
	l.pending = ""
	if e.cur.CurFrame != l.beforeFrame {
		l.printf("%s\n", line)
		return
	}
	regs := &e.cur.Frames[e.cur.CurFrame].Regs
	var changed uint16
	for r := range regs {
		if regs[r] != l.before[r] && regs[r].Type != states.NotInit {
			changed |= 1 << r
		}
	}
	if changed == 0 {
		l.printf("%s\n", line)
		return
	}
	pad := logAlign - len(line)
	if pad < 1 {
		pad = 1
	}
	b := []byte(line)
	for i := 0; i < pad; i++ {
		b = append(b, ' ')
	}
	b = append(b, ';')
	st := l.printer.AppendFrameScratched(nil, e.cur, int(e.cur.CurFrame), changed, 0)
	b = append(b, ' ')
	b = append(b, strings.TrimSpace(string(st))...)
	l.printf("%s\n", string(b))
}

// newPass starts the log of a new verification pass (a global function
// verified on its own): at level 1, the log of the failing path only, so
// the previous pass's last path goes.
func (l *logger) newPass() {
	if l.level == 1 {
		l.b.Reset()
	}
}

func (l *logger) popped(e *env) {
	if l.level == 0 {
		return
	}
	if l.level < 2 {
		l.b.Reset()
	}
	l.pending = ""
	l.printf("from %d to %d: %s\n", e.prevIdx, e.insnIdx, e.cur.String())
	l.justPopped = true
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
	if l.pending != "" {
		l.printf("%s\n", l.pending)
		l.pending = ""
	}
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

package verifier

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// logger renders the kernel's verifier log, byte for byte, the way 6.18's
// do_check, print_insn_state and print_verifier_state (kernel/bpf/log.c)
// write it:
//
//   - before each simulated instruction, the registers and stack slots the
//     previous one touched ("scratched") are printed, appended to the
//     previous instruction's line after a ';' when nothing was printed
//     since, or on a line of their own ("5: R1=...") otherwise;
//   - at level 1, popping a branch rewinds the log to where it was when the
//     branch was pushed, and a verification that succeeds rewinds it to
//     nothing: what is left is the path that failed;
//   - level 2 keeps everything, adds "from X to Y:" with the whole state
//     after each pop, and the pre-verification tables.
//
// Positions are byte offsets in the log, as the kernel's log->end_pos, so
// that its comparisons of positions give the same answers.
type logger struct {
	level int
	// buf holds the log from position start on: a log longer than
	// logKeep keeps only its tail, as the kernel's rolling log keeps the
	// tail that fits the buffer its loader gave.
	buf     []byte
	start   int
	printer states.Printer
	// scratchedRegs and scratchedSlots are the kernel's env-wide
	// scratched_regs and scratched_stack_slots: what the next state print
	// shows (bit r, bit spi), whatever frame touched it.
	scratchedRegs  uint16
	scratchedSlots uint64
	// prevLogPos is env->prev_log_pos, the end of the last instruction's
	// line; prevInsnPrintPos is the length of that line (with its newline),
	// which decides the column of the state comment.
	prevLogPos       int
	prevInsnPrintPos int
	// printState is do_check's do_print_state: set when a path resumes
	// (pop, return from a subprogram), it makes a pruned path print as
	// "from X to Y: safe" and, at level 2, prints the whole state once.
	printState bool
	// prevLine is env->prev_linfo, the index of the last line-info record
	// printed; -1 for none.
	prevLine int
	// errorLogged is set once a rejection's message is in the log.
	errorLogged bool
	// subprogCount is the number of subprograms add_subprog_and_kfunc
	// found, which the stats line of a program refused before its
	// stack depths are known lists.
	subprogCount int
}

// logKeep is how much of a log is kept: 16 MiB, the buffer libbpf gives
// the kernel and vercheck's kernel comparison loads with. A level-1 log
// of a path of a million instructions without a branch is some 80 MB,
// which cost several times the verification itself to grow.
var logKeep = 16 << 20

// String returns the log (its last logKeep bytes).
func (l *logger) String() string {
	if len(l.buf) > logKeep {
		return string(l.buf[len(l.buf)-logKeep:])
	}
	return string(l.buf)
}

// truncated reports whether String leaves out the head of the log.
func (l *logger) truncated() bool { return l.start > 0 || len(l.buf) > logKeep }

// roll drops the head of a log that has grown past twice logKeep, so that
// keeping the tail costs a copy per logKeep bytes written.
func (l *logger) roll() {
	if len(l.buf) <= 2*logKeep {
		return
	}
	n := len(l.buf) - logKeep
	copy(l.buf, l.buf[n:])
	l.buf = l.buf[:logKeep]
	l.start += n
}

// on reports whether any log is kept (bpf_verifier_log_needed).
func (l *logger) on() bool { return l.level > 0 }

func (l *logger) printf(format string, args ...any) {
	if l.level == 0 {
		return
	}
	l.buf = fmt.Appendf(l.buf, format, args...)
	l.roll()
}

// pos is the log's end position (log->end_pos).
func (l *logger) pos() int { return l.start + len(l.buf) }

// reset rewinds the log to position p (bpf_vlog_reset); a position before
// the kept tail empties it.
func (l *logger) reset(p int) {
	switch {
	case p < l.start:
		l.start, l.buf = p, l.buf[:0]
	case p-l.start < len(l.buf):
		l.buf = l.buf[:p-l.start]
	}
}

// markRegScratched is mark_reg_scratched: check_reg_arg marks every
// register an instruction reads or writes.
func (l *logger) markRegScratched(r uint8) {
	if r < states.NumRegs {
		l.scratchedRegs |= 1 << r
	}
}

// markSlotScratched is mark_stack_slot_scratched.
func (l *logger) markSlotScratched(spi int) {
	if spi >= 0 && spi < 64 {
		l.scratchedSlots |= 1 << uint(spi)
	}
}

// markAllScratched is mark_verifier_state_scratched: the next print shows
// the whole current frame (a new frame, the end of a path).
func (l *logger) markAllScratched() {
	l.scratchedRegs = ^uint16(0)
	l.scratchedSlots = ^uint64(0)
}

// scratched is verifier_state_scratched.
func (l *logger) scratched() bool { return l.scratchedRegs != 0 || l.scratchedSlots != 0 }

// appendState is print_verifier_state: frame i of s, only what was
// scratched unless all, then a newline; a partial print marks the state
// clean.
func (l *logger) appendState(s *states.State, i int, all bool) {
	regs, slots := ^uint16(0), ^uint64(0)
	if !all {
		regs, slots = l.scratchedRegs, l.scratchedSlots
	}
	l.buf = l.printer.AppendFrameScratched(l.buf, s, i, regs, slots)
	l.buf = append(l.buf, '\n')
	l.roll()
	if !all {
		l.scratchedRegs, l.scratchedSlots = 0, 0
	}
}

// maskChange is log_mask_change: the slots of a stack liveness mask that
// a sweep set and cleared, if any.
func (l *logger) maskChange(chain, what string, frame, insn int, old, new uint64) {
	changed := old ^ new
	if changed == 0 {
		return
	}
	l.printf("%s frame %d insn %d ", chain, frame, insn)
	if set := new & changed; set != 0 {
		l.printf("+%s %s ", what, fmtStackMask(set))
	}
	if cleared := old & changed; cleared != 0 {
		l.printf("-%s %s", what, fmtStackMask(cleared))
	}
	l.printf("\n")
}

// subprogs is the first line of a level-2 log: the functions, as
// add_subprog_and_kfunc lists them once it has found them all, before the
// checks of the later passes (check_subprogs, check_btf_info,
// resolve_pseudo_ldimm64, check_cfg, check_attach_btf_id) can refuse the
// program. When the pass itself refuses it, there is no list.
func (l *logger) subprogs(e *env) {
	if !l.on() {
		return
	}
	starts, err := insn.SubprogStarts(e.prog, insn.Options{ExceptionCallback: e.excCbStart})
	if err != nil {
		return
	}
	l.subprogCount = len(starts)
	if l.level < 2 {
		return
	}
	for i, start := range starts {
		l.printf("func#%d @%d\n", i, start)
	}
}

// preamble is what a level-2 log holds before the search: the registers
// live before each insn (compute_live_registers), with the insn's loop
// (SCC) when it has one.
func (l *logger) preamble(e *env) {
	if l.level < 2 {
		return
	}
	l.printf("Live regs before insn:\n")
	for i := 0; i < len(e.prog); i++ {
		if scc := e.cfg.SCC(i); scc != 0 {
			l.printf("%3d ", scc)
		} else {
			l.printf("    ")
		}
		l.printf("%3d: ", i)
		live := e.cfg.LiveRegsBefore(i)
		for r := 0; r < states.RegFP; r++ {
			if live&(1<<r) != 0 {
				l.buf = strconv.AppendInt(l.buf, int64(r), 10)
			} else {
				l.buf = append(l.buf, '.')
			}
		}
		l.printf(" %s\n", e.insnText(i))
		if e.prog[i].IsLdImm64() {
			i++
		}
	}
}

// beginCheck starts a do_check_common pass: no source line printed yet,
// and the entry frame is new (init_func_state marks it scratched).
func (l *logger) beginCheck() {
	l.prevLine = -1
	l.printState = false
	l.markAllScratched()
}

// endCheck is the end of a successful do_check_common: at level 1 the log
// of a verified function is dropped.
func (l *logger) endCheck() {
	if l.level == 1 {
		l.reset(0)
	}
}

// pruned is do_check's line for a path cut at a visited state.
func (l *logger) pruned(e *env) {
	if !l.on() {
		return
	}
	if l.printState {
		l.printf("\nfrom %d to %d: safe\n", e.prevIdx, e.insnIdx)
	} else {
		l.printf("%d: safe\n", e.insnIdx)
	}
}

// logAlign and logMinAlign are BPF_LOG_ALIGNMENT and BPF_LOG_MIN_ALIGNMENT:
// the state comment goes at column logAlign, or at the next multiple of
// logMinAlign past a longer instruction.
const (
	logAlign    = 40
	logMinAlign = 8
)

// commentPad is vlog_alignment: the width of the blank before the ';' of a
// state comment, for an instruction line of length n (newline included).
func commentPad(n int) int {
	w := max(n+logMinAlign/2, logAlign)
	return (w+logMinAlign-1)/logMinAlign*logMinAlign - n - 1
}

// insn logs the instruction about to be simulated, after the state the
// previous one left, as do_check does.
func (l *logger) insn(e *env) {
	if !l.on() {
		return
	}
	if l.level >= 2 && l.printState {
		l.printf("\nfrom %d to %d:", e.prevIdx, e.insnIdx)
		l.appendState(e.cur, int(e.cur.CurFrame), true)
		l.printState = false
	}
	if l.scratched() {
		l.insnState(e)
	}
	l.lineInfo(e, e.insnIdx)
	l.prevLogPos = l.pos()
	l.printf("%d: %s\n", e.insnIdx, e.insnText(e.insnIdx))
	l.prevInsnPrintPos = l.pos() - l.prevLogPos
	l.prevLogPos = l.pos()
}

// insnText is the text of the program's instruction i as the kernel's log
// prints it after resolve_pseudo_ldimm64: a kernel symbol's ld_imm64 holds
// the symbol's address.
func (e *env) insnText(i int) string {
	in := e.prog[i]
	if k, ok := e.ksyms[i]; ok && in.IsLdImm64() && k.addr != 0 {
		in.Imm, in.Imm2 = int32(uint32(k.addr)), int32(uint32(k.addr>>32))
	}
	return insnText(in)
}

// insnText is print_bpf_insn's text of in: "(op) text", or the bare
// "BUG_..." of an encoding it cannot name (an atomic of an unknown
// operation, a store of an unknown mode).
func insnText(in insn.Insn) string {
	text := in.Disasm(kfuncCallName)
	if strings.HasPrefix(text, "BUG_") {
		return text
	}
	return fmt.Sprintf("(%02x) %s", in.Op, text)
}

// insnState is print_insn_state: the scratched state, as a comment on the
// previous instruction's line when nothing came after it, else on a line
// of its own.
func (l *logger) insnState(e *env) {
	if l.prevLogPos != 0 && l.prevLogPos == l.pos() {
		l.reset(l.prevLogPos - 1)
		l.buf = append(l.buf, strings.Repeat(" ", commentPad(l.prevInsnPrintPos))...)
		l.buf = append(l.buf, ';')
	} else {
		l.buf = strconv.AppendInt(l.buf, int64(e.insnIdx), 10)
		l.buf = append(l.buf, ':')
	}
	l.appendState(e.cur, int(e.cur.CurFrame), false)
}

// verifierTmpLogSize is BPF_VERIFIER_TMP_LOG_SIZE, the buffer each of
// the kernel's verbose() calls formats into.
const verifierTmpLogSize = 1024

// lineInfo is verbose_linfo: the source line of insn idx, unless it is the
// line-info record printed last or another record of the same file and
// line (the log prints no columns, so it would only repeat itself).
func (l *logger) lineInfo(e *env, idx int) {
	if e.lp.BTFDropped != "" {
		// Loaded without line_info.
		return
	}
	rec := lineRecordAt(e.lp.Lines, idx)
	if rec < 0 || rec == l.prevLine {
		return
	}
	ln := e.lp.Lines.At(rec)
	if l.prevLine >= 0 {
		if prev := e.lp.Lines.At(l.prevLine); prev.File == ln.File && prev.Line == ln.Line {
			return
		}
	}
	// verbose_linfo prints the text with a verbose() of its own, which
	// formats into a 1024-byte buffer (BPF_VERIFIER_TMP_LOG_SIZE): at
	// most 1023 bytes of a line show.
	src := strings.TrimLeft(ln.Source, " \t\n\v\f\r")
	if len(src) > verifierTmpLogSize-1 {
		src = src[:verifierTmpLogSize-1]
	}
	l.printf("; %s @ %s:%d\n", src, baseName(ln.File), ln.Line)
	l.prevLine = rec
}

// newPass starts the log of a new verification pass (a global function
// verified on its own): at level 1, the log of the failing path only, so
// the previous pass's last path goes (a departure from the kernel's
// level-1 log, which keeps it: issue 14 asks the log to start at the
// function).
func (l *logger) newPass() {
	if l.level == 1 {
		l.reset(0)
	}
}

// popped is pop_stack's log side: at level 1 the log goes back to where
// it was when the branch was pushed; the resumed path prints its state.
func (l *logger) popped(logPos int) {
	if l.level == 1 {
		l.reset(logPos)
	}
	l.printState = true
}

// call logs the states on both sides of a bpf-to-bpf call, as
// check_func_call does.
func (l *logger) call(e *env) {
	if !l.on() {
		return
	}
	st := e.cur
	l.printf("caller:\n")
	l.appendState(st, int(st.CurFrame-1), true)
	l.printf("callee:\n")
	l.appendState(st, int(st.CurFrame), true)
}

// returned logs a return from a subprogram, as prepare_func_exit does,
// before the callee's frame goes away.
func (l *logger) returned(e *env, callSite int) {
	if !l.on() {
		return
	}
	st := e.cur
	l.printf("returning from callee:\n")
	l.appendState(st, int(st.CurFrame), true)
	l.printf("to caller at %d:\n", callSite)
}

// returnedTo finishes returned with the caller's frame.
func (l *logger) returnedTo(e *env) {
	if !l.on() {
		return
	}
	l.appendState(e.cur, int(e.cur.CurFrame), true)
}

// errorf logs the message of a rejection.
func (l *logger) errorf(msg string) {
	switch {
	case msg == "":
		// A refusal without a message (bpf_snprintf's data length)
		// logs nothing.
	case unterminatedMessage(msg):
		l.printf("%s", msg)
	default:
		l.printf("%s\n", msg)
	}
	l.errorLogged = true
}

// unterminatedMessage reports whether the kernel logs msg without a
// newline, so that the next line of its log (the stats trailer) follows
// it on the same line: verbose calls whose format lacks the "\n".
func unterminatedMessage(msg string) bool {
	switch {
	case msg == "expected prog array map for tail call",
		msg == "2 or more rdonly/rdwr_buf_size parameters for kfunc",
		strings.HasPrefix(msg, "insn ") && strings.HasSuffix(msg, " cannot call exception cb directly"),
		strings.HasPrefix(msg, "more than one arg with ref_obj_id "):
		return true
	}
	return false
}

// rejected logs the message of a rejection made without errorf (the
// load-time checks return theirs directly), as the kernel's verbose does
// at the point of failure.
func (l *logger) rejected(err error) {
	var re *RejectError
	if l.errorLogged || !errors.As(err, &re) || re.Msg == "" {
		// A rejection without a message logs nothing, as in the kernel.
		return
	}
	l.errorf(re.Msg)
}

// stats appends print_verification_stats: the trailer the kernel writes
// at the end of every log with BPF_LOG_STATS.
func (l *logger) stats(d time.Duration, stackDepth []int, processed int, st statsFigures) {
	if !l.on() {
		return
	}
	l.printf("verification time %d usec\n", d.Microseconds())
	l.printf("stack depth ")
	if stackDepth == nil {
		stackDepth = make([]int, max(l.subprogCount, 1))
	}
	for i, depth := range stackDepth {
		if i > 0 {
			l.printf("+")
		}
		l.printf("%d", depth)
	}
	l.printf("\n")
	l.printf("processed %d insns (limit %d) max_states_per_insn %d total_states %d peak_states %d mark_read 0\n",
		processed, MaxProcessedInsns, st.maxStatesPerInsn, st.totalStates, st.peakStates)
}

// statsFigures are the state counts of the stats trailer.
type statsFigures struct {
	maxStatesPerInsn, totalStates, peakStates int
}

// lineRecordAt is find_linfo: the index of the line-info record that
// covers insn idx (the last one at or before it), or -1.
func lineRecordAt(lines loader.LineTable, idx int) int {
	if idx >= lines.Len() {
		idx = lines.Len() - 1
	}
	for ; idx >= 0; idx-- {
		if lines.Has(idx) {
			return idx
		}
	}
	return -1
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

// maxNRCPUs is the largest NR_CPUS of x86-64 kernels (CONFIG_MAXSMP).
const maxNRCPUs = 8192

// possibleCPUs is the kernel's nr_cpu_ids on this machine (the bound of
// bpf_get_smp_processor_id), read from sysfs. Where sysfs cannot tell, it
// is the largest nr_cpu_ids an x86-64 kernel can have (NR_CPUS with
// MAXSMP): a wider range can only refuse more, where guessing few CPUs
// would accept an index a many-CPU kernel refuses.
func possibleCPUs() int {
	cpuOnce.Do(func() {
		cpuN = maxNRCPUs
		b, err := os.ReadFile("/sys/devices/system/cpu/possible")
		if err != nil {
			return
		}
		s := strings.TrimSpace(string(b))
		if i := strings.LastIndexAny(s, "-,"); i >= 0 {
			s = s[i+1:]
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < maxNRCPUs {
			cpuN = n + 1
		}
	})
	return cpuN
}

package verifier

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/loader"
)

// helperSleepMessages are check_helper_call's refusals of a helper whose
// prototype may sleep (might_sleep): outside a sleepable program, and
// inside a sleepable one's RCU read section.
var helperSleepMessages = []string{"helper call might sleep in a non-sleepable prog", "sleepable helper "}

// sleepRefusal is the refusal of helperSleepMessages that line (the
// decisive line of a verifier log) starts with, or "" for any other.
func sleepRefusal(line string) string {
	for _, m := range helperSleepMessages {
		if strings.HasPrefix(line, m) {
			return line
		}
	}
	return ""
}

// TestHelperSleepLiveKernel calls every helper inside an RCU read section
// (bpf_rcu_read_lock, the helper with zero arguments, bpf_rcu_read_unlock)
// from sleepable and non-sleepable programs of the types the running
// kernel loads, and compares whether the kernel and vercheck refuse the
// call because its prototype may sleep. check_helper_call makes that
// test before the arguments', so the arguments do not matter. The
// might_sleep flags are the kernel's prototypes', some of them chosen by
// the program's sleepable flag (bpf_get_stack and bpf_get_task_stack
// have sleepable variants): a table read from the messages alone missed
// five, each a false accept.
func TestHelperSleepLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	lock, unlock := kfuncID(t, "bpf_rcu_read_lock"), kfuncID(t, "bpf_rcu_read_unlock")
	types := []protoLiveType{
		{pt: ebpf.Syscall, flags: loader.FlagSleepable},
		{pt: ebpf.Kprobe, flags: loader.FlagSleepable},
		{pt: ebpf.Kprobe},
		{pt: ebpf.SchedCLS},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task", flags: loader.FlagSleepable},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
	}
	compared, refused := 0, 0
	for _, lt := range types {
		noVerdict := 0
		for id := int32(1); id <= helpers.MaxID; id++ {
			insns := asm.Instructions{kfuncCall(lock)}
			for r := asm.R1; r <= asm.R5; r++ {
				insns = append(insns, asm.Mov.Imm(r, 0))
			}
			insns = append(insns, asm.BuiltinFunc(id).Call(), kfuncCall(unlock), asm.Mov.Imm(asm.R0, 0), asm.Return())
			line, ok := liveVerdict(lt, insns, nil, "GPL")
			if !ok {
				noVerdict++
				continue
			}
			compared++
			want := sleepRefusal(line)
			if want != "" {
				refused++
			}
			p := &loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo,
				Flags: lt.flags, GPLCompatible: true, Instructions: insns}
			res := Verify(&loader.Object{Path: "test"}, p, Options{MissingFixes: missing})
			got := ""
			if res.Err != nil {
				got = sleepRefusal(res.Err.Error())
			}
			if got != want {
				t.Errorf("%v helper %v (%d): kernel %q, vercheck %q (%v)", lt, asm.BuiltinFunc(id), id, want, got, res.Err)
			}
		}
		if noVerdict > 0 {
			t.Logf("%v: no verdict on %d helper calls", lt, noVerdict)
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any helper call")
	}
	if refused == 0 {
		t.Errorf("no call of %d was refused for sleeping: the comparison tests nothing", compared)
	}
}

// gplRefusal is check_helper_call's refusal of a gpl_only helper.
const gplRefusal = "cannot call GPL-restricted function from non-GPL compatible program"

// TestHelperGPLLiveKernel calls every helper, with zero arguments, from a
// program whose license is not GPL-compatible, in every program type the
// running kernel loads here, and compares whether the kernel and vercheck
// refuse it as gpl_only (tested right after the prototype is found, before
// the arguments). bpf_seq_printf_btf's flag was missing from the table: a
// false accept.
func TestHelperGPLLiveKernel(t *testing.T) {
	_, missing := liveKernelBTF(t)
	types := []protoLiveType{
		{pt: ebpf.SocketFilter}, {pt: ebpf.Kprobe}, {pt: ebpf.SchedCLS}, {pt: ebpf.TracePoint},
		{pt: ebpf.XDP}, {pt: ebpf.PerfEvent}, {pt: ebpf.CGroupSKB}, {pt: ebpf.SockOps}, {pt: ebpf.SkMsg},
		{pt: ebpf.RawTracepoint}, {pt: ebpf.Syscall, flags: loader.FlagSleepable},
		{pt: ebpf.Kprobe, at: ebpf.AttachTraceKprobeMulti},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task"},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
	}
	compared, refused := 0, 0
	for _, lt := range types {
		for id := int32(1); id <= helpers.MaxID; id++ {
			insns := asm.Instructions{}
			for r := asm.R1; r <= asm.R5; r++ {
				insns = append(insns, asm.Mov.Imm(r, 0))
			}
			insns = append(insns, asm.BuiltinFunc(id).Call(), asm.Mov.Imm(asm.R0, 0), asm.Return())
			line, ok := liveVerdict(lt, insns, nil, "Proprietary")
			if !ok {
				continue
			}
			compared++
			want := line == gplRefusal
			if want {
				refused++
			}
			p := &loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo,
				Flags: lt.flags, Instructions: insns}
			res := Verify(&loader.Object{Path: "test"}, p, Options{MissingFixes: missing})
			got := res.Err != nil && strings.Contains(res.Err.Error(), gplRefusal)
			if got != want {
				t.Errorf("%v helper %v (%d): kernel refuses it as gpl_only %v, vercheck %v (%v)", lt, asm.BuiltinFunc(id), id, want, got, res.Err)
			}
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any helper call")
	}
	if refused == 0 {
		t.Errorf("no call of %d was refused as gpl_only: the comparison tests nothing", compared)
	}
}

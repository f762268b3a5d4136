package kernel

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

// TestJumpSequenceTooComplexIsAVerdict: the kernel fails a program whose
// pending branches pass 8192 with EFAULT, and cilium/ebpf drops that log;
// the raw reload recovers it, so the result is a rejection with the
// kernel's message, not a program the kernel could not load.
func TestJumpSequenceTooComplexIsAVerdict(t *testing.T) {
	skipUnlessAvailable(t)
	insns := asm.Instructions{asm.FnGetPrandomU32.Call()}
	for i := range 8200 {
		label := fmt.Sprintf("l%d", i)
		insns = append(insns, asm.JEq.Imm(asm.R0, int32(i), label), asm.Mov.Imm(asm.R1, int32(i)), asm.Mov.Imm(asm.R2, 0).WithSymbol(label))
	}
	insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
	spec := &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{
		"jumps": {Name: "jumps", Type: ebpf.XDP, License: "GPL", Instructions: insns},
	}}
	got, err := LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].NotLoaded || got[0].Accepted || got[0].Err != "The sequence of 8193 jumps is too complex." {
		t.Errorf("LoadCollectionSpec = %+v, want a rejection with the kernel's message", got)
	}
}

// TestJumpSequenceInSubprogramIsAVerdict: the same refusal in a program of
// two functions, which the raw reload must hand the kernel with its BTF
// func info (without it, a bpf-to-bpf call is refused before verifying).
func TestJumpSequenceInSubprogramIsAVerdict(t *testing.T) {
	skipUnlessAvailable(t)
	intType := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	fn := func(name string, linkage btf.FuncLinkage) *btf.Func {
		return &btf.Func{Name: name, Type: &btf.FuncProto{Return: intType}, Linkage: linkage}
	}
	main := asm.Instructions{
		btf.WithFuncMetadata(asm.Call.Label("branches"), fn("main", btf.GlobalFunc)),
		asm.Return(),
	}
	sub := asm.Instructions{btf.WithFuncMetadata(asm.FnGetPrandomU32.Call().WithSymbol("branches"), fn("branches", btf.StaticFunc))}
	for i := range 8200 {
		label := fmt.Sprintf("l%d", i)
		sub = append(sub, asm.JEq.Imm(asm.R0, int32(i), label), asm.Mov.Imm(asm.R1, int32(i)), asm.Mov.Imm(asm.R2, 0).WithSymbol(label))
	}
	sub = append(sub, asm.Mov.Imm(asm.R0, 0), asm.Return())
	spec := &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{
		"main": {Name: "main", Type: ebpf.XDP, License: "GPL", Instructions: append(main, sub...)},
	}}
	got, err := LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].NotLoaded || got[0].Accepted || got[0].Err != "The sequence of 8193 jumps is too complex." {
		t.Errorf("LoadCollectionSpec = %+v, want a rejection with the kernel's message", got)
	}
}

// TestAddressSpaceCastReachesTheKernel: an arena program's cast (ALU64 MOV
// X with off 1), which cilium/ebpf's encoding turns into a mov with a
// reserved field, reaches the kernel as the object has it, and its arena,
// which no map_extra places, gets a user address as libbpf gives it.
func TestAddressSpaceCastReachesTheKernel(t *testing.T) {
	skipUnlessAvailable(t)
	cast := asm.Instruction{OpCode: asm.Mov.Op(asm.RegSource), Dst: asm.R1, Src: asm.R1, Offset: 1, Constant: 1}
	spec := &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"arena": {Name: "arena", Type: ebpf.Arena, MaxEntries: 1, Flags: bpfFMmapable},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"cast": {Name: "cast", Type: ebpf.XDP, License: "GPL", Instructions: asm.Instructions{
				asm.LoadMapPtr(asm.R2, 0).WithReference("arena"),
				asm.Mov.Imm(asm.R1, 0),
				cast,
				asm.LoadMem(asm.R0, asm.R1, 0, asm.Word),
				asm.Mov.Imm(asm.R0, 0),
				asm.Return(),
			}},
		},
	}
	got, err := LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 1 && got[0].NotLoaded {
		t.Skipf("this kernel build gives no verdict on an arena program: %s", got[0].Err)
	}
	if len(got) != 1 || !got[0].Accepted || got[0].InsnProcessed != 6 {
		t.Errorf("LoadCollectionSpec = %+v, want the program accepted after 6 insns", got)
	}
}

// TestOwnEncodingResolvesAttachTarget: a tracing program that needs the
// own encoding (a cast) is loaded with its vmlinux attach target resolved,
// so the kernel verifies it: here it refuses the cast of a program
// without an arena, where the load used to give no verdict.
func TestOwnEncodingResolvesAttachTarget(t *testing.T) {
	skipUnlessAvailable(t)
	cast := asm.Instruction{OpCode: asm.Mov.Op(asm.RegSource), Dst: asm.R1, Src: asm.R1, Offset: 1, Constant: 1}
	spec := &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{
		"cast": {Name: "cast", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, AttachTo: "sched_switch", License: "GPL",
			Instructions: asm.Instructions{asm.Mov.Imm(asm.R1, 0), cast, asm.Mov.Imm(asm.R0, 0), asm.Return()}},
	}}
	got, err := LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	const want = "addr_space_cast insn can only be used in a program that has an associated arena"
	if len(got) != 1 || got[0].NotLoaded || got[0].Accepted || got[0].Err != want {
		t.Errorf("LoadCollectionSpec = %+v, want the rejection %q", got, want)
	}
}

// TestRawLoadKeepsArgTags: a raw load (the reload after an EFAULT, the
// own encoding) hands the kernel a global function's argument tags with
// its BTF (cilium/ebpf's builder writes a Func's ParamTags as decl tags),
// so the kernel verifies the program the object defines: NULL passed to
// an arg:trusted pointer is refused there, taken where the tag is absent.
func TestRawLoadKeepsArgTags(t *testing.T) {
	skipUnlessAvailable(t)
	tests := []struct {
		name      string
		tags      [][]string
		wantErrno bool
		wantLog   string
	}{
		{"arg:trusted", [][]string{{"arg:trusted"}}, true, "Caller passes invalid args into func#1 ('tagged')"},
		{"no tag", nil, false, ""},
	}
	for _, tt := range tests {
		task := &btf.Struct{Name: "task_struct", Size: 4, Members: []btf.Member{{Name: "pid", Type: &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}}}}
		intType := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
		proto := &btf.FuncProto{Return: intType, Params: []btf.FuncParam{{Name: "t", Type: &btf.Pointer{Target: task}}}}
		mainFn := &btf.Func{Name: "main", Type: &btf.FuncProto{Return: intType}, Linkage: btf.GlobalFunc}
		tagged := &btf.Func{Name: "tagged", Type: proto, Linkage: btf.GlobalFunc, ParamTags: tt.tags}
		spec := &ebpf.ProgramSpec{Name: "main", Type: ebpf.SocketFilter, License: "GPL", Instructions: asm.Instructions{
			btf.WithFuncMetadata(asm.Mov.Imm(asm.R1, 0), mainFn),
			asm.Call.Label("tagged"),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
			btf.WithFuncMetadata(asm.Mov.Imm(asm.R0, 0).WithSymbol("tagged"), tagged),
			asm.Return(),
		}}
		p, release, err := rawProgramWithInfo(spec)
		if err != nil {
			t.Fatal(err)
		}
		out, errno := progLoad(spec, p, ebpf.LogLevelStats, rawLogSize)
		log := out.log
		release()
		if (errno != 0) != tt.wantErrno || !strings.Contains(log, tt.wantLog) {
			t.Errorf("%s: raw load = %v, log %q; want an error %v and %q in the log", tt.name, errno, log, tt.wantErrno, tt.wantLog)
		}
	}
}

// TestRawLoadOutlastsSignals: the verifier gives up with EAGAIN when a
// signal is pending, and the Go runtime signals its threads to preempt
// goroutines (SIGURG). Loads interrupted by such signals for 100 ms must
// still end in the kernel's verdict, with the whole log.
func TestRawLoadOutlastsSignals(t *testing.T) {
	skipUnlessAvailable(t)
	// A counted loop the verifier walks iteration by iteration: 20,003
	// instructions, long enough to be interrupted.
	spec := &ebpf.ProgramSpec{Name: "count", Type: ebpf.SocketFilter, License: "GPL", Instructions: asm.Instructions{
		asm.Mov.Imm(asm.R0, 0),
		asm.Add.Imm(asm.R0, 1).WithSymbol("loop"),
		asm.JLT.Imm(asm.R0, 10000, "loop"),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}}
	p, release, err := rawProgramWithInfo(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, tid := unix.Getpid(), unix.Gettid()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Microsecond) {
			unix.Tgkill(pid, tid, unix.SIGURG)
		}
	}()
	const want = "processed 20003 insns"
	for i := 0; ; i++ {
		out, errno := progLoad(spec, p, ebpf.LogLevelStats, rawLogSize)
		log := out.log
		if errno != 0 || !strings.Contains(log, want) {
			t.Fatalf("load %d: errno %v, log %q; want the program accepted, %q", i, errno, log, want)
		}
		select {
		case <-done:
			return
		default:
		}
	}
}

// bpfFMmapable is BPF_F_MMAPABLE, which an arena needs.
const bpfFMmapable = 1 << 10

func TestKernelObjName(t *testing.T) {
	tests := []struct{ name, want string }{
		{"ar_cast_load", "ar_cast_load"},
		{"a_name_longer_than_fifteen", "a_name_longer_t"},
		{"has-dash", ""},
		{"dots.ok", "dots.ok"},
	}
	for _, tt := range tests {
		if got := kernelObjName(tt.name); got != tt.want {
			t.Errorf("kernelObjName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLogString checks that a raw load's log ends at its NUL: what
// follows is the stale tail of a longer log the verifier cut back.
func TestLogString(t *testing.T) {
	tests := []struct {
		name string
		buf  string
		want string
	}{
		{"whole buffer", "R3 !read_ok\nprocessed 5 insns\n", "R3 !read_ok\nprocessed 5 insns"},
		{"trailing NULs", "processed 5 insns\n\x00\x00\x00", "processed 5 insns"},
		{"stale tail after the NUL", "Validating f() func#1...\nprocessed 5 insns\n\x00 exit\n= 1; @ f.c:9\n\x00",
			"Validating f() func#1...\nprocessed 5 insns"},
	}
	for _, tt := range tests {
		if got := logString([]byte(tt.buf)); got != tt.want {
			t.Errorf("%s: logString = %q, want %q", tt.name, got, tt.want)
		}
	}
}

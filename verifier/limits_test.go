package verifier_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// verifyInsns verifies a socket filter made of insns.
func verifyInsns(insns asm.Instructions, opts verifier.Options) *verifier.Result {
	obj := &loader.Object{Path: "test"}
	prog := &loader.Program{Name: "test", Type: ebpf.SocketFilter, Instructions: insns, GPLCompatible: true}
	return verifier.Verify(obj, prog, opts)
}

// jump is a conditional jump on an immediate with an explicit offset.
func jump(op asm.JumpOp, dst asm.Register, imm int32, off int16) asm.Instruction {
	return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(op).SetSource(asm.ImmSource), Dst: dst, Constant: int64(imm), Offset: off}
}

// countingLoop is "r1 = 0; loop: r1 += 1; if r1 < n goto loop; r0 = 0; exit".
func countingLoop(n int32) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.Add.Imm(asm.R1, 1),
		jump(asm.JLT, asm.R1, n, -2),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
}

// branchy is n independent "if r6 & bit" diamonds, the i-th adding 1<<i
// to r7 on one arm, and a final stack read at an offset computed from r7:
// r7 is precise, every path has its own value, and nothing prunes.
func branchy(n int) asm.Instructions {
	insns := asm.Instructions{
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R6, asm.R0),
		asm.Mov.Imm(asm.R7, 0),
	}
	for i := 0; i < n; i++ {
		insns = append(insns,
			jump(asm.JSet, asm.R6, 1<<(i%31), 1),
			asm.Add.Imm(asm.R7, int32(1)<<i),
			asm.Mov.Reg(asm.R1, asm.R7),
		)
	}
	insns = append(insns,
		asm.And.Imm(asm.R7, 0xff),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -256),
		asm.Add.Reg(asm.R2, asm.R7),
		asm.LoadMem(asm.R0, asm.R2, 0, asm.Byte),
		asm.Return(),
	)
	return insns
}

func TestLimits(t *testing.T) {
	huge := make(asm.Instructions, 0, 2_000_001)
	for i := 0; i < 2_000_000; i++ {
		huge = append(huge, asm.Mov.Imm(asm.R0, 0))
	}
	huge = append(huge, asm.Return())
	tests := []struct {
		name    string
		insns   asm.Instructions
		opts    verifier.Options
		kind    error
		message string
	}{
		{"2M instructions", huge, verifier.Options{}, verifier.ErrComplexityLimit, "more than the 1000000"},
		{"1M processed", countingLoop(2_000_000), verifier.Options{}, verifier.ErrComplexityLimit, "BPF program is too large. Processed 1000001 insn"},
		{"time limit", countingLoop(2_000_000), verifier.Options{Timeout: time.Millisecond}, verifier.ErrTimeout, "time limit"},
		{"state memory cap", branchy(24), verifier.Options{MaxStateBytes: 64 << 10}, verifier.ErrMemoryLimit, "state-memory limit"},
		{"infinite loop", asm.Instructions{asm.Mov.Imm(asm.R0, 0), {OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: -1}}, verifier.Options{}, nil, "infinite loop detected at insn 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := verifyInsns(tt.insns, tt.opts)
			if res.Accepted {
				t.Fatalf("accepted, want rejection %q", tt.message)
			}
			if !strings.Contains(res.Err.Error(), tt.message) {
				t.Errorf("error %q, want it to contain %q", res.Err, tt.message)
			}
			if tt.kind != nil && !errors.Is(res.Err, tt.kind) {
				t.Errorf("error %v is not %v", res.Err, tt.kind)
			}
			var re *verifier.RejectError
			if !errors.As(res.Err, &re) {
				t.Errorf("error %T is not a *RejectError", res.Err)
			}
		})
	}
}

// refLoop is a sched_cls program that looks up a socket on every turn of
// a loop it never leaves and drops the pointer: each stored state holds
// one more reference than the last, so the states' memory grows with the
// square of the turns. The live 6.18.44 kernel works on it for minutes
// and gigabytes until an allocation fails (ENOMEM); a fuzz mutant of
// session 34 took vercheck past 20 GB.
func refLoop() asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.Mov.Imm(asm.R9, 0),
		asm.StoreMem(asm.RFP, -16, asm.R9, asm.DWord),
		asm.StoreMem(asm.RFP, -8, asm.R9, asm.Word),
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -16),
		asm.Mov.Imm(asm.R3, 12),
		asm.Mov.Imm(asm.R4, 0),
		asm.Mov.Imm(asm.R5, 0),
		asm.FnSkLookupTcp.Call(),
		jump(asm.JLT, asm.R9, 33, -8),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
}

// TestStateMemoryLimit: references count in the stored states' memory, so
// a loop piling them up stops at the limit, without a verdict, rather
// than at 1M instructions after tens of gigabytes.
func TestStateMemoryLimit(t *testing.T) {
	obj := &loader.Object{Path: "test"}
	prog := &loader.Program{Name: "test", Type: ebpf.SchedCLS, Instructions: refLoop(), GPLCompatible: true}
	res := verifier.Verify(obj, prog, verifier.Options{MaxStateBytes: 16 << 20})
	if !errors.Is(res.Err, verifier.ErrMemoryLimit) {
		t.Fatalf("error %v, want the state-memory limit", res.Err)
	}
	if got := res.Verdict(); got != "memory" {
		t.Errorf("verdict %q, want memory", got)
	}
	if got := res.Errno(); got != syscall.ENOMEM {
		t.Errorf("errno %v, want ENOMEM", got)
	}
	if res.Stats.InsnProcessed >= verifier.MaxProcessedInsns/2 {
		t.Errorf("stopped after %d insns: references are not counted", res.Stats.InsnProcessed)
	}
}

func TestBranchyProgramAcceptedWithoutCap(t *testing.T) {
	res := verifyInsns(branchy(10), verifier.Options{})
	if !res.Accepted {
		t.Fatalf("rejected: %v", res.Err)
	}
	if res.Stats.InsnProcessed < 1000 {
		t.Errorf("insn_processed %d: the test program is meant to explore every path", res.Stats.InsnProcessed)
	}
}

// TestAsyncJumpSequence: a timer callback registered while 8192 branches
// are pending is refused by push_async_cb with its own wording of the
// jump-sequence limit (the live 6.18.44 kernel: that message, 8206 insns).
func TestAsyncJumpSequence(t *testing.T) {
	obj, err := loader.Open("testdata/async/async_jmpseq.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, prog := range obj.Programs {
		res := verifier.Verify(obj, prog, verifier.Options{})
		const want = "The sequence of 8193 jumps is too complex for async cb."
		var re *verifier.RejectError
		if !errors.As(res.Err, &re) || re.Msg != want || !errors.Is(res.Err, verifier.ErrComplexityLimit) {
			t.Errorf("%s: Verify = %v, want %q (ErrComplexityLimit)", prog.Name, res.Err, want)
		}
		if res.Stats.InsnProcessed != 8206 {
			t.Errorf("%s: insn_processed = %d, want 8206", prog.Name, res.Stats.InsnProcessed)
		}
	}
}

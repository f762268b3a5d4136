package kernel

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseStats(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want Stats
		err  error
	}{
		{
			name: "stats level trailer",
			log: "verification time 21 usec\nstack depth 0\n" +
				"processed 5 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n",
			want: Stats{InsnProcessed: 5, InsnLimit: 1000000, VerificationTime: 21 * time.Microsecond, StackDepth: "0"},
		},
		{
			name: "complexity limit with subprograms",
			log: "0: R1=ctx() R10=fp0\nBPF program is too large. Processed 1000001 insn\n" +
				"verification time 1059876 usec\nstack depth 16+0+32\n" +
				"processed 1000001 insns (limit 1000000) max_states_per_insn 4 total_states 25001 peak_states 25001 mark_read 0",
			want: Stats{
				InsnProcessed: 1000001, InsnLimit: 1000000, MaxStatesPerInsn: 4,
				TotalStates: 25001, PeakStates: 25001,
				VerificationTime: 1059876 * time.Microsecond, StackDepth: "16+0+32",
			},
		},
		{
			name: "processed line only (branch level without stats)",
			log:  "processed 43 insns (limit 1000000) max_states_per_insn 1 total_states 4 peak_states 3 mark_read 0",
			want: Stats{InsnProcessed: 43, InsnLimit: 1000000, MaxStatesPerInsn: 1, TotalStates: 4, PeakStates: 3},
		},
		{
			name: "surrounding whitespace and CRLF",
			log:  "  stack depth 8\r\n processed 7 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\r\n",
			want: Stats{InsnProcessed: 7, InsnLimit: 1000000, StackDepth: "8"},
		},
		{
			name: "time glued to a message without newline",
			log: "expected prog array map for tail callverification time 18 usec\nstack depth 0\n" +
				"processed 3 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0",
			want: Stats{InsnProcessed: 3, InsnLimit: 1000000, VerificationTime: 18 * time.Microsecond, StackDepth: "0"},
		},
		{
			name: "no trailer",
			log:  "R0 !read_ok\n",
			err:  ErrNoStats,
		},
		{
			name: "empty",
			log:  "",
			err:  ErrNoStats,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStats(tt.log)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseStats error = %v, want %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseStats mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseStatsMalformed(t *testing.T) {
	for _, log := range []string{
		"processed many insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0",
		"processed 5 insns",
		"verification time lots usec\nprocessed 5 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0",
	} {
		if _, err := ParseStats(log); err == nil || errors.Is(err, ErrNoStats) {
			t.Errorf("ParseStats(%q) error = %v, want a parse error", log, err)
		}
	}
}

func TestDecisiveLine(t *testing.T) {
	const trailer = "verification time 44 usec\nstack depth 8\n" +
		"processed 8 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n"
	tests := []struct {
		name string
		log  string
		want string
	}{
		{
			name: "single message",
			log:  "R0 invalid mem access 'map_value_or_null'\n" + trailer,
			want: "R0 invalid mem access 'map_value_or_null'",
		},
		{
			name: "two-line error keeps the last",
			log: "5: (61) r0 = *(u32 *)(r0 +8)\ninvalid access to map value, value_size=8 off=8 size=4\n" +
				"R0 min value is outside of the allowed memory range\n" + trailer,
			want: "R0 min value is outside of the allowed memory range",
		},
		{
			name: "a note glued to the message is cut off",
			log: "2: (79) r1 = *(u64 *)(r1 +8)\nmarking pointer arg1 as scalar as it may encode errorR1 invalid mem access 'scalar'\n" +
				trailer,
			want: "R1 invalid mem access 'scalar'",
		},
		{
			name: "the note alone stays",
			log:  "marking pointer arg1 as scalar as it may encode error\n" + trailer,
			want: "marking pointer arg1 as scalar as it may encode error",
		},
		{
			name: "state dumps after the message are skipped",
			log: "infinite loop detected at insn 1\ncur state: R0=0 R1=ctx() R10=fp0\n" +
				"old state: R0=P0 R1=ctx() R10=fp0\n" + trailer,
			want: "infinite loop detected at insn 1",
		},
		{
			name: "source annotation after the message is skipped",
			log: "invalid bpf_context access off=80 size=4\n" +
				"; void *data_end = (void *)(long)ctx->data_end; @ packet_reallocate.c:8\n" + trailer,
			want: "invalid bpf_context access off=80 size=4",
		},
		{
			name: "message without newline before the time",
			log: "2: (85) call bpf_tail_call#12\nexpected prog array map for tail callverification time 18 usec\n" +
				"stack depth 0\nprocessed 3 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0",
			want: "expected prog array map for tail call",
		},
		{
			name: "no trailer",
			log:  "unreachable insn 2\n\n",
			want: "unreachable insn 2",
		},
		{
			name: "trailer only",
			log:  trailer,
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, DecisiveLine(tt.log)); diff != "" {
				t.Errorf("DecisiveLine mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

package logdiff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kernelLog is a 6.18 level-2 log with the debug lines the comparison
// leaves out.
const kernelLog = `func#0 @0
Live regs before insn:
      0: .......... (b7) r5 = 0
0: R1=ctx() R10=fp0
; asm volatile( @ x.c:9
0: (b7) r5 = 0
SCC enter (1)
1: R5=0
1: (18) r1 = 0xffff888102cfd138       ; R1=map_ptr(map=m,ks=4,vs=8)
3: (85) call bpf_map_lookup_elem#1    ; R0=map_value_or_null(id=1,map=m,ks=4,vs=8)
4: (15) if r0 == 0x0 goto pc+1        ; R0=map_value(map=m,ks=4,vs=8)
mark_precise: frame0: last_idx 4 first_idx 0 subseq_idx -1 
5: (b7) r0 = 0                        ; R0=0
6: (95) exit
(0) frame 0 insn 3 +live -8 
(0) live stack update done in 2 iterations
from 4 to 6: R0=0 R10=fp0
6: (95) exit
SCC exit (1)
processed 7 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 0
verification time 12 usec
`

// vercheckLog is kernelLog as vercheck prints it.
const vercheckLog = `func#0 @0
0: R1=ctx() R10=fp0
0: (b7) r5 = 0                        ; R5=0
1: (18) r1 = map[id:0]                ; R1=map_ptr(map=m,ks=4,vs=8)
3: (85) call bpf_map_lookup_elem#1    ; R0=map_value_or_null(id=1,map=m,ks=4,vs=8)
4: (15) if r0 == 0x0 goto pc+1        ; R0=map_value(map=m,ks=4,vs=8)
mark_precise: frame0: last_idx 4 first_idx 0 subseq_idx -1
5: (b7) r0 = 0                        ; R0=0
6: (95) exit
from 4 to 6: R0=0 R1=map_ptr(map=m,ks=4,vs=8) R10=fp0
6: (95) exit
processed 7 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 0
verification time 31 usec
`

func TestCompare(t *testing.T) {
	tests := []struct {
		name     string
		vercheck string
		kernel   string
		want     *Divergence
	}{
		{"same search, different debug output", vercheckLog, kernelLog, nil},
		{"an empty state comment, and a message without its newline",
			replace(replace(vercheckLog, "6: (95) exit\nfrom", "6: (95) exit ;\nfrom"), "processed 7", "bad exit\nprocessed 7"),
			replace(replace(kernelLog, "6: (95) exit\n(0)", "6: (95) exit\n7:\n(0)"), "processed 7", "bad exitverification time 3 usec\nprocessed 7"), nil},
		{"a register printed by both differs", replace(vercheckLog, "R0=map_value(map=m,ks=4,vs=8)", "R0=map_value(map=m,ks=4,vs=16)"), kernelLog,
			&Divergence{Kind: State, Line: 6, KernelLine: 11, Insn: "4: (15) if r0 == 0x0 goto pc+1", Name: "R0", Vercheck: "map_value(map=m,ks=4,vs=16)", Kernel: "map_value(map=m,ks=4,vs=8)"}},
		{"bounds with nested parentheses", replace(vercheckLog, "R5=0", "R5=scalar(smin=0,var_off=(0x0; 0xff))"), replace(kernelLog, "R5=0", "R5=scalar(smin=0,var_off=(0x0; 0x7f))"),
			&Divergence{Kind: State, Line: 3, KernelLine: 8, Insn: "0: (b7) r5 = 0", Name: "R5", Vercheck: "scalar(smin=0,var_off=(0x0; 0xff))", Kernel: "scalar(smin=0,var_off=(0x0; 0x7f))"}},
		{"a different branch", replace(vercheckLog, "from 4 to 6:", "from 4 to 5:"), kernelLog,
			&Divergence{Kind: Event, Line: 10, KernelLine: 17, Insn: "6: (95) exit", Vercheck: "from 4 to 5", Kernel: "from 4 to 6"}},
		{"a different precision walk", replace(vercheckLog, "first_idx 0", "first_idx 1"), kernelLog,
			&Divergence{Kind: Event, Line: 7, KernelLine: 12, Insn: "4: (15) if r0 == 0x0 goto pc+1", Vercheck: "mark_precise: frame0: last_idx 4 first_idx 1 subseq_idx -1", Kernel: "mark_precise: frame0: last_idx 4 first_idx 0 subseq_idx -1"}},
		{"the kernel goes on", replace(vercheckLog, "from 4 to 6: R0=0 R1=map_ptr(map=m,ks=4,vs=8) R10=fp0\n6: (95) exit\n", ""), kernelLog,
			&Divergence{Kind: Length, KernelLine: 17, Insn: "6: (95) exit", Kernel: "from 4 to 6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Compare(tt.vercheck, tt.kernel)); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
}

// replace replaces the first old in s, failing loudly when there is none.
func replace(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("no " + old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestCompareTail checks the comparison of a vercheck log that keeps only
// its tail (its first line cut mid-line) with the kernel's whole log.
func TestCompareTail(t *testing.T) {
	// tail cuts vercheckLog in the middle of the line of instruction 3.
	tail := vercheckLog[strings.Index(vercheckLog, "bpf_map_lookup_elem#1"):]
	tests := []struct {
		name     string
		vercheck string
		want     *Divergence
	}{
		{"the kernel's log ends the same way", tail, nil},
		{"a state differs after the cut", replace(tail, "R0=0 R1=map_ptr", "R0=1 R1=map_ptr"),
			&Divergence{Kind: State, Line: 6, KernelLine: 17, Insn: "6: (95) exit", Name: "R0", Vercheck: "1", Kernel: "0"}},
		{"a tail the kernel's log does not hold", replace(tail, "if r0 == 0x0", "if r0 != 0x0"),
			&Divergence{Kind: Event, Line: 2, Vercheck: "4: (15) if r0 != 0x0 goto pc+1", Kernel: "(vercheck's kept tail of its log matches no part of the kernel's)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompareTail(tt.vercheck, kernelLog)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CompareTail (-want +got):\n%s", diff)
			}
		})
	}
}

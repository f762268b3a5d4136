package kernel

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/sys/unix"
)

// skipUnlessAvailable skips t when programs cannot be loaded here.
func skipUnlessAvailable(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("kernel verifier not usable here: %v", err)
	}
}

func TestLoadCollectionSpecLive(t *testing.T) {
	skipUnlessAvailable(t)
	release, err := Release()
	if err != nil {
		t.Fatal(err)
	}

	spec := &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"table": {Name: "table", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 4},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"ok": {
				Name: "ok", Type: ebpf.SocketFilter, License: "GPL",
				Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
			},
			"no_r0": {
				Name: "no_r0", Type: ebpf.SocketFilter, License: "GPL",
				Instructions: asm.Instructions{asm.Return()},
			},
			"null_deref": {
				Name: "null_deref", Type: ebpf.SocketFilter, License: "GPL",
				Instructions: asm.Instructions{
					asm.Mov.Imm(asm.R1, 0),
					asm.StoreMem(asm.RFP, -4, asm.R1, asm.Word),
					asm.Mov.Reg(asm.R2, asm.RFP),
					asm.Add.Imm(asm.R2, -4),
					asm.LoadMapPtr(asm.R1, 0).WithReference("table"),
					asm.FnMapLookupElem.Call(),
					asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
					asm.Return(),
				},
			},
		},
	}
	got, err := LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	// The kernel rounds each frame's stack depth up to a multiple of 8.
	want := []Result{
		{Program: "no_r0", Errno: unix.EACCES, Err: "R0 !read_ok", InsnProcessed: 1, StackDepth: "0", Release: release},
		{Program: "null_deref", Errno: unix.EACCES, Err: "R0 invalid mem access 'map_value_or_null'", InsnProcessed: 7, StackDepth: "8", Release: release},
		{Program: "ok", Accepted: true, InsnProcessed: 2, XlatedInsns: 2, StackDepth: "0", Release: release},
	}
	opts := cmpopts.IgnoreFields(Result{}, "Log", "VerificationTime")
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("LoadCollectionSpec mismatch (-want +got):\n%s", diff)
	}
	for _, r := range got {
		if r.Log == "" {
			t.Errorf("%s: empty log", r.Program)
		}
		if r.VerificationTime <= 0 {
			t.Errorf("%s: verification time %v, want > 0", r.Program, r.VerificationTime)
		}
	}

	// VerdictOnly gives the same verdicts and figures, with the
	// stats-level log of a rejection instead of the branch-level one
	// (which lists the instructions: "0: (b7) r1 = 0").
	verdicts, err := Options{MapBTF: KeyValueBTF, VerdictOnly: true}.LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, verdicts, opts); diff != "" {
		t.Errorf("VerdictOnly mismatch (-want +got):\n%s", diff)
	}
	for i, r := range verdicts {
		if r.Accepted {
			continue
		}
		if branch, stats := strings.Contains(got[i].Log, "0: ("), strings.Contains(r.Log, "0: ("); !branch || stats {
			t.Errorf("%s: instructions in the branch-level log %v, in the VerdictOnly log %v; want true, false", r.Program, branch, stats)
		}
	}
}

func TestLoadCollectionSpecSetupFailure(t *testing.T) {
	skipUnlessAvailable(t)
	spec := &ebpf.CollectionSpec{
		Programs: map[string]*ebpf.ProgramSpec{
			"missing_map": {
				Name: "missing_map", Type: ebpf.SocketFilter, License: "GPL",
				Instructions: asm.Instructions{
					asm.LoadMapPtr(asm.R1, 0).WithReference("nowhere"),
					asm.Mov.Imm(asm.R0, 0),
					asm.Return(),
				},
			},
		},
	}
	got, err := LoadCollectionSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].NotLoaded || got[0].Accepted || got[0].Err == "" {
		t.Errorf("LoadCollectionSpec = %+v, want one setup failure with a reason", got)
	}
}

// TestJudgeNoVerdict: a load that fails without a verifier message is no
// verdict, whatever its errno, and neither is one the kernel gave up for
// want of memory; a message makes it a rejection.
func TestJudgeNoVerdict(t *testing.T) {
	trailer := []string{"verification time 46 usec", "stack depth 0",
		"processed 0 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0"}
	rejection := append([]string{"0: (b7) r0 = 0", "R1 !read_ok"}, trailer...)
	tests := []struct {
		name string
		err  error
		want Result
	}{
		{
			name: "EPERM before verifying",
			err:  &ebpf.VerifierError{Cause: unix.EPERM, Log: trailer},
			want: Result{Program: "p", NotLoaded: true, Errno: unix.EPERM, Err: "kernel could not load (EPERM): operation not permitted"},
		},
		{
			name: "ESRCH without any log",
			err:  &ebpf.VerifierError{Cause: unix.ESRCH},
			want: Result{Program: "p", NotLoaded: true, Errno: unix.ESRCH, Err: "kernel could not load (ESRCH): no such process"},
		},
		{
			// A line printed before verification reads like a message;
			// the verifier then ran out of memory after 36,068 insns.
			name: "ENOMEM after a prologue line",
			err: &ebpf.VerifierError{Cause: unix.ENOMEM, Log: append([]string{
				"Global function f() doesn't return scalar. Only those are supported."}, trailer...)},
			want: Result{Program: "p", NotLoaded: true, Errno: unix.ENOMEM, Err: "kernel could not load (ENOMEM): cannot allocate memory"},
		},
		{
			name: "map creation",
			err:  errors.New("create map m: invalid argument"),
			want: Result{Program: "p", NotLoaded: true, Err: "kernel could not load: create map m: invalid argument"},
		},
		{
			name: "rejection",
			err:  &ebpf.VerifierError{Cause: unix.EACCES, Log: rejection},
			want: Result{Program: "p", Errno: unix.EACCES, Err: "R1 !read_ok", StackDepth: "0", VerificationTime: 46 * time.Microsecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := judge(Result{Program: "p"}, false, func(ebpf.LogLevel, uint32) (loaded, error) { return loaded{}, tt.err })
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Result{}, "Log")); diff != "" {
				t.Errorf("judge mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

package verifier

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// needLSMHooks skips the test when the running kernel's BTF lacks one of
// the hooks.
func needLSMHooks(t *testing.T, hooks ...string) {
	t.Helper()
	for _, h := range hooks {
		kfuncID(t, lsmStubPrefix+h)
	}
}

// The LSM rules come from the 6.18 sources: the reference machine refuses
// to load trampoline programs, so these cases could not be checked against
// a live kernel (see lsm.go).
func TestLSMPrograms(t *testing.T) {
	needLSMHooks(t, "file_open", "file_free_security", "inode_xattr_skipcap", "vm_enough_memory", "sk_free_security", "inode_permission")
	prog := func(at ebpf.AttachType, hook string, insns ...asm.Instruction) *loader.Program {
		return &loader.Program{Name: "p", Type: ebpf.LSM, AttachType: at, AttachTo: hook,
			Section: "lsm/" + hook, GPLCompatible: true, Instructions: insns}
	}
	mac := func(hook string, insns ...asm.Instruction) *loader.Program {
		return prog(ebpf.AttachLSMMac, hook, insns...)
	}
	sleepable := func(p *loader.Program) *loader.Program {
		p.Section, p.Flags = "lsm.s/"+p.AttachTo, loader.FlagSleepable
		return p
	}
	exit := asm.Return()
	ret := func(v int32) asm.Instruction { return asm.Mov.Imm(asm.R0, v) }
	tests := []struct {
		name string
		prog *loader.Program
		want progOutcome
		// msg is a substring the rejection message must hold.
		msg string
	}{
		{"int hook returns 0", mac("file_open", ret(0), exit), progOutcome{Verdict: "accepted"}, ""},
		{"int hook returns -MAX_ERRNO", mac("file_open", ret(-4095), exit), progOutcome{Verdict: "accepted"}, ""},
		{"int hook returns 1", mac("file_open", ret(1), exit), progOutcome{Verdict: "rejected"},
			"At program exit the register R0 has smin=1 smax=1 should have been in [-4095, 0]"},
		{"int hook returns -4096", mac("file_open", ret(-4096), exit), progOutcome{Verdict: "rejected"},
			"smin=-4096 smax=-4096 should have been in [-4095, 0]"},
		// Only the low 32 bits count: 0xffffffff is -1 there.
		{"int hook checks 32 bits", mac("file_open", asm.LoadImm(asm.R0, 0xffffffff, asm.DWord), exit),
			progOutcome{Verdict: "accepted"}, ""},
		{"int hook without r0", mac("file_open", exit), progOutcome{Verdict: "rejected"}, "R0 !read_ok"},
		{"bool hook returns 1", mac("inode_xattr_skipcap", ret(1), exit), progOutcome{Verdict: "accepted"}, ""},
		{"bool hook returns -1", mac("inode_xattr_skipcap", ret(-1), exit), progOutcome{Verdict: "rejected"},
			"should have been in [0, 1]"},
		{"void hook needs no r0", mac("file_free_security", exit), progOutcome{Verdict: "accepted"}, ""},
		{"void hook returns anything", mac("file_free_security", ret(7), exit), progOutcome{Verdict: "accepted"}, ""},
		// The return slot holds the hook's current return value, in range.
		{"return slot read", mac("file_open", asm.LoadMem(asm.R0, asm.R1, 8, asm.DWord), exit),
			progOutcome{Verdict: "accepted"}, ""},
		// Only its low 32 bits are bounded (stablefix.S32RangeLowHalf):
		// the message prints the 64-bit bounds.
		{"return slot plus one", mac("file_open", asm.LoadMem(asm.R0, asm.R1, 8, asm.DWord), asm.Add.Imm(asm.R0, 1), exit),
			progOutcome{Verdict: "rejected"}, "has unknown scalar value should have been in [-4095, 0]"},
		{"void hook has no return slot", mac("file_free_security", asm.LoadMem(asm.R0, asm.R1, 8, asm.DWord), exit),
			progOutcome{Verdict: "rejected"}, "invalid bpf_context access off=8 size=8"},
		{"past the return slot", mac("file_open", asm.LoadMem(asm.R0, asm.R1, 16, asm.DWord), ret(0), exit),
			progOutcome{Verdict: "rejected"}, "invalid bpf_context access off=16 size=8"},
		{"misaligned slot", mac("file_open", asm.LoadMem(asm.R0, asm.R1, 4, asm.Word), ret(0), exit),
			progOutcome{Verdict: "rejected"}, "invalid bpf_context access off=4 size=4"},
		{"file pointer is trusted and read", mac("file_open", asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			asm.LoadMem(asm.R0, asm.R1, 0, asm.Word), ret(0), exit), progOutcome{Verdict: "accepted"}, ""},
		{"ctx write not modelled", mac("file_open", asm.Mov.Imm(asm.R2, 0), asm.StoreMem(asm.R1, 8, asm.R2, asm.DWord), ret(0), exit),
			progOutcome{Verdict: "unsupported"}, "unsupported: context access"},
		{"negative ctx offset not modelled", mac("file_open", asm.LoadMem(asm.R0, asm.R1, -8, asm.DWord), ret(0), exit),
			progOutcome{Verdict: "unsupported"}, "unsupported: context access"},
		{"non-GPL", func() *loader.Program {
			p := mac("file_open", ret(0), exit)
			p.GPLCompatible = false
			return p
		}(), progOutcome{Verdict: "rejected"}, "LSM programs must have a GPL compatible license"},
		{"disabled hook", mac("vm_enough_memory", ret(0), exit), progOutcome{Verdict: "rejected"},
			"points to disabled hook bpf_lsm_vm_enough_memory"},
		{"not a hook", mac("verify_prog", ret(0), exit), progOutcome{Verdict: "unsupported"}, "not an LSM hook"},
		{"sleepable", sleepable(mac("file_open", ret(0), exit)), progOutcome{Verdict: "accepted"}, ""},
		{"sleepable on a hook that cannot sleep", sleepable(mac("inode_permission", ret(0), exit)),
			progOutcome{Verdict: "rejected"}, "bpf_lsm_inode_permission is not sleepable"},
		{"IMA hash from a sleepable hook", sleepable(mac("file_open",
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			asm.Mov.Reg(asm.R2, asm.RFP), asm.Add.Imm(asm.R2, -32), asm.Mov.Imm(asm.R3, 32),
			asm.FnImaFileHash.Call(), ret(0), exit)), progOutcome{Verdict: "accepted"}, ""},
		{"IMA hash from a hook that cannot sleep", mac("inode_permission", asm.FnImaInodeHash.Call(), ret(0), exit),
			progOutcome{Verdict: "rejected"}, "helper call is not allowed in probe"},
		{"mac cannot get retval", mac("file_open", asm.FnGetRetval.Call(), ret(0), exit),
			progOutcome{Verdict: "rejected"}, "program of this type cannot use helper bpf_get_retval#186"},
		{"mac reads function arguments count", mac("file_open", asm.FnGetFuncArgCnt.Call(), ret(0), exit),
			progOutcome{Verdict: "accepted"}, ""},
		{"cgroup gets retval", prog(ebpf.AttachLSMCgroup, "file_open", asm.FnGetRetval.Call(), ret(1), exit),
			progOutcome{Verdict: "accepted"}, ""},
		{"cgroup has no attach cookie", prog(ebpf.AttachLSMCgroup, "file_open", asm.FnGetAttachCookie.Call(), ret(1), exit),
			progOutcome{Verdict: "rejected"}, "program of this type cannot use helper"},
		{"cgroup returns 0 or 1", prog(ebpf.AttachLSMCgroup, "file_open", ret(-1), exit),
			progOutcome{Verdict: "rejected"}, "should have been in [0, 1]"},
		{"cgroup void hook must return 1", prog(ebpf.AttachLSMCgroup, "sk_free_security", ret(0), exit),
			progOutcome{Verdict: "rejected"}, "can't modify return value"},
		{"cgroup void hook returns 1", prog(ebpf.AttachLSMCgroup, "sk_free_security", ret(1), exit),
			progOutcome{Verdict: "accepted"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := verifyInsns(t, tt.prog)
			if !strings.Contains(got.Msg, tt.msg) || (tt.msg == "" && got.Msg != "") {
				t.Errorf("message %q does not contain %q", got.Msg, tt.msg)
			}
			got.Msg = ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLSMSleepableFixes: the stable fixes that took task_to_inode and
// inet_conn_established out of the sleepable hooks and refuse sleepable
// BPF_LSM_CGROUP programs, both ways.
func TestLSMSleepableFixes(t *testing.T) {
	needLSMHooks(t, "task_to_inode", "inet_conn_established", "file_open")
	const cgroupRefused = "Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable"
	tests := []struct {
		attach  ebpf.AttachType
		hook    string
		missing stablefix.Set
		want    string
	}{
		{ebpf.AttachLSMMac, "task_to_inode", stablefix.Set{}, "bpf_lsm_task_to_inode is not sleepable"},
		{ebpf.AttachLSMMac, "inet_conn_established", stablefix.Set{}, "bpf_lsm_inet_conn_established is not sleepable"},
		{ebpf.AttachLSMMac, "task_to_inode", stablefix.Of(stablefix.LsmSleepableHooks), ""},
		{ebpf.AttachLSMMac, "inet_conn_established", stablefix.Of(stablefix.LsmSleepableHooks), ""},
		{ebpf.AttachLSMMac, "file_open", stablefix.Set{}, ""},
		{ebpf.AttachLSMCgroup, "file_open", stablefix.Set{}, cgroupRefused},
		{ebpf.AttachLSMCgroup, "file_open", stablefix.Of(stablefix.LsmCgroupSleepable), ""},
		{ebpf.AttachLSMCgroup, "task_to_inode", stablefix.Of(stablefix.LsmCgroupSleepable), "bpf_lsm_task_to_inode is not sleepable"},
	}
	for _, tt := range tests {
		t.Run(tt.attach.String()+" "+tt.hook+" "+tt.missing.String(), func(t *testing.T) {
			p := &loader.Program{Name: "p", Type: ebpf.LSM, AttachType: tt.attach, AttachTo: tt.hook,
				Section: "lsm.s/" + tt.hook, Flags: loader.FlagSleepable, GPLCompatible: true,
				Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}}
			res := Verify(&loader.Object{Path: "test"}, p, Options{MissingFixes: tt.missing})
			got := ""
			if res.Err != nil {
				got = res.Err.Error()
			}
			if (tt.want == "") != res.Accepted || !strings.Contains(got, tt.want) {
				t.Errorf("verdict %s (%v), want %q", res.Verdict(), res.Err, tt.want)
			}
		})
	}
}

func TestLSMContext(t *testing.T) {
	needLSMHooks(t, "file_open", "sk_free_security")
	type result struct {
		OK, Ptr, Retval bool
		Name            string
		Trusted         bool
	}
	tests := []struct {
		hook      string
		off, size int
		want      result
	}{
		{"file_open", 0, 8, result{OK: true, Ptr: true, Name: "file", Trusted: true}},
		{"file_open", 0, 4, result{}},
		{"file_open", 8, 8, result{OK: true, Retval: true}},
		{"file_open", 8, 4, result{OK: true, Retval: true}},
		{"file_open", 16, 8, result{}},
		// The socket is being freed: its pointer is not trusted.
		{"sk_free_security", 0, 8, result{OK: true, Ptr: true, Name: "sock"}},
		{"sk_free_security", 8, 8, result{}},
	}
	for _, tt := range tests {
		tc, err := btfContext(ebpf.LSM, ebpf.AttachLSMMac, tt.hook)
		if err != nil {
			t.Fatalf("%s: %v", tt.hook, err)
		}
		a, ok := tc.access(tt.off, tt.size, 0)
		got := result{OK: ok, Ptr: a.ptr, Retval: a.retval}
		if a.ptr {
			got.Name = btfTypeName(a.id)
			r := states.Reg{Type: states.PtrToBTFID, Flags: a.flags}
			got.Trusted = isTrustedBTF(&r)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s access(%d, %d) mismatch (-want +got):\n%s", tt.hook, tt.off, tt.size, diff)
		}
	}
}

func TestLSMRetvalRange(t *testing.T) {
	needLSMHooks(t, "file_open", "inode_xattr_skipcap", "file_free_security")
	tests := []struct {
		hook string
		want retvalRange
	}{
		{"file_open", retvalRange{min: -maxErrno, max: 0, ok: true}},
		{"inode_xattr_skipcap", retvalRange{min: 0, max: 1, ok: true}},
		{"file_free_security", retvalRange{}},
	}
	for _, tt := range tests {
		tc, err := btfContext(ebpf.LSM, ebpf.AttachLSMMac, tt.hook)
		if err != nil {
			t.Fatalf("%s: %v", tt.hook, err)
		}
		if diff := cmp.Diff(tt.want, tc.retval, cmp.AllowUnexported(retvalRange{})); diff != "" {
			t.Errorf("%s range mismatch (-want +got):\n%s", tt.hook, diff)
		}
	}
}

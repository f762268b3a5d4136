package helpers

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"
)

// TestBuildAllowed checks what each build fact changes: the zero Build is
// the reference machine's (no bpf_override_return, integrity lockdown), a
// kernel with CONFIG_BPF_KPROBE_OVERRIDE lets kprobe programs (only) call
// bpf_override_return, lockdown "none" gives bpf_probe_write_user to the
// tracing family (only), and "confidentiality" takes the kernel-reading
// helpers from every program type; the segment routing helpers need
// CONFIG_IPV6_SEG6_BPF.
func TestBuildAllowed(t *testing.T) {
	override := Build{KprobeOverride: true}
	none := Build{Lockdown: LockdownNone}
	conf := Build{Lockdown: LockdownConfidentiality}
	tests := []struct {
		name  string
		b     Build
		pt    ebpf.ProgramType
		fn    asm.BuiltinFunc
		allow bool
	}{
		{"reference: no override", Build{}, ebpf.Kprobe, asm.FnOverrideReturn, false},
		{"override: kprobe", override, ebpf.Kprobe, asm.FnOverrideReturn, true},
		{"override: not tracepoints", override, ebpf.TracePoint, asm.FnOverrideReturn, false},
		{"reference: no probe_write_user", Build{}, ebpf.Kprobe, asm.FnProbeWriteUser, false},
		{"none: probe_write_user in kprobes", none, ebpf.Kprobe, asm.FnProbeWriteUser, true},
		{"none: probe_write_user in fentry", none, ebpf.Tracing, asm.FnProbeWriteUser, true},
		{"none: probe_write_user in LSM", none, ebpf.LSM, asm.FnProbeWriteUser, true},
		{"none: not in XDP", none, ebpf.XDP, asm.FnProbeWriteUser, false},
		{"reference: probe_read_kernel", Build{}, ebpf.XDP, asm.FnProbeReadKernel, true},
		{"confidentiality: no probe_read_kernel in XDP", conf, ebpf.XDP, asm.FnProbeReadKernel, false},
		{"confidentiality: no probe_read_kernel_str in kprobes", conf, ebpf.Kprobe, asm.FnProbeReadKernelStr, false},
		{"confidentiality: no compat probe_read", conf, ebpf.Kprobe, asm.FnProbeRead, false},
		{"confidentiality: probe_read_user stays", conf, ebpf.Kprobe, asm.FnProbeReadUser, true},
		{"reference: no seg6 action", Build{}, ebpf.LWTSeg6Local, asm.FnLwtSeg6Action, false},
		{"reference: seg6local keeps the lwt helpers", Build{}, ebpf.LWTSeg6Local, asm.FnSkbLoadBytes, true},
		{"seg6 BPF: seg6 action", Build{Seg6BPF: true}, ebpf.LWTSeg6Local, asm.FnLwtSeg6Action, true},
		{"seg6 BPF: store_bytes", Build{Seg6BPF: true}, ebpf.LWTSeg6Local, asm.FnLwtSeg6StoreBytes, true},
		{"seg6 BPF: not in lwt_xmit", Build{Seg6BPF: true}, ebpf.LWTXmit, asm.FnLwtSeg6AdjustSrh, false},
	}
	for _, tt := range tests {
		got, known := tt.b.Allowed(tt.pt, 0, Set{}, int32(tt.fn))
		if diff := cmp.Diff([2]bool{tt.allow, true}, [2]bool{got, known}); diff != "" {
			t.Errorf("%s: Allowed mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseLockdown(t *testing.T) {
	for _, l := range []Lockdown{LockdownNone, LockdownIntegrity, LockdownConfidentiality} {
		got, ok := ParseLockdown(l.String())
		if !ok || got != l {
			t.Errorf("ParseLockdown(%q) = %v, %v", l, got, ok)
		}
	}
	if _, ok := ParseLockdown("strict"); ok {
		t.Errorf("ParseLockdown(strict) accepted")
	}
}

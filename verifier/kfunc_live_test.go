package verifier

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/kfuncs"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// TestKfuncAllowedLiveKernel asks the running kernel, for every kfunc of
// the table and every program type it loads without a privileged attach
// target, whether a call is "calling kernel function %s is not allowed"
// (fetch_kfunc_meta finds no registration of the kfunc for the program's
// hook, or the set's filter refuses the program), and compares vercheck's
// answer under the stable fixes the kernel is probed to lack; and whether
// it is "program must be sleepable to call sleepable kfunc %s" (the
// table's Sleepable flag, tested before the arguments). The table
// says what upstream 6.18 registers; a build that registers less (the
// arena set of stablefix.NoArenaKfuncs) shows here first.
func TestKfuncAllowedLiveKernel(t *testing.T) {
	spec, missing := liveKernelBTF(t)
	types := []protoLiveType{
		{pt: ebpf.SocketFilter}, {pt: ebpf.Kprobe}, {pt: ebpf.SchedCLS}, {pt: ebpf.SchedACT},
		{pt: ebpf.TracePoint}, {pt: ebpf.XDP}, {pt: ebpf.PerfEvent}, {pt: ebpf.CGroupSKB},
		{pt: ebpf.LWTIn}, {pt: ebpf.SkSKB}, {pt: ebpf.RawTracepoint},
		{pt: ebpf.CGroupSockAddr, at: ebpf.AttachCGroupInet4Connect},
		{pt: ebpf.Netfilter, at: ebpf.AttachNetfilter},
		{pt: ebpf.Syscall, flags: loader.FlagSleepable},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task"},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task", flags: loader.FlagSleepable},
	}
	compared := 0
	for _, lt := range types {
		var noVerdict []string
		for _, name := range kfuncs.Names() {
			var fn *btf.Func
			if spec.TypeByName(name, &fn) != nil {
				continue // a module's kfunc, or one this build lacks
			}
			id, err := spec.TypeID(fn)
			if err != nil {
				t.Fatal(err)
			}
			insns := asm.Instructions{kfuncCall(int64(id)), asm.Mov.Imm(asm.R0, 0), asm.Return()}
			line, ok := liveVerdict(lt, insns, nil, "GPL")
			if !ok {
				noVerdict = append(noVerdict, name)
				continue
			}
			compared++
			p := &loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo,
				Flags: lt.flags, GPLCompatible: true, Instructions: insns}
			res := Verify(&loader.Object{Path: "test"}, p, Options{MissingFixes: missing})
			for _, refused := range []string{
				"calling kernel function " + name + " is not allowed",
				"program must be sleepable to call sleepable kfunc " + name,
			} {
				got := res.Err != nil && strings.Contains(res.Err.Error(), refused)
				if want := line == refused; got != want {
					t.Errorf("%v/%v/%s %s: kernel %q %v, vercheck %v (%v)",
						lt.pt, lt.at, lt.attachTo, name, refused, want, got, res.Err)
				}
			}
		}
		if len(noVerdict) > 0 {
			t.Logf("%v/%v/%s flags %#x: no verdict on calls of %v", lt.pt, lt.at, lt.attachTo, lt.flags, noVerdict)
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any kfunc call")
	}
}

// liveKernelBTF skips a test that needs the running kernel's verifier and
// BTF where either is missing, and returns its BTF and the stable fixes it
// is probed to lack.
func liveKernelBTF(t *testing.T) (*btf.Spec, stablefix.Set) {
	t.Helper()
	skipIfNoBPF(t)
	spec, err := vmlinux()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	return spec, liveMissing(t)
}

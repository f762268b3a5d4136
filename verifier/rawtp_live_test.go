package verifier

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/loader"
)

// TestRawTPArgsLiveKernel dereferences, in a tp_btf program, every
// struct pointer argument of every raw tracepoint of the running kernel
// (its btf_trace_* typedefs), unchecked, and compares vercheck's verdict
// with the kernel's: an argument the kernel's raw_tp_null_args lists as
// maybe NULL or maybe an error is refused, any other read. The table is
// data copied from the kernel's source, and a build may list more (the
// -fc-v1147 build's signal and wait arguments, which falco's
// signal_deliver program showed first); this finds every difference at
// once. Set VERCHECK_RAWTP_ALL=1 for every argument of every tracepoint
// (some 1,800 loads, a minute); otherwise one in eight tracepoints and
// the known build entries.
func TestRawTPArgsLiveKernel(t *testing.T) {
	spec, missing := liveKernelBTF(t)
	all := os.Getenv("VERCHECK_RAWTP_ALL") != ""
	compared, noVerdict, n := 0, 0, 0
	for typ, err := range spec.All() {
		if err != nil {
			t.Fatal(err)
		}
		td, ok := typ.(*btf.Typedef)
		if !ok || !strings.HasPrefix(td.Name, "btf_trace_") {
			continue
		}
		name := strings.TrimPrefix(td.Name, "btf_trace_")
		ptr, ok := td.Type.(*btf.Pointer)
		if !ok {
			continue
		}
		proto, ok := ptr.Target.(*btf.FuncProto)
		if !ok || len(proto.Params) < 2 {
			continue
		}
		n++
		_, known := rawTPBuildNullArgs[name]
		if !all && !known && n%8 != 0 {
			continue
		}
		for i, p := range proto.Params[1:] {
			if i >= 12 {
				break
			}
			pp, ok := skipModifiers(p.Type).(*btf.Pointer)
			if !ok || !isStruct(skipModifiers(pp.Target)) {
				continue
			}
			insns := asm.Instructions{
				asm.LoadMem(asm.R1, asm.R1, int16(8*i), asm.DWord),
				asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte),
				asm.Mov.Imm(asm.R0, 0),
				asm.Return(),
			}
			lt := protoLiveType{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: name}
			line, ok := liveVerdict(lt, insns, nil, "GPL")
			if !ok {
				noVerdict++
				continue
			}
			compared++
			prog := &loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, AttachTo: name, GPLCompatible: true, Instructions: insns}
			res := Verify(&loader.Object{Path: "test"}, prog, Options{MissingFixes: missing})
			if res.Verdict() == "unsupported" {
				continue
			}
			got := ""
			if res.Err != nil {
				got = DecisiveLine(res.Err)
			}
			if (line == "") != (got == "") || !strings.HasSuffix(line, got) {
				t.Errorf("%s arg%d (%s): kernel %q, vercheck %q", name, i, fmt.Sprint(pp.Target), line, got)
			}
		}
	}
	t.Logf("%d raw tracepoints, %d loads compared, %d without a verdict", n, compared, noVerdict)
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any tp_btf program")
	}
}

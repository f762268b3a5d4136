package verifier

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// protoProbeSetup is one way of filling r1-r5 before a helper call in the
// live prototype comparison: each register gets a kind of value.
type protoProbeSetup struct {
	name string
	regs [5]probeVal
	// btfTarget marks the setups also tried for programs with a BTF
	// attach target.
	btfTarget bool
	// nonGPL loads the probe with a license that is not GPL-compatible.
	nonGPL bool
}

// probeVal is a kind of value a probe puts in an argument register.
type probeVal uint8

const (
	probeZero  probeVal = iota // the scalar 0 (NULL for pointer arguments)
	probeCtx                   // the context pointer
	probeStack                 // fp-64, 64 initialised bytes
	probeSize                  // the scalar 8
	probeMap                   // a hash map with 8-byte keys and values
)

// protoProbeSetups are the register fillings tried for every helper.
var protoProbeSetups = []protoProbeSetup{
	{"ctx", [5]probeVal{probeCtx}, true, false},
	{"null", [5]probeVal{}, true, false},
	{"stack", [5]probeVal{probeStack, probeSize}, false, false},
	{"ctx-mem", [5]probeVal{probeCtx, probeStack, probeSize, probeStack, probeSize}, false, false},
	{"ctx-ctx", [5]probeVal{probeCtx, probeCtx}, false, false},
	{"ctx-size-mem", [5]probeVal{probeCtx, probeSize, probeStack, probeSize}, false, false},
	{"map", [5]probeVal{probeMap, probeStack, probeStack}, false, false},
	{"map-ctx", [5]probeVal{probeMap, probeCtx, probeZero, probeZero}, false, false},
	{"mem-size-ctx", [5]probeVal{probeStack, probeSize, probeCtx}, false, false},
	{"ctx-non-gpl", [5]probeVal{probeCtx, probeStack, probeSize, probeStack, probeSize}, false, true},
}

// probeStackBytes is how many stack bytes a probe initialises.
const probeStackBytes = 64

// protoProbe builds the program of one probe: save the context, zero the
// stack buffer, fill the argument registers, call, return exitCode.
func protoProbe(id int32, s protoProbeSetup, exitCode int32) asm.Instructions {
	insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1), asm.Mov.Imm(asm.R0, 0)}
	for off := -probeStackBytes; off < 0; off += sizeU64 {
		insns = append(insns, asm.StoreMem(asm.RFP, int16(off), asm.R0, asm.DWord))
	}
	for i, v := range s.regs {
		r := asm.R1 + asm.Register(i)
		switch v {
		case probeZero:
			insns = append(insns, asm.Mov.Imm(r, 0))
		case probeCtx:
			insns = append(insns, asm.Mov.Reg(r, asm.R6))
		case probeStack:
			insns = append(insns, asm.Mov.Reg(r, asm.RFP), asm.Add.Imm(r, -probeStackBytes))
		case probeSize:
			insns = append(insns, asm.Mov.Imm(r, sizeU64))
		case probeMap:
			insns = append(insns, asm.LoadMapPtr(r, 0))
		}
	}
	return append(insns, asm.BuiltinFunc(id).Call(), asm.Mov.Imm(asm.R0, exitCode), asm.Return())
}

// protoLiveType is a program type the prototype comparison loads probes
// as, with the attach target BTF-typed programs need.
type protoLiveType struct {
	pt       ebpf.ProgramType
	at       ebpf.AttachType
	attachTo string
	flags    uint32 // load flags (loader.FlagSleepable)
}

func (lt protoLiveType) String() string {
	s := fmt.Sprintf("%v/%v", lt.pt, lt.at)
	if lt.attachTo != "" {
		s += "/" + lt.attachTo
	}
	return s
}

// protoLiveTypes are the program types compared with the live kernel (the
// reference machine refuses trampoline programs, fentry and fexit, before
// verifying them: tp_btf stands for the BTF tracing family).
var protoLiveTypes = []protoLiveType{
	{pt: ebpf.SocketFilter}, {pt: ebpf.Kprobe}, {pt: ebpf.SchedCLS}, {pt: ebpf.SchedACT}, {pt: ebpf.TracePoint},
	{pt: ebpf.XDP}, {pt: ebpf.PerfEvent}, {pt: ebpf.CGroupSKB, at: ebpf.AttachCGroupInetIngress},
	{pt: ebpf.CGroupSock, at: ebpf.AttachCGroupInetSockCreate}, {pt: ebpf.CGroupSock, at: ebpf.AttachCGroupInet4PostBind},
	{pt: ebpf.LWTIn}, {pt: ebpf.LWTOut}, {pt: ebpf.LWTXmit}, {pt: ebpf.LWTSeg6Local},
	{pt: ebpf.SockOps}, {pt: ebpf.SkSKB}, {pt: ebpf.CGroupDevice, at: ebpf.AttachCGroupDevice}, {pt: ebpf.SkMsg},
	{pt: ebpf.RawTracepoint}, {pt: ebpf.RawTracepointWritable},
	{pt: ebpf.CGroupSockAddr, at: ebpf.AttachCGroupInet4Connect}, {pt: ebpf.CGroupSockAddr, at: ebpf.AttachCGroupUDP6Recvmsg},
	{pt: ebpf.SkReuseport, at: ebpf.AttachSkReuseportSelect}, {pt: ebpf.FlowDissector, at: ebpf.AttachFlowDissector},
	{pt: ebpf.CGroupSysctl, at: ebpf.AttachCGroupSysctl},
	{pt: ebpf.CGroupSockopt, at: ebpf.AttachCGroupGetsockopt}, {pt: ebpf.CGroupSockopt, at: ebpf.AttachCGroupSetsockopt},
	{pt: ebpf.SkLookup, at: ebpf.AttachSkLookup}, {pt: ebpf.Netfilter, at: ebpf.AttachNetfilter},
	{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
	{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task"},
	{pt: ebpf.Kprobe, at: ebpf.AttachTraceKprobeMulti}, {pt: ebpf.Kprobe, at: ebpf.AttachTraceUprobeMulti},
	{pt: ebpf.Kprobe, at: ebpf.AttachTraceKprobeSession}, {pt: ebpf.XDP, at: ebpf.AttachXDPDevMap},
	{pt: ebpf.SkReuseport, at: ebpf.AttachSkReuseportSelectOrMigrate}, {pt: ebpf.CGroupSock, at: ebpf.AttachCGroupInet6PostBind},
}

// TestHelperProtoLiveKernel compares, for every program type and every
// helper it may call, vercheck's verdict and message with the running
// kernel's on small probes that pass the context, NULL, stack memory,
// sizes and a map in the argument registers. A difference in the argument
// kinds of a prototype (the per-type variants) shows up as a different
// message or verdict.
func TestHelperProtoLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	missing := liveMissing(t)
	lm := &loader.Map{Name: "m", Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 4}
	obj := &loader.Object{Path: "probe", Maps: []*loader.Map{lm}}
	m, err := ebpf.NewMap(kernel.MapSpec(lm))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var compared, unsupported atomic.Int64
	// The program types run in parallel, one subtest each; the group
	// returns when all are done, before the map is closed.
	t.Run("types", func(t *testing.T) {
		for _, lt := range protoLiveTypes {
			t.Run(lt.String(), func(t *testing.T) {
				t.Parallel()
				c, u := compareHelperProtos(t, lt, obj, m, missing)
				compared.Add(c)
				unsupported.Add(u)
			})
		}
	})
	t.Logf("%d probes compared with the kernel, %d unsupported by vercheck", compared.Load(), unsupported.Load())
}

// compareHelperProtos runs every probe of every helper program type lt may
// call through vercheck, run as a kernel lacking the stable fixes missing,
// and the kernel; it returns how many were compared and how many vercheck
// does not support. A helper a stable fix refuses (refusedByBuild) is
// compared too: both refuse every probe of it.
func compareHelperProtos(t *testing.T, lt protoLiveType, obj *loader.Object, m *ebpf.Map, missing stablefix.Set) (compared, unsupported int64) {
	exit := int32(0)
	if lo, _, ok := retRange(lt.pt, lt.at); ok {
		exit = int32(lo)
	}
	for id := int32(1); id <= helpers.MaxID; id++ {
		if ok, known := RunningBuild().Allowed(lt.pt, lt.at, helpers.Set{}, id); !ok || !known {
			continue
		}
		for _, s := range protoProbeSetups {
			if lt.attachTo != "" && !s.btfTarget {
				// Each load resolves the target in kernel BTF anew:
				// a few probes only.
				continue
			}
			insns := protoProbe(id, s, exit)
			license := "GPL"
			if s.nonGPL {
				license = "MIT"
			}
			prog := &loader.Program{Name: "probe", Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo,
				License: license, GPLCompatible: !s.nonGPL, Instructions: insns}
			res := Verify(obj, prog, Options{MissingFixes: missing})
			name := fmt.Sprintf("%v(%d) %s", asm.BuiltinFunc(id), id, s.name)
			if errors.Is(res.Err, ErrUnsupported) {
				unsupported++
				if testing.Verbose() {
					t.Logf("%s: %v", name, res.Err)
				}
				continue
			}
			kerr, ok := liveVerdict(lt, insns, m, license)
			if !ok {
				continue
			}
			compared++
			var re *RejectError
			switch {
			case res.Accepted && kerr != "":
				t.Errorf("%s: FALSE ACCEPT, kernel: %s", name, kerr)
			case !res.Accepted && kerr == "":
				t.Errorf("%s: vercheck rejects (%v), kernel accepts", name, res.Err)
			case !res.Accepted && errors.As(res.Err, &re) && !strings.Contains(kerr, lastLine(re.Msg)):
				t.Errorf("%s: vercheck %q, kernel %q", name, re.Msg, kerr)
			}
		}
	}
	return compared, unsupported
}

// liveVerdict loads a probe into the running kernel with m as its map and
// the given license, and returns the decisive line of a rejection ("" when accepted); ok is false
// when the program never reached the verifier.
func liveVerdict(lt protoLiveType, insns asm.Instructions, m *ebpf.Map, license string) (string, bool) {
	insns = slices.Clone(insns)
	for i := range insns {
		if insns[i].IsLoadFromMap() {
			if err := insns[i].AssociateMap(m); err != nil {
				return "", false
			}
		}
	}
	spec := &ebpf.ProgramSpec{Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo, Flags: lt.flags,
		Instructions: insns, License: license}
	p, err := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{LogLevel: ebpf.LogLevelStats})
	if err == nil {
		p.Close()
		return "", true
	}
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) || len(ve.Log) == 0 {
		return "", false
	}
	return kernel.DecisiveLine(strings.Join(ve.Log, "\n")), true
}

package vercheck

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// misalignedValueInsns reads 4 bytes at offset 1 of a map value.
func misalignedValueInsns() asm.Instructions {
	insns := lookupInsns("table", true)
	insns[7] = asm.LoadMem(asm.R0, asm.R0, 1, asm.Word)
	return insns
}

// misalignedPacketInsns reads 4 bytes at offset 1 of an XDP packet, after
// a bounds check.
func misalignedPacketInsns() asm.Instructions {
	return asm.Instructions{
		asm.LoadMem(asm.R2, asm.R1, 0, asm.Word),
		asm.LoadMem(asm.R3, asm.R1, 4, asm.Word),
		asm.Mov.Reg(asm.R4, asm.R2),
		asm.Add.Imm(asm.R4, 8),
		asm.JGT.Reg(asm.R4, asm.R3, "out"),
		asm.LoadMem(asm.R0, asm.R2, 1, asm.Word),
		asm.Mov.Imm(asm.R0, 2).WithSymbol("out"),
		asm.Return(),
	}
}

// diamondsInsns tests eight bits of a random number in a row; each test
// joins again two instructions later, a prune point the kernel's usual
// heuristic (2 jumps and 8 instructions since the last checkpoint) mostly
// passes by.
func diamondsInsns() asm.Instructions {
	insns := asm.Instructions{asm.FnGetPrandomU32.Call(), asm.Mov.Reg(asm.R6, asm.R0)}
	for i := range 8 {
		join := fmt.Sprintf("join%d", i)
		insns = append(insns, asm.JSet.Imm(asm.R6, 1<<i, join), asm.Mov.Imm(asm.R0, int32(i)), asm.Mov.Imm(asm.R0, 0).WithSymbol(join))
	}
	return append(insns, asm.Return())
}

// kernelFigures is what the flags test compares with the kernel.
type kernelFigures struct {
	Accepted                       bool
	Msg                            string
	Insns, TotalStates, PeakStates int
}

// TestProgramFlags verifies programs with the load flags no section name
// implies, given through ProgramSpec.Flags as a loader would, and compares
// verdict, message and figures with the running kernel loading the same
// spec with the same flags.
func TestProgramFlags(t *testing.T) {
	const (
		strict    = loader.FlagStrictAlignment
		any       = loader.FlagAnyAlignment
		stateFreq = loader.FlagTestStateFreq
		sleepable = loader.FlagSleepable
	)
	tests := []struct {
		name  string
		typ   ebpf.ProgramType
		insns asm.Instructions
		flags uint32
		want  string // "" accepted, else the kernel's message
		// wantInsns and wantStates are insn_processed and total_states.
		wantInsns, wantStates int
	}{
		{"value_unaligned_ok", ebpf.SocketFilter, misalignedValueInsns(), 0, "", 11, 1},
		{"value_strict", ebpf.SocketFilter, misalignedValueInsns(), strict, "misaligned value access off 0+0+1 size 4", 8, 0},
		{"value_strict_any", ebpf.SocketFilter, misalignedValueInsns(), strict | any, "", 11, 1},
		{"packet_unaligned_ok", ebpf.XDP, misalignedPacketInsns(), 0, "", 10, 1},
		{"packet_strict", ebpf.XDP, misalignedPacketInsns(), strict, "misaligned packet access off 2+0+0+1 size 4", 6, 0},
		{"checked_lookup", ebpf.SocketFilter, lookupInsns("table", true), 0, "", 11, 1},
		{"checked_lookup_state_freq", ebpf.SocketFilter, lookupInsns("table", true), stateFreq, "", 11, 2},
		{"diamonds", ebpf.SocketFilter, diamondsInsns(), 0, "", 71, 7},
		{"diamonds_state_freq", ebpf.SocketFilter, diamondsInsns(), stateFreq, "", 35, 17},
		{"socket_filter_sleepable", ebpf.SocketFilter, lookupInsns("table", true), sleepable,
			"Only fentry/fexit/fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable", 0, 0},
	}
	live := kernel.Available() == nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := progSpec(tt.name, tt.insns)
			spec.Type, spec.Flags = tt.typ, tt.flags
			maps := map[string]*ebpf.MapSpec{"table": hashMap()}
			res, _ := VerifyProgramSpec(spec, maps, nil)
			got := outcomeOf(res)
			if got.Verdict == "unsupported" || got.Msg != tt.want || res.Stats.InsnProcessed != tt.wantInsns || res.Stats.TotalStates != tt.wantStates {
				t.Errorf("vercheck: %+v, %d total states; want message %q, %d insns, %d states", got, res.Stats.TotalStates, tt.want, tt.wantInsns, tt.wantStates)
			}
			if !live {
				return
			}
			kres, err := kernel.LoadCollectionSpec(&ebpf.CollectionSpec{Maps: maps, Programs: map[string]*ebpf.ProgramSpec{tt.name: spec}})
			if err != nil || len(kres) != 1 || kres[0].NotLoaded {
				t.Fatalf("kernel load: %v %+v", err, kres)
			}
			k := kres[0]
			want := kernelFigures{k.Accepted, k.Err, k.InsnProcessed, k.TotalStates, k.PeakStates}
			have := kernelFigures{res.Accepted, got.Msg, res.Stats.InsnProcessed, res.Stats.TotalStates, res.Stats.PeakStates}
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("vercheck vs kernel (-kernel +vercheck):\n%s", diff)
			}
		})
	}
}

// TestProgramFlagsUnsupported checks that load flags vercheck does not
// model (a bit the kernel does not know, which it refuses with EINVAL
// and no log) are an honest "unsupported", never an accept.
func TestProgramFlagsUnsupported(t *testing.T) {
	spec := progSpec("unknown_flag", asm.Instructions{asm.Mov.Imm(asm.R0, 2), asm.Return()})
	spec.Type, spec.Flags = ebpf.XDP, 1<<8
	res, err := VerifyProgramSpec(spec, nil, nil)
	if res == nil || res.Verdict() != "unsupported" || err == nil {
		t.Errorf("VerifyProgramSpec with prog_flags 0x100 = %+v, %v; want unsupported", res, err)
	}
}

// TestProgramFlagDevBoundOnly: BPF_F_XDP_DEV_BOUND_ONLY without a
// prog_ifindex changes nothing (the program is not device-bound), for
// vercheck as for the kernel.
func TestProgramFlagDevBoundOnly(t *testing.T) {
	spec := progSpec("dev_bound", asm.Instructions{asm.Mov.Imm(asm.R0, 2), asm.Return()})
	spec.Type, spec.Flags = ebpf.XDP, loader.FlagXDPDevBoundOnly
	res, err := VerifyProgramSpec(spec, nil, nil)
	if err != nil || res == nil || !res.Accepted {
		t.Fatalf("VerifyProgramSpec with BPF_F_XDP_DEV_BOUND_ONLY = %+v, %v; want accepted", res, err)
	}
	if kernel.Available() != nil {
		t.Skip("kernel side:", kernel.Available())
	}
	kres, err := kernel.LoadCollectionSpec(&ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{spec.Name: spec}})
	if err != nil || len(kres) != 1 || kres[0].NotLoaded {
		t.Fatalf("kernel load: %v %+v", err, kres)
	}
	if k := kres[0]; !k.Accepted || k.InsnProcessed != res.Stats.InsnProcessed {
		t.Errorf("kernel accepted %v with %d insns (%s), vercheck accepted with %d", k.Accepted, k.InsnProcessed, k.Err, res.Stats.InsnProcessed)
	}
}

// TestOptionsLicense checks that Options.License stands in for a missing
// license, as for a loader passing "GPL" itself, and only then.
func TestOptionsLicense(t *testing.T) {
	const gplOnly = "cannot call GPL-restricted function from non-GPL compatible program"
	probeRead := asm.Instructions{
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.Mov.Reg(asm.R1, asm.RFP),
		asm.Add.Imm(asm.R1, -8),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
		asm.Mov.Imm(asm.R0, 0),
		asm.Return(),
	}
	tests := []struct {
		name, specLicense, optLicense, want string
	}{
		{"none", "", "", gplOnly},
		{"given", "", "GPL", ""},
		{"own_license_wins", "Proprietary", "GPL", gplOnly},
	}
	live := kernel.Available() == nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := progSpec(tt.name, probeRead)
			spec.Type, spec.License = ebpf.Kprobe, tt.specLicense
			res, _ := VerifyProgramSpec(spec, nil, &Options{License: tt.optLicense})
			if got := outcomeOf(res); got.Msg != tt.want || got.Verdict == "unsupported" {
				t.Errorf("vercheck: %+v, want message %q", got, tt.want)
			}
			if !live {
				return
			}
			// The kernel gets the license the loader would pass.
			if spec.License == "" {
				spec.License = tt.optLicense
			}
			kres, err := kernel.LoadCollectionSpec(&ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{tt.name: spec}})
			if err != nil || len(kres) != 1 || kres[0].NotLoaded {
				t.Fatalf("kernel load: %v %+v", err, kres)
			}
			if kres[0].Err != tt.want {
				t.Errorf("kernel: %q, want %q", kres[0].Err, tt.want)
			}
		})
	}
}

// TestDefaultAttachType verifies cgroup sock programs a loader passes
// without an expected attach type, as the kernel does
// (bpf_prog_load_fixup_attach_type): as BPF_CGROUP_INET_SOCK_CREATE
// programs, which may read bound_dev_if; a post_bind4 program may not.
func TestDefaultAttachType(t *testing.T) {
	const badCtx = "invalid bpf_context access off=0 size=4"
	readBoundDevIf := asm.Instructions{
		asm.LoadMem(asm.R0, asm.R1, 0, asm.Word),
		asm.Mov.Imm(asm.R0, 1),
		asm.Return(),
	}
	tests := []struct {
		name   string
		attach ebpf.AttachType
		want   string
	}{
		{"none", 0, ""},
		{"sock_create", ebpf.AttachCGroupInetSockCreate, ""},
		{"post_bind4", ebpf.AttachCGroupInet4PostBind, badCtx},
	}
	live := kernel.Available() == nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := progSpec(tt.name, readBoundDevIf)
			spec.Type, spec.AttachType = ebpf.CGroupSock, tt.attach
			res, _ := VerifyProgramSpec(spec, nil, nil)
			if got := outcomeOf(res); got.Msg != tt.want || got.Verdict == "unsupported" {
				t.Errorf("vercheck: %+v, want message %q", got, tt.want)
			}
			if !live {
				return
			}
			kres, err := kernel.LoadCollectionSpec(&ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{tt.name: spec}})
			if err != nil || len(kres) != 1 || kres[0].NotLoaded {
				t.Fatalf("kernel load: %v %+v", err, kres)
			}
			if kres[0].Err != tt.want {
				t.Errorf("kernel: %q, want %q", kres[0].Err, tt.want)
			}
		})
	}
}

// TestLoadAttachType checks bpf_prog_load_check_attach: a program type
// whose hook decides its context takes only its own expected attach
// types, which a loader's ProgramSpec (or --type) may leave unset. The
// kernel refuses the others with EINVAL before verifying.
func TestLoadAttachType(t *testing.T) {
	tests := []struct {
		name   string
		typ    ebpf.ProgramType
		attach ebpf.AttachType
		accept bool
	}{
		{"sock_addr without attach type", ebpf.CGroupSockAddr, 0, false},
		{"sock_addr connect4", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, true},
		{"sock_addr unix sendmsg", ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixSendmsg, true},
		{"sock_addr ingress", ebpf.CGroupSockAddr, ebpf.AttachCGroupInetEgress, false},
		{"sockopt without attach type", ebpf.CGroupSockopt, 0, false},
		{"sockopt getsockopt", ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt, true},
		{"sk_lookup without attach type", ebpf.SkLookup, 0, false},
		{"sk_lookup", ebpf.SkLookup, ebpf.AttachSkLookup, true},
		{"cgroup_skb without attach type (ingress)", ebpf.CGroupSKB, 0, true},
		{"cgroup_skb connect4", ebpf.CGroupSKB, ebpf.AttachCGroupInet4Connect, false},
		{"cgroup_sock without attach type (sock_create)", ebpf.CGroupSock, 0, true},
		{"cgroup_sock connect4", ebpf.CGroupSock, ebpf.AttachCGroupInet4Connect, false},
		{"netfilter without attach type", ebpf.Netfilter, 0, false},
		{"socket filter with any attach type", ebpf.SocketFilter, ebpf.AttachCGroupInet4Connect, true},
	}
	live := kernel.Available() == nil
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := progSpec("attach", asm.Instructions{asm.Mov.Imm(asm.R0, 1), asm.Return()})
			spec.Type, spec.AttachType = tt.typ, tt.attach
			res, err := VerifyProgramSpec(spec, nil, nil)
			var perr *ProgramError
			if res == nil || (err != nil && !errors.As(err, &perr)) {
				t.Fatal(err)
			}
			if res.Accepted != tt.accept {
				t.Fatalf("accepted = %v (%v), want %v", res.Accepted, res.Err, tt.accept)
			}
			if !tt.accept && res.Errno() != syscall.EINVAL {
				t.Errorf("errno %v, want EINVAL", res.Errno())
			}
			if !live {
				return
			}
			kres, err := kernel.LoadCollectionSpec(&ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{spec.Name: spec}})
			if err != nil || len(kres) != 1 {
				t.Fatalf("kernel load: %v %+v", err, kres)
			}
			k := kres[0]
			if tt.accept && !k.Accepted {
				t.Errorf("the kernel did not accept it: %s", k.Err)
			}
			if !tt.accept && (!k.NotLoaded || k.Errno != syscall.EINVAL) {
				t.Errorf("the kernel: accepted %v, not loaded %v, errno %v (%s); want a refused load (EINVAL)", k.Accepted, k.NotLoaded, k.Errno, k.Err)
			}
		})
	}
}

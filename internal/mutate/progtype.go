package mutate

import (
	"fmt"
	"math/rand/v2"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/insn"
)

// This file holds the mutations that move a program to the rules of
// another program type: the whole program loaded as a type whose context
// has the same C type but other field rules (the __sk_buff of socket
// filters, tc, cgroup_skb, lwt, sk_skb and flow dissector programs; the
// attach types of cgroup sock_addr, sock, sockopt, XDP, sk_reuseport and
// kprobe programs), and helper calls swapped for other helpers the
// program's type may call, which reach their argument checks where an
// arbitrary helper number stops at "unknown func" or "program of this
// type cannot use helper".

// ProgType is a program type together with the expected attach type it
// is loaded with.
type ProgType struct {
	Type   ebpf.ProgramType
	Attach ebpf.AttachType
}

func (pt ProgType) String() string {
	return fmt.Sprintf("%s/%s", pt.Type, pt.Attach)
}

// ProgTypeOperator names the mutation that loads a mutant as another
// program type.
const ProgTypeOperator = "program type"

// ProgTypeShare is the probability that a mutant of a program with other
// program types (Env.ProgTypes) is loaded as one of them.
const ProgTypeShare = 0.1

// ctxFamilies are the groups of program types and attach types whose
// contexts share one C type: a program of one is a valid program text for
// the others, and the kernel's per-type rules (is_valid_access, the
// helpers each type may call, return codes) decide. Tracing types that
// need an attach target (fentry, LSM, tp_btf, iterators, struct_ops) are
// in none.
var ctxFamilies = [][]ProgType{
	{ // struct __sk_buff
		{ebpf.SocketFilter, ebpf.AttachNone}, {ebpf.SchedCLS, ebpf.AttachNone}, {ebpf.SchedACT, ebpf.AttachNone},
		{ebpf.CGroupSKB, ebpf.AttachCGroupInetIngress}, {ebpf.CGroupSKB, ebpf.AttachCGroupInetEgress},
		{ebpf.LWTIn, ebpf.AttachNone}, {ebpf.LWTOut, ebpf.AttachNone}, {ebpf.LWTXmit, ebpf.AttachNone},
		{ebpf.LWTSeg6Local, ebpf.AttachNone},
		{ebpf.SkSKB, ebpf.AttachSkSKBStreamParser}, {ebpf.SkSKB, ebpf.AttachSkSKBStreamVerdict},
		{ebpf.SkSKB, ebpf.AttachSkSKBVerdict},
		{ebpf.FlowDissector, ebpf.AttachFlowDissector},
	},
	{ // struct xdp_md
		{ebpf.XDP, ebpf.AttachNone}, {ebpf.XDP, ebpf.AttachXDP}, {ebpf.XDP, ebpf.AttachXDPDevMap},
		{ebpf.XDP, ebpf.AttachXDPCPUMap},
	},
	{ // struct bpf_sock_addr
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Bind}, {ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Bind},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect}, {ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Connect},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP4Sendmsg}, {ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP6Sendmsg},
		{ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP4Recvmsg}, {ebpf.CGroupSockAddr, ebpf.AttachCGroupUDP6Recvmsg},
		{ebpf.CGroupSockAddr, ebpf.AttachCgroupInet4GetPeername}, {ebpf.CGroupSockAddr, ebpf.AttachCgroupInet6GetPeername},
		{ebpf.CGroupSockAddr, ebpf.AttachCgroupInet4GetSockname}, {ebpf.CGroupSockAddr, ebpf.AttachCgroupInet6GetSockname},
		{ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixConnect}, {ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixSendmsg},
		{ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixRecvmsg}, {ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixGetpeername},
		{ebpf.CGroupSockAddr, ebpf.AttachCgroupUnixGetsockname},
	},
	{ // struct bpf_sock
		{ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate}, {ebpf.CGroupSock, ebpf.AttachCGroupInet4PostBind},
		{ebpf.CGroupSock, ebpf.AttachCGroupInet6PostBind}, {ebpf.CGroupSock, ebpf.AttachCgroupInetSockRelease},
	},
	{ // struct bpf_sockopt
		{ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt}, {ebpf.CGroupSockopt, ebpf.AttachCGroupSetsockopt},
	},
	{ // struct sk_reuseport_md
		{ebpf.SkReuseport, ebpf.AttachSkReuseportSelect}, {ebpf.SkReuseport, ebpf.AttachSkReuseportSelectOrMigrate},
	},
	{ // struct pt_regs and the untyped tracing contexts, read only
		{ebpf.Kprobe, ebpf.AttachNone}, {ebpf.Kprobe, ebpf.AttachTraceKprobeMulti},
		{ebpf.Kprobe, ebpf.AttachTraceKprobeSession}, {ebpf.Kprobe, ebpf.AttachTraceUprobeMulti},
		{ebpf.PerfEvent, ebpf.AttachNone}, {ebpf.TracePoint, ebpf.AttachNone}, {ebpf.RawTracepoint, ebpf.AttachNone},
	},
}

// OtherProgTypes returns the program types and attach types, other than
// pt, that a program of type pt may be loaded as for the mutations: the
// others of its context family. Attach type 0 stands for every attach
// type the family lists with pt's program type.
func OtherProgTypes(pt ProgType) []ProgType {
	for _, fam := range ctxFamilies {
		if !inFamily(fam, pt) {
			continue
		}
		var out []ProgType
		for _, o := range fam {
			if o != pt {
				out = append(out, o)
			}
		}
		return out
	}
	return nil
}

// inFamily reports whether pt is a member of fam, attach type 0 matching
// any attach type of its program type (loaders often leave it unset).
func inFamily(fam []ProgType, pt ProgType) bool {
	for _, o := range fam {
		if o == pt || (o.Type == pt.Type && pt.Attach == ebpf.AttachNone) {
			return true
		}
	}
	return false
}

// SleepableOperator names the mutation that loads a mutant sleepable if
// its original is not, and not sleepable if it is.
const SleepableOperator = "sleepable"

// SleepableShare is the probability that a mutant of a program whose
// type may be sleepable (Env.MaySleep) has BPF_F_SLEEPABLE toggled: the
// rules for sleepable helpers and kfuncs, for RCU-protected pointers
// (trusted only inside an RCU section of a sleepable program), for
// sleepable attach targets.
const SleepableShare = 0.1

// withSleepableToggled loads m with BPF_F_SLEEPABLE toggled.
func (m Mutant) withSleepableToggled() Mutant {
	m.ToggleSleepable = true
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)], SleepableOperator+": BPF_F_SLEEPABLE toggled")
	return m.by(SleepableOperator)
}

// withProgType loads m as another of env's program types, drawn from r.
func (m Mutant) withProgType(r *rand.Rand, env Env) Mutant {
	pt := env.ProgTypes[r.IntN(len(env.ProgTypes))]
	m.ProgType = &pt
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)], fmt.Sprintf("%s: loaded as %s", ProgTypeOperator, pt))
	return m.by(ProgTypeOperator)
}

// allowedHelper replaces a helper call by a call of each other helper the
// program's type may call (Env.Helpers), with the same argument
// registers: argument kinds the program did not prepare (a context where
// a map key is wanted, a scalar where a pointer, a map of another type),
// return kinds its code did not expect, helpers with conditions of their
// own (a GPL licence, a sleepable program, a lock not held).
func allowedHelper(env Env, prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !in.IsHelperCall() {
		return nil
	}
	out := make([]edit, 0, len(env.Helpers))
	for _, id := range env.Helpers {
		if id != in.Imm {
			v := in
			v.Imm = id
			out = append(out, rewrite(i, v))
		}
	}
	return out
}

// typeKfunc replaces a helper or kfunc call by a call of each kfunc of
// Env.TypeKfuncs (the kfuncs of every seed's object that the program's
// type may call), with the same argument registers: the kfunc argument
// kinds (KF_ARG_PTR_TO_*: dynptrs, iterators, allocated objects, list and
// rbtree nodes, trusted and RCU pointers, memory and size pairs,
// constants, callbacks) given whatever the program prepared for another
// call, and acquire, release and lock kfuncs where the program holds
// nothing of their kind.
func typeKfunc(env Env, prog []insn.Insn, i int) []edit {
	in := prog[i]
	if !isOuterCall(in) {
		return nil
	}
	out := make([]edit, 0, len(env.TypeKfuncs))
	for _, k := range env.TypeKfuncs {
		if k != in {
			out = append(out, rewrite(i, k))
		}
	}
	return out
}

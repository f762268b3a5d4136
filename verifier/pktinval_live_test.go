package verifier

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/internal/logdiff"
	"github.com/vercheck/vercheck/loader"
)

// TestPacketInvalidationLiveKernel holds a packet pointer somewhere, makes
// a call that may or may not move the packet data, then uses the old
// pointer, and compares verdict, decisive message and insn_processed (of
// rejections too) with the running kernel.
//
// The kernel code under test is the invalidation of packet pointers:
// check_helper_call's clear_all_pkt_pointers after a helper of
// bpf_helper_changes_pkt_data's list (net/core/filter.c: bpf_skb_store_bytes,
// bpf_l3/l4_csum_replace, bpf_clone_redirect, bpf_skb_vlan_push/pop,
// bpf_skb_change_proto/tail/head, bpf_skb_pull_data, bpf_skb_adjust_room,
// bpf_xdp_adjust_head/meta/tail, bpf_lwt_push_encap, bpf_lwt_seg6_*,
// bpf_msg_pull/push/pop_data, bpf_store_hdr_opt), after bpf_dynptr_write
// into an skb or skb_meta dynptr (not an XDP or a local one), and after
// bpf_tail_call in a subprogram (a taken tail call returns to the caller
// with the packet changed; in the main function it never returns);
// check_kfunc_call's for is_kfunc_pkt_changing (bpf_xdp_pull_data), and
// on builds with stablefix.DynptrKfuncPktWrite after bpf_dynptr_copy
// into and bpf_dynptr_memset of an skb or skb_meta dynptr; and
// the changes_pkt_data property of subprograms, which check_cfg's
// visit_insn sets from the call instructions of a function, taken or not
// (mark_subprog_changes_pkt_data), merges from callee to caller along
// calls and callback address loads, and which check_func_call applies
// at the call of a global function, verified apart. clear_all_pkt_pointers
// (through mark_reg_invalid) turns every PTR_TO_PACKET, PTR_TO_PACKET_META
// and PTR_TO_PACKET_END of every frame, in registers and stack spills,
// into unknown scalars. A pointer vercheck keeps valid where the kernel
// dropped it accepts an access to moved or freed packet memory: the
// worst false accept.
//
// The matrix (pkTypes, pkHolders, pkCalls and pkSubCalls, pkAfters): tc,
// XDP, sk_skb, lwt_xmit, lwt_seg6local, cgroup_skb, sk_msg and sock_ops
// programs; the pointer in r7, spilled to fp-16, in the caller's r7 or
// spill while a static subprogram makes the call (read back in the
// caller or, through a stack pointer, in the callee), the packet end in
// r8 (of this frame or the caller's), a pointer derived with a constant
// or a variable offset and its own range check, a data_meta pointer;
// each packet-changing helper or kfunc the type has, with valid
// arguments, and helpers that change nothing (bpf_get_prandom_u32, the
// load_bytes helpers, bpf_dynptr_read, a write into a local dynptr,
// ...); for a few of each type, and for bpf_tail_call and
// bpf_get_prandom_u32, the call made by a static subprogram, a global
// function (each also on a branch never taken), a global function
// calling a static one, another global one or bpf_loop with a callback
// that makes it, a static subprogram calling a global one, a global
// function only loading the address of such a callback, a bpf_loop
// callback of the main function, or on one of two paths; afterwards the
// old pointer dereferenced, checked against a fresh bound and
// dereferenced, only compared with a fresh bound, a pointer re-derived
// from the context and dereferenced (the control), and the dereference
// (old or re-derived) and the call in a loop of two iterations. Programs
// the kernel's verifier faults on when it accepts them (a tail call in a
// bpf_loop callback, a callback address only loaded) are made with the
// pointer in r7 only, and a vercheck decline quoting the fault counts as
// agreement.
//
// By default every call with the pointer in r7, dereferenced or
// re-derived, and a fixed third of the rest (some 6,800 programs, 10 s);
// VERCHECK_PKTINVAL_ALL=1 loads all (some 18,800, 25 s);
// VERCHECK_PKTINVAL_ONLY=s keeps the programs whose name holds s and
// logs both verdicts of each (with VERCHECK_PKTINVAL_LOGS=dir, the last
// one's level-2 logs are written to dir/kernel.log and dir/vercheck.log).
func TestPacketInvalidationLiveKernel(t *testing.T) {
	spec, missing := liveKernelBTF(t)
	kfunc := func(name string) (asm.Instruction, bool) {
		var fn *btf.Func
		if spec.TypeByName(name, &fn) != nil {
			return asm.Instruction{}, false
		}
		id, err := spec.TypeID(fn)
		if err != nil {
			t.Fatal(err)
		}
		return kfuncCall(int64(id)), true
	}
	calls := pkCalls(kfunc)
	all := os.Getenv("VERCHECK_PKTINVAL_ALL") != ""
	only := os.Getenv("VERCHECK_PKTINVAL_ONLY")
	rng := rand.New(rand.NewPCG(6, 18))
	compared, accepted, differ, noVerdict, faults, total := 0, 0, 0, 0, 0, 0
	var diffs cgDiffs
	reasons := map[string]int{}
	lacking := map[string]bool{}
	for _, pt := range pkTypes {
		var list []pkCall
		for _, k := range append(append([]string{}, pt.changers...), pt.plain...) {
			c, ok := calls[k]
			if !ok {
				lacking[k] = true
				continue
			}
			list = append(list, c)
		}
		for _, k := range append(append([]string{}, pt.reps...), "tail_call", "get_prandom_u32") {
			if c, ok := calls[k]; ok {
				list = append(list, pkSubCalls(c)...)
			}
		}
		for _, h := range pkHolders {
			if h.needsMeta && pt.meta == 0 {
				continue
			}
			for _, c := range list {
				for _, a := range pkAfters {
					after := a.build(pt, h)
					if after == nil || a.loop && h.inCallee {
						continue
					}
					if c.firstHolderOnly && h.name != pkHolders[0].name {
						continue
					}
					total++
					core := h.name == pkHolders[0].name && a.core
					if !all && !core && rng.IntN(pkSample) != 0 {
						continue
					}
					name := fmt.Sprintf("%s, %s, %s, %s", pt.name, h.name, c.name, a.name)
					if only != "" && !strings.Contains(name, only) {
						continue
					}
					insns := pkProgram(pt, h, c, after, a.loop)
					obj := &loader.Object{Path: "test"}
					if c.maps {
						obj.Maps = pkMaps
					}
					p := (&loader.Program{}).WithInstructions(insns)
					p.Name, p.Type, p.License, p.GPLCompatible = "p", pt.pt, "GPL", true
					kres := kernel.LoadProgramVerdict(obj, p)
					if kres.NotLoaded {
						noVerdict++
						reasons[kres.Err]++
						continue
					}
					compared++
					if kres.Accepted {
						accepted++
					}
					res := Verify(obj, p, Options{MissingFixes: missing})
					got := ""
					var re *RejectError
					if errors.As(res.Err, &re) {
						got = lastLine(re.Msg)
					} else if res.Err != nil {
						got = res.Err.Error()
					}
					if only != "" {
						t.Logf("%s: kernel %v %q insns %d; vercheck %v %q insns %d", name,
							kres.Accepted, kres.Err, kres.InsnProcessed, res.Accepted, got, res.Stats.InsnProcessed)
						// Where the level-2 logs part says why.
						if klog, err := kernel.ProgramLog(obj, p, 2); err == nil && klog != "" {
							vlog := Verify(obj, p, Options{LogLevel: 2, MissingFixes: missing}).Log
							t.Logf("logs: %v", logdiff.Compare(vlog, klog))
							if d := os.Getenv("VERCHECK_PKTINVAL_LOGS"); d != "" {
								os.WriteFile(d+"/kernel.log", []byte(klog), 0o644)
								os.WriteFile(d+"/vercheck.log", []byte(vlog), 0o644)
							}
						}
					}
					// The kernel numbers the instruction of a fault after
					// its context-access rewrites (sk_skb, sock_ops), which
					// vercheck does not make: the index is left out.
					if errors.Is(res.Err, ErrKernelFault) && kres.Err != "" && strings.Contains(faultInsn.ReplaceAllString(got, "insn N"), faultInsn.ReplaceAllString(kres.Err, "insn N")) {
						faults++
						continue
					}
					// insn_processed is compared on rejections too: both
					// verifiers stop at the same instruction.
					if got == kres.Err && res.Accepted == kres.Accepted && res.Stats.InsnProcessed == kres.InsnProcessed {
						continue
					}
					differ++
					what := fmt.Sprintf("%s:\n%s", name, listing(insns))
					switch {
					case res.Accepted && !kres.Accepted:
						diffs.add(0, "FALSE ACCEPT %s\nkernel %q, vercheck accepts", what, kres.Err)
					case kres.Accepted && !res.Accepted:
						diffs.add(1, "false reject %s\nkernel accepts, vercheck %q", what, got)
					case got != kres.Err:
						diffs.add(2, "message %s\nkernel %q, vercheck %q", what, kres.Err, got)
					default:
						diffs.add(3, "insn_processed %s\nvercheck %d, kernel %d (%q)", what, res.Stats.InsnProcessed, kres.InsnProcessed, got)
					}
				}
			}
		}
	}
	diffs.report(t)
	for k := range lacking {
		t.Logf("the kernel lacks a kfunc of %s: its calls are left out", k)
	}
	for why, n := range reasons {
		t.Logf("no verdict on %d programs: %s", n, why)
	}
	if compared == 0 {
		t.Skipf("the kernel gave no verdict on any of the %d programs", total)
	}
	t.Logf("%d of %d programs compared (%d accepted by the kernel, %d kernel faults vercheck declines as such), %d differ; %d without a verdict",
		compared, total, accepted, faults, differ, noVerdict)
	if only == "" && (accepted == 0 || accepted == compared) {
		t.Errorf("the kernel accepted %d of %d programs: the sweep tests nothing", accepted, compared)
	}
}

// pkSample: by default one in pkSample of the programs that are not
// core (r7, the old pointer dereferenced or a fresh one, no loop) is
// loaded, chosen with a fixed seed.
const pkSample = 3

// pkType is a program type of the sweep: where its context holds data,
// data_end and data_meta (0: none) and at which size, and the keys (of
// pkCalls) of the packet-changing calls it has, of some that do not
// change the packet, and of the changing ones also made in subprograms
// and callbacks.
type pkType struct {
	name            string
	pt              ebpf.ProgramType
	data, end, meta int16
	size            asm.Size
	changers, plain []string
	reps            []string
}

var pkTypes = []pkType{
	{name: "tc", pt: ebpf.SchedCLS, data: 76, end: 80, meta: 140, size: asm.Word,
		changers: []string{"skb_store_bytes", "l3_csum_replace", "l4_csum_replace", "clone_redirect", "skb_vlan_push",
			"skb_vlan_pop", "skb_change_proto", "skb_change_tail", "skb_change_head", "skb_pull_data", "skb_adjust_room",
			"tail_call", "dynptr_write_skb", "dynptr_write_skb_meta", "dynptr_memset_skb", "dynptr_copy_skb",
			"dynptr_memset_skb_meta", "dynptr_copy_skb_meta"},
		plain: []string{"get_prandom_u32", "skb_load_bytes", "skb_change_type", "dynptr_read_skb", "dynptr_write_local", "dynptr_memset_local"},
		reps:  []string{"skb_pull_data", "dynptr_write_skb", "dynptr_read_skb", "dynptr_write_local", "dynptr_memset_skb", "dynptr_memset_local"}},
	{name: "xdp", pt: ebpf.XDP, data: 0, end: 4, meta: 8, size: asm.Word,
		changers: []string{"xdp_adjust_head", "xdp_adjust_meta", "xdp_adjust_tail", "xdp_pull_data", "tail_call"},
		plain:    []string{"get_prandom_u32", "xdp_load_bytes", "xdp_get_buff_len", "dynptr_write_xdp", "dynptr_memset_xdp", "dynptr_copy_xdp"},
		reps:     []string{"xdp_adjust_tail", "xdp_pull_data", "dynptr_write_xdp", "dynptr_memset_xdp"}},
	{name: "sk_skb", pt: ebpf.SkSKB, data: 76, end: 80, size: asm.Word,
		changers: []string{"skb_store_bytes", "skb_pull_data", "skb_change_tail", "skb_change_head", "skb_adjust_room",
			"tail_call", "dynptr_write_skb"},
		plain: []string{"get_prandom_u32", "skb_load_bytes"},
		reps:  []string{"skb_change_head"}},
	{name: "lwt_xmit", pt: ebpf.LWTXmit, data: 76, end: 80, size: asm.Word,
		changers: []string{"skb_store_bytes", "l3_csum_replace", "l4_csum_replace", "clone_redirect", "skb_change_tail",
			"skb_change_head", "skb_pull_data", "lwt_push_encap", "tail_call", "dynptr_write_skb"},
		plain: []string{"get_prandom_u32", "skb_load_bytes"},
		reps:  []string{"lwt_push_encap"}},
	{name: "cgroup_skb", pt: ebpf.CGroupSKB, data: 76, end: 80, size: asm.Word,
		changers: []string{"tail_call", "dynptr_write_skb", "dynptr_memset_skb", "dynptr_copy_skb"},
		plain:    []string{"get_prandom_u32", "skb_load_bytes", "dynptr_read_skb"},
		reps:     []string{"dynptr_write_skb", "dynptr_read_skb", "dynptr_copy_skb"}},
	{name: "sk_msg", pt: ebpf.SkMsg, data: 0, end: 8, size: asm.DWord,
		changers: []string{"msg_pull_data", "msg_push_data", "msg_pop_data", "tail_call"},
		plain:    []string{"get_prandom_u32", "msg_apply_bytes"},
		reps:     []string{"msg_pop_data"}},
	{name: "sock_ops", pt: ebpf.SockOps, data: 192, end: 200, size: asm.DWord,
		changers: []string{"store_hdr_opt", "tail_call"},
		plain:    []string{"get_prandom_u32", "load_hdr_opt", "reserve_hdr_opt"},
		reps:     []string{"store_hdr_opt"}},
	{name: "lwt_seg6local", pt: ebpf.LWTSeg6Local, data: 76, end: 80, size: asm.Word,
		changers: []string{"lwt_seg6_store_bytes", "lwt_seg6_adjust_srh", "lwt_seg6_action", "tail_call"},
		plain:    []string{"get_prandom_u32", "skb_load_bytes"},
		reps:     []string{"lwt_seg6_action"}},
}

// load is "dst = ctx->field" (ctx in r6).
func (pt pkType) load(dst asm.Register, off int16) asm.Instruction {
	return asm.LoadMem(dst, asm.R6, off, pt.size)
}

// pkCall is a call made with the context in r6: its instructions (which
// may use fp-8, fp-24 and the dynptr at fp-48 of their frame), the
// subprograms they call, whether they use pkMaps, and firstHolderOnly
// when the kernel's verifier faults on the programs it accepts (a tail
// call in a bpf_loop callback: "callback unexpected regs 1", with a
// kernel warning; the address of a callback only loaded by a subprogram:
// "No program to jit"), which are made with the first holder only.
type pkCall struct {
	name            string
	insns           asm.Instructions
	subs            []liveSub
	maps            bool
	firstHolderOnly bool
}

// pkMaps are the maps of the programs whose calls need one: the program
// array of bpf_tail_call and an array whose value backs a local dynptr.
var pkMaps = []*loader.Map{
	{Name: "progs", Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 1},
	{Name: "arr", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1},
}

// pkOutOff marks a jump to the end of its function ("r0 = 0; exit"),
// resolved by pkFunc.
const pkOutOff = math.MinInt16

// faultInsn is the instruction index in a kernel fault's message.
var faultInsn = regexp.MustCompile(`insn \d+`)

// pkOut is "if dst op src goto out".
func pkOut(op asm.JumpOp, dst, src asm.Register) asm.Instruction {
	return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(op).SetSource(asm.RegSource), Dst: dst, Src: src, Offset: pkOutOff}
}

// pkFunc is body, "out: r0 = 0; exit", with pkOut's jumps bound.
func pkFunc(body asm.Instructions) asm.Instructions {
	insns := cat(body, asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()})
	out := rawLen(body)
	slot := 0
	for i := range insns {
		if insns[i].OpCode.JumpOp() != asm.InvalidJumpOp && insns[i].Offset == pkOutOff {
			insns[i].Offset = int16(out - slot - 1)
		}
		slot += int(insns[i].Width())
	}
	return insns
}

// pkCalls are the calls of the sweep by key; a kfunc the kernel lacks
// leaves its calls out.
func pkCalls(kfunc func(string) (asm.Instruction, bool)) map[string]pkCall {
	ctx := asm.Mov.Reg(asm.R1, asm.R6)
	z := func(r asm.Register) asm.Instruction { return asm.Mov.Imm(r, 0) }
	imm := func(r asm.Register, v int32) asm.Instruction { return asm.Mov.Imm(r, v) }
	buf := storeImm(asm.RFP, -8, 0, asm.DWord)
	out := map[string]pkCall{}
	add := func(key, name string, parts ...asm.Instructions) {
		out[key] = pkCall{name: name, insns: cat(parts...), maps: key == "tail_call" || strings.HasSuffix(key, "_local")}
	}
	one := func(fn asm.BuiltinFunc, args ...asm.Instruction) asm.Instructions {
		return append(append(asm.Instructions{}, args...), fn.Call())
	}
	add("skb_store_bytes", "bpf_skb_store_bytes(ctx, 0, fp-8, 1, 0)", asm.Instructions{buf, ctx, z(asm.R2)},
		fpPtr(asm.R3, -8), one(asm.FnSkbStoreBytes, imm(asm.R4, 1), z(asm.R5)))
	add("l3_csum_replace", "bpf_l3_csum_replace(ctx, 0, 0, 0, 0)", one(asm.FnL3CsumReplace, ctx, z(asm.R2), z(asm.R3), z(asm.R4), z(asm.R5)))
	add("l4_csum_replace", "bpf_l4_csum_replace(ctx, 0, 0, 0, 0)", one(asm.FnL4CsumReplace, ctx, z(asm.R2), z(asm.R3), z(asm.R4), z(asm.R5)))
	add("clone_redirect", "bpf_clone_redirect(ctx, 1, 0)", one(asm.FnCloneRedirect, ctx, imm(asm.R2, 1), z(asm.R3)))
	add("skb_vlan_push", "bpf_skb_vlan_push(ctx, 0x8100, 1)", one(asm.FnSkbVlanPush, ctx, imm(asm.R2, 0x8100), imm(asm.R3, 1)))
	add("skb_vlan_pop", "bpf_skb_vlan_pop(ctx)", one(asm.FnSkbVlanPop, ctx))
	add("skb_change_proto", "bpf_skb_change_proto(ctx, 0, 0)", one(asm.FnSkbChangeProto, ctx, z(asm.R2), z(asm.R3)))
	add("skb_change_tail", "bpf_skb_change_tail(ctx, 64, 0)", one(asm.FnSkbChangeTail, ctx, imm(asm.R2, 64), z(asm.R3)))
	add("skb_change_head", "bpf_skb_change_head(ctx, 0, 0)", one(asm.FnSkbChangeHead, ctx, z(asm.R2), z(asm.R3)))
	add("skb_pull_data", "bpf_skb_pull_data(ctx, 0)", one(asm.FnSkbPullData, ctx, z(asm.R2)))
	add("skb_adjust_room", "bpf_skb_adjust_room(ctx, 0, 0, 0)", one(asm.FnSkbAdjustRoom, ctx, z(asm.R2), z(asm.R3), z(asm.R4)))
	add("lwt_push_encap", "bpf_lwt_push_encap(ctx, 0, fp-8, 8)", asm.Instructions{buf, ctx, z(asm.R2)},
		fpPtr(asm.R3, -8), one(asm.FnLwtPushEncap, imm(asm.R4, 8)))
	add("store_hdr_opt", "bpf_store_hdr_opt(ctx, fp-8, 8, 0)", asm.Instructions{buf, ctx}, fpPtr(asm.R2, -8),
		one(asm.FnStoreHdrOpt, imm(asm.R3, 8), z(asm.R4)))
	add("load_hdr_opt", "bpf_load_hdr_opt(ctx, fp-8, 8, 0)", asm.Instructions{buf, ctx}, fpPtr(asm.R2, -8),
		one(asm.FnLoadHdrOpt, imm(asm.R3, 8), z(asm.R4)))
	add("reserve_hdr_opt", "bpf_reserve_hdr_opt(ctx, 8, 0)", one(asm.FnReserveHdrOpt, ctx, imm(asm.R2, 8), z(asm.R3)))
	add("lwt_seg6_store_bytes", "bpf_lwt_seg6_store_bytes(ctx, 0, fp-8, 1)", asm.Instructions{buf, ctx, z(asm.R2)},
		fpPtr(asm.R3, -8), one(asm.FnLwtSeg6StoreBytes, imm(asm.R4, 1)))
	add("lwt_seg6_adjust_srh", "bpf_lwt_seg6_adjust_srh(ctx, 0, 0)", one(asm.FnLwtSeg6AdjustSrh, ctx, z(asm.R2), z(asm.R3)))
	add("lwt_seg6_action", "bpf_lwt_seg6_action(ctx, 0, fp-8, 8)", asm.Instructions{buf, ctx, z(asm.R2)},
		fpPtr(asm.R3, -8), one(asm.FnLwtSeg6Action, imm(asm.R4, 8)))
	add("xdp_adjust_head", "bpf_xdp_adjust_head(ctx, 0)", one(asm.FnXdpAdjustHead, ctx, z(asm.R2)))
	add("xdp_adjust_meta", "bpf_xdp_adjust_meta(ctx, 0)", one(asm.FnXdpAdjustMeta, ctx, z(asm.R2)))
	add("xdp_adjust_tail", "bpf_xdp_adjust_tail(ctx, 0)", one(asm.FnXdpAdjustTail, ctx, z(asm.R2)))
	add("msg_pull_data", "bpf_msg_pull_data(ctx, 0, 0, 0)", one(asm.FnMsgPullData, ctx, z(asm.R2), z(asm.R3), z(asm.R4)))
	add("msg_push_data", "bpf_msg_push_data(ctx, 0, 0, 0)", one(asm.FnMsgPushData, ctx, z(asm.R2), z(asm.R3), z(asm.R4)))
	add("msg_pop_data", "bpf_msg_pop_data(ctx, 0, 0, 0)", one(asm.FnMsgPopData, ctx, z(asm.R2), z(asm.R3), z(asm.R4)))
	add("tail_call", "bpf_tail_call(ctx, progs, 0)", asm.Instructions{ctx, asm.LoadMapPtr(asm.R2, 0), z(asm.R3), asm.FnTailCall.Call()})
	add("get_prandom_u32", "bpf_get_prandom_u32()", one(asm.FnGetPrandomU32))
	add("skb_load_bytes", "bpf_skb_load_bytes(ctx, 0, fp-8, 1)", asm.Instructions{ctx, z(asm.R2)},
		fpPtr(asm.R3, -8), one(asm.FnSkbLoadBytes, imm(asm.R4, 1)))
	add("skb_change_type", "bpf_skb_change_type(ctx, 0)", one(asm.FnSkbChangeType, ctx, z(asm.R2)))
	add("xdp_load_bytes", "bpf_xdp_load_bytes(ctx, 0, fp-8, 1)", asm.Instructions{ctx, z(asm.R2)},
		fpPtr(asm.R3, -8), one(asm.FnXdpLoadBytes, imm(asm.R4, 1)))
	add("xdp_get_buff_len", "bpf_xdp_get_buff_len(ctx)", one(asm.FnXdpGetBuffLen, ctx))
	add("msg_apply_bytes", "bpf_msg_apply_bytes(ctx, 0)", one(asm.FnMsgApplyBytes, ctx, z(asm.R2)))
	if k, ok := kfunc("bpf_xdp_pull_data"); ok {
		add("xdp_pull_data", "bpf_xdp_pull_data(ctx, 0) (kfunc)", asm.Instructions{ctx, z(asm.R2), k})
	}
	// A dynptr at fp-48 made by the kfunc from, then bpf_dynptr_write of
	// one byte from fp-8 into it, or bpf_dynptr_read of one byte.
	dynptr := map[string]string{"skb": "bpf_dynptr_from_skb", "skb_meta": "bpf_dynptr_from_skb_meta", "xdp": "bpf_dynptr_from_xdp"}
	for kind, from := range dynptr {
		k, ok := kfunc(from)
		if !ok {
			continue
		}
		mk := cat(asm.Instructions{buf, ctx, z(asm.R2)}, fpPtr(asm.R3, -48), asm.Instructions{k})
		add("dynptr_write_"+kind, fmt.Sprintf("%s(ctx, 0, fp-48); bpf_dynptr_write(fp-48, 0, fp-8, 1, 0)", from),
			mk, fpPtr(asm.R1, -48), asm.Instructions{z(asm.R2)}, fpPtr(asm.R3, -8), one(asm.FnDynptrWrite, imm(asm.R4, 1), z(asm.R5)))
		add("dynptr_read_"+kind, fmt.Sprintf("%s(ctx, 0, fp-48); bpf_dynptr_read(fp-8, 1, fp-48, 0, 0)", from),
			mk, fpPtr(asm.R1, -8), asm.Instructions{imm(asm.R2, 1)}, fpPtr(asm.R3, -48), one(asm.FnDynptrRead, z(asm.R4), z(asm.R5)))
		if ms, ok := kfunc("bpf_dynptr_memset"); ok {
			add("dynptr_memset_"+kind, fmt.Sprintf("%s(ctx, 0, fp-48); bpf_dynptr_memset(fp-48, 0, 1, 0) (kfunc)", from),
				mk, fpPtr(asm.R1, -48), asm.Instructions{z(asm.R2), imm(asm.R3, 1), z(asm.R4), ms})
		}
		if cp, ok := kfunc("bpf_dynptr_copy"); ok {
			add("dynptr_copy_"+kind, fmt.Sprintf("%s(ctx, 0, fp-48); bpf_dynptr_copy(fp-48, 0, fp-48, 1, 1) (kfunc)", from),
				mk, fpPtr(asm.R1, -48), asm.Instructions{z(asm.R2)}, fpPtr(asm.R3, -48), asm.Instructions{imm(asm.R4, 1), imm(asm.R5, 1), cp})
		}
	}
	// A local dynptr over an array value, written: a dynptr_write
	// whose dynptr has nothing to do with the packet.
	lookup := cat(asm.Instructions{buf}, fpPtr(asm.R2, -8), asm.Instructions{asm.LoadMapPtr(asm.R1, 1), asm.FnMapLookupElem.Call()})
	local := cat(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R0), imm(asm.R2, 8), z(asm.R3)}, fpPtr(asm.R4, -48),
		asm.Instructions{asm.FnDynptrFromMem.Call()}, fpPtr(asm.R1, -48), asm.Instructions{z(asm.R2)}, fpPtr(asm.R3, -8),
		one(asm.FnDynptrWrite, imm(asm.R4, 1), z(asm.R5)))
	null := asm.JEq.Imm(asm.R0, 0, "")
	null.Offset = int16(rawLen(local))
	add("dynptr_write_local", "r0 = lookup(arr, 0); if r0 != 0 { bpf_dynptr_from_mem(r0, 8, 0, fp-48); bpf_dynptr_write(fp-48, 0, fp-8, 1, 0) }",
		lookup, asm.Instructions{null}, local)
	if ms, ok := kfunc("bpf_dynptr_memset"); ok {
		// The same local dynptr cleared by the kfunc.
		clear := cat(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R0), imm(asm.R2, 8), z(asm.R3)}, fpPtr(asm.R4, -48),
			asm.Instructions{asm.FnDynptrFromMem.Call()}, fpPtr(asm.R1, -48), asm.Instructions{z(asm.R2), imm(asm.R3, 1), z(asm.R4), ms})
		skip := asm.JEq.Imm(asm.R0, 0, "")
		skip.Offset = int16(rawLen(clear))
		add("dynptr_memset_local", "r0 = lookup(arr, 0); if r0 != 0 { bpf_dynptr_from_mem(r0, 8, 0, fp-48); bpf_dynptr_memset(fp-48, 0, 1, 0) }",
			lookup, asm.Instructions{skip}, clear)
	}
	return out
}

// pkSubCalls makes call c in subprograms: a static one, a global function
// (ctx tagged arg:ctx), each also with c on a branch never taken, a
// global function calling a static one that makes c, the reverse, and
// one calling another global function; a bpf_loop callback (which reads
// the context from the caller's fp-24) passed by the main function or by
// a global function, or whose address a global function only loads
// (check_cfg follows that load as it does a call); and makes it on one of
// two paths of the caller, which meet after it.
func pkSubCalls(c pkCall) []pkCall {
	callTo := func(name string) asm.Instructions {
		return asm.Instructions{asm.Mov.Reg(asm.R1, asm.R6), asm.Call.Label(name)}
	}
	fn := func(name string, global bool, body ...asm.Instructions) liveSub {
		return liveSub{name: name, global: global, insns: pkFunc(cat(append([]asm.Instructions{{asm.Mov.Reg(asm.R6, asm.R1)}}, body...)...))}
	}
	skip := asm.JEq.Imm(asm.R0, 0, "")
	skip.Offset = int16(rawLen(c.insns))
	dead := cat(asm.Instructions{asm.Mov.Imm(asm.R0, 0), skip}, c.insns)
	cb := asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: -1}.WithReference("cb")
	loop := cat(asm.Instructions{asm.StoreMem(asm.RFP, -24, asm.R6, asm.DWord), asm.Mov.Imm(asm.R1, 1), cb},
		fpPtr(asm.R3, -24), asm.Instructions{asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call()})
	cbFn := liveSub{name: "cb", insns: pkFunc(cat(asm.Instructions{asm.LoadMem(asm.R1, asm.R2, 0, asm.DWord), asm.Mov.Reg(asm.R6, asm.R1)}, c.insns))}
	out := []pkCall{
		{name: "static subprogram: " + c.name, insns: callTo("sub"), subs: []liveSub{fn("sub", false, c.insns)}},
		{name: "static subprogram: " + c.name + " on a branch never taken", insns: callTo("sub"), subs: []liveSub{fn("sub", false, dead)}},
		{name: "global function: " + c.name, insns: callTo("gsub"), subs: []liveSub{fn("gsub", true, c.insns)}},
		{name: "global function: " + c.name + " on a branch never taken", insns: callTo("gsub"), subs: []liveSub{fn("gsub", true, dead)}},
		{name: "global function calling a static subprogram: " + c.name, insns: callTo("gsub"),
			subs: []liveSub{fn("gsub", true, callTo("sub")), fn("sub", false, c.insns)}},
		{name: "static subprogram calling a global function: " + c.name, insns: callTo("sub"),
			subs: []liveSub{fn("sub", false, callTo("gsub")), fn("gsub", true, c.insns)}},
		{name: "global function calling a global function: " + c.name, insns: callTo("gsub"),
			subs: []liveSub{fn("gsub", true, callTo("gsub2")), fn("gsub2", true, c.insns)}},
		{name: "global function passing bpf_loop a callback: " + c.name, insns: callTo("gsub"),
			subs: []liveSub{fn("gsub", true, loop), cbFn}},
		{name: "global function taking the address of a callback: " + c.name, insns: callTo("gsub"),
			subs: []liveSub{fn("gsub", true, asm.Instructions{cb}), cbFn}},
		{name: "on one of two paths: " + c.name, insns: cat(asm.Instructions{asm.FnGetPrandomU32.Call(), skip}, c.insns)},
		{name: "bpf_loop callback: " + c.name, insns: loop, subs: []liveSub{cbFn}},
	}
	for i := range out {
		out[i].maps = c.maps
		tailInCB := c.name == "bpf_tail_call(ctx, progs, 0)" && strings.Contains(out[i].name, "callback")
		out[i].firstHolderOnly = tailInCB || strings.HasPrefix(out[i].name, "global function taking the address")
	}
	return out
}

// pkHolder is where the packet pointer is when the call is made: setup
// puts it there (after the prologue's r7 = data, r8 = data_end, with 16
// bytes checked), old reads it back into r1 (end: the holder is the
// packet end in r8; meta: a data_meta pointer, bounded by data); caller:
// the call is made by a static subprogram "wrap" (ctx in r1), and
// inCallee: with the address of the caller's fp-16 in r2, the use
// afterwards is wrap's, through it.
type pkHolder struct {
	name                 string
	setup                func(pt pkType) asm.Instructions
	old                  asm.Instructions
	end, meta, needsMeta bool
	caller, inCallee     bool
}

// pkSpill spills r7 to fp-16 and clears r7.
func pkSpill(pkType) asm.Instructions {
	return asm.Instructions{asm.StoreMem(asm.RFP, -16, asm.R7, asm.DWord), asm.Mov.Imm(asm.R7, 0)}
}

// pkHolders: the first is the core one (see pkSample).
var pkHolders = []pkHolder{
	{name: "r7", old: asm.Instructions{asm.Mov.Reg(asm.R1, asm.R7)}},
	{name: "spilled to fp-16", setup: pkSpill, old: asm.Instructions{asm.LoadMem(asm.R1, asm.RFP, -16, asm.DWord)}},
	{name: "the caller's r7", caller: true, old: asm.Instructions{asm.Mov.Reg(asm.R1, asm.R7)}},
	{name: "the caller's fp-16", caller: true, setup: pkSpill, old: asm.Instructions{asm.LoadMem(asm.R1, asm.RFP, -16, asm.DWord)}},
	{name: "the caller's fp-16, used in the callee", caller: true, inCallee: true, setup: pkSpill,
		old: asm.Instructions{asm.LoadMem(asm.R1, asm.R9, 0, asm.DWord)}},
	{name: "packet end r8", end: true},
	{name: "the caller's packet end r8", end: true, caller: true},
	{name: "r9 = r7 + 8, range checked", setup: func(pkType) asm.Instructions {
		return asm.Instructions{asm.Mov.Reg(asm.R9, asm.R7), asm.Add.Imm(asm.R9, 8),
			asm.Mov.Reg(asm.R0, asm.R9), asm.Add.Imm(asm.R0, 8), pkOut(asm.JGT, asm.R0, asm.R8)}
	}, old: asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9)}},
	{name: "r9 = r7 + (random & 7), range checked", setup: func(pkType) asm.Instructions {
		return asm.Instructions{asm.FnGetPrandomU32.Call(), asm.And.Imm(asm.R0, 7), asm.Mov.Reg(asm.R9, asm.R7), asm.Add.Reg(asm.R9, asm.R0),
			asm.Mov.Reg(asm.R0, asm.R9), asm.Add.Imm(asm.R0, 8), pkOut(asm.JGT, asm.R0, asm.R8)}
	}, old: asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9)}},
	{name: "data_meta r9, 8 bytes checked", needsMeta: true, meta: true, setup: func(pt pkType) asm.Instructions {
		return asm.Instructions{pt.load(asm.R9, pt.meta), asm.Mov.Reg(asm.R0, asm.R9), asm.Add.Imm(asm.R0, 8), pkOut(asm.JGT, asm.R0, asm.R7)}
	}, old: asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9)}},
}

// pkAfter is what the program does after the call: build gives its
// instructions for a holder (nil: not for this one); core ones are
// always loaded with the first holder. A loop one runs them before the
// call, twice: the second time after the first call (and the states of
// the loop head compared, where a pruning that took an invalidated
// pointer for the valid one would accept).
type pkAfter struct {
	name  string
	core  bool
	loop  bool // after and the call in a loop of two iterations, after first
	build func(pt pkType, h pkHolder) asm.Instructions
}

// pkBound puts the fresh bound of the holder's pointer into r2: data_end,
// or data for a data_meta pointer.
func pkBound(pt pkType, h pkHolder) asm.Instruction {
	if h.meta {
		return pt.load(asm.R2, pt.data)
	}
	return pt.load(asm.R2, pt.end)
}

// pkDerefOld reads a byte through the old pointer; for the packet end, a
// fresh data checked against the old end.
func pkDerefOld(pt pkType, h pkHolder) asm.Instructions {
	if h.end {
		return asm.Instructions{pt.load(asm.R1, pt.data), asm.Mov.Reg(asm.R3, asm.R1), asm.Add.Imm(asm.R3, 8),
			pkOut(asm.JGT, asm.R3, asm.R8), asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte)}
	}
	return cat(h.old, asm.Instructions{asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte)})
}

// pkDerefFresh reads a byte of the packet through pointers read afresh
// from the context.
func pkDerefFresh(pt pkType, _ pkHolder) asm.Instructions {
	return asm.Instructions{pt.load(asm.R1, pt.data), pt.load(asm.R2, pt.end), asm.Mov.Reg(asm.R3, asm.R1), asm.Add.Imm(asm.R3, 8),
		pkOut(asm.JGT, asm.R3, asm.R2), asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte)}
}

var pkAfters = []pkAfter{
	{name: "dereference the old pointer", core: true, build: pkDerefOld},
	{name: "re-derive a packet pointer and dereference it", core: true, build: pkDerefFresh},
	{name: "check the old pointer against a fresh bound, dereference it", build: func(pt pkType, h pkHolder) asm.Instructions {
		if h.end {
			return nil // the dereference above
		}
		return cat(h.old, asm.Instructions{pkBound(pt, h), asm.Mov.Reg(asm.R3, asm.R1), asm.Add.Imm(asm.R3, 8),
			pkOut(asm.JGT, asm.R3, asm.R2), asm.LoadMem(asm.R0, asm.R1, 0, asm.Byte)})
	}},
	{name: "in a loop of two iterations: dereference the old pointer, then the call", loop: true,
		build: pkDerefOld},
	{name: "in a loop of two iterations: re-derive a packet pointer, dereference it, then the call", loop: true,
		build: pkDerefFresh},
	{name: "compare the old pointer with a fresh bound", build: func(pt pkType, h pkHolder) asm.Instructions {
		if h.end {
			return asm.Instructions{pt.load(asm.R1, pt.data), pkOut(asm.JGT, asm.R1, asm.R8)}
		}
		return cat(h.old, asm.Instructions{pkBound(pt, h), pkOut(asm.JGT, asm.R1, asm.R2)})
	}},
}

// pkProgram is "r6 = ctx; r7 = data; r8 = data_end; if r7 + 16 > r8 goto
// out", the holder's setup, the call (or "call wrap", wrap making it),
// after, "out: r0 = 0; exit", and the subprograms. With loop, after
// comes first and the two run twice, counted at fp-32.
func pkProgram(pt pkType, h pkHolder, c pkCall, after asm.Instructions, loop bool) asm.Instructions {
	main := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		pt.load(asm.R7, pt.data),
		pt.load(asm.R8, pt.end),
		asm.Mov.Reg(asm.R0, asm.R7),
		asm.Add.Imm(asm.R0, 16),
		pkOut(asm.JGT, asm.R0, asm.R8),
	}
	if h.setup != nil {
		main = cat(main, h.setup(pt))
	}
	call := c.insns
	var subs []liveSub
	if h.caller {
		call = asm.Instructions{asm.Mov.Reg(asm.R1, asm.R6)}
		wrap := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
		if h.inCallee {
			call = cat(call, fpPtr(asm.R2, -16))
			wrap = append(wrap, asm.Mov.Reg(asm.R9, asm.R2))
		}
		call = append(call, asm.Call.Label("wrap"))
		wrap = cat(wrap, c.insns)
		if h.inCallee {
			wrap = cat(wrap, after)
			after = nil
		}
		subs = append(subs, liveSub{name: "wrap", insns: pkFunc(wrap)})
	}
	if loop {
		body := cat(after, call, asm.Instructions{
			asm.LoadMem(asm.R1, asm.RFP, -32, asm.DWord), asm.Add.Imm(asm.R1, 1), asm.StoreMem(asm.RFP, -32, asm.R1, asm.DWord)})
		again := asm.JLT.Imm(asm.R1, 2, "")
		again.Offset = int16(-rawLen(body) - 1)
		main = cat(main, asm.Instructions{storeImm(asm.RFP, -32, 0, asm.DWord)}, body, asm.Instructions{again})
	} else {
		main = cat(main, call, after)
	}
	return pkLink(pkFunc(main), append(subs, c.subs...))
}

// pkLink appends the subprograms to main, binds the calls and callback
// addresses to them and, when there are any, gives every function BTF
// func info: int main(void *ctx), static int name(void *a), global int
// name(void *ctx) with ctx tagged arg:ctx.
func pkLink(main asm.Instructions, subs []liveSub) asm.Instructions {
	insns := cat(main)
	if len(subs) == 0 {
		return insns
	}
	intT := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	ptr := &btf.Pointer{Target: &btf.Void{}}
	insns[0] = btf.WithFuncMetadata(insns[0], &btf.Func{Name: "main", Linkage: btf.GlobalFunc,
		Type: &btf.FuncProto{Return: intT, Params: []btf.FuncParam{{Name: "ctx", Type: ptr}}}})
	for _, s := range subs {
		fn := &btf.Func{Name: s.name, Linkage: btf.StaticFunc, Type: &btf.FuncProto{Return: intT,
			Params: []btf.FuncParam{{Name: "a", Type: ptr}}}}
		if s.global {
			fn = &btf.Func{Name: s.name, Linkage: btf.GlobalFunc, Type: &btf.FuncProto{Return: intT,
				Params: []btf.FuncParam{{Name: "ctx", Type: ptr}}}, ParamTags: [][]string{{"arg:ctx"}}}
		}
		sub := cat(s.insns)
		sub[0] = btf.WithFuncMetadata(sub[0].WithSymbol(s.name), fn)
		insns = append(insns, sub...)
	}
	syms := make(map[string]asm.RawInstructionOffset)
	iter := insns.Iterate()
	for iter.Next() {
		if s := iter.Ins.Symbol(); s != "" {
			syms[s] = iter.Offset
		}
	}
	iter = insns.Iterate()
	for iter.Next() {
		if ref := iter.Ins.Reference(); ref != "" && iter.Ins.IsFunctionReference() {
			iter.Ins.Constant = int64(syms[ref] - iter.Offset - 1)
		}
	}
	return insns
}

package verifier

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestDynptrLiveKernel builds a dynptr of every kind a program can make (a
// local one by bpf_dynptr_from_mem over an array value or over a stack
// buffer, a ringbuf one by bpf_ringbuf_reserve_dynptr, an skb one by
// bpf_dynptr_from_skb, an skb metadata one by bpf_dynptr_from_skb_meta,
// an xdp one by bpf_dynptr_from_xdp), in tc, XDP, socket filter, kprobe
// and tracepoint programs, leaves it in one state (initialised at fp-16;
// never made; zeroed stack; passed at the misaligned fp-12 or made there;
// passed or made through a variable offset; partly overwritten by an
// 8-byte store into either slot, a 1-byte store, a register spill;
// released; r10 itself or a map value passed as the dynptr; made twice;
// a clone of it; passed to a static subprogram or a global function),
// makes one call with it (bpf_dynptr_read, _write, _data, bpf_dynptr_slice
// and _slice_rdwr with a NULL buffer, an exact stack buffer and one that
// runs into the dynptr, bpf_dynptr_adjust, _is_null, _is_rdonly, _size,
// _clone, _copy, _memset, bpf_ringbuf_submit_dynptr and _discard_dynptr,
// the kind's own constructor) and then does one more thing (nothing;
// reads the dynptr again; reads or writes through the slice the call
// returned, as it is or after releasing the dynptr, overwriting its
// stack slots, overwriting the slice's stack buffer or the slot below
// it, a packet change, a bpf_dynptr_write into the dynptr or making the
// dynptr again; for a clone, uses the clone after releasing or
// overwriting the original and the reverse). It compares verdict,
// decisive message and insn_processed (of rejections too) with the
// running kernel. Kinds a program type cannot make are loaded once, for
// the kernel's refusal. VERCHECK_DYNPTR_ALL=1 loads every program; by
// default every call on the dynptr initialised at fp-16 and a fixed
// sample of the rest. VERCHECK_DYNPTR_ONLY=text loads only the programs
// whose description contains text and logs both verdicts.
//
// The kernel code under test is the dynptr half of the verifier:
// process_dynptr_func for helper (check_func_arg's ARG_PTR_TO_DYNPTR,
// with its release precondition "arg %d is an unacquired reference" and
// "cannot release unowned const bpf_dynptr") and kfunc arguments
// (check_kfunc_args' KF_ARG_PTR_TO_DYNPTR, MEM_UNINIT for a __uninit
// parameter, MEM_RDONLY for a CONST_PTR_TO_DYNPTR); dynptr_get_spi's
// constant, aligned offset; is_dynptr_reg_valid_uninit and
// is_dynptr_reg_valid_init; mark_stack_slots_dynptr (the 8-byte writes
// before it, the reference of a ringbuf dynptr, a clone's shared one);
// unmark_stack_slots_dynptr and invalidate_dynptr on release, clones
// included; destroy_if_dynptr_stack_slot on a store into either slot
// ("cannot overwrite referenced dynptr", the slices it invalidates);
// the slices' ref_obj_id and dynptr_id (bpf_dynptr_data's in
// check_helper_call, bpf_dynptr_slice(_rdwr)'s in check_kfunc_call, with
// its MEM_RDONLY, "the prog does not allow writes to packet data" and its
// buffer__opt / buffer__szk memory check) and their invalidation when the
// dynptr is released or overwritten, when the slice's stack buffer is
// overwritten, and when the packet changes (clear_all_pkt_pointers, also
// after bpf_dynptr_write into an skb dynptr); the global function's
// dynptr argument (btf_check_func_arg_match's process_dynptr_func, the
// callee's CONST_PTR_TO_DYNPTR); and the kfunc sets that say where each
// constructor may be called. A slice vercheck keeps valid after the
// kernel killed it reads freed ringbuf memory or a moved packet; a
// released or overwritten dynptr it still takes for one is a pointer
// forged from stack bytes: both are the worst false accepts.
func TestDynptrLiveKernel(t *testing.T) {
	spec, missing := liveKernelBTF(t)
	lost := map[string]bool{}
	kfunc := func(name string) (asm.Instruction, bool) {
		var fn *btf.Func
		if spec.TypeByName(name, &fn) != nil {
			lost[name] = true
			return asm.Instruction{}, false
		}
		id, err := spec.TypeID(fn)
		if err != nil {
			t.Fatal(err)
		}
		return kfuncCall(int64(id)), true
	}
	kinds := dpKinds(kfunc)
	calls := dpCalls(kfunc)
	states := dpStates(kfunc)
	afters := dpAfters()
	for name := range lost {
		t.Logf("kernel function %s missing: what needs it is left out", name)
	}
	obj := &loader.Object{Path: "test", Maps: []*loader.Map{
		dpArrMap:     {Name: "arr", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 1},
		dpRingbufMap: {Name: "rb", Type: ebpf.RingBuf, MaxEntries: 4096},
	}}

	// A kernel load takes some 10 ms here (two maps are created for each
	// program): by default every call on the initialised dynptr with
	// nothing after it, and one in dpSample of the rest.
	all := os.Getenv("VERCHECK_DYNPTR_ALL") != ""
	only := os.Getenv("VERCHECK_DYNPTR_ONLY")
	rng := rand.New(rand.NewPCG(6, 18))
	compared, accepted, differ, faults, total := 0, 0, 0, 0, 0
	var diffs cgDiffs
	noVerdict := map[string]int{}
	// The differences by class and pair of messages, with the first
	// program of each: the shown listings are only the shortest ten of a
	// class.
	groups := map[string]int{}
	firstOf := map[string]string{}
	group := func(class, kmsg, vmsg, name string) {
		key := fmt.Sprintf("%s: kernel %q, vercheck %q", class, kmsg, vmsg)
		if groups[key]++; groups[key] == 1 {
			firstOf[key] = name
		}
	}
	for _, ty := range dpTypes {
		for _, k := range kinds {
			native := k.on(ty.pt)
			if !native && !k.foreign(ty.pt) {
				continue
			}
			for si, st := range states {
				setup := st.setup(k)
				if setup == nil || !native && si != 0 {
					continue
				}
				for ci, c := range calls {
					if !native && ci != 0 || st.oneCall && ci != 0 {
						continue
					}
					call := c.build(k, st.sub)
					if call == nil {
						continue
					}
					for ai, a := range afters {
						if ai != 0 && (!st.afters || !native) {
							continue
						}
						pre, use := a.build(dpAfterCtx{k: k, c: c, ty: ty, sub: st.sub})
						if pre == nil && use == nil && ai != 0 {
							continue
						}
						total++
						core := si == 0 && ai == 0
						if !all && !core && rng.IntN(dpSample) != 0 {
							continue
						}
						name := fmt.Sprintf("%s, %s dynptr, %s, %s, then %s", ty.name, k.name, st.name, c.name, a.name)
						if only != "" && !strings.Contains(name, only) {
							continue
						}
						release := k.ringbuf && (st.holds || c.makes) && !c.releases && !a.releases
						insns := dpProgram(setup, st.sub, call, pre, use, a.slice, release)
						p := (&loader.Program{}).WithInstructions(insns)
						p.Name, p.Type, p.License, p.GPLCompatible = "p", ty.pt, "GPL", true
						kres := kernel.LoadProgramVerdict(obj, p)
						if kres.NotLoaded {
							noVerdict[fmt.Sprintf("%s: %s", ty.name, kres.Err)]++
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
							t.Logf("%s: kernel %v %q insns %d; vercheck %v %q insns %d\n%s", name,
								kres.Accepted, kres.Err, kres.InsnProcessed, res.Accepted, got, res.Stats.InsnProcessed, listing(insns))
						}
						if errors.Is(res.Err, ErrKernelFault) && kres.Err != "" && strings.Contains(got, kres.Err) {
							faults++
							continue
						}
						// insn_processed is compared on rejections too:
						// both verifiers stop at the same instruction.
						if got == kres.Err && res.Accepted == kres.Accepted && res.Stats.InsnProcessed == kres.InsnProcessed {
							continue
						}
						differ++
						what := fmt.Sprintf("%s:\n%s", name, listing(insns))
						switch {
						case res.Accepted && !kres.Accepted:
							diffs.add(0, "FALSE ACCEPT %s\nkernel %q, vercheck accepts", what, kres.Err)
							group("FALSE ACCEPT", kres.Err, "", name)
						case kres.Accepted && !res.Accepted:
							diffs.add(1, "false reject %s\nkernel accepts, vercheck %q", what, got)
							group("false reject", "", got, name)
						case got != kres.Err:
							diffs.add(2, "message %s\nkernel %q, vercheck %q", what, kres.Err, got)
							group("message", kres.Err, got, name)
						default:
							diffs.add(3, "insn_processed %s\nvercheck %d, kernel %d (%q)", what, res.Stats.InsnProcessed, kres.InsnProcessed, got)
							group("insn_processed", kres.Err, got, name)
						}
					}
				}
			}
		}
	}
	diffs.report(t)
	var keys []string
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%d× %s; first: %s", groups[k], k, firstOf[k])
	}
	var why []string
	for k, n := range noVerdict {
		why = append(why, fmt.Sprintf("%d× %s", n, k))
	}
	sort.Strings(why)
	for _, w := range why {
		t.Logf("no kernel verdict: %s", w)
	}
	if compared == 0 {
		t.Skipf("the kernel gave no verdict on any of the %d programs", total)
	}
	t.Logf("%d of %d programs compared (%d accepted by the kernel, %d kernel faults vercheck declines as such), %d differ",
		compared, total, accepted, faults, differ)
	if only == "" && (accepted == 0 || accepted == compared) {
		t.Errorf("the kernel accepted %d of %d programs: the sweep tests nothing", accepted, compared)
	}
}

// dpSample: by default one in dpSample of the programs that are not core
// (the dynptr initialised at fp-16, nothing after the call) is loaded.
const dpSample = 12

// Stack offsets of the sweep's programs, in each function's own frame.
const (
	dpSlot       = -16 // the dynptr
	dpMisaligned = -12 // the misaligned place of the dynptr
	dpVarBase    = -24 // plus (random & 8): fp-24 or fp-16
	dpSliceBuf   = -32 // bpf_dynptr_slice's exact 8-byte buffer
	dpShortBuf   = -24 // a 16-byte slice buffer that runs into the dynptr
	dpRWBuf      = -40 // the 8 bytes bpf_dynptr_read and _write use
	dpCloneSlot  = -56 // the clone the bpf_dynptr_clone call makes
	dpStateClone = -72 // the clone the "clone" state passes
	dpKeySlot    = -80 // the u32 map key 0
	dpLocalBuf   = -96 // the 16 bytes a stack-backed local dynptr covers
)

// dpSize is the size of the sweep's dynptrs, dpSliceSize that of the
// slices taken from them (and of the reads and writes).
const (
	dpSize      = 16
	dpSliceSize = 8
)

// Map indexes of the sweep's object.
const (
	dpArrMap = iota
	dpRingbufMap
)

// dpType is a program type of the sweep and the call that changes its
// packet (ctx in r6; nil: none).
type dpType struct {
	name      string
	pt        ebpf.ProgramType
	pktChange asm.Instructions
}

var dpTypes = []dpType{
	{name: "tc", pt: ebpf.SchedCLS, pktChange: asm.Instructions{asm.Mov.Reg(asm.R1, asm.R6), asm.Mov.Imm(asm.R2, 0), asm.FnSkbPullData.Call()}},
	{name: "xdp", pt: ebpf.XDP, pktChange: asm.Instructions{asm.Mov.Reg(asm.R1, asm.R6), asm.Mov.Imm(asm.R2, 0), asm.FnXdpAdjustHead.Call()}},
	{name: "socket filter", pt: ebpf.SocketFilter},
	{name: "kprobe", pt: ebpf.Kprobe},
	{name: "tracepoint", pt: ebpf.TracePoint},
}

// dpKind is a kind of dynptr: make builds one at the address ptr puts
// into a register; ringbuf: it holds a reference; ctx, mapValue: make
// reads the context in r6 or the array value in r8 (which a global
// function has not); types: where the sweep makes it, foreignTypes: where
// it is made once, for the kernel's refusal.
type dpKind struct {
	name          string
	make          func(ptr func(asm.Register) asm.Instructions) asm.Instructions
	ringbuf       bool
	ctx, mapValue bool
	types         []ebpf.ProgramType
	foreignTypes  []ebpf.ProgramType
}

func (k dpKind) on(pt ebpf.ProgramType) bool      { return k.types == nil || dpHasType(k.types, pt) }
func (k dpKind) foreign(pt ebpf.ProgramType) bool { return dpHasType(k.foreignTypes, pt) }

func dpHasType(list []ebpf.ProgramType, pt ebpf.ProgramType) bool {
	for _, x := range list {
		if x == pt {
			return true
		}
	}
	return false
}

// dpAt is a ptr of dpKind.make: fp + off.
func dpAt(off int16) func(asm.Register) asm.Instructions {
	return func(r asm.Register) asm.Instructions { return fpPtr(r, off) }
}

// dpViaR9 is a ptr of dpKind.make: the address in r9.
func dpViaR9(r asm.Register) asm.Instructions { return asm.Instructions{asm.Mov.Reg(r, asm.R9)} }

// dpKinds are the dynptr kinds whose constructors the kernel has.
func dpKinds(kfunc func(string) (asm.Instruction, bool)) []dpKind {
	fromMem := func(data asm.Instructions) func(func(asm.Register) asm.Instructions) asm.Instructions {
		return func(ptr func(asm.Register) asm.Instructions) asm.Instructions {
			return cat(data, asm.Instructions{asm.Mov.Imm(asm.R2, dpSize), asm.Mov.Imm(asm.R3, 0)}, ptr(asm.R4),
				asm.Instructions{asm.FnDynptrFromMem.Call()})
		}
	}
	kinds := []dpKind{
		{name: "local (array value)", make: fromMem(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R8)}), mapValue: true},
		{name: "local (stack)", make: fromMem(fpPtr(asm.R1, dpLocalBuf))},
		{name: "ringbuf", ringbuf: true, make: func(ptr func(asm.Register) asm.Instructions) asm.Instructions {
			return cat(asm.Instructions{asm.LoadMapPtr(asm.R1, dpRingbufMap), asm.Mov.Imm(asm.R2, dpSize), asm.Mov.Imm(asm.R3, 0)},
				ptr(asm.R4), asm.Instructions{asm.FnRingbufReserveDynptr.Call()})
		}},
	}
	pkt := []struct {
		name, fn   string
		types, not []ebpf.ProgramType
	}{
		{"skb", "bpf_dynptr_from_skb", []ebpf.ProgramType{ebpf.SchedCLS, ebpf.SocketFilter}, []ebpf.ProgramType{ebpf.XDP, ebpf.Kprobe}},
		{"skb_meta", "bpf_dynptr_from_skb_meta", []ebpf.ProgramType{ebpf.SchedCLS}, []ebpf.ProgramType{ebpf.SocketFilter}},
		{"xdp", "bpf_dynptr_from_xdp", []ebpf.ProgramType{ebpf.XDP}, []ebpf.ProgramType{ebpf.SchedCLS}},
	}
	for _, p := range pkt {
		k, ok := kfunc(p.fn)
		if !ok {
			continue
		}
		kinds = append(kinds, dpKind{name: p.name, ctx: true, types: p.types, foreignTypes: p.not,
			make: func(ptr func(asm.Register) asm.Instructions) asm.Instructions {
				return cat(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R6), asm.Mov.Imm(asm.R2, 0)}, ptr(asm.R3), asm.Instructions{k})
			}})
	}
	return kinds
}

// dpState is the dynptr's state at the call: setup leaves the address
// passed as the dynptr in r9 (nil: not for this kind); holds: a ringbuf
// dynptr at fp-16 is still to be released; sub: the call is made in a
// "static" subprogram (r9, ctx and the array value passed in r1-r3) or a
// "global" function (int g(struct bpf_dynptr *), r9 in r1); afters: every
// action after the call is tried, else only nothing; oneCall: only the
// first call (the state is refused before it).
type dpState struct {
	name    string
	setup   func(k dpKind) asm.Instructions
	holds   bool
	sub     string
	afters  bool
	oneCall bool
}

// dpStates are the states of the sweep; the first is the core one.
func dpStates(kfunc func(string) (asm.Instruction, bool)) []dpState {
	r9 := func(off int16) asm.Instructions { return fpPtr(asm.R9, off) }
	mk := func(k dpKind) asm.Instructions { return k.make(dpAt(dpSlot)) }
	varR9 := asm.Instructions{asm.FnGetPrandomU32.Call(), asm.And.Imm(asm.R0, 8), asm.Mov.Reg(asm.R9, asm.RFP),
		asm.Add.Imm(asm.R9, dpVarBase), asm.Add.Reg(asm.R9, asm.R0)}
	made := func(after ...asm.Instruction) func(k dpKind) asm.Instructions {
		return func(k dpKind) asm.Instructions { return cat(mk(k), after, r9(dpSlot)) }
	}
	states := []dpState{
		{name: "initialised at fp-16", setup: made(), holds: true, afters: true},
		{name: "fp-16 never made a dynptr", setup: func(dpKind) asm.Instructions { return r9(dpSlot) }},
		{name: "fp-16 zeroed, no dynptr", setup: func(dpKind) asm.Instructions {
			return cat(asm.Instructions{storeImm(asm.RFP, dpSlot, 0, asm.DWord), storeImm(asm.RFP, dpSlot+8, 0, asm.DWord)}, r9(dpSlot))
		}},
		{name: "initialised at fp-16, passed as fp-12", holds: true, setup: func(k dpKind) asm.Instructions {
			return cat(mk(k), r9(dpMisaligned))
		}},
		{name: "made at fp-12", setup: func(k dpKind) asm.Instructions { return cat(r9(dpMisaligned), k.make(dpViaR9)) }},
		{name: "initialised at fp-16, passed through a variable offset", holds: true, setup: func(k dpKind) asm.Instructions {
			return cat(mk(k), varR9)
		}},
		{name: "made through a variable offset", setup: func(k dpKind) asm.Instructions { return cat(varR9, k.make(dpViaR9)) }},
		{name: "8 bytes stored at fp-16 over it", holds: true, setup: made(storeImm(asm.RFP, dpSlot, 0, asm.DWord))},
		{name: "8 bytes stored at fp-8 over it", holds: true, setup: made(storeImm(asm.RFP, dpSlot+8, 0, asm.DWord))},
		{name: "1 byte stored at fp-4 into it", holds: true, setup: made(storeImm(asm.RFP, dpSlot+12, 0, asm.Byte))},
		{name: "a register spilled to fp-8 over it", holds: true, setup: made(asm.StoreMem(asm.RFP, dpSlot+8, asm.R6, asm.DWord))},
		{name: "released", setup: func(k dpKind) asm.Instructions {
			if !k.ringbuf {
				return nil
			}
			return cat(mk(k), fpPtr(asm.R1, dpSlot), asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.FnRingbufDiscardDynptr.Call()}, r9(dpSlot))
		}},
		{name: "initialised at fp-16, r10 passed", holds: true, setup: func(k dpKind) asm.Instructions {
			return cat(mk(k), asm.Instructions{asm.Mov.Reg(asm.R9, asm.RFP)})
		}},
		{name: "initialised at fp-16, the array value passed", holds: true, setup: func(k dpKind) asm.Instructions {
			return cat(mk(k), asm.Instructions{asm.Mov.Reg(asm.R9, asm.R8)})
		}},
		{name: "made twice at fp-16", holds: true, afters: true, setup: func(k dpKind) asm.Instructions {
			return cat(mk(k), mk(k), r9(dpSlot))
		}},
	}
	if clone, ok := kfunc("bpf_dynptr_clone"); ok {
		states = append(states, dpState{name: "initialised at fp-16, its clone at fp-72 passed", holds: true, afters: true,
			setup: func(k dpKind) asm.Instructions {
				return cat(mk(k), fpPtr(asm.R1, dpSlot), fpPtr(asm.R2, dpStateClone), asm.Instructions{clone}, r9(dpStateClone))
			}})
	}
	states = append(states,
		dpState{name: "initialised at fp-16, passed to a static subprogram", holds: true, afters: true, sub: "static", setup: made()},
		dpState{name: "initialised at fp-16, passed to a global function", holds: true, afters: true, sub: "global", setup: made()},
		dpState{name: "never made, fp-16 passed to a global function", oneCall: true, sub: "global",
			setup: func(dpKind) asm.Instructions { return r9(dpSlot) }},
	)
	return states
}

// dpCall is a call with the dynptr at r9: build gives its instructions
// for a kind, made in the main function or the sub of a state (nil: not
// for them); slice: it returns a slice in r0, from a stack buffer at buf
// of bufSize bytes (buf 0: none); releases, makes: it releases or makes
// the dynptr; clone: it makes a clone at fp-56.
type dpCall struct {
	name         string
	build        func(k dpKind, sub string) asm.Instructions
	slice        bool
	buf          int16
	bufSize      int16
	releases     bool
	makes, clone bool
}

// dpRead is bpf_dynptr_read(fp-40, 8, the dynptr at ptr, 0, 0).
func dpRead(ptr asm.Instructions) asm.Instructions {
	return cat(fpPtr(asm.R1, dpRWBuf), asm.Instructions{asm.Mov.Imm(asm.R2, dpSliceSize)}, ptr,
		asm.Instructions{asm.Mov.Imm(asm.R4, 0), asm.Mov.Imm(asm.R5, 0), asm.FnDynptrRead.Call()})
}

// dpWrite is bpf_dynptr_write(the dynptr in r9, 0, fp-40, 8, 0), fp-40
// zeroed first.
var dpWrite = cat(asm.Instructions{storeImm(asm.RFP, dpRWBuf, 0, asm.DWord), asm.Mov.Reg(asm.R1, asm.R9), asm.Mov.Imm(asm.R2, 0)},
	fpPtr(asm.R3, dpRWBuf), asm.Instructions{asm.Mov.Imm(asm.R4, dpSliceSize), asm.Mov.Imm(asm.R5, 0), asm.FnDynptrWrite.Call()})

// dpRelease is bpf_ringbuf_discard_dynptr(the dynptr at ptr, 0).
func dpRelease(ptr asm.Instructions) asm.Instructions {
	return cat(ptr, asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.FnRingbufDiscardDynptr.Call()})
}

// dpCalls are the calls of the sweep whose kfuncs the kernel has; the
// first is bpf_dynptr_read, the one a kind foreign to the program type
// is tried with.
func dpCalls(kfunc func(string) (asm.Instruction, bool)) []dpCall {
	r1 := asm.Mov.Reg(asm.R1, asm.R9)
	fixed := func(insns asm.Instructions) func(dpKind, string) asm.Instructions {
		return func(dpKind, string) asm.Instructions { return insns }
	}
	calls := []dpCall{
		{name: "bpf_dynptr_read(fp-40, 8, d, 0, 0)", build: fixed(dpRead(asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9)}))},
		{name: "bpf_dynptr_write(d, 0, fp-40, 8, 0)", build: fixed(dpWrite)},
		{name: "bpf_dynptr_data(d, 0, 8)", slice: true, build: fixed(asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0),
			asm.Mov.Imm(asm.R3, dpSliceSize), asm.FnDynptrData.Call()})},
	}
	for _, fn := range []string{"bpf_dynptr_slice", "bpf_dynptr_slice_rdwr"} {
		k, ok := kfunc(fn)
		if !ok {
			continue
		}
		calls = append(calls, dpCall{name: fn + "(d, 0, NULL, 8)", slice: true, build: fixed(asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0),
			asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, dpSliceSize), k})})
		for _, b := range []struct {
			off, size int16
			what      string
		}{{dpSliceBuf, dpSliceSize, "exact"}, {dpShortBuf, 2 * dpSliceSize, "running into the dynptr"}} {
			calls = append(calls, dpCall{name: fmt.Sprintf("%s(d, 0, fp%d, %d) (buffer %s)", fn, b.off, b.size, b.what),
				slice: true, buf: b.off, bufSize: b.size,
				build: fixed(cat(asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0)}, fpPtr(asm.R3, b.off),
					asm.Instructions{asm.Mov.Imm(asm.R4, int32(b.size)), k}))})
		}
	}
	simple := []struct {
		fn, args string
		set      asm.Instructions
	}{
		{"bpf_dynptr_adjust", "(d, 0, 4)", asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 4)}},
		{"bpf_dynptr_is_null", "(d)", asm.Instructions{r1}},
		{"bpf_dynptr_is_rdonly", "(d)", asm.Instructions{r1}},
		{"bpf_dynptr_size", "(d)", asm.Instructions{r1}},
		{"bpf_dynptr_copy", "(d, 0, d, 8, 8)", asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0), asm.Mov.Reg(asm.R3, asm.R9),
			asm.Mov.Imm(asm.R4, 8), asm.Mov.Imm(asm.R5, 8)}},
		{"bpf_dynptr_memset", "(d, 0, 8, 0)", asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 8), asm.Mov.Imm(asm.R4, 0)}},
	}
	for _, s := range simple {
		if k, ok := kfunc(s.fn); ok {
			calls = append(calls, dpCall{name: s.fn + s.args, build: fixed(cat(s.set, asm.Instructions{k}))})
		}
	}
	if k, ok := kfunc("bpf_dynptr_clone"); ok {
		calls = append(calls, dpCall{name: "bpf_dynptr_clone(d, fp-56)", clone: true,
			build: fixed(cat(asm.Instructions{r1}, fpPtr(asm.R2, dpCloneSlot), asm.Instructions{k}))})
	}
	calls = append(calls,
		dpCall{name: "bpf_ringbuf_submit_dynptr(d, 0)", releases: true,
			build: fixed(asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0), asm.FnRingbufSubmitDynptr.Call()})},
		dpCall{name: "bpf_ringbuf_discard_dynptr(d, 0)", releases: true,
			build: fixed(asm.Instructions{r1, asm.Mov.Imm(asm.R2, 0), asm.FnRingbufDiscardDynptr.Call()})},
		dpCall{name: "the constructor at d", makes: true, build: func(k dpKind, sub string) asm.Instructions {
			if sub == "global" && (k.ctx || k.mapValue) {
				// No context nor array value there; and a kfunc
				// constructor handed the function's const dynptr is
				// a "misconfigured dynptr helper type flags" verifier
				// bug in the kernel.
				return nil
			}
			return k.make(dpViaR9)
		}},
	)
	return calls
}

// dpAfterCtx is what an action after the call is built for.
type dpAfterCtx struct {
	k   dpKind
	c   dpCall
	ty  dpType
	sub string
}

// dpAfter is what the program does after the call: build returns the
// instructions run first (pre) and, when slice is set, those that use the
// slice the call left in r7 (use), run only when it is not NULL; nil and
// nil when the action does not apply. releases: pre releases the dynptr.
type dpAfter struct {
	name     string
	slice    bool
	releases bool
	build    func(x dpAfterCtx) (pre, use asm.Instructions)
}

// dpAfters are the actions of the sweep; the first is nothing.
func dpAfters() []dpAfter {
	readSlice := asm.Instructions{asm.LoadMem(asm.R0, asm.R7, 0, asm.Byte)}
	// onSlice applies pre and a read through the slice to slice calls.
	onSlice := func(pre func(x dpAfterCtx) asm.Instructions) func(x dpAfterCtx) (asm.Instructions, asm.Instructions) {
		return func(x dpAfterCtx) (asm.Instructions, asm.Instructions) {
			if !x.c.slice {
				return nil, nil
			}
			p := pre(x)
			if p == nil {
				return nil, nil
			}
			return p, readSlice
		}
	}
	onBuf := func(pre func(x dpAfterCtx) asm.Instructions) func(x dpAfterCtx) asm.Instructions {
		return func(x dpAfterCtx) asm.Instructions {
			if x.c.buf == 0 {
				return nil
			}
			return pre(x)
		}
	}
	onClone := func(ringbuf bool, f func() (asm.Instructions, asm.Instructions)) func(x dpAfterCtx) (asm.Instructions, asm.Instructions) {
		return func(x dpAfterCtx) (asm.Instructions, asm.Instructions) {
			if !x.c.clone || ringbuf && !x.k.ringbuf {
				return nil, nil
			}
			return f()
		}
	}
	r9 := asm.Instructions{asm.Mov.Reg(asm.R3, asm.R9)}
	clone := fpPtr(asm.R3, dpCloneSlot)
	return []dpAfter{
		{name: "nothing", build: func(dpAfterCtx) (asm.Instructions, asm.Instructions) { return nil, nil }},
		{name: "bpf_dynptr_read(fp-40, 8, d, 0, 0)", build: func(x dpAfterCtx) (asm.Instructions, asm.Instructions) {
			if x.c.releases {
				return nil, nil // the "released" state's
			}
			return dpRead(r9), nil
		}},
		{name: "read through the slice", slice: true, build: onSlice(func(dpAfterCtx) asm.Instructions { return asm.Instructions{} })},
		{name: "write through the slice", slice: true, build: func(x dpAfterCtx) (asm.Instructions, asm.Instructions) {
			if !x.c.slice {
				return nil, nil
			}
			return asm.Instructions{}, asm.Instructions{storeImm(asm.R7, 0, 1, asm.Byte)}
		}},
		{name: "discard d, read through the slice", slice: true, releases: true, build: onSlice(func(x dpAfterCtx) asm.Instructions {
			if !x.k.ringbuf {
				return nil
			}
			return dpRelease(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9)})
		})},
		{name: "*(u64 *)(d+0) = 0, read through the slice", slice: true, build: onSlice(func(dpAfterCtx) asm.Instructions {
			return asm.Instructions{storeImm(asm.R9, 0, 0, asm.DWord)}
		})},
		{name: "*(u8 *)(d+12) = 0, read through the slice", slice: true, build: onSlice(func(dpAfterCtx) asm.Instructions {
			return asm.Instructions{storeImm(asm.R9, 12, 0, asm.Byte)}
		})},
		{name: "8 bytes stored at the slice's buffer, read through the slice", slice: true, build: onSlice(onBuf(func(x dpAfterCtx) asm.Instructions {
			return asm.Instructions{storeImm(asm.RFP, x.c.buf, 0, asm.DWord)}
		}))},
		{name: "a byte stored at the end of the slice's buffer, read through the slice", slice: true, build: onSlice(onBuf(func(x dpAfterCtx) asm.Instructions {
			return asm.Instructions{asm.Mov.Imm(asm.R1, 1), asm.StoreMem(asm.RFP, x.c.buf+x.c.bufSize-1, asm.R1, asm.Byte)}
		}))},
		{name: "8 bytes stored below the slice's buffer, read through the slice", slice: true, build: onSlice(onBuf(func(x dpAfterCtx) asm.Instructions {
			return asm.Instructions{storeImm(asm.RFP, x.c.buf-8, 0, asm.DWord)}
		}))},
		{name: "the packet changed, read through the slice", slice: true, build: onSlice(func(x dpAfterCtx) asm.Instructions {
			if x.ty.pktChange == nil || x.sub == "global" {
				return nil
			}
			return x.ty.pktChange
		})},
		{name: "bpf_dynptr_write(d, 0, fp-40, 8, 0), read through the slice", slice: true, build: onSlice(func(dpAfterCtx) asm.Instructions {
			return dpWrite
		})},
		{name: "the constructor at d again, read through the slice", slice: true, build: onSlice(func(x dpAfterCtx) asm.Instructions {
			if x.sub == "global" && (x.k.ctx || x.k.mapValue) {
				return nil
			}
			return x.k.make(dpViaR9)
		})},
		{name: "read the clone", build: onClone(false, func() (asm.Instructions, asm.Instructions) { return dpRead(clone), nil })},
		{name: "discard the clone, read d", releases: true, build: onClone(true, func() (asm.Instructions, asm.Instructions) {
			return cat(dpRelease(fpPtr(asm.R1, dpCloneSlot)), dpRead(r9)), nil
		})},
		{name: "discard d, read the clone", releases: true, build: onClone(true, func() (asm.Instructions, asm.Instructions) {
			return cat(dpRelease(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9)}), dpRead(clone)), nil
		})},
		{name: "8 bytes stored over the clone, read d", build: onClone(false, func() (asm.Instructions, asm.Instructions) {
			return cat(asm.Instructions{storeImm(asm.RFP, dpCloneSlot, 0, asm.DWord)}, dpRead(r9)), nil
		})},
		{name: "*(u64 *)(d+8) = 0, read the clone", build: onClone(false, func() (asm.Instructions, asm.Instructions) {
			return cat(asm.Instructions{storeImm(asm.R9, 8, 0, asm.DWord)}, dpRead(clone)), nil
		})},
	}
}

// dpProgram is "r6 = ctx; *(u32 *)(fp-80) = 0; r8 = lookup(arr, fp-80),
// exit if NULL", setup, then the call and the action after it (in the
// state's subprogram if it has one), then, if release, "discard the
// dynptr at fp-16", and "r0 = 0; exit". A slice action is "r7 = r0",
// pre, "if r7 == 0 skip use", use.
func dpProgram(setup asm.Instructions, sub string, call, pre, use asm.Instructions, slice, release bool) asm.Instructions {
	ret0 := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
	nonNull := asm.JNE.Imm(asm.R0, 0, "")
	nonNull.Offset = int16(rawLen(ret0))
	main := cat(asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		storeImm(asm.RFP, dpKeySlot, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, dpArrMap),
	}, fpPtr(asm.R2, dpKeySlot), asm.Instructions{asm.FnMapLookupElem.Call(), nonNull}, ret0,
		asm.Instructions{asm.Mov.Reg(asm.R8, asm.R0)}, setup)
	body := call
	if slice {
		skip := asm.JEq.Imm(asm.R7, 0, "")
		skip.Offset = int16(rawLen(use))
		body = cat(body, asm.Instructions{asm.Mov.Reg(asm.R7, asm.R0)}, pre, asm.Instructions{skip}, use)
	} else {
		body = cat(body, pre, use)
	}
	var subs []liveSub
	switch sub {
	case "":
		main = cat(main, body)
	case "static":
		main = cat(main, asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9), asm.Mov.Reg(asm.R2, asm.R6), asm.Mov.Reg(asm.R3, asm.R8),
			asm.Call.Label("sub")})
		subs = append(subs, liveSub{name: "sub", insns: cat(asm.Instructions{asm.Mov.Reg(asm.R9, asm.R1), asm.Mov.Reg(asm.R6, asm.R2),
			asm.Mov.Reg(asm.R8, asm.R3)}, body, ret0)})
	case "global":
		main = cat(main, asm.Instructions{asm.Mov.Reg(asm.R1, asm.R9), asm.Call.Label("g")})
		subs = append(subs, liveSub{name: "g", global: true, insns: cat(asm.Instructions{asm.Mov.Reg(asm.R9, asm.R1)}, body, ret0)})
	}
	if release {
		main = cat(main, dpRelease(fpPtr(asm.R1, dpSlot)))
	}
	return dpLink(cat(main, ret0), subs)
}

// dpLink appends the subprograms to main, binds the calls to them and,
// when there are any, gives every function BTF func info: int main(void
// *ctx), static int sub(void *d, void *ctx, void *v), global int
// g(struct bpf_dynptr *d).
func dpLink(main asm.Instructions, subs []liveSub) asm.Instructions {
	insns := cat(main)
	if len(subs) == 0 {
		return insns
	}
	intT := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	ptr := &btf.Pointer{Target: &btf.Void{}}
	dynptr := &btf.Pointer{Target: &btf.Struct{Name: "bpf_dynptr", Size: 16}}
	insns[0] = btf.WithFuncMetadata(insns[0], &btf.Func{Name: "main", Linkage: btf.GlobalFunc,
		Type: &btf.FuncProto{Return: intT, Params: []btf.FuncParam{{Name: "ctx", Type: ptr}}}})
	for _, s := range subs {
		fn := &btf.Func{Name: s.name, Linkage: btf.StaticFunc, Type: &btf.FuncProto{Return: intT,
			Params: []btf.FuncParam{{Name: "d", Type: ptr}, {Name: "ctx", Type: ptr}, {Name: "v", Type: ptr}}}}
		if s.global {
			fn = &btf.Func{Name: s.name, Linkage: btf.GlobalFunc, Type: &btf.FuncProto{Return: intT,
				Params: []btf.FuncParam{{Name: "d", Type: dynptr}}}}
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

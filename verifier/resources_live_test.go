package verifier

import (
	"errors"
	"fmt"
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

// Stack slots of the resource sweep's programs.
const (
	resKeySlot   = -8   // the u32 map key 0, stored by the prologue
	resTupleSlot = -48  // a zeroed struct bpf_sock_tuple (12 bytes used)
	resBufSlot   = -64  // 8 bytes bpf_copy_from_user and bpf_dynptr_read write
	resLoopSlot  = -104 // the numeric iterator of the iterator loop action
)

// Map indexes of the resource sweep's object.
const (
	resRingbufMap = iota
	resProgsMap
	resLocksMap
	resResLocksMap
)

// resHolder says where a resource's handle lives: a register and a stack
// slot (16 bytes, for a dynptr, a numeric iterator or saved irq flags),
// another slot left uninitialised (the wrong one to release), and what
// runs when the acquisition fails (at least "r0 = 0; exit").
type resHolder struct {
	reg         asm.Register
	slot, other int16
	fail        asm.Instructions
}

// The holders of a resource held alone (or outermost), and of one taken
// while another is held.
var (
	resOuter = resHolder{reg: asm.R7, slot: -24, other: -32}
	resInner = resHolder{reg: asm.R9, slot: -88, other: -96}
)

// liveResource is something a program can hold: acquire leaves it held,
// its handle in the holder's register or slot (a failed acquisition runs
// the holder's fail code); handle puts the handle into r1 and release
// gives it back from r1; wrong releases it as another kind (setting r1
// itself); use reads through the handle after the release; clobber and
// clobberPart overwrite the handle. A nil list is an action that does
// not apply.
type liveResource struct {
	name                 string
	acquire              asm.Instructions
	handle               asm.Instructions
	release              asm.Instructions
	wrong                asm.Instructions
	use                  asm.Instructions
	clobber, clobberPart asm.Instructions
	// inReg: the handle is a pointer in the holder's register;
	// onStack: it lives in the holder's slot.
	inReg, onStack bool
	// on reports whether the sweep takes the resource in the program
	// type (nil: every type of the sweep); full whether it does every
	// action there (nil: wherever it is taken), where elsewhere the
	// kernel refuses the acquisition itself and only the release action
	// shows that.
	on, full func(ebpf.ProgramType) bool
	// local: acquire holds a bpf_core_type_id_local of the object
	// lo_objnew.o, which the program is loaded with (see objNewBase).
	local bool
	// ownMapBTF: the resource's map has BTF types of the test's own,
	// which a program loaded with lo_objnew.o's BTF cannot name.
	ownMapBTF bool
	// noFuncInfo leaves the program without BTF function info, only
	// for the action named only.
	noFuncInfo bool
	only       string
}

// resKit is what the sweep's resources are built from: the kernel's
// kfunc calls, the program lo_objnew.o gives the bpf_obj_new resource
// (nil: none), and the offsets in the bpf_spin_lock map's value of the
// lock and of a u64 beside it.
type resKit struct {
	kfunc         func(string) (asm.Instruction, bool)
	localBase     *loader.Program
	lockOff, nOff int16
	lockMapObjBTF bool // the bpf_spin_lock map's types are localBase's
	lost          map[string]bool
}

// takenFully reports whether every action is done with r in programs of
// type pt.
func (r liveResource) takenFully(pt ebpf.ProgramType) bool {
	return (r.on == nil || r.on(pt)) && (r.full == nil || r.full(pt))
}

// liveSub is a subprogram appended to a sweep program, called by name.
type liveSub struct {
	name   string
	global bool
	insns  asm.Instructions
}

// liveAction is what a program does while holding a resource: build
// returns the instructions that follow the acquisition (with the release
// if the action releases) and the subprograms they call; nil
// instructions when the action does not apply to the resource.
type liveAction struct {
	name   string
	on     func(ebpf.ProgramType) bool // nil: every type
	nested bool                        // takes a second resource (sampled)
	inner  liveResource                // the second resource, if nested
	// noAcquire: the main program does not take the resource itself
	// (the action's subprogram does).
	noAcquire bool
	build     func(r liveResource) (asm.Instructions, []liveSub)
}

// TestResourceActionsLiveKernel takes, in tc, XDP, socket filter, kprobe,
// tracepoint, raw tracepoint, tp_btf, syscall and sleepable task iterator
// programs, each resource a program can hold (a socket reference from
// bpf_sk_lookup_tcp, a ringbuf record and a ringbuf dynptr, a
// bpf_spin_lock and a bpf_res_spin_lock in a map value, an RCU read
// section, disabled preemption, bpf_local_irq_save's saved flags, an open
// numeric iterator, a task from bpf_task_acquire, a bpf_obj_new object)
// and, while holding it, does one thing: exits, releases it (the
// control), tail-calls, runs LD_ABS and LD_IND, calls a static
// subprogram, a global function, a plain and a sleeping helper, bpf_loop
// with a trivial callback, bpf_throw, a may_goto loop, an open-coded
// bpf_iter_num loop, releases it twice or as the wrong kind, uses it
// after the release, overwrites its register or stack slot (whole or one
// byte), skips the release on one path, releases it in a static
// subprogram or in a bpf_loop callback, takes it in a static subprogram
// or a bpf_loop callback (and keeps it, or releases it there), takes and
// releases it under one condition, or takes every other resource inside
// it and releases the two in either order. It compares verdict,
// decisive message and insn_processed (of rejections too) with the
// running kernel. Where the kernel refuses the acquisition itself (a
// lock in a tracing program, a kfunc the program type has not), only
// the release action is loaded. VERCHECK_RESOURCES_ALL=1 loads every
// program; by default a fixed sample.
//
// The kernel code under test is the bookkeeping of held resources and the
// checks made against it: check_resource_leak and check_reference_leak
// at BPF_EXIT (process_bpf_exit_full, main program and subprograms), at
// bpf_tail_call, at LD_ABS (check_ld_abs) and at bpf_throw;
// process_spin_lock and the res_spin_lock's lock stack, with do_check's
// "function calls are not allowed while holding a lock"; the RCU,
// preemption and irq state of check_kfunc_call (active_rcu_locks,
// active_preempt_locks, active_irq_id, the unmatched-release and
// out-of-order messages) and check_helper_call's might-sleep tests
// inside them; check_func_call's refusals of global functions and
// callbacks in those regions; release_reference and
// release_reference_nomark for a double or mismatched release and the
// invalidation of the released pointer; the dynptr, iterator and
// irq-flag stack slots (unmark_stack_slots_dynptr,
// is_iter_reg_valid_init, process_irq_flag with
// unmark_stack_slot_irq_flag and release_irq_state's order check, and
// check_stack_write_fixed_off's destroy_if_dynptr_stack_slot against
// overwriting them); and
// check_special_kfunc's "requires prog BTF" for bpf_obj_new. An exit that
// leaks one of them, accepted, is a false accept of the worst kind: a
// leaked socket, a lock never released, interrupts left off.
func TestResourceActionsLiveKernel(t *testing.T) {
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
	u32 := &btf.Int{Name: "u32", Size: 4}
	kit := &resKit{kfunc: kfunc, localBase: objNewBase(t), lockOff: 0, nOff: 8, lost: map[string]bool{}}
	locks := lockedMap("locks", "bpf_spin_lock", u32)
	if m := objLockedMap(kit.localBase); m != nil {
		// struct lo_locked { u64 x; struct bpf_spin_lock lock; u64 y; }
		locks, kit.lockOff, kit.nOff, kit.lockMapObjBTF = m, 8, 16, true
	}
	ret0 := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
	outer := kit.resources(resOuter, ret0)
	for name := range kit.lost {
		t.Logf("kernel function %s missing: its resource is left out", name)
	}
	actions := kit.actions()
	types := []protoLiveType{
		{pt: ebpf.SchedCLS}, {pt: ebpf.XDP}, {pt: ebpf.SocketFilter}, {pt: ebpf.Kprobe},
		{pt: ebpf.TracePoint}, {pt: ebpf.RawTracepoint},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
		{pt: ebpf.Syscall, flags: loader.FlagSleepable},
		{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task", flags: loader.FlagSleepable},
	}
	maps := []*loader.Map{
		resRingbufMap:  {Name: "rb", Type: ebpf.RingBuf, MaxEntries: 4096},
		resProgsMap:    {Name: "progs", Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 1},
		resLocksMap:    locks,
		resResLocksMap: lockedMap("res_locks", "bpf_res_spin_lock", u32),
	}
	obj := &loader.Object{Path: "test", Maps: maps}

	// A kernel load takes 10 to 50 ms here (maps and BTF are created
	// for each program): by default a fixed half of the programs of one
	// resource and a sixth of the pairs are loaded, some 950 of 2650.
	all := os.Getenv("VERCHECK_RESOURCES_ALL") != ""
	compared, accepted, differ, single, nested := 0, 0, 0, 0, 0
	noVerdict := map[string]int{}
	for _, lt := range types {
		for _, r := range outer {
			if r.on != nil && !r.on(lt.pt) {
				continue
			}
			for _, a := range actions {
				if a.on != nil && !a.on(lt.pt) || r.only != "" && r.only != a.name ||
					r.full != nil && !r.full(lt.pt) && a.name != "release" {
					continue
				}
				body, subs := a.build(r)
				if body == nil || (r.local || a.inner.local) && (r.ownMapBTF || a.inner.ownMapBTF) {
					// The action does not apply; or a map of the test's
					// own BTF in a program of lo_objnew.o's, which the
					// kernel side cannot create.
					continue
				}
				switch {
				case all || r.only != "":
				case a.nested:
					if nested++; nested%6 != 0 {
						continue
					}
				default:
					if single++; single%2 != 0 {
						continue
					}
				}
				local := r.local || a.inner.local
				acquire := r.acquire
				if a.noAcquire {
					acquire = nil
				}
				insns := resourceProgram(acquire, body, subs, local && !r.noFuncInfo)
				base := &loader.Program{}
				if local {
					base = kit.localBase
				}
				p := base.WithInstructions(insns)
				p.Name, p.Type, p.AttachType, p.AttachTo, p.Flags = "p", lt.pt, lt.at, lt.attachTo, lt.flags
				p.License, p.GPLCompatible, p.Spec = "GPL", true, nil
				kres := kernel.LoadProgramVerdict(obj, p)
				if kres.NotLoaded {
					noVerdict[fmt.Sprintf("%v, %s: %s", lt, r.name, kres.Err)]++
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
				// insn_processed is compared on rejections too: both
				// verifiers stop at the same instruction.
				if got == kres.Err && res.Accepted == kres.Accepted && res.Stats.InsnProcessed == kres.InsnProcessed {
					continue
				}
				differ++
				what := fmt.Sprintf("%v, %s, %s:\n%v", lt, r.name, a.name, listing(insns))
				switch {
				case res.Accepted && !kres.Accepted:
					t.Errorf("FALSE ACCEPT %s\nkernel %q, vercheck accepts", what, kres.Err)
				case kres.Accepted && !res.Accepted:
					t.Errorf("false reject %s\nkernel accepts, vercheck %q", what, got)
				case got != kres.Err:
					t.Errorf("message %s\nkernel %q, vercheck %q", what, kres.Err, got)
				default:
					t.Errorf("insn_processed %s\nvercheck %d, kernel %d (%q)", what, res.Stats.InsnProcessed, kres.InsnProcessed, got)
				}
			}
		}
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
		t.Skip("the kernel gave no verdict on any program")
	}
	t.Logf("%d programs compared (%d accepted by the kernel), %d differ", compared, accepted, differ)
	if accepted == 0 || accepted == compared {
		t.Errorf("the kernel accepted %d of %d programs: the sweep tests nothing", accepted, compared)
	}
}

// lockedMap is a one-element array of struct { lockType l; u64 n; }, with
// the BTF that makes l a lock field.
func lockedMap(name, lockType string, u32 *btf.Int) *loader.Map {
	u64 := &btf.Int{Name: "u64", Size: 8}
	lock := &btf.Struct{Name: lockType, Size: 4, Members: []btf.Member{{Name: "val", Type: u32}}}
	value := &btf.Struct{Name: name + "_val", Size: 16, Members: []btf.Member{
		{Name: "l", Type: lock},
		{Name: "n", Type: u64, Offset: 64},
	}}
	return &loader.Map{Name: name, Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 1,
		Spec: &ebpf.MapSpec{Key: u32, Value: value}}
}

// objLockedMap is an array of lo_objnew.o's struct lo_locked with its
// int key, both of base's BTF, or nil.
func objLockedMap(base *loader.Program) *loader.Map {
	if base == nil || base.ObjectTypes == nil {
		return nil
	}
	var value *btf.Struct
	var key *btf.Int
	if base.ObjectTypes.TypeByName("lo_locked", &value) != nil || base.ObjectTypes.TypeByName("int", &key) != nil {
		return nil
	}
	return &loader.Map{Name: "locks", Type: ebpf.Array, KeySize: 4, ValueSize: value.Size, MaxEntries: 1,
		Spec: &ebpf.MapSpec{Key: key, Value: value}}
}

// objNewBase is the program lo_objnew_leak of testdata/progs/lo_objnew.o
// reduced to its bpf_core_type_id_local of struct lo_node (into r1): the
// program whose object BTF and local types a bpf_obj_new resource needs
// (a test cannot make such a relocation of its own). Nil when the object
// cannot be read.
func objNewBase(t *testing.T) *loader.Program {
	o, err := loader.Open("../testdata/progs/lo_objnew.o", loader.Options{})
	if err != nil {
		t.Logf("no bpf_obj_new resource: %v", err)
		return nil
	}
	for _, p := range o.Programs {
		if p.Name != "lo_objnew_leak" || p.Err != nil {
			continue
		}
		for _, ins := range p.Instructions {
			if relo := btf.CORERelocationMetadata(&ins); relo != nil && ins.OpCode.IsDWordLoad() {
				if _, ok := loader.LocalTypeID(relo); ok {
					// The relocated load alone: no line or function
					// record of the object comes with it.
					bare := asm.Instruction{OpCode: ins.OpCode, Dst: asm.R1, Src: ins.Src, Constant: ins.Constant}
					return p.WithInstructions(asm.Instructions{btf.WithCORERelocationMetadata(bare, relo)})
				}
			}
		}
	}
	t.Logf("no bpf_obj_new resource: lo_objnew_leak has no bpf_core_type_id_local")
	return nil
}

// exitIfNull is "if r0 != 0 goto +len(fail)" and fail.
func exitIfNull(fail asm.Instructions) asm.Instructions {
	j := asm.JNE.Imm(asm.R0, 0, "")
	j.Offset = int16(rawLen(fail))
	return cat(asm.Instructions{j}, fail)
}

// stDW0 is "*(u64 *)(fp + off) = 0" (asm.StoreImm has no 64-bit form).
func stDW0(off int16) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: asm.RFP, Offset: off}
}

// fpPtr is "reg = fp + off".
func fpPtr(reg asm.Register, off int16) asm.Instructions {
	return asm.Instructions{asm.Mov.Reg(reg, asm.RFP), asm.Add.Imm(reg, int32(off))}
}

// cat joins instruction lists into a new one.
func cat(parts ...asm.Instructions) asm.Instructions {
	out := asm.Instructions{}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// rawLen is the number of instruction slots of insns.
func rawLen(insns asm.Instructions) int {
	n := 0
	for _, ins := range insns {
		n += int(ins.Width())
	}
	return n
}

// resources are the resources of the sweep whose kfuncs the running
// kernel has (the names of the missing ones go into kit.lost), held in h,
// a failed acquisition running h.fail and ret0; the bpf_obj_new one
// allocates the local type of kit.localBase, and is left out when that is
// nil.
func (kit *resKit) resources(h resHolder, ret0 asm.Instructions) []liveResource {
	fail := cat(h.fail, ret0)
	kfunc, localBase, lost := kit.kfunc, kit.localBase, kit.lost
	must := func(names ...string) ([]asm.Instruction, bool) {
		var out []asm.Instruction
		for _, n := range names {
			c, ok := kfunc(n)
			if !ok {
				lost[n] = true
				return nil, false
			}
			out = append(out, c)
		}
		return out, true
	}
	toR1 := asm.Instructions{asm.Mov.Reg(asm.R1, h.reg)}
	keep := asm.Instructions{asm.Mov.Reg(h.reg, asm.R0)}
	atSlot := fpPtr(asm.R1, h.slot)
	lookup := func(m int) asm.Instructions {
		return cat(asm.Instructions{asm.LoadMapPtr(asm.R1, m)}, fpPtr(asm.R2, resKeySlot),
			asm.Instructions{asm.FnMapLookupElem.Call()}, exitIfNull(fail), keep)
	}
	zeroReg := asm.Instructions{asm.Mov.Imm(h.reg, 0)}
	zeroSlot := asm.Instructions{stDW0(h.slot)}
	zeroByte := asm.Instructions{asm.StoreImm(asm.RFP, h.slot+4, 0, asm.Byte)}
	netOnly := func(pt ebpf.ProgramType) bool { return pt == ebpf.SchedCLS || pt == ebpf.XDP }
	tracingOnly := func(pt ebpf.ProgramType) bool {
		switch pt {
		case ebpf.Kprobe, ebpf.TracePoint, ebpf.RawTracepoint, ebpf.Tracing, ebpf.Syscall:
			return true
		}
		return false
	}
	// Where the kernel lets a program take a bpf_spin_lock or a
	// bpf_res_spin_lock (not in tracing and socket filter programs:
	// check_map_prog_compatibility), a task (the kfunc set of
	// BTF tracing and syscall programs) or a bpf_obj_new object.
	lockTypes := func(pt ebpf.ProgramType) bool {
		return pt == ebpf.SchedCLS || pt == ebpf.XDP || pt == ebpf.Syscall
	}
	taskTypes := func(pt ebpf.ProgramType) bool { return pt == ebpf.Tracing || pt == ebpf.Syscall }
	objTypes := func(pt ebpf.ProgramType) bool {
		return pt == ebpf.SchedCLS || pt == ebpf.XDP || pt == ebpf.Tracing || pt == ebpf.Syscall
	}
	rs := []liveResource{
		{
			name: "socket",
			acquire: cat(asm.Instructions{
				stDW0(resTupleSlot),
				stDW0(resTupleSlot + 8),
				asm.Mov.Reg(asm.R1, asm.R6)},
				fpPtr(asm.R2, resTupleSlot),
				asm.Instructions{asm.Mov.Imm(asm.R3, 12), asm.Mov.Imm(asm.R4, -1), asm.Mov.Imm(asm.R5, 0), asm.FnSkLookupTcp.Call()},
				exitIfNull(fail), keep),
			handle:  toR1,
			release: asm.Instructions{asm.FnSkRelease.Call()},
			wrong:   cat(toR1, asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.FnRingbufSubmit.Call()}),
			use:     asm.Instructions{asm.LoadMem(asm.R0, h.reg, 4, asm.Word)},
			clobber: zeroReg,
			inReg:   true,
			on:      netOnly,
		},
		{
			name: "ringbuf record",
			acquire: cat(asm.Instructions{asm.LoadMapPtr(asm.R1, resRingbufMap), asm.Mov.Imm(asm.R2, 8), asm.Mov.Imm(asm.R3, 0),
				asm.FnRingbufReserve.Call()}, exitIfNull(fail), keep),
			handle:  toR1,
			release: asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.FnRingbufSubmit.Call()},
			wrong:   cat(toR1, asm.Instructions{asm.FnSkRelease.Call()}),
			use:     asm.Instructions{asm.LoadMem(asm.R0, h.reg, 0, asm.Byte)},
			clobber: zeroReg,
			inReg:   true,
		},
		{
			name: "ringbuf dynptr",
			acquire: cat(asm.Instructions{asm.LoadMapPtr(asm.R1, resRingbufMap), asm.Mov.Imm(asm.R2, 8), asm.Mov.Imm(asm.R3, 0)},
				fpPtr(asm.R4, h.slot), asm.Instructions{asm.FnRingbufReserveDynptr.Call()}),
			handle:  atSlot,
			release: asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.FnRingbufSubmitDynptr.Call()},
			wrong:   cat(atSlot, asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.FnRingbufSubmit.Call()}),
			// bpf_dynptr_read(fp-64, 8, dynptr, 0, 0)
			use: cat(fpPtr(asm.R1, resBufSlot), asm.Instructions{asm.Mov.Imm(asm.R2, 8)}, fpPtr(asm.R3, h.slot),
				asm.Instructions{asm.Mov.Imm(asm.R4, 0), asm.Mov.Imm(asm.R5, 0), asm.FnDynptrRead.Call()}),
			clobber:     zeroSlot,
			clobberPart: zeroByte,
			onStack:     true,
		},
	}
	if kf, ok := must("bpf_res_spin_unlock"); ok {
		// The handle is the map value; the lock is at kit.lockOff in it.
		lock := cat(toR1, asm.Instructions{asm.Add.Imm(asm.R1, int32(kit.lockOff))})
		rs = append(rs, liveResource{
			name:      "bpf_spin_lock",
			acquire:   cat(lookup(resLocksMap), lock, asm.Instructions{asm.FnSpinLock.Call()}),
			handle:    lock,
			release:   asm.Instructions{asm.FnSpinUnlock.Call()},
			wrong:     cat(lock, asm.Instructions{kf[0]}),
			use:       asm.Instructions{asm.LoadMem(asm.R0, h.reg, kit.nOff, asm.DWord)},
			clobber:   zeroReg,
			inReg:     true,
			ownMapBTF: !kit.lockMapObjBTF,
			full:      lockTypes,
		})
	}
	if k, ok := must("bpf_rcu_read_lock", "bpf_rcu_read_unlock", "bpf_preempt_enable"); ok {
		rs = append(rs, liveResource{
			name:    "rcu_read_lock",
			acquire: asm.Instructions{k[0]},
			handle:  asm.Instructions{},
			release: asm.Instructions{k[1]},
			wrong:   asm.Instructions{k[2]},
		})
	}
	if k, ok := must("bpf_preempt_disable", "bpf_preempt_enable", "bpf_rcu_read_unlock"); ok {
		rs = append(rs, liveResource{
			name:    "preempt_disable",
			acquire: asm.Instructions{k[0]},
			handle:  asm.Instructions{},
			release: asm.Instructions{k[1]},
			wrong:   asm.Instructions{k[2]},
		})
	}
	if k, ok := must("bpf_local_irq_save", "bpf_local_irq_restore"); ok {
		rs = append(rs, liveResource{
			name:        "local_irq_save",
			acquire:     cat(atSlot, asm.Instructions{k[0]}),
			handle:      atSlot,
			release:     asm.Instructions{k[1]},
			wrong:       cat(fpPtr(asm.R1, h.other), asm.Instructions{k[1]}),
			clobber:     zeroSlot,
			clobberPart: zeroByte,
			onStack:     true,
		})
	}
	if k, ok := must("bpf_res_spin_lock", "bpf_res_spin_unlock"); ok {
		held := asm.JEq.Imm(asm.R0, 0, "")
		held.Offset = int16(rawLen(fail))
		rs = append(rs, liveResource{
			name:      "bpf_res_spin_lock",
			acquire:   cat(lookup(resResLocksMap), toR1, asm.Instructions{k[0], held}, fail),
			handle:    toR1,
			release:   asm.Instructions{k[1]},
			wrong:     cat(toR1, asm.Instructions{asm.FnSpinUnlock.Call()}),
			use:       asm.Instructions{asm.LoadMem(asm.R0, h.reg, 8, asm.DWord)},
			clobber:   zeroReg,
			inReg:     true,
			ownMapBTF: true,
			full:      lockTypes,
		})
	}
	if k, ok := must("bpf_iter_num_new", "bpf_iter_num_destroy", "bpf_iter_num_next"); ok {
		rs = append(rs, liveResource{
			name:        "bpf_iter_num",
			acquire:     cat(atSlot, asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 10), k[0]}),
			handle:      atSlot,
			release:     asm.Instructions{k[1]},
			wrong:       cat(fpPtr(asm.R1, h.other), asm.Instructions{k[1]}),
			use:         cat(atSlot, asm.Instructions{k[2]}),
			clobber:     zeroSlot,
			clobberPart: zeroByte,
			onStack:     true,
		})
	}
	if k, ok := must("bpf_task_acquire", "bpf_task_release"); ok {
		rs = append(rs, liveResource{
			name: "bpf_task_acquire",
			acquire: cat(asm.Instructions{asm.FnGetCurrentTaskBtf.Call(), asm.Mov.Reg(asm.R1, asm.R0), k[0]},
				exitIfNull(fail), keep),
			handle:  toR1,
			release: asm.Instructions{k[1]},
			wrong:   cat(toR1, asm.Instructions{asm.FnSkRelease.Call()}),
			use:     asm.Instructions{asm.LoadMem(asm.R0, h.reg, 0, asm.Byte)},
			clobber: zeroReg,
			inReg:   true,
			on:      tracingOnly,
			full:    taskTypes,
		})
	}
	if k, ok := must("bpf_obj_new_impl", "bpf_obj_drop_impl", "bpf_task_release"); ok && localBase != nil {
		// r1 = local type id of struct lo_node; r2 = NULL.
		obj := liveResource{
			name:  "bpf_obj_new",
			local: true,
			acquire: cat(asm.Instructions{localBase.Instructions[0], asm.Mov.Imm(asm.R2, 0), k[0]},
				exitIfNull(fail), keep),
			handle:  toR1,
			release: asm.Instructions{asm.Mov.Imm(asm.R2, 0), k[1]},
			wrong:   cat(toR1, asm.Instructions{k[2]}),
			use:     asm.Instructions{asm.LoadMem(asm.R0, h.reg, 0, asm.DWord)},
			clobber: zeroReg,
			inReg:   true,
			full:    objTypes,
		}
		bare := obj
		bare.name, bare.noFuncInfo, bare.only = "bpf_obj_new, no BTF function info", true, "release"
		bare.on, bare.full = func(pt ebpf.ProgramType) bool { return pt == ebpf.SchedCLS }, nil
		rs = append(rs, obj, bare)
	}
	return rs
}

// actions are the actions of the sweep; the nested ones take each
// resource again, held in resInner.
func (kit *resKit) actions() []liveAction {
	kfunc := kit.kfunc
	rel := func(r liveResource) asm.Instructions { return cat(r.handle, r.release) }
	ret0 := asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
	skb := func(pt ebpf.ProgramType) bool { return pt == ebpf.SocketFilter || pt == ebpf.SchedCLS }
	mayGoto := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JumpOp(0xe0)), Offset: 1}
	back := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: -2}
	// ifNonNull applies f when l is not nil.
	ifNonNull := func(l asm.Instructions, f func() asm.Instructions) asm.Instructions {
		if l == nil {
			return nil
		}
		return f()
	}
	actions := []liveAction{
		{name: "exit", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return asm.Instructions{}, nil
		}},
		{name: "release", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return rel(r), nil
		}},
		{name: "bpf_tail_call", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R6), asm.LoadMapPtr(asm.R2, resProgsMap), asm.Mov.Imm(asm.R3, 0),
				asm.FnTailCall.Call()}, rel(r)), nil
		}},
		{name: "LD_ABS", on: skb, build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{{OpCode: asm.OpCode(asm.LdClass).SetMode(asm.AbsMode).SetSize(asm.Word), Constant: 0}}, rel(r)), nil
		}},
		{name: "LD_IND", on: skb, build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{{OpCode: asm.OpCode(asm.LdClass).SetMode(asm.IndMode).SetSize(asm.Byte), Src: asm.R8, Constant: 0}}, rel(r)), nil
		}},
		{name: "static call", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{asm.Call.Label("sub")}, rel(r)), []liveSub{{name: "sub", insns: ret0}}
		}},
		{name: "global call", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{asm.Call.Label("gsub")}, rel(r)), []liveSub{{name: "gsub", global: true, insns: ret0}}
		}},
		{name: "bpf_get_prandom_u32", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{asm.FnGetPrandomU32.Call()}, rel(r)), nil
		}},
		{name: "bpf_copy_from_user", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(fpPtr(asm.R1, resBufSlot), asm.Instructions{asm.Mov.Imm(asm.R2, 8), asm.Mov.Imm(asm.R3, 0),
				asm.FnCopyFromUser.Call()}, rel(r)), nil
		}},
		{name: "bpf_loop", build: func(r liveResource) (asm.Instructions, []liveSub) {
			cb := asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: -1}.WithReference("cb")
			return cat(asm.Instructions{asm.Mov.Imm(asm.R1, 1), cb, asm.Mov.Imm(asm.R3, 0), asm.Mov.Imm(asm.R4, 0),
				asm.FnLoop.Call()}, rel(r)), []liveSub{{name: "cb", insns: ret0}}
		}},
		{name: "release twice", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(rel(r), rel(r)), nil
		}},
		{name: "release as the wrong kind", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(r.wrong), nil
		}},
		{name: "use after the release", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return ifNonNull(r.use, func() asm.Instructions { return cat(rel(r), r.use) }), nil
		}},
		{name: "may_goto loop", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{mayGoto, back}, rel(r)), nil
		}},
		{name: "overwrite the handle", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return ifNonNull(r.clobber, func() asm.Instructions { return cat(r.clobber) }), nil
		}},
		{name: "overwrite a byte of the handle", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return ifNonNull(r.clobberPart, func() asm.Instructions { return cat(r.clobberPart) }), nil
		}},
		{name: "release on one path", build: func(r liveResource) (asm.Instructions, []liveSub) {
			body := rel(r)
			skip := asm.JEq.Imm(asm.R8, 0, "")
			skip.Offset = int16(rawLen(body))
			return cat(asm.Instructions{skip}, body), nil
		}},
		{name: "release in a static subprogram", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(r.handle, asm.Instructions{asm.Call.Label("relsub")}), []liveSub{{name: "relsub", insns: cat(r.release, ret0)}}
		}},
	}
	if k, ok := kfunc3(kfunc, "bpf_iter_num_new", "bpf_iter_num_next", "bpf_iter_num_destroy"); ok {
		// for (i in 0..3) {} with an open-coded iterator: the next
		// call's NULL ends the loop.
		actions = append(actions, liveAction{name: "bpf_iter_num loop", build: func(r liveResource) (asm.Instructions, []liveSub) {
			done := asm.JEq.Imm(asm.R0, 0, "")
			done.Offset = 1
			again := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Ja), Offset: -5}
			return cat(fpPtr(asm.R1, resLoopSlot), asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 3), k[0]},
				fpPtr(asm.R1, resLoopSlot), asm.Instructions{k[1], done, again},
				fpPtr(asm.R1, resLoopSlot), asm.Instructions{k[2]}, rel(r)), nil
		}})
	}
	// bpf_loop(1, cb, ctx, 0) and the callback cb.
	loop := func(ctx asm.Instructions, cb asm.Instructions) (asm.Instructions, []liveSub) {
		ld := asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: -1}.WithReference("cb")
		return cat(asm.Instructions{asm.Mov.Imm(asm.R1, 1), ld}, ctx, asm.Instructions{asm.Mov.Imm(asm.R4, 0), asm.FnLoop.Call()}),
			[]liveSub{{name: "cb", insns: cb}}
	}
	noCtx := asm.Instructions{asm.Mov.Imm(asm.R3, 0)}
	// The callback takes the resource (in its own frame: the key
	// stored again) and keeps it, or releases it before it returns.
	for _, release := range []bool{false, true} {
		name := "acquire in a bpf_loop callback"
		if release {
			name = "acquire and release in a bpf_loop callback"
		}
		actions = append(actions, liveAction{name: name, noAcquire: true, build: func(r liveResource) (asm.Instructions, []liveSub) {
			if r.name == "socket" {
				return nil, nil // bpf_sk_lookup_tcp needs the context
			}
			cb := cat(asm.Instructions{asm.StoreImm(asm.RFP, resKeySlot, 0, asm.Word)}, r.acquire)
			if release {
				cb = cat(cb, rel(r))
			}
			return loop(noCtx, cat(cb, ret0))
		}})
	}
	// The callback releases what the caller holds: the handle's stack
	// slot is bpf_loop's context.
	actions = append(actions, liveAction{name: "release in a bpf_loop callback", build: func(r liveResource) (asm.Instructions, []liveSub) {
		if r.inReg {
			return nil, nil // no pointer but to the stack goes through bpf_loop
		}
		if r.onStack {
			body, subs := loop(fpPtr(asm.R3, resOuter.slot), nil)
			subs[0].insns = cat(asm.Instructions{asm.Mov.Reg(asm.R1, asm.R2)}, r.release, ret0)
			return body, subs
		}
		return loop(noCtx, cat(r.release, ret0))
	}})
	// Taken and released only when r8 != 0: the second test of r8 is
	// decided on both paths.
	actions = append(actions, liveAction{name: "acquire and release under one condition", noAcquire: true, build: func(r liveResource) (asm.Instructions, []liveSub) {
		skipAcquire := asm.JEq.Imm(asm.R8, 0, "")
		skipAcquire.Offset = int16(rawLen(r.acquire))
		skipRelease := asm.JEq.Imm(asm.R8, 0, "")
		skipRelease.Offset = int16(rawLen(rel(r)))
		return cat(asm.Instructions{skipAcquire}, r.acquire, asm.Instructions{skipRelease}, rel(r)), nil
	}})
	if throw, ok := kfunc("bpf_throw"); ok {
		actions = append(actions, liveAction{name: "bpf_throw", build: func(r liveResource) (asm.Instructions, []liveSub) {
			return cat(asm.Instructions{asm.Mov.Imm(asm.R1, 0), throw}, rel(r)), nil
		}})
	}
	// Taken in a static subprogram ("r6 = ctx; key = 0", the acquisition,
	// "r0 = handle or 0; exit"), released by the caller.
	actions = append(actions, liveAction{name: "acquire in a static subprogram", noAcquire: true, build: func(r liveResource) (asm.Instructions, []liveSub) {
		if r.onStack {
			return nil, nil
		}
		sub := cat(asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1), asm.StoreImm(asm.RFP, resKeySlot, 0, asm.Word)}, r.acquire)
		call := asm.Instructions{asm.Mov.Reg(asm.R1, asm.R6), asm.Call.Label("acqsub")}
		if r.inReg {
			sub = cat(sub, asm.Instructions{asm.Mov.Reg(asm.R0, resOuter.reg), asm.Return()})
			call = cat(call, asm.Instructions{asm.Mov.Reg(resOuter.reg, asm.R0)}, exitIfNull(ret0))
		} else {
			sub = cat(sub, ret0)
		}
		return cat(call, rel(r)), []liveSub{{name: "acqsub", insns: sub}}
	}})
	// Each resource taken again inside, released before or after.
	for _, ir := range kit.resources(resInner, ret0) {
		if ir.only != "" {
			continue
		}
		for _, innerFirst := range []bool{true, false} {
			order := "the inner released first"
			if !innerFirst {
				order = "the outer released first"
			}
			actions = append(actions, liveAction{name: fmt.Sprintf("%s inside, %s", ir.name, order), on: ir.takenFully, nested: true, inner: ir,
				build: func(r liveResource) (asm.Instructions, []liveSub) {
					if r.only != "" {
						return nil, nil
					}
					// The inner acquisition's failure releases the outer.
					in := kit.resources(resHolder{reg: resInner.reg, slot: resInner.slot, other: resInner.other, fail: rel(r)}, ret0)
					var inner liveResource
					for _, x := range in {
						if x.name == ir.name {
							inner = x
						}
					}
					if innerFirst {
						return cat(inner.acquire, rel(inner), rel(r)), nil
					}
					return cat(inner.acquire, rel(r), rel(inner)), nil
				}})
		}
	}
	return actions
}

// kfunc3 is the calls of three kernel functions, if the kernel has them
// all.
func kfunc3(kfunc func(string) (asm.Instruction, bool), a, b, c string) ([3]asm.Instruction, bool) {
	var out [3]asm.Instruction
	for i, n := range []string{a, b, c} {
		k, ok := kfunc(n)
		if !ok {
			return out, false
		}
		out[i] = k
	}
	return out, true
}

// resourceProgram is "r6 = ctx; r8 = bpf_get_prandom_u32(); *(u32 *)(fp-8)
// = 0", acquire, body, "r0 = 0; exit" and the subprograms, with the calls
// bound to them and, where there are subprograms or funcInfo asks for
// it, the BTF function info a program with subprograms needs (int
// main(void *ctx), static int sub(void *a), a global int gsub(void)).
func resourceProgram(acquire, body asm.Instructions, subs []liveSub, funcInfo bool) asm.Instructions {
	insns := cat(asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		asm.FnGetPrandomU32.Call(),
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.StoreImm(asm.RFP, resKeySlot, 0, asm.Word),
	}, acquire, body, asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()})
	if len(subs) == 0 && !funcInfo {
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
			fn = &btf.Func{Name: s.name, Linkage: btf.GlobalFunc, Type: &btf.FuncProto{Return: intT}}
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

// listing prints insns one per line, numbered by slot, as a reduction
// starts from.
func listing(insns asm.Instructions) string {
	var b strings.Builder
	iter := insns.Iterate()
	for iter.Next() {
		fmt.Fprintf(&b, "\t%3d: %v\n", iter.Offset, *iter.Ins)
	}
	return strings.TrimRight(b.String(), "\n")
}

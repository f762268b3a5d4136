package verifier

// Kernel function calls (kfuncs): the kernel's check_kfunc_call,
// fetch_kfunc_meta and check_kfunc_args.
//
// A kfunc call (BPF_CALL with src_reg BPF_PSEUDO_KFUNC_CALL) names a
// function by its vmlinux BTF id. Its prototype comes from the kernel's BTF;
// its flags (acquire, release, may return NULL, RCU arguments...) and the
// program types that may call it come from the BTF_ID_FLAGS sets the kernel
// registers per hook, which BTF does not carry: package kfuncs holds them for the
// kfuncs vercheck models. Any other kfunc is rejected as unsupported, never
// accepted.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/kfuncs"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// kfuncSessionCookie returns a kprobe session's writable cookie.
const kfuncSessionCookie = "bpf_session_cookie"

// kfuncChangesPktData is is_kfunc_pkt_changing: the kfunc may move the
// packet data, which invalidates every packet pointer.
func kfuncChangesPktData(name string) bool {
	return name == "bpf_xdp_pull_data"
}

// kfuncDynptrWrites reports whether the kfunc writes into the dynptr of
// its first argument the way bpf_dynptr_write does, so that a write into
// an skb dynptr may move the packet (stablefix.DynptrKfuncPktWrite):
// bpf_dynptr_copy, bpf_dynptr_memset and the copies of 6.17 from kernel
// and user memory.
func kfuncDynptrWrites(name string) bool {
	switch name {
	case "bpf_dynptr_copy", "bpf_dynptr_memset",
		"bpf_probe_read_user_dynptr", "bpf_probe_read_kernel_dynptr",
		"bpf_probe_read_user_str_dynptr", "bpf_probe_read_kernel_str_dynptr",
		"bpf_copy_from_user_dynptr", "bpf_copy_from_user_str_dynptr",
		"bpf_copy_from_user_task_dynptr", "bpf_copy_from_user_task_str_dynptr":
		return true
	}
	return false
}

// kfuncBpfTrap is __bpf_trap, which no verified path may reach.
const kfuncBpfTrap = "__bpf_trap"

// kfuncCallable reports whether this program may call the kfunc: what
// fetch_kfunc_meta asks of btf_kfunc_id_set_contains (the registration's
// program types, then its filter). Every use of that answer goes through
// here: the call itself, the argument count of the liveness analysis, and
// check_cfg's might_sleep mark of a subprogram.
func (e *env) kfuncCallable(def kfuncs.Def) bool {
	return def.AllowedIn(e.progType) && !e.kfuncFilteredOut(def)
}

// kfuncFilteredOut reports whether the filter of the kfunc's registration
// refuses this program (btf_kfunc_is_allowed's filter call).
func (e *env) kfuncFilteredOut(def kfuncs.Def) bool {
	switch {
	case def.Flags&kfuncs.IterProgOnly != 0:
		return e.attach != ebpf.AttachTraceIter
	case def.Flags&kfuncs.LSMOnly != 0:
		return e.progType != ebpf.LSM
	case def.Flags&kfuncs.SessionOnly != 0:
		// bpf_kprobe_multi_filter: kprobe and uprobe sessions.
		return e.attach != ebpf.AttachTraceKprobeSession && e.attach != helpers.AttachTraceUprobeSession
	case def.Flags&kfuncs.ArenaSet != 0:
		return !e.opts.MissingFixes.Has(stablefix.NoArenaKfuncs)
	case def.Flags&kfuncs.SignatureVerification != 0:
		return !e.build.SignatureVerification
	}
	return false
}

// maxKfuncArgs is MAX_BPF_FUNC_REG_ARGS: arguments travel in r1-r5.
const maxKfuncArgs = 5

// kfuncInfo is a resolved kfunc: its BTF declaration.
type kfuncInfo struct {
	name  string
	proto *btf.FuncProto
	// msg is the kernel's rejection when the BTF id does not name a
	// usable function.
	msg string
	// distill is btf_distill_func_proto's refusal of the function's
	// prototype, which add_kfunc_call checks last (distillFuncProto).
	distill string
	// tagged: the function carries the bpf_kfunc declaration tag
	// (__bpf_kfunc), which every kfunc defined in C has.
	tagged bool
}

// kfuncCache memoises kfunc resolution by BTF id: kernel BTF does not
// change while the process runs.
var kfuncCache sync.Map // map[int32]*kfuncInfo

// resolveKfunc looks up the function a kfunc call names.
func resolveKfunc(id int32) (*kfuncInfo, error) {
	if v, ok := kfuncCache.Load(id); ok {
		return v.(*kfuncInfo), nil
	}
	if _, err := vmlinux(); err != nil {
		return nil, err
	}
	info := funcInfo(btfTypeByID(uint32(id)), id)
	kfuncCache.Store(id, info)
	return info, nil
}

// funcInfo is what fetch_kfunc_meta finds at BTF id id: t, a function
// with a prototype, or the kernel's message for what it is not.
func funcInfo(t btf.Type, id int32) *kfuncInfo {
	info := &kfuncInfo{}
	fn, ok := t.(*btf.Func)
	switch {
	case !ok:
		info.msg = fmt.Sprintf("kernel btf_id %d is not a function", uint32(id))
	default:
		info.name = fn.Name
		info.tagged = slices.Contains(fn.Tags, kfuncDeclTag)
		if p, ok := fn.Type.(*btf.FuncProto); ok {
			info.proto = p
			info.distill = distillFuncProto(fn.Name, p.Return, p.Params)
		} else {
			info.msg = fmt.Sprintf("kernel function btf_id %d does not have a valid func_proto", uint32(id))
		}
	}
	return info
}

// kfuncCallee resolves the function a kfunc call names: in vmlinux BTF,
// or, with an insn.Off, in the module BTF at that fd_array index
// (find_kfunc_desc_btf). The module's types that vmlinux also has are
// vmlinux's own, so arguments and results typed by them check as any
// kfunc's; a module's own struct types are unsupported where a BTF id is
// needed.
func kfuncCallee(in insn.Insn) (*kfuncInfo, error) {
	if in.Off == 0 {
		return resolveKfunc(in.Imm)
	}
	key := int64(in.Off)<<32 | int64(uint32(in.Imm))
	if v, ok := moduleKfuncCache.Load(key); ok {
		return v.(*kfuncInfo), nil
	}
	mod, ok := loader.ModuleBTFAt(int(in.Off))
	if !ok {
		return nil, fmt.Errorf("no module BTF at fd_array index %d", in.Off)
	}
	t, err := mod.Spec.TypeByID(btf.TypeID(in.Imm))
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", mod.Name, err)
	}
	info := funcInfo(t, in.Imm)
	moduleKfuncCache.Store(key, info)
	return info, nil
}

// haveModuleBTFs reports whether kernel modules with BTF are known (the
// running kernel's, or those Options.ModuleBTF names).
func haveModuleBTFs() bool {
	mods, err := loader.ModuleBTFs()
	return err != nil || len(mods) > 0
}

// moduleKfuncCache memoises module kfuncs by fd_array index and BTF id.
var moduleKfuncCache sync.Map // map[int64]*kfuncInfo

// kfuncArgCount is the argument count of a kfunc call for the liveness
// analysis, or -1 (all of r1-r5) when unknown. A kfunc the program type
// may not call counts as unknown: the kernel's get_call_summary asks
// fetch_kfunc_meta, which fails for it, so a dead call to it keeps every
// argument register live.
func (e *env) kfuncArgCount(call insn.Insn) int {
	info, err := kfuncCallee(call)
	if err != nil || info.proto == nil {
		return -1
	}
	def, ok := kfuncs.Lookup(info.name)
	if ok && !e.kfuncCallable(def) || !ok && !info.tagged {
		// A function outside the table without the kfunc tag is
		// some static function of the kernel (a mutated BTF id):
		// no kfunc set registers it. One the table lacks that has
		// the tag may be registered, and its prototype is taken.
		return -1
	}
	return len(info.proto.Params)
}

// kfuncDeclTag is the BTF declaration tag __bpf_kfunc puts on a kfunc.
const kfuncDeclTag = "bpf_kfunc"

// kernelTagsKfuncs reports whether the kernel's BTF marks its kfuncs with
// kfuncDeclTag (pahole 1.26 and later tag every function of a kfunc set),
// so that an untagged function is known to be in no set. The core kfunc
// bpf_rcu_read_lock stands for them all.
var kernelTagsKfuncs = sync.OnceValue(func() bool {
	fn, ok := vmlinuxType[*btf.Func]("bpf_rcu_read_lock")
	return ok && slices.Contains(fn.Tags, kfuncDeclTag)
})

// maxKfuncDescs is the kernel's MAX_KFUNC_DESCS: the distinct kernel
// functions one program may call.
const maxKfuncDescs = 256

// checkKfuncDecls is the load-time part of add_kfunc_call: every kfunc
// call, reachable or not, must name a kernel function the program may
// call. add_subprog_and_kfunc checks calls in instruction order, so a
// bpf-to-bpf call with no target before a kfunc call is that error.
func (e *env) checkKfuncDecls() error {
	// The distinct kfuncs (BTF id, module offset) met so far: the
	// kernel's kfunc_tab, of at most maxKfuncDescs descriptors.
	type kfuncKey struct {
		id  int32
		off int16
	}
	var descs []kfuncKey
	for i, in := range e.prog {
		if in.Filler {
			continue
		}
		if err := insn.CheckCallDestination(e.prog, i); err != nil {
			return insnReject(err)
		}
		if !in.IsKfuncCall() {
			continue
		}
		if e.build.Interpreted {
			// add_kfunc_call: a kfunc is called through the JIT's
			// calling convention only (prog->jit_requested).
			return &RejectError{Insn: i, Msg: "JIT is required for calling kernel function", errno: errnoENOTSUPP}
		}
		if !e.lp.GPLCompatible {
			return &RejectError{Insn: i, Msg: "cannot call kernel function from non-GPL compatible program"}
		}
		if isZeroKfuncCall(in) {
			// add_kfunc_call leaves a call of BTF id 0 (a weak kfunc an
			// old loader did not resolve) for the dead-code passes.
			continue
		}
		if key := (kfuncKey{in.Imm, in.Off}); !slices.Contains(descs, key) {
			// find_kfunc_desc, then the table's limit, before the
			// callee is looked up.
			if len(descs) == maxKfuncDescs {
				return &RejectError{Insn: i, Msg: "too many different kernel function calls", errno: syscall.E2BIG}
			}
			descs = append(descs, key)
		}
		if in.Off < 0 {
			// find_kfunc_desc_btf: the offset is an index into
			// fd_array, never negative.
			return &RejectError{Insn: i, Msg: "negative offset disallowed for kernel module function call\nfailed to find BTF for kernel function"}
		}
		if in.Off > 0 && !haveModuleBTFs() {
			// A module's BTF is the fd at index Off of fd_array, which
			// loaders pass only for the module kfuncs they resolved:
			// with no module BTF there is none.
			return &RejectError{Insn: i, Msg: "kfunc offset > 0 without fd_array is invalid\nfailed to find BTF for kernel function", errno: syscall.EPROTO}
		}
		info, err := kfuncCallee(in)
		if err != nil {
			return e.unsupported(i, "kfunc call (BTF id %d): %v", in.Imm, err)
		}
		if info.msg != "" {
			return &RejectError{Insn: i, Msg: info.msg}
		}
		if err := e.checkKfuncAddress(i, info); err != nil {
			return err
		}
		if devBoundKfuncs[info.name] {
			// bpf_dev_bound_kfunc_check: vercheck's programs are
			// never bound to a device (no prog_ifindex).
			return &RejectError{Insn: i, Msg: "metadata kfuncs require device-bound program"}
		}
		if info.distill != "" {
			return &RejectError{Insn: i, Msg: info.distill}
		}
	}
	return nil
}

// checkKfuncAddress is add_kfunc_call's kallsyms_lookup_name: a BTF
// function the kernel has no address for (an __exit function, discarded
// after boot) refuses the program at load. Every registered kfunc has an
// address, so only a function neither the table nor the bpf_kfunc tag
// names (a call some BTF id mutation points at any kernel function) is
// looked up: /proc/kallsyms is read only for those.
func (e *env) checkKfuncAddress(i int, info *kfuncInfo) error {
	if _, ok := kfuncs.Lookup(info.name); ok || info.tagged {
		return nil
	}
	_, ok, err := kernelSymbol(info.name)
	if err != nil {
		return e.unsupported(i, "kfunc call of %s: %v", info.name, err)
	}
	if !ok {
		return &RejectError{Insn: i, Msg: fmt.Sprintf("cannot find address for kernel function %s", info.name), errno: syscall.EINVAL}
	}
	return nil
}

// devBoundKfuncs are the XDP metadata kfuncs (XDP_METADATA_KFUNC_xxx),
// which a driver implements for the device the program is bound to.
var devBoundKfuncs = map[string]bool{
	"bpf_xdp_metadata_rx_timestamp": true, "bpf_xdp_metadata_rx_hash": true, "bpf_xdp_metadata_rx_vlan_tag": true,
}

// kfuncMeta is bpf_kfunc_call_arg_meta: what the argument checks learn.
type kfuncMeta struct {
	name        string
	flags       kfuncs.Flags
	refObjID    uint32
	releaseReg  int
	r0Size      uint64
	r0Rdonly    bool
	constantArg bool
	// constant is the value of the constant argument (__k, __szk).
	constant uint64
	// buf is the stack a memory argument sized by the constant (__szk)
	// may occupy, when it points into the stack.
	buf states.StackBuf
	// iter is the iterator argument checked (processIterArg).
	iter iterMeta
	// dynptr is the initialised dynptr argument checked last
	// (the kernel's initialized_dynptr).
	dynptr dynptrMeta
	// kernCtxID is the kernel context struct bpf_cast_to_kern_ctx returns.
	kernCtxID uint32
	// root is the graph root argument's field (arg_list_head.field,
	// arg_rbtree_root.field).
	root *mapField
	// argAux is the Aux (BTF object and struct: arg_btf, arg_btf_id) of
	// the node, refcounted or dropped argument.
	argAux uint32
	// insertOff is the node argument's offset in its object (insert_off).
	insertOff int64
	// subprog is the callback argument's subprogram.
	subprog int
	// argOwningRef is set when bpf_refcount_acquire gets an owning
	// reference: its result cannot be NULL then.
	argOwningRef bool
	// mapIdx is the map of a workqueue or "__map" argument, when hasMap
	// (the kernel's meta->map).
	mapIdx int
	hasMap bool
	// mapUID is the map uid of mapIdx's map (meta->map.uid).
	mapUID uint32
	// argProg is set once a "__prog" argument was passed over.
	argProg bool
}

// retNull is is_kfunc_ret_null: the result may be NULL.
func (m *kfuncMeta) retNull() bool {
	if m.name == kfuncRefcountAcquire && m.argOwningRef {
		return false
	}
	return m.flags&kfuncs.RetNull != 0
}

// isZeroKfuncCall reports a kfunc call of BTF id 0 in vmlinux: no
// function, which the kernel lets through the walk and refuses only if
// the call survives dead-code elimination (checkZeroKfuncCalls).
func isZeroKfuncCall(in insn.Insn) bool {
	return in.IsKfuncCall() && in.Imm == 0 && in.Off == 0
}

// checkZeroKfuncCalls is fixup_kfunc_call's refusal, in do_misc_fixups
// after the walk, of a kfunc call of BTF id 0 that a path reached: the
// privileged dead-code passes removed the others.
func (e *env) checkZeroKfuncCalls() error {
	for i, in := range e.prog {
		if !in.Filler && isZeroKfuncCall(in) && e.seen[i] {
			return &RejectError{Insn: i, Msg: "invalid kernel function call not eliminated in verifier pass"}
		}
	}
	return nil
}

// checkKfuncCall is check_kfunc_call.
func (e *env) checkKfuncCall(in *insn.Insn) error {
	if in.Imm == 0 {
		// check_kfunc_call returns at once for BTF id 0: the call
		// changes no register, and checkZeroKfuncCalls refuses it
		// after the walk.
		return nil
	}
	info, err := kfuncCallee(*in)
	if err != nil {
		return e.unsupported(e.insnIdx, "kfunc call (BTF id %d): %v", in.Imm, err)
	}
	if info.proto == nil {
		return e.reject(e.insnIdx, "%s", info.msg)
	}
	def, ok := kfuncs.Lookup(info.name)
	if !ok && !info.tagged && in.Off == 0 && kernelTagsKfuncs() {
		// No kfunc set holds it: btf_kfunc_id_set_contains fails for
		// every program type.
		return e.reject(e.insnIdx, "calling kernel function %s is not allowed", info.name)
	}
	if !ok {
		return e.unsupported(e.insnIdx, "kfunc %s", info.name)
	}
	if !e.kfuncCallable(def) {
		return e.reject(e.insnIdx, "calling kernel function %s is not allowed", info.name)
	}
	if resLockAcquires(info.name) && in.Off == 0 {
		if err := e.pushResLockFailure(); err != nil {
			return err
		}
	} else if info.name == kfuncBpfTrap && in.Off == 0 {
		// check_kfunc_call refuses a reached trap right after the
		// kfunc's program-type check, with EFAULT.
		return e.reject(e.insnIdx, "unexpected __bpf_trap() due to uninitialized variable?")
	}
	if def.Flags&kfuncs.Destructive != 0 {
		return e.unsupported(e.insnIdx, "kfunc %s (flags %#x)", info.name, def.Flags)
	}
	if def.Flags&kfuncs.Sleepable != 0 && !e.inSleepable() {
		return e.reject(e.insnIdx, "program must be sleepable to call sleepable kfunc %s", info.name)
	}
	meta := kfuncMeta{name: info.name, flags: def.Flags}
	if err := e.checkKfuncArgs(info, &meta); err != nil {
		return err
	}
	if info.name == kfuncWqSetCallback {
		if err := e.pushWqCallback(&meta); err != nil {
			return e.failedCallback(err, info.name, in.Imm)
		}
	}
	if taskWorkKfuncs[info.name] {
		if err := e.pushTaskWorkCallback(&meta); err != nil {
			return e.failedCallback(err, info.name, in.Imm)
		}
	}
	if err := e.updateRCULock(info.name, def.Flags&kfuncs.Sleepable != 0); err != nil {
		return err
	}
	if err := e.updatePreemptLock(info.name, def.Flags&kfuncs.Sleepable != 0); err != nil {
		return err
	}
	if e.cur.ActiveIRQID != 0 && def.Flags&kfuncs.Sleepable != 0 {
		return e.reject(e.insnIdx, "kernel func %s is sleepable within IRQ-disabled region", info.name)
	}
	if def.Flags&kfuncs.RCUProtected != 0 && !e.inRCU() {
		return e.reject(e.insnIdx, "kernel func %s requires RCU critical section protection", info.name)
	}
	regs := e.regs()
	// Asked before the arguments are cleared: a write into an skb
	// dynptr (the destination, r1) moves the packet.
	movesPacket := kfuncDynptrWrites(info.name) && !e.opts.MissingFixes.Has(stablefix.DynptrKfuncPktWrite)
	if movesPacket {
		d := e.dynptrState(&regs[1])
		movesPacket = d != nil && dynptrType(d.Aux).writeMovesPacket()
		if movesPacket {
			// The write is a direct packet write to the rewrites: a
			// tc program's gets the unclone prologue (measured).
			e.mayWritePacket()
		}
	}
	if meta.releaseReg > 0 {
		if err := e.releaseCallReference(regs[meta.releaseReg].RefObjID, fmt.Sprintf("kfunc %s#%d", info.name, in.Imm)); err != nil {
			return err
		}
	}
	if err := e.graphCallEffects(info, &meta); err != nil {
		return err
	}
	if info.name == kfuncThrow && e.excCb == 0 {
		// Without an exception callback the cookie is what the program
		// returns; with one, the callback's return value is checked.
		if err := e.checkExitValue(1); err != nil {
			return err
		}
	}
	for r := 0; r <= maxKfuncArgs; r++ {
		regs[r].MarkNotInit()
	}
	if err := e.setKfuncReturn(info, &meta); err != nil {
		return err
	}
	if err := e.checkObjCallType(info, &meta); err != nil {
		return err
	}
	if kfuncChangesPktData(info.name) || movesPacket {
		e.clearAllPktPointers()
	}
	if meta.flags&kfuncs.IterNext != 0 {
		return e.processIterNextCall(&meta)
	}
	return nil
}

// checkKfuncArgs is check_kfunc_args.
func (e *env) checkKfuncArgs(info *kfuncInfo, meta *kfuncMeta) error {
	params := info.proto.Params
	if len(params) > maxKfuncArgs {
		return e.reject(e.insnIdx, "Function %s has %d > %d args", info.name, len(params), maxKfuncArgs)
	}
	regs := e.regs()
	for i := 0; i < len(params); i++ {
		regno := i + 1
		reg := &regs[regno]
		p := params[i]
		t := skipModifiers(p.Type)
		if strings.HasSuffix(p.Name, "__ign") {
			continue
		}
		if strings.HasSuffix(p.Name, "__prog") {
			// The kernel passes the program's bpf_prog_aux there itself
			// (is_kfunc_arg_prog): whatever the register holds is left.
			if meta.argProg {
				return e.verifierBug("Only 1 prog->aux argument supported per-kfunc")
			}
			meta.argProg = true
			continue
		}
		if isScalarType(t) {
			if reg.Type != states.ScalarValue {
				return e.reject(e.insnIdx, "R%d is not a scalar", regno)
			}
			switch {
			case strings.HasSuffix(p.Name, "__k"):
				if meta.constantArg {
					return e.verifierBug("only one constant argument permitted")
				}
				if !reg.Var.IsConst() {
					return e.reject(e.insnIdx, "R%d must be a known constant", regno)
				}
				if err := e.markChainPrecision(regno); err != nil {
					return err
				}
				meta.constantArg = true
				meta.constant = reg.Var.Value
			case strings.HasSuffix(p.Name, "rdonly_buf_size"), strings.HasSuffix(p.Name, "rdwr_buf_size"):
				return e.unsupported(e.insnIdx, "kfunc %s buffer-size argument", info.name)
			}
			continue
		}
		ptr, ok := t.(*btf.Pointer)
		if !ok {
			return e.reject(e.insnIdx, "Unrecognized arg#%d type %s", i, btfKindStr(t))
		}
		// Every kfunc takes trusted arguments (see package kfuncs): a NULL or
		// maybe-NULL pointer is refused unless the parameter is __nullable
		// or an __opt buffer.
		nullable := strings.HasSuffix(p.Name, "__nullable")
		optional := strings.HasSuffix(p.Name, "__opt")
		if (reg.IsNull() || reg.MaybeNull()) && !nullable && !optional {
			return e.reject(e.insnIdx, "Possibly NULL pointer passed to trusted arg%d", i)
		}
		if reg.RefObjID != 0 {
			if meta.flags&kfuncs.Release != 0 && meta.refObjID != 0 {
				return e.verifierBug("more than one arg with ref_obj_id R%d %d %d", regno, reg.RefObjID, meta.refObjID)
			}
			meta.refObjID = reg.RefObjID
			if meta.flags&kfuncs.Release != 0 {
				meta.releaseReg = regno
			}
		}
		ref := skipModifiers(ptr.Target)
		refName := ""
		if ref != nil {
			refName = ref.TypeName()
		}
		kind, err := e.kfuncPtrArgKind(info, meta, i, reg, ref, refName, nullable)
		if err != nil {
			return err
		}
		if reg.IsNull() && !e.opts.MissingFixes.Has(stablefix.NullArgPrecise) {
			// As for a helper: the NULL a __nullable or __opt
			// parameter took decided the checks it skips. The
			// argument's kind comes first: a kind the kernel
			// refuses logs no precision walk before it.
			if err := e.markChainPrecision(regno); err != nil {
				return err
			}
		}
		if kind == kfArgNull {
			continue
		}
		if kind == kfArgMap {
			if err := e.checkMapArgFault(meta, reg); err != nil {
				return err
			}
			if err := e.checkKfuncMapArg(info, regno, reg); err != nil {
				return err
			}
			if err := e.checkWqMapMatch(meta, reg); err != nil {
				return err
			}
		}
		if (kind == kfArgBTFID || kind == kfArgAlloc || kind == kfArgMap) && !isTrustedBTF(reg) {
			if meta.flags&kfuncs.RCU == 0 {
				return e.reject(e.insnIdx, "R%d must be referenced or trusted", regno)
			}
			if reg.Flags&states.MemRCU == 0 {
				return e.reject(e.insnIdx, "R%d must be a rcu pointer", regno)
			}
		}
		if kind == kfArgRefcounted && reg.Type == states.PtrToBTFID && !e.opts.MissingFixes.Has(stablefix.RefcountArgZeroOff) {
			// bpf_refcount_acquire takes the object at its start.
			if err := e.checkPtrOffReg(reg, regno, false); err != nil {
				return err
			}
		} else if err := e.checkFuncArgRegOff(reg, regno, meta.flags&kfuncs.Release != 0 && reg.RefObjID != 0); err != nil {
			return err
		}
		switch kind {
		case kfArgIter:
			if info.name == "bpf_iter_css_task_new" && !e.cssTaskIterAllowed() {
				return e.reject(e.insnIdx, "css_task_iter is only allowed in bpf_lsm, bpf_iter and sleepable progs")
			}
			if err := e.processIterArg(info, meta, regno, ref); err != nil {
				return err
			}
		case kfArgDynptr:
			if err := e.processKfuncDynptrArg(meta, regno, strings.HasSuffix(p.Name, "__uninit")); err != nil {
				return err
			}
		case kfArgCtx:
			if reg.Type != states.PtrToCtx {
				return e.reject(e.insnIdx, "arg#%d expected pointer to ctx, but got %s", i, regTypeStr(reg))
			}
			if info.name == "bpf_cast_to_kern_ctx" {
				if err := e.kernCtxArg(meta); err != nil {
					return err
				}
			}
		case kfArgBTFID:
			if err := e.checkKfuncBTFArg(info, meta, i, reg, ref, refName); err != nil {
				return err
			}
		case kfArgWq:
			if err := e.processWqArg(meta, i, regno, reg); err != nil {
				return err
			}
		case kfArgTaskWork:
			if err := e.processTaskWorkArg(meta, i, regno, reg); err != nil {
				return err
			}
		case kfArgIRQFlag:
			if reg.Type != states.PtrToStack {
				return e.reject(e.insnIdx, "arg#%d doesn't point to an irq flag on stack", i)
			}
			if err := e.processIRQFlag(info.name, i); err != nil {
				return err
			}
		case kfArgConstStr:
			if reg.Type != states.PtrToMapValue {
				return e.reject(e.insnIdx, "arg#%d doesn't point to a const string", i)
			}
			if err := e.checkConstStrArg(regno); err != nil {
				return err
			}
		case kfArgResSpinLock:
			if err := e.processResSpinLockArg(info.name, i, reg); err != nil {
				return err
			}
		case kfArgMap:
			// The argument must point to a struct bpf_map, whatever the
			// parameter's own type (void * for the arena kfuncs).
			bpfMap := btfStructByName(bpfMapStruct)
			if bpfMap == nil {
				return e.unsupported(e.insnIdx, "struct %s not in kernel BTF", bpfMapStruct)
			}
			if err := e.checkKfuncBTFArg(info, meta, i, reg, bpfMap, bpfMapStruct); err != nil {
				return err
			}
		case kfArgAlloc:
			if err := e.checkAllocArg(info, meta, i, reg); err != nil {
				return err
			}
		case kfArgListHead, kfArgListNode, kfArgRBRoot, kfArgRBNode, kfArgRefcounted, kfArgCallback:
			if err := e.checkGraphArg(info, meta, i, reg, kind); err != nil {
				return err
			}
		case kfArgMem:
			size, err := btf.Sizeof(ref)
			if err != nil {
				return e.reject(e.insnIdx, "arg#%d reference type('%s %s') size cannot be determined: %d", i, btfKindStr(ref), refName, errInval)
			}
			if err := e.checkMemReg(regno, size); err != nil {
				return err
			}
		case kfArgMemSize:
			if !reg.IsNull() || !optional {
				if err := e.checkKfuncMemSizeReg(regno + 1); err != nil {
					var re *RejectError
					if !errors.As(err, &re) || re.kind != nil {
						return err
					}
					// The kfunc check fails with the error number of
					// the memory check that failed.
					outer := e.reject(e.insnIdx, "arg#%d arg#%d memory, len pair leads to invalid memory access", i, i+1)
					outer.(*RejectError).errno = re.errnoOrMessage()
					return outer
				}
			}
			if strings.HasSuffix(params[i+1].Name, "__szk") {
				size := &regs[regno+1]
				if meta.constantArg {
					return e.verifierBug("only one constant argument permitted")
				}
				if !size.Var.IsConst() {
					return e.reject(e.insnIdx, "R%d must be a known constant", regno+1)
				}
				if !e.opts.MissingFixes.Has(stablefix.SzkPrecise) {
					// The constant is the size of what the call
					// returns: a state with another must not prune.
					if err := e.markChainPrecision(regno + 1); err != nil {
						return err
					}
				}
				meta.constantArg = true
				meta.constant = size.Var.Value
				e.recordSliceBuffer(info, meta, regno)
			}
			i++
		}
	}
	if meta.flags&kfuncs.Release != 0 && meta.releaseReg == 0 {
		return e.reject(e.insnIdx, "release kernel function %s expects refcounted PTR_TO_BTF_ID", info.name)
	}
	return nil
}

// errInval is -EINVAL as the kernel prints it in a few messages.
const errInval = -22

// kfArgKind is the kernel's kfunc_ptr_arg_type, for the kinds modelled.
type kfArgKind uint8

const (
	kfArgCtx kfArgKind = iota
	kfArgNull
	kfArgBTFID
	kfArgMem
	kfArgMemSize
	kfArgIter
	kfArgDynptr
	kfArgAlloc
	kfArgListHead
	kfArgListNode
	kfArgRBRoot
	kfArgRBNode
	kfArgRefcounted
	kfArgCallback
	kfArgMap
	kfArgWq
	kfArgTaskWork
	kfArgIRQFlag
	kfArgResSpinLock
	kfArgConstStr
)

// specialKfuncArgStructs are argument structs with their own kfunc
// argument kinds (dynptrs, graph roots and nodes, timers...): not modelled.
var specialKfuncArgStructs = map[string]bool{
	"bpf_timer":    true,
	"bpf_refcount": true,
}

// specialKfuncArgSuffixes are parameter-name suffixes with their own
// argument kinds: not modelled.
var specialKfuncArgSuffixes = []string{"__aux", "__uninit"}

// kfuncPtrArgKind is get_kfunc_ptr_arg_type.
func (e *env) kfuncPtrArgKind(info *kfuncInfo, meta *kfuncMeta, i int, reg *states.Reg, ref btf.Type, refName string, nullable bool) (kfArgKind, error) {
	params := info.proto.Params
	p := params[i]
	if isStruct(ref) {
		if ctx := progCtxStruct[e.progType]; ctx != "" && refName == ctx {
			return kfArgCtx, nil
		}
	}
	if isStruct(ref) && refName == skBuffProjection && !e.opts.MissingFixes.Has(stablefix.SkbArgBTFID) {
		// This build takes a __sk_buff that is not the program's
		// context as the sk_buff it projects, whatever the register:
		// trusted, and a BTF pointer of the struct.
		return kfArgBTFID, nil
	}
	if info.name == "bpf_cast_to_kern_ctx" {
		// Its void * argument takes the context of any program type.
		return kfArgCtx, nil
	}
	if nullable && reg.IsNull() {
		return kfArgNull, nil
	}
	if strings.HasSuffix(p.Name, "__alloc") {
		return kfArgAlloc, nil
	}
	if strings.HasSuffix(p.Name, "__refcounted_kptr") {
		return kfArgRefcounted, nil
	}
	if refName == dynptrStructName && isStruct(ref) {
		return kfArgDynptr, nil
	}
	if (meta.flags&iterFlags != 0 && i == iterArgIdx) || (meta.flags&iterFlags == 0 && strings.HasSuffix(p.Name, "__iter")) {
		return kfArgIter, nil
	}
	if k, ok := graphArgKinds[refName]; ok && isStruct(ref) {
		return k, nil
	}
	if strings.HasSuffix(p.Name, "__str") {
		return kfArgConstStr, nil
	}
	if strings.HasSuffix(p.Name, "__map") {
		return kfArgMap, nil
	}
	if refName == fieldNameWq && isStruct(ref) {
		return kfArgWq, nil
	}
	if refName == fieldNameTaskWork && isStruct(ref) {
		return kfArgTaskWork, nil
	}
	if strings.HasSuffix(p.Name, irqFlagArgSuffix) {
		return kfArgIRQFlag, nil
	}
	if refName == fieldNameResSpinLock && isStruct(ref) {
		return kfArgResSpinLock, nil
	}
	for _, s := range specialKfuncArgSuffixes {
		if strings.HasSuffix(p.Name, s) {
			return 0, e.unsupported(e.insnIdx, "kfunc %s argument %s", info.name, p.Name)
		}
	}
	_, callback := ref.(*btf.FuncProto)
	if (callback && info.name != kfuncRBAdd && info.name != kfuncWqSetCallback && !taskWorkKfuncs[info.name]) || specialKfuncArgStructs[refName] || strings.HasPrefix(refName, "bpf_iter_") {
		return 0, e.unsupported(e.insnIdx, "kfunc %s argument %s", info.name, p.Name)
	}
	if reg.Type == states.PtrToBTFID || reg2BTFName(reg.Type) != "" {
		if !isStruct(ref) {
			return 0, e.reject(e.insnIdx, "kernel function %s args#%d pointer type %s %s is not supported", info.name, i, btfKindStr(ref), refName)
		}
		return kfArgBTFID, nil
	}
	if callback {
		return kfArgCallback, nil
	}
	memSize := false
	if i+1 < len(params) {
		next := params[i+1]
		nreg := &e.regs()[i+2]
		if isScalarType(skipModifiers(next.Type)) && nreg.Type == states.ScalarValue &&
			(strings.HasSuffix(next.Name, "__sz") || strings.HasSuffix(next.Name, "__szk")) {
			memSize = true
		}
	}
	if !isScalarType(ref) && !e.isScalarStructLogged(ref) && (!memSize || !isVoid(ref)) {
		voidStr := ""
		if memSize {
			voidStr = "void, "
		}
		return 0, e.reject(e.insnIdx, "arg#%d pointer type %s %s must point to %sscalar, or struct with scalar", i, btfKindStr(ref), refName, voidStr)
	}
	if memSize {
		return kfArgMemSize, nil
	}
	if meta.flags&(kfuncs.Acquire|kfuncs.Release) != 0 && isStruct(ref) && !e.opts.MissingFixes.Has(stablefix.AcqRelStructTrusted) {
		// This build takes a struct an acquiring or releasing kfunc
		// is given as a BTF object, whatever the register: trusted,
		// and a BTF pointer of the struct.
		return kfArgBTFID, nil
	}
	return kfArgMem, nil
}

// maxScalarStructDepth is how deep __btf_type_is_scalar_struct follows
// nested structs.
const maxScalarStructDepth = 3

// isScalarStruct is __btf_type_is_scalar_struct: a struct made only of
// scalars, arrays of scalars and such structs.
func isScalarStruct(t btf.Type, depth int) bool {
	ok, _ := scalarStruct(t, depth)
	return ok
}

// scalarStruct is isScalarStruct; deep reports that it stopped at a struct
// nested deeper than maxScalarStructDepth, which the kernel logs.
func scalarStruct(t btf.Type, depth int) (ok, deep bool) {
	members, _, _ := structMembers(t)
	if !isStruct(t) {
		return false, false
	}
	for _, m := range members {
		mt := skipModifiers(m.Type)
		if isStruct(mt) {
			if depth >= maxScalarStructDepth {
				return false, true
			}
			if ok, deep := scalarStruct(mt, depth+1); !ok {
				return false, deep
			}
			continue
		}
		if a, ok := mt.(*btf.Array); ok {
			if a.Nelems == 0 || !isScalarType(skipModifiers(a.Type)) {
				return false, false
			}
			continue
		}
		if !isScalarType(mt) {
			return false, false
		}
	}
	return true, false
}

// isScalarStructLogged is isScalarStruct as the verifier runs it, logging
// "max struct nesting depth exceeded" where the walk stops for depth.
func (e *env) isScalarStructLogged(t btf.Type) bool {
	ok, deep := scalarStruct(t, 0)
	if deep {
		e.log.printf("max struct nesting depth exceeded\n")
	}
	return ok
}

// reg2BTFName is reg2btf_ids: register kinds that stand for a kernel
// struct.
func reg2BTFName(t states.RegType) string {
	switch t {
	case states.PtrToSocket:
		return "sock"
	case states.PtrToSockCommon:
		return "sock_common"
	case states.PtrToTCPSock:
		return "tcp_sock"
	case states.ConstPtrToMap:
		return "bpf_map"
	}
	return ""
}

// checkFuncArgRegOff is check_func_arg_reg_off for a helper or kfunc
// argument; release is an argument whose reference the call releases.
// The kernel switches on the register's exact type: the kinds listed in
// argOffsetFree may point anywhere into their object, the BTF pointers of
// argFixedOffBTF at a fixed offset, every other type (a dynptr slice a
// kfunc returned, which carries its DYNPTR_TYPE_* flag, included) only at
// the object's start.
func (e *env) checkFuncArgRegOff(reg *states.Reg, regno int, release bool) error {
	if release {
		if reg.Off != 0 {
			return e.reject(e.insnIdx, "R%d must have zero offset when passed to release func or trusted arg to kfunc", regno)
		}
		return e.checkPtrOffReg(reg, regno, false)
	}
	if msg := argRegOffMsg(reg, regno); msg != "" {
		return e.reject(e.insnIdx, "%s", msg)
	}
	return nil
}

// argRegOffMsg is check_func_arg_reg_off's refusal of reg as an argument
// that is not released, "" when it passes.
func argRegOffMsg(reg *states.Reg, regno int) string {
	switch {
	case argOffsetFree(reg):
		return ""
	case reg.Type == states.PtrToBTFID && argFixedOffBTF(reg.Flags):
		return ptrOffRegMsg(reg, regno, true)
	}
	return ptrOffRegMsg(reg, regno, false)
}

// argOffsetFree lists the exact register types check_func_arg_reg_off
// lets carry any fixed and variable offset.
func argOffsetFree(reg *states.Reg) bool {
	switch reg.Type {
	case states.ScalarValue:
		return true
	case states.PtrToStack, states.PtrToPacket, states.PtrToPacketMeta, states.PtrToMapKey,
		states.PtrToMapValue, states.PtrToArena:
		return reg.Flags == 0
	case states.PtrToBuf:
		return reg.Flags == 0 || reg.Flags == states.MemRdonly
	case states.PtrToMem:
		plain := reg.Flags == 0 || reg.Flags == states.MemRdonly || reg.Flags == states.MemRingbuf
		return plain && reg.Aux&dynptrSliceKfunc == 0
	}
	return false
}

// argFixedOffBTF lists the flags of the BTF pointers check_func_arg_reg_off
// lets carry a fixed offset, by exact type as its switch does.
func argFixedOffBTF(flags states.RegFlags) bool {
	switch flags {
	case 0, states.MemAlloc, states.PtrTrusted, states.MemRCU,
		states.MemAlloc | states.NonOwnRef, states.MemAlloc | states.NonOwnRef | states.MemRCU:
		return true
	}
	return false
}

// checkKfuncBTFArg checks a BTF pointer argument's type against the
// parameter (the KF_ARG_PTR_TO_BTF_ID case and
// process_kf_arg_ptr_to_btf_id).
func (e *env) checkKfuncBTFArg(info *kfuncInfo, meta *kfuncMeta, i int, reg *states.Reg, ref btf.Type, refName string) error {
	regno := i + 1
	unsafe := reg.Flags&^trustedModifiers != 0
	if (reg.Type != states.PtrToBTFID || (unsafe && reg.Flags&states.MemRCU == 0)) && reg2BTFName(reg.Type) == "" {
		want := string(states.AppendType(nil, reg.Type, reg.Flags&trustedModifiers))
		return e.reject(e.insnIdx, "arg#%d is %s expected %s or socket", i, regTypeStr(reg), want)
	}
	var regType btf.Type
	if reg.Type == states.PtrToBTFID {
		regType = e.btfTypeOf(reg.Aux)
	} else {
		regType = btfStructByName(reg2BTFName(reg.Type))
	}
	if regType == nil {
		return e.unsupported(e.insnIdx, "kfunc %s argument type not in kernel BTF", info.name)
	}
	regType = skipModifiers(regType)
	strict := (meta.flags&kfuncs.Release != 0 && reg.RefObjID != 0) || nocastAlias(regType.TypeName(), refName)
	same, reason, err := btfStructIDsMatch(regType, int(reg.Off), ref, strict)
	e.logWalkReason(reason)
	if err != nil {
		return e.unsupported(e.insnIdx, "kfunc %s argument at off %d into struct %s: %v", info.name, reg.Off, regType.TypeName(), err)
	}
	// The kernel struct behind a UAPI context struct stands for it only
	// as itself: at an offset into it, 6.18.44 walks it for the
	// projection like any other struct, and finds none.
	if !same && !(isProjectionOf(refName, regType.TypeName()) && reg.Off == 0) {
		return e.reject(e.insnIdx, "kernel function %s args#%d expected pointer to %s %s but R%d has a pointer to %s %s",
			info.name, i, btfKindStr(ref), refName, regno, btfKindStr(regType), regType.TypeName())
	}
	return nil
}

// btfStructIDsMatch is btf_struct_ids_match: a pointer to have at offset
// off is a pointer to want when it is want itself at offset 0 or, unless
// strict, when the struct found at off (btfNestedStruct), or recursively
// the one starting that struct, is want. reason is the line the failed
// walk logs, which the kernel's log holds before the caller's message.
// An error says the walk met a shape vercheck does not model.
func btfStructIDsMatch(have btf.Type, off int, want btf.Type, strict bool) (same bool, reason string, err error) {
	if off == 0 && have == want {
		return true, "", nil
	}
	if strict {
		return false, "", nil
	}
	for depth := 0; depth < maxStructWalkDepth; depth++ {
		next, ok, reason, err := btfNestedStruct(have, off)
		if err != nil || !ok {
			return false, reason, err
		}
		if next == want {
			return true, "", nil
		}
		have, off = next, 0
	}
	return false, "", nil
}

// logWalkReason logs the reason btfStructIDsMatch gave, if any.
func (e *env) logWalkReason(reason string) {
	if reason != "" {
		e.log.printf("%s\n", reason)
	}
}

// nocastAlias is btf_type_ids_nocast_alias: "x___flavor" and "x" name the
// same object and must match exactly.
func nocastAlias(a, b string) bool {
	base := func(s string) string {
		if i := strings.Index(s, "___"); i > 0 {
			return s[:i]
		}
		return s
	}
	return a != b && base(a) == base(b)
}

// skBuffProjection is the UAPI struct that projects struct sk_buff.
const skBuffProjection = "__sk_buff"

// isProjectionOf is btf_is_projection_of: a kfunc taking a UAPI context
// struct may be given the kernel struct behind it.
func isProjectionOf(pname, tname string) bool {
	return (pname == "__sk_buff" && tname == "sk_buff") || (pname == "xdp_md" && tname == "xdp_buff")
}

// btfStructByName finds a vmlinux struct by name.
func btfStructByName(name string) btf.Type {
	if s, ok := vmlinuxType[*btf.Struct](name); ok {
		return s
	}
	return nil
}

// checkKfuncMemSizeReg is check_kfunc_mem_size_reg: the size in regno
// bounds the memory at regno-1, which must be readable and writable.
func (e *env) checkKfuncMemSizeReg(regno int) error {
	if err := e.checkPktMemArg(regno - 1); err != nil {
		return err
	}
	regs := e.regs()
	mem := &regs[regno-1]
	wasNull := mem.MaybeNull()
	mem.Flags &^= states.MaybeNull
	defer func() {
		if wasNull {
			e.regs()[regno-1].Flags |= states.MaybeNull
		}
	}()
	for _, t := range []access{accRead, accWrite} {
		reg := &regs[regno]
		if reg.SMin < 0 {
			return e.reject(e.insnIdx, "R%d min value is negative, either use unsigned or 'var &= const'", regno)
		}
		if reg.UMax >= maxVarSize {
			return e.reject(e.insnIdx, "R%d unbounded memory access, use 'var &= const' or 'if (var < const)'", regno)
		}
		meta := &callMeta{}
		if !reg.Var.IsConst() {
			meta = nil
		}
		if err := e.checkHelperMemAccess(regno-1, int(reg.UMax), t, true, meta); err != nil {
			return err
		}
		if err := e.markChainPrecision(regno); err != nil {
			return err
		}
	}
	return nil
}

// setKfuncReturn sets r0 from the kfunc's return type (the tail of
// check_kfunc_call).
func (e *env) setKfuncReturn(info *kfuncInfo, meta *kfuncMeta) error {
	r0 := &e.regs()[0]
	t := skipModifiers(info.proto.Return)
	ptr, isPtr := t.(*btf.Pointer)
	if isPtr {
		done, err := e.setSpecialKfuncReturn(info, meta)
		if err != nil {
			return err
		}
		if done {
			e.markKfuncReturnRef(meta)
			if meta.flags&kfuncs.Acquire == 0 && returnsGraphNode(info) {
				e.setNonOwning(r0)
			}
			return nil
		}
	}
	if meta.flags&kfuncs.Acquire != 0 && (!isPtr || !isStruct(skipModifiers(ptr.Target))) {
		return e.reject(e.insnIdx, "acquire kernel function does not return PTR_TO_BTF_ID")
	}
	switch {
	case isScalarType(t) && resLockAcquires(info.name):
		// The path where the lock was taken: the call returned 0.
		r0.MarkConst(0)
		return nil
	case isScalarType(t):
		e.markUnknown(r0)
		return nil
	case isVoid(t):
		return nil
	case !isPtr:
		return e.unsupported(e.insnIdx, "kfunc %s return type %s", info.name, btfKindStr(t))
	}
	target := skipModifiers(ptr.Target)
	switch {
	case isVoid(target):
		e.markUnknown(r0)
		return nil
	case !isStruct(target):
		size, err := btf.Sizeof(target)
		if err != nil || size == 0 {
			return e.reject(e.insnIdx, "kernel function %s returns pointer type %s %s is not supported", info.name, btfKindStr(target), target.TypeName())
		}
		flags := states.MemRdonly
		if info.name == kfuncSessionCookie {
			// The session's cookie is the program's to write
			// (check_kfunc_call clears r0_rdonly for it).
			flags = 0
		}
		r0.MarkPtr(states.PtrToMem, flags)
		r0.Range = int32(size)
		r0.RefObjID = meta.refObjID
	default:
		id := btfTypeID(target)
		if id == 0 {
			return e.unsupported(e.insnIdx, "kfunc %s return type not in kernel BTF", info.name)
		}
		var flags states.RegFlags
		switch {
		case info.name == "bpf_get_kmem_cache":
			flags = states.PtrUntrusted
		case meta.flags&kfuncs.RCUProtected != 0:
			flags = states.MemRCU
		}
		if meta.flags&kfuncs.IterNext != 0 {
			// The element of an RCU-protected iterator is an RCU
			// pointer; any other iterator's is trusted, or untrusted
			// where the build says so (stablefix.IterNextUntrusted).
			it := iterSlotOf(e.cur, meta.iter)
			if it == nil {
				return e.internal(e.insnIdx, "iterator next call without an iterator")
			}
			switch {
			case it.Spilled.Flags&states.MemRCU != 0:
				flags |= states.MemRCU
			case e.opts.MissingFixes.Has(stablefix.IterNextUntrusted):
				flags |= states.PtrTrusted
			default:
				flags |= states.PtrUntrusted
			}
		}
		r0.MarkPtr(states.PtrToBTFID, flags)
		r0.Aux = id
	}
	e.markKfuncReturnRef(meta)
	return nil
}

// markKfuncReturnRef is the tail of check_kfunc_call for a pointer
// result: a KF_RET_NULL result may be NULL, a KF_ACQUIRE one holds a new
// reference (whose id, for a maybe-NULL result, is also the register's),
// and a result that may point to a spin lock has an id of its own, so
// that two results are two locks (bpf_refcount_acquire of an owned
// object, never NULL, twice).
func (e *env) markKfuncReturnRef(meta *kfuncMeta) {
	r0 := &e.regs()[0]
	retNull := meta.retNull()
	if retNull {
		r0.Flags |= states.MaybeNull
		r0.ID = e.newID()
	}
	if meta.flags&kfuncs.Acquire != 0 {
		rid := e.newID()
		e.cur.Refs = append(e.cur.Refs, states.Ref{ID: rid, InsnIdx: int32(e.insnIdx)})
		if retNull {
			r0.ID = rid
		}
		r0.RefObjID = rid
	}
	if r0.ID == 0 && e.mayPointToSpinLock(r0) {
		r0.ID = e.newID()
	}
}

// kfuncCallName names the kernel function a kfunc call targets, for the
// log's disassembly ("call bpf_ct_release#63803"); "" when unknown.
func kfuncCallName(in insn.Insn) string {
	if !in.IsKfuncCall() {
		return ""
	}
	info, err := kfuncCallee(in)
	if err != nil {
		return ""
	}
	return info.name
}

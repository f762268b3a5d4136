package verifier

// BTF-typed contexts (the kernel's btf_ctx_access, tracing_prog_is_valid_access
// and the attach-target resolution of bpf_check_attach_target).
//
// The context of a tracing (tp_btf, fentry, fexit, fmod_ret, iter), LSM or
// struct_ops program is an array of u64 slots holding its attach target's
// arguments; fexit, fmod_ret and LSM programs also see the return value in
// the slot after them. The prototype comes from vmlinux BTF:
//   - tp_btf: the "btf_trace_<name>" typedef, whose first, hidden
//     "void *__data" argument is skipped;
//   - fentry/fexit/fmod_ret: the kernel function itself;
//   - lsm: the hook's "bpf_lsm_<hook>" stub (lsm.go);
//   - iter: the "bpf_iter_<target>" function, refined by the target's
//     ctx_arg_info table (iterprog.go);
//   - struct_ops: the function-pointer member of the struct_ops type
//     (structops.go).
//
// A slot holding an integer, enum or struct is read as an unknown scalar; one
// holding a pointer to a struct becomes a PTR_TO_BTF_ID of that struct,
// trusted where the kernel's prog_args_trusted says so (tp_btf, iter, struct_ops
// and most LSM hooks) and plain for the trampolines.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/states"
)

// maxBPFFuncArgSlots is MAX_BPF_FUNC_ARGS: the context holds at most this
// many u64 slots.
const maxBPFFuncArgSlots = 12

// btfTracePrefix names the typedefs vmlinux declares for each raw
// tracepoint's prototype.
const btfTracePrefix = "btf_trace_"

// nullableSuffix marks a parameter the kernel treats as maybe NULL.
const nullableSuffix = "__nullable"

// ctxArgInfo is one entry of a target's ctx_arg_info table: the slot at off
// holds a pointer whose register type the table fixes instead of the BTF
// prototype.
type ctxArgInfo struct {
	off   int
	flags states.RegFlags
	// buffer marks a PTR_TO_BUF slot (map keys and values of the map
	// iterators): the attach step checks the program's largest access
	// against the map, so the verifier only tracks the pointer (loads
	// through it are not modelled).
	buffer bool
}

// tracingCtx is the resolved attach target of a program with a BTF context.
type tracingCtx struct {
	// name is the target as the kernel names it in messages.
	name string
	// params are the visible arguments; ret is the return type.
	params []btf.FuncParam
	// all are every argument of the prototype (slot numbering counts
	// the hidden tp_btf argument too).
	all      []btf.FuncParam
	ret      btf.Type
	progType ebpf.ProgramType
	attach   ebpf.AttachType
	// trusted is prog_args_trusted: pointer arguments are PTR_TRUSTED.
	trusted bool
	// strict is tracing_prog_is_valid_access (tracing and tcp congestion
	// control programs): accesses are reads inside the twelve slots,
	// aligned to their size, before btf_ctx_access decides. LSM programs
	// go to btf_ctx_access directly.
	strict bool
	// argInfo is the target's ctx_arg_info (iterators).
	argInfo []ctxArgInfo
	// retval is the range an LSM hook's return value lies in (is_retval
	// loads and the exit check); ok is false for void hooks.
	retval retvalRange
	// sleepableHook: the LSM hook may run sleepable programs (and its
	// programs may call bpf_d_path).
	sleepableHook bool
	// opsMember is the struct_ops member ("tcp_congestion_ops:release").
	opsMember string
	// promote, when set, retypes a trusted pointer argument's struct (by
	// BTF id), as an ops type's is_valid_access callback does.
	promote func(id uint32) uint32
}

// tracingCtxCache memoises attach targets by program type, attach type and
// name.
var tracingCtxCache sync.Map // map[string]*tracingCtx

// tracingContext resolves the attach target of a tracing program.
func tracingContext(at ebpf.AttachType, target string) (*tracingCtx, error) {
	return btfContext(ebpf.Tracing, at, target)
}

// btfContext resolves the attach target of a program with a BTF context, or
// says why vercheck cannot.
func btfContext(pt ebpf.ProgramType, at ebpf.AttachType, target string) (*tracingCtx, error) {
	key := fmt.Sprintf("%d/%d/%s", pt, at, target)
	if v, ok := tracingCtxCache.Load(key); ok {
		return v.(*tracingCtx), nil
	}
	if target == "" {
		return nil, noAttachTarget(pt)
	}
	spec, err := vmlinux()
	if err != nil {
		return nil, err
	}
	var tc *tracingCtx
	switch {
	case pt == ebpf.LSM:
		tc, err = lsmContext(spec, at, target)
	case pt == ebpf.StructOps:
		tc, err = structOpsContext(spec, target)
	case pt == ebpf.Tracing && at == ebpf.AttachTraceIter:
		tc, err = iterContext(spec, target)
	case pt == ebpf.Tracing:
		tc, err = trampolineContext(spec, at, target)
	default:
		err = fmt.Errorf("program type %s", pt)
	}
	if err != nil {
		return nil, err
	}
	tc.progType, tc.attach = pt, at
	tracingCtxCache.Store(key, tc)
	return tc, nil
}

// funcProto returns the prototype of the vmlinux function name.
func funcProto(spec *btf.Spec, name string) (*btf.FuncProto, error) {
	var fn *btf.Func
	if err := spec.TypeByName(name, &fn); err != nil {
		return nil, fmt.Errorf("function %q: %w", name, err)
	}
	proto, ok := fn.Type.(*btf.FuncProto)
	if !ok {
		return nil, fmt.Errorf("function %q has no prototype", name)
	}
	return proto, nil
}

// trampolineContext resolves tp_btf, fentry, fexit and fmod_ret targets.
func trampolineContext(spec *btf.Spec, at ebpf.AttachType, target string) (*tracingCtx, error) {
	tc := &tracingCtx{name: target, strict: true}
	var proto *btf.FuncProto
	switch at {
	case ebpf.AttachTraceRawTp:
		var td *btf.Typedef
		if err := spec.TypeByName(btfTracePrefix+target, &td); err != nil {
			return nil, missingTarget(err, "raw tracepoint", btfTracePrefix+target, noKernelBTFID, func(m *btf.Spec) error {
				var inModule *btf.Typedef
				return m.TypeByName(btfTracePrefix+target, &inModule)
			})
		}
		p, ok := skipModifiers(td.Type).(*btf.Pointer)
		if !ok {
			return nil, fmt.Errorf("tracepoint %q: typedef is not a function pointer", target)
		}
		if proto, ok = skipModifiers(p.Target).(*btf.FuncProto); !ok || len(proto.Params) == 0 {
			return nil, fmt.Errorf("tracepoint %q: typedef is not a function pointer", target)
		}
		tc.params = proto.Params[1:]
		tc.trusted = true
	case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn:
		var err error
		if proto, err = attachFuncProto(spec, target); err != nil {
			return nil, err
		}
		tc.params = proto.Params
	default:
		return nil, fmt.Errorf("attach type %s", at)
	}
	tc.all, tc.ret = proto.Params, proto.Return
	return tc, nil
}

// noAttachTarget is the loader's refusal of a program of type pt that
// names no attach target (a bare SEC("fentry"), SEC("lsm"), SEC("iter"),
// a struct_ops program no struct_ops map references): libbpf needs the
// target's BTF id for the load and fails it with EINVAL, so the kernel
// never sees the program.
func noAttachTarget(pt ebpf.ProgramType) error {
	msg := "no BTF-based attach target is specified, use bpf_program__set_attach_target()"
	if pt == ebpf.StructOps {
		msg = `SEC("struct_ops") program isn't referenced anywhere, did you forget to use it?`
	}
	return &attachRefusedError{
		msg:   fmt.Sprintf("the program names no attach target: the loader refuses it and never loads it (libbpf: %s)", msg),
		errno: syscall.EINVAL,
	}
}

// attachFuncProto is funcProto for a trampoline's target, one no BTF has
// being the loader's refusal (missingTarget).
func attachFuncProto(spec *btf.Spec, target string) (*btf.FuncProto, error) {
	return attachFunc(spec, "function", target)
}

// attachFunc is funcProto for the function name an attach target of kind
// (an LSM hook's stub, an iterator's bpf_iter_ function) resolves to, one
// no BTF has being the loader's refusal (missingTarget).
func attachFunc(spec *btf.Spec, kind, name string) (*btf.FuncProto, error) {
	proto, err := funcProto(spec, name)
	if err != nil {
		return nil, missingTarget(err, kind, name, noKernelBTFID, func(m *btf.Spec) error {
			_, err := funcProto(m, name)
			return err
		})
	}
	return proto, nil
}

// noKernelBTFID is libbpf's message for a trampoline target it cannot find
// (libbpf_find_attach_btf_id).
const noKernelBTFID = "failed to find kernel BTF type ID"

// missingTarget is err, the failure to find an attach target (a
// trampoline's function or tracepoint, a struct_ops type) in the kernel's
// BTF; when no module's BTF has it either (lookup fails in each), the
// loader cannot resolve the target (libbpf's find_ksym_btf_id fails with
// ESRCH and the loader says loaderMsg) and never submits the program: a
// rejection, not a gap in vercheck. A target a module has is left to err,
// and so is any target when the modules of the kernel checked against are
// not all known (another kernel's BTF without its modules).
func missingTarget(err error, kind, name, loaderMsg string, lookup func(*btf.Spec) error) error {
	if !errors.Is(err, btf.ErrNotFound) || !loader.ModuleBTFsComplete() {
		return err
	}
	mods, merr := loader.ModuleBTFs()
	if merr != nil {
		return err
	}
	for _, m := range mods {
		if lookup(m.Spec) == nil {
			return fmt.Errorf("%w (in module %s, whose attach targets vercheck does not resolve)", err, m.Name)
		}
	}
	return &attachRefusedError{
		msg:   fmt.Sprintf("attach target %s %q is in neither the kernel's BTF nor a module's: the loader cannot resolve it (%s) and the program is never loaded", kind, name, loaderMsg),
		errno: syscall.ESRCH,
	}
}

// slotSize is how many context bytes a value of type t takes: a pointer
// one slot, anything else its size rounded up to slots.
func slotSize(t btf.Type) int {
	t = skipModifiers(t)
	if _, ok := t.(*btf.Pointer); ok {
		return ptrSize
	}
	n, err := btf.Sizeof(t)
	if err != nil {
		return ptrSize
	}
	return (n + ptrSize - 1) / ptrSize * ptrSize
}

// argIndex is get_ctx_arg_idx: which argument (len(all) for the return
// value) the byte at off belongs to.
func (tc *tracingCtx) argIndex(off int) int {
	end := 0
	for i, p := range tc.all {
		end += slotSize(p.Type)
		if off < end {
			return i
		}
	}
	end += slotSize(tc.ret)
	if off < end {
		return len(tc.all)
	}
	return len(tc.all) + 1
}

// ctxArg is what one context slot holds.
type ctxArg struct {
	ptr   bool
	id    uint32
	flags states.RegFlags
	// retval marks the return-value slot of an LSM hook with a range.
	retval bool
	// buffer marks a PTR_TO_BUF slot.
	buffer bool
	// errArg marks a pointer argument read as a number because it may
	// encode an error (raw_tp_null_args); id is then its struct's.
	errArg bool
	// why is, for a refused access, the line btf_ctx_access logs before
	// the verifier's "invalid bpf_context access" ("" where it logs
	// none).
	why string
}

// retSlotType is the type of the slot after the arguments, or false when
// the program may not read it (btf_ctx_access's arg == nr_args case).
func (tc *tracingCtx) retSlotType() (btf.Type, bool) {
	switch {
	case tc.progType == ebpf.LSM:
		// Both attach types read the hook's return value; void hooks
		// fail below since void is neither a scalar nor a pointer.
		return tc.ret, true
	case tc.attach == ebpf.AttachTraceFExit:
		return tc.ret, true
	case tc.attach == ebpf.AttachModifyReturn:
		if _, ok := skipModifiers(tc.ret).(*btf.Int); !ok {
			return nil, false
		}
		return tc.ret, true
	}
	return nil, false
}

// access is btf_ctx_access: whether a read of size bytes at off is allowed
// and what it yields.
func (tc *tracingCtx) access(off, size int, extraNullArgs uint64) (ctxArg, bool) {
	if off%ptrSize != 0 {
		return ctxArg{why: fmt.Sprintf("func '%s' offset %d is not multiple of 8", tc.name, off)}, false
	}
	// For tp_btf the slot numbering counts the hidden first argument
	// and the index is then used on the visible ones, as the kernel
	// does: slot 0 is the first visible argument.
	arg := tc.argIndex(off)
	params := tc.params
	nr := len(params)
	noArg := ctxArg{why: fmt.Sprintf("func '%s' doesn't have %d-th argument", tc.name, arg+1)}
	if arg > nr {
		return noArg, false
	}
	var t btf.Type
	var name string
	retSlot := arg == nr
	if retSlot {
		var ok bool
		if t, ok = tc.retSlotType(); !ok {
			if tc.attach == ebpf.AttachModifyReturn {
				return ctxArg{why: fmt.Sprintf("ret type %s not allowed for fmod_ret", btfKindStr(skipModifiers(tc.ret)))}, false
			}
			return noArg, false
		}
	} else {
		t, name = params[arg].Type, params[arg].Name
	}
	t = skipModifiers(t)
	switch t.(type) {
	case *btf.Int, *btf.Enum, *btf.Struct, *btf.Union:
		isRetval := retSlot && tc.attach == ebpf.AttachLSMMac && tc.retval.ok
		return ctxArg{retval: isRetval}, true
	}
	p, ok := t.(*btf.Pointer)
	if !ok {
		return ctxArg{}, false
	}
	if size != ptrSize {
		return ctxArg{why: fmt.Sprintf("func '%s' size %d must be 8", tc.name, size)}, false
	}
	for _, ai := range tc.argInfo {
		if ai.off == off && ai.buffer {
			return ctxArg{ptr: true, buffer: true, flags: ai.flags}, true
		}
	}
	target := p.Target
	switch skipModifiers(target).(type) {
	case *btf.Void, *btf.Int, nil:
		// void * and int * are plain numbers to the program.
		return ctxArg{}, true
	}
	for _, ai := range tc.argInfo {
		if ai.off != off {
			continue
		}
		id := btfTypeID(skipModifiers(target))
		if id == 0 {
			return ctxArg{}, false
		}
		return ctxArg{ptr: true, id: id, flags: ai.flags}, true
	}
	var flags states.RegFlags
	if tc.trusted {
		flags |= states.PtrTrusted
	}
	if strings.HasSuffix(name, nullableSuffix) {
		flags |= states.MaybeNull
	}
	if tc.attach == ebpf.AttachTraceRawTp && arg < 16 {
		nibble := (rawTPNullArgs[tc.name] | extraNullArgs) >> (4 * uint(arg))
		if nibble&rawTPMaybeNull != 0 {
			flags |= states.MaybeNull
		}
		if nibble&rawTPMaybeErr != 0 {
			// An argument that may encode an error is a plain number,
			// after btf_ctx_access has resolved (and logged) its type.
			return ctxArg{errArg: true, id: btfTypeID(skipModifiers(target))}, true
		}
	}
	if tag, ok := target.(*btf.TypeTag); ok {
		switch tag.Value {
		case "user":
			flags |= states.MemUser
		case "percpu":
			flags |= states.MemPercpu
		}
	}
	target = skipModifiers(target)
	if !isStruct(target) {
		return ctxArg{}, false
	}
	id := btfTypeID(target)
	if id == 0 {
		return ctxArg{}, false
	}
	return ctxArg{ptr: true, id: id, flags: flags}, true
}

// attachTo is the program's attach target as its loader names it
// ("" without one).
func (e *env) attachTo() string {
	if e.lp == nil {
		return ""
	}
	return e.lp.AttachTo
}

// attachTarget resolves the current program's BTF attach target.
func (e *env) attachTarget() (*tracingCtx, error) {
	return btfContext(e.progType, e.attach, e.attachTo())
}

// hasBTFContext reports the program types whose context is their attach
// target's argument list.
func hasBTFContext(pt ebpf.ProgramType) bool {
	return pt == ebpf.Tracing || pt == ebpf.LSM || pt == ebpf.StructOps
}

// tracingCtxLayout builds the context checker of a program with a BTF
// context from its attach target; a nil checker with a nil error means the
// program type has no BTF context.
func (e *env) tracingCtxLayout() (ctxaccess.Func, int, error) {
	if !hasBTFContext(e.progType) {
		return nil, 0, nil
	}
	if e.progType == ebpf.Tracing {
		switch e.attach {
		case ebpf.AttachTraceRawTp, ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn, ebpf.AttachTraceIter:
		default:
			return nil, 0, e.otherTracingAttach()
		}
	}
	if err := e.checkAttachRules(); err != nil {
		return nil, 0, err
	}
	tc, err := e.attachTarget()
	if err != nil {
		return nil, 0, e.attachTargetError(err)
	}
	if err := e.checkTargetRules(tc); err != nil {
		return nil, 0, err
	}
	check := func(off, size int, write bool, _ ebpf.AttachType) (ctxaccess.Access, bool) {
		if tc.strict {
			if off < 0 || off >= maxBPFFuncArgSlots*sizeU64 || write || size <= 0 || off%size != 0 {
				return ctxaccess.Access{}, false
			}
		} else if off < 0 || write || size <= 0 {
			// btf_ctx_access alone does not check these: what the
			// kernel then does was not checked against a kernel.
			return ctxaccess.Access{Kind: ctxaccess.Unmodelled}, true
		}
		a, ok := tc.access(off, size, e.buildRawTPNullArgs(tc.name))
		if !ok {
			if a.why != "" {
				e.log.printf("%s\n", a.why)
			}
			return ctxaccess.Access{}, false
		}
		if a.ptr || a.retval {
			// loadTracingArg decides what the load yields.
			return ctxaccess.Access{Kind: ctxaccess.BTFID, MaybeNull: a.flags&states.MaybeNull != 0}, true
		}
		if a.errArg {
			// The kernel's line has no newline: the next one follows
			// on it.
			e.logCtxArgType(tc, off, a.id)
			e.log.printf("marking pointer arg%d as scalar as it may encode error", off/ptrSize)
		}
		return ctxaccess.ScalarAccess, true
	}
	return check, maxBPFFuncArgSlots * sizeU64, nil
}

// attachTargetError is the verdict on a failure to resolve the program's
// attach target: the loader's or the kernel's refusal where it is one
// (attachRefusedError), a gap in vercheck otherwise.
func (e *env) attachTargetError(err error) error {
	var refused *attachRefusedError
	if errors.As(err, &refused) {
		re := e.reject(0, "%s", refused.msg).(*RejectError)
		re.errno = refused.errno
		return re
	}
	return e.unsupported(0, "attach target of %s/%s: %v", e.progType, e.attach, err)
}

// otherTracingAttach is bpf_check_attach_target for a tracing program whose
// expected attach type is none of the trampoline, raw tracepoint and
// iterator types 6.18 knows: those libbpf 1.8 gives fsession and the
// fentry/fexit/fsession.multi sections (BPF_TRACE_FSESSION and later, which
// 6.18 has not), or one a loader set by hand. Without an attach BTF id
// (the multi sections resolve none) the kernel says so; with one it fails
// the switch's default case, EINVAL without a message. The loader resolves
// a named target before that, and a target no BTF has never reaches the
// kernel.
func (e *env) otherTracingAttach() error {
	target := e.attachTo()
	if target == "" {
		re := e.reject(0, "Tracing programs must provide btf_id").(*RejectError)
		re.errno = syscall.EINVAL
		return re
	}
	spec, err := vmlinux()
	if err == nil {
		_, err = attachFuncProto(spec, target)
	}
	if err != nil {
		return e.attachTargetError(err)
	}
	re := e.reject(0, "").(*RejectError)
	re.errno = syscall.EINVAL
	re.hint = fmt.Sprintf("the 6.18 kernel has no tracing attach type %s: bpf_check_attach_target refuses it with EINVAL and logs nothing (a newer kernel may load it)", attachTypeString(e.attach))
	return re
}

// checkAttachRules checks what the kernel checks of a program's license
// and type before it resolves the attach target.
func (e *env) checkAttachRules() error {
	gpl := e.lp == nil || e.lp.GPLCompatible
	switch e.progType {
	case ebpf.LSM:
		if !gpl {
			return e.reject(0, "LSM programs must have a GPL compatible license")
		}
	case ebpf.StructOps:
		if !gpl {
			return e.reject(0, "struct ops programs must have a GPL compatible license")
		}
	}
	return nil
}

// checkTargetRules checks the resolved target against the program type's
// own rules (LSM hooks the kernel disables, targets a sleepable program may
// not attach to).
func (e *env) checkTargetRules(tc *tracingCtx) error {
	if err := e.checkTrampolineProto(tc); err != nil {
		return err
	}
	if err := e.checkSleepableTarget(tc); err != nil {
		return err
	}
	if err := e.checkTrampolineTarget(tc); err != nil {
		return err
	}
	if e.progType == ebpf.LSM {
		return e.checkLSMHook(tc)
	}
	return nil
}

// logCtxArgType is the line btf_ctx_access logs when a load of a hook's
// argument yields a pointer to a BTF struct; arguments an iterator's
// ctx_arg_info types return before it.
func (e *env) logCtxArgType(tc *tracingCtx, off int, id uint32) {
	t := btfTypeByID(id)
	if t == nil || slices.ContainsFunc(tc.argInfo, func(ai ctxArgInfo) bool { return ai.off == off }) {
		// btf_ctx_access returns early for an argument the target's
		// ctx_arg_info describes (an iterator's object), before its log.
		return
	}
	if arg := off / ptrSize; tc.opsMember != "" && arg < len(tc.params) && strings.HasSuffix(tc.params[arg].Name, nullableSuffix) {
		// A struct_ops argument its CFI stub marks __nullable is in the
		// program's ctx_arg_info too (prepare_arg_info).
		return
	}
	kind := "STRUCT"
	if _, ok := t.(*btf.Union); ok {
		kind = "UNION"
	}
	e.log.printf("func '%s' arg%d has btf_id %d type %s '%s'\n", tc.name, off/ptrSize, id, kind, t.TypeName())
}

// loadTracingArg sets dst from a load of size bytes (sign-extended when
// signExt) of the BTF-typed slot at context offset off, after the context
// checker allowed it.
func (e *env) loadTracingArg(dst *states.Reg, off, size int, signExt bool) error {
	tc, err := e.attachTarget()
	if err != nil {
		return e.unsupported(e.insnIdx, "attach target of %s/%s: %v", e.progType, e.attach, err)
	}
	a, ok := tc.access(off, ptrSize, e.buildRawTPNullArgs(tc.name))
	if ok && a.retval {
		// The hook's return value: an unknown 32-bit number inside the
		// hook's range (stale bounds of dst are dropped first).
		e.markUnknown(dst)
		e.markS32Range(dst, int32(tc.retval.min), int32(tc.retval.max))
		if size < sizeU64 {
			if signExt {
				dst.Scalar = e.signExtend(dst.Scalar, size, true)
			} else {
				dst.Scalar = states.Truncate(dst.Scalar, size)
			}
		}
		return nil
	}
	if !ok || !a.ptr {
		return e.unsupported(e.insnIdx, "context field at off %d yielding a BTF-typed pointer", off)
	}
	if a.buffer {
		dst.MarkPtr(states.PtrToBuf, a.flags)
	} else {
		e.logCtxArgType(tc, off, a.id)
		dst.MarkPtr(states.PtrToBTFID, a.flags)
		dst.Aux = a.id
		if tc.promote != nil && a.flags&states.MaybeNull == 0 {
			dst.Aux = tc.promote(a.id)
		}
	}
	if a.flags&states.MaybeNull != 0 {
		dst.ID = e.newID()
	}
	return nil
}

// checkHelperTarget applies the conditions a helper puts on the program's
// attach target that the helper gates (checkHelperGate) do not cover: the
// tcp_congestion_ops member that may not call bpf_setsockopt or
// bpf_getsockopt. It runs after the program type's helper set and the GPL
// check, as check_helper_call does.
func (e *env) checkHelperTarget(id int32, name string) error {
	switch asm.BuiltinFunc(id) {
	case asm.FnSetsockopt, asm.FnGetsockopt:
		if e.progType == ebpf.StructOps && structOpsNoSockopt(e.attachTo()) {
			return e.reject(e.insnIdx, "program of this type cannot use helper %s#%d", name, id)
		}
	}
	return nil
}

// lsmSleepableHook reports whether an LSM program's hook may run sleepable
// programs (what bpf_d_path and the IMA helpers require of LSM programs).
func (e *env) lsmSleepableHook() bool {
	if e.progType != ebpf.LSM {
		return false
	}
	tc, err := e.attachTarget()
	return err == nil && e.lsmHookMaySleep(tc)
}

package verifier

// Global (BTF_FUNC_GLOBAL) subprograms.
//
// The kernel verifies a global function on its own, from a state built
// from its BTF prototype, and at a call site only checks the caller's
// registers against that prototype: the callee's body is not walked again
// for the caller, and the call returns an unknown scalar in r0.
//
// The order is lazy (Linux 6.8+): the main program is verified first; a
// global function whose call was simulated is marked "called"; then every
// called, not yet verified global function is verified, in subprogram
// order, repeating the sweep until a sweep verifies nothing new (a global
// function may call further ones). Global functions reached only from dead
// code are never verified. insn_processed, the state counters and the
// stack depths add up over all passes; the explored states are released
// between passes (free_states), but the store's explored-state counters
// are not reset, as in the kernel.
//
// Argument kinds come from the prototype (btf_prepare_func_args): a pointer
// to the program type's context struct (or tagged arg:ctx) is PTR_TO_CTX,
// an int or enum is an unknown scalar, a pointer to a sized type is
// PTR_TO_MEM of that size, nullable unless tagged arg:nonnull, a pointer
// tagged arg:arena an arena pointer or a number (a number to the callee),
// a pointer tagged arg:trusted (maybe with arg:nullable) a trusted BTF
// pointer to the vmlinux struct of the same name, a pointer tagged
// arg:untrusted an untrusted BTF pointer to that struct or, to void or a
// primitive type, read-only untrusted memory of size 0 (the caller may
// pass anything there: the callee's loads are probe reads). Other shapes
// are rejected with the kernel's message.

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
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

// Limits of the kernel's BTF handling of global functions.
const (
	// maxFuncRegArgs is MAX_BPF_FUNC_REG_ARGS: arguments travel in r1-r5.
	maxFuncRegArgs = 5
	// maxResolveDepth is MAX_RESOLVE_DEPTH: how many modifier, typedef
	// and array links btf_resolve_size follows before giving up.
	maxResolveDepth = 32
	// errnoEINVAL is the errno btf_resolve_size reports, printed in the
	// "size cannot be determined" message.
	errnoEINVAL = 22
	// argTagPrefix starts the decl tags that override an argument's kind.
	argTagPrefix = "arg:"
	// maxU32 bounds a resolved size, as btf_resolve_size checks.
	maxU32 = 1<<32 - 1
)

// globalArgKind is the verifier type of one global function argument (the
// kernel's bpf_subprog_arg_info.arg_type, for the kinds vercheck models).
type globalArgKind uint8

const (
	// globalArgScalar is ARG_ANYTHING: an int or enum parameter.
	globalArgScalar globalArgKind = iota + 1
	// globalArgCtx is ARG_PTR_TO_CTX.
	globalArgCtx
	// globalArgMem is ARG_PTR_TO_MEM, maybe NULL unless tagged nonnull.
	globalArgMem
	// globalArgDynptr is ARG_PTR_TO_DYNPTR | MEM_RDONLY: a pointer to a
	// struct bpf_dynptr the function may read but not change.
	globalArgDynptr
	// globalArgArena is ARG_PTR_TO_ARENA (tagged arg:arena): an arena
	// pointer or a number, which the callee sees as an unknown scalar.
	globalArgArena
	// globalArgTrusted is ARG_PTR_TO_BTF_ID | PTR_TRUSTED (tagged
	// arg:trusted), maybe NULL when also tagged arg:nullable: a trusted
	// pointer to the vmlinux struct btfID.
	globalArgTrusted
	// globalArgUntrusted is ARG_PTR_TO_BTF_ID | PTR_UNTRUSTED (tagged
	// arg:untrusted): an untrusted pointer to the vmlinux struct or union
	// btfID.
	globalArgUntrusted
	// globalArgUntrustedMem is ARG_PTR_TO_MEM | MEM_RDONLY |
	// PTR_UNTRUSTED (tagged arg:untrusted, to void or a primitive type):
	// read-only untrusted memory of size 0.
	globalArgUntrustedMem
)

// globalArg is one argument of a global function's prototype.
type globalArg struct {
	kind     globalArgKind
	nullable bool
	memSize  int
	// btfID is the vmlinux struct of a trusted or untrusted argument.
	btfID uint32
}

// argTags are the arg:<tag> decl tags of one parameter.
type argTags uint8

const (
	tagCtx argTags = 1 << iota
	tagNonnull
	tagArena
	tagTrusted
	tagNullable
	tagUntrusted
)

// globalProto is the cached outcome of preparing one global function's
// arguments: either the arguments or the failure (a kernel message, or an
// unsupported feature).
type globalProto struct {
	args []globalArg
	// msg is the kernel's log line for a prototype it refuses.
	msg string
	// errno is the error number of the refusal when it is not EINVAL.
	errno syscall.Errno
	// unsupported is set when vercheck does not model the prototype.
	unsupported string
}

// globalState is what the lazy verification of global functions tracks.
type globalState struct {
	called   []bool
	verified []bool
	protos   map[int]*globalProto
	// effects memoises subprogEffects by subprogram.
	effects map[int]subprogEffect
}

// checkProgram verifies the main program, then every global subprogram it
// (transitively) calls, each on its own (do_check_main, do_check_subprogs).
func (e *env) checkProgram() error {
	n := len(e.cfg.Subprogs)
	e.globals = globalState{called: make([]bool, n), verified: make([]bool, n)}
	if err := e.checkMain(); err != nil {
		return err
	}
	if e.excCb != 0 {
		// do_check_subprogs: the exception callback is presumed called.
		e.globals.called[e.excCb] = true
	}
	for {
		verifiedNow := 0
		for sp := 1; sp < n; sp++ {
			if !e.isGlobalSubprog(sp) || !e.globals.called[sp] || e.globals.verified[sp] {
				continue
			}
			if err := e.checkGlobalSubprog(sp); err != nil {
				return err
			}
			e.log.printf("Func#%d ('%s') is safe for any args that match its prototype\n", sp, e.subprogName(sp))
			e.globals.verified[sp] = true
			verifiedNow++
		}
		if verifiedNow == 0 {
			e.removeFastcallSpillsFills()
			if err := e.checkMaxStackDepth(); err != nil {
				return err
			}
			if err := e.checkTailCallPokes(); err != nil {
				return err
			}
			return e.checkInterpreterCalls()
		}
	}
}

// checkMain is do_check_main: the main function from the program's entry
// state, or, for an Extension program, from the state its prototype
// gives, as a global function's (do_check_common).
func (e *env) checkMain() error {
	if e.ext == nil {
		e.checkMainFuncArgs()
		return e.doCheck()
	}
	if err := e.checkExtensionEffects(); err != nil {
		return err
	}
	return e.checkGlobalSubprog(0)
}

// checkGlobalSubprog is do_check_common for global subprogram sp: a fresh
// pass from a state built from its prototype.
func (e *env) checkGlobalSubprog(sp int) error {
	e.endPass()
	start := e.cfg.Subprogs[sp].Start
	e.subprog = sp
	// A failing global function's log starts at the function: the
	// caller's last path, still in a level-1 log, explains nothing of it.
	e.log.newPass()
	e.log.printf("Validating %s() func#%d...\n", e.subprogName(sp), sp)
	p := e.prepareGlobalArgs(sp)
	if p.unsupported != "" {
		return e.unsupported(start, "%s", p.unsupported)
	}
	if p.msg != "" {
		e.cur = nil
		return e.rejectProto(start, p)
	}
	if msg := e.checkExceptionCallbackProto(sp, p); msg != "" {
		e.cur = nil
		return e.reject(start, "%s", msg)
	}
	st := e.pool.Get()
	states.InitFrame(st.Frames[0], states.MainCallSite, 0, int32(sp))
	st.FirstInsnIdx = int32(start)
	st.LastInsnIdx = -1
	st.InSleepable = isSleepable(e)
	regs := st.Frames[0].Regs()
	for i, a := range p.args {
		r := &regs[i+1]
		switch a.kind {
		case globalArgCtx:
			r.MarkPtr(states.PtrToCtx, 0)
		case globalArgScalar, globalArgArena:
			// An arena argument may have been a number: the callee casts
			// it before use (do_check_common's mark_reg_unknown).
			e.markUnknown(r)
		case globalArgMem:
			var fl states.RegFlags
			if a.nullable {
				fl = states.MaybeNull
			}
			r.MarkPtr(states.PtrToMem, fl)
			r.Range = int32(a.memSize)
			if a.nullable {
				r.ID = e.newID()
			}
		case globalArgDynptr:
			// The kernel cannot know the caller's dynptr: 6.18.0
			// assumes a local one (do_check_common), kernels with
			// stablefix.GlobalDynptrSKB an skb one, whose slices a
			// bpf_dynptr_write through it destroys.
			typ := dynptrSKB
			if e.opts.MissingFixes.Has(stablefix.GlobalDynptrSKB) {
				typ = dynptrLocal
			}
			e.markDynptrCallbackReg(r, typ)
		case globalArgTrusted:
			fl := states.PtrTrusted
			if a.nullable {
				fl |= states.MaybeNull
			}
			r.MarkPtr(states.PtrToBTFID, fl)
			r.Aux = a.btfID
			r.ID = e.newID()
		case globalArgUntrusted:
			r.MarkPtr(states.PtrToBTFID, states.PtrUntrusted)
			r.Aux = a.btfID
			r.ID = e.newID()
		case globalArgUntrustedMem:
			r.MarkPtr(states.PtrToMem, states.MemRdonly|states.PtrUntrusted)
		}
	}
	return e.doCheckFrom(st, start)
}

// checkMainFuncArgs is the main program's btf_prepare_func_args in
// do_check_common: a program with BTF func info has its prototype checked
// as a function's, and what that check says of a global one goes to the
// log (a "void *ctx" argument, say, whose size cannot be determined); it
// only marks the func info unreliable, never refuses the program. A static
// main function's is checkStaticMainArgs.
func (e *env) checkMainFuncArgs() {
	f := e.funcInfo(0)
	if f == nil || f.BTF == nil {
		return
	}
	if !f.Global {
		if e.log.on() {
			e.checkStaticMainArgs()
		}
		return
	}
	if p := e.prepareGlobalArgs(0); p.msg != "" {
		e.log.printf("%s\n", p.msg)
		e.everyLevelLine = p.msg
	}
}

// endPass releases what one verification pass leaves behind (the kernel's
// free_states): the explored states and the last path's state.
func (e *env) endPass() {
	e.path.truncate(0)
	e.store.Release()
	for len(e.stack) > 0 {
		e.pool.Put(e.stack[len(e.stack)-1].st)
		e.stack = e.stack[:len(e.stack)-1]
	}
	if e.cur != nil {
		e.pool.Put(e.cur)
		e.cur = nil
	}
}

// callGlobal checks a call of global subprogram sp against its prototype
// and models its effect: r0 unknown, r1-r5 clobbered (the global branch of
// check_func_call). The registers are checked first (btf_check_subprog_call,
// whose messages go to the log), then the context of the call, and only
// then does a mismatch fail the call.
func (e *env) callGlobal(sp int) error {
	name := e.subprogName(sp)
	argsBad, argsErrno := false, syscall.Errno(0)
	if sp == 0 && !e.mainProtoReliable() {
		// btf_check_subprog_call refuses an unreliable prototype
		// without a message of its own.
		argsBad = true
	} else if err := e.checkGlobalArgs(sp); err != nil {
		var re *RejectError
		if !errors.As(err, &re) || re.kind != nil {
			return err
		}
		// The call fails with the error number of the check that
		// failed, EINVAL but for an offset check.
		argsBad, argsErrno = true, re.errno
	}
	st := e.cur
	eff := e.subprogEffects(sp)
	if st.ActiveLocks > 0 {
		return e.reject(e.insnIdx, "global function calls are not allowed while holding a lock,\nuse static function instead")
	}
	if eff&effectMightSleep != 0 && (st.ActiveRCU || st.ActivePreemptLocks > 0 || st.ActiveIRQID != 0 || !e.inSleepable()) {
		return e.reject(e.insnIdx, "global functions that may sleep are not allowed in non-sleepable context,\n"+
			"i.e., in a RCU/IRQ/preempt-disabled section, or in\na non-sleepable BPF program context")
	}
	if argsBad {
		outer := e.reject(e.insnIdx, "Caller passes invalid args into func#%d ('%s')", sp, name)
		outer.(*RejectError).errno = argsErrno
		return outer
	}
	e.log.printf("Func#%d ('%s') is global and assumed valid.\n", sp, name)
	if eff&effectMightThrow != 0 && !e.opts.MissingFixes.Has(stablefix.GlobalCallMayThrow) {
		// The function may raise an exception with what the caller
		// holds: bpf_throw's checks, here.
		if _, err := e.processThrow(); err != nil {
			return err
		}
	}
	if eff&effectChangesPktData != 0 {
		e.clearAllPktPointers()
	}
	e.globals.called[sp] = true
	regs := e.regs()
	for r := 0; r <= 5; r++ {
		regs[r].MarkNotInit()
	}
	e.markUnknown(&regs[0])
	e.insnIdx++
	return nil
}

// mainProtoReliable reports whether the main program's BTF prototype is
// one the kernel trusts: do_check_common marks it unreliable unless it
// takes exactly one argument, the context, and a call of the main program
// is then refused.
func (e *env) mainProtoReliable() bool {
	p := e.prepareGlobalArgs(0)
	return p.msg == "" && p.unsupported == "" && len(p.args) == 1 && p.args[0].kind == globalArgCtx
}

// checkGlobalArgs is btf_check_func_arg_match: the caller's r1-r5 against
// the prototype of global subprogram sp. A mismatch is a *RejectError
// whose message the log already holds.
func (e *env) checkGlobalArgs(sp int) error {
	p := e.prepareGlobalArgs(sp)
	if p.unsupported != "" {
		return e.unsupported(e.insnIdx, "%s", p.unsupported)
	}
	if p.msg != "" {
		return e.rejectProto(e.insnIdx, p)
	}
	regs := e.regs()
	for i, a := range p.args {
		regno := i + 1
		reg := &regs[regno]
		switch a.kind {
		case globalArgScalar:
			if reg.Type != states.ScalarValue {
				return e.reject(e.insnIdx, "R%d is not a scalar", regno)
			}
		case globalArgArena:
			// Any value is safe, but only these make sense
			// (btf_check_func_arg_match).
			if reg.Type != states.PtrToArena && reg.Type != states.ScalarValue {
				return e.reject(e.insnIdx, "R%d is not a pointer to arena or scalar.", regno)
			}
		case globalArgCtx:
			if err := e.checkArgRegOff(reg, regno); err != nil {
				return err
			}
			if reg.Type != states.PtrToCtx {
				return e.reject(e.insnIdx, "arg#%d expects pointer to ctx", i)
			}
		case globalArgMem:
			if err := e.checkArgRegOff(reg, regno); err != nil {
				return err
			}
			if err := e.markNullArgPrecise(regno); err != nil {
				return err
			}
			if err := e.checkMemReg(regno, a.memSize); err != nil {
				// btf_check_func_arg_match answers any failure of
				// check_mem_reg with EINVAL, whatever its check's own.
				var re *RejectError
				if errors.As(err, &re) {
					re.errno = syscall.EINVAL
				}
				return err
			}
			if !a.nullable && (reg.MaybeNull() || reg.IsNull() && !e.opts.MissingFixes.Has(stablefix.GlobalNonNullZero)) {
				return e.reject(e.insnIdx, "arg#%d is expected to be non-NULL", i)
			}
			if reg.IsPktPointer() && e.subprogEffects(sp)&effectChangesPktData != 0 &&
				!e.opts.MissingFixes.Has(stablefix.GlobalPktArgChangesData) {
				return e.reject(e.insnIdx, "arg#%d is a packet pointer, but func#%d may change packet data", i, sp)
			}
		case globalArgDynptr:
			// An initialised dynptr of any type, on the stack or passed
			// down as a const pointer (process_dynptr_func).
			if reg.Type != states.PtrToStack {
				if err := e.checkArgRegOff(reg, regno); err != nil {
					return err
				}
			}
			if reg.Type != states.PtrToStack && reg.Type != states.ConstPtrToDynptr {
				return e.reject(e.insnIdx, "arg#%d expected pointer to stack or const struct bpf_dynptr", i)
			}
			if err := e.processDynptrFunc(regno, dynptrArgSpec{mode: dynptrArgRead}); err != nil {
				return err
			}
		case globalArgUntrusted, globalArgUntrustedMem:
			// Anything goes: the callee only reads it, by probe reads.
		case globalArgTrusted:
			if err := e.checkGlobalArgTrust(reg, regno, a); err != nil {
				return err
			}
			if a.nullable {
				if err := e.markNullArgPrecise(regno); err != nil {
					return err
				}
			}
			if err := withEACCES(e.checkTrustedGlobalArg(reg, regno, a)); err != nil {
				return err
			}
		}
	}
	return nil
}

// rejectProto refuses a call of (or the verification of) a function
// whose prototype the kernel refuses, with the kernel's message and errno.
func (e *env) rejectProto(insnIdx int, p *globalProto) error {
	err := e.reject(insnIdx, "%s", p.msg)
	if p.errno != 0 {
		err.(*RejectError).errno = p.errno
	}
	return err
}

// markNullArgPrecise marks a NULL argument of a global function precise
// on kernels with stablefix.NullArgPrecise, as they do a helper's: the
// NULL decided the checks the call skipped.
func (e *env) markNullArgPrecise(regno int) error {
	if !e.regs()[regno].IsNull() || e.opts.MissingFixes.Has(stablefix.NullArgPrecise) {
		return nil
	}
	return e.markChainPrecision(regno)
}

// checkGlobalArgTrust is the check a kernel with
// stablefix.GlobalArgTrusted makes of an arg:trusted argument before its
// type: the register must be trusted (is_trusted_reg), NULL only where
// the argument is nullable. Its failure is EINVAL.
func (e *env) checkGlobalArgTrust(reg *states.Reg, regno int, a globalArg) error {
	if e.opts.MissingFixes.Has(stablefix.GlobalArgTrusted) || (a.nullable && reg.IsNull()) {
		return nil
	}
	r := *reg
	if a.nullable {
		r.Flags &^= states.MaybeNull
	}
	if !isTrustedBTF(&r) {
		return e.reject(e.insnIdx, "R%d must be referenced or trusted", regno)
	}
	return nil
}

// checkTrustedGlobalArg is btf_check_func_arg_match's ARG_PTR_TO_BTF_ID
// case: NULL passes a nullable argument; otherwise check_reg_type (a plain,
// trusted or RCU BTF pointer, maybe NULL only where the argument is
// nullable, to the argument's struct or one that begins with it) and
// check_func_arg_reg_off (a fixed offset into the object is fine).
func (e *env) checkTrustedGlobalArg(reg *states.Reg, regno int, a globalArg) error {
	if a.nullable && reg.IsNull() {
		return nil
	}
	flags := reg.Flags
	if a.nullable {
		flags &^= states.MaybeNull
	}
	if reg.Type != states.PtrToBTFID || !slices.Contains(btfPtrArgFlags[:], flags) {
		return e.reject(e.insnIdx, "R%d type=%s expected=%s", regno, regTypeStr(reg), btfPtrArgExpected)
	}
	if reg.MaybeNull() && !a.nullable {
		return e.reject(e.insnIdx, "Possibly NULL pointer passed to helper arg%d", regno)
	}
	want, have := btfTypeByID(a.btfID), btfTypeByID(reg.Aux)
	if want == nil || have == nil {
		return e.unsupported(e.insnIdx, "trusted argument %d of a global function: a BTF pointer outside vmlinux", regno)
	}
	same, reason, err := btfStructIDsMatch(have, int(reg.Off), want, false)
	e.logWalkReason(reason)
	if err != nil {
		return e.unsupported(e.insnIdx, "trusted argument %d of a global function at off %d into struct %s: %v", regno, reg.Off, have.TypeName(), err)
	}
	if !same {
		return e.reject(e.insnIdx, "R%d is of type %s but %s is expected", regno, have.TypeName(), want.TypeName())
	}
	return e.checkFuncArgRegOff(reg, regno, false)
}

// checkArgRegOff is check_func_arg_reg_off for an argument of a global
// function (ARG_DONTCARE).
func (e *env) checkArgRegOff(reg *states.Reg, regno int) error {
	// __check_ptr_off_reg's EACCES is what the load returns.
	return withEACCES(e.checkFuncArgRegOff(reg, regno, false))
}

// withEACCES gives a rejection the errno EACCES: the error number of the
// kernel checks (check_reg_type, __check_ptr_off_reg) whose failure
// btf_check_func_arg_match passes on.
func withEACCES(err error) error {
	var re *RejectError
	if errors.As(err, &re) && re.kind == nil {
		re.errno = syscall.EACCES
	}
	return err
}

// checkMemReg is check_mem_reg: NULL passes; otherwise size bytes at the
// pointer must be readable and writable (the callee may do either), with
// a maybe-NULL pointer taken as non-NULL for the check only.
func (e *env) checkMemReg(regno, size int) error {
	reg := &e.regs()[regno]
	if reg.IsNull() {
		return nil
	}
	if err := e.checkPktMemArg(regno); err != nil {
		return err
	}
	if size > math.MaxInt32 {
		return e.reject(e.insnIdx, "R%d memory size %d is too large", regno, size)
	}
	saved := *reg
	if reg.MaybeNull() {
		reg.Flags &^= states.MaybeNull
	}
	err := e.checkHelperMemAccess(regno, size, accRead, true, nil)
	if err == nil {
		err = e.checkHelperMemAccess(regno, size, accWrite, true, nil)
	}
	if saved.MaybeNull() {
		// Restore the pointer, keeping what the write check did to the
		// memory it points to.
		*reg = saved
	}
	return err
}

// isGlobalSubprog reports whether subprogram sp has global linkage. The
// answers are found once per verification: every call asks, and finding
// one scans the program's functions (a program of many calls made it
// 2% of its time).
func (e *env) isGlobalSubprog(sp int) bool {
	if e.globalSubprogs == nil {
		e.globalSubprogs = make([]bool, len(e.cfg.Subprogs))
		for i, s := range e.cfg.Subprogs {
			e.globalSubprogs[i] = e.lp != nil && isGlobalFunc(e.lp, s.Start)
		}
	}
	return e.globalSubprogs[sp]
}

// funcInfo returns the BTF function info of subprogram sp, if any.
func (e *env) funcInfo(sp int) *loader.Func {
	start := e.cfg.Subprogs[sp].Start
	for i := range e.lp.Funcs {
		if e.lp.Funcs[i].Start == start {
			return &e.lp.Funcs[i]
		}
	}
	return nil
}

// subprogName is the subprogram's BTF name (the kernel's subprog_name).
func (e *env) subprogName(sp int) string {
	if f := e.funcInfo(sp); f != nil {
		return f.Name
	}
	return ""
}

// prepareGlobalArgs is btf_prepare_func_args for global subprogram sp,
// cached per subprogram.
func (e *env) prepareGlobalArgs(sp int) *globalProto {
	if p, ok := e.globals.protos[sp]; ok {
		return p
	}
	if e.globals.protos == nil {
		e.globals.protos = make(map[int]*globalProto)
	}
	var fn *btf.Func
	if f := e.funcInfo(sp); f != nil {
		fn = f.BTF
	}
	p := prepareFuncArgs(fn, sp, e.progType, e.attach)
	e.globals.protos[sp] = p
	return p
}

// prepareFuncArgs derives the argument kinds of a global function from its
// BTF, for a program of type pt and expected attach type at.
func prepareFuncArgs(fn *btf.Func, sp int, pt ebpf.ProgramType, at ebpf.AttachType) *globalProto {
	if fn == nil {
		return &globalProto{unsupported: fmt.Sprintf("global function %d without BTF function info", sp)}
	}
	proto, ok := fn.Type.(*btf.FuncProto)
	if !ok {
		return &globalProto{msg: fmt.Sprintf("Invalid type of function %s()", fn.Name)}
	}
	if len(proto.Params) > maxFuncRegArgs {
		return &globalProto{msg: fmt.Sprintf("Global function %s() with %d > %d args. Buggy compiler.", fn.Name, len(proto.Params), maxFuncRegArgs)}
	}
	if !isScalarBTF(skipModifiers(proto.Return)) {
		return &globalProto{msg: fmt.Sprintf("Global function %s() doesn't return scalar. Only those are supported.", fn.Name)}
	}
	p := &globalProto{}
	for i, param := range proto.Params {
		var tags argTags
		if i < len(fn.ParamTags) {
			for _, tag := range fn.ParamTags[i] {
				name, ok := strings.CutPrefix(tag, argTagPrefix)
				if !ok {
					continue
				}
				switch name {
				case "ctx":
					tags |= tagCtx
				case "nonnull":
					tags |= tagNonnull
				case "arena":
					tags |= tagArena
				case "trusted":
					tags |= tagTrusted
				case "nullable":
					tags |= tagNullable
				case "untrusted":
					tags |= tagUntrusted
				default:
					return &globalProto{msg: fmt.Sprintf("arg#%d has unsupported set of tags", i), errno: syscall.EOPNOTSUPP}
				}
			}
		}
		t := skipModifiers(param.Type)
		ptr, isPtr := t.(*btf.Pointer)
		if !isPtr {
			if tags != 0 {
				return &globalProto{msg: fmt.Sprintf("arg#%d has pointer tag, but is not a pointer type", i)}
			}
			if isScalarBTF(t) {
				p.args = append(p.args, globalArg{kind: globalArgScalar})
				continue
			}
			return &globalProto{msg: fmt.Sprintf("Arg#%d type %s in %s() is not supported yet.", i, btfKindStr(t), fn.Name)}
		}
		if tags&tagCtx != 0 || isProgCtxType(ptr, pt) {
			if tags&^tagCtx != 0 {
				return &globalProto{msg: fmt.Sprintf("arg#%d has invalid combination of tags", i)}
			}
			if tags&tagCtx != 0 {
				msg, unsup := validateProgCtxType(ptr, i, pt, at)
				if unsup != "" {
					return &globalProto{unsupported: fmt.Sprintf("global function %s(): %s", fn.Name, unsup)}
				}
				if msg != "" {
					return &globalProto{msg: msg}
				}
			}
			p.args = append(p.args, globalArg{kind: globalArgCtx})
			continue
		}
		target := skipModifiers(ptr.Target)
		if s, ok := target.(*btf.Struct); ok && s.Name == "bpf_dynptr" {
			if tags != 0 {
				return &globalProto{msg: fmt.Sprintf("arg#%d has invalid combination of tags", i)}
			}
			p.args = append(p.args, globalArg{kind: globalArgDynptr})
			continue
		}
		if tags&tagTrusted != 0 {
			a, bad := trustedGlobalArg(i, target, tags)
			if bad != nil {
				return bad
			}
			p.args = append(p.args, a)
			continue
		}
		if tags&tagUntrusted != 0 {
			a, bad := untrustedGlobalArg(i, target, tags)
			if bad != nil {
				return bad
			}
			p.args = append(p.args, a)
			continue
		}
		if tags&tagArena != 0 {
			if tags&^tagArena != 0 {
				return &globalProto{msg: fmt.Sprintf("arg#%d arena cannot be combined with any other tags", i)}
			}
			p.args = append(p.args, globalArg{kind: globalArgArena})
			continue
		}
		if tags&tagNullable != 0 {
			return &globalProto{msg: fmt.Sprintf("arg#%d has invalid combination of tags", i)}
		}
		size, ok := resolveSize(target)
		if !ok {
			return &globalProto{msg: fmt.Sprintf("arg#%d reference type('%s %s') size cannot be determined: -%d", i, btfKindStr(target), btfName(target), errnoEINVAL)}
		}
		p.args = append(p.args, globalArg{kind: globalArgMem, nullable: tags&tagNonnull == 0, memSize: size})
	}
	return p
}

// trustedGlobalArg is the arg:trusted case of btf_prepare_func_args:
// nonnull does not combine with it, nullable makes the pointer maybe NULL,
// and the pointee must name exactly one vmlinux type of its kind
// (btf_get_ptr_to_btf_id, through bpf_core_find_cands and so by the
// essential name). Any kind will do: a pointer to an int or an enum is
// passed and checked for NULL, and a load through it is "Type '%s' is not
// a struct" (btfStructWalk). The failure is the prototype to cache.
func trustedGlobalArg(i int, target btf.Type, tags argTags) (globalArg, *globalProto) {
	if tags&tagNonnull != 0 {
		return globalArg{}, &globalProto{msg: fmt.Sprintf("arg#%d has invalid combination of tags", i)}
	}
	kern, bad := kernelCandidate(i, target)
	if bad != nil {
		return globalArg{}, bad
	}
	return globalArg{kind: globalArgTrusted, nullable: tags&tagNullable != 0, btfID: btfTypeID(kern)}, nil
}

// untrustedGlobalArg is the arg:untrusted case of btf_prepare_func_args:
// no other tag combines with it; to void or a primitive type it is
// read-only untrusted memory of size 0, else the pointee must name exactly
// one vmlinux type of its kind, a struct or a union.
func untrustedGlobalArg(i int, target btf.Type, tags argTags) (globalArg, *globalProto) {
	if tags&^tagUntrusted != 0 {
		return globalArg{}, &globalProto{msg: fmt.Sprintf("arg#%d untrusted cannot be combined with any other tags", i)}
	}
	// btf_type_is_primitive: an int or an enum (cilium/ebpf decodes ints
	// of whole power-of-two byte sizes only, the kernel's regular ones).
	if _, void := target.(*btf.Void); void || isScalarBTF(target) {
		return globalArg{kind: globalArgUntrustedMem}, nil
	}
	kern, bad := kernelCandidate(i, target)
	if bad != nil {
		return globalArg{}, bad
	}
	if !isStruct(kern) {
		// The kernel names the type by the argument's pointer type's
		// name offset, looked up in vmlinux: a pointer has no name.
		return globalArg{}, &globalProto{msg: fmt.Sprintf("arg#%d has type %s '%s', but only struct or primitive types are allowed", i, btfKindStr(kern), btfAnon)}
	}
	return globalArg{kind: globalArgUntrusted, btfID: btfTypeID(kern)}, nil
}

// btfAnon is how the kernel's messages name a nameless BTF type
// (__btf_name_by_offset).
const btfAnon = "(anon)"

// kernelCandidate is btf_get_ptr_to_btf_id's search (bpf_core_find_cands
// for target, the pointee with its modifiers skipped): the one kernel type
// of target's kind whose essential name is target's, looked for in vmlinux
// and, when vmlinux has none, in the modules' BTF. A nameless target, no
// match, several or a module's type is the failure to cache, with the
// kernel's message and errno.
func kernelCandidate(i int, target btf.Type) (btf.Type, *globalProto) {
	name := loader.EssentialName(btfName(target))
	ref := fmt.Sprintf("arg#%d reference type('%s %s')", i, btfKindStr(target), cmp.Or(btfName(target), btfAnon))
	if name == "" {
		return nil, &globalProto{msg: fmt.Sprintf("%s candidate matching error: -%d", ref, errnoEINVAL)}
	}
	var cands []btf.Type
	if spec, err := vmlinux(); err == nil {
		cands = sameKindTypes(spec, name, target)
	}
	if len(cands) == 0 {
		mods, err := loader.ModuleBTFs()
		if err != nil {
			return nil, &globalProto{unsupported: fmt.Sprintf("%s: module BTF: %v", ref, err)}
		}
		for _, m := range mods {
			cands = append(cands, sameKindTypes(m.Spec, name, target)...)
		}
		if len(cands) == 1 {
			return nil, &globalProto{msg: ref + " points to kernel module type (unsupported)", errno: syscall.EOPNOTSUPP}
		}
	}
	switch {
	case len(cands) == 0:
		return nil, &globalProto{msg: ref + " has no matches", errno: syscall.ENOENT}
	case len(cands) > 1:
		return nil, &globalProto{msg: ref + " is ambiguous", errno: syscall.ESRCH}
	}
	return cands[0], nil
}

// sameKindTypes are the types of spec named name of local's BTF kind
// (bpf_core_add_cands).
func sameKindTypes(spec *btf.Spec, name string, local btf.Type) []btf.Type {
	all, err := spec.AnyTypesByName(name)
	if err != nil {
		return nil
	}
	var out []btf.Type
	for _, t := range all {
		if btfKindStr(t) == btfKindStr(local) {
			out = append(out, t)
		}
	}
	return out
}

// isScalarBTF reports whether t is an int or an enum (what a global
// function may take or return by value).
func isScalarBTF(t btf.Type) bool {
	switch t.(type) {
	case *btf.Int, *btf.Enum:
		return true
	}
	return false
}

// skipModifiers follows typedefs and qualifiers (btf_type_skip_modifiers).
func skipModifiers(t btf.Type) btf.Type {
	for range maxResolveDepth {
		switch m := t.(type) {
		case *btf.Typedef:
			t = m.Type
		case *btf.Volatile:
			t = m.Type
		case *btf.Const:
			t = m.Type
		case *btf.Restrict:
			t = m.Type
		case *btf.TypeTag:
			t = m.Type
		default:
			return t
		}
	}
	return t
}

// resolveSize is btf_resolve_size: the byte size of a sized type, through
// modifiers and arrays; false for void, functions, forward declarations
// and the like.
func resolveSize(t btf.Type) (int, bool) {
	nelems := uint64(1)
	for range maxResolveDepth {
		var size uint64
		switch v := t.(type) {
		case *btf.Int:
			size = uint64(v.Size)
		case *btf.Struct:
			size = uint64(v.Size)
		case *btf.Union:
			size = uint64(v.Size)
		case *btf.Enum:
			size = uint64(v.Size)
		case *btf.Float:
			size = uint64(v.Size)
		case *btf.Pointer:
			size = sizeU64
		case *btf.Typedef:
			t = v.Type
			continue
		case *btf.Volatile:
			t = v.Type
			continue
		case *btf.Const:
			t = v.Type
			continue
		case *btf.Restrict:
			t = v.Type
			continue
		case *btf.TypeTag:
			t = v.Type
			continue
		case *btf.Array:
			if uint64(v.Nelems) > 0 && nelems > maxU32/uint64(v.Nelems) {
				return 0, false
			}
			nelems *= uint64(v.Nelems)
			t = v.Type
			continue
		default:
			return 0, false
		}
		if nelems > 0 && size > maxU32/nelems {
			return 0, false
		}
		return int(size * nelems), true
	}
	return 0, false
}

// progCtxStruct names the struct a program type's context pointer points
// to, as the kernel's bpf_types.h declares it (after resolving the kprobe
// typedef bpf_user_pt_regs_t). Types absent here have no named context and
// need the arg:ctx tag.
var progCtxStruct = map[ebpf.ProgramType]string{
	ebpf.SocketFilter:          "__sk_buff",
	ebpf.SchedCLS:              "__sk_buff",
	ebpf.SchedACT:              "__sk_buff",
	ebpf.CGroupSKB:             "__sk_buff",
	ebpf.LWTIn:                 "__sk_buff",
	ebpf.LWTOut:                "__sk_buff",
	ebpf.LWTXmit:               "__sk_buff",
	ebpf.LWTSeg6Local:          "__sk_buff",
	ebpf.SkSKB:                 "__sk_buff",
	ebpf.FlowDissector:         "__sk_buff",
	ebpf.XDP:                   "xdp_md",
	ebpf.Kprobe:                "pt_regs",
	ebpf.RawTracepoint:         "bpf_raw_tracepoint_args",
	ebpf.RawTracepointWritable: "bpf_raw_tracepoint_args",
	ebpf.PerfEvent:             "bpf_perf_event_data",
	ebpf.CGroupSock:            "bpf_sock",
	ebpf.CGroupSockAddr:        "bpf_sock_addr",
	ebpf.SockOps:               "bpf_sock_ops",
	ebpf.SkMsg:                 "sk_msg_md",
	ebpf.SkLookup:              "bpf_sk_lookup",
	ebpf.CGroupSysctl:          "bpf_sysctl",
	ebpf.CGroupDevice:          "bpf_cgroup_dev_ctx",
	ebpf.CGroupSockopt:         "bpf_sockopt",
	ebpf.SkReuseport:           "sk_reuseport_md",
	ebpf.Netfilter:             "bpf_nf_ctx",
}

// ctxProjections maps a context struct to the kernel struct it projects,
// which a program may name instead (btf_is_projection_of).
var ctxProjections = map[string]string{
	"__sk_buff": "sk_buff",
	"xdp_md":    "xdp_buff",
}

// kprobeCtxTypedef is the typedef a kprobe program's context is declared
// as; a pointer to it is the context whatever it resolves to.
const kprobeCtxTypedef = "bpf_user_pt_regs_t"

// isProgCtxType is btf_is_prog_ctx_type: does ptr point to the context
// struct of program type pt, by name?
func isProgCtxType(ptr *btf.Pointer, pt ebpf.ProgramType) bool {
	// The typedef counts before typedefs are skipped.
	if pt == ebpf.Kprobe && namesTypedef(ptr.Target, kprobeCtxTypedef) {
		return true
	}
	var name string
	switch s := skipModifiers(ptr.Target).(type) {
	case *btf.Struct:
		name = s.Name
	case *btf.Union:
		name = s.Name
	default:
		return false
	}
	want, ok := progCtxStruct[pt]
	if !ok || name == "" {
		return false
	}
	if pt == ebpf.Kprobe && name == kprobeCtxTypedef {
		// The kernel compares the name with the context's declared type
		// first, the typedef, then with the struct it resolves to: a
		// struct named like the typedef passes (a workaround older
		// programs use).
		return true
	}
	return name == want || ctxProjections[want] == name
}

// namesTypedef reports whether t, past const/volatile qualifiers only, is
// the typedef called name.
func namesTypedef(t btf.Type, name string) bool {
	for range maxResolveDepth {
		if td, ok := t.(*btf.Typedef); ok {
			return td.Name == name
		}
		next := skipQualifier(t)
		if next == t {
			return false
		}
		t = next
	}
	return false
}

// u64Size is the byte size of the 64-bit integer that several program
// types accept as the pointee of an arg:ctx argument (their context is an
// array of u64 arguments).
const u64Size = 8

// validateProgCtxType is btf_validate_prog_ctx_type: the pointee of an
// argument tagged arg:ctx must be void, the bpf_user_pt_regs_t typedef
// (kprobe, perf_event), one of the program type's special cases (struct
// pt_regs for kprobe and x86 perf_event programs, u64 for raw tracepoints,
// tp_btf, fentry/fexit/fmod_ret, LSM and struct_ops programs, struct
// bpf_raw_tracepoint_args for tp_btf, a struct bpf_iter__* for iterators,
// anything for tracepoint and syscall programs), or else the program
// type's own context struct by its exact name. It returns the kernel's
// message, or what vercheck does not model, for argument i.
func validateProgCtxType(ptr *btf.Pointer, i int, pt ebpf.ProgramType, at ebpf.AttachType) (msg, unsupported string) {
	if (pt == ebpf.Kprobe || pt == ebpf.PerfEvent) && namesTypedef(ptr.Target, kprobeCtxTypedef) {
		return "", ""
	}
	t := skipModifiers(ptr.Target)
	if _, void := t.(*btf.Void); void {
		return "", ""
	}
	name := btfName(t)
	if name == "" {
		return fmt.Sprintf("arg#%d type doesn't have a name", i), ""
	}
	i64, isU64 := t.(*btf.Int)
	isU64 = isU64 && i64.Size == u64Size
	switch pt {
	case ebpf.Kprobe, ebpf.PerfEvent:
		// x86's bpf_user_pt_regs_t is struct pt_regs.
		if _, ok := t.(*btf.Struct); ok && name == ptRegsStruct {
			return "", ""
		}
	case ebpf.RawTracepoint, ebpf.RawTracepointWritable, ebpf.LSM, ebpf.StructOps:
		if isU64 {
			return "", ""
		}
	case ebpf.Tracing:
		switch at {
		case ebpf.AttachTraceRawTp:
			if isStruct(t) && name == rawTPArgsStruct || isU64 {
				return "", ""
			}
		case ebpf.AttachTraceIter:
			if isStruct(t) && strings.HasPrefix(name, iterCtxPrefix) {
				return "", ""
			}
		case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn:
			if isU64 {
				return "", ""
			}
		}
	case ebpf.TracePoint, ebpf.Syscall, ebpf.Extension:
		return "", ""
	}
	want, ok := progCtxStruct[pt]
	switch {
	case !ok && voidCtxTypes[pt]:
		return fmt.Sprintf("arg#%d should be void pointer", i), ""
	case !ok:
		return "", fmt.Sprintf("arg:ctx argument of a %s program", pt)
	case !isStruct(t) || name != want:
		return fmt.Sprintf("arg#%d should be `struct %s *`", i, want), ""
	}
	return "", ""
}

// rawTPArgsStruct is a raw tracepoint's context struct, which a tp_btf
// program's arg:ctx argument may point to.
const rawTPArgsStruct = "bpf_raw_tracepoint_args"

// iterCtxPrefix starts the names of the BPF iterators' context structs.
const iterCtxPrefix = "bpf_iter__"

// voidCtxTypes are the program types whose context bpf_types.h declares
// as no struct (void *, or __u32 for lirc_mode2): an arg:ctx argument of
// theirs that no special case admits must be void *.
var voidCtxTypes = map[ebpf.ProgramType]bool{
	ebpf.Tracing:   true,
	ebpf.LSM:       true,
	ebpf.StructOps: true,
	ebpf.LircMode2: true,
}

// ptRegsStruct is the register-file struct that bpf_user_pt_regs_t names
// on x86, accepted as a perf_event program's arg:ctx type.
const ptRegsStruct = "pt_regs"

// skipQualifier follows one qualifier (not a typedef), or returns t.
func skipQualifier(t btf.Type) btf.Type {
	switch m := t.(type) {
	case *btf.Volatile:
		return m.Type
	case *btf.Const:
		return m.Type
	case *btf.Restrict:
		return m.Type
	case *btf.TypeTag:
		return m.Type
	}
	return t
}

// btfKindStr is btf_type_str: the kernel's name of a BTF kind.
func btfKindStr(t btf.Type) string {
	switch v := t.(type) {
	case *btf.Void:
		return "UNKNOWN"
	case *btf.Int:
		return "INT"
	case *btf.Pointer:
		return "PTR"
	case *btf.Array:
		return "ARRAY"
	case *btf.Struct:
		return "STRUCT"
	case *btf.Union:
		return "UNION"
	case *btf.Enum:
		if v.Size == sizeU64 {
			return "ENUM64"
		}
		return "ENUM"
	case *btf.Fwd:
		return "FWD"
	case *btf.Typedef:
		return "TYPEDEF"
	case *btf.Volatile:
		return "VOLATILE"
	case *btf.Const:
		return "CONST"
	case *btf.Restrict:
		return "RESTRICT"
	case *btf.Func:
		return "FUNC"
	case *btf.FuncProto:
		return "FUNC_PROTO"
	case *btf.Var:
		return "VAR"
	case *btf.Datasec:
		return "DATASEC"
	case *btf.Float:
		return "FLOAT"
	case *btf.TypeTag:
		return "TYPE_TAG"
	}
	return "UNKNOWN"
}

// btfName is a type's name, empty for anonymous types and void.
func btfName(t btf.Type) string {
	if t == nil {
		return ""
	}
	return t.TypeName()
}

// subprogEffect is what calling a subprogram may do that its caller must
// know (the kernel's bpf_subprog_info flags, which check_cfg sets from the
// calls in each subprogram and merges from callee to caller).
type subprogEffect uint8

const (
	// effectChangesPktData: a helper that moves packet data
	// (changes_pkt_data).
	effectChangesPktData subprogEffect = 1 << iota
	// effectMightSleep: a helper or kfunc that may sleep (might_sleep).
	effectMightSleep
	// effectMightThrow: a bpf_throw call (stablefix.GlobalCallMayThrow).
	effectMightThrow
)

// subprogEffects returns the effects of subprogram sp and everything it
// calls. Callbacks it passes to helpers count too, as check_cfg visits
// their loads like calls.
func (e *env) subprogEffects(sp int) subprogEffect {
	if v, ok := e.globals.effects[sp]; ok {
		return v
	}
	if e.globals.effects == nil {
		e.globals.effects = make(map[int]subprogEffect)
	}
	seen := make([]bool, len(e.cfg.Subprogs))
	work := []int{sp}
	seen[sp] = true
	var found subprogEffect
	for len(work) > 0 {
		cur := work[len(work)-1]
		work = work[:len(work)-1]
		s := e.cfg.Subprogs[cur]
		for i := s.Start; i < s.End && i < len(e.prog); i++ {
			in := e.prog[i]
			found |= e.callEffect(in)
			target := -1
			if in.Class() == insn.ClassJMP && in.JmpOp() == insn.JmpCall && in.Src == insn.PseudoCall ||
				in.IsLdImm64() && in.Src == insn.PseudoFunc {
				target = i + int(in.Imm) + 1
			}
			if c := e.cfg.SubprogOf(target); target >= 0 && c >= 0 && !seen[c] {
				seen[c] = true
				work = append(work, c)
			}
		}
	}
	e.globals.effects[sp] = found
	return found
}

// callEffect is what the helper or kfunc call in may do (visit_insn's
// marks): move packet data, or sleep. A helper's packet change counts
// whatever the program type; its sleeping, like a kfunc's, only when the
// program type may call it (visit_insn asks the type's prototype).
func (e *env) callEffect(in insn.Insn) subprogEffect {
	if in.Class() != insn.ClassJMP || in.JmpOp() != insn.JmpCall {
		return 0
	}
	var eff subprogEffect
	switch {
	case in.Src == 0:
		fn, ok := helpers.For(e.progType, e.attach, in.Imm)
		if !ok {
			return 0
		}
		if fn.ChangesPktData || in.Imm == fnTailCall {
			// bpf_helper_changes_pkt_data lists bpf_tail_call, so
			// visit_insn marks a subprogram with a tail call as
			// changing packet data: a taken tail call inside it
			// returns to the caller with the packet moved.
			// check_helper_call only skips the invalidation in the
			// main frame, whose taken tail call never comes back.
			eff |= effectChangesPktData
		}
		if in.Imm == fnDynptrWrite {
			// The 6.18 build's summary counts bpf_dynptr_write
			// whatever the dynptr's kind (the call itself only
			// moves packet data for an skb dynptr, which the
			// summary cannot know): a global function holding
			// one, even unreached, invalidates its caller's
			// packet pointers (found by
			// TestPacketInvalidationLiveKernel).
			eff |= effectChangesPktData
		}
		if allowed, _ := e.helperAllowed(in.Imm); allowed && e.helperMightSleep(fn) {
			eff |= effectMightSleep
		}
	case in.IsKfuncCall():
		info, err := kfuncCallee(in)
		if err != nil {
			return 0
		}
		def, ok := kfuncs.Lookup(info.name)
		if !ok || !e.kfuncCallable(def) {
			return 0
		}
		if def.Flags&kfuncs.Sleepable != 0 {
			eff |= effectMightSleep
		}
		if info.name == kfuncThrow && in.Off == 0 {
			eff |= effectMightThrow
		}
		if kfuncChangesPktData(info.name) {
			eff |= effectChangesPktData
		}
		if kfuncDynptrWrites(info.name) && !e.opts.MissingFixes.Has(stablefix.DynptrKfuncPktWrite) {
			// As bpf_dynptr_write above: counted whatever the
			// dynptr's kind.
			eff |= effectChangesPktData
		}
	}
	return eff
}

// checkGlobalReturn is check_return_code at the exit of a global
// subprogram verified on its own: register regno (r0) must be a readable
// scalar.
func (e *env) checkGlobalReturn(regno int) error {
	if err := e.checkRegRead(uint8(regno)); err != nil {
		return err
	}
	reg := &e.regs()[regno]
	if reg.Type != states.ScalarValue {
		return e.reject(e.insnIdx, "At subprogram exit the register R%d is not a scalar value (%s)", regno, regTypeStr(reg))
	}
	return nil
}

// checkPktMemArg refuses a packet pointer in regno for memory a global
// function or a kfunc may write, in a program type that may only read
// packet data (stablefix.PktMemArgNeedsWrite). A pointer to the packet
// checks nothing about its offset or its range before this.
func (e *env) checkPktMemArg(regno int) error {
	if e.regs()[regno].IsPktPointer() && !e.mayWritePacket() && !e.opts.MissingFixes.Has(stablefix.PktMemArgNeedsWrite) {
		return e.reject(e.insnIdx, "function access to the packet is not allowed")
	}
	return nil
}

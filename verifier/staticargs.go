package verifier

import (
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/states"
)

// Static functions and callbacks have BTF prototypes too, which the kernel
// checks against the caller's registers at every call (check_func_call,
// push_callback_call: btf_check_subprog_call) as it does a global
// function's. For them the answer only matters to the log: a prototype
// btf_prepare_func_args refuses (a pointer other than the context, a
// void function) or that the registers do not match marks the function
// unreliable, which ends its checks, and only the mismatch has a message
// ("R1 is not a scalar", "arg#0 expects pointer to ctx", "Expected an
// initialized dynptr as arg #1"): the compiler
// may have dropped or reordered a static function's arguments, so the
// call goes on as if nothing was checked. One check leaves a mark beyond
// the log: a dynptr argument that matches is read (mark_dynptr_read), so
// its stack slots are live at the call whether the callee reads them or
// not, which decides what later checkpoints compare.

// staticProtoState is what btf_prepare_func_args made of a static
// function's prototype, and whether a call found it unreliable since.
type staticProtoState uint8

const (
	// staticProtoUnchecked: not prepared yet.
	staticProtoUnchecked staticProtoState = iota
	// staticProtoReliable: arguments of kinds vercheck checks.
	staticProtoReliable
	// staticProtoUnreliable: refused, or a call did not match it.
	staticProtoUnreliable
	// staticProtoUnmodelled: a prototype whose checks vercheck does not
	// model (unnamed structs): no call logs anything.
	staticProtoUnmodelled
	// staticProtoTagged: an argument carries an "arg:" decl tag, which
	// static functions may not have. btf_prepare_func_args refuses it
	// with a message before the registers are looked at, and the call
	// that logs it marks the function unreliable as a mismatch does
	// (btf_check_func_arg_match prepares the prototype).
	staticProtoTagged
)

// staticProtos holds the per-subprogram state and argument kinds.
type staticProtos struct {
	state []staticProtoState
	args  [][]globalArgKind
	// tagged is the refusal message of a staticProtoTagged function.
	tagged []string
}

// checkStaticArgs is btf_check_subprog_call for a call of static
// subprogram sp, or of sp as a callback, with the caller's registers: the
// first mismatch of a reliable prototype is logged and makes it
// unreliable; the dynptr arguments before it are read.
func (e *env) checkStaticArgs(sp int) {
	if e.isGlobalSubprog(sp) {
		return
	}
	p := &e.staticProtos
	switch e.prepareStaticProto(sp) {
	case staticProtoReliable:
	case staticProtoTagged:
		e.log.printf("%s\n", p.tagged[sp])
		p.state[sp] = staticProtoUnreliable
		return
	default:
		return
	}
	regs := e.regs()
	for i, kind := range p.args[sp] {
		regno := i + 1
		reg := &regs[regno]
		msg := ""
		switch kind {
		case globalArgScalar:
			if reg.Type != states.ScalarValue {
				msg = sprintf("R%d is not a scalar", regno)
			}
		case globalArgCtx:
			if msg = argRegOffMsg(reg, regno); msg == "" && reg.Type != states.PtrToCtx {
				msg = sprintf("arg#%d expects pointer to ctx", i)
			}
		case globalArgDynptr:
			// check_func_arg_reg_off, then process_dynptr_func for
			// ARG_PTR_TO_DYNPTR | MEM_RDONLY: a stack slot's offset
			// message comes before the missing dynptr's.
			if msg = argRegOffMsg(reg, regno); msg != "" {
				break
			}
			if reg.Type == states.PtrToStack {
				if _, _, bad := e.dynptrSlotIndex(reg); bad != "" {
					e.log.printf("%s\n", bad)
				}
			}
			switch {
			case reg.Type != states.PtrToStack && reg.Type != states.ConstPtrToDynptr:
				msg = sprintf("arg#%d expected pointer to stack or const struct bpf_dynptr", i)
			case e.dynptrState(reg) == nil:
				msg = sprintf("Expected an initialized dynptr as arg #%d", i)
			case reg.Type == states.PtrToStack:
				spi, _, _ := e.dynptrSlotIndex(reg)
				for j := 0; j < dynptrNrSlots; j++ {
					e.markStackObjRead(reg.FrameNo(), spi-j)
				}
			}
		}
		if msg != "" {
			e.log.printf("%s\n", msg)
			p.state[sp] = staticProtoUnreliable
			return
		}
	}
}

// prepareStaticProto is btf_prepare_func_args for static subprogram sp,
// once: its state from then on.
func (e *env) prepareStaticProto(sp int) staticProtoState {
	p := &e.staticProtos
	if p.state == nil {
		p.state = make([]staticProtoState, len(e.cfg.Subprogs))
		p.args = make([][]globalArgKind, len(e.cfg.Subprogs))
		p.tagged = make([]string, len(e.cfg.Subprogs))
	}
	if p.state[sp] == staticProtoUnchecked {
		var fn *btf.Func
		if f := e.funcInfo(sp); f != nil {
			fn = f.BTF
		}
		p.args[sp], p.state[sp], p.tagged[sp] = prepareStaticArgs(fn, e.progType)
	}
	return p.state[sp]
}

// checkStaticMainArgs is do_check_common's btf_prepare_func_args for a
// static main function: a refused decl tag is logged, and unless the
// prototype is exactly the context the function is unreliable, so a call
// of it later checks (and logs) nothing.
func (e *env) checkStaticMainArgs() {
	p := &e.staticProtos
	switch e.prepareStaticProto(0) {
	case staticProtoTagged:
		e.log.printf("%s\n", p.tagged[0])
	case staticProtoReliable:
		if len(p.args[0]) == 1 && p.args[0][0] == globalArgCtx {
			return
		}
	}
	p.state[0] = staticProtoUnreliable
}

// prepareStaticArgs is btf_prepare_func_args for a static function: it
// refuses, without a message, a function without BTF, of more than five
// arguments or not returning a scalar, and an argument that is neither a
// scalar nor the program's context. It looks at the arguments in order, an
// argument's "arg:" decl tags before its type, so a tag is refused with a
// message (the third result) only when every earlier argument passed.
func prepareStaticArgs(fn *btf.Func, pt ebpf.ProgramType) ([]globalArgKind, staticProtoState, string) {
	if fn == nil {
		return nil, staticProtoUnreliable, ""
	}
	proto, ok := fn.Type.(*btf.FuncProto)
	if !ok || len(proto.Params) > maxFuncRegArgs || !isScalarBTF(skipModifiers(proto.Return)) {
		return nil, staticProtoUnreliable, ""
	}
	var kinds []globalArgKind
	for i, param := range proto.Params {
		if hasArgTag(fn, i) {
			return nil, staticProtoTagged, sprintf("arg#%d type tag is not supported in static functions", i)
		}
		t := skipModifiers(param.Type)
		ptr, isPtr := t.(*btf.Pointer)
		switch {
		case !isPtr && isScalarBTF(t):
			kinds = append(kinds, globalArgScalar)
		case !isPtr:
			return nil, staticProtoUnreliable, ""
		case isProgCtxType(ptr, pt):
			kinds = append(kinds, globalArgCtx)
		default:
			if s, ok := skipModifiers(ptr.Target).(*btf.Struct); ok && s.Name == "bpf_dynptr" {
				// A dynptr is checked as one (process_dynptr_func).
				kinds = append(kinds, globalArgDynptr)
				continue
			}
			if s, ok := skipModifiers(ptr.Target).(*btf.Struct); ok && s.Name == "" {
				// An unnamed struct has a message of its own.
				return nil, staticProtoUnmodelled, ""
			}
			return nil, staticProtoUnreliable, ""
		}
	}
	return kinds, staticProtoReliable, ""
}

// hasArgTag reports whether parameter i of fn carries a decl tag that
// btf_find_next_decl_tag finds with the "arg:" prefix.
func hasArgTag(fn *btf.Func, i int) bool {
	if i >= len(fn.ParamTags) {
		return false
	}
	for _, tag := range fn.ParamTags[i] {
		if strings.HasPrefix(tag, argTagPrefix) {
			return true
		}
	}
	return false
}

package verifier

// BTF-typed contexts of tracing programs (the kernel's btf_ctx_access and
// tracing_prog_is_valid_access).
//
// The context of an fentry, fexit, fmod_ret or tp_btf program is an array
// of u64 slots holding the attach target's arguments (fexit and fmod_ret
// also see the return value after them). The target's prototype comes from
// vmlinux BTF: the kernel function for fentry/fexit/fmod_ret, the
// "btf_trace_<name>" typedef for tp_btf (whose first, hidden "void *__data"
// argument is skipped). A slot holding an integer, enum or struct is read
// as an unknown scalar; one holding a pointer to a struct becomes a
// PTR_TO_BTF_ID of that struct, trusted for tp_btf (the kernel's
// prog_args_trusted) and plain for the trampolines.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

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

// tracingCtx is the resolved attach target of a tracing program.
type tracingCtx struct {
	// name is the target as the kernel names it in messages.
	name string
	// params are the visible arguments; ret is the return type.
	params []btf.FuncParam
	// all are every argument of the prototype (slot numbering counts
	// the hidden tp_btf argument too).
	all    []btf.FuncParam
	ret    btf.Type
	attach ebpf.AttachType
}

// tracingCtxCache memoises attach targets by attach type and name.
var tracingCtxCache sync.Map // map[string]*tracingCtx

// tracingContext resolves the attach target of a tracing program, or says
// why vercheck cannot.
func tracingContext(at ebpf.AttachType, target string) (*tracingCtx, error) {
	key := fmt.Sprintf("%d/%s", at, target)
	if v, ok := tracingCtxCache.Load(key); ok {
		return v.(*tracingCtx), nil
	}
	spec, err := vmlinux()
	if err != nil {
		return nil, err
	}
	tc := &tracingCtx{name: target, attach: at}
	var proto *btf.FuncProto
	switch at {
	case ebpf.AttachTraceRawTp:
		var td *btf.Typedef
		if err := spec.TypeByName(btfTracePrefix+target, &td); err != nil {
			return nil, fmt.Errorf("tracepoint %q: %w", target, err)
		}
		p, ok := skipModifiers(td.Type).(*btf.Pointer)
		if !ok {
			return nil, fmt.Errorf("tracepoint %q: typedef is not a function pointer", target)
		}
		if proto, ok = skipModifiers(p.Target).(*btf.FuncProto); !ok || len(proto.Params) == 0 {
			return nil, fmt.Errorf("tracepoint %q: typedef is not a function pointer", target)
		}
		tc.params = proto.Params[1:]
	case ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn:
		var fn *btf.Func
		if err := spec.TypeByName(target, &fn); err != nil {
			return nil, fmt.Errorf("function %q: %w", target, err)
		}
		var ok bool
		if proto, ok = fn.Type.(*btf.FuncProto); !ok {
			return nil, fmt.Errorf("function %q has no prototype", target)
		}
		tc.params = proto.Params
	default:
		return nil, fmt.Errorf("attach type %s", at)
	}
	tc.all, tc.ret = proto.Params, proto.Return
	tracingCtxCache.Store(key, tc)
	return tc, nil
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
}

// access is btf_ctx_access: whether a read of size bytes at off is allowed
// and what it yields.
func (tc *tracingCtx) access(off, size int) (ctxArg, bool) {
	if off%ptrSize != 0 {
		return ctxArg{}, false
	}
	// For tp_btf the slot numbering counts the hidden first argument
	// and the index is then used on the visible ones, as the kernel
	// does: slot 0 is the first visible argument.
	arg := tc.argIndex(off)
	params := tc.params
	nr := len(params)
	if arg > nr {
		return ctxArg{}, false
	}
	var t btf.Type
	var name string
	if arg == nr {
		switch tc.attach {
		case ebpf.AttachTraceFExit:
			t = tc.ret
		case ebpf.AttachModifyReturn:
			if _, ok := skipModifiers(tc.ret).(*btf.Int); !ok {
				return ctxArg{}, false
			}
			t = tc.ret
		default:
			return ctxArg{}, false
		}
	} else {
		t, name = params[arg].Type, params[arg].Name
	}
	t = skipModifiers(t)
	switch t.(type) {
	case *btf.Int, *btf.Enum, *btf.Struct, *btf.Union:
		return ctxArg{}, true
	}
	p, ok := t.(*btf.Pointer)
	if !ok || size != ptrSize {
		return ctxArg{}, false
	}
	target := p.Target
	var flags states.RegFlags
	if tag, ok := target.(*btf.TypeTag); ok {
		switch tag.Value {
		case "user":
			flags |= states.MemUser
		case "percpu":
			flags |= states.MemPercpu
		}
	}
	target = skipModifiers(target)
	switch target.(type) {
	case *btf.Void, *btf.Int, nil:
		// void * and int * are plain numbers to the program.
		return ctxArg{}, true
	}
	if tc.attach == ebpf.AttachTraceRawTp {
		flags |= states.PtrTrusted
	}
	if strings.HasSuffix(name, nullableSuffix) {
		flags |= states.MaybeNull
	}
	if tc.attach == ebpf.AttachTraceRawTp && arg < 16 {
		nibble := rawTPNullArgs[tc.name] >> (4 * uint(arg))
		if nibble&rawTPMaybeNull != 0 {
			flags |= states.MaybeNull
		}
		if nibble&rawTPMaybeErr != 0 {
			// An argument that may encode an error is a plain number.
			return ctxArg{}, true
		}
	}
	if !isStruct(target) {
		return ctxArg{}, false
	}
	id := btfTypeID(target)
	if id == 0 {
		return ctxArg{}, false
	}
	return ctxArg{ptr: true, id: id, flags: flags}, true
}

// tracingCtxLayout builds the context checker of a tracing program from
// its attach target; a nil checker with a nil error means the program type
// has no BTF context vercheck models.
func (e *env) tracingCtxLayout() (ctxAccessFunc, int, error) {
	if e.progType != ebpf.Tracing {
		return nil, 0, nil
	}
	switch e.attach {
	case ebpf.AttachTraceRawTp, ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn:
	default:
		return nil, 0, e.unsupported(0, "program type %s attach type %s", e.progType, e.attach)
	}
	if isSleepable(e) {
		return nil, 0, e.unsupported(0, "sleepable tracing program")
	}
	target := ""
	if e.lp != nil {
		target = e.lp.AttachTo
	}
	tc, err := tracingContext(e.attach, target)
	if err != nil {
		return nil, 0, e.unsupported(0, "attach target of %s: %v", e.attach, err)
	}
	check := func(off, size int, write bool, _ ebpf.AttachType) (CtxAccess, bool) {
		if off < 0 || off >= maxBPFFuncArgSlots*sizeU64 || write || size <= 0 || off%size != 0 {
			return CtxAccess{}, false
		}
		a, ok := tc.access(off, size)
		if !ok {
			return CtxAccess{}, false
		}
		if a.ptr {
			return CtxAccess{Kind: CtxBTFID, MaybeNull: a.flags&states.MaybeNull != 0}, true
		}
		return ctxScalarAccess, true
	}
	return check, maxBPFFuncArgSlots * sizeU64, nil
}

// loadTracingArg sets dst from a load of the BTF pointer argument at
// context offset off (after the context checker allowed it).
func (e *env) loadTracingArg(dst *states.Reg, off int) error {
	target := ""
	if e.lp != nil {
		target = e.lp.AttachTo
	}
	tc, err := tracingContext(e.attach, target)
	if err != nil {
		return e.unsupported(e.insnIdx, "attach target of %s: %v", e.attach, err)
	}
	a, ok := tc.access(off, ptrSize)
	if !ok || !a.ptr {
		return e.unsupported(e.insnIdx, "context field at off %d yielding a BTF-typed pointer", off)
	}
	dst.MarkPtr(states.PtrToBTFID, a.flags)
	dst.Aux = a.id
	if a.flags&states.MaybeNull != 0 {
		dst.ID = e.newID()
	}
	return nil
}

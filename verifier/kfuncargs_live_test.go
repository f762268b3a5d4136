package verifier

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/kfuncs"
	"github.com/vercheck/vercheck/loader"
)

// Stack layout of the kfunc argument sweep's programs.
const (
	kfaSpillTop    = -8   // the first spill slot of a produced value; the others below it
	kfaSpillSlots  = 10   // down to fp-80
	kfaIRQAt       = -88  // 8 bytes of saved irq flags
	kfaDynptrSlot  = -112 // the first of three initialised dynptrs (fp-112, -128, -144)
	kfaDynptrs     = 3
	kfaUninitDyn   = -160 // 16 bytes for a dynptr a kfunc initialises
	kfaBufSlot     = -224 // 64 bytes the prologue zeroes (the map key too)
	kfaBufLen      = 64
	kfaUninitSlot  = -288 // 64 bytes never written
	kfaIterAt      = -352 // 64 bytes for an open-coded iterator
	kfaPlausibleSz = 8    // the size a __sz or __szk argument is given
)

// Map indexes of the sweep's object.
const (
	kfaArrayMap  = iota // an array of 64-byte values
	kfaRodataMap        // a frozen .rodata holding "vercheck"
)

// kfaKind is a kind of value an argument register is given. The kinds
// before kfaSwept are given, in turn, to every argument; the others are
// only the plausible values of the arguments not swept.
type kfaKind int

const (
	kfaNull          kfaKind = iota // 0
	kfaScalar                       // the constant 1
	kfaUnknown                      // bpf_get_prandom_u32()
	kfaStack                        // fp-224: 64 initialised bytes
	kfaUninitStack                  // fp-288: 64 bytes never written
	kfaMapValue                     // an array value, checked non-NULL
	kfaMaybeNullMap                 // an array value, unchecked
	kfaCtx                          // the context
	kfaTask                         // a trusted task_struct
	kfaTaskPlus8                    // the same plus 8 (inside thread_info)
	kfaTaskCpus                     // the same plus offsetof(cpus_mask): a struct cpumask
	kfaUntrusted                    // task->last_wakee: an untrusted task_struct
	kfaRCU                          // task->real_parent: an RCU task_struct (in an RCU section)
	kfaMaybeNullTask                // bpf_task_acquire(task) unchecked (released if non-NULL)
	kfaAcquired                     // bpf_task_acquire(task) checked
	kfaAcquiredPlus8                // the same plus 8
	kfaReleased                     // bpf_task_acquire(task) checked, then released
	kfaNullSize0                    // NULL memory with a __sz argument of 0
	kfaSwept
	kfaConst        // the constant c
	kfaConstStr     // "vercheck" in the frozen .rodata
	kfaMapPtr       // the array map
	kfaDynptr       // a local dynptr over 16 bytes of a map value
	kfaUninitDynptr // 16 stack bytes for a dynptr
	kfaIterSlot     // 64 stack bytes for an iterator
	kfaIter         // an iterator made by its _new kfunc (fn)
	kfaIRQSlot      // 8 stack bytes for irq flags
	kfaIRQSaved     // irq flags bpf_local_irq_save wrote
	kfaObject       // an object an acquiring kfunc (fn) returned, checked
)

var kfaKindNames = map[kfaKind]string{
	kfaNull: "NULL", kfaScalar: "scalar 1", kfaUnknown: "unknown scalar", kfaStack: "initialised stack",
	kfaUninitStack: "uninitialised stack", kfaMapValue: "map value", kfaMaybeNullMap: "maybe-NULL map value",
	kfaCtx: "ctx", kfaTask: "trusted task", kfaTaskPlus8: "trusted task+8", kfaTaskCpus: "&task->cpus_mask",
	kfaUntrusted: "untrusted task (task->last_wakee)", kfaRCU: "RCU task (task->real_parent)",
	kfaMaybeNullTask: "maybe-NULL acquired task", kfaAcquired: "acquired task", kfaAcquiredPlus8: "acquired task+8",
	kfaReleased: "released task", kfaNullSize0: "NULL with size 0", kfaConst: "constant", kfaConstStr: "const string",
	kfaMapPtr: "map pointer", kfaDynptr: "dynptr", kfaUninitDynptr: "uninitialised dynptr slot",
	kfaIterSlot: "iterator slot", kfaIter: "iterator", kfaIRQSlot: "irq flag slot", kfaIRQSaved: "saved irq flags",
	kfaObject: "object",
}

// kfaScalarKinds are the kinds a scalar parameter is swept over.
var kfaScalarKinds = []kfaKind{kfaNull, kfaScalar, kfaUnknown, kfaStack, kfaMapValue, kfaCtx, kfaTask, kfaReleased}

// kfaVal is the value one argument is given.
type kfaVal struct {
	kind kfaKind
	c    int64    // kfaConst
	fn   *kfaFunc // kfaIter: the _new kfunc; kfaObject: the acquiring kfunc
}

func (v kfaVal) String() string {
	switch v.kind {
	case kfaConst:
		return fmt.Sprint(v.c)
	case kfaIter, kfaObject:
		return fmt.Sprintf("%s from %s", kfaKindNames[v.kind], v.fn.name)
	}
	return kfaKindNames[v.kind]
}

// kfaFunc is a kfunc of the running kernel that vercheck's table holds.
type kfaFunc struct {
	name  string
	call  asm.Instruction
	def   kfuncs.Def
	proto *btf.FuncProto
}

// kfaType is a program type of the sweep: its trusted task (code that
// leaves one in r0, nil where there is none) and the kfuncs it may call.
type kfaType struct {
	lt        protoLiveType
	sleepable bool
	task      asm.Instructions
	funcs     map[string]*kfaFunc
}

func (t *kfaType) String() string {
	s := t.lt.String()
	if t.sleepable {
		s += " (sleepable)"
	}
	return s
}

// kfaEnv is what every program of the sweep is built from.
type kfaEnv struct {
	spec                            *btf.Spec
	all                             map[string]*kfaFunc
	realParent, lastWakee, cpusMask int32 // offsets in struct task_struct
	taskID                          int64 // BTF id of struct task_struct
}

// kfaHeld is something a program holds while it builds the call's
// arguments, given back on every exit: a reference in a spill slot
// ("ref", or "ref?" when it may be NULL), an iterator or irq flags at a
// stack slot, an RCU read section.
type kfaHeld struct {
	what    string
	slot    int16
	release asm.Instruction
}

// code gives h back.
func (h kfaHeld) code() asm.Instructions {
	switch h.what {
	case "ref", "ref?":
		out := asm.Instructions{asm.LoadMem(asm.R1, asm.RFP, h.slot, asm.DWord)}
		if h.what == "ref?" {
			out = append(out, skipIfNull(asm.R1, 1))
		}
		return append(out, h.release)
	case "rcu":
		return asm.Instructions{h.release}
	}
	return cat(fpPtr(asm.R1, h.slot), asm.Instructions{h.release})
}

// kfaProg builds one program.
type kfaProg struct {
	env  *kfaEnv
	t    *kfaType
	code asm.Instructions
	slot int16 // the next spill slot
	dyn  int   // dynptrs made
	held []kfaHeld
}

// fail is what a failed acquisition runs: everything held given back,
// then "r0 = 0; exit".
func (p *kfaProg) fail() asm.Instructions {
	out := asm.Instructions{}
	for i := len(p.held) - 1; i >= 0; i-- {
		out = append(out, p.held[i].code()...)
	}
	return append(out, asm.Mov.Imm(asm.R0, 0), asm.Return())
}

func (p *kfaProg) emit(insns ...asm.Instruction) { p.code = append(p.code, insns...) }

// spill stores r0 in a new spill slot and returns it.
func (p *kfaProg) spill() int16 {
	s := p.slot
	p.slot -= 8
	p.emit(asm.StoreMem(asm.RFP, s, asm.R0, asm.DWord))
	return s
}

// fill is "reg = *(u64 *)(fp + s)", plus add when not 0.
func fill(s int16, add int32) func(asm.Register) asm.Instructions {
	return func(r asm.Register) asm.Instructions {
		out := asm.Instructions{asm.LoadMem(r, asm.RFP, s, asm.DWord)}
		if add != 0 {
			out = append(out, asm.Add.Imm(r, add))
		}
		return out
	}
}

// stackAt is "reg = fp + off".
func stackAt(off int16) func(asm.Register) asm.Instructions {
	return func(r asm.Register) asm.Instructions { return fpPtr(r, off) }
}

// taskAcquire puts bpf_task_acquire(trusted task) in r0.
func (p *kfaProg) taskAcquire() {
	p.emit(p.t.task...)
	p.emit(asm.Mov.Reg(asm.R1, asm.R0), p.t.funcs["bpf_task_acquire"].call)
}

// produce emits the code that makes v and returns the code that puts it
// into a register just before the call, and the held entry v is (-1:
// none).
func (p *kfaProg) produce(v kfaVal) (func(asm.Register) asm.Instructions, int) {
	imm := func(c int64) func(asm.Register) asm.Instructions {
		return func(r asm.Register) asm.Instructions {
			if c != int64(int32(c)) {
				return asm.Instructions{asm.LoadImm(r, c, asm.DWord)}
			}
			return asm.Instructions{asm.Mov.Imm(r, int32(c))}
		}
	}
	release := func(name string) asm.Instruction { return p.t.funcs[name].call }
	switch v.kind {
	case kfaNull:
		return imm(0), -1
	case kfaScalar:
		return imm(1), -1
	case kfaConst:
		return imm(v.c), -1
	case kfaUnknown:
		p.emit(asm.FnGetPrandomU32.Call())
		return fill(p.spill(), 0), -1
	case kfaStack:
		return stackAt(kfaBufSlot), -1
	case kfaUninitStack:
		return stackAt(kfaUninitSlot), -1
	case kfaMapValue, kfaMaybeNullMap:
		p.emit(asm.LoadMapPtr(asm.R1, kfaArrayMap))
		p.emit(fpPtr(asm.R2, kfaBufSlot)...)
		p.emit(asm.FnMapLookupElem.Call())
		if v.kind == kfaMapValue {
			p.emit(exitIfNull(p.fail())...)
		}
		return fill(p.spill(), 0), -1
	case kfaCtx:
		return func(r asm.Register) asm.Instructions { return asm.Instructions{asm.Mov.Reg(r, asm.R6)} }, -1
	case kfaTask, kfaTaskPlus8, kfaTaskCpus, kfaUntrusted, kfaRCU:
		p.emit(p.t.task...)
		switch v.kind {
		case kfaTaskPlus8:
			p.emit(asm.Add.Imm(asm.R0, 8))
		case kfaTaskCpus:
			p.emit(asm.Add.Imm(asm.R0, p.env.cpusMask))
		case kfaUntrusted:
			p.emit(asm.LoadMem(asm.R0, asm.R0, int16(p.env.lastWakee), asm.DWord))
		case kfaRCU:
			p.emit(asm.LoadMem(asm.R0, asm.R0, int16(p.env.realParent), asm.DWord))
		}
		return fill(p.spill(), 0), -1
	case kfaMaybeNullTask:
		p.taskAcquire()
		s := p.spill()
		p.held = append(p.held, kfaHeld{what: "ref?", slot: s, release: release("bpf_task_release")})
		return fill(s, 0), len(p.held) - 1
	case kfaAcquired, kfaAcquiredPlus8:
		p.taskAcquire()
		p.emit(exitIfNull(p.fail())...)
		s := p.spill()
		p.held = append(p.held, kfaHeld{what: "ref", slot: s, release: release("bpf_task_release")})
		add := int32(0)
		if v.kind == kfaAcquiredPlus8 {
			add = 8
		}
		return fill(s, add), len(p.held) - 1
	case kfaReleased:
		p.taskAcquire()
		p.emit(exitIfNull(p.fail())...)
		s := p.spill()
		p.emit(asm.Mov.Reg(asm.R1, asm.R0), release("bpf_task_release"))
		return fill(s, 0), -1
	case kfaConstStr:
		return func(r asm.Register) asm.Instructions {
			return asm.Instructions{asm.LoadMapValue(r, kfaRodataMap, 0)}
		}, -1
	case kfaMapPtr:
		return func(r asm.Register) asm.Instructions { return asm.Instructions{asm.LoadMapPtr(r, kfaArrayMap)} }, -1
	case kfaDynptr:
		at := int16(kfaDynptrSlot - 16*p.dyn)
		p.dyn++
		// bpf_dynptr_from_mem takes a map value, not the stack.
		p.emit(asm.LoadMapPtr(asm.R1, kfaArrayMap))
		p.emit(fpPtr(asm.R2, kfaBufSlot)...)
		p.emit(asm.FnMapLookupElem.Call())
		p.emit(exitIfNull(p.fail())...)
		p.emit(asm.Mov.Reg(asm.R1, asm.R0), asm.Mov.Imm(asm.R2, 16), asm.Mov.Imm(asm.R3, 0))
		p.emit(fpPtr(asm.R4, at)...)
		p.emit(asm.FnDynptrFromMem.Call())
		return stackAt(at), -1
	case kfaUninitDynptr:
		return stackAt(kfaUninitDyn), -1
	case kfaIterSlot:
		return stackAt(kfaIterAt), -1
	case kfaIRQSlot:
		return stackAt(kfaIRQAt), -1
	case kfaIRQSaved:
		p.emit(fpPtr(asm.R1, kfaIRQAt)...)
		p.emit(release("bpf_local_irq_save"))
		p.held = append(p.held, kfaHeld{what: "irq", slot: kfaIRQAt, release: release("bpf_local_irq_restore")})
		return stackAt(kfaIRQAt), len(p.held) - 1
	case kfaIter:
		vals := p.env.plausibleArgs(p.t, v.fn, 1)
		p.call(v.fn, vals)
		destroy := p.t.funcs[strings.TrimSuffix(v.fn.name, "_new")+"_destroy"]
		p.held = append(p.held, kfaHeld{what: "iter", slot: kfaIterAt, release: destroy.call})
		return stackAt(kfaIterAt), len(p.held) - 1
	case kfaObject:
		vals := p.env.plausibleArgs(p.t, v.fn, 1)
		p.call(v.fn, vals)
		if v.fn.def.Flags&kfuncs.RetNull != 0 {
			p.emit(exitIfNull(p.fail())...)
		}
		s := p.spill()
		rel := p.env.releaseFor(p.t, kfaReturnStruct(v.fn))
		p.held = append(p.held, kfaHeld{what: "ref", slot: s, release: rel.call})
		return fill(s, 0), len(p.held) - 1
	}
	panic(fmt.Sprintf("kfunc sweep: no value of kind %d", v.kind))
}

// call emits a call of f with vals in its argument registers, and
// returns which held entry each argument is (-1: none).
func (p *kfaProg) call(f *kfaFunc, vals []kfaVal) []int {
	loads := make([]func(asm.Register) asm.Instructions, len(vals))
	owner := make([]int, len(vals))
	for i, v := range vals {
		loads[i], owner[i] = p.produce(v)
	}
	for i, l := range loads {
		p.emit(l(asm.R1 + asm.Register(i))...)
	}
	p.emit(f.call)
	return owner
}

// kfaReturnStruct is the struct a kfunc returns a pointer to, or nil.
func kfaReturnStruct(f *kfaFunc) btf.Type {
	ptr, ok := skipModifiers(f.proto.Return).(*btf.Pointer)
	if !ok {
		return nil
	}
	if t := skipModifiers(ptr.Target); isStruct(t) {
		return t
	}
	return nil
}

// kfaPointee is the type a pointer parameter points to (modifiers
// skipped), or nil for a scalar parameter.
func kfaPointee(p btf.FuncParam) (btf.Type, bool) {
	ptr, ok := skipModifiers(p.Type).(*btf.Pointer)
	if !ok {
		return nil, false
	}
	return skipModifiers(ptr.Target), true
}

// kfaSized reports whether parameter i of f is memory whose size the
// next parameter gives (__sz, __szk).
func kfaSized(f *kfaFunc, i int) bool {
	ps := f.proto.Params
	if i+1 >= len(ps) {
		return false
	}
	if _, ptr := kfaPointee(ps[i]); !ptr {
		return false
	}
	n := ps[i+1].Name
	return strings.HasSuffix(n, "__sz") || strings.HasSuffix(n, "__szk")
}

// releaseFor is the kfunc of t that releases a reference to struct s,
// or nil.
func (e *kfaEnv) releaseFor(t *kfaType, s btf.Type) *kfaFunc {
	if s == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(t.funcs)) {
		f := t.funcs[name]
		if f.def.Flags&kfuncs.Release == 0 || f.def.Flags&kfuncs.Acquire != 0 || len(f.proto.Params) == 0 {
			continue
		}
		if pt, ok := kfaPointee(f.proto.Params[0]); ok && pt == s {
			return f
		}
	}
	return nil
}

// kfaStartsWith reports whether struct have is want or begins (at
// offset 0, through its first members) with a want.
func kfaStartsWith(have, want btf.Type) bool {
	for depth := 0; depth < 8 && have != nil; depth++ {
		if have == want {
			return true
		}
		members, _, _ := structMembers(have)
		if len(members) == 0 || members[0].Offset != 0 {
			return false
		}
		have = skipModifiers(members[0].Type)
		if !isStruct(have) {
			return false
		}
	}
	return false
}

// producer is an acquiring kfunc of t that returns a struct s (or one
// that starts with s), takes only values made without other kfuncs, and
// whose result t can release; nil if there is none.
func (e *kfaEnv) producer(t *kfaType, s btf.Type) *kfaFunc {
	var best *kfaFunc
	for _, name := range slices.Sorted(maps.Keys(t.funcs)) {
		f := t.funcs[name]
		d := f.def.Flags
		if d&kfuncs.Acquire == 0 || d&kfuncs.Release != 0 || d&(kfuncs.RCUProtected|kfuncs.IterNext) != 0 ||
			d&kfuncs.Sleepable != 0 && !t.sleepable {
			continue
		}
		r := kfaReturnStruct(f)
		if r == nil || !kfaStartsWith(r, s) || e.releaseFor(t, r) == nil {
			continue
		}
		ok := true
		for i := range f.proto.Params {
			if _, good := e.plausible(t, f, i, 1); !good {
				ok = false
			}
		}
		if ok && (best == nil || len(f.proto.Params) < len(best.proto.Params)) {
			best = f
		}
	}
	return best
}

// plausibleArgs are the plausible values of f's arguments.
func (e *kfaEnv) plausibleArgs(t *kfaType, f *kfaFunc, depth int) []kfaVal {
	vals := make([]kfaVal, len(f.proto.Params))
	for i := range vals {
		vals[i], _ = e.plausible(t, f, i, depth)
	}
	return vals
}

// plausible is a value parameter i of f is plausibly given in t: what
// a program calling it correctly would pass, as far as one can be made
// without state the sweep has not (a local object, a graph root). At
// depth 1 (the arguments of a kfunc that makes another argument) no
// other kfunc's result is used; ok is false when the value is only a
// stand-in.
func (e *kfaEnv) plausible(t *kfaType, f *kfaFunc, i, depth int) (kfaVal, bool) {
	ps := f.proto.Params
	p := ps[i]
	target, ptr := kfaPointee(p)
	has := func(s string) bool { return strings.HasSuffix(p.Name, s) }
	if !ptr {
		switch {
		case i > 0 && kfaSized(f, i-1):
			return kfaVal{kind: kfaConst, c: kfaPlausibleSz}, true
		case f.name == "bpf_rdonly_cast" && has("__k"):
			return kfaVal{kind: kfaConst, c: e.taskID}, true
		}
		return kfaVal{kind: kfaConst}, true
	}
	name := ""
	if target != nil {
		name = target.TypeName()
	}
	_, callback := target.(*btf.FuncProto)
	switch {
	case has("__ign"), has("__prog"), callback:
		return kfaVal{kind: kfaNull}, true
	case has("__str"):
		return kfaVal{kind: kfaConstStr}, true
	case has("__map"), name == "bpf_map":
		return kfaVal{kind: kfaMapPtr}, true
	case has("__irq_flag"):
		if strings.Contains(f.name, "restore") && depth == 0 {
			return kfaVal{kind: kfaIRQSaved}, true
		}
		return kfaVal{kind: kfaIRQSlot}, true
	case name == "bpf_dynptr":
		if has("__uninit") {
			return kfaVal{kind: kfaUninitDynptr}, true
		}
		return kfaVal{kind: kfaDynptr}, true
	case isStruct(target) && strings.HasPrefix(name, "bpf_iter_"):
		if f.def.Flags&kfuncs.IterNew != 0 && i == 0 {
			return kfaVal{kind: kfaIterSlot}, true
		}
		if fn := t.funcs[name+"_new"]; fn != nil && depth == 0 && t.funcs[name+"_destroy"] != nil {
			return kfaVal{kind: kfaIter, fn: fn}, true
		}
		return kfaVal{kind: kfaUninitStack}, false
	case name == "__sk_buff", name == "xdp_md", f.name == "bpf_cast_to_kern_ctx":
		return kfaVal{kind: kfaCtx}, true
	case kfaSized(f, i):
		return kfaVal{kind: kfaStack}, true
	case name == "task_struct":
		switch {
		case f.def.Flags&kfuncs.Release != 0 && depth == 0 && t.funcs["bpf_task_acquire"] != nil && t.task != nil:
			return kfaVal{kind: kfaAcquired}, true
		case t.task != nil:
			return kfaVal{kind: kfaTask}, true
		}
		return kfaVal{kind: kfaNull}, false
	case isStruct(target) && !isScalarStruct(target, 0):
		if depth == 0 {
			if fn := e.producer(t, target); fn != nil {
				return kfaVal{kind: kfaObject, fn: fn}, true
			}
		}
		if has("__nullable") {
			return kfaVal{kind: kfaNull}, true
		}
		return kfaVal{kind: kfaMapValue}, false
	}
	return kfaVal{kind: kfaStack}, true
}

// kfaCase is one program of the sweep: f called in t with argument arg
// given kind and the others their plausible values (arg -1: all of
// them plausible).
type kfaCase struct {
	t    *kfaType
	f    *kfaFunc
	arg  int
	kind kfaKind
}

func (c kfaCase) String() string {
	if c.arg < 0 {
		return fmt.Sprintf("%v, %s, every argument plausible", c.t, c.f.name)
	}
	return fmt.Sprintf("%v, %s, arg#%d (%s) = %s", c.t, c.f.name, c.arg, c.f.proto.Params[c.arg].Name, kfaKindNames[c.kind])
}

// values are the case's argument values.
func (c kfaCase) values(e *kfaEnv) []kfaVal {
	vals := e.plausibleArgs(c.t, c.f, 0)
	switch {
	case c.arg < 0:
	case c.kind == kfaNullSize0:
		vals[c.arg], vals[c.arg+1] = kfaVal{kind: kfaNull}, kfaVal{kind: kfaConst}
	default:
		vals[c.arg] = kfaVal{kind: c.kind}
	}
	return vals
}

// program builds the case's program: "r6 = ctx", the 64 bytes at fp-224
// zeroed, an RCU read section where a sleepable program needs one, the
// values made, the call, then its result released (an acquired pointer,
// a new iterator, a lock or saved irq flags the call took) and what the
// program still holds given back, "r0 = 0; exit".
func (c kfaCase) program(e *kfaEnv) asm.Instructions {
	p := &kfaProg{env: e, t: c.t, slot: kfaSpillTop}
	p.emit(asm.Mov.Reg(asm.R6, asm.R1))
	for off := int16(kfaBufSlot); off < kfaBufSlot+kfaBufLen; off += 8 {
		p.emit(storeImm(asm.RFP, off, 0, asm.DWord))
	}
	vals := c.values(e)
	if c.t.sleepable && kfaNeedsRCU(c.f, vals) {
		p.emit(c.t.funcs["bpf_rcu_read_lock"].call)
		p.held = append(p.held, kfaHeld{what: "rcu", release: c.t.funcs["bpf_rcu_read_unlock"].call})
	}
	owner := p.call(c.f, vals)
	f, d := c.f, c.f.def.Flags
	// What the call itself gave back is no longer held.
	for i, h := range owner {
		if h < 0 {
			continue
		}
		what := p.held[h].what
		if what == "ref" && d&kfuncs.Release != 0 || what == "iter" && d&kfuncs.IterDestroy != 0 && i == 0 ||
			what == "irq" && strings.Contains(f.name, "restore") {
			p.held[h].what = "gone"
		}
	}
	if d&kfuncs.Acquire != 0 {
		if rel := e.releaseFor(c.t, kfaReturnStruct(f)); rel != nil {
			if d&kfuncs.RetNull != 0 {
				p.emit(skipIfNull(asm.R0, 2))
			}
			p.emit(asm.Mov.Reg(asm.R1, asm.R0), rel.call)
		}
	}
	// The stack slot the call's first argument points to, if any.
	at, onStack := int16(0), false
	if len(vals) > 0 {
		switch vals[0].kind {
		case kfaStack:
			at, onStack = kfaBufSlot, true
		case kfaUninitStack:
			at, onStack = kfaUninitSlot, true
		case kfaIterSlot:
			at, onStack = kfaIterAt, true
		case kfaIRQSlot:
			at, onStack = kfaIRQAt, true
		}
	}
	undo := ""
	switch {
	case d&kfuncs.IterNew != 0 && onStack:
		undo = strings.TrimSuffix(f.name, "_new") + "_destroy"
	case f.name == "bpf_local_irq_save" && onStack:
		undo = "bpf_local_irq_restore"
	}
	if u := c.t.funcs[undo]; u != nil {
		p.emit(fpPtr(asm.R1, at)...)
		p.emit(u.call)
	}
	switch f.name {
	case "bpf_rcu_read_lock":
		p.emit(c.t.funcs["bpf_rcu_read_unlock"].call)
	case "bpf_preempt_disable":
		p.emit(c.t.funcs["bpf_preempt_enable"].call)
	}
	for i := len(p.held) - 1; i >= 0; i-- {
		if p.held[i].what != "gone" {
			p.emit(p.held[i].code()...)
		}
	}
	p.emit(asm.Mov.Imm(asm.R0, 0), asm.Return())
	return p.code
}

// kfaNeedsRCU reports whether a sleepable program calling f with vals
// needs an RCU read section: for an RCU pointer, or for a kfunc that
// must be called in one.
func kfaNeedsRCU(f *kfaFunc, vals []kfaVal) bool {
	if f.def.Flags&kfuncs.RCUProtected != 0 {
		return true
	}
	for _, v := range vals {
		if v.kind == kfaRCU || v.kind == kfaIter && v.fn.def.Flags&kfuncs.RCUProtected != 0 {
			return true
		}
	}
	return false
}

// kfaMemberOffset is the byte offset of member name in struct s
// (looking into anonymous members), or -1.
func kfaMemberOffset(s btf.Type, name string) int32 {
	members, _, _ := structMembers(s)
	for _, m := range members {
		if m.Name == name {
			return int32(m.Offset / 8)
		}
		if m.Name == "" {
			if off := kfaMemberOffset(skipModifiers(m.Type), name); off >= 0 {
				return int32(m.Offset/8) + off
			}
		}
	}
	return -1
}

// TestKfuncArgsLiveKernel calls every kfunc of vercheck's table that the
// running kernel has, in tc, XDP, syscall (sleepable), task iterator
// (sleepable and not), tp_btf (sched_switch, whose arguments are trusted
// task pointers) and kprobe programs, wherever the program type may call
// it, with each argument in turn given each of a set of values while the
// others get a plausible one: NULL, a nonzero constant, an unknown
// scalar, stack memory initialised and not, a map value checked and
// unchecked, the context, a trusted task_struct (bpf_get_current_task_btf,
// or the tracepoint's argument), the same at offset 8 and at its
// cpus_mask (a struct cpumask inside it), an untrusted one
// (task->last_wakee), an RCU one (task->real_parent, in an RCU read
// section where the program sleeps), an unchecked, a checked and a
// released bpf_task_acquire reference, the acquired one at offset 8, and
// NULL memory with a size of 0. The plausible values are what a correct
// caller passes where the sweep can make it: constants (8 for a size, the
// BTF id of task_struct for bpf_rdonly_cast), a const string of a frozen
// map, the map, local dynptrs, iterators made by their _new kfunc, saved
// irq flags, and objects (a cgroup, a bpf_cpumask, a key, a conntrack
// entry) from an acquiring kfunc, released after the call. Every
// reference the call or the program took is released before the exit.
// Verdict, decisive message and insn_processed (of rejections too) are
// compared with the running kernel.
//
// The kernel code under test is check_kfunc_args and its helpers:
// get_kfunc_ptr_arg_type (KF_ARG_PTR_TO_CTX, _BTF_ID, _MEM, _MEM_SIZE,
// _DYNPTR, _ITER, _CONST_STR, _MAP, _IRQ_FLAG, _NULL for __nullable and
// the "must point to scalar, or struct with scalar" refusal), the
// trusted-argument rule that is every kfunc's default in 6.18 ("Possibly
// NULL pointer passed to trusted arg", "R%d must be referenced or
// trusted", KF_RCU's "must be a rcu pointer"), check_func_arg_reg_off
// (offsets of trusted pointers, the zero offset of a KF_RELEASE argument),
// process_kf_arg_ptr_to_btf_id's btf_struct_ids_match (a pointer at a
// nonzero offset to an embedded struct, the walk into a first member,
// the strict match of a release), check_kfunc_mem_size_reg with __sz and
// __szk (a NULL buffer of size 0 is refused for memory that is not
// __opt: a false accept found before), __k constants, and the
// ref_obj_id bookkeeping of KF_ACQUIRE and KF_RELEASE. A verifier that
// lets a wrong pointer through here hands the kernel function an object
// it does not expect: a false accept of the worst kind.
//
// By default a fixed sample of some 1300 of the programs is loaded (a
// kernel load takes some 10 ms); VERCHECK_KFUNCARGS_ALL=1 loads them all.
func TestKfuncArgsLiveKernel(t *testing.T) {
	spec, missing := liveKernelBTF(t)
	e := &kfaEnv{spec: spec, all: map[string]*kfaFunc{}}
	var task *btf.Struct
	if err := spec.TypeByName("task_struct", &task); err != nil {
		t.Skipf("no struct task_struct in kernel BTF: %v", err)
	}
	id, err := spec.TypeID(task)
	if err != nil {
		t.Fatal(err)
	}
	e.taskID = int64(id)
	e.realParent = kfaMemberOffset(task, "real_parent")
	e.lastWakee = kfaMemberOffset(task, "last_wakee")
	e.cpusMask = kfaMemberOffset(task, "cpus_mask")
	if e.realParent < 0 || e.lastWakee < 0 || e.cpusMask < 0 {
		t.Skipf("struct task_struct lacks real_parent, last_wakee or cpus_mask (%d, %d, %d)",
			e.realParent, e.lastWakee, e.cpusMask)
	}
	absent := 0
	for _, name := range kfuncs.Names() {
		var fn *btf.Func
		if spec.TypeByName(name, &fn) != nil {
			absent++
			continue
		}
		id, err := spec.TypeID(fn)
		if err != nil {
			t.Fatal(err)
		}
		def, _ := kfuncs.Lookup(name)
		proto, ok := fn.Type.(*btf.FuncProto)
		if !ok {
			continue
		}
		e.all[name] = &kfaFunc{name: name, call: kfuncCall(int64(id)), def: def, proto: proto}
	}
	objMaps := []*loader.Map{
		kfaArrayMap: {Name: "arr", Type: ebpf.Array, KeySize: 4, ValueSize: 64, MaxEntries: 1},
		kfaRodataMap: {Name: ".rodata", Type: ebpf.Array, KeySize: 4, ValueSize: 16, MaxEntries: 1,
			Flags: maRdonlyProg, ReadOnly: true, Contents: []byte("vercheck\x00\x00\x00\x00\x00\x00\x00\x00")},
	}
	obj := &loader.Object{Path: "test", Maps: objMaps}
	newProg := func(lt protoLiveType, insns asm.Instructions) *loader.Program {
		return &loader.Program{Name: "p", Type: lt.pt, AttachType: lt.at, AttachTo: lt.attachTo, Flags: lt.flags,
			License: "GPL", GPLCompatible: true, Instructions: insns}
	}
	currentTask := asm.Instructions{asm.FnGetCurrentTaskBtf.Call()}
	types := []*kfaType{
		{lt: protoLiveType{pt: ebpf.SchedCLS}, task: currentTask},
		{lt: protoLiveType{pt: ebpf.XDP}, task: currentTask},
		{lt: protoLiveType{pt: ebpf.Syscall, flags: loader.FlagSleepable}, sleepable: true, task: currentTask},
		{lt: protoLiveType{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task"}, task: currentTask},
		{lt: protoLiveType{pt: ebpf.Tracing, at: ebpf.AttachTraceIter, attachTo: "task", flags: loader.FlagSleepable},
			sleepable: true, task: currentTask},
		// sched_switch(bool preempt, struct task_struct *prev, ...).
		{lt: protoLiveType{pt: ebpf.Tracing, at: ebpf.AttachTraceRawTp, attachTo: "sched_switch"},
			task: asm.Instructions{asm.LoadMem(asm.R0, asm.R6, 8, asm.DWord)}},
		{lt: protoLiveType{pt: ebpf.Kprobe}, task: currentTask},
	}
	var cases []kfaCase
	for _, kt := range types {
		// The trusted task only where the kernel lets the program have
		// one.
		probe := cat(asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}, kt.task, asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()})
		if kres := kernel.LoadProgramVerdict(obj, newProg(kt.lt, probe)); kres.NotLoaded {
			t.Logf("%v: no kernel verdict (%s): left out", kt, kres.Err)
			continue
		} else if !kres.Accepted {
			t.Logf("%v: no trusted task (%s)", kt, kres.Err)
			kt.task = nil
		}
		// The kfuncs vercheck lets the type call: a call refused as not
		// allowed, or sleepable in a program that is not, never reaches
		// the arguments (TestKfuncAllowedLiveKernel compares that).
		kt.funcs = map[string]*kfaFunc{}
		for name, f := range e.all {
			insns := asm.Instructions{asm.Mov.Imm(asm.R1, 0), asm.Mov.Imm(asm.R2, 0), asm.Mov.Imm(asm.R3, 0),
				asm.Mov.Imm(asm.R4, 0), asm.Mov.Imm(asm.R5, 0), f.call, asm.Mov.Imm(asm.R0, 0), asm.Return()}
			res := Verify(&loader.Object{Path: "test"}, newProg(kt.lt, insns), Options{MissingFixes: missing})
			if res.Err != nil && (strings.Contains(res.Err.Error(), "calling kernel function "+name+" is not allowed") ||
				strings.Contains(res.Err.Error(), "program must be sleepable to call sleepable kfunc")) {
				continue
			}
			kt.funcs[name] = f
		}
		for _, name := range []string{"bpf_rcu_read_lock", "bpf_rcu_read_unlock", "bpf_local_irq_save", "bpf_local_irq_restore"} {
			if kt.funcs[name] == nil {
				t.Fatalf("%v cannot call %s", kt, name)
			}
		}
		taskRefs := kt.task != nil && kt.funcs["bpf_task_acquire"] != nil && kt.funcs["bpf_task_release"] != nil
		for _, name := range slices.Sorted(maps.Keys(kt.funcs)) {
			f := kt.funcs[name]
			cases = append(cases, kfaCase{t: kt, f: f, arg: -1})
			for i, p := range f.proto.Params {
				kinds := kfaScalarKinds
				if _, ptr := kfaPointee(p); ptr {
					kinds = nil
					for k := kfaKind(0); k < kfaSwept; k++ {
						kinds = append(kinds, k)
					}
				}
				for _, k := range kinds {
					switch {
					case k >= kfaTask && k <= kfaRCU && kt.task == nil,
						k >= kfaMaybeNullTask && k <= kfaReleased && !taskRefs,
						k == kfaNullSize0 && !kfaSized(f, i):
						continue
					}
					cases = append(cases, kfaCase{t: kt, f: f, arg: i, kind: k})
				}
			}
		}
	}
	if len(cases) == 0 {
		t.Skip("the kernel gave no verdict in any program type")
	}

	// A kernel load takes some 10 ms (the maps are created for each
	// program): by default a fixed sample, chosen by a hash of the case
	// so that it spreads over kfuncs, arguments and kinds.
	all := os.Getenv("VERCHECK_KFUNCARGS_ALL") != ""
	var only *regexp.Regexp
	if o := os.Getenv("VERCHECK_KFUNCARGS_ONLY"); o != "" {
		only = regexp.MustCompile(o)
	}
	showLogs := os.Getenv("VERCHECK_KFUNCARGS_LOG") != ""
	const sample = 1300
	keep := func(c kfaCase) bool {
		if only != nil {
			return only.MatchString(c.String())
		}
		if all || len(cases) <= sample {
			return true
		}
		h := fnv.New32a()
		fmt.Fprint(h, c.String())
		return int(h.Sum32()%uint32(len(cases))) < sample
	}
	start := time.Now()
	compared, accepted, differ, unsupported := 0, 0, 0, 0
	exercised := map[string]bool{}
	noVerdict := map[string]int{}
	unsupp := map[string]int{}
	for _, c := range cases {
		if !keep(c) {
			continue
		}
		insns := c.program(e)
		p := newProg(c.t.lt, insns)
		opts := Options{MissingFixes: missing}
		if showLogs {
			opts.LogLevel = 2
		}
		res := Verify(obj, p, opts)
		if showLogs {
			klog, err := kernel.ProgramLog(obj, p, 2)
			t.Logf("%v:\n%s\nkernel log (%v):\n%s\nvercheck log (%v):\n%s", c, listing(insns), err, klog, res.Err, res.Log)
		}
		if errors.Is(res.Err, ErrUnsupported) {
			unsupported++
			unsupp[fmt.Sprintf("%s: %v", c.f.name, res.Err)]++
			continue
		}
		kres := kernel.LoadProgramVerdict(obj, p)
		if kres.NotLoaded {
			noVerdict[fmt.Sprintf("%v: %s", c.t, kres.Err)]++
			continue
		}
		compared++
		exercised[c.f.name] = true
		if kres.Accepted {
			accepted++
		}
		got := ""
		var re *RejectError
		if errors.As(res.Err, &re) {
			got = lastLine(re.Msg)
		} else if res.Err != nil {
			got = res.Err.Error()
		}
		if os.Getenv("VERCHECK_KFUNCARGS_SHOW") != "" {
			t.Logf("%v: kernel %q (%d), vercheck %q (%d)", c, kres.Err, kres.InsnProcessed, got, res.Stats.InsnProcessed)
		}
		if got == kres.Err && res.Accepted == kres.Accepted && res.Stats.InsnProcessed == kres.InsnProcessed {
			continue
		}
		differ++
		what := fmt.Sprintf("%v (values %v):\n%v", c, c.values(e), listing(insns))
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
	for _, m := range []struct {
		what   string
		counts map[string]int
	}{{"no kernel verdict", noVerdict}, {"unsupported by vercheck", unsupp}} {
		for _, k := range slices.Sorted(maps.Keys(m.counts)) {
			t.Logf("%s: %d× %s", m.what, m.counts[k], k)
		}
	}
	if compared == 0 {
		t.Skip("the kernel gave no verdict on any program")
	}
	t.Logf("%d of %d programs compared in %v (%d accepted by the kernel), %d differ, %d unsupported by vercheck; "+
		"%d kfuncs exercised (%d of the table's are not in the kernel's BTF)",
		compared, len(cases), time.Since(start).Round(time.Second), accepted, differ, unsupported, len(exercised), absent)
	if accepted == 0 || accepted == compared {
		t.Errorf("the kernel accepted %d of %d programs: the sweep tests nothing", accepted, compared)
	}
}

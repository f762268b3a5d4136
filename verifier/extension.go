package verifier

// Extension (freplace) programs: BPF_PROG_TYPE_EXT replacing a global
// function of a target program (loader.ExtensionTarget).
//
// The kernel checks the target before it verifies a single instruction
// (bpf_check_attach_target): the function must be a global one whose
// prototype the target's verification found reliable ("Cannot replace
// static functions"), the target no extension itself ("Cannot recursively
// attach") nor an fentry/fexit program, and the extension's own prototype
// (its func_info[0]) must match the function's (btf_check_type_match).
// The extension is then verified as a program of the target's type and
// expected attach type (env->ops and resolve_prog_type), its main function
// from a state its prototype gives, as a global function's
// (do_check_common), and its exit checked as that program type's main
// exit. A static function is never replaced (reliablePrototype). Targets
// vercheck does not model (program types whose context is an attach
// target's BTF, extensions that change packet data or may sleep, whose
// target's own effects decide) are unsupported.

import (
	"fmt"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// resolveExtension checks an Extension program's target and makes the
// target's program type and attach type the program's own for the
// verification.
func (e *env) resolveExtension() error {
	if e.progType != ebpf.Extension || e.lp == nil {
		return nil
	}
	tgt := e.lp.ExtTarget
	if tgt == nil {
		return e.unsupported(0, "freplace program without a target program (--target OBJ)")
	}
	if tgt.Program == nil {
		return e.unsupported(0, "the target object %s has no such program", tgt.Object.Path)
	}
	if tgt.Func == nil {
		// libbpf finds no such function in the target's BTF and refuses
		// before the kernel sees the program.
		return e.unsupported(0, "target program %s has no function %s", tgt.Program.Name, e.lp.AttachTo)
	}
	tp := tgt.Program
	switch {
	case tp.Type == ebpf.Extension:
		return e.rejectEINVAL("Cannot recursively attach")
	case tp.Type == ebpf.Tracing && (tp.AttachType == ebpf.AttachTraceFEntry || tp.AttachType == ebpf.AttachTraceFExit):
		return e.rejectEINVAL("Cannot extend fentry/fexit")
	case hasBTFContext(tp.Type):
		return e.unsupported(0, "freplace of a %s program", tp.Type)
	}
	p := prepareFuncArgs(tgt.Func.BTF, tgt.FuncIndex, tp.Type, loadAttachType(tp.Type, tp.AttachType))
	if tgt.Func.Global && p.unsupported != "" {
		return e.unsupported(0, "target function %s: %s", tgt.Func.Name, p.unsupported)
	}
	if !reliablePrototype(p, tgt.Func.Global) {
		// The target's verification marked the prototype unreliable.
		return e.rejectEINVAL("Cannot replace static functions")
	}
	var own *btf.Func
	for i := range e.lp.Funcs {
		if e.lp.Funcs[i].Start == 0 {
			own = e.lp.Funcs[i].BTF
		}
	}
	if own == nil {
		return e.rejectEINVAL("Program extension requires BTF")
	}
	// A static target always fails here: the type match takes global
	// functions only ("%s() is not a global function").
	if msg := funcTypeMismatch(own, tgt.Func.BTF); msg != "" {
		return e.rejectEINVAL(msg)
	}
	e.progType, e.attach = tp.Type, loadAttachType(tp.Type, tp.AttachType)
	e.ext = tgt
	return nil
}

// reliablePrototype reports whether the target's verification found the
// replaced function's prototype reliable, which bpf_check_attach_target
// asks of it ("Cannot replace static functions" otherwise). A global
// function's is where btf_prepare_func_args takes it. A static
// function's fails, silently, on any parameter other than an int, an
// enum or the context, and on a return value other than an int or enum;
// a call whose arguments do not match the prototype
// (btf_check_subprog_call) makes it unreliable too, which vercheck does
// not look for, so the type match's message may stand where the kernel
// says this one. The verdict is the same: a static function is never
// replaced.
func reliablePrototype(p *globalProto, global bool) bool {
	if global {
		return p.msg == ""
	}
	if p.msg != "" || p.unsupported != "" {
		return false
	}
	for _, a := range p.args {
		if a.kind != globalArgScalar && a.kind != globalArgCtx {
			return false
		}
	}
	return true
}

// rejectEINVAL is a rejection bpf_check_attach_target returns -EINVAL for.
func (e *env) rejectEINVAL(msg string) error {
	return e.rejectErrno(syscall.EINVAL, 0, "%s", msg)
}

// checkExtensionEffects refuses what the kernel decides from the target
// function's own effects, which vercheck does not compute: an extension
// that changes packet data or may sleep is unsupported.
func (e *env) checkExtensionEffects() error {
	if e.ext == nil {
		return nil
	}
	if eff := e.subprogEffects(0); eff != 0 {
		return e.unsupported(0, "freplace program that changes packet data or may sleep: the target function's own effects decide")
	}
	return nil
}

// funcTypeMismatch is btf_check_func_type_match: the kernel's message when
// the extension's function ext does not match the target's function tgt,
// "" when it does.
func funcTypeMismatch(ext, tgt *btf.Func) string {
	if ext.Linkage != btf.GlobalFunc {
		return fmt.Sprintf("%s() is not a global function", ext.Name)
	}
	if tgt.Linkage != btf.GlobalFunc {
		return fmt.Sprintf("%s() is not a global function", tgt.Name)
	}
	p1, ok1 := ext.Type.(*btf.FuncProto)
	p2, ok2 := tgt.Type.(*btf.FuncProto)
	if !ok1 || !ok2 {
		return fmt.Sprintf("Invalid type of function %s()", ext.Name)
	}
	if len(p1.Params) != len(p2.Params) {
		return fmt.Sprintf("%s() has %d args while %s() has %d args", ext.Name, len(p1.Params), tgt.Name, len(p2.Params))
	}
	r1, r2 := skipModifiers(p1.Return), skipModifiers(p2.Return)
	if !btfInfoEqual(r1, r2) {
		return fmt.Sprintf("Return type %s of %s() doesn't match type %s of %s()", btfKindStr(r1), ext.Name, btfKindStr(r2), tgt.Name)
	}
	for i := range p1.Params {
		t1, t2 := skipModifiers(p1.Params[i].Type), skipModifiers(p2.Params[i].Type)
		if !btfInfoEqual(t1, t2) {
			return fmt.Sprintf("arg%d in %s() is %s while %s() has %s", i, ext.Name, btfKindStr(t1), tgt.Name, btfKindStr(t2))
		}
		if s1, ok := btfSizeOf(t1); ok {
			if s2, _ := btfSizeOf(t2); s1 != s2 {
				return fmt.Sprintf("arg%d in %s() has size %d while %s() has %d", i, ext.Name, s1, tgt.Name, s2)
			}
		}
		if isScalarBTF(t1) {
			continue
		}
		ptr1, ok := t1.(*btf.Pointer)
		if !ok {
			return fmt.Sprintf("arg%d in %s() has unrecognized type", i, ext.Name)
		}
		s1, ok1 := skipModifiers(ptr1.Target).(*btf.Struct)
		s2, ok2 := skipModifiers(t2.(*btf.Pointer).Target).(*btf.Struct)
		switch {
		case !ok1:
			return fmt.Sprintf("arg%d in %s() is not a pointer to context", i, ext.Name)
		case !ok2:
			return fmt.Sprintf("arg%d in %s() is not a pointer to context", i, tgt.Name)
		case s1.Name != s2.Name:
			return fmt.Sprintf("arg%d %s(struct %s *) doesn't match %s(struct %s *)", i, ext.Name, s1.Name, tgt.Name, s2.Name)
		}
	}
	return ""
}

// btfInfoEqual compares two types' BTF info words: kind, member or value
// count (vlen) and kind flag.
func btfInfoEqual(a, b btf.Type) bool {
	if btfKindStr(a) != btfKindStr(b) {
		return false
	}
	v1, f1 := btfVlenFlag(a)
	v2, f2 := btfVlenFlag(b)
	return v1 == v2 && f1 == f2
}

// btfVlenFlag is a type's vlen and kind flag as its BTF info word has them.
func btfVlenFlag(t btf.Type) (int, bool) {
	switch v := t.(type) {
	case *btf.Struct:
		return len(v.Members), hasBitfield(v.Members)
	case *btf.Union:
		return len(v.Members), hasBitfield(v.Members)
	case *btf.Enum:
		return len(v.Values), v.Signed
	case *btf.FuncProto:
		return len(v.Params), false
	case *btf.Fwd:
		return 0, v.Kind == btf.FwdUnion
	}
	return 0, false
}

// hasBitfield reports whether a member is a bitfield, which makes the
// struct's BTF carry its kind flag (bitfield offsets encoded).
func hasBitfield(ms []btf.Member) bool {
	for _, m := range ms {
		if m.BitfieldSize != 0 {
			return true
		}
	}
	return false
}

// btfSizeOf is the size of the kinds whose BTF has one
// (btf_type_has_size).
func btfSizeOf(t btf.Type) (uint32, bool) {
	switch v := t.(type) {
	case *btf.Int:
		return v.Size, true
	case *btf.Struct:
		return v.Size, true
	case *btf.Union:
		return v.Size, true
	case *btf.Enum:
		return v.Size, true
	case *btf.Float:
		return v.Size, true
	}
	return 0, false
}

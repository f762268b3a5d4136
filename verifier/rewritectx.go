package verifier

import (
	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

// The context and socket parts of convert_ctx_accesses' lengths, from the
// tables of package ctxaccess.

// skbTstampTypeOff is offsetof(struct __sk_buff, tstamp_type): an access
// there makes tc_cls_act_is_valid_access set prog->tstamp_type_access,
// which changes how every access to tstamp is rewritten.
const skbTstampTypeOff = 180

// ctxConvertLen is convert_ctx_access's length for op through the
// program's context; ok is false when it is not modelled. Programs whose
// context is typed by BTF (tracing, LSM, struct_ops) have no
// convert_ctx_access: their accesses stay as they are. An Extension's
// rewrites are its target's (resolve_prog_type), not modelled.
func (e *env) ctxConvertLen(op ctxaccess.Op) (int, bool) {
	if check, _ := ctxaccess.Layout(e.progType); check == nil {
		return 1, e.progType != ebpf.Extension
	}
	return ctxaccess.RewriteLen(e.progType, e.attach, op)
}

// readsTstampType is prog->tstamp_type_access: some access a path reached
// is to __sk_buff's tstamp_type, in a tc program.
func (e *env) readsTstampType() bool {
	if e.progType != ebpf.SchedCLS && e.progType != ebpf.SchedACT {
		return false
	}
	for i, in := range e.prog {
		if e.seen[i] && e.auxPtr[i].t == states.PtrToCtx && in.Off == skbTstampTypeOff && in.Class() != insn.ClassLD && in.Class() != insn.ClassJMP {
			return true
		}
	}
	return false
}

// prologueLen is gen_prologue's length (with the first instruction, 0 for
// none).
func (e *env) prologueLen() (int, bool) {
	if check, _ := ctxaccess.Layout(e.progType); check == nil {
		return 0, e.progType != ebpf.Extension
	}
	return ctxaccess.PrologueLen(e.progType, e.attach, e.seenDirectWrite)
}

// sockKinds names the socket struct each socket pointer type reaches.
var sockKinds = map[states.RegType]ctxaccess.SockKind{
	states.PtrToSocket:     ctxaccess.Sock,
	states.PtrToSockCommon: ctxaccess.SockCommonPtr,
	states.PtrToTCPSock:    ctxaccess.TCPSock,
	states.PtrToXDPSock:    ctxaccess.XDPSock,
}

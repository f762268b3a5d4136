package verifier

import (
	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/states"
)

// checkTPBufferAccess is check_tp_buffer_access: loads and stores through
// the writable tracepoint buffer at a constant, non-negative offset. How
// far the program reaches is checked against the tracepoint's buffer when
// it is attached, not when it is loaded.
func (e *env) checkTPBufferAccess(regno, off, size int, dst *states.Reg) error {
	reg := &e.regs()[regno]
	if off < 0 {
		return e.reject(e.insnIdx, "R%d invalid tracepoint buffer access: off=%d, size=%d", regno, off, size)
	}
	if !reg.Var.IsConst() || reg.Var.Value != 0 {
		return e.reject(e.insnIdx, "R%d invalid variable buffer offset: off=%d, var_off=%s", regno, off, reg.Var.String())
	}
	if dst != nil {
		e.markUnknown(dst)
	}
	return nil
}

// loadCtxBTFStruct sets dst from a context field that holds a trusted
// pointer to a kernel struct (acc.BTFStruct).
func (e *env) loadCtxBTFStruct(dst *states.Reg, acc ctxaccess.Access) error {
	id := uint32(0)
	if t := btfStructByName(acc.BTFStruct); t != nil {
		id = btfTypeID(t)
	}
	if id == 0 {
		return e.unsupported(e.insnIdx, "context field pointing to struct %s, not in kernel BTF", acc.BTFStruct)
	}
	dst.MarkPtr(states.PtrToBTFID, states.PtrTrusted)
	dst.Aux = id
	return nil
}

// sizeU64 is the width of a 64-bit access, and of a pointer.
const sizeU64 = 8

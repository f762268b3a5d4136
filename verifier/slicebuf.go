package verifier

import (
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// Dynptr slices over a stack buffer.
//
// bpf_dynptr_slice(_rdwr) copies the data into the buffer it is given when
// it cannot point into the dynptr's memory, and returns the buffer: the
// slice may point into the stack. This machine's 6.18.44 build
// (stablefix.SliceBufferInvalidate) records on the slice the stack bytes the
// buffer may occupy (states.Reg.Buf: the buffer argument's frame, its
// lowest offset, and its size plus the spread of a variable offset), and
// ends the slice when one of them may change behind the verifier's back:
//
//   - any write to the stack that may reach one of its bytes: a store or
//     spill, at a fixed or a variable offset, through r10 or another
//     pointer, from any frame; an atomic; the byte writes by which a
//     helper fills a buffer (raw mode); a dynptr or iterator built there.
//     The memory check of a kfunc's buffer argument writes the stack
//     without them and ends nothing (a second slice over the same buffer
//     leaves the first);
//   - the exit of the function whose frame holds the buffer.
//
// Every copy of the slice, in a register or spilled to any frame, becomes
// an unknown scalar, after the write is recorded (a slice spilled into its
// own buffer reads back as a scalar). Nothing is marked scratched: the log
// line of the store does not show them.

// recordSliceBuffer remembers the stack a dynptr slice's buffer argument
// (regno, sized by the constant in regno+1) may occupy. (The precision
// marks of a NULL buffer and of the size are stablefix.NullArgPrecise's
// and stablefix.SzkPrecise's.)
func (e *env) recordSliceBuffer(info *kfuncInfo, meta *kfuncMeta, regno int) {
	if !isDynptrSliceKfunc(info.name) || e.opts.MissingFixes.Has(stablefix.SliceBufferInvalidate) {
		return
	}
	if reg := &e.regs()[regno]; reg.Type == states.PtrToStack {
		meta.buf = stackBufOf(reg, meta.constant)
	}
}

// isDynptrSliceKfunc reports whether the kfunc is bpf_dynptr_slice(_rdwr).
func isDynptrSliceKfunc(name string) bool {
	return name == "bpf_dynptr_slice" || name == "bpf_dynptr_slice_rdwr"
}

// stackBufOf is the stack a buffer argument of size bytes at the stack
// pointer reg may occupy.
func stackBufOf(reg *states.Reg, size uint64) states.StackBuf {
	lo := int64(reg.Off) + reg.SMin
	hi := int64(reg.Off) + reg.SMax + int64(size)
	return states.StackBuf{Off: int16(lo), Size: uint16(hi - lo), Frame: uint8(reg.FrameNo())}
}

// endSlicesOver turns every dynptr slice whose stack buffer shares a byte
// with the offsets [lo, hi) of frame frameNo into an unknown scalar.
func (e *env) endSlicesOver(frameNo, lo, hi int) {
	if !e.sliceBufs {
		return
	}
	forEachReg(e.cur, func(r *states.Reg) {
		if r.Type == states.PtrToMem && r.Buf.Overlaps(frameNo, lo, hi) {
			e.markUnknown(r)
		}
	})
}

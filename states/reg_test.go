package states

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// smallRange returns the scalar of a value known to lie in [lo, hi] with
// bits outside mask known zero; lo, hi must be small non-negative numbers.
func smallRange(lo, hi, mask uint64) Scalar {
	return Scalar{
		Var:  Tnum{Mask: mask},
		SMin: int64(lo), SMax: int64(hi), UMin: lo, UMax: hi,
		S32Min: int32(lo), S32Max: int32(hi), U32Min: uint32(lo), U32Max: uint32(hi),
	}
}

// dirty returns a register with every field set, to check that
// constructors reset what they should.
func dirty() Reg {
	return marked(Reg{
		Scalar: smallRange(1, 7, 7), Off: 12, Range: 30, ID: 4, RefObjID: 5,
		Aux: 6, Type: PtrToPacket, Flags: MaybeNull | MemRdonly,
	}, 3, true)
}

// marked returns r with the frame number and precision mark given: the
// two share a byte, so they have no composite-literal fields.
func marked(r Reg, frameNo int, precise bool) Reg {
	r.SetFrameNo(frameNo)
	r.SetPrecise(precise)
	return r
}

func TestRegFrameAndPrecisionShareAByte(t *testing.T) {
	var r Reg
	r.SetPrecise(true)
	r.SetFrameNo(MaxCallFrames - 1)
	if r.FrameNo() != MaxCallFrames-1 || !r.Precise() {
		t.Fatalf("after SetFrameNo: frame %d precise %v, want %d true", r.FrameNo(), r.Precise(), MaxCallFrames-1)
	}
	r.SetPrecise(false)
	if r.FrameNo() != MaxCallFrames-1 || r.Precise() {
		t.Fatalf("after SetPrecise(false): frame %d precise %v, want %d false", r.FrameNo(), r.Precise(), MaxCallFrames-1)
	}
}

func TestRegConstructors(t *testing.T) {
	tests := []struct {
		name string
		mark func(r *Reg)
		want Reg
	}{
		{"unknown imprecise", func(r *Reg) { r.MarkUnknown(false) },
			Reg{Scalar: UnknownScalar(), Type: ScalarValue}},
		{"unknown precise", func(r *Reg) { r.MarkUnknown(true) },
			marked(Reg{Scalar: UnknownScalar(), Type: ScalarValue}, 0, true)},
		{"const", func(r *Reg) { r.MarkConst(42) },
			Reg{Scalar: ConstScalar(42), Type: ScalarValue}},
		{"not init", func(r *Reg) { r.MarkNotInit() },
			Reg{Scalar: UnknownScalar()}},
		{"ptr", func(r *Reg) { r.MarkPtr(PtrToMapValue, MaybeNull) },
			Reg{Scalar: ConstScalar(0), Type: PtrToMapValue, Flags: MaybeNull}},
		{"frame pointer", func(r *Reg) { r.MarkFramePointer(2) },
			marked(Reg{Scalar: ConstScalar(0), Type: PtrToStack}, 2, false)},
		{"known keeps type, frame and precision", func(r *Reg) { r.MarkKnown(8) },
			marked(Reg{Scalar: ConstScalar(8), Type: PtrToPacket, Flags: MaybeNull | MemRdonly}, 3, true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := dirty()
			tt.mark(&r)
			if diff := cmp.Diff(tt.want, r, allowReg); diff != "" {
				t.Errorf("register mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegPredicates(t *testing.T) {
	var notInit, unknown, zero, one, ptr, nullable, pkt Reg
	notInit.MarkNotInit()
	unknown.MarkUnknown(false)
	zero.MarkConst(0)
	one.MarkConst(1)
	ptr.MarkPtr(PtrToCtx, 0)
	nullable.MarkPtr(PtrToMapValue, MaybeNull)
	pkt.MarkPtr(PtrToPacketMeta, 0)
	type preds struct{ Pointer, Scalar, Null, Const, Pkt, MaybeNull bool }
	tests := []struct {
		name string
		r    Reg
		want preds
	}{
		{"not init", notInit, preds{}},
		{"unknown", unknown, preds{Scalar: true}},
		{"zero", zero, preds{Scalar: true, Null: true, Const: true}},
		{"one", one, preds{Scalar: true, Const: true}},
		{"ctx", ptr, preds{Pointer: true}},
		{"map_value_or_null", nullable, preds{Pointer: true, MaybeNull: true}},
		{"pkt_meta", pkt, preds{Pointer: true, Pkt: true}},
	}
	for _, tt := range tests {
		got := preds{tt.r.IsPointer(), tt.r.IsScalar(), tt.r.IsNull(), tt.r.IsConst(), tt.r.IsPktPointer(), tt.r.MaybeNull()}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: predicates mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestMapUID(t *testing.T) {
	tests := []struct {
		typ  RegType
		want uint32
	}{
		{ConstPtrToMap, 7},
		{PtrToMapValue, 7},
		{PtrToMapKey, 7},
		{PtrToMem, 0},
		{PtrToPacket, 0},
	}
	for _, tt := range tests {
		var r Reg
		r.MarkPtr(tt.typ, 0)
		r.SetMapUID(7)
		if got := r.MapUID(); got != tt.want {
			t.Errorf("MapUID of %v = %d, want %d", tt.typ, got, tt.want)
		}
	}
}

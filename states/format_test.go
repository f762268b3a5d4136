package states

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRegString(t *testing.T) {
	signed := func(lo, hi int64) Reg { // unknown bits, signed bounds only
		return Reg{Type: ScalarValue, Scalar: Scalar{
			Var: TnumUnknown(), SMin: lo, SMax: hi, UMax: math.MaxUint64,
			S32Min: int32(lo), S32Max: int32(hi), U32Max: math.MaxUint32,
		}}
	}
	linked := func(off int32) Reg {
		r := bounded(0, 255, 0xff, false, 3|AddConstID)
		r.Off = off
		return r
	}
	tests := []struct {
		name string
		r    Reg
		want string
	}{
		{"const", konst(42, false), "42"},
		{"precise const", konst(42, true), "P42"},
		{"minus one", konst(math.MaxUint64, false), "-1"},
		{"large const in hex", konst(100000, false), "0x186a0"},
		{"large negative const in hex", konst(uint64(0xffffffffffff63c0), false), "0xffffffffffff63c0"},
		{"unknown", unknown(), "scalar()"},
		{"precise unknown", func() Reg { r := unknown(); r.SetPrecise(true); return r }(), "Pscalar()"},
		{"byte", bounded(0, 255, 0xff, false, 0), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))"},
		{"byte with id", bounded(0, 255, 0xff, false, 3), "scalar(id=3,smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))"},
		{"linked plus", linked(4), "scalar(id=3+4,smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))"},
		{"linked minus", linked(-4), "scalar(id=3-4,smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))"},
		{"signed small", signed(-5, 5), "scalar(smin=smin32=-5,smax=smax32=5)"},
		{"signed large", signed(-40000, 40000), "scalar(smin=0xffffffffffff63c0,smax=smax32=0x9c40,smin32=0xffff63c0)"},
		{"not init", notInit(), "?"},
		{"ctx", ptr(PtrToCtx, 0, nil), "ctx()"},
		{"ctx with offset", ptr(PtrToCtx, 0, func(r *Reg) { r.Off = 8 }), "ctx(off=8)"},
		{"fp0", stackPtr(0, 0), "fp0"},
		{"fp-8", stackPtr(-8, 0), "fp-8"},
		{"fp var", withVar(stackPtr(-8, 0), smallRange(0, 7, 7)), "fp(off=-8,smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7))"},
		{"map_value without map info", mapValue(1, 0), "map_value()"},
		{"map_value_or_null", ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.ID = 1 }), "map_value_or_null(id=1)"},
		{"map_value const var", withVar(mapValue(1, 0), ConstScalar(8)), "map_value(imm=8)"},
		{"map_value negative const var", withVar(mapValue(1, 0), ConstScalar(math.MaxUint64)), "map_value(imm=-1)"},
		{"pkt", pkt(0, 14, 0), "pkt(r=14)"},
		{"pkt with id and off", pkt(14, 20, 2), "pkt(id=2,off=14,r=20)"},
		{"pkt beyond pkt_end", pkt(0, -2, 0), "pkt(r=0xfffffffffffffffe)"},
		{"pkt_meta", ptr(PtrToPacketMeta, 0, nil), "pkt_meta(r=0)"},
		{"pkt_end", ptr(PtrToPacketEnd, 0, nil), "pkt_end()"},
		{"rdonly mem", ptr(PtrToMem, MemRdonly, func(r *Reg) { r.Range = 8 }), "rdonly_mem(sz=8)"},
		{"slice with a buffer", ptr(PtrToMem, MaybeNull, func(r *Reg) {
			r.ID, r.Range, r.Buf = 2, 8, StackBuf{Off: -24, Size: 8}
		}), "mem_or_null(id=2,sz=8,buf=fp[0]-24+8)"},
		{"moved slice with a caller's buffer", ptr(PtrToMem, MemRdonly, func(r *Reg) {
			r.Off, r.Range, r.Buf = 2, 8, StackBuf{Off: -40, Size: 16, Frame: 1}
		}), "rdonly_mem(off=2,sz=8,buf=fp[1]-40+16)"},
		{"ringbuf mem or null", ptr(PtrToMem, MemRingbuf|MaybeNull, func(r *Reg) { r.ID, r.RefObjID, r.Range = 2, 2, 16 }),
			"ringbuf_mem_or_null(id=2,ref_obj_id=2,sz=16)"},
		{"socket", ptr(PtrToSocket, 0, func(r *Reg) { r.RefObjID = 4 }), "sock(ref_obj_id=4)"},
		{"btf id or null", ptr(PtrToBTFID, MaybeNull|PtrTrusted, nil), "trusted_ptr_or_null_()"},
		{"arena", withVar(ptr(PtrToArena, 0, nil), UnknownScalar()), "arena"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("%s: String() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPrinterLookups(t *testing.T) {
	p := Printer{
		Map: func(aux uint32) (MapInfo, bool) {
			switch aux {
			case 1:
				return MapInfo{Name: "counts", KeySize: 4, ValueSize: 8}, true
			case 2:
				return MapInfo{KeySize: 4, ValueSize: 1056}, true
			}
			return MapInfo{}, false
		},
		OuterMap: func(aux uint32) (MapInfo, bool) {
			if aux == 2 {
				return MapInfo{Name: "outer", KeySize: 4, ValueSize: 4}, true
			}
			return MapInfo{}, false
		},
		BTFName:    func(id uint32) string { return "task_struct" },
		DynptrType: func(aux uint32) string { return "local" },
	}
	tests := []struct {
		name string
		r    Reg
		want string
	}{
		{"named map", mapValue(1, 0), "map_value(map=counts,ks=4,vs=8)"},
		{"unnamed map with offset", mapValue(2, 256), "map_value(ks=4,vs=1056,off=256)"},
		{"map ptr", ptr(ConstPtrToMap, 0, func(r *Reg) { r.Aux = 1 }), "map_ptr(map=counts,ks=4,vs=8)"},
		{"map or null with id", ptr(PtrToMapValue, MaybeNull, func(r *Reg) { r.Aux, r.ID = 1, 3 }), "map_value_or_null(id=3,map=counts,ks=4,vs=8)"},
		{"unknown map", mapValue(9, 0), "map_value()"},
		{"btf", ptr(PtrToBTFID, PtrTrusted, nil), "trusted_ptr_task_struct()"},
		{"btf or null", ptr(PtrToBTFID, MaybeNull, nil), "ptr_or_null_task_struct()"},
		{"stack of another frame", stackPtr(-8, 1), "fp[1]-8"},
		{"unchecked inner map typed at the call", ptr(ConstPtrToMap, MaybeNull, func(r *Reg) { r.Aux, r.ID = 2, 1 }), "map_ptr_or_null(id=1,ks=4,vs=1056)"},
		{"unchecked inner map (6.18.0): the outer map's value", ptr(ConstPtrToMap, MaybeNull|OuterMapValue, func(r *Reg) { r.Aux, r.ID = 2, 1 }), "map_value_or_null(id=1,map=outer,ks=4,vs=4)"},
		{"checked inner map", ptr(ConstPtrToMap, 0, func(r *Reg) { r.Aux = 2 }), "map_ptr(ks=4,vs=1056)"},
		{"non-owning graph node", ptr(PtrToBTFID, MemAlloc|NonOwnRef, func(r *Reg) { r.Off = 8 }), "ptr_task_struct(non_own_ref,off=8)"},
		{"callback dynptr", ptr(ConstPtrToDynptr, 0, func(r *Reg) { r.ID = 1 }), "dynptr_ptr(id=1,type=local)"},
	}
	for _, tt := range tests {
		if got := string(p.AppendReg(nil, &tt.r, 0)); got != tt.want {
			t.Errorf("%s: AppendReg = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestStateString(t *testing.T) {
	s := NewState()
	f := s.Cur()
	f.Regs()[1].MarkPtr(PtrToCtx, 0)
	f.Regs()[0] = bounded(0, 255, 0xff, false, 0)
	slotOf(f, 0, StackMisc)
	spillTo(f, 1, konst(42, false))
	sub := slotOf(f, 2, StackMisc) // 32-bit spill over MISC
	for i := 4; i < SlotSize; i++ {
		sub.Types[i] = StackSpill
	}
	sub.Spilled = konst(7, true)
	slotOf(f, 3, StackZero)
	f.GrowStack(6 * SlotSize) // slot 4 stays INVALID
	part := f.Slot(5)
	for i := 4; i < SlotSize; i++ {
		part.Types[i] = StackMisc
	}
	spillTo(f, 6, stackPtr(-8, 0))
	s.Refs = []Ref{{ID: 2}, {ID: 5}}

	want := "R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff)) R1=ctx() R10=fp0" +
		" fp-8=mmmmmmmm fp-16=42 fp-24=mmmmP7 fp-32=00000000 fp-48=????mmmm fp-56=fp-8 refs=2,5"
	if diff := cmp.Diff(want, s.String()); diff != "" {
		t.Errorf("State.String mismatch (-want +got):\n%s", diff)
	}

	// A callee frame: prefixed with its number, callback marker last.
	callee := &Frame{}
	InitFrame(callee, 5, 1, 1)
	callee.Regs()[1] = stackPtr(-8, 0)
	callee.InCallbackFn = true
	s.Frames[1], s.CurFrame = callee, 1
	s.Refs = nil
	want = "frame1: R1=fp[0]-8 R10=fp0 cb"
	if diff := cmp.Diff(want, s.String()); diff != "" {
		t.Errorf("callee String mismatch (-want +got):\n%s", diff)
	}
	var p Printer
	if got := string(p.AppendFrame(nil, s, 1)); got != " "+want {
		t.Errorf("AppendFrame = %q, want the kernel's leading space", got)
	}

	// Only what the last instruction touched.
	got := string(p.AppendFrameScratched(nil, s, 0, 1<<1, 1<<1|1<<4))
	if diff := cmp.Diff(" R1=ctx() fp-16=42", got); diff != "" {
		t.Errorf("AppendFrameScratched mismatch (-want +got):\n%s", diff)
	}
}

func TestTypeNames(t *testing.T) {
	for typ := NotInit; typ < numRegTypes; typ++ {
		if typ.String() == "" {
			t.Errorf("RegType %d has no name", typ)
		}
	}
	if got := RegType(200).String(); got != "unknown" {
		t.Errorf("out of range RegType = %q", got)
	}
	if got := SlotType(200).String(); got != "?" {
		t.Errorf("out of range SlotType = %q", got)
	}
	got := string(AppendType(nil, PtrToMem, MemRdonly|MemUser|MemPercpu|MaybeNull))
	if got != "rdonly_user_percpu_mem_or_null" {
		t.Errorf("AppendType = %q", got)
	}
}

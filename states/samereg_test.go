package states

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// fieldBytes marks in mask the bytes of a value of type t at offset off
// that belong to some field (not padding).
func fieldBytes(t reflect.Type, off uintptr, mask []bool) {
	if t.Kind() != reflect.Struct {
		if t.Kind() == reflect.Array {
			for i := range t.Len() {
				fieldBytes(t.Elem(), off+uintptr(i)*t.Elem().Size(), mask)
			}
			return
		}
		for i := range t.Size() {
			mask[off+i] = true
		}
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		fieldBytes(f.Type, off+f.Offset, mask)
	}
}

// TestRegTailMask checks sameReg's constants against Reg's layout: it spans
// regWords words, every byte of the first eleven belongs to a field, and
// regTailMask selects exactly the field bytes of the last.
func TestRegTailMask(t *testing.T) {
	typ := reflect.TypeFor[Reg]()
	if typ.Size() != regWords*8 {
		t.Fatalf("Reg is %d bytes, sameReg compares %d", typ.Size(), regWords*8)
	}
	mask := make([]bool, typ.Size())
	fieldBytes(typ, 0, mask)
	for i, m := range mask[:len(mask)-8] {
		if !m {
			t.Errorf("byte %d of Reg is padding, which sameReg compares", i)
		}
	}
	var tail uint64
	for i, m := range mask[len(mask)-8:] {
		if m {
			tail |= 0xff << (8 * i)
		}
	}
	if tail != regTailMask {
		t.Errorf("regTailMask = %#x, the layout's field bytes give %#x", uint64(regTailMask), tail)
	}
}

// TestSameReg compares sameReg with == on registers that differ from a
// canonical one in one random field byte, and in padding alone.
func TestSameReg(t *testing.T) {
	typ := reflect.TypeFor[Reg]()
	mask := make([]bool, typ.Size())
	fieldBytes(typ, 0, mask)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, canon := range []Reg{notInitRegs[0], framePointers[0], framePointers[3]} {
		for range 2000 {
			reg := canon
			b := (*[regWords * 8]byte)(unsafe.Pointer(&reg))
			i := rng.IntN(len(b))
			b[i] ^= byte(1 + rng.IntN(255))
			if got, want := sameReg(&reg, &canon), reg == canon; got != want {
				t.Fatalf("byte %d changed (field byte %v): sameReg = %v, == says %v", i, mask[i], got, want)
			}
		}
	}
}

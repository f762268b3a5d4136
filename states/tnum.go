package states

import (
	"fmt"
	"math/bits"
)

// Widths in bits of the two views of a register: the whole register and
// its low 32-bit subregister.
const (
	regBits    = 64
	subregBits = 32
)

// subregMask selects the low 32-bit subregister of a 64-bit value.
const subregMask = 1<<subregBits - 1

// TnumConst returns the tnum of the constant v.
func TnumConst(v uint64) Tnum { return Tnum{Value: v} }

// TnumUnknown returns the tnum with every bit unknown.
func TnumUnknown() Tnum { return Tnum{Mask: ^uint64(0)} }

// TnumRange returns the smallest tnum of the form "known high bits, unknown
// low bits" that covers every value in [min, max]: the bits above the highest
// bit where min and max differ are known.
func TnumRange(min, max uint64) Tnum {
	width := bits.Len64(min ^ max)
	if width >= regBits {
		return TnumUnknown()
	}
	low := uint64(1)<<width - 1
	return Tnum{Value: min &^ low, Mask: low}
}

// Lsh shifts a left by shift bits; the vacated low bits are known zero.
func (a Tnum) Lsh(shift uint8) Tnum {
	return Tnum{Value: a.Value << shift, Mask: a.Mask << shift}
}

// Rsh shifts a right (logically) by shift bits; the vacated high bits are
// known zero.
func (a Tnum) Rsh(shift uint8) Tnum {
	return Tnum{Value: a.Value >> shift, Mask: a.Mask >> shift}
}

// Arsh shifts a right arithmetically by shift bits, in an insnBitness-wide
// (32 or 64) register: the sign bit of that width, known or not, is copied
// into the vacated bits. For 32 the result's upper 32 bits are zero.
func (a Tnum) Arsh(shift, insnBitness uint8) Tnum {
	if insnBitness == subregBits {
		return Tnum{
			Value: uint64(uint32(int32(uint32(a.Value)) >> shift)),
			Mask:  uint64(uint32(int32(uint32(a.Mask)) >> shift)),
		}
	}
	return Tnum{
		Value: uint64(int64(a.Value) >> shift),
		Mask:  uint64(int64(a.Mask) >> shift),
	}
}

// Add returns the tnum of every sum of members of a and b. A bit of the
// result is unknown if it is unknown in an operand or if the carry into it
// can differ between the smallest and the largest sums.
func (a Tnum) Add(b Tnum) Tnum {
	maskSum := a.Mask + b.Mask
	valSum := a.Value + b.Value
	carries := (maskSum + valSum) ^ valSum
	unknown := carries | a.Mask | b.Mask
	return Tnum{Value: valSum &^ unknown, Mask: unknown}
}

// Sub returns the tnum of every difference of members of a and b.
func (a Tnum) Sub(b Tnum) Tnum {
	diff := a.Value - b.Value
	hi := diff + a.Mask
	lo := diff - b.Mask
	unknown := (hi ^ lo) | a.Mask | b.Mask
	return Tnum{Value: diff &^ unknown, Mask: unknown}
}

// Neg returns the tnum of the two's complement negations of members of a.
func (a Tnum) Neg() Tnum { return TnumConst(0).Sub(a) }

// And returns the tnum of the bitwise and of members of a and b.
func (a Tnum) And(b Tnum) Tnum {
	maybeA := a.Value | a.Mask
	maybeB := b.Value | b.Mask
	v := a.Value & b.Value
	return Tnum{Value: v, Mask: maybeA & maybeB &^ v}
}

// Or returns the tnum of the bitwise or of members of a and b.
func (a Tnum) Or(b Tnum) Tnum {
	v := a.Value | b.Value
	return Tnum{Value: v, Mask: (a.Mask | b.Mask) &^ v}
}

// Xor returns the tnum of the bitwise xor of members of a and b.
func (a Tnum) Xor(b Tnum) Tnum {
	unknown := a.Mask | b.Mask
	return Tnum{Value: (a.Value ^ b.Value) &^ unknown, Mask: unknown}
}

// union returns the smallest tnum holding every member of a and of b: bits
// unknown in either, or known differently, are unknown.
func (a Tnum) union(b Tnum) Tnum {
	unknown := (a.Value ^ b.Value) | a.Mask | b.Mask
	return Tnum{Value: a.Value & b.Value &^ unknown, Mask: unknown}
}

// Mul returns the tnum of every product of members of a and b, by long
// multiplication over the bits of a: a known 1 adds the shifted b, an
// unknown bit takes the union of adding and not adding it.
func (a Tnum) Mul(b Tnum) Tnum {
	acc := TnumConst(0)
	for a.Value != 0 || a.Mask != 0 {
		switch {
		case a.Value&1 != 0:
			acc = acc.Add(b)
		case a.Mask&1 != 0:
			acc = acc.union(acc.Add(b))
		}
		a = a.Rsh(1)
		b = b.Lsh(1)
	}
	return acc
}

// Widths in bits that a byte swap (BPF_END) can act on.
const (
	swap16 = 16
	swap32 = 32
	swap64 = 64
)

// Bswap reverses the order of the low width/8 bytes of a (width 16, 32 or
// 64), clearing the bytes above them, as the kernel's tnum_bswap16/32/64.
// Other widths return a unchanged.
func (a Tnum) Bswap(width int32) Tnum {
	switch width {
	case swap16:
		return Tnum{Value: uint64(bits.ReverseBytes16(uint16(a.Value))), Mask: uint64(bits.ReverseBytes16(uint16(a.Mask)))}
	case swap32:
		return Tnum{Value: uint64(bits.ReverseBytes32(uint32(a.Value))), Mask: uint64(bits.ReverseBytes32(uint32(a.Mask)))}
	case swap64:
		return Tnum{Value: bits.ReverseBytes64(a.Value), Mask: bits.ReverseBytes64(a.Mask)}
	}
	return a
}

// next returns the smallest member of a greater than z, for
// a.Value <= z < a.Value|a.Mask (the kernel's tnum_step). Below that
// interval it returns the smallest member, above it the largest.
func (a Tnum) next(z uint64) uint64 {
	top := a.Value | a.Mask
	if z >= top {
		return top
	}
	if z < a.Value {
		return a.Value
	}
	if a.Value|z&a.Mask > z {
		// Some known 1 above z's highest differing bit: keep z's bits
		// above the highest known 1 that z lacks, then the known bits.
		p := ^z & a.Value &^ a.Mask
		high := ^uint64(0) << uint(bits.Len64(p))
		return high&z | ^high&a.Value
	}
	// Otherwise increment z's unknown bits above the highest bit where z
	// has a 1 the tnum forbids, then fill in the known ones.
	p := z &^ a.Value &^ a.Mask
	k := uint(bits.Len64(p))
	high := ^uint64(0) << k
	v := high&a.Mask&z | high&^a.Mask
	return (v+uint64(1)<<k)&a.Mask | a.Value
}

// overlaps reports whether a and b can hold a common value: they agree on
// every bit known in both.
func (a Tnum) overlaps(b Tnum) bool {
	known := ^a.Mask & ^b.Mask
	return a.Value&known == b.Value&known
}

// Intersect returns the tnum of the values in both a and b. A bit known
// differently in a and b comes out as a known 1 (the result is then
// meaningless, as the kernel's).
func (a Tnum) Intersect(b Tnum) Tnum {
	v := a.Value | b.Value
	unknown := a.Mask & b.Mask
	return Tnum{Value: v &^ unknown, Mask: unknown}
}

// Cast keeps the low size bytes of a (size at most 8) and makes the rest
// known zero.
func (a Tnum) Cast(size uint8) Tnum {
	if int(size)*8 >= regBits {
		return a
	}
	keep := uint64(1)<<(uint(size)*8) - 1
	return Tnum{Value: a.Value & keep, Mask: a.Mask & keep}
}

// In reports whether every member of b is a member of a.
func (a Tnum) In(b Tnum) bool {
	if b.Mask&^a.Mask != 0 {
		return false
	}
	return a.Value == b.Value&^a.Mask
}

// Contains reports whether v is a member of a.
func (a Tnum) Contains(v uint64) bool { return v&^a.Mask == a.Value }

// IsConst reports whether every bit of a is known.
func (a Tnum) IsConst() bool { return a.Mask == 0 }

// IsUnknown reports whether no bit of a is known.
func (a Tnum) IsUnknown() bool { return a.Mask == ^uint64(0) }

// Subreg returns the low 32 bits of a, the upper bits known zero.
func (a Tnum) Subreg() Tnum { return Tnum{Value: a.Value & subregMask, Mask: a.Mask & subregMask} }

// ClearSubreg returns a with its low 32 bits known zero.
func (a Tnum) ClearSubreg() Tnum { return a.Rsh(subregBits).Lsh(subregBits) }

// WithSubreg returns a with its low 32 bits replaced by those of sub.
func (a Tnum) WithSubreg(sub Tnum) Tnum { return a.ClearSubreg().Or(sub.Subreg()) }

// ConstSubreg returns a with its low 32 bits set to the known v.
func (a Tnum) ConstSubreg(v uint32) Tnum { return a.WithSubreg(TnumConst(uint64(v))) }

// IsAligned reports whether every member of a is a multiple of size, which
// must be a power of two (0 counts as aligned).
func (a Tnum) IsAligned(size uint64) bool {
	if size == 0 {
		return true
	}
	return (a.Value|a.Mask)&(size-1) == 0
}

// String formats a as the kernel's tnum_strn does in its messages: a known
// value as a number (decimal when small, "16" or "0x10000"), otherwise the
// pair "(0x0; 0xff)".
func (a Tnum) String() string {
	if a.Mask == 0 {
		return string(appendUnum(nil, a.Value))
	}
	return fmt.Sprintf("(%#x; %#x)", a.Value, a.Mask)
}

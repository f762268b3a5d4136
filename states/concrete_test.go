package states

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// This file holds the tests' concrete BPF semantics and random abstract
// scalars with known members.

// evalALU is what the instruction computes on concrete registers.
func evalALU(op ALUOp, x, y uint64) uint64 {
	if op.Op == aluEnd {
		return evalEnd(op, x)
	}
	if !op.Is64 {
		return uint64(evalALU32(op, uint32(x), uint32(y)))
	}
	signed := op.Off == 1
	switch op.Op {
	case aluAdd:
		return x + y
	case aluSub:
		return x - y
	case aluMul:
		return x * y
	case aluDiv:
		if y == 0 {
			return 0
		}
		if signed {
			if int64(x) == math.MinInt64 && int64(y) == -1 {
				return x
			}
			return uint64(int64(x) / int64(y))
		}
		return x / y
	case aluMod:
		if y == 0 {
			return x
		}
		if signed {
			if int64(y) == -1 {
				return 0
			}
			return uint64(int64(x) % int64(y))
		}
		return x % y
	case aluOr:
		return x | y
	case aluAnd:
		return x & y
	case aluXor:
		return x ^ y
	case aluLsh:
		return x << (y & 63)
	case aluRsh:
		return x >> (y & 63)
	case aluArsh:
		return uint64(int64(x) >> (y & 63))
	case aluNeg:
		return -x
	}
	return x
}

func evalALU32(op ALUOp, x, y uint32) uint32 {
	signed := op.Off == 1
	switch op.Op {
	case aluAdd:
		return x + y
	case aluSub:
		return x - y
	case aluMul:
		return x * y
	case aluDiv:
		if y == 0 {
			return 0
		}
		if signed {
			if int32(x) == math.MinInt32 && int32(y) == -1 {
				return x
			}
			return uint32(int32(x) / int32(y))
		}
		return x / y
	case aluMod:
		if y == 0 {
			return x
		}
		if signed {
			if int32(y) == -1 {
				return 0
			}
			return uint32(int32(x) % int32(y))
		}
		return x % y
	case aluOr:
		return x | y
	case aluAnd:
		return x & y
	case aluXor:
		return x ^ y
	case aluLsh:
		return x << (y & 31)
	case aluRsh:
		return x >> (y & 31)
	case aluArsh:
		return uint32(int32(x) >> (y & 31))
	case aluNeg:
		return -x
	}
	return x
}

// swapBytes byte-swaps the low width bits (16, 32, 64) of x.
func swapBytes(x uint64, width int32) uint64 {
	switch width {
	case 16:
		return uint64(bits.ReverseBytes16(uint16(x)))
	case 32:
		return uint64(bits.ReverseBytes32(uint32(x)))
	}
	return bits.ReverseBytes64(x)
}

func truncBits(x uint64, width int32) uint64 {
	if width >= 64 {
		return x
	}
	return x & (1<<uint(width) - 1)
}

// evalEnd is ALU END (to little or big endian) or ALU64 bswap: the
// result of the 32-bit class is zero-extended by truncBits.
func evalEnd(op ALUOp, x uint64) uint64 {
	if op.Is64 || op.SrcX {
		return swapBytes(x, op.Imm)
	}
	return truncBits(x, op.Imm)
}

// evalCond reports whether "x op y" holds.
func evalCond(op uint8, x, y uint64, is32 bool) bool {
	if is32 {
		x, y = uint64(uint32(x)), uint64(uint32(y))
	}
	sx, sy := int64(x), int64(y)
	if is32 {
		sx, sy = int64(int32(x)), int64(int32(y))
	}
	switch op {
	case jmpJEQ:
		return x == y
	case jmpJNE:
		return x != y
	case jmpJSET:
		return x&y != 0
	case jmpJNotSet:
		return x&y == 0
	case jmpJGT:
		return x > y
	case jmpJGE:
		return x >= y
	case jmpJLT:
		return x < y
	case jmpJLE:
		return x <= y
	case jmpJSGT:
		return sx > sy
	case jmpJSGE:
		return sx >= sy
	case jmpJSLT:
		return sx < sy
	case jmpJSLE:
		return sx <= sy
	}
	return false
}

// randValue favours small values and values near the sign and width
// boundaries, where the bounds logic has its cases.
func randValue(r *rand.Rand) uint64 {
	near := []uint64{0, 1 << 7, 1 << 15, 1 << 31, 1 << 32, 1 << 63}
	switch r.IntN(6) {
	case 0:
		return uint64(r.IntN(20))
	case 1:
		return -uint64(r.IntN(20))
	case 2:
		return near[r.IntN(len(near))] + uint64(r.IntN(9)) - 4
	case 3:
		return uint64(r.Uint32())
	case 4:
		return uint64(int64(int32(r.Uint32())))
	}
	return r.Uint64()
}

func randSpan(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return uint64(r.IntN(16))
	case 2:
		return r.Uint64() >> r.IntN(64)
	}
	return math.MaxUint64
}

func randMask(r *rand.Rand) uint64 {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return 1<<uint(r.IntN(64)) - 1
	case 2:
		return r.Uint64() & r.Uint64() & r.Uint64()
	case 3:
		return math.MaxUint64
	}
	return r.Uint64()
}

// aroundU returns [x-down, x+up] clamped to [0, hi].
func aroundU(x, hi, down, up uint64) (uint64, uint64) {
	lo, top := uint64(0), hi
	if x > down {
		lo = x - down
	}
	if hi-x > up {
		top = x + up
	}
	return lo, top
}

// Offsets that map signed values to unsigned ones keeping their order.
const (
	bias64 = 1 << 63
	bias32 = 1 << 31
)

// randScalar returns a synced abstract scalar and a concrete member of it.
func randScalar(r *rand.Rand) (Scalar, uint64) {
	x := randValue(r)
	switch r.IntN(6) {
	case 0:
		return ConstScalar(x), x
	case 1:
		return UnknownScalar(), x
	}
	s := UnknownScalar()
	mask := randMask(r)
	s.Var = Tnum{Value: x &^ mask, Mask: mask}
	if r.IntN(2) == 0 {
		s.UMin, s.UMax = aroundU(x, math.MaxUint64, randSpan(r), randSpan(r))
	}
	if r.IntN(2) == 0 {
		lo, hi := aroundU(x+bias64, math.MaxUint64, randSpan(r), randSpan(r))
		s.SMin, s.SMax = int64(lo-bias64), int64(hi-bias64)
	}
	if r.IntN(2) == 0 {
		lo, hi := aroundU(uint64(uint32(x)), math.MaxUint32, randSpan(r), randSpan(r))
		s.U32Min, s.U32Max = uint32(lo), uint32(hi)
	}
	if r.IntN(2) == 0 {
		lo, hi := aroundU(uint64(uint32(x)+bias32), math.MaxUint32, randSpan(r), randSpan(r))
		s.S32Min, s.S32Max = int32(uint32(lo)-bias32), int32(uint32(hi)-bias32)
	}
	s.Sync()
	return s, x
}

// randMember returns a member of s, preferring its edges; fallback is a
// member known in advance.
func randMember(r *rand.Rand, s Scalar, fallback uint64) uint64 {
	for range 8 {
		var v uint64
		switch r.IntN(6) {
		case 0:
			v = s.UMin
		case 1:
			v = s.UMax
		case 2:
			v = uint64(s.SMin)
		case 3:
			v = uint64(s.SMax)
		default:
			v = s.Var.Value | r.Uint64()&s.Var.Mask
		}
		if s.Contains(v) {
			return v
		}
	}
	return fallback
}

package loader

// The values an extern __kconfig variable takes, as libbpf 1.8 decides
// them (bpf_object__resolve_externs and the set_kcfg_value_* functions of
// libbpf.c). libbpf refuses the whole object, before the kernel sees any
// of its programs, when a value does not suit the variable's type or a
// strong variable is set by nothing; vercheck used to store zero and
// verify, which accepted programs no loader loads.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"syscall"

	"github.com/cilium/ebpf/btf"
)

// ErrKconfigRefused is the class of KconfigError.
var ErrKconfigRefused = errors.New("kconfig extern refused by the loader")

// KconfigError is libbpf's refusal of an object for one of its extern
// __kconfig variables: Msg is libbpf's warning, Errno what its
// bpf_object__load returns. It unwraps to ErrKconfigRefused.
type KconfigError struct {
	Msg   string
	Errno syscall.Errno
}

func (e *KconfigError) Error() string { return e.Msg }

// Unwrap makes errors.Is(err, ErrKconfigRefused) hold.
func (e *KconfigError) Unwrap() error { return ErrKconfigRefused }

// kconfigRefusal formats a KconfigError.
func kconfigRefusal(errno syscall.Errno, format string, args ...any) *KconfigError {
	return &KconfigError{Msg: fmt.Sprintf(format, args...), Errno: errno}
}

// kcfgType is libbpf's class of a __kconfig variable's type
// (find_kcfg_type), which decides the values it takes.
type kcfgType int

const (
	kcfgUnknown  kcfgType = iota
	kcfgChar              // any one-byte integer but a bool
	kcfgBool              // a one-byte bool
	kcfgInt               // an integer of 2, 4 or 8 bytes
	kcfgTristate          // enum libbpf_tristate
	kcfgCharArr           // an array of kcfgChar
)

// kcfgTypeOf classifies t (modifiers and typedefs skipped) and says
// whether an integer is signed.
func kcfgTypeOf(t btf.Type) (kt kcfgType, signed bool) {
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		if t.Encoding&btf.Bool != 0 {
			if t.Size == 1 {
				return kcfgBool, false
			}
			return kcfgUnknown, false
		}
		signed = t.Encoding&btf.Signed != 0
		switch {
		case t.Size == 1:
			return kcfgChar, signed
		case t.Size > 8 || bits.OnesCount32(t.Size) != 1:
			return kcfgUnknown, false
		}
		return kcfgInt, signed
	case *btf.Enum:
		if t.Name == "libbpf_tristate" && (t.Size == 4 || t.Size == 8) {
			return kcfgTristate, false
		}
	case *btf.Array:
		if el, _ := kcfgTypeOf(t.Type); t.Nelems > 0 && el == kcfgChar {
			return kcfgCharArr, false
		}
	}
	return kcfgUnknown, false
}

// kcfgExtern is one variable being filled: its name, class and bytes in
// the map's value.
type kcfgExtern struct {
	name   string
	kt     kcfgType
	signed bool
	dst    []byte
	bo     binary.ByteOrder
}

// setNum is set_kcfg_value_num: a number into an integer, char or bool
// that can hold it.
func (x *kcfgExtern) setNum(v uint64) *KconfigError {
	if x.kt != kcfgInt && x.kt != kcfgChar && x.kt != kcfgBool {
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': value '%d' implies integer, char, or boolean type", x.name, v)
	}
	if x.kt == kcfgBool && v > 1 {
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': value '%d' isn't boolean compatible", x.name, v)
	}
	if !x.fits(v) {
		return kconfigRefusal(syscall.ERANGE, "extern (kcfg) '%s': value '%d' doesn't fit in %d bytes", x.name, v, len(x.dst))
	}
	switch len(x.dst) {
	case 1:
		x.dst[0] = byte(v)
	case 2:
		x.bo.PutUint16(x.dst, uint16(v))
	case 4:
		x.bo.PutUint32(x.dst, uint32(v))
	case 8:
		x.bo.PutUint64(x.dst, v)
	default:
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': %d bytes", x.name, len(x.dst))
	}
	return nil
}

// fits is is_kcfg_value_in_range: v, read as the variable's signedness,
// loses nothing in its size.
func (x *kcfgExtern) fits(v uint64) bool {
	n := uint(len(x.dst)) * 8
	if n >= 64 {
		return true
	}
	if x.signed {
		return v+1<<(n-1) < 1<<n
	}
	return v>>n == 0
}

// setTri is set_kcfg_value_tri: y, n or m into a bool (not m), a
// tristate or a char (the letter itself).
func (x *kcfgExtern) setTri(c byte) *KconfigError {
	switch x.kt {
	case kcfgBool:
		if c == 'm' {
			return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': value '%c' implies tristate or char type", x.name, c)
		}
		x.dst[0] = 0
		if c == 'y' {
			x.dst[0] = 1
		}
	case kcfgTristate:
		v := map[byte]uint32{'n': tristateNo, 'y': tristateYes, 'm': tristateModule}[c]
		if len(x.dst) < 4 {
			return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': %d bytes", x.name, len(x.dst))
		}
		x.bo.PutUint32(x.dst, v)
	case kcfgChar:
		x.dst[0] = c
	default:
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': value '%c' implies bool, tristate, or char type", x.name, c)
	}
	return nil
}

// setStr is set_kcfg_value_str: a quoted string, its bytes between the
// quotes as written, into a char array, cut to leave room for the NUL.
func (x *kcfgExtern) setStr(value string) *KconfigError {
	if x.kt != kcfgCharArr {
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': value '%s' implies char array type", x.name, value)
	}
	if len(value) < 2 || value[len(value)-1] != '"' {
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': invalid string config '%s'", x.name, value)
	}
	s := value[1 : len(value)-1]
	if len(s) >= len(x.dst) {
		s = s[:len(x.dst)-1]
	}
	copy(x.dst, s)
	x.dst[len(s)] = 0
	return nil
}

// setConfig is bpf_object__process_kconfig_line for the variable's line
// of the kernel's configuration: the value's first byte picks the form.
func (x *kcfgExtern) setConfig(value string) *KconfigError {
	switch value[0] {
	case 'y', 'n', 'm':
		return x.setTri(value[0])
	case '"':
		return x.setStr(value)
	}
	n, ok := strtoull(value)
	if !ok {
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': value '%s' isn't a valid integer", x.name, value)
	}
	if x.kt != kcfgInt && x.kt != kcfgChar {
		return kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': value '%s' implies integer type", x.name, value)
	}
	return x.setNum(n)
}

// strtoull parses s as C's strtoull(s, &end, 0) with *end == 0 required:
// leading spaces, a sign (a minus negates), 0x/0X for hexadecimal, a
// leading 0 for octal; false on overflow or trailing bytes.
func strtoull(s string) (uint64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	base := uint64(10)
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && digitValue(s[2]) < 16:
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base = 8
	}
	if s == "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := uint64(digitValue(s[i]))
		if d >= base {
			return 0, false
		}
		hi, lo := bits.Mul64(n, base)
		sum, carry := bits.Add64(lo, d, 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
		n = sum
	}
	if neg {
		n = -n
	}
	return n, true
}

// digitValue is the value of an ASCII digit or letter in bases up to 36,
// 36 for any other byte.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 36
}

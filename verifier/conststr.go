package verifier

import (
	"bytes"
	"syscall"
)

// fnSnprintf is the helper id of bpf_snprintf, whose format string the
// verifier parses at load time.
const fnSnprintf = 165

// nonASCII is the first byte value above ASCII; the live kernel lets such
// bytes through a format string.
const nonASCII = 0x80

// printfArgSize is the size of one bpf_snprintf argument slot: the data
// array holds u64 values.
const printfArgSize = 8

// checkConstStrArg is the ARG_PTR_TO_CONST_STR rule (check_reg_const_str):
// the pointer must be into a frozen read-only map the loader filled, at a
// known offset, and the bytes from there to the end of the value must hold
// a NUL.
func (e *env) checkConstStrArg(regno int) error {
	reg := &e.regs()[regno]
	m := e.mapAt(reg)
	if !mapFrozenReadOnly(m.ReadOnly, m.Contents) {
		return e.reject(e.insnIdx, "R%d does not point to a readonly map'", regno)
	}
	if !reg.Var.IsConst() {
		return e.reject(e.insnIdx, "R%d is not a constant address'", regno)
	}
	size := int(m.ValueSize) - int(reg.Off)
	if err := e.checkMemRegion(regno, int(reg.Off), size, int(m.ValueSize), false); err != nil {
		return err
	}
	if err := e.checkMapFields(regno, int(reg.Off), size, false); err != nil {
		return err
	}
	str, ok := constString(m.Contents, int(reg.Off)+int(reg.Var.Value))
	if !ok {
		return e.reject(e.insnIdx, "string is not zero-terminated")
	}
	// The string and its NUL: the bytes the helper reads.
	return e.checkExternLayout(regno, int(reg.Off), len(str)+1)
}

// mapFrozenReadOnly tells a map the program may only read and whose
// contents the loader set and froze (bpf_map_is_rdonly): only such maps
// have bytes known at load time.
func mapFrozenReadOnly(readOnly bool, contents []byte) bool {
	return readOnly && contents != nil
}

// constString returns the NUL-terminated string at off in b, without its
// terminator; ok is false when no NUL follows off within b.
func constString(b []byte, off int) ([]byte, bool) {
	if off < 0 || off >= len(b) {
		return nil, false
	}
	n := bytes.IndexByte(b[off:], 0)
	if n < 0 {
		return nil, false
	}
	return b[off : off+n], true
}

// checkSnprintfCall parses bpf_snprintf's format string (R3) against the
// number of u64 arguments R5 announces (check_bpf_snprintf_call).
func (e *env) checkSnprintfCall() error {
	regs := e.regs()
	fmtReg, lenReg := &regs[3], &regs[5]
	if lenReg.Var.Value%printfArgSize != 0 {
		// The kernel refuses this with -EINVAL and prints nothing.
		return e.rejectErrno(syscall.EINVAL, e.insnIdx, "")
	}
	numArgs := int(lenReg.Var.Value / printfArgSize)
	m := e.mapAt(fmtReg)
	s, ok := constString(m.Contents, int(fmtReg.Off)+int(fmtReg.Var.Value))
	if !ok || !validPrintfFormat(s, numArgs) {
		return e.reject(e.insnIdx, "Invalid format string")
	}
	return nil
}

// isPrintable is the kernel's isprint for ASCII bytes (the format
// parser asks it of ASCII bytes only).
func isPrintable(c byte) bool { return c >= ' ' && c <= '~' }

// isSpace and isPunct are the kernel's isspace and ispunct, whose
// table (lib/ctype.c) is Latin-1: 0xa0 is white space, 0xa1-0xbf, 0xd7
// and 0xf7 are punctuation. The parser asks them of the byte after a
// conversion, which may be any byte.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0 }
func isPunct(c byte) bool {
	if c >= nonASCII {
		return (c >= 0xa1 && c <= 0xbf) || c == 0xd7 || c == 0xf7
	}
	return isPrintable(c) && c != ' ' && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z')
}

// validPrintfFormat reports whether the bpf printf family accepts format s
// with numArgs arguments (the parse of bpf_bprintf_prepare): no ASCII
// control bytes but white space (bytes above ASCII pass on 6.18.44); at most numArgs conversions, each an optional "[0 +-]" flag
// run and width, then %d %i %u %x %X with up to two 'l's, %c, %s, %ps,
// %pks, %pus (a string conversion must be followed by the end, a space or
// punctuation), a bare %p (followed by the end, a space or punctuation,
// which is parsed again), kernel pointers %pK %px %ps %pS, %pB, or
// %pi4 %pI4 %pi6 %pI6. Fewer conversions than arguments is fine.
func validPrintfFormat(s []byte, numArgs int) bool {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	numSpec := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < nonASCII && !isPrintable(c) && !isSpace(c) {
			return false
		}
		if c != '%' {
			continue
		}
		if at(i+1) == '%' {
			i++
			continue
		}
		if numSpec >= numArgs {
			return false
		}
		i++
		for at(i) == '0' || at(i) == '+' || at(i) == '-' || at(i) == ' ' {
			i++
		}
		if at(i) >= '1' && at(i) <= '9' {
			i++
			for at(i) >= '0' && at(i) <= '9' {
				i++
			}
		}
		numSpec++
		switch at(i) {
		case 'p':
			next := at(i + 1)
			switch {
			case next == 0 || isSpace(next) || isPunct(next):
				// A bare %p: the byte after it is parsed again, so
				// a '%' there starts a conversion of its own.
			case (next == 'k' || next == 'u') && at(i+2) == 's':
				i += 2
				if !stringConvEnd(at(i + 1)) {
					return false
				}
			case next == 'K' || next == 'x' || next == 's' || next == 'S':
				i++
			case next == 'B':
				i++
			case (next == 'i' || next == 'I') && (at(i+2) == '4' || at(i+2) == '6'):
				i += 2
			default:
				return false
			}
		case 's':
			if !stringConvEnd(at(i + 1)) {
				return false
			}
		case 'c':
		default:
			if at(i) == 'l' {
				i++
			}
			if at(i) == 'l' {
				i++
			}
			switch at(i) {
			case 'i', 'd', 'u', 'x', 'X':
			default:
				return false
			}
		}
	}
	return true
}

// stringConvEnd reports whether c may follow a string conversion: the end
// of the format, a space or punctuation.
func stringConvEnd(c byte) bool {
	return c == 0 || isSpace(c) || isPunct(c)
}

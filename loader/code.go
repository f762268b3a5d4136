package loader

import (
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/insn"
)

// decodedCode is a program's instructions in the verifier's form, decoded
// when the program was opened from the Instructions slice at from.
type decodedCode struct {
	from *asm.Instruction
	n    int
	code []insn.Insn
	err  error
}

// decode returns insns decoded once, for Program.Code.
func decode(insns asm.Instructions) *decodedCode {
	if len(insns) == 0 {
		return nil
	}
	code, err := insn.FromAsm(insns)
	return &decodedCode{from: &insns[0], n: len(insns), code: code, err: err}
}

// Code returns the program's instructions as the kernel receives them,
// decoded (insn.FromAsm of Instructions). A program from Open was decoded
// once, when it was opened, and every call returns that decoding while
// Instructions is the slice it was made from: encoding and decoding the
// instructions again on each verification was a share of its time that
// the kernel, handed the raw instructions, does not pay. A program whose
// Instructions were replaced (WithInstructions, a copy of its own) is
// decoded afresh. The result is shared: callers must not modify it.
func (p *Program) Code() ([]insn.Insn, error) {
	if d := p.decoded; d != nil && len(p.Instructions) == d.n && &p.Instructions[0] == d.from {
		return d.code, d.err
	}
	return insn.FromAsm(p.Instructions)
}

package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/states"
)

func TestLinkDelta(t *testing.T) {
	const base uint32 = 5
	type out struct {
		ID  uint32
		Off int32
	}
	tests := []struct {
		name    string
		id      uint32
		op      uint8
		is64    bool
		sameReg bool
		src     states.Scalar
		umax    uint64
		want    out
	}{
		{"64-bit add", base, insn.ALUAdd, true, false, states.ConstScalar(4), 0xff, out{base | states.AddConst64ID, 4}},
		{"64-bit sub negates", base, insn.ALUSub, true, false, states.ConstScalar(4), 0xff, out{base | states.AddConst64ID, -4}},
		{"64-bit negative add", base, insn.ALUAdd, true, false, states.ConstScalar(^uint64(3)), 0xff, out{base | states.AddConst64ID, -4}},
		{"64-bit delta too large", base, insn.ALUAdd, true, false, states.ConstScalar(1 << 31), 0xff, out{}},
		{"32-bit add", base, insn.ALUAdd, false, false, states.ConstScalar(4), 0xff, out{base | states.AddConst32ID, 4}},
		{"32-bit add, upper half may be set", base, insn.ALUAdd, false, false, states.ConstScalar(4), 1 << 32, out{}},
		{"sub of int32 min", base, insn.ALUSub, true, false, states.ConstScalar(0xffffffff80000000), 0xff, out{}},
		{"register with itself", base, insn.ALUAdd, true, true, states.ConstScalar(4), 0xff, out{}},
		{"second delta clears", base | states.AddConst64ID, insn.ALUAdd, true, false, states.ConstScalar(4), 0xff, out{}},
		{"no id", 0, insn.ALUAdd, true, false, states.ConstScalar(4), 0xff, out{}},
		{"other operation", base, insn.ALUMul, true, false, states.ConstScalar(4), 0xff, out{}},
		{"unknown source", base, insn.ALUAdd, true, false, states.UnknownScalar(), 0xff, out{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, off := linkDelta(tt.id, tt.op, tt.is64, tt.sameReg, &tt.src, tt.umax)
			if diff := cmp.Diff(tt.want, out{id, off}); diff != "" {
				t.Errorf("linkDelta mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

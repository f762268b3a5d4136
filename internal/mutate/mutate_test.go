package mutate

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/interp"
)

// sample is a small XDP program: a packet bounds check, a stack spill and
// fill, a map lookup with its NULL check, a map value access.
func sample() []insn.Insn {
	return prog(
		ldx(insn.ModeMEM, insn.SizeW, 7, 1, 0), // r7 = data
		ldx(insn.ModeMEM, insn.SizeW, 8, 1, 4), // r8 = data_end
		movReg(insn.ClassALU64, 2, 7, 0),
		addImm(2, 14),
		jmpReg(insn.ClassJMP, insn.JmpJGT, 2, 8, 11),    // if data+14 > data_end goto out
		ldx(insn.ModeMEM, insn.SizeB, 3, 7, 13),         // last byte of the checked packet
		stx(insn.SizeDW, insn.R10, 3, -8),               // spill
		ldImm64(1, 0, 0),                                // r1 = map (patched below)
		movReg(insn.ClassALU64, 2, insn.R10, 0),         // r2 = fp
		addImm(2, -8),                                   // r2 = fp-8
		helper(1),                                       // bpf_map_lookup_elem
		jeq(0, 0, 2),                                    // NULL check
		ldx(insn.ModeMEM, insn.SizeDW, 4, 0, 8),         // value[8..16)
		ldx(insn.ModeMEM, insn.SizeDW, 5, insn.R10, -8), // fill
		mov(0, 2),
		exit(),
	)
}

func sampleProg() []insn.Insn {
	p := sample()
	p[7].Src = insn.PseudoMapFD
	return p
}

// TestMutateDeterministic: the same random stream gives the same mutant,
// and every mutant records one operator per mutation.
func TestMutateDeterministic(t *testing.T) {
	p := sampleProg()
	for s := range uint64(200) {
		a := Mutate(p, rand.New(rand.NewPCG(s, 1)), 3, Env{})
		b := Mutate(p, rand.New(rand.NewPCG(s, 1)), 3, Env{})
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("stream %d: mutants differ (-first +second):\n%s", s, diff)
		}
		if len(a.Operators) != 3 || len(a.Changes) != 3 {
			t.Errorf("stream %d: %d operators and %d changes, want 3", s, len(a.Operators), len(a.Changes))
		}
		if diff := cmp.Diff(p, sampleProg()); diff != "" {
			t.Fatalf("stream %d: Mutate changed its input (-want +got):\n%s", s, diff)
		}
	}
}

// TestMinimise: deletion keeps what the property needs and nothing else.
func TestMinimise(t *testing.T) {
	p := sampleProg()
	// The property: a sign-extending load is left, and the program exits.
	keep := func(m Mutant) bool {
		hasLdsx, hasExit := false, false
		for _, in := range m.Insns {
			hasLdsx = hasLdsx || (in.Class() == insn.ClassLDX && in.Mode() == insn.ModeMEMSX)
			hasExit = hasExit || in.Op == insn.ClassJMP|insn.JmpExit
		}
		return hasLdsx && hasExit
	}
	m, err := Identity(p).apply(rewrite(5, ldx(insn.ModeMEMSX, insn.SizeB, 3, 7, 13)), "ldsx")
	if err != nil {
		t.Fatal(err)
	}
	got := Minimise(m, keep, 1000)
	want := prog(ldx(insn.ModeMEMSX, insn.SizeB, 3, 7, 13), exit())
	if diff := cmp.Diff(want, got.Insns); diff != "" {
		t.Errorf("minimised program mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{5, 16}, got.Origin); diff != "" {
		t.Errorf("origin mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ldsx", "minimised: 15 of 17 instructions deleted"}, got.Changes); diff != "" {
		t.Errorf("changes mismatch (-want +got):\n%s", diff)
	}
}

// TestFindEdges: the concrete runs find the context's size, the packet's
// checked length, the map value's size and the stack frame.
func TestFindEdges(t *testing.T) {
	p := sampleProg()
	inputs := Inputs(rand.New(rand.NewPCG(1, 1)), []interp.Map{{KeySize: 8, ValueSize: 16}}, XDPContext)
	got := FindEdges(p, inputs)
	want := []Edge{
		// xdp_md's data and data_end, 4 bytes of a 24-byte context.
		{At: 0, Offs: []int16{0, -1, 20, 21}},
		{At: 1, Offs: []int16{0, -1, 20, 21}},
		// data+13 of 1 byte: lower edge data+0, upper edge data+13 (14 checked).
		{At: 5, Offs: []int16{0, -1, 13, 14}},
		// fp-8 of 8 bytes: lower edge fp-512, upper edge fp-8.
		{At: 6, Offs: []int16{-512, -513, -8, -7}},
		// value+8 of 8 bytes in a 16-byte value.
		{At: 13, Offs: []int16{0, -1, 8, 9}},
		{At: 14, Offs: []int16{-512, -513, -8, -7}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edges mismatch (-want +got):\n%s", diff)
	}
}

// TestFindEdgesBadRegister: an access through a register number past r10
// (a rejected seed's) has no edge and does not stop the search.
func TestFindEdgesBadRegister(t *testing.T) {
	p := []insn.Insn{
		{Op: insn.ClassLDX | insn.ModeMEM | insn.SizeDW, Dst: 0, Src: 15},
		{Op: insn.ClassJMP | insn.JmpExit},
	}
	inputs := Inputs(rand.New(rand.NewPCG(1, 1)), nil, OtherContext)
	if got := FindEdges(p, inputs); len(got) != 0 {
		t.Errorf("edges %v, want none", got)
	}
}

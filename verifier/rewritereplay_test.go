package verifier

import (
	"math/rand/v2"
	"testing"
)

// naiveFirstOverflow is the kernel's way, patch by patch: each patch in
// turn fixes up every jump across it (bpf_adj_delta_to_off, in the
// program as patched so far) and fails when one leaves 16 bits; it
// returns the failing patch's index, -1 for none.
func naiveFirstOverflow(p *fixupProg, patches []rewritePatch) int {
	type jmp struct{ src, target int }
	var jumps []jmp
	for s, f := range p.insns {
		if f.jump16 && f.target >= 0 {
			jumps = append(jumps, jmp{s, f.target})
		}
	}
	grow := 0
	for k, pt := range patches {
		q := pt.pos + grow
		delta := pt.lo - 1
		for j := range jumps {
			src, t := jumps[j].src, jumps[j].target
			if src < 0 {
				continue
			}
			if src == q && pt.mayGoto {
				continue // replaced, checked below
			}
			off := t - src - 1
			switch {
			case src < q && t >= q+1:
				off += delta
			case src > q && t <= q:
				off -= delta
			}
			if off < jumpOffMin || off > jumpOffMax {
				return k
			}
		}
		for j := range jumps {
			if jumps[j].src == q && pt.longMayGoto {
				jumps[j].src = -1 // now a gotol, 32 bits: never out of range
				continue
			}
			if jumps[j].src == q && pt.mayGoto {
				// The rewritten jump, its offset truncated to 16 bits.
				off := jumps[j].target - q - 1 - 1
				if jumps[j].target > q {
					off += delta
				}
				jumps[j].src, jumps[j].target = q+1, q+2+int(int16(off))
				continue
			} else if jumps[j].src > q {
				jumps[j].src += delta
			}
			if jumps[j].target > q {
				jumps[j].target += delta
			}
		}
		grow += delta
	}
	return -1
}

// TestFirstOverflowMatchesPatchByPatch checks the replay's search (running
// sums over each jump's span) against the kernel's patch-by-patch fix-up
// on random programs just past 32,767 instructions, with long jumps both
// ways and patches of random lengths.
func TestFirstOverflowMatchesPatchByPatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	failures, skipped := 0, 0
	for trial := range 1000 {
		n := 32800 + rng.IntN(400)
		p := &fixupProg{insns: make([]fixupInsn, n)}
		for i := range p.insns {
			p.insns[i] = fixupInsn{orig: i, target: -1, primary: true, seen: true}
		}
		for range 1 + rng.IntN(6) {
			var s, tgt int
			span := jumpOffMax - rng.IntN(600)
			mayGoto := rng.IntN(5) == 0

			if rng.IntN(2) == 0 {
				s = rng.IntN(n - span - 1)
				tgt = s + 1 + span
			} else {
				s = span + rng.IntN(n-span)
				tgt = s + 1 - span
			}
			p.insns[s].target, p.insns[s].jump16, p.insns[s].mayGotoShape = tgt, true, mayGoto
		}
		var patches []rewritePatch
		density := 20 + rng.IntN(1000)
		for pos := 0; pos < n; pos++ {
			if p.insns[pos].jump16 && !p.insns[pos].mayGotoShape {
				continue // the passes patch no jump but may_goto
			}
			if rng.IntN(density) != 0 && !(p.insns[pos].mayGotoShape && rng.IntN(2) == 0) {
				continue
			}
			l := 2 + rng.IntN(10)
			mg := p.insns[pos].mayGotoShape
			if mg {
				l = 7
			}
			pt := rewritePatch{pos: pos, lo: l, hi: l, mayGoto: mg}
			if t := p.insns[pos].target; mg && t > pos && t-pos-1+l-2 > jumpOffMax {
				pt.lo, pt.hi, pt.longMayGoto = l+1, l+1, true // as rewriteLens.patches
			}
			patches = append(patches, pt)
		}
		got, why := p.firstOverflow(patches, false)
		if why != "" {
			skipped++ // a may_goto the kernel truncates: not compared
			continue
		}
		want := naiveFirstOverflow(p, patches)
		if got != want {
			t.Fatalf("trial %d: first overflow at patch %d, the kernel's way %d", trial, got, want)
		}
		if want >= 0 {
			failures++
		}
	}
	if failures < 100 || failures > 900 || skipped > 200 {
		t.Fatalf("%d of 1000 trials overflowed, %d skipped: the programs do not exercise both outcomes", failures, skipped)
	}
	t.Logf("%d of 1000 trials overflowed, %d skipped", failures, skipped)
}

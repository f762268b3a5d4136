package insn

// Loop is one loop of the program: a strongly connected component of the
// control-flow graph of one subprogram (bpf-to-bpf calls are not edges),
// as CFG.SCC numbers them.
type Loop struct {
	// SCC is the component's number (CFG.SCC of each of its instructions).
	SCC int
	// Header is where the loop is entered: the lowest-numbered of its
	// instructions that an instruction outside the loop jumps or falls
	// into (the start of the subprogram when the loop begins it). A
	// loop compiled from a for or while statement has one such
	// instruction, the one testing its condition or starting its body.
	Header int
	// Insns are the loop's instructions, in increasing order.
	Insns []int
}

// Loops returns the program's loops, ordered by their SCC number.
func (g *CFG) Loops() []Loop {
	n := 0
	for _, c := range g.scc {
		n = max(n, int(c))
	}
	if n == 0 {
		return nil
	}
	loops := make([]Loop, n)
	for i := range loops {
		loops[i] = Loop{SCC: i + 1, Header: -1}
	}
	var succ []int
	for i, c := range g.scc {
		if c != 0 {
			loops[c-1].Insns = append(loops[c-1].Insns, i)
		}
		succ = g.Successors(succ[:0], i)
		for _, s := range succ {
			if t := g.scc[s]; t != 0 && t != c {
				noteHeader(&loops[t-1], s)
			}
		}
	}
	for _, sp := range g.Subprogs {
		if c := g.scc[sp.Start]; c != 0 {
			noteHeader(&loops[c-1], sp.Start)
		}
	}
	for i := range loops {
		if loops[i].Header < 0 {
			// Unreachable from outside (dead code): its first instruction.
			loops[i].Header = loops[i].Insns[0]
		}
	}
	return loops
}

// noteHeader records i as an entry of l, keeping the lowest.
func noteHeader(l *Loop, i int) {
	if l.Header < 0 || i < l.Header {
		l.Header = i
	}
}

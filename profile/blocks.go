package profile

import "slices"

// Block is one basic block of the control-flow graph: a run of
// instructions entered only at its first and left only at its last.
type Block struct {
	// Start and End delimit its instructions [Start, End).
	Start int `json:"start"`
	End   int `json:"end"`
	// Subprog is the index of its subprogram.
	Subprog int `json:"subprog"`
	// Loop is the loop's SCC number (Loop.SCC) for a block inside a
	// loop, 0 otherwise.
	Loop int `json:"loop,omitempty"`
	// Succs are the indices in Profile.Blocks of the blocks control may
	// go to next within the subprogram.
	Succs []int `json:"succs"`
	Counters
}

// blocks cuts the program into basic blocks: a block starts at a
// subprogram's entry, at a jump's target and after a jump or an exit
// (calls fall through, as in the kernel's bpf_insn_successors).
func (b *builder) blocks() []Block {
	n := len(b.r.insns)
	leader := make([]bool, n)
	for _, sp := range b.r.cfg.Subprogs {
		leader[sp.Start] = true
	}
	var succ []int
	for i, in := range b.p.Insns {
		if in.Filler || !in.IsJmpClass() || in.IsPseudoCall() || in.IsHelperCall() || in.IsKfuncCall() {
			continue
		}
		if i+1 < n {
			leader[i+1] = true
		}
		succ = b.r.cfg.Successors(succ[:0], i)
		for _, t := range succ {
			leader[t] = true
		}
	}
	var out []Block
	blockOf := make([]int, n)
	for i := 0; i < n; i++ {
		if leader[i] || i == 0 {
			out = append(out, Block{Start: i, Subprog: b.r.cfg.SubprogOf(i), Loop: b.r.cfg.SCC(i)})
		}
		blk := &out[len(out)-1]
		blk.End = i + 1
		blk.add(b.r.insns[i])
		blockOf[i] = len(out) - 1
	}
	for k := range out {
		last := out[k].End - 1
		if b.p.Insns[last].Filler {
			last--
		}
		succ = b.r.cfg.Successors(succ[:0], last)
		out[k].Succs = []int{}
		for _, t := range succ {
			if s := blockOf[t]; !slices.Contains(out[k].Succs, s) {
				out[k].Succs = append(out[k].Succs, s)
			}
		}
	}
	return out
}

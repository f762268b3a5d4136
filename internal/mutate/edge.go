package mutate

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/interp"
)

// Edge is a memory access together with the offsets that place it exactly
// at the edges of the object it reached in concrete runs: for each edge,
// the last offset inside the object and the first one outside.
type Edge struct {
	// At is the access instruction.
	At int
	// Offs are the candidate offsets for its off field.
	Offs []int16
}

// access is what the concrete runs saw of one memory access.
type access struct {
	kind interp.Kind
	// ptrOff is the pointer's offset from its object's start; mapIdx its
	// map for a map value.
	ptrOff int64
	mapIdx int
	// size is the object size: the value size, the stack size, or the
	// shortest packet (data to data_end) on which the access ran.
	size int64
	// varying is set when two runs reached the access through different
	// pointers; no single edge exists then.
	varying bool
}

// FindEdges runs prog on each input and returns, for every memory access
// that ran and whose pointer was the same on every run that reached it, the
// offsets at the lower and upper edges of its object (the map value, the
// stack frame, the packet, the context). The packet's edge is the shortest packet on
// which the access ran: with inputs covering every length, that is the
// bounds check the program made, the edge the verifier knows. Runs that
// stop early (a helper the interpreter does not model) still count up to
// where they stopped.
func FindEdges(prog []insn.Insn, inputs []*interp.Input) []Edge {
	seen := map[int]*access{}
	for _, in := range inputs {
		trace := func(pc int, m *interp.Machine) error {
			if a, ok := observe(prog[pc], m, in); ok {
				merge(seen, pc, a)
			}
			return nil
		}
		run := *in
		run.Trace = trace
		_, _ = interp.Run(prog, &run) // a stopped run still traced its accesses
	}
	var edges []Edge
	for pc, a := range seen {
		if a.varying {
			continue
		}
		if offs := a.edgeOffsets(prog[pc].SizeBytes()); len(offs) > 0 {
			edges = append(edges, Edge{At: pc, Offs: offs})
		}
	}
	slices.SortFunc(edges, func(a, b Edge) int { return a.At - b.At })
	return edges
}

// observe returns what a run sees of in, about to execute in m: the
// object behind its pointer, for the kinds of object with a size (the
// context's is the size its Context gave the run).
func observe(in insn.Insn, m *interp.Machine, input *interp.Input) (access, bool) {
	if !isMemAccess(in) {
		return access{}, false
	}
	base := in.Dst
	if in.Class() == insn.ClassLDX {
		base = in.Src
	}
	regs := m.Regs()
	if int(base) >= len(regs) {
		// A register number past r10 (a seed both verifiers reject,
		// under -rejected): no object behind it.
		return access{}, false
	}
	v := regs[base]
	a := access{kind: v.Kind, ptrOff: v.Off, mapIdx: -1}
	switch v.Kind {
	case interp.PtrStack:
		a.size = interp.StackSize
	case interp.PtrMapValue:
		if v.Map >= len(input.Maps) {
			return access{}, false
		}
		a.mapIdx, a.size = v.Map, int64(input.Maps[v.Map].ValueSize)
	case interp.PtrPacket:
		a.size = int64(m.PacketLen())
	case interp.PtrCtx:
		a.size = int64(len(input.Ctx))
	default:
		return access{}, false
	}
	return a, true
}

// merge records a at pc, keeping the shortest packet.
func merge(seen map[int]*access, pc int, a access) {
	old, ok := seen[pc]
	if !ok {
		seen[pc] = &a
		return
	}
	if old.kind != a.kind || old.ptrOff != a.ptrOff || old.mapIdx != a.mapIdx {
		old.varying = true
		return
	}
	old.size = min(old.size, a.size)
}

// edgeOffsets returns the off fields that put an access of size bytes at
// the object's edges: the stack lies below the frame pointer, the other
// objects above their start.
func (a *access) edgeOffsets(size int) []int16 {
	lo, hi := -a.ptrOff, a.size-int64(size)-a.ptrOff
	if a.kind == interp.PtrStack {
		lo, hi = -interp.StackSize-a.ptrOff, -int64(size)-a.ptrOff
	}
	var offs []int16
	for _, o := range []int64{lo, lo - 1, hi, hi + 1} {
		if o >= math.MinInt16 && o <= math.MaxInt16 {
			offs = append(offs, int16(o))
		}
	}
	return offs
}

// edgeEdits are the edits of the edge operator: the access's offset set
// to each edge found for it, in prog (the program FindEdges ran).
func edgeEdits(prog []insn.Insn, e Edge) []edit {
	var out []edit
	for _, o := range e.Offs {
		in := prog[e.At]
		if in.Off == o {
			continue
		}
		in.Off = o
		out = append(out, rewrite(e.At, in))
	}
	return out
}

// Input shapes for FindEdges.
const (
	// MaxPacket is the longest packet Inputs makes.
	MaxPacket = 128
	// inputsPerLength is how many inputs of each packet length are made.
	inputsPerLength = 2
	// mapElems is the number of elements of each map; lookups hit one of
	// them with probability lookupHit.
	mapElems  = 4
	lookupHit = 0.8
	// maxValueSize bounds the map values made: larger maps are left empty
	// (every lookup misses).
	maxValueSize = 4096
	// edgeRunSteps bounds each concrete run: the accesses of a loop's
	// first iterations are all the edges need, and every seed is run
	// 2*(MaxPacket+1) times.
	edgeRunSteps = 20000
)

// Context is the shape of a program type's context for the concrete
// runs: its size and the fields that load as packet pointers.
type Context struct {
	Size   int
	Fields []interp.CtxField
}

// Contexts of the program types FindEdges runs. Programs of other types
// run with OtherContext: their stack and map value accesses have edges
// as well, up to the first context pointer they follow.
var (
	// XDPContext is struct xdp_md.
	XDPContext = Context{Size: 24, Fields: interp.XDPFields}
	// SKBContext is struct __sk_buff with its direct packet access
	// fields (data, data_end, data_meta), for tc, cgroup_skb, lwt and
	// sk_skb programs.
	SKBContext = Context{Size: 192, Fields: []interp.CtxField{
		{Off: 76, Kind: interp.PtrPacket}, {Off: 80, Kind: interp.PtrPacketEnd}, {Off: 140, Kind: interp.PtrPacketMeta}}}
	// OtherContext is a context of random bytes without packet pointers.
	OtherContext = Context{Size: 512}
)

// Inputs makes inputs for FindEdges on a program whose context is ctx:
// packets of every length from 0 to MaxPacket with random bytes, maps
// shaped as given (KeySize and ValueSize) filled with random elements,
// and helper results drawn from r.
func Inputs(r *rand.Rand, maps []interp.Map, ctx Context) []*interp.Input {
	var out []*interp.Input
	for n := 0; n <= MaxPacket; n++ {
		for range inputsPerLength {
			out = append(out, input(r, n, maps, ctx))
		}
	}
	return out
}

// helperMapLookup is bpf_map_lookup_elem, whose result the input chooses.
const helperMapLookup = 1

func input(r *rand.Rand, pktLen int, shapes []interp.Map, ctx Context) *interp.Input {
	maps := make([]interp.Map, len(shapes))
	for i, s := range shapes {
		maps[i] = interp.Map{KeySize: s.KeySize, ValueSize: s.ValueSize, ReadOnly: s.ReadOnly}
		if s.ValueSize > maxValueSize {
			continue
		}
		for range mapElems {
			maps[i].Values = append(maps[i].Values, randomBytes(r, s.ValueSize))
		}
	}
	choose := func(c interp.Choice) uint64 {
		if c.Helper == helperMapLookup {
			if c.Map >= 0 && len(maps[c.Map].Values) > 0 && r.Float64() < lookupHit {
				return uint64(r.IntN(len(maps[c.Map].Values)))
			}
			return interp.NoElem
		}
		return r.Uint64()
	}
	return &interp.Input{
		Ctx: randomBytes(r, ctx.Size), CtxFields: ctx.Fields, Packet: randomBytes(r, pktLen),
		Maps: maps, Choose: choose, AllowUninitStack: true, MaxSteps: edgeRunSteps,
	}
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

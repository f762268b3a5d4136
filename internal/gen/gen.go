// Package gen generates random but plausible XDP programs for soundness and
// differential testing: arithmetic of every ALU operation (32 and 64 bit,
// cpu v4 included), branches, bounded loops, stack spills and fills, map
// lookups with or without NULL checks, packet accesses with or without
// bounds checks, context reads, helper calls and bpf-to-bpf calls.
//
// The generator tracks what each register holds, as a compiler would, so
// most programs are safe and accepted; with probability Config.Mistakes a
// construct is emitted in an unsafe variant (a missing NULL or bounds
// check, an offset one past the end, an uninitialised register), so that
// the verifier also sees programs it must reject.
package gen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/interp"
	"github.com/vercheck/vercheck/loader"
)

// Config tunes the generator.
type Config struct {
	// Stmts is the number of top-level statements (0: DefaultStmts).
	Stmts int
	// Mistakes is the probability that a construct is emitted unsafe.
	Mistakes float64
}

// DefaultStmts is the number of top-level statements of a program.
const DefaultStmts = 12

// Program is one generated program with the maps it uses.
type Program struct {
	// Seed is the seed the program was generated from.
	Seed uint64
	// Insns are kernel-numbered instructions.
	Insns []insn.Insn
	// Object holds the maps; Prog is the program, ready for
	// verifier.Verify.
	Object *loader.Object
	Prog   *loader.Program
}

// Map layouts of every generated program.
const (
	arrayKeySize   = 4
	arrayValueSize = 48
	arrayEntries   = 4
	hashKeySize    = 8
	hashValueSize  = 16
	hashEntries    = 8
	// mapArray and mapHash are the map indexes.
	mapArray = 0
	mapHash  = 1
)

// Fixed register roles: the context, packet data and data_end live in
// callee-saved registers so that helper calls keep them.
const (
	regCtx     = insn.R6
	regData    = insn.R7
	regDataEnd = insn.R8
	// regLoop is the loop counter of the loop being generated.
	regLoop = insn.R9
)

// Offsets of struct xdp_md fields.
const (
	xdpData           = 0
	xdpDataEnd        = 4
	xdpDataMeta       = 8
	xdpIngressIfindex = 12
	xdpRxQueueIndex   = 16
	xdpCtxSize        = 24
)

// Helper ids the generator calls.
const (
	fnMapLookup  = 1
	fnMapUpdate  = 2
	fnKtimeGetNs = 5
	fnPrandomU32 = 7
)

// xdpPass is the XDP_PASS return code.
const xdpPass = 2

// Maps returns fresh definitions of the maps every generated program uses.
func Maps() []*loader.Map {
	return []*loader.Map{
		{Name: "arr", Type: ebpf.Array, KeySize: arrayKeySize, ValueSize: arrayValueSize, MaxEntries: arrayEntries},
		{Name: "hash", Type: ebpf.Hash, KeySize: hashKeySize, ValueSize: hashValueSize, MaxEntries: hashEntries},
	}
}

// NewProgram wraps instructions into a verifiable program with the
// generator's maps.
func NewProgram(seed uint64, code []insn.Insn) (*Program, error) {
	ins, err := ToAsm(code)
	if err != nil {
		return nil, err
	}
	obj := &loader.Object{Path: fmt.Sprintf("gen-%d", seed), Maps: Maps()}
	prog := &loader.Program{Name: "gen", Section: "xdp", Type: ebpf.XDP, License: "GPL", GPLCompatible: true, Instructions: ins}
	obj.Programs = []*loader.Program{prog}
	return &Program{Seed: seed, Insns: code, Object: obj, Prog: prog}, nil
}

// ToAsm converts kernel-numbered instructions to cilium/ebpf instructions
// through their raw encoding.
func ToAsm(code []insn.Insn) (asm.Instructions, error) {
	raw := insn.Encode(code)
	ins, err := asm.AppendInstructions(nil, bytes.NewReader(raw), binary.LittleEndian, "linux")
	if err != nil {
		return nil, fmt.Errorf("decode generated program: %w", err)
	}
	return ins, nil
}

// Generate makes the program of a seed.
func Generate(seed uint64, cfg Config) (*Program, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	if cfg.Stmts <= 0 {
		cfg.Stmts = DefaultStmts
	}
	g := &generator{r: r, cfg: cfg}
	g.main()
	if !g.b.resolve() {
		return nil, fmt.Errorf("seed %d: %w", seed, errUnresolved)
	}
	return NewProgram(seed, g.b.out)
}

// Input makes a random concrete input for a generated program: a packet
// of 0 to maxPacket bytes with up to maxMeta bytes of metadata, random
// map values, and helper results drawn from r (lookups hit with
// probability lookupHit).
func Input(r *rand.Rand) *interp.Input {
	pkt := make([]byte, r.IntN(maxPacket+1))
	meta := metaStep * r.IntN(maxMeta/metaStep+1)
	buf := make([]byte, meta+len(pkt))
	fill(r, buf)
	ctx := make([]byte, xdpCtxSize)
	fill(r, ctx)
	maps := []interp.Map{
		{KeySize: arrayKeySize, ValueSize: arrayValueSize},
		{KeySize: hashKeySize, ValueSize: hashValueSize},
	}
	for i := range maps {
		for range arrayEntries {
			v := make([]byte, maps[i].ValueSize)
			fill(r, v)
			maps[i].Values = append(maps[i].Values, v)
		}
	}
	in := &interp.Input{
		Ctx: ctx, CtxFields: interp.XDPFields, Packet: buf, MetaLen: meta, Maps: maps,
		AllowUninitStack: true,
		Choose: func(c interp.Choice) uint64 {
			if c.Helper == fnMapLookup {
				if r.Float64() < lookupHit {
					return uint64(r.IntN(arrayEntries))
				}
				return interp.NoElem
			}
			return randValue(r)
		},
	}
	in.AddrBias = addrBias(r, in)
	return in
}

// addrBias chooses where the objects of a run live: at the interpreter's
// small fake addresses, at kernel addresses (negative as signed), or with
// one object placed so that its pointer's low 32 bits are zero, which a
// 32-bit compare of a real pointer with 0 can see.
func addrBias(r *rand.Rand, in *interp.Input) uint64 {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return interp.KernelAddrBase + uint64(r.IntN(1<<16))<<32
	}
	targets := []interp.Value{
		{Kind: interp.PtrMapValue, Map: mapArray, Elem: r.IntN(arrayEntries)},
		{Kind: interp.PtrMapValue, Map: mapHash, Elem: r.IntN(arrayEntries)},
		{Kind: interp.PtrPacket},
		{Kind: interp.PtrCtx},
		{Kind: interp.PtrStack, Off: -int64(slotSize * (1 + r.IntN(numSlots)))},
	}
	return interp.AlignedBias(targets[r.IntN(len(targets))], in)
}

// Input shape limits.
const (
	maxPacket = 96
	maxMeta   = 16
	metaStep  = 4
	lookupHit = 0.7
)

func fill(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

// randValue draws a number biased towards edge cases.
func randValue(r *rand.Rand) uint64 {
	switch r.IntN(6) {
	case 0:
		return uint64(r.IntN(16))
	case 1:
		return -uint64(r.IntN(16))
	case 2:
		return 1 << r.IntN(64)
	case 3:
		return uint64(r.Uint32())
	default:
		return r.Uint64()
	}
}

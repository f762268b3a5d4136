package interp

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/vercheck/vercheck/insn"
)

// CtxField is a context field whose 4-byte load yields a pointer (for XDP:
// data, data_end and data_meta) instead of the context bytes.
type CtxField struct {
	Off  int
	Kind Kind
}

// Map is the concrete contents of one map.
type Map struct {
	KeySize, ValueSize int
	// Values are the elements a lookup may return; each must be ValueSize
	// bytes long.
	Values [][]byte
	// ReadOnly maps (frozen .rodata) may not be written.
	ReadOnly bool
}

// Choice asks the caller for a helper result.
type Choice struct {
	// PC is the call instruction.
	PC int
	// Helper is the helper id; 0 asks for garbage bytes to put in the
	// uninitialised stack.
	Helper int32
	// Map is the map argument of a map helper, else -1.
	Map int
}

// NoElem, returned by Input.Choose for a map lookup, makes it return NULL.
const NoElem = ^uint64(0)

// Input is everything one run depends on.
type Input struct {
	// Ctx is the context object's bytes.
	Ctx []byte
	// CtxFields are the context fields that load as pointers.
	CtxFields []CtxField
	// Packet holds MetaLen bytes of metadata followed by the packet data.
	Packet  []byte
	MetaLen int
	// Maps holds the contents of every map, by map index.
	Maps []Map
	// Choose returns helper results: for bpf_map_lookup_elem an element
	// index or NoElem, for other helpers the value of r0. A nil Choose
	// makes every lookup miss and every helper return 0.
	Choose func(c Choice) uint64
	// AllowUninitStack makes reads of uninitialised stack bytes legal, as
	// the kernel allows for privileged programs; they read garbage.
	AllowUninitStack bool
	// AddrBias is added to the address of every object. The fake bases
	// are small numbers whose low 32 bits are never zero; a bias models
	// the kernel's addresses (KernelAddrBase: negative as signed) and
	// pointers whose 32-bit halves take any value (AlignedBias).
	AddrBias uint64
	// MaxSteps bounds the executed instructions (0: DefaultMaxSteps).
	MaxSteps int
	// Trace, when set, is called before every instruction; an error it
	// returns stops the run.
	Trace func(pc int, m *Machine) error
}

// XDPFields are the pointer fields of struct xdp_md.
var XDPFields = []CtxField{{Off: 0, Kind: PtrPacket}, {Off: 4, Kind: PtrPacketEnd}, {Off: 8, Kind: PtrPacketMeta}}

// DefaultMaxSteps is the step limit when Input.MaxSteps is 0: the kernel's
// processed-instruction limit, which no accepted program's single path
// can exceed.
const DefaultMaxSteps = 1_000_000

// mayGotoBudget is how many times may_goto falls through before it jumps
// (the kernel's BPF_MAX_LOOPS).
const mayGotoBudget = 8 * 1024 * 1024

// Helper ids the interpreter models.
const (
	helperMapLookup   = 1
	helperMapUpdate   = 2
	helperMapDelete   = 3
	helperKtimeGetNs  = 5
	helperPrandomU32  = 7
	helperSmpProcID   = 8
	helperGetNumaNode = 42
	helperKtimeBoot   = 125
)

// frame is one call frame.
type frame struct {
	regs  [insn.NumRegs]Value
	stack [StackSize]byte
	init  [StackSize]bool
	// spill holds pointers stored whole in an aligned 8-byte slot, by
	// slot index (byte offset / 8).
	spill map[int]Value
	// retPC is where the caller resumes.
	retPC int
}

// Machine is the state of one run. Trace callbacks may read it.
type Machine struct {
	prog    []insn.Insn
	in      *Input
	frames  []*frame
	ctx     []byte
	pkt     []byte
	maps    [][][]byte
	steps   int
	mayGoto int
}

// Depth returns the current call depth (0 in the main program).
func (m *Machine) Depth() int { return len(m.frames) - 1 }

// Regs returns the registers of the current frame (read only).
func (m *Machine) Regs() [insn.NumRegs]Value { return m.frames[len(m.frames)-1].regs }

// PacketLen returns the packet data length (without metadata).
func (m *Machine) PacketLen() int { return len(m.pkt) - m.in.MetaLen }

// MetaLen returns the packet metadata length.
func (m *Machine) MetaLen() int { return m.in.MetaLen }

// Result is the outcome of a run that ended at the main program's exit.
type Result struct {
	R0    Value
	Steps int
}

// ErrBadInput is wrapped by errors about the input itself.
var ErrBadInput = errors.New("bad interpreter input")

// Run executes prog on in. It returns a *Violation error when a safety
// check fails, and never panics on any program.
func Run(prog []insn.Insn, in *Input) (Result, error) {
	if in.MetaLen < 0 || in.MetaLen > len(in.Packet) {
		return Result{}, fmt.Errorf("meta length %d of a %d-byte packet: %w", in.MetaLen, len(in.Packet), ErrBadInput)
	}
	m := &Machine{prog: prog, in: in, mayGoto: mayGotoBudget}
	m.ctx = append([]byte(nil), in.Ctx...)
	m.pkt = append([]byte(nil), in.Packet...)
	m.maps = make([][][]byte, len(in.Maps))
	for i, mp := range in.Maps {
		for j, v := range mp.Values {
			if len(v) != mp.ValueSize {
				return Result{}, fmt.Errorf("map %d element %d has %d bytes, want %d: %w", i, j, len(v), mp.ValueSize, ErrBadInput)
			}
			m.maps[i] = append(m.maps[i], append([]byte(nil), v...))
		}
	}
	f := m.newFrame(-1)
	f.regs[insn.R1] = Value{Kind: PtrCtx}
	m.frames = []*frame{f}
	return m.loop()
}

// newFrame makes a frame with only r10 set and garbage in its stack.
func (m *Machine) newFrame(retPC int) *frame {
	f := &frame{retPC: retPC}
	f.regs[insn.R10] = Value{Kind: PtrStack, Frame: len(m.frames)}
	if m.in.Choose != nil {
		for i := 0; i < StackSize; i += 8 {
			binary.LittleEndian.PutUint64(f.stack[i:], m.in.Choose(Choice{Map: -1}))
		}
	}
	return f
}

func (m *Machine) cur() *frame { return m.frames[len(m.frames)-1] }

func violation(pc int, kind, format string, args ...any) error {
	return &Violation{PC: pc, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func (m *Machine) choose(c Choice) uint64 {
	if m.in.Choose == nil {
		if c.Helper == helperMapLookup {
			return NoElem
		}
		return 0
	}
	return m.in.Choose(c)
}

// loop is the fetch-execute loop.
func (m *Machine) loop() (Result, error) {
	maxSteps := m.in.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	pc := 0
	for {
		if pc < 0 || pc >= len(m.prog) || m.prog[pc].Filler {
			return Result{}, violation(pc, BadInsn, "jump out of the program or into an ld_imm64")
		}
		m.steps++
		if m.steps > maxSteps {
			return Result{}, violation(pc, StepLimit, "more than %d instructions", maxSteps)
		}
		if m.in.Trace != nil {
			if err := m.in.Trace(pc, m); err != nil {
				return Result{}, err
			}
		}
		next, done, err := m.step(pc)
		if err != nil {
			return Result{}, err
		}
		if done {
			r0 := m.frames[0].regs[insn.R0]
			return Result{R0: r0, Steps: m.steps}, nil
		}
		pc = next
	}
}

// reg reads register r, failing if it is uninitialised.
func (m *Machine) reg(pc int, r uint8) (Value, error) {
	if r >= insn.NumRegs {
		return Value{}, violation(pc, BadInsn, "register r%d", r)
	}
	v := m.cur().regs[r]
	if v.Kind == Uninit {
		return Value{}, violation(pc, UninitRead, "r%d is uninitialised", r)
	}
	return v, nil
}

// setReg writes register r. Overwriting r10 would leave every later
// stack access wild: the frame pointer is mangled.
func (m *Machine) setReg(pc int, r uint8, v Value) error {
	if r == insn.R10 {
		return violation(pc, Mangled, "write to the frame pointer r10")
	}
	if r > insn.R10 {
		return violation(pc, BadInsn, "write to r%d", r)
	}
	m.cur().regs[r] = v
	return nil
}

// addr returns the address of a value (its bits for a scalar): the
// object's fake base plus Input.AddrBias, plus the offset.
func (m *Machine) addr(v Value) uint64 {
	if v.Kind == Scalar || v.Kind == Uninit {
		return v.Bits
	}
	return m.in.AddrBias + m.unbiasedAddr(v)
}

// unbiasedAddr is the address of pointer v before Input.AddrBias.
func (m *Machine) unbiasedAddr(v Value) uint64 {
	switch v.Kind {
	case PtrCtx:
		return uint64(ctxBase + v.Off)
	case PtrStack:
		return uint64(stackBase + int64(v.Frame)*stackFrameStride + StackSize + v.Off)
	case PtrMap:
		return uint64(mapBase + int64(v.Map)*mapStride)
	case PtrMapValue:
		return uint64(mapBase + int64(v.Map)*mapStride + int64(v.Elem+1)*mapElemStride + v.Off)
	case PtrPacket:
		return uint64(pktBase + int64(m.in.MetaLen) + v.Off)
	case PtrPacketMeta:
		return uint64(pktBase + v.Off)
	case PtrPacketEnd:
		return uint64(pktBase + int64(len(m.pkt)) + v.Off)
	case PtrFunc:
		return uint64(funcBase + v.Off*funcInsnStride)
	}
	return v.Bits
}

// KernelAddrBase is where the kernel's direct map starts on x86-64: real
// BPF pointers are this high, negative as signed numbers.
const KernelAddrBase = 0xffff_8880_0000_0000

// AlignedBias returns an Input.AddrBias that places pointer v at a kernel
// address whose low 32 bits are zero: a 32-bit compare of that pointer
// with 0 holds, as it can for a real pointer (which is why the kernel
// decides only the 64-bit compare of a non-NULL pointer with 0). v must
// not point into the packet end or depend on the packet's length.
func AlignedBias(v Value, in *Input) uint64 {
	m := &Machine{in: in}
	return KernelAddrBase + 1<<32 - m.unbiasedAddr(v)
}

// mem is a resolved memory access: the bytes of the object and where the
// access starts in them.
type mem struct {
	buf []byte
	at  int
	// f is the frame of a stack access.
	f *frame
}

// resolve checks an access of size bytes at ptr+off and returns where it
// lands.
func (m *Machine) resolve(pc int, ptr Value, off int64, size int, write bool) (mem, error) {
	o := ptr.Off + off
	var buf []byte
	var at int64
	var f *frame
	switch ptr.Kind {
	case PtrCtx:
		if write {
			return mem{}, violation(pc, BadPointer, "write into the context at %d", o)
		}
		buf, at = m.ctx, o
	case PtrStack:
		if ptr.Frame < 0 || ptr.Frame >= len(m.frames) {
			return mem{}, violation(pc, BadPointer, "stack of dead frame %d", ptr.Frame)
		}
		f = m.frames[ptr.Frame]
		buf, at = f.stack[:], o+StackSize
	case PtrMapValue:
		if ptr.Map >= len(m.maps) || ptr.Elem >= len(m.maps[ptr.Map]) {
			return mem{}, violation(pc, BadPointer, "map value %v does not exist", ptr)
		}
		if write && m.in.Maps[ptr.Map].ReadOnly {
			return mem{}, violation(pc, BadPointer, "write into read-only map %d", ptr.Map)
		}
		buf, at = m.maps[ptr.Map][ptr.Elem], o
	case PtrPacket:
		buf, at = m.pkt, o+int64(m.in.MetaLen)
		if at < int64(m.in.MetaLen) {
			return mem{}, violation(pc, OutOfBounds, "packet access at data%+d", o)
		}
	case PtrPacketMeta:
		buf, at = m.pkt[:m.in.MetaLen], o
	default:
		return mem{}, violation(pc, BadPointer, "memory access through %s %v", ptr.Kind, ptr)
	}
	if at < 0 || at > int64(len(buf))-int64(size) {
		return mem{}, violation(pc, OutOfBounds, "%d-byte access at %v%+d, object size %d", size, ptr, off, len(buf))
	}
	return mem{buf: buf, at: int(at), f: f}, nil
}

// load reads size bytes (zero-extended) at ptr+off. A whole aligned
// 8-byte stack slot holding a spilled pointer returns that pointer; a
// partial read of it reads the pointer's address bytes, which the store
// wrote.
func (m *Machine) load(pc int, ptr Value, off int64, size int) (Value, error) {
	if ptr.Kind == PtrCtx && size == 4 {
		for _, cf := range m.in.CtxFields {
			if int64(cf.Off) == ptr.Off+off {
				return Value{Kind: cf.Kind}, nil
			}
		}
	}
	mm, err := m.resolve(pc, ptr, off, size, false)
	if err != nil {
		return Value{}, err
	}
	if mm.f != nil {
		if size == 8 && mm.at%8 == 0 {
			if p, ok := mm.f.spill[mm.at/8]; ok {
				return p, nil
			}
		}
		for i := mm.at; i < mm.at+size; i++ {
			if !mm.f.init[i] && !m.in.AllowUninitStack {
				return Value{}, violation(pc, UninitRead, "stack byte fp%+d is uninitialised", i-StackSize)
			}
		}
	}
	return ScalarOf(readN(mm.buf[mm.at:], size)), nil
}

// store writes v (its low size bytes) at ptr+off.
func (m *Machine) store(pc int, ptr Value, off int64, size int, v Value) error {
	mm, err := m.resolve(pc, ptr, off, size, true)
	if err != nil {
		return err
	}
	if mm.f != nil {
		// Overwriting a spilled pointer turns its slots back into
		// bytes: the pointer's address.
		for slot := mm.at / 8; slot <= (mm.at+size-1)/8; slot++ {
			if p, ok := mm.f.spill[slot]; ok {
				binary.LittleEndian.PutUint64(mm.f.stack[slot*8:], m.addr(p))
				delete(mm.f.spill, slot)
			}
		}
		for i := mm.at; i < mm.at+size; i++ {
			mm.f.init[i] = true
		}
		if size == 8 && mm.at%8 == 0 && v.Kind.IsPointer() {
			if mm.f.spill == nil {
				mm.f.spill = map[int]Value{}
			}
			mm.f.spill[mm.at/8] = v
		}
	}
	writeN(mm.buf[mm.at:], size, m.addr(v))
	return nil
}

// checkRange checks that size bytes at ptr are readable (a helper's memory
// argument).
func (m *Machine) checkRange(pc int, ptr Value, size int) error {
	if size == 0 {
		return nil
	}
	mm, err := m.resolve(pc, ptr, 0, size, false)
	if err != nil {
		return err
	}
	if mm.f != nil && !m.in.AllowUninitStack {
		for i := mm.at; i < mm.at+size; i++ {
			if !mm.f.init[i] {
				return violation(pc, UninitRead, "helper reads uninitialised stack byte fp%+d", i-StackSize)
			}
		}
	}
	return nil
}

func readN(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func writeN(b []byte, size int, v uint64) {
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

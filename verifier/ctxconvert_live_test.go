package verifier

import (
	"fmt"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// liveTranslatedLen loads a program into the running kernel and returns the
// length, in instructions, of the program the kernel keeps after its
// rewrites (bpf_prog_info's xlated_prog_len), or the load error.
func liveTranslatedLen(lt liveProgramType, insns asm.Instructions) (int, error) {
	spec := &ebpf.ProgramSpec{Type: lt.pt, AttachType: lt.at, Instructions: insns, License: "GPL"}
	if lt.pt == ebpf.Syscall {
		spec.Flags = loader.FlagSleepable
	}
	p, err := ebpf.NewProgram(spec)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	info, err := p.Info()
	if err != nil {
		return 0, fmt.Errorf("program info: %w", err)
	}
	n, err := info.TranslatedSize()
	if err != nil {
		return 0, fmt.Errorf("translated size: %w", err)
	}
	return n / asm.InstructionSize, nil
}

// ctxConvertOp is one kind of context access the live test makes: its
// instructions (the access first or second) and how many instructions
// precede the exit sequence, so that the rewritten length minus base is
// the access's rewrite.
type ctxConvertOp struct {
	name string
	op   func(off, size int) ctxaccess.Op
	make func(off int16, size asm.Size) asm.Instructions
	base int
}

// ctxConvertOps are the access kinds: a load, a sign-extending load, a
// load into the base register, a store of a register and a store of an
// immediate.
var ctxConvertOps = []ctxConvertOp{
	{"ldx", func(off, size int) ctxaccess.Op { return ctxaccess.Op{Off: off, Size: size} },
		func(off int16, size asm.Size) asm.Instructions {
			return asm.Instructions{asm.LoadMem(asm.R2, asm.R1, off, size)}
		}, 2},
	{"ldsx", func(off, size int) ctxaccess.Op { return ctxaccess.Op{Off: off, Size: size, SignExt: true} },
		func(off int16, size asm.Size) asm.Instructions {
			return asm.Instructions{asm.LoadMemSX(asm.R2, asm.R1, off, size)}
		}, 2},
	{"ldx same", func(off, size int) ctxaccess.Op { return ctxaccess.Op{Off: off, Size: size, SameReg: true} },
		func(off int16, size asm.Size) asm.Instructions {
			return asm.Instructions{asm.LoadMem(asm.R1, asm.R1, off, size)}
		}, 2},
	{"stx", func(off, size int) ctxaccess.Op { return ctxaccess.Op{Off: off, Size: size, Store: true} },
		func(off int16, size asm.Size) asm.Instructions {
			return asm.Instructions{asm.Mov.Imm(asm.R2, 0), asm.StoreMem(asm.R1, off, asm.R2, size)}
		}, 3},
	{"st", func(off, size int) ctxaccess.Op { return ctxaccess.Op{Off: off, Size: size, Store: true, Imm: true} },
		func(off int16, size asm.Size) asm.Instructions {
			return asm.Instructions{storeImm(asm.R1, off, 0, size)}
		}, 2},
}

// ctxConvertCounts tallies a live comparison.
type ctxConvertCounts struct {
	checked, unmodelled, refused int
}

func (c ctxConvertCounts) String() string {
	return fmt.Sprintf("%d checked, %d unmodelled, %d refused by the kernel", c.checked, c.unmodelled, c.refused)
}

// TestCtxConvertLiveKernel compares RewriteLen with the running kernel for
// every context access each layout allows (every offset, width, load,
// sign-extending load, store of a register and of an immediate): the
// program "access; r0 = ret; exit" is rewritten into base + n
// instructions, n being what convert_ctx_accesses patched in for the
// access. Offsets of the large contexts (tracepoint records, syscall
// buffers) stop at maxProbeOff. An access the kernel refuses (a
// sign-extending load of a packet pointer) must be unmodelled. The whole
// sweep takes well under a second, so nothing is sampled.
func TestCtxConvertLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	const maxProbeOff = 256
	types := ctxLiveTypes
	dump := ctxConvertDump(t)
	rttMinUnchecked := liveMissing(t).Has(stablefix.SockOpsRttMinFullsock)
	for _, lt := range types {
		check, csize := ctxaccess.Layout(lt.pt)
		exit := int32(0)
		if lo, _, ok := retRange(lt.pt, lt.at); ok {
			exit = int32(lo)
		}
		var c ctxConvertCounts
		for off := 0; off < min(csize, maxProbeOff); off++ {
			for size, asmSize := range ctxAccessSizes {
				for _, k := range ctxConvertOps {
					op := k.op(off, size)
					op.RttMinUnchecked = rttMinUnchecked
					if _, valid := check(off, size, op.Store, lt.at); !valid || (op.SignExt && size == sizeU64) {
						continue
					}
					insns := append(k.make(int16(off), asmSize), asm.Mov.Imm(asm.R0, exit), asm.Return())
					what := fmt.Sprintf("%v/%v %s%d at ctx%+d", lt.pt, lt.at, k.name, size, off)
					got, err := liveTranslatedLen(lt, insns)
					if err != nil {
						// A sign-extending load of a pointer field, an
						// immediate stored where the kernel refuses it.
						if n, ok := ctxaccess.RewriteLen(lt.pt, lt.at, op); ok {
							t.Errorf("%s: the kernel refuses it (%v), RewriteLen gives %d", what, err, n)
						}
						c.refused++
						continue
					}
					kn := got - k.base
					dump(what, kn)
					c.compare(t, what, kn, func() (int, bool) { return ctxaccess.RewriteLen(lt.pt, lt.at, op) })
				}
			}
		}
		t.Logf("%v/%v: %v", lt.pt, lt.at, c)
	}
	ctxConvertTstampType(t)
}

// ctxConvertTstampType checks tc's tstamp accesses in a program that also
// reads tstamp_type (prog->tstamp_type_access), which drops the ingress
// check: each program starts with that read, whose own rewrite is measured
// alone first.
func ctxConvertTstampType(t *testing.T) {
	tc := liveProgramType{ebpf.SchedCLS, 0}
	const tstampOff, tstampTypeOff = 152, 180
	prefix := asm.LoadMem(asm.R3, asm.R1, tstampTypeOff, asm.Byte)
	alone, err := liveTranslatedLen(tc, asm.Instructions{prefix, asm.Mov.Imm(asm.R0, 0), asm.Return()})
	if err != nil {
		t.Fatalf("reading tstamp_type: %v", err)
	}
	var c ctxConvertCounts
	for _, k := range ctxConvertOps {
		op := k.op(tstampOff, sizeU64)
		op.TstampTypeAccess = true
		if op.SignExt {
			continue
		}
		insns := append(asm.Instructions{prefix}, k.make(tstampOff, asm.DWord)...)
		got, err := liveTranslatedLen(tc, append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return()))
		if err != nil {
			t.Errorf("tc %s8 at tstamp after reading tstamp_type: %v", k.name, err)
			continue
		}
		c.compare(t, fmt.Sprintf("tc %s8 at tstamp after reading tstamp_type", k.name), got-alone-(k.base-2),
			func() (int, bool) { return ctxaccess.RewriteLen(tc.pt, tc.at, op) })
	}
	t.Logf("tc tstamp with tstamp_type read: %v", c)
}

// compare checks one modelled length against the kernel's.
func (c *ctxConvertCounts) compare(t *testing.T, what string, kernel int, model func() (int, bool)) {
	t.Helper()
	n, ok := model()
	if !ok {
		c.unmodelled++
		return
	}
	c.checked++
	if n != kernel {
		t.Errorf("%s: rewritten into %d instructions, kernel %d", what, n, kernel)
	}
}

// ctxConvertDump returns a function recording the kernel's lengths in the
// file VERCHECK_CTXCONVERT_DUMP names (for deriving tables), or one doing
// nothing.
func ctxConvertDump(t *testing.T) func(what string, n int) {
	path := os.Getenv("VERCHECK_CTXCONVERT_DUMP")
	if path == "" {
		return func(string, int) {}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func(what string, n int) { fmt.Fprintf(f, "%s\t%d\n", what, n) }
}

// sockProbe reaches a socket pointer in a program and loads through it:
// pre leaves the pointer in R2 or jumps to "out" when it is NULL.
type sockProbe struct {
	kind  ctxaccess.SockKind
	lt    liveProgramType
	valid func(off, size int) bool
	pre   func(t *testing.T) asm.Instructions
}

// TestCtxSockConvertLiveKernel compares SockRewriteLen with the running
// kernel for every load the socket structs allow. The pointer comes from
// skb->sk (PTR_TO_SOCK_COMMON), bpf_sk_fullsock (PTR_TO_SOCKET),
// bpf_tcp_sock (PTR_TO_TCP_SOCK) in a tc program and from an XSKMAP
// lookup (PTR_TO_XDP_SOCK) in an XDP program. Each program is measured
// twice, with the load and with a one-instruction stand-in for it, so
// the difference plus one is the load's rewrite whatever the rest became.
func TestCtxSockConvertLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	tc := liveProgramType{ebpf.SchedCLS, 0}
	skbSk := asm.LoadMem(asm.R2, asm.R1, 168, asm.DWord)
	probes := []sockProbe{
		{ctxaccess.SockCommonPtr, tc, ctxaccess.SockCommonField, func(*testing.T) asm.Instructions {
			return asm.Instructions{skbSk, asm.JEq.Imm(asm.R2, 0, "out")}
		}},
		{ctxaccess.Sock, tc, ctxaccess.BPFSockField, func(*testing.T) asm.Instructions {
			return asm.Instructions{skbSk, asm.JEq.Imm(asm.R2, 0, "out"), asm.Mov.Reg(asm.R1, asm.R2),
				asm.FnSkFullsock.Call(), asm.JEq.Imm(asm.R0, 0, "out"), asm.Mov.Reg(asm.R2, asm.R0)}
		}},
		{ctxaccess.TCPSock, tc, ctxaccess.TCPSockField, func(*testing.T) asm.Instructions {
			return asm.Instructions{skbSk, asm.JEq.Imm(asm.R2, 0, "out"), asm.Mov.Reg(asm.R1, asm.R2),
				asm.FnTcpSock.Call(), asm.JEq.Imm(asm.R0, 0, "out"), asm.Mov.Reg(asm.R2, asm.R0)}
		}},
		{ctxaccess.XDPSock, liveProgramType{ebpf.XDP, 0}, ctxaccess.XDPSockField, func(t *testing.T) asm.Instructions {
			m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.XSKMap, KeySize: 4, ValueSize: 4, MaxEntries: 1})
			if err != nil {
				t.Logf("no XSKMAP: %v", err)
				return nil
			}
			t.Cleanup(func() { m.Close() })
			return asm.Instructions{asm.StoreImm(asm.R10, -4, 0, asm.Word), asm.LoadMapPtr(asm.R1, m.FD()),
				asm.Mov.Reg(asm.R2, asm.R10), asm.Add.Imm(asm.R2, -4), asm.FnMapLookupElem.Call(),
				asm.JEq.Imm(asm.R0, 0, "out"), asm.Mov.Reg(asm.R2, asm.R0)}
		}},
	}
	dump := ctxConvertDump(t)
	for _, p := range probes {
		pre := p.pre(t)
		if pre == nil {
			continue
		}
		build := func(access asm.Instruction) asm.Instructions {
			insns := append(append(asm.Instructions{}, pre...), access)
			return append(insns, asm.Mov.Imm(asm.R0, 0).WithSymbol("out"), asm.Return())
		}
		base, err := liveTranslatedLen(p.lt, build(asm.Mov.Imm(asm.R3, 0)))
		if err != nil {
			t.Fatalf("%v: the program without the load fails: %v", p.kind, err)
		}
		var c ctxConvertCounts
		for off := 0; off < 128; off++ {
			for size, asmSize := range ctxAccessSizes {
				for _, signExt := range []bool{false, true} {
					if !p.valid(off, size) || (signExt && size == sizeU64) {
						continue
					}
					load := asm.LoadMem(asm.R3, asm.R2, int16(off), asmSize)
					if signExt {
						load = asm.LoadMemSX(asm.R3, asm.R2, int16(off), asmSize)
					}
					what := fmt.Sprintf("sock%d %v sx=%v at %+d", p.kind, size, signExt, off)
					got, err := liveTranslatedLen(p.lt, build(load))
					op := ctxaccess.Op{Off: off, Size: size, SignExt: signExt}
					if err != nil {
						// The upper halves of bpf_tcp_sock's 64-bit
						// counters: no rewrite, a verifier bug.
						if n, ok := ctxaccess.SockRewriteLen(p.kind, op); ok {
							t.Errorf("%s: the kernel refuses it (%v), SockRewriteLen gives %d", what, err, n)
						}
						c.refused++
						continue
					}
					kn := got - base + 1
					dump(what, kn)
					c.compare(t, what, kn, func() (int, bool) { return ctxaccess.SockRewriteLen(p.kind, op) })
				}
			}
		}
		t.Logf("socket kind %d: %v", p.kind, c)
	}
}

// TestCtxPrologueLiveKernel compares PrologueLen with the running kernel: a
// program that checks one byte of packet and stores to it, against the
// same program storing to the stack instead. The store through a packet
// pointer sets seen_direct_write, and the prologue replaces instruction 0
// by PrologueLen instructions.
func TestCtxPrologueLiveKernel(t *testing.T) {
	skipIfNoBPF(t)
	types := []liveProgramType{
		{ebpf.SchedCLS, 0}, {ebpf.SchedACT, 0}, {ebpf.LWTXmit, 0}, {ebpf.SkSKB, 0}, {ebpf.XDP, 0}, {ebpf.SkMsg, 0},
	}
	for _, lt := range types {
		dataOff, endOff, width := int16(76), int16(80), asm.Word
		switch lt.pt {
		case ebpf.XDP:
			dataOff, endOff = 0, 4
		case ebpf.SkMsg:
			dataOff, endOff, width = 0, 8, asm.DWord
		}
		build := func(store asm.Instruction) asm.Instructions {
			return asm.Instructions{
				asm.LoadMem(asm.R2, asm.R1, dataOff, width), asm.LoadMem(asm.R3, asm.R1, endOff, width),
				asm.Mov.Reg(asm.R4, asm.R2), asm.Add.Imm(asm.R4, 1), asm.JGT.Reg(asm.R4, asm.R3, "out"),
				store, asm.Mov.Imm(asm.R0, 0).WithSymbol("out"), asm.Return(),
			}
		}
		without, err := liveTranslatedLen(lt, build(asm.StoreImm(asm.R10, -8, 0, asm.Byte)))
		if err != nil {
			t.Errorf("%v: %v", lt.pt, err)
			continue
		}
		with, err := liveTranslatedLen(lt, build(asm.StoreImm(asm.R2, 0, 0, asm.Byte)))
		if err != nil {
			t.Errorf("%v with a packet store: %v", lt.pt, err)
			continue
		}
		for _, write := range []bool{false, true} {
			growth := 0
			if write {
				growth = with - without
			}
			n, ok := ctxaccess.PrologueLen(lt.pt, lt.at, write)
			if !ok {
				t.Errorf("%v direct write %v: prologue not modelled (kernel grows by %d)", lt.pt, write, growth)
				continue
			}
			if max(n-1, 0) != growth {
				t.Errorf("%v direct write %v: prologue of %d instructions, kernel grows the program by %d", lt.pt, write, n, growth)
			}
		}
	}
}

package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
)

// The kernel reports some verifier failures with EFAULT, "The sequence of
// 8193 jumps is too complex." above all, and cilium/ebpf then drops the
// log ("hit verifier bug"): without the log such a rejection would look
// like a program the kernel could not load. rawLoadLog loads the program
// once more through bpf(2) directly, with a log buffer of its own.

// needsAttachBTF reports whether loading spec needs the BTF id of its
// attach target, which only cilium/ebpf's loader resolves: tracing, LSM,
// extension and struct_ops programs. Other programs name a target (a
// raw tracepoint, a kprobe) only for attaching, after the load.
func needsAttachBTF(spec *ebpf.ProgramSpec) bool {
	switch spec.Type {
	case ebpf.Tracing, ebpf.LSM, ebpf.Extension, ebpf.StructOps:
		return true
	}
	return spec.AttachTarget != nil
}

// progLoadAttr is the prefix of union bpf_attr that BPF_PROG_LOAD reads,
// up to attach_btf_id; the fields after expected_attach_type carry the
// program's BTF, for the loads that encode the program themselves.
type progLoadAttr struct {
	progType           uint32
	insnCnt            uint32
	insns              uint64
	license            uint64
	logLevel           uint32
	logSize            uint32
	logBuf             uint64
	kernVersion        uint32
	progFlags          uint32
	progName           [16]byte
	progIfindex        uint32
	expectedAttachType uint32
	progBTFFD          uint32
	funcInfoRecSize    uint32
	funcInfo           uint64
	funcInfoCnt        uint32
	lineInfoRecSize    uint32
	lineInfo           uint64
	lineInfoCnt        uint32
	attachBTFID        uint32
}

// bpfProgLoad is the BPF_PROG_LOAD command of bpf(2).
const bpfProgLoad = 5

// rawLogSize is the raw reload's log buffer: the stats-level log of a
// rejection is a few lines.
const rawLogSize = 1 << 16

// maxRawLogSize bounds the growth of a raw load's log buffer on ENOSPC,
// as cilium/ebpf grows its own.
const maxRawLogSize = 1 << 30

// rawProgram is what a load through bpf(2) directly hands the kernel
// besides the spec's own fields: the encoded instructions and, when the
// program has them, its BTF and the func and line info records into it.
type rawProgram struct {
	code               []byte
	btfFD              int
	funcInfo, lineInfo []byte
	// withBTF passes btfFD even without func and line info: libbpf loads
	// every program with the object's BTF.
	withBTF bool
	// attachBTFID is the vmlinux BTF id of a tracing program's target.
	attachBTFID uint32
}

// progLoad runs BPF_PROG_LOAD for spec encoded as p, with a log of
// logSize bytes at level, and returns the log and the errno (0 when the
// kernel accepted the program, whose fd is closed again).
func progLoad(spec *ebpf.ProgramSpec, p rawProgram, level ebpf.LogLevel, logSize int) (loaded, unix.Errno) {
	license := append([]byte(spec.License), 0)
	logBuf := make([]byte, logSize)
	attr := progLoadAttr{
		progType:           uint32(spec.Type),
		insnCnt:            uint32(len(p.code) / asm.InstructionSize),
		insns:              uint64(uintptr(unsafe.Pointer(&p.code[0]))),
		license:            uint64(uintptr(unsafe.Pointer(&license[0]))),
		logLevel:           uint32(level),
		logSize:            uint32(len(logBuf)),
		logBuf:             uint64(uintptr(unsafe.Pointer(&logBuf[0]))),
		kernVersion:        spec.KernelVersion,
		progFlags:          spec.Flags,
		expectedAttachType: uint32(spec.AttachType),
		attachBTFID:        p.attachBTFID,
	}
	copy(attr.progName[:len(attr.progName)-1], kernelObjName(spec.Name))
	var pin runtime.Pinner
	pin.Pin(&p.code[0])
	pin.Pin(&license[0])
	pin.Pin(&logBuf[0])
	if p.withBTF || len(p.funcInfo) > 0 || len(p.lineInfo) > 0 {
		attr.progBTFFD = uint32(p.btfFD)
	}
	if len(p.funcInfo) > 0 {
		pin.Pin(&p.funcInfo[0])
		attr.funcInfoRecSize = btf.FuncInfoSize
		attr.funcInfo = uint64(uintptr(unsafe.Pointer(&p.funcInfo[0])))
		attr.funcInfoCnt = uint32(len(p.funcInfo)) / btf.FuncInfoSize
	}
	if len(p.lineInfo) > 0 {
		pin.Pin(&p.lineInfo[0])
		attr.lineInfoRecSize = btf.LineInfoSize
		attr.lineInfo = uint64(uintptr(unsafe.Pointer(&p.lineInfo[0])))
		attr.lineInfoCnt = uint32(len(p.lineInfo)) / btf.LineInfoSize
	}
	defer pin.Unpin()
	fd, errno := sysProgLoad(&attr)
	out := loaded{log: logString(logBuf)}
	if errno == 0 {
		if prog, err := ebpf.NewProgramFromFD(int(fd)); err == nil {
			out.xlated = loadedProgram(prog).xlated
			prog.Close()
		} else {
			unix.Close(int(fd))
		}
	}
	return out, errno
}

// sysProgLoad runs BPF_PROG_LOAD until the verifier finishes. The
// verifier gives up with EAGAIN when a signal is pending (do_check's
// signal_pending test), and the Go runtime signals its threads all the
// time (SIGURG preempts goroutines, most often while the collector
// runs); the log then ends wherever the verifier stopped. Such a load is
// no verdict: libbpf and cilium/ebpf load again, and so does vercheck.
// Taken for a rejection, it had the interrupted log's last line for a
// message (a false accept of session 13 was one).
func sysProgLoad(attr *progLoadAttr) (uintptr, unix.Errno) {
	for {
		fd, _, errno := unix.Syscall(unix.SYS_BPF, bpfProgLoad, uintptr(unsafe.Pointer(attr)), unsafe.Sizeof(*attr))
		if errno != unix.EAGAIN {
			return fd, errno
		}
	}
}

// logString returns the verifier log the kernel left in buf: a C string.
// Bytes after its NUL are stale: when the verifier cuts its log back
// (bpf_vlog_reset, as before a failing global function's log), it writes
// the shorter log over the longer one and ends it with a NUL, leaving
// the longer one's tail behind it.
func logString(buf []byte) string {
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return strings.TrimSpace(string(buf))
}

// kernelObjName is the part of a program's name the kernel keeps: what
// cilium/ebpf passes (at most BPF_OBJ_NAME_LEN-1 bytes of letters, digits,
// '_' and '.'); a name with other bytes is left out, as it would refuse it.
func kernelObjName(name string) string {
	const maxLen = 15
	if len(name) > maxLen {
		name = name[:maxLen]
	}
	for _, c := range []byte(name) {
		if !(c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return ""
		}
	}
	return name
}

// rawLoadLog loads spec with a log of the given level (and the stats)
// in a buffer of at least size bytes and returns the log, for a program
// cilium/ebpf failed with EFAULT. Programs that need what
// only cilium/ebpf's loader provides (kfuncs, attach targets, maps) are
// not reloaded. The program goes with its BTF func and line info: without
// them a program of several functions is another program (global
// functions are verified apart, function addresses are refused: "missing
// btf func_info"), and the 8193-jump refusal (EFAULT) is most often met in
// programs of several functions.
func rawLoadLog(spec *ebpf.ProgramSpec, level ebpf.LogLevel, size uint32) (string, error) {
	needsLoader := func(ins asm.Instruction) bool {
		// A map named but not yet created would reach the kernel as a
		// bogus fd; kfuncs are resolved below, in vmlinux only.
		return ins.IsLoadFromMap() && ins.Map() == nil
	}
	if needsAttachBTF(spec) || slices.ContainsFunc(spec.Instructions, needsLoader) {
		return "", errors.New("raw reload: the program needs an attach target or maps not created yet")
	}
	p, release, err := rawProgramWithInfo(spec)
	if err != nil {
		return "", fmt.Errorf("raw reload: %w", err)
	}
	defer release()
	out, _ := progLoad(spec, p, level|ebpf.LogLevelStats, max(rawLogSize, int(size)))
	return out.log, nil
}

// resolveVmlinuxKfuncs makes every kfunc call of insns name a function of
// the running kernel's vmlinux by its BTF id: one that names a symbol (a
// cilium/ebpf spec's, whose id is a placeholder) is looked up, as
// cilium/ebpf's linker does for the load it made; one that names none
// (vercheck's loader resolved it, or a mutant names any id, even one of
// no function) goes to the kernel as it is, whose add_kfunc_call judges
// it. Kfuncs of modules
// need an fd_array, which a raw reload does not pass.
func resolveVmlinuxKfuncs(insns asm.Instructions) error {
	var vmlinux *btf.Spec
	for i := range insns {
		ins := &insns[i]
		if !ins.IsKfuncCall() {
			continue
		}
		if vmlinux == nil {
			var err error
			if vmlinux, err = kernelBTF.Kernel(); err != nil {
				return err
			}
		}
		if err := resolveVmlinuxKfunc(vmlinux, ins); err != nil {
			return fmt.Errorf("kfunc call %d: %w", i, err)
		}
	}
	return nil
}

func resolveVmlinuxKfunc(vmlinux *btf.Spec, ins *asm.Instruction) error {
	if ins.Offset < 0 {
		// find_kfunc_desc_btf refuses it before anything else.
		return nil
	}
	if ins.Offset > 0 {
		// A module's BTF is the fd at that index of an fd_array, which
		// a raw reload does not pass. Where vercheck knows no module
		// BTF either, both judge the call without one.
		if mods, err := loader.ModuleBTFs(); err != nil || len(mods) > 0 {
			return errors.New("a module's function")
		}
		return nil
	}
	if ins.Reference() == "" {
		return nil
	}
	var fn *btf.Func
	if err := vmlinux.TypeByName(ins.Reference(), &fn); err != nil {
		return fmt.Errorf("%q: %w", ins.Reference(), err)
	}
	id, err := vmlinux.TypeID(fn)
	if err != nil {
		return err
	}
	ins.Constant = int64(id)
	return nil
}

// rawProgramWithInfo encodes spec's instructions for bpf(2), their vmlinux
// kfunc calls resolved (resolveVmlinuxKfuncs), with their
// func and line info, and loads the BTF that info refers to; release
// closes that BTF once the program is loaded.
func rawProgramWithInfo(spec *ebpf.ProgramSpec) (p rawProgram, release func(), err error) {
	insns := slices.Clone(spec.Instructions)
	if err := resolveVmlinuxKfuncs(insns); err != nil {
		return rawProgram{}, nil, err
	}
	var b btf.Builder
	funcInfo, lineInfo, err := btf.MarshalExtInfos(insns, &b)
	if err != nil {
		return rawProgram{}, nil, fmt.Errorf("marshal func and line info: %w", err)
	}
	p = rawProgram{funcInfo: funcInfo, lineInfo: lineInfo}
	if p.code, err = encode(insns); err != nil {
		return rawProgram{}, nil, err
	}
	if b.Empty() {
		return p, func() {}, nil
	}
	h, err := btf.NewHandle(&b)
	if err != nil {
		return rawProgram{}, nil, fmt.Errorf("load BTF: %w", err)
	}
	p.btfFD = h.FD()
	return p, func() { h.Close() }, nil
}

// encode marshals insns, bound maps as their file descriptors, as the
// kernel must read them: with what cilium/ebpf's encoding drops (the off
// field of ALU instructions, placeholder helper numbers; insn.Marshal).
func encode(insns asm.Instructions) ([]byte, error) {
	var buf bytes.Buffer
	if err := insn.Marshal(insns, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// needsOwnEncoding reports whether cilium/ebpf would hand the kernel
// another program than spec, or none: an ALU instruction whose off its
// encoding drops (the address-space cast of arena programs above all), a
// placeholder helper number it refuses to encode.
func needsOwnEncoding(spec *ebpf.ProgramSpec) bool {
	return slices.ContainsFunc(spec.Instructions, func(ins asm.Instruction) bool {
		return insn.OffsetLostInMarshal(ins) || insn.HelperLostInMarshal(ins)
	})
}

// loadOwnEncoding loads spec through bpf(2) with vercheck's own encoding
// of its instructions (see needsOwnEncoding) and its func and line info,
// and returns the log as loadSpec does: an accepted program's, or an
// error wrapping an [ebpf.VerifierError] with the log of a rejection. The
// spec's CO-RE relocations must be applied already; of the attach targets,
// only those in vmlinux are resolved (ownEncodingAttachID).
func loadOwnEncoding(spec *ebpf.ProgramSpec, level ebpf.LogLevel, size uint32) (loaded, error) {
	attachID, member, err := ownEncodingAttachID(spec)
	if err != nil {
		return loaded{}, fmt.Errorf("load %s: %w", spec.Name, err)
	}
	if spec.Type == ebpf.StructOps {
		// The member a struct_ops program implements is its expected
		// attach type, as cilium/ebpf's loader sets it.
		spec = spec.Copy()
		spec.AttachType = ebpf.AttachType(member)
	}
	for i := range spec.Instructions {
		if btf.CORERelocationMetadata(&spec.Instructions[i]) != nil {
			return loaded{}, fmt.Errorf("load %s: %w", spec.Name, errOwnEncodingCORE)
		}
	}
	p, release, err := rawProgramWithInfo(spec)
	if err != nil {
		return loaded{}, fmt.Errorf("load %s: %w", spec.Name, err)
	}
	defer release()
	p.attachBTFID = attachID
	return rawLoad(spec, p, level, size)
}

// ownEncodingAttachID is the attach target's BTF id for loadOwnEncoding:
// a tracing or LSM program's vmlinux target is found as libbpf finds it
// (attachBTFID), a struct_ops program's ops struct in vmlinux; an
// extension's target, or a module's function, only cilium/ebpf's loader
// resolves (errOwnEncodingAttach). For struct_ops it also returns the
// index of the member the program implements.
func ownEncodingAttachID(spec *ebpf.ProgramSpec) (uint32, int, error) {
	if spec.Type == ebpf.StructOps {
		return structOpsTarget(spec.AttachTo)
	}
	if !needsAttachBTF(spec) {
		return 0, 0, nil
	}
	if (spec.Type != ebpf.Tracing && spec.Type != ebpf.LSM) || spec.AttachTarget != nil || strings.Contains(spec.AttachTo, ":") {
		return 0, 0, errOwnEncodingAttach
	}
	id, err := vmlinuxAttachID(spec.Type, spec.AttachType, spec.AttachTo)
	return id, 0, err
}

// rawLoad loads p through bpf(2) at level with a log of size bytes at
// first, grown on ENOSPC, and returns the log as loadSpec does: an
// accepted program's, or an error wrapping an [ebpf.VerifierError] with
// the log of a rejection.
func rawLoad(spec *ebpf.ProgramSpec, p rawProgram, level ebpf.LogLevel, size uint32) (loaded, error) {
	for logSize := int(size); ; logSize *= 2 {
		out, errno := progLoad(spec, p, level, logSize)
		log := out.log
		switch {
		case errno == 0:
			return out, nil
		case errno == unix.ENOSPC && logSize < maxRawLogSize:
			continue
		}
		lines := strings.Split(log, "\n")
		if log == "" {
			lines = nil
		}
		return loaded{}, fmt.Errorf("load %s: %w", spec.Name, &ebpf.VerifierError{Cause: errno, Log: lines})
	}
}

// Programs loadOwnEncoding does not load: what only cilium/ebpf's loader
// resolves.
var (
	errOwnEncodingAttach = errors.New("own encoding of an ALU off (address-space cast): the attach targets of extension and module programs are not resolved")
	errOwnEncodingCORE   = errors.New("own encoding of an ALU off (address-space cast): a CO-RE relocation is left to apply")
)

// structOpsTarget finds a struct_ops program's "<struct>:<member>" in
// vmlinux: the ops struct's BTF id and the member's index.
func structOpsTarget(to string) (uint32, int, error) {
	typ, member, ok := strings.Cut(to, ":")
	if !ok {
		return 0, 0, fmt.Errorf("struct_ops target %q: %w", to, errOwnEncodingAttach)
	}
	vmlinux, err := kernelBTF.Kernel()
	if err != nil {
		return 0, 0, err
	}
	var st *btf.Struct
	if err := vmlinux.TypeByName(typ, &st); err != nil {
		return 0, 0, fmt.Errorf("struct_ops target %q: %w", to, err)
	}
	id, err := vmlinux.TypeID(st)
	if err != nil {
		return 0, 0, err
	}
	for i, m := range st.Members {
		if m.Name == member {
			return uint32(id), i, nil
		}
	}
	return 0, 0, fmt.Errorf("struct_ops target %q: no member %s", to, member)
}

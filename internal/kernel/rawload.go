package kernel

import (
	"bytes"
	"encoding/binary"
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
// up to expected_attach_type.
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
}

// bpfProgLoad is the BPF_PROG_LOAD command of bpf(2).
const bpfProgLoad = 5

// rawLogSize is the raw reload's log buffer: the stats-level log of a
// rejection is a few lines.
const rawLogSize = 1 << 16

// rawLoadLog loads spec with the stats-level log and returns the log,
// for a program cilium/ebpf failed with EFAULT. Programs that need what
// only cilium/ebpf's loader provides (BTF, kfuncs, attach targets) are
// not reloaded.
func rawLoadLog(spec *ebpf.ProgramSpec) (string, error) {
	needsLoader := func(ins asm.Instruction) bool {
		// kfuncs need cilium/ebpf's BTF resolution; a map named but not
		// yet created would reach the kernel as a bogus fd.
		return ins.IsKfuncCall() || ins.IsLoadFromMap() && ins.Map() == nil
	}
	// Without its BTF func info a program of several functions is another
	// program (global functions are verified apart, function addresses
	// are refused: "missing btf func_info"). The main function's own func
	// info changes nothing the verifier decides (do_check_common reads
	// BTF arguments for subprograms and extensions only): such a program
	// is reloaded without BTF, which costs its log only the source lines.
	subprogs := slices.ContainsFunc(spec.Instructions[min(1, len(spec.Instructions)):], func(ins asm.Instruction) bool {
		return btf.FuncMetadata(&ins) != nil
	})
	if needsAttachBTF(spec) || subprogs || slices.ContainsFunc(spec.Instructions, needsLoader) {
		return "", errors.New("raw reload: the program needs BTF, an attach target or maps not created yet")
	}
	insns := slices.Clone(spec.Instructions)
	var buf bytes.Buffer
	if err := insns.Marshal(&buf, binary.LittleEndian); err != nil {
		return "", fmt.Errorf("raw reload: %w", err)
	}
	code := buf.Bytes()
	license := append([]byte(spec.License), 0)
	logBuf := make([]byte, rawLogSize)
	attr := progLoadAttr{
		progType:           uint32(spec.Type),
		insnCnt:            uint32(len(code) / 8),
		insns:              uint64(uintptr(unsafe.Pointer(&code[0]))),
		license:            uint64(uintptr(unsafe.Pointer(&license[0]))),
		logLevel:           uint32(ebpf.LogLevelStats),
		logSize:            uint32(len(logBuf)),
		logBuf:             uint64(uintptr(unsafe.Pointer(&logBuf[0]))),
		kernVersion:        spec.KernelVersion,
		progFlags:          spec.Flags,
		expectedAttachType: uint32(spec.AttachType),
	}
	var pin runtime.Pinner
	pin.Pin(&code[0])
	pin.Pin(&license[0])
	pin.Pin(&logBuf[0])
	defer pin.Unpin()
	fd, _, errno := unix.Syscall(unix.SYS_BPF, bpfProgLoad, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	if errno == 0 {
		unix.Close(int(fd))
	}
	return strings.TrimSpace(string(bytes.TrimRight(logBuf, "\x00"))), nil
}

//go:build linux

package insn

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel oracle: tests that load raw programs into the running kernel
// to confirm that our messages are the kernel's. They run wherever bpf()
// can load a program and skip, with the reason, elsewhere.

const (
	bpfProgLoad          = 5
	progTypeSocketFilter = 1
	logLevelInsns        = 1
	logLevelStates       = 2
	kernelLogSize        = 1 << 20
)

// progLoadAttr is the prefix of union bpf_attr used by BPF_PROG_LOAD.
type progLoadAttr struct {
	progType    uint32
	insnCnt     uint32
	insns       uint64
	license     uint64
	logLevel    uint32
	logSize     uint32
	logBuf      uint64
	kernVersion uint32
	progFlags   uint32
}

// kernelVerdict loads raw as a privileged socket filter and returns ""
// when accepted, else the last line of the verifier log (or the errno).
func kernelVerdict(t *testing.T, raw []byte) string {
	t.Helper()
	log, ok := loadProg(raw, logLevelInsns)
	if ok {
		return ""
	}
	lines := strings.Split(log, "\n")
	// The log ends with the stats line "processed N insns ..."; the
	// message is the last line before it.
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "processed ") || strings.HasPrefix(l, "verification time") {
			continue
		}
		return l
	}
	return log
}

// kernelUnavailable loads "r0 = 0; exit" and returns why it failed, or ""
// when the kernel loaded it.
func kernelUnavailable() string {
	raw := Encode([]Insn{{Op: 0xb7}, {Op: 0x95}})
	if log, ok := loadProg(raw, logLevelInsns); !ok {
		return log
	}
	return ""
}

// kernelLog loads raw with the level-2 log and returns the log.
func kernelLog(t *testing.T, raw []byte) string {
	t.Helper()
	log, _ := loadProg(raw, logLevelStates)
	return log
}

// loadProg loads raw as a privileged socket filter; ok is true when the
// kernel accepted it. A load failing without a log yields the errno text.
func loadProg(raw []byte, level uint32) (log string, ok bool) {
	var pin runtime.Pinner
	defer pin.Unpin()
	license := []byte("GPL\x00")
	logBuf := make([]byte, kernelLogSize)
	pin.Pin(&license[0])
	pin.Pin(&logBuf[0])
	if len(raw) > 0 {
		pin.Pin(&raw[0])
	}
	attr := &progLoadAttr{
		progType: progTypeSocketFilter,
		insnCnt:  uint32(len(raw) / Slot),
		license:  uint64(uintptr(unsafe.Pointer(&license[0]))),
		logLevel: level,
		logSize:  uint32(len(logBuf)),
		logBuf:   uint64(uintptr(unsafe.Pointer(&logBuf[0]))),
	}
	if len(raw) > 0 {
		attr.insns = uint64(uintptr(unsafe.Pointer(&raw[0])))
	}
	fd, _, errno := unix.Syscall(unix.SYS_BPF, bpfProgLoad, uintptr(unsafe.Pointer(attr)), unsafe.Sizeof(*attr))
	runtime.KeepAlive(attr)
	log = strings.TrimSpace(string(bytes.TrimRight(logBuf, "\x00")))
	if errno == 0 {
		unix.Close(int(fd))
		return log, true
	}
	if log == "" {
		log = "errno: " + errno.Error()
	}
	return log, false
}

// TestKernelAgrees compares the load-time verdict (Check, then CheckInsn
// over the program) with the running kernel's for every validation case.
func TestKernelAgrees(t *testing.T) {
	requireKernel(t)
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			got := kernelVerdict(t, Encode(tc.prog))
			want := tc.kernel
			if want == "" {
				want = tc.want
			}
			if got != want && !strings.HasSuffix(got, want) {
				t.Errorf("kernel says %q, we expect %q", got, want)
			}
		})
	}
}

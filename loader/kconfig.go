package loader

// extern __kconfig variables: cilium/ebpf reads them into a virtual .kconfig
// map and fills it at load time from the running kernel. The verifier sees
// that map frozen, so its bytes are constants to it: vercheck fills them the
// same way, from the kernel configuration and release it is given (the
// running kernel's by default), so branches on LINUX_KERNEL_VERSION or
// CONFIG_* fold as they do when the object is loaded.

import (
	"bufio"
	"compress/gzip"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

// Names of the .kconfig variables that do not come from the config file.
const (
	kconfigKernelVersion  = "LINUX_KERNEL_VERSION"
	kconfigSyscallWrapper = "LINUX_HAS_SYSCALL_WRAPPER"
	kconfigBPFCookie      = "LINUX_HAS_BPF_COOKIE"
)

// bpfCookieVersion is the first release with bpf_get_attach_cookie (5.15),
// which libbpf probes for LINUX_HAS_BPF_COOKIE (FEAT_BPF_COOKIE).
const bpfCookieVersion = 5<<16 | 15<<8

// kprobeInterfaces are where libbpf's syscall-wrapper probe
// (probe_kern_syscall_wrapper) creates its kprobe: the kprobe PMU, or the
// legacy kprobe_events file of tracefs or debugfs.
var kprobeInterfaces = []string{
	"/sys/bus/event_source/devices/kprobe/type",
	"/sys/kernel/tracing/kprobe_events",
	"/sys/kernel/debug/tracing/kprobe_events",
}

// Kernel configuration files, in the order libbpf and cilium/ebpf look
// for them; %s is the kernel release.
var kconfigPaths = []string{"/proc/config.gz", "/boot/config-%s"}

// maxKconfigSize bounds how much of a config file is read (a real one is
// a few hundred kilobytes).
const maxKconfigSize = 16 << 20

// kernelTarget is what a .kconfig map is filled from.
type kernelTarget struct {
	release string            // e.g. "6.18.44-fc-v769"; "" when unknown
	config  map[string]string // CONFIG_FOO -> its value as written; nil when unknown
	// noKprobes is set when the running kernel is the target and offers
	// no way to create a kprobe: libbpf's probe then finds no syscall
	// wrapper (LINUX_HAS_SYSCALL_WRAPPER 0).
	noKprobes bool
}

// kernelTargets caches loadKernelTarget by path: a kernel's release and
// configuration do not change while objects are read, and a corpus run
// would otherwise decompress the same config once per object.
var kernelTargets sync.Map // path -> cachedKernelTarget

type cachedKernelTarget struct {
	target kernelTarget
	err    error
}

// loadKernelTarget reads the release of the running kernel and the
// configuration at path (the running kernel's when path is empty), once
// per path; callers only read the result.
func loadKernelTarget(path string) (kernelTarget, error) {
	if v, ok := kernelTargets.Load(path); ok {
		c := v.(cachedKernelTarget)
		return c.target, c.err
	}
	t, err := readKernelTarget(path)
	kernelTargets.Store(path, cachedKernelTarget{t, err})
	return t, err
}

// readKernelTarget is loadKernelTarget without the cache.
func readKernelTarget(path string) (kernelTarget, error) {
	var t kernelTarget
	var uts unix.Utsname
	if err := unix.Uname(&uts); err == nil {
		t.release = unix.ByteSliceToString(uts.Release[:])
	}
	paths := []string{path}
	if path == "" {
		t.noKprobes = !slices.ContainsFunc(kprobeInterfaces, func(p string) bool {
			_, err := os.Stat(p)
			return err == nil
		})
		paths = paths[:0]
		for _, p := range kconfigPaths {
			if strings.Contains(p, "%s") {
				if t.release == "" {
					continue
				}
				p = fmt.Sprintf(p, t.release)
			}
			paths = append(paths, p)
		}
	}
	var errs []error
	for _, p := range paths {
		cfg, err := readKconfigFile(p)
		if err == nil {
			t.config = cfg
			return t, nil
		}
		errs = append(errs, err)
	}
	return t, errors.Join(errs...)
}

// readKconfigFile parses a kernel .config, plain or gzip-compressed.
func readKconfigFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("kernel config: %w", err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("kernel config %s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	cfg, err := parseKconfig(io.LimitReader(r, maxKconfigSize))
	if err != nil {
		return nil, fmt.Errorf("kernel config %s: %w", path, err)
	}
	return cfg, nil
}

// parseKconfig reads CONFIG_NAME=value lines; comments ("# CONFIG_X is not
// set") and blank lines are skipped.
func parseKconfig(r io.Reader) (map[string]string, error) {
	cfg := make(map[string]string)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok || !strings.HasPrefix(name, "CONFIG_") {
			continue
		}
		cfg[name] = value
	}
	return cfg, sc.Err()
}

// kernelVersionCode encodes a release such as "6.18.44-foo" the way
// KERNEL_VERSION(a, b, c) does, with the sublevel capped at 255 as the
// kernel caps LINUX_VERSION_CODE.
func kernelVersionCode(release string) (uint32, bool) {
	var parts [3]uint32
	rest := release
	for i := range parts {
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if end == 0 {
			if i < 2 {
				return 0, false
			}
			break
		}
		n, err := strconv.ParseUint(rest[:end], 10, 32)
		if err != nil {
			return 0, false
		}
		parts[i] = uint32(n)
		rest = rest[end:]
		if i < 2 {
			if !strings.HasPrefix(rest, ".") {
				if i == 0 {
					return 0, false
				}
				break
			}
			rest = rest[1:]
		}
	}
	const maxSublevel = 255
	return parts[0]<<16 | min(parts[1], maxSublevel)<<8 | min(parts[2], maxSublevel), true
}

// bindWeakKconfigExterns returns data with every weak extern __kconfig
// variable bound as global. libbpf leaves a weak one the configuration
// lacks zero (a strong one fails the load); cilium/ebpf refuses a weak
// binding outright. Bound as global, cilium/ebpf reads it into the
// .kconfig map like any other, and fillKconfig leaves it zero when the
// configuration does not set it. The weak names stay in info.weak. data
// itself is never modified.
func (info *elfInfo) bindWeakKconfigExterns(data []byte) []byte {
	b := info.parseRawBTF(data)
	if b == nil {
		return data
	}
	externs := make(map[string]bool)
	for _, v := range b.datasecVars(kconfigMapName) {
		externs[b.name(v)] = true
	}
	out, names := info.bindWeakAsGlobal(data, func(s elfSymbol) bool {
		return s.section == int(elf.SHN_UNDEF) && externs[s.name]
	})
	info.weakKconfig = len(names) > 0
	return out
}

// materializeKconfig makes the .kconfig map of spec an ordinary map of the
// spec, filled as libbpf fills it, and points every extern __kconfig load
// at it. Left virtual, cilium/ebpf fills the map itself when it loads the
// collection, by rules of its own: it refuses a variable the kernel's
// configuration lacks, which libbpf leaves zero when the extern is weak,
// refuses a y/n/m option in a char, which libbpf stores as the letter,
// and knows none of libbpf's own variables but LINUX_KERNEL_VERSION and
// LINUX_HAS_SYSCALL_WRAPPER. Without the running kernel's configuration
// the map stays virtual unless required (weak externs).
func materializeKconfig(spec *ebpf.CollectionSpec, required bool, weak map[string]bool) error {
	var ds *btf.Datasec
	if spec.Types == nil || spec.Types.TypeByName(kconfigMapName, &ds) != nil || ds == nil || ds.Size == 0 {
		return nil
	}
	target, err := loadKernelTarget("")
	if err != nil {
		if !required {
			return nil
		}
		return fmt.Errorf("%s: %w", kconfigMapName, err)
	}
	bo := spec.ByteOrder
	if bo == nil {
		bo = binary.LittleEndian
	}
	contents, _, err := fillKconfig(ds, target, bo, weak)
	if err != nil {
		return fmt.Errorf("%s: %w", kconfigMapName, err)
	}
	spec.Maps[kconfigMapName] = &ebpf.MapSpec{
		Name:       kconfigMapName,
		Type:       ebpf.Array,
		KeySize:    mapDefWord,
		ValueSize:  ds.Size,
		MaxEntries: 1,
		Flags:      bpfFRdonlyProg,
		Value:      ds,
		Contents:   []ebpf.MapKV{{Key: uint32(0), Value: contents}},
	}
	for _, ps := range spec.Programs {
		if ps == nil {
			continue
		}
		for i := range ps.Instructions {
			ins := &ps.Instructions[i]
			off, ok := kconfigOffset(ins)
			if !ok {
				continue
			}
			*ins = WithoutLinkMetadata(*ins)
			ins.Constant = int64(uint64(off) << 32)
			*ins = ins.WithReference(kconfigMapName)
		}
	}
	return nil
}

// KernelConfigValue returns the running kernel's value of configuration
// option name (CONFIG_FOO) as its config file writes it ("y", "m", a
// number, a quoted string), and whether the file sets it; an error when the
// configuration cannot be read.
func KernelConfigValue(name string) (string, bool, error) {
	t, err := loadKernelTarget("")
	if err != nil {
		return "", false, err
	}
	if t.config == nil {
		return "", false, errors.New("kernel config unknown")
	}
	v, ok := t.config[name]
	return v, ok, nil
}

// KernelConfig returns the configuration of the kernel at path (a .config,
// plain or gzip-compressed), or of the running kernel when path is empty,
// as CONFIG_NAME to the value its file writes. The map is shared: callers
// must not change it.
func KernelConfig(path string) (map[string]string, error) {
	t, err := loadKernelTarget(path)
	if err != nil {
		return nil, err
	}
	if t.config == nil {
		return nil, errors.New("kernel config unknown")
	}
	return t.config, nil
}

// fillKconfig writes the value of every variable of ds into a fresh
// buffer, as libbpf does (kconfigvalue.go), and returns libbpf's refusal
// of the object if it has one (a *KconfigError): a value the variable's
// type cannot take, a variable libbpf does not know, or a strong one
// nothing sets. weak names the object's weak symbols. Variables the
// target does not define stay zero; where the kernel's configuration is
// unknown, the CONFIG_ ones stay zero with a warning, as nothing says
// what libbpf would find.
func fillKconfig(ds *btf.Datasec, t kernelTarget, bo binary.ByteOrder, weak map[string]bool) ([]byte, []string, error) {
	data := make([]byte, ds.Size)
	var warnings []string
	var refusal *KconfigError
	refuse := func(r *KconfigError) {
		if refusal == nil {
			refusal = r
		}
	}
	for _, vsi := range ds.Vars {
		v, ok := vsi.Type.(*btf.Var)
		if !ok || uint64(vsi.Offset)+uint64(vsi.Size) > uint64(len(data)) {
			continue
		}
		x := &kcfgExtern{name: v.Name, dst: data[vsi.Offset : vsi.Offset+vsi.Size], bo: bo}
		x.kt, x.signed = kcfgTypeOf(v.Type)
		if x.kt == kcfgUnknown {
			refuse(kconfigRefusal(syscall.EOPNOTSUPP, "extern (kcfg) '%s': type is unsupported", v.Name))
			continue
		}
		set := true
		var r *KconfigError
		switch {
		case strings.HasPrefix(v.Name, "CONFIG_"):
			if t.config == nil {
				warnings = append(warnings, fmt.Sprintf(".kconfig: %s: kernel config unknown; assumed zero", v.Name))
				continue
			}
			value, ok := t.config[v.Name]
			switch {
			case !ok:
				set = false
			case value == "":
				r = kconfigRefusal(syscall.EINVAL, "failed to parse '%s=': no value", v.Name)
			default:
				r = x.setConfig(value)
			}
			if r != nil {
				// An error on a configuration line fails the file,
				// and the file's failure is EINVAL.
				r.Errno = syscall.EINVAL
			}
		case v.Name == kconfigKernelVersion:
			code, ok := kernelVersionCode(t.release)
			if !ok || code == 0 {
				r = kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': failed to get kernel version", v.Name)
				break
			}
			r = x.setNum(uint64(code))
		case v.Name == kconfigSyscallWrapper:
			// Every kernel with BTF (4.18 and later) wraps syscalls on the
			// architectures BPF tracing programs run on; libbpf says so
			// when its kprobe on __x64_sys_bpf can be made.
			var wrapped uint64
			if !t.noKprobes {
				wrapped = 1
			}
			r = x.setNum(wrapped)
		case v.Name == kconfigBPFCookie:
			var cookie uint64 = 1
			if code, ok := kernelVersionCode(t.release); ok && code < bpfCookieVersion {
				cookie = 0
			}
			r = x.setNum(cookie)
		case strings.HasPrefix(v.Name, "LINUX_") && weak[v.Name]:
			// A virtual variable libbpf does not know: zero when weak.
			set = false
		default:
			r = kconfigRefusal(syscall.EINVAL, "extern (kcfg) '%s': unrecognized virtual extern", v.Name)
		}
		if r != nil {
			refuse(r)
			clear(x.dst)
			continue
		}
		if !set && !weak[v.Name] {
			refuse(kconfigRefusal(syscall.ESRCH, "extern '%s' (strong): not resolved", v.Name))
		}
	}
	if refusal != nil {
		return data, warnings, refusal
	}
	return data, warnings, nil
}

// libbpf's enum libbpf_tristate values.
const (
	tristateNo     = 0
	tristateYes    = 1
	tristateModule = 2
)

// kconfigOffset reports whether cilium/ebpf marked ins as a load of an
// extern __kconfig variable and, if so, the variable's offset in .kconfig.
// cilium/ebpf keeps this in instruction metadata under an unexported key,
// so it is read by reflection; TestKconfigOffsetTracksCilium pins the
// layout this relies on. cilium/ebpf marks only 64-bit immediate loads
// (elf_reader's IsDWordLoad case), so every other instruction is answered
// without reflection: the walk cost ~3% of a run's instructions when it ran
// for every instruction of every program.
func kconfigOffset(ins *asm.Instruction) (uint32, bool) {
	const ciliumPkg = "github.com/cilium/ebpf"
	if !ins.OpCode.IsDWordLoad() {
		return 0, false
	}
	for e := reflect.ValueOf(&ins.Metadata).Elem().FieldByName("head"); e.IsValid() && e.Kind() == reflect.Pointer && !e.IsNil(); e = e.Elem().FieldByName("next") {
		key, value := e.Elem().FieldByName("key"), e.Elem().FieldByName("value")
		if !key.IsValid() || key.IsNil() || !value.IsValid() || value.IsNil() {
			continue
		}
		kt := key.Elem().Type()
		if kt.PkgPath() != ciliumPkg || kt.Name() != "kconfigMetaKey" {
			continue
		}
		meta := value.Elem()
		if meta.Kind() != reflect.Pointer || meta.IsNil() {
			return 0, false
		}
		off := meta.Elem().FieldByName("Offset")
		if !off.IsValid() || !off.CanUint() {
			return 0, false
		}
		return uint32(off.Uint()), true
	}
	return 0, false
}

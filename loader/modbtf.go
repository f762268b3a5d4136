package loader

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/cilium/ebpf/btf"
)

// Module BTF. A kernel built with CONFIG_DEBUG_INFO_BTF_MODULES gives every
// module a BTF of its own, split BTF over vmlinux's (its type ids continue
// after the kernel's), in /sys/kernel/btf/<module>. A kfunc a module
// defines is in no vmlinux BTF: libbpf's find_ksym_btf_id looks for an
// extern in vmlinux first, then in each module's BTF, and names the
// module's by its BTF object's place in the fd_array it passes with the
// program; the call's insn.Off is that index (0 means vmlinux), and the
// kernel's find_kfunc_desc_btf takes the module's BTF from it.

// moduleBTFDir is where the running kernel exposes its modules' BTF.
const moduleBTFDir = "/sys/kernel/btf"

// ModuleBTF is one module's BTF: split BTF over the kernel's.
type ModuleBTF struct {
	// Name names the module (its BTF file's base name).
	Name string
	// Spec holds the module's types after the kernel's; types the module
	// shares with vmlinux are the kernel BTF's own (KernelBTF), so their
	// ids there are the kernel's.
	Spec *btf.Spec
}

var (
	modulesMu sync.Mutex
	// modulePaths names the module BTF files of UseModuleBTF; nil means
	// the running kernel's, when the kernel BTF is the running one.
	modulePaths []string
	// modules holds the parsed module BTFs once asked for.
	modules     []ModuleBTF
	modulesErr  error
	modulesRead bool
)

// ErrModuleBTFInUse means UseModuleBTF came after the module BTFs were
// read.
var ErrModuleBTFInUse = errors.New("module BTF already in use")

// UseModuleBTF names the module BTF files (split BTF over the kernel BTF,
// as /sys/kernel/btf/<module> or a module's .BTF section) whose kfuncs
// programs may call, for the whole process, in the order their fd_array
// indexes take (the first is index 1). Without it, the running kernel's
// modules are used when the kernel BTF is the running kernel's, and none
// otherwise.
func UseModuleBTF(paths []string) error {
	modulesMu.Lock()
	defer modulesMu.Unlock()
	if modulesRead && !slices.Equal(paths, modulePaths) {
		return ErrModuleBTFInUse
	}
	modulePaths = slices.Clone(paths)
	return nil
}

// ModuleBTFs returns the module BTFs, parsed once per process, in fd_array
// order (index i+1 is the i-th).
func ModuleBTFs() ([]ModuleBTF, error) {
	modulesMu.Lock()
	defer modulesMu.Unlock()
	if !modulesRead {
		modulesRead = true
		modules, modulesErr = readModuleBTFs(modulePaths)
	}
	return modules, modulesErr
}

// ModuleBTFsComplete reports whether ModuleBTFs lists every module of the
// kernel checked against: those named by UseModuleBTF, or the running
// kernel's when the kernel BTF is the running kernel's. Another kernel's
// BTF without its modules named may have modules vercheck cannot see.
func ModuleBTFsComplete() bool {
	modulesMu.Lock()
	paths := modulePaths
	modulesMu.Unlock()
	if paths != nil {
		return true
	}
	targetsMu.Lock()
	defer targetsMu.Unlock()
	return kernelBTFPath == defaultTargetBTF
}

// ModuleBTFAt returns the module BTF a kfunc call's insn.Off names (its
// fd_array index), false when there is none.
func ModuleBTFAt(idx int) (ModuleBTF, bool) {
	mods, err := ModuleBTFs()
	if err != nil || idx < 1 || idx > len(mods) {
		return ModuleBTF{}, false
	}
	return mods[idx-1], true
}

// readModuleBTFs parses paths, or the running kernel's modules when paths
// is nil and the kernel BTF is the running kernel's.
func readModuleBTFs(paths []string) ([]ModuleBTF, error) {
	targetsMu.Lock()
	kernelPath := kernelBTFPath
	targetsMu.Unlock()
	if paths == nil {
		if kernelPath != defaultTargetBTF {
			return nil, nil
		}
		var err error
		if paths, err = runningModuleBTFs(); err != nil {
			return nil, err
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	base, err := KernelBTF()
	if err != nil {
		return nil, err
	}
	mods := make([]ModuleBTF, 0, len(paths))
	for _, p := range paths {
		spec, err := loadSplitBTF(p, base)
		if err != nil {
			return nil, fmt.Errorf("module BTF %s: %w", p, err)
		}
		mods = append(mods, ModuleBTF{Name: filepath.Base(p), Spec: spec})
	}
	return mods, nil
}

// runningModuleBTFs lists /sys/kernel/btf but vmlinux, sorted.
func runningModuleBTFs() ([]string, error) {
	entries, err := os.ReadDir(moduleBTFDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if e.Name() != filepath.Base(defaultTargetBTF) {
			paths = append(paths, filepath.Join(moduleBTFDir, e.Name()))
		}
	}
	return paths, nil
}

// loadSplitBTF parses the split BTF at path over base: a raw BTF file or
// an ELF (a module's .ko) with a .BTF section.
func loadSplitBTF(path string, base *btf.Spec) (*btf.Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte(elf.ELFMAG)) {
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		sec := f.Section(btfSection)
		if sec == nil {
			return nil, fmt.Errorf("no %s section", btfSection)
		}
		if data, err = sec.Data(); err != nil {
			return nil, err
		}
	}
	return btf.LoadSplitSpecFromReader(bytes.NewReader(data), base)
}

// btfSection is the ELF section of a module's BTF.
const btfSection = ".BTF"

// moduleKfuncID finds the kernel function name in the module BTFs: the
// module's BTF, the function's id in it and the module's fd_array index.
func moduleKfuncID(name string) (*btf.Spec, btf.TypeID, int16, error) {
	mods, err := ModuleBTFs()
	if err != nil {
		return nil, 0, 0, err
	}
	for i, m := range mods {
		if id, err := exactFuncID(m.Spec, name); err == nil {
			return m.Spec, id, int16(i + 1), nil
		}
	}
	return nil, 0, 0, fmt.Errorf("kernel function %s: %w", name, btf.ErrNotFound)
}

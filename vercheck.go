// Package vercheck checks BPF programs the way the Linux 6.18 verifier does,
// in userspace, before a loader hands them to the kernel.
//
// A loader built on cilium/ebpf reads its object into an
// [ebpf.CollectionSpec], calls [VerifyCollectionSpec] and only then
// [ebpf.NewCollection]:
//
//	spec, err := ebpf.LoadCollectionSpec("prog.o")
//	...
//	if _, err := vercheck.VerifyCollectionSpec(spec, nil); err != nil {
//		return err // the verifier would say no; err names program and instruction
//	}
//	coll, err := ebpf.NewCollection(spec)
//
// The error joins one [*ProgramError] per program that was not accepted.
// errors.As finds the first [*verifier.RejectError] in it (instruction,
// source line, the kernel's message, the register state), and errors.Is
// tells a rejection from a feature vercheck does not model
// ([verifier.ErrUnsupported]) or a complexity limit
// ([verifier.ErrComplexityLimit]). The per-program [verifier.Result]s carry
// the verdict and the kernel's statistics (insn_processed,
// max_states_per_insn, total_states, peak_states) whatever the verdict.
//
// Verification needs no privileges and never calls bpf(). The specs are not
// modified.
package vercheck

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// defaultObjectName names a collection in results and messages when
// [Options.Name] is empty.
const defaultObjectName = "collection"

// Options control a verification. The zero value (or a nil *Options)
// verifies with the kernel's pruning policy, no time limit and no log, with
// CO-RE relocations against the running kernel's BTF.
type Options struct {
	// Verifier holds the verifier's own options: pruning policy, time limit
	// per program, log level.
	Verifier verifier.Options
	// TargetBTF is the kernel BTF programs are checked against: a raw BTF
	// file or an ELF vmlinux with a .BTF section. CO-RE relocations and
	// kfunc calls are resolved against it, and the verifier types context
	// arguments, struct walks, kfuncs and struct_ops with it, so that
	// programs can be checked for a kernel other than the running one (one
	// built with sched_ext, say). The verifier keeps one kernel BTF per
	// process (see [loader.UseKernelBTF]): every verification of a process
	// names the same TargetBTF or none. Empty means /sys/kernel/btf/vmlinux.
	TargetBTF string
	// ModuleBTF names the module BTF files (split BTF over TargetBTF's
	// kernel: /sys/kernel/btf/<module> or a module's .ko) whose kfuncs
	// programs may call, in fd_array order; nil means the running
	// kernel's modules when TargetBTF is empty, none otherwise. Like
	// TargetBTF, it is the process's (see [loader.UseModuleBTF]).
	ModuleBTF []string
	// ExtensionTarget names the object whose program the Extension
	// (freplace) programs replace a global function of: "OBJ", or
	// "OBJ:PROGRAM" (see [loader.ExtensionTarget]).
	ExtensionTarget string
	// Kconfig is the kernel configuration extern __kconfig variables are
	// read from (see [loader.Options.Kconfig]); empty means the running
	// kernel's. Unless Verifier.Kernel is set, it also gives the build
	// facts that decide which helpers the kernel offers
	// ([verifier.ConfigBuild]; the reference build's where the file cannot
	// be read).
	Kconfig string
	// License is the license of programs whose spec has none, as a
	// loader that passes its own for such objects would load them ("GPL"
	// unlocks GPL-only helpers). Load flags come with each program:
	// [ebpf.ProgramSpec.Flags].
	License string
	// TypeOverride is the program type of programs whose spec has none
	// (sections such as iproute2's "classifier" name no type).
	TypeOverride ebpf.ProgramType
	// ProgFlags are program load flags (BPF_F_*) added to every program's
	// own, as a loader that passes them itself; see loader.ParseProgFlags.
	ProgFlags uint32
	// InnerMaps names the inner map template of map-in-maps whose
	// definition leaves it to the loader (see [loader.Options.InnerMaps]).
	// A spec's own MapSpec.InnerMap is used as it is.
	InnerMaps map[string]loader.InnerMap
	// Name names the collection in results and messages (for example the
	// object's path); default "collection".
	Name string
	// Parallel bounds how many programs are verified at once; 0 means
	// GOMAXPROCS.
	Parallel int
}

// ProgramError is the error for one program that was not accepted. Its
// Unwrap gives the verifier's error, so errors.As finds a
// [*verifier.RejectError] through it.
type ProgramError struct {
	// Program is the program's name.
	Program string
	// Result is the program's full result (verdict, statistics, log).
	Result *verifier.Result
}

// Error returns "program NAME: [LOCATION: ]MESSAGE[ (hint: HINT)]", the
// hint saying what usually fixes such a rejection.
func (e *ProgramError) Error() string {
	var re *verifier.RejectError
	if errors.As(e.Result.Err, &re) {
		msg := fmt.Sprintf("program %s: %s: %v", e.Program, re.Where(), e.Result.Err)
		if h := re.Hint(); h != "" {
			msg += " (hint: " + h + ")"
		}
		return msg
	}
	return fmt.Sprintf("program %s: %v", e.Program, e.Result.Err)
}

// Unwrap returns the verifier's error.
func (e *ProgramError) Unwrap() error { return e.Result.Err }

// Errno is the error number the kernel's bpf(BPF_PROG_LOAD) would return
// for the program (EACCES for most rejections, EINVAL for malformed
// programs and bad arguments, E2BIG at the size limits...), for loaders
// that branch on it; see verifier.Result.Errno.
func (e *ProgramError) Errno() syscall.Errno { return e.Result.Errno() }

// Is reports whether target is the program's errno, so that
// errors.Is(err, unix.EACCES) works on what VerifyCollectionSpec returns.
func (e *ProgramError) Is(target error) bool {
	errno, ok := target.(syscall.Errno)
	return ok && errno == e.Errno()
}

// VerifyCollectionSpec verifies every program of spec, with the maps spec
// declares, as the kernel would verify them when spec is loaded. It returns
// one result per program in a stable order (by section, then name), and an
// error that is nil only when every program was accepted: otherwise it
// joins a [*ProgramError] per program that was rejected, is unsupported by
// vercheck, or failed. An error with no results means the spec itself could
// not be prepared (a map reference to nothing, an unknown program type...).
// Unless opts.Verifier.MapBTF says otherwise, maps are modelled as
// cilium/ebpf creates them, each with a BTF of its key and value types
// ([verifier.MapBTFKeyValue]), which decides what the kernel makes of graph
// roots and kptrs to the program's types in map values.
func VerifyCollectionSpec(spec *ebpf.CollectionSpec, opts *Options) ([]*verifier.Result, error) {
	if spec == nil {
		return nil, errors.New("vercheck: nil collection spec")
	}
	o := withDefaults(opts)
	if err := o.useKernel(); err != nil {
		return nil, err
	}
	if o.Verifier.MapBTF == verifier.MapBTFDefault {
		// cilium/ebpf, which loads a spec, creates each map with a BTF
		// of its key and value types alone (see verifier.MapBTF), and
		// relocates CO-RE its own way.
		o.Verifier.MapBTF = verifier.MapBTFKeyValue
	}
	obj, err := loader.FromCollectionSpec(o.Name, spec, o.loaderOptions())
	if err != nil {
		return nil, fmt.Errorf("vercheck: %w", err)
	}
	return verifyObject(obj, o)
}

// FileResult is what [VerifyFile] found in one object file.
type FileResult struct {
	// Path is the file's path.
	Path string
	// Results holds one result per program, in the object's order.
	Results []*verifier.Result
	// Warnings lists what the loader assumed or repaired to read the
	// object as its own loader would (a program type guessed from the
	// section name, zero-sized symbols filled, a map sized at run time).
	Warnings []string
}

// VerifyFile reads the BPF ELF object at path with vercheck's own loader
// and verifies every program in it. Unlike [ebpf.LoadCollectionSpec] the
// loader reads old objects too (legacy "maps" sections, iproute2 map
// definitions, zero-sized program symbols), saying what it did in
// Warnings. The error is nil only when every program was accepted; see
// [VerifyCollectionSpec]. The result is nil only when the file could not
// be read as an object. Unless opts.Verifier.MapBTF says otherwise, maps
// are modelled as libbpf creates them, with the object's whole BTF
// ([verifier.MapBTFObject]).
func VerifyFile(path string, opts *Options) (*FileResult, error) {
	obj, err := OpenFile(path, opts)
	if err != nil {
		return nil, err
	}
	results, err := verifyObject(obj, withDefaults(opts))
	return &FileResult{Path: path, Results: results, Warnings: obj.Warnings}, err
}

// useKernel makes o's kernel and module BTF the process's.
func (o Options) useKernel() error {
	if err := loader.UseKernelBTF(o.TargetBTF); err != nil {
		return fmt.Errorf("vercheck: %w", err)
	}
	if o.ModuleBTF != nil {
		if err := loader.UseModuleBTF(o.ModuleBTF); err != nil {
			return fmt.Errorf("vercheck: %w", err)
		}
	}
	return nil
}

// loaderOptions are the loader's part of o.
func (o Options) loaderOptions() loader.Options {
	return loader.Options{TargetBTF: o.TargetBTF, Kconfig: o.Kconfig, TypeOverride: o.TypeOverride, License: o.License, ProgFlags: o.ProgFlags, InnerMaps: o.InnerMaps, ExtensionTarget: o.ExtensionTarget,
		// The loader modelled for maps relocates CO-RE too.
		CiliumLinking: o.Verifier.MapBTF == verifier.MapBTFKeyValue}
}

// OpenFile reads the object at path as [VerifyFile] does, for callers
// that verify its programs one at a time with verifier.Verify and
// opts.Verifier, as the vercheck command does to spread the programs of
// a sweep over its workers.
func OpenFile(path string, opts *Options) (*loader.Object, error) {
	o := withDefaults(opts)
	if err := o.useKernel(); err != nil {
		return nil, err
	}
	obj, err := loader.Open(path, o.loaderOptions())
	if err != nil {
		return nil, fmt.Errorf("vercheck: %w", err)
	}
	return obj, nil
}

// verifyObject verifies every program of obj on o.Parallel workers.
func verifyObject(obj *loader.Object, o Options) ([]*verifier.Result, error) {
	// Set-up (the kernel's BTF) stays out of the first program's
	// duration; a kernel without BTF is reported by the programs that
	// need it.
	_ = verifier.Prepare()
	verifier.PrepareObject(obj, o.Verifier)
	results := make([]*verifier.Result, len(obj.Programs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(o.Parallel, len(obj.Programs)) {
		wg.Go(func() {
			for i := range work {
				results[i] = verifier.Verify(obj, obj.Programs[i], o.Verifier)
			}
		})
	}
	for i := range obj.Programs {
		work <- i
	}
	close(work)
	wg.Wait()

	var errs []error
	for _, r := range results {
		if !r.Accepted {
			errs = append(errs, &ProgramError{Program: r.Program, Result: r})
		}
	}
	return results, errors.Join(errs...)
}

// VerifyProgramSpec verifies one program with the maps it references, as
// the kernel would verify it when loaded. maps is keyed by the names the
// program's map loads reference (asm.Instruction.Reference), as in
// [ebpf.CollectionSpec.Maps]; it may be nil for a program without maps.
// Map loads already bound to a live map (asm.Instruction.AssociateMap, as
// loaders do when they reuse or pin maps) are verified against that map's
// type and sizes. A map load bound to neither is a raw file descriptor, as
// cilium/ebpf passes it, and is rejected like the kernel rejects one that
// names no map. The program is verified with its spec's load flags
// (ProgramSpec.Flags: strict alignment, sleepable...). The error is nil
// when the program was accepted, else a [*ProgramError] (see
// [VerifyCollectionSpec]).
func VerifyProgramSpec(spec *ebpf.ProgramSpec, maps map[string]*ebpf.MapSpec, opts *Options) (*verifier.Result, error) {
	if spec == nil {
		return nil, errors.New("vercheck: nil program spec")
	}
	prog := spec.Copy()
	if prog.Name == "" {
		prog.Name = "prog"
	}
	coll := &ebpf.CollectionSpec{
		Maps:      make(map[string]*ebpf.MapSpec, len(maps)),
		Programs:  map[string]*ebpf.ProgramSpec{prog.Name: prog},
		ByteOrder: prog.ByteOrder,
	}
	for name, m := range maps {
		coll.Maps[name] = m
	}
	if err := bindLiveMaps(prog.Instructions, coll.Maps); err != nil {
		return nil, fmt.Errorf("vercheck: program %s: %w", prog.Name, err)
	}
	results, err := VerifyCollectionSpec(coll, opts)
	if len(results) != 1 {
		if err == nil {
			err = fmt.Errorf("vercheck: program %s: not found after loading", prog.Name)
		}
		return nil, err
	}
	return results[0], err
}

// liveMapPrefix names the map specs made up for map loads bound to a live
// map; the index keeps them apart.
const liveMapPrefix = "vercheck_live_map_"

// liveMap is what a map bound to an instruction must offer for vercheck to
// know its shape; *ebpf.Map does.
type liveMap interface {
	Type() ebpf.MapType
	KeySize() uint32
	ValueSize() uint32
	MaxEntries() uint32
	Flags() uint32
}

// bindLiveMaps gives every map load bound to a live map (and naming none) a
// made-up reference and a spec of the same shape.
func bindLiveMaps(insns asm.Instructions, maps map[string]*ebpf.MapSpec) error {
	var seen []any
	for i := range insns {
		ins := &insns[i]
		if !ins.IsLoadFromMap() || ins.Reference() != "" || ins.Map() == nil {
			continue
		}
		lm, ok := ins.Map().(liveMap)
		if !ok {
			return fmt.Errorf("insn %d: bound map %T has no type and sizes", i, ins.Map())
		}
		idx := slices.Index(seen, any(ins.Map()))
		if idx < 0 {
			idx = len(seen)
			seen = append(seen, ins.Map())
		}
		name := fmt.Sprintf("%s%d", liveMapPrefix, idx)
		maps[name] = &ebpf.MapSpec{Name: name, Type: lm.Type(), KeySize: lm.KeySize(),
			ValueSize: lm.ValueSize(), MaxEntries: lm.MaxEntries(), Flags: lm.Flags()}
		// Unbind the live map (its fd means nothing here) and name the spec.
		if err := ins.AssociateMap(nil); err != nil {
			return fmt.Errorf("insn %d: %w", i, err)
		}
		*ins = ins.WithReference(name)
	}
	return nil
}

func withDefaults(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = defaultObjectName
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	if o.Kconfig != "" && o.Verifier.Kernel == nil {
		b, _ := verifier.ConfigBuild(o.Kconfig)
		o.Verifier.Kernel = &b
	}
	return o
}

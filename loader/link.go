package loader

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/insn"
)

// defaultTargetBTF is where the running kernel exposes its BTF.
const defaultTargetBTF = "/sys/kernel/btf/vmlinux"

// kfuncCallPoisonBase is the helper number cilium/ebpf calls instead of a
// weak kfunc the kernel lacks, so that the program still loads when the call
// is dead code. Same value as cilium/ebpf's, to match its output.
const kfuncCallPoisonBase = 0xdedc0de

// gplCompatible lists the license strings the kernel accepts as GPL
// compatible (include/linux/license.h): only these unlock GPL-only helpers.
var gplCompatible = []string{
	"GPL",
	"GPL v2",
	"GPL and additional rights",
	"Dual BSD/GPL",
	"Dual MIT/GPL",
	"Dual MPL/GPL",
}

// IsGPLCompatible reports whether the kernel treats license as GPL
// compatible. Like the kernel, it compares the text up to the first NUL.
func IsGPLCompatible(license string) bool {
	if i := strings.IndexByte(license, 0); i >= 0 {
		license = license[:i]
	}
	return slices.Contains(gplCompatible, license)
}

// targetBTF loads the CO-RE target lazily: most objects never need it.
type targetBTF struct {
	path   string
	once   sync.Once
	loaded atomic.Bool
	spec   *btf.Spec
	err    error
}

var (
	targetsMu sync.Mutex
	targets   = make(map[string]*targetBTF)
)

// kernelBTFPath is the kernel the process checks programs against: the
// running one's BTF unless UseKernelBTF named another.
var kernelBTFPath = defaultTargetBTF

// ErrKernelBTFInUse means UseKernelBTF was asked for a kernel other than
// the one the process already checks against.
var ErrKernelBTFInUse = errors.New("another kernel BTF is already in use")

// UseKernelBTF makes the BTF at path (raw BTF or an ELF vmlinux with a
// .BTF section) the kernel's for the whole process: CO-RE relocations and
// kfunc and ksym ids of objects read without a TargetBTF of their own, and
// the verifier's BTF-typed checks (context arguments, struct walks, kfunc
// prototypes, struct_ops types). The verifier keeps one kernel per process,
// as the kernel itself has one vmlinux, so this is said once, before any
// program is read; asking again for the same path is harmless, for another
// one is ErrKernelBTFInUse. It lets vercheck check programs for a kernel
// it does not run on (one built with sched_ext, say).
func UseKernelBTF(path string) error {
	targetsMu.Lock()
	defer targetsMu.Unlock()
	if path == "" || path == kernelBTFPath {
		return nil
	}
	if t, ok := targets[kernelBTFPath]; ok && t.used() {
		return fmt.Errorf("%w: %s, not %s", ErrKernelBTFInUse, kernelBTFPath, path)
	}
	kernelBTFPath = path
	return nil
}

// newTargetBTF returns the shared, lazily loaded target BTF for path (empty
// means the kernel's: see UseKernelBTF). Parsing vmlinux BTF is costly, so
// every object read by the process shares one copy.
func newTargetBTF(path string) *targetBTF {
	targetsMu.Lock()
	defer targetsMu.Unlock()
	if path == "" {
		path = kernelBTFPath
	}
	t, ok := targets[path]
	if !ok {
		t = &targetBTF{path: path}
		targets[path] = t
	}
	return t
}

// isKernel reports whether t is the kernel's BTF (UseKernelBTF), over
// which module BTFs are split.
func (t *targetBTF) isKernel() bool {
	targetsMu.Lock()
	defer targetsMu.Unlock()
	return t.path == kernelBTFPath
}

// used reports whether the BTF was asked for (loaded or failed).
func (t *targetBTF) used() bool { return t.loaded.Load() }

func (t *targetBTF) get() (*btf.Spec, error) {
	t.once.Do(func() {
		t.loaded.Store(true)
		defer func() {
			if r := recover(); r != nil {
				t.err = fmt.Errorf("%w: %s: %v", ErrNoTargetBTF, t.path, r)
			}
		}()
		spec, err := t.load()
		if err != nil {
			t.err = fmt.Errorf("%w: %s: %w", ErrNoTargetBTF, t.path, err)
			return
		}
		t.spec = spec
	})
	return t.spec, t.err
}

// load parses the target's BTF. The running kernel's is mapped rather than
// read (btf.LoadKernelSpec): its pages are the page cache's, not the
// heap's, which a long sweep would otherwise carry at twice its size.
func (t *targetBTF) load() (*btf.Spec, error) {
	if t.path == defaultTargetBTF {
		return btf.LoadKernelSpec()
	}
	f, err := os.Open(t.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return btf.LoadSpecFromReader(f)
}

// KernelBTF returns the kernel's BTF (the running kernel's unless
// UseKernelBTF named another), parsed once per process and shared by every
// object's CO-RE relocations and by the verifier's BTF-typed checks.
func KernelBTF() (*btf.Spec, error) {
	return newTargetBTF("").get()
}

// prepareProgram links one program spec into a Program. Failures specific
// to the program go to Program.Err.
func prepareProgram(ps *ebpf.ProgramSpec, spec *ebpf.CollectionSpec, maps *mapTable,
	target *targetBTF, info *elfInfo, opts Options, guess *guesser, core *libbpfCORE) (prog *Program, warnings []string) {
	license := ps.License
	if license == "" {
		license = opts.License
	}
	prog = &Program{
		Name:          ps.Name,
		Section:       ps.SectionName,
		Type:          ps.Type,
		AttachType:    ps.AttachType,
		AttachTo:      ps.AttachTo,
		License:       license,
		GPLCompatible: IsGPLCompatible(license),
		Flags:         ps.Flags | opts.ProgFlags,
		Spec:          ps,
		ObjectTypes:   spec.Types,
	}
	defer func() {
		if r := recover(); r != nil {
			prog.Err = fmt.Errorf("program %s: %w: %v", ps.Name, ErrMalformed, r)
		}
	}()

	if prog.Type == ebpf.UnspecifiedProgram {
		switch typ, reason, ok := guess.guess(ps.SectionName); {
		case opts.TypeOverride != ebpf.UnspecifiedProgram:
			prog.Type = opts.TypeOverride
		case ok:
			prog.Type = typ
			warnings = append(warnings, fmt.Sprintf("%s: prog type guessed from section name %q: %s (%s)", ps.Name, ps.SectionName, typ, reason))
		default:
			prog.Err = fmt.Errorf("program %s: section %q: %w", ps.Name, ps.SectionName, ErrUnknownProgramType)
		}
	}

	bo := ps.ByteOrder
	if bo == nil {
		bo = spec.ByteOrder
	}
	if bo == nil {
		bo = binary.LittleEndian
	}

	insns := slices.Clone(ps.Instructions)
	var errs []error
	var relos coreRelos
	if core != nil {
		relos = core.relos
	}
	localTypes, err := applyCORE(insns, bo, target, core, relos)
	if core != nil && (takesKfuncAddress(spec, ps.Instructions) || ciliumRelocatesOtherwise(ps.Instructions, insns, err, bo, target, relos)) {
		prog.CiliumRelocated, _ = prepareProgram(ps, spec, maps, target, info, opts, guess, nil)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("apply CO-RE relocations: %w", err))
	}
	prog.LocalTypes = localTypes
	unbound, rerrs := rewriteReferences(insns, spec, maps, target, info, core != nil)
	prog.UnboundMapLoads = unbound
	errs = append(errs, rerrs...)
	if name, ok := unsatisfiedCall(insns); ok {
		// libbpf refuses such an object when it opens it (no BTF for
		// the extern), cilium/ebpf when it links the program.
		errs = append(errs, unresolvedExtern(name))
	} else if err := resolveCalls(insns); err != nil {
		errs = append(errs, fmt.Errorf("link: %w", err))
	}
	prog.Instructions = insns
	prog.decoded = decode(insns)
	prog.Lines, prog.Funcs = lineAndFuncInfo(insns)

	if maps.kconfigRefusal != nil {
		// libbpf refuses the whole object, whichever program reads
		// the variable.
		errs = append(errs, maps.kconfigRefusal)
	}
	if len(errs) > 0 {
		err := fmt.Errorf("program %s: %w", ps.Name, errors.Join(errs...))
		prog.Err = errors.Join(prog.Err, err)
	}
	return prog, warnings
}

// applyCORE applies every CO-RE relocation of insns against the target BTF.
// Relocations that cannot be satisfied poison their instruction, as libbpf
// and cilium/ebpf do; the verifier then rejects the program only if the
// poisoned instruction is reachable. With core, every relocation but
// bpf_core_type_id_local is libbpf's (see libbpfCORE); without it, every
// one is cilium/ebpf's. It returns the program's own types that
// bpf_core_type_id_local relocations turned into immediates, by the id each
// was given. records caches the relocations' records (nil: a cache of this
// call's own).
func applyCORE(insns asm.Instructions, bo binary.ByteOrder, target *targetBTF, core *libbpfCORE, records coreRelos) (map[uint32]btf.Type, error) {
	if records == nil {
		records = coreRelos{}
	}
	var relos []*btf.CORERelocation
	var reloInsns []*asm.Instruction
	var libbpfInsns []int
	var funcs []string // the function of each of libbpfInsns
	fn := ""
	for i := range insns {
		if sym := insns[i].Symbol(); sym != "" {
			fn = sym
		}
		relo := btf.CORERelocationMetadata(&insns[i])
		if relo == nil {
			continue
		}
		if core == nil {
			relos = append(relos, relo)
			reloInsns = append(reloInsns, &insns[i])
			continue
		}
		if r, ok := records.get(relo); !ok || r.kind != coreTypeIDLocal {
			libbpfInsns = append(libbpfInsns, i)
			funcs = append(funcs, fn)
			continue
		}
		relos = append(relos, relo)
		reloInsns = append(reloInsns, &insns[i])
	}
	if len(relos) == 0 && len(libbpfInsns) == 0 {
		return nil, nil
	}
	kernel, err := target.get()
	if err != nil {
		return nil, err
	}
	for k, i := range libbpfInsns {
		if err := core.relocate(&insns[i], btf.CORERelocationMetadata(&insns[i]), funcs[k], kernel, bo == binary.BigEndian); err != nil {
			return nil, err
		}
	}
	if len(relos) == 0 {
		return nil, nil
	}
	return applyCiliumCORE(relos, reloInsns, kernel, bo, records)
}

// applyCiliumCORE applies relos, the relocations of the instructions
// reloInsns, as cilium/ebpf does.
func applyCiliumCORE(relos []*btf.CORERelocation, reloInsns []*asm.Instruction, kernel *btf.Spec, bo binary.ByteOrder, records coreRelos) (map[uint32]btf.Type, error) {
	var b btf.Builder
	local := map[uint32]btf.Type{}
	addLocal := func(t btf.Type) (btf.TypeID, error) {
		id, err := b.Add(t)
		if err == nil {
			local[uint32(id)] = t
		}
		return id, err
	}
	fixups, err := btf.CORERelocate(relos, []*btf.Spec{kernel}, bo, addLocal)
	if err != nil {
		return nil, err
	}
	for i, f := range fixups {
		if r, ok := records.get(relos[i]); ok && (r.kind == coreTypeIDLocal || r.kind == coreTypeIDTarget) {
			id := r.localID
			// A type id immediate is the id the compiler gave, which
			// a linker (bpftool gen object) renumbers with the types:
			// libbpf does not check it (bpf_core_calc_type_relo),
			// where cilium/ebpf insists on the relocation's own id.
			reloInsns[i].Constant = int64(id)
		}
		if err := f.Apply(reloInsns[i]); err != nil {
			return nil, fmt.Errorf("fixup for %s: %w", relos[i], err)
		}
	}
	return local, nil
}

// rewriteReferences turns map, global data, .kconfig and kfunc references
// into the immediates the kernel expects. It returns the raw slots of the
// map loads that name no map, which keep their immediate.
func rewriteReferences(insns asm.Instructions, spec *ebpf.CollectionSpec, maps *mapTable,
	target *targetBTF, info *elfInfo, libbpf bool) (unbound []int, errs []error) {
	iter := insns.Iterate()
	for iter.Next() {
		ins := iter.Ins
		ref := ins.Reference()
		if off, ok := kconfigOffset(ins); ok {
			if err := rewriteKconfigLoad(ins, off, maps); err != nil {
				errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, err))
			}
			continue
		}
		switch {
		case ins.IsLoadFromMap() && ref == jumpTablesStandIn:
			errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, ErrJumpTable))
		case ins.IsLoadFromMap():
			if ref == "" {
				if ins.Map() != nil {
					// Bound to a live map whose shape vercheck cannot see.
					errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, errLiveMap))
					continue
				}
				// No relocation names a map: libbpf and cilium/ebpf hand
				// the immediate to the kernel as a file descriptor.
				unbound = append(unbound, int(iter.Offset))
				continue
			}
			if err := rewriteMapLoad(ins, ref, maps); err != nil {
				errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, err))
			}
		case ins.IsKfuncCall() && ref != "":
			if err := rewriteKfuncCall(ins, ref, ksymFunc(spec, ref), target, info); err != nil {
				errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, err))
			}
		case ins.OpCode.IsDWordLoad() && ref != "" && info.typedKsym(ref) != nil:
			if err := rewriteTypedKsymLoad(ins, ref, *info.typedKsym(ref), target, info.weak[ref]); err != nil {
				errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, err))
			}
		case ins.OpCode.IsDWordLoad() && ref != "" && info.isTypelessKsym(ref):
			if err := resolveTypelessKsymLoad(ins, ref, info.weak[ref]); err != nil {
				errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, err))
			}
		case ins.OpCode.IsDWordLoad() && ref != "" && isKfunc(spec, ref):
			if err := rewriteKfuncAddress(ins, ref, ksymFunc(spec, ref), target, info, libbpf); err != nil {
				errs = append(errs, fmt.Errorf("insn %d: %w", iter.Offset, err))
			}
		}
	}
	return unbound, errs
}

// errLiveMap is the error for a map load bound to a live map (an
// asm.Instruction.AssociateMap) that names no map spec.
var errLiveMap = errors.New("map load bound to a live map without a map spec")

func rewriteMapLoad(ins *asm.Instruction, ref string, maps *mapTable) error {
	if ref == arenaSection {
		return maps.rewriteArenaLoad(ins)
	}
	idx, ok := maps.index[ref]
	if ok {
		if ins.Src == asm.PseudoMapFD {
			ins.Constant = int64(idx)
		} else {
			offset := uint64(ins.Constant) >> 32
			ins.Constant = int64(offset<<32 | uint64(uint32(idx)))
		}
		return nil
	}
	return fmt.Errorf("%w: %q", ErrMapNotFound, ref)
}

// rewriteKconfigLoad points a load of an extern __kconfig variable at its
// offset in the .kconfig map.
func rewriteKconfigLoad(ins *asm.Instruction, off uint32, maps *mapTable) error {
	kidx, ok := maps.index[kconfigMapName]
	if !ok {
		return fmt.Errorf("%w: %q", ErrMapNotFound, kconfigMapName)
	}
	ins.Src = asm.PseudoMapValue
	ins.Constant = int64(uint64(off)<<32 | uint64(uint32(kidx)))
	return nil
}

// rewriteKfuncAddress links the address of a kfunc (bpf_ksym_exists), as
// libbpf does (bpf_program__relocate, RELO_EXTERN_LD64 of a typed ksym): a
// BTF-id load of the kernel's function, which the kernel makes read-only
// memory of no size (check_pseudo_btf_id), or zero for a missing weak
// kfunc. cilium/ebpf loaded the id as a plain number: a program doing
// arithmetic on the address was verified, which the kernel refuses from
// libbpf ("32-bit pointer arithmetic prohibited"). A module's kfunc keeps
// its module's BTF object in the second half (libbpf's fd, here the
// fd_array index), which the verifier does not model.
//
// With libbpf unset the address is linked as cilium/ebpf links it, the id
// as a number (Program.CiliumRelocated).
func rewriteKfuncAddress(ins *asm.Instruction, ref string, local *btf.Func, target *targetBTF, info *elfInfo, libbpf bool) error {
	id, module, err := kfuncID(ref, local, target)
	switch {
	case err == nil && !libbpf:
		ins.Constant = int64(id)
	case err == nil:
		ins.Src = pseudoBTFID
		ins.Constant = int64(uint32(id)) | int64(module)<<32
		// The verifier looks the function's address up in kallsyms
		// (check_pseudo_btf_id): reading the table now keeps that out
		// of the program's verification time.
		_, _, _ = KernelSymbol(ref)
	case info != nil && info.weak[ref]:
		ins.Constant, ins.Src = 0, 0
	default:
		return fmt.Errorf("kfunc %q: %w", ref, err)
	}
	return nil
}

func rewriteKfuncCall(ins *asm.Instruction, ref string, local *btf.Func, target *targetBTF, info *elfInfo) error {
	id, module, err := kfuncID(ref, local, target)
	if err == nil {
		ins.Constant = int64(id)
		// Offset indexes the fd array of module BTFs; 0 means vmlinux.
		ins.Offset = module
		return nil
	}
	if info != nil && info.weak[ref] {
		meta := ins.Metadata
		*ins = asm.BuiltinFunc(kfuncCallPoisonBase).Call()
		ins.Metadata = meta
		return nil
	}
	if errors.Is(err, btf.ErrNotFound) {
		return fmt.Errorf("kfunc %q: %w: %w", ref, ErrKernelSymbolMissing, err)
	}
	return fmt.Errorf("kfunc %q: %w", ref, err)
}

// ErrKernelSymbolMissing is a strong extern (a kfunc, a typeless ksym)
// the kernel has nowhere: not in its BTF nor any module's, not in
// kallsyms. libbpf refuses to load the program (ESRCH) before the kernel
// sees it.
var ErrKernelSymbolMissing = errors.New("no such kernel symbol")

// kfuncID returns the BTF id of the kernel function an extern kfunc
// declaration named name resolves to, and the fd_array index of the module
// BTF that has it (0: the target BTF itself). As libbpf's find_ksym_btf_id,
// it looks for the function whose name is the declaration's essential name
// (up to its last "___" flavour suffix) exactly, in the target BTF and
// then, when the target is the kernel's, in each module's (ModuleBTFs).
// btf.Spec.TypeByName would strip flavours on the kernel's side too, where
// "scx_bpf_dsq_insert___v2" is a function of its own beside
// "scx_bpf_dsq_insert" (sched_ext's versioned kfuncs), and find both.
// The function found must be compatible with the declaration local (its
// BTF in the object's .ksyms, when known), as libbpf's
// bpf_core_types_are_compat says: an incompatible one is not found, so that
// a weak declaration of a flavour the kernel has with another prototype
// stays unresolved.
func kfuncID(name string, local *btf.Func, target *targetBTF) (btf.TypeID, int16, error) {
	kernel, err := target.get()
	if err != nil {
		return 0, 0, err
	}
	want := EssentialName(name)
	spec, module := kernel, int16(0)
	id, err := exactFuncID(kernel, want)
	if err != nil && target.isKernel() {
		spec, id, module, err = moduleKfuncID(want)
	}
	if err != nil {
		return 0, 0, err
	}
	if err := checkKfuncCompat(local, spec, id); err != nil {
		return 0, 0, fmt.Errorf("kernel function %s: %w", want, err)
	}
	return id, module, nil
}

// ErrExternIncompatible is an extern the kernel has with a type
// incompatible with the object's declaration (bpf_core_types_are_compat):
// a strong kfunc whose prototype differs, or a typed ksym variable, weak or
// strong, whose type differs. libbpf refuses to load the object (EINVAL,
// "extern (func ksym) ...: func_proto ... incompatible with vmlinux",
// "extern (var ksym) ...: incompatible types") before the kernel sees it; a
// weak kfunc stays unresolved instead, its calls poisoned.
var ErrExternIncompatible = errors.New("incompatible with the declaration")

// checkKfuncCompat compares the declaration local with the function at
// id in spec (bpf_core_types_are_compat).
func checkKfuncCompat(local *btf.Func, spec *btf.Spec, id btf.TypeID) error {
	if local == nil {
		return nil
	}
	t, err := spec.TypeByID(id)
	if err != nil {
		return err
	}
	fn, ok := t.(*btf.Func)
	if !ok {
		return fmt.Errorf("type %d is no function", id)
	}
	if err := btf.CheckTypeCompatibility(local.Type, fn.Type); err != nil {
		return fmt.Errorf("%w: %w", ErrExternIncompatible, err)
	}
	return nil
}

// exactFuncID returns the id of the function named name in spec.
func exactFuncID(spec *btf.Spec, name string) (btf.TypeID, error) {
	types, err := spec.AnyTypesByName(name)
	if err != nil {
		return 0, err
	}
	for _, t := range types {
		if fn, ok := t.(*btf.Func); ok && fn.Name == name {
			return spec.TypeID(fn)
		}
	}
	return 0, fmt.Errorf("kernel function %s: %w", name, btf.ErrNotFound)
}

// EssentialName is libbpf's bpf_core_essential_name_len: name up to its
// last flavour separator, an "___" between two characters that are not
// underscores.
func EssentialName(name string) string {
	for i := len(name) - 5; i >= 0; i-- {
		if name[i] != '_' && name[i+1:i+4] == "___" && name[i+4] != '_' {
			return name[:i+1]
		}
	}
	return name
}

// isKfunc reports whether name is an extern function declared in the
// object's .ksyms BTF section.
func isKfunc(spec *ebpf.CollectionSpec, name string) bool {
	return ksymFunc(spec, name) != nil
}

// ksymFunc returns the declaration of the extern function name in the
// object's .ksyms BTF section, nil when there is none.
func ksymFunc(spec *ebpf.CollectionSpec, name string) *btf.Func {
	if spec.Types == nil {
		return nil
	}
	var ds *btf.Datasec
	if err := spec.Types.TypeByName(".ksyms", &ds); err != nil {
		return nil
	}
	for _, v := range ds.Vars {
		if fn, ok := v.Type.(*btf.Func); ok && fn.Name == name {
			return fn
		}
	}
	return nil
}

// resolveCalls fills in the relative offsets of bpf-to-bpf calls, function
// pointer loads and jumps to symbols, in place. cilium/ebpf does this while
// encoding, so encoding to nowhere is enough (through insn.Marshal, which
// takes the placeholder helper calls cilium/ebpf refuses to encode).
func resolveCalls(insns asm.Instructions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: encoding: %v", ErrMalformed, r)
		}
	}()
	return insn.Marshal(insns, io.Discard)
}

// unsatisfiedCall names the first function a bpf-to-bpf call of insns
// refers to that insns does not define: an extern function of an object
// whose units are not linked yet.
func unsatisfiedCall(insns asm.Instructions) (string, bool) {
	defined := make(map[string]bool)
	for i := range insns {
		if sym := insns[i].Symbol(); sym != "" {
			defined[sym] = true
		}
	}
	for i := range insns {
		if ins := &insns[i]; ins.IsFunctionReference() || ins.IsFunctionCall() {
			if ref := ins.Reference(); ref != "" && !defined[ref] {
				return ref, true
			}
		}
	}
	return "", false
}

// lineAndFuncInfo extracts source lines and BTF function info, keyed by raw
// instruction slot.
func lineAndFuncInfo(insns asm.Instructions) (LineTable, []Func) {
	var total asm.RawInstructionOffset
	for i := range insns {
		total += insns[i].Width()
	}
	lines := make([]Line, total)
	var funcs []Func
	iter := insns.Iterate()
	for iter.Next() {
		ins := iter.Ins
		switch src := ins.Source(); l := src.(type) {
		case nil:
		case *btf.Line:
			lines[iter.Offset] = Line{File: l.FileName(), Source: l.Line(), Line: l.LineNumber(), Col: l.LineColumn()}
		default:
			// Another source (cilium/ebpf's comment on an instruction
			// CO-RE poisoned) is still a line_info record for the
			// kernel: a line of that text and no file.
			lines[iter.Offset] = Line{Source: src.String()}
		}
		if fn := btf.FuncMetadata(ins); fn != nil {
			funcs = append(funcs, Func{Start: int(iter.Offset), Name: fn.Name, Global: fn.Linkage == btf.GlobalFunc, BTF: fn})
		}
	}
	return NewLineTable(lines), funcs
}

package kernel

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/vercheck/vercheck/loader"
)

// mapIndexMask keeps the map index (low 32 bits) of a map-load immediate as
// the loader writes it; the high 32 bits of a direct value load hold the
// offset into the value.
const mapIndexMask = 1<<32 - 1

// ErrNoMap is wrapped when an instruction names a map index the object
// does not define.
var ErrNoMap = errors.New("map index out of range")

// Options say how the kernel side loads programs. The zero value loads
// as libbpf does.
type Options struct {
	// MapBTF is the BTF maps and programs are loaded with, for the
	// programs whose verdict depends on it (graph roots and kptrs in map
	// values, local types); the others are loaded the same either way.
	MapBTF MapBTF
	// VerdictOnly makes LoadObject and LoadCollectionSpec skip the
	// second, branch-level load of a rejected program (as
	// LoadProgramVerdict does for one program): its Result keeps the stats-level log, which holds the
	// verdict, the message and the figures. Probes that only need the
	// verdict save a 16 MB log buffer (and the kernel's second run) per
	// rejection.
	VerdictOnly bool
}

// LoadObject loads every program of obj into the kernel, one at a time and
// in the object's order, and returns one [Result] per program. Unlike
// [LoadCollectionSpec] it starts from vercheck's own linking of the object,
// so objects that cilium/ebpf alone cannot load (legacy map sections,
// zero-sized symbols, iproute2 sections without a type) reach the kernel as
// vercheck saw them. Programs the loader could not prepare are reported
// with NotLoaded. Maps and programs are loaded as libbpf does.
func LoadObject(obj *loader.Object) ([]Result, error) {
	return Options{}.LoadObject(obj)
}

// LoadObject is [LoadObject] with the options' map BTF.
func (o Options) LoadObject(obj *loader.Object) ([]Result, error) {
	if obj == nil {
		return nil, errors.New("load object: nil object")
	}
	release, err := Release()
	if err != nil {
		return nil, err
	}
	results := make([]Result, 0, len(obj.Programs))
	for _, p := range obj.Programs {
		r := o.loadProgram(obj, p, !o.VerdictOnly)
		r.Release = release
		results = append(results, r)
	}
	return results, nil
}

// LoadProgram loads one program of obj into the kernel, with fresh copies of
// the maps it references, at the stats log level; a rejected program is
// loaded again at the branch level for the full log. Safe for concurrent
// use on the same object. Maps and the program are loaded as libbpf does.
func LoadProgram(obj *loader.Object, prog *loader.Program) Result {
	return Options{}.LoadProgram(obj, prog)
}

// LoadProgram is [LoadProgram] with the options' map BTF.
func (o Options) LoadProgram(obj *loader.Object, prog *loader.Program) Result {
	return withRelease(o.loadProgram(obj, prog, true))
}

// LoadProgramVerdict is LoadProgram without the second load of a rejected
// program: the Log of a rejection is the stats-level one, which holds the
// decisive line and the figures. Differential testers that load many
// programs and keep the logs of a few use it.
func LoadProgramVerdict(obj *loader.Object, prog *loader.Program) Result {
	return Options{}.LoadProgramVerdict(obj, prog)
}

// LoadProgramVerdict is [LoadProgramVerdict] with the options' map BTF.
func (o Options) LoadProgramVerdict(obj *loader.Object, prog *loader.Program) Result {
	return withRelease(o.loadProgram(obj, prog, false))
}

// ProgramLog loads prog into the running kernel once more with the
// kernel's own log at level (1: the branches of every explored path, 2:
// every instruction) and returns that log, accepted or rejected, for a
// side-by-side reading with vercheck's log of the same level.
func ProgramLog(obj *loader.Object, prog *loader.Program, level int) (string, error) {
	return Options{}.ProgramLog(obj, prog, level)
}

// ProgramLog is [ProgramLog] with the options' map BTF.
func (o Options) ProgramLog(obj *loader.Object, prog *loader.Program, level int) (string, error) {
	lv := ebpf.LogLevelBranch
	if level >= 2 {
		lv = ebpf.LogLevelInstruction
	}
	if prog.CiliumRelocated != nil {
		// The log of the linking whose verdict loadProgram gives.
		prog, _ = o.decidingLinking(obj, prog, false)
	}
	var log string
	err := o.withLoad(obj, prog, func(load loadFunc) error {
		var err error
		var out loaded
		out, err = load(lv|ebpf.LogLevelStats, branchLogSize)
		log = out.log
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) {
			log, err = strings.Join(ve.Log, "\n"), nil
		}
		return err
	})
	return log, err
}

// loadFunc loads a prepared program at a log level, with a log buffer of
// size bytes at first, and returns its log (see loadSpec).
type loadFunc func(level ebpf.LogLevel, size uint32) (loaded, error)

// withLoad prepares prog for the kernel, its maps created, and calls fn
// with the function that loads it: as libbpf does when the verdict
// depends on the map BTF (needsObjectBTF) and the options ask for
// libbpf's, through cilium/ebpf otherwise.
func (o Options) withLoad(obj *loader.Object, prog *loader.Program, fn func(loadFunc) error) error {
	noBTF := o.MapBTF == ObjectBTF && libbpfDropsBTF(obj, prog)
	if !noBTF && o.MapBTF == ObjectBTF && needsObjectBTF(obj, prog) {
		return loadWithObjectBTF(obj, prog, fn)
	}
	return withSpec(obj, prog, noBTF, func(spec *ebpf.ProgramSpec) error {
		return fn(func(level ebpf.LogLevel, size uint32) (loaded, error) {
			return loadSpec(spec, level, size)
		})
	})
}

// withSpec creates prog's maps in the kernel, calls fn with the program
// spec that refers to them, and closes the maps again; with noBTF as
// libbpf does when it drops the object's BTF (see libbpfDropsBTF).
func withSpec(obj *loader.Object, prog *loader.Program, noBTF bool, fn func(*ebpf.ProgramSpec) error) error {
	if prog.Err != nil {
		return prog.Err
	}
	maps, err := createMapsWith(obj, prog, nil, noBTF)
	if err != nil {
		return err
	}
	defer maps.close()
	spec, err := programSpec(prog, maps)
	if err != nil {
		return err
	}
	if noBTF {
		dropProgramBTF(spec)
	}
	return fn(spec)
}

// withRelease fills in the running kernel's release.
func withRelease(r Result) Result {
	if rel, err := Release(); err == nil {
		r.Release = rel
	}
	return r
}

func (o Options) loadProgram(obj *loader.Object, prog *loader.Program, branchLog bool) Result {
	_, res := o.decidingLinking(obj, prog, branchLog)
	return res
}

// decidingLinking loads prog and, when it is accepted and cilium/ebpf links
// it otherwise (loader.Program.CiliumRelocated), that linking too: what
// either loader hands the kernel and the kernel refuses is the verdict, as
// verifier.Verify gives it. It returns the program whose load decides and
// that load's result.
func (o Options) decidingLinking(obj *loader.Object, prog *loader.Program, branchLog bool) (*loader.Program, Result) {
	res := o.loadRelocated(obj, prog, branchLog)
	if alt := prog.CiliumRelocated; alt != nil && res.Accepted {
		if r := o.loadRelocated(obj, alt, branchLog); !r.Accepted && !r.NotLoaded {
			return alt, r
		}
	}
	return prog, res
}

// loadRelocated loads prog as the loader relocated it.
func (o Options) loadRelocated(obj *loader.Object, prog *loader.Program, branchLog bool) Result {
	res := Result{Program: prog.Name}
	err := o.withLoad(obj, prog, func(load loadFunc) error {
		res = judge(res, branchLog, load)
		return nil
	})
	if err != nil {
		return notLoaded(res, err)
	}
	return res
}

// loadSpec loads one program and returns its verifier log.
func loadSpec(spec *ebpf.ProgramSpec, level ebpf.LogLevel, size uint32) (loaded, error) {
	if needsOwnEncoding(spec) || targetUnresolvedByCilium(spec) {
		return loadOwnEncoding(spec, level, size)
	}
	p, err := newProgram(spec, ebpf.ProgramOptions{LogLevel: level, LogSizeStart: size})
	if err != nil {
		err = withLostLog(spec, err, level, size)
		return loaded{}, fmt.Errorf("load %s: %w", spec.Name, err)
	}
	defer p.Close()
	return loadedProgram(p), nil
}

// kernelBTF is the running kernel's BTF as cilium/ebpf decodes it, kept
// for every load of the process.
var kernelBTF = btf.NewCache()

// newProgram is ebpf.NewProgramWithOptions with the kernel's BTF decoded
// once for the process. NewProgramWithOptions decodes it anew (a fresh
// btf.Cache) for every program that calls a kfunc or names a BTF attach
// target: half of the CPU time of a --kernel run over testdata/progs, and
// the decoding's megabytes of garbage and cache misses fell on the
// verifications timed between the loads. A collection of the one program
// shares a cache across loads and loads the program as NewProgramWithOptions
// does (the same copy of the spec and relocations), its maps already bound:
// a program with a map load the loader left unbound (no descriptor) goes
// the old way, whose error says so.
func newProgram(spec *ebpf.ProgramSpec, opts ebpf.ProgramOptions) (*ebpf.Program, error) {
	if spec.Type == ebpf.UnspecifiedProgram || hasUnboundMapLoad(spec) {
		// A collection skips a program of no type, and looks an
		// unbound map up among its own.
		return ebpf.NewProgramWithOptions(spec, opts)
	}
	coll, err := ebpf.NewCollectionWithOptions(&ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{spec.Name: spec}},
		ebpf.CollectionOptions{Programs: opts, Cache: kernelBTF})
	if err != nil {
		// The collection's "program NAME: " prefix: the error as
		// NewProgramWithOptions gives it.
		var verr *ebpf.VerifierError
		if errors.As(err, &verr) {
			return nil, verr
		}
		if inner := errors.Unwrap(err); inner != nil {
			return nil, inner
		}
		return nil, err
	}
	defer coll.Close()
	if p := coll.DetachProgram(spec.Name); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("program %s: not in its collection after loading", spec.Name)
}

// hasUnboundMapLoad reports whether spec loads a map it names without a
// descriptor, which a collection would look for among its own maps.
func hasUnboundMapLoad(spec *ebpf.ProgramSpec) bool {
	for i := range spec.Instructions {
		ins := &spec.Instructions[i]
		if ins.IsLoadFromMap() && ins.Reference() != "" && int32(ins.Constant) <= 0 {
			return true
		}
	}
	return false
}

// targetUnresolvedByCilium reports a tracing program of an attach type
// cilium/ebpf's loader resolves no target for and loads without one
// (BPF_TRACE_FSESSION, libbpf 1.8's multi-function types), where libbpf
// resolves a named target as it resolves fentry's: the own encoding does
// as libbpf (vmlinuxAttachID).
func targetUnresolvedByCilium(spec *ebpf.ProgramSpec) bool {
	if spec.Type != ebpf.Tracing {
		return false
	}
	switch spec.AttachType {
	case ebpf.AttachTraceRawTp, ebpf.AttachTraceFEntry, ebpf.AttachTraceFExit, ebpf.AttachModifyReturn, ebpf.AttachTraceIter:
		return false
	}
	return true
}

// mapIndex returns the object map index a map-load instruction carries.
func mapIndex(ins *asm.Instruction) int {
	return int(uint64(ins.Constant) & mapIndexMask)
}

// liveMaps are the kernel maps created for one program, keyed by the
// object's map index, and the user mappings of its arena.
type liveMaps struct {
	byIndex  map[int]*ebpf.Map
	mappings [][]byte
	// noBTF creates every map without BTF (libbpfDropsBTF).
	noBTF bool
}

// close unmaps the arena and closes the maps.
func (l *liveMaps) close() {
	for _, b := range l.mappings {
		unix.Munmap(b)
	}
	for _, m := range l.byIndex {
		m.Close()
	}
}

// mapArena gives an arena that map_extra does not place a user address,
// as libbpf does (bpf_object__create_maps mmap()s every arena): the
// verifier refuses a program whose arena has none ("arena's user address
// must be set via map_extra or mmap()"). cilium/ebpf maps no arena.
func (l *liveMaps) mapArena(m *ebpf.Map, ms *ebpf.MapSpec) error {
	if ms.Type != ebpf.Arena || ms.MapExtra != 0 {
		return nil
	}
	b, err := unix.Mmap(m.FD(), 0, int(ms.MaxEntries)*os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("mmap arena: %w", err)
	}
	l.mappings = append(l.mappings, b)
	return nil
}

// MapSpec turns a loader map into a spec the kernel will accept: the
// classic fields come from the loader (which repaired legacy definitions),
// BTF key and value types from cilium/ebpf's spec when there is one.
// Pinning is off, and static contents that name other objects (program and
// map arrays) are dropped since those objects are not loaded; global data
// keeps its initial bytes (cilium/ebpf freezes .rodata and .kconfig by
// name).
func MapSpec(m *loader.Map) *ebpf.MapSpec {
	var ms *ebpf.MapSpec
	if m.Spec != nil {
		ms = m.Spec.Copy()
	} else {
		ms = &ebpf.MapSpec{}
	}
	ms.Name = m.Name
	ms.Type, ms.KeySize, ms.ValueSize, ms.MaxEntries, ms.Flags = m.Type, m.KeySize, m.ValueSize, m.MaxEntries, m.Flags
	ms.Pinning = ebpf.PinNone
	ms.Extra = nil
	switch {
	case m.Contents != nil:
		ms.Contents = []ebpf.MapKV{{Key: uint32(0), Value: slices.Clone(m.Contents)}}
	case isReferenceArray(m.Type):
		ms.Contents = nil
	}
	if m.Inner != nil {
		ms.InnerMap = MapSpec(m.Inner)
	}
	return ms
}

// isResolvedConstant reports whether ins is a helper call, a plain 64-bit
// constant load, a load of a kernel variable's BTF id or a call of a
// vmlinux kfunc. The loader turns a missing weak kfunc into a poisoned
// helper call, a kfunc address into a constant, a typed ksym into a BTF id
// and a kfunc call into its BTF id, but the instruction keeps cilium/ebpf's
// kfunc or ksym metadata, which would make cilium/ebpf try to resolve it
// again (refusing a kfunc that is none any more, overwriting the BTF id
// with a kallsyms address, or resolving a flavoured kfunc name by other
// rules than libbpf's, which the loader follows: the kernel must see what
// vercheck verified). A module kfunc keeps its metadata: cilium/ebpf
// builds the fd_array that names the module.
func isResolvedConstant(ins *asm.Instruction) bool {
	helperCall := ins.OpCode.JumpOp() == asm.Call && ins.Src == asm.R0
	constLoad := ins.OpCode.IsDWordLoad() && (ins.Src == asm.R0 || ins.Src == pseudoBTFID)
	vmlinuxKfunc := ins.IsKfuncCall() && ins.Offset == 0
	return helperCall || constLoad || vmlinuxKfunc
}

// pseudoBTFID is BPF_PSEUDO_BTF_ID, the src_reg of an ld_imm64 of a kernel
// BTF object.
const pseudoBTFID = asm.R3

// isReferenceArray reports whether a map's values are other kernel objects.
func isReferenceArray(t ebpf.MapType) bool {
	return t == ebpf.ProgramArray || t == ebpf.ArrayOfMaps || t == ebpf.HashOfMaps
}

// boundMapLoad reports whether the instruction at iter loads a map that a
// relocation named. A map load no relocation bound keeps its immediate, as
// loaders leave it: the kernel takes it for a file descriptor.
func boundMapLoad(prog *loader.Program, iter *asm.InstructionIterator) bool {
	return iter.Ins.IsLoadFromMap() && !prog.MapLoadUnbound(int(iter.Offset))
}

// programSpec builds the spec handed to the kernel: vercheck's linked
// instructions with each bound map load bound to the created map (and to
// nothing else cilium/ebpf would resolve). CO-RE
// relocations were applied by the loader, so their metadata is removed
// to keep cilium/ebpf from applying them a second time; but for
// bpf_core_type_id_local (keepLocalTypeID).
func programSpec(prog *loader.Program, maps *liveMaps) (*ebpf.ProgramSpec, error) {
	insns := slices.Clone(prog.Instructions)
	iter := insns.Iterate()
	for iter.Next() {
		i, ins := iter.Index, iter.Ins
		if relo := btf.CORERelocationMetadata(ins); relo != nil && !keepLocalTypeID(ins, relo) {
			*ins = btf.WithCORERelocationMetadata(*ins, nil)
		}
		if isResolvedConstant(ins) {
			*ins = loader.WithoutLinkMetadata(*ins)
		}
		if !boundMapLoad(prog, iter) {
			continue
		}
		// A load of an extern __kconfig variable keeps cilium/ebpf's
		// kconfig metadata, with which cilium/ebpf would create and fill a
		// .kconfig map of its own (refusing a weak extern the kernel's
		// configuration lacks); the loader's map, filled as libbpf fills
		// it, is the one the kernel must see.
		*ins = loader.WithoutLinkMetadata(*ins)
		if err := ins.AssociateMap(maps.byIndex[mapIndex(ins)]); err != nil {
			return nil, fmt.Errorf("insn %d: %w", i, err)
		}
	}
	ps := &ebpf.ProgramSpec{
		Name:         prog.Name,
		Type:         prog.Type,
		AttachType:   prog.AttachType,
		AttachTo:     prog.AttachTo,
		License:      prog.License,
		Flags:        prog.Flags,
		Instructions: insns,
	}
	if prog.Spec != nil {
		ps.SectionName = prog.Spec.SectionName
		ps.KernelVersion = prog.Spec.KernelVersion
		ps.ByteOrder = prog.Spec.ByteOrder
	}
	return ps, nil
}

// keepLocalTypeID restores the immediate of a bpf_core_type_id_local
// relocation to the object's own type id and reports true, so that
// cilium/ebpf relocates it again: the id the kernel must see is the one
// the type gets in the BTF cilium/ebpf builds and loads with the program,
// not the one the loader's own numbering gave it.
func keepLocalTypeID(ins *asm.Instruction, relo *btf.CORERelocation) bool {
	id, ok := loader.LocalTypeID(relo)
	if ok {
		ins.Constant = int64(id)
	}
	return ok
}

// withLostLog recovers the log cilium/ebpf drops when the kernel answers
// EFAULT (see rawLoadLog), or ENOSPC after the walk (more than 1,024
// direct tail calls: "adding tail call poke descriptor failed"), which
// cilium/ebpf takes for a log buffer too small and retries until it gives
// up: when a raw reload at the load's log level gives a verdict, err
// becomes a verifier error carrying that log.
func withLostLog(spec *ebpf.ProgramSpec, err error, level ebpf.LogLevel, size uint32) error {
	var ve *ebpf.VerifierError
	if !errors.Is(err, unix.EFAULT) && !errors.Is(err, unix.ENOSPC) || errors.As(err, &ve) && len(ve.Log) > 0 {
		return err
	}
	log, rerr := rawLoadLog(spec, level, size)
	if rerr != nil || !isVerdict(log) {
		return err
	}
	return &ebpf.VerifierError{Cause: err, Log: strings.Split(log, "\n")}
}

package loader

import (
	"bytes"
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// Sentinel errors that callers can test with [errors.Is].
var (
	// ErrNotELF means the input is not an ELF file at all.
	ErrNotELF = errors.New("not an ELF file")
	// ErrNotBPF means the input is an ELF file for a machine other than BPF.
	ErrNotBPF = errors.New("not a BPF object")
	// ErrMalformed means the ELF structure is damaged (truncated, bad
	// offsets, inconsistent tables) so the object cannot be read.
	ErrMalformed = errors.New("malformed BPF object")
	// ErrUnknownProgramType means a program's section names no program type
	// and none could be guessed or was given in [Options.TypeOverride].
	ErrUnknownProgramType = errors.New("unknown program type")
	// ErrNoTargetBTF means a program needs kernel BTF (CO-RE relocations or
	// kfunc calls) but no target BTF could be loaded.
	ErrNoTargetBTF = errors.New("no target BTF for CO-RE relocations or kfuncs")
	// ErrMapNotFound means an instruction references a map the object does
	// not define.
	ErrMapNotFound = errors.New("map not found")
	// ErrUnresolvedExtern means an object with a .kconfig section reads an
	// extern variable that is no kconfig value and that it does not
	// define: a unit of a program built from several, not yet linked
	// (bpftool gen object, libbpf's linker). cilium/ebpf refuses it (it
	// takes every such extern for a kconfig value), and libbpf too. (Where
	// there is no .kconfig section cilium/ebpf leaves the load as a
	// constant its caller may rewrite, an asm relocation, and so does
	// vercheck.)
	ErrUnresolvedExtern = errors.New("unresolved extern")
)

// kconfigNotFound matches cilium/ebpf's error for a load of an undefined
// extern in an object that has a .kconfig section: it takes every extern
// for a kconfig value there.
var kconfigNotFound = regexp.MustCompile(`kconfig (\S+) not found in \.kconfig`)

// unresolvedExtern is the error for a read of extern name that nothing
// defines.
func unresolvedExtern(name string) error {
	return fmt.Errorf("%w %s: no unit of this object defines it and it is no kconfig value or kernel symbol (link the object's units first, as bpftool gen object does)", ErrUnresolvedExtern, name)
}

// firstUnresolvedExtern names, of the object's undefined variables that
// neither .kconfig nor .ksyms declares, the first by name, so that the
// error names the same one on every run: cilium/ebpf names whichever its
// map iteration meets first. found is the one it named; it is returned
// when the object's symbols cannot be read or do not hold it.
func firstUnresolvedExtern(data []byte, found string) string {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return found
	}
	syms, err := f.Symbols()
	if err != nil {
		return found
	}
	declared := map[string]bool{}
	if spec, err := btf.LoadSpecFromReader(bytes.NewReader(data)); err == nil {
		for t, err := range spec.All() {
			if err != nil {
				break
			}
			switch v := t.(type) {
			case *btf.Datasec:
				if v.Name == ".kconfig" || v.Name == ".ksyms" {
					for _, vs := range v.Vars {
						declared[vs.Type.TypeName()] = true
					}
				}
			case *btf.Func:
				declared[v.Name] = declared[v.Name] || v.Linkage == btf.ExternFunc
			}
		}
	}
	var names []string
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL && s.Name != "" && !declared[s.Name] {
			names = append(names, s.Name)
		}
	}
	if !slices.Contains(names, found) {
		return found
	}
	return slices.Min(names)
}

// Object is a BPF ELF object prepared for verification.
type Object struct {
	// Path is the file the object was read from, as given by the caller.
	Path string
	// Programs holds every program entry point, in ELF order.
	Programs []*Program
	// Maps holds every map; the index in this slice is the map index that
	// instructions carry in their immediate (see [Program.Instructions]).
	Maps []*Map
	// Warnings lists every assumption or repair the loader made.
	Warnings []string
}

// Program returns the object's program named name, or nil.
func (o *Object) Program(name string) *Program {
	for _, p := range o.Programs {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Map is the definition of one BPF map as the kernel would create it.
type Map struct {
	// Name is the map's symbol, or the section name of a global data map.
	Name string
	// Type, KeySize, ValueSize, MaxEntries and Flags are the classic five
	// fields of a map definition.
	Type                                  ebpf.MapType
	KeySize, ValueSize, MaxEntries, Flags uint32
	// Inner is the inner map definition of a map-in-map, if any.
	Inner *Map
	// ReadOnly is set for maps the program cannot write (.rodata, or
	// BPF_F_RDONLY_PROG): loaders freeze them, so their Contents are known
	// to the verifier.
	ReadOnly bool
	// Contents holds the initial value bytes of a global data map (.rodata,
	// .data, .bss, .kconfig), when the object defines them.
	Contents []byte
	// Spec is the cilium/ebpf definition, when there is one.
	Spec *ebpf.MapSpec
	// Externs is where each extern variable of a .kconfig map lies in its
	// value, as the loader placed them: in the object's declaration order,
	// as cilium/ebpf does. libbpf sorts them (alignment, size, name) and
	// packs the value tighter, so only an access within one extern reads
	// the same bytes whichever loader made the map. Nil for other maps.
	Externs []Extent
}

// Extent is the byte range [Off, Off+Size) of a map value.
type Extent struct{ Off, Size uint32 }

// Program is one program entry point, linked as the kernel would receive it.
type Program struct {
	// Name is the program's function symbol.
	Name string
	// CiliumRelocated is the program as cilium/ebpf links it, when that
	// gives other instructions than the libbpf linking the loader made:
	// CO-RE relocations (see libbpfCORE) or a kfunc's address (see
	// rewriteKfuncAddress); nil otherwise, and under
	// [Options.CiliumLinking]. The two loaders hand the kernel different
	// programs: a verdict both can trust accepts only what both make
	// acceptable.
	CiliumRelocated *Program
	// Section is the ELF section the program came from.
	Section string
	// Type is the program type: from the section name, from
	// [Options.TypeOverride], or guessed (see [Object.Warnings]).
	Type ebpf.ProgramType
	// AttachType is the expected attach type the section name implies.
	AttachType ebpf.AttachType
	// AttachTo is the attach target named in the section (kprobe function,
	// tracepoint, BTF function), if any.
	AttachTo string
	// License is the object's license string ([Options.License] when the
	// object has none); GPLCompatible says whether the kernel would allow
	// GPL-only helpers with it.
	License       string
	GPLCompatible bool
	// Flags are the program load flags (FlagSleepable...) the program is
	// loaded with: those cilium/ebpf derives from the section name, as
	// libbpf does, or the spec carries, plus [Options.ProgFlags].
	Flags uint32
	// Instructions are fully linked: subprograms appended, bpf-to-bpf call
	// offsets resolved, every map reference rewritten to a map index: an
	// ld_imm64 of a map pointer has Src=1 (BPF_PSEUDO_MAP_FD) and
	// Constant=index; an address inside a map value has Src=2
	// (BPF_PSEUDO_MAP_VALUE) and Constant=index|offset<<32. CO-RE
	// relocations are applied when a target BTF is available. They are
	// not modified in place once the program is opened (Code keeps their
	// decoding): a changed program is a new one, from WithInstructions.
	Instructions asm.Instructions
	// UnboundMapLoads lists, by raw instruction slot, the map loads that no
	// relocation binds to a map. Loaders pass such an immediate to the
	// kernel unchanged, where it is a file descriptor of the loading
	// process, so it is kept as it is and is no map index.
	UnboundMapLoads []int
	// Lines is indexed by raw instruction slot (asm.RawInstructionOffset); a
	// zero Line means no line information for that slot.
	Lines LineTable
	// Funcs lists the BTF function info: where each subprogram starts.
	Funcs []Func
	// LocalTypes are the program's own BTF types whose ids
	// bpf_core_type_id_local relocations wrote into instructions, by that
	// id (the argument bpf_obj_new passes to the kernel).
	LocalTypes map[uint32]btf.Type
	// Spec is the cilium/ebpf program spec (before linking and rewriting).
	Spec *ebpf.ProgramSpec
	// ObjectTypes is the object's whole BTF (nil without one): libbpf
	// loads every program and map with it, where cilium/ebpf gives a
	// program only the types its relocations and function info name.
	ObjectTypes *btf.Spec
	// ExtTarget is what an Extension program replaces, when
	// Options.ExtensionTarget names an object; nil otherwise.
	ExtTarget *ExtensionTarget
	// BTFDropped says why the program is loaded without BTF although the
	// object has some ("" otherwise; see [Program.WithoutBTF]).
	BTFDropped string
	// Err is set when this program could not be prepared; the other
	// programs of the object are still usable.
	Err error

	// decoded is Instructions decoded when the program was opened (see
	// Code).
	decoded *decodedCode
}

// MapLoadUnbound reports whether the map load at raw instruction slot is
// one no relocation binds to a map (see [Program.UnboundMapLoads]).
func (p *Program) MapLoadUnbound(slot int) bool {
	return slices.Contains(p.UnboundMapLoads, slot)
}

// Line is the source position of one instruction.
type Line struct {
	File, Source string
	Line, Col    uint32
}

// Func is the BTF function info of one subprogram.
type Func struct {
	// Start is the raw instruction slot of the function's first instruction.
	Start int
	// Name is the function name.
	Name string
	// Global is true for BTF_FUNC_GLOBAL functions, which the kernel verifies
	// separately from their callers.
	Global bool
	// BTF is the function's BTF declaration (its prototype and parameter
	// decl tags), from which the kernel derives a global function's
	// argument types.
	BTF *btf.Func
}

// Options control how an object is read.
type Options struct {
	// TypeOverride sets the program type of every program whose section name
	// carries no type. It wins over guessing.
	TypeOverride ebpf.ProgramType
	// TargetBTF is the BTF used for CO-RE relocations and kfunc ids: a raw
	// BTF file or an ELF with a .BTF section. Empty means the running
	// kernel's /sys/kernel/btf/vmlinux when present.
	TargetBTF string
	// Kconfig is the kernel configuration file (plain or gzip-compressed)
	// that extern __kconfig variables are read from. Empty means the
	// running kernel's (/proc/config.gz or /boot/config-RELEASE), as
	// loaders do; LINUX_KERNEL_VERSION is the running kernel's release.
	Kconfig string
	// ProgFlags are program load flags added to every program's own (see
	// [Program.Flags]), as a loader's caller may ask for.
	ProgFlags uint32
	// License is the license of objects without a license section: some
	// loaders pass one of their own ("GPL") for such objects.
	License string
	// InnerMaps gives, by the name of a map-in-map whose definition
	// leaves its inner map to the loader (no __array(values, ...)), the
	// inner map template the loader creates it with, as a libbpf user
	// does with bpf_map__set_inner_map_fd.
	InnerMaps map[string]InnerMap
	// ExtensionTarget names the object (a path, or "PATH:PROGRAM") whose
	// program the object's Extension (freplace) programs replace a
	// function of; see [ExtensionTarget].
	ExtensionTarget string
	// CiliumLinking links programs as cilium/ebpf does when it loads a
	// spec: its CO-RE relocation (a load or store of a field whose kernel
	// size differs from the object's keeps its size...) and a kfunc's
	// address as a number. Otherwise they are linked as libbpf links
	// them (see libbpfCORE and rewriteKfuncAddress), and a program
	// cilium/ebpf links otherwise keeps that linking too
	// ([Program.CiliumRelocated]).
	CiliumLinking bool
}

// InnerMap is the inner map template of a map-in-map: a map of the object,
// by name, or a map described by Spec.
type InnerMap struct {
	Name string
	Spec *ebpf.MapSpec
}

// maxObjectSize bounds how much of a file Open reads: the largest real BPF
// objects are a few megabytes, so anything far larger is not a BPF object.
const maxObjectSize = 256 << 20

// Open reads the BPF ELF object at path. See [Parse].
func Open(path string, opts Options) (*Object, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if st.Size() > maxObjectSize {
		return nil, fmt.Errorf("%s: %d bytes exceeds the %d byte limit: %w", path, st.Size(), maxObjectSize, ErrMalformed)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Parse(path, data, opts)
}

// Parse reads a BPF ELF object from data; path is only used in messages and
// in [Object.Path].
//
// Parse first repairs what old toolchains left behind (zero-sized symbols),
// then reads the object with cilium/ebpf and prepares each program. It
// returns an error when the object as a whole cannot be read; problems of one
// program are reported in its [Program.Err].
func Parse(path string, data []byte, opts Options) (*Object, error) {
	info, spec, warnings, err := repairAndLoad(data, opts.TypeOverride != ebpf.UnspecifiedProgram)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}

	obj, err := fromSpec(path, spec, opts, info)
	if err != nil {
		return nil, err
	}
	obj.Warnings = append(warnings, obj.Warnings...)
	return obj, nil
}

// LoadCollectionSpec reads the BPF ELF object at path with cilium/ebpf
// after the repairs [Parse] makes (zero-sized symbols, defined weak
// symbols, map definitions naming their values through a typedef, typed
// ksyms and flavoured kfunc names ("name___flavour") linked against the
// running kernel's BTF as libbpf links them, weak extern __kconfig
// variables filled from the running kernel as libbpf fills them): the spec a loader such
// as libbpf would load, for callers that hand it to the kernel themselves. It returns the repairs made, as [Object.Warnings]
// lists them.
func LoadCollectionSpec(path string) (*ebpf.CollectionSpec, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	info, spec, warnings, err := repairAndLoad(data, false)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := info.linkTypedKsyms(spec, newTargetBTF("")); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := info.linkKfuncsAsLibbpf(spec, newTargetBTF("")); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := materializeKconfig(spec, info.weakKconfig, info.weak); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return spec, warnings, nil
}

// repairAndLoad repairs what toolchains leave behind that cilium/ebpf does
// not read (see the package documentation), then reads the object with
// cilium/ebpf. textPrograms asks for the global functions of a text-only
// object as programs (see exposeTextPrograms).
func repairAndLoad(data []byte, textPrograms bool) (*elfInfo, *ebpf.CollectionSpec, []string, error) {
	info, err := inspectELF(data)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := info.emptyProgram(); err != nil {
		return nil, nil, nil, err
	}
	if name, ok := info.externMap(data); ok {
		// libbpf: "unrecognized extern section '.maps'" (EOPNOTSUPP);
		// cilium/ebpf counts the section's symbols against its Vars.
		return nil, nil, nil, fmt.Errorf("%w map %s: no unit of this object defines it (link the object's units first, as bpftool gen object does)", ErrUnresolvedExtern, name)
	}
	patched, warnings := info.fillZeroSizes(data)
	patched, bound := info.bindDefinedWeakObjects(patched)
	warnings = append(warnings, bound...)
	patched = info.bindWeakKconfigExterns(patched)
	patched, resolved := info.resolveValuesTypedefs(patched)
	warnings = append(warnings, resolved...)
	patched, numa, numaWarnings := info.hideNumaNodes(patched)
	warnings = append(warnings, numaWarnings...)
	patched, renamed := info.renameDuplicateFuncs(patched)
	warnings = append(warnings, renamed...)
	patched = info.addressGlobalFuncs(patched)
	patched, extInfo := info.repairEmptyExtInfo(patched)
	warnings = append(warnings, extInfo...)
	patched = info.untypeKsyms(patched)
	patched, bss := info.renameNamedBSS(patched)
	patched, jumpTables := info.renameJumpTables(patched)
	patched, legacyStructOps := info.renameLegacyStructOps(patched)
	patched, misplaced := info.hideMisplacedDataVars(patched)
	warnings = append(warnings, misplaced...)
	patched, unlinked := info.nameUnlinkedCode(patched)
	exposed := false
	if textPrograms && info.textOnly() {
		patched, exposed = info.exposeTextPrograms(patched)
	}
	spec, err := loadSpec(patched)
	if err != nil {
		return nil, nil, nil, err
	}
	restoreNamedBSS(spec, bss)
	warnings = append(warnings, unbindPercpuLoads(spec)...)
	dropJumpTablesMap(spec, jumpTables)
	typeLibbpfOnlySections(spec)
	warnings = append(warnings, dropUnlinkedPrograms(spec, unlinked)...)
	restoreNumaNodes(spec, numa)
	if legacyStructOps {
		info.attachLegacyStructOps(spec, patched)
	}
	warnings = append(warnings, info.appendExceptionCallbacks(spec, patched, exposed)...)
	if exposed {
		warnings = append(warnings, info.restoreTextPrograms(spec))
	}
	warnings = append(warnings, info.markHiddenFuncsStatic(spec)...)
	return info, spec, warnings, nil
}

// FromCollectionSpec prepares the programs and maps of a spec that was
// already read by cilium/ebpf. The spec is not modified. Without the ELF
// file, program order falls back to section and name, and legacy map tails
// are only interpreted from [ebpf.MapSpec.Extra].
func FromCollectionSpec(path string, spec *ebpf.CollectionSpec, opts Options) (*Object, error) {
	if spec == nil {
		return nil, fmt.Errorf("%s: nil collection spec", path)
	}
	return fromSpec(path, spec, opts, nil)
}

// loadSpec runs cilium/ebpf's ELF reader, turning a panic into an error.
func loadSpec(data []byte) (spec *ebpf.CollectionSpec, err error) {
	defer func() {
		if r := recover(); r != nil {
			spec, err = nil, fmt.Errorf("%w: cilium/ebpf: %v", ErrMalformed, r)
		}
	}()
	spec, err = ebpf.LoadCollectionSpecFromReader(bytes.NewReader(data))
	if err != nil {
		if m := kconfigNotFound.FindStringSubmatch(err.Error()); m != nil {
			return nil, unresolvedExtern(firstUnresolvedExtern(data, m[1]))
		}
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return spec, nil
}

// settleTypes decodes every type of an object's BTF once. cilium/ebpf
// completes a data section's type from the ELF on its first decoding,
// writing a map the Spec does not lock; the programs of an object share
// its Spec (Program.ObjectTypes) and are verified in parallel, so the
// writes happen here, before any of them reads it.
func settleTypes(types *btf.Spec) {
	if types == nil {
		return
	}
	for range types.All() {
	}
}

func fromSpec(path string, spec *ebpf.CollectionSpec, opts Options, info *elfInfo) (obj *Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			obj, err = nil, fmt.Errorf("%s: %w: %v", path, ErrMalformed, r)
		}
	}()

	obj = &Object{Path: path}
	settleTypes(spec.Types)
	maps := newMapTable(spec, info, hasUntypedSection(spec), opts.Kconfig)
	if err := maps.setInnerMaps(opts.InnerMaps); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	obj.Maps = maps.list
	obj.Warnings = append(obj.Warnings, maps.warnings...)

	specs := make([]*ebpf.ProgramSpec, 0, len(spec.Programs))
	for _, ps := range spec.Programs {
		if ps != nil {
			specs = append(specs, ps)
		}
	}
	slices.SortFunc(specs, func(a, b *ebpf.ProgramSpec) int {
		pa, pb := info.position(a.SectionName, a.Name), info.position(b.SectionName, b.Name)
		return cmp.Or(cmp.Compare(pa.section, pb.section), cmp.Compare(pa.offset, pb.offset),
			cmp.Compare(a.SectionName, b.SectionName), cmp.Compare(a.Name, b.Name))
	})
	if len(specs) == 0 {
		if info != nil && !info.hasCode() {
			// libbpf's bpf_object__open reads an object without code
			// (maps or BTF only) as one with no programs: there is
			// nothing to verify, and nothing wrong with the object.
			obj.Warnings = append(obj.Warnings, "the object holds no code: no programs to verify")
			return obj, nil
		}
		// libbpf opens it too: .text functions are subprograms, and an
		// object of subprograms alone has no program to load.
		obj.Warnings = append(obj.Warnings, "every function lives in .text: subprograms, no programs to verify (give a program type, --type, to verify the global functions as programs)")
		return obj, nil
	}

	target := newTargetBTF(opts.TargetBTF)
	guess := newGuesser(path, spec)
	var core *libbpfCORE
	if !opts.CiliumLinking && spec.Types != nil {
		core = newLibbpfCORE(spec.Types)
	}
	for _, ps := range specs {
		prog, warn := prepareProgram(ps, spec, maps, target, info, opts, guess, core)
		obj.Programs = append(obj.Programs, prog)
		obj.Warnings = append(obj.Warnings, warn...)
	}
	core.markOrderSensitive(obj.Programs)
	if err := resolveExtensionTargets(obj, opts); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return obj, nil
}

// hasUntypedSection reports whether some program section names no program
// type: the mark of objects loaded by iproute2, which takes the type from
// its command line. The .text functions of a text-only object are no such
// mark.
func hasUntypedSection(spec *ebpf.CollectionSpec) bool {
	for _, ps := range spec.Programs {
		if ps != nil && ps.Type == ebpf.UnspecifiedProgram && ps.SectionName != textSection {
			return true
		}
	}
	return false
}

// WithInstructions returns a copy of p that runs insns instead of p's
// instructions, with the source lines and BTF function info read afresh
// from insns' metadata, as [Open] reads them after linking. Tools that
// rewrite a linked program (mutation fuzzers, reducers) use it so that the
// verifier and the kernel see the same line and function records.
func (p *Program) WithInstructions(insns asm.Instructions) *Program {
	cp := *p
	// Another program: cilium/ebpf's relocation of p's is not its own.
	cp.CiliumRelocated = nil
	cp.Instructions = insns
	cp.Lines, cp.Funcs = lineAndFuncInfo(insns)
	cp.LocalTypes = relocatedLocalTypes(p.LocalTypes, insns)
	return &cp
}

// WithoutBTF returns a copy of p as libbpf loads it when the kernel
// refuses the object's BTF and the object does not need it
// (bpf_object__sanitize_and_load_btf: "BTF is optional, ignoring"): no
// prog_btf_fd, no func_info or line_info records, and so no global
// functions, no local type ids and no object types. Lines are kept for
// the source lines vercheck reports; the kernel's log shows none of them
// (reason is kept in BTFDropped).
func (p *Program) WithoutBTF(reason string) *Program {
	cp := *p
	cp.Funcs, cp.LocalTypes, cp.ObjectTypes = nil, nil, nil
	cp.BTFDropped = reason
	return &cp
}

// relocatedLocalTypes keeps the local types whose ids an instruction of
// insns still holds through its CO-RE relocation. An id the instructions
// only hold as a plain constant names whatever type the loader's BTF has
// at that id, which only the loader knows (cilium/ebpf renumbers the types
// it loads): such ids are no local types.
func relocatedLocalTypes(types map[uint32]btf.Type, insns asm.Instructions) map[uint32]btf.Type {
	var out map[uint32]btf.Type
	for i := range insns {
		id := uint32(insns[i].Constant)
		t, ok := types[id]
		if !ok || btf.CORERelocationMetadata(&insns[i]) == nil {
			continue
		}
		if out == nil {
			out = make(map[uint32]btf.Type)
		}
		out[id] = t
	}
	return out
}

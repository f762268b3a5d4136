package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/internal/gen"
	"github.com/vercheck/vercheck/internal/interp"
	"github.com/vercheck/vercheck/internal/mutate"
	"github.com/vercheck/vercheck/internal/oracle"
	"github.com/vercheck/vercheck/kfuncs"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/verifier"
)

// seed is a program both verifiers accept (or, with -rejected, both
// reject alike; with -self-check, vercheck accepts and the kernel cannot
// load), ready to be mutated.
type seed struct {
	// name is "object:program".
	name string
	obj  *loader.Object
	prog *loader.Program
	// code is prog's kernel-numbered instructions; asmIndex maps each of
	// its slots to its asm instruction (-1 for ld_imm64 second halves).
	code     []insn.Insn
	asmIndex []int
	// env is what the mutations know of the program besides its code:
	// the edges concrete runs placed, its object's
	// maps and kfunc calls.
	env mutate.Env
}

// candidate is a program that may become a seed.
type candidate struct {
	name string
	obj  *loader.Object
	prog *loader.Program
}

// seedStats says what became of the candidates.
type seedStats struct {
	unreadable, notAccepted, tooLarge, kernelNoLoad int
	// pruningDiffers counts the programs vercheck accepts only with
	// pruning (-self-check): findings among the seeds themselves.
	pruningDiffers int
	// differing names the seeds the two verifiers judged differently
	// (false accepts and rejects, other messages), with the class: the
	// seed pass's own findings, which a run reports rather than drops.
	differing []string
}

// candidates lists the programs of the objects under paths, then n
// generated programs (seeds genSeed, genSeed+1, ...). Objects the loader
// cannot read are counted, not fatal: corpus directories hold broken
// objects on purpose.
func candidates(paths []string, n int, genSeed uint64, st *seedStats) ([]candidate, error) {
	files, err := loader.FindObjects(paths)
	if err != nil {
		return nil, fmt.Errorf("seeds: %w", err)
	}
	var out []candidate
	for _, f := range files {
		obj, err := loader.Open(f, loader.Options{})
		if err != nil {
			st.unreadable++
			continue
		}
		for _, p := range obj.Programs {
			if p.Err == nil && p.Type != ebpf.UnspecifiedProgram {
				out = append(out, candidate{name: f + ":" + p.Name, obj: obj, prog: p})
			}
		}
	}
	for s := genSeed; s < genSeed+uint64(n); s++ {
		p, err := gen.Generate(s, gen.Config{})
		if err != nil {
			return nil, fmt.Errorf("seeds: %w", err)
		}
		out = append(out, candidate{name: fmt.Sprintf("gen:%d", s), obj: p.Object, prog: p.Prog})
	}
	return out, nil
}

// seedVerdict is the judgement of one candidate.
type seedVerdict struct {
	seed  *seed
	name  string
	class oracle.Class
	large bool
}

// judgeCandidate keeps c as a seed when it is at most maxInsns
// instructions long and both verifiers accept it, or, when rejected is
// set, both reject it with the same message: one mutation away from a
// rejected program are the programs nearest the edge of what the kernel
// accepts, where a check vercheck lacks shows as a false accept. With
// judging.SelfCheck, a program the kernel cannot load is kept when
// vercheck accepts it, with and without voluntary checkpoints: its
// mutants have vercheck's own search as their oracle.
func judgeCandidate(c candidate, maxInsns int, rejected bool, judging oracle.Options) seedVerdict {
	code, err := insn.FromAsm(c.prog.Instructions)
	if err != nil || len(code) > maxInsns {
		return seedVerdict{large: true}
	}
	o := oracle.Judge(c.obj, c.prog, judging)
	alike := o.Class == oracle.BothAccept || o.Class == oracle.InsnsDiffer || o.Class == oracle.XlatedDiffers || rejected && o.Class == oracle.BothReject ||
		judging.SelfCheck && o.Class == oracle.KernelNoLoad && o.Vercheck.Accepted
	if !alike {
		return seedVerdict{name: c.name, class: o.Class}
	}
	s := &seed{name: c.name, obj: c.obj, prog: c.prog, code: code, asmIndex: asmIndexes(c.prog.Instructions, len(code))}
	s.env = mutate.Env{ValueSizes: valueSizes(c.obj), Maps: mapInfos(c.obj), Kfuncs: kfuncCalls(c.obj), ProgArrays: progArrays(c.obj),
		Helpers: allowedHelpers(c.prog), MaySleep: maySleep(c.prog), ProgTypes: mutate.OtherProgTypes(mutate.ProgType{Type: c.prog.Type, Attach: c.prog.AttachType}),
		Funcs: funcInfos(c.prog)}
	s.env.Edges = mutate.FindEdges(code, mutate.Inputs(rand.New(rand.NewPCG(1, 1)), mapShapes(c.obj), contextOf(c.prog.Type)))
	return seedVerdict{seed: s, class: o.Class}
}

// contextOf returns the context shape of programs of type t for the
// concrete runs that place edges: the packet fields of XDP and of the
// types with direct packet access through __sk_buff, and the size of the
// other modelled contexts (up to maxEdgeContext bytes), so that accesses
// are placed at the context's end too.
func contextOf(t ebpf.ProgramType) mutate.Context {
	switch t {
	case ebpf.XDP:
		return mutate.XDPContext
	case ebpf.SchedCLS, ebpf.SchedACT, ebpf.CGroupSKB, ebpf.LWTIn, ebpf.LWTOut, ebpf.LWTXmit, ebpf.SkSKB:
		return mutate.SKBContext
	}
	if _, size := ctxaccess.Layout(t); size > 0 && size <= maxEdgeContext {
		return mutate.Context{Size: size}
	}
	return mutate.OtherContext
}

// maxEdgeContext is the largest context contextOf gives its real size:
// larger ones (a tracepoint's record limit, a syscall program's 64 KiB)
// have no edge a program reaches, and their random bytes would cost
// every concrete run.
const maxEdgeContext = 512

// maySleep reports whether a program of p's type and attach type may be
// loaded sleepable (the kernel's check in bpf_prog_load_check_attach and
// check_attach_btf_id): fentry, fexit, fmod_ret, iterators, LSM, uprobes
// (kprobe programs), struct_ops and syscall programs.
func maySleep(p *loader.Program) bool {
	switch p.Type {
	case ebpf.Tracing:
		return p.AttachType != ebpf.AttachTraceRawTp
	case ebpf.LSM, ebpf.Kprobe, ebpf.StructOps, ebpf.Syscall:
		return true
	}
	return false
}

// allowedHelpers returns the helpers a program of p's type may call on
// the running kernel's build.
func allowedHelpers(p *loader.Program) []int32 {
	b := verifier.RunningBuild()
	var out []int32
	for id := int32(1); id <= helpers.MaxID; id++ {
		if ok, _ := b.Allowed(p.Type, p.AttachType, helpers.Set{}, id); ok {
			out = append(out, id)
		}
	}
	return out
}

// count adds v to the statistics.
func (st *seedStats) count(v seedVerdict) {
	switch {
	case v.seed != nil:
	case v.large:
		st.tooLarge++
	case v.class == oracle.KernelNoLoad:
		st.kernelNoLoad++
	case v.class == oracle.PruningDiffers:
		st.pruningDiffers++
	default:
		st.notAccepted++
		if v.class != oracle.BothReject {
			st.differing = append(st.differing, fmt.Sprintf("%s (%s)", v.name, v.class))
		}
	}
}

// asmIndexes maps each of n kernel slots to the asm instruction starting
// there, or -1.
func asmIndexes(ins asm.Instructions, n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = -1
	}
	iter := ins.Iterate()
	for iter.Next() {
		idx[iter.Offset] = iter.Index
	}
	return idx
}

// mapShapes returns the key and value sizes of obj's maps, by map index,
// for the concrete runs.
func mapShapes(obj *loader.Object) []interp.Map {
	shapes := make([]interp.Map, len(obj.Maps))
	for i, m := range obj.Maps {
		if m != nil {
			shapes[i] = interp.Map{KeySize: int(m.KeySize), ValueSize: int(m.ValueSize), ReadOnly: m.ReadOnly}
		}
	}
	return shapes
}

// mapInfos describes obj's maps by map index for the map-definition
// operator: a zero MapInfo where the index names no map.
func mapInfos(obj *loader.Object) []mutate.MapInfo {
	infos := make([]mutate.MapInfo, len(obj.Maps))
	for i, m := range obj.Maps {
		if m != nil {
			infos[i] = mutate.MapInfo{Type: uint32(m.Type), MaxEntries: m.MaxEntries, Flags: m.Flags, Data: isGlobalData(m)}
			if m.ReadOnly && len(m.Contents) > 0 {
				infos[i].Rodata = m.Contents
			}
			if m.Spec != nil && m.Spec.Value != nil {
				infos[i].BTF, infos[i].KeySize = true, m.KeySize
				if s, ok := btf.UnderlyingType(m.Spec.Value).(*btf.Struct); ok {
					infos[i].ValueMembers = len(s.Members)
				}
			}
		}
	}
	return infos
}

// isGlobalData reports a map of a global data section (.data, .rodata,
// .bss, .kconfig and their named variants): its definition is the
// loader's, and a .bss has no initial contents to tell it by.
func isGlobalData(m *loader.Map) bool {
	return m.Contents != nil || strings.HasPrefix(m.Name, ".")
}

// object returns the seed's object as mutant m loads it: with the map
// definitions m changes (mutate.MapDefOperator, MapBTFOperator) and the
// read-only data it changes (RodataOperator), the seed's own otherwise.
// Both verifiers are given it, the kernel's maps being created from it.
func (s *seed) object(m mutate.Mutant) *loader.Object {
	if len(m.MapDefs) == 0 && len(m.MapBTFs) == 0 && len(m.DataEdits) == 0 {
		return s.obj
	}
	o := *s.obj
	o.Maps = slices.Clone(o.Maps)
	for _, d := range m.MapDefs {
		o.Maps[d.Index] = o.Maps[d.Index].WithDefinition(d.MaxEntries, d.Flags)
	}
	for _, d := range m.MapBTFs {
		o.Maps[d.Index] = withMapBTF(o.Maps[d.Index], d)
	}
	edited := map[int]bool{}
	for _, d := range m.DataEdits {
		if k := d.Index; !edited[k] {
			edited[k] = true
			o.Maps[k] = o.Maps[k].WithContents(mutate.ApplyDataEdits(o.Maps[k].Contents, k, m.DataEdits))
		}
	}
	return &o
}

// withMapBTF returns map m created as d says (mutate.MapBTFOperator): the
// types it changes are copies, so the seed's stay as they were.
func withMapBTF(m *loader.Map, d mutate.MapBTF) *loader.Map {
	t := m.Type
	if d.Type != 0 {
		t = ebpf.MapType(d.Type)
	}
	// The edits make new types in front of the object's, which they
	// share: a copy of the object's special structs (bpf_spin_lock,
	// bpf_rb_node...) in the loaded BTF would be no special struct to
	// the kernel, which finds them by name, the first of each.
	key, value := m.Spec.Key, m.Spec.Value
	if key != nil && d.Key != mutate.KeyKept {
		key = editedKey(key, d.Key, m.KeySize)
	}
	if d.Wrap != mutate.WrapNone {
		value = withMember(value, d.Member, func(t btf.Type) btf.Type { return wrapped(t, d.Wrap) })
	}
	return m.WithTypes(t, key, value)
}

// withMember returns value with member i of its struct (behind any
// typedefs and qualifiers) replaced by edit's result: the struct and the
// types in front of it are copied, the members' types are value's own.
func withMember(value btf.Type, i int, edit func(btf.Type) btf.Type) btf.Type {
	switch v := value.(type) {
	case *btf.Struct:
		if i >= len(v.Members) {
			return value
		}
		c := *v
		c.Members = slices.Clone(v.Members)
		c.Members[i].Type = edit(c.Members[i].Type)
		return &c
	case *btf.Typedef:
		c := *v
		c.Type = withMember(v.Type, i, edit)
		return &c
	case *btf.Const:
		c := *v
		c.Type = withMember(v.Type, i, edit)
		return &c
	case *btf.Volatile:
		c := *v
		c.Type = withMember(v.Type, i, edit)
		return &c
	}
	return value
}

// editedKey returns key, of size bytes, edited as e says.
func editedKey(key btf.Type, e mutate.KeyEdit, size uint32) btf.Type {
	switch e {
	case mutate.KeyTypedef:
		return wrapped(key, mutate.WrapTypedef)
	case mutate.KeyConst:
		return wrapped(key, mutate.WrapConst)
	case mutate.KeyVolatile:
		return wrapped(key, mutate.WrapVolatile)
	case mutate.KeyEnum:
		return &btf.Enum{Name: "fz_key", Size: size, Values: []btf.EnumValue{{Name: "FZ_KEY0"}}}
	case mutate.KeyStruct:
		return &btf.Struct{Name: "fz_key", Size: size, Members: []btf.Member{{Name: "k", Type: key}}}
	}
	return key
}

// wrapped returns t behind w.
func wrapped(t btf.Type, w mutate.Wrap) btf.Type {
	switch w {
	case mutate.WrapTypedef:
		return &btf.Typedef{Name: "fz_t", Type: t}
	case mutate.WrapConst:
		return &btf.Const{Type: t}
	case mutate.WrapVolatile:
		return &btf.Volatile{Type: t}
	}
	return t
}

// valueSizes returns the value sizes of obj's maps by map index, -1
// where the object has no map.
func valueSizes(obj *loader.Object) []int {
	sizes := make([]int, len(obj.Maps))
	for i, m := range obj.Maps {
		sizes[i] = -1
		if m != nil {
			sizes[i] = int(m.ValueSize)
		}
	}
	return sizes
}

// progArrays returns the indexes of obj's program array maps.
func progArrays(obj *loader.Object) []int32 {
	var out []int32
	for i, m := range obj.Maps {
		if m != nil && m.Type == ebpf.ProgramArray {
			out = append(out, int32(i))
		}
	}
	return out
}

// kfuncCalls returns the kfunc calls of obj's programs, for the kfunc
// mutation.
func kfuncCalls(obj *loader.Object) []insn.Insn {
	var out []insn.Insn
	for _, p := range obj.Programs {
		if p.Err != nil {
			continue
		}
		code, err := insn.FromAsm(p.Instructions)
		if err != nil {
			continue
		}
		for _, in := range code {
			if in.IsKfuncCall() {
				out = append(out, in)
			}
		}
	}
	return out
}

// kfuncsByType returns, for a program type, one call of each vmlinux kfunc
// that some seed's object calls and that the kfunc table lets the type
// call (kfuncs.Def.AllowedIn), in the order of the seeds. Kfuncs of
// modules (an fd_array index in off) and kfuncs the table does not know
// are left out.
func kfuncsByType(seeds []*seed) func(ebpf.ProgramType) []insn.Insn {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return func(ebpf.ProgramType) []insn.Insn { return nil }
	}
	var calls []insn.Insn
	var defs []kfuncs.Def
	seen := map[int32]bool{}
	for _, s := range seeds {
		for _, c := range s.env.Kfuncs {
			if c.Off != 0 || seen[c.Imm] {
				continue
			}
			seen[c.Imm] = true
			t, err := spec.TypeByID(btf.TypeID(c.Imm))
			if err != nil {
				continue
			}
			if def, ok := kfuncs.Lookup(t.TypeName()); ok {
				calls, defs = append(calls, c), append(defs, def)
			}
		}
	}
	byType := map[ebpf.ProgramType][]insn.Insn{}
	return func(pt ebpf.ProgramType) []insn.Insn {
		if out, ok := byType[pt]; ok {
			return out
		}
		var out []insn.Insn
		for k, def := range defs {
			if def.AllowedIn(pt) {
				out = append(out, calls[k])
			}
		}
		byType[pt] = out
		return out
	}
}

// errLostFunc is wrapped when a mutant no longer has a place for one of
// its seed's functions (two start at the same instruction, or one at the
// end).
var errLostFunc = errors.New("function start lost")

// program turns a mutant of s into a program for both verifiers: the
// mutant's instructions with the seed's source lines on the instructions
// they came from and the seed's function records on the instructions
// where the functions start now. A function start always gets a source
// line, since the kernel wants one there.
func (s *seed) program(m mutate.Mutant) (*loader.Program, error) {
	ins, err := gen.ToAsm(m.Insns)
	if err != nil {
		return nil, err
	}
	at := asmIndexes(ins, len(m.Insns))
	for slot, k := range at {
		if k < 0 || m.Origin[slot] < 0 {
			continue
		}
		old := s.oldAt(m.Origin[slot])
		if src := old.Source(); src != nil {
			ins[k] = ins[k].WithSource(src)
		}
		// An instruction kept as it was keeps its CO-RE relocation, so
		// that the type ids bpf_core_type_id_local wrote stay the local
		// types they name for both verifiers (the kernel's loader
		// relocates them again); a changed one is a plain constant.
		if relo := btf.CORERelocationMetadata(old); relo != nil && sameInsn(ins[k], old) {
			ins[k] = btf.WithCORERelocationMetadata(ins[k], relo)
		}
	}
	taken := map[int]bool{}
	nfunc := 0
	for slot, k := range s.asmIndex {
		if k < 0 {
			continue
		}
		old := s.prog.Instructions[k]
		fn := btf.FuncMetadata(&old)
		if fn == nil {
			continue
		}
		for _, d := range m.FuncBTFs {
			if d.Func == nfunc {
				fn = editedFunc(fn, d)
			}
		}
		nfunc++
		start := m.Target[slot]
		if start >= len(at) || at[start] < 0 || taken[start] {
			return nil, fmt.Errorf("function %s: %w", fn.Name, errLostFunc)
		}
		taken[start] = true
		nk := at[start]
		ins[nk] = btf.WithFuncMetadata(ins[nk], fn)
		if ins[nk].Source() == nil && old.Source() != nil {
			ins[nk] = ins[nk].WithSource(old.Source())
		}
	}
	p := s.prog.WithInstructions(ins)
	if m.AttachTo != "" {
		p.AttachTo = m.AttachTo
	}
	if m.ToggleSleepable {
		p.Flags ^= loader.FlagSleepable
	}
	p.Flags ^= m.ToggleFlags
	if pt := m.ProgType; pt != nil {
		if pt.Type != p.Type {
			p.AttachTo, p.Flags = "", 0
		}
		p.Type, p.AttachType = pt.Type, pt.Attach
	}
	return p, nil
}

// sameInsn reports whether a and b are the same instruction, whatever
// their metadata.
func sameInsn(a asm.Instruction, b *asm.Instruction) bool {
	return a.OpCode == b.OpCode && a.Dst == b.Dst && a.Src == b.Src && a.Offset == b.Offset && a.Constant == b.Constant
}

// oldAt returns the seed's asm instruction at kernel slot i.
func (s *seed) oldAt(i int) *asm.Instruction {
	if k := s.asmIndex[i]; k >= 0 {
		return &s.prog.Instructions[k]
	}
	return &asm.Instruction{}
}

// funcInfos describes p's functions for the function-BTF operator, in the
// order of its function info.
func funcInfos(p *loader.Program) []mutate.FuncInfo {
	var out []mutate.FuncInfo
	for i := range p.Instructions {
		fn := btf.FuncMetadata(&p.Instructions[i])
		if fn == nil {
			continue
		}
		fi := mutate.FuncInfo{}
		if proto, ok := fn.Type.(*btf.FuncProto); ok {
			fi.Params = len(proto.Params)
		}
		out = append(out, fi)
	}
	return out
}

// Types the function-BTF edits give parameters and returns
// (mutate.ParamTypes, mutate.ReturnTypes), by name.
var (
	fzU64     = &btf.Int{Name: "unsigned long long", Size: 8}
	fzU32     = &btf.Int{Name: "unsigned int", Size: 4}
	fzChar    = &btf.Int{Name: "char", Size: 1, Encoding: btf.Signed}
	fzStruct  = &btf.Struct{Name: "fz_s", Size: 16, Members: []btf.Member{{Name: "a", Type: fzU64}, {Name: "b", Type: fzU64, Offset: 64}}}
	fzBTFType = map[string]btf.Type{
		"u64": fzU64, "u32": fzU32, "u64 *": &btf.Pointer{Target: fzU64}, "void *": &btf.Pointer{Target: &btf.Void{}},
		"struct fz_s *": &btf.Pointer{Target: fzStruct}, "const char *": &btf.Pointer{Target: &btf.Const{Type: fzChar}},
		"void": &btf.Void{},
	}
)

// editedFunc returns a copy of fn edited as d says (mutate.FuncBTFOperator).
func editedFunc(fn *btf.Func, d mutate.FuncBTF) *btf.Func {
	c, ok := btf.Copy(fn).(*btf.Func)
	if !ok {
		return fn
	}
	proto, ok := c.Type.(*btf.FuncProto)
	if !ok {
		return fn
	}
	switch d.Edit {
	case mutate.FuncLinkage:
		if c.Linkage == btf.GlobalFunc {
			c.Linkage = btf.StaticFunc
		} else {
			c.Linkage = btf.GlobalFunc
		}
	case mutate.FuncParamType:
		if d.Param < len(proto.Params) {
			proto.Params[d.Param].Type = fzBTFType[mutate.ParamTypes[d.Variant]]
		}
	case mutate.FuncParamTag:
		if d.Param < len(proto.Params) {
			if len(c.ParamTags) != len(proto.Params) {
				c.ParamTags = make([][]string, len(proto.Params))
			}
			c.ParamTags[d.Param] = append(c.ParamTags[d.Param], mutate.ParamTags[d.Variant])
		}
	case mutate.FuncReturn:
		proto.Return = fzBTFType[mutate.ReturnTypes[d.Variant]]
	}
	return c
}

// attachTargetsByKind returns the attach targets of the seeds by program
// type and attach type, for the attach-target operator.
func attachTargetsByKind(seeds []*seed) map[mutate.ProgType][]string {
	out := map[mutate.ProgType][]string{}
	for _, s := range seeds {
		pt := mutate.ProgType{Type: s.prog.Type, Attach: s.prog.AttachType}
		if t := s.prog.AttachTo; t != "" && !slices.Contains(out[pt], t) {
			out[pt] = append(out[pt], t)
		}
	}
	return out
}

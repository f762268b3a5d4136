// Package kernel asks the running Linux kernel's verifier for its verdict on
// BPF programs. It is the oracle vercheck is measured against: each program of
// a [ebpf.CollectionSpec] is loaded on its own, with the verifier log at the
// stats level, and the verdict, the decisive log line and the statistics
// trailer are returned as a [Result].
//
// Loading needs bpf(BPF_PROG_LOAD), which in practice means root (or
// CAP_BPF) on Linux. Callers, tests above all, should call [Available] first
// and skip when it returns an error.
package kernel

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/vercheck/vercheck/loader"
)

// Log buffer sizes, the first try of each load: cilium/ebpf grows the
// buffer to the size the kernel reports (log_true_size) when a log does not
// fit, at the cost of a second load. The stats-only log of an accepted
// program is three lines, and a rejection adds a few more, so cilium/ebpf's
// smallest buffer (64 KiB) holds it. The branch-level log shows only the
// failing path, usually well under a mebibyte. The buffers are garbage
// once read: at 1 and 16 MiB a corpus run with --kernel allocated twice
// what vercheck's own verification does, and the collections that paced
// ran inside vercheck's measured verifications.
const (
	statsLogSize  = 64 << 10
	branchLogSize = 1 << 20
)

// releasePath holds the running kernel's release string (uname -r).
const releasePath = "/proc/sys/kernel/osrelease"

// Result is the kernel's verdict on one program.
type Result struct {
	// Program is the program's name in the collection (its function name).
	Program string
	// Accepted is true when the verifier accepted the program.
	Accepted bool
	// NotLoaded is true when the kernel gave no verdict. Either the program
	// never reached the verifier (a map or BTF could not be created), or the
	// kernel refused it before verifying anything: a program type this
	// build does not permit (EPERM for some iterator, LSM or fentry loads),
	// an attach target it cannot set up (ENOENT, ESRCH, EINVAL). Such a
	// load leaves a log with no message, at most a "processed 0 insns"
	// trailer. It is not a rejection: there is nothing to compare a
	// verdict with. Err says why and Errno holds the errno, if any.
	NotLoaded bool
	// Errno is the error number of a rejection, or of a load that was not
	// a verdict (0 when the failure had none, such as a missing map in the
	// spec).
	Errno syscall.Errno
	// Err is the decisive line of the verifier log for a rejection (the last
	// line before the statistics trailer), or why the kernel could not load
	// the program.
	Err string
	// Log is the verifier log: the stats-level log for an accepted program,
	// the branch-level log (the failing path) for a rejected one.
	Log string
	// InsnProcessed, MaxStatesPerInsn, TotalStates and PeakStates are the
	// kernel's "processed ... insns" figures.
	InsnProcessed, MaxStatesPerInsn, TotalStates, PeakStates int
	// VerificationTime is the kernel's own timing of the check.
	VerificationTime time.Duration
	// XlatedInsns is an accepted program's length after the kernel's
	// rewrites (xlated_prog_len in instructions), 0 when unknown.
	XlatedInsns int
	// StackDepth is the kernel's "stack depth" line, one figure per
	// subprogram joined by "+".
	StackDepth string
	// Release is the running kernel's release, as uname -r prints it.
	Release string
}

// Release returns the running kernel's release string (uname -r).
func Release() (string, error) {
	b, err := os.ReadFile(releasePath)
	if err != nil {
		return "", fmt.Errorf("kernel release: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Available reports whether programs can be loaded into the running kernel by
// loading a trivial socket filter. It returns nil when they can, and an error
// saying why not otherwise (not Linux, no privileges, bpf() disabled).
func Available() error {
	spec := &ebpf.ProgramSpec{
		Name: "vercheck_probe",
		Type: ebpf.SocketFilter,
		Instructions: asm.Instructions{
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		},
		License: "GPL",
	}
	prog, err := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{LogDisabled: true})
	if err != nil {
		return fmt.Errorf("bpf(BPF_PROG_LOAD) of a trivial socket filter failed: %w", err)
	}
	return prog.Close()
}

// LoadCollectionSpec loads every program of spec into the kernel, one at a
// time and in name order, and returns one [Result] per program. Each program
// gets fresh copies of the maps it references, created as the spec declares
// them. A program the kernel could not load is reported with NotLoaded rather
// than as an error; the error return is for failures that concern the whole
// spec (such as the kernel release being unreadable). Maps and programs are
// loaded as cilium/ebpf loads a spec (see [KeyValueBTF]).
func LoadCollectionSpec(spec *ebpf.CollectionSpec) ([]Result, error) {
	return Options{MapBTF: KeyValueBTF}.LoadCollectionSpec(spec)
}

// LoadCollectionSpec is [LoadCollectionSpec] with the options' map BTF:
// under libbpf's, a program whose verdict depends on it is prepared by the
// loader package from the whole spec and loaded as [LoadObject] loads it.
func (o Options) LoadCollectionSpec(spec *ebpf.CollectionSpec) ([]Result, error) {
	release, err := Release()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(spec.Programs))
	for name, p := range spec.Programs {
		if p.Type == ebpf.UnspecifiedProgram {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)

	results := make([]Result, 0, len(names))
	for _, name := range names {
		r := o.loadOne(spec, name)
		r.Release = release
		results = append(results, r)
	}
	return results, nil
}

// loadOne loads program name of spec at the stats level and, when the
// verifier rejects it, once more at the branch level for a full log.
func (o Options) loadOne(spec *ebpf.CollectionSpec, name string) Result {
	res := Result{Program: name}
	sub := single(spec, name)
	if needsLoaderPath(sub) || o.MapBTF == ObjectBTF && (specNeedsObjectBTF(sub) || specDropsBTF(spec) || specLinksOtherwise(sub)) {
		return o.loadThroughLoader(spec, name)
	}

	return judge(res, !o.VerdictOnly, func(level ebpf.LogLevel, size uint32) (loaded, error) {
		return load(sub, name, level, size)
	})
}

// judge loads a program through loadAt at the stats level and fills res
// with the verdict and figures; with branchLog, a rejected program is
// loaded once more at the branch level for its full log. A failure that
// carries no verifier message is no verdict: the program was not loaded
// (see [Result.NotLoaded]).
func judge(res Result, branchLog bool, loadAt loadFunc) Result {
	out, err := loadAt(ebpf.LogLevelStats, statsLogSize)
	log := out.log
	if err != nil {
		var ve *ebpf.VerifierError
		if !errors.As(err, &ve) {
			return notLoaded(res, err)
		}
		log = strings.Join(ve.Log, "\n")
		if !isVerdict(log) || errors.Is(err, unix.ENOMEM) && !isPatchRangeRefusal(log) {
			// The kernel refused the program before verifying it: on
			// some builds an iterator program ends with EPERM and a log
			// of nothing but "processed 0 insns". Or it ran out of
			// memory on the way (a state's reference array past what
			// kmalloc gives, or an order the page allocator fails under
			// fragmentation): the log then ends with the statistics of
			// where it stopped, after lines printed before verification
			// ("Global function ... doesn't return scalar") that read
			// like a message, and another machine goes further.
			res.Log = log
			return notLoaded(res, err)
		}
	}
	if ferr := fillStats(&res, log); ferr != nil {
		return notLoaded(res, ferr)
	}
	res.Log = log
	if err == nil {
		res.Accepted = true
		res.XlatedInsns = out.xlated
		return res
	}
	res.Err = DecisiveLine(log)
	// The errno of a rejection is what a loader branches on.
	if !errors.As(err, &res.Errno) {
		res.Errno = maskedErrno(log, res.Err)
	}
	if !branchLog {
		return res
	}
	_, berr := loadAt(ebpf.LogLevelBranch|ebpf.LogLevelStats, branchLogSize)
	var ve *ebpf.VerifierError
	if errors.As(berr, &ve) && len(ve.Log) > 0 {
		res.Log = strings.Join(ve.Log, "\n")
	}
	return res
}

// isPatchRangeRefusal reports the one ENOMEM that is a verdict: a rewrite
// after the walk that would push a jump offset past 16 bits
// (bpf_patch_insn_data), which every machine refuses alike.
func isPatchRangeRefusal(log string) bool {
	return strings.HasSuffix(DecisiveLine(log), "cannot be patched due to 16-bit range")
}

// maskedErrno is the errno of a rejection cilium/ebpf reports without
// one: a call of the CO-RE poison helper or of a kfunc it could not
// resolve (EINVAL from check_helper_call), a load of the poisoned
// ld_imm64 (EACCES from check_mem_access) become its own errors.
func maskedErrno(log, msg string) syscall.Errno {
	switch {
	case strings.HasPrefix(msg, "invalid func unknown#"):
		return syscall.EINVAL
	case strings.Contains(log, fmt.Sprintf("r10 = 0x%x\n", btf.COREBadRelocationSentinel)) && strings.Contains(msg, "invalid mem access"):
		return syscall.EACCES
	}
	return 0
}

// isVerdict reports whether the log of a failed load holds a verifier
// rejection: a statistics trailer and a message that explains it.
func isVerdict(log string) bool {
	if _, err := ParseStats(log); err != nil {
		return false
	}
	return DecisiveLine(log) != ""
}

// notLoaded marks res as a load the kernel gave no verdict on, with the
// errno (by name, as strace prints it) and the loader's error.
func notLoaded(res Result, err error) Result {
	res.NotLoaded = true
	reason := err.Error()
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		// The log is kept in res.Log; the error would repeat its tail.
		reason = ve.Cause.Error()
	}
	// cilium/ebpf's guess for any EPERM; here a program type this build
	// refuses is the usual reason, and the guess misleads.
	reason = strings.TrimSuffix(reason, " (MEMLOCK may be too low, consider rlimit.RemoveMemlock)")
	var errno syscall.Errno
	if errors.As(err, &errno) {
		res.Errno = errno
		res.Err = fmt.Sprintf("kernel could not load (%s): %s", unix.ErrnoName(errno), reason)
		return res
	}
	res.Err = "kernel could not load: " + reason
	return res
}

// fillStats copies the statistics trailer of log into res.
func fillStats(res *Result, log string) error {
	s, err := ParseStats(log)
	if err != nil {
		return err
	}
	res.InsnProcessed = s.InsnProcessed
	res.MaxStatesPerInsn = s.MaxStatesPerInsn
	res.TotalStates = s.TotalStates
	res.PeakStates = s.PeakStates
	res.VerificationTime = s.VerificationTime
	res.StackDepth = s.StackDepth
	return nil
}

// load creates the collection sub (holding the one program name) with the
// given log level and returns the verifier log of a successful load. A failed
// load returns the loader's error, which wraps an [ebpf.VerifierError] when
// the kernel produced a log.
func load(sub *ebpf.CollectionSpec, name string, level ebpf.LogLevel, size uint32) (loaded, error) {
	coll, err := ebpf.NewCollectionWithOptions(sub, ebpf.CollectionOptions{
		Programs: ebpf.ProgramOptions{LogLevel: level, LogSizeStart: size},
	})
	if err != nil {
		return loaded{}, fmt.Errorf("load %s: %w", name, withLostLog(sub.Programs[name], err, level, size))
	}
	defer coll.Close()
	prog, ok := coll.Programs[name]
	if !ok {
		return loaded{}, fmt.Errorf("load %s: program missing from collection", name)
	}
	return loadedProgram(prog), nil
}

// loaded is what an accepted load gives: the verifier log and the
// rewritten program's length.
type loaded struct {
	log    string
	xlated int
}

// loadedProgram reads an accepted program's log and xlated length.
func loadedProgram(p *ebpf.Program) loaded {
	out := loaded{log: strings.TrimSpace(p.VerifierLog)}
	if info, err := p.Info(); err == nil {
		if n, err := info.TranslatedSize(); err == nil {
			out.xlated = n / asm.InstructionSize
		}
	}
	return out
}

// single returns a copy of spec holding only program name, the maps it
// references and the variables living in those maps. Program arrays lose
// their static contents, since the programs they name are not loaded, and
// pinning is switched off so that nothing touches bpffs.
func single(spec *ebpf.CollectionSpec, name string) *ebpf.CollectionSpec {
	cp := spec.Copy()
	prog := cp.Programs[name]
	cp.Programs = map[string]*ebpf.ProgramSpec{name: prog}

	used := make(map[string]bool)
	for _, ins := range prog.Instructions {
		if ref := ins.Reference(); ref != "" && ins.IsLoadFromMap() {
			used[ref] = true
		}
	}
	for mname, m := range cp.Maps {
		if !used[mname] {
			delete(cp.Maps, mname)
			continue
		}
		m.Pinning = ebpf.PinNone
		if m.Type == ebpf.ProgramArray {
			m.Contents = nil
		}
	}
	for vname, v := range cp.Variables {
		if !used[v.SectionName] {
			delete(cp.Variables, vname)
		}
	}
	return cp
}

// needsLoaderPath reports whether the program of sub needs what
// cilium/ebpf's loader does not do: encode what its encoding drops or
// refuses (address-space casts, placeholder helper numbers), place the
// arena's globals in the arena map, map the arena for a user address (see
// [LoadObject]'s path, which does all of it).
func needsLoaderPath(sub *ebpf.CollectionSpec) bool {
	for _, p := range sub.Programs {
		if needsOwnEncoding(p) {
			return true
		}
	}
	for _, m := range sub.Maps {
		if m.Type == ebpf.Arena || m.Name == arenaSection {
			return true
		}
	}
	return false
}

// arenaSection is the section of the arena's globals, which the loader
// package gives the arena map's place.
const arenaSection = ".addr_space.1"

// loadThroughLoader loads program name of spec the way [LoadObject]
// does: prepared by the loader package from the whole spec.
func (o Options) loadThroughLoader(spec *ebpf.CollectionSpec, name string) Result {
	res := Result{Program: name}
	obj, err := loader.FromCollectionSpec("", spec, loader.Options{CiliumLinking: o.MapBTF == KeyValueBTF})
	if err != nil {
		return notLoaded(res, err)
	}
	for _, p := range obj.Programs {
		if p.Name == name {
			return o.loadProgram(obj, p, !o.VerdictOnly)
		}
	}
	return notLoaded(res, fmt.Errorf("program %s missing from the prepared object", name))
}

// specLinksOtherwise reports whether libbpf links sub's program into
// other instructions than cilium/ebpf, which would load it here (see
// loader.LibbpfLinksOtherwise).
func specLinksOtherwise(sub *ebpf.CollectionSpec) bool {
	for _, p := range sub.Programs {
		if loader.LibbpfLinksOtherwise(sub, p) {
			return true
		}
	}
	return false
}

// specNeedsObjectBTF is needsObjectBTF for the one program of sub: a
// bpf_core_type_id_local relocation or a call of bpf_obj_new, a map whose value holds a graph
// root or a kptr, one with program access flags (progAccessFlagged), or
// one whose type refuses a field of its value (fieldRefusedByType).
func specNeedsObjectBTF(sub *ebpf.CollectionSpec) bool {
	for _, p := range sub.Programs {
		if callsObjNew(p.Instructions) {
			return true
		}
		for i := range p.Instructions {
			if relo := btf.CORERelocationMetadata(&p.Instructions[i]); relo != nil {
				if _, ok := loader.LocalTypeID(relo); ok {
					return true
				}
			}
		}
	}
	for _, m := range sub.Maps {
		if specHoldsObjectBTFField(m) || accessFlaggedValue(m.Value, m.Flags) || specFieldRefusedByType(m) {
			return true
		}
	}
	return false
}

// specHoldsObjectBTFField is mapHoldsObjectBTFField for a map spec.
func specHoldsObjectBTFField(m *ebpf.MapSpec) bool {
	if m.InnerMap != nil && specHoldsObjectBTFField(m.InnerMap) {
		return true
	}
	return m.Value != nil && holdsObjectBTFField(m.Value, map[btf.Type]bool{})
}

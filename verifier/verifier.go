package verifier

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/ctxaccess"
	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/profile"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
	"github.com/vercheck/vercheck/why"
)

// Checkpoint heuristics that live outside the prune policy.
const (
	// maxJmpHistory forces a checkpoint when a path has gone through this
	// many jump points without one, so the history precision tracking
	// walks stays short (the kernel's jmp_history_cnt > 40).
	maxJmpHistory = 40
	// timeCheckEvery is how many processed instructions pass between two
	// looks at the clock; the first look is at the first instruction, so
	// a limit already spent stops even a short program.
	timeCheckEvery = 4096
)

// pending is a branch waiting to be explored: a state and where it resumes.
type pending struct {
	st       *states.State
	insn     int
	prevInsn int
	// pathLen is the length of the recorded path when it was pushed
	// (Options.Why), the prefix it resumes from.
	pathLen int
	// logPos is the log's length when the branch was pushed: a level-1
	// log rewinds to it when the branch is popped (push_stack's log_pos).
	logPos int
}

// env is the verification of one program (the kernel's bpf_verifier_env,
// without the parts that are not ours).
type env struct {
	// ext is the function an Extension program replaces (extension.go),
	// nil for other programs.
	ext  *loader.ExtensionTarget
	prog []insn.Insn
	cfg  *insn.CFG
	lp   *loader.Program
	// globalSubprogs caches isGlobalSubprog's answers, per subprogram.
	globalSubprogs []bool
	maps           []*loader.Map
	progType       ebpf.ProgramType
	attach         ebpf.AttachType
	opts           Options
	policy         prune.Policy
	// build is the target kernel's build (Options.Kernel, the running
	// kernel's by default): which helpers it offers.
	build helpers.Build
	// allowedHelpers is the set of helpers the program may call, made at
	// its first helper call (helperAllowed).
	allowedHelpers allowedHelperSet

	pool  *states.Pool
	store *prune.Store
	eq    states.EqualEnv
	// everyLevelLine is the last line logged so far that the kernel logs
	// at every log level (the main function's prototype warning): the
	// decisive line of a rejection without a message (DecisiveLine).
	everyLevelLine string

	cur      *states.State
	stack    []pending
	insnIdx  int
	prevIdx  int
	idGen    uint32
	deadline time.Time

	insnProcessed int
	// limitCheckAt is the next value of insnProcessed at which the
	// complexity limit or the clock may stop the walk (see
	// checkWalkLimits): below it the walk skips both tests.
	limitCheckAt  int
	jmpsProcessed int
	// seen marks the instructions a path reached (the kernel's
	// insn_aux_data.seen, sanitize_mark_insn_seen): the others are dead
	// code the kernel removes after verification (deadcode.go).
	seen      []bool
	prevJmps  int
	prevInsns int

	stackDepth []int
	// fastcall holds the bpf_fastcall patterns (fastcall.go).
	fastcall fastcallState
	// staticProtos is the log's view of static functions' prototypes
	// (staticargs.go).
	staticProtos staticProtos
	// asyncCallback marks the subprograms registered as asynchronous
	// callbacks (bpf_timer_set_callback), roots of the stack-depth walk.
	asyncCallback []bool
	// callbackSubprog marks the subprograms entered as callbacks,
	// synchronous or not (the kernel's is_cb): they may not throw.
	callbackSubprog []bool
	// excCbStart is the first instruction of the program's exception
	// callback, 0 for none; excCb is its subprogram once the CFG is built
	// (the kernel's exception_callback_subprog).
	excCbStart, excCb int
	// auxPtr remembers the pointer type each load/store insn was first
	// checked with ("same insn cannot be used with different pointers").
	auxPtr []auxPtrType
	// mayGotoSeen holds the may_goto instructions some path reached.
	mayGotoSeen insnSet
	// objCalls holds the type each call of a kfunc the kernel rewrites
	// with the object's record was first checked with (objcall.go).
	objCalls map[int]objCallAux
	// loopInline is the bpf_loop inlining verdict of each bpf_loop call
	// instruction seen (callback.go).
	loopInline map[int]loopInlineState
	// tailCalls is what every tail call instruction was reached with
	// (tailcall.go).
	tailCalls tailCallAux
	// mapCalls is the map each bpf_map_lookup_elem call was reached
	// with, percpuAllocCalls the bpf_per_cpu_ptr/bpf_this_cpu_ptr calls
	// given a per-CPU object, and seenDirectWrite whether the program
	// writes packet data directly: what the rewrites after the walk
	// depend on (rewritelen.go).
	mapCalls         []int32
	percpuAllocCalls map[int]bool
	seenDirectWrite  bool
	// xlated is the rewritten program's length (Stats.XlatedInsns,
	// rewrite.go).
	xlated int
	// encodingOK holds the instructions whose encoding (fields, register
	// numbers) step has already checked.
	encodingOK insnSet
	// sliceBufs is set once some path took a dynptr slice with a stack
	// buffer: until then no stack write can end one (slicebuf.go).
	sliceBufs bool

	// records caches the special fields of each map's value (locks.go).
	records map[*loader.Map]*mapRecord
	// local holds the program types BTF pointers point to (localobj.go).
	local localTypes
	// ksyms holds what each ld_imm64 of a kernel BTF object loads, by
	// instruction (ksym.go).
	ksyms map[int]ksymVar
	// usedMaps are the distinct maps the program's ld_imm64s name, in
	// the order they are first named (the kernel's env->used_maps).
	usedMaps []*loader.Map
	// arena is the arena map the program names, if any (the kernel's
	// prog->aux->arena, see arena.go).
	arena *loader.Map
	// cgroupStorage is the cgroup storage map of each kind (shared,
	// per-CPU) the program names, as bpf_cgroup_storage_assign records
	// it in prog->aux.
	cgroupStorage [2]*loader.Map

	ctxCheck ctxaccess.Func
	ctxSize  int

	log logger
	// stateBytes approximates the memory of every checkpoint stored so
	// far (evicted ones included), for Options.MaxStateBytes.
	stateBytes int64
	// cleanMasks are the live stack slots, per frame, of the stored state
	// being cleaned by cleanLiveStates, and aliveFn the AliveSlots answer
	// from them (built once).
	cleanMasks []uint64
	aliveFn    func(frame, insn int) uint64
	// stackLive is the stack liveness analysis fed by the walk.
	stackLive stackLiveness
	// subprog is the subprogram being verified (0 = main).
	subprog int
	// globals tracks the lazy verification of global subprograms.
	globals globalState
	hits    int
	misses  int
	evicted int
	// prec is precision tracking and the SCC back-edge bookkeeping
	// (precision.go, scc.go).
	prec precision
	// prof records the profile when Options.Profile is set; nil
	// otherwise, when its hooks do nothing.
	prof *profile.Recorder
	// path records the current path when Options.Why is set; nil
	// otherwise.
	path *pathRecorder
}

// Verify checks one program of an object. It never panics: an internal
// failure becomes a Result whose Err wraps ErrInternal. A program that
// libbpf and cilium/ebpf relocate differently (loader.Program's
// CiliumRelocated) is accepted only when both linkings are.
func Verify(obj *loader.Object, prog *loader.Program, opts Options) *Result {
	res := verifyRelocated(obj, prog, opts)
	if alt := prog.CiliumRelocated; alt != nil && res.Accepted {
		// libbpf and cilium/ebpf link the program differently (CO-RE
		// relocations, kfunc addresses): an accept must hold for both,
		// whichever loads it.
		if r := verifyRelocated(obj, alt, opts); !r.Accepted {
			r.Err = fmt.Errorf("as cilium/ebpf links the program (libbpf's linking is accepted): %w", r.Err)
			r.Stats.Duration += res.Stats.Duration
			return r
		}
	}
	return res
}

// verifyRelocated verifies prog as the loader relocated it.
func verifyRelocated(obj *loader.Object, prog *loader.Program, opts Options) (res *Result) {
	start := time.Now()
	res = &Result{Object: obj.Path, Program: prog.Name, Section: prog.Section, Type: prog.Type}
	var e *env
	defer func() {
		if p := recover(); p != nil {
			res.Accepted = false
			res.Err = fmt.Errorf("%w: panic: %v\n%s", ErrInternal, p, debug.Stack())
			if e != nil && e.pool != nil {
				// The pool's blocks live outside the Go heap: give
				// them back, and the pool to the collector.
				e.pool.Abandon()
				e.pool = nil
			}
		}
		if !states.AbsentSlotIntact() {
			// Some write went through a packed state's unstored slot:
			// every packed stack read wrong since, so no verdict.
			res.Accepted = false
			res.Err = fmt.Errorf("%w: a packed state's never-written stack slot was written", ErrInternal)
		}
		if !states.AbsentRegIntact() {
			// The same for a register a packed state left out.
			res.Accepted = false
			res.Err = fmt.Errorf("%w: a packed state's left-out NotInit register was written", ErrInternal)
		}
		res.Stats.Duration = time.Since(start)
	}()
	if prog.Err != nil {
		if re := loaderRefusal(prog.Err); re != nil {
			res.Err = re
		} else {
			res.Err = fmt.Errorf("%w: %v", ErrUnsupported, prog.Err)
		}
		return res
	}
	if opts.MapBTF.sharedWithProgram() {
		// libbpf loads the program with the object's BTF, and its
		// bpf_obj_new type ids are the object's.
		prog = prog.WithObjectTypeIDs()
	}
	code, err := prog.Code()
	if err != nil {
		re := &RejectError{Msg: err.Error()}
		res.Err = re
		if opts.Why {
			res.Why = why.Build(why.Input{Err: why.Error{Insn: re.Insn, Msg: re.Msg}})
		}
		return res
	}
	e = newEnv(obj, prog, code, opts)
	if reason := e.libbpfDropsBTF(); reason != "" {
		e.recyclePool()
		e = newEnv(obj, prog.WithoutBTF(reason), code, opts)
	}
	if err := e.mapCreateError(); err != nil {
		e.recyclePool()
		res.Err = err
		return res
	}
	err = e.run()
	var re *RejectError
	if errors.As(err, &re) && re.Msg == "" {
		re.preceding = e.everyLevelLine
	}
	if err == nil {
		// The rewrites after verification (optimize_bpf_loop, then
		// do_misc_fixups) give some subprograms hidden stack slots, and
		// the kernel reports the grown depths.
		e.addLoopInlineStack()
		e.addMayGotoStack()
	}
	res.Stats.InsnProcessed = e.insnProcessed
	if e.store != nil {
		st := e.store.Stats()
		res.Stats.MaxStatesPerInsn = st.MaxStatesPerInsn
		res.Stats.TotalStates = st.TotalStates
		res.Stats.PeakStates = st.PeakStates
	}
	res.Why = e.explain(err)
	e.release()
	res.Stats.StackDepth = e.statsStackDepths(err == nil)
	res.Stats.XlatedInsns = e.xlated
	res.Stats.Hits, res.Stats.Misses, res.Stats.Evicted = e.hits, e.misses, e.evicted
	e.log.rejected(err)
	e.log.stats(time.Since(start), res.Stats.StackDepth, e.insnProcessed, statsFigures{res.Stats.MaxStatesPerInsn, res.Stats.TotalStates, res.Stats.PeakStates})
	res.Log = e.log.String()
	res.LogTruncated = e.log.truncated()
	res.Profile = e.buildProfile()
	if err != nil {
		var re *RejectError
		if errors.As(err, &re) {
			re.Line = lineAt(prog, re.Insn)
		}
		res.Err = err
		return res
	}
	res.Accepted = true
	return res
}

// statsStackDepths is what the stats line lists: the stack depth of each
// subprogram the kernel still has when it prints it. The passes after an
// accepted verification drop the subprograms no path reached
// (opt_remove_dead_code: a callback only dead code passes, a function
// only dead code calls) and add a hidden one, of no stack, for the
// default exception callback of a program that may throw without
// declaring its own (do_misc_fixups). Nil when the program was refused
// before its stack depths existed.
func (e *env) statsStackDepths(accepted bool) []int {
	if !accepted || e.stackDepth == nil {
		return e.stackDepth
	}
	depths := make([]int, 0, len(e.stackDepth)+1)
	for i, depth := range e.stackDepth {
		sp := e.cfg.Subprogs[i]
		if slices.Contains(e.seen[sp.Start:sp.End], true) {
			depths = append(depths, depth)
		}
	}
	if e.excCb == 0 && e.seenThrow() {
		depths = append(depths, 0)
	}
	return depths
}

// seenThrow is the kernel's seen_exception: some path called bpf_throw.
func (e *env) seenThrow() bool {
	for i, in := range e.prog {
		if e.seen[i] && isThrowCall(in) {
			return true
		}
	}
	return false
}

// newEnv prepares the verification of one decoded program.
func newEnv(obj *loader.Object, prog *loader.Program, code []insn.Insn, opts Options) *env {
	e := &env{prog: code, lp: prog, maps: append([]*loader.Map(nil), obj.Maps...), progType: prog.Type, attach: loadAttachType(prog.Type, prog.AttachType), opts: opts}
	if opts.Kernel != nil {
		e.build = *opts.Kernel
	} else {
		e.build = RunningBuild()
	}
	e.encodingOK = newInsnSet(len(code))
	e.mayGotoSeen = newInsnSet(len(code))
	e.log.level = opts.LogLevel
	e.log.printer.Map = e.mapInfo
	e.log.printer.OuterMap = e.outerMapInfo
	if opts.Policy != nil {
		e.policy = *opts.Policy
	} else {
		e.policy = prune.DefaultPolicy()
	}
	return e
}

// loadAttachType is the expected attach type the kernel verifies a
// program with: bpf_prog_load_fixup_attach_type gives the program types
// that had none before expected_attach_type existed their old hook when
// the loader passes 0 (cgroup sock programs BPF_CGROUP_INET_SOCK_CREATE,
// whose context fields depend on it, sk_reuseport ones
// BPF_SK_REUSEPORT_SELECT).
func loadAttachType(pt ebpf.ProgramType, at ebpf.AttachType) ebpf.AttachType {
	if at != 0 {
		return at
	}
	switch pt {
	case ebpf.CGroupSock:
		return ebpf.AttachCGroupInetSockCreate
	case ebpf.SkReuseport:
		return ebpf.AttachSkReuseportSelect
	}
	return at
}

// objNameLen is BPF_OBJ_NAME_LEN: the kernel keeps a map's name in that
// many bytes, its NUL included.
const objNameLen = 16

// kernelObjName is the name the kernel keeps for an object named name.
func kernelObjName(name string) string {
	if len(name) >= objNameLen {
		return name[:objNameLen-1]
	}
	return name
}

// release gives every state back for reuse by later verifications.
func (e *env) release() {
	if e.store != nil {
		e.store.Release()
		e.store.Recycle()
	}
	e.recyclePool()
}

// run validates the program and walks it.
func (e *env) run() error {
	if len(e.prog) > MaxProcessedInsns {
		// The kernel refuses such a program before verifying it (E2BIG).
		return &RejectError{Msg: fmt.Sprintf("program has %d instructions, more than the %d a program may have", len(e.prog), MaxProcessedInsns), kind: ErrComplexityLimit, errno: syscall.E2BIG}
	}
	if err := e.checkLoadAttachType(); err != nil {
		return err
	}
	if err := e.checkKfuncDecls(); err != nil {
		return err
	}
	if err := e.checkObjectBTF(); err != nil {
		return err
	}
	if err := e.checkExceptionCallback(); err != nil {
		return err
	}
	e.log.subprogs(e)
	if err := e.resolveExtension(); err != nil {
		return err
	}
	// The map and BTF id of each pseudo ld_imm64 are resolved in the
	// analysis's resolve_pseudo_ldimm64 pass, before the CFG checks; the
	// resolution's own error is vercheck's (a rejection or unsupported).
	var resolveErr error
	resolve := func(i int) error {
		resolveErr = e.resolveLdImm64(i)
		return resolveErr
	}
	cfg, err := insn.AnalyzeWith(e.prog, insn.Options{HelperArgs: e.helperArgCount, KfuncArgs: e.kfuncArgCount,
		KfuncKind: kfuncKind, FuncInfo: e.funcInfoStarts(), LineInfo: e.lineInfoInsns(), ScalarReturns: e.funcScalarReturns(), ResolveLdImm64: resolve, ExceptionCallback: e.excCbStart,
		CallbackSCC: !e.opts.MissingFixes.Has(stablefix.CallbackLoopSCC)})
	if resolveErr != nil {
		return resolveErr
	}
	if err != nil {
		return insnReject(err)
	}
	e.cfg = cfg
	e.markExceptionCallback()
	if err := e.checkProgFlags(); err != nil {
		return err
	}
	e.ctxCheck, e.ctxSize = ctxaccess.Layout(e.progType)
	if e.ctxCheck == nil {
		if e.ctxCheck, e.ctxSize, err = e.tracingCtxLayout(); err != nil {
			return err
		}
	}
	e.log.printer.BTFName = e.btfNameOf
	e.log.printer.DynptrType = func(aux uint32) string { return dynptrType(aux).String() }
	if e.ctxCheck == nil {
		return e.unsupported(0, "program type %s", e.progType)
	}
	e.stackDepth = make([]int, len(cfg.Subprogs))
	e.markFastcallPatterns()
	e.auxPtr = make([]auxPtrType, len(e.prog))
	e.seen = make([]bool, len(e.prog))
	e.pool = statePools.Get().(*states.Pool)
	e.store = prune.NewStore(len(e.prog), e.policy, e.pool)
	e.eq.LiveRegs = cfg.LiveRegsBefore
	e.eq.PktMarksAsRanges = e.opts.MissingFixes.Has(stablefix.PktRegsafe)
	e.eq.LoopUnreadSafe = !e.opts.MissingFixes.Has(stablefix.LoopUnreadSafe)
	if e.opts.Profile {
		e.prof = profile.NewRecorder(cfg)
	}
	if e.opts.Why {
		e.path = &pathRecorder{}
	}
	if e.opts.Timeout > 0 {
		e.deadline = time.Now().Add(e.opts.Timeout)
	}
	e.log.preamble(e)
	if err := e.checkProgram(); err != nil {
		return err
	}
	if err := e.checkZeroKfuncCalls(); err != nil {
		return err
	}
	return e.rewriteProgram()
}

// noteCgroupStorage is __add_used_map's bpf_cgroup_storage_assign: a
// program may name one cgroup storage map of each kind (shared and
// per-CPU), the one its cgroup's storage is allocated for, however many
// instructions name it.
func (e *env) noteCgroupStorage(i int, m *loader.Map) error {
	kind := 0
	switch m.Type {
	case ebpf.CGroupStorage:
	case ebpf.PerCPUCGroupStorage:
		kind = 1
	default:
		return nil
	}
	if e.cgroupStorage[kind] != nil && e.cgroupStorage[kind] != m {
		return &RejectError{Insn: i, Msg: "only one cgroup storage of each type is allowed"}
	}
	e.cgroupStorage[kind] = m
	return nil
}

// mapCreateError returns, for the first map the program loads that the
// kernel refuses to create (loader.Map.CreateError, mapBTFRefusal),
// an ErrMapCreate at the loading instruction: a loader creates an
// object's maps before it loads any program, so the load fails there,
// with no verifier log.
func (e *env) mapCreateError() error {
	for i, in := range e.prog {
		if in.Filler || !in.IsLdImm64() || (in.Src != insn.PseudoMapFD && in.Src != insn.PseudoMapValue) {
			continue
		}
		if k := int(in.Imm); k >= 0 && k < len(e.maps) && e.maps[k] != nil {
			err := e.maps[k].CreateError()
			if ce := e.recordOf(e.maps[k]).createErr; err == nil && ce != nil {
				err = ce
			}
			if err != nil {
				return &RejectError{Insn: i, Msg: err.Error(), kind: fmt.Errorf("%w: %w", ErrMapCreate, err)}
			}
		}
	}
	return nil
}

// insnReject makes a load-time error of package insn a rejection at its
// instruction, which the log then shows as the kernel's does.
func insnReject(err error) error {
	var ie *insn.Error
	if errors.As(err, &ie) {
		return &RejectError{Insn: ie.Insn, Msg: ie.Msg}
	}
	return &RejectError{Msg: err.Error()}
}

// resolveLdImm64 resolves the pseudo source of the ld_imm64 at i, as the
// kernel's resolve_pseudo_ldimm64 does: the map it names and the address
// of that map's value, or the kernel variable of a BTF id (a function's
// address needs nothing here).
func (e *env) resolveLdImm64(i int) error {
	in := e.prog[i]
	switch in.Src {
	case insn.PseudoMapFD, insn.PseudoMapValue:
		if e.lp.MapLoadUnbound(i) || int(in.Imm) < 0 || int(in.Imm) >= len(e.maps) {
			// An immediate no relocation rewrote is a file descriptor
			// of the loading process (add_used_map's fdget); vercheck
			// has none to offer.
			// __bpf_map_get: EBADF where the descriptor is closed (always
			// for a negative one), EINVAL where it is open but no map.
			errno := syscall.EINVAL
			if in.Imm < 0 {
				errno = syscall.EBADF
			}
			return &RejectError{Insn: i, Msg: fmt.Sprintf("fd %d is not pointing to valid bpf_map", in.Imm), errno: errno}
		}
		if err := e.addUsedMap(i, e.maps[in.Imm]); err != nil {
			return err
		}
		if rec := e.recordOf(e.maps[in.Imm]); rec.refused {
			return e.unsupported(i, "map %s: %s", e.maps[in.Imm].Name, rec.unsupported)
		}
		if err := e.noteCgroupStorage(i, e.maps[in.Imm]); err != nil {
			return err
		}
		if err := e.checkMapProgCompat(i, e.maps[in.Imm]); err != nil {
			return err
		}
		if err := insn.CheckDirectValueOffset(in, i); err != nil {
			return insnReject(err)
		}
		if in.Src == insn.PseudoMapValue {
			if msg, errno := directValueError(e.maps[in.Imm], uint32(in.Imm2)); msg != "" {
				return &RejectError{Insn: i, Msg: msg, errno: errno}
			}
		}
	case insn.PseudoMapIdx, insn.PseudoMapIdxValue:
		// The loader never binds a map this way (relocated loads are
		// BPF_PSEUDO_MAP_FD/VALUE), and loaders pass no fd_array to
		// index into, so resolve_pseudo_ldimm64 stops here.
		return &RejectError{Insn: i, Msg: "fd_idx without fd_array is invalid"}
	case insn.PseudoBTFID:
		k, err := e.checkPseudoBTFID(i, in)
		if err != nil {
			return err
		}
		if e.ksyms == nil {
			e.ksyms = map[int]ksymVar{}
		}
		e.ksyms[i] = k
	}
	return nil
}

// maxUsedMaps is the kernel's MAX_USED_MAPS: the distinct maps one
// program may name.
const maxUsedMaps = 64

// addUsedMap records map m, named by the ld_imm64 at i, among the
// program's maps as __add_used_map does: a map named before is found
// again; a new one past the 64th refuses the load (E2BIG). Every
// ld_imm64 of the program counts, reached or not, and the maps of global
// data too.
func (e *env) addUsedMap(i int, m *loader.Map) error {
	if slices.Contains(e.usedMaps, m) {
		return nil
	}
	if len(e.usedMaps) >= maxUsedMaps {
		return &RejectError{Insn: i, Msg: fmt.Sprintf("The total number of maps per program has reached the limit of %d", maxUsedMaps), errno: syscall.E2BIG}
	}
	e.usedMaps = append(e.usedMaps, m)
	return nil
}

// arenaPageSize is the page size an arena's max_entries count.
const arenaPageSize = 4096

// directValueError returns resolve_pseudo_ldimm64's message and errno
// when map m gives no address of its value at offset off, or "". Only maps
// with a map_direct_value_addr operation have one: an array of exactly one
// element, up to its value size (array_map_direct_value_addr: ENOTSUPP for
// more elements, EINVAL past the value), and an arena, up to the end of its
// user range (arena_map_direct_value_addr: ERANGE past it).
func directValueError(m *loader.Map, off uint32) (string, syscall.Errno) {
	errno := syscall.EINVAL
	switch m.Type {
	case ebpf.Array:
		if m.MaxEntries != 1 {
			errno = errnoENOTSUPP
		} else if off < m.ValueSize {
			return "", 0
		}
	case ebpf.Arena:
		if uint64(off) <= uint64(m.MaxEntries)*arenaPageSize {
			return "", 0
		}
		errno = syscall.ERANGE
	default:
		return "no direct value access support for this map type", syscall.EINVAL
	}
	return fmt.Sprintf("invalid access to map value pointer, value_size=%d off=%d", m.ValueSize, off), errno
}

// isTracingProgType reports the program types that run in any context
// (kprobes, tracepoints, perf events): they may not hold a map whose value
// has a lock or a timer.
func isTracingProgType(t ebpf.ProgramType) bool {
	switch t {
	case ebpf.Kprobe, ebpf.TracePoint, ebpf.PerfEvent, ebpf.RawTracepoint, ebpf.RawTracepointWritable:
		return true
	}
	return false
}

// checkMapProgCompat is the part of check_map_prog_compatibility that the
// load makes when the program's insn i first names map m: whether this
// program type may use it.
func (e *env) checkMapProgCompat(i int, m *loader.Map) error {
	rec := e.recordOf(m)
	msg := ""
	switch {
	case (rec.hasField(fieldListHead) || rec.hasField(fieldRBRoot)) && isTracingProgType(e.progType):
		msg = "tracing progs cannot use bpf_{list_head,rb_root} yet"
	case rec.hasLock() && e.progType == ebpf.SocketFilter:
		msg = "socket filter progs cannot use bpf_spin_lock yet"
	case rec.hasLock() && isTracingProgType(e.progType):
		msg = "tracing progs cannot use bpf_spin_lock yet"
	case rec.timerOff >= 0 && isTracingProgType(e.progType):
		msg = "tracing progs cannot use bpf_timer yet"
	case rec.wqOff >= 0 && isTracingProgType(e.progType):
		msg = "tracing progs cannot use bpf_wq yet"
	}
	if msg != "" && rec.unsupported != "" {
		// The kernel may hold no record for the map at all (see
		// graphRoots), and then no field to refuse.
		return e.unsupported(i, "map %s: %s", m.Name, rec.unsupported)
	}
	if msg == "" && isSleepable(e) {
		// With stablefix.SleepableInnerMaps a map of maps' inner map
		// must be of an allowed type too.
		inner := !e.opts.MissingFixes.Has(stablefix.SleepableInnerMaps)
		if !sleepableMapTypes[m.Type] || inner && m.Inner != nil && !sleepableMapTypes[m.Inner.Type] {
			msg = "Sleepable programs can only use array, hash, ringbuf and local storage maps"
			if inner {
				msg += ", also as inner maps"
			}
		}
	}
	if msg != "" {
		return &RejectError{Insn: i, Msg: msg}
	}
	return e.noteArena(i, m)
}

// initialState builds the state at the entry of the main program.
func (e *env) initialState() *states.State {
	st := e.pool.Get()
	st.FirstInsnIdx = 0
	st.LastInsnIdx = -1
	st.InSleepable = isSleepable(e)
	st.Frames[0].Regs()[1].MarkPtr(states.PtrToCtx, 0)
	return st
}

// doCheck is the main loop: simulate instructions depth first, pruning at
// prune points, until every pending branch is explored.
func (e *env) doCheck() error {
	return e.doCheckFrom(e.initialState(), 0)
}

// doCheckFrom is doCheck from a given entry state and instruction.
func (e *env) doCheckFrom(entry *states.State, start int) error {
	e.cur = entry
	e.stackLive.chainMayChange()
	e.insnIdx = start
	e.prevIdx = -1
	e.limitCheckAt = e.insnProcessed + 1
	e.path.truncate(0)
	e.log.beginCheck()
	for {
		if e.insnIdx < 0 || e.insnIdx >= len(e.prog) {
			return e.reject(e.prevIdx, "invalid insn idx %d insn_cnt %d", e.insnIdx, len(e.prog))
		}
		e.insnProcessed++
		e.prof.Visit(e.insnIdx, e.prevIdx)
		if e.path != nil {
			e.path.visit(e.insnIdx, e.cur)
		}
		if e.insnProcessed >= e.limitCheckAt {
			if err := e.checkWalkLimits(); err != nil {
				return err
			}
		}
		e.cur.LastInsnIdx = int32(e.prevIdx)
		e.cur.InsnIdx = int32(e.insnIdx)
		exit := false
		// Every JmpPoint is a PrunePoint (insn.CFG): the insns that are
		// neither, most of them, pay one lookup.
		point := e.cfg.PrunePoint(e.insnIdx)
		if point {
			pruned, err := e.isStateVisited(e.insnIdx)
			if err == nil {
				err = e.takePrecisionFault()
			}
			if err != nil {
				return err
			}
			if pruned {
				e.log.pruned(e)
				exit = true
			}
		}
		if !exit {
			if point && e.cfg.JmpPoint(e.insnIdx) {
				e.pushJmpHistory(0)
			}
			if e.log.on() { // no call at all when nothing is logged
				e.log.insn(e)
			}
			if e.opts.Observe != nil {
				e.opts.Observe(e.insnIdx, e.cur)
			}
			e.prevIdx = e.insnIdx
			e.markSeen(e.insnIdx)
			e.beginInsn()
			var err error
			exit, err = e.step()
			if !e.stackLive.endInsnQuick(e.prevIdx) {
				e.commitStackWrites(e.prevIdx)
			}
			if err == nil {
				err = e.takePrecisionFault()
			}
			if err != nil {
				return err
			}
		}
		if !exit {
			continue
		}
		e.log.markAllScratched()
		if err := e.updateBranchCounts(e.cur); err != nil {
			return err
		}
		if err := e.takePrecisionFault(); err != nil {
			return err
		}
		// The kernel recomputes stack liveness at the end of every path,
		// before popping the next one (bpf_update_live_stack in do_check):
		// the checkpoints cleaned until the next path end see marks up
		// to here only.
		e.updateStackLiveness()
		if !e.popStack() {
			e.log.endCheck()
			return nil
		}
	}
}

// checkWalkLimits stops the walk when it has processed more than
// MaxProcessedInsns insns, or, at the first insn and every
// timeCheckEvery-th after it, when the deadline has passed; then it sets
// limitCheckAt to the next count at which either test can fire, so that
// the walk pays one comparison per insn instead of both tests.
func (e *env) checkWalkLimits() error {
	n := e.insnProcessed
	if n > MaxProcessedInsns {
		return &RejectError{Insn: e.insnIdx, Msg: fmt.Sprintf("BPF program is too large. Processed %d insn", n), kind: ErrComplexityLimit}
	}
	// A mask, not %: the count is positive and timeCheckEvery a power
	// of two.
	if n&(timeCheckEvery-1) == 1 && !e.deadline.IsZero() && time.Now().After(e.deadline) {
		return &RejectError{Insn: e.insnIdx, Msg: fmt.Sprintf("verification time limit %s reached after %d insns", e.opts.Timeout, n), kind: ErrTimeout}
	}
	next := n&^(timeCheckEvery-1) + 1 // the next count ≡ 1 mod timeCheckEvery
	if next <= n {
		next += timeCheckEvery
	}
	e.limitCheckAt = min(next, MaxProcessedInsns+1)
	return nil
}

// pushJmpHistory records the current instruction in the path's history
// for precision backtracking (see pushJmpHistoryEntry).
func (e *env) pushJmpHistory(flags uint32) { e.pushJmpHistoryEntry(flags, 0) }

// jmpSeqErrno is the error number of a load refused for too many pending
// branches: E2BIG with stablefix.JmpSeqE2BIG, else the EFAULT the
// message maps to.
func (e *env) jmpSeqErrno() syscall.Errno {
	if e.opts.MissingFixes.Has(stablefix.JmpSeqE2BIG) {
		return 0
	}
	return syscall.E2BIG
}

// packPendingAfter is the number of pending branches beyond which a new
// one is stored packed (states.Pool.ClonePacked). Programs seldom have
// more than a few dozen pending at once; a loop that pushes one branch per
// iteration has as many as iterations.
const packPendingAfter = 64

// pushStack saves a copy of the current state to resume at insn later.
func (e *env) pushStack(insnIdx, prevIdx int) (*states.State, error) {
	// A pending branch is only read until it resumes. Hundreds of
	// thousands may wait at once (a may_goto loop pushes one per
	// iteration): beyond a few, they are packed, which costs a copy when
	// they resume but holds only their written stack slots.
	var st *states.State
	if len(e.stack) < packPendingAfter && !e.opts.packAllPending {
		st = e.pool.Clone(e.cur)
	} else {
		st = e.pool.ClonePacked(e.cur)
	}
	e.stack = append(e.stack, pending{st: st, insn: insnIdx, prevInsn: prevIdx, pathLen: e.path.len(), logPos: e.log.pos()})
	if len(e.stack) > MaxJmpSeq {
		return nil, &RejectError{Insn: e.insnIdx, Msg: fmt.Sprintf("The sequence of %d jumps is too complex.", len(e.stack)), kind: ErrComplexityLimit, errno: e.jmpSeqErrno()}
	}
	if st.Parent != nil {
		st.Parent.Branches++
	}
	return st, nil
}

// popStack resumes the most recently pushed branch; false when none is
// left.
func (e *env) popStack() bool {
	n := len(e.stack)
	if n == 0 {
		return false
	}
	p := e.stack[n-1]
	e.stack = e.stack[:n-1]
	// The pushed copy becomes the current state; nothing else points at
	// either.
	e.cur = e.pool.Resume(e.cur, p.st)
	e.stackLive.chainMayChange()
	e.insnIdx = p.insn
	e.prevIdx = p.prevInsn
	e.path.truncate(p.pathLen)
	e.log.popped(p.logPos)
	return true
}

// updateBranchCounts closes one path: every state whose open paths drop
// to zero is complete: if it entered a loop, the loop's back-edges are
// propagated (maybeExitSCC); then it may be freed.
func (e *env) updateBranchCounts(st *states.State) error {
	for st != nil {
		st.Branches--
		if st.Branches > 0 {
			return nil
		}
		if err := e.maybeExitSCC(st); err != nil {
			return err
		}
		parent := st.Parent
		if st != e.cur {
			e.store.BranchesDone(st)
		}
		st = parent
	}
	return nil
}

// isStateVisited is the pruning decision at a prune point: is the current
// state subsumed by an explored one (prune), and should it become a
// checkpoint itself.
func (e *env) isStateVisited(idx int) (bool, error) {
	e.initPrecision()
	cur := e.cur
	forceCheckpoint := e.cfg.ForceCheckpoint(idx)
	force := e.testStateFreq() || forceCheckpoint || len(cur.JmpHistory) > maxJmpHistory
	addNew := force || e.policy.WantCheckpoint(int32(e.jmpsProcessed-e.prevJmps), int32(e.insnProcessed-e.prevInsns), false)
	callsite := cur.Frames[cur.CurFrame].CallSite
	chain := cur.ChainKey()
	e.cleanLiveStates(idx, cur, chain)
	statesCnt := 0
	var hit *prune.Entry
	var loopErr error
	// loop says the hit was against a checkpoint whose precision marks
	// may be incomplete (inside a loop still being explored): the match
	// becomes a back-edge. Like the kernel, it keeps its value from one
	// entry to the next.
	loop := false
	// Whether idx calls an iterator's next kfunc depends on idx alone:
	// asked once, not for each stored state.
	iterNext := e.isIterNextInsn(idx)
	// So do whether it is a may_goto and whether it calls a callback.
	mayGoto, callsCallback := e.prog[idx].IsMayGoto(), e.cfg.CallsCallback(idx)
	bucket := e.store.Bucket(int32(idx), callsite)
	// A mixed bucket hands out idx's checkpoints only; the others count
	// (prune.Bucket.Skipped).
	statesCnt += bucket.Skipped()
	quick := states.NewQuickProbe(cur)
walk:
	for sl := bucket.Next(); sl != nil; sl = bucket.Next() {
		statesCnt++
		// The entry's copy of the insn spares a visit to the states of
		// colliding instructions.
		if int(sl.Insn) != idx {
			continue
		}
		old := sl.State
		if !sl.Done() {
			// old is an ancestor of cur on the current path: a loop.
			switch {
			case sl.Chain != chain:
				// Another call chain: every comparison below
				// fails, and nothing else is decided.
			case callsCallback && !iterNext && !mayGoto && quick.Fails(&sl.Quick, states.RangeWithin):
				// The comparison below would fail: whether this is
				// another async entry or not, nothing is decided here.
				// Tested first because it reads the entry only, where
				// otherAsyncEntry reads two cold lines of old (a bpf_loop
				// callback's entry holds dozens of open iterations).
			case otherAsyncEntry(old, cur):
				// Another entry into an async callback (one that
				// registered itself again): not a loop, and old has
				// not reached its exit yet, so it proves nothing.
			case iterNext:
				// An iterator loop converges when an active state is
				// within the previous iteration's; the iterator's
				// contract (next eventually returns NULL for good)
				// makes it finite, so no infinite-loop check.
				if e.iterNextLoopHit(old, cur) {
					loop = true
					hit = sl
					break walk
				}
			case mayGoto && e.mayGotoLoopHit(old, cur):
				loop = true
				hit = sl
				break walk
			case callsCallback:
				if !quick.Fails(&sl.Quick, states.RangeWithin) && e.eq.StatesEqual(old, cur, states.RangeWithin) {
					// With stablefix.CallbackLoopSCC the match is a
					// back-edge of the call's SCC: the callback's
					// checkpoints stay incomplete until the loop is
					// explored.
					loop = loop || !e.opts.MissingFixes.Has(stablefix.CallbackLoopSCC)
					hit = sl
					break walk
				}
			case states.MaybeLooping(old, cur) && e.eq.StatesEqual(old, cur, states.Exact) &&
				!iterActiveDepthsDiffer(old, cur) &&
				old.MayGotoDepth == cur.MayGotoDepth && old.CallbackUnrollDepth == cur.CallbackUnrollDepth:
				loopErr = e.reject(idx, "infinite loop detected at insn %d", idx)
				if e.log.on() {
					// is_state_visited shows both states after the message.
					e.log.printf("cur state:")
					e.log.appendState(cur, int(cur.CurFrame), true)
					e.log.printf("old state:")
					e.log.appendState(old, int(cur.CurFrame), true)
				}
				break walk
			}
			if !force && e.policy.LoopSuppress(int32(e.jmpsProcessed-e.prevJmps), int32(e.insnProcessed-e.prevInsns)) {
				addNew = false
			}
		} else {
			loop = e.entryIncomplete(sl)
			mode := states.NotExact
			if loop {
				mode = states.RangeWithin
			}
			if sl.Chain == chain && !quick.Fails(&sl.Quick, mode) && e.eq.StatesEqual(old, cur, mode) {
				hit = sl
				break walk
			}
		}
		e.eq.UpdateQuickMiss(&sl.Quick, old)
		e.misses++
		if e.prof != nil {
			e.profileMiss(idx, old, cur, loop)
		}
		if addNew {
			if e.store.Miss(sl, forceCheckpoint) {
				e.evicted++
				e.prof.Evict(idx)
			}
		}
	}
	if loopErr != nil {
		return false, loopErr
	}
	if hit != nil {
		e.hits++
		e.prof.Hit(idx)
		e.store.Hit(hit)
		if e.cfg.JmpPoint(idx) {
			e.pushJmpHistory(0)
		}
		e.propagatePrecision(hit.State, cur, nil)
		if loop {
			be := e.pool.Backedge(cur)
			be.InsnIdx = int32(idx)
			if err := e.addSCCBackedge(backedge{st: be, equal: hit.State}); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	e.store.NoteBucketLen(statesCnt)
	e.prof.ListLen(idx, statesCnt)
	if !addNew {
		return false, nil
	}
	e.prevJmps = e.jmpsProcessed
	e.prevInsns = e.insnProcessed
	// mark_all_scalars_imprecise(cur), then the copy.
	nw := e.pool.CheckpointImprecise(cur)
	nw.InsnIdx = int32(idx)
	e.maybeEnterSCC(nw)
	e.store.Add(int32(idx), callsite, nw)
	e.prof.Add(idx)
	if limit := e.opts.stateMemoryLimit(); limit > 0 {
		e.stateBytes += stateBytes(nw)
		if e.stateBytes > limit {
			return false, &RejectError{Insn: idx, Msg: fmt.Sprintf("explored states use more than %d MiB (the state-memory limit) after %d insns", limit>>20, e.insnProcessed), kind: ErrMemoryLimit}
		}
	}
	cur.Parent = nw
	cur.FirstInsnIdx = int32(idx)
	cur.DFSDepth = nw.DFSDepth + 1
	cur.JmpHistory = cur.JmpHistory[:0]
	return false, nil
}

// otherAsyncEntry reports whether cur runs an async callback entered
// another number of times than old's, which is still open
// (is_state_visited's async_entry_cnt test): a callback that registers
// itself again reaches its own instructions with ancestors of a previous
// entry still being explored.
func otherAsyncEntry(old, cur *states.State) bool {
	fo := old.Cur()
	return fo.InAsyncCallbackFn && fo.AsyncEntryCnt != cur.Cur().AsyncEntryCnt
}

// loaderRefusal is the rejection for a program the loader never hands the
// kernel, as libbpf would not (err is the program's preparation error), or
// nil when err is a gap in vercheck's model instead.
func loaderRefusal(err error) *RejectError {
	var kerr *loader.KconfigError
	switch {
	case errors.As(err, &kerr):
		// libbpf refuses the object before the kernel sees it.
		return &RejectError{Msg: fmt.Sprintf("%v: the loader refuses the object, as libbpf does, and never loads the program", kerr), errno: kerr.Errno}
	case errors.Is(err, loader.ErrUnresolvedExtern):
		// An extern function no unit defines: libbpf refuses the object
		// when it opens it (ENOENT), cilium/ebpf when it links the
		// program.
		return &RejectError{Msg: fmt.Sprintf("%v: the loader refuses it and never loads the program", err), errno: syscall.ENOENT}
	case errors.Is(err, loader.ErrJumpTable):
		// libbpf fails to create the table's map at relocation time.
		return &RejectError{Msg: fmt.Sprintf("%v: the loader refuses it, as libbpf does, and never loads the program", err), errno: syscall.EINVAL}
	case errors.Is(err, loader.ErrExternIncompatible):
		// libbpf finds the kernel's symbol, compares its type with the
		// declaration and refuses the object.
		return &RejectError{Msg: fmt.Sprintf("%v: the loader refuses the object, as libbpf does, and never loads the program", err), errno: syscall.EINVAL}
	case errors.Is(err, loader.ErrKernelSymbolMissing) && loader.ModuleBTFsComplete():
		// The loader gives up, as libbpf would: a rejection, not a gap
		// in vercheck's model.
		return &RejectError{Msg: fmt.Sprintf("%v: the loader cannot resolve it and never loads the program", err), errno: syscall.ESRCH}
	}
	return nil
}

// rejectErrno is reject for a check whose error number is its own, not
// the one its message maps to (see Result.Errno).
func (e *env) rejectErrno(errno syscall.Errno, insnIdx int, format string, args ...any) error {
	err := e.reject(insnIdx, format, args...)
	err.(*RejectError).errno = errno
	return err
}

// reject builds a rejection at insn with a kernel-style message.
func (e *env) reject(insnIdx int, format string, args ...any) error {
	re := &RejectError{Insn: insnIdx, Msg: fmt.Sprintf(format, args...)}
	if e.cur != nil {
		re.State = e.stateString(e.cur)
	}
	e.log.errorf(re.Msg)
	return re
}

// unsupported rejects honestly what vercheck does not model yet.
func (e *env) unsupported(insnIdx int, format string, args ...any) error {
	msg := "unsupported: " + fmt.Sprintf(format, args...)
	e.log.errorf(msg)
	return &RejectError{Insn: insnIdx, Msg: msg, kind: ErrUnsupported}
}

// newID returns a fresh register id.
func (e *env) newID() uint32 {
	e.idGen++
	return e.idGen
}

// mapAt returns the map a map pointer or map value register refers to.
func (e *env) mapAt(r *states.Reg) *loader.Map {
	if int(r.Aux) < len(e.maps) {
		return e.maps[r.Aux]
	}
	return nil
}

func (e *env) stateString(st *states.State) string {
	var b strings.Builder
	b.WriteString(st.String())
	return b.String()
}

// lineAt returns the source line of raw instruction idx: like the
// kernel's find_linfo, the last line-info record at or before idx.
func lineAt(p *loader.Program, idx int) loader.Line {
	if rec := lineRecordAt(p.Lines, idx); rec >= 0 {
		return p.Lines.At(rec)
	}
	return loader.Line{}
}

// isGlobalFunc reports whether the subprogram starting at insn start has
// global linkage in the program's BTF func info.
func isGlobalFunc(p *loader.Program, start int) bool {
	for _, f := range p.Funcs {
		if f.Start == start {
			return f.Global
		}
	}
	return false
}

// Sizes used to account for the memory of stored states.
var (
	regBytes  = int64(unsafe.Sizeof(states.Reg{}))
	slotBytes = int64(unsafe.Sizeof(states.Slot{}))
	stateSize = int64(unsafe.Sizeof(states.State{}))
	frameSize = int64(unsafe.Sizeof(states.Frame{}))
	refBytes  = int64(unsafe.Sizeof(states.Ref{}))
	histBytes = int64(unsafe.Sizeof(states.JmpHistEntry{}))
)

// stateBytes is the approximate memory one stored state holds: its
// frames, and its references and jump history, which nothing bounds but
// the program (a loop acquiring a reference per iteration stores states
// whose reference arrays grow with the iteration: quadratic memory).
func stateBytes(st *states.State) int64 {
	n := stateSize + int64(len(st.Refs))*refBytes + int64(len(st.JmpHistory))*histBytes
	for i := 0; i <= int(st.CurFrame); i++ {
		f := st.Frames[i]
		n += frameSize + int64(f.HeldRegs())*regBytes + int64(f.HeldSlots())*slotBytes
	}
	return n
}

// statePools keeps state pools between verifications, so that a run over
// many programs reuses the memory of states instead of allocating anew.
var statePools = sync.Pool{New: func() any { return &states.Pool{} }}

// maxPooledStates and maxPooledWorking bound what a pool keeps between
// verifications (states.Pool.Trim). A working frame with a full stack is
// several kilobytes: at 4,096 of them a pool kept some 30 MB from the
// largest program of a sweep alive during all the others, and a corpus
// run peaked at 2.4 times the RSS of its largest object; at 256 it peaks
// at 1.4 times, in the same time. States and packed frames hold nothing
// once trimmed (376 bytes the pair), and every checkpoint of a large
// program takes one of each: kept by the thousand, the next large
// program allocates none of them, which was 42% of the bytes a corpus
// pass allocated in verifications and, with the collections those bytes
// paced, 4% of its instructions (256 -> 16,384: 5.11G -> 4.88G
// instructions a pass, callgrind).
const (
	maxPooledStates  = 16384
	maxPooledWorking = 256
)

// recyclePool returns every state still held (pending branches, the
// current state) to the pool and the pool to statePools.
func (e *env) recyclePool() {
	if e.pool == nil {
		return
	}
	for _, p := range e.stack {
		e.pool.Put(p.st)
	}
	e.stack = nil
	if e.cur != nil {
		e.pool.Put(e.cur)
		e.cur = nil
	}
	e.pool.Trim(maxPooledStates, maxPooledWorking)
	statePools.Put(e.pool)
	e.pool = nil
}

// lineInfoInsns lists the instructions that carry a source line, as the
// loader's BTF line_info records name them; nil when none does.
func (e *env) lineInfoInsns() []int {
	if e.lp == nil || e.lp.BTFDropped != "" {
		return nil
	}
	return e.lp.Lines.Slots()
}

// funcInfoStarts lists where the program's BTF func_info records start,
// nil when it has none (a loader sends no func_info then).
func (e *env) funcInfoStarts() []int {
	if e.lp == nil || len(e.lp.Funcs) == 0 {
		return nil
	}
	starts := make([]int, len(e.lp.Funcs))
	for i, f := range e.lp.Funcs {
		starts[i] = f.Start
	}
	return starts
}

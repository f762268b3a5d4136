package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck"
	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/prune"
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/verifier"
)

// Exit statuses.
const (
	exitAccepted = 0 // every program accepted
	exitRejected = 1 // some program rejected (or unsupported, or failed to load)
	exitUsage    = 2 // bad usage or unreadable input
	// exitFalseAccept: in --kernel mode, vercheck accepted a program the
	// kernel rejects, a soundness bug in vercheck.
	exitFalseAccept = 3
	// exitExpectation: with --expect, a verdict differs from the one the
	// program's own tags declare.
	exitExpectation = 4
)

const usage = `usage: vercheck [flags] PATH...
       vercheck compare [flags] A.csv B.csv | A.o B.o
       vercheck compare --policies P1,P2,... [flags] PATH...

Verifies every program of each BPF ELF object (or of every object found in
each directory) as the Linux 6.18 verifier does, and prints one row per
program with the kernel's figures (insn_processed, max_states_per_insn,
total_states, peak_states), then a summary. With --kernel, each program is
also loaded into the running kernel and both sides are shown. Flags may
come before or after the paths.

Examples:
  vercheck prog.o -v                  why a program is rejected, kernel-style
  vercheck --format csv objs/ > a.csv veristat-style CSV of a directory
  vercheck --kernel prog.o            next to the running kernel
  vercheck compare a.csv b.csv        two runs side by side (veristat -C)

Exit status: 0 every program accepted; 1 some program rejected,
unsupported, over the time or state-memory limit or unreadable in a directory; 2 bad usage,
an object named on the command line that cannot be read, or no objects
found; 3 with --kernel, vercheck accepted a program the kernel rejects; 4
with --expect, a verdict differs from the program's own tags.

Flags:
`

// commonFlags are the verification flags shared by the main command and
// compare.
type commonFlags struct {
	typeName, btfPath, kallsyms, moduleBTF, extTarget, kconfig, policy string
	// fixes is the --fixes flag; resolved into fixes by options.
	fixes string
	// applied is what options made of --fixes.
	applied            fixSemantics
	progFlags, license string
	// mapBTF is the --map-btf flag: the loader whose map BTF to model.
	mapBTF string
	// innerMaps is the --inner-map flag: OUTER=INNER pairs.
	innerMaps string
	timeout   time.Duration
	stateMiB  int
	jobs      int
}

// mapBTFModels are the --map-btf values: the loaders whose map BTF the
// verifier can model.
var mapBTFModels = map[string]verifier.MapBTF{
	"":       verifier.MapBTFDefault,
	"libbpf": verifier.MapBTFObject,
	"cilium": verifier.MapBTFKeyValue,
}

func (c *commonFlags) register(fset *flag.FlagSet) {
	fset.StringVar(&c.typeName, "type", "", "program type for sections whose name carries no type, and for the global functions of objects whose functions all live in .text (e.g. xdp, sched_cls, socket_filter)")
	fset.StringVar(&c.moduleBTF, "module-btf", "", "module BTF files (split BTF over the kernel BTF: /sys/kernel/btf/MODULE or a module's .ko), comma-separated, whose kfuncs programs may call (default: the running kernel's modules when --btf is not given)")
	fset.StringVar(&c.extTarget, "target", "", "the object (OBJ, or OBJ:PROGRAM) whose program freplace (Extension) programs replace a global function of, as libbpf's bpf_program__set_attach_target")
	fset.StringVar(&c.kallsyms, "kallsyms", "", "the kernel's symbols for ksym addresses: /proc/kallsyms or the System.map of the --btf kernel (default /proc/kallsyms)")
	fset.StringVar(&c.btfPath, "btf", "", "the kernel BTF programs are checked against: CO-RE relocations, kfuncs, context and struct_ops types (default /sys/kernel/btf/vmlinux)")
	fset.StringVar(&c.kconfig, "kconfig", "", "kernel config for extern __kconfig variables and the helpers the kernel offers (CONFIG_BPF_KPROBE_OVERRIDE, forced lockdown) (default: the running kernel's, with its lockdown level)")
	fset.StringVar(&c.progFlags, "prog-flags", "", "program load flags added to those the section implies: names (strict_alignment, any_alignment, test_state_freq, sleepable, xdp_has_frags) and numbers, comma-separated")
	fset.StringVar(&c.license, "license", "", "license of objects without a license section, as a loader passing its own (e.g. GPL)")
	fset.DurationVar(&c.timeout, "timeout", 60*time.Second, "time limit per program (0: none)")
	fset.IntVar(&c.stateMiB, "state-memory", verifier.DefaultMaxStateBytes>>20, "limit, in MiB, on the memory of the states one program's verification stores (0: none); past it the program has no verdict")
	fset.StringVar(&c.policy, "prune-policy", "default", "pruning policy: default, nodrop, miss>A*hit+B, free=branches|done|end (comma-combined)")
	fset.IntVar(&c.jobs, "j", runtime.GOMAXPROCS(0), "programs verified in parallel")
	fset.StringVar(&c.mapBTF, "map-btf", "", "loader to model: its map BTF for bpf_list_head/bpf_rb_root and kptrs in map values and globals, its CO-RE relocation, and the load under --kernel: libbpf (the object's BTF; CO-RE as libbpf relocates it, a program cilium/ebpf relocates otherwise accepted only when both are; the default) or cilium (cilium/ebpf: the key and value types alone, its own CO-RE relocation)")
	fset.StringVar(&c.innerMaps, "inner-map", "", "inner map templates of map-in-maps whose definition leaves them to the loader: OUTER=INNER pairs, comma-separated, each naming two maps of the object (as bpf_map__set_inner_map_fd)")
	fset.StringVar(&c.fixes, "fixes", fixesAuto, "6.18.y stable fixes to apply: auto (those of the running kernel; all where it cannot be asked), all, none, or a list ("+stablefix.Everything.String()+")")
}

// options turns the flags into the library's options: the command reads
// and verifies objects through the same entry points as a loader would.
func (c *commonFlags) options() (vercheck.Options, error) {
	policy, err := prune.ParsePolicy(c.policy)
	if err != nil {
		return vercheck.Options{}, err
	}
	flags, err := loader.ParseProgFlags(c.progFlags)
	if err != nil {
		return vercheck.Options{}, fmt.Errorf("--prog-flags: %w", err)
	}
	if c.btfPath != "" {
		// Said once here, not once per kfunc of every program.
		if _, err := btf.LoadSpec(c.btfPath); err != nil {
			return vercheck.Options{}, fmt.Errorf("--btf: %w", err)
		}
		// Before the sweep's set-up reads the kernel's BTF.
		if err := loader.UseKernelBTF(c.btfPath); err != nil {
			return vercheck.Options{}, fmt.Errorf("--btf: %w", err)
		}
	}
	loader.UseKallsyms(c.kallsyms)
	inner, err := parseInnerMaps(c.innerMaps)
	if err != nil {
		return vercheck.Options{}, err
	}
	var modules []string
	if c.moduleBTF != "" {
		modules = strings.Split(c.moduleBTF, ",")
	}
	opts := vercheck.Options{TargetBTF: c.btfPath, ModuleBTF: modules, ExtensionTarget: c.extTarget, Kconfig: c.kconfig, ProgFlags: flags, License: c.license, Parallel: c.jobs, InnerMaps: inner}
	if c.typeName != "" {
		pt, ok := parseProgType(c.typeName)
		if !ok {
			return vercheck.Options{}, fmt.Errorf("unknown program type %q", c.typeName)
		}
		opts.TypeOverride = pt
	}
	c.applied, err = resolveFixes(c.fixes)
	if err != nil {
		return vercheck.Options{}, err
	}
	mapBTF, ok := mapBTFModels[c.mapBTF]
	if !ok {
		return vercheck.Options{}, fmt.Errorf("--map-btf: unknown loader %q (libbpf, cilium)", c.mapBTF)
	}
	maxState := int64(c.stateMiB) << 20
	if c.stateMiB <= 0 {
		maxState = -1
	}
	opts.Verifier = verifier.Options{Policy: &policy, Timeout: c.timeout, MaxStateBytes: maxState, MissingFixes: c.applied.Missing, MapBTF: mapBTF}
	if c.kconfig != "" {
		// The other kernel's build decides which helpers it offers;
		// said once here, not once per object.
		b, err := verifier.ConfigBuild(c.kconfig)
		if err != nil {
			return vercheck.Options{}, fmt.Errorf("--kconfig: %w", err)
		}
		opts.Verifier.Kernel = &b
	}
	return opts, nil
}

// parseInnerMaps reads the --inner-map flag: OUTER=INNER pairs, where
// INNER names a map of the object or describes one as
// TYPE:KEY_SIZE:VALUE_SIZE:MAX_ENTRIES (array:4:4:1).
func parseInnerMaps(flag string) (map[string]loader.InnerMap, error) {
	if flag == "" {
		return nil, nil
	}
	inner := make(map[string]loader.InnerMap)
	for pair := range strings.SplitSeq(flag, ",") {
		outer, in, ok := strings.Cut(pair, "=")
		if !ok || outer == "" || in == "" {
			return nil, fmt.Errorf("--inner-map: %q is not OUTER=INNER", pair)
		}
		if !strings.Contains(in, ":") {
			inner[outer] = loader.InnerMap{Name: in}
			continue
		}
		spec, err := parseMapShape(in)
		if err != nil {
			return nil, fmt.Errorf("--inner-map %s: %w", outer, err)
		}
		inner[outer] = loader.InnerMap{Spec: spec}
	}
	return inner, nil
}

// parseMapShape reads TYPE:KEY_SIZE:VALUE_SIZE:MAX_ENTRIES, the type by
// cilium/ebpf's name for it, case-insensitively (array, hash, lruhash...).
func parseMapShape(s string) (*ebpf.MapSpec, error) {
	f := strings.Split(s, ":")
	if len(f) != 4 {
		return nil, fmt.Errorf("%q is not TYPE:KEY_SIZE:VALUE_SIZE:MAX_ENTRIES", s)
	}
	var typ ebpf.MapType
	for t := ebpf.MapType(1); !strings.HasPrefix(t.String(), "MapType("); t++ {
		if strings.EqualFold(t.String(), f[0]) {
			typ = t
		}
	}
	if typ == 0 {
		return nil, fmt.Errorf("unknown map type %q", f[0])
	}
	var n [3]uint32
	for i, v := range f[1:] {
		u, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", v, err)
		}
		n[i] = uint32(u)
	}
	return &ebpf.MapSpec{Type: typ, KeySize: n[0], ValueSize: n[1], MaxEntries: n[2]}, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "compare" {
		return runCompare(args[1:], stdout, stderr)
	}
	fset := flag.NewFlagSet("vercheck", flag.ContinueOnError)
	fset.SetOutput(stderr)
	printUsage := func(w io.Writer) {
		fmt.Fprint(w, usage)
		fset.SetOutput(w)
		fset.PrintDefaults()
		fset.SetOutput(stderr)
	}
	// Parse errors are reported by the flag package; the full usage goes
	// to stdout on request only.
	fset.Usage = func() {}
	var common commonFlags
	common.register(fset)
	format := fset.String("format", "table", "output format: table, csv or json")
	verbose := fset.Bool("v", false, "print a kernel-style log of the failing path of each rejected program")
	verbose2 := fset.Bool("vv", false, "print the full kernel-style log (every state) of each program; with --kernel, also load the kernel's level-2 log and say where the two first part, state by state")
	withKernel := fset.Bool("kernel", false, "also load each program into the running kernel and compare")
	withExpect := fset.Bool("expect", false, "compare each program with what its own BTF tags say the verifier decides (the kernel selftests' __success, __failure, __msg, __flag, __log_level, as their test_loader reads them), verifying it with the tags' load flags")
	quiet := fset.Bool("q", false, "print no per-program rows and no loader warnings: only diagnostics of rejections with -v, false accepts and the summary")
	version := fset.Bool("version", false, "print vercheck's version and exit")
	var filterArgs listFlag
	fset.Var(&filterArgs, "f", "show only programs passing: FIGURE OP VALUE, or a [OBJECT/]PROGRAM glob, ! to exclude (repeatable)")
	sortArg := fset.String("s", "", "sort rows: FIGURE with ^ (ascending) or v (descending), |FIGURE| by absolute value, comma-separated")
	limit := fset.Int("n", 0, "show at most N rows (after -f and -s)")
	columnsArg := fset.String("e", "", "columns to show, comma-separated (file_name, prog_name, verdict, total_insns, max_states_per_insn, total_states, peak_states, duration)")
	logDir := fset.String("log-dir", "", "write each program's kernel-style log (-v's, or -vv's) to DIR/OBJECT/PROGRAM.log, in any format; with --kernel, the kernel's own log of the same level to PROGRAM.kernel.log")
	shardFlag := fset.String("shard", "", "verify only part i of n of the objects (i/n, from 1), for sweeps split over a CI matrix")
	prof := fset.Bool("profile", false, "print each program's profile: top source lines, instructions, subprograms and loops by visits, with states stored, hits, misses, evictions, and why stored states did not match")
	profTop := fset.Int("profile-top", 10, "rows of each --profile table")
	profOut := fset.String("profile-out", "", "write every program's whole profile as JSON to `FILE`")
	htmlOut := fset.String("html", "", "write a self-contained page showing every program's profile to `FILE`: source lines coloured by visits, each opening on a click to its instructions and miss reasons")
	cpuProfile := fset.String("cpuprofile", "", "write a CPU profile of the run to `FILE`, for go tool pprof (with -j 1 it is one core's verification, as the kernel's)")
	memProfile := fset.String("memprofile", "", "write a heap profile (allocations of the whole run) to `FILE`, for go tool pprof")
	explain := fset.Bool("why", false, "explain each rejection: the failing instruction and registers, the backward slice to the instruction that gave the faulting register its kind or range, the branch decisions on the path, and a hint for that cause")
	paths, err := parseInterleaved(fset, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout)
		return exitAccepted
	case err != nil:
		fmt.Fprintln(stderr, "run 'vercheck -h' for usage")
		return exitUsage
	case *version:
		writeVersion(stdout)
		return exitAccepted
	case len(paths) == 0:
		printUsage(stderr)
		return exitUsage
	case common.jobs < 1:
		fmt.Fprintf(stderr, "vercheck: -j %d: need at least one worker\n", common.jobs)
		return exitUsage
	}
	switch *format {
	case "table", "csv", "json":
	default:
		fmt.Fprintf(stderr, "vercheck: unknown format %q (want table, csv or json)\n", *format)
		return exitUsage
	}
	opts, err := common.options()
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	sel, err := parseSelection(filterArgs, *sortArg, *columnsArg, *limit)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	part, err := parseShard(*shardFlag)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	files, err := loader.FindObjects(paths)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "vercheck: no objects found in %s\n", strings.Join(paths, " "))
		return exitUsage
	}
	// An empty shard is a normal part of a matrix: no objects is no error
	// once the paths held some.
	files = part.pick(files)
	logLevel := 0
	if *verbose {
		logLevel = 1
	}
	if *verbose2 {
		logLevel = 2
	}
	release := ""
	if *withKernel {
		release, *withKernel = kernelReady(stderr)
	}
	if *logDir != "" && logLevel == 0 {
		// A log directory without -v gets the failing paths.
		logLevel = 1
	}
	opts.Verifier.LogLevel = logLevel
	opts.Verifier.Profile = *prof || *profOut != "" || *htmlOut != ""
	opts.Verifier.Why = *explain
	cfg := runConfig{opts: opts, jobs: common.jobs, withKernel: *withKernel, expect: *withExpect}
	if !*quiet {
		cfg.warnings = stderr
	}
	if *logDir != "" || logLevel == 2 {
		// The kernel's own log goes beside vercheck's; at level 2 the
		// two are also compared state by state (logDivergence).
		cfg.kernelLogLevel = logLevel
	}
	if isTerminal(stderr) {
		cfg.progress = stderr
	}

	stopProfiles, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}
	start := time.Now()
	rows, unreadable := verifyAll(files, cfg)
	sum := summarize(rows, time.Since(start))
	if err := stopProfiles(); err != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", err)
		return exitUsage
	}

	if !*quiet {
		// -q keeps stderr for what went wrong; JSON rows still carry
		// the warnings.
		writeWarnings(stderr, rows)
	}
	if *logDir != "" {
		if err := writeLogDir(*logDir, rows); err != nil {
			fmt.Fprintf(stderr, "vercheck: %v\n", err)
			return exitUsage
		}
		// The logs are in their files; the table keeps to one line each.
		for i := range rows {
			rows[i].Log = ""
		}
	}
	// The table carries its summary; machine formats keep stdout clean
	// and put it on stderr.
	summaryOut := stderr
	var werr error
	if *format != "table" {
		// False accepts are never left for the reader to find in a file.
		writeFalseAccepts(stderr, rows)
	}
	// -f, -s and -n choose the rows shown; the summary and the exit
	// status are the whole run's.
	shown := sel.apply(rows)
	switch {
	case *format == "json":
		werr = writeJSON(stdout, shown)
	case sel.columns != nil && !*quiet:
		werr = writeColumns(stdout, shown, sel.columns, *format == "csv")
		if *format == "table" {
			summaryOut = stdout
		}
	case *format == "csv":
		werr = writeCSV(stdout, shown, *withKernel)
	default:
		summaryOut = stdout
		if *quiet {
			writeFalseAccepts(stdout, rows)
			writeDiagnostics(stdout, shown, logLevel > 0)
			break
		}
		if *withKernel {
			writeKernelTable(stdout, shown, logLevel > 0)
		} else {
			writeTable(stdout, shown, logLevel > 0)
		}
	}
	if werr == nil && *prof {
		// The tables follow the rows on a terminal; machine formats
		// keep stdout for themselves.
		werr = writeProfiles(summaryOut, rows, *profTop)
	}
	if werr == nil && *profOut != "" {
		werr = writeProfileFile(*profOut, rows)
	}
	if werr == nil && *htmlOut != "" {
		werr = writeHTMLFile(*htmlOut, rows)
	}
	if werr != nil {
		fmt.Fprintf(stderr, "vercheck: %v\n", werr)
		return exitUsage
	}
	fmt.Fprintln(summaryOut, sum)
	if *withKernel || logLevel > 0 {
		fmt.Fprintln(summaryOut, common.applied.Note)
	}
	expectDiffers := false
	if *withExpect {
		expectDiffers = writeExpect(summaryOut, rows).verdictDiffs > 0
	}
	if *withKernel {
		ks := summarizeKernel(rows, release)
		writeKernelSummary(summaryOut, ks)
		if len(ks.FalseAccepts) > 0 {
			return exitFalseAccept
		}
	}

	status := exitAccepted
	for _, r := range rows {
		if r.Verdict != verdictAccepted {
			status = exitRejected
		}
	}
	if expectDiffers {
		status = exitExpectation
	}
	if slices.ContainsFunc(unreadable, func(f string) bool { return slices.Contains(paths, f) }) {
		// An object named on the command line could not be read: bad
		// input. One a directory sweep found is an error row (status 1),
		// as corpora hold foreign and malformed files.
		return exitUsage
	}
	return status
}

// kernelAvailable is kernel.Available, replaceable in tests.
var kernelAvailable = kernel.Available

// kernelReady checks once whether programs can be loaded; when they
// cannot it says so (once) and the run goes on with vercheck's figures.
func kernelReady(stderr io.Writer) (string, bool) {
	if err := kernelAvailable(); err != nil {
		fmt.Fprintf(stderr, "vercheck: --kernel: bpf() not permitted here, showing vercheck's figures only: %v\n", err)
		return "", false
	}
	release, err := kernel.Release()
	if err != nil {
		release = "unknown"
	}
	return release, true
}

// parseProgType maps a type name (as in cilium/ebpf's String or the
// kernel's snake case) to a program type.
func parseProgType(s string) (ebpf.ProgramType, bool) {
	norm := strings.ReplaceAll(strings.ToLower(s), "_", "")
	for pt := ebpf.UnspecifiedProgram; pt <= ebpf.Netfilter+8; pt++ {
		if strings.ToLower(pt.String()) == norm {
			return pt, true
		}
	}
	switch norm {
	case "socket", "socketfilter":
		return ebpf.SocketFilter, true
	case "tc", "classifier", "schedcls":
		return ebpf.SchedCLS, true
	}
	return 0, false
}

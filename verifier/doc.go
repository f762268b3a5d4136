// Package verifier is vercheck's abstract interpreter: it walks a BPF
// program over all paths the way the Linux 6.18 verifier does and accepts
// it or rejects it with the kernel's message.
//
// # The machine
//
// A program is a dense array of instructions (package insn), numbered by
// 8-byte slot as the kernel numbers them. Before the walk, insn.Analyze
// validates the program and computes its control-flow facts: subprograms,
// prune points, jump points, force checkpoints and the registers live
// before each instruction.
//
// The walk is depth first. The current path's state (package states: per
// call frame eleven registers and the stack slots; per path the acquired
// references, locks and the jump history) is updated instruction by
// instruction. At a conditional jump whose outcome the bounds do not
// decide, a copy of the state for the taken edge is pushed on a stack of
// pending branches (at most MaxJmpSeq) and the walk goes on with the
// fall-through; each edge's copy is refined with what the comparison
// proves (states.Refine, NULL checks, packet range checks). When a path
// ends (program exit, or a prune), the most recently pushed branch
// resumes. Every simulated instruction counts towards insn_processed, and
// the walk stops with ErrComplexityLimit past MaxProcessedInsns.
//
// # Registers
//
// A register is NotInit, a scalar (a tnum plus signed and unsigned 64- and
// 32-bit bounds), or a pointer: to the context, the stack (of a given
// frame), a map (the map itself, a key, or a value, maybe NULL), packet
// data, packet meta or packet end, a socket, memory returned by a helper.
// A pointer carries a fixed offset Off and a variable offset in its scalar
// part. Memory accesses check the pointer kind and the offsets against
// the object: the map's value size, the packet range proven by
// comparisons with data_end, the context layout of the program type
// (ctxaccess.Layout), the 512-byte stack.
//
// # Helpers
//
// Helper prototypes are data (package helpers): argument and return
// kinds, GPL-only, packet access. checkFuncArg checks each argument the
// way the kernel's check_func_arg does; helpers.Allowed says which program
// types may call which helper, mapHelperCompatible which maps go with
// which helper. r1-r5 are clobbered after a call; r0 is set from the
// return kind (a map value or NULL with a fresh id, an acquired socket
// reference...).
//
// # Pruning
//
// At each prune point, isStateVisited asks the prune store (package
// prune) for the explored states at that instruction and call site. If one
// subsumes the current state (states.EqualEnv.StatesEqual: every register
// live at that point and every stack slot of the old state is at least as
// general), the path is cut. Otherwise, when the kernel's checkpoint
// heuristic says so, a copy of the current state becomes a new explored
// state (a checkpoint) and the parent of the current one. The store keeps
// hit and miss counters per explored state and drops those that miss too
// often; see package prune for the policy.
//
// # Profiling
//
// With Options.Profile, a profile.Recorder counts every simulated
// instruction (a visit), every state stored, hit, miss and eviction at a
// prune point, and for each miss the first difference between the stored
// state and the current one (states.EqualEnv.Mismatch, compared in the
// mode the decision used). The verifier only calls its hooks, which are
// a nil test when profiling is off; Result.Profile is built from it
// (package profile).
//
// # BTF-typed programs and kfuncs
//
// Tracing programs (tp_btf, fentry, fexit, fmod_ret) get their context from
// the attach target's prototype in the kernel's BTF: pointer arguments are
// BTF-typed pointers, loads through them walk the struct the way the
// kernel's btf_struct_access does. A pointer such a walk reads keeps trust
// or RCU protection only through the fields the kernel lists as safe;
// any other is untrusted (stablefix.WalkUntrusted; 6.18.0 left a plain
// legacy pointer that helpers take). kfunc calls are checked against their
// BTF prototype and a table of the kernel's kfunc flags (acquire, release,
// RCU arguments...); every pointer argument must be trusted and not NULL
// unless marked __nullable or __opt (the live kernel makes trusted
// arguments the default for all kfuncs).
//
// # Loops, iterators, locks and timers
//
// Bounded loops are walked until they exit; an exact repeat of a state is
// "infinite loop detected". bpf_loop and for_each_map_elem callbacks,
// open-coded iterators (num, bits, task, task_vma, css, css_task) and may_goto are
// verified as loops that converge, as the kernel does: states at the loop
// head are compared in range-within mode and scalars the loop changes are
// widened. Spin locks (one per map value) and timers, with their async
// callbacks, follow the kernel's rules.
//
// # Load inputs
//
// What a loader hands over with the instructions changes verdicts too, and
// comes with the [loader.Program]: its license (GPL-only helpers) and its
// load flags. BPF_F_STRICT_ALIGNMENT makes every pointer access check its
// natural alignment (check_ptr_alignment), BPF_F_ANY_ALIGNMENT cancels it;
// BPF_F_TEST_STATE_FREQ puts a checkpoint at every prune point;
// BPF_F_SLEEPABLE allows the helpers that might sleep and narrows the
// program and map types allowed. A map load that no relocation bound is a
// file descriptor of the loading process, which vercheck cannot resolve.
//
// # Sleepable programs and RCU
//
// A sleepable program (".s" sections, syscall programs) runs outside an RCU
// read section unless it opens one with bpf_rcu_read_lock (rcu.go): there
// pointers read through trusted ones are untrusted unless the kernel lists
// the field as safe (its "<struct>__safe_*" BTF structs), RCU-protected
// kfuncs are refused, and bpf_rcu_read_unlock turns RCU pointers untrusted.
// Sleepable trampolines attach only to the running kernel's
// error-injectable functions (sleepable.go).
//
// # Kernel builds
//
// Builds of one 6.18 release differ by the stable fixes they carry, and
// some fixes change verdicts. Options.MissingFixes names the fixes the
// target kernel lacks (package stablefix, which also probes the running
// kernel); the zero value applies every fix, the strictest semantics.
// Each fix is one guarded branch in the code of the operation it changes
// (pointer arithmetic, is_branch_taken, the iterator slot lookup,
// precision backtracking through atomics, variable-offset stack writes,
// sync_linked_regs, regsafe for packet pointers, the sleepable LSM hooks).
// An upstream fix that relaxed a rule is entered as the
// old rule, so that applying an entry never accepts more.
//
// # What is not modelled
//
// Features vercheck does not model yet (sleepable fentry/fexit where the
// kernel's error-injection list cannot be read, load flags other than those
// above and BPF_F_TEST_RND_HI32, BPF_F_XDP_HAS_FRAGS and
// BPF_F_XDP_DEV_BOUND_ONLY (which change no check), kfuncs outside its
// table, struct_ops types other than tcp_congestion_ops, bpf_dummy_ops and
// sched_ext_ops (hid_bpf_ops, Qdisc_ops), writes to LSM
// contexts, moving objects of the program's own structs into kptrs
// without a loader model, uptrs to kernel structs (the kernel refuses
// the map), graph roots in map values without
// a loader model, ksyms of kernel modules, stores through BTF pointers where a
// program type allows some) are rejected with an error wrapping ErrUnsupported whose message
// starts with "unsupported:". They are never accepted.
//
// The kernel refuses some programs after an accepted walk, in the passes
// that rewrite it for the JIT; vercheck replays them on lengths
// (rewrite.go): a rewrite (a converted context load, a division by a
// register, an inlined helper or map lookup, may_goto, LD_ABS, an inlined
// bpf_loop) whose growth would push a jump crossing it past a 16-bit
// offset, once the program is longer than 32,767 instructions ("insn N
// cannot be patched due to 16-bit range", ENOMEM), and more than 1,024
// direct tail calls (tailcall.go). Where a rewrite's length is not
// modelled and could decide the refusal, the program is unsupported. The
// replay gives the rewritten length too (Stats.XlatedInsns), which --kernel
// compares with the kernel's xlated_prog_len.
package verifier

// Package prune is the explored-state store of vercheck's pruning engine.
//
// The verifier walks every path of a program depth first. At prune points it
// asks whether the current state is covered by a state it has already
// explored at the same instruction; if so, the path is cut ("safe"). The
// states it compares against are checkpoints: snapshots taken at earlier
// visits. This package keeps those checkpoints, decides when a checkpoint is
// not worth keeping, frees states when nothing refers to them any more, and
// counts the statistics the kernel prints (total_states, peak_states,
// max_states_per_insn). The comparison itself (Subsumes and friends) and the
// walk of is_state_visited live in the verifier; this package holds the
// lists, counters, eviction and freeing.
//
// # The table
//
// Checkpoints live in buckets. Like Linux, the bucket of instruction i
// reached in a frame whose call site is c is
//
//	uint32(i ^ c) % progLen
//
// where progLen is the program length in raw instruction slots and c is
// [MainCallSite] (-1) for the outermost frame of the main program and of
// every global subprogram. The xor is done on signed 32-bit values and the
// remainder on unsigned ones, as in C where an int is converted to unsigned
// before the modulo. The table therefore has collisions: two instructions,
// or one instruction reached from two call sites, can share a bucket. A
// bucket walk visits all of them (the verifier skips those of another
// instruction), and the kernel's max_states_per_insn counts the whole
// bucket, collisions included, so [BucketIndex] reproduces the hash exactly.
// New checkpoints go to the head of their bucket: the newest is compared
// first.
//
// A walk compares only its own instruction's checkpoints; the others it
// passes over, and counts. Most buckets hold one instruction's. A bucket
// that gets a second instruction's becomes mixed: it keeps a list per
// instruction, and a walk follows its own instruction's list and counts
// the others at once ([Bucket.Skipped]), in the order a walk of the whole
// list would have met them. A function called from many chains collides
// with itself at every instruction (verifier_liveness_exp: 13 entries a
// walk, one of its instruction), and each entry a walk passes over is a
// cache line read only after the previous one gave its link. Keys beside
// the entries (instruction, chain, done mark), read before the entries,
// were measured too: they spared other chains' entries as well, but cost
// the corpus, whose walks compare nearly every entry, a line of keys a
// walk (4-6%).
//
// # Hits, misses and eviction
//
// Each checkpoint counts hits (it pruned a path) and misses (it was compared
// and did not match, and the verifier was about to add a checkpoint here
// anyway). A checkpoint is evicted from its bucket when
//
//	miss > n*hit + n
//
// with n = [KernelMissMul] = 3 normally. The rule (Linux 5.2) says a
// checkpoint that keeps missing is unlikely ever to prune: every miss costs a
// full state comparison and makes the bucket longer, while the kernel
// observed that dropping such states raises insn_processed very little. The
// "+n" lets a fresh checkpoint miss a few times before its usefulness is
// judged. At a force checkpoint (iterator next, may_goto, callback-calling
// helper) whose state still has open branches, n is [KernelForceMul] = 64
// (Linux 6.7): such a checkpoint is the head of a loop still being
// explored, and convergence of the loop (detected by comparing against it)
// fails if it is evicted early.
//
// Misses are only counted when a new checkpoint will be added (see
// [Store.Miss]): inside a loop, where the verifier declines to checkpoint
// every iteration, counting would let later iterations evict the states
// recorded at earlier ones, and the goal is to keep some from the start
// and some from the end of the loop.
//
// # When a checkpoint is taken
//
// Outside force checkpoints, a prune point only gets a new checkpoint when at
// least [MinJumpsBetweenCheckpoints] (2) jumps and [MinInsnsBetweenCheckpoints]
// (8) instructions were processed since the last one (Linux 5.3, bounded
// loops). Checkpointing every prune point is wasteful: straight-line code
// between two nearby jumps adds little information, and the kernel measured
// up to half the memory saved. When the bucket holds an ancestor of the
// current state (a loop is being explored), a checkpoint is also suppressed
// unless [LoopJumpsBetweenCheckpoints] (20) jumps or
// [LoopInsnsBetweenCheckpoints] (100) instructions have passed: every loop
// iteration has distinct state, so one checkpoint per iteration would blow
// up memory (the worst loop, two instructions long, would store one state
// per iteration); with 100 instructions the 1M-instruction budget bounds
// a loop to 10k checkpoints, and the bound is not higher because states near
// a loop's end do help pruning.
//
// # Freeing: the free list
//
// An evicted checkpoint cannot always be released: a state still on the
// DFS path below it has it as Parent, and the verifier walks the parent
// chain when a path ends (update_branch_counts). The store therefore puts
// evicted checkpoints on a free list and releases them according to the
// [Freeing] policy:
//
//   - [FreeBranches] (Linux 6.15+, the default): a state on the free list is
//     released as soon as its Branches count is 0 (no path below it is
//     still open) and its loop (SCC) has no pending back-edges whose
//     precision propagation might still read it. The check happens at
//     eviction and whenever the verifier reports that the state's Branches
//     reached 0 ([Store.BranchesDone]). The rest is released at the end.
//   - [FreeLivenessDone] (the original design, Linux 5.2 to 6.14): at
//     eviction a state whose exploration is done (Branches == 0) is released
//     at once; anything else goes to the free list, which is only released
//     at the end. A state on the free list is never released early.
//   - [FreeAtEnd]: nothing is released before the end.
//
// # Driving the store
//
// The verifier's is_state_visited uses the store like this (cs is the call
// site of the current frame, force whether insn is a force checkpoint,
// forceNew whether a checkpoint is forced for any reason: force, a long jump
// history, BPF_F_TEST_STATE_FREQ):
//
//	add := pol.WantCheckpoint(jmpsSince, insnsSince, forceNew)
//	n := store.Walk(insn, cs, func(e *prune.Entry) bool {
//		if e.State.InsnIdx != insn { return true } // a collision: counted, skipped
//		if e.State.Branches > 0 {                  // an ancestor: a loop
//			... loop checks; on convergence store.Hit(e), prune ...
//			if !forceNew && pol.LoopSuppress(jmpsSince, insnsSince) { add = false }
//		} else if covered(e.State, cur) {
//			store.Hit(e); pruned = true; return false
//		}
//		if add { store.Miss(e, force) } // may evict e; do not touch e after
//		return true
//	})
//	if pruned { return }
//	store.NoteBucketLen(n)
//	if add { cur.Parent = store.Add(insn, cs, checkpointOf(cur)).State }
//
// The entry answers the walk's first questions without the (cold) state:
// e.Insn is its insn, e.Done() whether Branches reached 0, e.Chain its call
// chain's key (states.State.ChainKey: when it differs from cur's, every
// comparison fails and the entry is only counted and missed), e.Quick a
// stored constant a comparison failed at.
//
// When a path ends, the verifier decrements Branches up the Parent chain
// and calls [Store.BranchesDone] for each state that reached 0 (after
// reading its Parent). Loop back-edge states it keeps are reported with
// [Store.AddBackedge] and [Store.RemoveBackedges]; [Store.SetPending] tells
// the store which states still wait for them. At the end of each pass,
// [Store.Release] returns everything to the pool.
//
// Descendants of a released state keep a stale Parent pointer to it, as in
// the kernel. They are harmless: a released state has Branches == 0, so all
// its descendants are finished, and finished states' parent chains are
// never walked again.
//
// # Statistics
//
// total_states counts every checkpoint ever added. max_states_per_insn is
// the longest bucket walk (see [Store.NoteBucketLen]). peak_states follows
// the era of the freeing policy:
//
//   - 6.15+ (FreeBranches, FreeAtEnd): the maximum over time of explored
//     (states in buckets) + free list + pending back-edges, updated when a
//     checkpoint or back-edge is added or back-edges are dropped.
//   - pre-6.15 (FreeLivenessDone): a running count incremented per
//     checkpoint and decremented per immediate release. Despite its name it
//     is not a maximum; this is what those kernels printed.
//
// Linux does not reset the explored and free-list counters between the
// passes of one program (each global subprogram, then main), so peak_states
// of a later pass includes the states of the earlier ones. [Store.Release]
// keeps the counters for the same reason.
package prune

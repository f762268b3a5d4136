// Package profile explains a verification: where the search spent its
// processed instructions, where checkpoints were stored, which of them
// pruned, and why the others did not.
//
// The kernel prints five figures per program (insn_processed,
// max_states_per_insn, total_states, peak_states, the stack depths). A
// developer fighting "BPF program is too large", or asking why a change
// doubled insn_processed, needs them per source line, per loop and per
// subprogram, and needs to know which register or stack slot kept a new
// state from matching a stored one. vercheck's pruning engine knows all
// of it; this package collects it (a [Recorder] the verifier feeds through
// cheap hooks) and builds the [Profile] from it once the verification is
// over.
//
// # What is counted
//
// Visits: every instruction the verifier simulates, on every path, counts
// one visit to that instruction, including a visit that ends at once
// because a stored state pruned the path there. Visits therefore sum
// exactly to insn_processed, the kernel's figure.
//
// At a prune point the current state is compared with the states stored
// at that instruction. A hit is a comparison that pruned the path; a miss
// one that did not (misses sum to verifier.Stats.Misses, hits to Hits).
// States added counts checkpoints stored at the instruction (they sum to
// total_states), evictions the checkpoints dropped there for missing too
// often (the kernel's miss > 3*hit + 3 rule). Max states is the longest
// list walked there without a prune, the per-instruction view of
// max_states_per_insn (the kernel's list is a hash bucket, so it may hold
// states of a colliding instruction too).
//
// Miss reasons: for every miss, the first difference between the stored
// state and the current one, in the order of the kernel's states_equal
// (states.Mismatch): which register or stack slot of which frame, and how
// it differs (see [Reason]). A stored state that is an ancestor of the
// current path (a loop whose iteration is still being explored) is never
// used for pruning by the kernel unless the loop is an iterator, may_goto
// or callback loop; for it the reason is what its exact comparison (the
// infinite-loop check) found, marked Ancestor: usually the loop's counter.
//
// Loops are the strongly connected components of the control-flow graph
// (insn.CFG.Loops). A loop's iterations are the visits of its header
// reached from inside the loop (a back-edge taken), its entries the visits
// reached from outside; its counters sum those of its instructions.
//
// # Rendering
//
// [Profile.WriteText] draws the tables of vercheck --profile,
// [Profile.Budget] explains a complexity-limit rejection in two sentences,
// [WriteHTML] writes one self-contained page for many reports, with each
// program's control-flow graph drawn as inline SVG (blocks coloured by
// visits, loops marked), and [Compare] says which lines and loops grew or
// shrank between two builds.
//
// # JSON
//
// A Profile marshals with encoding/json to the documented, stable field
// names below; vercheck --profile-out writes one [Report] per program
// inside
//
//	{"version": 1, "programs": [{"object": ..., "program": ..., "verdict": ...,
//	  "error": ..., "budget": [...], "profile": PROFILE}]}
//
// (error and budget only for a rejection, budget only at a complexity
// limit: see [Profile.Budget]; profile is null for a program refused
// before its walk).
//
// PROFILE:
//
//	insn_processed, states_added, hits, misses, evictions, max_states   totals
//	insns:    [{insn, text, file, line, visits, states_added, hits, misses,
//	            evictions, max_states, miss_reasons}]   every instruction with a
//	                                                    nonzero counter, in order
//	lines:    [{file, line, source, insns, <counters>, miss_reasons}]
//	                                                    source lines, by file and line
//	subprogs: [{index, name, start, end, stack_depth, <counters>}]
//	loops:    [{scc, header, file, line, source, size, entries, iterations,
//	            <counters>, miss_reasons}]
//	blocks:   [{start, end, subprog, loop, succs, <counters>}]
//	                                                    basic blocks of the CFG, in order;
//	                                                    loop is the SCC, succs block indices
//	miss_reasons: [{kind, where, old, cur, precise, ancestor, count, text}],
//	            most frequent first
//
// Counts are integers, instructions are kernel instruction indices (8-byte
// slots), file and line come from the program's BTF line info (the last
// record at or before the instruction, as the kernel's log does), kind is
// a states.MismatchKind name (type, range, tnum, offset, pkt_range, id,
// uninit, spill, slot, refs, call_chain, speculative, sleepable) or
// "ancestor" for an ancestor identical up to what only the loop checks
// look at. Fields may be added in later versions; none is renamed or
// removed without a version change.
package profile

// Package states holds vercheck's abstract machine state: registers, stack
// slots, call frames and whole verifier states, and the scalar domain they
// are built on. It knows nothing of the verifier or of cilium/ebpf; every
// operation is a pure function of values.
//
// # The scalar domain
//
// A Scalar abstracts a set of 64-bit values by the product of five
// components, each a set of values:
//
//	Var            a tnum: each bit known 0, known 1, or unknown
//	[SMin, SMax]   the value read as int64
//	[UMin, UMax]   the value read as uint64
//	[S32Min, S32Max], [U32Min, U32Max]
//	               the low 32 bits read as int32 / uint32
//
// and stands for γ(s), the values that lie in all five. The lattice is
//
//	order    a ⊑ b iff γ(a) ⊆ γ(b). The decidable part of it, used for
//	         pruning, is b.RangeWithin(a) && b.Var.In(a.Var): each of a's
//	         eight bounds inside b's and a's tnum a subset of b's. An old
//	         state "subsumes" a current one when this holds for every
//	         precise scalar (the kernel's range_within and tnum_in).
//	top      UnknownScalar(): every bound at its type's limits, no bit
//	         known (__mark_reg_unknown).
//	constant ConstScalar(v): γ = {v} (__mark_reg_known).
//	meet     component-wise intersection, Tnum.Intersect for the tnum;
//	         Refine computes the meet of a scalar with a jump condition.
//	join     not computed: like the kernel, vercheck keeps one state per
//	         path and never widens; pruning asks for ⊑ instead.
//	bottom   any scalar whose Valid() is false (a min above its max, or a
//	         constant tnum outside its bounds): an infeasible edge.
//
// The components are redundant, and Sync (the kernel's reg_bounds_sync)
// moves knowledge between them: bounds from the tnum, signed from unsigned
// and back within each width, 32 bits from 64 and 64 from 32, then known
// bits from the bounds. Sync narrows without changing γ, but it is not a
// closure operator (a second call can narrow further), so it is called
// exactly where the kernel calls it; the insn_processed parity with Linux
// depends on the bounds being the same bit for bit. Being a pure function
// of the scalar, its results are remembered (syncMemo, shared by parallel
// verifications): most scalars synced have been synced before.
//
// The bounds logic shared by both widths (range arithmetic, signed and
// unsigned deduction, narrowing by known bits) is written once, over
// ival[S, U] with S, U the signed and unsigned types of the width.
//
// # Operations
//
// ScalarALU, SignExtend, Truncate and ZeroExtend32 are the abstract
// transfer functions of ALU instructions and loads, ports of the Linux
// 6.18 adjust_scalar_min_max_vals, coerce_reg_to_size(_sx) and
// zext_32_to_64. They are sound: every concrete result of the instruction
// on members of its operands is a member of the result, which the tests
// check by running a concrete interpreter on random members. BranchTaken
// decides a conditional jump from the operands alone
// (is_scalar_branch_taken) and Refine narrows both operands for one edge
// (regs_refine_cond_op); NegateJmp and FlipJmp are the kernel's rev_opcode
// and flip_opcode.
//
// # Comparing against checkpoints
//
// StatesEqual runs once per stored checkpoint in a bucket at every prune
// point, so it is written for cold old states: it reads the live registers
// first, and for a checkpoint sealed by State.Seal (the explored-state
// store seals every state it keeps) it walks a compact summary of the
// stack, one packed word of byte kinds per slot plus bitmasks of the slots
// it can skip, touching an old slot only when it holds a spilled register
// or an object. A sealed state's stack must only change through Clean,
// which keeps the summary current; copies are never sealed.
//
// # Holding many states
//
// A search may hold hundreds of thousands of states at once: checkpoints
// in a loop that never converges, branches pushed by a may_goto loop at
// every iteration. Their memory, not their copying, then decides the time,
// since every fresh page costs a fault. Such states are packed
// (Pool.ClonePacked): a frame keeps only the stack slots some byte of which
// was written, with a bit mask of which, so a checkpoint of a program that
// wrote fp-512 once holds one slot, not 64; and only the registers that
// are not the canonical NotInit register, so a cleaned checkpoint holds
// the few registers still live, not eleven (a 200,000-state iterator loop
// held 1.3 KB of frame per state, most of it dead registers). Every
// reader goes through Frame.Slot, Frame.NumSlots and Frame.Reg, which give
// both layouts the same meaning; the interpreter's Frame.Regs is the
// working layout's array. A packed pending branch becomes dense again when
// it resumes (Pool.Resume), in the memory of the path that ended. The
// kernel keeps its states dense; the layout decides no answer and no
// figure.
package states

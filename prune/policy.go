package prune

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kernel constants of the pruning heuristics. Each is the value Linux 6.18
// uses; the package documentation explains why.
const (
	// KernelMissMul and KernelMissAdd form the eviction rule
	// miss > 3*hit + 3: a checkpoint that missed that often is unlikely to
	// ever prune, and keeping it only lengthens every bucket walk.
	KernelMissMul = 3
	KernelMissAdd = 3

	// KernelForceMul is n in miss > n*hit + n at a force checkpoint whose
	// state still has open branches: the checkpoint heads a loop under
	// exploration, and evicting it early stops the loop from converging.
	KernelForceMul = 64

	// MinJumpsBetweenCheckpoints and MinInsnsBetweenCheckpoints: a prune
	// point only gets a checkpoint after this many jumps and instructions
	// since the last one; checkpointing every prune point costs memory for
	// little pruning.
	MinJumpsBetweenCheckpoints = 2
	MinInsnsBetweenCheckpoints = 8

	// LoopJumpsBetweenCheckpoints and LoopInsnsBetweenCheckpoints: inside a
	// loop (an ancestor is in the bucket) a checkpoint is suppressed until
	// this many jumps or instructions have passed, so that not every
	// iteration is stored; 1M processed insns / 100 bounds a loop to 10k
	// checkpoints.
	LoopJumpsBetweenCheckpoints = 20
	LoopInsnsBetweenCheckpoints = 100

	// MaxJmpHistory is the jump-history length past which the verifier
	// forces a checkpoint, keeping the history (and precision backtracking
	// over it) bounded.
	MaxJmpHistory = 40

	// UnprivStatesPerBucket is BPF_COMPLEXITY_LIMIT_STATES: for an
	// unprivileged program, a bucket walk longer than this stops new
	// checkpoints at that instruction (the program is not rejected).
	UnprivStatesPerBucket = 64
)

// Freeing says when an evicted checkpoint is released to the pool.
type Freeing uint8

// Freeing policies.
const (
	// FreeBranches (Linux 6.15+, default): an evicted state is released
	// once its Branches reach 0 and it has no pending back-edges; the rest
	// at the end.
	FreeBranches Freeing = iota
	// FreeLivenessDone (the design; Linux 5.2-6.14): released at eviction
	// if its exploration is done (Branches == 0), else put on a free list
	// that is released only at the end.
	FreeLivenessDone
	// FreeAtEnd: evicted states are kept until the end.
	FreeAtEnd
	numFreeing
)

var freeingNames = [numFreeing]string{
	FreeBranches:     "branches",
	FreeLivenessDone: "done",
	FreeAtEnd:        "end",
}

// String returns the name used in policy strings ("branches", "done",
// "end"), or "Freeing(N)" for an unknown value.
func (f Freeing) String() string {
	if f < numFreeing {
		return freeingNames[f]
	}
	return "Freeing(" + strconv.Itoa(int(f)) + ")"
}

// Policy is a pruning policy: the eviction rule, the freeing rule and the
// checkpoint heuristics.
type Policy struct {
	// Name is the policy's name as given to ParsePolicy.
	Name string
	// Evict turns the drop rule on.
	Evict bool
	// MissMul and MissAdd: evict when miss > MissMul*hit + MissAdd.
	MissMul, MissAdd int32
	// ForceMul is n used at a force checkpoint whose state has open
	// branches: evict when miss > n*hit + n.
	ForceMul int32
	// Freeing says when evicted states are released.
	Freeing Freeing
	// MinJumps and MinInsns: a checkpoint needs at least this many jumps
	// and instructions since the last one.
	MinJumps, MinInsns int32
	// LoopJumps and LoopInsns: inside a loop, no checkpoint until this many
	// jumps or instructions since the last one.
	LoopJumps, LoopInsns int32
}

// DefaultPolicy returns the policy of Linux 6.18.
func DefaultPolicy() Policy {
	return Policy{
		Name:      "default",
		Evict:     true,
		MissMul:   KernelMissMul,
		MissAdd:   KernelMissAdd,
		ForceMul:  KernelForceMul,
		Freeing:   FreeBranches,
		MinJumps:  MinJumpsBetweenCheckpoints,
		MinInsns:  MinInsnsBetweenCheckpoints,
		LoopJumps: LoopJumpsBetweenCheckpoints,
		LoopInsns: LoopInsnsBetweenCheckpoints,
	}
}

// NoCheckpointPolicy returns the 6.18 policy without voluntary
// checkpoints: states are stored only where the verifier must (force
// checkpoints: iterator and may_goto loop heads, callback calls), so a
// search under it prunes almost nothing. It is the pruning engine's own
// oracle: a program accepted under DefaultPolicy and rejected under this
// one (short of the complexity limit) had a path pruned against a
// checkpoint that did not subsume it, and is a false accept whatever a
// kernel says.
func NoCheckpointPolicy() Policy {
	p := DefaultPolicy()
	p.Name = "no-checkpoints"
	p.MinJumps, p.MinInsns = math.MaxInt32, math.MaxInt32
	p.LoopJumps, p.LoopInsns = math.MaxInt32, math.MaxInt32
	return p
}

// WantCheckpoint reports whether a prune point should get a new checkpoint
// before the bucket walk: always at a force checkpoint, otherwise after
// MinJumps jumps and MinInsns instructions since the last checkpoint.
func (p Policy) WantCheckpoint(jmpsSince, insnsSince int32, force bool) bool {
	return force || (jmpsSince >= p.MinJumps && insnsSince >= p.MinInsns)
}

// LoopSuppress reports whether a checkpoint should be withheld because the
// walk met an ancestor of the current state (a loop) and fewer than
// LoopJumps jumps and fewer than LoopInsns instructions have passed since
// the last checkpoint. The verifier does not apply it at force checkpoints.
func (p Policy) LoopSuppress(jmpsSince, insnsSince int32) bool {
	return jmpsSince < p.LoopJumps && insnsSince < p.LoopInsns
}

// evictAfter reports whether a checkpoint with these counts is past the
// drop threshold miss > mul*hit + add. It computes in 64 bits so that large
// counts cannot overflow.
func evictAfter(hit, miss, mul, add int32) bool {
	return int64(miss) > int64(mul)*int64(hit)+int64(add)
}

// String renders the policy in ParsePolicy syntax; ParsePolicy of the
// result gives back the same rules.
func (p Policy) String() string {
	var b strings.Builder
	if p.Evict {
		fmt.Fprintf(&b, "miss>%d*hit+%d", p.MissMul, p.MissAdd)
	} else {
		b.WriteString("nodrop")
	}
	fmt.Fprintf(&b, ",force=%d,free=%s,checkpoint=%d/%d,loop=%d/%d",
		p.ForceMul, p.Freeing, p.MinJumps, p.MinInsns, p.LoopJumps, p.LoopInsns)
	return b.String()
}

// ErrBadPolicy is wrapped by every ParsePolicy error.
var ErrBadPolicy = errors.New("bad pruning policy")

// Policy option kinds, used to reject an option given twice.
const (
	optDrop = 1 << iota
	optForce
	optFree
	optCheckpoint
	optLoop
)

// ParsePolicy parses a policy string: comma-separated options applied to the
// 6.18 default.
//
//	default, kernel        the 6.18 policy (no change)
//	nodrop                 never evict
//	miss>A*hit+B           evict when miss > A*hit + B (e.g. miss>5*hit+2)
//	force=N                n at force checkpoints with open branches
//	free=branches|done|end the Freeing policy
//	checkpoint=J/I         a checkpoint needs J jumps and I insns
//	loop=J/I               inside a loop, J jumps or I insns
//
// Example: "nodrop,free=end". The empty string is the default policy.
func ParsePolicy(s string) (Policy, error) {
	p := DefaultPolicy()
	s = strings.TrimSpace(s)
	if s == "" {
		return p, nil
	}
	p.Name = s
	seen := 0
	for tok := range strings.SplitSeq(s, ",") {
		tok = strings.TrimSpace(tok)
		kind, err := applyOption(&p, tok)
		if err != nil {
			return Policy{}, fmt.Errorf("policy %q: %w", s, err)
		}
		if kind&seen != 0 {
			return Policy{}, fmt.Errorf("policy %q: %w: option %q conflicts with an earlier one", s, ErrBadPolicy, tok)
		}
		seen |= kind
	}
	return p, nil
}

// applyOption applies one option to p and returns its kind (0 for the
// default keywords).
func applyOption(p *Policy, tok string) (int, error) {
	switch tok {
	case "":
		return 0, fmt.Errorf("%w: empty option", ErrBadPolicy)
	case "default", "kernel":
		return 0, nil
	case "nodrop":
		p.Evict = false
		return optDrop, nil
	}
	if rest, ok := strings.CutPrefix(tok, "miss>"); ok {
		mul, add, err := parseMissRule(rest)
		if err != nil {
			return 0, fmt.Errorf("%w: %q: %w", ErrBadPolicy, tok, err)
		}
		p.Evict, p.MissMul, p.MissAdd = true, mul, add
		return optDrop, nil
	}
	key, val, ok := strings.Cut(tok, "=")
	if !ok {
		return 0, fmt.Errorf("%w: unknown option %q", ErrBadPolicy, tok)
	}
	switch key {
	case "force":
		n, err := parseCount(val)
		if err != nil {
			return 0, fmt.Errorf("%w: %q: %w", ErrBadPolicy, tok, err)
		}
		p.ForceMul = n
		return optForce, nil
	case "free":
		for f := range numFreeing {
			if val == f.String() {
				p.Freeing = f
				return optFree, nil
			}
		}
		return 0, fmt.Errorf("%w: %q: want free=branches, free=done or free=end", ErrBadPolicy, tok)
	case "checkpoint", "loop":
		j, i, err := parsePair(val)
		if err != nil {
			return 0, fmt.Errorf("%w: %q: %w", ErrBadPolicy, tok, err)
		}
		if key == "loop" {
			p.LoopJumps, p.LoopInsns = j, i
			return optLoop, nil
		}
		p.MinJumps, p.MinInsns = j, i
		return optCheckpoint, nil
	}
	return 0, fmt.Errorf("%w: unknown option %q", ErrBadPolicy, tok)
}

// parseMissRule parses "A*hit+B".
func parseMissRule(s string) (mul, add int32, err error) {
	a, rest, ok := strings.Cut(s, "*hit+")
	if !ok {
		return 0, 0, errors.New("want miss>A*hit+B")
	}
	if mul, err = parseCount(a); err != nil {
		return 0, 0, err
	}
	if add, err = parseCount(rest); err != nil {
		return 0, 0, err
	}
	return mul, add, nil
}

// parsePair parses "J/I".
func parsePair(s string) (j, i int32, err error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, errors.New("want JUMPS/INSNS")
	}
	if j, err = parseCount(a); err != nil {
		return 0, 0, err
	}
	if i, err = parseCount(b); err != nil {
		return 0, 0, err
	}
	return j, i, nil
}

// parseCount parses a non-negative 32-bit decimal number.
func parseCount(s string) (int32, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number %q", s)
	}
	return int32(n), nil
}

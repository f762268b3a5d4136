package mutate

import (
	"fmt"
	"math/rand/v2"
)

// LoadFlagsOperator names the mutation that loads a mutant with one of the
// load flags that change what the verifier checks toggled: the seeds are
// loaded as their authors' loaders load them, which ask for none of these.
const LoadFlagsOperator = "load flags"

// LoadFlagsShare is the probability that a mutant has one load flag
// toggled.
const LoadFlagsShare = 0.1

// Load flags (include/uapi/linux/bpf.h, BPF_F_*) the operator toggles.
const (
	loadFStrictAlignment   = 1 << 0
	loadFAnyAlignment      = 1 << 1
	loadFTestStateFreq     = 1 << 3
	loadFTestRegInvariants = 1 << 7
)

// toggledLoadFlags are the flags the operator draws from, and why each:
// strict alignment checks every pointer access's alignment (the packet's
// NET_IP_ALIGN, the stack, the context), which no seed asked for; any
// alignment takes it back; a checkpoint at every instruction makes every
// instruction a place where pruning decides (the equivalence rules met at
// places no loop or branch of the seeds put them); the kernel's own bounds
// invariants turn from a silent reset into a failed load.
var toggledLoadFlags = []loadFlag{
	{loadFStrictAlignment, "BPF_F_STRICT_ALIGNMENT"},
	{loadFAnyAlignment, "BPF_F_ANY_ALIGNMENT"},
	{loadFTestStateFreq, "BPF_F_TEST_STATE_FREQ"},
	{loadFTestRegInvariants, "BPF_F_TEST_REG_INVARIANTS"},
}

// loadFlag is one load flag and its name in the uapi header.
type loadFlag struct {
	flag uint32
	name string
}

// withLoadFlagToggled loads m with one of toggledLoadFlags, drawn from r,
// toggled.
func (m Mutant) withLoadFlagToggled(r *rand.Rand) Mutant {
	f := toggledLoadFlags[r.IntN(len(toggledLoadFlags))]
	m.ToggleFlags ^= f.flag
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)], fmt.Sprintf("%s: %s toggled", LoadFlagsOperator, f.name))
	return m.by(LoadFlagsOperator)
}

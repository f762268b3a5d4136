package verifier

// Precision tracking.
//
// The kernel starts scalars imprecise for privileged loaders and marks a
// scalar precise, backtracking through the path's history into parent
// checkpoints, only when its exact value decides safety. Until vercheck's
// backtracking is complete it takes the always-sound shortcut: every
// scalar stored in a checkpoint is precise, so an explored state only
// subsumes a new one when all its scalar ranges contain the new ones.
// This prunes less than the kernel (more insn_processed), never more.

// markChainPrecision requests precision for regno's value on the current
// path. With all checkpoint scalars precise there is nothing to do.
func (e *env) markChainPrecision(regno int) error { return nil }

// markStackPrecise requests precision for a spilled scalar.
func (e *env) markStackPrecise(frame, spi int) error { return nil }

// propagatePrecision carries the precise marks of an explored state that
// subsumed cur back into cur's ancestors.
func (e *env) propagatePrecision(old, cur any) error { return nil }

// markAllScalarsImprecise forgets inherited precision at a new
// checkpoint. In the all-precise mode the checkpoint keeps every scalar
// precise instead (see storeCheckpoint).
func (e *env) markAllScalarsImprecise(cur any) {}

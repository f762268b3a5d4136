package verifier

// Preempt-disabled sections: bpf_preempt_disable and bpf_preempt_enable
// (the preempt part of check_kfunc_call). The sections nest: the state
// counts them (active_preempt_locks), every path must close them before
// it leaves the program (check_resource_leak), and nothing that might
// sleep may be called inside one.

// Kfuncs that open and close a preempt-disabled section.
const (
	kfuncPreemptDisable = "bpf_preempt_disable"
	kfuncPreemptEnable  = "bpf_preempt_enable"
)

// updatePreemptLock is the preempt part of check_kfunc_call, after the
// RCU part: bpf_preempt_disable opens one more section,
// bpf_preempt_enable closes one, and inside a section a sleepable kfunc
// is refused.
func (e *env) updatePreemptLock(name string, sleepable bool) error {
	disable, enable := name == kfuncPreemptDisable, name == kfuncPreemptEnable
	switch {
	case disable:
		e.cur.ActivePreemptLocks++
	case enable && e.cur.ActivePreemptLocks == 0:
		return e.reject(e.insnIdx, "unmatched attempt to enable preemption (kernel function %s)", name)
	case enable:
		e.cur.ActivePreemptLocks--
	case sleepable && e.cur.ActivePreemptLocks > 0:
		return e.reject(e.insnIdx, "kernel func %s is sleepable within non-preemptible region", name)
	}
	return nil
}

package mutate

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/cilium/ebpf"
)

// AttachTargetOperator names the mutation that loads a tracing or LSM
// program against another attach target of its kind: another kernel
// function for fentry, fexit and fmod_ret, another raw tracepoint for
// tp_btf, another LSM hook. The kernel types the program's context from
// the target's BTF prototype (btf_ctx_access: which arguments are
// pointers, to what, which are trusted or may be NULL, what fexit's
// return value is), so a program loaded against another target reads
// arguments of other types, or past the last one; every other operator
// keeps the target the seed's author chose.
const AttachTargetOperator = "attach target"

// AttachTargetShare is the probability that a mutant of a program with
// other attach targets (Env.AttachTargets) is loaded against one.
const AttachTargetShare = 0.1

// wellKnownTargets are attach targets of each kind besides those of the
// seeds: the kernel's own BPF test functions (net/bpf/test_run.c), whose
// prototypes mix scalars and pointers, and common hooks.
var wellKnownTargets = map[ebpf.AttachType][]string{
	ebpf.AttachTraceFEntry: {"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test3", "bpf_fentry_test4",
		"bpf_fentry_test5", "bpf_fentry_test6", "bpf_fentry_test7", "bpf_fentry_test8", "bpf_fentry_test9",
		"do_unlinkat", "tcp_sendmsg", "vfs_read", "security_file_open", "bpf_prog_test_run_skb"},
	ebpf.AttachTraceFExit: {"bpf_fentry_test1", "bpf_fentry_test2", "bpf_fentry_test7", "bpf_fentry_test8",
		"do_unlinkat", "tcp_sendmsg", "vfs_read", "inet_csk_accept"},
	ebpf.AttachModifyReturn: {"bpf_modify_return_test", "bpf_modify_return_test2", "security_file_open", "bpf_fentry_test1"},
	ebpf.AttachTraceRawTp:   {"sched_switch", "sched_process_exec", "task_newtask", "sys_enter", "kfree_skb", "bpf_test_finish"},
	ebpf.AttachLSMMac:       {"file_open", "bprm_committed_creds", "task_alloc", "socket_bind", "inode_unlink", "file_mprotect"},
}

// AttachTargets returns the attach targets a program of type pt attached
// to own may be loaded against instead: seen, the targets of the seeds
// of that kind, and the well-known ones, own left out.
func AttachTargets(pt ProgType, own string, seen []string) []string {
	if own == "" || (pt.Type != ebpf.Tracing && pt.Type != ebpf.LSM) {
		return nil
	}
	var out []string
	for _, t := range append(slices.Clone(seen), wellKnownTargets[pt.Attach]...) {
		if t != own && t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// withAttachTarget loads m against one of targets, drawn from r.
func (m Mutant) withAttachTarget(r *rand.Rand, targets []string) Mutant {
	t := targets[r.IntN(len(targets))]
	m.AttachTo = t
	m.Changes = append(m.Changes[:len(m.Changes):len(m.Changes)], fmt.Sprintf("%s: attached to %s", AttachTargetOperator, t))
	return m.by(AttachTargetOperator)
}

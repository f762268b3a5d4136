package verifier

// LSM programs (BPF_PROG_TYPE_LSM, the kernel's bpf_lsm.c).
//
// An LSM program attaches to a security hook, as BPF_LSM_MAC (a trampoline
// on the hook's "bpf_lsm_<hook>" stub) or as BPF_LSM_CGROUP (run per cgroup
// by a shim). Its context is the stub's argument list, read through
// btf_ctx_access without the bounds, write and alignment checks tracing
// programs get first; the slot after the arguments is the hook's return
// value. Pointer arguments are trusted except for the hooks that run while
// their object is being created or freed.
//
// At exit an LSM_MAC program on a void hook may return anything (R0 need not
// even be set); on a hook returning 0 or 1 the low 32 bits of R0 must be in
// [0, 1]; on any other int hook in [-MAX_ERRNO, 0]. An LSM_CGROUP program
// returns 0 or 1 (only 1 on a void hook, which it cannot refuse).
//
// On the reference machine the kernel refuses to load trampoline programs
// (fentry, fexit, LSM) before verifying them (EPERM), so these rules come
// from the 6.18 sources only and were not checked against a live kernel.

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/stablefix"
)

// lsmStubPrefix names the functions an LSM program attaches to.
const lsmStubPrefix = "bpf_lsm_"

// lsmNonHooks are the functions named bpf_lsm_* in vmlinux that are not
// hooks (bpf_lsm.c's own code); attaching to one is refused.
var lsmNonHooks = map[string]bool{
	"find_cgroup_shim": true, "func_proto": true, "get_retval_range": true,
	"has_d_inode_locked": true, "hook_returns_errno": true, "init": true,
	"is_sleepable_hook": true, "is_trusted": true, "verify_prog": true,
}

// lsmDisabledHooks are the hooks BPF programs may not attach to
// (bpf_lsm_disabled_hooks): their return values are not errno codes or
// their callers cannot cope with a BPF program.
var lsmDisabledHooks = map[string]bool{
	"vm_enough_memory": true, "inode_need_killpriv": true, "inode_getsecurity": true,
	"inode_listsecurity": true, "inode_copy_up_xattr": true, "getselfattr": true,
	"getprocattr": true, "setprocattr": true, "key_getsecurity": true,
	"audit_rule_match": true, "ismaclabel": true,
}

// lsmBoolHooks return 0 or 1 (bool_lsm_hooks).
var lsmBoolHooks = map[string]bool{
	"xfrm_state_pol_flow_match": true, "audit_rule_known": true, "inode_xattr_skipcap": true,
}

// lsmUntrustedHooks run while their object is half built or being freed:
// their pointer arguments are not trusted (untrusted_lsm_hooks; the block
// device hooks are included to stay on the safe side).
var lsmUntrustedHooks = map[string]bool{
	"bpf_map_free": true, "bpf_prog_free": true, "file_alloc_security": true,
	"file_free_security": true, "sk_alloc_security": true, "sk_free_security": true,
	"task_free": true, "bdev_alloc_security": true, "bdev_free_security": true,
}

// lsmSleepableHooks may run sleepable programs (sleepable_lsm_hooks); their
// programs may also call bpf_d_path.
var lsmSleepableHooks = map[string]bool{
	"bpf": true, "bpf_map": true, "bpf_map_create": true, "bpf_map_free": true,
	"bpf_prog": true, "bpf_prog_load": true, "bpf_prog_free": true,
	"bpf_token_create": true, "bpf_token_free": true, "bpf_token_cmd": true,
	"bpf_token_capable": true, "bprm_check_security": true, "bprm_committed_creds": true,
	"bprm_committing_creds": true, "bprm_creds_for_exec": true, "bprm_creds_from_file": true,
	"capget": true, "capset": true, "cred_prepare": true, "file_ioctl": true,
	"file_lock": true, "file_open": true, "file_post_open": true, "file_receive": true,
	"inode_create": true, "inode_free_security": true, "inode_getattr": true,
	"inode_getxattr": true, "inode_mknod": true, "inode_need_killpriv": true,
	"inode_post_setxattr": true, "inode_readlink": true, "inode_rename": true,
	"inode_rmdir": true, "inode_setattr": true, "inode_setxattr": true,
	"inode_symlink": true, "inode_unlink": true, "kernel_module_request": true,
	"kernel_read_file": true, "kernfs_init_security": true, "path_unlink": true,
	"path_mkdir": true, "path_rmdir": true, "path_truncate": true, "path_symlink": true,
	"path_link": true, "path_rename": true, "path_chmod": true, "path_chown": true,
	"mmap_file": true, "netlink_send": true, "path_notify": true, "release_secctx": true,
	"sb_alloc_security": true, "sb_eat_lsm_opts": true, "sb_kern_mount": true,
	"sb_mount": true, "sb_remount": true, "sb_set_mnt_opts": true, "sb_show_options": true,
	"sb_statfs": true, "sb_umount": true, "settime": true, "inet_conn_established": true,
	"socket_accept": true, "socket_bind": true, "socket_connect": true, "socket_create": true,
	"socket_getpeername": true, "socket_getpeersec_dgram": true, "socket_getsockname": true,
	"socket_getsockopt": true, "socket_listen": true, "socket_post_create": true,
	"socket_recvmsg": true, "socket_sendmsg": true, "socket_shutdown": true,
	"socket_socketpair": true, "syslog": true, "task_alloc": true,
	"current_getsecid_subj": true, "task_getsecid_obj": true, "task_prctl": true,
	"task_setscheduler": true, "task_to_inode": true, "userns_create": true,
}

// lsmSleepableDropped are the hooks of lsmSleepableHooks that the stable
// fix stablefix.LsmSleepableHooks took out of the kernel's list: they run
// where a program cannot sleep.
var lsmSleepableDropped = map[string]bool{
	lsmStubPrefix + "task_to_inode": true, lsmStubPrefix + "inet_conn_established": true,
}

// lsmHookMaySleep is bpf_lsm_is_sleepable_hook for the hook of tc, on the
// target kernel: a hook the stable fix dropped may sleep only on kernels
// without it.
func (e *env) lsmHookMaySleep(tc *tracingCtx) bool {
	if lsmSleepableDropped[tc.name] && !e.opts.MissingFixes.Has(stablefix.LsmSleepableHooks) {
		return false
	}
	return tc.sleepableHook
}

// lsmContext resolves the hook an LSM program attaches to.
func lsmContext(spec *btf.Spec, at ebpf.AttachType, hook string) (*tracingCtx, error) {
	if at != ebpf.AttachLSMMac && at != ebpf.AttachLSMCgroup {
		return nil, fmt.Errorf("attach type %s", at)
	}
	if hook == "" || lsmNonHooks[hook] {
		return nil, fmt.Errorf("%q is not an LSM hook", hook)
	}
	proto, err := attachFunc(spec, "LSM hook", lsmStubPrefix+hook)
	if err != nil {
		return nil, err
	}
	tc := &tracingCtx{
		name:          lsmStubPrefix + hook,
		params:        proto.Params,
		all:           proto.Params,
		ret:           proto.Return,
		trusted:       !lsmUntrustedHooks[hook],
		sleepableHook: lsmSleepableHooks[hook],
		retval:        lsmRetvalRange(hook, proto.Return),
	}
	return tc, nil
}

// lsmRetvalRange is bpf_lsm_get_retval_range: the values an int hook's
// return value (and an LSM_MAC program's R0) may take.
func lsmRetvalRange(hook string, ret btf.Type) retvalRange {
	if isVoid(skipModifiers(ret)) {
		return retvalRange{}
	}
	if lsmBoolHooks[hook] {
		return retvalRange{min: 0, max: 1, ok: true}
	}
	return retvalRange{min: -maxErrno, max: 0, ok: true}
}

// checkLSMHook is the hook part of bpf_lsm_verify_prog.
func (e *env) checkLSMHook(tc *tracingCtx) error {
	hook := tc.name[len(lsmStubPrefix):]
	if lsmDisabledHooks[hook] {
		var fn *btf.Func
		spec, err := vmlinux()
		if err != nil {
			return e.unsupported(0, "%v", err)
		}
		if err := spec.TypeByName(tc.name, &fn); err != nil {
			return e.unsupported(0, "LSM hook %s: %v", hook, err)
		}
		return e.reject(0, "attach_btf_id %d points to disabled hook %s", btfTypeID(fn), tc.name)
	}
	return nil
}

// lsmCgroupVoidNote is the line the kernel adds when an LSM_CGROUP program
// on a void hook returns something other than 1.
const lsmCgroupVoidNote = "Note, BPF_LSM_CGROUP that attach to void LSM hooks can't modify return value!"

// checkLSMReturnCode is check_return_code for LSM programs.
func (e *env) checkLSMReturnCode(tc *tracingCtx, regno int) error {
	void := isVoid(skipModifiers(tc.ret))
	if e.attach != ebpf.AttachLSMCgroup && void {
		// Nothing reads the return value of a void hook.
		return nil
	}
	if err := e.checkRegRead(uint8(regno)); err != nil {
		return err
	}
	if e.attach == ebpf.AttachLSMCgroup {
		r := retvalRange{min: retReject, max: retAccept, ok: true}
		if void {
			r.min = retAccept
		}
		note := ""
		if void {
			note = lsmCgroupVoidNote
		}
		return e.enforceReturnRange(regno, r, false, note)
	}
	if !tc.retval.ok {
		return nil
	}
	return e.enforceReturnRange(regno, tc.retval, true, "")
}

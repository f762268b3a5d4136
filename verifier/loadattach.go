package verifier

import (
	"fmt"
	"syscall"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/loader"
)

// checkLoadAttachType is bpf_prog_load_check_attach's test of the expected
// attach type, which bpf_prog_load makes before the verifier runs (EINVAL,
// no log): the program types whose hook decides their context (cgroup
// sock, sock_addr and sockopt programs, cgroup skb, sk_lookup,
// sk_reuseport, netfilter) take only their own attach types, syscall and
// extension programs none. e.attach is the type after
// bpf_prog_load_fixup_attach_type (loadAttachType). Section names give
// valid types; a type named by --type or a loader's own ProgramSpec may
// not (a "cgroup/connect" section loaded as cgroup_sock_addr has no
// attach type, which the kernel refuses).
func (e *env) checkLoadAttachType() error {
	if validLoadAttachType(e.progType, e.attach) {
		return nil
	}
	return &RejectError{
		Msg:   fmt.Sprintf("%s is not an expected attach type a %s program may be loaded with: the kernel refuses the load before verifying it (bpf_prog_load_check_attach)", attachTypeString(e.attach), e.progType),
		errno: syscall.EINVAL,
	}
}

// validLoadAttachType is the switch of bpf_prog_load_check_attach.
func validLoadAttachType(pt ebpf.ProgramType, at ebpf.AttachType) bool {
	switch pt {
	case ebpf.CGroupSock:
		switch at {
		case ebpf.AttachCGroupInetSockCreate, ebpf.AttachCgroupInetSockRelease,
			ebpf.AttachCGroupInet4PostBind, ebpf.AttachCGroupInet6PostBind:
			return true
		}
		return false
	case ebpf.CGroupSockAddr:
		switch at {
		case ebpf.AttachCGroupInet4Bind, ebpf.AttachCGroupInet6Bind,
			ebpf.AttachCGroupInet4Connect, ebpf.AttachCGroupInet6Connect, ebpf.AttachCgroupUnixConnect,
			ebpf.AttachCgroupInet4GetPeername, ebpf.AttachCgroupInet6GetPeername, ebpf.AttachCgroupUnixGetpeername,
			ebpf.AttachCgroupInet4GetSockname, ebpf.AttachCgroupInet6GetSockname, ebpf.AttachCgroupUnixGetsockname,
			ebpf.AttachCGroupUDP4Sendmsg, ebpf.AttachCGroupUDP6Sendmsg, ebpf.AttachCgroupUnixSendmsg,
			ebpf.AttachCGroupUDP4Recvmsg, ebpf.AttachCGroupUDP6Recvmsg, ebpf.AttachCgroupUnixRecvmsg:
			return true
		}
		return false
	case ebpf.CGroupSKB:
		return at == ebpf.AttachCGroupInetIngress || at == ebpf.AttachCGroupInetEgress
	case ebpf.CGroupSockopt:
		return at == ebpf.AttachCGroupSetsockopt || at == ebpf.AttachCGroupGetsockopt
	case ebpf.SkLookup:
		return at == ebpf.AttachSkLookup
	case ebpf.SkReuseport:
		return at == ebpf.AttachSkReuseportSelect || at == ebpf.AttachSkReuseportSelectOrMigrate
	case ebpf.Netfilter:
		return at == ebpf.AttachNetfilter
	case ebpf.Syscall, ebpf.Extension:
		return at == 0
	}
	return true
}

// attachTypeString names at, or says there is none: cilium/ebpf names the
// attach type 0 after the cgroup ingress hook it also is.
func attachTypeString(at ebpf.AttachType) string {
	switch at {
	case 0:
		return "no attach type (0)"
	case ebpf.AttachType(58):
		return "BPF_TRACE_FSESSION (58)"
	case loader.AttachTraceFEntryMulti:
		return "BPF_TRACE_FENTRY_MULTI (59)"
	case loader.AttachTraceFExitMulti:
		return "BPF_TRACE_FEXIT_MULTI (60)"
	case loader.AttachTraceFSessionMulti:
		return "BPF_TRACE_FSESSION_MULTI (61)"
	}
	return at.String()
}

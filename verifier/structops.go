package verifier

// struct_ops programs (BPF_PROG_TYPE_STRUCT_OPS; the kernel's
// bpf_struct_ops.c and check_struct_ops_btf_id).
//
// A struct_ops program implements one function-pointer member of a kernel
// "ops" struct; cilium/ebpf names it "<struct>:<member>" from the object's
// struct_ops map. The program's context is that member's argument list,
// trusted. Each ops type brings its own verifier callbacks (which context
// reads are valid, which kernel fields a program may write, which helpers it
// may call, which arguments may be NULL), so vercheck resolves only the
// types whose callbacks it models; any other type, and types that live in
// modules, are unsupported.
//
// Modelled: tcp_congestion_ops (bpf_tcp_ca.c): context reads as for tracing
// programs; stores to the few tcp_sock fields its btf_struct_access hook
// allows (checkTCPCAWrite); helpers: the base set plus bpf_tcp_send_ack, the socket storage,
// bpf_setsockopt/bpf_getsockopt (not from release) and the coarse clock.

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// structOpsTCPCA is the TCP congestion-control ops type.
const structOpsTCPCA = "tcp_congestion_ops"

// structOpsModelled lists the struct_ops types whose verifier callbacks
// vercheck models, with the members their check_member refuses.
var structOpsModelled = map[string]map[string]bool{
	structOpsTCPCA: {"get_info": true},
}

// structOpsNoSockoptMember is the tcp_congestion_ops member that may not
// call bpf_setsockopt or bpf_getsockopt: it runs while the algorithm is
// being retired.
const structOpsNoSockoptMember = structOpsTCPCA + ":release"

// attachRefusedError is an attach target the kernel refuses before it
// verifies a single instruction (check_struct_ops_btf_id): a rejection
// with the kernel's message, not a gap in vercheck's model.
type attachRefusedError struct{ msg string }

func (e *attachRefusedError) Error() string { return e.msg }

// splitStructOpsTarget splits cilium/ebpf's "<struct>:<member>".
func splitStructOpsTarget(target string) (typ, member string, err error) {
	typ, member, ok := strings.Cut(target, ":")
	if !ok || typ == "" || member == "" {
		return "", "", fmt.Errorf("struct_ops target %q is not <struct>:<member>", target)
	}
	return typ, member, nil
}

// structOpsContext resolves the member a struct_ops program implements.
func structOpsContext(spec *btf.Spec, target string) (*tracingCtx, error) {
	typ, member, err := splitStructOpsTarget(target)
	if err != nil {
		return nil, err
	}
	var st *btf.Struct
	if err := spec.TypeByName(typ, &st); err != nil {
		return nil, fmt.Errorf("struct_ops type %s is not in vmlinux BTF (module types are not modelled): %w", typ, err)
	}
	if err := checkStructOpsRegistered(spec, st, typ); err != nil {
		return nil, err
	}
	refused, ok := structOpsModelled[typ]
	if !ok {
		return nil, fmt.Errorf("struct_ops type %s: its context, field-write and helper rules are not modelled", typ)
	}
	if refused[member] {
		return nil, &attachRefusedError{fmt.Sprintf("attach to unsupported member %s of struct %s", member, typ)}
	}
	for _, m := range st.Members {
		if m.Name != member {
			continue
		}
		p, ok := skipModifiers(m.Type).(*btf.Pointer)
		if !ok {
			return nil, fmt.Errorf("struct_ops member %s of %s is not a function pointer", member, typ)
		}
		proto, ok := skipModifiers(p.Target).(*btf.FuncProto)
		if !ok {
			return nil, fmt.Errorf("struct_ops member %s of %s is not a function pointer", member, typ)
		}
		tc := &tracingCtx{
			name:      member,
			params:    proto.Params,
			all:       proto.Params,
			ret:       proto.Return,
			trusted:   true,
			strict:    true,
			opsMember: target,
		}
		if typ == structOpsTCPCA {
			tc.promote = sockToTCPSock(spec)
		}
		return tc, nil
	}
	return nil, fmt.Errorf("struct %s has no member %s", typ, member)
}

// structOpsValuePrefix starts the name of the value type the kernel
// declares for each struct_ops type it registers (struct
// bpf_struct_ops_tcp_congestion_ops): register_bpf_struct_ops emits that
// type next to the registration and bpf_struct_ops_desc_init looks it up
// by this name, so a kernel whose BTF lacks it has not registered the
// ops type (Qdisc_ops without CONFIG_NET_SCH_BPF, sched_ext_ops without
// CONFIG_SCHED_CLASS_EXT).
const structOpsValuePrefix = "bpf_struct_ops_"

// checkStructOpsRegistered refuses an ops type the kernel has not
// registered, as check_struct_ops_btf_id does when bpf_struct_ops_find
// finds no descriptor for the attach BTF id: before any instruction is
// verified, with the id of the ops struct in the kernel's BTF.
func checkStructOpsRegistered(spec *btf.Spec, st *btf.Struct, typ string) error {
	var value *btf.Struct
	if spec.TypeByName(structOpsValuePrefix+typ, &value) == nil {
		return nil
	}
	id, err := spec.TypeID(st)
	if err != nil {
		return fmt.Errorf("struct_ops type %s: %w", typ, err)
	}
	return &attachRefusedError{fmt.Sprintf("attach_btf_id %d is not a supported struct", id)}
}

// sockToTCPSock is what bpf_tcp_ca_is_valid_access does to a context
// argument: a trusted struct sock pointer is a struct tcp_sock, which a
// congestion-control program reads through (and which names it in
// messages). Without both types in the BTF, ids are left as they are.
func sockToTCPSock(spec *btf.Spec) func(uint32) uint32 {
	var sock, tcpSock *btf.Struct
	if spec.TypeByName("sock", &sock) != nil || spec.TypeByName("tcp_sock", &tcpSock) != nil {
		return nil
	}
	sockID, err1 := spec.TypeID(sock)
	tcpID, err2 := spec.TypeID(tcpSock)
	if err1 != nil || err2 != nil {
		return nil
	}
	return func(id uint32) uint32 {
		if id == uint32(sockID) {
			return uint32(tcpID)
		}
		return id
	}
}

// structOpsNoSockopt reports the members that may not call
// bpf_setsockopt/bpf_getsockopt.
func structOpsNoSockopt(target string) bool {
	return target == structOpsNoSockoptMember
}

// tcpCAWritable lists the tcp_sock fields bpf_tcp_ca_btf_struct_access
// lets a congestion-control program write, as member paths from struct
// tcp_sock. A store must start where the field starts (icsk_ca_priv, the
// algorithm's private area, anywhere inside it) and end within it. The
// list is the running 6.18 kernel's, checked field by field against it
// (structops_tcp_write.c): the socket's pacing rate and status, the
// private area, the pending ACK flags, and the window, threshold, ECN and
// application-limited fields of the TCP socket.
var tcpCAWritable = []struct {
	path   []string
	anyOff bool
}{
	{path: []string{"inet_conn", "icsk_inet", "sk", "sk_pacing_rate"}},
	{path: []string{"inet_conn", "icsk_inet", "sk", "sk_pacing_status"}},
	{path: []string{"inet_conn", "icsk_ca_priv"}, anyOff: true},
	{path: []string{"inet_conn", "icsk_ack", "pending"}},
	{path: []string{"snd_cwnd"}},
	{path: []string{"snd_cwnd_cnt"}},
	{path: []string{"snd_cwnd_stamp"}},
	{path: []string{"snd_ssthresh"}},
	{path: []string{"ecn_flags"}},
	{path: []string{"app_limited"}},
}

// tcpSockStruct is the one struct a congestion-control program may write.
const tcpSockStruct = "tcp_sock"

// checkTCPCAWrite is bpf_tcp_ca_btf_struct_access: a store of size bytes
// at off through a BTF pointer to st in a tcp_congestion_ops program.
func (e *env) checkTCPCAWrite(st btf.Type, off, size int) error {
	if st.TypeName() != tcpSockStruct {
		return e.reject(e.insnIdx, "only read is supported")
	}
	for _, f := range tcpCAWritable {
		start, fsize, ok := memberSpan(st, f.path)
		if !ok {
			return e.unsupported(e.insnIdx, "tcp_sock has no field %s in this kernel's BTF", strings.Join(f.path, "."))
		}
		end := start + fsize
		if off != start && !(f.anyOff && off >= start && off < end) {
			continue
		}
		if off+size > end {
			return e.reject(e.insnIdx, "write access at off %d with size %d beyond the member of tcp_sock ended at %d", off, size, end)
		}
		return nil
	}
	return e.reject(e.insnIdx, "no write support to tcp_sock at off %d", off)
}

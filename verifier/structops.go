package verifier

// struct_ops programs (BPF_PROG_TYPE_STRUCT_OPS; the kernel's
// bpf_struct_ops.c and check_struct_ops_btf_id).
//
// A struct_ops program implements one function-pointer member of a kernel
// "ops" struct; cilium/ebpf names it "<struct>:<member>" from the object's
// struct_ops map. The program's context is that member's argument list,
// trusted; an argument whose name ends in __nullable in the ops type's CFI
// stub ("<struct>__<member>") may be NULL (prepare_arg_info). Each ops
// type brings its own verifier callbacks (which members a program may
// implement, which kernel fields it may write, which helpers it may call),
// so vercheck resolves only the types whose callbacks it models
// (structOpsTypes); any other type, and types that live in modules, are
// unsupported.
//
// Modelled: tcp_congestion_ops (bpf_tcp_ca.c): context reads as for tracing
// programs; stores to the few tcp_sock fields its btf_struct_access hook
// allows (checkTCPCAWrite); helpers: the base set plus bpf_tcp_send_ack, the socket storage,
// bpf_setsockopt/bpf_getsockopt (not from release) and the coarse clock.
// sched_ext_ops (kernel/sched/ext.c, when the kernel BTF has it): see
// schedext.go. bpf_dummy_ops (net/bpf/bpf_dummy_struct_ops.c, the test
// runner's): tracing context reads, stores to its struct
// bpf_dummy_ops_state argument only, no helper at all (its verifier ops
// have no get_func_proto), only test_sleepable may sleep.

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/helpers"
)

// structOpsTCPCA is the TCP congestion-control ops type.
const structOpsTCPCA = "tcp_congestion_ops"

// structOpsType is what vercheck models of one ops type's registration
// (its struct bpf_struct_ops and bpf_verifier_ops).
type structOpsType struct {
	// refused are the members its check_member refuses whatever the
	// program.
	refused map[string]bool
	// sleepable, when set, are the only members its check_member lets a
	// sleepable program implement; nil lets any.
	sleepable map[string]bool
	// helpers is what its get_func_proto adds to the base set.
	helpers helpers.Set
	// noFuncProto is set when its verifier ops have no get_func_proto:
	// the program may call no helper (check_helper_call finds none).
	noFuncProto bool
	// write is its btf_struct_access: a store of size bytes at off
	// through a BTF pointer to st.
	write func(e *env, st btf.Type, off, size int) error
	// promote, when set, makes the retyping its is_valid_access does to
	// pointer arguments (see tracingCtx.promote).
	promote func(spec *btf.Spec) func(uint32) uint32
}

// structOpsTypes lists the struct_ops types whose verifier callbacks
// vercheck models.
var structOpsTypes = map[string]*structOpsType{
	structOpsTCPCA: {
		refused: map[string]bool{"get_info": true},
		helpers: helpers.NewSet(
			asm.FnTcpSendAck, asm.FnSkStorageGet, asm.FnSkStorageDelete,
			asm.FnSetsockopt, asm.FnGetsockopt, asm.FnKtimeGetCoarseNs,
		),
		write:   (*env).checkTCPCAWrite,
		promote: sockToTCPSock,
	},
	structOpsSchedExt: {
		sleepable: scxSleepableMembers,
		write:     (*env).checkSCXWrite,
	},
	structOpsDummy: {
		sleepable:   map[string]bool{"test_sleepable": true},
		noFuncProto: true,
		write:       (*env).checkDummyOpsWrite,
	},
}

// structOpsDummy is the test runner's ops type (BPF_PROG_TEST_RUN of a
// struct_ops program).
const structOpsDummy = "bpf_dummy_ops"

// dummyOpsState is the one struct a bpf_dummy_ops program may write.
const dummyOpsState = "bpf_dummy_ops_state"

// checkDummyOpsWrite is bpf_dummy_ops_btf_struct_access: a store into the
// vmlinux struct bpf_dummy_ops_state, within it.
func (e *env) checkDummyOpsWrite(st btf.Type, off, size int) error {
	state := btfStructByName(dummyOpsState)
	if state == nil {
		return e.unsupported(e.insnIdx, "struct %s not in kernel BTF", dummyOpsState)
	}
	if btfTypeID(st) != btfTypeID(state) {
		return e.reject(e.insnIdx, "only access to %s is supported", dummyOpsState)
	}
	if n, err := btf.Sizeof(state); err != nil || off+size > n {
		return e.reject(e.insnIdx, "write access at off %d with size %d", off, size)
	}
	return nil
}

// structOpsNoSockoptMember is the tcp_congestion_ops member that may not
// call bpf_setsockopt or bpf_getsockopt: it runs while the algorithm is
// being retired.
const structOpsNoSockoptMember = structOpsTCPCA + ":release"

// attachRefusedError is an attach target the kernel refuses before it
// verifies a single instruction (check_struct_ops_btf_id), or one the
// loader cannot resolve (errno set): a rejection with the kernel's or the
// loader's message, not a gap in vercheck's model.
type attachRefusedError struct {
	msg   string
	errno syscall.Errno
}

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
		return nil, missingTarget(err, "struct_ops type", typ, "struct_ops init_kern: struct "+typ+" is not found in kernel BTF", func(m *btf.Spec) error {
			var inModule *btf.Struct
			return m.TypeByName(typ, &inModule)
		})
	}
	if err := checkStructOpsRegistered(spec, st, typ); err != nil {
		return nil, err
	}
	ops, ok := structOpsTypes[typ]
	if !ok {
		return nil, fmt.Errorf("struct_ops type %s: its context, field-write and helper rules are not modelled", typ)
	}
	for idx, m := range st.Members {
		if m.Name != member {
			continue
		}
		// btf_type_resolve_func_ptr, before bpf_struct_ops_supported and
		// check_member.
		p, _ := skipModifiers(m.Type).(*btf.Pointer)
		var proto *btf.FuncProto
		if p != nil {
			proto, _ = skipModifiers(p.Target).(*btf.FuncProto)
		}
		if proto == nil {
			return nil, &attachRefusedError{msg: fmt.Sprintf("attach to invalid member %s(@idx %d) of struct %s", member, idx, typ), errno: syscall.EINVAL}
		}
		if ops.refused[member] {
			return nil, &attachRefusedError{msg: fmt.Sprintf("attach to unsupported member %s of struct %s", member, typ)}
		}
		params, err := structOpsParams(spec, typ, member, proto)
		if err != nil {
			return nil, err
		}
		tc := &tracingCtx{
			name:      member,
			params:    params,
			all:       params,
			ret:       proto.Return,
			trusted:   true,
			strict:    true,
			opsMember: target,
		}
		if ops.promote != nil {
			tc.promote = ops.promote(spec)
		}
		return tc, nil
	}
	return nil, fmt.Errorf("struct %s has no member %s", typ, member)
}

// refSuffix marks a CFI stub argument the program holds a reference to
// (prepare_arg_info: PTR_TRUSTED with a ref_obj_id).
const refSuffix = "__ref"

// structOpsParams returns the member's arguments as the program sees them:
// the member's types under the names of the ops type's CFI stub function
// "<struct>__<member>", whose __nullable suffixes prepare_arg_info reads.
// Without a stub of the same arity, the member's own names stand.
func structOpsParams(spec *btf.Spec, typ, member string, proto *btf.FuncProto) ([]btf.FuncParam, error) {
	stub, err := funcProto(spec, typ+"__"+member)
	if err != nil || len(stub.Params) != len(proto.Params) {
		return proto.Params, nil
	}
	params := make([]btf.FuncParam, len(proto.Params))
	for i, p := range proto.Params {
		params[i] = btf.FuncParam{Name: stub.Params[i].Name, Type: p.Type}
		if strings.HasSuffix(p.Name, refSuffix) || strings.HasSuffix(stub.Params[i].Name, refSuffix) {
			return nil, fmt.Errorf("struct_ops member %s of %s: referenced argument %s", member, typ, stub.Params[i].Name)
		}
	}
	return params, nil
}

// structOpsOf returns the ops type a struct_ops program's attach target
// names, nil when it names none vercheck models.
func structOpsOf(target string) *structOpsType {
	typ, _, err := splitStructOpsTarget(target)
	if err != nil {
		return nil
	}
	return structOpsTypes[typ]
}

// checkStructOpsWrite is the ops type's btf_struct_access hook, which
// check_ptr_to_btf_access calls for every store through a kernel BTF
// pointer of a struct_ops program.
func (e *env) checkStructOpsWrite(st btf.Type, off, size int) error {
	target := ""
	if e.lp != nil {
		target = e.lp.AttachTo
	}
	ops := structOpsOf(target)
	if ops == nil {
		return e.unsupported(e.insnIdx, "store through a BTF pointer in struct_ops program of %q", target)
	}
	return ops.write(e, st, off, size)
}

// checkStructOpsSleepable is the sleepable part of the ops type's
// check_member: a sleepable program may implement only the members the
// type lists, and check_struct_ops_btf_id refuses any other with check_member's
// -EINVAL.
func (e *env) checkStructOpsSleepable(tc *tracingCtx) error {
	typ, member, err := splitStructOpsTarget(tc.opsMember)
	if err != nil {
		return nil
	}
	ops := structOpsTypes[typ]
	if ops == nil || ops.sleepable == nil || ops.sleepable[member] {
		return nil
	}
	re := e.reject(0, "attach to unsupported member %s of struct %s", member, typ)
	re.(*RejectError).errno = syscall.EINVAL
	return re
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
	return &attachRefusedError{msg: fmt.Sprintf("attach_btf_id %d is not a supported struct", id)}
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

// helperAllowed is whether the program may call helper id, and whether
// vercheck knows (helpers.Build.Allowed with the attach target's own
// helpers); an ops type without get_func_proto allows none.
func (e *env) helperAllowed(id int32) (allowed, known bool) {
	c := &e.allowedHelpers
	if !c.made || c.progType != e.progType || c.attach != e.attach {
		// The set depends on the program alone (an extension takes its
		// target's type before the walk): made at the first call.
		*c = allowedHelperSet{made: true, progType: e.progType, attach: e.attach}
		c.set, c.known = e.build.AllowedSet(e.progType, e.attach, e.targetHelpers())
		if e.progType == ebpf.StructOps {
			if ops := structOpsOf(e.attachTo()); ops != nil && ops.noFuncProto {
				// An ops type without get_func_proto allows none.
				c.set, c.known = helpers.Set{}, true
			}
		}
	}
	return c.set.Has(id), c.known
}

// allowedHelperSet is the set of helpers the program may call
// (helpers.Build.AllowedSet), made once for the program type and attach
// type it was made for: a program calls helpers thousands of times, and
// the set's unions cost more than the call's other checks.
type allowedHelperSet struct {
	made     bool
	progType ebpf.ProgramType
	attach   ebpf.AttachType
	set      helpers.Set
	known    bool
}

// helperArgCount is the argument count of a call of helper id for
// get_call_summary (the liveness analysis, fastcall patterns): -1, all of
// r1-r5 and no summary, for a helper the program's get_func_proto does not
// return, which includes every helper of a struct_ops type without one
// (get_helper_proto fails).
func (e *env) helperArgCount(id int32) int {
	if allowed, known := e.helperAllowed(id); known && !allowed {
		return -1
	}
	return e.build.ArgCountFor(e.progType, e.attach, e.targetHelpers())(id)
}

// structOpsHelpers is what the ops type's get_func_proto adds to the
// base set.
func structOpsHelpers(target string) helpers.Set {
	if ops := structOpsOf(target); ops != nil {
		return ops.helpers
	}
	return helpers.Set{}
}

// targetHelpers are the helpers the program's attach target adds to its
// type's set: an iterator's target (bpf_iter_get_func_proto asks the
// target), a struct_ops type (its get_func_proto).
func (e *env) targetHelpers() helpers.Set {
	switch {
	case e.progType == ebpf.Tracing && e.attach == ebpf.AttachTraceIter:
		return helpers.IterTarget(e.attachTo())
	case e.progType == ebpf.StructOps:
		return structOpsHelpers(e.attachTo())
	}
	return helpers.Set{}
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

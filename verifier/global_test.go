package verifier

import (
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

func TestPrepareFuncArgs(t *testing.T) {
	intT := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	voidT := &btf.Void{}
	skb := &btf.Struct{Name: "__sk_buff", Size: 192}
	kskb := &btf.Struct{Name: "sk_buff", Size: 232}
	pair := &btf.Struct{Name: "pair", Size: 8}
	fwd := &btf.Fwd{Name: "opaque", Kind: btf.FwdStruct}
	arr := &btf.Array{Type: intT, Nelems: 4}
	ptr := func(t btf.Type) btf.Type { return &btf.Pointer{Target: t} }
	task := &btf.Struct{Name: "task_struct"}
	unionID := func(name string) uint32 {
		var u *btf.Union
		if spec, err := vmlinux(); err == nil && spec.TypeByName(name, &u) == nil {
			return btfTypeID(u)
		}
		return 0
	}
	fn := func(ret btf.Type, tags [][]string, params ...btf.Type) *btf.Func {
		p := &btf.FuncProto{Return: ret}
		for _, t := range params {
			p.Params = append(p.Params, btf.FuncParam{Type: t})
		}
		return &btf.Func{Name: "f", Type: p, Linkage: btf.GlobalFunc, ParamTags: tags}
	}
	tests := []struct {
		name string
		fn   *btf.Func
		pt   ebpf.ProgramType
		want globalProto
	}{
		{"no args", fn(intT, nil), ebpf.SocketFilter, globalProto{}},
		{"scalar", fn(intT, nil, intT, &btf.Typedef{Name: "u32", Type: intT}), ebpf.SocketFilter,
			globalProto{args: []globalArg{{kind: globalArgScalar}, {kind: globalArgScalar}}}},
		{"ctx by name", fn(intT, nil, ptr(skb)), ebpf.SchedCLS, globalProto{args: []globalArg{{kind: globalArgCtx}}}},
		{"ctx by kernel name", fn(intT, nil, ptr(&btf.Const{Type: kskb})), ebpf.SocketFilter, globalProto{args: []globalArg{{kind: globalArgCtx}}}},
		{"skb is memory for xdp", fn(intT, nil, ptr(skb)), ebpf.XDP, globalProto{args: []globalArg{{kind: globalArgMem, nullable: true, memSize: 192}}}},
		{"kprobe typedef", fn(intT, nil, ptr(&btf.Typedef{Name: "bpf_user_pt_regs_t", Type: &btf.Struct{Name: "x"}})), ebpf.Kprobe,
			globalProto{args: []globalArg{{kind: globalArgCtx}}}},
		{"memory", fn(intT, nil, ptr(pair), ptr(arr)), ebpf.SocketFilter,
			globalProto{args: []globalArg{{kind: globalArgMem, nullable: true, memSize: 8}, {kind: globalArgMem, nullable: true, memSize: 16}}}},
		{"nonnull tag", fn(intT, [][]string{{"arg:nonnull"}}, ptr(pair)), ebpf.SocketFilter,
			globalProto{args: []globalArg{{kind: globalArgMem, memSize: 8}}}},
		{"ctx tag on void", fn(intT, [][]string{{"arg:ctx"}}, ptr(voidT)), ebpf.SocketFilter, globalProto{args: []globalArg{{kind: globalArgCtx}}}},
		{"void pointer", fn(intT, nil, ptr(voidT)), ebpf.SocketFilter,
			globalProto{msg: "arg#0 reference type('UNKNOWN ') size cannot be determined: -22"}},
		{"forward declaration", fn(intT, nil, intT, ptr(fwd)), ebpf.SocketFilter,
			globalProto{msg: "arg#1 reference type('FWD opaque') size cannot be determined: -22"}},
		{"void return", fn(voidT, nil, intT), ebpf.SocketFilter,
			globalProto{msg: "Global function f() doesn't return scalar. Only those are supported."}},
		{"struct by value", fn(intT, nil, pair), ebpf.SocketFilter,
			globalProto{msg: "Arg#0 type STRUCT in f() is not supported yet."}},
		{"too many args", fn(intT, nil, intT, intT, intT, intT, intT, intT), ebpf.SocketFilter,
			globalProto{msg: "Global function f() with 6 > 5 args. Buggy compiler."}},
		{"tag on scalar", fn(intT, [][]string{{"arg:nonnull"}}, intT), ebpf.SocketFilter,
			globalProto{msg: "arg#0 has pointer tag, but is not a pointer type"}},
		{"unknown tag", fn(intT, [][]string{{"arg:bogus"}}, ptr(pair)), ebpf.SocketFilter,
			globalProto{msg: "arg#0 has unsupported set of tags", errno: syscall.EOPNOTSUPP}},
		{"ctx with other tags", fn(intT, [][]string{{"arg:ctx", "arg:nonnull"}}, ptr(skb)), ebpf.SocketFilter,
			globalProto{msg: "arg#0 has invalid combination of tags"}},
		{"trusted to a struct vmlinux lacks", fn(intT, [][]string{{"arg:trusted"}}, ptr(pair)), ebpf.SocketFilter,
			globalProto{msg: "arg#0 reference type('STRUCT pair') has no matches", errno: syscall.ENOENT}},
		{"trusted nullable task", fn(intT, [][]string{{"arg:trusted", "arg:nullable"}}, ptr(task)), ebpf.Tracing,
			globalProto{args: []globalArg{{kind: globalArgTrusted, nullable: true, btfID: btfTypeID(btfStructByName("task_struct"))}}}},
		{"trusted flavoured task", fn(intT, [][]string{{"arg:trusted"}}, ptr(&btf.Struct{Name: "task_struct___local"})), ebpf.Tracing,
			globalProto{args: []globalArg{{kind: globalArgTrusted, btfID: btfTypeID(btfStructByName("task_struct"))}}}},
		{"trusted and nonnull", fn(intT, [][]string{{"arg:trusted", "arg:nonnull"}}, ptr(task)), ebpf.Tracing,
			globalProto{msg: "arg#0 has invalid combination of tags"}},
		{"nullable memory", fn(intT, [][]string{{"arg:nullable"}}, ptr(pair)), ebpf.SocketFilter,
			globalProto{msg: "arg#0 has invalid combination of tags"}},
		{"untrusted to a struct vmlinux lacks", fn(intT, [][]string{{"arg:untrusted"}}, ptr(pair)), ebpf.SocketFilter,
			globalProto{msg: "arg#0 reference type('STRUCT pair') has no matches", errno: syscall.ENOENT}},
		{"untrusted task", fn(intT, [][]string{{"arg:untrusted"}}, ptr(&btf.Volatile{Type: task})), ebpf.Tracing,
			globalProto{args: []globalArg{{kind: globalArgUntrusted, btfID: btfTypeID(btfStructByName("task_struct"))}}}},
		{"untrusted void and char", fn(intT, [][]string{{"arg:untrusted"}, {"arg:untrusted"}}, ptr(voidT), ptr(&btf.Int{Name: "char", Size: 1})), ebpf.Tracing,
			globalProto{args: []globalArg{{kind: globalArgUntrustedMem}, {kind: globalArgUntrustedMem}}}},
		{"untrusted and nullable", fn(intT, [][]string{{"arg:untrusted", "arg:nullable"}}, ptr(task)), ebpf.Tracing,
			globalProto{msg: "arg#0 untrusted cannot be combined with any other tags"}},
		{"untrusted to a union", fn(intT, [][]string{{"arg:untrusted"}}, ptr(&btf.Union{Name: "bpf_attr"})), ebpf.Tracing,
			globalProto{args: []globalArg{{kind: globalArgUntrusted, btfID: unionID("bpf_attr")}}}},
		{"untrusted to a pointer", fn(intT, [][]string{{"arg:untrusted"}}, ptr(ptr(task))), ebpf.Tracing,
			globalProto{msg: "arg#0 reference type('PTR (anon)') candidate matching error: -22"}},
		{"no BTF", nil, ebpf.SocketFilter, globalProto{unsupported: "global function 3 without BTF function info"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := prepareFuncArgs(tt.fn, 3, tt.pt, 0)
			if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(globalProto{}, globalArg{})); diff != "" {
				t.Errorf("prepareFuncArgs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateProgCtxType(t *testing.T) {
	u64 := &btf.Int{Name: "u64", Size: 8}
	ptr := func(t btf.Type) *btf.Pointer { return &btf.Pointer{Target: t} }
	skb := &btf.Struct{Name: "__sk_buff"}
	tests := []struct {
		name  string
		ptr   *btf.Pointer
		pt    ebpf.ProgramType
		at    ebpf.AttachType
		msg   string
		unsup string
	}{
		{"void", ptr(&btf.Const{Type: &btf.Void{}}), ebpf.Tracing, ebpf.AttachTraceFEntry, "", ""},
		{"u64 for fentry", ptr(u64), ebpf.Tracing, ebpf.AttachTraceFExit, "", ""},
		{"u64 for tp_btf", ptr(u64), ebpf.Tracing, ebpf.AttachTraceRawTp, "", ""},
		{"raw tp args for tp_btf", ptr(&btf.Struct{Name: "bpf_raw_tracepoint_args"}), ebpf.Tracing, ebpf.AttachTraceRawTp, "", ""},
		{"raw tp args for fentry", ptr(&btf.Struct{Name: "bpf_raw_tracepoint_args"}), ebpf.Tracing, ebpf.AttachTraceFEntry, "arg#0 should be void pointer", ""},
		{"iterator context", ptr(&btf.Struct{Name: "bpf_iter__task"}), ebpf.Tracing, ebpf.AttachTraceIter, "", ""},
		{"task for an iterator", ptr(&btf.Struct{Name: "task_struct"}), ebpf.Tracing, ebpf.AttachTraceIter, "arg#0 should be void pointer", ""},
		{"skb context", ptr(skb), ebpf.SchedCLS, 0, "", ""},
		{"kernel skb", ptr(&btf.Struct{Name: "sk_buff"}), ebpf.SchedCLS, 0, "arg#0 should be `struct __sk_buff *`", ""},
		{"u64 for tc", ptr(u64), ebpf.SchedCLS, 0, "arg#0 should be `struct __sk_buff *`", ""},
		{"nameless", ptr(&btf.Struct{}), ebpf.XDP, 0, "arg#0 type doesn't have a name", ""},
		{"kprobe typedef", ptr(&btf.Typedef{Name: "bpf_user_pt_regs_t", Type: &btf.Struct{Name: "x"}}), ebpf.Kprobe, 0, "", ""},
		{"perf_event pt_regs", ptr(&btf.Struct{Name: "pt_regs"}), ebpf.PerfEvent, 0, "", ""},
		{"anything for a tracepoint", ptr(skb), ebpf.TracePoint, 0, "", ""},
		{"lirc", ptr(u64), ebpf.LircMode2, 0, "arg#0 should be void pointer", ""},
		{"writable raw tp", ptr(skb), ebpf.RawTracepointWritable, 0, "arg#0 should be `struct bpf_raw_tracepoint_args *`", ""},
		{"unknown type", ptr(skb), ebpf.ProgramType(999), 0, "", "arg:ctx argument of a ProgramType(999) program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, unsup := validateProgCtxType(tt.ptr, 0, tt.pt, tt.at)
			if diff := cmp.Diff([]string{tt.msg, tt.unsup}, []string{msg, unsup}); diff != "" {
				t.Errorf("validateProgCtxType mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveSize(t *testing.T) {
	intT := &btf.Int{Name: "int", Size: 4}
	tests := []struct {
		name string
		t    btf.Type
		size int
		ok   bool
	}{
		{"int", intT, 4, true},
		{"pointer", &btf.Pointer{Target: intT}, 8, true},
		{"nested array", &btf.Array{Type: &btf.Array{Type: intT, Nelems: 3}, Nelems: 2}, 24, true},
		{"const typedef", &btf.Const{Type: &btf.Typedef{Name: "t", Type: intT}}, 4, true},
		{"void", &btf.Void{}, 0, false},
		{"function", &btf.FuncProto{Return: intT}, 0, false},
		{"huge array", &btf.Array{Type: intT, Nelems: 1 << 31}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			size, ok := resolveSize(tt.t)
			if diff := cmp.Diff([]any{tt.size, tt.ok}, []any{size, ok}); diff != "" {
				t.Errorf("resolveSize mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

package verifier

import (
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"
)

func TestStructOpsContext(t *testing.T) {
	spec, err := vmlinux()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	type result struct {
		Params int
		Err    string
	}
	tests := []struct {
		target string
		want   result
	}{
		{"tcp_congestion_ops:init", result{Params: 1}},
		{"tcp_congestion_ops:cong_avoid", result{Params: 3}},
		{"tcp_congestion_ops:get_info", result{Err: "attach to unsupported member get_info of struct tcp_congestion_ops"}},
		{"tcp_congestion_ops:name", result{Err: "attach to invalid member name(@idx 11) of struct tcp_congestion_ops"}},
		{"tcp_congestion_ops:nope", result{Err: "has no member nope"}},
		{"bpf_testmod_ops:test_1", result{Err: `attach target struct_ops type "bpf_testmod_ops" is in neither the kernel's BTF nor a module's`}},
		{"sched_ext_ops:enqueue", result{Err: `attach target struct_ops type "sched_ext_ops" is in neither the kernel's BTF nor a module's`}},
		{"tcp_congestion_ops", result{Err: "is not <struct>:<member>"}},
	}
	for _, tt := range tests {
		var got result
		tc, err := structOpsContext(spec, tt.target)
		if err != nil {
			got.Err = err.Error()
			if strings.Contains(got.Err, tt.want.Err) && tt.want.Err != "" {
				got.Err = tt.want.Err
			}
		} else {
			got.Params = len(tc.params)
			if !tc.trusted || !tc.strict {
				t.Errorf("%s: arguments must be trusted and read-only", tt.target)
			}
		}
		if typ, _, _ := strings.Cut(tt.target, ":"); strings.Contains(tt.want.Err, "is in neither") && (typeInKernel(spec, typ) || strings.Contains(got.Err, "(in module ")) {
			continue // a kernel built with sched_ext, or with bpf_testmod loaded
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", tt.target, diff)
		}
	}
}

// typeInKernel reports whether the kernel BTF has a struct named name.
func typeInKernel(spec *btf.Spec, name string) bool {
	var st *btf.Struct
	return spec.TypeByName(name, &st) == nil
}

package verifier

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/states"
)

func TestIterContext(t *testing.T) {
	if _, err := vmlinux(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	type result struct {
		OK, Ptr, Buffer bool
		Name            string
		Flags           states.RegFlags
	}
	tests := []struct {
		target    string
		off, size int
		want      result
	}{
		// The meta pointer is trusted and never NULL.
		{"task", 0, 8, result{OK: true, Ptr: true, Name: "bpf_iter_meta", Flags: states.PtrTrusted}},
		{"task", 8, 8, result{OK: true, Ptr: true, Name: "task_struct", Flags: states.PtrTrusted | states.MaybeNull}},
		{"task", 8, 4, result{}},
		{"task", 16, 8, result{}},
		{"task_file", 8, 8, result{OK: true, Ptr: true, Name: "task_struct", Flags: states.MaybeNull}},
		{"task_file", 16, 4, result{OK: true}},
		{"task_file", 24, 8, result{OK: true, Ptr: true, Name: "file", Flags: states.MaybeNull}},
		// The map of a map-element iterator is not in the target's
		// table: a plain trusted argument.
		{"bpf_map_elem", 8, 8, result{OK: true, Ptr: true, Name: "bpf_map", Flags: states.PtrTrusted}},
		{"bpf_map_elem", 16, 8, result{OK: true, Ptr: true, Buffer: true, Flags: states.MaybeNull | states.MemRdonly}},
		{"bpf_map_elem", 24, 8, result{OK: true, Ptr: true, Buffer: true, Flags: states.MaybeNull}},
		{"tcp", 8, 8, result{OK: true, Ptr: true, Name: "sock_common", Flags: states.PtrTrusted | states.MaybeNull}},
	}
	for _, tt := range tests {
		tc, err := btfContext(ebpf.Tracing, ebpf.AttachTraceIter, tt.target)
		if err != nil {
			t.Skipf("iterator %s: %v", tt.target, err)
		}
		a, ok := tc.access(tt.off, tt.size, 0)
		got := result{OK: ok, Ptr: a.ptr, Buffer: a.buffer, Flags: a.flags}
		if a.ptr && !a.buffer {
			got.Name = btfTypeName(a.id)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s access(%d, %d) mismatch (-want +got):\n%s", tt.target, tt.off, tt.size, diff)
		}
	}
	if _, err := btfContext(ebpf.Tracing, ebpf.AttachTraceIter, "no_such_target"); err == nil {
		t.Error("unknown iterator target resolved")
	}
}

// Every target in the table must exist in the running kernel, with the
// table's slots inside its context.
func TestIterTargetsExist(t *testing.T) {
	spec, err := vmlinux()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	for target, info := range iterTargets {
		proto, err := funcProto(spec, iterFuncPrefix+target)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		for _, ai := range info {
			if n := len(proto.Params) * sizeU64; ai.off >= n {
				t.Errorf("%s: slot at %d past the %d-byte context", target, ai.off, n)
			}
		}
	}
}

package verifier

import (
	"strings"
	"syscall"
	"testing"

	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestFuncBTFProblem: btf_func_check refuses a FUNC with an unnamed,
// typed parameter; a variadic function's last, typeless parameter and
// extern FUNCs (kfunc declarations) pass.
func TestFuncBTFProblem(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	fn := func(linkage btf.FuncLinkage, params ...btf.FuncParam) *btf.Func {
		return &btf.Func{Name: "f", Linkage: linkage, Type: &btf.FuncProto{Return: i32, Params: params}}
	}
	for _, tt := range []struct {
		name string
		fn   *btf.Func
		want string // a substring of the finding, "" for none
	}{
		{"named", fn(btf.GlobalFunc, btf.FuncParam{Name: "x", Type: i32}), ""},
		{"no params", fn(btf.GlobalFunc), ""},
		{"unnamed global", fn(btf.GlobalFunc, btf.FuncParam{Name: "x", Type: i32}, btf.FuncParam{Type: i32}), "FUNC f Invalid arg#2"},
		{"unnamed static", fn(btf.StaticFunc, btf.FuncParam{Type: i32}), "FUNC f Invalid arg#1"},
		{"variadic", fn(btf.GlobalFunc, btf.FuncParam{Name: "x", Type: i32}, btf.FuncParam{Type: &btf.Void{}}), ""},
		{"extern", fn(btf.ExternFunc, btf.FuncParam{Type: i32}), ""},
		{"nil", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := funcBTFProblem(tt.fn)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("funcBTFProblem = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFuncBTFRefused: an object whose BTF names a naked function with an
// unnamed parameter, which the kernel's BTF load refuses. cilium/ebpf's
// load of a program whose func_info names that function fails (no
// verdict: vercheck says unsupported), and its other programs load with
// BTF of their own. libbpf loads the whole object without BTF: every
// program gets a verdict. Both agree with the kernel loaded each way.
func TestFuncBTFRefused(t *testing.T) {
	obj, err := loader.Open("testdata/btfload/naked_args.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live := kernel.Available() == nil
	for _, tt := range []struct {
		name   string
		mapBTF MapBTF
		kernel kernel.MapBTF
		want   map[string]string
	}{
		{"libbpf", MapBTFObject, kernel.ObjectBTF,
			map[string]string{"bl_calls_unnamed": "accepted", "bl_calls_no_args": "accepted", "bl_extern_unnamed": "accepted"}},
		{"cilium", MapBTFKeyValue, kernel.KeyValueBTF,
			map[string]string{"bl_calls_unnamed": "unsupported", "bl_calls_no_args": "accepted", "bl_extern_unnamed": "accepted"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, prog := range obj.Programs {
				res := Verify(obj, prog, Options{MapBTF: tt.mapBTF})
				got[prog.Name] = res.Verdict()
				if res.Verdict() == "unsupported" && !strings.Contains(res.Err.Error(), "FUNC naked_unnamed_arg Invalid arg#1") {
					t.Errorf("%s: %v, want unsupported naming the FUNC", prog.Name, res.Err)
				}
				if !live {
					continue
				}
				k := kernel.Options{MapBTF: tt.kernel}.LoadProgram(obj, prog)
				switch {
				case res.Verdict() == "unsupported":
					if !k.NotLoaded || k.Errno != syscall.EINVAL {
						t.Errorf("%s: kernel accepted %v, not loaded %v, errno %v: %s; want EINVAL without a verdict", prog.Name, k.Accepted, k.NotLoaded, k.Errno, k.Err)
					}
				case k.NotLoaded || k.Accepted != res.Accepted || k.InsnProcessed != res.Stats.InsnProcessed:
					t.Errorf("%s: kernel accepted %v (%d insns), not loaded %v: %s; vercheck %s (%d insns)", prog.Name, k.Accepted, k.InsnProcessed, k.NotLoaded, k.Err, res.Verdict(), res.Stats.InsnProcessed)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
		})
	}
	if !live {
		t.Log("kernel side skipped:", kernel.Available())
	}
}

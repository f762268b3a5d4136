package kernel

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

func TestFixupExterns(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	proto := &btf.FuncProto{Return: i32, Params: []btf.FuncParam{{Type: i32}, {Name: "named", Type: i32}}}
	kfunc := &btf.Func{Name: "bpf_obj_new_impl", Type: proto, Linkage: btf.ExternFunc}
	ksym := &btf.Var{Name: "bpf_prog_active", Type: &btf.Void{}, Linkage: btf.ExternVar}
	ksyms := &btf.Datasec{Name: ".ksyms", Vars: []btf.VarSecinfo{{Type: kfunc}, {Type: ksym}}}
	out := fixupExterns([]btf.Type{i32, proto, kfunc, ksym, ksyms})

	type secinfo struct {
		Name         string
		Offset, Size uint32
	}
	var vars []secinfo
	for _, vs := range ksyms.Vars {
		vars = append(vars, secinfo{vs.Type.TypeName(), vs.Offset, vs.Size})
	}
	got := struct {
		Types      int
		Linkage    btf.FuncLinkage
		ParamNames []string
		Vars       []secinfo
		SecSize    uint32
		VarType    btf.Type
	}{len(out), kfunc.Linkage, []string{proto.Params[0].Name, proto.Params[1].Name}, vars, ksyms.Size, ksym.Type}
	want := got
	// libbpf: one dummy int variable, named after the first function,
	// takes the functions' places; variables become 4-byte ints.
	want.Types = 6
	want.Linkage = btf.GlobalFunc
	want.ParamNames = []string{"bpf_obj_new_impl", "named"}
	want.Vars = []secinfo{{"bpf_obj_new_impl", 0, 4}, {"bpf_prog_active", 4, 4}}
	want.SecSize = 8
	want.VarType = i32
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixupExterns (-want +got):\n%s", diff)
	}
}

func TestHoldsObjectBTFField(t *testing.T) {
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4}
	head := &btf.Struct{Name: "bpf_list_head", Size: 16}
	node := &btf.Struct{Name: "node", Size: 8}
	kptr := &btf.Pointer{Target: &btf.TypeTag{Value: "kptr", Type: node}}
	tests := []struct {
		name string
		t    btf.Type
		want bool
	}{
		{"plain struct", &btf.Struct{Name: "v", Members: []btf.Member{{Name: "l", Type: lock}}}, false},
		{"list head member", &btf.Struct{Name: "v", Members: []btf.Member{{Name: "h", Type: head}}}, true},
		{"array of roots in a typedef", &btf.Typedef{Name: "t", Type: &btf.Array{Type: head, Nelems: 2}}, true},
		{"kptr member", &btf.Struct{Name: "v", Members: []btf.Member{{Name: "p", Type: kptr}}}, true},
		{"plain pointer", &btf.Struct{Name: "v", Members: []btf.Member{{Name: "p", Type: &btf.Pointer{Target: head}}}}, false},
		{"global in a data section", &btf.Datasec{Name: ".bss.A", Vars: []btf.VarSecinfo{{Type: &btf.Var{Name: "g", Type: head}}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := holdsObjectBTFField(tt.t, map[btf.Type]bool{}); got != tt.want {
				t.Errorf("holdsObjectBTFField = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLoadWithObjectBTF loads graph roots in maps as libbpf does, where
// the kernel finds the struct a __contains tag names in the map's BTF, and
// as cilium/ebpf does, where it does not.
func TestLoadWithObjectBTF(t *testing.T) {
	skipUnlessAvailable(t)
	obj, err := loader.Open("../../testdata/progs/g11_graph_maps.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	verdict := func(r Result) string {
		switch {
		case r.NotLoaded:
			return "not loaded"
		case r.Accepted:
			return "accepted"
		}
		return r.Err
	}
	tests := []struct {
		prog   string
		opts   Options
		want   string
		reason string
	}{
		{"g11_map_list_push_pop", Options{}, "accepted", "libbpf"},
		{"g11_inner_map_list", Options{}, "accepted", "libbpf, inner map template with the object's BTF"},
		{"g11_global_list", Options{}, "accepted", "libbpf, a root in a data section"},
		{"g11_map_kptr_stash", Options{}, "accepted", "libbpf, one BTF object for the map and the program"},
		{"g11_global_list", Options{MapBTF: KeyValueBTF}, "map '.bss.A' has no valid bpf_spin_lock", "cilium/ebpf: the data section has no special field"},
	}
	// A key type the object's BTF does not have (a fuzzer's edit) goes
	// into the loaded BTF with the object's types.
	edited, err := loader.Open("../../testdata/progs/g11_graph_maps.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range edited.Maps {
		if m != nil && m.Name == "g11_lists" {
			m.Spec.Key = &btf.Int{Name: "edited_key", Size: 4, Encoding: btf.Signed}
			// A value struct of its own whose members are the
			// object's: a copy of bpf_spin_lock or bpf_list_head
			// would be no special field to the kernel.
			value := *m.Spec.Value.(*btf.Struct)
			value.Members = slices.Clone(value.Members)
			m.Spec.Value = &value
		}
	}
	for _, p := range edited.Programs {
		if p.Name == "g11_map_list_push_pop" {
			if got := verdict(Options{}.LoadProgramVerdict(edited, p)); got != "accepted" {
				t.Errorf("with a key type of its own: got %q, want accepted", got)
			}
		}
	}
	for _, tt := range tests {
		t.Run(tt.prog+"/"+tt.reason, func(t *testing.T) {
			for _, p := range obj.Programs {
				if p.Name == tt.prog {
					if got := verdict(tt.opts.LoadProgramVerdict(obj, p)); got != tt.want {
						t.Errorf("got %q, want %q", got, tt.want)
					}
					return
				}
			}
			t.Fatalf("no program %s", tt.prog)
		})
	}
}

// TestCallsObjNew: a program calling bpf_obj_new or its per-CPU form, by
// name or by the running kernel's BTF id, is loaded libbpf's way (its
// type id is the object's); other kfunc calls, helper calls and module
// kfuncs are not.
func TestCallsObjNew(t *testing.T) {
	kfunc := func(name string, off int16) asm.Instruction {
		ins := asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: -1, Offset: off}
		return ins.WithReference(name)
	}
	byID := func(name string) asm.Instruction {
		ins := kfunc("", 0)
		vmlinux, err := btf.LoadKernelSpec()
		if err != nil {
			t.Skip("no kernel BTF:", err)
		}
		var fn *btf.Func
		if err := vmlinux.TypeByName(name, &fn); err != nil {
			t.Skip(err)
		}
		id, err := vmlinux.TypeID(fn)
		if err != nil {
			t.Fatal(err)
		}
		ins.Constant = int64(id)
		return ins
	}
	tests := []struct {
		name  string
		insns func() asm.Instructions
		want  bool
	}{
		{"obj_new by name", func() asm.Instructions { return asm.Instructions{kfunc("bpf_obj_new_impl", 0), asm.Return()} }, true},
		{"percpu_obj_new by name", func() asm.Instructions { return asm.Instructions{kfunc("bpf_percpu_obj_new_impl", 0), asm.Return()} }, true},
		{"obj_drop", func() asm.Instructions { return asm.Instructions{kfunc("bpf_obj_drop_impl", 0), asm.Return()} }, false},
		{"a module's", func() asm.Instructions { return asm.Instructions{kfunc("bpf_obj_new_impl", 1), asm.Return()} }, false},
		{"helper", func() asm.Instructions { return asm.Instructions{asm.FnKtimeGetNs.Call(), asm.Return()} }, false},
		{"obj_new by id", func() asm.Instructions { return asm.Instructions{byID("bpf_obj_new_impl"), asm.Return()} }, true},
		{"cast by id", func() asm.Instructions { return asm.Instructions{byID("bpf_cast_to_kern_ctx"), asm.Return()} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := callsObjNew(tt.insns()); got != tt.want {
				t.Errorf("callsObjNew = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSameFunc: a copy of a function's BTF is the same function (the
// func_info record then names the object's own FUNC); an edited
// prototype, linkage or parameter tag is another.
func TestSameFunc(t *testing.T) {
	u64 := &btf.Int{Name: "unsigned long long", Size: 8}
	char := &btf.Int{Name: "char", Size: 1, Encoding: btf.Signed}
	fn := &btf.Func{Name: "f", Linkage: btf.GlobalFunc, Type: &btf.FuncProto{Return: u64,
		Params: []btf.FuncParam{{Name: "p", Type: &btf.Pointer{Target: u64}}}}}
	edit := func(change func(*btf.Func)) *btf.Func {
		c := btf.Copy(fn).(*btf.Func)
		change(c)
		return c
	}
	tests := []struct {
		name string
		b    *btf.Func
		want bool
	}{
		{"copy", edit(func(*btf.Func) {}), true},
		{"param type", edit(func(c *btf.Func) {
			c.Type.(*btf.FuncProto).Params[0].Type = &btf.Pointer{Target: &btf.Const{Type: char}}
		}), false},
		{"param name", edit(func(c *btf.Func) { c.Type.(*btf.FuncProto).Params[0].Name = "q" }), false},
		{"return", edit(func(c *btf.Func) { c.Type.(*btf.FuncProto).Return = &btf.Void{} }), false},
		{"linkage", edit(func(c *btf.Func) { c.Linkage = btf.StaticFunc }), false},
		{"param tag", edit(func(c *btf.Func) { c.ParamTags = [][]string{{"arg:ctx"}} }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameFunc(fn, tt.b); got != tt.want {
				t.Errorf("sameFunc = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFuncTypeEdited: a mutant's edited prototype takes the place of the
// object's FUNC of that name in the loaded BTF, so that the kernel's
// lookup by name (find_exception_cb) finds the function func_info names;
// an unchanged copy names the object's own FUNC.
func TestFuncTypeEdited(t *testing.T) {
	u64 := &btf.Int{Name: "unsigned long long", Size: 8}
	fn := &btf.Func{Name: "f", Linkage: btf.GlobalFunc, Type: &btf.FuncProto{Return: u64,
		Params: []btf.FuncParam{{Name: "p", Type: &btf.Pointer{Target: u64}}}}}
	var b btf.Builder
	if _, err := b.Add(fn); err != nil {
		t.Fatal(err)
	}
	object, err := b.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		edit  func(*btf.Func)
		param string
	}{
		{"copy", func(*btf.Func) {}, "Pointer"},
		{"param type", func(c *btf.Func) { c.Type.(*btf.FuncProto).Params[0].Type = u64 }, "Int"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ob, err := newObjectBTF(object)
			if err != nil {
				t.Fatal(err)
			}
			c := btf.Copy(fn).(*btf.Func)
			tt.edit(c)
			got := ob.funcType(c)
			var own *btf.Func
			if err := ob.types.TypeByName("f", &own); err != nil {
				t.Fatal(err)
			}
			if got != own {
				t.Errorf("funcType gave %v, not the object's own FUNC", got)
			}
			loaded, err := ob.builder.Spec()
			if err != nil {
				t.Fatal(err)
			}
			var funcs []*btf.Func
			for typ := range loaded.All() {
				if f, ok := typ.(*btf.Func); ok && f.Name == "f" {
					funcs = append(funcs, f)
				}
			}
			if len(funcs) != 1 {
				t.Fatalf("%d FUNCs named f in the loaded BTF, want 1", len(funcs))
			}
			p := funcs[0].Type.(*btf.FuncProto).Params[0].Type
			if got := fmt.Sprintf("%T", p); !strings.HasSuffix(got, tt.param) {
				t.Errorf("parameter type %s, want %s", got, tt.param)
			}
		})
	}
}

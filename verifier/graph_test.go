package verifier

import (
	"bytes"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/loader"
)

// TestMapGraphRoots checks what each loader model makes of graph roots in
// map values: unsupported without a model; under libbpf's (the object's
// BTF) the roots resolve to the program's node struct; under
// cilium/ebpf's (a BTF of the key and value alone) a data section whose
// roots' structs are not in that BTF has no special fields at all, and
// anything else is unsupported.
func TestMapGraphRoots(t *testing.T) {
	u64 := &btf.Int{Name: "u64", Size: 8}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4}
	head := &btf.Struct{Name: "bpf_list_head", Size: 16}
	node := &btf.Struct{Name: "bpf_list_node", Size: 24}
	elem := &btf.Struct{Name: "gr_elem", Size: 32, Members: []btf.Member{
		{Name: "key", Type: u64}, {Name: "node", Type: node, Offset: 64},
	}}
	contains := []string{"contains:gr_elem:node"}
	datasec := func(extra ...btf.VarSecinfo) *loader.Map {
		vars := append([]btf.VarSecinfo{
			{Type: &btf.Var{Name: "glock", Type: lock}, Offset: 0, Size: 4},
			{Type: &btf.Var{Name: "ghead", Type: head, Tags: contains}, Offset: 8, Size: 16},
		}, extra...)
		return &loader.Map{Name: ".bss.A", Type: ebpf.Array, KeySize: 4, ValueSize: 64, MaxEntries: 1,
			Spec: &ebpf.MapSpec{Value: &btf.Datasec{Name: ".bss.A", Size: 64, Vars: vars}}}
	}
	structValue := &loader.Map{Name: "m", Type: ebpf.Array, KeySize: 4, ValueSize: 24, MaxEntries: 1, Spec: &ebpf.MapSpec{
		Key: &btf.Int{Name: "u32", Size: 4}, Value: &btf.Struct{Name: "v", Size: 24,
			Members: []btf.Member{{Name: "lock", Type: lock}, {Name: "head", Type: head, Offset: 64, Tags: contains}}}}}
	hashOfMaps := *structValue
	hashOfMaps.Type = ebpf.HashOfMaps
	withElem := datasec(btf.VarSecinfo{Type: &btf.Var{Name: "one", Type: elem}, Offset: 24, Size: 32})
	wrongNode := datasec()
	wrongNode.Spec.Value.(*btf.Datasec).Vars[1].Type.(*btf.Var).Tags = []string{"contains:gr_elem:key"}

	// The object's BTF, as libbpf loads programs and maps with it.
	var b btf.Builder
	if _, err := b.Add(elem); err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	objectTypes, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	type root struct {
		Value   string
		NodeOff uint32
	}
	type got struct {
		Fields      []fieldKind
		Root        *root
		SpinLockOff int64
		Unsupported string
		Refused     bool
		// CreateErr is map_check_btf's refusal of the map.
		CreateErr string
	}
	tests := []struct {
		name  string
		model MapBTF
		m     *loader.Map
		want  got
	}{
		{"default (libbpf)", MapBTFDefault, datasec(), got{[]fieldKind{fieldSpinLock, fieldListHead}, &root{"gr_elem", 8}, 0, "", false, ""}},
		{"libbpf data section", MapBTFObject, datasec(), got{[]fieldKind{fieldSpinLock, fieldListHead}, &root{"gr_elem", 8}, 0, "", false, ""}},
		{"libbpf data section, unresolvable root", MapBTFObject, wrongNode, got{nil, nil, -1, "", false, ""}},
		{"libbpf struct value", MapBTFObject, structValue, got{[]fieldKind{fieldSpinLock, fieldListHead}, &root{"gr_elem", 8}, 0, "", false, ""}},
		// map_check_btf refuses the lock in a map of maps
		// (EOPNOTSUPP): libbpf creates it again without BTF.
		{"libbpf map of maps", MapBTFObject, &hashOfMaps, got{nil, nil, -1, "", false, ""}},
		{"cilium data section", MapBTFKeyValue, datasec(), got{nil, nil, -1, "", false, ""}},
		{"cilium data section with the struct", MapBTFKeyValue, withElem, got{[]fieldKind{fieldSpinLock, fieldListHead}, nil, 0,
			"a graph root whose struct gr_elem is in the map's own BTF (cilium/ebpf), another BTF object than the program's", false, ""}},
		{"cilium struct value", MapBTFKeyValue, structValue, got{[]fieldKind{fieldSpinLock, fieldListHead}, nil, 0,
			"a struct with a graph root whose struct is not in the map's own BTF (cilium/ebpf): the kernel refuses the BTF and the map", true, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{opts: Options{MapBTF: tt.model}, lp: &loader.Program{LocalTypes: map[uint32]btf.Type{3: elem}, ObjectTypes: objectTypes}}
			r := e.recordOf(tt.m)
			g := got{SpinLockOff: r.spinLockOff, Unsupported: r.unsupported, Refused: r.refused}
			if r.createErr != nil {
				g.CreateErr = r.createErr.Error()
			}
			for _, f := range r.fields {
				g.Fields = append(g.Fields, f.kind)
				if f.root != nil {
					g.Root = &root{f.root.value.TypeName(), f.root.nodeOff}
				}
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("record mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGraphRecordProblems checks the BTF the kernel refuses for the
// graph fields of a program struct: a root needs its __contains struct
// and a lock beside it, a node of two kinds a bpf_refcount, and a node
// that is a root may not own roots (ELOOP).
func TestGraphRecordProblems(t *testing.T) {
	u64 := &btf.Int{Name: "u64", Size: 8}
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4}
	head := &btf.Struct{Name: "bpf_list_head", Size: 16}
	lnode := &btf.Struct{Name: "bpf_list_node", Size: 24}
	rnode := &btf.Struct{Name: "bpf_rb_node", Size: 32}
	elem := &btf.Struct{Name: "elem", Size: 32, Members: []btf.Member{{Name: "k", Type: u64}, {Name: "node", Type: lnode, Offset: 64}}}
	root := func(name, contains string, members ...btf.Member) *btf.Struct {
		return &btf.Struct{Name: name, Size: 64, Members: append(members,
			btf.Member{Name: "head", Type: head, Offset: 256, Tags: []string{"contains:" + contains}})}
	}
	self := root("self", "self:node", btf.Member{Name: "node", Type: lnode}, btf.Member{Name: "lock", Type: lock, Offset: 192})
	tests := []struct {
		name string
		t    *btf.Struct
		want string
	}{
		{"root", root("r", "elem:node", btf.Member{Name: "lock", Type: lock}), ""},
		{"no lock", root("r", "elem:node"), "a graph root without a bpf_spin_lock (the kernel refuses the BTF)"},
		{"unknown struct", root("r", "nope:node", btf.Member{Name: "lock", Type: lock}),
			"a graph root whose __contains tag the kernel cannot resolve (it refuses the BTF)"},
		{"wrong node name", root("r", "elem:k", btf.Member{Name: "lock", Type: lock}),
			"a graph root whose __contains tag the kernel cannot resolve (it refuses the BTF)"},
		{"two node kinds", &btf.Struct{Name: "both", Size: 64, Members: []btf.Member{{Name: "l", Type: lnode}, {Name: "r", Type: rnode, Offset: 192}}},
			"a struct both list and rbtree node without a bpf_refcount (the kernel refuses the BTF)"},
		{"ownership cycle", self, "a graph node and root whose nodes are roots too (the kernel refuses the BTF: ELOOP)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{lp: &loader.Program{LocalTypes: map[uint32]btf.Type{1: tt.t, 2: elem}}}
			if diff := cmp.Diff(tt.want, e.localRecord(tt.t).unsupported); diff != "" {
				t.Errorf("record problem (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObjectBTFFinding: the kernel refuses an object's whole BTF for a
// struct it cannot parse, used or not, and libbpf then loads every
// program of the object without BTF (the programs are verified so), or
// fails to load the object when a struct_ops map needs the BTF
// (unsupported), whether PrepareObject made the finding first or the
// first program's verification did.
func TestObjectBTFFinding(t *testing.T) {
	lock := &btf.Struct{Name: "bpf_spin_lock", Size: 4}
	head := &btf.Struct{Name: "bpf_list_head", Size: 16}
	lnode := &btf.Struct{Name: "bpf_list_node", Size: 24}
	elem := &btf.Struct{Name: "elem", Size: 24, Members: []btf.Member{{Name: "node", Type: lnode}}}
	root := func(members ...btf.Member) *btf.Struct {
		return &btf.Struct{Name: "r", Size: 64, Members: append(members,
			btf.Member{Name: "head", Type: head, Offset: 256, Tags: []string{"contains:elem:node"}})}
	}
	objectSpec := func(types ...btf.Type) *btf.Spec {
		b, err := btf.NewBuilder(types, nil)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := b.Marshal(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		return spec
	}
	const finding = "the object's BTF, which libbpf loads the program with, has struct r with a graph root without a bpf_spin_lock (the kernel refuses the BTF)"
	tests := []struct {
		name      string
		types     []btf.Type
		prepare   bool
		structOps bool
		want      progOutcome
		dropped   string
	}{
		{"root with its lock", []btf.Type{root(btf.Member{Name: "lock", Type: lock}), elem}, false, false, progOutcome{"accepted", ""}, ""},
		{"root without a lock", []btf.Type{root(), elem}, false, false, progOutcome{"accepted", ""}, finding},
		{"prepared", []btf.Type{root(), elem}, true, false, progOutcome{"accepted", ""}, finding},
		{"struct_ops needs the BTF", []btf.Type{root(), elem}, false, true, progOutcome{"unsupported",
			"unsupported: " + finding + "; the object has struct_ops maps, which need it, so libbpf's load fails"}, ""},
		{"struct_ops, prepared", []btf.Type{root(), elem}, true, true, progOutcome{"unsupported",
			"unsupported: " + finding + "; the object has struct_ops maps, which need it, so libbpf's load fails"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := objectSpec(tt.types...)
			obj := &loader.Object{Path: "test"}
			if tt.structOps {
				obj.Maps = append(obj.Maps, &loader.Map{Name: "ops", Type: ebpf.StructOpsMap})
			}
			for _, name := range []string{"a", "b"} {
				obj.Programs = append(obj.Programs, &loader.Program{Name: name, Type: ebpf.SocketFilter, GPLCompatible: true,
					ObjectTypes: spec, Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}})
			}
			if tt.prepare {
				PrepareObject(obj, Options{})
			}
			for _, p := range obj.Programs {
				res := Verify(obj, p, Options{})
				got := progOutcome{Verdict: res.Verdict()}
				if res.Err != nil {
					got.Msg = res.Err.Error()
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("program %s (-want +got):\n%s", p.Name, diff)
				}
				code, err := p.Code()
				if err != nil {
					t.Fatal(err)
				}
				e := newEnv(obj, p, code, Options{})
				if got := e.libbpfDropsBTF(); got != tt.dropped {
					t.Errorf("program %s: libbpfDropsBTF = %q, want %q", p.Name, got, tt.dropped)
				}
				e.recyclePool()
			}
		})
	}
}

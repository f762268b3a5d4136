package loader

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmptyExtInfo opens objects whose .BTF.ext has empty subsections
// without a record size, as GCC's BPF backend writes them and libbpf
// reads them: with nothing in any subsection, and with CO-RE relocations
// only.
func TestEmptyExtInfo(t *testing.T) {
	tests := []struct {
		path    string
		warning string
	}{
		{"testdata/gcc_empty_ext.o", "BTF: the .BTF.ext section holds no records (as GCC writes it); read as no ext info, as libbpf does"},
		{"testdata/gcc_core_ext.o", "BTF: empty func_info or line_info subsections in .BTF.ext (as GCC writes them); read as no records, as libbpf does"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			spec, warnings, err := LoadCollectionSpec(tt.path)
			if err != nil {
				t.Fatalf("LoadCollectionSpec: %v", err)
			}
			if spec.Programs["gcc_ext_len"] == nil {
				t.Errorf("program gcc_ext_len missing; programs: %v", spec.Programs)
			}
			if diff := cmp.Diff([]string{tt.warning}, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEmptyExtInfoCORE applies the CO-RE relocation that the only
// non-empty subsection holds: the load of task_struct's pid gets the
// target kernel's offset, not the 0 GCC wrote.
func TestEmptyExtInfoCORE(t *testing.T) {
	if _, err := KernelBTF(); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	obj, err := Open("testdata/gcc_core_ext.o", Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	var prog *Program
	for _, p := range obj.Programs {
		if p.Name == "gcc_ext_len" {
			prog = p
		}
	}
	if prog == nil || len(prog.Instructions) < 2 {
		t.Fatalf("program gcc_ext_len missing or short: %+v", prog)
	}
	if prog.Instructions[1].Offset == 0 {
		t.Errorf("the load of pid kept offset 0: the CO-RE relocation was not applied")
	}
}

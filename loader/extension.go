package loader

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
)

// Extension (freplace) programs. A BPF_PROG_TYPE_EXT program replaces a
// global function of another, loaded program: libbpf's SEC("freplace/FUNC")
// names the function, and the loader's caller names the program
// (bpf_program__set_attach_target with the target program's fd), whose BTF
// has FUNC. The kernel checks the extension against that function
// (bpf_check_attach_target) and verifies it as the target program's type.
// vercheck reads the target from an object file: Options.ExtensionTarget
// names it, "OBJ" (the first program with a function FUNC) or "OBJ:PROG".

// ExtensionTarget is the function an Extension program replaces.
type ExtensionTarget struct {
	// Object is the target object, read with the extension's options.
	Object *Object
	// Program is the target program: the extension is verified as its
	// type and expected attach type. It is nil when the object has no
	// program of the name asked for.
	Program *Program
	// Func is the replaced function's BTF function info in Program, nil
	// when Program has no function of the section's name.
	Func *Func
	// FuncIndex is Func's place in Program.Funcs (its func_info index).
	FuncIndex int
}

// resolveExtensionTargets gives every Extension program of obj its target
// in the object opts.ExtensionTarget names.
func resolveExtensionTargets(obj *Object, opts Options) error {
	if opts.ExtensionTarget == "" {
		return nil
	}
	var exts []*Program
	for _, p := range obj.Programs {
		if p.Type == ebpf.Extension {
			exts = append(exts, p)
		}
	}
	if len(exts) == 0 {
		return nil
	}
	path, progName, _ := strings.Cut(opts.ExtensionTarget, ":")
	topts := opts
	topts.ExtensionTarget = ""
	tobj, err := Open(path, topts)
	if err != nil {
		return fmt.Errorf("extension target: %w", err)
	}
	for _, p := range exts {
		p.ExtTarget = findExtensionTarget(tobj, progName, p.AttachTo)
	}
	return nil
}

// findExtensionTarget finds function fn in program progName of obj (or,
// without progName, in the first program that has it).
func findExtensionTarget(obj *Object, progName, fn string) *ExtensionTarget {
	var first *Program
	for _, p := range obj.Programs {
		if progName != "" && p.Name != progName {
			continue
		}
		if first == nil {
			first = p
		}
		for i := range p.Funcs {
			if p.Funcs[i].Name == fn {
				return &ExtensionTarget{Object: obj, Program: p, Func: &p.Funcs[i], FuncIndex: i}
			}
		}
	}
	return &ExtensionTarget{Object: obj, Program: first}
}

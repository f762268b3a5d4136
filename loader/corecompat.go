package loader

import (
	"errors"
	"reflect"

	"github.com/cilium/ebpf/btf"
)

// Type compatibility as libbpf's CO-RE relocation decides it (relo_core.c).

// errCOREDepth is libbpf's -EINVAL for types nested past its recursion
// limits: it refuses the object.
var errCOREDepth = errors.New("types nested too deep for a CO-RE comparison")

// maxCOREDepth is libbpf's recursion depth for type comparisons.
const maxCOREDepth = 32

// isFlexArray is is_flex_arr: an array of no elements that is the last
// member of the struct the accessor before it named.
func isFlexArray(prev coreAccessor, arr *btf.Array) bool {
	if prev.name == "" || arr.Nelems > 0 {
		return false
	}
	return prev.idx == len(compositeMembers(prev.parent))-1
}

// compositeMembers are the members of a struct or union.
func compositeMembers(t btf.Type) []btf.Member {
	switch tt := t.(type) {
	case *btf.Struct:
		return tt.Members
	case *btf.Union:
		return tt.Members
	}
	return nil
}

// isComposite reports a struct or union.
func isComposite(t btf.Type) bool {
	switch t.(type) {
	case *btf.Struct, *btf.Union:
		return true
	}
	return false
}

// kindsCoreCompatible is btf_kind_core_compat: the same kind (cilium/ebpf
// has one Go type per BTF kind, and one for enum and enum64 alike, which
// libbpf takes as compatible), forward declarations of the same flavor.
func kindsCoreCompatible(a, b btf.Type) bool {
	if fa, ok := a.(*btf.Fwd); ok {
		fb, ok := b.(*btf.Fwd)
		return ok && fa.Kind == fb.Kind
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b)
}

// fieldsCoreCompatible is bpf_core_fields_are_compat: any two structs or
// unions, pointers and floats, enums and forward declarations of the same
// essential name (or an anonymous one), integers, and arrays of
// compatible elements.
func fieldsCoreCompatible(local, target btf.Type, depth int) bool {
	if depth > maxCOREDepth {
		return false
	}
	local, target = btf.UnderlyingType(local), btf.UnderlyingType(target)
	if isComposite(local) && isComposite(target) {
		return true
	}
	if !kindsCoreCompatible(local, target) {
		return false
	}
	switch l := local.(type) {
	case *btf.Pointer, *btf.Float, *btf.Int:
		return true
	case *btf.Enum, *btf.Fwd:
		ln, tn := EssentialName(l.TypeName()), EssentialName(target.TypeName())
		return ln == "" || tn == "" || ln == tn
	case *btf.Array:
		return fieldsCoreCompatible(l.Type, target.(*btf.Array).Type, depth+1)
	}
	return false
}

// typesCompatible is __bpf_core_types_are_compat, for the type-based
// relocations but bpf_core_type_matches: kinds compared through
// qualifiers and typedefs, pointers and arrays through their targets,
// function prototypes argument by argument.
func typesCompatible(local, target btf.Type, level int) (bool, error) {
	if !kindsCoreCompatible(local, target) {
		return false, nil
	}
	for depth := maxCOREDepth; ; depth-- {
		if depth < 0 {
			return false, errCOREDepth
		}
		local, target = btf.UnderlyingType(local), btf.UnderlyingType(target)
		if !kindsCoreCompatible(local, target) {
			return false, nil
		}
		switch l := local.(type) {
		case *btf.Void, *btf.Struct, *btf.Union, *btf.Enum, *btf.Fwd, *btf.Int:
			return true, nil
		case *btf.Pointer:
			local, target = l.Target, target.(*btf.Pointer).Target
		case *btf.Array:
			local, target = l.Type, target.(*btf.Array).Type
		case *btf.FuncProto:
			t := target.(*btf.FuncProto)
			if len(l.Params) != len(t.Params) {
				return false, nil
			}
			for i := range l.Params {
				if level <= 0 {
					return false, errCOREDepth
				}
				ok, err := typesCompatible(btf.UnderlyingType(l.Params[i].Type), btf.UnderlyingType(t.Params[i].Type), level-1)
				if !ok || err != nil {
					return ok, err
				}
			}
			local, target = l.Return, t.Return
		default:
			return false, nil
		}
	}
}

// namesCoreMatch is bpf_core_names_match: the same essential name, or two
// anonymous types.
func namesCoreMatch(local, target string) bool {
	if target == "" {
		return local == ""
	}
	return EssentialName(local) == EssentialName(target)
}

// typesMatch is __bpf_core_types_match, for bpf_core_type_matches: names
// and kinds through qualifiers and typedefs; integers of the same size and
// signedness; enums whose every enumerator the target names; structs and
// unions whose every member the target has, matching, except behind a
// pointer, where the name and kind (or a forward declaration of it) do.
func typesMatch(local, target btf.Type, behindPtr bool, level int) (bool, error) {
	if level <= 0 {
		return false, errCOREDepth
	}
	for depth := maxCOREDepth; ; depth-- {
		if depth < 0 {
			return false, errCOREDepth
		}
		local, target = btf.UnderlyingType(local), btf.UnderlyingType(target)
		if !namesCoreMatch(local.TypeName(), target.TypeName()) {
			return false, nil
		}
		switch l := local.(type) {
		case *btf.Void:
			_, ok := target.(*btf.Void)
			return ok, nil
		case *btf.Fwd:
			if t, ok := target.(*btf.Fwd); ok {
				return l.Kind == t.Kind, nil
			}
			if !behindPtr {
				return false, nil
			}
			_, isStruct := target.(*btf.Struct)
			_, isUnion := target.(*btf.Union)
			return isStruct && l.Kind == btf.FwdStruct || isUnion && l.Kind == btf.FwdUnion, nil
		case *btf.Enum:
			t, ok := target.(*btf.Enum)
			return ok && enumsMatch(l, t), nil
		case *btf.Struct, *btf.Union:
			if behindPtr {
				if reflect.TypeOf(local) == reflect.TypeOf(target) {
					return true, nil
				}
				f, ok := target.(*btf.Fwd)
				_, isUnion := local.(*btf.Union)
				return ok && isUnion == (f.Kind == btf.FwdUnion), nil
			}
			if reflect.TypeOf(local) != reflect.TypeOf(target) {
				return false, nil
			}
			return compositesMatch(local, target, behindPtr, level)
		case *btf.Int:
			t, ok := target.(*btf.Int)
			return ok && l.Size == t.Size && l.Encoding&btf.Signed == t.Encoding&btf.Signed, nil
		case *btf.Pointer:
			t, ok := target.(*btf.Pointer)
			if !ok {
				return false, nil
			}
			behindPtr = true
			local, target = l.Target, t.Target
		case *btf.Array:
			t, ok := target.(*btf.Array)
			if !ok || l.Nelems != t.Nelems {
				return false, nil
			}
			local, target = l.Type, t.Type
		case *btf.FuncProto:
			t, ok := target.(*btf.FuncProto)
			if !ok || len(l.Params) != len(t.Params) {
				return false, nil
			}
			for i := range l.Params {
				ok, err := typesMatch(l.Params[i].Type, t.Params[i].Type, behindPtr, level-1)
				if !ok || err != nil {
					return ok, err
				}
			}
			local, target = l.Return, t.Return
		default:
			return false, nil
		}
	}
}

// enumsMatch is bpf_core_enums_match: the same size, and every local
// enumerator named in the target.
func enumsMatch(local, target *btf.Enum) bool {
	if local.Size != target.Size || len(local.Values) > len(target.Values) {
		return false
	}
	for _, lv := range local.Values {
		found := false
		for _, tv := range target.Values {
			if namesCoreMatch(lv.Name, tv.Name) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// compositesMatch is bpf_core_composites_match: every local member has a
// member of its name in the target whose type matches.
func compositesMatch(local, target btf.Type, behindPtr bool, level int) (bool, error) {
	lm, tm := compositeMembers(local), compositeMembers(target)
	if len(lm) > len(tm) {
		return false, nil
	}
	for _, l := range lm {
		found := false
		for _, t := range tm {
			if !namesCoreMatch(l.Name, t.Name) {
				continue
			}
			ok, err := typesMatch(l.Type, t.Type, behindPtr, level-1)
			if err != nil {
				return false, err
			}
			if ok {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

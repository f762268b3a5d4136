package mutate

import (
	"maps"
	"math"
	"slices"

	"github.com/vercheck/vercheck/insn"
)

// This file holds the operators that change what a program refers to
// outside its straight-line code: the object's maps, its subprograms and
// the kernel functions it calls.

// isMapLoad reports whether in is an ld_imm64 of a map: its fd or the
// address of its value.
func isMapLoad(in insn.Insn) bool {
	return in.IsLdImm64() && (in.Src == insn.PseudoMapFD || in.Src == insn.PseudoMapValue)
}

// ldImm64Rewrite replaces the ld_imm64 at i, both slots, by v: the second
// slot keeps its fields and gets v's high half.
func ldImm64Rewrite(prog []insn.Insn, i int, v insn.Insn) edit {
	second := prog[i+1]
	second.Imm = v.Imm2
	return edit{at: i, del: 2, repl: []insn.Insn{v, second}}
}

// otherMap makes a map ld_imm64 refer to each other map of the object, and
// turns a map's fd into the address of its value and back: a map of
// another type, key and value size where the code expects its own (helper
// and kfunc argument checks, value bounds, tail calls through another
// map, direct value access to a map that has none).
func otherMap(env Env, prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !isMapLoad(in) {
		return nil
	}
	var out []edit
	for k, size := range env.ValueSizes {
		if size >= 0 && int32(k) != in.Imm {
			v := in
			v.Imm = int32(k)
			out = append(out, ldImm64Rewrite(prog, i, v))
		}
	}
	v := in
	if in.Src == insn.PseudoMapFD {
		v.Src = insn.PseudoMapValue
	} else {
		v.Src, v.Imm2 = insn.PseudoMapFD, 0
	}
	return append(out, ldImm64Rewrite(prog, i, v))
}

// mapValueOffset puts the offset of a map value's address at the edges of
// the value: its start, its last byte, one past its end, its last four and
// eight bytes, -1, the kernel's limit, and the current offset's
// neighbours (resolve_pseudo_ldimm64's bounds, then every access through
// the address).
func mapValueOffset(env Env, prog []insn.Insn, i int) []edit {
	in := prog[i]
	if in.Filler || !in.IsLdImm64() || in.Src != insn.PseudoMapValue || int(in.Imm) >= len(env.ValueSizes) || in.Imm < 0 {
		return nil
	}
	size := int64(env.ValueSizes[in.Imm])
	cur := int64(in.Imm2)
	var out []edit
	for _, off := range []int64{0, size - 1, size, size - 4, size - 8, -1, insn.MaxVarOff, cur + 1, cur - 1} {
		if off != cur && off >= math.MinInt32 && off <= math.MaxInt32 {
			v := in
			v.Imm2 = int32(off)
			out = append(out, ldImm64Rewrite(prog, i, v))
		}
	}
	return out
}

// subprogStarts returns the instructions prog calls or takes the address
// of, and 0, the main program, in order.
func subprogStarts(prog []insn.Insn) []int {
	starts := map[int]bool{0: true}
	for j, in := range prog {
		if rel, ok := in.Relative(); ok && (in.IsPseudoCall() || in.IsPseudoFunc()) {
			starts[j+int(rel)+1] = true
		}
	}
	return slices.Sorted(maps.Keys(starts))
}

// otherCallee makes a bpf-to-bpf call, or the address of a callback,
// refer to each other subprogram and to the main program: arguments and
// a return value the callee did not expect, a callback of another
// signature, a recursive call.
func otherCallee(prog []insn.Insn, i int) []edit {
	in := prog[i]
	rel, ok := in.Relative()
	if !ok || !(in.IsPseudoCall() || in.IsPseudoFunc()) {
		return nil
	}
	var out []edit
	for _, s := range subprogStarts(prog) {
		if s == i+int(rel)+1 {
			continue
		}
		v := in
		v.Imm = int32(s - i - 1)
		if in.IsPseudoFunc() {
			out = append(out, ldImm64Rewrite(prog, i, v))
		} else {
			out = append(out, rewrite(i, v))
		}
	}
	return out
}

// otherKfunc makes a kfunc call call each other kfunc that the program or
// its object calls (its BTF id and module): arguments, acquired and
// released references, iterators and dynptrs prepared for another kfunc.
func otherKfunc(env Env, prog []insn.Insn, i int) []edit {
	in := prog[i]
	if !in.IsKfuncCall() {
		return nil
	}
	type kfunc struct {
		id     int32
		module int16
	}
	seen := map[kfunc]bool{{in.Imm, in.Off}: true}
	var out []edit
	for _, c := range slices.Concat(prog, env.Kfuncs) {
		k := kfunc{c.Imm, c.Off}
		if !c.IsKfuncCall() || seen[k] {
			continue
		}
		seen[k] = true
		v := in
		v.Imm, v.Off = c.Imm, c.Off
		out = append(out, rewrite(i, v))
	}
	return out
}

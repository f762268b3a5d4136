package verifier

import "syscall"

// Direct tail calls. A bpf_tail_call whose program array and index are the
// same constants on every path that reaches it (record_func_map,
// record_func_key) is patched by the JIT into a direct jump: do_misc_fixups
// gives each such call a poke descriptor (bpf_jit_add_poke_descriptor), and
// a program holds at most maxPokeDescriptors of them, counted over the whole
// program, subprograms included. The 1,025th refuses the load after the
// walk has accepted it ("adding tail call poke descriptor failed", ENOSPC).
// Calls no path reached are dead code the kernel removes first; a call
// whose map or index differs between paths, or whose index is not a
// constant inside the array, keeps the indirect form and needs none.

// maxPokeDescriptors is the kernel's poke_tab_max.
const maxPokeDescriptors = 1024

// tailCallAux is, per tail call instruction reached, the map and index
// its paths gave it (the kernel's insn_aux_data map_ptr_state and
// map_key_state).
type tailCallAux map[int]tailCallState

// tailCallState is one tail call's map (poisoned when paths disagree) and
// index (poisoned when not the same in-range constant on every path).
type tailCallState struct {
	mapIdx               int
	key                  uint64
	mapPoison, keyPoison bool
}

// record notes that the tail call at insn was reached with the map mapIdx
// and, when constant is set, the in-range index key.
func (t *tailCallAux) record(insn, mapIdx int, key uint64, constant bool) {
	if *t == nil {
		*t = tailCallAux{}
	}
	st, seen := (*t)[insn]
	if !seen {
		st = tailCallState{mapIdx: mapIdx, key: key, keyPoison: !constant}
	} else {
		st.mapPoison = st.mapPoison || st.mapIdx != mapIdx
		st.keyPoison = st.keyPoison || !constant || st.key != key
	}
	(*t)[insn] = st
}

// checkTailCallPokes is the poke-descriptor part of do_misc_fixups: the
// direct tail calls of an accepted program, in instruction order, against
// the JIT's limit. A build without a JIT (Interpreted) patches none.
func (e *env) checkTailCallPokes() error {
	if e.build.Interpreted || len(e.tailCalls) <= maxPokeDescriptors {
		return nil
	}
	pokes := 0
	for i := range e.prog {
		st, ok := e.tailCalls[i]
		if !ok || st.mapPoison || st.keyPoison {
			continue
		}
		if pokes++; pokes > maxPokeDescriptors {
			return &RejectError{Insn: i, Msg: "adding tail call poke descriptor failed", errno: syscall.ENOSPC}
		}
	}
	return nil
}

package vercheck_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck"
	"github.com/vercheck/vercheck/verifier"
)

// A loader checks an object before loading it: a program the kernel would
// reject never reaches ebpf.NewCollection, and the error says where and why.
func Example() {
	spec, err := ebpf.LoadCollectionSpec("testdata/progs/map_lookup_unchecked.o")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := vercheck.VerifyCollectionSpec(spec, nil); err != nil {
		var rej *verifier.RejectError
		if errors.As(err, &rej) {
			fmt.Printf("not loading: insn %d: %s\n", rej.Insn, rej.Msg)
		}
		return
	}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		log.Fatal(err)
	}
	defer coll.Close()
	// Output:
	// not loading: insn 7: R0 invalid mem access 'map_value_or_null'
}

// Each program's result carries the verdict and the kernel's statistics,
// accepted or not.
func ExampleVerifyCollectionSpec() {
	spec := &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"counters": {Name: "counters", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 16},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"count": {
				Name: "count", Type: ebpf.SocketFilter, License: "GPL",
				Instructions: lookup("counters", true),
			},
			"count_unchecked": {
				Name: "count_unchecked", Type: ebpf.SocketFilter, License: "GPL",
				Instructions: lookup("counters", false),
			},
		},
	}
	results, err := vercheck.VerifyCollectionSpec(spec, nil)
	for _, r := range results {
		fmt.Printf("%s: %s, insn_processed %d\n", r.Program, r.Verdict(), r.Stats.InsnProcessed)
	}
	fmt.Println(err)
	// Output:
	// count: accepted, insn_processed 11
	// count_unchecked: rejected, insn_processed 7
	// program count_unchecked: insn 7: R0 invalid mem access 'map_value_or_null' (hint: the value a map lookup returns may be NULL: compare it with 0 (if (!v) return ...) before reading or writing through it)
}

// An object file is read with vercheck's own loader, which also reads old
// objects cilium/ebpf refuses and says what it assumed to do so.
func ExampleVerifyFile() {
	res, err := vercheck.VerifyFile("testdata/progs/map_lookup_checked.o", nil)
	if res == nil {
		log.Fatal(err)
	}
	for _, r := range res.Results {
		fmt.Printf("%s: %s, insn_processed %d\n", r.Program, r.Verdict(), r.Stats.InsnProcessed)
	}
	fmt.Println(len(res.Warnings), "loader warnings;", err)
	// Output:
	// map_lookup_checked: accepted, insn_processed 15
	// 0 loader warnings; <nil>
}

// One program is verified with the map specs its loads reference.
func ExampleVerifyProgramSpec() {
	maps := map[string]*ebpf.MapSpec{
		"counters": {Name: "counters", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 16},
	}
	prog := &ebpf.ProgramSpec{
		Name: "count", Type: ebpf.SocketFilter, License: "GPL",
		Instructions: lookup("counters", true),
	}
	res, err := vercheck.VerifyProgramSpec(prog, maps, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Verdict(), res.Stats.InsnProcessed)
	// Output:
	// accepted 11
}

// lookup reads element 0 of map name and returns it (a socket filter's
// packet length); checked says whether the lookup's result is tested for
// NULL first, as the verifier demands.
func lookup(name string, checked bool) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.RFP, -4, asm.R1, asm.Word),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.LoadMapPtr(asm.R1, 0).WithReference(name),
		asm.FnMapLookupElem.Call(),
	}
	if checked {
		insns = append(insns, asm.JEq.Imm(asm.R0, 0, "out"))
	}
	insns = append(insns, asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord))
	if checked {
		insns = append(insns, asm.Return(), asm.Mov.Imm(asm.R0, 0).WithSymbol("out"))
	}
	return append(insns, asm.Return())
}

// With Verifier.Profile set, each result carries the search's profile:
// where the verifier spent its instructions and why stored states did not
// match. A CI bot can report the loops that cost the most.
func ExampleVerifyFile_profile() {
	opts := &vercheck.Options{Verifier: verifier.Options{Profile: true}}
	res, err := vercheck.VerifyFile("testdata/progs/bounded_loop.o", opts)
	if res == nil {
		log.Fatal(err)
	}
	p := res.Results[0].Profile
	for _, l := range p.Loops {
		fmt.Printf("loop at line %d: %d of %d insns, %d iterations\n", l.Line, l.Visits, p.InsnProcessed, l.Iterations)
		fmt.Printf("states kept apart: %s\n", l.MissReasons[0].Text)
	}
	// Output:
	// loop at line 14: 96 of 100 insns, 15 iterations
	// states kept apart: R2's range differs (2 vs 3, precise) from the same path's earlier loop iteration
}

package verifier

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
	"github.com/vercheck/vercheck/loader"
)

var updateLiveness = flag.Bool("update-liveness", false, "regenerate testdata/liveness from the live kernel's level-2 logs")

// livenessCases are programs whose stack liveness is compared with the
// kernel's: the golden files hold, per instruction, the stack slots of
// frame 0 the 6.18 kernel reported live before it ("+live" lines of its
// level-2 log, accumulated; the kernel reports them at the program entry
// and at prune points).
var livenessCases = []struct{ object, program string }{
	{"map_lookup_checked.o", "map_lookup_checked"},
	{"map_update_delete.o", "map_update_delete"},
	{"spill_fill_ptr.o", "spill_fill_ptr"},
	{"global_func.o", "global_ptr_checked"},
	{"callback.o", "cb_loop_sum"},
}

// kernelLiveRE matches "(0) frame 0 insn 12 +live -8,-16" lines.
var kernelLiveRE = regexp.MustCompile(`^\(0\) frame 0 insn (\d+) \+live (.*)$`)

func TestStackLivenessMatchesKernel(t *testing.T) {
	for _, c := range livenessCases {
		t.Run(c.program, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "progs", c.object)
			golden := filepath.Join("testdata", "liveness", c.program+".golden")
			if *updateLiveness {
				log, err := kernelLevel2Log(path, c.program)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(formatLive(kernelLive(log))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ourLive(path, c.program)
			if err != nil {
				t.Fatal(err)
			}
			// The kernel's log reports an instruction's liveness only
			// where it changed; compare at those instructions.
			reported := map[int][]int{}
			for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
				var i int
				if _, err := fmt.Sscanf(line, "insn %d:", &i); err == nil {
					reported[i] = got[i]
				}
			}
			if len(reported) == 0 {
				t.Fatalf("%s: the kernel reported no live slots; pick a program that uses the stack", golden)
			}
			if diff := cmp.Diff(string(want), formatLive(reported)); diff != "" {
				t.Errorf("stack liveness differs from Linux 6.18 (-kernel +vercheck):\n%s", diff)
			}
		})
	}
}

// kernelLive accumulates the "+live" slots per instruction of a level-2
// log.
func kernelLive(log string) map[int][]int {
	live := map[int]map[int]bool{}
	for _, line := range strings.Split(log, "\n") {
		m := kernelLiveRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		if live[i] == nil {
			live[i] = map[int]bool{}
		}
		for _, f := range strings.Split(strings.TrimSpace(m[2]), ",") {
			off, err := strconv.Atoi(f)
			if err == nil {
				live[i][off] = true
			}
		}
	}
	out := map[int][]int{}
	for i, set := range live {
		for off := range set {
			out[i] = append(out[i], off)
		}
	}
	return out
}

// ourLive verifies the program and returns, per instruction, the frame-0
// slots vercheck's analysis says are live before it.
func ourLive(path, name string) (map[int][]int, error) {
	obj, err := loader.Open(path, loader.Options{})
	if err != nil {
		return nil, err
	}
	for _, p := range obj.Programs {
		if p.Name != name {
			continue
		}
		code, err := insn.FromAsm(p.Instructions)
		if err != nil {
			return nil, err
		}
		e := newEnv(obj, p, code, Options{})
		defer e.release()
		if err := e.run(); err != nil {
			return nil, err
		}
		e.updateStackLiveness()
		main := chainIDOf([]int32{-1})
		inst := e.stackLive.instances.get(&main)
		out := map[int][]int{}
		if inst == nil {
			return out, nil
		}
		for i, mask := range inst.live(0) {
			for spi := 0; spi < 64; spi++ {
				if mask&(1<<spi) != 0 {
					out[i] = append(out[i], -8*(spi+1))
				}
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: no program %s", path, name)
}

// formatLive renders liveness as "insn N: -8,-16" lines in insn order.
func formatLive(live map[int][]int) string {
	var idx []int
	for i, offs := range live {
		if len(offs) > 0 {
			idx = append(idx, i)
		}
	}
	sort.Ints(idx)
	var b strings.Builder
	for _, i := range idx {
		offs := append([]int(nil), live[i]...)
		sort.Sort(sort.Reverse(sort.IntSlice(offs)))
		s := make([]string, len(offs))
		for j, o := range offs {
			s[j] = strconv.Itoa(o)
		}
		fmt.Fprintf(&b, "insn %d: %s\n", i, strings.Join(s, ","))
	}
	return b.String()
}

// kernelLevel2Log loads one program of a modern object into the running
// kernel with the level-2 log and returns the log.
func kernelLevel2Log(path, name string) (string, error) {
	spec, err := ebpf.LoadCollectionSpec(path)
	if err != nil {
		return "", err
	}
	ps := spec.Programs[name]
	if ps == nil {
		return "", fmt.Errorf("%s: no program %s", path, name)
	}
	maps := map[string]*ebpf.Map{}
	defer func() {
		for _, m := range maps {
			m.Close()
		}
	}()
	for mname, ms := range spec.Maps {
		m, err := ebpf.NewMap(ms)
		if err != nil {
			return "", err
		}
		maps[mname] = m
	}
	ps = ps.Copy()
	for i := range ps.Instructions {
		ins := &ps.Instructions[i]
		if ref := ins.Reference(); ref != "" && maps[ref] != nil {
			if err := ins.AssociateMap(maps[ref]); err != nil {
				return "", err
			}
		}
	}
	prog, err := ebpf.NewProgramWithOptions(ps, ebpf.ProgramOptions{LogLevel: ebpf.LogLevelInstruction | ebpf.LogLevelBranch, LogSizeStart: 1 << 26})
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		return strings.Join(ve.Log, "\n"), nil
	}
	if err != nil {
		return "", err
	}
	defer prog.Close()
	return prog.VerifierLog, nil
}

// TestChainTable: every instance put is found by its chain, across the
// table's growth, chains never put are not, and chains that differ only
// past their length (a prefix) are told apart.
func TestChainTable(t *testing.T) {
	var tab chainTable
	var ids []chainID
	for a := int32(-3); a <= 40; a++ {
		for b := int32(0); b <= 40; b++ {
			links := []int32{-1, a, b}[:1+int(b%3)]
			id := chainIDOf(links)
			if tab.get(&id) != nil {
				continue
			}
			tab.put(&liveInstance{key: id})
			ids = append(ids, id)
		}
	}
	if len(ids) < 100 {
		t.Fatalf("only %d distinct chains put", len(ids))
	}
	for _, id := range ids {
		inst := tab.get(&id)
		if inst == nil || !inst.key.same(&id) {
			t.Fatalf("chain %v: got %v", id.links[:id.n], inst)
		}
	}
	for _, links := range [][]int32{{-2}, {-1, 41}, {-1, 5, 41}, {-1, 5, 7, 9}} {
		id := chainIDOf(links)
		if inst := tab.get(&id); inst != nil {
			t.Errorf("chain %v never put: found %v", links, inst.key.links[:inst.key.n])
		}
	}
	if tab.n != len(ids) || len(tab.slots) < 2*tab.n {
		t.Errorf("table of %d slots holds %d instances, %d put", len(tab.slots), tab.n, len(ids))
	}
}

// TestFrameRowsOnlyWhereMarked: an instance gives a frame its mask rows at
// the frame's first mark, and a frame never marked reads as zero. main
// writes fp-8 and passes its address to f1, which reads it and calls f2,
// which writes its own fp-8: main's instance has rows for its frame, f1's
// for main's frame only (it never touches its own stack), f2's for its
// own frame only.
func TestFrameRowsOnlyWhereMarked(t *testing.T) {
	call := func(off int64) asm.Instruction {
		return asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoCall, Constant: off}
	}
	// cilium/ebpf's StoreImm refuses a DWord.
	storeFP := func(off int16, v int64) asm.Instruction {
		return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: asm.R10, Offset: off, Constant: v}
	}
	p := &loader.Program{Name: "rows", Type: ebpf.SocketFilter, Instructions: asm.Instructions{
		storeFP(-8, 0),               // 0
		asm.Mov.Reg(asm.R1, asm.R10), // 1
		asm.Add.Imm(asm.R1, -8),      // 2
		call(2),                      // 3: f1
		asm.Mov.Imm(asm.R0, 0),       // 4
		asm.Return(),                 // 5
		asm.LoadMem(asm.R0, asm.R1, 0, asm.DWord), // 6: f1 reads main's fp-8
		call(1),                // 7: f2
		asm.Return(),           // 8
		storeFP(-8, 1),         // 9: f2 writes its fp-8
		asm.Mov.Imm(asm.R0, 0), // 10
		asm.Return(),           // 11
	}}
	code, err := insn.FromAsm(p.Instructions)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(&loader.Object{Path: "test"}, p, code, Options{})
	defer e.release()
	if err := e.run(); err != nil {
		t.Fatalf("verify: %v", err)
	}
	e.updateStackLiveness()
	type frameRows struct {
		Chain string
		Rows  []bool // per frame of the chain: has rows
	}
	var got []frameRows
	for _, links := range [][]int32{{-1}, {-1, 3}, {-1, 3, 7}} {
		id := chainIDOf(links)
		inst := e.stackLive.instances.get(&id)
		if inst == nil {
			t.Fatalf("no instance for chain %v", links)
		}
		fr := frameRows{Chain: fmt.Sprint(links)}
		for f := 0; f <= inst.depth; f++ {
			fr.Rows = append(fr.Rows, inst.hasRows(f))
			if !inst.hasRows(f) {
				for r := range rowsPerFrame {
					if slices.ContainsFunc(inst.row(f, r), func(w uint64) bool { return w != 0 }) {
						t.Errorf("chain %v frame %d: row %d of a frame without rows is not zero", links, f, r)
					}
				}
			}
		}
		got = append(got, fr)
	}
	want := []frameRows{
		{"[-1]", []bool{true}},
		{"[-1 3]", []bool{true, false}},
		{"[-1 3 7]", []bool{false, false, true}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames with rows (-want +got):\n%s", diff)
	}
	// f1's read of main's fp-8 (slot 0) is live at its entry.
	id := chainIDOf([]int32{-1, 3})
	if inst := e.stackLive.instances.get(&id); inst.live(0)[0]&1 == 0 {
		t.Errorf("main's fp-8 not live at f1's entry: %#x", inst.live(0)[0])
	}
}

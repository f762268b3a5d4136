package mutate

import (
	"math/rand/v2"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/insn"
)

// TestOtherProgTypes: a program type's others are those of its context
// family, attach type 0 standing for any of its type's.
func TestOtherProgTypes(t *testing.T) {
	tests := []struct {
		name string
		pt   ProgType
		want []ProgType
	}{
		{"xdp without attach type", ProgType{ebpf.XDP, ebpf.AttachNone}, []ProgType{
			{ebpf.XDP, ebpf.AttachXDP}, {ebpf.XDP, ebpf.AttachXDPDevMap}, {ebpf.XDP, ebpf.AttachXDPCPUMap}}},
		{"sockopt", ProgType{ebpf.CGroupSockopt, ebpf.AttachCGroupSetsockopt}, []ProgType{
			{ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt}}},
		{"sock_create without attach type", ProgType{ebpf.CGroupSock, ebpf.AttachNone}, []ProgType{
			{ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate}, {ebpf.CGroupSock, ebpf.AttachCGroupInet4PostBind},
			{ebpf.CGroupSock, ebpf.AttachCGroupInet6PostBind}, {ebpf.CGroupSock, ebpf.AttachCgroupInetSockRelease}}},
		{"fentry has none", ProgType{ebpf.Tracing, ebpf.AttachTraceFEntry}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, OtherProgTypes(tt.pt)); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	// Every __sk_buff type reaches every other one.
	if got := len(OtherProgTypes(ProgType{ebpf.SchedCLS, ebpf.AttachNone})); got != len(ctxFamilies[0])-1 {
		t.Errorf("tc: %d other types, want %d", got, len(ctxFamilies[0])-1)
	}
}

// TestMutateProgType: a mutant drawn with other program types is loaded
// as one of them in about ProgTypeShare of the draws, the change and the
// operator recorded, and apply keeps the type through later edits.
func TestMutateProgType(t *testing.T) {
	env := Env{ProgTypes: OtherProgTypes(ProgType{ebpf.XDP, ebpf.AttachNone})}
	retyped := 0
	const draws = 1000
	for s := range uint64(draws) {
		m := Mutate(sampleProg(), rand.New(rand.NewPCG(s, 7)), 2, env)
		if m.ProgType == nil {
			continue
		}
		retyped++
		if m.Operators[0] != ProgTypeOperator || len(m.Operators) != 2 {
			t.Fatalf("stream %d: operators %q, want %q first of 2", s, m.Operators, ProgTypeOperator)
		}
		if want := "program type: loaded as " + m.ProgType.String(); m.Changes[0] != want {
			t.Errorf("stream %d: change %q, want %q", s, m.Changes[0], want)
		}
	}
	if retyped < draws*ProgTypeShare/2 || retyped > draws*ProgTypeShare*2 {
		t.Errorf("%d of %d mutants retyped, want about %d", retyped, draws, int(draws*ProgTypeShare))
	}
	if m := Mutate(sampleProg(), rand.New(rand.NewPCG(1, 7)), 2, Env{}); m.ProgType != nil {
		t.Errorf("retyped without other types: %v", m.ProgType)
	}
	// Named by -ops, the program type is changed in every mutant; with
	// other operators named, in none.
	for s := range uint64(20) {
		named := env
		named.Operators = []string{ProgTypeOperator, "swap"}
		if m := Mutate(sampleProg(), rand.New(rand.NewPCG(s, 7)), 2, named); m.ProgType == nil {
			t.Errorf("stream %d: not retyped with -ops %q", s, named.Operators)
		}
		named.Operators = []string{"swap"}
		if m := Mutate(sampleProg(), rand.New(rand.NewPCG(s, 7)), 2, named); m.ProgType != nil {
			t.Errorf("stream %d: retyped with -ops %q", s, named.Operators)
		}
	}
}

// TestAllowedHelper: a helper call becomes each other allowed helper,
// with its argument registers as they were; nothing else changes.
func TestAllowedHelper(t *testing.T) {
	env := Env{Helpers: []int32{1, 2, 7}}
	p := prog(mov(1, 0), helper(2), exit())
	var got []insn.Insn
	for _, e := range allowedHelper(env, p, 1) {
		got = append(got, e.repl...)
	}
	if diff := cmp.Diff([]insn.Insn{helper(1), helper(7)}, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if eds := allowedHelper(env, p, 0); eds != nil {
		t.Errorf("edits of a mov: %v", eds)
	}
}

// TestTypeKfunc: a helper or kfunc call becomes each other kfunc of the
// program type's; other instructions are no sites.
func TestTypeKfunc(t *testing.T) {
	kf := func(id int32) insn.Insn {
		return insn.Insn{Op: insn.ClassJMP | insn.JmpCall, Src: insn.PseudoKfuncCall, Imm: id}
	}
	env := Env{TypeKfuncs: []insn.Insn{kf(100), kf(200)}}
	p := prog(mov(1, 0), helper(2), kf(200), exit())
	for _, tt := range []struct {
		at   int
		want []insn.Insn
	}{{0, nil}, {1, []insn.Insn{kf(100), kf(200)}}, {2, []insn.Insn{kf(100)}}} {
		var got []insn.Insn
		for _, e := range typeKfunc(env, p, tt.at) {
			got = append(got, e.repl...)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("insn %d: mismatch (-want +got):\n%s", tt.at, diff)
		}
	}
}

// TestMutateSleepable: a mutant of a program that may sleep has its
// sleepable flag toggled in about SleepableShare of the draws, recorded
// as an operator; one that may not, never.
func TestMutateSleepable(t *testing.T) {
	toggled := 0
	const draws = 1000
	for s := range uint64(draws) {
		m := Mutate(sampleProg(), rand.New(rand.NewPCG(s, 9)), 2, Env{MaySleep: true})
		if !m.ToggleSleepable {
			continue
		}
		toggled++
		if m.Operators[0] != SleepableOperator || len(m.Operators) != 2 {
			t.Fatalf("stream %d: operators %q, want %q first of 2", s, m.Operators, SleepableOperator)
		}
	}
	if toggled < draws*SleepableShare/2 || toggled > draws*SleepableShare*2 {
		t.Errorf("%d of %d mutants toggled, want about %d", toggled, draws, int(draws*SleepableShare))
	}
	for s := range uint64(100) {
		if m := Mutate(sampleProg(), rand.New(rand.NewPCG(s, 9)), 2, Env{}); m.ToggleSleepable {
			t.Fatalf("stream %d: toggled a program that may not sleep", s)
		}
	}
}

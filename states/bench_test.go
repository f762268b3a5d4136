package states

import "testing"

// The realistic state: three frames (main, a callee, its callee), 64 stack
// slots each mixing spills, MISC, ZERO and untouched slots, registers
// holding ctx, map values, packets, stack pointers and scalars.
const (
	benchFrames = 3
	benchSlots  = 64
)

func BenchmarkStateCopy(b *testing.B) {
	src := realisticState(benchFrames, benchSlots)
	dst := &State{}
	dst.CopyFrom(src)
	b.ReportAllocs()
	for b.Loop() {
		dst.CopyFrom(src)
	}
}

func BenchmarkStateClone(b *testing.B) { benchPoolCopy(b, (*Pool).Clone) }

// benchPoolCopy times a copy the pool makes of the realistic state, given
// back at once.
func benchPoolCopy(b *testing.B, copyOf func(*Pool, *State) *State) {
	src := realisticState(benchFrames, benchSlots)
	var p Pool
	b.ReportAllocs()
	for b.Loop() {
		p.Put(copyOf(&p, src))
	}
}

// BenchmarkPushPop is what a branch costs: a packed copy pushed, then
// resumed into the memory of the path that ended.
func BenchmarkPushPop(b *testing.B) {
	src := realisticState(benchFrames, benchSlots)
	var p Pool
	cur := p.Clone(src)
	b.ReportAllocs()
	for b.Loop() {
		cur = p.Resume(cur, p.ClonePacked(src))
	}
}

// BenchmarkStatesEqualPacked is BenchmarkStatesEqualSealed against a
// packed checkpoint, as the verifier stores them.
func BenchmarkStatesEqualPacked(b *testing.B) {
	var p Pool
	benchSealedEqual(b, p.ClonePacked(realisticState(benchFrames, benchSlots)))
}

func BenchmarkStatesEqual(b *testing.B) {
	old, cur := realisticState(benchFrames, benchSlots), realisticState(benchFrames, benchSlots)
	var env EqualEnv
	b.ReportAllocs()
	for b.Loop() {
		if !env.StatesEqual(old, cur, NotExact) {
			b.Fatal("states differ")
		}
	}
}

// BenchmarkStatesEqualSealed is BenchmarkStatesEqual against a sealed
// checkpoint, as the explored-state store keeps them.
func BenchmarkStatesEqualSealed(b *testing.B) {
	benchSealedEqual(b, realisticState(benchFrames, benchSlots))
}

// benchSealedEqual measures comparisons of a realistic state against old,
// sealed.
func benchSealedEqual(b *testing.B, old *State) {
	cur := realisticState(benchFrames, benchSlots)
	old.Seal()
	var env EqualEnv
	b.ReportAllocs()
	for b.Loop() {
		if !env.StatesEqual(old, cur, NotExact) {
			b.Fatal("states differ")
		}
	}
}

// BenchmarkStatesEqualMiss measures the common early exit: the states
// differ in a precise register of the top frame.
func BenchmarkStatesEqualMiss(b *testing.B) {
	old, cur := realisticState(benchFrames, benchSlots), realisticState(benchFrames, benchSlots)
	cur.Cur().Regs()[6].MarkConst(1000)
	var env EqualEnv
	b.ReportAllocs()
	for b.Loop() {
		if env.StatesEqual(old, cur, NotExact) {
			b.Fatal("states match")
		}
	}
}

func BenchmarkRegString(b *testing.B) {
	r := bounded(0, 255, 0xff, true, 3)
	var p Printer
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = p.AppendReg(buf[:0], &r, 0)
	}
}

// BenchmarkCheckpoint is what storing a checkpoint costs: a packed,
// sealed copy.
func BenchmarkCheckpoint(b *testing.B) { benchPoolCopy(b, (*Pool).Checkpoint) }

// BenchmarkClonePacked is the copy a pushed branch or a checkpoint
// starts with.
func BenchmarkClonePacked(b *testing.B) { benchPoolCopy(b, (*Pool).ClonePacked) }

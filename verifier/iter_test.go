package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/states"
)

// iterState builds a one-frame state whose slot 0 holds a one-slot
// iterator in state it at depth.
func iterState(it states.IterState, depth int32) *states.State {
	st := &states.State{}
	st.Frames[0] = &states.Frame{CallSite: -1}
	st.Frames[0].GrowStack(states.SlotSize)
	s := st.Frames[0].Slot(0)
	s.Spilled.MarkPtr(states.PtrToStack, 0)
	s.Spilled.Off = it
	s.Spilled.Range = depth
	s.Spilled.RefObjID = 1
	for b := range s.Types {
		s.Types[b] = states.StackIter
	}
	return st
}

func TestIterActiveDepthsDiffer(t *testing.T) {
	tests := []struct {
		name     string
		old, cur *states.State
		want     bool
	}{
		{"same depth", iterState(states.IterActive, 1), iterState(states.IterActive, 1), false},
		{"active, deeper", iterState(states.IterActive, 1), iterState(states.IterActive, 2), true},
		{"drained in old: depth ignored", iterState(states.IterDrained, 1), iterState(states.IterDrained, 2), false},
		{"no iterator", &states.State{Frames: [states.MaxCallFrames]*states.Frame{{CallSite: -1}}}, iterState(states.IterActive, 3), false},
	}
	for _, tt := range tests {
		if got := iterActiveDepthsDiffer(tt.old, tt.cur); got != tt.want {
			t.Errorf("%s: iterActiveDepthsDiffer = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// scalarRegs returns a one-frame state whose r1..rN are the given scalars.
func scalarRegs(regs ...states.Reg) *states.State {
	st := states.NewState()
	copy(st.Frames[0].Regs()[1:], regs)
	return st
}

func constReg(v uint64, id uint32, precise bool) states.Reg {
	var r states.Reg
	r.MarkConst(v)
	r.ID = id
	r.SetPrecise(precise)
	return r
}

func TestWidenLoopScalars(t *testing.T) {
	unknown := func() states.Reg { var r states.Reg; r.MarkUnknown(false); return r }()
	tests := []struct {
		name     string
		old, cur []states.Reg
		want     []states.Reg
	}{
		{"changed imprecise counter widens",
			[]states.Reg{constReg(1, 0, false)}, []states.Reg{constReg(2, 0, false)},
			[]states.Reg{unknown}},
		{"unchanged scalar stays",
			[]states.Reg{constReg(7, 0, false)}, []states.Reg{constReg(7, 0, false)},
			[]states.Reg{constReg(7, 0, false)}},
		{"precise in old stays",
			[]states.Reg{constReg(1, 0, true)}, []states.Reg{constReg(2, 0, false)},
			[]states.Reg{constReg(2, 0, false)}},
		{"precise in cur stays",
			[]states.Reg{constReg(1, 0, false)}, []states.Reg{constReg(2, 0, true)},
			[]states.Reg{constReg(2, 0, true)}},
		{"ids must correspond across registers",
			// r1 and r2 share id 5 in old but cur pairs 5 with two ids.
			[]states.Reg{constReg(3, 5, false), constReg(3, 5, false)},
			[]states.Reg{constReg(3, 6, false), constReg(3, 7, false)},
			[]states.Reg{constReg(3, 6, false), unknown}},
	}
	for _, tt := range tests {
		old, cur := scalarRegs(tt.old...), scalarRegs(tt.cur...)
		widenLoopScalars(old, cur)
		got := cur.Frames[0].Regs()[1 : 1+len(tt.want)]
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(states.Reg{})); diff != "" {
			t.Errorf("%s: widened registers mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

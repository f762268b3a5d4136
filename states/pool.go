package states

// Pool recycles states and frames so that the verifier's push/pop and
// checkpoint traffic does not allocate in steady state. A recycled State
// keeps the capacity of its Refs and JmpHistory; a recycled Frame keeps the
// capacity of its Stack.
//
// A Pool is not safe for concurrent use. A state must not be Put while
// another state still points at it through Parent.
type Pool struct {
	states []*State
	frames []*Frame
}

// Get returns a state in the condition NewState returns one: the main
// frame initialised, one open branch.
func (p *Pool) Get() *State {
	s := p.state()
	s.Branches = 1
	s.Frames[0] = p.frame()
	InitFrame(s.Frames[0], MainCallSite, 0, 0)
	return s
}

// Clone returns a deep copy of src built from recycled memory.
func (p *Pool) Clone(src *State) *State {
	s := p.state()
	for i := 0; i <= int(src.CurFrame); i++ {
		s.Frames[i] = p.frame() // CopyFrom overwrites every field
	}
	s.CopyFrom(src)
	return s
}

// Put gives s and its frames back to the pool. s must not be used
// afterwards.
func (p *Pool) Put(s *State) {
	if s == nil {
		return
	}
	for i, f := range s.Frames {
		if f != nil {
			p.PutFrame(f)
			s.Frames[i] = nil
		}
	}
	*s = State{Refs: s.Refs[:0], JmpHistory: s.JmpHistory[:0]}
	p.states = append(p.states, s)
}

// Frame returns an empty frame (zero registers, empty stack), for a call
// that pushes a new frame; initialise it with InitFrame.
func (p *Pool) Frame() *Frame {
	f := p.frame()
	sum := f.sum
	*f = Frame{Stack: f.Stack, sum: sum}
	return f
}

// frame pops a recycled frame, or allocates one. Its stack is empty and it
// has no summary, but its registers and other fields are left over: the
// caller overwrites them all.
func (p *Pool) frame() *Frame {
	n := len(p.frames)
	if n == 0 {
		return &Frame{}
	}
	f := p.frames[n-1]
	p.frames = p.frames[:n-1]
	return f
}

// PutFrame gives f back to the pool, for a frame popped by a return. f must
// not be used afterwards. Only its stack and summary are emptied here; the
// rest is overwritten when the frame is handed out again.
func (p *Pool) PutFrame(f *Frame) {
	f.Stack = f.Stack[:0]
	f.sum.reset()
	p.frames = append(p.frames, f)
}

// state pops a recycled state, or allocates one. Its frames are all nil.
func (p *Pool) state() *State {
	n := len(p.states)
	if n == 0 {
		return &State{}
	}
	s := p.states[n-1]
	p.states = p.states[:n-1]
	return s
}

// Trim drops recycled states and frames beyond max of each, so that a pool
// kept between verifications does not hold on to a large program's
// memory.
func (p *Pool) Trim(max int) {
	if len(p.states) > max {
		clear(p.states[max:])
		p.states = p.states[:max]
	}
	if len(p.frames) > max {
		clear(p.frames[max:])
		p.frames = p.frames[:max]
	}
}

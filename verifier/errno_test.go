package verifier

import (
	"syscall"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/loader"
)

func TestMessageErrno(t *testing.T) {
	tests := []struct {
		msg  string
		want syscall.Errno
	}{
		{"R0 invalid mem access 'map_value_or_null'", syscall.EACCES},
		{"BPF program is too large. Processed 1000001 insn", syscall.E2BIG},
		{"The sequence of 8193 jumps is too complex.", syscall.EFAULT},
		{"fd 0 is not pointing to valid bpf_map", syscall.EINVAL},
		{"expected an initialized iter_num as arg #0", syscall.EINVAL},
		{"func bpf_get_func_ip#173 not supported for program type 5", errnoENOTSUPP},
		{"func bpf_get_func_ip#173 supported only for fentry/fexit/fmod_ret programs", errnoENOTSUPP},
		{"expected an RCU CS when using bpf_iter_task_next", syscall.EPROTO},
		{"kernel func bpf_copy_from_user_str is sleepable within rcu_read_lock region", syscall.EACCES},
		{"same insn cannot be used with different pointers", syscall.EINVAL},
		{"R14 is invalid", syscall.EINVAL},
		{"R is invalid", syscall.EACCES},
		{"BPF_LD_IMM64 uses reserved fields", syscall.EINVAL},
		{"invalid kernel function call not eliminated in verifier pass", syscall.EINVAL},
		// Static checks measured against the live kernel (session 40's
		// audit of every opcode byte).
		{"BPF_ATOMIC uses invalid atomic opcode 07", syscall.EINVAL},
		{"invalid atomic operand size", syscall.EINVAL},
		{"BPF_JMP/JMP32 uses reserved fields", syscall.EINVAL},
		{"BPF_JA uses reserved fields", syscall.EINVAL},
		{"BPF_CALL uses reserved fields", syscall.EINVAL},
		{"BPF_EXIT uses reserved fields", syscall.EINVAL},
		{"invalid may_goto imm 1", syscall.EINVAL},
		{"div by zero", syscall.EINVAL},
		{"no direct value access support for this map type", syscall.EINVAL},
		{"unrecognized bpf_ld_imm64 insn", syscall.EINVAL},
		{"direct value offset of 536870912 is not allowed", syscall.EINVAL},
		{"failed to find BTF for kernel function", syscall.EINVAL},
		{"kernel btf_id 1 is not a function", syscall.EINVAL},
		{"call to invalid destination", syscall.EINVAL},
		{"Invalid insn code at line_info[0].insn_off", syscall.EINVAL},
		{"jump into the middle of ldimm64 insn 2", syscall.EINVAL},
		// Measured over the 6.12 and 7.3 selftests and the fuzzer's seeds.
		{"string is not zero-terminated", syscall.EINVAL},
		{"release kernel function bpf_task_release expects refcounted PTR_TO_BTF_ID", syscall.EINVAL},
		{"struct ops programs must have a GPL compatible license", syscall.EINVAL},
		{"Global function cb() doesn't return scalar. Only those are supported.", syscall.EINVAL},
		{"Cannot access kernel 'struct pt_regs' from non-GPL compatible program", syscall.EINVAL},
		{"kernel function bpf_dynptr_slice args#2 pointer type UNKNOWN  is not supported", syscall.EINVAL},
		{"arg#0 expected pointer to an iterator on stack", syscall.EINVAL},
		{"invalid shift 64", syscall.EINVAL},
		{"too many subprograms", syscall.E2BIG},
		{"map 'm' has no valid bpf_task_work", syscall.EINVAL},
		{"missing bpf_line_info for func#1", syscall.EINVAL},
		{"arg#0 has pointer tag, but is not a pointer type", syscall.EINVAL},
		{"invalid insn idx 12 insn_cnt 12", syscall.EFAULT},
		{"Arg#0 type UNION in f() is not supported yet.", syscall.EINVAL},
		{"arg#0 type tag is not supported in static functions", syscall.EOPNOTSUPP},
		{"invalid variable-offset read from stack R2 var_off=(0x0; 0x4) off=0 size=8", syscall.EINVAL},
	}
	for _, tt := range tests {
		if got := messageErrno(tt.msg); got != tt.want {
			t.Errorf("messageErrno(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

// TestDirectValueErrno checks resolve_pseudo_ldimm64's errnos for a map
// value address the map cannot give, which depend on the map, not the
// message (array_map_direct_value_addr, arena_map_direct_value_addr).
func TestDirectValueErrno(t *testing.T) {
	tests := []struct {
		m    loader.Map
		off  uint32
		want syscall.Errno
	}{
		{loader.Map{Type: ebpf.Array, MaxEntries: 1, ValueSize: 8}, 4, 0},
		{loader.Map{Type: ebpf.Array, MaxEntries: 1, ValueSize: 8}, 8, syscall.EINVAL},
		{loader.Map{Type: ebpf.Array, MaxEntries: 4, ValueSize: 8}, 0, errnoENOTSUPP},
		{loader.Map{Type: ebpf.Hash, MaxEntries: 1, ValueSize: 8}, 0, syscall.EINVAL},
		{loader.Map{Type: ebpf.Arena, MaxEntries: 1}, arenaPageSize + 1, syscall.ERANGE},
	}
	for _, tt := range tests {
		if _, got := directValueError(&tt.m, tt.off); got != tt.want {
			t.Errorf("directValueError(%v, %d) = %v, want %v", tt.m.Type, tt.off, got, tt.want)
		}
	}
}

// TestErrnoName: ENOTSUPP, which bpf() returns and userspace headers do
// not name, has its kernel name.
func TestErrnoName(t *testing.T) {
	for errno, want := range map[syscall.Errno]string{syscall.EINVAL: "EINVAL", errnoENOTSUPP: "ENOTSUPP", syscall.Errno(4095): "errno 4095"} {
		if got := ErrnoName(errno); got != want {
			t.Errorf("ErrnoName(%d) = %q, want %q", int(errno), got, want)
		}
	}
}

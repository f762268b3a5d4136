package verifier

import (
	"syscall"
	"testing"
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
		{"expected an RCU CS when using bpf_iter_task_next", syscall.EPROTO},
		{"kernel func bpf_copy_from_user_str is sleepable within rcu_read_lock region", syscall.EACCES},
		{"same insn cannot be used with different pointers", syscall.EINVAL},
		{"R14 is invalid", syscall.EINVAL},
		{"R is invalid", syscall.EACCES},
		{"BPF_LD_IMM64 uses reserved fields", syscall.EINVAL},
		{"invalid kernel function call not eliminated in verifier pass", syscall.EINVAL},
	}
	for _, tt := range tests {
		if got := messageErrno(tt.msg); got != tt.want {
			t.Errorf("messageErrno(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

package verifier

import (
	"strings"
	"testing"
)

func TestHints(t *testing.T) {
	tests := []struct {
		msg  string
		want string // a fragment of the expected hint, "" for none
	}{
		{"R0 invalid mem access 'map_value_or_null'", "map lookup"},
		{"R1 invalid mem access 'sock_or_null'", "socket lookup"},
		{"invalid access to packet, off=12 size=1, R1(id=0,off=12,r=0)\nR1 offset is outside of the packet", "data_end"},
		{"R7 !read_ok", "clobber"},
		{"unsupported: kfunc bpf_foo", "does not model"},
		{"some message vercheck has no hint for", ""},
	}
	for _, tt := range tests {
		got := (&RejectError{Msg: tt.msg}).Hint()
		if tt.want == "" {
			if got != "" {
				t.Errorf("Hint(%q) = %q, want none", tt.msg, got)
			}
			continue
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("Hint(%q) = %q, want it to mention %q", tt.msg, got, tt.want)
		}
	}
}

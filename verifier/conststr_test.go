package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidPrintfFormat(t *testing.T) {
	tests := []struct {
		format  string
		numArgs int
		want    bool
	}{
		{"plain text\n", 0, true},
		{"100%%", 0, true},
		{"%d", 0, false},
		{"%d", 1, true},
		{"%d", 3, true},
		{"%-08llx %5u", 2, true},
		{"%lld%lli", 2, true},
		{"%lllx", 1, false},
		{"%hd", 1, false},
		{"%s.", 1, true},
		{"%sx", 1, false},
		{"%pks %pus", 2, true},
		{"%pksx", 1, false},
		{"%p %pK %px %ps %pS %pB", 6, true},
		{"%pi4 %pI6", 2, true},
		{"%pI5", 1, false},
		{"%pX", 1, false},
		{"%c", 1, true},
		{"%", 1, false},
		{"a\x01b", 0, false},
		{"a\x7fb", 0, false},
		{"a\tb", 0, true},
		{"\x81\xff", 0, true},
		// A bare %p leaves the byte after it to be parsed again.
		{"%p%d", 1, false},
		{"%p%d", 2, true},
		{"%p%p", 1, false},
		{"%p%", 2, false},
		{"%p%%", 1, true},
		{"%p.%%", 1, true},
		// isspace and ispunct are Latin-1's: 0xa0 is a space, 0xa1-0xbf,
		// 0xd7 and 0xf7 punctuation; other bytes above ASCII are neither.
		{"%p\xa0", 1, true},
		{"%s\xa1", 1, true},
		{"%pks\xd7", 1, true},
		{"%s\xf7", 1, true},
		{"%s\xc0", 1, false},
		{"%p\x9f", 1, false},
		{"%\xa0", 1, false},
	}
	for _, tt := range tests {
		got := validPrintfFormat([]byte(tt.format), tt.numArgs)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("validPrintfFormat(%q, %d) mismatch (-want +got):\n%s", tt.format, tt.numArgs, diff)
		}
	}
}

func TestConstString(t *testing.T) {
	tests := []struct {
		b      string
		off    int
		want   string
		wantOK bool
	}{
		{"ab\x00cd\x00", 0, "ab", true},
		{"ab\x00cd\x00", 3, "cd", true},
		{"ab\x00cd", 3, "", false},
		{"ab\x00", 3, "", false},
		{"ab\x00", -1, "", false},
	}
	for _, tt := range tests {
		got, ok := constString([]byte(tt.b), tt.off)
		if diff := cmp.Diff([2]any{tt.want, tt.wantOK}, [2]any{string(got), ok}); diff != "" {
			t.Errorf("constString(%q, %d) mismatch (-want +got):\n%s", tt.b, tt.off, diff)
		}
	}
}

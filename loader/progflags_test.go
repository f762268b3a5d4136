package loader

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseProgFlags(t *testing.T) {
	tests := []struct {
		in      string
		want    uint32
		wantErr bool
	}{
		{"", 0, false},
		{"strict_alignment,sleepable", FlagStrictAlignment | FlagSleepable, false},
		{"BPF_F_XDP_HAS_FRAGS, test_state_freq", FlagXDPHasFrags | FlagTestStateFreq, false},
		{"0x11", FlagStrictAlignment | FlagSleepable, false},
		{"any_alignment,8", FlagAnyAlignment | FlagTestStateFreq, false},
		{"sleepy", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseProgFlags(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseProgFlags(%q) = %#x, %v; want %#x, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestFormatProgFlags(t *testing.T) {
	got := []string{
		FormatProgFlags(0),
		FormatProgFlags(FlagSleepable | FlagXDPHasFrags),
		FormatProgFlags(FlagTokenFD | 1<<20),
	}
	want := []string{"0x0", "sleepable,xdp_has_frags", "token_fd,0x100000"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FormatProgFlags mismatch (-want +got):\n%s", diff)
	}
}

// TestOptionsLoadInputs checks that Options.ProgFlags adds to the flags a
// spec carries and Options.License fills in only a missing license.
func TestOptionsLoadInputs(t *testing.T) {
	spec := linkSpec()
	entry := spec.Programs["entry"]
	entry.Flags, entry.License = FlagXDPHasFrags, ""
	obj, err := FromCollectionSpec("synthetic.o", spec, Options{TargetBTF: "/nonexistent", ProgFlags: FlagStrictAlignment, License: "GPL"})
	if err != nil {
		t.Fatal(err)
	}
	p := obj.Programs[0]
	type inputs struct {
		Flags         uint32
		License       string
		GPLCompatible bool
	}
	want := inputs{FlagXDPHasFrags | FlagStrictAlignment, "GPL", true}
	if diff := cmp.Diff(want, inputs{p.Flags, p.License, p.GPLCompatible}); diff != "" {
		t.Errorf("load inputs mismatch (-want +got):\n%s", diff)
	}

	spec = linkSpec()
	obj, err = FromCollectionSpec("synthetic.o", spec, Options{TargetBTF: "/nonexistent", License: "Proprietary"})
	if err != nil {
		t.Fatal(err)
	}
	if l := obj.Programs[0].License; l != "Dual MIT/GPL" {
		t.Errorf("License = %q, want the object's own", l)
	}
}

package expect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestParse reads tag sets as test_loader's parse_test_spec does for the
// privileged mode.
func TestParse(t *testing.T) {
	type res struct {
		Failure  bool
		Messages []string
		LogLevel int
		Flags    uint32
		Skip     string
		OK       bool
	}
	tests := []struct {
		name string
		tags []string
		want res
	}{
		{"no tags", nil, res{}},
		{"other tags only", []string{"arg:ctx"}, res{}},
		{"success", []string{tagSuccess}, res{OK: true}},
		{"failure with counted messages", []string{tagFailure, tagMsgPrefix + "1=R0 !read_ok", tagMsgPrefix + "2=exit"},
			res{Failure: true, Messages: []string{"R0 !read_ok", "exit"}, LogLevel: 1, OK: true}},
		{"message without a counter", []string{tagFailure, tagMsgPrefix + "R1 type=scalar"},
			res{Failure: true, Messages: []string{"R1 type=scalar"}, LogLevel: 1, OK: true}},
		{"description and log level alone: success", []string{"comment:test_description=d", tagLogLevelPrefix + "2"},
			res{LogLevel: 2, OK: true}},
		{"flags set and cleared", []string{tagSuccess, tagFlagsPrefix + "BPF_F_TEST_STATE_FREQ", tagFlagsPrefix + "BPF_F_STRICT_ALIGNMENT", tagFlagsPrefix + "!BPF_F_STRICT_ALIGNMENT", tagFlagsPrefix + "0x40"},
			res{Flags: 1<<3 | 0x40, OK: true}},
		{"another architecture", []string{tagSuccess, tagArchPrefix + "ARM64"}, res{Skip: "the test is for ARM64", OK: true}},
		{"this architecture", []string{tagSuccess, tagArchPrefix + "ARM64", tagArchPrefix + "X86_64"}, res{OK: true}},
		{"own BTF", []string{tagFailure, tagBTFPathPrefix + "btf__core_reloc.bpf.o"}, res{Failure: true, Skip: "the test loads its own BTF", OK: true}},
		{"unprivileged only", []string{"comment:test_expect_failure_unpriv", "comment:test_expect_msg_unpriv=1=x"}, res{}},
		{"both modes", []string{tagSuccess, "comment:test_expect_failure_unpriv"}, res{OK: true}},
		{"auxiliary", []string{tagAuxiliary}, res{}},
		{"counter after comment: sorts the tags", []string{"comment:12:test_expect_msg=2=second", "comment:3:test_expect_failure", "comment:10:test_expect_msg=first", "comment:11:test_log_level=2"},
			res{Failure: true, Messages: []string{"first", "2=second"}, LogLevel: 2, OK: true}},
	}
	for _, tt := range tests {
		e, ok, err := parse(tt.tags)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		got := res{OK: ok}
		if e != nil {
			got = res{Failure: e.Failure, LogLevel: e.LogLevel, Flags: e.ProgFlags, Skip: e.Skip, OK: ok}
			for _, m := range e.Messages {
				got.Messages = append(got.Messages, m.Text)
			}
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	if _, _, err := parse([]string{tagMsgPrefix + "1=R{{[0-9+}}"}); err == nil {
		t.Errorf("a bad regular expression was accepted")
	}
	if _, _, err := parse([]string{tagMsgPrefix + "1=R{{[0-9]+"}); err == nil {
		t.Errorf("an unclosed {{ was accepted")
	}
}

// TestMissing matches messages as validate_msgs does: in order, each after
// the previous match, regular expressions in {{...}}, literal text around
// them (a '.' or '(' outside braces is no metacharacter).
func TestMissing(t *testing.T) {
	log := "0: (b7) r0 = 7 ; R0=7\n1: (bf) r1 = r0\nR1 type=scalar(id=1) expected=fp\n2: (95) exit\n"
	tests := []struct {
		name string
		msgs []string
		want []string
	}{
		{"in order", []string{"r0 = 7", "type=scalar(id=1)", "exit"}, nil},
		{"out of order", []string{"exit", "r0 = 7"}, []string{"r0 = 7"}},
		{"regex", []string{"R{{[0-9]}} type=scalar{{.*}}expected=fp"}, nil},
		{"regex is line-bound", []string{"{{r0 = 7.*exit}}"}, []string{"{{r0 = 7.*exit}}"}},
		{"anchored regex", []string{"{{R0=7$}}"}, nil},
		{"literal dot", []string{"r0 = 7 . R0"}, []string{"r0 = 7 . R0"}},
		{"missing", []string{"R2 !read_ok"}, []string{"R2 !read_ok"}},
	}
	for _, tt := range tests {
		e := &Expectation{}
		for _, m := range tt.msgs {
			msg, err := newMessage(m)
			if err != nil {
				t.Fatal(err)
			}
			e.Messages = append(e.Messages, msg)
		}
		if diff := cmp.Diff(tt.want, e.Missing(log)); diff != "" {
			t.Errorf("%s: Missing mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCheck compares verdicts and logs with expectations.
func TestCheck(t *testing.T) {
	m, _ := newMessage("R2 !read_ok")
	tests := []struct {
		name     string
		e        Expectation
		accepted bool
		log      string
		want     []string
	}{
		{"success agrees", Expectation{}, true, "", nil},
		{"success, rejected", Expectation{}, false, "", []string{"rejected, the tags say __success"}},
		{"failure agrees", Expectation{Failure: true, Messages: []Message{m}}, false, "0: R2 !read_ok\n", nil},
		{"failure, accepted", Expectation{Failure: true, Messages: []Message{m}}, true, "", []string{"accepted, the tags say __failure", `log lacks __msg("R2 !read_ok")`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.e.Check(tt.accepted, tt.log)); diff != "" {
			t.Errorf("%s: Check mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

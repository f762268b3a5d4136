package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExpectFlag checks l8_expect_tags.o against its own tags: two agree
// (a level-2 message matched by a regular expression among them), the
// third's tag is wrong on purpose, which --expect reports with its own exit
// status, and JSON rows carry the comparison.
func TestExpectFlag(t *testing.T) {
	const obj = "../../testdata/progs/l8_expect_tags.o"
	var stdout, stderr bytes.Buffer
	if got := run([]string{"--expect", obj}, &stdout, &stderr); got != exitExpectation {
		t.Fatalf("exit status %d, want %d\n%s%s", got, exitExpectation, stdout.String(), stderr.String())
	}
	for _, want := range []string{
		"l8_tag_wrong: accepted, the tags say __failure",
		`l8_tag_wrong: log lacks __msg("this message is nowhere")`,
		"3 programs tagged, 2 agree, 1 verdicts differ, 0 only messages differ, 0 not compared",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}

	stdout.Reset()
	run([]string{"--expect", "--format", "json", obj}, &stdout, &stderr)
	var rows []row
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	got := map[string]expectRow{}
	for _, r := range rows {
		if r.Expect != nil {
			got[r.Program] = *r.Expect
		}
	}
	want := map[string]expectRow{
		"l8_tag_success": {},
		"l8_tag_failure": {Failure: true},
		"l8_tag_wrong":   {Failure: true, VerdictDiffers: true, Problems: []string{"accepted, the tags say __failure", `log lacks __msg("this message is nowhere")`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expect rows mismatch (-want +got):\n%s", diff)
	}

	// Without --expect, the tags are not read.
	stdout.Reset()
	if got := run([]string{obj}, &stdout, &stderr); got != exitRejected {
		t.Errorf("exit status %d without --expect, want %d", got, exitRejected)
	}
	if strings.Contains(stdout.String(), "expectations") {
		t.Errorf("tags read without --expect:\n%s", stdout.String())
	}
}

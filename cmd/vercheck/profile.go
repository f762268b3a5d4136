package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/profile"
	"github.com/vercheck/vercheck/verifier"
)

// profileVersion is the version of the --profile-out file's layout.
const profileVersion = 1

// profileFile is the --profile-out file: one profile per program (see
// package profile for the fields).
type profileFile struct {
	Version  int              `json:"version"`
	Programs []programProfile `json:"programs"`
}

// programProfile is one program's entry in the --profile-out file.
type programProfile struct {
	Object  string `json:"object"`
	Program string `json:"program"`
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
	// Profile is null for a program refused before its walk.
	Profile *profile.Profile `json:"profile"`
}

// writeProfiles prints the --profile tables of every verified program.
func writeProfiles(w io.Writer, rows []row, top int) error {
	for _, r := range rows {
		if r.Program == "" || r.Profile == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s: %s\n", r.File, r.Program, r.Verdict)
		if err := r.Profile.WriteText(w, top); err != nil {
			return fmt.Errorf("write profile: %w", err)
		}
	}
	return nil
}

// writeProfileFile writes the --profile-out file.
func writeProfileFile(path string, rows []row) error {
	out := profileFile{Version: profileVersion, Programs: []programProfile{}}
	for _, r := range rows {
		if r.Program == "" {
			continue
		}
		out.Programs = append(out.Programs, programProfile{Object: r.File, Program: r.Program, Verdict: r.Verdict, Error: r.Error, Profile: r.Profile})
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--profile-out: %w", err)
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", " ")
	// Source lines are full of & and <: keep them readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		f.Close()
		return fmt.Errorf("--profile-out: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--profile-out: %w", err)
	}
	return nil
}

// budget explains a rejection at a complexity limit: where the budget went
// and what kept states apart (profile.Profile.Budget). Without a profile
// from the run, the program is verified again with one: such rejections
// are rare and the explanation is what their developer needs. Other
// results get nothing.
func budget(obj *loader.Object, prog *loader.Program, res *verifier.Result, opts verifier.Options) []string {
	if !errors.Is(res.Err, verifier.ErrComplexityLimit) || res.Stats.InsnProcessed == 0 {
		return nil
	}
	p := res.Profile
	if p == nil {
		opts.Profile, opts.LogLevel = true, 0
		p = verifier.Verify(obj, prog, opts).Profile
	}
	if p == nil {
		return nil
	}
	return p.Budget()
}

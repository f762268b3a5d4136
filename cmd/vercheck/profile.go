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

// profileFile is the --profile-out file: one report per program (see
// package profile for the fields).
type profileFile struct {
	Version  int              `json:"version"`
	Programs []profile.Report `json:"programs"`
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

// reports returns the profile report of every verified program.
func reports(rows []row) []profile.Report {
	out := []profile.Report{}
	for _, r := range rows {
		if r.Program != "" {
			out = append(out, profile.Report{Object: r.File, Program: r.Program, Verdict: r.Verdict, Error: r.Error, Budget: r.Budget, Profile: r.Profile})
		}
	}
	return out
}

// writeProfileFile writes the --profile-out file.
func writeProfileFile(path string, rows []row) error {
	return writeFile("--profile-out", path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		// Source lines are full of & and <: keep them readable.
		enc.SetEscapeHTML(false)
		return enc.Encode(profileFile{Version: profileVersion, Programs: reports(rows)})
	})
}

// writeHTMLFile writes the --html page.
func writeHTMLFile(path string, rows []row) error {
	return writeFile("--html", path, func(w io.Writer) error { return profile.WriteHTML(w, reports(rows)) })
}

// writeFile creates path and fills it with write; errors name the flag.
func writeFile(flagName, path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%s: %w", flagName, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", flagName, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", flagName, err)
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

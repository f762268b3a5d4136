package progtest

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Case joins, for one program, what its source expects, where its object is
// and what the kernel recorded. It is what a test of vercheck iterates over:
// run the verifier on Object's program Program and compare with Golden.
type Case struct {
	Expectation
	// ObjectPath is the path of the built object (dir joined with Object()).
	ObjectPath string
	// Golden is the kernel's record; valid only when HasGolden is true.
	Golden Golden
	// HasGolden is false when the golden file has no record for the program
	// (a program added since the file was last regenerated).
	HasGolden bool
}

// Cases returns one [Case] per expectation found in dir, in the order of
// [Load]. A missing golden file is not an error: every case then has
// HasGolden false.
func Cases(dir string) ([]Case, error) {
	exps, err := Load(dir)
	if err != nil {
		return nil, err
	}
	byKey := make(map[[2]string]Golden)
	gs, err := ReadGolden(filepath.Join(dir, GoldenName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("cases: %w", err)
	}
	for _, g := range gs {
		byKey[[2]string{g.File, g.Program}] = g
	}
	cases := make([]Case, 0, len(exps))
	for _, e := range exps {
		g, ok := byKey[[2]string{e.Object(), e.Program}]
		cases = append(cases, Case{
			Expectation: e,
			ObjectPath:  filepath.Join(dir, e.Object()),
			Golden:      g,
			HasGolden:   ok,
		})
	}
	return cases, nil
}

package main

import (
	"fmt"
	"sync"

	"github.com/vercheck/vercheck/stablefix"
)

// fixesAuto asks the running kernel which stable fixes it carries.
const fixesAuto = "auto"

// probed caches one probe per process: compare modes resolve their
// options more than once.
var probed = sync.OnceValues(stablefix.Probe)

// fixSemantics says which stable fixes a run applies and why.
type fixSemantics struct {
	// Missing are the fixes not applied (verifier.Options.MissingFixes).
	Missing stablefix.Set
	// Note says where the choice came from, for the summary.
	Note string
}

// resolveFixes turns the --fixes flag into the fixes a run applies:
// "auto" follows the running kernel (every fix where it cannot be asked),
// "all" applies every fix, "none" none, or a list names those applied.
func resolveFixes(spec string) (fixSemantics, error) {
	if spec != fixesAuto {
		present, err := stablefix.Parse(spec)
		if err != nil {
			return fixSemantics{}, fmt.Errorf("--fixes: %w", err)
		}
		missing := stablefix.Everything.Minus(present)
		return fixSemantics{Missing: missing, Note: "stable fixes applied: " + present.String() + " (--fixes)"}, nil
	}
	missing, err := probed()
	if err != nil {
		return fixSemantics{Note: fmt.Sprintf("stable fixes: all applied (the running kernel could not be probed: %v)", err)}, nil
	}
	if missing.Empty() {
		return fixSemantics{Note: "stable fixes: all applied, as by the running kernel"}, nil
	}
	return fixSemantics{Missing: missing, Note: "stable fixes: the running kernel lacks " + missing.String() + ", and so does this run (--fixes all for the strictest semantics)"}, nil
}

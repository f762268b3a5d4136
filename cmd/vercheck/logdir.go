package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// writeLogDir writes each program's kernel-style log to its own file,
// DIR/OBJECT/PROGRAM.log, OBJECT being the object's path with its
// separators made plain, so that logs of every format and any number of
// programs stay apart and greppable.
func writeLogDir(dir string, rows []row) error {
	for _, r := range rows {
		if r.Program == "" || r.Log == "" {
			continue
		}
		sub := filepath.Join(dir, flatName(r.File))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return fmt.Errorf("--log-dir: %w", err)
		}
		if err := os.WriteFile(filepath.Join(sub, flatName(r.Program)+".log"), []byte(r.Log), 0o644); err != nil {
			return fmt.Errorf("--log-dir: %w", err)
		}
	}
	return nil
}

// flatName makes a path or name one safe file name: separators and dots
// that would climb out become underscores.
func flatName(s string) string {
	s = strings.TrimLeft(filepath.ToSlash(s), "./")
	return strings.NewReplacer("/", "_", "..", "_").Replace(s)
}

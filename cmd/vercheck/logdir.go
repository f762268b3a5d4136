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
// With --kernel, the kernel's log of the same level goes to
// PROGRAM.kernel.log beside it: `diff` shows where the two searches part.
func writeLogDir(dir string, rows []row) error {
	for _, r := range rows {
		if r.Program == "" {
			continue
		}
		base := filepath.Join(dir, flatName(r.File), flatName(r.Program))
		if err := writeLogFile(base+".log", r.Log); err != nil {
			return err
		}
		if r.Kernel != nil {
			if err := writeLogFile(base+".kernel.log", r.Kernel.Log); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeLogFile writes one log, if there is one, creating its directory.
func writeLogFile(path, log string) error {
	if log == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--log-dir: %w", err)
	}
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		return fmt.Errorf("--log-dir: %w", err)
	}
	return nil
}

// flatName makes a path or name one safe file name: separators and dots
// that would climb out become underscores.
func flatName(s string) string {
	s = strings.TrimLeft(filepath.ToSlash(s), "./")
	return strings.NewReplacer("/", "_", "..", "_").Replace(s)
}

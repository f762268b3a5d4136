package loader

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FindObjects expands directories into the object files they contain, in
// lexical order; files given by name are kept whatever their name. Files
// plainly not objects (sources, docs, data, hidden files) are skipped.
func FindObjects(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && isObjectCandidate(path) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// isObjectCandidate skips files in object directories that are plainly
// not objects (sources, docs, data).
func isObjectCandidate(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".o", ".elf", ".bpf", "":
		base := filepath.Base(path)
		return base != "Makefile" && !strings.HasPrefix(base, ".")
	}
	return false
}

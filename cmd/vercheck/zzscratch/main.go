package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

func main() {
	var files []string
	filepath.Walk("/work/shared/corpus", func(p string, info os.FileInfo, err error) error {
		if info.Mode().IsRegular() && (filepath.Ext(p) == ".o" || filepath.Ext(p) == ".elf") { files = append(files, p) }
		return nil
	})
	for _, f := range files {
		obj, err := loader.Open(f, loader.Options{})
		if err != nil { continue }
		rs, _ := kernel.LoadObject(obj)
		for _, r := range rs {
			rel, _ := filepath.Rel("/work/shared/corpus", f)
			v := "rejected"
			if r.Accepted { v = "accepted" } else if r.SetupFailed { v = "load-setup-failed" }
			e := r.Err; if len(e) > 100 { e = e[:100] }
			fmt.Printf("%s,%s,%s,%d,%q\n", rel, r.Program, v, r.InsnProcessed, e)
		}
	}
}

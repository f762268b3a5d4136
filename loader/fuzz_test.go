package loader

import (
	"strings"
	"testing"
)

// FuzzOpen feeds arbitrary bytes to the loader: it must never panic, and any
// error must name the file. The seed corpus in testdata/fuzz/FuzzOpen holds
// small real objects, legacy and modern.
func FuzzOpen(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x7fELF"))
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "fuzz.o"
		// A missing target BTF keeps the fuzzer hermetic and fast: CO-RE and
		// kfunc failures become per-program errors.
		obj, err := Parse(path, data, Options{TargetBTF: "/nonexistent/vmlinux"})
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, p := range obj.Programs {
			if p.Lines.Len() > 0 && p.Lines.Len() != rawLen(p) {
				t.Fatalf("program %s: %d lines for %d slots", p.Name, p.Lines.Len(), rawLen(p))
			}
		}
	})
}

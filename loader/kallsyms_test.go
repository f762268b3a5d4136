package loader

import (
	"bytes"
	"errors"
	"hash/maphash"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/google/go-cmp/cmp"
)

// TestKallsymsIndex: each name's first line is the one found; module
// symbols and hidden (zero) addresses read as the kernel lists them;
// malformed lines are skipped.
func TestKallsymsIndex(t *testing.T) {
	data := []byte("ffffffff81000000 T _stext\n" +
		"ffffffff81001000 t do_one\n" +
		"ffffffff81002000 T do_one\n" +
		"0000000000000000 D hidden_var\n" +
		"not-hex T broken\n" +
		"ffffffffc0001000 t mod_fn\t[nf_tables]\n" +
		"ffffffffc0002000 T last_no_newline")
	tab := indexKallsyms(data)
	type found struct {
		Addr uint64
		Typ  byte
		OK   bool
	}
	tests := []struct {
		name string
		want found
	}{
		{"_stext", found{0xffffffff81000000, 'T', true}},
		{"do_one", found{0xffffffff81001000, 't', true}},
		{"hidden_var", found{0, 'D', true}},
		{"broken", found{}},
		{"mod_fn", found{0xffffffffc0001000, 't', true}},
		{"last_no_newline", found{0xffffffffc0002000, 'T', true}},
		{"absent", found{}},
	}
	for _, tt := range tests {
		e, ok := tab.lookup(tt.name)
		if diff := cmp.Diff(tt.want, found{e.addr, e.typ, ok}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestKallsymsHashCollision: a name whose hash an earlier, different name
// took is still found, and the earlier name too.
func TestKallsymsHashCollision(t *testing.T) {
	data := []byte("0000000000000010 T first\n0000000000000020 T second\n")
	tab := &kallsymsTable{data: data, seed: maphash.MakeSeed(), lines: map[uint64]uint32{}}
	tab.add([]byte("first"), 0)
	// Pretend "second" hashes as "first" does.
	tab.lines[maphash.String(tab.seed, "second")] = 0
	tab.add([]byte("second"), 25)
	for name, want := range map[string]uint64{"first": 0x10, "second": 0x20} {
		if e, ok := tab.lookup(name); !ok || e.addr != want {
			t.Errorf("lookup(%q) = %#x, %v; want %#x", name, e.addr, ok, want)
		}
	}
}

// TestReadProcFile reads files whole whatever the starting buffer: one
// larger than it (grown by doubling), one that reports its size, and a
// /proc file, which reports none.
func TestReadProcFile(t *testing.T) {
	big := bytes.Repeat([]byte("ffffffff81000000 T _stext\n"), 1000)
	path := filepath.Join(t.TempDir(), "kallsyms")
	if err := os.WriteFile(path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("/proc/self/cmdline")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	tests := []struct {
		name, path string
		hint       int
		want       []byte
	}{
		{"grown from one byte", path, 1, big},
		{"hint below the size", path, 100, big},
		{"hint above the size", path, 1 << 20, big},
		{"proc file", "/proc/self/cmdline", 1, want},
	}
	for _, tt := range tests {
		got, err := readProcFile(tt.path, tt.hint)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !bytes.Equal(got, tt.want) {
			t.Errorf("%s: read %d bytes, want %d", tt.name, len(got), len(tt.want))
		}
	}
	if _, err := readProcFile(filepath.Join(t.TempDir(), "absent"), 1); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: error %v, want ErrNotExist", err)
	}
}

// TestKallsymsCacheLetsGo: the table is not kept alive by the cache (a
// collection frees it), a name asked for again is answered from memory
// without the file, and a new name reads the file again.
func TestKallsymsCacheLetsGo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kallsyms")
	if err := os.WriteFile(path, []byte("ffffffff81000000 T first\nffffffff81001000 t second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oldPath := kallsymsPath
	kallsymsCache.Lock()
	oldFound, oldTable := kallsymsCache.found, kallsymsCache.table
	kallsymsCache.found, kallsymsCache.table = nil, weak.Pointer[kallsymsTable]{}
	kallsymsCache.Unlock()
	kallsymsPath = path
	t.Cleanup(func() {
		kallsymsPath = oldPath
		kallsymsCache.Lock()
		kallsymsCache.found, kallsymsCache.table = oldFound, oldTable
		kallsymsCache.Unlock()
	})

	if addr, ok, err := KernelSymbol("first"); err != nil || !ok || addr != 0xffffffff81000000 {
		t.Fatalf("KernelSymbol(first) = %#x, %v, %v", addr, ok, err)
	}
	runtime.GC()
	if kallsymsCache.table.Value() != nil {
		t.Fatal("the cache keeps the kallsyms table alive after a collection")
	}
	// The file changes: a remembered name keeps its answer, a new one is
	// read from the file as it is now.
	if err := os.WriteFile(path, []byte("ffffffff82000000 T first\nffffffff82001000 W second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if addr, _, _ := KernelSymbol("first"); addr != 0xffffffff81000000 {
		t.Errorf("KernelSymbol(first) after a collection = %#x, want the remembered 0xffffffff81000000", addr)
	}
	if typ, err := KernelSymbolType("second"); err != nil || typ != 'W' {
		t.Errorf("KernelSymbolType(second) = %q, %v, want 'W' read again", typ, err)
	}
	if _, ok, err := KernelSymbol("absent"); err != nil || ok {
		t.Errorf("KernelSymbol(absent) = %v, %v, want not found", ok, err)
	}
}

package loader

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"os"
	"sync"
	"weak"
)

// kallsymsPath lists the kernel's symbols and their addresses: the
// running kernel's unless UseKallsyms named another list.
var kallsymsPath = "/proc/kallsyms"

// UseKallsyms makes the symbol list at path (a /proc/kallsyms copy or the
// System.map of a kernel build, "address type name" lines) the kernel's for
// the whole process, for checking programs for the kernel UseKernelBTF
// names: the addresses of typed and typeless ksyms come from it. It is
// said once, before any symbol is looked up.
func UseKallsyms(path string) {
	if path != "" {
		kallsymsPath = path
	}
}

// KernelSymbol returns the address of the running kernel's symbol name
// (modules' symbols included), as kallsyms_lookup_name and libbpf's
// kallsyms reader find it: the first address listed for the name; an
// address reads as zero when the kernel hides it (kptr_restrict). ok is
// false when the kernel has no such symbol. /proc/kallsyms is read when a
// name is first asked for and no earlier read is still in memory.
func KernelSymbol(name string) (addr uint64, ok bool, err error) {
	s, ok, err := lookupKallsyms(name)
	return s.addr, ok, err
}

// KernelSymbolType returns the type letter /proc/kallsyms gives the
// running kernel's symbol name (the first one listed for it): 'T' or 't'
// for text, 'W' or 'w' for a weak symbol, and so on; 0 when the kernel
// has no such symbol.
func KernelSymbolType(name string) (byte, error) {
	s, _, err := lookupKallsyms(name)
	return s.typ, err
}

// kallsymsTable is /proc/kallsyms, indexed by name. It holds no pointer
// the garbage collector must follow: the file's bytes and a map from each
// name's hash to its first line. A table of Go strings (two maps of 120k
// names on a typical kernel) stayed live for the whole of a run and was
// marked again by every collection, a few percent of a corpus run; this
// one is never scanned.
type kallsymsTable struct {
	data  []byte
	seed  maphash.Seed
	lines map[uint64]uint32 // hash of a name -> offset of its first line
	// collided holds the names whose hash an earlier, different name
	// already took (none expected; kept so that lookups stay exact).
	collided map[string]uint32
}

// kallsymsEntry is what a line of /proc/kallsyms says about its symbol.
type kallsymsEntry struct {
	addr uint64
	typ  byte
}

// kallsymsCache holds what lookups found (a handful of names an object
// asks for) and, weakly, the table they were found in. The table is 9 MB
// that a sweep needed for only some objects: held for the whole process,
// it stayed in the live heap of every later object, and the collector,
// pacing itself on that heap, let a directory run's memory grow well past
// that of its largest object alone (the shared corpus: 43 MB live during
// its largest object against 30 MB alone). The names looked up are
// remembered, so that the file is read again only for a name not yet asked
// for after the table was collected.
var kallsymsCache struct {
	sync.Mutex
	table weak.Pointer[kallsymsTable]
	found map[string]kallsymsLookup
}

// kallsymsLookup is the remembered answer for one name.
type kallsymsLookup struct {
	entry kallsymsEntry
	ok    bool
}

// lookupKallsyms returns what kallsymsPath says of name, reading the file
// again when the table of an earlier read has been collected.
func lookupKallsyms(name string) (kallsymsEntry, bool, error) {
	c := &kallsymsCache
	c.Lock()
	defer c.Unlock()
	if l, ok := c.found[name]; ok {
		return l.entry, l.ok, nil
	}
	t := c.table.Value()
	if t == nil {
		var err error
		if t, err = readKallsyms(); err != nil {
			return kallsymsEntry{}, false, err
		}
		c.table = weak.Make(t)
	}
	e, ok := t.lookup(name)
	if c.found == nil {
		c.found = map[string]kallsymsLookup{}
	}
	c.found[name] = kallsymsLookup{e, ok}
	return e, ok, nil
}

func readKallsyms() (*kallsymsTable, error) {
	data, err := readProcFile(kallsymsPath, kallsymsSizeHint)
	if err != nil {
		return nil, fmt.Errorf("read the kernel's symbols: %w", err)
	}
	return indexKallsyms(data), nil
}

// kallsymsSizeHint is the buffer a read of /proc/kallsyms starts with: a
// 6.18 kernel lists 5-6 MB.
const kallsymsSizeHint = 8 << 20

// readProcFile reads a whole file into a buffer that starts at hint
// bytes and doubles when full. A /proc file reports size 0, so
// os.ReadFile starts at 512 bytes and grows by a quarter each time:
// /proc/kallsyms took some 40 reallocations, each on fresh memory, which
// cost twice the kernel's own time to list the symbols.
func readProcFile(path string, hint int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	b.Grow(hint)
	if _, err := b.ReadFrom(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// indexKallsyms indexes the lines "address type name [module]" of data.
func indexKallsyms(data []byte) *kallsymsTable {
	t := &kallsymsTable{data: data, seed: maphash.MakeSeed(), lines: make(map[uint64]uint32, bytes.Count(data, []byte{'\n'}))}
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		if name, _, ok := parseKallsymsLine(data[off : off+end]); ok {
			t.add(name, uint32(off))
		}
		off += end + 1
	}
	return t
}

func (t *kallsymsTable) add(name []byte, off uint32) {
	h := maphash.Bytes(t.seed, name)
	first, taken := t.lines[h]
	switch {
	case !taken:
		t.lines[h] = off
	case bytes.Equal(t.nameAt(first), name):
		// A later line of the same name: the first one stands.
	default:
		if t.collided == nil {
			t.collided = map[string]uint32{}
		}
		if _, dup := t.collided[string(name)]; !dup {
			t.collided[string(name)] = off
		}
	}
}

func (t *kallsymsTable) lookup(name string) (kallsymsEntry, bool) {
	off, ok := t.lines[maphash.String(t.seed, name)]
	if !ok {
		return kallsymsEntry{}, false
	}
	found, e, _ := parseKallsymsLine(t.line(off))
	if string(found) != name {
		if off, ok = t.collided[name]; !ok {
			return kallsymsEntry{}, false
		}
		_, e, _ = parseKallsymsLine(t.line(off))
	}
	return e, true
}

func (t *kallsymsTable) line(off uint32) []byte {
	l := t.data[off:]
	if end := bytes.IndexByte(l, '\n'); end >= 0 {
		l = l[:end]
	}
	return l
}

func (t *kallsymsTable) nameAt(off uint32) []byte {
	name, _, _ := parseKallsymsLine(t.line(off))
	return name
}

// parseKallsymsLine splits "address type name[\t[module]]" without
// allocating (it runs for every line of the file).
func parseKallsymsLine(l []byte) (name []byte, e kallsymsEntry, ok bool) {
	sp := bytes.IndexByte(l, ' ')
	if sp <= 0 || len(l) < sp+4 || l[sp+2] != ' ' {
		return nil, kallsymsEntry{}, false
	}
	for _, c := range l[:sp] {
		d, ok := hexDigit(c)
		if !ok {
			return nil, kallsymsEntry{}, false
		}
		e.addr = e.addr<<4 | uint64(d)
	}
	e.typ = l[sp+1]
	name = l[sp+3:]
	if end := bytes.IndexAny(name, " \t"); end >= 0 {
		name = name[:end]
	}
	return name, e, len(name) > 0
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

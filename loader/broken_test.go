package loader

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"
)

// brokenSource is a real object the broken variants are made from: it has
// a program with map relocations.
const brokenSource = "../testdata/progs/map_lookup_checked.o"

// TestBrokenObjects derives malformed objects from a real one (truncated at
// several points, a relocation naming a symbol that does not exist) and
// checks that each gives an error naming the file, never a panic or a
// silently incomplete object.
func TestBrokenObjects(t *testing.T) {
	good, err := os.ReadFile(brokenSource)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("good.o", good, Options{}); err != nil {
		t.Fatalf("the source object itself does not load: %v", err)
	}
	cases := map[string][]byte{}
	for _, frac := range []int{1, 2, 3} {
		n := len(good) * frac / 4
		cases[fmt.Sprintf("truncated at %d/4", frac)] = good[:n]
	}
	cases["truncated by one byte"] = good[:len(good)-1]
	cases["bad relocation symbol"] = corruptRelocation(t, good)
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			const path = "broken.o"
			obj, err := Parse(path, data, Options{})
			if err == nil {
				for _, p := range obj.Programs {
					if p.Err != nil {
						t.Logf("reported per program: %v", p.Err)
						return
					}
				}
				t.Fatalf("Parse accepted a broken object (%d programs)", len(obj.Programs))
			}
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// corruptRelocation returns a copy of obj whose first relocation entry
// names a symbol index past the end of the symbol table.
func corruptRelocation(t *testing.T, obj []byte) []byte {
	t.Helper()
	f, err := elf.NewFile(strings.NewReader(string(obj)))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_REL || s.Size < 16 || !strings.HasPrefix(s.Name, ".rel") || s.Name == ".rel.BTF.ext" {
			continue
		}
		out := append([]byte(nil), obj...)
		info := binary.LittleEndian.Uint64(out[s.Offset+8:])
		const badSymbol = 0x7fff0000
		binary.LittleEndian.PutUint64(out[s.Offset+8:], uint64(badSymbol)<<32|info&0xffffffff)
		return out
	}
	t.Fatal("no relocation section in the source object")
	return nil
}

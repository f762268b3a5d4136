package loader

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// kallsymsPath lists the running kernel's symbols and their addresses.
const kallsymsPath = "/proc/kallsyms"

// KernelSymbols returns the running kernel's symbols (those of modules
// included) and their addresses, as kallsyms_lookup_name and libbpf's
// kallsyms reader find them: the first address of each name; an address
// reads as zero when the kernel hides it (kptr_restrict). It reads
// /proc/kallsyms once per process (with KernelSymbolTypes).
func KernelSymbols() (map[string]uint64, error) {
	t, err := kallsyms()
	return t.addrs, err
}

// KernelSymbolTypes returns the type letter /proc/kallsyms gives each of
// the running kernel's symbols (the first one listed for a name): 'T' or
// 't' for text, 'W' or 'w' for a weak symbol, and so on.
func KernelSymbolTypes() (map[string]byte, error) {
	t, err := kallsyms()
	return t.types, err
}

// kallsymsTable is /proc/kallsyms: each name's first address and type.
type kallsymsTable struct {
	addrs map[string]uint64
	types map[string]byte
}

// kallsyms reads kallsymsPath once per process.
var kallsyms = sync.OnceValues(readKallsyms)

// readKallsyms reads kallsymsPath: lines "address type name [module]".
func readKallsyms() (kallsymsTable, error) {
	f, err := os.Open(kallsymsPath)
	if err != nil {
		return kallsymsTable{}, fmt.Errorf("read the kernel's symbols: %w", err)
	}
	defer f.Close()
	t := kallsymsTable{addrs: make(map[string]uint64), types: make(map[string]byte)}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || len(fields[1]) != 1 {
			continue
		}
		addr, err := strconv.ParseUint(fields[0], 16, 64)
		if err != nil {
			continue
		}
		if _, dup := t.addrs[fields[2]]; !dup {
			t.addrs[fields[2]] = addr
			t.types[fields[2]] = fields[1][0]
		}
	}
	if err := sc.Err(); err != nil {
		return kallsymsTable{}, fmt.Errorf("read the kernel's symbols: %w", err)
	}
	return t, nil
}

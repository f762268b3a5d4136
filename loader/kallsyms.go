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
// /proc/kallsyms once per process.
var KernelSymbols = sync.OnceValues(readKallsyms)

// readKallsyms reads kallsymsPath: lines "address type name [module]".
func readKallsyms() (map[string]uint64, error) {
	f, err := os.Open(kallsymsPath)
	if err != nil {
		return nil, fmt.Errorf("read the kernel's symbols: %w", err)
	}
	defer f.Close()
	syms := make(map[string]uint64)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		addr, err := strconv.ParseUint(fields[0], 16, 64)
		if err != nil {
			continue
		}
		if _, dup := syms[fields[2]]; !dup {
			syms[fields[2]] = addr
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the kernel's symbols: %w", err)
	}
	return syms, nil
}

// KernelSymbolTypes returns the type letter /proc/kallsyms gives each of
// the running kernel's symbols (the first one listed for a name): 'T' or
// 't' for text, 'W' or 'w' for a weak symbol, and so on. It reads the
// file once per process.
var KernelSymbolTypes = sync.OnceValues(readKallsymsTypes)

// readKallsymsTypes reads the type column of kallsymsPath.
func readKallsymsTypes() (map[string]byte, error) {
	f, err := os.Open(kallsymsPath)
	if err != nil {
		return nil, fmt.Errorf("read the kernel's symbols: %w", err)
	}
	defer f.Close()
	types := make(map[string]byte)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || len(fields[1]) != 1 {
			continue
		}
		if _, dup := types[fields[2]]; !dup {
			types[fields[2]] = fields[1][0]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the kernel's symbols: %w", err)
	}
	return types, nil
}

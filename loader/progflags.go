package loader

import (
	"fmt"
	"strconv"
	"strings"
)

// Program load flags (the prog_flags of BPF_PROG_LOAD, include/uapi/linux/
// bpf.h). Loaders set some of them from the section name (cilium/ebpf and
// libbpf: BPF_F_SLEEPABLE for "fentry.s/", "lsm.s/", "uprobe.s/",
// "syscall"...; BPF_F_XDP_HAS_FRAGS for "xdp.frags"), and the caller may add
// others; several change the verifier's verdict.
const (
	FlagStrictAlignment   uint32 = 1 << 0  // BPF_F_STRICT_ALIGNMENT
	FlagAnyAlignment      uint32 = 1 << 1  // BPF_F_ANY_ALIGNMENT
	FlagTestRndHi32       uint32 = 1 << 2  // BPF_F_TEST_RND_HI32
	FlagTestStateFreq     uint32 = 1 << 3  // BPF_F_TEST_STATE_FREQ
	FlagSleepable         uint32 = 1 << 4  // BPF_F_SLEEPABLE
	FlagXDPHasFrags       uint32 = 1 << 5  // BPF_F_XDP_HAS_FRAGS
	FlagXDPDevBoundOnly   uint32 = 1 << 6  // BPF_F_XDP_DEV_BOUND_ONLY
	FlagTestRegInvariants uint32 = 1 << 7  // BPF_F_TEST_REG_INVARIANTS
	FlagTokenFD           uint32 = 1 << 16 // BPF_F_TOKEN_FD
)

// progFlagNames names each flag the way the kernel's macro does, lower
// case and without its BPF_F_ prefix.
var progFlagNames = []struct {
	name string
	flag uint32
}{
	{"strict_alignment", FlagStrictAlignment},
	{"any_alignment", FlagAnyAlignment},
	{"test_rnd_hi32", FlagTestRndHi32},
	{"test_state_freq", FlagTestStateFreq},
	{"sleepable", FlagSleepable},
	{"xdp_has_frags", FlagXDPHasFrags},
	{"xdp_dev_bound_only", FlagXDPDevBoundOnly},
	{"test_reg_invariants", FlagTestRegInvariants},
	{"token_fd", FlagTokenFD},
}

// ParseProgFlags reads program load flags written as comma-separated
// names ("strict_alignment,sleepable"; a BPF_F_ prefix and upper case are
// allowed) or numbers ("0x11", "17"), or a mix of both.
func ParseProgFlags(s string) (uint32, error) {
	var flags uint32
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if n, err := strconv.ParseUint(part, 0, 32); err == nil {
			flags |= uint32(n)
			continue
		}
		f, ok := progFlagByName(part)
		if !ok {
			return 0, fmt.Errorf("unknown program flag %q", part)
		}
		flags |= f
	}
	return flags, nil
}

func progFlagByName(name string) (uint32, bool) {
	name = strings.TrimPrefix(strings.ToLower(name), "bpf_f_")
	for _, n := range progFlagNames {
		if n.name == name {
			return n.flag, true
		}
	}
	return 0, false
}

// FormatProgFlags writes flags as ParseProgFlags reads them: known flags
// by name, any other bits as one hexadecimal number.
func FormatProgFlags(flags uint32) string {
	var parts []string
	for _, n := range progFlagNames {
		if flags&n.flag != 0 {
			parts = append(parts, n.name)
			flags &^= n.flag
		}
	}
	if flags != 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%#x", flags))
	}
	return strings.Join(parts, ",")
}

package loader

import (
	"path/filepath"
	"strings"
	"unicode"

	"github.com/cilium/ebpf"
)

// ciliumMapPrefix starts every map name of Cilium's datapath objects.
const ciliumMapPrefix = "cilium_"

// guesser picks a program type for sections whose name carries none. The
// choice is per object, as the object's own loader would make it: iproute2
// loaded Cilium's objects as tc classifiers, XDP tools attached theirs as
// XDP, samples/bpf's tc and lwt programs were attached with tc and ip route,
// and socket-filter loaders took the rest.
type guesser struct {
	typ    ebpf.ProgramType
	reason string
}

func newGuesser(path string, spec *ebpf.CollectionSpec) *guesser {
	typ, reason := GuessProgramType(path, mapNames(spec))
	return &guesser{typ: typ, reason: reason}
}

func mapNames(spec *ebpf.CollectionSpec) []string {
	names := make([]string, 0, len(spec.Maps))
	for n := range spec.Maps {
		names = append(names, n)
	}
	return names
}

func (g *guesser) guess(string) (ebpf.ProgramType, string, bool) {
	if g == nil || g.typ == ebpf.UnspecifiedProgram {
		return ebpf.UnspecifiedProgram, "", false
	}
	return g.typ, g.reason, true
}

// libbpfOnlySections are section prefixes libbpf 1.8 gives a program type
// that cilium/ebpf does not know: sleepable tracepoints, loaded with
// BPF_F_SLEEPABLE, which a 6.18 kernel refuses ("Only fentry/fexit/
// fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable").
// Guessed as socket filters, they were verified as programs no loader
// makes of them.
var libbpfOnlySections = []struct {
	prefix string
	typ    ebpf.ProgramType
	attach ebpf.AttachType
}{
	{"tp.s/", ebpf.TracePoint, ebpf.AttachNone},
	{"tracepoint.s/", ebpf.TracePoint, ebpf.AttachNone},
	{"raw_tp.s/", ebpf.RawTracepoint, ebpf.AttachNone},
	{"raw_tracepoint.s/", ebpf.RawTracepoint, ebpf.AttachNone},
	{"tp_btf.s/", ebpf.Tracing, ebpf.AttachTraceRawTp},
}

// typeLibbpfOnlySections gives the programs of spec in the sections of
// libbpfOnlySections the type, expected attach type, attach target and
// load flags libbpf 1.8 gives them.
func typeLibbpfOnlySections(spec *ebpf.CollectionSpec) {
	for _, ps := range spec.Programs {
		if ps == nil || ps.Type != ebpf.UnspecifiedProgram {
			continue
		}
		for _, s := range libbpfOnlySections {
			if rest, found := strings.CutPrefix(ps.SectionName, s.prefix); found {
				ps.Type, ps.AttachType, ps.AttachTo = s.typ, s.attach, rest
				ps.Flags |= FlagSleepable
				break
			}
		}
	}
}

// GuessProgramType chooses a program type for an object whose sections do
// not name one, from the object's file name and its map names. It returns
// the type and the reason for the choice:
//
//   - a file name containing "xdp" means an XDP object;
//   - maps named "cilium_*" mean a Cilium object, loaded by iproute2 as a tc
//     classifier (SchedCLS);
//   - a file name word "lwt" means a lightweight-tunnel program (LWTOut);
//   - a file name word "tc" (or one starting "tc" that is not "tcp") means a
//     tc classifier;
//   - anything else is taken as a socket filter, the type classic loaders
//     used by default.
func GuessProgramType(path string, maps []string) (ebpf.ProgramType, string) {
	base := strings.ToLower(filepath.Base(path))
	if strings.Contains(base, "xdp") {
		return ebpf.XDP, `object name contains "xdp"`
	}
	for _, m := range maps {
		if strings.HasPrefix(m, ciliumMapPrefix) {
			return ebpf.SchedCLS, "Cilium object (maps named cilium_*)"
		}
	}
	words := strings.FieldsFunc(base, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if w == "lwt" {
			return ebpf.LWTOut, `object name has the word "lwt"`
		}
	}
	for _, w := range words {
		if w == "tc" || (strings.HasPrefix(w, "tc") && !strings.HasPrefix(w, "tcp")) {
			return ebpf.SchedCLS, `object name has the word "tc"`
		}
	}
	return ebpf.SocketFilter, "default for classic loaders"
}

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

// libbpfOnlySections are the sections libbpf 1.8 gives a program type that
// cilium/ebpf does not know; guessed as socket filters, they were verified
// as programs no loader makes of them. Sleepable tracepoints are loaded
// with BPF_F_SLEEPABLE, which a 6.18 kernel refuses ("Only fentry/fexit/
// fmod_ret, lsm, iter, uprobe, and struct_ops programs can be sleepable");
// the multi-function trampolines are tracing programs of attach types 6.18
// does not have, loaded without an attach BTF id (their name is a pattern
// libbpf matches at attach time), which it refuses ("Tracing programs must
// provide btf_id"). Each name matches libbpf's "type+" form: the name
// itself or the name, a '/' and the target.
var libbpfOnlySections = []struct {
	name      string
	typ       ebpf.ProgramType
	attach    ebpf.AttachType
	sleepable bool
	// target is whether the text after the '/' is the attach target
	// (libbpf's SEC_ATTACH_BTF or a tracepoint name).
	target bool
}{
	{"tp.s", ebpf.TracePoint, ebpf.AttachNone, true, true},
	{"tracepoint.s", ebpf.TracePoint, ebpf.AttachNone, true, true},
	{"raw_tp.s", ebpf.RawTracepoint, ebpf.AttachNone, true, true},
	{"raw_tracepoint.s", ebpf.RawTracepoint, ebpf.AttachNone, true, true},
	{"tp_btf.s", ebpf.Tracing, ebpf.AttachTraceRawTp, true, true},
	{"fentry.multi", ebpf.Tracing, AttachTraceFEntryMulti, false, false},
	{"fexit.multi", ebpf.Tracing, AttachTraceFExitMulti, false, false},
	{"fsession.multi", ebpf.Tracing, AttachTraceFSessionMulti, false, false},
	{"fentry.multi.s", ebpf.Tracing, AttachTraceFEntryMulti, true, false},
	{"fexit.multi.s", ebpf.Tracing, AttachTraceFExitMulti, true, false},
	{"fsession.multi.s", ebpf.Tracing, AttachTraceFSessionMulti, true, false},
}

// Attach types of libbpf 1.8's UAPI header that cilium/ebpf v0.22 and the
// 6.18 kernel do not have (BPF_TRACE_FSESSION, 58, cilium/ebpf has).
const (
	AttachTraceFEntryMulti   ebpf.AttachType = 59 // BPF_TRACE_FENTRY_MULTI
	AttachTraceFExitMulti    ebpf.AttachType = 60 // BPF_TRACE_FEXIT_MULTI
	AttachTraceFSessionMulti ebpf.AttachType = 61 // BPF_TRACE_FSESSION_MULTI
)

// typeLibbpfOnlySections gives the programs of spec in the sections of
// libbpfOnlySections the type, expected attach type, attach target and
// load flags libbpf 1.8 gives them.
func typeLibbpfOnlySections(spec *ebpf.CollectionSpec) {
	for _, ps := range spec.Programs {
		if ps == nil || ps.Type != ebpf.UnspecifiedProgram {
			continue
		}
		for _, s := range libbpfOnlySections {
			rest, found := strings.CutPrefix(ps.SectionName, s.name)
			if !found || (rest != "" && rest[0] != '/') {
				continue
			}
			ps.Type, ps.AttachType, ps.AttachTo = s.typ, s.attach, ""
			if s.target {
				ps.AttachTo = strings.TrimPrefix(rest, "/")
			}
			if s.sleepable {
				ps.Flags |= FlagSleepable
			}
			break
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

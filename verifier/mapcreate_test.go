package verifier

import (
	"errors"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestMapCreate: a program that uses a map the kernel refuses to create
// has no verdict (ErrMapCreate, so ErrUnsupported, with the loader's
// MapCreateError and its errno), and the running kernel, where there is
// one, fails the same load at the map, with no verifier log; the program
// whose map is well defined is verified as usual.
func TestMapCreate(t *testing.T) {
	obj, err := loader.Open("testdata/mapcreate/bad_maps.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live := kernel.Available() == nil
	for _, prog := range obj.Programs {
		t.Run(prog.Name, func(t *testing.T) {
			res := Verify(obj, prog, Options{})
			// libbpf creates a map map_check_btf refuses for its
			// access flags again without BTF (the default map BTF).
			good := prog.Name == "mc_use_good" || prog.Name == "mc_use_locked_ro"
			wantErrno := syscall.EINVAL
			switch prog.Name {
			case "mc_use_lru_locked", "mc_use_pcpu_hash_timer":
				// map_check_btf's rule of which fields a map type holds.
				wantErrno = syscall.EOPNOTSUPP
			}
			var ce *loader.MapCreateError
			if good {
				if !res.Accepted {
					t.Errorf("Verify = %v, want an accept", res.Err)
				}
			} else if !errors.Is(res.Err, ErrMapCreate) || !errors.Is(res.Err, ErrUnsupported) || !errors.As(res.Err, &ce) ||
				ce.Errno != wantErrno || res.Verdict() != "unsupported" {
				t.Fatalf("Verify = %v (%s), want ErrMapCreate with a MapCreateError of %v", res.Err, res.Verdict(), wantErrno)
			}
			if !live {
				return
			}
			k := kernel.Options{}.LoadProgram(obj, prog)
			if good != k.Accepted || !good && (!k.NotLoaded || !strings.Contains(k.Err, "create map "+ce.Map) || k.Errno != wantErrno) {
				t.Errorf("kernel: accepted %v, not loaded %v, errno %v: %s", k.Accepted, k.NotLoaded, k.Errno, k.Err)
			}
		})
	}
}

// TestMapCreateAccessFlagsCilium checks that cilium/ebpf's map BTF, whose
// loader does not retry on EACCES, leaves a map map_check_btf refuses for
// its access flags without a verdict.
func TestMapCreateAccessFlagsCilium(t *testing.T) {
	obj, err := loader.Open("testdata/mapcreate/bad_maps.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(obj.Programs, func(p *loader.Program) bool { return p.Name == "mc_use_locked_ro" })
	if i < 0 {
		t.Fatal("mc_use_locked_ro missing")
	}
	prog := obj.Programs[i]
	res := Verify(obj, prog, Options{MapBTF: MapBTFKeyValue})
	var ce *loader.MapCreateError
	if !errors.Is(res.Err, ErrMapCreate) || !errors.As(res.Err, &ce) || ce.Errno != syscall.EACCES {
		t.Fatalf("Verify = %v, want ErrMapCreate with EACCES", res.Err)
	}
}

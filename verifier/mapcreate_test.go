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
			// access flags, or for a field its type cannot hold, again
			// without BTF (the default map BTF): the lock is then
			// plain memory, which bpf_spin_lock refuses.
			good := prog.Name == "mc_use_good" || prog.Name == "mc_use_locked_ro" || prog.Name == "mc_use_pcpu_hash_timer"
			retriedLock := prog.Name == "mc_use_lru_locked"
			const noBTFLock = "map 'mc_lru_locked' has to have BTF in order to use bpf_spin_lock"
			wantErrno := syscall.EINVAL
			var ce *loader.MapCreateError
			var re *RejectError
			if retriedLock {
				if !errors.As(res.Err, &re) || re.Msg != noBTFLock {
					t.Errorf("Verify = %v, want the rejection %q", res.Err, noBTFLock)
				}
			} else if good {
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
			switch {
			case retriedLock:
				if k.NotLoaded || k.Accepted || k.Err != noBTFLock {
					t.Errorf("kernel: accepted %v, not loaded %v: %s; want the rejection %q", k.Accepted, k.NotLoaded, k.Err, noBTFLock)
				}
			case good != k.Accepted || !good && (!k.NotLoaded || !strings.Contains(k.Err, "create map "+ce.Map) || k.Errno != wantErrno):
				t.Errorf("kernel: accepted %v, not loaded %v, errno %v: %s", k.Accepted, k.NotLoaded, k.Errno, k.Err)
			}
		})
	}
}

// TestMapCreateCiliumNoRetry checks that cilium/ebpf's map BTF, whose
// loader retries without BTF on EINVAL and ENOTSUPP alone, leaves a map
// map_check_btf refuses for its access flags (EACCES) or for a field its
// type cannot hold (EOPNOTSUPP) without a verdict.
func TestMapCreateCiliumNoRetry(t *testing.T) {
	obj, err := loader.Open("testdata/mapcreate/bad_maps.o", loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, errno := range map[string]syscall.Errno{
		"mc_use_locked_ro":       syscall.EACCES,
		"mc_use_lru_locked":      syscall.EOPNOTSUPP,
		"mc_use_pcpu_hash_timer": syscall.EOPNOTSUPP,
	} {
		i := slices.IndexFunc(obj.Programs, func(p *loader.Program) bool { return p.Name == name })
		if i < 0 {
			t.Fatalf("%s missing", name)
		}
		res := Verify(obj, obj.Programs[i], Options{MapBTF: MapBTFKeyValue})
		var ce *loader.MapCreateError
		if !errors.Is(res.Err, ErrMapCreate) || !errors.As(res.Err, &ce) || ce.Errno != errno {
			t.Errorf("%s: Verify = %v, want ErrMapCreate with %v", name, res.Err, errno)
		}
	}
}

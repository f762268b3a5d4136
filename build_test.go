package vercheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/verifier"
)

// TestKernelBuildHelpers verifies the programs of l8_build.c, whose calls
// only some kernel builds offer, against builds other than this machine's:
// what the target kernel's configuration and lockdown level give
// (helpers.Build), given directly or read from a configuration file.
func TestKernelBuildHelpers(t *testing.T) {
	const obj = "testdata/progs/l8_build.o"
	dir := t.TempDir()
	writeConfig := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	overrideCfg := writeConfig("override.config", "CONFIG_BPF_KPROBE_OVERRIDE=y\nCONFIG_SECURITY_LOCKDOWN_LSM=y\n# CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY is not set\n")
	noLockdownCfg := writeConfig("nolockdown.config", "CONFIG_BPF=y\n")
	tests := []struct {
		name    string
		kernel  *helpers.Build
		kconfig string
		want    map[string]string // program -> verdict
	}{
		{"reference build", &helpers.Build{}, "", map[string]string{
			"l8_override_return": "rejected", "l8_probe_write_user": "rejected", "l8_probe_read_kernel": "accepted"}},
		{"kprobe override", &helpers.Build{KprobeOverride: true}, "", map[string]string{
			"l8_override_return": "accepted", "l8_probe_write_user": "rejected", "l8_probe_read_kernel": "accepted"}},
		{"no lockdown", &helpers.Build{Lockdown: helpers.LockdownNone}, "", map[string]string{
			"l8_override_return": "rejected", "l8_probe_write_user": "accepted", "l8_probe_read_kernel": "accepted"}},
		{"confidentiality lockdown", &helpers.Build{Lockdown: helpers.LockdownConfidentiality}, "", map[string]string{
			"l8_override_return": "rejected", "l8_probe_write_user": "rejected", "l8_probe_read_kernel": "rejected"}},
		{"config with the override, lockdown left to boot", nil, overrideCfg, map[string]string{
			"l8_override_return": "accepted", "l8_probe_write_user": "rejected", "l8_probe_read_kernel": "accepted"}},
		{"config without the lockdown LSM", nil, noLockdownCfg, map[string]string{
			"l8_override_return": "rejected", "l8_probe_write_user": "accepted", "l8_probe_read_kernel": "accepted"}},
	}
	for _, tt := range tests {
		opts := &Options{Kconfig: tt.kconfig, Verifier: verifier.Options{Kernel: tt.kernel}}
		res, err := VerifyFile(obj, opts)
		if res == nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := map[string]string{}
		for _, r := range res.Results {
			got[r.Program] = r.Verdict()
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: verdicts mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

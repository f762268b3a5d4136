package verifier

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vercheck/vercheck/helpers"
)

// TestConfigLockdown reads the lockdown level a configuration forces, and
// the build facts of a configuration.
func TestConfigLockdown(t *testing.T) {
	type res struct {
		L  helpers.Lockdown
		OK bool
	}
	tests := []struct {
		name string
		cfg  map[string]string
		want res
	}{
		{"forced integrity", map[string]string{"CONFIG_SECURITY_LOCKDOWN_LSM": "y", "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY": "y"}, res{helpers.LockdownIntegrity, true}},
		{"forced confidentiality", map[string]string{"CONFIG_SECURITY_LOCKDOWN_LSM": "y", "CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY": "y"}, res{helpers.LockdownConfidentiality, true}},
		{"forced none", map[string]string{"CONFIG_SECURITY_LOCKDOWN_LSM": "y", "CONFIG_LOCK_DOWN_KERNEL_FORCE_NONE": "y"}, res{helpers.LockdownNone, true}},
		{"no lockdown LSM", map[string]string{"CONFIG_BPF": "y"}, res{helpers.LockdownNone, true}},
		{"lockdown LSM, level at boot", map[string]string{"CONFIG_SECURITY_LOCKDOWN_LSM": "y"}, res{helpers.LockdownIntegrity, false}},
		{"config unknown", nil, res{helpers.LockdownIntegrity, false}},
	}
	for _, tt := range tests {
		l, ok := configLockdown(tt.cfg)
		if diff := cmp.Diff(tt.want, res{l, ok}); diff != "" {
			t.Errorf("%s: configLockdown mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	jit := map[string]string{"CONFIG_BPF_JIT": "y", "CONFIG_BPF_JIT_DEFAULT_ON": "y"}
	builds := []struct {
		name string
		cfg  map[string]string
		want helpers.Build
	}{
		{"kprobe override, JIT", map[string]string{"CONFIG_BPF_KPROBE_OVERRIDE": "y", "CONFIG_BPF_JIT": "y", "CONFIG_BPF_JIT_DEFAULT_ON": "y"},
			helpers.Build{KprobeOverride: true, Lockdown: helpers.LockdownNone}},
		{"JIT on at boot", jit, helpers.Build{Lockdown: helpers.LockdownNone}},
		{"JIT off at boot", map[string]string{"CONFIG_BPF_JIT": "y"}, helpers.Build{Lockdown: helpers.LockdownNone, Interpreted: true}},
		{"no JIT built", map[string]string{"CONFIG_BPF": "y"}, helpers.Build{Lockdown: helpers.LockdownNone, Interpreted: true}},
		{"signature verification", map[string]string{"CONFIG_BPF_JIT": "y", "CONFIG_BPF_JIT_DEFAULT_ON": "y", "CONFIG_SYSTEM_DATA_VERIFICATION": "y"},
			helpers.Build{Lockdown: helpers.LockdownNone, SignatureVerification: true}},
		{"IPv6 segment routing BPF", map[string]string{"CONFIG_BPF_JIT": "y", "CONFIG_BPF_JIT_DEFAULT_ON": "y", "CONFIG_IPV6_SEG6_BPF": "y"},
			helpers.Build{Lockdown: helpers.LockdownNone, Seg6BPF: true}},
		{"config unknown", nil, helpers.Build{Lockdown: helpers.LockdownNone}},
	}
	for _, tt := range builds {
		got := BuildFromConfig(tt.cfg, helpers.LockdownNone)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: BuildFromConfig mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestBracketedLockdown reads securityfs's list of levels.
func TestBracketedLockdown(t *testing.T) {
	for in, want := range map[string]helpers.Lockdown{
		"[none] integrity confidentiality\n": helpers.LockdownNone,
		"none [integrity] confidentiality\n": helpers.LockdownIntegrity,
		"none integrity [confidentiality]\n": helpers.LockdownConfidentiality,
	} {
		if got, ok := bracketedLockdown(in); !ok || got != want {
			t.Errorf("bracketedLockdown(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	if _, ok := bracketedLockdown("none integrity"); ok {
		t.Errorf("a list without a current level was read")
	}
}

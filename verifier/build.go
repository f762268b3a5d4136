package verifier

// The target kernel's build facts that decide which helpers a program may
// call and whether a JIT runs it (helpers.Build): the verifier follows the
// kernel that runs here unless Options.Kernel names another. Two builds of
// the same release can differ in them, and a table fixed to one build
// would accept, on another, calls that build refuses (bpf_probe_read_kernel
// under confidentiality lockdown, kfunc calls where programs run in the
// interpreter) or refuse calls it allows (bpf_override_return).

import (
	"os"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/helpers"
	"github.com/vercheck/vercheck/loader"
	"github.com/vercheck/vercheck/stablefix"
)

// Where the running kernel says its lockdown level.
const (
	// securityfsLockdown lists the levels with the current one in
	// brackets: "none [integrity] confidentiality".
	securityfsLockdown = "/sys/kernel/security/lockdown"
	// procCmdline holds the boot parameters, among them "lockdown=".
	procCmdline = "/proc/cmdline"
	// procJITEnable is net.core.bpf_jit_enable: 0 runs programs in the
	// interpreter (a kernel with CONFIG_BPF_JIT_ALWAYS_ON keeps it at 1).
	procJITEnable = "/proc/sys/net/core/bpf_jit_enable"
)

// RunningBuild returns the running kernel's build facts: its configuration
// (as extern __kconfig variables read it) and its lockdown level. A fact
// that cannot be read keeps the reference build's value (the zero
// helpers.Build).
var RunningBuild = sync.OnceValue(func() helpers.Build {
	cfg, _ := loader.KernelConfig("")
	lockdown, ok := runningLockdown()
	if !ok {
		lockdown, _ = configLockdown(cfg)
	}
	b := BuildFromConfig(cfg, lockdown)
	if jit, err := os.ReadFile(procJITEnable); err == nil && cfg["CONFIG_BPF_JIT"] == "y" && cfg["CONFIG_BPF_JIT_ALWAYS_ON"] != "y" {
		// The sysctl, not the boot default, says whether the JIT runs.
		b.Interpreted = strings.TrimSpace(string(jit)) == "0"
	}
	return b
})

// refusedByBuild reports whether a kernel lacking the stable fixes missing
// refuses a call of helper id that a program of type pt may otherwise
// make, with the message of a helper the type does not offer ("program of
// this type cannot use helper"): bpf_xdp_adjust_meta from XDP where the
// build has stablefix.XDPNoAdjustMeta. The refusal is the call's alone:
// the build's call summary still knows the helper's two arguments (the
// level-2 log's live registers before an unreached call show r1 and r2
// alive, not r1-r5), so the helper stays in the type's set
// (helpers.Build.Allowed) for the liveness analysis.
func refusedByBuild(pt ebpf.ProgramType, id int32, missing stablefix.Set) bool {
	return pt == ebpf.XDP && id == int32(asm.FnXdpAdjustMeta) && !missing.Has(stablefix.XDPNoAdjustMeta)
}

// BuildFromConfig returns the build facts of a kernel configured with cfg
// (CONFIG_NAME to its value) running at the given lockdown level, with the
// JIT as it boots (CONFIG_BPF_JIT_DEFAULT_ON). A nil cfg (no
// configuration to read) is the reference build's.
func BuildFromConfig(cfg map[string]string, lockdown helpers.Lockdown) helpers.Build {
	return helpers.Build{
		KprobeOverride: cfg["CONFIG_BPF_KPROBE_OVERRIDE"] == "y",
		Lockdown:       lockdown,
		Interpreted:    cfg != nil && (cfg["CONFIG_BPF_JIT"] != "y" || cfg["CONFIG_BPF_JIT_DEFAULT_ON"] != "y"),
		// Without a configuration to read, the stricter answer.
		SignatureVerification: cfg["CONFIG_SYSTEM_DATA_VERIFICATION"] == "y",
		Seg6BPF:               cfg["CONFIG_IPV6_SEG6_BPF"] == "y",
	}
}

// ConfigBuild returns the build facts of the kernel whose configuration
// file is at path, for a check of another kernel than the running one: the
// lockdown level is the one the configuration forces, the reference
// build's where it forces none.
func ConfigBuild(path string) (helpers.Build, error) {
	cfg, err := loader.KernelConfig(path)
	if err != nil {
		return helpers.Build{}, err
	}
	lockdown, _ := configLockdown(cfg)
	return BuildFromConfig(cfg, lockdown), nil
}

// runningLockdown reads the running kernel's lockdown level from securityfs,
// or else from the boot parameters; ok is false when neither says.
func runningLockdown() (helpers.Lockdown, bool) {
	if b, err := os.ReadFile(securityfsLockdown); err == nil {
		if l, ok := bracketedLockdown(string(b)); ok {
			return l, true
		}
	}
	if b, err := os.ReadFile(procCmdline); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if v, ok := strings.CutPrefix(f, "lockdown="); ok {
				return helpers.ParseLockdown(v)
			}
		}
	}
	return helpers.LockdownIntegrity, false
}

// bracketedLockdown parses securityfs's list, where the current level is
// the one in brackets.
func bracketedLockdown(s string) (helpers.Lockdown, bool) {
	for _, f := range strings.Fields(s) {
		if v, ok := strings.CutPrefix(f, "["); ok {
			return helpers.ParseLockdown(strings.TrimSuffix(v, "]"))
		}
	}
	return helpers.LockdownIntegrity, false
}

// configLockdown is the level a kernel configuration forces from boot
// (CONFIG_LOCK_DOWN_KERNEL_FORCE_*); ok is false when it forces none.
func configLockdown(cfg map[string]string) (helpers.Lockdown, bool) {
	switch {
	case cfg["CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY"] == "y":
		return helpers.LockdownConfidentiality, true
	case cfg["CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY"] == "y":
		return helpers.LockdownIntegrity, true
	case cfg["CONFIG_LOCK_DOWN_KERNEL_FORCE_NONE"] == "y", cfg != nil && cfg["CONFIG_SECURITY_LOCKDOWN_LSM"] != "y":
		return helpers.LockdownNone, true
	}
	return helpers.LockdownIntegrity, false
}

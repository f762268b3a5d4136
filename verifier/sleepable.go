package verifier

// Where a sleepable program may attach (the sleepable part of the kernel's
// bpf_check_attach_target): iterators and struct_ops anywhere, LSM programs
// to the hooks that may sleep, trampolines (fentry, fexit, fmod_ret) to the
// functions the running kernel lists as error-injectable, which can sleep
// because they are annotated for fault injection from process context.

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cilium/ebpf"

	"github.com/vercheck/vercheck/loader"
)

// errorInjectionList is where the kernel lists its error-injectable
// functions (debugfs).
const errorInjectionList = "/sys/kernel/debug/error_injection/list"

// nonSleepableErrorInject are error-injectable functions that run in atomic
// context: no sleepable program may attach to them
// (btf_non_sleepable_error_inject).
var nonSleepableErrorInject = map[string]bool{
	"__filemap_add_folio": true, "should_fail_alloc_page": true, "should_failslab": true,
}

// errorInjectable memoises the running kernel's error-injectable functions.
var errorInjectable = sync.OnceValues(readErrorInjectionList)

// readErrorInjectionList reads the function names of errorInjectionList.
func readErrorInjectionList() (map[string]bool, error) {
	f, err := os.Open(errorInjectionList)
	if err != nil {
		return nil, fmt.Errorf("read the kernel's error-injection list: %w", err)
	}
	defer f.Close()
	fns := make(map[string]bool)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, _, _ := strings.Cut(sc.Text(), "\t"); name != "" {
			fns[strings.TrimSpace(name)] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the kernel's error-injection list: %w", err)
	}
	return fns, nil
}

// checkSleepableTarget refuses a sleepable program's attach target that
// may not sleep ("%s is not sleepable", the target's name).
func (e *env) checkSleepableTarget(tc *tracingCtx) error {
	if !isSleepable(e) {
		return nil
	}
	ok := true
	switch {
	case e.progType == ebpf.LSM:
		ok = e.lsmHookMaySleep(tc)
	case e.progType == ebpf.StructOps:
		return e.checkStructOpsSleepable(tc)
	case e.progType == ebpf.Tracing && e.attach != ebpf.AttachTraceIter && modifyReturnTargets[tc.name]:
		// An fmodret set's KF_SLEEPABLE function.
	case e.progType == ebpf.Tracing && e.attach != ebpf.AttachTraceIter:
		injectable, err := errorInjectableFunc(tc.name)
		if err != nil {
			return e.unsupported(0, "sleepable %s program: %v", e.attach, err)
		}
		ok = injectable && !nonSleepableErrorInject[tc.name]
	}
	if !ok {
		return e.reject(0, "%s is not sleepable", tc.name)
	}
	return nil
}

// errorInjectableFunc reports whether function name is on the kernel's
// error-injection list: from the list itself (debugfs), else, where the
// build has no error injection at all, none is; else for system call
// stubs (syscallStubInjectable); an error when it cannot tell.
func errorInjectableFunc(name string) (bool, error) {
	fns, err := errorInjectable()
	if err == nil {
		return fns[name], nil
	}
	if v, _, cerr := loader.KernelConfigValue("CONFIG_FUNCTION_ERROR_INJECTION"); cerr == nil && v != "y" {
		return false, nil
	}
	if known, injectable := syscallStubInjectable(name); known {
		return injectable, nil
	}
	return false, err
}

// syscallStubPrefixes start the names of the x86 system call entry stubs
// (arch/x86/include/asm/syscall_wrapper.h's __SYS_STUBx), every one of
// which SYSCALL_DEFINE makes error-injectable (ALLOW_ERROR_INJECTION).
var syscallStubPrefixes = []string{"__x64_sys_", "__ia32_sys_", "__x64_compat_sys_", "__ia32_compat_sys_"}

// syscallStubInjectable answers, without the error-injection list (debugfs
// is often not mounted), for the one family of functions whose place in it
// follows from the kernel's build: a system call stub defined by
// SYSCALL_DEFINE (a text symbol; the weak stubs COND_SYSCALL leaves for
// system calls the build lacks are not in the list) is error-injectable
// exactly when CONFIG_FUNCTION_ERROR_INJECTION is set. known is false for
// any other function, or when kallsyms or the configuration cannot be
// read.
func syscallStubInjectable(name string) (known, injectable bool) {
	if !slices.ContainsFunc(syscallStubPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
		return false, false
	}
	t, err := loader.KernelSymbolType(name)
	if err != nil {
		return false, false
	}
	if t != 'T' && t != 't' {
		return false, false
	}
	v, _, err := loader.KernelConfigValue("CONFIG_FUNCTION_ERROR_INJECTION")
	if err != nil {
		return false, false
	}
	return true, v == "y"
}

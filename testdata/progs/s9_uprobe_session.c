#include "progs.h"

/* Uprobe session programs (SEC("uprobe.session"), BPF_TRACE_UPROBE_SESSION
 * since 6.13) follow the kprobe session's rules: the entry run's return
 * value decides whether the return run happens, so the kernel holds R0 to
 * [0, 1] at exit, and the session kfuncs are registered for them too.
 */

extern __u64 *bpf_session_cookie(void) __ksym;
extern _Bool bpf_session_is_return(void) __ksym;

// vercheck: reject "At program exit the register R0 has smin=3 smax=3 should have been in [0, 1]"
SEC("uprobe.session")
int s9_usession_ret_three(void *ctx)
{
	return 3;
}

// vercheck: accept
SEC("uprobe.session")
int s9_usession_skip_return(void *ctx)
{
	return 1;
}

// vercheck: accept
SEC("uprobe.session")
int s9_usession_cookie(void *ctx)
{
	__u64 *cookie = bpf_session_cookie();

	if (bpf_session_is_return())
		return *cookie == 11;
	*cookie = 11;
	return 0;
}

// vercheck: reject "calling kernel function bpf_session_is_return is not allowed"
SEC("uprobe.multi")
int s9_umulti_no_session(void *ctx)
{
	return bpf_session_is_return();
}

char _license[] SEC("license") = "GPL";

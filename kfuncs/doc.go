// Package kfuncs holds the Linux 6.18 verifier's table of kernel functions
// (kfuncs), as data: for each kfunc vercheck models, the KF_* flags of its
// BTF_ID_FLAGS entry (acquire, release, may return NULL, RCU arguments,
// sleepable, open-coded iterator steps...) and the program-type groups its
// set is registered for (the kernel's btf_kfunc_hook). The kernel's BTF
// gives each kfunc's prototype but not these facts, which the kernel keeps
// in its .BTF_ids sections.
//
// The table knows nothing of verifier states: the verifier checks a call's
// arguments against the prototype and these flags (check_kfunc_args). A
// kfunc absent from the table is refused as unsupported, never accepted.
package kfuncs

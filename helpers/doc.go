// Package helpers holds the Linux 6.18 verifier's tables of BPF helper
// functions, as data: the prototype of every helper of the UAPI (argument
// and return kinds, reference and packet-data effects: the kernel's struct
// bpf_func_proto), the variants some program types see of a helper, and
// which helpers each program type and attach type may call (each type's
// get_func_proto).
//
// The tables know nothing of verifier states: the verifier asks them what
// a call expects (For, Allowed) and checks the registers itself. Keeping
// them apart lets the interpreter read as the algorithm and lets each
// table be checked against the live kernel on its own
// (TestHelperAllowedLiveKernel and TestHelperProtoLiveKernel load one
// program per helper, program type and attach type).
package helpers

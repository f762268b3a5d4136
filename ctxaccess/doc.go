// Package ctxaccess holds the Linux 6.18 verifier's context layouts, as
// data and small pure functions: for each program type, which loads and
// stores through its context pointer are valid (the kernel's per-type
// is_valid_access callbacks) and what a load yields (a scalar, a packet
// pointer, a socket, a BTF pointer...), plus the field rules of the UAPI
// socket structs a program reads through socket pointers (bpf_sock,
// bpf_tcp_sock, bpf_xdp_sock).
//
// After verification the kernel rewrites each context access into the
// instructions that reach the real kernel struct; RewriteLen,
// SockRewriteLen and PrologueLen (convert.go) give the lengths of those
// rewrites, checked against the translated programs of the live kernel
// (TestCtxConvertLiveKernel in verifier/).
//
// The layouts know nothing of verifier states: the verifier turns an
// Access into a register type itself. Each layout is checked byte by byte
// against the live kernel (TestCtxLayoutLiveKernel in verifier/).
package ctxaccess

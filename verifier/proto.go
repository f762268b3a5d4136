package verifier

import "github.com/cilium/ebpf"

// CtxFieldKind says what a load from a context field yields.
type CtxFieldKind uint8

// Context field kinds.
const (
	CtxScalar     CtxFieldKind = iota // an unknown scalar of the load's size
	CtxPacket                         // PTR_TO_PACKET (skb->data, xdp->data)
	CtxPacketMeta                     // PTR_TO_PACKET_META
	CtxPacketEnd                      // PTR_TO_PACKET_END
	CtxSocket                         // PTR_TO_SOCKET_OR_NULL style fields (sk)
	CtxSockCommon                     // PTR_TO_SOCK_COMMON
	CtxFlowKeys                       // PTR_TO_FLOW_KEYS
	CtxBTFID                          // a BTF-typed pointer
	CtxTPBuffer                       // PTR_TO_TP_BUFFER (writable raw tracepoint buffer)
	CtxUnmodelled                     // an access vercheck does not model
)

// CtxAccess is the result of checking one context access: whether it is
// allowed and, for a load, what the destination register becomes.
type CtxAccess struct {
	Kind CtxFieldKind
	// MaybeNull marks pointer fields that may be NULL (e.g. skb->sk).
	MaybeNull bool
	// BTFStruct names the kernel struct a CtxBTFID field points to, for
	// contexts whose layout is fixed (netfilter's bpf_nf_ctx); empty for
	// tracing contexts, whose field types come from the attach target.
	// Such a pointer is trusted.
	BTFStruct string
}

// isPacketPointer reports the fields whose load yields a packet pointer
// (data, data_meta, data_end). A sign-extending load (BPF_MEMSX) of one is
// invalid: the kernel rewrites it into a load of the real 64-bit address
// followed by a sign extension of its low half, which would corrupt the
// address, so bpf_skb_is_valid_access, xdp_is_valid_access and
// flow_dissector_is_valid_access refuse it (info->is_ldsx). Other pointer
// fields are 8 bytes wide, wider than any sign-extending load.
func (a CtxAccess) isPacketPointer() bool {
	return a.Kind == CtxPacket || a.Kind == CtxPacketMeta || a.Kind == CtxPacketEnd
}

// ctxAccessFunc decides one access to the context of a program type. off
// and size are the constant offset and width of the access; write is true
// for stores. It returns false when the kernel would reject the access with
// "invalid bpf_context access off=%d size=%d".
type ctxAccessFunc func(off, size int, write bool, attach ebpf.AttachType) (CtxAccess, bool)

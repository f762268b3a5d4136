package ctxaccess

import "github.com/cilium/ebpf"

// Kind says what a load from a context field yields.
type Kind uint8

// Context field kinds.
const (
	Scalar     Kind = iota // an unknown scalar of the load's size
	Packet                 // PTR_TO_PACKET (skb->data, xdp->data)
	PacketMeta             // PTR_TO_PACKET_META
	PacketEnd              // PTR_TO_PACKET_END
	Socket                 // PTR_TO_SOCKET_OR_NULL style fields (sk)
	SockCommon             // PTR_TO_SOCK_COMMON
	FlowKeys               // PTR_TO_FLOW_KEYS
	BTFID                  // a BTF-typed pointer
	TPBuffer               // PTR_TO_TP_BUFFER (writable raw tracepoint buffer)
	Unmodelled             // an access vercheck does not model
)

// Access is the result of checking one context access: whether it is
// allowed and, for a load, what the destination register becomes.
type Access struct {
	Kind Kind
	// MaybeNull marks pointer fields that may be NULL (e.g. skb->sk).
	MaybeNull bool
	// BTFStruct names the kernel struct a BTFID field points to, for
	// contexts whose layout is fixed (netfilter's bpf_nf_ctx); empty for
	// tracing contexts, whose field types come from the attach target.
	// Such a pointer is trusted.
	BTFStruct string
}

// IsPacketPointer reports the fields whose load yields a packet pointer
// (data, data_meta, data_end). A sign-extending load (BPF_MEMSX) of one is
// invalid: the kernel rewrites it into a load of the real 64-bit address
// followed by a sign extension of its low half, which would corrupt the
// address, so bpf_skb_is_valid_access, xdp_is_valid_access and
// flow_dissector_is_valid_access refuse it (info->is_ldsx). Other pointer
// fields are 8 bytes wide, wider than any sign-extending load.
func (a Access) IsPacketPointer() bool {
	return a.Kind == Packet || a.Kind == PacketMeta || a.Kind == PacketEnd
}

// Func decides one access to the context of a program type. off
// and size are the constant offset and width of the access; write is true
// for stores. It returns false when the kernel would reject the access with
// "invalid bpf_context access off=%d size=%d".
type Func func(off, size int, write bool, attach ebpf.AttachType) (Access, bool)

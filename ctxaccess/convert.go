package ctxaccess

// Context-access rewrites: after verification, the kernel's
// convert_ctx_accesses (kernel/bpf/verifier.c) replaces each load and store
// through a context or socket pointer by the instructions the program
// type's convert_ctx_access callback emits, because the UAPI struct a
// program sees (__sk_buff, bpf_sock_ops...) is not the kernel struct behind
// the pointer (sk_buff, bpf_sock_ops_kern...). Vercheck needs the lengths
// of these rewrites: they move every later instruction, and the lengths
// are what bpf_prog_info reports as the translated program.
//
// A rewrite is the callback's instructions plus what convert_ctx_accesses
// adds around them:
//
//   - A narrow load (narrower than the field's ctx_field_size, which the
//     is_valid_access callback records for fields that may be read in
//     part) is first widened to the whole field, so the callback always
//     sees a full-width load. If the access is still narrower than the
//     kernel field the callback loaded (its *target_size), the verifier
//     appends an AND masking the access's width, preceded by a right shift
//     when the access does not start at the field's first byte (x86_64 is
//     little endian: the shift is the offset inside the field).
//   - A sign-extending load (BPF_MEMSX) gets one more instruction, a
//     sign-extending move of the loaded value.
//
// The callbacks' lengths are written here as tables, one row per UAPI
// field, counted from the 6.18 sources for this machine's configuration:
// x86_64 (little endian, 64-bit, so NET_SKBUFF_DATA_USES_OFFSET: reaching
// skb_shinfo takes three instructions), CONFIG_NET_XGRESS,
// CONFIG_NET_RX_BUSY_POLL, CONFIG_NET_SCHED, CONFIG_IPV6 and
// CONFIG_SOCK_RX_QUEUE_MAPPING set. TestCtxConvertLiveKernel (verifier/)
// checks every allowed access against the live kernel.

import "github.com/cilium/ebpf"

// Op is one context access as convert_ctx_accesses sees it.
type Op struct {
	Off, Size int  // constant offset and width in bytes
	Store     bool // BPF_STX/BPF_ST (BPF_WRITE)
	Imm       bool // BPF_ST (store of an immediate); some callbacks emit differently for it
	SignExt   bool // BPF_LDX|BPF_MEMSX
	// SameReg marks a load whose destination is its base register
	// (r1 = *(u32 *)(r1 + off)). Some callbacks need a scratch register
	// then, which they save to and restore from the kernel context.
	SameReg bool
	// TstampTypeAccess marks an access in a tc program that reads
	// __sk_buff->tstamp_type somewhere (prog->tstamp_type_access, set by
	// tc_cls_act_is_valid_access during verification, so wherever the read
	// is): such a program handles delivery times itself, and its tstamp
	// accesses skip the ingress check.
	TstampTypeAccess bool
	// RttMinUnchecked marks an access on a build without
	// stablefix.SockOpsRttMinFullsock, whose sock_ops callback reads
	// rtt_min without the is_fullsock check.
	RttMinUnchecked bool
}

// SockKind names the socket structs reached through socket pointers.
type SockKind uint8

// Socket pointer kinds.
const (
	SockInvalid   SockKind = iota
	Sock                   // struct bpf_sock through PTR_TO_SOCKET
	SockCommonPtr          // struct bpf_sock through PTR_TO_SOCK_COMMON
	TCPSock                // struct bpf_tcp_sock through PTR_TO_TCP_SOCK
	XDPSock                // struct bpf_xdp_sock through PTR_TO_XDP_SOCK
)

// fieldRewrite is what one UAPI field's convert_ctx_access case emits.
type fieldRewrite struct {
	f ctxField
	// ranged marks a case matching any offset inside the field (the
	// kernel's case ranges over cb[], IPv6 addresses, replylong[] or
	// pt_regs); other cases match the field's first byte only.
	ranged bool
	// narrow is the ctx_field_size is_valid_access records for a load (0
	// when loads are whole): a narrower load is widened to it.
	narrow int
	// target is the width of the kernel field the callback loads
	// (*target_size).
	target int
	// load is the callback's length for a load; loadSame for a load into
	// its base register, when that differs (0: same as load).
	load, loadSame int
	// store is the length for a store of a register, storeImm for a
	// store of an immediate when that differs (0: same as store).
	store, storeImm int
}

// length applies convert_ctx_accesses to a field's rewrite: the
// callback's length for op plus the narrow-load mask and the sign
// extension.
func (r fieldRewrite) length(op Op) (int, bool) {
	var n int
	switch {
	case op.Store && op.Imm && r.storeImm != 0:
		n = r.storeImm
	case op.Store:
		n = r.store
	case op.SameReg && r.loadSame != 0:
		n = r.loadSame
	default:
		n = r.load
	}
	if n == 0 {
		return 0, false
	}
	if !op.Store && op.Size < r.narrow && op.Size < r.target {
		if op.Off%r.narrow != 0 {
			n++ // the right shift to the accessed bytes
		}
		n++ // the mask
	}
	if op.SignExt {
		n++
	}
	return n, true
}

// matches reports whether the callback's case for the field catches op:
// a narrow load is widened to its field first.
func (r fieldRewrite) matches(op Op) bool {
	off := op.Off
	if !op.Store && op.Size < r.narrow {
		off &^= r.narrow - 1
	}
	if r.ranged {
		return r.f.contains(off)
	}
	return off == r.f.off
}

// rewriteTable is one callback: its fields in no particular order (they
// do not overlap).
type rewriteTable []fieldRewrite

// length finds op's field and its rewrite.
func (t rewriteTable) length(op Op) (int, bool) {
	for _, r := range t {
		if r.matches(op) {
			return r.length(op)
		}
	}
	return 0, false
}

// with returns the table with some rows replaced (matched by offset) or
// added: a callback that handles a few fields itself and passes the rest
// to a shared one (tc_cls_act_convert_ctx_access, sk_skb_convert_ctx_access).
func (t rewriteTable) with(rows ...fieldRewrite) rewriteTable {
	out := append(rewriteTable{}, rows...)
	for _, r := range t {
		replaced := false
		for _, o := range rows {
			if o.f.off == r.f.off {
				replaced = true
			}
		}
		if !replaced {
			out = append(out, r)
		}
	}
	return out
}

// Lengths of recurring instruction sequences in the callbacks.
const (
	// nestedLoad is a load through a pointer of the kernel context (the
	// socket of an sk_buff, the sockaddr of a bpf_sock_addr_kern): the
	// pointer, then the field (SOCK_ADDR_LOAD_NESTED_FIELD and its many
	// open-coded twins).
	nestedLoad = 2
	// nestedStore is SOCK_ADDR_STORE_NESTED_FIELD_OFF and its twins: a
	// scratch register saved to the kernel context, the pointer loaded
	// into it, the store, the scratch register restored.
	nestedStore = 4
	// shinfoAccess is bpf_convert_shinfo_access on 64-bit, where
	// sk_buff's end is an offset from head: load end, load head, add.
	shinfoAccess = 3
	// nullCheckedLoad is a pointer load, a jump over the next load when
	// it is NULL, and the load through it.
	nullCheckedLoad = 3
	// portShift is the left shift that moves a network-order port loaded
	// as 16 bits into the upper half of remote_port on little-endian
	// machines.
	portShift = 1
	// tstampIngressCheck is bpf_convert_tstamp_read's test of
	// skb->tc_at_ingress and tstamp_type before the load (7
	// instructions), in a program that does not read tstamp_type.
	tstampIngressCheck = 7
	// tstampIngressClear is bpf_convert_tstamp_write's clearing of
	// tstamp_type at ingress before the store (5 instructions).
	tstampIngressClear = 5
	// sockOpsFullsockGet is SOCK_OPS_GET_FIELD: check is_fullsock, jump
	// over the loads when not, load sk, load the field.
	sockOpsFullsockGet = 4
	// sockOpsFullsockGetSame is SOCK_OPS_GET_FIELD when the destination
	// is the base register: a scratch register saved, used for
	// is_fullsock and restored on both paths, and the destination zeroed
	// on the not-a-full-socket path (5 more).
	sockOpsFullsockGetSame = sockOpsFullsockGet + 5
	// sockOpsSet is SOCK_OPS_SET_FIELD: save a scratch register, check
	// is_fullsock, load sk, store, restore.
	sockOpsSet = 6
	// sockOpsGetSk is SOCK_OPS_GET_SK: SOCK_OPS_GET_FIELD without the
	// final field load.
	sockOpsGetSk     = sockOpsFullsockGet - 1
	sockOpsGetSkSame = sockOpsFullsockGetSame - 1
	// skSKBDataEnd is bpf_convert_data_end_access (sk_skb): data plus len
	// minus data_len, 5 instructions; with the destination as base
	// register, a scratch register saved first and three instructions to
	// restore it after.
	skSKBDataEnd     = 5
	skSKBDataEndSame = skSKBDataEnd + 4
)

// More __sk_buff fields (layouts.go names those the layouts need).
var (
	skbPktType        = ctxField{4, sizeU32}
	skbProtocol       = ctxField{16, sizeU32}
	skbVlanPresent    = ctxField{20, sizeU32}
	skbVlanTci        = ctxField{24, sizeU32}
	skbVlanProto      = ctxField{28, sizeU32}
	skbIngressIfindex = ctxField{36, sizeU32}
	skbIfindex        = ctxField{40, sizeU32}
	skbHash           = ctxField{68, sizeU32}
	skbNapiID         = ctxField{84, sizeU32}
	skbRemotePort     = ctxField{132, sizeU32}
	skbGsoSegs        = ctxField{164, sizeU32}
	skbGsoSize        = ctxField{176, sizeU32}
)

// skbRewrites is bpf_convert_ctx_access, shared by socket filters, cgroup
// skb, lwt and (through their own callbacks) tc and sk_skb programs. The
// 4-byte fields bpf_skb_is_valid_access lets a program read narrowly
// record a ctx_field_size of 4; target is the width of the sk_buff field
// behind each.
var skbRewrites = rewriteTable{
	{f: skbLen, narrow: sizeU32, target: sizeU32, load: 1},
	// pkt_type is three bits of a byte: a load and a mask.
	{f: skbPktType, narrow: sizeU32, target: sizeU8, load: 2},
	{f: skbMark, narrow: sizeU32, target: sizeU32, load: 1, store: 1},
	// A store of a register first skips values of NO_QUEUE_MAPPING and
	// above; a store of an immediate is checked now (a store or a no-op).
	{f: skbQueueMapping, narrow: sizeU32, target: sizeU16, load: 1, store: 2, storeImm: 1},
	{f: skbProtocol, narrow: sizeU32, target: sizeU16, load: 1},
	// vlan_present is "vlan_all != 0": load, jump, set to 1.
	{f: skbVlanPresent, narrow: sizeU32, target: sizeU32, load: 3},
	{f: skbVlanTci, narrow: sizeU32, target: sizeU16, load: 1},
	{f: skbVlanProto, narrow: sizeU32, target: sizeU16, load: 1},
	{f: skbPriority, narrow: sizeU32, target: sizeU32, load: 1, store: 1},
	{f: skbIngressIfindex, narrow: sizeU32, target: sizeU32, load: 1},
	// ifindex: load skb->dev, skip when NULL, load dev->ifindex.
	{f: skbIfindex, narrow: sizeU32, target: sizeU32, load: nullCheckedLoad},
	{f: skbTcIndex, narrow: sizeU32, target: sizeU16, load: 1, store: 1},
	// cb[] is read and written at any width in one instruction.
	{f: skbCb, ranged: true, load: 1, store: 1},
	{f: skbHash, narrow: sizeU32, target: sizeU32, load: 1},
	{f: skbTcClassid, narrow: sizeU32, target: sizeU16, load: 1, store: 1},
	{f: skbData, load: 1},
	{f: skbDataEnd, load: 1},
	// napi_id: load, and zero below MIN_NAPI_ID (CONFIG_NET_RX_BUSY_POLL).
	{f: skbNapiID, narrow: sizeU32, target: sizeU32, load: 3},
	{f: skbFamily, narrow: sizeU32, target: sizeU16, load: nestedLoad},
	{f: skbRemoteIP4, load: nestedLoad},
	{f: skbLocalIP4, load: nestedLoad},
	{f: skbRemoteIP6, ranged: true, load: nestedLoad},
	{f: skbLocalIP6, ranged: true, load: nestedLoad},
	// remote_port is shifted into the upper half, so the 6.18 kernel
	// reports the whole 4 bytes as loaded: a 2-byte read is masked.
	{f: skbRemotePort, narrow: sizeU32, target: sizeU32, load: nestedLoad + portShift},
	{f: skbLocalPort, narrow: sizeU32, target: sizeU16, load: nestedLoad},
	{f: skbDataMeta, load: 1},
	{f: skbTstamp, load: tstampIngressCheck + 1, store: tstampIngressClear + 1},
	{f: skbWireLen, narrow: sizeU32, target: sizeU32, load: 1},
	{f: skbGsoSegs, narrow: sizeU32, target: sizeU16, load: shinfoAccess + 1},
	{f: skbSk, load: 1},
	{f: skbGsoSize, narrow: sizeU32, target: sizeU16, load: shinfoAccess + 1},
	// tstamp_type: a byte load and a mask.
	{f: skbTstampType, load: 2},
	{f: skbHwtstamp, load: shinfoAccess + 1},
}

// tcRewrites is tc_cls_act_convert_ctx_access: skb->dev is never NULL in
// tc, so ifindex loads without the check.
var tcRewrites = skbRewrites.with(
	fieldRewrite{f: skbIfindex, narrow: sizeU32, target: sizeU32, load: 2},
)

// skSKBRewrites is sk_skb_convert_ctx_access: data_end is computed from
// the head length, and cb[] lives in sk_skb_cb (one instruction still).
var skSKBRewrites = skbRewrites.with(
	fieldRewrite{f: skbDataEnd, load: skSKBDataEnd, loadSame: skSKBDataEndSame},
)

// flowDissectorRewrites is flow_dissector_convert_ctx_access: one load
// from bpf_flow_dissector each.
var flowDissectorRewrites = rewriteTable{
	{f: skbData, load: 1},
	{f: skbDataEnd, load: 1},
	{f: skbFlowKeys, load: 1},
}

// xdpRewrites is xdp_convert_ctx_access.
var xdpRewrites = rewriteTable{
	{f: ctxField{xdpData, sizeU32}, load: 1},
	{f: ctxField{xdpDataEnd, sizeU32}, load: 1},
	{f: ctxField{xdpDataMeta, sizeU32}, load: 1},
	// ingress_ifindex: rxq, rxq->dev, dev->ifindex.
	{f: ctxField{12, sizeU32}, load: 3},
	// rx_queue_index: rxq, rxq->queue_index.
	{f: ctxField{16, sizeU32}, load: 2},
	// egress_ifindex: txq, txq->dev, dev->ifindex.
	{f: ctxField{xdpEgressIfindex, sizeU32}, load: 3},
}

// sockRewrites is bpf_sock_convert_ctx_access, for cgroup/sock contexts
// and for PTR_TO_SOCKET and PTR_TO_SOCK_COMMON: one load from sock or
// sock_common per field (a store for the three writable ones), except
// rx_queue_mapping, which turns NO_QUEUE_MAPPING into -1.
var sockRewrites = rewriteTable{
	{f: sockBoundDevIf, load: 1, store: 1},
	{f: sockFamily, narrow: sizeU32, target: sizeU16, load: 1},
	{f: sockType, narrow: sizeU32, target: sizeU16, load: 1},
	{f: sockProtocol, narrow: sizeU32, target: sizeU16, load: 1},
	{f: sockMark, load: 1, store: 1},
	{f: sockPriority, load: 1, store: 1},
	{f: sockSrcIP4, narrow: sizeU32, target: sizeU32, load: 1},
	{f: sockSrcIP6, ranged: true, narrow: sizeU32, target: sizeU32, load: 1},
	{f: sockSrcPort, narrow: sizeU32, target: sizeU16, load: 1},
	// dst_port records a field size of 2 unless read as 4 bytes.
	{f: sockDstPort, narrow: sizeU16, target: sizeU16, load: 1},
	{f: sockDstIP4, narrow: sizeU32, target: sizeU32, load: 1},
	{f: sockDstIP6, ranged: true, narrow: sizeU32, target: sizeU32, load: 1},
	{f: sockState, narrow: sizeU32, target: sizeU8, load: 1},
	{f: sockRxQueueMapping, narrow: sizeU32, target: sizeU32, load: 3},
}

// tcpSockRewrites is bpf_tcp_sock_convert_ctx_access: one load from
// tcp_sock (or inet_connection_sock) per field. The upper halves of the
// two 64-bit counters pass bpf_tcp_sock_is_valid_access but have no case
// here: the kernel fails such a program as a verifier bug, so they have
// no row.
var tcpSockRewrites = func() rewriteTable {
	var t rewriteTable
	for off := 0; off < tcpSockReadableSize; off += sizeU32 {
		switch off {
		case tcpSockBytesReceived.off, tcpSockBytesAcked.off:
			t = append(t, fieldRewrite{f: ctxField{off, sizeU64}, load: 1})
			off += sizeU32
		default:
			t = append(t, fieldRewrite{f: ctxField{off, sizeU32}, load: 1})
		}
	}
	return t
}()

// xdpSockRewrites is bpf_xdp_sock_convert_ctx_access: queue_id.
var xdpSockRewrites = rewriteTable{{f: ctxField{0, sizeU32}, load: 1}}

// sockAddrRewrites is sock_addr_convert_ctx_access: every field but sk
// lives behind a pointer of bpf_sock_addr_kern (uaddr, sk, t_ctx).
var sockAddrRewrites = rewriteTable{
	{f: ctxField{0, sizeU32}, load: nestedLoad}, // user_family
	{f: saUserIP4, narrow: sizeU32, target: sizeU32, load: nestedLoad, store: nestedStore},
	{f: saUserIP6, ranged: true, narrow: sizeU32, target: sizeU32, load: nestedLoad, store: nestedStore},
	{f: saUserPort, narrow: sizeU32, target: sizeU16, load: nestedLoad, store: nestedStore},
	{f: ctxField{28, sizeU32}, load: nestedLoad}, // family
	{f: ctxField{32, sizeU32}, load: nestedLoad}, // type
	{f: ctxField{36, sizeU32}, load: nestedLoad}, // protocol
	{f: saMsgSrcIP4, narrow: sizeU32, target: sizeU32, load: nestedLoad, store: nestedStore},
	{f: saMsgSrcIP6, ranged: true, narrow: sizeU32, target: sizeU32, load: nestedLoad, store: nestedStore},
	{f: ctxField{saSk, sizeU64}, load: 1},
}

// sockOpsRewrites is sock_ops_convert_ctx_access. The tcp_sock fields
// are read only from full sockets (SOCK_OPS_GET_FIELD), rtt_min among them
// where the build carries stablefix.SockOpsRttMinFullsock; 6.18.0 reads
// rtt_min like the sock_common fields, without that check
// (sockOpsRttMinUnchecked, Op.RttMinUnchecked).
var sockOpsRewrites = func() rewriteTable {
	t := rewriteTable{
		{f: ctxField{0, sizeU32}, load: 1}, // op
		{f: ctxField{soReply, 4 * sizeU32}, ranged: true, load: 1, store: 1},
		{f: ctxField{20, sizeU32}, load: nestedLoad}, // family
		{f: ctxField{24, sizeU32}, load: nestedLoad}, // remote_ip4
		{f: ctxField{28, sizeU32}, load: nestedLoad}, // local_ip4
		{f: ctxField{32, 4 * sizeU32}, ranged: true, load: nestedLoad},
		{f: ctxField{48, 4 * sizeU32}, ranged: true, load: nestedLoad},
		{f: ctxField{64, sizeU32}, load: nestedLoad + portShift}, // remote_port
		{f: ctxField{68, sizeU32}, load: nestedLoad},             // local_port
		{f: ctxField{72, sizeU32}, load: 1},                      // is_fullsock
		{f: ctxField{88, sizeU32}, load: nestedLoad},             // state
		{f: ctxField{soSkTxhash, sizeU32}, load: sockOpsFullsockGet, loadSame: sockOpsFullsockGetSame, store: sockOpsSet},
		{f: ctxField{soSk, sizeU64}, load: sockOpsGetSk, loadSame: sockOpsGetSkSame},
		{f: ctxField{soSkbData, sizeU64}, load: nullCheckedLoad},
		{f: ctxField{soSkbDataEnd, sizeU64}, load: 1},
		{f: ctxField{208, sizeU32}, load: nullCheckedLoad}, // skb_len
		// skb_tcp_flags: tcp_skb_cb's tcp_flags is 16 bits on 6.18.
		{f: ctxField{soSkbTCPFlags, sizeU32}, narrow: sizeU32, target: sizeU16, load: nullCheckedLoad},
		// skb_hwtstamp: skb, a jump over the rest when NULL, skb_shinfo,
		// the load.
		{f: soSkbHwtstamp, load: 1 + 1 + shinfoAccess + 1},
	}
	// snd_cwnd, srtt_us, bpf_sock_ops_cb_flags, then rtt_min and
	// snd_ssthresh through sacked_out, then the two 64-bit counters:
	// SOCK_OPS_GET_FIELD.
	fullsock := func(off, size int) fieldRewrite {
		return fieldRewrite{f: ctxField{off, size}, load: sockOpsFullsockGet, loadSame: sockOpsFullsockGetSame}
	}
	for off := 76; off <= 84; off += sizeU32 {
		t = append(t, fullsock(off, sizeU32))
	}
	for off := soRttMin; off <= 160; off += sizeU32 {
		t = append(t, fullsock(off, sizeU32))
	}
	return append(t, fullsock(soBytesCounters.off, sizeU64), fullsock(soBytesCounters.off+sizeU64, sizeU64))
}()

// soRttMin is offsetof(struct bpf_sock_ops, rtt_min).
const soRttMin = 92

// sockOpsRttMinUnchecked is the 6.18.0 read of rtt_min: the socket
// pointer, then the field, with no is_fullsock check.
var sockOpsRttMinUnchecked = fieldRewrite{f: ctxField{soRttMin, sizeU32}, load: nestedLoad}

// skMsgRewrites is sk_msg_convert_ctx_access.
var skMsgRewrites = rewriteTable{
	{f: ctxField{smData, sizeU64}, load: 1},
	{f: ctxField{smDataEnd, sizeU64}, load: 1},
	{f: ctxField{16, sizeU32}, load: nestedLoad}, // family
	{f: ctxField{20, sizeU32}, load: nestedLoad}, // remote_ip4
	{f: ctxField{24, sizeU32}, load: nestedLoad}, // local_ip4
	{f: ctxField{28, 4 * sizeU32}, ranged: true, load: nestedLoad},
	{f: ctxField{44, 4 * sizeU32}, ranged: true, load: nestedLoad},
	{f: ctxField{60, sizeU32}, load: nestedLoad + portShift}, // remote_port
	{f: ctxField{64, sizeU32}, load: nestedLoad},             // local_port
	{f: ctxField{68, sizeU32}, load: 1},                      // size
	{f: ctxField{smSk, sizeU64}, load: 1},
}

// skLookupRewrites is sk_lookup_convert_ctx_access: direct loads from
// bpf_sk_lookup_kern, except the IPv6 addresses, read through pointers
// that may be NULL.
var skLookupRewrites = rewriteTable{
	{f: ctxField{slSk, sizeU64}, load: 1},
	{f: ctxField{8, sizeU32}, narrow: sizeU32, target: sizeU16, load: 1},  // family
	{f: ctxField{12, sizeU32}, narrow: sizeU32, target: sizeU16, load: 1}, // protocol
	{f: ctxField{16, sizeU32}, narrow: sizeU32, target: sizeU32, load: 1}, // remote_ip4
	{f: ctxField{20, 4 * sizeU32}, ranged: true, narrow: sizeU32, target: sizeU32, load: nullCheckedLoad},
	{f: slRemotePort, narrow: sizeU16, target: sizeU16, load: 1},
	// The padding after remote_port reads as zero: one move.
	{f: slPortPad, narrow: sizeU16, target: sizeU16, load: 1},
	{f: ctxField{40, sizeU32}, narrow: sizeU32, target: sizeU32, load: 1}, // local_ip4
	{f: ctxField{44, 4 * sizeU32}, ranged: true, narrow: sizeU32, target: sizeU32, load: nullCheckedLoad},
	{f: ctxField{60, sizeU32}, narrow: sizeU32, target: sizeU16, load: 1}, // local_port
	{f: ctxField{64, sizeU32}, narrow: sizeU32, target: sizeU32, load: 1}, // ingress_ifindex
}

// sysctlRewrites is sysctl_convert_ctx_access: file_pos is behind the
// ppos pointer, and a store to it borrows a scratch register.
var sysctlRewrites = rewriteTable{
	{f: ctxField{sysctlWrite, sizeU32}, narrow: sizeU32, target: sizeU32, load: 1},
	{f: ctxField{sysctlFilePos, sizeU32}, narrow: sizeU32, target: sizeU32, load: nestedLoad, store: nestedStore},
}

// sockoptRewrites is cg_sockopt_convert_ctx_access: retval lives in the
// run context reached through current_task.
var sockoptRewrites = rewriteTable{
	{f: ctxField{sockoptSk, sizeU64}, load: 1},
	{f: ctxField{sockoptOptval, sizeU64}, load: 1},
	{f: ctxField{sockoptOptvalEnd, sizeU64}, load: 1},
	{f: ctxField{sockoptLevel, sizeU32}, load: 1, store: 1},
	{f: ctxField{sockoptOptname, sizeU32}, load: 1, store: 1},
	{f: ctxField{sockoptOptlen, sizeU32}, load: 1, store: 1},
	// retval: current_task, its bpf_ctx, the field; a store also saves
	// and restores a scratch register.
	{f: ctxField{sockoptRetval, sizeU32}, load: 3, store: 5},
}

// skReuseportRewrites is sk_reuseport_convert_ctx_access: the skb and sk
// fields are nested loads, the rest direct.
var skReuseportRewrites = rewriteTable{
	{f: ctxField{reuseportData, sizeU64}, load: nestedLoad},
	{f: ctxField{reuseportDataEnd, sizeU64}, load: 1},
	{f: ctxField{16, sizeU32}, narrow: sizeU32, target: sizeU32, load: nestedLoad}, // len
	{f: reuseportEthProtocol, narrow: sizeU32, target: sizeU16, load: nestedLoad},
	{f: ctxField{24, sizeU32}, narrow: sizeU32, target: sizeU16, load: nestedLoad}, // ip_protocol
	{f: ctxField{28, sizeU32}, narrow: sizeU32, target: sizeU8, load: 1},           // bind_inany
	{f: ctxField{reuseportHash, sizeU32}, load: 1},
	{f: ctxField{reuseportSk, sizeU64}, load: 1},
	{f: ctxField{reuseportMigratingSk, sizeU64}, load: 1},
}

// perfEventRewrites is pe_prog_convert_ctx_access: sample_period and
// addr are read from the perf_sample_data, registers from the pt_regs,
// each through a pointer of bpf_perf_event_data_kern.
var perfEventRewrites = rewriteTable{
	{f: ctxField{0, ptRegsSize}, ranged: true, load: nestedLoad},
	{f: perfSamplePeriod, narrow: sizeU64, target: sizeU64, load: nestedLoad},
	{f: perfAddr, narrow: sizeU64, target: sizeU64, load: nestedLoad},
}

// rewrites returns the convert_ctx_access table of a program type; conv
// is false for types without the callback, whose context accesses stay
// as they are.
func rewrites(pt ebpf.ProgramType) (t rewriteTable, conv bool) {
	switch pt {
	case ebpf.SocketFilter, ebpf.CGroupSKB, ebpf.LWTIn, ebpf.LWTOut, ebpf.LWTXmit, ebpf.LWTSeg6Local:
		return skbRewrites, true
	case ebpf.SchedCLS, ebpf.SchedACT:
		return tcRewrites, true
	case ebpf.SkSKB:
		return skSKBRewrites, true
	case ebpf.FlowDissector:
		return flowDissectorRewrites, true
	case ebpf.XDP:
		return xdpRewrites, true
	case ebpf.CGroupSock:
		return sockRewrites, true
	case ebpf.CGroupSockAddr:
		return sockAddrRewrites, true
	case ebpf.SockOps:
		return sockOpsRewrites, true
	case ebpf.SkMsg:
		return skMsgRewrites, true
	case ebpf.SkLookup:
		return skLookupRewrites, true
	case ebpf.CGroupSysctl:
		return sysctlRewrites, true
	case ebpf.CGroupSockopt:
		return sockoptRewrites, true
	case ebpf.SkReuseport:
		return skReuseportRewrites, true
	case ebpf.PerfEvent:
		return perfEventRewrites, true
	}
	return nil, false
}

// RewriteLen returns how many instructions replace the access op through a
// context pointer of program type pt (attach type at), as the 6.18
// kernel's convert_ctx_accesses patches it; ok is false for an access
// whose rewrite is not modelled (never guess) and for one the layout
// refuses. Program types without a convert_ctx_access callback (kprobe,
// tracepoints, raw tracepoints, syscall, netfilter, cgroup device) keep
// the access as one instruction.
func RewriteLen(pt ebpf.ProgramType, at ebpf.AttachType, op Op) (n int, ok bool) {
	check, _ := Layout(pt)
	if check == nil || op.Size <= 0 || (op.Imm && !op.Store) || (op.SignExt && (op.Store || op.Size == sizeU64)) {
		return 0, false
	}
	acc, valid := check(op.Off, op.Size, op.Store, at)
	if !valid || (op.SignExt && acc.IsPacketPointer()) {
		return 0, false
	}
	t, conv := rewrites(pt)
	if !conv {
		return 1, true
	}
	if (pt == ebpf.SchedCLS || pt == ebpf.SchedACT) && op.TstampTypeAccess && op.Off == skbTstamp.off {
		// A program reading tstamp_type accesses tstamp as it is.
		return fieldRewrite{f: skbTstamp, load: 1, store: 1}.length(op)
	}
	if pt == ebpf.SockOps && op.RttMinUnchecked && sockOpsRttMinUnchecked.matches(op) {
		return sockOpsRttMinUnchecked.length(op)
	}
	return t.length(op)
}

// SockRewriteLen is RewriteLen for loads through PTR_TO_SOCKET or
// PTR_TO_SOCK_COMMON (struct bpf_sock), PTR_TO_TCP_SOCK (bpf_tcp_sock) and
// PTR_TO_XDP_SOCK (bpf_xdp_sock), which the verifier rewrites with
// bpf_sock_convert_ctx_access, bpf_tcp_sock_convert_ctx_access and
// bpf_xdp_sock_convert_ctx_access whatever the program type. Stores
// through them are never allowed.
func SockRewriteLen(kind SockKind, op Op) (n int, ok bool) {
	if op.Store || op.Imm || op.Size <= 0 || (op.SignExt && op.Size == sizeU64) {
		return 0, false
	}
	var t rewriteTable
	switch kind {
	case Sock:
		ok, t = BPFSockField(op.Off, op.Size), sockRewrites
	case SockCommonPtr:
		ok, t = SockCommonField(op.Off, op.Size), sockRewrites
	case TCPSock:
		ok, t = TCPSockField(op.Off, op.Size), tcpSockRewrites
	case XDPSock:
		ok, t = XDPSockField(op.Off, op.Size), xdpSockRewrites
	}
	if !ok {
		return 0, false
	}
	return t.length(op)
}

// uncloneProlog is bpf_unclone_prologue's length: if the skb is cloned,
// call bpf_skb_pull_data(skb, 0) and drop the packet when it fails (10
// instructions), then the program's first instruction, which the
// prologue replaces.
const uncloneProlog = 11

// PrologueLen is the length of the prologue gen_prologue patches in at
// insn 0 (0 for none), given whether the program writes packet data
// directly (env->seen_direct_write). The prologue ends with the original
// instruction 0, so the program grows by n-1. Only tc, lwt_xmit and sk_skb
// programs have one, to unclone the skb before a direct write: XDP, sk_msg
// and cgroup sockopt have a gen_prologue that emits nothing.
func PrologueLen(pt ebpf.ProgramType, _ ebpf.AttachType, directWrite bool) (n int, ok bool) {
	if check, _ := Layout(pt); check == nil {
		return 0, false
	}
	switch pt {
	case ebpf.SchedCLS, ebpf.SchedACT, ebpf.LWTXmit, ebpf.SkSKB:
		if directWrite {
			return uncloneProlog, true
		}
	}
	return 0, true
}

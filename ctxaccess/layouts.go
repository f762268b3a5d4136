package ctxaccess

// Context layouts: which loads and stores a program may make through its
// context pointer (the kernel's per-type is_valid_access callbacks), and what
// a load yields. Offsets and sizes are those of the UAPI structs (__sk_buff,
// xdp_md, bpf_sock, bpf_sock_addr, bpf_sock_ops, sk_msg_md, bpf_sk_lookup,
// bpf_sysctl, bpf_cgroup_dev_ctx, bpf_sockopt, sk_reuseport_md, bpf_nf_ctx)
// and, for tracing programs, of x86_64's struct pt_regs.
//
// Rules shared by most layouts: an access must lie inside the struct and be
// aligned to its own size; a 4-byte field may be read narrowly (1, 2 or 4
// bytes at any aligned offset inside it) unless it is a pointer or a
// pointer-sized field; stores are allowed only to the fields a program type
// may change, and only at the field's full width.

import (
	"github.com/cilium/ebpf"
)

// Access widths.
const (
	sizeU8  = 1
	sizeU16 = 2
	sizeU32 = 4
	sizeU64 = 8
)

// ctxField is a byte range [off, off+size) of a context struct.
type ctxField struct{ off, size int }

// contains reports whether offset o lies inside the field.
func (f ctxField) contains(o int) bool { return o >= f.off && o < f.off+f.size }

// ctxSpan is the field covering fields a through b, inclusive.
func ctxSpan(a, b ctxField) ctxField { return ctxField{a.off, b.off + b.size - a.off} }

// narrowOK is the kernel's narrow-access rule: a read no wider than the
// field and of a power-of-two width.
func narrowOK(size, fieldSize int) bool {
	return size <= fieldSize && size&(size-1) == 0
}

// inBounds reports whether an access of size at off starts inside a struct
// of structSize bytes and is aligned to its width.
func inBounds(off, size, structSize int) bool {
	return off >= 0 && off < structSize && size > 0 && off%size == 0
}

// ScalarAccess is the result of an allowed access to a plain field.
var ScalarAccess = Access{Kind: Scalar}

// __sk_buff (struct size 192).
const skbSize = 192

var (
	skbLen          = ctxField{0, sizeU32}
	skbMark         = ctxField{8, sizeU32}
	skbQueueMapping = ctxField{12, sizeU32}
	skbPriority     = ctxField{32, sizeU32}
	skbTcIndex      = ctxField{44, sizeU32}
	skbCb           = ctxField{48, 5 * sizeU32}
	skbTcClassid    = ctxField{72, sizeU32}
	skbData         = ctxField{76, sizeU32}
	skbDataEnd      = ctxField{80, sizeU32}
	skbFamily       = ctxField{88, sizeU32}
	skbRemoteIP4    = ctxField{92, sizeU32}
	skbLocalIP4     = ctxField{96, sizeU32}
	skbRemoteIP6    = ctxField{100, 4 * sizeU32}
	skbLocalIP6     = ctxField{116, 4 * sizeU32}
	skbLocalPort    = ctxField{136, sizeU32}
	skbDataMeta     = ctxField{140, sizeU32}
	skbFlowKeys     = ctxField{144, sizeU64}
	skbTstamp       = ctxField{152, sizeU64}
	skbWireLen      = ctxField{160, sizeU32}
	skbSk           = ctxField{168, sizeU64}
	skbTstampType   = ctxField{180, sizeU8}
	skbHwtstamp     = ctxField{184, sizeU64}
	// skbSocketFields are the socket tuple fields family..local_port.
	skbSocketFields = ctxSpan(skbFamily, skbLocalPort)
)

// skbBase is bpf_skb_is_valid_access: the checks every __sk_buff program
// type applies after its own.
func skbBase(off, size int, write bool) (Access, bool) {
	if !inBounds(off, size, skbSize) {
		return Access{}, false
	}
	switch {
	case skbCb.contains(off):
		return ScalarAccess, off+size <= skbCb.off+skbCb.size
	case skbRemoteIP6.contains(off), skbLocalIP6.contains(off), skbRemoteIP4.contains(off),
		skbLocalIP4.contains(off), skbData.contains(off), skbDataMeta.contains(off), skbDataEnd.contains(off):
		return ScalarAccess, size == sizeU32
	case skbFlowKeys.contains(off):
		return Access{}, false
	case skbHwtstamp.contains(off):
		return ScalarAccess, !write && size == sizeU64
	case skbTstamp.contains(off):
		return ScalarAccess, size == sizeU64
	case skbSk.contains(off):
		// A pointer field: only a whole, aligned read.
		return Access{Kind: SockCommon, MaybeNull: true}, off == skbSk.off && !write && size == sizeU64
	case off >= skbTstampType.off && off < skbHwtstamp.off:
		// tstamp_type and the padding after it.
		return Access{}, false
	}
	if write {
		return ScalarAccess, size == sizeU32
	}
	return ScalarAccess, narrowOK(size, sizeU32)
}

// skbPacketKind gives the pointer kind a load of data, data_meta or
// data_end yields for program types that allow them.
func skbPacketKind(acc Access, off int, meta bool) Access {
	switch {
	case skbData.contains(off):
		return Access{Kind: Packet}
	case skbDataEnd.contains(off):
		return Access{Kind: PacketEnd}
	case meta && skbDataMeta.contains(off):
		return Access{Kind: PacketMeta}
	}
	return acc
}

// anyOf reports whether off lies in any of the fields.
func anyOf(off int, fs ...ctxField) bool {
	for _, f := range fs {
		if f.contains(off) {
			return true
		}
	}
	return false
}

// socketFilterCtx is sk_filter_is_valid_access.
func socketFilterCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if anyOf(off, skbTcClassid, skbData, skbDataMeta, skbDataEnd, skbSocketFields, skbTstamp, skbWireLen, skbHwtstamp) {
		return Access{}, false
	}
	if write && !skbCb.contains(off) {
		return Access{}, false
	}
	return skbBase(off, size, write)
}

// tcCtx is tc_cls_act_is_valid_access.
func tcCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write && !anyOf(off, skbMark, skbTcIndex, skbPriority, skbTcClassid, skbCb, skbTstamp, skbQueueMapping) {
		return Access{}, false
	}
	if skbSocketFields.contains(off) {
		return Access{}, false
	}
	if off == skbTstampType.off {
		return ScalarAccess, size == sizeU8
	}
	acc, ok := skbBase(off, size, write)
	return skbPacketKind(acc, off, true), ok
}

// cgroupSKBCtx is cg_skb_is_valid_access (as root: bpf_capable holds, so
// data, data_end and tstamp are available).
func cgroupSKBCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if anyOf(off, skbTcClassid, skbDataMeta, skbWireLen) {
		return Access{}, false
	}
	if write && !anyOf(off, skbMark, skbPriority, skbCb, skbTstamp) {
		return Access{}, false
	}
	acc, ok := skbBase(off, size, write)
	return skbPacketKind(acc, off, false), ok
}

// lwtCtx is lwt_is_valid_access (lwt_in, lwt_out, lwt_xmit, seg6local).
func lwtCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if anyOf(off, skbTcClassid, skbSocketFields, skbDataMeta, skbTstamp, skbWireLen, skbHwtstamp) {
		return Access{}, false
	}
	if write && !anyOf(off, skbMark, skbPriority, skbCb) {
		return Access{}, false
	}
	acc, ok := skbBase(off, size, write)
	return skbPacketKind(acc, off, false), ok
}

// skSKBCtx is sk_skb_is_valid_access.
func skSKBCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if anyOf(off, skbTcClassid, skbDataMeta, skbTstamp, skbWireLen, skbHwtstamp) {
		return Access{}, false
	}
	if write && !anyOf(off, skbTcIndex, skbPriority) {
		return Access{}, false
	}
	if skbMark.contains(off) {
		return Access{}, false
	}
	acc, ok := skbBase(off, size, write)
	return skbPacketKind(acc, off, false), ok
}

// flowDissectorCtx is flow_dissector_is_valid_access: read-only, and only
// the packet bounds and the flow keys.
func flowDissectorCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if off < 0 || off >= skbSize || write {
		return Access{}, false
	}
	switch off {
	case skbData.off:
		return Access{Kind: Packet}, size == sizeU32
	case skbDataEnd.off:
		return Access{Kind: PacketEnd}, size == sizeU32
	case skbFlowKeys.off:
		return Access{Kind: FlowKeys}, size == sizeU64
	}
	return Access{}, false
}

// xdp_md (struct size 24): data, data_end, data_meta, ingress_ifindex,
// rx_queue_index, egress_ifindex, each 4 bytes.
const (
	xdpSize          = 24
	xdpData          = 0
	xdpDataEnd       = 4
	xdpDataMeta      = 8
	xdpEgressIfindex = 20
)

// xdpCtx is xdp_is_valid_access. Stores are allowed only to device-bound
// (offloaded) programs, which vercheck does not load.
func xdpCtx(off, size int, write bool, at ebpf.AttachType) (Access, bool) {
	if off == xdpEgressIfindex && at != ebpf.AttachXDPDevMap {
		return Access{}, false
	}
	if write || !inBounds(off, size, xdpSize) || size != sizeU32 {
		return Access{}, false
	}
	switch off {
	case xdpData:
		return Access{Kind: Packet}, true
	case xdpDataEnd:
		return Access{Kind: PacketEnd}, true
	case xdpDataMeta:
		return Access{Kind: PacketMeta}, true
	}
	return ScalarAccess, true
}

// Tracing contexts.
const (
	// ptRegsSize is sizeof(struct pt_regs) on x86_64: 21 registers.
	ptRegsSize = 21 * sizeU64
	// tpCommonFieldsSize is the tracepoint record header a program may
	// not read (the first pointer-sized word).
	tpCommonFieldsSize = sizeU64
	// perfMaxTraceSize is PERF_MAX_TRACE_SIZE, the largest tracepoint
	// record.
	perfMaxTraceSize = 8192
	// maxBPFFuncArgs is MAX_BPF_FUNC_ARGS: a raw tracepoint context is
	// an array of that many u64 arguments.
	maxBPFFuncArgs = 12
	// perfEventDataSize is sizeof(struct bpf_perf_event_data): the
	// registers, then sample_period and addr.
	perfEventDataSize = ptRegsSize + 2*sizeU64
)

var (
	perfSamplePeriod = ctxField{ptRegsSize, sizeU64}
	perfAddr         = ctxField{ptRegsSize + sizeU64, sizeU64}
)

// kprobeCtx is kprobe_prog_is_valid_access: any aligned read inside
// struct pt_regs.
func kprobeCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || !inBounds(off, size, ptRegsSize) || off+size > ptRegsSize {
		return Access{}, false
	}
	return ScalarAccess, true
}

// tracepointCtx is tp_prog_is_valid_access: any aligned read past the
// common header, inside the largest record. The kernel compares the offset
// with the header size as an unsigned number, so negative offsets pass that
// test, and nothing else stops them: an aligned read at a negative offset is
// accepted (the live 6.18 kernel agrees).
func tracepointCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || size <= 0 || off%size != 0 || off >= perfMaxTraceSize {
		return Access{}, false
	}
	if off >= 0 && off < tpCommonFieldsSize {
		return Access{}, false
	}
	return ScalarAccess, true
}

// rawTracepointCtx is raw_tp_prog_is_valid_access: aligned reads of the
// u64 argument array.
func rawTracepointCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || !inBounds(off, size, maxBPFFuncArgs*sizeU64) {
		return Access{}, false
	}
	return ScalarAccess, true
}

// syscallCtxLimit is U16_MAX: a syscall program's context is the caller's
// buffer, of a size only known at run time (bpf_prog_test_run checks it
// against the largest offset the program uses), up to 64 KiB.
const syscallCtxLimit = 1<<16 - 1

// syscallCtx is syscall_prog_is_valid_access: any aligned read or write
// inside the first 64 KiB.
func syscallCtx(off, size int, _ bool, _ ebpf.AttachType) (Access, bool) {
	if off < 0 || off >= syscallCtxLimit || size <= 0 || off%size != 0 {
		return Access{}, false
	}
	return ScalarAccess, true
}

// perfEventCtx is pe_prog_is_valid_access: registers are read whole,
// sample_period and addr also narrowly.
func perfEventCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || !inBounds(off, size, perfEventDataSize) {
		return Access{}, false
	}
	if perfSamplePeriod.contains(off) || perfAddr.contains(off) {
		return ScalarAccess, narrowOK(size, sizeU64)
	}
	return ScalarAccess, size == sizeU64
}

// bpf_sock (struct size 80).
const bpfSockSize = 80

var (
	sockBoundDevIf     = ctxField{0, sizeU32}
	sockFamily         = ctxField{4, sizeU32}
	sockType           = ctxField{8, sizeU32}
	sockProtocol       = ctxField{12, sizeU32}
	sockMark           = ctxField{16, sizeU32}
	sockPriority       = ctxField{20, sizeU32}
	sockSrcIP4         = ctxField{24, sizeU32}
	sockSrcIP6         = ctxField{28, 4 * sizeU32}
	sockSrcPort        = ctxField{44, sizeU32}
	sockDstPort        = ctxField{48, sizeU16}
	sockDstIP4         = ctxField{52, sizeU32}
	sockDstIP6         = ctxField{56, 4 * sizeU32}
	sockState          = ctxField{72, sizeU32}
	sockRxQueueMapping = ctxField{76, sizeU32}
)

// BPFSockField is bpf_sock_is_valid_access.
func BPFSockField(off, size int) bool {
	if !inBounds(off, size, bpfSockSize) {
		return false
	}
	switch {
	case off == sockState.off, off == sockFamily.off, off == sockType.off, off == sockProtocol.off,
		off == sockSrcPort.off, off == sockRxQueueMapping.off,
		anyOf(off, sockSrcIP4, sockSrcIP6, sockDstIP4, sockDstIP6):
		return narrowOK(size, sizeU32)
	case sockDstPort.contains(off):
		// A 4-byte read covers the port and its padding.
		if size == sizeU32 {
			return true
		}
		return narrowOK(size, sockDstPort.size)
	case off >= sockDstPort.off+sockDstPort.size && off < sockDstIP4.off:
		return false
	}
	return size == sizeU32
}

// SockCommonField is bpf_sock_common_is_valid_access: the bpf_sock view
// of a sock_common, whose type through priority fields only full sockets
// have.
func SockCommonField(off, size int) bool {
	if off >= sockType.off && off < sockPriority.off+sockPriority.size {
		return false
	}
	return BPFSockField(off, size)
}

// bpf_tcp_sock: readable up to the end of icsk_retransmits; two counters
// are 64-bit, every other field 32-bit.
const tcpSockReadableSize = 112

var (
	tcpSockBytesReceived = ctxField{80, sizeU64}
	tcpSockBytesAcked    = ctxField{88, sizeU64}
)

// TCPSockField is bpf_tcp_sock_is_valid_access: whole, aligned fields.
func TCPSockField(off, size int) bool {
	if !inBounds(off, size, tcpSockReadableSize) {
		return false
	}
	if off == tcpSockBytesReceived.off || off == tcpSockBytesAcked.off {
		return size == sizeU64
	}
	return size == sizeU32
}

// TCPSockHalfCounter reports a 32-bit read of the upper half of one of the
// 64-bit bpf_tcp_sock counters.
func TCPSockHalfCounter(off, size int) bool {
	return size == sizeU32 && (off == tcpSockBytesReceived.off+sizeU32 || off == tcpSockBytesAcked.off+sizeU32)
}

// bpf_xdp_sock: one 32-bit field, queue_id.
const xdpSockReadableSize = sizeU32

// XDPSockField is bpf_xdp_sock_is_valid_access.
func XDPSockField(off, size int) bool {
	return inBounds(off, size, xdpSockReadableSize) && size == sizeU32
}

// cgroupSockCtx is sock_filter_is_valid_access: bpf_sock fields, some only
// for some attach types; bound_dev_if, mark and priority are writable at
// socket creation and release.
func cgroupSockCtx(off, size int, write bool, at ebpf.AttachType) (Access, bool) {
	if !BPFSockField(off, size) {
		return Access{}, false
	}
	postBind4 := at == ebpf.AttachCGroupInet4PostBind
	postBind6 := at == ebpf.AttachCGroupInet6PostBind
	switch {
	case off == sockBoundDevIf.off, off == sockMark.off, off == sockPriority.off:
		return ScalarAccess, at == ebpf.AttachCGroupInetSockCreate || at == ebpf.AttachCgroupInetSockRelease
	case sockSrcIP4.contains(off):
		return ScalarAccess, postBind4 && !write
	case sockSrcIP6.contains(off):
		return ScalarAccess, postBind6 && !write
	case sockSrcPort.contains(off):
		return ScalarAccess, (postBind4 || postBind6) && !write
	}
	return ScalarAccess, !write
}

// bpf_sock_addr (struct size 72).
const sockAddrSize = 72

var (
	saUserIP4   = ctxField{4, sizeU32}
	saUserIP6   = ctxField{8, 4 * sizeU32}
	saUserPort  = ctxField{24, sizeU32}
	saMsgSrcIP4 = ctxField{40, sizeU32}
	saMsgSrcIP6 = ctxField{44, 4 * sizeU32}
	saSk        = 64
)

// wideOK is the kernel's wide-access rule: an aligned 8-byte access to
// two words of an IPv6 address.
func wideOK(off, size int, f ctxField) bool {
	return size == sizeU64 && off%sizeU64 == 0 && off >= f.off && off+size <= f.off+f.size
}

// sockAddrCtx is sock_addr_is_valid_access: the IPv4 fields exist only
// for IPv4 hooks, the IPv6 ones for IPv6 hooks, the message source only
// for sendmsg.
func sockAddrCtx(off, size int, write bool, at ebpf.AttachType) (Access, bool) {
	if !inBounds(off, size, sockAddrSize) {
		return Access{}, false
	}
	switch {
	case saUserIP4.contains(off):
		switch at {
		case ebpf.AttachCGroupInet4Bind, ebpf.AttachCGroupInet4Connect, ebpf.AttachCgroupInet4GetPeername,
			ebpf.AttachCgroupInet4GetSockname, ebpf.AttachCGroupUDP4Sendmsg, ebpf.AttachCGroupUDP4Recvmsg:
		default:
			return Access{}, false
		}
	case saUserIP6.contains(off):
		switch at {
		case ebpf.AttachCGroupInet6Bind, ebpf.AttachCGroupInet6Connect, ebpf.AttachCgroupInet6GetPeername,
			ebpf.AttachCgroupInet6GetSockname, ebpf.AttachCGroupUDP6Sendmsg, ebpf.AttachCGroupUDP6Recvmsg:
		default:
			return Access{}, false
		}
	case saMsgSrcIP4.contains(off):
		if at != ebpf.AttachCGroupUDP4Sendmsg {
			return Access{}, false
		}
	case saMsgSrcIP6.contains(off):
		if at != ebpf.AttachCGroupUDP6Sendmsg {
			return Access{}, false
		}
	}
	switch {
	case anyOf(off, saUserIP4, saUserIP6, saMsgSrcIP4, saMsgSrcIP6, saUserPort):
		if wideOK(off, size, saUserIP6) || wideOK(off, size, saMsgSrcIP6) {
			return ScalarAccess, true
		}
		if write {
			return ScalarAccess, size == sizeU32
		}
		return ScalarAccess, narrowOK(size, sizeU32)
	case off >= saSk:
		return Access{Kind: Socket}, off == saSk && !write && size == sizeU64
	case off >= saMsgSrcIP6.off+saMsgSrcIP6.size:
		// The padding before sk.
		return Access{}, false
	}
	// user_family, family, type, protocol.
	return ScalarAccess, !write && size == sizeU32
}

// bpf_sock_ops (struct size 224 on 6.18, ending with skb_hwtstamp).
const sockOpsSize = 224

var (
	soReply         = 4
	soSkTxhash      = 164
	soBytesCounters = ctxField{168, 2 * sizeU64} // bytes_received, bytes_acked
	soSk            = 184
	soSkbData       = 192
	soSkbDataEnd    = 200
	soSkbTCPFlags   = 212
	soSkbHwtstamp   = ctxField{216, sizeU64}
	// soPointers covers sk, skb_data and skb_data_end.
	soPointers = ctxField{soSk, 3 * sizeU64}
)

// sockOpsCtx is sock_ops_is_valid_access.
func sockOpsCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if !inBounds(off, size, sockOpsSize) {
		return Access{}, false
	}
	if write {
		return ScalarAccess, (off == soReply || off == soSkTxhash) && size == sizeU32
	}
	switch {
	case soBytesCounters.contains(off):
		return ScalarAccess, size == sizeU64
	case soSkbHwtstamp.contains(off):
		return ScalarAccess, size == sizeU64
	case off == soSk:
		return Access{Kind: Socket, MaybeNull: true}, size == sizeU64
	case off == soSkbData:
		return Access{Kind: Packet}, size == sizeU64
	case off == soSkbDataEnd:
		return Access{Kind: PacketEnd}, size == sizeU64
	case soPointers.contains(off):
		// Only whole reads of the three pointer fields.
		return Access{}, false
	case off == soSkbTCPFlags:
		return ScalarAccess, narrowOK(size, sizeU32)
	}
	return ScalarAccess, size == sizeU32
}

// sk_msg_md (struct size 80).
const skMsgSize = 80

var (
	smData    = 0
	smDataEnd = 8
	smSk      = 72
	// smScalars covers family .. size: 4-byte fields only.
	smScalars = ctxField{16, 68 - 16 + sizeU32}
)

// skMsgCtx is sk_msg_is_valid_access: read-only.
func skMsgCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || off < 0 || off >= skMsgSize || off%size != 0 {
		return Access{}, false
	}
	switch {
	case off == smData:
		return Access{Kind: Packet}, size == sizeU64
	case off == smDataEnd:
		return Access{Kind: PacketEnd}, size == sizeU64
	case off == smSk:
		return Access{Kind: Socket}, size == sizeU64
	case smScalars.contains(off):
		return ScalarAccess, size == sizeU32
	}
	return Access{}, false
}

// bpf_sk_lookup (struct size 72).
const skLookupSize = 72

var (
	slSk         = 0
	slRemotePort = ctxField{36, sizeU16}
	slPortPad    = ctxField{38, sizeU16} // zero padding kept readable
	// slScalars covers family .. remote_ip6 and local_ip4 ..
	// ingress_ifindex.
	slScalarsLow  = ctxField{8, 36 - 8}
	slScalarsHigh = ctxField{40, 68 - 40}
)

// skLookupCtx is sk_lookup_is_valid_access: read-only.
func skLookupCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || !inBounds(off, size, skLookupSize) {
		return Access{}, false
	}
	switch {
	case off == slSk:
		return Access{Kind: Socket, MaybeNull: true}, size == sizeU64
	case slScalarsLow.contains(off), slScalarsHigh.contains(off):
		return ScalarAccess, narrowOK(size, sizeU32)
	case slRemotePort.contains(off):
		// A 4-byte read of the 2-byte port is kept for old programs.
		return ScalarAccess, size == sizeU32 || narrowOK(size, sizeU16)
	case slPortPad.contains(off):
		return ScalarAccess, narrowOK(size, sizeU16)
	}
	return Access{}, false
}

// bpf_sysctl: write (read-only flag) and file_pos (writable).
const (
	sysctlSize    = 8
	sysctlWrite   = 0
	sysctlFilePos = 4
)

// sysctlCtx is sysctl_is_valid_access.
func sysctlCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if off < 0 || size <= 0 || off+size > sysctlSize || off%size != 0 {
		return Access{}, false
	}
	if off >= sysctlFilePos {
		if write {
			return ScalarAccess, size == sizeU32
		}
		return ScalarAccess, narrowOK(size, sizeU32)
	}
	return ScalarAccess, !write && narrowOK(size, sizeU32)
}

// bpf_cgroup_dev_ctx: access_type, major, minor (struct size 12).
const cgroupDevSize = 12

// cgroupDeviceCtx is cgroup_dev_is_valid_access: read-only; access_type
// may be read narrowly.
func cgroupDeviceCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || off < 0 || size <= 0 || off+size > cgroupDevSize || off%size != 0 {
		return Access{}, false
	}
	if off < sizeU32 {
		return ScalarAccess, narrowOK(size, sizeU32)
	}
	return ScalarAccess, size == sizeU32
}

// bpf_sockopt (struct size 40).
const (
	sockoptSize      = 40
	sockoptSk        = 0
	sockoptOptval    = 8
	sockoptOptvalEnd = 16
	sockoptLevel     = 24
	sockoptOptname   = 28
	sockoptOptlen    = 32
	sockoptRetval    = 36
)

// sockoptCtx is cg_sockopt_is_valid_access.
func sockoptCtx(off, size int, write bool, at ebpf.AttachType) (Access, bool) {
	if !inBounds(off, size, sockoptSize) {
		return Access{}, false
	}
	get := at == ebpf.AttachCGroupGetsockopt
	if write {
		switch off {
		case sockoptRetval:
			return ScalarAccess, size == sizeU32 && get
		case sockoptOptname, sockoptLevel:
			return ScalarAccess, size == sizeU32 && at == ebpf.AttachCGroupSetsockopt
		case sockoptOptlen:
			return ScalarAccess, size == sizeU32
		}
		return Access{}, false
	}
	switch {
	case off >= sockoptSk && off < sockoptOptval:
		return Access{Kind: Socket}, size == sizeU64
	case off >= sockoptOptval && off < sockoptOptvalEnd:
		return Access{Kind: Packet}, size == sizeU64
	case off >= sockoptOptvalEnd && off < sockoptLevel:
		return Access{Kind: PacketEnd}, size == sizeU64
	case off == sockoptRetval:
		return ScalarAccess, size == sizeU32 && get
	}
	return ScalarAccess, size == sizeU32
}

// sk_reuseport_md (struct size 56): the packet bounds, five 4-byte
// fields, then two socket pointers.
const (
	reuseportSize        = 56
	reuseportData        = 0
	reuseportDataEnd     = 8
	reuseportHash        = 32
	reuseportSk          = 40
	reuseportMigratingSk = 48
	// reuseportMinProtoSize is the width of sk_buff's protocol field: a
	// read of eth_protocol may not be narrower.
	reuseportMinProtoSize = sizeU16
)

var (
	reuseportEthProtocol = ctxField{20, sizeU32}
	// reuseportNarrow covers len, eth_protocol, ip_protocol and
	// bind_inany: 4-byte fields that may be read narrowly.
	reuseportNarrow = ctxField{16, 4 * sizeU32}
)

// skReuseportCtx is sk_reuseport_is_valid_access: read-only; the pointer
// fields and hash are read whole, the other fields also narrowly.
func skReuseportCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || !inBounds(off, size, reuseportSize) {
		return Access{}, false
	}
	switch off {
	case reuseportData:
		return Access{Kind: Packet}, size == sizeU64
	case reuseportDataEnd:
		return Access{Kind: PacketEnd}, size == sizeU64
	case reuseportHash:
		return ScalarAccess, size == sizeU32
	case reuseportSk:
		// The socket of the group being selected from: never NULL.
		return Access{Kind: Socket}, size == sizeU64
	case reuseportMigratingSk:
		return Access{Kind: SockCommon, MaybeNull: true}, size == sizeU64
	}
	if !reuseportNarrow.contains(off) {
		return Access{}, false
	}
	if reuseportEthProtocol.contains(off) && size < reuseportMinProtoSize {
		return Access{}, false
	}
	return ScalarAccess, narrowOK(size, sizeU32)
}

// rawTracepointWritableCtx is raw_tp_writable_prog_is_valid_access: the
// raw tracepoint arguments, the first of which is the tracepoint's
// writable buffer (PTR_TO_TP_BUFFER), read whole.
func rawTracepointWritableCtx(off, size int, write bool, at ebpf.AttachType) (Access, bool) {
	if off == 0 {
		if size != sizeU64 || write {
			return Access{}, false
		}
		return Access{Kind: TPBuffer}, true
	}
	return rawTracepointCtx(off, size, write, at)
}

// bpf_nf_ctx (struct size 16): the hook state and the packet, both
// trusted BTF pointers.
const (
	nfCtxSize  = 16
	nfCtxState = 0
	nfCtxSkb   = 8
)

// netfilterCtx is nf_is_valid_access: read-only, each pointer read whole
// and aligned.
func netfilterCtx(off, size int, write bool, _ ebpf.AttachType) (Access, bool) {
	if write || !inBounds(off, size, nfCtxSize) {
		return Access{}, false
	}
	name := "nf_hook_state"
	if off >= nfCtxSkb {
		name = "sk_buff"
	}
	return Access{Kind: BTFID, BTFStruct: name}, size == sizeU64
}

// Layout returns the context access checker for a program type and the
// context size, or nil when vercheck does not model that type's context.
func Layout(pt ebpf.ProgramType) (check Func, size int) {
	switch pt {
	case ebpf.SkReuseport:
		return skReuseportCtx, reuseportSize
	case ebpf.RawTracepointWritable:
		return rawTracepointWritableCtx, maxBPFFuncArgs * sizeU64
	case ebpf.Netfilter:
		return netfilterCtx, nfCtxSize
	case ebpf.SocketFilter:
		return socketFilterCtx, skbSize
	case ebpf.SchedCLS, ebpf.SchedACT:
		return tcCtx, skbSize
	case ebpf.CGroupSKB:
		return cgroupSKBCtx, skbSize
	case ebpf.LWTIn, ebpf.LWTOut, ebpf.LWTXmit, ebpf.LWTSeg6Local:
		return lwtCtx, skbSize
	case ebpf.SkSKB:
		return skSKBCtx, skbSize
	case ebpf.FlowDissector:
		return flowDissectorCtx, skbSize
	case ebpf.XDP:
		return xdpCtx, xdpSize
	case ebpf.Kprobe:
		return kprobeCtx, ptRegsSize
	case ebpf.TracePoint:
		return tracepointCtx, perfMaxTraceSize
	case ebpf.RawTracepoint:
		return rawTracepointCtx, maxBPFFuncArgs * sizeU64
	case ebpf.PerfEvent:
		return perfEventCtx, perfEventDataSize
	case ebpf.CGroupSock:
		return cgroupSockCtx, bpfSockSize
	case ebpf.CGroupSockAddr:
		return sockAddrCtx, sockAddrSize
	case ebpf.SockOps:
		return sockOpsCtx, sockOpsSize
	case ebpf.SkMsg:
		return skMsgCtx, skMsgSize
	case ebpf.SkLookup:
		return skLookupCtx, skLookupSize
	case ebpf.CGroupSysctl:
		return sysctlCtx, sysctlSize
	case ebpf.CGroupDevice:
		return cgroupDeviceCtx, cgroupDevSize
	case ebpf.CGroupSockopt:
		return sockoptCtx, sockoptSize
	case ebpf.Syscall:
		return syscallCtx, syscallCtxLimit
	}
	return nil, 0
}

package ctxaccess

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"
)

// rewriteResult is a length and whether it is modelled.
type rewriteResult struct {
	N  int
	OK bool
}

// TestRewriteLen checks lengths counted from the 6.18 callbacks by hand:
// the callback's instructions, plus the mask (and shift) of a narrow load
// of a wider kernel field, plus the move of a sign-extending load.
func TestCtxRewriteLen(t *testing.T) {
	unmodelled := rewriteResult{}
	len1, len2, len3 := rewriteResult{1, true}, rewriteResult{2, true}, rewriteResult{3, true}
	tests := []struct {
		name string
		pt   ebpf.ProgramType
		at   ebpf.AttachType
		op   Op
		want rewriteResult
	}{
		{"skb len", ebpf.SocketFilter, 0, Op{Off: 0, Size: 4}, len1},
		{"skb len low byte: mask", ebpf.SocketFilter, 0, Op{Off: 0, Size: 1}, len2},
		{"skb len second byte: shift and mask", ebpf.SocketFilter, 0, Op{Off: 1, Size: 1}, len3},
		{"skb len sign-extended", ebpf.SocketFilter, 0, Op{Off: 0, Size: 4, SignExt: true}, len2},
		{"skb len narrow and sign-extended", ebpf.SocketFilter, 0, Op{Off: 2, Size: 2, SignExt: true}, rewriteResult{4, true}},
		{"pkt_type is a byte: no mask", ebpf.SocketFilter, 0, Op{Off: 4, Size: 1}, len2},
		{"protocol half: the field is 16 bits", ebpf.SocketFilter, 0, Op{Off: 16, Size: 2}, len1},
		{"protocol byte", ebpf.SocketFilter, 0, Op{Off: 17, Size: 1}, len3},
		{"vlan_present", ebpf.CGroupSKB, 0, Op{Off: 20, Size: 4}, len3},
		{"ifindex checks skb->dev", ebpf.CGroupSKB, 0, Op{Off: 40, Size: 4}, len3},
		{"tc ifindex does not", ebpf.SchedCLS, 0, Op{Off: 40, Size: 4}, len2},
		{"queue_mapping store of a register", ebpf.SchedCLS, 0, Op{Off: 12, Size: 4, Store: true}, len2},
		{"queue_mapping store of an immediate", ebpf.SchedCLS, 0, Op{Off: 12, Size: 4, Store: true, Imm: true}, len1},
		{"cb 8 bytes", ebpf.SchedCLS, 0, Op{Off: 56, Size: 8, Store: true}, len1},
		{"napi_id", ebpf.SchedCLS, 0, Op{Off: 84, Size: 4}, len3},
		{"remote_port", ebpf.CGroupSKB, 0, Op{Off: 132, Size: 4}, len3},
		{"remote_port half is masked", ebpf.CGroupSKB, 0, Op{Off: 132, Size: 2}, rewriteResult{4, true}},
		{"remote_port upper half", ebpf.CGroupSKB, 0, Op{Off: 134, Size: 2}, rewriteResult{5, true}},
		{"local_port half", ebpf.CGroupSKB, 0, Op{Off: 138, Size: 2}, len2},
		{"gso_segs through skb_shinfo", ebpf.SchedCLS, 0, Op{Off: 164, Size: 4}, rewriteResult{4, true}},
		{"hwtstamp", ebpf.SchedCLS, 0, Op{Off: 184, Size: 8}, rewriteResult{4, true}},
		{"tstamp read", ebpf.SchedCLS, 0, Op{Off: 152, Size: 8}, rewriteResult{8, true}},
		{"tstamp write", ebpf.SchedCLS, 0, Op{Off: 152, Size: 8, Store: true}, rewriteResult{6, true}},
		{"tstamp read with tstamp_type read", ebpf.SchedCLS, 0, Op{Off: 152, Size: 8, TstampTypeAccess: true}, len1},
		{"tstamp in cgroup skb", ebpf.CGroupSKB, 0, Op{Off: 152, Size: 8, TstampTypeAccess: true}, rewriteResult{8, true}},
		{"tstamp_type", ebpf.SchedCLS, 0, Op{Off: 180, Size: 1}, len2},
		{"sign-extended data", ebpf.SchedCLS, 0, Op{Off: 76, Size: 4, SignExt: true}, unmodelled},
		{"sk_skb data_end", ebpf.SkSKB, 0, Op{Off: 80, Size: 4}, rewriteResult{5, true}},
		{"sk_skb data_end into its base", ebpf.SkSKB, 0, Op{Off: 80, Size: 4, SameReg: true}, rewriteResult{9, true}},
		{"mark write refused", ebpf.SkSKB, 0, Op{Off: 8, Size: 4, Store: true}, unmodelled},
		{"flow keys", ebpf.FlowDissector, 0, Op{Off: 144, Size: 8}, len1},
		{"xdp ingress_ifindex", ebpf.XDP, 0, Op{Off: 12, Size: 4}, len3},
		{"xdp rx_queue_index", ebpf.XDP, 0, Op{Off: 16, Size: 4}, len2},
		{"xdp store refused", ebpf.XDP, 0, Op{Off: 12, Size: 4, Store: true}, unmodelled},
		{"sock_addr user_ip4", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, Op{Off: 4, Size: 4}, len2},
		{"sock_addr user_ip4 store", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, Op{Off: 4, Size: 4, Store: true}, rewriteResult{4, true}},
		{"sock_addr user_ip4 second byte", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, Op{Off: 5, Size: 1}, rewriteResult{4, true}},
		{"sock_addr user_ip6 wide", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Connect, Op{Off: 16, Size: 8, Store: true, Imm: true}, rewriteResult{4, true}},
		{"sock_addr user_port half", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, Op{Off: 24, Size: 2}, len2},
		{"sock_ops op", ebpf.SockOps, 0, Op{Off: 0, Size: 4}, len1},
		{"sock_ops snd_cwnd", ebpf.SockOps, 0, Op{Off: 76, Size: 4}, rewriteResult{4, true}},
		{"sock_ops snd_cwnd into its base", ebpf.SockOps, 0, Op{Off: 76, Size: 4, SameReg: true}, rewriteResult{9, true}},
		{"sock_ops rtt_min", ebpf.SockOps, 0, Op{Off: 92, Size: 4}, rewriteResult{4, true}},
		{"sock_ops rtt_min into its base", ebpf.SockOps, 0, Op{Off: 92, Size: 4, SameReg: true}, rewriteResult{9, true}},
		{"sock_ops rtt_min unchecked", ebpf.SockOps, 0, Op{Off: 92, Size: 4, SameReg: true, RttMinUnchecked: true}, len2},
		{"sock_ops rtt_min unchecked, sign-extended", ebpf.SockOps, 0, Op{Off: 92, Size: 4, SignExt: true, RttMinUnchecked: true}, len3},
		{"sock_ops sk_txhash store", ebpf.SockOps, 0, Op{Off: 164, Size: 4, Store: true}, rewriteResult{6, true}},
		{"sock_ops sk", ebpf.SockOps, 0, Op{Off: 184, Size: 8}, len3},
		{"sock_ops sk into its base", ebpf.SockOps, 0, Op{Off: 184, Size: 8, SameReg: true}, rewriteResult{8, true}},
		{"sock_ops skb_tcp_flags byte", ebpf.SockOps, 0, Op{Off: 212, Size: 1}, rewriteResult{4, true}},
		{"sock_ops skb_hwtstamp", ebpf.SockOps, 0, Op{Off: 216, Size: 8}, rewriteResult{6, true}},
		{"sk_msg remote_port", ebpf.SkMsg, 0, Op{Off: 60, Size: 4}, len3},
		{"sk_lookup remote_ip6", ebpf.SkLookup, ebpf.AttachSkLookup, Op{Off: 24, Size: 4}, len3},
		{"sk_lookup port padding, second byte", ebpf.SkLookup, ebpf.AttachSkLookup, Op{Off: 39, Size: 1}, len3},
		{"sysctl file_pos store", ebpf.CGroupSysctl, ebpf.AttachCGroupSysctl, Op{Off: 4, Size: 4, Store: true}, rewriteResult{4, true}},
		{"sockopt retval store", ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt, Op{Off: 36, Size: 4, Store: true}, rewriteResult{5, true}},
		{"reuseport bind_inany is a bool", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, Op{Off: 28, Size: 1}, len1},
		{"perf sample_period upper half", ebpf.PerfEvent, 0, Op{Off: 172, Size: 4}, rewriteResult{4, true}},
		{"perf register", ebpf.PerfEvent, 0, Op{Off: 16, Size: 8}, len2},
		{"cgroup sock rx_queue_mapping", ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate, Op{Off: 76, Size: 4}, len3},
		{"kprobe: no callback", ebpf.Kprobe, 0, Op{Off: 16, Size: 8}, len1},
		{"tracepoint sign-extended: no callback", ebpf.TracePoint, 0, Op{Off: 16, Size: 4, SignExt: true}, len1},
		{"cgroup device: no callback", ebpf.CGroupDevice, ebpf.AttachCGroupDevice, Op{Off: 0, Size: 1}, len1},
		{"tracing: no layout", ebpf.Tracing, ebpf.AttachTraceFEntry, Op{Off: 0, Size: 8}, unmodelled},
		{"immediate that is no store", ebpf.SocketFilter, 0, Op{Off: 0, Size: 4, Imm: true}, unmodelled},
	}
	for _, tt := range tests {
		n, ok := RewriteLen(tt.pt, tt.at, tt.op)
		if diff := cmp.Diff(tt.want, rewriteResult{n, ok}); diff != "" {
			t.Errorf("%s: RewriteLen(%v, %v, %+v) mismatch (-want +got):\n%s", tt.name, tt.pt, tt.at, tt.op, diff)
		}
	}
}

func TestCtxSockRewriteLen(t *testing.T) {
	len1 := rewriteResult{1, true}
	tests := []struct {
		name string
		kind SockKind
		op   Op
		want rewriteResult
	}{
		{"family", Sock, Op{Off: 4, Size: 4}, len1},
		{"family low byte", Sock, Op{Off: 4, Size: 1}, rewriteResult{2, true}},
		{"dst_port as 4 bytes", Sock, Op{Off: 48, Size: 4}, len1},
		{"dst_port second byte", Sock, Op{Off: 49, Size: 1}, rewriteResult{3, true}},
		{"src_ip6 word", Sock, Op{Off: 32, Size: 4, SignExt: true}, rewriteResult{2, true}},
		{"state is a byte", Sock, Op{Off: 72, Size: 1}, len1},
		{"rx_queue_mapping", Sock, Op{Off: 76, Size: 4}, rewriteResult{3, true}},
		{"type of a sock_common", SockCommonPtr, Op{Off: 8, Size: 4}, rewriteResult{}},
		{"store", Sock, Op{Off: 16, Size: 4, Store: true}, rewriteResult{}},
		{"tcp snd_cwnd", TCPSock, Op{Off: 4, Size: 4}, len1},
		{"tcp bytes_acked", TCPSock, Op{Off: 88, Size: 8}, len1},
		{"tcp bytes_received upper half: no case", TCPSock, Op{Off: 84, Size: 4}, rewriteResult{}},
		{"xdp queue_id", XDPSock, Op{Off: 0, Size: 4}, len1},
		{"no kind", SockInvalid, Op{Off: 0, Size: 4}, rewriteResult{}},
	}
	for _, tt := range tests {
		n, ok := SockRewriteLen(tt.kind, tt.op)
		if diff := cmp.Diff(tt.want, rewriteResult{n, ok}); diff != "" {
			t.Errorf("%s: SockRewriteLen(%d, %+v) mismatch (-want +got):\n%s", tt.name, tt.kind, tt.op, diff)
		}
	}
}

func TestCtxPrologueLen(t *testing.T) {
	tests := []struct {
		pt          ebpf.ProgramType
		directWrite bool
		want        rewriteResult
	}{
		{ebpf.SchedCLS, true, rewriteResult{uncloneProlog, true}},
		{ebpf.SchedCLS, false, rewriteResult{0, true}},
		{ebpf.SchedACT, true, rewriteResult{uncloneProlog, true}},
		{ebpf.LWTXmit, true, rewriteResult{uncloneProlog, true}},
		{ebpf.SkSKB, true, rewriteResult{uncloneProlog, true}},
		{ebpf.XDP, true, rewriteResult{0, true}},
		{ebpf.SkMsg, true, rewriteResult{0, true}},
		{ebpf.CGroupSockopt, false, rewriteResult{0, true}},
		{ebpf.Kprobe, false, rewriteResult{0, true}},
		{ebpf.Tracing, false, rewriteResult{}},
	}
	for _, tt := range tests {
		n, ok := PrologueLen(tt.pt, 0, tt.directWrite)
		if diff := cmp.Diff(tt.want, rewriteResult{n, ok}); diff != "" {
			t.Errorf("PrologueLen(%v, direct write %v) mismatch (-want +got):\n%s", tt.pt, tt.directWrite, diff)
		}
	}
}

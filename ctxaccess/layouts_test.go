package ctxaccess

import (
	"testing"

	"github.com/cilium/ebpf"
	"github.com/google/go-cmp/cmp"
)

func TestCtxLayout(t *testing.T) {
	type res struct {
		Access Access
		OK     bool
	}
	scalar := res{Access{Kind: Scalar}, true}
	reject := res{}
	tests := []struct {
		name      string
		pt        ebpf.ProgramType
		at        ebpf.AttachType
		off, size int
		write     bool
		want      res
	}{
		{"xdp data", ebpf.XDP, ebpf.AttachXDP, 0, 4, false, res{Access{Kind: Packet}, true}},
		{"xdp data_end", ebpf.XDP, ebpf.AttachXDP, 4, 4, false, res{Access{Kind: PacketEnd}, true}},
		{"xdp data_meta", ebpf.XDP, ebpf.AttachXDP, 8, 4, false, res{Access{Kind: PacketMeta}, true}},
		{"xdp narrow", ebpf.XDP, ebpf.AttachXDP, 2, 2, false, reject},
		{"xdp ifindex", ebpf.XDP, ebpf.AttachXDP, 12, 4, false, scalar},
		{"xdp egress outside devmap", ebpf.XDP, ebpf.AttachXDP, 20, 4, false, reject},
		{"xdp egress in devmap", ebpf.XDP, ebpf.AttachXDPDevMap, 20, 4, false, scalar},
		{"xdp past end", ebpf.XDP, ebpf.AttachXDP, 24, 4, false, reject},
		{"xdp write", ebpf.XDP, ebpf.AttachXDP, 12, 4, true, reject},
		{"sk_filter len", ebpf.SocketFilter, 0, 0, 4, false, scalar},
		{"sk_filter len narrow", ebpf.SocketFilter, 0, 2, 2, false, scalar},
		{"sk_filter len wide", ebpf.SocketFilter, 0, 0, 8, false, reject},
		{"sk_filter data", ebpf.SocketFilter, 0, 76, 4, false, reject},
		{"sk_filter data_end", ebpf.SocketFilter, 0, 80, 4, false, reject},
		{"sk_filter cb write", ebpf.SocketFilter, 0, 48, 4, true, scalar},
		{"sk_filter cb 8-byte write", ebpf.SocketFilter, 0, 56, 8, true, scalar},
		{"sk_filter cb overrun", ebpf.SocketFilter, 0, 64, 8, false, reject},
		{"sk_filter mark write", ebpf.SocketFilter, 0, 8, 4, true, reject},
		{"sk_filter sk", ebpf.SocketFilter, 0, 168, 8, false, res{Access{Kind: SockCommon, MaybeNull: true}, true}},
		{"tc data", ebpf.SchedCLS, 0, 76, 4, false, res{Access{Kind: Packet}, true}},
		{"tc data_meta", ebpf.SchedCLS, 0, 140, 4, false, res{Access{Kind: PacketMeta}, true}},
		{"tc data narrow", ebpf.SchedCLS, 0, 76, 2, false, reject},
		{"tc mark write", ebpf.SchedCLS, 0, 8, 4, true, scalar},
		{"tc tc_classid write", ebpf.SchedACT, 0, 72, 4, true, scalar},
		{"tc len write", ebpf.SchedCLS, 0, 0, 4, true, reject},
		{"tc family", ebpf.SchedCLS, 0, 88, 4, false, reject},
		{"tc tstamp_type", ebpf.SchedCLS, 0, 180, 1, false, scalar},
		{"cgroup skb data", ebpf.CGroupSKB, 0, 76, 4, false, res{Access{Kind: Packet}, true}},
		{"cgroup skb family", ebpf.CGroupSKB, 0, 88, 4, false, scalar},
		{"sk_skb mark", ebpf.SkSKB, 0, 8, 4, false, reject},
		{"flow keys", ebpf.FlowDissector, 0, 144, 8, false, res{Access{Kind: FlowKeys}, true}},
		{"kprobe regs", ebpf.Kprobe, 0, 112, 8, false, scalar},
		{"kprobe end", ebpf.Kprobe, 0, 168, 8, false, reject},
		{"kprobe write", ebpf.Kprobe, 0, 0, 8, true, reject},
		{"tracepoint header", ebpf.TracePoint, 0, 0, 4, false, reject},
		{"tracepoint field", ebpf.TracePoint, 0, 16, 8, false, scalar},
		{"raw tp arg", ebpf.RawTracepoint, 0, 88, 8, false, scalar},
		{"raw tp past args", ebpf.RawTracepoint, 0, 96, 8, false, reject},
		{"perf sample_period narrow", ebpf.PerfEvent, 0, 168, 4, false, scalar},
		{"perf regs narrow", ebpf.PerfEvent, 0, 0, 4, false, reject},
		{"sock create mark write", ebpf.CGroupSock, ebpf.AttachCGroupInetSockCreate, 16, 4, true, scalar},
		{"sock post_bind mark", ebpf.CGroupSock, ebpf.AttachCGroupInet4PostBind, 16, 4, false, reject},
		{"sock post_bind src_ip4", ebpf.CGroupSock, ebpf.AttachCGroupInet4PostBind, 24, 4, false, scalar},
		{"sockaddr ip6 wide", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Connect, 8, 8, true, scalar},
		{"sockaddr ip4 on ip6 hook", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet6Connect, 4, 4, false, reject},
		{"sockaddr sk", ebpf.CGroupSockAddr, ebpf.AttachCGroupInet4Connect, 64, 8, false, res{Access{Kind: Socket}, true}},
		{"sock_ops reply write", ebpf.SockOps, 0, 4, 4, true, scalar},
		{"sock_ops skb_data", ebpf.SockOps, 0, 192, 8, false, res{Access{Kind: Packet}, true}},
		{"sk_msg data", ebpf.SkMsg, 0, 0, 8, false, res{Access{Kind: Packet}, true}},
		{"sk_lookup sk", ebpf.SkLookup, ebpf.AttachSkLookup, 0, 8, false, res{Access{Kind: Socket, MaybeNull: true}, true}},
		{"sk_lookup remote_port wide", ebpf.SkLookup, ebpf.AttachSkLookup, 36, 4, false, scalar},
		{"sysctl write flag write", ebpf.CGroupSysctl, ebpf.AttachCGroupSysctl, 0, 4, true, reject},
		{"sysctl file_pos write", ebpf.CGroupSysctl, ebpf.AttachCGroupSysctl, 4, 4, true, scalar},
		{"sockopt retval on set", ebpf.CGroupSockopt, ebpf.AttachCGroupSetsockopt, 36, 4, false, reject},
		{"sockopt optval", ebpf.CGroupSockopt, ebpf.AttachCGroupGetsockopt, 8, 8, false, res{Access{Kind: Packet}, true}},
		{"reuseport data", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 0, 8, false, res{Access{Kind: Packet}, true}},
		{"reuseport data_end narrow", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 8, 4, false, reject},
		{"reuseport len byte", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 17, 1, false, scalar},
		{"reuseport eth_protocol byte", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 20, 1, false, reject},
		{"reuseport eth_protocol half", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 22, 2, false, scalar},
		{"reuseport hash half", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 32, 2, false, reject},
		{"reuseport padding", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 36, 4, false, reject},
		{"reuseport sk", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 40, 8, false, res{Access{Kind: Socket}, true}},
		{"reuseport migrating_sk", ebpf.SkReuseport, ebpf.AttachSkReuseportSelectOrMigrate, 48, 8, false,
			res{Access{Kind: SockCommon, MaybeNull: true}, true}},
		{"reuseport write", ebpf.SkReuseport, ebpf.AttachSkReuseportSelect, 16, 4, true, reject},
		{"raw_tp.w buffer", ebpf.RawTracepointWritable, 0, 0, 8, false, res{Access{Kind: TPBuffer}, true}},
		{"raw_tp.w buffer narrow", ebpf.RawTracepointWritable, 0, 0, 4, false, reject},
		{"raw_tp.w arg", ebpf.RawTracepointWritable, 0, 8, 4, false, scalar},
		{"raw_tp.w write", ebpf.RawTracepointWritable, 0, 8, 8, true, reject},
		{"netfilter state", ebpf.Netfilter, ebpf.AttachNetfilter, 0, 8, false, res{Access{Kind: BTFID, BTFStruct: "nf_hook_state"}, true}},
		{"netfilter skb", ebpf.Netfilter, ebpf.AttachNetfilter, 8, 8, false, res{Access{Kind: BTFID, BTFStruct: "sk_buff"}, true}},
		{"netfilter skb misaligned", ebpf.Netfilter, ebpf.AttachNetfilter, 12, 8, false, reject},
		{"netfilter skb narrow", ebpf.Netfilter, ebpf.AttachNetfilter, 8, 4, false, reject},
		{"netfilter past end", ebpf.Netfilter, ebpf.AttachNetfilter, 16, 8, false, reject},
	}
	for _, tt := range tests {
		check, _ := Layout(tt.pt)
		if check == nil {
			t.Errorf("%s: no layout for %v", tt.name, tt.pt)
			continue
		}
		acc, ok := check(tt.off, tt.size, tt.write, tt.at)
		got := res{OK: ok}
		if ok {
			got.Access = acc
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: off=%d size=%d write=%v mismatch (-want +got):\n%s", tt.name, tt.off, tt.size, tt.write, diff)
		}
	}
}

func TestCtxLayoutUnmodelled(t *testing.T) {
	for _, pt := range []ebpf.ProgramType{ebpf.LSM, ebpf.StructOps, ebpf.Tracing, ebpf.Extension} {
		if check, size := Layout(pt); check != nil || size != 0 {
			t.Errorf("ctxLayout(%v) = (%v, %d), want (nil, 0)", pt, check != nil, size)
		}
	}
}

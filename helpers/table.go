package helpers

// The helper table: the prototype of every helper function of the Linux 6.18
// UAPI (ids 1 to 211; the list is frozen, new kernel functions are kfuncs),
// written as data from each helper's bpf_func_proto.
//
// Where the kernel has several prototypes for one helper id (for instance
// bpf_get_socket_cookie takes the context in socket programs but a BTF socket
// in tracing programs, and bpf_sk_assign takes a full socket or NULL in
// sk_lookup programs), the table holds the flavour used by networking
// programs, and helperVariants the others with the program types that use
// them (For picks one). Where the flavours differ in strictness
// the table holds the stricter one, so that a program type missing from the
// variants is rejected rather than accepted. The variants differ in argument
// kinds (the socket, context or BTF pointer a helper takes) and in GPLOnly
// (bpf_get_stackid is free for perf_event programs, bpf_get_func_ip for
// multi-kprobes).
//
// ChangesPktData follows the kernel's bpf_helper_changes_pkt_data, but for
// bpf_tail_call, which that list holds and this table does not: a tail call
// only invalidates packet pointers when it happens inside a subprogram (the
// verifier's subprogram summary counts it, see verifier.callEffect).

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// AttachTraceUprobeSession is BPF_TRACE_UPROBE_SESSION (6.13), the attach
// type of SEC("uprobe.session") kprobe programs, which cilium/ebpf v0.22
// knows internally but does not export.
const AttachTraceUprobeSession = ebpf.AttachType(57)

// MaxID is the highest helper id of the 6.18 UAPI
// (BPF_FUNC_cgrp_storage_delete).
const MaxID = int32(asm.FnCgrpStorageDelete)

// Lookup returns the prototype of helper id, or false when id is not a
// helper of the 6.18 UAPI (the kernel then says "invalid func unknown#%d").
func Lookup(id int32) (*Proto, bool) {
	if id <= 0 || id > MaxID {
		return nil, false
	}
	p := &helperTable[id]
	if p.ID != id {
		return nil, false
	}
	return p, true
}

// helperTable is indexed by helper id; entry 0 (BPF_FUNC_unspec) is empty.
// Sizes in ArgSize are the fixed sizes of PtrToFixedMem arguments: 20 bytes
// for struct iphdr and struct tcphdr, 40 for struct ipv6hdr.
var helperTable = [MaxID + 1]Proto{
	1:   {Name: "bpf_map_lookup_elem", ID: 1, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey}, PktAccess: true},
	2:   {Name: "bpf_map_update_elem", ID: 2, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey, ArgPtrToMapValue, ArgAnything}, PktAccess: true},
	3:   {Name: "bpf_map_delete_elem", ID: 3, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey}, PktAccess: true},
	4:   {Name: "bpf_probe_read", ID: 4, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	5:   {Name: "bpf_ktime_get_ns", ID: 5, Ret: RetInteger},
	6:   {Name: "bpf_trace_printk", ID: 6, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMem, ArgConstSize}, GPLOnly: true},
	7:   {Name: "bpf_get_prandom_u32", ID: 7, Ret: RetInteger},
	8:   {Name: "bpf_get_smp_processor_id", ID: 8, Ret: RetInteger},
	9:   {Name: "bpf_skb_store_bytes", ID: 9, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToMem, ArgConstSize, ArgAnything}, ChangesPktData: true},
	10:  {Name: "bpf_l3_csum_replace", ID: 10, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgAnything, ArgAnything}, ChangesPktData: true},
	11:  {Name: "bpf_l4_csum_replace", ID: 11, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgAnything, ArgAnything}, ChangesPktData: true},
	12:  {Name: "bpf_tail_call", ID: 12, Ret: RetVoid, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything}},
	13:  {Name: "bpf_clone_redirect", ID: 13, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}, ChangesPktData: true},
	14:  {Name: "bpf_get_current_pid_tgid", ID: 14, Ret: RetInteger},
	15:  {Name: "bpf_get_current_uid_gid", ID: 15, Ret: RetInteger},
	16:  {Name: "bpf_get_current_comm", ID: 16, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSize}},
	17:  {Name: "bpf_get_cgroup_classid", ID: 17, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	18:  {Name: "bpf_skb_vlan_push", ID: 18, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}, ChangesPktData: true},
	19:  {Name: "bpf_skb_vlan_pop", ID: 19, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}, ChangesPktData: true},
	20:  {Name: "bpf_skb_get_tunnel_key", ID: 20, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToUninitMem, ArgConstSize, ArgAnything}},
	21:  {Name: "bpf_skb_set_tunnel_key", ID: 21, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSize, ArgAnything}},
	22:  {Name: "bpf_perf_event_read", ID: 22, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgAnything}, GPLOnly: true},
	23:  {Name: "bpf_redirect", ID: 23, Ret: RetInteger, Args: [5]ArgType{ArgAnything, ArgAnything}},
	24:  {Name: "bpf_get_route_realm", ID: 24, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	25:  {Name: "bpf_perf_event_output", ID: 25, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything, ArgPtrToMem, ArgConstSizeOrZero}, GPLOnly: true},
	26:  {Name: "bpf_skb_load_bytes", ID: 26, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToUninitMem, ArgConstSize}},
	27:  {Name: "bpf_get_stackid", ID: 27, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything}, GPLOnly: true},
	28:  {Name: "bpf_csum_diff", ID: 28, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMemOrNull, ArgConstSizeOrZero, ArgPtrToMemOrNull, ArgConstSizeOrZero, ArgAnything}, PktAccess: true},
	29:  {Name: "bpf_skb_get_tunnel_opt", ID: 29, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToUninitMem, ArgConstSize}},
	30:  {Name: "bpf_skb_set_tunnel_opt", ID: 30, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSize}},
	31:  {Name: "bpf_skb_change_proto", ID: 31, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}, ChangesPktData: true},
	32:  {Name: "bpf_skb_change_type", ID: 32, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	33:  {Name: "bpf_skb_under_cgroup", ID: 33, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything}},
	34:  {Name: "bpf_get_hash_recalc", ID: 34, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	35:  {Name: "bpf_get_current_task", ID: 35, Ret: RetInteger, GPLOnly: true},
	36:  {Name: "bpf_probe_write_user", ID: 36, Ret: RetInteger, Args: [5]ArgType{ArgAnything, ArgPtrToMem, ArgConstSize}, GPLOnly: true},
	37:  {Name: "bpf_current_task_under_cgroup", ID: 37, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgAnything}},
	38:  {Name: "bpf_skb_change_tail", ID: 38, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}, ChangesPktData: true},
	39:  {Name: "bpf_skb_pull_data", ID: 39, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}, ChangesPktData: true},
	40:  {Name: "bpf_csum_update", ID: 40, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	41:  {Name: "bpf_set_hash_invalid", ID: 41, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	42:  {Name: "bpf_get_numa_node_id", ID: 42, Ret: RetInteger},
	43:  {Name: "bpf_skb_change_head", ID: 43, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}, ChangesPktData: true},
	44:  {Name: "bpf_xdp_adjust_head", ID: 44, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}, ChangesPktData: true},
	45:  {Name: "bpf_probe_read_str", ID: 45, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	46:  {Name: "bpf_get_socket_cookie", ID: 46, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	47:  {Name: "bpf_get_socket_uid", ID: 47, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	48:  {Name: "bpf_set_hash", ID: 48, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	49:  {Name: "bpf_setsockopt", ID: 49, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgPtrToMem, ArgConstSize}},
	50:  {Name: "bpf_skb_adjust_room", ID: 50, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgAnything}, ChangesPktData: true},
	51:  {Name: "bpf_redirect_map", ID: 51, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgAnything, ArgAnything}},
	52:  {Name: "bpf_sk_redirect_map", ID: 52, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything, ArgAnything}},
	53:  {Name: "bpf_sock_map_update", ID: 53, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgPtrToMapKey, ArgAnything}, PktAccess: true},
	54:  {Name: "bpf_xdp_adjust_meta", ID: 54, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}, ChangesPktData: true},
	55:  {Name: "bpf_perf_event_read_value", ID: 55, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgAnything, ArgPtrToUninitMem, ArgConstSize}, GPLOnly: true},
	56:  {Name: "bpf_perf_prog_read_value", ID: 56, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToUninitMem, ArgConstSize}, GPLOnly: true},
	57:  {Name: "bpf_getsockopt", ID: 57, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgPtrToUninitMem, ArgConstSize}},
	58:  {Name: "bpf_override_return", ID: 58, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}, GPLOnly: true},
	59:  {Name: "bpf_sock_ops_cb_flags_set", ID: 59, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	60:  {Name: "bpf_msg_redirect_map", ID: 60, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything, ArgAnything}},
	61:  {Name: "bpf_msg_apply_bytes", ID: 61, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	62:  {Name: "bpf_msg_cork_bytes", ID: 62, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	63:  {Name: "bpf_msg_pull_data", ID: 63, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgAnything}, ChangesPktData: true},
	64:  {Name: "bpf_bind", ID: 64, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSize}},
	65:  {Name: "bpf_xdp_adjust_tail", ID: 65, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}, ChangesPktData: true},
	66:  {Name: "bpf_skb_get_xfrm_state", ID: 66, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToUninitMem, ArgConstSize, ArgAnything}},
	67:  {Name: "bpf_get_stack", ID: 67, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	68:  {Name: "bpf_skb_load_bytes_relative", ID: 68, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToUninitMem, ArgConstSize, ArgAnything}},
	69:  {Name: "bpf_fib_lookup", ID: 69, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToWritableMem, ArgConstSize, ArgAnything}, GPLOnly: true},
	70:  {Name: "bpf_sock_hash_update", ID: 70, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgPtrToMapKey, ArgAnything}, PktAccess: true},
	71:  {Name: "bpf_msg_redirect_hash", ID: 71, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgPtrToMapKey, ArgAnything}},
	72:  {Name: "bpf_sk_redirect_hash", ID: 72, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgPtrToMapKey, ArgAnything}},
	73:  {Name: "bpf_lwt_push_encap", ID: 73, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToMem, ArgConstSize}, ChangesPktData: true},
	74:  {Name: "bpf_lwt_seg6_store_bytes", ID: 74, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToMem, ArgConstSize}, ChangesPktData: true},
	75:  {Name: "bpf_lwt_seg6_adjust_srh", ID: 75, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}, ChangesPktData: true},
	76:  {Name: "bpf_lwt_seg6_action", ID: 76, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToMem, ArgConstSize}, ChangesPktData: true},
	77:  {Name: "bpf_rc_repeat", ID: 77, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}, GPLOnly: true},
	78:  {Name: "bpf_rc_keydown", ID: 78, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgAnything}, GPLOnly: true},
	79:  {Name: "bpf_skb_cgroup_id", ID: 79, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	80:  {Name: "bpf_get_current_cgroup_id", ID: 80, Ret: RetInteger},
	81:  {Name: "bpf_get_local_storage", ID: 81, Ret: RetPtrToMapValue, Args: [5]ArgType{ArgConstMapPtr, ArgAnything}},
	82:  {Name: "bpf_sk_select_reuseport", ID: 82, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgPtrToMapKey, ArgAnything}},
	83:  {Name: "bpf_skb_ancestor_cgroup_id", ID: 83, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	84:  {Name: "bpf_sk_lookup_tcp", ID: 84, Ret: RetPtrToSocketOrNull, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSizeOrZero, ArgAnything, ArgAnything}, PktAccess: true, Acquire: true},
	85:  {Name: "bpf_sk_lookup_udp", ID: 85, Ret: RetPtrToSocketOrNull, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSizeOrZero, ArgAnything, ArgAnything}, PktAccess: true, Acquire: true},
	86:  {Name: "bpf_sk_release", ID: 86, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommon}, ReleaseArg: 1},
	87:  {Name: "bpf_map_push_elem", ID: 87, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapValue, ArgAnything}, PktAccess: true},
	88:  {Name: "bpf_map_pop_elem", ID: 88, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToUninitMapValue}},
	89:  {Name: "bpf_map_peek_elem", ID: 89, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToUninitMapValue}},
	90:  {Name: "bpf_msg_push_data", ID: 90, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgAnything}, ChangesPktData: true},
	91:  {Name: "bpf_msg_pop_data", ID: 91, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything, ArgAnything}, ChangesPktData: true},
	92:  {Name: "bpf_rc_pointer_rel", ID: 92, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}, GPLOnly: true},
	93:  {Name: "bpf_spin_lock", ID: 93, Ret: RetVoid, Args: [5]ArgType{ArgPtrToSpinLock}},
	94:  {Name: "bpf_spin_unlock", ID: 94, Ret: RetVoid, Args: [5]ArgType{ArgPtrToSpinLock}},
	95:  {Name: "bpf_sk_fullsock", ID: 95, Ret: RetPtrToSocketOrNull, Args: [5]ArgType{ArgPtrToSockCommon}},
	96:  {Name: "bpf_tcp_sock", ID: 96, Ret: RetPtrToTCPSockOrNull, Args: [5]ArgType{ArgPtrToSockCommon}},
	97:  {Name: "bpf_skb_ecn_set_ce", ID: 97, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	98:  {Name: "bpf_get_listener_sock", ID: 98, Ret: RetPtrToSocketOrNull, Args: [5]ArgType{ArgPtrToSockCommon}},
	99:  {Name: "bpf_skc_lookup_tcp", ID: 99, Ret: RetPtrToSockCommonOrNull, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSizeOrZero, ArgAnything, ArgAnything}, PktAccess: true, Acquire: true},
	100: {Name: "bpf_tcp_check_syncookie", ID: 100, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommon, ArgPtrToMem, ArgConstSize, ArgPtrToMem, ArgConstSize}, PktAccess: true, GPLOnly: true},
	101: {Name: "bpf_sysctl_get_name", ID: 101, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToWritableMem, ArgConstSize, ArgAnything}},
	102: {Name: "bpf_sysctl_get_current_value", ID: 102, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToUninitMem, ArgConstSize}},
	103: {Name: "bpf_sysctl_get_new_value", ID: 103, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToUninitMem, ArgConstSize}},
	104: {Name: "bpf_sysctl_set_new_value", ID: 104, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSize}},
	105: {Name: "bpf_strtol", ID: 105, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMem, ArgConstSize, ArgAnything, ArgPtrToLong}},
	106: {Name: "bpf_strtoul", ID: 106, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMem, ArgConstSize, ArgAnything, ArgPtrToLong}},
	107: {Name: "bpf_sk_storage_get", ID: 107, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDSockCommon, ArgPtrToMapValueOrNull, ArgAnything}},
	108: {Name: "bpf_sk_storage_delete", ID: 108, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDSockCommon}},
	109: {Name: "bpf_send_signal", ID: 109, Ret: RetInteger, Args: [5]ArgType{ArgAnything}},
	110: {Name: "bpf_tcp_gen_syncookie", ID: 110, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommon, ArgPtrToMem, ArgConstSize, ArgPtrToMem, ArgConstSize}, PktAccess: true, GPLOnly: true},
	111: {Name: "bpf_skb_output", ID: 111, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgConstMapPtr, ArgAnything, ArgPtrToMem, ArgConstSizeOrZero}, ArgBTFName: [5]string{"sk_buff"}, GPLOnly: true},
	112: {Name: "bpf_probe_read_user", ID: 112, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	113: {Name: "bpf_probe_read_kernel", ID: 113, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	114: {Name: "bpf_probe_read_user_str", ID: 114, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	115: {Name: "bpf_probe_read_kernel_str", ID: 115, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	116: {Name: "bpf_tcp_send_ack", ID: 116, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgAnything}, ArgBTFName: [5]string{"tcp_sock"}},
	117: {Name: "bpf_send_signal_thread", ID: 117, Ret: RetInteger, Args: [5]ArgType{ArgAnything}},
	118: {Name: "bpf_jiffies64", ID: 118, Ret: RetInteger},
	119: {Name: "bpf_read_branch_records", ID: 119, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToWritableMemOrNull, ArgConstSizeOrZero, ArgAnything}, GPLOnly: true},
	120: {Name: "bpf_get_ns_current_pid_tgid", ID: 120, Ret: RetInteger, Args: [5]ArgType{ArgAnything, ArgAnything, ArgPtrToUninitMem, ArgConstSize}},
	121: {Name: "bpf_xdp_output", ID: 121, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgConstMapPtr, ArgAnything, ArgPtrToMem, ArgConstSizeOrZero}, ArgBTFName: [5]string{"xdp_buff"}, GPLOnly: true},
	122: {Name: "bpf_get_netns_cookie", ID: 122, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtxOrNull}},
	123: {Name: "bpf_get_current_ancestor_cgroup_id", ID: 123, Ret: RetInteger, Args: [5]ArgType{ArgAnything}},
	124: {Name: "bpf_sk_assign", ID: 124, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToBTFIDSockCommon, ArgAnything}},
	125: {Name: "bpf_ktime_get_boot_ns", ID: 125, Ret: RetInteger},
	126: {Name: "bpf_seq_printf", ID: 126, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgPtrToMem, ArgConstSize, ArgPtrToMemOrNull, ArgConstSizeOrZero}, ArgBTFName: [5]string{"seq_file"}, GPLOnly: true},
	127: {Name: "bpf_seq_write", ID: 127, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgPtrToMem, ArgConstSizeOrZero}, ArgBTFName: [5]string{"seq_file"}, GPLOnly: true},
	128: {Name: "bpf_sk_cgroup_id", ID: 128, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommon}},
	129: {Name: "bpf_sk_ancestor_cgroup_id", ID: 129, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommon, ArgAnything}},
	130: {Name: "bpf_ringbuf_output", ID: 130, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMem, ArgConstSizeOrZero, ArgAnything}},
	131: {Name: "bpf_ringbuf_reserve", ID: 131, Ret: RetPtrToAllocMemOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgConstAllocSizeOrZero, ArgAnything}, Acquire: true},
	132: {Name: "bpf_ringbuf_submit", ID: 132, Ret: RetVoid, Args: [5]ArgType{ArgPtrToRingbufMem, ArgAnything}, ReleaseArg: 1},
	133: {Name: "bpf_ringbuf_discard", ID: 133, Ret: RetVoid, Args: [5]ArgType{ArgPtrToRingbufMem, ArgAnything}, ReleaseArg: 1},
	134: {Name: "bpf_ringbuf_query", ID: 134, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgAnything}},
	135: {Name: "bpf_csum_level", ID: 135, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything}},
	136: {Name: "bpf_skc_to_tcp6_sock", ID: 136, Ret: RetPtrToBTFIDOrNull, RetBTFName: "tcp6_sock", Args: [5]ArgType{ArgPtrToBTFIDSockCommon}},
	137: {Name: "bpf_skc_to_tcp_sock", ID: 137, Ret: RetPtrToBTFIDOrNull, RetBTFName: "tcp_sock", Args: [5]ArgType{ArgPtrToBTFIDSockCommon}},
	138: {Name: "bpf_skc_to_tcp_timewait_sock", ID: 138, Ret: RetPtrToBTFIDOrNull, RetBTFName: "tcp_timewait_sock", Args: [5]ArgType{ArgPtrToBTFIDSockCommon}},
	139: {Name: "bpf_skc_to_tcp_request_sock", ID: 139, Ret: RetPtrToBTFIDOrNull, RetBTFName: "tcp_request_sock", Args: [5]ArgType{ArgPtrToBTFIDSockCommon}},
	140: {Name: "bpf_skc_to_udp6_sock", ID: 140, Ret: RetPtrToBTFIDOrNull, RetBTFName: "udp6_sock", Args: [5]ArgType{ArgPtrToBTFIDSockCommon}},
	141: {Name: "bpf_get_task_stack", ID: 141, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, ArgBTFName: [5]string{"task_struct"}},
	142: {Name: "bpf_load_hdr_opt", ID: 142, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToWritableMem, ArgConstSize, ArgAnything}},
	143: {Name: "bpf_store_hdr_opt", ID: 143, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToMem, ArgConstSize, ArgAnything}, ChangesPktData: true},
	144: {Name: "bpf_reserve_hdr_opt", ID: 144, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}},
	145: {Name: "bpf_inode_storage_get", ID: 145, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull, ArgPtrToMapValueOrNull, ArgAnything}, ArgBTFName: [5]string{"", "inode"}},
	146: {Name: "bpf_inode_storage_delete", ID: 146, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull}, ArgBTFName: [5]string{"", "inode"}},
	147: {Name: "bpf_d_path", ID: 147, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgPtrToWritableMem, ArgConstSizeOrZero}, ArgBTFName: [5]string{"path"}, Gate: GateDPath},
	148: {Name: "bpf_copy_from_user", ID: 148, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything}, MightSleep: true},
	149: {Name: "bpf_snprintf_btf", ID: 149, Ret: RetInteger, Args: [5]ArgType{ArgPtrToWritableMem, ArgConstSize, ArgPtrToMem, ArgConstSize, ArgAnything}},
	150: {Name: "bpf_seq_printf_btf", ID: 150, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgPtrToMem, ArgConstSizeOrZero, ArgAnything}, ArgBTFName: [5]string{"seq_file"}, GPLOnly: true},
	151: {Name: "bpf_skb_cgroup_classid", ID: 151, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	152: {Name: "bpf_redirect_neigh", ID: 152, Ret: RetInteger, Args: [5]ArgType{ArgAnything, ArgPtrToMemOrNull, ArgConstSizeOrZero, ArgAnything}},
	153: {Name: "bpf_per_cpu_ptr", ID: 153, Ret: RetPtrToMemOrBTFID, Args: [5]ArgType{ArgPtrToPercpuBTFID, ArgAnything}},
	154: {Name: "bpf_this_cpu_ptr", ID: 154, Ret: RetPtrToMemOrBTFID, Args: [5]ArgType{ArgPtrToPercpuBTFID}},
	155: {Name: "bpf_redirect_peer", ID: 155, Ret: RetInteger, Args: [5]ArgType{ArgAnything, ArgAnything}},
	156: {Name: "bpf_task_storage_get", ID: 156, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull, ArgPtrToMapValueOrNull, ArgAnything}, ArgBTFName: [5]string{"", "task_struct"}},
	157: {Name: "bpf_task_storage_delete", ID: 157, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull}, ArgBTFName: [5]string{"", "task_struct"}},
	158: {Name: "bpf_get_current_task_btf", ID: 158, Ret: RetPtrToBTFIDTrusted, RetBTFName: "task_struct", GPLOnly: true},
	159: {Name: "bpf_bprm_opts_set", ID: 159, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgAnything}, ArgBTFName: [5]string{"linux_binprm"}},
	160: {Name: "bpf_ktime_get_coarse_ns", ID: 160, Ret: RetInteger},
	161: {Name: "bpf_ima_inode_hash", ID: 161, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgPtrToUninitMem, ArgConstSize}, ArgBTFName: [5]string{"inode"}, MightSleep: true, Gate: GateIMA},
	162: {Name: "bpf_sock_from_file", ID: 162, Ret: RetPtrToBTFIDOrNull, RetBTFName: "socket", Args: [5]ArgType{ArgPtrToBTFID}, ArgBTFName: [5]string{"file"}},
	163: {Name: "bpf_check_mtu", ID: 163, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToInt, ArgAnything, ArgAnything}, GPLOnly: true},
	164: {Name: "bpf_for_each_map_elem", ID: 164, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToFunc, ArgPtrToStackOrNull, ArgAnything}, Callback: true},
	165: {Name: "bpf_snprintf", ID: 165, Ret: RetInteger, Args: [5]ArgType{ArgPtrToWritableMemOrNull, ArgConstSizeOrZero, ArgPtrToConstStr, ArgPtrToMemOrNull, ArgConstSizeOrZero}, GPLOnly: true},
	166: {Name: "bpf_sys_bpf", ID: 166, Ret: RetInteger, Args: [5]ArgType{ArgAnything, ArgPtrToMem, ArgConstSize}, MightSleep: true},
	167: {Name: "bpf_btf_find_by_name_kind", ID: 167, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMem, ArgConstSize, ArgAnything, ArgAnything}, MightSleep: true},
	168: {Name: "bpf_sys_close", ID: 168, Ret: RetInteger, Args: [5]ArgType{ArgAnything}, MightSleep: true},
	169: {Name: "bpf_timer_init", ID: 169, Ret: RetInteger, Args: [5]ArgType{ArgPtrToTimer, ArgConstMapPtr, ArgAnything}, GPLOnly: true},
	170: {Name: "bpf_timer_set_callback", ID: 170, Ret: RetInteger, Args: [5]ArgType{ArgPtrToTimer, ArgPtrToFunc}, Callback: true, GPLOnly: true},
	171: {Name: "bpf_timer_start", ID: 171, Ret: RetInteger, Args: [5]ArgType{ArgPtrToTimer, ArgAnything, ArgAnything}, GPLOnly: true},
	172: {Name: "bpf_timer_cancel", ID: 172, Ret: RetInteger, Args: [5]ArgType{ArgPtrToTimer}, GPLOnly: true},
	173: {Name: "bpf_get_func_ip", ID: 173, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}, GPLOnly: true},
	174: {Name: "bpf_get_attach_cookie", ID: 174, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	175: {Name: "bpf_task_pt_regs", ID: 175, Ret: RetPtrToBTFID, RetBTFName: "pt_regs", Args: [5]ArgType{ArgPtrToBTFID}, ArgBTFName: [5]string{"task_struct"}, GPLOnly: true},
	176: {Name: "bpf_get_branch_snapshot", ID: 176, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero}, GPLOnly: true},
	177: {Name: "bpf_trace_vprintk", ID: 177, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMem, ArgConstSize, ArgPtrToMemOrNull, ArgConstSizeOrZero}, GPLOnly: true},
	178: {Name: "bpf_skc_to_unix_sock", ID: 178, Ret: RetPtrToBTFIDOrNull, RetBTFName: "unix_sock", Args: [5]ArgType{ArgPtrToBTFIDSockCommon}},
	179: {Name: "bpf_kallsyms_lookup_name", ID: 179, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMem, ArgConstSizeOrZero, ArgAnything, ArgPtrToLong}},
	180: {Name: "bpf_find_vma", ID: 180, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgAnything, ArgPtrToFunc, ArgPtrToStackOrNull, ArgAnything}, ArgBTFName: [5]string{"task_struct"}, Callback: true},
	181: {Name: "bpf_loop", ID: 181, Ret: RetInteger, Args: [5]ArgType{ArgAnything, ArgPtrToFunc, ArgPtrToStackOrNull, ArgAnything}, Callback: true},
	182: {Name: "bpf_strncmp", ID: 182, Ret: RetInteger, Args: [5]ArgType{ArgPtrToMem, ArgConstSize, ArgPtrToConstStr}},
	183: {Name: "bpf_get_func_arg", ID: 183, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToLong}},
	184: {Name: "bpf_get_func_ret", ID: 184, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToLong}},
	185: {Name: "bpf_get_func_arg_cnt", ID: 185, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	186: {Name: "bpf_get_retval", ID: 186, Ret: RetInteger},
	187: {Name: "bpf_set_retval", ID: 187, Ret: RetInteger, Args: [5]ArgType{ArgAnything}},
	188: {Name: "bpf_xdp_get_buff_len", ID: 188, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}},
	189: {Name: "bpf_xdp_load_bytes", ID: 189, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToUninitMem, ArgConstSize}},
	190: {Name: "bpf_xdp_store_bytes", ID: 190, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgPtrToMem, ArgConstSize}},
	191: {Name: "bpf_copy_from_user_task", ID: 191, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything, ArgPtrToBTFID, ArgAnything}, ArgBTFName: [5]string{"", "", "", "task_struct"}, GPLOnly: true, MightSleep: true},
	192: {Name: "bpf_skb_set_tstamp", ID: 192, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgAnything, ArgAnything}},
	193: {Name: "bpf_ima_file_hash", ID: 193, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID, ArgPtrToUninitMem, ArgConstSize}, ArgBTFName: [5]string{"file"}, MightSleep: true, Gate: GateIMA},
	194: {Name: "bpf_kptr_xchg", ID: 194, Ret: RetPtrToBTFIDOrNull, Args: [5]ArgType{ArgPtrToKptr, ArgPtrToBTFIDOrNull}, ReleaseArg: 2, Acquire: true},
	195: {Name: "bpf_map_lookup_percpu_elem", ID: 195, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToMapKey, ArgAnything}, PktAccess: true},
	196: {Name: "bpf_skc_to_mptcp_sock", ID: 196, Ret: RetPtrToBTFIDOrNull, RetBTFName: "mptcp_sock", Args: [5]ArgType{ArgPtrToSockCommon}},
	197: {Name: "bpf_dynptr_from_mem", ID: 197, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgAnything, ArgPtrToDynptr}},
	198: {Name: "bpf_ringbuf_reserve_dynptr", ID: 198, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgAnything, ArgAnything, ArgPtrToDynptr}},
	199: {Name: "bpf_ringbuf_submit_dynptr", ID: 199, Ret: RetVoid, Args: [5]ArgType{ArgPtrToDynptr, ArgAnything}, ReleaseArg: 1},
	200: {Name: "bpf_ringbuf_discard_dynptr", ID: 200, Ret: RetVoid, Args: [5]ArgType{ArgPtrToDynptr, ArgAnything}, ReleaseArg: 1},
	201: {Name: "bpf_dynptr_read", ID: 201, Ret: RetInteger, Args: [5]ArgType{ArgPtrToUninitMem, ArgConstSizeOrZero, ArgPtrToDynptr, ArgAnything, ArgAnything}},
	202: {Name: "bpf_dynptr_write", ID: 202, Ret: RetInteger, Args: [5]ArgType{ArgPtrToDynptr, ArgAnything, ArgPtrToMem, ArgConstSizeOrZero, ArgAnything}},
	203: {Name: "bpf_dynptr_data", ID: 203, Ret: RetPtrToDynptrMemOrNull, Args: [5]ArgType{ArgPtrToDynptr, ArgAnything, ArgConstAllocSizeOrZero}},
	204: {Name: "bpf_tcp_raw_gen_syncookie_ipv4", ID: 204, Ret: RetInteger, Args: [5]ArgType{ArgPtrToFixedMem, ArgPtrToMem, ArgConstSizeOrZero}, ArgSize: [5]int32{20, 0, 0}, GPLOnly: true, PktAccess: true},
	205: {Name: "bpf_tcp_raw_gen_syncookie_ipv6", ID: 205, Ret: RetInteger, Args: [5]ArgType{ArgPtrToFixedMem, ArgPtrToMem, ArgConstSizeOrZero}, ArgSize: [5]int32{40, 0, 0}, GPLOnly: true, PktAccess: true},
	206: {Name: "bpf_tcp_raw_check_syncookie_ipv4", ID: 206, Ret: RetInteger, Args: [5]ArgType{ArgPtrToFixedMem, ArgPtrToFixedMem}, ArgSize: [5]int32{20, 20}, GPLOnly: true, PktAccess: true},
	207: {Name: "bpf_tcp_raw_check_syncookie_ipv6", ID: 207, Ret: RetInteger, Args: [5]ArgType{ArgPtrToFixedMem, ArgPtrToFixedMem}, ArgSize: [5]int32{40, 20}, GPLOnly: true, PktAccess: true},
	208: {Name: "bpf_ktime_get_tai_ns", ID: 208, Ret: RetInteger},
	209: {Name: "bpf_user_ringbuf_drain", ID: 209, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToFunc, ArgPtrToStackOrNull, ArgAnything}, Callback: true},
	210: {Name: "bpf_cgrp_storage_get", ID: 210, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull, ArgPtrToMapValueOrNull, ArgAnything}, ArgBTFName: [5]string{"", "cgroup"}},
	211: {Name: "bpf_cgrp_storage_delete", ID: 211, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull}, ArgBTFName: [5]string{"", "cgroup"}},
}

// helperVariant is a prototype some program types use for a helper id
// instead of its helperTable entry.
type helperVariant struct {
	// types are the program types that use the variant; attach, when not
	// empty, narrows them to these expected attach types.
	types  []ebpf.ProgramType
	attach []ebpf.AttachType
	proto  Proto
}

// applies reports whether a program of type pt (attach type at) uses v.
func (v *helperVariant) applies(pt ebpf.ProgramType, at ebpf.AttachType) bool {
	found := false
	for _, t := range v.types {
		if t == pt {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	if len(v.attach) == 0 {
		return true
	}
	for _, a := range v.attach {
		if a == at {
			return true
		}
	}
	return false
}

// Program type groups the variants name.
var (
	// typesTracingLike are the program types whose helper protos come
	// from tracing_prog_func_proto: the BTF-typed tracing families, and
	// syscall programs (syscall_prog_func_proto falls back to it).
	typesTracingLike = []ebpf.ProgramType{ebpf.Tracing, ebpf.LSM, ebpf.Syscall}
	// typesCurrentClassid are the program types whose
	// bpf_get_cgroup_classid reads the current task's class id (no
	// argument): every type but the tc and lwt ones, which read the skb's.
	typesCurrentClassid = []ebpf.ProgramType{
		ebpf.SocketFilter, ebpf.Kprobe, ebpf.TracePoint, ebpf.XDP, ebpf.PerfEvent, ebpf.CGroupSKB,
		ebpf.CGroupSock, ebpf.SockOps, ebpf.SkSKB, ebpf.CGroupDevice, ebpf.SkMsg, ebpf.RawTracepoint,
		ebpf.CGroupSockAddr, ebpf.SkReuseport, ebpf.FlowDissector, ebpf.CGroupSysctl,
		ebpf.RawTracepointWritable, ebpf.CGroupSockopt, ebpf.Tracing, ebpf.LSM, ebpf.SkLookup,
		ebpf.Netfilter, ebpf.StructOps, ebpf.Syscall,
	}
)

// The socket option helpers on a BTF socket (bpf_sk_setsockopt_proto,
// bpf_sk_getsockopt_proto).
var (
	skSetsockoptProto = Proto{Name: "bpf_setsockopt", ID: 49, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommon, ArgAnything, ArgAnything, ArgPtrToMem, ArgConstSize}}
	skGetsockoptProto = Proto{Name: "bpf_getsockopt", ID: 57, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommon, ArgAnything, ArgAnything, ArgPtrToUninitMem, ArgConstSize}}
)

// helperVariants lists, per helper id, the prototypes program types use
// instead of the helperTable entry (the kernel's per-type *_func_proto
// returning a different bpf_func_proto for the same id).
var helperVariants = map[int32][]helperVariant{
	// bpf_get_stackid_proto_pe: perf_event programs may call it whatever
	// their license.
	int32(asm.FnGetStackid): {{types: []ebpf.ProgramType{ebpf.PerfEvent},
		proto: Proto{Name: "bpf_get_stackid", ID: 27, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgConstMapPtr, ArgAnything}}}},
	// bpf_get_func_ip_proto_kprobe_multi and _uprobe_multi (sessions
	// included): not GPL-only.
	int32(asm.FnGetFuncIp): {{types: []ebpf.ProgramType{ebpf.Kprobe},
		attach: []ebpf.AttachType{ebpf.AttachTraceKprobeMulti, ebpf.AttachTraceKprobeSession, ebpf.AttachTraceUprobeMulti, AttachTraceUprobeSession},
		proto:  Proto{Name: "bpf_get_func_ip", ID: 173, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx}}}},
	// bpf_get_cgroup_classid_curr_proto: the current task's class id.
	int32(asm.FnGetCgroupClassid): {{types: typesCurrentClassid,
		proto: Proto{Name: "bpf_get_cgroup_classid", ID: 17, Ret: RetInteger}}},
	// bpf_get_socket_ptr_cookie_proto: a BTF socket, or NULL (cookie 0).
	int32(asm.FnGetSocketCookie): {{types: append([]ebpf.ProgramType{ebpf.SkReuseport}, typesTracingLike...),
		proto: Proto{Name: "bpf_get_socket_cookie", ID: 46, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFIDSockCommonOrNull}}}},
	// bpf_sk_setsockopt_proto and bpf_sk_getsockopt_proto: cgroup
	// setsockopt hooks change the socket itself (ctx->sk), not the
	// context; so do the socket iterators that may call them
	// (IterTarget).
	int32(asm.FnSetsockopt): {
		{types: []ebpf.ProgramType{ebpf.CGroupSockopt, ebpf.StructOps}, proto: skSetsockoptProto},
		{types: []ebpf.ProgramType{ebpf.Tracing}, attach: []ebpf.AttachType{ebpf.AttachTraceIter}, proto: skSetsockoptProto},
	},
	int32(asm.FnGetsockopt): {
		{types: []ebpf.ProgramType{ebpf.CGroupSockopt, ebpf.StructOps}, proto: skGetsockoptProto},
		{types: []ebpf.ProgramType{ebpf.Tracing}, attach: []ebpf.AttachType{ebpf.AttachTraceIter}, proto: skGetsockoptProto},
	},
	int32(asm.FnSkStorageGet): {
		// bpf_sk_storage_get_cg_sock_proto: the context is the socket.
		{types: []ebpf.ProgramType{ebpf.CGroupSock},
			proto: Proto{Name: "bpf_sk_storage_get", ID: 107, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToCtx, ArgPtrToMapValueOrNull, ArgAnything}}},
		// bpf_sk_storage_get_tracing_proto: a BTF struct sock_common
		// (or a struct that starts with one, such as struct sock) or
		// NULL, from programs that do not trace the storage itself
		// (syscall programs get it from tracing_prog_func_proto too;
		// LSM ones have the base proto).
		{types: []ebpf.ProgramType{ebpf.Tracing, ebpf.Syscall},
			proto: Proto{Name: "bpf_sk_storage_get", ID: 107, Ret: RetPtrToMapValueOrNull, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull, ArgPtrToMapValueOrNull, ArgAnything}, ArgBTFName: [5]string{"", "sock_common"}, Gate: GateSkStorageTracing}},
	},
	// bpf_sk_storage_delete_tracing_proto.
	int32(asm.FnSkStorageDelete): {{types: []ebpf.ProgramType{ebpf.Tracing, ebpf.Syscall},
		proto: Proto{Name: "bpf_sk_storage_delete", ID: 108, Ret: RetInteger, Args: [5]ArgType{ArgConstMapPtr, ArgPtrToBTFIDOrNull}, ArgBTFName: [5]string{"", "sock_common"}, Gate: GateSkStorageTracing}}},
	// bpf_sk_lookup_assign_proto: a full socket or NULL (to clear).
	int32(asm.FnSkAssign): {{types: []ebpf.ProgramType{ebpf.SkLookup},
		proto: Proto{Name: "bpf_sk_assign", ID: 124, Ret: RetInteger, Args: [5]ArgType{ArgPtrToCtx, ArgPtrToSocketOrNull, ArgAnything}}}},
	// bpf_xdp_get_buff_len_trace_proto: a BTF struct xdp_buff.
	int32(asm.FnXdpGetBuffLen): {{types: typesTracingLike,
		proto: Proto{Name: "bpf_xdp_get_buff_len", ID: 188, Ret: RetInteger, Args: [5]ArgType{ArgPtrToBTFID}, ArgBTFName: [5]string{"xdp_buff"}}}},
}

// For returns the prototype of helper id as a program of type
// pt (attach type at) sees it: its variant for that type, or the table
// entry; false when id is not a helper of the 6.18 UAPI.
func For(pt ebpf.ProgramType, at ebpf.AttachType, id int32) (*Proto, bool) {
	p, ok := Lookup(id)
	if !ok {
		return nil, false
	}
	vs := helperVariants[id]
	for i := range vs {
		if vs[i].applies(pt, at) {
			return &vs[i].proto, true
		}
	}
	return p, true
}

// SleepsInSleepable reports whether the prototype a sleepable program of
// type pt gets for helper id may sleep where a non-sleepable program's
// does not: the tracing types' get_func_proto hands sleepable programs
// bpf_get_task_stack_sleepable_proto (bpf_tracing_func_proto, which
// kprobe, tracing, LSM and syscall programs fall back to) and, for
// kprobes (uprobe.s), bpf_get_stack_sleepable_proto
// (kprobe_prog_func_proto). Those may not run under an RCU read lock, a
// preemption or an IRQ-disabled section.
func SleepsInSleepable(pt ebpf.ProgramType, id int32) bool {
	switch id {
	case 67: // bpf_get_stack
		return pt == ebpf.Kprobe
	case 141: // bpf_get_task_stack
		return pt == ebpf.Kprobe || pt == ebpf.Tracing || pt == ebpf.LSM || pt == ebpf.Syscall
	}
	return false
}

// ArgCountFor returns, for a program of type pt (attach type at, whose
// attach target adds the helpers extra) on a kernel of build b, the number
// of arguments each helper takes as that type sees it (the kernel's call
// summary for liveness), or -1 for an id the type has no prototype for:
// an unknown id, or a helper the type may not call. The
// kernel's get_call_summary asks the type's get_func_proto, which has no
// prototype for the latter either, and compute_live_registers then takes
// the call to read r1-r5 (a call on a path the walk never takes still
// keeps those registers alive before it).
func (b Build) ArgCountFor(pt ebpf.ProgramType, at ebpf.AttachType, extra Set) func(id int32) int {
	return func(id int32) int {
		fn, ok := For(pt, at, id)
		if !ok {
			return -1
		}
		if allowed, known := b.Allowed(pt, at, extra, id); known && !allowed {
			return -1
		}
		n := 0
		for i, a := range fn.Args {
			if a != ArgDontCare {
				n = i + 1
			}
		}
		return n
	}
}

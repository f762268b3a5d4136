package verifier

// The raw tracepoints whose pointer arguments the kernel does not trust to
// be valid: a tp_btf program sees such an argument as maybe NULL, or, when
// it may carry an error value, as a plain number. This is data, from the
// kernel's raw_tp_null_args table (kernel/bpf/btf.c); a superset of the
// 6.18 list errs on the safe side.

import "github.com/vercheck/vercheck/stablefix"

// rawTPNullArgs maps a raw tracepoint to the NULL/error nibbles of its
// arguments (argument i at bits 4i..4i+3).
var rawTPNullArgs = map[string]uint64{
	"sched_pi_setprio":                      0x10,
	"sched_stick_numa":                      0x100,
	"sched_swap_numa":                       0x100,
	"afs_make_fs_call":                      0x10,
	"afs_make_fs_calli":                     0x10,
	"afs_make_fs_call1":                     0x10,
	"afs_make_fs_call2":                     0x10,
	"afs_protocol_error":                    0x1,
	"afs_flock_ev":                          0x10,
	"cachefiles_lookup":                     0x201,
	"cachefiles_unlink":                     0x1,
	"cachefiles_rename":                     0x1,
	"cachefiles_prep_read":                  0x1,
	"cachefiles_mark_active":                0x1,
	"cachefiles_mark_failed":                0x1,
	"cachefiles_mark_inactive":              0x1,
	"cachefiles_vfs_error":                  0x1,
	"cachefiles_io_error":                   0x1,
	"cachefiles_ondemand_open":              0x1,
	"cachefiles_ondemand_copen":             0x1,
	"cachefiles_ondemand_close":             0x1,
	"cachefiles_ondemand_read":              0x1,
	"cachefiles_ondemand_cread":             0x1,
	"cachefiles_ondemand_fd_write":          0x1,
	"cachefiles_ondemand_fd_release":        0x1,
	"ext4_mballoc_discard":                  0x10,
	"ext4_mballoc_free":                     0x10,
	"fib_table_lookup":                      0x100,
	"posix_lock_inode":                      0x10,
	"fcntl_setlk":                           0x10,
	"locks_remove_posix":                    0x10,
	"flock_lock_inode":                      0x10,
	"break_lease_noblock":                   0x10,
	"break_lease_block":                     0x10,
	"break_lease_unblock":                   0x10,
	"generic_delete_lease":                  0x10,
	"time_out_leases":                       0x10,
	"host1x_cdma_push_gather":               0x10000,
	"mm_khugepaged_scan_pmd":                0x10,
	"mm_collapse_huge_page_isolate":         0x1,
	"mm_khugepaged_scan_file":               0x10,
	"mm_khugepaged_collapse_file":           0x10,
	"mm_page_alloc":                         0x1,
	"mm_page_pcpu_drain":                    0x1,
	"mm_page_alloc_zone_locked":             0x1,
	"netfs_failure":                         0x10,
	"device_pm_callback_start":              0x10,
	"qdisc_dequeue":                         0x1000,
	"rxrpc_recvdata":                        0x1,
	"rxrpc_resend":                          0x10,
	"rxrpc_tq":                              0x10,
	"rxrpc_client":                          0x1,
	"kfree_skb":                             0x1000,
	"xs_stream_read_data":                   0x1,
	"xprt_reserve_cong":                     0x10,
	"xprt_release_cong":                     0x10,
	"xprt_get_cong":                         0x10,
	"xprt_put_cong":                         0x10,
	"tcp_send_reset":                        0x11,
	"tcp_sendmsg_locked":                    0x100,
	"tegra_dma_tx_status":                   0x100,
	"tmigr_update_events":                   0x1,
	"writeback_dirty_folio":                 0x10,
	"folio_wait_writeback":                  0x10,
	"mr_integ_alloc":                        0x2000,
	"bpf_testmod_test_read":                 0x0,
	"amdgpu_vm_bo_map":                      0x1,
	"amdgpu_vm_bo_unmap":                    0x1,
	"netfs_folioq":                          0x1,
	"xfs_defer_create_intent":               0x1,
	"xfs_defer_cancel_list":                 0x1,
	"xfs_defer_pending_finish":              0x1,
	"xfs_defer_pending_abort":               0x1,
	"xfs_defer_relog_intent":                0x1,
	"xfs_defer_isolate_paused":              0x1,
	"xfs_defer_item_pause":                  0x1,
	"xfs_defer_item_unpause":                0x1,
	"xfs_defer_add_item":                    0x1,
	"xfs_defer_cancel_item":                 0x1,
	"xfs_defer_finish_item":                 0x1,
	"xfs_ioc_free_eofblocks":                0x10,
	"xfs_blockgc_free_space":                0x10,
	"xfs_btree_updkeys":                     0x100,
	"xfs_btree_overlapped_query_range":      0x100,
	"xfs_map_blocks_found":                  0x10000,
	"xfs_map_blocks_alloc":                  0x10000,
	"xfs_iomap_alloc":                       0x1000,
	"xfs_iomap_found":                       0x1000,
	"xfs_inodegc_flush":                     0x1,
	"xfs_inodegc_push":                      0x1,
	"xfs_inodegc_start":                     0x1,
	"xfs_inodegc_stop":                      0x1,
	"xfs_inodegc_queue":                     0x1,
	"xfs_inodegc_throttle":                  0x1,
	"xfs_fs_sync_fs":                        0x1,
	"xfs_blockgc_start":                     0x1,
	"xfs_blockgc_stop":                      0x1,
	"xfs_blockgc_worker":                    0x1,
	"xfs_blockgc_flush_all":                 0x1,
	"xchk_nlinks_live_update":               0x10,
	"xchk_metapath_lookup":                  0x100,
	"nfsd_dirent":                           0x1,
	"nfsd_file_acquire":                     0x1001,
	"nfsd_file_insert_err":                  0x1,
	"nfsd_file_cons_err":                    0x1,
	"nfs4_setup_sequence":                   0x1,
	"pnfs_update_layout":                    0x10000,
	"nfs4_inode_callback_event":             0x200,
	"nfs4_inode_stateid_callback_event":     0x200,
	"pnfs_mds_fallback_pg_init_read":        0x10000,
	"pnfs_mds_fallback_pg_init_write":       0x10000,
	"pnfs_mds_fallback_pg_get_mirror_count": 0x10000,
	"pnfs_mds_fallback_read_done":           0x10000,
	"pnfs_mds_fallback_write_done":          0x10000,
	"pnfs_mds_fallback_read_pagelist":       0x10000,
	"pnfs_mds_fallback_write_pagelist":      0x10000,
	"coda_dec_pic_run":                      0x10,
	"coda_dec_pic_done":                     0x10,
	"cfg80211_scan_done":                    0x11,
	"rdev_set_coalesce":                     0x10,
	"cfg80211_report_wowlan_wakeup":         0x100,
	"cfg80211_inform_bss_frame":             0x100,
	"cfg80211_michael_mic_failure":          0x10000,
	"wiphy_work_queue":                      0x10,
	"wiphy_work_run":                        0x10,
	"wiphy_work_cancel":                     0x10,
	"wiphy_work_flush":                      0x10,
	"hugetlbfs_alloc_inode":                 0x10,
	"spufs_context":                         0x10,
	"kvm_page_fault_enter":                  0x100,
	"dpu_crtc_setup_mixer":                  0x100,
	"binder_transaction":                    0x100,
	"btree_path_free":                       0x100,
	"hfi1_sdma_progress":                    0x1000,
	"iptfs_ingress_postq_event":             0x1000,
	"neigh_update":                          0x10,
	"amdtp_packet":                          0x100,
}

// rawTPBuildNullArgs are entries of the running build's raw_tp_null_args
// that upstream 6.18 (and 7.2) lack (stablefix.RawTPSignalWaitArgs): the
// siginfo of signal_generate and signal_deliver may be SEND_SIG_NOINFO or
// SEND_SIG_PRIV, small numbers that read as an error value, and the pid
// of sched_process_wait may be NULL.
var rawTPBuildNullArgs = map[string]uint64{
	"signal_generate":    0x20,
	"signal_deliver":     0x20,
	"sched_process_wait": 0x1,
}

// buildRawTPNullArgs returns the nibbles rawTPBuildNullArgs adds for the
// raw tracepoint name, unless the target kernel lacks them.
func (e *env) buildRawTPNullArgs(name string) uint64 {
	if e.opts.MissingFixes.Has(stablefix.RawTPSignalWaitArgs) {
		return 0
	}
	return rawTPBuildNullArgs[name]
}

// Nibble bits of rawTPNullArgs.
const (
	rawTPMaybeNull uint64 = 0x1
	rawTPMaybeErr  uint64 = 0x2
)

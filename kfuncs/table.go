package kfuncs

// The kfunc table: what the kernel's BTF_ID_FLAGS registrations say of each
// kfunc vercheck models (its KF_* flags) and the program-type groups its set
// is registered for (btf_kfunc_hook). BTF carries neither: a kfunc's
// prototype comes from the kernel's BTF, these facts from here.

import (
	"maps"
	"slices"

	"github.com/cilium/ebpf"
)

// Flags are the kernel's KF_* flags.
type Flags uint16

// Kfunc flags (include/linux/btf.h).
const (
	Acquire      Flags = 1 << iota // returns a reference the program must release
	Release                        // releases the reference passed to it
	RetNull                        // the returned pointer may be NULL
	Sleepable                      // only sleepable programs may call it
	Destructive                    // needs CAP_SYS_BOOT
	RCU                            // arguments may be trusted or RCU pointers
	RCUProtected                   // must be called inside an RCU read section
	IterNew                        // open-coded iterator constructor
	IterNext                       // open-coded iterator step
	IterDestroy                    // open-coded iterator destructor
	// IterProgOnly, SessionOnly and LSMOnly are not KF_* flags but the filters
	// of the kfuncs' registrations: only BPF iterator programs
	// (tracing_iter_filter), only kprobe session programs
	// (bpf_kprobe_multi_filter) may call them.
	IterProgOnly
	SessionOnly
	// LSMOnly is the filter of fs/bpf_fs_kfuncs.c's set
	// (bpf_fs_kfuncs_filter): registered for BPF_PROG_TYPE_LSM, whose
	// hook is the tracing one, only LSM programs may call them.
	LSMOnly
	// ArenaSet is not a KF_* flag either: the kfunc belongs to
	// kernel/bpf/arena.c's set, which upstream registers for every
	// program type and some builds leave out
	// (stablefix.NoArenaKfuncs).
	ArenaSet
	// SignatureVerification marks a kfunc registered only in kernels
	// built with CONFIG_SYSTEM_DATA_VERIFICATION
	// (helpers.Build.SignatureVerification).
	SignatureVerification
)

// Hooks is a set of kfunc hooks (the kernel's btf_kfunc_hook): the
// program-type groups a kfunc set is registered for.
type Hooks uint16

// Kfunc hooks.
const (
	HookCommon Hooks = 1 << iota // every program type
	HookXDP
	HookTC
	HookStructOps
	HookTracing
	HookSyscall
	HookCgroupSKB
	HookSchedACT
	HookSKSKB
	HookSocketFilter
	HookLWT
	HookNetfilter
	HookKprobe
)

// Hook sets of the kfunc families in table.
const (
	// hooksGeneric: kernel/bpf/helpers.c registers its generic set for
	// these program types.
	hooksGeneric = HookTracing | HookTC | HookXDP | HookStructOps | HookSyscall | HookCgroupSKB
	// hooksCpumask: kernel/bpf/cpumask.c.
	hooksCpumask = HookTracing | HookStructOps | HookSyscall
	// hooksConntrack: net/netfilter/nf_conntrack_bpf.c.
	hooksConntrack = HookXDP | HookTC
	// hooksCrypt: kernel/bpf/crypto.c's encryption kfuncs.
	hooksCrypt = HookTC | HookSchedACT | HookXDP
	// hooksSKB: net/core/filter.c registers bpf_dynptr_from_skb for the
	// program types whose context is an skb, and for tracing (tp_btf
	// programs that see an sk_buff).
	hooksSKB = HookTC | HookSchedACT | HookSKSKB | HookSocketFilter | HookCgroupSKB |
		HookLWT | HookNetfilter | HookTracing
)

// Def is what the kernel's registration says of one kfunc.
type Def struct {
	// Flags are the KF_* flags of its BTF_ID_FLAGS entry.
	Flags Flags
	// Hooks are the program-type groups its set is registered for.
	Hooks Hooks
}

// table lists the kfuncs vercheck models, with their 6.18 flags and
// hooks. There is no KF_TRUSTED_ARGS: the 6.18.44 kernel this project checks
// against carries the change that makes trusted arguments the default for
// every kfunc ("bpf: Make KF_TRUSTED_ARGS the default for all kfuncs",
// 1a5c01d2508a): check_kfunc_args refuses a NULL or maybe-NULL pointer to
// any parameter that is not __nullable or __opt, and a BTF-typed pointer
// that is not trusted (or, for KF_RCU kfuncs, RCU-protected).
var table = map[string]Def{
	// kernel/bpf/helpers.c: tasks and cgroups.
	"bpf_task_acquire":      {Acquire | RCU | RetNull, hooksGeneric},
	"bpf_task_release":      {Release, hooksGeneric},
	"bpf_task_from_pid":     {Acquire | RetNull, hooksGeneric},
	"bpf_cgroup_acquire":    {Acquire | RCU | RetNull, hooksGeneric},
	"bpf_cgroup_release":    {Release, hooksGeneric},
	"bpf_cgroup_from_id":    {Acquire | RetNull, hooksGeneric},
	"bpf_task_under_cgroup": {RCU, hooksGeneric},
	"bpf_task_from_vpid":    {Acquire | RetNull, hooksGeneric},
	"bpf_cgroup_ancestor":   {Acquire | RCU | RetNull, hooksGeneric},
	// kernel/bpf/cpumask.c.
	"bpf_cpumask_create":             {Acquire | RetNull, hooksCpumask},
	"bpf_cpumask_acquire":            {Acquire, hooksCpumask},
	"bpf_cpumask_release":            {Release, hooksCpumask},
	"bpf_cpumask_first":              {RCU, hooksCpumask},
	"bpf_cpumask_first_zero":         {RCU, hooksCpumask},
	"bpf_cpumask_first_and":          {RCU, hooksCpumask},
	"bpf_cpumask_set_cpu":            {RCU, hooksCpumask},
	"bpf_cpumask_clear_cpu":          {RCU, hooksCpumask},
	"bpf_cpumask_test_cpu":           {RCU, hooksCpumask},
	"bpf_cpumask_test_and_set_cpu":   {RCU, hooksCpumask},
	"bpf_cpumask_test_and_clear_cpu": {RCU, hooksCpumask},
	"bpf_cpumask_setall":             {RCU, hooksCpumask},
	"bpf_cpumask_clear":              {RCU, hooksCpumask},
	"bpf_cpumask_and":                {RCU, hooksCpumask},
	"bpf_cpumask_or":                 {RCU, hooksCpumask},
	"bpf_cpumask_xor":                {RCU, hooksCpumask},
	"bpf_cpumask_equal":              {RCU, hooksCpumask},
	"bpf_cpumask_intersects":         {RCU, hooksCpumask},
	"bpf_cpumask_subset":             {RCU, hooksCpumask},
	"bpf_cpumask_empty":              {RCU, hooksCpumask},
	"bpf_cpumask_full":               {RCU, hooksCpumask},
	"bpf_cpumask_copy":               {RCU, hooksCpumask},
	"bpf_cpumask_any_distribute":     {RCU, hooksCpumask},
	"bpf_cpumask_any_and_distribute": {RCU, hooksCpumask},
	"bpf_cpumask_weight":             {RCU, hooksCpumask},
	"bpf_cpumask_populate":           {RCU, hooksCpumask},
	// net/netfilter/nf_conntrack_bpf.c.
	// A new entry (struct nf_conn___init) is filled in, then inserted,
	// which releases it and returns the struct nf_conn in the table.
	"bpf_xdp_ct_lookup":     {Acquire | RetNull, hooksConntrack},
	"bpf_skb_ct_lookup":     {Acquire | RetNull, hooksConntrack},
	"bpf_xdp_ct_alloc":      {Acquire | RetNull, hooksConntrack},
	"bpf_skb_ct_alloc":      {Acquire | RetNull, hooksConntrack},
	"bpf_ct_insert_entry":   {Acquire | RetNull | Release, hooksConntrack},
	"bpf_ct_release":        {Release, hooksConntrack},
	"bpf_ct_set_timeout":    {0, hooksConntrack},
	"bpf_ct_change_timeout": {0, hooksConntrack},
	"bpf_ct_set_status":     {0, hooksConntrack},
	"bpf_ct_change_status":  {0, hooksConntrack},
	// net/netfilter/nf_nat_bpf.c.
	"bpf_ct_set_nat_info": {0, hooksConntrack},
	// kernel/bpf/bpf_iter.c and helpers.c: open-coded iterators, in the
	// common set every program type may call (iter.go).
	"bpf_iter_num_new":      {IterNew, HookCommon},
	"bpf_iter_num_next":     {IterNext | RetNull, HookCommon},
	"bpf_iter_num_destroy":  {IterDestroy, HookCommon},
	"bpf_iter_bits_new":     {IterNew, HookCommon},
	"bpf_iter_bits_next":    {IterNext | RetNull, HookCommon},
	"bpf_iter_bits_destroy": {IterDestroy, HookCommon},
	// kernel/bpf/task_iter.c and cgroup_iter.c: task, vma and css
	// iterators, also in the common set.
	"bpf_iter_task_new":         {IterNew | RCUProtected, HookCommon},
	"bpf_iter_task_next":        {IterNext | RetNull, HookCommon},
	"bpf_iter_task_destroy":     {IterDestroy, HookCommon},
	"bpf_iter_task_vma_new":     {IterNew | RCU, HookCommon},
	"bpf_iter_task_vma_next":    {IterNext | RetNull, HookCommon},
	"bpf_iter_task_vma_destroy": {IterDestroy, HookCommon},
	"bpf_iter_css_new":          {IterNew | RCUProtected, HookCommon},
	"bpf_iter_css_next":         {IterNext | RetNull, HookCommon},
	"bpf_iter_css_destroy":      {IterDestroy, HookCommon},
	"bpf_iter_css_task_new":     {IterNew, HookCommon},
	"bpf_iter_css_task_next":    {IterNext | RetNull, HookCommon},
	"bpf_iter_css_task_destroy": {IterDestroy, HookCommon},
	// Dynptrs (dynptr.go): constructors for packet dynptrs in
	// net/core/filter.c, the generic kfuncs in the common set.
	"bpf_dynptr_from_skb": {0, hooksSKB},
	"bpf_dynptr_from_xdp": {0, HookXDP},
	// The skb's metadata area, for TC programs (bpf_kfunc_set_skb_meta).
	"bpf_dynptr_from_skb_meta": {0, HookTC | HookSchedACT},
	// net/core/filter.c: makes more of a multi-buffer XDP packet linear;
	// it moves the packet data (kfuncChangesPktData).
	"bpf_xdp_pull_data":     {0, HookXDP},
	"bpf_dynptr_slice":      {RetNull, HookCommon},
	"bpf_dynptr_slice_rdwr": {RetNull, HookCommon},
	"bpf_dynptr_adjust":     {0, HookCommon},
	"bpf_dynptr_is_null":    {0, HookCommon},
	"bpf_dynptr_is_rdonly":  {0, HookCommon},
	"bpf_dynptr_size":       {0, HookCommon},
	"bpf_dynptr_clone":      {0, HookCommon},
	// Copies between two dynptrs and fills one with a byte; they write
	// through bpf_dynptr_write's path at run time, and the verifier
	// knows them only by their prototypes (two initialised dynptrs,
	// one, and scalars).
	"bpf_dynptr_copy":   {0, HookCommon},
	"bpf_dynptr_memset": {0, HookCommon},
	// kernel/bpf/helpers.c: objects of the program's own types
	// (localobj.go), in the generic set.
	"bpf_obj_new_impl":         {Acquire | RetNull, hooksGeneric},
	"bpf_obj_drop_impl":        {Release, hooksGeneric},
	"bpf_percpu_obj_new_impl":  {Acquire | RetNull, hooksGeneric},
	"bpf_percpu_obj_drop_impl": {Release, hooksGeneric},
	// The graph kfuncs (graph.go), in the generic set.
	"bpf_list_push_front_impl":  {0, hooksGeneric},
	"bpf_list_push_back_impl":   {0, hooksGeneric},
	"bpf_list_pop_front":        {Acquire | RetNull, hooksGeneric},
	"bpf_list_pop_back":         {Acquire | RetNull, hooksGeneric},
	"bpf_list_front":            {RetNull, hooksGeneric},
	"bpf_list_back":             {RetNull, hooksGeneric},
	"bpf_rbtree_add_impl":       {0, hooksGeneric},
	"bpf_rbtree_remove":         {Acquire | RetNull, hooksGeneric},
	"bpf_rbtree_first":          {RetNull, hooksGeneric},
	"bpf_rbtree_root":           {RetNull, hooksGeneric},
	"bpf_rbtree_left":           {RetNull, hooksGeneric},
	"bpf_rbtree_right":          {RetNull, hooksGeneric},
	"bpf_refcount_acquire_impl": {Acquire | RetNull | RCU, hooksGeneric},
	// The trap clang emits for a read of an uninitialised variable
	// (-ftrivial-auto-var-init=... with BPF): refused wherever a path
	// reaches it.
	"__bpf_trap": {0, HookCommon},
	// Casts and lookups of the common set (kfunc_special.go).
	"bpf_cast_to_kern_ctx": {0, HookCommon},
	"bpf_rdonly_cast":      {0, HookCommon},
	"bpf_get_kmem_cache":   {0, HookCommon},
	// Read-only string kfuncs: every argument is __ign (any value) and
	// the result an integer.
	"bpf_strcmp":     {0, HookCommon},
	"bpf_strcasecmp": {0, HookCommon},
	"bpf_strchr":     {0, HookCommon},
	"bpf_strchrnul":  {0, HookCommon},
	"bpf_strnchr":    {0, HookCommon},
	"bpf_strrchr":    {0, HookCommon},
	"bpf_strlen":     {0, HookCommon},
	"bpf_strnlen":    {0, HookCommon},
	"bpf_strspn":     {0, HookCommon},
	"bpf_strcspn":    {0, HookCommon},
	"bpf_strstr":     {0, HookCommon},
	"bpf_strnstr":    {0, HookCommon},
	// RCU read sections (rcu.go) and the sleepable copies of user
	// strings, in the common set.
	"bpf_rcu_read_lock":   {0, HookCommon},
	"bpf_rcu_read_unlock": {0, HookCommon},
	"bpf_preempt_disable": {0, HookCommon},
	// Interrupt-disabled sections (irq.go), in the common set, and the
	// resilient spin locks of kernel/bpf/rqspinlock.c (reslock.go),
	// registered for every program type. KF_RET_NULL on the int-returning
	// lock kfuncs has no effect on a scalar result.
	"bpf_local_irq_save":             {0, HookCommon},
	"bpf_local_irq_restore":          {0, HookCommon},
	"bpf_res_spin_lock":              {RetNull, HookCommon},
	"bpf_res_spin_unlock":            {0, HookCommon},
	"bpf_res_spin_lock_irqsave":      {RetNull, HookCommon},
	"bpf_res_spin_unlock_irqrestore": {0, HookCommon},
	"bpf_preempt_enable":             {0, HookCommon},
	"bpf_copy_from_user_str":         {Sleepable, HookCommon},
	"bpf_copy_from_user_task_str":    {Sleepable, HookCommon},
	// net/bpf/test_run.c's test targets: bpf_modify_return_test_tp is in
	// the common set too; the others are in the fmod_ret set alone
	// (register_btf_fmodret_id_set), which no program type may call:
	// "calling kernel function ... is not allowed".
	"bpf_modify_return_test_tp": {0, HookCommon},
	"bpf_modify_return_test":    {0, 0},
	"bpf_modify_return_test2":   {0, 0},
	"bpf_fentry_test1":          {Sleepable, 0},
	// The dynptr copies of kernel/trace/bpf_trace.c (6.17), in the
	// common set where CONFIG_BPF_EVENTS is set: from kernel or user
	// memory without faulting, or from user memory where a fault may
	// sleep (the task's with a trusted task).
	"bpf_probe_read_user_dynptr":         {0, HookCommon},
	"bpf_probe_read_kernel_dynptr":       {0, HookCommon},
	"bpf_probe_read_user_str_dynptr":     {0, HookCommon},
	"bpf_probe_read_kernel_str_dynptr":   {0, HookCommon},
	"bpf_copy_from_user_dynptr":          {Sleepable, HookCommon},
	"bpf_copy_from_user_str_dynptr":      {Sleepable, HookCommon},
	"bpf_copy_from_user_task_dynptr":     {Sleepable, HookCommon},
	"bpf_copy_from_user_task_str_dynptr": {Sleepable, HookCommon},
	// net/core/filter.c: the socket address of a cgroup sock_addr
	// program (registered for its type, which shares the cgroup hook),
	// and the socket an iterator visits.
	"bpf_sock_addr_set_sun_path": {0, HookCgroupSKB},
	// net/core/filter.c: a request socket of the program's own SYN
	// cookie, for TC classifiers (BPF_PROG_TYPE_SCHED_CLS) only.
	"bpf_sk_assign_tcp_reqsk": {0, HookTC},
	// net/xfrm/xfrm_state_bpf.c: IPsec states, for XDP only.
	"bpf_xdp_get_xfrm_state":     {Acquire | RetNull, HookXDP},
	"bpf_xdp_xfrm_state_release": {Release, HookXDP},
	"bpf_sock_destroy":           {IterProgOnly, HookTracing},
	// net/bpf/test_run.c, built into vmlinux: releases of the test
	// objects whose kptrs maps may hold.
	"bpf_kfunc_call_test_release": {Release, HookTC | HookTracing | HookSyscall},
	"bpf_kfunc_call_memb_release": {Release, HookTC | HookTracing | HookSyscall},
	// kernel/trace/bpf_trace.c: the state of a kprobe session.
	"bpf_session_is_return": {SessionOnly, HookKprobe},
	"bpf_session_cookie":    {SessionOnly, HookKprobe},
	// kernel/bpf/helpers.c, generic set.
	"bpf_task_get_cgroup1": {Acquire | RCU | RetNull, hooksGeneric},
	// fs/bpf_fs_kfuncs.c: files, paths and xattrs, for LSM programs.
	"bpf_get_task_exe_file": {Acquire | RetNull | LSMOnly, HookTracing},
	"bpf_put_file":          {Release | LSMOnly, HookTracing},
	"bpf_path_d_path":       {LSMOnly, HookTracing},
	"bpf_get_dentry_xattr":  {Sleepable | LSMOnly, HookTracing},
	"bpf_get_file_xattr":    {Sleepable | LSMOnly, HookTracing},
	// The verifier only swaps these for their _locked forms on hooks
	// that hold the inode lock (specialize_kfunc), after verification.
	"bpf_set_dentry_xattr":    {Sleepable | LSMOnly, HookTracing},
	"bpf_remove_dentry_xattr": {Sleepable | LSMOnly, HookTracing},
	// kernel/bpf/helpers.c: a cgroup's xattr, in the common set.
	"bpf_cgroup_read_xattr": {RCU, HookCommon},
	// kernel/bpf/helpers.c: keys and signatures, and signals to a task,
	// in the generic set.
	"bpf_lookup_user_key":        {Acquire | RetNull | Sleepable, hooksGeneric},
	"bpf_lookup_system_key":      {Acquire | RetNull, hooksGeneric},
	"bpf_key_put":                {Release, hooksGeneric},
	"bpf_verify_pkcs7_signature": {Sleepable | SignatureVerification, hooksGeneric},
	"bpf_send_signal_task":       {0, hooksGeneric},
	// kernel/cgroup/rstat.c: cgroup statistics, for tracing programs.
	"css_rstat_updated": {0, HookTracing},
	"css_rstat_flush":   {Sleepable, HookTracing},
	// net/core/filter.c: TX timestamps of a sock_ops program's socket
	// (registered for BPF_PROG_TYPE_SOCK_OPS, whose hook is the cgroup
	// one).
	"bpf_sock_ops_enable_tx_tstamp": {0, HookCgroupSKB},
	// kernel/bpf/helpers.c: open-coded iterators over slab caches and
	// DMA buffers, in the common set; every step may sleep.
	"bpf_iter_kmem_cache_new":     {IterNew | Sleepable, HookCommon},
	"bpf_iter_kmem_cache_next":    {IterNext | RetNull | Sleepable, HookCommon},
	"bpf_iter_kmem_cache_destroy": {IterDestroy | Sleepable, HookCommon},
	"bpf_iter_dmabuf_new":         {IterNew | Sleepable, HookCommon},
	"bpf_iter_dmabuf_next":        {IterNext | RetNull | Sleepable, HookCommon},
	"bpf_iter_dmabuf_destroy":     {IterDestroy | Sleepable, HookCommon},
	// kernel/bpf/map_iter.c, in the common set.
	"bpf_map_sum_elem_count": {0, HookCommon},
	// kernel/bpf/crypto.c: contexts are made in syscall programs,
	// used by the packet program types.
	"bpf_crypto_ctx_create":  {Acquire | RetNull | Sleepable, HookSyscall},
	"bpf_crypto_ctx_release": {Release, HookSyscall},
	"bpf_crypto_ctx_acquire": {Acquire | RCU | RetNull, HookSyscall},
	"bpf_crypto_decrypt":     {RCU, hooksCrypt},
	"bpf_crypto_encrypt":     {RCU, hooksCrypt},
	// BPF exceptions (exception.go), in the generic set.
	"bpf_throw": {0, hooksGeneric},
	// The kernel's own congestion-control functions, for struct_ops
	// programs: net/ipv4/bpf_tcp_ca.c (Reno), tcp_cubic.c and tcp_bbr.c
	// (present when the algorithm is built in; a module's are not in
	// vmlinux BTF, so the loader does not find them).
	"tcp_reno_ssthresh":        {0, HookStructOps},
	"tcp_reno_cong_avoid":      {0, HookStructOps},
	"tcp_reno_undo_cwnd":       {0, HookStructOps},
	"tcp_slow_start":           {0, HookStructOps},
	"tcp_cong_avoid_ai":        {0, HookStructOps},
	"cubictcp_init":            {0, HookStructOps},
	"cubictcp_recalc_ssthresh": {0, HookStructOps},
	"cubictcp_cong_avoid":      {0, HookStructOps},
	"cubictcp_state":           {0, HookStructOps},
	"cubictcp_cwnd_event":      {0, HookStructOps},
	"cubictcp_acked":           {0, HookStructOps},
	"bbr_init":                 {0, HookStructOps},
	"bbr_main":                 {0, HookStructOps},
	"bbr_sndbuf_expand":        {0, HookStructOps},
	"bbr_undo_cwnd":            {0, HookStructOps},
	"bbr_cwnd_event":           {0, HookStructOps},
	"bbr_ssthresh":             {0, HookStructOps},
	"bbr_min_tso_segs":         {0, HookStructOps},
	"bbr_set_state":            {0, HookStructOps},
	// Workqueues (wq.go), in the common set (common_btf_ids): every
	// program type; tracing ones cannot own a map with a workqueue.
	"bpf_wq_init":              {0, HookCommon},
	"bpf_wq_set_callback_impl": {0, HookCommon},
	"bpf_wq_start":             {0, HookCommon},
	// task_work (taskwork.go), in the common set.
	"bpf_task_work_schedule_signal_impl": {0, HookCommon},
	"bpf_task_work_schedule_resume_impl": {0, HookCommon},
	// kernel/bpf/stream.c, in the common set: a printk into the
	// program's BPF stream (a constant format string, the arguments as
	// memory and size, the program passed over).
	"bpf_stream_vprintk_impl": {0, HookCommon},
	// kernel/bpf/arena.c (arena.go), in the common set. 6.18 still has
	// them sleepable (KF_SLEEPABLE went in 6.19).
	"bpf_arena_alloc_pages":   {Sleepable | ArenaSet, HookCommon},
	"bpf_arena_free_pages":    {Sleepable | ArenaSet, HookCommon},
	"bpf_arena_reserve_pages": {Sleepable | ArenaSet, HookCommon},
}

// progTypeHook is btf_prog_type_to_kfunc_hook (only the hooks table
// uses; other program types get no hook beyond HookCommon).
func progTypeHook(pt ebpf.ProgramType) Hooks {
	switch pt {
	case ebpf.XDP:
		return HookXDP
	case ebpf.SchedCLS:
		return HookTC
	case ebpf.SchedACT:
		return HookSchedACT
	case ebpf.SkSKB:
		return HookSKSKB
	case ebpf.SocketFilter:
		return HookSocketFilter
	case ebpf.LWTIn, ebpf.LWTOut, ebpf.LWTXmit, ebpf.LWTSeg6Local:
		return HookLWT
	case ebpf.Netfilter:
		return HookNetfilter
	case ebpf.Kprobe:
		return HookKprobe
	case ebpf.StructOps:
		return HookStructOps
	case ebpf.Tracing, ebpf.TracePoint, ebpf.PerfEvent, ebpf.LSM:
		// Raw tracepoints have no hook of their own: only the common
		// set is theirs (bpf_prog_type_to_kfunc_hook).
		return HookTracing
	case ebpf.Syscall:
		return HookSyscall
	case ebpf.CGroupSKB, ebpf.CGroupSock, ebpf.CGroupDevice, ebpf.CGroupSockAddr, ebpf.CGroupSockopt, ebpf.CGroupSysctl,
		ebpf.SockOps:
		// BTF_KFUNC_HOOK_CGROUP: sock_ops programs share it since 6.15.
		return HookCgroupSKB
	}
	return 0
}

// AllowedIn reports whether a program of type pt may call the kfunc: its
// set is registered for every program type or for pt's hook
// (btf_kfunc_id_set_contains).
func (d Def) AllowedIn(pt ebpf.ProgramType) bool {
	return d.Hooks&(HookCommon|progTypeHook(pt)) != 0
}

// Hook sets of the sched_ext kfunc sets (scx_init, scx_idle_init).
const (
	// hooksSCXOps: the per-operation sets, struct_ops programs only.
	hooksSCXOps = HookStructOps
	// hooksSCXUnlocked: scx_kfunc_set_unlocked, also for syscall
	// programs.
	hooksSCXUnlocked = HookStructOps | HookSyscall
	// hooksSCXAny: scx_kfunc_set_any and scx_kfunc_set_idle, also for
	// tracing and syscall programs.
	hooksSCXAny = HookStructOps | HookTracing | HookSyscall
)

// scxKfuncs are the sched_ext kfuncs with the flags and hooks of their
// registration. KF_TRUSTED_ARGS is every kfunc's default (see table).
var scxKfuncs = map[string]Def{
	// scx_kfunc_ids_select_cpu.
	"scx_bpf_select_cpu_dfl": {RCU, hooksSCXOps},
	"scx_bpf_select_cpu_and": {RCU, hooksSCXOps},
	// The forms 6.18 gives the kfuncs of more than five arguments: the
	// rest in a struct the program passes.
	"__scx_bpf_select_cpu_and":   {RCU, hooksSCXOps},
	"__scx_bpf_dsq_insert_vtime": {RCU, hooksSCXOps},
	// scx_kfunc_ids_enqueue_dispatch (and the names before 6.13).
	"scx_bpf_dsq_insert":       {RCU, hooksSCXOps},
	"scx_bpf_dsq_insert___v2":  {RCU, hooksSCXOps},
	"scx_bpf_dsq_insert_vtime": {RCU, hooksSCXOps},
	"scx_bpf_dispatch":         {RCU, hooksSCXOps},
	"scx_bpf_dispatch_vtime":   {RCU, hooksSCXOps},
	// scx_kfunc_ids_dispatch.
	"scx_bpf_dispatch_nr_slots":           {0, hooksSCXOps},
	"scx_bpf_dispatch_cancel":             {0, hooksSCXOps},
	"scx_bpf_dsq_move_to_local":           {0, hooksSCXOps},
	"scx_bpf_dsq_move_to_local___v2":      {0, hooksSCXOps},
	"scx_bpf_consume":                     {0, hooksSCXOps},
	"scx_bpf_dsq_move_set_slice":          {RCU, hooksSCXUnlocked},
	"scx_bpf_dsq_move_set_vtime":          {RCU, hooksSCXUnlocked},
	"scx_bpf_dsq_move":                    {RCU, hooksSCXUnlocked},
	"scx_bpf_dsq_move_vtime":              {RCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_from_dsq_set_slice": {RCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_from_dsq_set_vtime": {RCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_from_dsq":           {RCU, hooksSCXUnlocked},
	"scx_bpf_dispatch_vtime_from_dsq":     {RCU, hooksSCXUnlocked},
	// scx_kfunc_ids_cpu_release.
	"scx_bpf_reenqueue_local": {0, hooksSCXOps},
	// scx_kfunc_ids_unlocked.
	"scx_bpf_create_dsq": {Sleepable, hooksSCXUnlocked},
	// scx_kfunc_ids_any.
	"scx_bpf_kick_cpu":             {0, hooksSCXAny},
	"scx_bpf_dsq_nr_queued":        {0, hooksSCXAny},
	"scx_bpf_destroy_dsq":          {0, hooksSCXAny},
	"scx_bpf_dsq_peek":             {RCUProtected | RetNull, hooksSCXAny},
	"scx_bpf_reenqueue_local___v2": {0, hooksSCXAny},
	"scx_bpf_task_set_slice":       {RCU, hooksSCXAny},
	"scx_bpf_task_set_dsq_vtime":   {RCU, hooksSCXAny},
	"bpf_iter_scx_dsq_new":         {IterNew | RCUProtected, hooksSCXAny},
	"bpf_iter_scx_dsq_next":        {IterNext | RetNull, hooksSCXAny},
	"bpf_iter_scx_dsq_destroy":     {IterDestroy, hooksSCXAny},
	"scx_bpf_exit_bstr":            {0, hooksSCXAny},
	"scx_bpf_error_bstr":           {0, hooksSCXAny},
	"scx_bpf_dump_bstr":            {0, hooksSCXAny},
	"scx_bpf_cpuperf_cap":          {0, hooksSCXAny},
	"scx_bpf_cpuperf_cur":          {0, hooksSCXAny},
	"scx_bpf_cpuperf_set":          {0, hooksSCXAny},
	"scx_bpf_nr_node_ids":          {0, hooksSCXAny},
	"scx_bpf_nr_cpu_ids":           {0, hooksSCXAny},
	"scx_bpf_get_possible_cpumask": {Acquire, hooksSCXAny},
	"scx_bpf_get_online_cpumask":   {Acquire, hooksSCXAny},
	"scx_bpf_put_cpumask":          {Release, hooksSCXAny},
	"scx_bpf_task_running":         {RCU, hooksSCXAny},
	"scx_bpf_task_cpu":             {RCU, hooksSCXAny},
	"scx_bpf_cpu_rq":               {0, hooksSCXAny},
	"scx_bpf_locked_rq":            {RetNull, hooksSCXAny},
	"scx_bpf_cpu_curr":             {RetNull | RCUProtected, hooksSCXAny},
	"scx_bpf_task_cgroup":          {RCU | Acquire, hooksSCXAny},
	"scx_bpf_now":                  {0, hooksSCXAny},
	"scx_bpf_events":               {0, hooksSCXAny},
	// scx_kfunc_ids_idle (ext_idle.c).
	"scx_bpf_cpu_node":                {0, hooksSCXAny},
	"scx_bpf_get_idle_cpumask_node":   {Acquire, hooksSCXAny},
	"scx_bpf_get_idle_cpumask":        {Acquire, hooksSCXAny},
	"scx_bpf_get_idle_smtmask_node":   {Acquire, hooksSCXAny},
	"scx_bpf_get_idle_smtmask":        {Acquire, hooksSCXAny},
	"scx_bpf_put_idle_cpumask":        {Release, hooksSCXAny},
	"scx_bpf_test_and_clear_cpu_idle": {0, hooksSCXAny},
	"scx_bpf_pick_idle_cpu_node":      {RCU, hooksSCXAny},
	"scx_bpf_pick_idle_cpu":           {RCU, hooksSCXAny},
	"scx_bpf_pick_any_cpu_node":       {RCU, hooksSCXAny},
	"scx_bpf_pick_any_cpu":            {RCU, hooksSCXAny},
}

// The sched_ext kfuncs join the table.
func init() {
	maps.Copy(table, scxKfuncs)
}

// Names lists the kfuncs vercheck models, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(table))
}

// Lookup returns what the kernel registers of the kfunc named name; false
// when vercheck does not model it.
func Lookup(name string) (Def, bool) {
	d, ok := table[name]
	return d, ok
}

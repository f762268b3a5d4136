package verifier

// Map and helper compatibility: the kernel's check_map_func_compatibility.
// Two tables decide it. The first says which helpers a special map type may
// be passed to (a program array only to bpf_tail_call, a ring buffer only to
// the ringbuf helpers, ...); map types absent from it (hash, array, LRU,
// LPM trie, ...) go to any map helper. The second says which map types a
// map-specific helper accepts (bpf_redirect_map only device, CPU and XSK
// maps, ...); helpers absent from it accept any map. Both must agree.
//
// Sockmap and sockhash updates and deletes through bpf_map_update_elem and
// bpf_map_delete_elem depend on the program type in the kernel
// (may_update_sockmap); this table, which has no program type, allows them.

import (
	"fmt"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/vercheck/vercheck/helpers"
)

// mapAllowedHelpers lists, for map types that only some helpers may take,
// those helpers.
var mapAllowedHelpers = map[ebpf.MapType]helpers.Set{
	ebpf.ProgramArray: helpers.NewSet(asm.FnTailCall),
	ebpf.PerfEventArray: helpers.NewSet(asm.FnPerfEventRead, asm.FnPerfEventOutput,
		asm.FnPerfEventReadValue, asm.FnSkbOutput, asm.FnXdpOutput),
	ebpf.RingBuf: helpers.NewSet(asm.FnRingbufOutput, asm.FnRingbufReserve, asm.FnRingbufQuery,
		asm.FnRingbufReserveDynptr, asm.FnRingbufSubmitDynptr, asm.FnRingbufDiscardDynptr),
	ebpf.UserRingbuf:         helpers.NewSet(asm.FnUserRingbufDrain),
	ebpf.StackTrace:          helpers.NewSet(asm.FnGetStackid),
	ebpf.CGroupArray:         helpers.NewSet(asm.FnSkbUnderCgroup, asm.FnCurrentTaskUnderCgroup),
	ebpf.CGroupStorage:       helpers.NewSet(asm.FnGetLocalStorage),
	ebpf.PerCPUCGroupStorage: helpers.NewSet(asm.FnGetLocalStorage),
	ebpf.DevMap:              helpers.NewSet(asm.FnRedirectMap, asm.FnMapLookupElem),
	ebpf.DevMapHash:          helpers.NewSet(asm.FnRedirectMap, asm.FnMapLookupElem),
	ebpf.CPUMap:              helpers.NewSet(asm.FnRedirectMap),
	ebpf.XSKMap:              helpers.NewSet(asm.FnRedirectMap, asm.FnMapLookupElem),
	ebpf.ArrayOfMaps:         helpers.NewSet(asm.FnMapLookupElem),
	ebpf.HashOfMaps:          helpers.NewSet(asm.FnMapLookupElem),
	ebpf.SockMap: helpers.NewSet(asm.FnSkRedirectMap, asm.FnSockMapUpdate, asm.FnMsgRedirectMap,
		asm.FnSkSelectReuseport, asm.FnMapLookupElem, asm.FnMapUpdateElem, asm.FnMapDeleteElem),
	ebpf.SockHash: helpers.NewSet(asm.FnSkRedirectHash, asm.FnSockHashUpdate, asm.FnMsgRedirectHash,
		asm.FnSkSelectReuseport, asm.FnMapLookupElem, asm.FnMapUpdateElem, asm.FnMapDeleteElem),
	ebpf.ReusePortSockArray: helpers.NewSet(asm.FnSkSelectReuseport),
	ebpf.Queue:              helpers.NewSet(asm.FnMapPeekElem, asm.FnMapPopElem, asm.FnMapPushElem),
	ebpf.Stack:              helpers.NewSet(asm.FnMapPeekElem, asm.FnMapPopElem, asm.FnMapPushElem),
	ebpf.SkStorage:          helpers.NewSet(asm.FnSkStorageGet, asm.FnSkStorageDelete, asm.FnKptrXchg),
	ebpf.InodeStorage:       helpers.NewSet(asm.FnInodeStorageGet, asm.FnInodeStorageDelete, asm.FnKptrXchg),
	ebpf.TaskStorage:        helpers.NewSet(asm.FnTaskStorageGet, asm.FnTaskStorageDelete, asm.FnKptrXchg),
	ebpf.CgroupStorage:      helpers.NewSet(asm.FnCgrpStorageGet, asm.FnCgrpStorageDelete, asm.FnKptrXchg),
	ebpf.BloomFilter:        helpers.NewSet(asm.FnMapPeekElem, asm.FnMapPushElem),
}

// helperAllowedMaps lists, for helpers that only take some map types, those
// map types.
var helperAllowedMaps = map[asm.BuiltinFunc][]ebpf.MapType{
	asm.FnTailCall:               {ebpf.ProgramArray},
	asm.FnPerfEventRead:          {ebpf.PerfEventArray},
	asm.FnPerfEventOutput:        {ebpf.PerfEventArray},
	asm.FnPerfEventReadValue:     {ebpf.PerfEventArray},
	asm.FnSkbOutput:              {ebpf.PerfEventArray},
	asm.FnXdpOutput:              {ebpf.PerfEventArray},
	asm.FnRingbufOutput:          {ebpf.RingBuf},
	asm.FnRingbufReserve:         {ebpf.RingBuf},
	asm.FnRingbufQuery:           {ebpf.RingBuf},
	asm.FnRingbufReserveDynptr:   {ebpf.RingBuf},
	asm.FnRingbufSubmitDynptr:    {ebpf.RingBuf},
	asm.FnRingbufDiscardDynptr:   {ebpf.RingBuf},
	asm.FnUserRingbufDrain:       {ebpf.UserRingbuf},
	asm.FnGetStackid:             {ebpf.StackTrace},
	asm.FnCurrentTaskUnderCgroup: {ebpf.CGroupArray},
	asm.FnSkbUnderCgroup:         {ebpf.CGroupArray},
	asm.FnRedirectMap:            {ebpf.DevMap, ebpf.DevMapHash, ebpf.CPUMap, ebpf.XSKMap},
	asm.FnSkRedirectMap:          {ebpf.SockMap},
	asm.FnMsgRedirectMap:         {ebpf.SockMap},
	asm.FnSockMapUpdate:          {ebpf.SockMap},
	asm.FnSkRedirectHash:         {ebpf.SockHash},
	asm.FnMsgRedirectHash:        {ebpf.SockHash},
	asm.FnSockHashUpdate:         {ebpf.SockHash},
	asm.FnGetLocalStorage:        {ebpf.CGroupStorage, ebpf.PerCPUCGroupStorage},
	asm.FnSkSelectReuseport:      {ebpf.ReusePortSockArray, ebpf.SockMap, ebpf.SockHash},
	asm.FnMapPopElem:             {ebpf.Queue, ebpf.Stack},
	asm.FnMapPeekElem:            {ebpf.Queue, ebpf.Stack, ebpf.BloomFilter},
	asm.FnMapPushElem:            {ebpf.Queue, ebpf.Stack, ebpf.BloomFilter},
	asm.FnMapLookupPercpuElem:    {ebpf.PerCPUArray, ebpf.PerCPUHash, ebpf.LRUCPUHash},
	asm.FnSkStorageGet:           {ebpf.SkStorage},
	asm.FnSkStorageDelete:        {ebpf.SkStorage},
	asm.FnInodeStorageGet:        {ebpf.InodeStorage},
	asm.FnInodeStorageDelete:     {ebpf.InodeStorage},
	asm.FnTaskStorageGet:         {ebpf.TaskStorage},
	asm.FnTaskStorageDelete:      {ebpf.TaskStorage},
	asm.FnCgrpStorageGet:         {ebpf.CgroupStorage},
	asm.FnCgrpStorageDelete:      {ebpf.CgroupStorage},
}

// mapHelperCompatible reports the kernel's check_map_func_compatibility
// decision for calling helper id with a map of type mt as argument; msg is
// the kernel's message when not.
func mapHelperCompatible(mt ebpf.MapType, id int32) (ok bool, msg string) {
	if allowed, special := mapAllowedHelpers[mt]; special && !allowed.Has(id) {
		return false, mapHelperMismatch(mt, id)
	}
	if types, special := helperAllowedMaps[asm.BuiltinFunc(id)]; special && !slices.Contains(types, mt) {
		return false, mapHelperMismatch(mt, id)
	}
	return true, ""
}

// mapHelperMismatch renders the kernel's rejection of a map passed to the
// wrong helper.
func mapHelperMismatch(mt ebpf.MapType, id int32) string {
	return fmt.Sprintf("cannot pass map_type %d into func %s#%d", uint32(mt), helperName(id), id)
}

// helperName is the kernel's func_id_name: the helper's name, bpf_unspec
// for id 0 (BPF_FUNC_unspec), and "unknown" for an id no helper has.
func helperName(id int32) string {
	if id == 0 {
		return "bpf_unspec"
	}
	if p, ok := helpers.Lookup(id); ok {
		return p.Name
	}
	return "unknown"
}

// mapHelperAllowed is check_map_func_compatibility for this program: on
// top of mapHelperCompatible, a SOCKMAP or SOCKHASH may only be updated or
// have elements deleted by program types that can never hold a locked
// socket (may_update_sockmap).
//
// An interpreting kernel also refuses tail calls from a program with
// bpf-to-bpf calls (allow_tail_call_in_subprogs: only the JIT keeps the
// tail call counter across frames).
func (e *env) mapHelperAllowed(mt ebpf.MapType, id int32) (ok bool, msg string) {
	if (mt == ebpf.SockMap || mt == ebpf.SockHash) &&
		(id == int32(asm.FnMapUpdateElem) || id == int32(asm.FnMapDeleteElem)) &&
		!e.mayUpdateSockmap(id) {
		// may_update_sockmap says why before the mismatch.
		return false, "cannot update sockmap in this context\n" + mapHelperMismatch(mt, id)
	}
	if ok, msg := mapHelperCompatible(mt, id); !ok {
		return false, msg
	}
	if id == int32(asm.FnTailCall) && len(e.cfg.Subprogs) > 1 && e.build.Interpreted {
		return false, "tail_calls are not allowed in non-JITed programs with bpf-to-bpf calls"
	}
	return true, ""
}

// mayUpdateSockmap reports whether this program type may call
// bpf_map_update_elem or bpf_map_delete_elem (id) on a socket map.
func (e *env) mayUpdateSockmap(id int32) bool {
	switch e.progType {
	case ebpf.Tracing:
		return e.attach == ebpf.AttachTraceIter
	case ebpf.SockOps:
		// sock_ops updates go through bpf_sock_map_update instead.
		return id == int32(asm.FnMapDeleteElem)
	case ebpf.SocketFilter, ebpf.SchedCLS, ebpf.SchedACT, ebpf.XDP,
		ebpf.SkReuseport, ebpf.FlowDissector, ebpf.SkLookup:
		return true
	}
	return false
}

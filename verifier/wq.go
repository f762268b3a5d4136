package verifier

// BPF workqueues: bpf_wq_init, bpf_wq_set_callback_impl, bpf_wq_start and
// the workqueue's callback.
//
// A workqueue lives in a map value (a struct bpf_wq field, see locks.go),
// like a timer, and every workqueue kfunc takes a pointer to exactly that
// field (KF_ARG_PTR_TO_WORKQUEUE, process_wq_func). bpf_wq_init also takes
// the map ("__map"), which must be the map the workqueue lives in when
// that map has workqueues. bpf_wq_set_callback_impl registers a function
// the kernel runs later on its own: the verifier explores it as a separate
// path from a fresh state, as a timer's callback (push_async_cb), except
// that it may sleep.

import (
	"github.com/vercheck/vercheck/stablefix"
	"github.com/vercheck/vercheck/states"
)

// fieldNameWq is the workqueue's struct (btf_field_type_name).
const fieldNameWq = "bpf_wq"

// kfuncWqSetCallback registers a workqueue's callback.
const kfuncWqSetCallback = "bpf_wq_set_callback_impl"

// processWqArg is KF_ARG_PTR_TO_WORKQUEUE: a map value pointer to the
// value's bpf_wq (process_wq_func), whose map the call remembers.
func (e *env) processWqArg(meta *kfuncMeta, i, regno int, reg *states.Reg) error {
	return e.processMapFieldArg(meta, i, regno, reg, fieldNameWq, func(r *mapRecord) int64 { return r.wqOff })
}

// processMapFieldArg checks a kfunc argument that must point to the map
// value's field name (a workqueue, a task_work) and remembers its map.
func (e *env) processMapFieldArg(meta *kfuncMeta, i, regno int, reg *states.Reg, name string, fieldOff func(*mapRecord) int64) error {
	if reg.Type != states.PtrToMapValue {
		return e.reject(e.insnIdx, "arg#%d doesn't point to a map value", i)
	}
	idx, uid, err := e.checkMapFieldPointer(regno, name, fieldOff)
	if err != nil {
		return err
	}
	meta.rememberMap(idx, uid)
	return nil
}

// rememberMap records the map of a workqueue or "__map" argument and its
// map uid (meta->map).
func (m *kfuncMeta) rememberMap(idx int, uid uint32) {
	m.mapIdx, m.hasMap, m.mapUID = idx, true, uid
}

// checkWqMapMatch is the part of a KF_ARG_PTR_TO_MAP check that follows a
// workqueue (task_work) argument: the map in reg must be the workqueue's
// own map, and the message names the remembered map's field (its
// task_work, else its workqueue). Without stablefix.AsyncMapMatch the
// maps are compared only when the map in reg has workqueues or task_works,
// and the message names that map's field. The map is remembered either way.
func (e *env) checkWqMapMatch(meta *kfuncMeta, reg *states.Reg) error {
	if !holdsRealMap(reg) {
		return nil
	}
	idx := int(reg.Aux)
	m := e.mapAt(reg)
	if meta.hasMap && m != nil && len(e.recordOf(m).fields) == 0 {
		// The kernel reads the map's record, which a map without special
		// fields has none of (an error pointer): the 6.18 verifier
		// faults and the load never returns.
		return e.kernelFault("map %s without special fields after a workqueue or task_work: the 6.18 verifier faults on its record", m.Name)
	}
	rec := e.recordOf(m)
	compare := rec.wqOff >= 0 || rec.taskWorkOff >= 0
	if meta.hasMap && !e.opts.MissingFixes.Has(stablefix.AsyncMapMatch) {
		// Whatever the map holds; the message names the field of the
		// map the call remembered.
		compare, rec = true, e.recordOf(e.maps[meta.mapIdx])
	}
	uid := reg.MapUID()
	if meta.hasMap && m != nil && compare && (idx != meta.mapIdx || uid != meta.mapUID) {
		if rec.taskWorkOff >= 0 {
			return e.reject(e.insnIdx, "bpf_task_work pointer in R2 map_uid=%d doesn't match map pointer in R3 map_uid=%d", meta.mapUID, uid)
		}
		return e.reject(e.insnIdx, "workqueue pointer in R1 map_uid=%d doesn't match map pointer in R2 map_uid=%d", meta.mapUID, uid)
	}
	meta.rememberMap(idx, uid)
	return nil
}

// holdsRealMap reports whether reg's map_ptr is a map: a map pointer, or
// a pointer into a map's key or value.
func holdsRealMap(reg *states.Reg) bool {
	switch reg.Type {
	case states.ConstPtrToMap, states.PtrToMapValue, states.PtrToMapKey:
		return true
	}
	return false
}

// checkMapArgFault refuses, as a program the kernel's verifier faults on,
// a "__map" argument after a workqueue whose register holds no map but
// may hold something else in map_ptr's place: check_kfunc_args only tests
// that field for NULL before it reads reg->map_ptr->record, so a BTF
// pointer (its btf), a packet pointer (its range) or another kind whose
// union vercheck does not track is read as a map, and the 6.18 verifier
// oopses (seen with fuzzed arguments of bpf_wq_init) and the load never
// returns. Registers whose union is clear get the kernel's "isn't map
// pointer" (checkKfuncMapArg).
func (e *env) checkMapArgFault(meta *kfuncMeta, reg *states.Reg) error {
	if !meta.hasMap || holdsRealMap(reg) {
		return nil
	}
	if set, known := holdsMapPtr(reg); known && !set {
		return nil
	}
	return e.kernelFault("map argument of type %s after a workqueue or task_work: the 6.18 verifier reads it as a map", regTypeStr(reg))
}

// pushWqCallback verifies a bpf_wq_set_callback_impl call's callback as
// an asynchronous, sleepable path (push_callback_call, then
// set_timer_callback_state with the workqueue's map).
func (e *env) pushWqCallback(meta *kfuncMeta) error {
	return e.pushAsyncCallback(meta.subprog, setTimerCallbackState(uint32(meta.mapIdx), meta.mapUID), true)
}

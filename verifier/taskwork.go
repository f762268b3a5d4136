package verifier

// BPF task_work (6.18): bpf_task_work_schedule_signal_impl and
// bpf_task_work_schedule_resume_impl schedule a callback to run later in a
// task's context (task_work_add with TWA_SIGNAL or TWA_RESUME).
//
// A struct bpf_task_work lives in a map value (locks.go) of an array, hash
// or LRU hash map. The kfuncs take a trusted task, a pointer to exactly
// that field (KF_ARG_PTR_TO_TASK_WORK, process_task_work_func), the map
// ("__map"), which must be the field's own map, the callback and the
// program ("__prog", passed over). The callback is verified as an
// asynchronous, sleepable path with (map, key, value) of the element
// (set_task_work_schedule_callback_state) and may return any int.

import (
	"math"

	"github.com/vercheck/vercheck/states"
)

// fieldNameTaskWork is the task_work's struct (btf_field_type_name).
const fieldNameTaskWork = "bpf_task_work"

// taskWorkKfuncs are the kfuncs that schedule a task_work
// (is_task_work_add_kfunc).
var taskWorkKfuncs = map[string]bool{
	"bpf_task_work_schedule_signal_impl": true,
	"bpf_task_work_schedule_resume_impl": true,
}

// processTaskWorkArg is KF_ARG_PTR_TO_TASK_WORK: a map value pointer to the
// value's bpf_task_work (process_task_work_func), whose map the call
// remembers for the "__map" argument and the callback.
func (e *env) processTaskWorkArg(meta *kfuncMeta, i, regno int, reg *states.Reg) error {
	return e.processMapFieldArg(meta, i, regno, reg, fieldNameTaskWork, func(r *mapRecord) int64 { return r.taskWorkOff })
}

// pushTaskWorkCallback verifies the callback of a task_work kfunc as an
// asynchronous, sleepable path (push_callback_call with
// set_task_work_schedule_callback_state): (map, key, value) of the
// task_work's map, any 32-bit return value.
func (e *env) pushTaskWorkCallback(meta *kfuncMeta) error {
	setup := setTimerCallbackState(uint32(meta.mapIdx), meta.mapUID)
	return e.pushAsyncCallback(meta.subprog, func(e *env, caller, callee *states.Frame) {
		setup(e, caller, callee)
		callee.CallbackRetMin, callee.CallbackRetMax = math.MinInt32, math.MaxInt32
	}, true)
}

package helpers

// ArgType is the kind of argument a helper expects in one of r1-r5 (the
// kernel's enum bpf_arg_type, base kinds plus the flags that matter).
type ArgType uint8

// Helper argument kinds.
const (
	ArgDontCare             ArgType = iota // unused argument
	ArgAnything                            // any initialised value
	ArgConstMapPtr                         // a map pointer (ld_imm64 of a map)
	ArgPtrToMapKey                         // memory of the map's key size
	ArgPtrToMapValue                       // memory of the map's value size, read
	ArgPtrToUninitMapValue                 // memory of the map's value size, may be uninitialised
	ArgPtrToMem                            // readable memory, size in the next arg
	ArgPtrToMemOrNull                      // same, or NULL
	ArgPtrToUninitMem                      // writable memory, size in the next arg
	ArgPtrToFixedMem                       // memory of a fixed size (Proto.ArgSize)
	ArgConstSize                           // constant > 0 size of the previous memory arg
	ArgConstSizeOrZero                     // constant >= 0 size of the previous memory arg
	ArgConstAllocSizeOrZero                // constant size of a memory allocation (ringbuf reserve)
	ArgPtrToCtx                            // the program's context
	ArgPtrToCtxOrNull
	ArgPtrToSocket // a referenced full socket
	ArgPtrToSocketOrNull
	ArgPtrToSockCommon
	ArgPtrToBTFID // a BTF-typed kernel pointer (Proto.ArgBTFID)
	ArgPtrToSpinLock
	ArgPtrToInt  // 4 writable bytes
	ArgPtrToLong // 8 writable bytes
	ArgPtrToFunc // a callback function (ld_imm64 of a subprogram)
	ArgPtrToStackOrNull
	ArgPtrToConstStr // a read-only NUL-terminated string in a frozen map
	ArgPtrToTimer
	ArgPtrToKptr
	ArgPtrToDynptr
	ArgPtrToRingbufMem // memory returned by ringbuf reserve; released by the helper
	ArgPtrToAllocMem
	ArgPtrToPercpuBTFID
	ArgPtrToBTFIDSockCommon
	ArgConstMapPtrOrNull
	ArgUnsupported // a kind vercheck does not model: calling the helper is rejected as unsupported
	// ArgPtrToMapValueOrNull is memory of the map's value size, or NULL
	// (the init value of the local-storage get helpers).
	ArgPtrToMapValueOrNull
	// ArgPtrToBTFIDOrNull is a BTF-typed kernel pointer or NULL.
	ArgPtrToBTFIDOrNull
	// ArgPtrToWritableMemOrNull is ArgPtrToWritableMem or NULL
	// (ARG_PTR_TO_MEM_OR_NULL | MEM_WRITE).
	ArgPtrToWritableMemOrNull
	// ArgPtrToBTFIDSockCommonOrNull is ArgPtrToBTFIDSockCommon or NULL.
	ArgPtrToBTFIDSockCommonOrNull
	// ArgPtrToWritableMem is memory the helper reads and writes in place,
	// size in the next arg (ARG_PTR_TO_MEM | MEM_WRITE, without
	// MEM_UNINIT): unlike ArgPtrToUninitMem its stack bytes are read
	// (marked live, initialised unless uninitialised stack may be read)
	// and then clobbered, spills included.
	ArgPtrToWritableMem
)

// RetType is what a helper returns in r0.
type RetType uint8

// Helper return kinds.
const (
	RetInteger             RetType = iota // an unknown scalar
	RetVoid                               // r0 is not initialised
	RetPtrToMapValueOrNull                // pointer into the value of the map in arg1, or NULL
	RetPtrToMapValue                      // same, never NULL
	RetPtrToSocketOrNull                  // acquired socket reference
	RetPtrToTCPSockOrNull
	RetPtrToSockCommonOrNull
	RetPtrToAllocMemOrNull // ringbuf record of the size in arg2 (acquired)
	RetPtrToMemOrBTFID     // per-cpu pointer helpers
	RetPtrToMemOrNull
	RetPtrToBTFIDOrNull  // a BTF pointer of RetBTFName, or NULL
	RetPtrToBTFID        // a plain (legacy) BTF pointer of RetBTFName: walks from it are not trusted
	RetPtrToBTFIDTrusted // a trusted BTF pointer of RetBTFName (RET_PTR_TO_BTF_ID_TRUSTED)
	RetPtrToDynptrMemOrNull
)

// Proto is the prototype of one helper function, as data.
type Proto struct {
	Name    string
	ID      int32
	Ret     RetType
	Args    [5]ArgType
	GPLOnly bool
	// PktAccess marks helpers that may take packet pointers as memory args.
	PktAccess bool
	// ChangesPktData marks helpers after which all packet pointers are
	// invalidated (the kernel's bpf_helper_changes_pkt_data).
	ChangesPktData bool
	// Acquire marks a helper whose returned pointer is a new reference;
	// ReleaseArg is the 1-based argument whose reference the helper
	// releases (0: none).
	Acquire    bool
	ReleaseArg int8
	// ArgSize is the fixed size for ArgPtrToFixedMem arguments, per arg.
	ArgSize [5]int32
	// RetBTFName names the BTF type of a PtrToBTFID return, if any.
	RetBTFName string
	// ArgBTFName names, per arg, the BTF type an ArgPtrToBTFID or
	// ArgPtrToBTFIDOrNull argument must point to.
	ArgBTFName [5]string
	// Callback marks helpers that call a callback (bpf_loop,
	// for_each_map_elem, find_vma, user_ringbuf_drain, timer_set_callback).
	Callback bool
	// MightSleep marks helpers only sleepable programs may call (the
	// kernel's might_sleep: copying from user memory, IMA hashes, the
	// syscall program's bpf_sys_bpf, bpf_sys_close and
	// bpf_btf_find_by_name_kind). See also SleepsInSleepable.
	MightSleep bool
	// Gate is the extra condition on the program some helpers have (the
	// kernel's bpf_func_proto.allowed callback).
	Gate Gate
}

// Gate is a condition on the calling program that a helper checks
// before its arguments (the kernel's bpf_func_proto.allowed); a program
// that fails it is rejected with "helper call is not allowed in probe".
type Gate uint8

// Helper gates.
const (
	GateNone Gate = iota // no condition
	// GateDPath is bpf_d_path_allowed: BTF iterators, sleepable LSM
	// hooks, and trampolines attached to a short list of VFS functions.
	GateDPath
	// GateSkStorageTracing is bpf_sk_storage_tracing_allowed: raw
	// tracepoints and iterators, and trampolines that do not trace the
	// socket storage functions themselves.
	GateSkStorageTracing
	// GateIMA is the IMA hash helpers' rule: sleepable LSM hooks only.
	GateIMA
)

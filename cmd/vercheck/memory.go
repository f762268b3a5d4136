package main

import (
	"runtime"
	"runtime/metrics"
	"sync"
)

// collectThreshold is the heap size (live objects and garbage not yet
// collected), and the allocation since the last such collection, above
// which an object's end triggers a collection.
const collectThreshold = 64 << 20

// Runtime metrics read at an object's end: the bytes in heap objects (the
// live ones and the garbage the last collection has not yet freed) and the
// bytes allocated since the program started.
const (
	heapObjectsMetric = "/memory/classes/heap/objects:bytes"
	heapAllocsMetric  = "/gc/heap/allocs:bytes"
)

// collector remembers the allocation count at the last collection
// collectAfterObject ran; workers share it.
var collector struct {
	sync.Mutex
	allocsAtLast uint64
}

// collectAfterObject runs a collection once an object's programs are all
// verified, when the heap holds more than collectThreshold bytes and as
// many were allocated since the last one it ran. The collector paces
// itself on the live heap of its last cycle: after an object whose
// checkpoints took hundreds of megabytes, the next cycle would wait until
// the heap doubled that, and the next object would be verified in fresh
// memory while the last one's garbage still held its pages. A directory
// run then peaked near the sum of its two largest objects' memory (509 MB
// and 247 MB alone, 998 MB together); collected at the boundary, its
// garbage's pages serve the next object. The allocation test keeps a run
// whose resident base alone passes the threshold (large kernel BTF) from
// collecting after every small object.
func collectAfterObject() {
	s := []metrics.Sample{{Name: heapObjectsMetric}, {Name: heapAllocsMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	collector.Lock()
	defer collector.Unlock()
	if s[0].Value.Uint64() <= collectThreshold || s[1].Value.Uint64()-collector.allocsAtLast <= collectThreshold {
		return
	}
	runtime.GC()
	collector.allocsAtLast = s[1].Value.Uint64()
}

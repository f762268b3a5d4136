package main

import (
	"runtime"
	"runtime/metrics"
)

// collectThreshold is the heap size (live objects and garbage not yet
// collected) above which an object's end triggers a collection.
const collectThreshold = 64 << 20

// heapObjectsMetric is the runtime's count of bytes in heap objects, the
// live ones and the garbage the last collection has not yet freed.
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// collectAfterObject runs a collection once an object's programs are all
// verified, when the heap holds more than collectThreshold bytes. The
// collector paces itself on the live heap of its last cycle: after an
// object whose checkpoints took hundreds of megabytes, the next cycle
// would wait until the heap doubled that, and the next object would be
// verified in fresh memory while the last one's garbage still held its
// pages. A directory run then peaked near the sum of its two largest
// objects' memory (509 MB and 247 MB alone, 998 MB together); collected
// at the boundary, its garbage's pages serve the next object. Small
// objects leave little and pay nothing.
func collectAfterObject() {
	s := []metrics.Sample{{Name: heapObjectsMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > collectThreshold {
		runtime.GC()
	}
}

//go:build !unix

package states

import "unsafe"

// mapBlock has no mapping to offer here: blocks come from the heap.
func mapBlock() unsafe.Pointer { return nil }

// unmapBlock is never called: mapBlock maps nothing.
func unmapBlock(unsafe.Pointer) {}

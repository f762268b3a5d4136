//go:build unix

package states

import (
	"syscall"
	"unsafe"
)

// mapBlock maps a block of blockBytes of private anonymous memory, or
// returns nil when the system refuses.
func mapBlock() unsafe.Pointer {
	m, err := syscall.Mmap(-1, 0, blockBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(m))
}

// unmapBlock unmaps a block mapBlock returned.
func unmapBlock(b unsafe.Pointer) {
	_ = syscall.Munmap(unsafe.Slice((*byte)(b), blockBytes))
}

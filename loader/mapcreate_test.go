package loader

import (
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRingbufSize: sizes that are already a power-of-2 number of pages
// stay; others round up to the next one, as libbpf's adjust_ringbuf_sz;
// one past the largest stays for the kernel to refuse.
func TestRingbufSize(t *testing.T) {
	page := uint32(os.Getpagesize())
	tests := []struct{ in, want uint32 }{
		{page, page},
		{2 * page, 2 * page},
		{8, page},
		{page + 1, 2 * page},
		{3 * page, 4 * page},
		{1 << 31, 1 << 31},
		{1<<31 + 1, 1<<31 + 1},
		{math.MaxUint32, math.MaxUint32},
	}
	for _, tt := range tests {
		if got := ringbufSize(tt.in); got != tt.want {
			t.Errorf("ringbufSize(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestMapFlagNames: named bits in order, unnamed ones as numbers.
func TestMapFlagNames(t *testing.T) {
	if diff := cmp.Diff("BPF_F_NO_PREALLOC|BPF_F_RDONLY_PROG|0x100000", mapFlagNames(1|1<<7|1<<20)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

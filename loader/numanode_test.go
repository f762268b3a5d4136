package loader

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNumaNodes reads BTF map definitions that name a NUMA node, as libbpf
// does: the object opens, and the node reaches the map and the inner map
// that one struct defines.
func TestNumaNodes(t *testing.T) {
	spec, warnings, err := LoadCollectionSpec("testdata/numa_node.o")
	if err != nil {
		t.Fatalf("LoadCollectionSpec: %v", err)
	}
	type placed struct {
		Map, Inner uint32
		HasInner   bool
	}
	got := placed{Map: spec.Maps["numa_hash"].NumaNode}
	if in := spec.Maps["numa_outer"].InnerMap; in != nil {
		got.Inner, got.HasInner = in.NumaNode, true
	}
	if diff := cmp.Diff(placed{Map: 1, Inner: 1, HasInner: true}, got); diff != "" {
		t.Errorf("NUMA nodes (-want +got):\n%s", diff)
	}
	want := []string{"BTF: map definitions name a NUMA node, read as libbpf does: numa_hash (1), numa_outer's inner map (1)"}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

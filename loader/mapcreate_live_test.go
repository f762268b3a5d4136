package loader_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/vercheck/vercheck/internal/kernel"
	"github.com/vercheck/vercheck/loader"
)

// TestMapCreateErrorLive creates maps of the array and hash families with
// definitions at the edges of what map_create accepts, and compares each
// outcome (created, or refused with which errno) with Map.CreateError.
func TestMapCreateErrorLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("no kernel to create maps in: %v", err)
	}
	const (
		noPrealloc  = 1 << 0
		noCommonLRU = 1 << 1
		rdonly      = 1 << 3
		wronly      = 1 << 4
		zeroSeed    = 1 << 6
		rdonlyProg  = 1 << 7
		wronlyProg  = 1 << 8
		mmapable    = 1 << 10
		preserve    = 1 << 11
		innerMap    = 1 << 12
		unknown     = 1 << 20
	)
	type def struct {
		typ                 ebpf.MapType
		key, value, entries uint32
		flags               uint32
	}
	var defs []def
	for _, typ := range []ebpf.MapType{ebpf.Array, ebpf.PerCPUArray, ebpf.ProgramArray, ebpf.PerfEventArray, ebpf.CGroupArray,
		ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash} {
		value := uint32(8)
		if typ == ebpf.ProgramArray || typ == ebpf.PerfEventArray || typ == ebpf.CGroupArray {
			value = 4
		}
		for _, flags := range []uint32{0, noPrealloc, noCommonLRU, rdonly, wronly, rdonly | wronly, zeroSeed, rdonlyProg, wronlyProg,
			rdonlyProg | wronlyProg, mmapable, preserve, innerMap, unknown, rdonlyProg | noPrealloc} {
			defs = append(defs, def{typ, 4, value, 4, flags})
		}
		defs = append(defs, def{typ, 4, value, 0, 0}, def{typ, 0, value, 4, 0}, def{typ, 8, value, 4, 0},
			def{typ, 4, 0, 4, 0}, def{typ, 4, 16, 4, 0}, def{typ, 513, value, 4, 0}, def{typ, 512, value, 4, 0})
	}
	for _, typ := range []ebpf.MapType{ebpf.RingBuf, ebpf.UserRingbuf} {
		for _, d := range []def{{typ, 0, 0, 4096, 0}, {typ, 0, 0, 8192, 0}, {typ, 0, 0, 6144, 0}, {typ, 0, 0, 2048, 0},
			{typ, 0, 0, 0, 0}, {typ, 4, 0, 4096, 0}, {typ, 0, 8, 4096, 0}, {typ, 0, 0, 4096, noPrealloc}, {typ, 0, 0, 4096, rdonlyProg}} {
			defs = append(defs, d)
		}
	}
	for _, typ := range []ebpf.MapType{ebpf.Queue, ebpf.Stack, ebpf.BloomFilter} {
		for _, flags := range []uint32{0, noPrealloc, rdonlyProg, wronlyProg, rdonlyProg | wronlyProg, zeroSeed, mmapable} {
			defs = append(defs, def{typ, 0, 8, 4, flags})
		}
		defs = append(defs, def{typ, 4, 8, 4, 0}, def{typ, 0, 0, 4, 0}, def{typ, 0, 8, 0, 0})
	}
	for _, typ := range []ebpf.MapType{ebpf.SkStorage, ebpf.TaskStorage, ebpf.InodeStorage, ebpf.CgroupStorage} {
		for _, flags := range []uint32{0, noPrealloc, noPrealloc | 1<<9, noPrealloc | rdonlyProg, noPrealloc | noCommonLRU} {
			defs = append(defs, def{typ, 4, 8, 0, flags})
		}
		defs = append(defs, def{typ, 4, 8, 4, noPrealloc}, def{typ, 8, 8, 0, noPrealloc})
	}
	for _, d := range defs {
		name := fmt.Sprintf("%v key %d value %d entries %d flags %#x", d.typ, d.key, d.value, d.entries, d.flags)
		spec := &ebpf.MapSpec{Type: d.typ, KeySize: d.key, ValueSize: d.value, MaxEntries: d.entries, Flags: d.flags}
		if localStorage(d.typ) {
			// Local storage needs BTF for its key and value.
			spec.Key = &btf.Int{Name: "k", Size: d.key}
			spec.Value = &btf.Int{Name: "v", Size: d.value}
		}
		lm := &loader.Map{Name: "t", Type: d.typ, KeySize: d.key, ValueSize: d.value, MaxEntries: d.entries, Flags: d.flags, Spec: spec}
		if d.typ == ebpf.PerfEventArray && (d.key != 4 || d.value != 4 || d.entries == 0) {
			// cilium/ebpf fills in or refuses these before the kernel
			// sees them, as the loader does.
			continue
		}
		compareCreate(t, name, lm, spec)
	}
}

// compareCreate creates spec in the kernel and compares the outcome
// (created, or refused with which errno) with lm.CreateError's.
func compareCreate(t *testing.T, name string, lm *loader.Map, spec *ebpf.MapSpec) {
	t.Helper()
	var want syscall.Errno
	var ce *loader.MapCreateError
	if err := lm.CreateError(); errors.As(err, &ce) {
		want = ce.Errno
	}
	m, err := ebpf.NewMapWithOptions(spec, ebpf.MapOptions{})
	var got syscall.Errno
	if err == nil {
		m.Close()
	} else if !errors.As(err, &got) {
		t.Errorf("%s: %v, not an errno", name, err)
		return
	}
	if got != want {
		t.Errorf("%s: the kernel says %v (%d), CreateError %v (%d)", name, got, int(got), want, int(want))
	}
}

// localStorage reports the map types whose storage lives with a kernel
// object (bpf_local_storage).
func localStorage(t ebpf.MapType) bool {
	return t == ebpf.SkStorage || t == ebpf.TaskStorage || t == ebpf.InodeStorage || t == ebpf.CgroupStorage
}

// TestInnerTemplateLive creates maps of maps with an inner map of each
// type and compares the kernel's outcome (bpf_map_meta_alloc) with
// Map.CreateError.
func TestInnerTemplateLive(t *testing.T) {
	if err := kernel.Available(); err != nil {
		t.Skipf("no kernel to create maps in: %v", err)
	}
	array := &loader.Map{Name: "a", Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1}
	inners := []*loader.Map{
		array,
		{Name: "h", Type: ebpf.Hash, KeySize: 4, ValueSize: 8, MaxEntries: 4},
		{Name: "pa", Type: ebpf.ProgramArray, KeySize: 4, ValueSize: 4, MaxEntries: 4},
		{Name: "pe", Type: ebpf.PerfEventArray, KeySize: 4, ValueSize: 4, MaxEntries: 4},
		{Name: "cga", Type: ebpf.CGroupArray, KeySize: 4, ValueSize: 4, MaxEntries: 4},
		{Name: "cs", Type: ebpf.CGroupStorage, KeySize: 8, ValueSize: 8},
		{Name: "pcs", Type: ebpf.PerCPUCGroupStorage, KeySize: 8, ValueSize: 8},
		{Name: "aom", Type: ebpf.ArrayOfMaps, KeySize: 4, ValueSize: 4, MaxEntries: 4, Inner: array},
		{Name: "hom", Type: ebpf.HashOfMaps, KeySize: 4, ValueSize: 4, MaxEntries: 4, Inner: array},
		{Name: "rb", Type: ebpf.RingBuf, MaxEntries: 4096},
		{Name: "q", Type: ebpf.Queue, ValueSize: 4, MaxEntries: 4},
		{Name: "sm", Type: ebpf.SockMap, KeySize: 4, ValueSize: 4, MaxEntries: 4},
		{Name: "dm", Type: ebpf.DevMap, KeySize: 4, ValueSize: 4, MaxEntries: 4},
	}
	spec := func(m *loader.Map) *ebpf.MapSpec {
		s := &ebpf.MapSpec{Type: m.Type, KeySize: m.KeySize, ValueSize: m.ValueSize, MaxEntries: m.MaxEntries}
		if m.Inner != nil {
			s.InnerMap = &ebpf.MapSpec{Type: m.Inner.Type, KeySize: m.Inner.KeySize, ValueSize: m.Inner.ValueSize, MaxEntries: m.Inner.MaxEntries}
		}
		return s
	}
	for _, inner := range inners {
		for _, typ := range []ebpf.MapType{ebpf.ArrayOfMaps, ebpf.HashOfMaps} {
			outer := &loader.Map{Name: "o", Type: typ, KeySize: 4, ValueSize: 4, MaxEntries: 2, Inner: inner}
			compareCreate(t, fmt.Sprintf("%v in %v", inner.Type, typ), outer, spec(outer))
		}
	}
}

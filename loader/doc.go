// Package loader turns a BPF ELF object into the programs and maps the kernel
// would receive from a loader such as libbpf, cilium/ebpf or iproute2.
//
// # What the verifier sees
//
// The kernel never reads ELF files: a loader links each program and hands the
// verifier one flat instruction array, with maps already created. This package
// reproduces that array offline:
//
//   - Subprograms are appended after the entry function in the order
//     cilium/ebpf links them (breadth first by reference), and every
//     bpf-to-bpf call or function-pointer load gets its relative offset.
//   - Each map gets an index in [Object.Maps]. An ld_imm64 of a map pointer
//     becomes src=BPF_PSEUDO_MAP_FD with imm=index; a load of an address inside
//     a global data map (.rodata, .data, .bss, .kconfig) becomes
//     src=BPF_PSEUDO_MAP_VALUE with imm=index and the offset in the second
//     slot, exactly the layout the kernel decodes.
//   - CO-RE relocations are applied against a target BTF (by default the
//     running kernel's /sys/kernel/btf/vmlinux), and kfunc calls get the BTF
//     id of the kernel function.
//   - Source lines and BTF function info are indexed by raw instruction slot,
//     the numbering used by the kernel log.
//
// # Old objects
//
// Objects built for bpf_load.c, iproute2 or old clang releases break modern
// loaders in three ways, and the package repairs each before it hands the
// file to cilium/ebpf:
//
//   - Program and map symbols of size zero: the extent is taken from the
//     next symbol in the same section, or the end of the section.
//   - Legacy map definitions longer than the classic five words
//     (struct bpf_map_def with inner_map_idx and numa_node, or iproute2's
//     struct bpf_elf_map with id, pinning and inner_id): only the first five
//     words define the map; the tail is used to find the inner map of a
//     map-in-map and is otherwise dropped. Both layouts can be seven words
//     long; an object with untyped program sections was built for iproute2
//     (tc picks the type), so its tails are read as struct bpf_elf_map.
//   - Section names without a program type (Cilium's "from-container",
//     "2/1"): the type is guessed from the object, see [GuessProgramType],
//     and the guess is reported in [Object.Warnings].
//
// Modern objects need repairs of their own:
//
//   - BTF map-in-map definitions written __array(values, some_typedef_t)
//     name the inner map through a typedef, which libbpf skips and
//     cilium/ebpf refuses; the pointer in the object's BTF is repointed to
//     the struct behind the typedef (see resolveValuesTypedefs).
//   - Objects linked from several units (bpftool gen object) may hold
//     static functions of one name; all but one are renamed (see
//     renameDuplicateFuncs).
//   - Objects linked from units that share a weak function keep the
//     dropped copies' code without a symbol, which shifts cilium/ebpf's
//     reading of every later BTF function, line and CO-RE record; each
//     such stretch gets a symbol of its own and joins no program (see
//     nameUnlinkedCode); a global variable defined weak in one unit
//     keeps the dropped copy's BTF offset, which libbpf ignores and
//     cilium/ebpf refuses (see hideMisplacedDataVars).
//   - Global functions of hidden visibility are static in the BTF libbpf
//     loads, so the kernel verifies them with their caller's state (see
//     markHiddenFuncsStatic).
//   - GCC's BPF backend writes .BTF.ext subsections of length zero, with
//     no record size, which libbpf skips and cilium/ebpf refuses; each is
//     read as an empty subsection (see repairEmptyExtInfo).
//   - Objects built without SEC() keep every function in .text; with a
//     program type given, their global functions become programs (see
//     exposeTextPrograms).
//
// [LoadCollectionSpec] gives the cilium/ebpf spec of an object so repaired.
//
// Every repair is listed in [Object.Warnings] so a user can tell what the
// loader had to assume.
//
// # Errors
//
// Errors always name the file. Inputs that are not ELF wrap [ErrNotELF];
// ELF files for another machine wrap [ErrNotBPF]. Problems that concern a
// single program (an unresolved call, a CO-RE failure, an unknown kfunc) do
// not fail the whole object: they are stored in [Program.Err]. Nothing in this
// package panics on bad input: calls into cilium/ebpf and debug/elf are
// guarded and a panic there becomes an error wrapping [ErrMalformed].
package loader

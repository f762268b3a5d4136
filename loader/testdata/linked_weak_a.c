/* One of the two units of linked_weak.o, an object linked from units that
 * both define the weak function scale(), as a shared header's helper is
 * defined in every unit that includes it (sched-ext/scx's
 * arena_spin_lock_slowpath). The linker keeps this unit's scale() and
 * drops the other's symbol, leaving its code in .text without one. The
 * variable limit is weak here and strong in the other unit: the linker
 * keeps the other's symbol and this unit's BTF data section entry:
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c linked_weak_a.c -o /tmp/linked_weak_a.o
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c linked_weak_b.c -o /tmp/linked_weak_b.o
 *   bpftool gen object linked_weak.o /tmp/linked_weak_a.o /tmp/linked_weak_b.o
 *   llvm-strip-19 -g linked_weak.o
 */
__attribute__((weak, noinline)) int scale(int x)
{
	return x * 3;
}

__attribute__((weak)) const volatile int limit = 1;

__attribute__((section("socket"), used)) int first(void *ctx)
{
	return (scale(ctx != 0) + limit) & 1;
}

char _license[] __attribute__((section("license"), used)) = "GPL";

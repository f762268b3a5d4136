/* One of the two units of linked.o, an object linked from units that each
 * have a static function named twice(), as bpftool gen object links them:
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c linked_a.c -o /tmp/linked_a.o
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c linked_b.c -o /tmp/linked_b.o
 *   bpftool gen object linked.o /tmp/linked_a.o /tmp/linked_b.o
 *   llvm-strip-19 -g linked.o
 */
static __attribute__((noinline)) int twice(int x)
{
	return x * 2;
}

__attribute__((section("socket"), used)) int first(void *ctx)
{
	return twice(ctx != 0);
}

char _license[] __attribute__((section("license"), used)) = "GPL";

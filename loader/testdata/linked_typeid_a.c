/* One of the two units of linked_typeid.o, an object linked from units
 * that both carry types, as bpftool gen object links them:
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c linked_typeid_a.c -o /tmp/linked_typeid_a.o
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c linked_typeid_b.c -o /tmp/linked_typeid_b.o
 *   bpftool gen object linked_typeid.o /tmp/linked_typeid_a.o /tmp/linked_typeid_b.o
 *   llvm-strip-19 -g linked_typeid.o
 * This unit's types come first in the linked BTF, so the other unit's are
 * renumbered, but not the type ids its instructions carry as immediates.
 */
struct pair {
	long a, b;
};

struct triple {
	struct pair p;
	long c;
};

__attribute__((section("socket"), used)) int types_first(struct triple *ctx)
{
	struct triple t = {};

	return sizeof(t) + (ctx != 0);
}

char _license[] __attribute__((section("license"), used)) = "GPL";

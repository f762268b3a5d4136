/* One unit of a program built from two, not linked: map_b is defined in
 * the other unit and declared extern here, a variable of the .maps datasec
 * whose symbol is undefined. libbpf refuses the unit ("unrecognized extern
 * section '.maps'"); cilium/ebpf counted the section's symbols against its
 * Vars. Built with
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c extern_map.c -o extern_map.o
 */
struct map_def {
	int (*type)[2];
	int (*max_entries)[1];
	int *key;
	long *value;
};
struct map_def map_a __attribute__((section(".maps"), used));
extern struct map_def map_b __attribute__((section(".maps")));
extern struct map_def map_c __attribute__((section(".maps")));

static long (*lookup)(void *map, const void *key) = (void *)1;

__attribute__((section("socket"), used)) int reads_maps(void *ctx)
{
	int k = 0;

	return lookup(&map_a, &k) != 0 && lookup(&map_b, &k) != 0 && lookup(&map_c, &k) != 0;
}

char _license[] __attribute__((section("license"), used)) = "GPL";

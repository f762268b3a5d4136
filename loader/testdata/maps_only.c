/* An object that defines maps and no code at all, as a shared map
 * definition unit of a project would be; libbpf opens it with no programs.
 * Built with
 *   clang-19 -O2 -g -target bpfel -c maps_only.c -o maps_only.o
 */
#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name

struct {
	__uint(type, 1); /* BPF_MAP_TYPE_HASH */
	__type(key, int);
	__type(value, long);
	__uint(max_entries, 16);
} counts SEC(".maps");

char _license[] SEC("license") = "GPL";

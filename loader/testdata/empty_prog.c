/* A program whose body is all undefined behaviour: clang -O1 emits its
 * symbol with size 0 at the offset of the next program of the section.
 * libbpf refuses the object ("sec 'socket': corrupted program 'a_empty',
 * offset 0, size 0"); cilium/ebpf read the next program's func_info for it.
 * Built with
 *   clang-19 -O1 -g -target bpfel -c empty_prog.c -o empty_prog.o
 */
#define SEC(name) __attribute__((section(name), used))

SEC("socket") int a_empty(void *ctx) { __builtin_unreachable(); }
SEC("socket") int b_plain(void *ctx) { return 1; }
static __attribute__((noinline)) int sub(int x) { return x + 1; }
SEC("socket") int c_call(void *ctx) { return sub((long)ctx) & 1; }
char LICENSE[] SEC("license") = "GPL";

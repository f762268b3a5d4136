/* One unit of a program built from two, not linked: shared_limit and
 * shared_base are defined in the other unit, and the .kconfig section (LINUX_KERNEL_VERSION)
 * makes cilium/ebpf take it for a kconfig value it cannot find. Built with
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c unlinked_extern.c -o unlinked_extern.o
 */
extern int shared_limit;
extern int shared_base;
extern unsigned int LINUX_KERNEL_VERSION __attribute__((section(".kconfig")));

__attribute__((section("socket"), used)) int reads_extern(void *ctx)
{
	return shared_limit + shared_base + LINUX_KERNEL_VERSION;
}

char _license[] __attribute__((section("license"), used)) = "GPL";

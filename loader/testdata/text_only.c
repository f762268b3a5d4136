/* An object built without SEC() annotations: every function lands in
 * .text, as in the test objects of PREVAIL's ebpf-samples. Built with
 *   clang-19 -O2 -g -target bpfel -mcpu=v3 -c text_only.c -o text_only.o
 *   llvm-strip-19 -g text_only.o
 */
static __attribute__((noinline, optnone)) int twice(int x)
{
	return x * 2;
}

int first(void *ctx)
{
	return twice(1);
}

int second(void *ctx)
{
	return 0;
}

char _license[] __attribute__((section("license"), used)) = "GPL";

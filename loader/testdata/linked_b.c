/* The other unit of linked.o (see linked_a.c): its own static twice(). */
static __attribute__((noinline)) int twice(int x)
{
	return x + x + 1;
}

__attribute__((section("socket"), used)) int second(void *ctx)
{
	return twice(ctx == 0);
}

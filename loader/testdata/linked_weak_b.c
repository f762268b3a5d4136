/* The other unit of linked_weak.o (see linked_weak_a.c): its scale() is
 * dropped at link time; offset() lies after that dead copy in .text, so
 * its BTF function and line records follow the dead copy's, and a loader
 * that gives it the dead copy's func info (a global function of one
 * argument) has the kernel read its second argument uninitialised. */
__attribute__((weak, noinline)) int scale(int x)
{
	return x * 3;
}

static __attribute__((noinline)) int offset(int x, int y)
{
	return x + y;
}

const volatile int limit = 2;

__attribute__((section("socket"), used)) int second(void *ctx)
{
	return (scale(ctx == 0) + offset(ctx != 0, limit)) & 1;
}

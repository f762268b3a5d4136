/* bpf_snprintf's format string as bpf_bprintf_prepare parses it.
 *
 * A bare %p (followed by the end, a space or punctuation) moves on
 * without consuming the byte after it: a '%' there starts a conversion
 * of its own, so "%p%d" is two conversions and "%p%%" one and a literal
 * percent sign. %pK, %px, %ps and %pS consume their letter.
 *
 * isspace and ispunct are the kernel's (lib/ctype.c), whose table is
 * Latin-1: 0xa0 is white space, 0xa1-0xbf, 0xd7 and 0xf7 punctuation,
 * so each may follow %p or %s; 0xc0 is a letter and may not. */
#include "progs.h"
char _license[] SEC("license") = "GPL";

static const char s26_p_d[] = "%p%d";
static const char s26_p_p[] = "%p%p";
static const char s26_p_pct[] = "%p%%";
static const char s26_p_lone[] = "%p%";
static const char s26_p_nbsp[] = "%p\xa0";
static const char s26_s_punct[] = "%s\xa1 %s\xd7";
static const char s26_s_letter[] = "%s\xc0";

/* Formats fmt with n u64 arguments (all zero). */
static __always_inline long s26_format(const char *fmt, __u32 n)
{
	unsigned long long args[2] = {};
	char out[16];

	return bpf_snprintf(out, sizeof(out), fmt, args, n * sizeof(args[0]));
}

// vercheck: reject "Invalid format string"
SEC("socket")
int s26_bare_p_then_d_one_arg(void *ctx)
{
	return s26_format(s26_p_d, 1);
}

// vercheck: accept
SEC("socket")
int s26_bare_p_then_d_two_args(void *ctx)
{
	return s26_format(s26_p_d, 2);
}

// vercheck: reject "Invalid format string"
SEC("socket")
int s26_bare_p_then_p_one_arg(void *ctx)
{
	return s26_format(s26_p_p, 1);
}

// vercheck: accept
SEC("socket")
int s26_bare_p_then_percent(void *ctx)
{
	return s26_format(s26_p_pct, 1);
}

// vercheck: reject "Invalid format string"
SEC("socket")
int s26_bare_p_then_lone_percent(void *ctx)
{
	return s26_format(s26_p_lone, 2);
}

// vercheck: accept
SEC("socket")
int s26_p_then_latin1_space(void *ctx)
{
	return s26_format(s26_p_nbsp, 1);
}

// vercheck: accept
SEC("socket")
int s26_s_then_latin1_punct(void *ctx)
{
	return s26_format(s26_s_punct, 2);
}

// vercheck: reject "Invalid format string"
SEC("socket")
int s26_s_then_latin1_letter(void *ctx)
{
	return s26_format(s26_s_letter, 1);
}

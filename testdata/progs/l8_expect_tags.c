#include "progs.h"

/* Programs that carry the kernel selftests' expectation tags (bpf_misc.h's
 * __success, __failure, __msg, __log_level), for `vercheck --expect`
 * (TestExpectFlag). The first two tags say what the kernel decides; the
 * third's tag is wrong on purpose (it says __failure for a program the
 * kernel accepts), so that the check has a difference to find. */

/* The tags are written out (bpf_misc.h wraps them in macros) so that the
 * expectation comments still name the function that follows them. */

/* Accepted; the level-2 log shows r0's constant, then the exit. */
// vercheck: accept
SEC("socket")
__attribute__((btf_decl_tag("comment:test_expect_success")))
__attribute__((btf_decl_tag("comment:test_log_level=2")))
__attribute__((btf_decl_tag("comment:test_expect_msg=0: (b7) r0 = 7")))
__attribute__((btf_decl_tag("comment:test_expect_msg={{R0=(0x)?7$}}")))
__attribute__((btf_decl_tag("comment:test_expect_msg=1: (95) exit")))
__naked int l8_tag_success(void)
{
	asm volatile(
		"r0 = 7;"
		"exit;"
		::: __clobber_all);
}

/* An uninitialised register read. */
// vercheck: reject "R2 !read_ok"
SEC("socket")
__attribute__((btf_decl_tag("comment:test_expect_failure")))
__attribute__((btf_decl_tag("comment:test_expect_msg=R2 !read_ok")))
__naked int l8_tag_failure(void)
{
	asm volatile(
		"r0 = r2;"
		"exit;"
		::: __clobber_all);
}

/* Accepted by the kernel; the tag says otherwise on purpose. */
// vercheck: accept
SEC("socket")
__attribute__((btf_decl_tag("comment:test_expect_failure")))
__attribute__((btf_decl_tag("comment:test_expect_msg=this message is nowhere")))
__naked int l8_tag_wrong(void)
{
	asm volatile(
		"r0 = 0;"
		"exit;"
		::: __clobber_all);
}

char _license[] SEC("license") = "GPL";

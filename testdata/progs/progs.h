/* Shared definitions for the vercheck test programs.
 *
 * Each program carries its expected verdict in a comment on the line(s)
 * before its definition:
 *
 *     // vercheck: accept
 *     // vercheck: reject "substring of the kernel's decisive log line"
 *
 * See README.md.
 */
#ifndef VERCHECK_PROGS_H
#define VERCHECK_PROGS_H

#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* A function made only of inline assembly: no prologue, no epilogue. */
#define __naked __attribute__((naked))

/* Operands for inline assembly: a helper's number or a map's address. */
#define __imm(name) [name] "i"(name)
#define __imm_const(name, expr) [name] "i"(expr)
#define __imm_addr(name) [name] "i"(&name)

/* Clobber list for naked functions that use every register. */
#define __clobber_all "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "memory"

#endif

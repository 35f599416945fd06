/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test functions of kprobes_opt_kunit.c, written in assembly there,
 * and the table of the probe points' offsets inside them.
 */
#ifndef _X86_KPROBES_OPT_KUNIT_H
#define _X86_KPROBES_OPT_KUNIT_H

#include <linux/types.h>

/* indexed by the KPO_* points of kprobes_opt_kunit.c */
extern const s32 kpo_offsets[];

u32 kpo_plain(u32 x);		/* x + 7 */
u32 kpo_other(u32 x);		/* x + 7 */
u32 kpo_edge(u32 x);		/* x + 6 */
u32 kpo_jumpin(u32 x);		/* x ? x + 3 : 2 */
u32 kpo_indirect(u32 x);	/* x + 3 */
u32 kpo_extable(const u32 *p);	/* *p, or 0xdead if it faults */
u32 kpo_fixup(const u32 *p);	/* *p + 3, or 0xdead + 2 if it faults */
u32 kpo_jl(u32 x);		/* x + 3, or x + 101 with the key on */
u32 kpo_call(u32 x);		/* x + 3 */
void kpo_copy(void *dst, const void *src, unsigned long n);
void kpo_regs(unsigned long *out);
u32 kpo_long(u32 x);		/* x + 0x1000 */
u32 kpo_jlt(u32 x);		/* x + 3, or x + 2 with the key on */
u32 kpo_cold(u32 x);		/* x ? x + 3 : 102 */
/* x + 3; x == ~0 also jumps back into the body through a thunk: 4 */
u32 kpo_retpoline(u32 x);
u32 kpo_nameless(u32 x);
void kpo_nameless_host(void);	/* its second byte: a nameless thunk */

#endif /* _X86_KPROBES_OPT_KUNIT_H */

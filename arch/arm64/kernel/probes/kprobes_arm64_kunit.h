/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test functions of the arm64 KUnit suites, written in assembly in
 * their files, and the table of kprobes_arm64_kunit.c's probe points'
 * offsets from kpa_text.
 */
#ifndef _ARM64_KPROBES_ARM64_KUNIT_H
#define _ARM64_KPROBES_ARM64_KUNIT_H

#include <linux/types.h>

/* indexed by the KPA_* points of kprobes_arm64_kunit.c */
extern const s32 kpa_off[];
extern char kpa_text[];

u64 kpa_b(u64 x);		/* x + 1 */
u64 kpa_bl(u64 x);		/* x + 3 */
u64 kpa_bcond(u64 x);		/* x == 5 */
u64 kpa_cbnz(u64 x);		/* (u32)x != 0 */
u64 kpa_tbnz(u64 x);		/* bit 33 of x */
u64 kpa_br(u64 x);		/* 5 */
u64 kpa_blr(u64 x);		/* x + 3 */
u64 kpa_ret(u64 x);		/* 11 */
u64 kpa_retaa(u64 x);		/* 21 */
u64 kpa_pac(u64 x, u64 *signed_x);	/* x, and x signed with key A, SP */
u64 kpa_adr(void);		/* kpa_text */
u64 kpa_adrp(void);		/* the page of the ADRP */
u64 kpa_ldr_x(void);
u64 kpa_ldr_w(void);
u64 kpa_ldrsw(void);
void kpa_ldr_q(void *out);	/* 32 bytes: q0, then q1 from LDR S */
u64 kpa_hints(u64 x);		/* NOP, BTI, PRFM: x */
u64 kpa_step(const u64 *p);	/* *p + 5 */
u64 kpa_mrs(void);		/* current */
u64 kpa_excl(u64 *p);		/* ++*p */
u64 kpa_acquire(u64 *p);	/* ++*p, with LDAR and STLR */
u64 kpa_min(s64 a, s64 b);	/* SUBS then CSEL: the smaller */
void kpa_rejects(void);		/* never called */
void kpa_atomics(void);		/* never called: the CPU may lack LSE */

/* ftrace sites: kpa_ft_marked() calls kpa_ft_target(), which is C */
u64 kpa_ft_marked(u64 a);
u64 kpa_ft_target(u64 a, u64 b, u64 c, u64 d, u64 e, u64 f, u64 g, u64 h);

/* kprobes_arm64_boost_kunit.c: each probed at its second word */
u64 kpb_load(const u64 *p);	/* *p + 1 */
void kpb_store(u64 *p, u64 v);	/* *p = v */
u64 kpb_push(u64 x);		/* x + 2, with a frame record pushed */
u64 kpb_mrs(void);		/* current */
u64 kpb_add(u64 x);		/* x + 7 */
u64 kpb_fixup(const u64 *p);	/* *p; p itself if the load faults */

#endif /* _ARM64_KPROBES_ARM64_KUNIT_H */

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

/* kprobes_arm64_opt_kunit.c: the probed word is given with each */
u64 kpo_load(const u64 *p);		/* *p + 1; word 1 (LDR) probed */
u64 kpo_nop(u64 x);			/* x + 4; word 1 (NOP) probed */
u64 kpo_adr(void);			/* its own address; word 1 (ADR) */
u64 kpo_fixup(const u64 *p);		/* *p, or p if the load faults */
u64 kpo_pad(u64 x);			/* x + 6; word 0 (BTI C) probed */
u64 kpo_flags(u64 a, u64 b);		/* a == b; word 2 (MOV) probed */
u64 kpo_regs(u64 x);			/* x + 9; word 1 (ADD) probed */
u64 kpo_moved(u64 a, u64 b);		/* a + b, or what a handler moved to */
u64 kpo_entry(u64 x);			/* x + 2; word 0 (STP) probed */
u64 kpo_b(u64 x);			/* x + 1; word 1 (B) */
u64 kpo_bcond(u64 x);			/* x == 5; word 2 (B.EQ) */
u64 kpo_cbz(u64 x);			/* x ? 7 : 9; word 1 (CBZ) */
u64 kpo_tbnz(u64 x);			/* bit 3 of x ? 9 : 7; word 1 (TBNZ) */
u64 kpo_bl(u64 x);			/* x + 3; word 3 (BL kpo_callee) */
u64 kpo_blr(u64 x, u64 (*fn)(u64));	/* fn(x); word 3 (BLR x1) */
u64 kpo_callee(u64 x);			/* x + 2 */
u64 kpo_adrp(void);			/* its own page; word 1 (ADRP) */
u64 kpo_ldr_x(void);			/* a literal quad; word 1 */
u64 kpo_ldr_w(void);			/* a literal word; word 1 */
u64 kpo_ldrsw(void);			/* that word, sign-extended; word 1 */
u64 kpo_ret(void);			/* 11; word 2 (RET) */
extern char kpo_moved_to[];	/* where a handler moves kpo_moved */

#endif /* _ARM64_KPROBES_ARM64_KUNIT_H */

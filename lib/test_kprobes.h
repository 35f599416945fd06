/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What test_kprobes.c writes in assembly on x86_64, declared for its C
 * code. Included on x86_64 only.
 */
#ifndef _LIB_TEST_KPROBES_H
#define _LIB_TEST_KPROBES_H

#include <linux/types.h>

/* Returns, indirect jumps and a prefixed call, written as whole functions. */
u32 kpt_insn_ret(u32 x);
u32 kpt_insn_retimm(u32 x);
u32 kpt_insn_ijmp(u32 x);
u32 kpt_insn_ijmp_mem(u32 x);
u32 kpt_insn_cscall(u32 x);

/* Labels on probed instructions inside the test functions' asm. */
extern const u8 kpt_at_jcc[], kpt_at_jmp[], kpt_at_loop[], kpt_at_rip[];
extern const u8 kpt_at_call[], kpt_at_icall[], kpt_at_pushf[];
extern const u8 kpt_at_cli[], kpt_at_sti[], kpt_at_popf[];
extern const u8 kpt_at_ret[], kpt_at_retimm[], kpt_at_ijmp[], kpt_at_ijmp_mem[];
extern const u8 kpt_at_cscall[], kpt_at_int3[];

#endif /* _LIB_TEST_KPROBES_H */

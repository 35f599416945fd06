/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What test_kprobes.c writes in assembly on x86_64, declared for its C
 * code. Included on x86_64 only.
 */
#ifndef _LIB_TEST_KPROBES_H
#define _LIB_TEST_KPROBES_H

#include <linux/types.h>

/* Returns and indirect jumps, written as whole functions. */
u32 kpt_insn_ret(u32 x);
u32 kpt_insn_retimm(u32 x);
u32 kpt_insn_ijmp(u32 x);
u32 kpt_insn_ijmp_mem(u32 x);

#endif /* _LIB_TEST_KPROBES_H */

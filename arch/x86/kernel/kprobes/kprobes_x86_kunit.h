/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kprobes_x86_kunit.c writes in assembly, for its C code: returns,
 * indirect jumps and a prefixed call written as whole functions, and the
 * labels on the probed instructions inside the test functions.
 */
#ifndef _X86_KPROBES_X86_KUNIT_H
#define _X86_KPROBES_X86_KUNIT_H

#include <linux/types.h>

u32 kpt_insn_ret(u32 x);
u32 kpt_insn_retimm(u32 x);
u32 kpt_insn_ijmp(u32 x);
u32 kpt_insn_ijmp_mem(u32 x);
u32 kpt_insn_cscall(u32 x);

extern const u8 kpt_at_jcc[], kpt_at_jmp[], kpt_at_loop[], kpt_at_rip[];
extern const u8 kpt_at_call[], kpt_at_icall[], kpt_at_icall_mem[], kpt_at_pushf[];
extern const u8 kpt_at_cli[], kpt_at_sti[], kpt_at_popf[];
extern const u8 kpt_at_ret[], kpt_at_retimm[], kpt_at_ijmp[], kpt_at_ijmp_mem[];
extern const u8 kpt_at_cscall[], kpt_at_int3[];
extern const u8 kpt_at_plain[], kpt_at_long[], kpt_at_repmovs[];

#endif /* _X86_KPROBES_X86_KUNIT_H */

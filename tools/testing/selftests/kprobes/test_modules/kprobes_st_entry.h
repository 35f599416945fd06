/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a probe on a module function's entry goes, for the modules that
 * the kprobes selftest (and the harness of the series that carries it)
 * put probes on.
 */
#ifndef _KPROBES_ST_ENTRY_H
#define _KPROBES_ST_ENTRY_H

#include <linux/types.h>
#ifdef CONFIG_MIPS
#include <asm/inst.h>
#endif

/*
 * A function of a module that begins with its ftrace call site offers no
 * place for a kprobe at offset 0.  On mips a module calls _mcount with a
 * sequence of several instructions, which ftrace turns into a branch over
 * them ("b 1f"); a probe on the function's entry goes where that branch
 * lands, the first instruction a call runs.  Elsewhere, and where the
 * function begins otherwise, 0.
 */
static inline unsigned int kst_entry_off(const void *fn)
{
#ifdef CONFIG_MIPS
	union mips_instruction insn = *(const union mips_instruction *)fn;

	if (insn.i_format.opcode == beq_op && !insn.i_format.rs &&
	    !insn.i_format.rt)
		return 4 + insn.i_format.simmediate * 4;
#endif
	return 0;
}

#endif /* _KPROBES_ST_ENTRY_H */

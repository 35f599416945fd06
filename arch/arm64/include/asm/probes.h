/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kprobes and uprobes on arm64 keep about a probed instruction.
 *
 * Both share one decoder (arch/arm64/kernel/probes/decode-insn.c): an
 * instruction is either refused, run by a C routine in the exception
 * handler ("simulated"), or copied and executed somewhere else
 * ("stepped out of line").
 */
#ifndef __ASM_ARM64_PROBES_H
#define __ASM_ARM64_PROBES_H

#include <linux/types.h>
#include <asm/insn.h>

struct pt_regs;

typedef u32 probe_opcode_t;

/*
 * A simulation routine: apply @opcode, found at @addr, to @regs, the pc
 * included.
 */
typedef void (probes_handler_t)(u32 opcode, long addr, struct pt_regs *regs);

/**
 * struct arch_probe_insn - how a probed instruction is run
 * @insn: kprobes only: the out-of-line slot (the instruction, then a BRK
 *	that ends the step); NULL when the instruction is simulated
 * @handler: the simulation routine; NULL when the instruction is stepped
 */
struct arch_probe_insn {
	probe_opcode_t *insn;
	probes_handler_t *handler;
};

#ifdef CONFIG_KPROBES
typedef u32 kprobe_opcode_t;

/**
 * struct arch_specific_insn - arm64 state of one kprobe
 * @api: the decoded instruction and how to run it
 * @boost_slot: for a stepped instruction that may also run with the
 *	probed context's masks: a second copy, followed by a B back to the
 *	next instruction, run when no post_handler waits; NULL otherwise
 * @in_handler: a stepped instruction that the BRK handler runs itself on
 *	the saved registers; its slot then ends in RET, not in a BRK
 * @ftrace_site: for a probe on a function's first instruction that fires
 *	through the function's ftrace site: that site, a word or two further
 */
struct arch_specific_insn {
	struct arch_probe_insn api;
	kprobe_opcode_t *boost_slot;
	bool in_handler;
	unsigned long ftrace_site;
};
#endif

#endif /* __ASM_ARM64_PROBES_H */

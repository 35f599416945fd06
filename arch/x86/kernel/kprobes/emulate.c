// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: carrying out probed instructions on the saved registers.
 *
 * Relative branches, calls and returns would do the wrong thing if run
 * from the slot, and CLI/STI/PUSHF/POPF would see or change the IRQs-off
 * state the slot runs in. The int3 handler applies their effect to the
 * trapped registers instead. Indirect branches run a PUSH of their target
 * in the slot (so that any fault on the operand happens in real code) and
 * are completed here once the slot's int3 has been reached.  With no
 * post_handler to call, a relative JMP or Jcc is boosted instead (core.c).
 */
#include <linux/bits.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <asm/processor-flags.h>
#include <asm/text-patching.h>

#include "common.h"

/* Flags POPF may change at CPL 0; the others keep their current value. */
#define KPX_POPF_WRITABLE						\
	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | X86_EFLAGS_ZF |\
	 X86_EFLAGS_SF | X86_EFLAGS_TF | X86_EFLAGS_IF | X86_EFLAGS_DF |\
	 X86_EFLAGS_OF | X86_EFLAGS_IOPL | X86_EFLAGS_NT |		\
	 X86_EFLAGS_AC | X86_EFLAGS_ID)

/* PUSHF stores the flags with these two cleared. */
#define KPX_PUSHF_HIDDEN	(X86_EFLAGS_RF | X86_EFLAGS_VM)

/*
 * LOOP, LOOPE and LOOPNE count rCX down (in the address size of the
 * instruction) and branch while it is not zero and the ZF condition holds;
 * JrCXZ only tests it. A 16-bit count keeps the rest of rCX, a 32-bit one
 * clears the upper half, as any 32-bit register write does.
 */
static nokprobe_inline bool kpx_loop_taken(struct kprobe *p,
					   struct pt_regs *regs)
{
	unsigned int width = p->ainsn.width;
	unsigned long mask = width >= sizeof(long) ? ~0UL :
			     BIT(width * BITS_PER_BYTE) - 1;
	unsigned long count = regs->cx & mask;
	bool zf = regs->flags & X86_EFLAGS_ZF;

	if (p->ainsn.cond == KPX_JRCXZ)
		return !count;

	count = (count - 1) & mask;
	if (width == 2)
		regs->cx = (regs->cx & ~mask) | count;
	else
		regs->cx = count;

	if (!count)
		return false;
	if (p->ainsn.cond == KPX_LOOPNE)
		return !zf;
	if (p->ainsn.cond == KPX_LOOPE)
		return zf;
	return true;
}

static nokprobe_inline void kpx_popf(struct pt_regs *regs)
{
	unsigned long val = int3_emulate_pop(regs);

	regs->flags &= ~KPX_POPF_WRITABLE;
	regs->flags |= val & KPX_POPF_WRITABLE;
}

/*
 * Carry out an emulated instruction. On entry regs are those the int3
 * trapped with; on return regs->ip is where the probed code goes on.
 */
void kprobe_x86_emulate(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long next = kprobe_x86_next_ip(p);
	unsigned long target = next + (long)p->ainsn.rel;

	switch (p->ainsn.action) {
	case KPX_JMP:
		next = target;
		break;
	case KPX_JCC:
		int3_emulate_jcc(regs, p->ainsn.cond, next, (long)p->ainsn.rel);
		return;
	case KPX_LOOP:
		if (kpx_loop_taken(p, regs))
			next = target;
		break;
	case KPX_CALL:
		int3_emulate_push(regs, next);
		next = target;
		break;
	case KPX_RET:
		next = int3_emulate_pop(regs);
		regs->sp += p->ainsn.rel;
		break;
	case KPX_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		break;
	case KPX_STI:
		regs->flags |= X86_EFLAGS_IF;
		break;
	case KPX_PUSHF:
		int3_emulate_push(regs, regs->flags & ~KPX_PUSHF_HIDDEN);
		break;
	case KPX_POPF:
		kpx_popf(regs);
		break;
	default:
		/* decode.c hands out no other emulated action */
		WARN_ON_ONCE(1);
		break;
	}
	regs->ip = next;
}
NOKPROBE_SYMBOL(kprobe_x86_emulate);

/*
 * The copy in the slot has run and its int3 trapped. Send the probed code
 * on: past the original instruction, or, for an indirect branch, to the
 * target the copy pushed.
 */
void kprobe_x86_complete_step(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long target;

	switch (p->ainsn.action) {
	case KPX_STEP_CALL:
	case KPX_STEP_JMP:
		target = int3_emulate_pop(regs);
		if (p->ainsn.action == KPX_STEP_CALL)
			int3_emulate_push(regs, kprobe_x86_next_ip(p));
		regs->ip = target;
		break;
	default:
		regs->ip = kprobe_x86_next_ip(p);
		break;
	}
}
NOKPROBE_SYMBOL(kprobe_x86_complete_step);

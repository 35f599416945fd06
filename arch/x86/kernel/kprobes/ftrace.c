// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes on ftrace sites: the fentry call takes the place of the
 * int3, and what it replaced is a 5-byte nop, so there is nothing to run
 * out of line.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/string.h>

#include <asm/text-patching.h>

#include "common.h"

/* Run @p's handlers for a call from the ftrace site @ip as an int3 would. */
static nokprobe_inline void kpx_ftrace_hit(struct kprobe *p, unsigned long ip,
					   struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned long resume_ip = regs->ip;

	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;

	/* what a pre_handler sees after an int3 at @ip */
	regs->ip = ip + INT3_INSN_SIZE;
	if (p->pre_handler && p->pre_handler(p, regs)) {
		/* ftrace resumes at the regs->ip the handler chose */
		reset_current_kprobe();
		return;
	}

	if (p->post_handler) {
		/* as if the nop had been stepped */
		regs->ip = ip + MCOUNT_INSN_SIZE;
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		p->post_handler(p, regs, 0);
	}
	regs->ip = resume_ip;
	reset_current_kprobe();
}

static nokprobe_inline void kpx_ftrace_dispatch(unsigned long ip,
						struct pt_regs *regs)
{
	struct kprobe *p = get_kprobe((kprobe_opcode_t *)ip);

	if (!p || kprobe_disabled(p))
		return;

	/* a probe hit from within another's handler only counts a miss */
	if (kprobe_running())
		kprobes_inc_nmissed_count(p);
	else
		kpx_ftrace_hit(p, ip, regs);
}

/*
 * The func of the core's ftrace_ops for probes on ftrace sites; called
 * with preemption disabled. Does nothing once ftrace has been killed.
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	int rctx;

	if (!regs || unlikely(kprobe_ftrace_disabled))
		return;

	rctx = ftrace_test_recursion_trylock(ip, parent_ip);
	if (rctx >= 0) {
		kpx_ftrace_dispatch(ip, regs);
		ftrace_test_recursion_unlock(rctx);
	}
}
NOKPROBE_SYMBOL(kprobe_ftrace_handler);

int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	p->ainsn.len = MCOUNT_INSN_SIZE;
	return 0;
}

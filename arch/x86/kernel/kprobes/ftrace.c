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
	unsigned long resume_ip = regs->ip;
	kprobe_post_handler_t post;

	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);

	/* what a pre_handler sees after an int3 at @ip */
	regs->ip = ip + INT3_INSN_SIZE;
	if (p->pre_handler && p->pre_handler(p, regs)) {
		/* ftrace resumes at the regs->ip the handler chose */
		reset_current_kprobe();
		return;
	}

	/* Once: the core may clear an aggregate's while we are in its hit. */
	post = READ_ONCE(p->post_handler);
	if (unlikely(post)) {
		/* as if the nop had been stepped */
		regs->ip = ip + MCOUNT_INSN_SIZE;
		__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_SSDONE);
		post(p, regs, 0);
	}
	regs->ip = resume_ip;
	reset_current_kprobe();
}

/*
 * The core leaves the table entry of an ops' only armed probe in
 * ops->private (kernel/kprobes_ftrace.c); with more than one, or for
 * another address, the table is asked.
 */
static nokprobe_inline struct kprobe *kpx_ftrace_entry(struct ftrace_ops *ops,
						       unsigned long ip)
{
	struct kprobe *p = READ_ONCE(ops->private);

	if (likely(p && p->addr == (kprobe_opcode_t *)ip))
		return p;
	return get_kprobe((kprobe_opcode_t *)ip);
}

/*
 * The func of the core's ftrace_ops for probes on ftrace sites.  ftrace
 * may call it preemptible.  It takes no ftrace recursion lock: a call from
 * the site of a probe while a handler runs on this CPU finds
 * kprobe_running() set and is only counted, which is all the lock would
 * have let through, and the code before that check cannot be probed.
 * Does nothing once ftrace has been killed.
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct kprobe *p;

	if (!regs || unlikely(kprobe_ftrace_disabled))
		return;

	/* for the per-CPU state, and as the table's RCU reader */
	preempt_disable_notrace();
	p = kpx_ftrace_entry(ops, ip);
	if (p && !kprobe_disabled(p)) {
		if (unlikely(kprobe_running()))
			kprobes_inc_nmissed_count(p);
		else
			kpx_ftrace_hit(p, ip, regs);
	}
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_ftrace_handler);

int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	p->ainsn.len = MCOUNT_INSN_SIZE;
	return 0;
}

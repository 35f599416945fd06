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

/*
 * Run @p's handlers for a call from the ftrace site @ip as an int3 would.
 * @nested is a constant: whether kprobe_nest_or_miss() let the hit run.
 */
static nokprobe_inline void kpx_ftrace_hit(struct kprobe *p, unsigned long ip,
					   struct pt_regs *regs, bool nested)
{
	unsigned long resume_ip = regs->ip;
	kprobe_post_handler_t post;

	kprobe_running_set(p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);

	/* what a pre_handler sees after an int3 at @ip */
	regs->ip = ip + INT3_INSN_SIZE;
	if (!p->pre_handler || !p->pre_handler(p, regs)) {
		/* Once: the core may clear an aggregate's while in its hit. */
		post = READ_ONCE(p->post_handler);
		if (unlikely(post)) {
			/* as if the nop had been stepped */
			regs->ip = ip + MCOUNT_INSN_SIZE;
			__this_cpu_write(kprobe_ctlblk.kprobe_status,
					 KPROBE_HIT_SSDONE);
			post(p, regs, 0);
		}
		regs->ip = resume_ip;
	}
	/* Else ftrace resumes at the regs->ip the pre_handler chose. */
	kprobe_running_end(nested);
}

/*
 * A hit while a probe runs on this CPU.  Out of line, so that the first
 * hit's path keeps no registers for it.
 */
static noinline notrace void kpx_ftrace_nested(struct kprobe *p,
					       unsigned long ip,
					       struct pt_regs *regs)
{
	if (kprobe_nest_or_miss(p))
		kpx_ftrace_hit(p, ip, regs, true);
}
NOKPROBE_SYMBOL(kpx_ftrace_nested);

/*
 * The func of the core's ftrace_ops for probes on ftrace sites.  ftrace
 * may call it preemptible, and calls it directly: the ops asks for no
 * recursion protection, kprobe_ftrace_lookup() takes it around the table
 * lookup.  A hit while a handler of the same context runs on this CPU is
 * only counted; one from an interrupt in a handler runs its own.
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct kprobe *p;

	if (!regs)
		return;

	preempt_disable_notrace();
	kprobe_hit_begin();
	/*
	 * The core leaves the table entry of an ops' only armed probe in
	 * ops->private (kernel/kprobes_ftrace.c), which spares the lookup.
	 */
	p = kprobe_ftrace_hit_probe(ip, parent_ip, READ_ONCE(ops->private));
	if (p && likely(!kprobe_running()))
		kpx_ftrace_hit(p, ip, regs, false);
	else if (p)
		kpx_ftrace_nested(p, ip, regs);
	kprobe_hit_end();
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_ftrace_handler);

int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	p->ainsn.len = MCOUNT_INSN_SIZE;
	return 0;
}

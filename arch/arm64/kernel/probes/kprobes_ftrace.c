// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 kprobes on ftrace sites, with no exception.
 *
 * With patchable function entries, a traced function starts with
 *
 *	[BTI C]
 *	MOV	X9, X30		(a NOP until ftrace initializes the site)
 *	BL	<ftrace>	(a NOP while nothing traces the function)
 *
 * and the BL is the ftrace site.  A probe there (the core finds it with
 * ftrace_location(), and arch_adjust_kprobe_addr() moves "the function's
 * entry" onto it) sends the site, through ftrace's path to direct-call
 * trampolines, to arch_kprobe_ftrace_caller (kprobes_trampoline.S),
 * kernel/kprobes_ftrace.c choosing the sites.  That trampoline
 * saves every general register into a pt_regs, calls
 * arm64_kprobe_ftrace_hit() and resumes at the pc the handlers leave.
 *
 * What a handler sees and may change is listed in
 * Documentation/trace/kprobes.rst ("arm64: probes on ftrace sites").
 */

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include <asm/insn.h>

/* arch_kprobe_ftrace_caller()'s C half */
void arm64_kprobe_ftrace_hit(struct pt_regs *regs);

/*
 * Run @p's handlers as a BRK at the site would, the site's instruction
 * (the BL, or a NOP to the function) being the one "stepped".
 */
static nokprobe_inline void site_hit(struct kprobe *p, unsigned long ip,
				     struct pt_regs *regs)
{
	kprobe_post_handler_t post;

	__this_cpu_write(current_kprobe, p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);

	if (p->pre_handler && p->pre_handler(p, regs)) {
		/* the trampoline resumes at the pc the handler chose */
		reset_current_kprobe();
		return;
	}

	instruction_pointer_set(regs, ip + AARCH64_INSN_SIZE);
	/* Once: the core may change an aggregate's while we are in its hit. */
	post = READ_ONCE(p->post_handler);
	if (unlikely(post)) {
		__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_SSDONE);
		post(p, regs, 0);
		/* a post_handler does not move the pc (as after a step) */
		instruction_pointer_set(regs, ip + AARCH64_INSN_SIZE);
	}
	reset_current_kprobe();
}

/**
 * arm64_kprobe_ftrace_hit() - a probed ftrace site called its trampoline
 * @regs: every register at the site, with the pc on the site itself
 *
 * Called from arch_kprobe_ftrace_caller, maybe preemptible, with the
 * probed context's interrupt mask.  A hit while a probe handler runs on
 * this CPU runs no handler and is counted in nmissed
 * (kprobe_ftrace_hit_probe()).  On return, regs->pc is where the function
 * goes on: the instruction after the site, unless a pre_handler moved it
 * and returned non-zero.
 */
void notrace arm64_kprobe_ftrace_hit(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);
	struct kprobe *p;

	preempt_disable_notrace();
	/* x9 holds the caller's return address (the site's MOV X9, X30) */
	p = kprobe_ftrace_hit_probe(ip, regs->regs[9],
				    READ_ONCE(kprobe_ftrace_direct_only));
	if (p)
		site_hit(p, ip, regs);
	else	/* the site is a NOP to the function */
		instruction_pointer_set(regs, ip + AARCH64_INSN_SIZE);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(arm64_kprobe_ftrace_hit);

/**
 * arch_prepare_kprobe_ftrace() - a probe on an ftrace site
 * @p: the probe, @p->addr the site
 *
 * Nothing runs out of line and nothing is simulated.
 *
 * Return: 0.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	p->opcode = le32_to_cpu((__force __le32)*p->addr);
	p->ainsn.api.insn = NULL;
	p->ainsn.api.handler = NULL;
	return 0;
}

/**
 * arch_adjust_kprobe_addr() - where a probe asked for at @addr + @offset goes
 * @addr: start of the function
 * @offset: offset into it
 * @on_func_entry: set when the result counts as the function's entry
 *
 * The function's entry, as x86 has it, is its ftrace site: the offsets
 * of the instructions up to the site (a BTI, the MOV X9, X30 before the
 * BL) all mean the entry and land on the site, so that "p:ev func" rides ftrace.  A
 * function without a site keeps its first instruction.
 *
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long size, site = 0;

	/*
	 * BTI C, MOV X9, X30: at most two instructions before the BL.  The
	 * search stays inside the function (and, unlike ftrace_location(),
	 * takes the size from the batch's kept symbol).
	 */
	if (kprobe_symbol_size_offset(addr, &size, NULL) && size)
		site = ftrace_location_range(addr, addr +
				min_t(unsigned long, size,
				      3 * AARCH64_INSN_SIZE) - 1);
	if (site >= addr && site - addr <= 2 * AARCH64_INSN_SIZE &&
	    offset <= site - addr && IS_ALIGNED(offset, AARCH64_INSN_SIZE)) {
		*on_func_entry = true;
		return (kprobe_opcode_t *)site;
	}
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

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
 * and the BL is the ftrace site.  A probe on the function's first
 * instruction rides that site (arch_kprobe_ftrace_site_at()) and keeps
 * the address it was given, so that BPF's bpf_get_func_ip(), perf and
 * the probe list see the function's start, as with a BRK there.  The
 * core arms the site: ftrace's path to direct-call trampolines sends it
 * to arch_kprobe_ftrace_caller (kprobes_trampoline.S), which saves every
 * general register into a pt_regs, calls arm64_kprobe_ftrace_hit() and
 * resumes at the pc the handlers leave.  Where the site is not the
 * probe's to take (another direct trampoline has it, or ftrace's calls
 * are off), kernel/kprobes_ftrace.c puts a BRK on the first instruction
 * instead, which ftrace never patches.
 *
 * What a handler sees and may change is listed in
 * Documentation/trace/kprobes.rst ("arm64: probes on ftrace sites").
 */

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include <asm/insn.h>

#include "decode-insn.h"

/* arch_kprobe_ftrace_caller()'s C half */
void arm64_kprobe_ftrace_hit(struct pt_regs *regs);

/**
 * arch_kprobe_ftrace_addr() - the probe address that rides an ftrace site
 * @site: a site that reached the probe trampoline, or ftrace's ops
 *
 * Return: the start of the function @site belongs to.
 */
kprobe_opcode_t *arch_kprobe_ftrace_addr(unsigned long site)
{
	return (kprobe_opcode_t *)arm64_ftrace_site_func(site);
}
NOKPROBE_SYMBOL(arch_kprobe_ftrace_addr);

/*
 * Run @p's handlers as a BRK on the function's first instruction would:
 * the pre_handler sees the pc at the probe; the site's instruction (the
 * BL, or a NOP to the function) is the one "stepped", after which the
 * function goes on.  @nested is a constant: whether kprobe_nest_or_miss()
 * let the hit run.
 */
static nokprobe_inline void kpf_site_hit(struct kprobe *p, unsigned long site,
					 struct pt_regs *regs, bool nested)
{
	kprobe_post_handler_t post;

	kprobe_running_set(p);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);

	instruction_pointer_set(regs, (unsigned long)p->addr);
	if (!p->pre_handler || !p->pre_handler(p, regs)) {
		instruction_pointer_set(regs, site + AARCH64_INSN_SIZE);
		/* Once: the core may change an aggregate's while in its hit. */
		post = READ_ONCE(p->post_handler);
		if (unlikely(post)) {
			__this_cpu_write(kprobe_ctlblk.kprobe_status,
					 KPROBE_HIT_SSDONE);
			post(p, regs, 0);
			/* as after a step: a post_handler keeps the pc */
			instruction_pointer_set(regs, site + AARCH64_INSN_SIZE);
		}
	}
	/* Else the trampoline resumes at the pc the pre_handler chose. */
	kprobe_running_end(nested);
}

/*
 * A hit while a probe runs on this CPU.  Out of line, so that the first
 * hit's path keeps no registers for it.
 */
static noinline void notrace kpf_site_nested(struct kprobe *p,
					     unsigned long site,
					     struct pt_regs *regs)
{
	if (kprobe_nest_or_miss(p))
		kpf_site_hit(p, site, regs, true);
	else	/* as if no probe were there */
		instruction_pointer_set(regs, site + AARCH64_INSN_SIZE);
}
NOKPROBE_SYMBOL(kpf_site_nested);

/**
 * arm64_kprobe_ftrace_hit() - a probed ftrace site called its trampoline
 * @regs: every register at the site, with the pc on the site itself
 *
 * Called from arch_kprobe_ftrace_caller, maybe preemptible, with the
 * probed context's interrupt mask.  A hit while a probe handler of the
 * same context runs on this CPU runs no handler and is counted in nmissed
 * (kprobe_ftrace_hit_probe()); one from an interrupt runs its own.  On
 * return, regs->pc is where the function goes on: the instruction after
 * the site, unless a pre_handler moved it and returned non-zero.
 */
void notrace arm64_kprobe_ftrace_hit(struct pt_regs *regs)
{
	unsigned long site = instruction_pointer(regs), addr;
	struct kprobe *p, *hint;

	preempt_disable_notrace();
	kprobe_hit_begin();
	/* The only armed site's probe knows its address: no text read. */
	hint = READ_ONCE(kprobe_ftrace_direct_only);
	if (hint && hint->ainsn.ftrace_site == site)
		addr = (unsigned long)hint->addr;
	else
		addr = arm64_ftrace_site_func(site);
	/* x9 holds the caller's return address (the site's MOV X9, X30) */
	p = kprobe_ftrace_hit_probe(addr, regs->regs[9], hint);
	if (p && likely(!kprobe_running()))
		kpf_site_hit(p, site, regs, false);
	else if (p)
		kpf_site_nested(p, site, regs);
	else	/* the site is a NOP to the function */
		instruction_pointer_set(regs, site + AARCH64_INSN_SIZE);
	kprobe_hit_end();
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(arm64_kprobe_ftrace_hit);

/**
 * arch_kprobe_ftrace_site_at() - the ftrace site a probe at @addr rides
 * @addr: a probe address
 *
 * A function that ftrace can trace starts with (BTI C,) MOV X9, X30 and
 * the BL that is its site.  A probe on its first instruction fires
 * through that site.  One on the MOV, or on the site itself, does not:
 * the former is a BRK, the latter is refused, as without kprobes on
 * ftrace.
 *
 * Return: the site, or 0 when @addr is not the start of a function that
 * has one.
 */
unsigned long arch_kprobe_ftrace_site_at(unsigned long addr)
{
	unsigned long size, offset, site;

	/* The size and offset come from the batch's kept symbol. */
	if (!kprobe_symbol_size_offset(addr, &size, &offset) || offset || !size)
		return 0;
	site = ftrace_location_range(addr, addr +
				     min_t(unsigned long, size,
					   3 * AARCH64_INSN_SIZE) - 1);
	if (site <= addr || site - addr > 2 * AARCH64_INSN_SIZE)
		return 0;
	return site;
}

/**
 * arch_prepare_kprobe_ftrace() - a probe that rides an ftrace site
 * @p: the probe, on a function's first instruction
 *
 * Nothing runs out of line and nothing is simulated while the site is
 * the probe's.  Should the probe become a BRK on its instruction, the
 * core prepares that then, with arch_prepare_kprobe().
 *
 * Return: 0, or -EINVAL when @p->addr rides no site.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	p->ainsn.ftrace_site = arch_kprobe_ftrace_site_at((unsigned long)p->addr);
	if (!p->ainsn.ftrace_site)
		return -EINVAL;
	p->opcode = le32_to_cpu((__force __le32)*p->addr);
	p->ainsn.api.insn = NULL;
	p->ainsn.api.handler = NULL;
	p->ainsn.in_handler = false;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 uprobes: the architecture half of kernel/events/uprobes.c.
 *
 * The probed instruction goes through the kprobes decoder
 * (decode-insn.c, ARM64_PROBE_USER).  Simulated ones are applied to the
 * task's registers in the BRK exception; the others are copied to the
 * task's out-of-line slot and run there under hardware single-step.
 */
#include <linux/highmem.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uprobes.h>

#include <asm/cacheflush.h>

#include "decode-insn.h"

/*
 * thread.fault_code while a step is in flight: a fault during the step
 * writes the real code over it.
 */
#define XOL_NO_FAULT	UINT_MAX

/**
 * arch_uprobe_copy_ixol() - fill a task's out-of-line slot
 * @page: the XOL page
 * @vaddr: the slot's user address
 * @src: the instruction
 * @len: its length
 */
void arch_uprobe_copy_ixol(struct page *page, unsigned long vaddr,
			   void *src, unsigned long len)
{
	void *kaddr = kmap_local_page(page);
	unsigned long slot = (unsigned long)kaddr + offset_in_page(vaddr);

	memcpy((void *)slot, src, len);
	sync_icache_aliases(slot, slot + len);
	kunmap_local(kaddr);
}

/**
 * uprobe_get_swbp_addr() - where the breakpoint that trapped is
 * @regs: the task's registers at the BRK
 *
 * Return: the BRK's address; arm64 reports the pc of the BRK itself.
 */
unsigned long uprobe_get_swbp_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs);
}

/**
 * arch_uprobe_analyze_insn() - may this user instruction carry a uprobe
 * @auprobe: the probe, with the instruction read in
 * @mm: the task's memory
 * @addr: the instruction's user address
 *
 * Return: 0, -EOPNOTSUPP for AArch32 tasks, -EINVAL for a misaligned
 * address or a rejected instruction.
 */
int arch_uprobe_analyze_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
			     unsigned long addr)
{
	struct arm64_probe_verdict v;

	if (mm->context.flags & MMCF_AARCH32)
		return -EOPNOTSUPP;
	if (!IS_ALIGNED(addr, AARCH64_INSN_SIZE))
		return -EINVAL;

	v = arm_probe_decode_insn(le32_to_cpu(auprobe->insn), &auprobe->api,
				  ARM64_PROBE_USER);
	auprobe->simulate = v.class == ARM64_PROBE_SIMULATED;
	if (v.class == ARM64_PROBE_REJECTED)
		return arm64_probe_reason_errno(v.reason);
	return 0;
}

/**
 * arch_uprobe_pre_xol() - send the task to its slot, stepping
 * @auprobe: the probe
 * @regs: the task's registers
 *
 * Return: 0.
 */
int arch_uprobe_pre_xol(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	current->thread.fault_code = XOL_NO_FAULT;
	instruction_pointer_set(regs, current->utask->xol_vaddr);
	user_enable_single_step(current);
	return 0;
}

/**
 * arch_uprobe_post_xol() - the step is done: resume after the probe
 * @auprobe: the probe
 * @regs: the task's registers
 *
 * Return: 0.
 */
int arch_uprobe_post_xol(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	struct uprobe_task *ut = current->utask;

	WARN_ON_ONCE(current->thread.fault_code != XOL_NO_FAULT);
	user_disable_single_step(current);
	instruction_pointer_set(regs, ut->vaddr + AARCH64_INSN_SIZE);
	return 0;
}

/**
 * arch_uprobe_xol_was_trapped() - did the stepped instruction fault
 * @t: the task
 *
 * Return: true when a fault replaced the marker set before the step.
 */
bool arch_uprobe_xol_was_trapped(struct task_struct *t)
{
	return t->thread.fault_code != XOL_NO_FAULT;
}

/**
 * arch_uprobe_skip_sstep() - run a simulated instruction
 * @auprobe: the probe
 * @regs: the task's registers, at the BRK
 *
 * Return: true when the instruction was simulated and no step is needed.
 */
bool arch_uprobe_skip_sstep(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	if (!auprobe->simulate)
		return false;
	auprobe->api.handler(le32_to_cpu(auprobe->insn),
			     instruction_pointer(regs), regs);
	return true;
}

/**
 * arch_uprobe_abort_xol() - give up a step (fatal signal)
 * @auprobe: the probe
 * @regs: the task's registers
 */
void arch_uprobe_abort_xol(struct arch_uprobe *auprobe, struct pt_regs *regs)
{
	user_disable_single_step(current);
	instruction_pointer_set(regs, current->utask->vaddr);
}

/**
 * arch_uretprobe_is_alive() - is a uretprobe's frame still on the stack
 * @ret: the return instance
 * @ctx: RP_CHECK_CHAIN_CALL when the probed function was reached by a
 *	tail branch from another probed one
 * @regs: the task's registers
 *
 * The stack grows down: a frame is gone once sp is above where it was.
 * A chained call shares its caller's sp, so equality still counts as
 * alive there.
 *
 * Return: true while the frame is live.
 */
bool arch_uretprobe_is_alive(struct return_instance *ret, enum rp_check ctx,
			     struct pt_regs *regs)
{
	if (regs->sp < ret->stack)
		return true;
	return ctx == RP_CHECK_CHAIN_CALL && regs->sp == ret->stack;
}

/**
 * arch_uretprobe_hijack_return_addr() - return into the uretprobe trampoline
 * @trampoline_vaddr: the trampoline's user address
 * @regs: the task's registers at the function's entry
 *
 * Return: the original return address, from the link register.
 */
unsigned long arch_uretprobe_hijack_return_addr(unsigned long trampoline_vaddr,
						struct pt_regs *regs)
{
	unsigned long ret_addr = procedure_link_pointer(regs);

	procedure_link_pointer_set(regs, trampoline_vaddr);
	return ret_addr;
}

/**
 * arch_uprobe_exception_notify() - die notifier hook; unused on arm64
 * @self: the notifier
 * @val: the event
 * @data: its data
 *
 * Return: NOTIFY_DONE.
 */
int arch_uprobe_exception_notify(struct notifier_block *self,
				 unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

/**
 * uprobe_brk_handler() - BRK #UPROBES_BRK_IMM from user space
 * @regs: the task's registers
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED when a uprobe took it.
 */
int uprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	return uprobe_pre_sstep_notifier(regs) ? DBG_HOOK_HANDLED :
						 DBG_HOOK_ERROR;
}

/**
 * uprobe_single_step_handler() - the step from the slot completed
 * @regs: the task's registers, just after the slot
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED when a uprobe step was in flight.
 */
int uprobe_single_step_handler(struct pt_regs *regs, unsigned long esr)
{
	struct uprobe_task *ut = current->utask;

	/* Only a branch could leave the slot elsewhere, and none is stepped. */
	if (ut && ut->state == UTASK_SSTEP)
		WARN_ON_ONCE(instruction_pointer(regs) !=
			     ut->xol_vaddr + AARCH64_INSN_SIZE);
	return uprobe_post_sstep_notifier(regs) ? DBG_HOOK_HANDLED :
						  DBG_HOOK_ERROR;
}

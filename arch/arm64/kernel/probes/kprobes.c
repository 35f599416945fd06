// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 kprobes: BRK breakpoints, simulation and out-of-line steps.
 *
 * A probe replaces its instruction with BRK #KPROBES_BRK_IMM.  On a hit
 * the handlers run in the debug exception, with every exception masked,
 * and the instruction is then run in one of two ways (decode-insn.c):
 *
 *  - simulated: the routine applies it to pt_regs and the post_handler
 *    runs at once; one exception per hit;
 *  - stepped: the probed context resumes, still fully masked, at a slot
 *    holding the instruction followed by BRK #KPROBES_BRK_SS_IMM; that
 *    second BRK brings us back, the pc goes to the instruction after the
 *    probe, DAIF gets its value back and the post_handler runs;
 *  - boosted: when no post_handler waits and the instruction may run
 *    anywhere (kpa_boostable()), the hit is over before the instruction
 *    runs, and the probed context resumes with its own masks at a second
 *    copy followed by a B back to the next instruction: one exception
 *    per hit instead of two.
 *
 * A probe hit while a handler runs or while an instruction is stepped
 * (a reentered hit) runs no handler and is counted in nmissed; its
 * instruction is still run, and the interrupted probe is resumed after.
 * A hit from a deeper context (an NMI) is not reentry: it runs as a hit
 * of its own (kprobe_nest_begin()).
 *
 * kretprobes return through __kretprobe_trampoline (kprobes_trampoline.S),
 * which builds a pt_regs and calls the core's return handler.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/extable.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/ptrace.h>
#include <linux/sched/debug.h>
#include <linux/vmalloc.h>

#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>
#include <asm/sections.h>
#include <asm/virt.h>

#include "decode-insn.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* Where the step ends: the BRK after the copied instruction. */
static kprobe_opcode_t *kpa_slot_end(struct kprobe *p)
{
	return p->ainsn.api.insn + 1;
}

/**
 * arch_alloc_insn_page_within() - a slot page inside an address range
 * @start: the lowest address the page may start at
 * @end: the address the page must end at or before
 *
 * A boost slot branches back to its probe with a B, which reaches 128 MB
 * either way.  Neither execmem's kprobes range (all of vmalloc space) nor
 * its module range (with RANDOMIZE_MODULE_REGION_FULL, Debian's choice, a
 * random 2 GB window around the kernel image) keeps a page that close, so
 * boost slots come from pages taken here, in the part of the range that
 * vmalloc space covers (modules, then the kernel image, then the rest).
 *
 * Return: the page, read-only and executable, or NULL.
 */
void *arch_alloc_insn_page_within(unsigned long start, unsigned long end)
{
	start = max(start, MODULES_VADDR);
	end = min(end, VMALLOC_END);
	if (start >= end)
		return NULL;
	return __vmalloc_node_range(PAGE_SIZE, PAGE_SIZE, start, end, GFP_KERNEL,
				    PAGE_KERNEL_ROX, VM_FLUSH_RESET_PERMS,
				    NUMA_NO_NODE, __builtin_return_address(0));
}

/*
 * A stepped instruction may also run with the probed context's own masks,
 * the probe done with, unless a fault in it needs the probe to be mapped
 * back to its address: an exception-table entry is looked up by the pc of
 * the fault, which is then in the boost slot.  Register-only instructions
 * run in the handler already cost one exception.
 */
static bool kpa_boostable(struct kprobe *p)
{
	return !p->ainsn.in_handler &&
	       !search_exception_tables((unsigned long)p->addr);
}

/*
 * The boost slot: the instruction, then a B to the one after the probe.
 * Without one, when the slot lies out of the B's reach or no slot is
 * left, every hit is stepped.
 */
static void kpa_prepare_boost(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr, from;
	kprobe_opcode_t *slot;
	u32 back;

	/*
	 * The B at slot + 1 goes to p->addr + 1: the slot's page lies less
	 * than 128 MB from the probe, minus a page for the slot's offset.
	 */
	slot = __get_insn_slot_within(&kprobe_insn_slots,
				      addr - (SZ_128M - PAGE_SIZE),
				      addr + (SZ_128M - PAGE_SIZE));
	if (!slot)
		return;
	/* Checked first: the encoder logs an error for every miss. */
	from = (unsigned long)(slot + 1);
	if (WARN_ON_ONCE(!arm64_b_reaches(from, addr + AARCH64_INSN_SIZE))) {
		free_insn_slot(slot, 0);
		return;
	}
	back = aarch64_insn_gen_branch_imm(from, addr + AARCH64_INSN_SIZE,
					   AARCH64_INSN_BRANCH_NOLINK);
	if (back == AARCH64_BREAK_FAULT ||
	    aarch64_insn_patch_text_nosync(slot, p->opcode) ||
	    aarch64_insn_patch_text_nosync(slot + 1, back)) {
		free_insn_slot(slot, 0);
		return;
	}
	p->ainsn.boost_slot = slot;
}

static int kpa_prepare_slot(struct kprobe *p)
{
	kprobe_opcode_t *slot = get_insn_slot();
	u32 tail;
	int ret;

	if (!slot)
		return -ENOMEM;
	/*
	 * The slot is not live yet: no other CPU can run it before the
	 * probe's BRK is written, and the exception taken on that BRK
	 * synchronizes this CPU's instruction stream with the slot.
	 */
	/*
	 * A register-only instruction is called from the handler and
	 * returns to it (BLR, so not where BTI guards the slot's page);
	 * any other is stepped and ends in the step's BRK.
	 */
	p->ainsn.in_handler = !IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) &&
			      arm64_insn_register_only(p->opcode);
	tail = p->ainsn.in_handler ? aarch64_insn_gen_branch_reg(AARCH64_INSN_REG_LR,
							   AARCH64_INSN_BRANCH_RETURN) :
				     BRK64_OPCODE_KPROBES_SS;
	ret = aarch64_insn_patch_text_nosync(slot, p->opcode);
	if (!ret)
		ret = aarch64_insn_patch_text_nosync(slot + 1, tail);
	if (ret) {
		free_insn_slot(slot, 0);
		return ret;
	}
	p->ainsn.api.insn = slot;
	if (kpa_boostable(p))
		kpa_prepare_boost(p);
	return 0;
}

/**
 * arch_prepare_kprobe() - decide how a probed instruction will run
 * @p: the probe, with @p->addr set
 *
 * Return: 0; -EINVAL for a misaligned address or a rejected instruction
 * (the reason is logged); -ENOMEM when no slot is left.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	struct arm64_probe_verdict v;

	if (!IS_ALIGNED((unsigned long)p->addr, AARCH64_INSN_SIZE))
		return -EINVAL;

	p->opcode = le32_to_cpu((__force __le32)*p->addr);
	p->ainsn.api.insn = NULL;
	p->ainsn.boost_slot = NULL;
	p->ainsn.in_handler = false;
	v = arm_kprobe_decode_insn(p->addr, &p->ainsn);
	switch (v.class) {
	case ARM64_PROBE_SIMULATED:
		return 0;
	case ARM64_PROBE_STEPPED:
		return kpa_prepare_slot(p);
	case ARM64_PROBE_REJECTED:
	default:
		/* A sweep over many functions meets many: keep the log short. */
		pr_info_ratelimited("%pS: %08x %s, not probed\n", p->addr,
				    p->opcode, arm64_probe_reason_str(v.reason));
		return arm64_probe_reason_errno(v.reason);
	}
}

static void kpa_poke_probe(kprobe_opcode_t *addr, u32 insn)
{
	void *where = addr;

	/*
	 * Through stop_machine(): the probed instruction may be anything,
	 * and the architecture allows a concurrent change only between a
	 * few kinds.
	 */
	aarch64_insn_patch_text(&where, &insn, 1);
}

/**
 * arch_arm_kprobe() - write the probe's BRK
 * @p: the prepared probe
 */
void arch_arm_kprobe(struct kprobe *p)
{
	kpa_poke_probe(p->addr, BRK64_OPCODE_KPROBES);
}

/**
 * arch_disarm_kprobe() - put the original instruction back
 * @p: the armed probe
 */
void arch_disarm_kprobe(struct kprobe *p)
{
	kpa_poke_probe(p->addr, p->opcode);
}

/* A batch's instructions, one stop_machine() per chunk; text_mutex. */
#define KPROBE_PATCH_CHUNK	512

static void *kpa_poke_addrs[KPROBE_PATCH_CHUNK];
static u32 kpa_poke_insns[KPROBE_PATCH_CHUNK];
static int kpa_poke_count;

/**
 * arm64_kprobe_poke_flush() - write the instructions queued so far
 *
 * With text_mutex and cpus_read_lock() held, as for every queued one.
 */
void arm64_kprobe_poke_flush(void)
{
	lockdep_assert_held(&text_mutex);
	if (kpa_poke_count)
		aarch64_insn_patch_text(kpa_poke_addrs, kpa_poke_insns,
					kpa_poke_count);
	kpa_poke_count = 0;
}

/**
 * arm64_kprobe_poke_queue() - queue a write of @insn at @addr
 * @addr: a probe address
 * @insn: a BRK, a B, or the probed instruction
 *
 * Written by arm64_kprobe_poke_flush(), or here once the queue is full.
 */
void arm64_kprobe_poke_queue(kprobe_opcode_t *addr, u32 insn)
{
	lockdep_assert_held(&text_mutex);
	kpa_poke_addrs[kpa_poke_count] = addr;
	kpa_poke_insns[kpa_poke_count] = insn;
	if (++kpa_poke_count == KPROBE_PATCH_CHUNK)
		arm64_kprobe_poke_flush();
}

static void kpa_poke_probes(struct kprobe **ps, int num, bool arm)
{
	int i;

	for (i = 0; i < num; i++)
		arm64_kprobe_poke_queue(ps[i]->addr,
					arm ? BRK64_OPCODE_KPROBES : ps[i]->opcode);
	arm64_kprobe_poke_flush();
}

/**
 * arch_arm_kprobes() - write the BRKs of a batch, stopping the machine once
 * @entries: prepared probes
 * @num: how many
 */
void arch_arm_kprobes(struct kprobe **entries, int num)
{
	kpa_poke_probes(entries, num, true);
}

/**
 * arch_disarm_kprobes() - put a batch's instructions back, likewise
 * @entries: armed probes
 * @num: how many
 */
void arch_disarm_kprobes(struct kprobe **entries, int num)
{
	kpa_poke_probes(entries, num, false);
}

/**
 * arch_remove_kprobe() - release what arch_prepare_kprobe() took
 * @p: the disarmed probe
 */
void arch_remove_kprobe(struct kprobe *p)
{
	/*
	 * The step slot runs with every exception masked, and nothing is
	 * left in it once the BRK is gone.  The boost slot runs with the
	 * probed context's masks: a task interrupted, or preempted, in it
	 * comes back later, so it is freed dirty, to be handed out again
	 * only once no task can be there.
	 */
	if (p->ainsn.boost_slot) {
		free_insn_slot(p->ainsn.boost_slot, 1);
		p->ainsn.boost_slot = NULL;
	}
	if (!p->ainsn.api.insn)
		return;
	free_insn_slot(p->ainsn.api.insn, 0);
	p->ainsn.api.insn = NULL;
}

/*
 * The step runs with every exception masked.  Where pseudo-NMIs mask
 * interrupts in the GIC rather than in DAIF, its priority mask must say
 * so too: irqs_disabled() reads only the mask, and the fault path would
 * otherwise take a fault in the slot for one in preemptible code.
 */
static nokprobe_inline void
kpa_step_mask(struct kprobe_ctlblk *kcb, struct pt_regs *regs)
{
	kcb->saved_daif = regs->pstate & DAIF_MASK;
	regs->pstate |= DAIF_MASK;
	if (system_uses_irq_prio_masking()) {
		kcb->saved_pmr = regs->pmr_save;
		regs->pmr_save = GIC_PRIO_IRQON | GIC_PRIO_PSR_I_SET;
	}
}

/* The probed context's masks back in @regs, once the step is over. */
static nokprobe_inline void
kpa_step_unmask(struct kprobe_ctlblk *kcb, struct pt_regs *regs)
{
	regs->pstate = (regs->pstate & ~DAIF_MASK) | kcb->saved_daif;
	if (system_uses_irq_prio_masking())
		regs->pmr_save = kcb->saved_pmr;
}

/* A reentered hit is over: the probe it interrupted is current again. */
static nokprobe_inline void kpa_unnest(struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(current_kprobe, kcb->outer.kp);
	kcb->kprobe_status = kcb->outer.status;
	kcb->saved_daif = kcb->outer.daif;
	kcb->saved_pmr = kcb->outer.pmr;
}

/*
 * The post_handler, once the instruction has run; ends the hit.  Inline,
 * as is kpa_run_insn(): a call frame each would cost a simulated hit
 * about a tenth of its handling.
 */
static nokprobe_inline void kpa_insn_done(struct kprobe *p,
					  struct kprobe_ctlblk *kcb,
					  struct pt_regs *regs)
{
	/* Once: the core may clear an aggregate's while we are in its hit. */
	kprobe_post_handler_t post = READ_ONCE(p->post_handler);

	if (kcb->kprobe_status == KPROBE_REENTER) {
		kpa_unnest(kcb);
		return;
	}
	if (post) {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		post(p, regs, 0);
	}
	kprobe_running_done();
}

/*
 * Run the probed instruction: at once when it is simulated or runs in
 * the handler, otherwise by resuming at its slot with every exception
 * masked, so that the per-CPU state stays ours until the step's BRK comes
 * back.
 */
static nokprobe_inline void kpa_run_insn(struct kprobe *p,
					 struct kprobe_ctlblk *kcb,
					 struct pt_regs *regs)
{
	if (p->ainsn.api.handler) {
		p->ainsn.api.handler(p->opcode, (long)p->addr, regs);
		kpa_insn_done(p, kcb, regs);
		return;
	}
	if (p->ainsn.in_handler) {
		arm64_kprobe_run_insn(regs, p->ainsn.api.insn);
		instruction_pointer_set(regs, (unsigned long)(p->addr + 1));
		kpa_insn_done(p, kcb, regs);
		return;
	}
	if (kcb->kprobe_status != KPROBE_REENTER)
		kcb->kprobe_status = KPROBE_HIT_SS;
	kpa_step_mask(kcb, regs);
	regs->pstate &= ~PSR_BTYPE_MASK;
	instruction_pointer_set(regs, (unsigned long)p->ainsn.api.insn);
}

/*
 * Boost: with no post_handler to call after the instruction, the hit ends
 * here and the copy that branches back by itself runs with the probed
 * context's masks, so that an interrupt, or preemption, in it is as
 * harmless as in the original.
 */
static nokprobe_inline bool kpa_boost(struct kprobe *p, struct pt_regs *regs)
{
	kprobe_opcode_t *slot = p->ainsn.boost_slot;

	if (!slot || READ_ONCE(p->post_handler))
		return false;
	regs->pstate &= ~PSR_BTYPE_MASK;
	instruction_pointer_set(regs, (unsigned long)slot);
	return true;
}

/*
 * A hit on this CPU while another probe's handler or step is in
 * progress.  Only the instruction runs; the outer probe is parked in
 * kcb->outer.  A hit while a reentered one is stepped would mean a probe
 * inside the step itself, which the blacklist excludes.
 */
static bool kpa_reenter(struct kprobe *p, struct kprobe_ctlblk *kcb,
			struct pt_regs *regs)
{
	if (kcb->kprobe_status == KPROBE_REENTER) {
		pr_err("probe at %pS hit while another reentered probe runs\n",
		       p->addr);
		dump_kprobe(p);
		return false;
	}
	kprobes_inc_nmissed_count(p);
	/* Nothing of the outer probe's state is touched by a boost. */
	if (kpa_boost(p, regs))
		return true;
	kcb->outer.kp = kprobe_running();
	kcb->outer.status = kcb->kprobe_status;
	kcb->outer.daif = kcb->saved_daif;
	kcb->outer.pmr = kcb->saved_pmr;
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_REENTER;
	kpa_run_insn(p, kcb, regs);
	return true;
}
NOKPROBE_SYMBOL(kpa_reenter);

/**
 * kprobe_brk_handler() - a kprobe's BRK was hit
 * @regs: the probed context
 * @esr: the exception syndrome
 *
 * Called by the debug exception code for BRK #KPROBES_BRK_IMM.
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR when no probe owns it.
 */
int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)instruction_pointer(regs);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = get_kprobe(addr);

	/* kernel/kprobes_hits.c counts on it. */
	lockdep_assert_irqs_disabled();
	if (!p) {
		/* Removed meanwhile: run whatever is there now. */
		if (le32_to_cpu((__force __le32)READ_ONCE(*addr)) != BRK64_OPCODE_KPROBES)
			return DBG_HOOK_HANDLED;
		return DBG_HOOK_ERROR;
	}

	/*
	 * The debug exception leaves preempt_count() alone: the context is
	 * the one the BRK interrupted.  A hit from a deeper context than the
	 * running probe's (an NMI) runs as a hit of its own.
	 */
	if (kprobe_running() && !kprobe_nest_begin(kprobe_hit_context()))
		return kpa_reenter(p, kcb, regs) ? DBG_HOOK_HANDLED : DBG_HOOK_ERROR;

	kprobe_running_set(p);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (p->pre_handler && p->pre_handler(p, regs)) {
		/* The handler moved the pc: the instruction is skipped. */
		kprobe_running_done();
		return DBG_HOOK_HANDLED;
	}
	if (kpa_boost(p, regs)) {
		kprobe_running_done();
		return DBG_HOOK_HANDLED;
	}
	kpa_run_insn(p, kcb, regs);
	return DBG_HOOK_HANDLED;
}
NOKPROBE_SYMBOL(kprobe_brk_handler);

/**
 * kprobe_ss_brk_handler() - the BRK that ends an out-of-line step
 * @regs: the probed context, at the slot's second word
 * @esr: the exception syndrome
 *
 * A detour's BRK for a moved pc (kprobes_opt.c) has the same immediate.
 *
 * Return: DBG_HOOK_HANDLED, or DBG_HOOK_ERROR when neither a step nor a
 * detour ends there.
 */
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kprobe_running();

	if (!p || !(kcb->kprobe_status & (KPROBE_HIT_SS | KPROBE_REENTER)) ||
	    instruction_pointer(regs) != (unsigned long)kpa_slot_end(p))
		/* Or a detour's, going on where a pre_handler moved the pc. */
		return arm64_kprobe_detour_moved(regs) ? DBG_HOOK_HANDLED :
							 DBG_HOOK_ERROR;

	kpa_step_unmask(kcb, regs);
	instruction_pointer_set(regs, (unsigned long)(p->addr + 1));
	kpa_insn_done(p, kcb, regs);
	return DBG_HOOK_HANDLED;
}
NOKPROBE_SYMBOL(kprobe_ss_brk_handler);

/**
 * kretprobe_brk_handler() - BRK #KRETPROBES_BRK_IMM
 * @regs: the context
 * @esr: the exception syndrome
 *
 * Our return trampoline does not trap, so no such BRK is ours.
 *
 * Return: DBG_HOOK_ERROR.
 */
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	return DBG_HOOK_ERROR;
}
NOKPROBE_SYMBOL(kretprobe_brk_handler);

/**
 * kprobe_fault_handler() - a fault while a kprobe is being handled
 * @regs: the faulting context
 * @fsr: the fault status
 *
 * A fault in the stepped instruction is the probed code's fault: the pc
 * goes back to the probe address, DAIF to the probed context's, and the
 * probe is over, so that the fault is handled, or fixed up through the
 * probed instruction's exception table entry, as if no probe were there.
 * A fault in a handler is the handler's own.
 *
 * Return: 0, the fault still has to be handled.
 */
int kprobe_fault_handler(struct pt_regs *regs, unsigned int fsr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p = kprobe_running();
	unsigned long pc = instruction_pointer(regs);

	if (!p || !p->ainsn.api.insn || pc != (unsigned long)p->ainsn.api.insn)
		return 0;
	if (kcb->kprobe_status != KPROBE_HIT_SS &&
	    kcb->kprobe_status != KPROBE_REENTER)
		return 0;

	instruction_pointer_set(regs, (unsigned long)p->addr);
	kpa_step_unmask(kcb, regs);
	if (kcb->kprobe_status == KPROBE_REENTER) {
		kpa_unnest(kcb);
		return 0;
	}
	kprobe_running_done();
	/*
	 * The fault entry gave this CPU the step's DAIF; the rest of the
	 * fault handling (which may sleep for a user access) runs with the
	 * probed context's, as it would have without the probe.  Inherited
	 * from @regs, now the probed context's: with pseudo-NMIs the
	 * interrupt mask is in the GIC's priority mask, which DAIF alone
	 * would set to "on".
	 */
	local_daif_inherit(regs);
	return 0;
}
NOKPROBE_SYMBOL(kprobe_fault_handler);

/**
 * arch_populate_kprobe_blacklist() - arm64 text that must never trap
 *
 * Entry and exception text, the hypervisor text and the identity-mapped
 * text (which may run with the MMU off, where no BRK can be handled).
 *
 * Return: 0 or the error from adding a range.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	static const struct {
		const char *start, *end;
	} areas[] = {
		{ __entry_text_start, __entry_text_end },
		{ __irqentry_text_start, __irqentry_text_end },
		{ __idmap_text_start, __idmap_text_end },
		{ __hyp_text_start, __hyp_text_end },
		{ __hyp_idmap_text_start, __hyp_idmap_text_end },
	};
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(areas); i++) {
		ret = kprobe_add_area_blacklist((unsigned long)areas[i].start,
						(unsigned long)areas[i].end);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * arch_init_kprobes() - arm64 setup at boot
 *
 * The BRK handlers are called from the debug exception code directly.
 *
 * Return: 0.
 */
int __init arch_init_kprobes(void)
{
	return 0;
}

/**
 * arch_trampoline_kprobe() - whether @p is the return trampoline's probe
 * @p: a probe
 *
 * The trampoline has no probe on arm64.
 *
 * Return: 0.
 */
int arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}

#ifdef CONFIG_KRETPROBES
/**
 * arch_prepare_kretprobe() - divert a function's return to the trampoline
 * @ri: the instance for this call
 * @regs: the registers at the function's entry probe
 *
 * The return address is in x30 at entry; x29 still holds the caller's
 * frame pointer, which the function restores before it returns and which
 * identifies the frame at the trampoline and in stack walks.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	arch_kretprobe_divert(ri, regs);
}
NOKPROBE_SYMBOL(arch_prepare_kretprobe);

/**
 * arch_kretprobe_fixup_return() - show the real caller in the frame record
 * @regs: the trampoline's registers
 * @correct_ret_addr: the real return address
 *
 * The trampoline's frame record, in @regs->stackframe, names the
 * trampoline until now; from here on a stack walk finds the caller in it.
 */
void notrace arch_kretprobe_fixup_return(struct pt_regs *regs,
					 kprobe_opcode_t *correct_ret_addr)
{
	regs->stackframe[1] = (u64)correct_ret_addr;
}
NOKPROBE_SYMBOL(arch_kretprobe_fixup_return);
#endif /* CONFIG_KRETPROBES */

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: breakpoints and out-of-line execution.
 *
 * An armed probe has int3 in the first byte of its instruction. When it
 * traps, the handlers run, then the instruction takes effect in one of three
 * ways:
 *
 *  - it runs from the probe's slot, a copy followed by an int3, with IF
 *    cleared so that nothing else can run on this CPU before that int3
 *    brings us back; the probed context's IF is kept in the ctlblk and
 *    put back then, and ip moves to just after the original instruction;
 *
 *  - or, when its effect depends on its address or on IF, it is emulated
 *    on the trapped registers (emulate.c) and the slot is not used;
 *
 *  - or, "boosted", when no post_handler waits for it and the copy can run
 *    anywhere (kprobe_x86_boostable()): a second copy, followed by a jump
 *    back, runs with the probed context's flags, and the hit costs one
 *    trap instead of two.  A relative JMP or Jcc boosts too, although it
 *    is emulated otherwise: its boost slot holds the same jump written
 *    again to reach the original target from the slot.
 *
 * x86 does not single-step with TF: the int3 ending a slot is the only
 * "step done" event.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/execmem.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include <asm/extable.h>
#include <asm/processor-flags.h>
#include <asm/sections.h>
#include <asm/text-patching.h>
#include <asm/trapnr.h>

#include "common.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* Nothing to set up beyond what the core does. */
int __init arch_init_kprobes(void)
{
	return 0;
}

/*
 * The entry code runs on stacks and with state the int3 handler cannot
 * cope with; keep every symbol of it off limits.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	unsigned long start = (unsigned long)__entry_text_start;
	unsigned long end = (unsigned long)__entry_text_end;

	return kprobe_add_area_blacklist(start, end);
}

/* Bytes of a probe's slot in use: the copy and the int3 after it. */
static unsigned int kpx_slot_bytes(struct kprobe *p)
{
	return p->ainsn.len + INT3_INSN_SIZE;
}

/* Slot pages are read-only and executable; text_poke() writes them. */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (page && set_memory_rox((unsigned long)page, 1)) {
		execmem_free(page);
		return NULL;
	}
	return page;
}

static void kpx_write_slot(kprobe_opcode_t *slot, const u8 *image,
			   unsigned int len)
{
	perf_event_text_poke(slot, NULL, 0, image, len);
	text_poke(slot, image, len);
}

/* Bytes of a probe's boost slot in use. */
static unsigned int kpx_boost_bytes(struct kprobe *p)
{
	switch (p->ainsn.action) {
	case KPX_JMP:
		return JMP32_INSN_SIZE;
	case KPX_JCC:
		return KPX_JCC32_SIZE + JMP32_INSN_SIZE;
	default:
		return p->ainsn.len + JMP32_INSN_SIZE;
	}
}

/* May an instruction ending at @end reach @dest with a 32-bit displacement? */
static bool kpx_rel32_reaches(const void *end, unsigned long dest)
{
	long disp = (long)dest - (long)end;

	return disp == (s32)disp;
}

/*
 * A boost slot at @slot for a copyable instruction: the copy of @insn in
 * @image, made to run there, then a jump to the next original instruction.
 * Returns the bytes to write, or 0 if the slot is out of reach.
 */
static unsigned int kpx_boost_copy(struct kprobe *p, struct insn *insn,
				   u8 *image, kprobe_opcode_t *slot)
{
	unsigned int len = p->ainsn.len;
	unsigned long next = kprobe_x86_next_ip(p);

	if (!kpx_rel32_reaches(slot + len + JMP32_INSN_SIZE, next) ||
	    kprobe_x86_relocate(p, insn, image, slot))
		return 0;
	__text_gen_insn(image + len, JMP32_INSN_OPCODE, slot + len,
			(void *)next, JMP32_INSN_SIZE);
	return len + JMP32_INSN_SIZE;
}

/*
 * A boost slot at @slot for a relative JMP or Jcc: the same jump, with a
 * 32-bit displacement to the original target; after a Jcc, a jump to the
 * next original instruction for when it is not taken.  The flags it tests
 * are the probed context's own, as for any boosted copy.
 */
static unsigned int kpx_boost_branch(struct kprobe *p, u8 *image,
				     kprobe_opcode_t *slot)
{
	unsigned long next = kprobe_x86_next_ip(p);
	unsigned long target = next + (long)p->ainsn.rel;
	unsigned int len = 0;

	if (p->ainsn.action == KPX_JCC) {
		if (!kpx_rel32_reaches(slot + KPX_JCC32_SIZE, target))
			return 0;
		image[0] = KPX_JCC32_ESCAPE;
		image[1] = KPX_JCC32_OPCODE | p->ainsn.cond;
		put_unaligned((s32)(target - (unsigned long)(slot + KPX_JCC32_SIZE)),
			      (s32 *)(image + 2));
		len = KPX_JCC32_SIZE;
		target = next;
	}
	if (!kpx_rel32_reaches(slot + len + JMP32_INSN_SIZE, target))
		return 0;
	__text_gen_insn(image + len, JMP32_INSN_OPCODE, slot + len,
			(void *)target, JMP32_INSN_SIZE);
	return len + JMP32_INSN_SIZE;
}

/*
 * Give a boostable probe its second slot.  Without one the probe still
 * works: with two traps a hit, or emulated.  @image is used up.
 */
static void kpx_prepare_boost(struct kprobe *p, struct insn *insn, u8 *image)
{
	kprobe_opcode_t *slot;
	unsigned int bytes;

	slot = get_insn_slot();
	if (!slot)
		return;

	if (kprobe_x86_emulated(p))
		bytes = kpx_boost_branch(p, image, slot);
	else
		bytes = kpx_boost_copy(p, insn, image, slot);
	if (!bytes) {
		free_insn_slot(slot, 0);
		return;
	}
	kpx_write_slot(slot, image, bytes);
	p->ainsn.boost_slot = slot;
}

int arch_prepare_kprobe(struct kprobe *p)
{
	u8 image[MAX_INSN_SIZE];
	struct insn insn;
	int ret;

	memset(&p->ainsn, 0, sizeof(p->ainsn));
	ret = kprobe_x86_decode(p, &insn, image);
	if (ret)
		return ret;

	p->ainsn.slot = get_insn_slot();
	if (!p->ainsn.slot)
		return -ENOMEM;

	ret = kprobe_x86_relocate(p, &insn, image, p->ainsn.slot);
	if (ret) {
		pr_info("cannot probe %pS: RIP-relative operand out of the slot's reach\n",
			p->addr);
		free_insn_slot(p->ainsn.slot, 0);
		p->ainsn.slot = NULL;
		return ret;
	}

	image[p->ainsn.len] = INT3_INSN_OPCODE;
	kpx_write_slot(p->ainsn.slot, image, kpx_slot_bytes(p));

	if (kprobe_x86_boostable(p))
		kpx_prepare_boost(p, &insn, image);
	return 0;
}

/*
 * Does @p put an int3 at its address? Not when it rides an ftrace site:
 * ftrace calls it, and it has neither a slot nor an emulation to run its
 * instruction with (one armed as a breakpoint instead is prepared first).
 */
static nokprobe_inline bool kpx_has_int3(struct kprobe *p)
{
	return p->ainsn.slot || kprobe_x86_emulated(p);
}

/*
 * Replace the first byte of the probed instruction, @from by @to.  A probe
 * without an int3 of its own is never poked: kprobe_int3_handler() could
 * not run its instruction.
 */
static void kpx_poke_probe(struct kprobe *p, u8 from, u8 to)
{
	if (WARN_ON_ONCE(!kpx_has_int3(p)))
		return;
	text_poke(p->addr, &to, sizeof(to));
	text_poke_sync();
	perf_event_text_poke(p->addr, &from, sizeof(from), &to, sizeof(to));
}

void arch_arm_kprobe(struct kprobe *p)
{
	kpx_poke_probe(p, p->opcode, INT3_INSN_OPCODE);
}

void arch_disarm_kprobe(struct kprobe *p)
{
	kpx_poke_probe(p, INT3_INSN_OPCODE, p->opcode);
}

/*
 * Only the first byte of each instruction changes, and a CPU sees either
 * byte, both of which it can run: the int3 leads to the probe, which is
 * in the table all along.  So the bytes go in one after the other and
 * one synchronization serves them all.
 */
static void kpx_poke_probes(struct kprobe **ps, int num, bool arm)
{
	u8 int3 = INT3_INSN_OPCODE;
	int i;

	for (i = 0; i < num; i++) {
		if (WARN_ON_ONCE(!kpx_has_int3(ps[i])))
			continue;
		text_poke(ps[i]->addr, arm ? &int3 : &ps[i]->opcode, 1);
	}
	text_poke_sync();
	for (i = 0; i < num; i++)
		perf_event_text_poke(ps[i]->addr, arm ? &ps[i]->opcode : &int3,
				     1, arm ? &int3 : &ps[i]->opcode, 1);
}

void arch_arm_kprobes(struct kprobe **entries, int num)
{
	kpx_poke_probes(entries, num, true);
}

void arch_disarm_kprobes(struct kprobe **entries, int num)
{
	kpx_poke_probes(entries, num, false);
}

/*
 * Only the slots are freed: the probed text may be gone. The core calls
 * this after an RCU grace period that follows the disarm. The trapping
 * slot only runs with IRQs off, so no CPU can still be in it: it can be
 * reused at once. The boost slot runs with IRQs on, and a task preempted
 * in it comes back to it later: it is freed dirty, to be reused once
 * every task has been through a voluntary switch.
 */
void arch_remove_kprobe(struct kprobe *p)
{
	kprobe_opcode_t *boost = p->ainsn.boost_slot;

	if (boost) {
		perf_event_text_poke(boost, boost, kpx_boost_bytes(p), NULL, 0);
		free_insn_slot(boost, 1);
		p->ainsn.boost_slot = NULL;
	}
	if (!p->ainsn.slot)
		return;

	perf_event_text_poke(p->ainsn.slot, p->ainsn.slot, kpx_slot_bytes(p),
			     NULL, 0);
	free_insn_slot(p->ainsn.slot, 0);
	p->ainsn.slot = NULL;
}

static nokprobe_inline bool kpx_in_slot(struct kprobe_ctlblk *kcb)
{
	return kcb->kprobe_status == KPROBE_HIT_SS ||
	       kcb->kprobe_status == KPROBE_REENTER;
}

/* Handle @p inside another probe's handling: remember the outer one. */
static nokprobe_inline void kpx_nest(struct kprobe *p,
				     struct kprobe_ctlblk *kcb)
{
	kcb->prev_kprobe.kp = kprobe_running();
	kcb->prev_kprobe.status = kcb->kprobe_status;
	kcb->prev_kprobe.saved_if = kcb->saved_if;
	__this_cpu_write(current_kprobe, p);
	kcb->kprobe_status = KPROBE_REENTER;
}

static nokprobe_inline void kpx_unnest(struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(current_kprobe, kcb->prev_kprobe.kp);
	kcb->kprobe_status = kcb->prev_kprobe.status;
	kcb->saved_if = kcb->prev_kprobe.saved_if;
}

/* The probed instruction has taken effect: post_handler, then done. */
static void kpx_insn_done(struct kprobe *p, struct pt_regs *regs,
			  struct kprobe_ctlblk *kcb)
{
	/* Once: the core may clear an aggregate's while we are in its hit. */
	kprobe_post_handler_t post = READ_ONCE(p->post_handler);

	if (kcb->kprobe_status == KPROBE_REENTER) {
		kpx_unnest(kcb);
		return;
	}

	kcb->kprobe_status = KPROBE_HIT_SSDONE;
	if (post && !kprobe_disabled(p))
		post(p, regs, 0);
	kprobe_running_done();
}
NOKPROBE_SYMBOL(kpx_insn_done);

/* Emulate the probed instruction, or leave the int3 trap into its slot. */
static void kpx_run_insn(struct kprobe *p, struct pt_regs *regs,
			 struct kprobe_ctlblk *kcb)
{
	if (kprobe_x86_emulated(p)) {
		kprobe_x86_emulate(p, regs);
		kpx_insn_done(p, regs, kcb);
		return;
	}

	kcb->saved_if = regs->flags & X86_EFLAGS_IF;
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)p->ainsn.slot;
}
NOKPROBE_SYMBOL(kpx_run_insn);

/*
 * Is @addr the int3 after the copy that @cur, the running probe, is
 * running? Then the copy is done: restore IF and move on past the original.
 */
static bool kpx_slot_returned(struct kprobe *cur, kprobe_opcode_t *addr,
			      struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	if (!kpx_in_slot(kcb) || !cur->ainsn.slot ||
	    addr != cur->ainsn.slot + cur->ainsn.len)
		return false;

	regs->flags |= kcb->saved_if;
	kprobe_x86_complete_step(cur, regs);
	kpx_insn_done(cur, regs, kcb);
	return true;
}
NOKPROBE_SYMBOL(kpx_slot_returned);

/*
 * Where a hit of @p may go on with no second trap, or NULL. Once the
 * probe is queued for optimization, or optimized, that is the detour's
 * copy of the whole replaced region (opt.c): no CPU may then come back
 * into the middle of the region. Otherwise it is the boost slot.
 */
static nokprobe_inline kprobe_opcode_t *kpx_boost_target(struct kprobe *p)
{
	if (READ_ONCE(p->post_handler))
		return NULL;
#ifdef CONFIG_OPTPROBES
	if (p->ainsn.region_copy &&
	    READ_ONCE(container_of(p, struct optimized_kprobe, kp)->state) >=
	    KPROBE_OPT_QUEUED)
		return p->ainsn.region_copy;
#endif
	return p->ainsn.boost_slot;
}

/*
 * Boost: with no post_handler to call after the instruction, run the copy
 * that jumps back by itself, with the probed context's own flags. The
 * probe is done with before the copy runs, so an interrupt, or preemption,
 * in the copy is as harmless as in the original.
 */
static nokprobe_inline bool kpx_boost(struct kprobe *p, struct pt_regs *regs)
{
	kprobe_opcode_t *slot = kpx_boost_target(p);

	if (!slot)
		return false;

	kprobe_running_done();
	regs->ip = (unsigned long)slot;
	return true;
}

/*
 * The context an int3 interrupted: the trap entered NMI context on top of
 * it (exc_int3() calls irqentry_nmi_enter() for a kernel-mode int3).  A
 * hit there nests only if that context is deeper than the running hit's
 * handlers.  Handlers run from an int3 run in the trap's own context, so
 * no int3 from them, nor an NMI that interrupts them, nests.
 */
static nokprobe_inline unsigned int kpx_trap_context(void)
{
	unsigned int pc = preempt_count();

	if (pc & NMI_MASK)
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	return pc & KPROBE_CONTEXT_MASK;
}

static void kpx_hit(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	/* Its handlers run in the trap's context, NMI-like. */
	kprobe_running_set(p);

	/* disabled, but the int3 has not been removed yet */
	if (kprobe_disabled(p)) {
		if (kpx_boost(p, regs))
			return;
		kcb->kprobe_status = KPROBE_HIT_SS;
		kpx_run_insn(p, regs, kcb);
		return;
	}

	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (p->pre_handler && p->pre_handler(p, regs)) {
		/* the handler moved regs->ip: the instruction is skipped */
		kprobe_running_done();
		return;
	}

	if (kpx_boost(p, regs))
		return;
	kcb->kprobe_status = KPROBE_HIT_SS;
	kpx_run_insn(p, regs, kcb);
}
NOKPROBE_SYMBOL(kpx_hit);

/*
 * @p was hit while another probe (or kprobe_busy_begin()) is active.  From
 * a deeper context (an NMI, or an interrupt in a handler that runs with
 * interrupts on) it runs as a hit of its own.
 */
static int kpx_reenter(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	kprobe_opcode_t *boost;

	if (kprobe_nest_begin(kpx_trap_context())) {
		kpx_hit(p, regs);
		return 1;
	}

	switch (kcb->kprobe_status) {
	case KPROBE_HIT_ACTIVE:
	case KPROBE_HIT_SS:
	case KPROBE_HIT_SSDONE:
		/* a handler or a slot ran into @p: skip its handlers */
		kprobes_inc_nmissed_count(p);
		boost = kpx_boost_target(p);
		if (boost) {
			regs->ip = (unsigned long)boost;
			return 1;
		}
		kpx_nest(p, kcb);
		kpx_run_insn(p, regs, kcb);
		return 1;
	case KPROBE_REENTER:
		/*
		 * A hit while a reentered probe's copy runs, that could not
		 * run as a hit of its own (kprobes' own code holds the CPU):
		 * fine if it needs no step of its own.
		 */
		boost = kpx_boost_target(p);
		if (boost) {
			kprobes_inc_nmissed_count(p);
			regs->ip = (unsigned long)boost;
			return 1;
		}
		/*
		 * Otherwise the code between the trap and the end of the copy
		 * must have been unprobeable, and going on would only recurse
		 * until the stack runs out.
		 */
		pr_err("probe hit while handling a nested probe\n");
		dump_kprobe(p);
		BUG();
	default:
		WARN_ONCE(1, "kprobes: unexpected status %lu\n",
			  kcb->kprobe_status);
		return 0;
	}
}
NOKPROBE_SYMBOL(kpx_reenter);

/* Where the int3 that trapped with @regs is: regs->ip is just past it. */
static nokprobe_inline kprobe_opcode_t *kpx_int3_addr(struct pt_regs *regs)
{
	return (kprobe_opcode_t *)(regs->ip - INT3_INSN_SIZE);
}

/*
 * No probe of ours where @regs trapped. If the int3 is already gone,
 * another CPU disarmed the probe after we trapped: run what is there now.
 * Otherwise the int3 is not ours.
 */
static int kpx_stray_int3(struct pt_regs *regs)
{
	kprobe_opcode_t *addr = kpx_int3_addr(regs);

	if (READ_ONCE(*addr) == INT3_INSN_OPCODE)
		return 0;

	regs->ip = (unsigned long)addr;
	return 1;
}
NOKPROBE_SYMBOL(kpx_stray_int3);

/*
 * The probe whose int3 trapped at @addr, or NULL.  An int3 on the ftrace
 * site that a probe rides is ftrace's own, or one it has already taken out
 * again: never the probe's.
 */
static nokprobe_inline struct kprobe *kpx_int3_owner(kprobe_opcode_t *addr)
{
	struct kprobe *p = get_kprobe(addr);

	return p && kpx_has_int3(p) ? p : NULL;
}

/*
 * An int3 while @cur is running on this CPU: the end of its slot's copy
 * (a slot's int3 is only reached with its probe running), or another
 * probe hit from inside the handling of @cur.
 */
static int kpx_int3_nested(struct kprobe *cur, struct pt_regs *regs)
{
	kprobe_opcode_t *addr = kpx_int3_addr(regs);
	struct kprobe *p;

	if (kpx_slot_returned(cur, addr, regs))
		return 1;

	p = kpx_int3_owner(addr);
	if (!p)
		return kpx_stray_int3(regs);
	return kpx_reenter(p, regs);
}
NOKPROBE_SYMBOL(kpx_int3_nested);

/*
 * Called by do_int3() with IRQs off, in NMI-like context. regs->ip is just
 * past the int3. Returns 1 if the trap was ours.
 *
 * A hit with no probe running is the path every breakpoint probe takes,
 * so it is kept apart from the nested cases, which need more registers.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	struct kprobe *cur, *p;

	if (user_mode(regs))
		return 0;
	/* kernel/kprobes_hits.c counts on it. */
	lockdep_assert_irqs_disabled();

	cur = kprobe_running();
	if (unlikely(cur))
		return kpx_int3_nested(cur, regs);

	p = kpx_int3_owner(kpx_int3_addr(regs));
	if (unlikely(!p))
		return kpx_stray_int3(regs);

	kpx_hit(p, regs);
	return 1;
}
NOKPROBE_SYMBOL(kprobe_int3_handler);
EXPORT_SYMBOL_IF_KUNIT(kprobe_int3_handler);

#if IS_ENABLED(CONFIG_KUNIT)
/* For lib/test_kprobes_ftrace.c: undo a hit it provoked by hand, if one began. */
void kprobe_x86_forget_hit(void)
{
	reset_current_kprobe();
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_x86_forget_hit);
#endif

/*
 * A fault while a kprobe is running. If it was the copy in the slot that
 * faulted, make it look as if the original instruction had: ip back at the
 * probe address (where an exception-table entry would be), IF as it was,
 * and the probe done with. The page-fault path then goes on as usual.
 * The #GP and #VE paths have already looked for a fixup at the slot
 * address, so try again at the real one.
 *
 * Faults raised by handlers or by emulation are left alone.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (!cur || !kpx_in_slot(kcb) || !cur->ainsn.slot ||
	    regs->ip != (unsigned long)cur->ainsn.slot)
		return 0;

	regs->ip = (unsigned long)cur->addr;
	regs->flags |= kcb->saved_if;
	if (kcb->kprobe_status == KPROBE_REENTER)
		kpx_unnest(kcb);
	else
		kprobe_running_done();

	if (trapnr != X86_TRAP_PF &&
	    fixup_exception(regs, trapnr, current->thread.error_code, 0))
		return 1;
	return 0;
}
NOKPROBE_SYMBOL(kprobe_fault_handler);

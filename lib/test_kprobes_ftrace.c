// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kprobes_ftrace: probes on a function's ftrace site, which
 * ride the ftrace call instead of a breakpoint, alone, in batches, beside
 * other ftrace users and in the checks that ftrace itself runs.
 */
#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/string.h>
#ifdef CONFIG_X86
#include <asm/text-patching.h>
#endif

/* The core's internals that these cases look at, exported for KUnit only */
#include "../kernel/kprobes_internal.h"
#include "test_kprobes.h"

#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_KRETPROBES)
/*
 * This file is built without ftrace call sites, so the ftrace cases probe
 * two API functions that return at once when given nothing to do, and
 * count only this task's calls.
 */
#define FTRACE_SITE_1	register_kprobes
#define FTRACE_SITE_2	register_kretprobes

struct site_probe {
	struct kprobe kp;
	struct task_struct *task;
	int pre_hits;
	int post_hits;
};

static int site_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct site_probe *sp = container_of(kp, struct site_probe, kp);

	if (current == sp->task)
		sp->pre_hits++;
	return 0;
}

static void site_post(struct kprobe *kp, struct pt_regs *regs,
		      unsigned long flags)
{
	struct site_probe *sp = container_of(kp, struct site_probe, kp);

	if (current == sp->task)
		sp->post_hits++;
}

static struct site_probe *site_probe_at(struct kunit *test, void *addr,
					bool post)
{
	struct site_probe *sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sp);
	sp->kp.addr = kpt_entry(addr);
	sp->kp.pre_handler = site_pre;
	if (post)
		sp->kp.post_handler = site_post;
	sp->task = current;
	return sp;
}

static void call_site_1(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, FTRACE_SITE_1(NULL, 0), -EINVAL);
}

static void call_site_2(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, FTRACE_SITE_2(NULL, 0), -EINVAL);
}

static struct kprobe *table_entry(void *addr)
{
	guard(rcu)();
	return get_kprobe(addr);
}

/*
 * Where the entry probe of @func sits: on its ftrace site (x86: the first
 * byte, or after ENDBR), or, where a probe rides the site from the
 * function's first instruction (arm64, with MOV X9, X30 before the BL),
 * there.  NULL when @func has no site.
 */
static void *entry_probe_addr(void *func)
{
	unsigned long site = kprobe_ftrace_site_of_func((unsigned long)func);

	if (!site)
		return NULL;
	return IS_ENABLED(CONFIG_KPROBES_ON_FTRACE_DIRECT) ? func : (void *)site;
}

/*
 * A probe on a function that probe hits call themselves under the debug
 * config: ftrace's direct-call lookup checks rcu_read_lock_sched_held().
 * The hit from inside must be left alone, not followed without end (the
 * stack overflows, and on arm64 the machine hangs without a word).
 */
static void probe_on_rcu_lockdep_check(struct kunit *test)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct site_probe *sp = site_probe_at(test, rcu_read_lock_sched_held,
					      false);

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &sp->kp), 0);
	preempt_disable();
	KUNIT_EXPECT_TRUE(test, rcu_read_lock_sched_held());
	preempt_enable();
	KUNIT_EXPECT_GE(test, sp->pre_hits, 1);
	kpt_unreg_kprobe(test, &sp->kp);
#else
	kunit_skip(test, "rcu_read_lock_sched_held() is inline without CONFIG_DEBUG_LOCK_ALLOC");
#endif
}

/*
 * rcu_read_lock_any_held(), where CONFIG_PROVE_RCU_LIST's checks of RCU
 * list walks go, is itself an ftrace site.  A hit's table lookup does not
 * ask it (kprobe_rcu_reader()), but a probe there must still fire and
 * must not send a lookup back into itself.  A second armed site keeps
 * x86's handler off its one-probe shortcut, so the lookup does run.
 */
static void probe_on_rcu_list_check(struct kunit *test)
{
#ifdef CONFIG_PROVE_RCU_LIST
	struct site_probe *sp = site_probe_at(test, rcu_read_lock_any_held,
					      false);
	struct site_probe *other = site_probe_at(test, FTRACE_SITE_1, false);

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &other->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &sp->kp), 0);
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, rcu_read_lock_any_held());
	rcu_read_unlock();
	KUNIT_EXPECT_GE(test, sp->pre_hits, 1);
	kpt_unreg_kprobe(test, &sp->kp);
	kpt_unreg_kprobe(test, &other->kp);
#else
	kunit_skip(test, "the table lookup calls no probeable check without CONFIG_PROVE_RCU_LIST");
#endif
}

#ifdef CONFIG_DEBUG_LOCKDEP
/* Calls the other site from inside a hit, once: that hit is missed. */
static int site_pre_nests(struct kprobe *kp, struct pt_regs *regs)
{
	struct site_probe *sp = container_of(kp, struct site_probe, kp);

	if (current == sp->task && !sp->pre_hits++)
		FTRACE_SITE_2(NULL, 0);
	return 0;
}
#endif

/*
 * A probe may sit where lockdep's record of the softirq state trails the
 * CPU's: inside local_bh_disable(), between the count's change and
 * lockdep_softirqs_off().  Asked anything there, lockdep warns and turns
 * itself off.  A hit must not ask: neither the table lookup, nor an
 * aggregate's walk of its probes, nor the count of a missed hit.  The
 * case opens such a window by raising the softirq count behind lockdep's
 * back, and hits two aggregates in it, the second from inside the
 * first's handler.
 */
static void hit_while_lockdep_lags(struct kunit *test)
{
#ifdef CONFIG_DEBUG_LOCKDEP
	struct site_probe *outer = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *outer2 = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *inner = site_probe_at(test, FTRACE_SITE_2, false);
	struct site_probe *inner2 = site_probe_at(test, FTRACE_SITE_2, false);

	if (!debug_locks)
		kunit_skip(test, "lockdep is off already: an earlier report turned it off");
	outer->kp.pre_handler = site_pre_nests;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &outer->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &outer2->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &inner->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &inner2->kp), 0);

	__preempt_count_add(SOFTIRQ_DISABLE_OFFSET);
	FTRACE_SITE_1(NULL, 0);
	__preempt_count_sub(SOFTIRQ_DISABLE_OFFSET);

	KUNIT_EXPECT_TRUE_MSG(test, debug_locks,
			      "lockdep was asked from inside the hit");
	KUNIT_EXPECT_EQ(test, outer->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, outer2->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, inner2->kp.nmissed, 1UL);
	kpt_unreg_kprobe(test, &inner2->kp);
	kpt_unreg_kprobe(test, &inner->kp);
	kpt_unreg_kprobe(test, &outer2->kp);
	kpt_unreg_kprobe(test, &outer->kp);
#else
	kunit_skip(test, "lockdep checks its irq state only under CONFIG_DEBUG_LOCKDEP");
#endif
}

/*
 * An int3 trap at the ftrace site a probe rides is not the probe's: ftrace
 * puts int3s there while it patches the site, and a CPU may still run one
 * that has just been taken out again.  Such a probe has no copy of its
 * instruction to run, so taking the trap as its hit would jump to address
 * zero.  The trap is handed to the code at the site again, and the
 * probe's handlers do not run.
 */
static void x86_int3_on_ftrace_site_not_ours(struct kunit *test)
{
#ifdef CONFIG_X86
	struct site_probe *sp = site_probe_at(test, FTRACE_SITE_1, false);
	void *site = entry_probe_addr(FTRACE_SITE_1);
	struct pt_regs regs = {};
	unsigned long flags;
	int ours;

	KUNIT_ASSERT_NOT_NULL(test, site);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &sp->kp), 0);
	KUNIT_ASSERT_PTR_EQ(test, (void *)sp->kp.addr, site);
	/* The site holds ftrace's call, not an int3: as after a late trap. */
	KUNIT_ASSERT_NE(test, *(u8 *)site, INT3_INSN_OPCODE);
	regs.cs = __KERNEL_CS;
	regs.ip = (unsigned long)site + INT3_INSN_SIZE;
	local_irq_save(flags);
	ours = kprobe_int3_handler(&regs);
	/* On a kernel that took the trap as the probe's hit: undo it. */
	kprobe_x86_forget_hit();
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ours, 1);
	KUNIT_EXPECT_EQ(test, regs.ip, (unsigned long)site);
	KUNIT_EXPECT_EQ(test, sp->pre_hits, 0);
	kpt_unreg_kprobe(test, &sp->kp);
#else
	kunit_skip(test, "x86's int3 handler");
#endif
}

/*
 * The ftrace handler takes an ops' only armed entry without a table
 * lookup (kprobe_ftrace_only()).  That shortcut must name the table
 * entry or nothing through aggregation, a second site, disable, enable,
 * a post_handler and unregistration.  A post_handler joining an armed
 * site leaves it on its ops (moving would unhook it for a moment); a site
 * armed afresh for one takes the IPMODIFY ops, except where the sites are
 * redirected to a trampoline (arm64), whose hint stands for the one ops.
 */
/*
 * An ftrace site hit while kprobes' own code holds the CPU: missed, and
 * counted as busy, for each probe on the site.
 */
static void ftrace_missed_while_busy(struct kunit *test)
{
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_1, true);

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&a->kp));
	kprobe_busy_begin();
	FTRACE_SITE_1(NULL, 0);
	kprobe_busy_end();
	KUNIT_EXPECT_EQ(test, a->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed_by[KPROBE_MISS_BUSY], 1UL);

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	kprobe_busy_begin();
	FTRACE_SITE_1(NULL, 0);
	kprobe_busy_end();
	KUNIT_EXPECT_EQ(test, a->kp.nmissed_by[KPROBE_MISS_BUSY], 2UL);
	KUNIT_EXPECT_EQ(test, b->kp.nmissed_by[KPROBE_MISS_BUSY], 1UL);
	KUNIT_EXPECT_EQ(test, b->kp.nmissed_by[KPROBE_MISS_RECURSION], 0UL);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	kpt_unreg_kprobe(test, &b->kp);
	kpt_unreg_kprobe(test, &a->kp);
}

/*
 * An interrupt taken while an ftrace site's handler runs (with interrupts
 * on), hitting a probe on its own path: that hit runs its handler, and
 * the interrupted handling goes on as it was.  The same probe hit from
 * the handler itself is recursion: counted, not run.
 */
static struct {
	struct kprobe outer, inner;
	struct task_struct *task;
	struct irq_work work;
	bool recurse;
	bool irqs_on, work_ran, outer_running_after;
	int outer_hits, outer_posts, inner_hits, inner_hits_in_irq;
} kpt_nest;

static void kpt_nest_work(struct irq_work *work)
{
	FTRACE_SITE_2(NULL, 0);
	WRITE_ONCE(kpt_nest.work_ran, true);
}

static int kpt_nest_inner_pre(struct kprobe *kp, struct pt_regs *regs)
{
	/* In the interrupt, current is still the test's task. */
	if (current == kpt_nest.task) {
		kpt_nest.inner_hits++;
		if (in_hardirq())
			kpt_nest.inner_hits_in_irq++;
	}
	return 0;
}

static int kpt_nest_outer_pre(struct kprobe *kp, struct pt_regs *regs)
{
	int us;

	if (current != kpt_nest.task || in_interrupt())
		return 0;
	kpt_nest.outer_hits++;
	if (kpt_nest.recurse) {
		FTRACE_SITE_2(NULL, 0);
		return 0;
	}
	kpt_nest.irqs_on = !irqs_disabled();
	irq_work_queue(&kpt_nest.work);
	/* A self-IPI comes at once; without one, the next tick runs it. */
	for (us = 0; us < 200000 && !READ_ONCE(kpt_nest.work_ran); us++)
		udelay(1);
	kpt_nest.outer_running_after = kprobe_running_kunit() == kp;
	return 0;
}

static void kpt_nest_outer_post(struct kprobe *kp, struct pt_regs *regs,
				unsigned long flags)
{
	if (current == kpt_nest.task && !in_interrupt() &&
	    kprobe_running_kunit() == kp)
		kpt_nest.outer_posts++;
}

static void ftrace_hit_from_interrupt_runs(struct kunit *test)
{
	int cpu;

	if (!arch_kprobe_nests())
		kunit_skip(test, "the arch's backend misses hits from interrupts in handlers");
	memset(&kpt_nest, 0, sizeof(kpt_nest));
	kpt_nest.task = current;
	kpt_nest.work = IRQ_WORK_INIT_HARD(kpt_nest_work);
	kpt_nest.outer.addr = kpt_entry(FTRACE_SITE_1);
	kpt_nest.outer.pre_handler = kpt_nest_outer_pre;
	kpt_nest.outer.post_handler = kpt_nest_outer_post;
	kpt_nest.inner.addr = kpt_entry(FTRACE_SITE_2);
	kpt_nest.inner.pre_handler = kpt_nest_inner_pre;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &kpt_nest.outer), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &kpt_nest.inner), 0);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&kpt_nest.outer));
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&kpt_nest.inner));

	call_site_1(test);
	KUNIT_ASSERT_EQ(test, kpt_nest.outer_hits, 1);
	KUNIT_ASSERT_TRUE_MSG(test, kpt_nest.irqs_on,
			      "the ftrace site's handler ran with interrupts off");
	KUNIT_ASSERT_TRUE_MSG(test, kpt_nest.work_ran,
			      "the irq_work did not run within 200 ms");
	KUNIT_EXPECT_EQ(test, kpt_nest.inner_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_nest.inner_hits_in_irq, 1);
	KUNIT_EXPECT_EQ(test, kpt_nest.inner.nmissed, 0UL);
	/* The interrupted handling went on as itself. */
	KUNIT_EXPECT_TRUE(test, kpt_nest.outer_running_after);
	KUNIT_EXPECT_EQ(test, kpt_nest.outer_posts, 1);
	KUNIT_EXPECT_EQ(test, kpt_nest.outer.nmissed, 0UL);

	/* From the handler itself: recursion, counted. */
	kpt_nest.recurse = true;
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, kpt_nest.outer_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_nest.outer_posts, 2);
	KUNIT_EXPECT_EQ(test, kpt_nest.inner_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_nest.inner.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test,
			kpt_nest.inner.nmissed_by[KPROBE_MISS_RECURSION], 1UL);

	/* Directly, the inner probe is an ordinary hit. */
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, kpt_nest.inner_hits, 2);
	kpt_unreg_kprobe(test, &kpt_nest.inner);
	kpt_unreg_kprobe(test, &kpt_nest.outer);
	irq_work_sync(&kpt_nest.work);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ(test, kprobe_nest_depth_kunit(cpu), 0U);
}

static void ftrace_only_entry_follows_table(struct kunit *test)
{
	/* Redirected sites share one ops, post_handler or not. */
	const bool direct = IS_ENABLED(CONFIG_KPROBES_ON_FTRACE_DIRECT);
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *c = site_probe_at(test, FTRACE_SITE_2, false);
	struct site_probe *d = site_probe_at(test, FTRACE_SITE_2, true);
	void *site1 = entry_probe_addr(FTRACE_SITE_1);
	void *site2 = entry_probe_addr(FTRACE_SITE_2);

	KUNIT_ASSERT_NOT_NULL(test, site1);
	KUNIT_ASSERT_NOT_NULL(test, site2);
	/*
	 * Nothing else of this suite may be armed on an ftrace site here: a
	 * probe an earlier case left behind is a leak, not a reason to skip.
	 */
	KUNIT_ASSERT_NULL_MSG(test, kprobe_ftrace_only(false),
			      "a probe left armed on an ftrace site");
	KUNIT_ASSERT_NULL_MSG(test, kprobe_ftrace_only(true),
			      "a probe with a post_handler left armed on an ftrace site");
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_PTR_EQ(test, (void *)a->kp.addr, site1);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&a->kp));
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false), &a->kp);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);

	/* B joins: the aggregate takes A's place in the shortcut too. */
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	KUNIT_EXPECT_PTR_NE(test, table_entry(site1), &a->kp);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false),
			    table_entry(site1));
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);

	/* A second site in the same ops: each hit looks its entry up. */
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &c->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);

	kpt_unreg_kprobe(test, &a->kp);
	kpt_unreg_kprobe(test, &b->kp);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 2);

	/* Disabled, C leaves the ops; enabled again, it is alone there. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&c->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&c->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false), &c->kp);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 2);

	/* D's post_handler joins: the site stays on the plain ops. */
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &d->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false),
			    table_entry(site2));
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(true));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, d->post_hits, 1);

	/* Disabled and enabled, it is armed afresh, for D's post_handler. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&c->kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&d->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	KUNIT_ASSERT_EQ(test, enable_kprobe(&d->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(direct));
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(!direct),
			    table_entry(site2));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, d->post_hits, 2);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&c->kp), 0);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 4);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 3);

	kpt_unreg_kprobe(test, &c->kp);
	kpt_unreg_kprobe(test, &d->kp);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(true));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 3);
}

/*
 * A batch's probes on ftrace sites are armed together and disarmed
 * together (one ftrace update each way): every one fires while the batch
 * is registered, two of them sharing a site, and none afterwards.
 */
static void ftrace_batch(struct kunit *test)
{
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, false);
	struct site_probe *c = site_probe_at(test, FTRACE_SITE_2, true);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp };

	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(table_entry(a->kp.addr)));
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(table_entry(b->kp.addr)));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->post_hits, 1);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_NULL(test, table_entry(a->kp.addr));
	KUNIT_EXPECT_NULL(test, table_entry(b->kp.addr));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
}

/*
 * enable_kprobes() and disable_kprobes() on ftrace sites: each probe
 * fires once enabled and not once disabled, two sharing a site; a probe
 * that is not registered is reported and does not hold the others back.
 */
static void ftrace_enable_together(struct kunit *test)
{
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, false);
	struct site_probe *c = site_probe_at(test, FTRACE_SITE_2, true);
	struct site_probe *stray = site_probe_at(test, FTRACE_SITE_1, false);
	struct kprobe *kps[] = { &a->kp, &b->kp, &stray->kp, &c->kp };
	int i;

	for (i = 0; i < ARRAY_SIZE(kps); i++) {
		kps[i]->flags = KPROBE_FLAG_DISABLED;
		if (kps[i] != &stray->kp)
			KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, kps[i]), 0);
	}
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + c->pre_hits, 0);

	KUNIT_EXPECT_EQ(test, enable_kprobes(kps, ARRAY_SIZE(kps)), -EINVAL);
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->post_hits, 1);
	KUNIT_EXPECT_EQ(test, stray->pre_hits, 0);

	KUNIT_EXPECT_EQ(test, disable_kprobes(kps, ARRAY_SIZE(kps)), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(kps); i++) {
		if (kps[i] != &stray->kp)
			KUNIT_EXPECT_TRUE(test, kprobe_disabled(kps[i]));
	}
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(true));

	/* Enabled again, one of the pair alone keeps its site armed. */
	KUNIT_EXPECT_EQ(test, enable_kprobes(kps, 2), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobes(kps + 3, 1), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobes(kps + 1, 1), 0);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 2);
	for (i = 0; i < ARRAY_SIZE(kps); i++) {
		if (kps[i] != &stray->kp)
			kpt_unreg_kprobe(test, kps[i]);
	}
}

#ifndef CONFIG_KPROBES_ON_FTRACE_DIRECT
static void ftrace_blocker_func(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *ops,
				struct ftrace_regs *fregs)
{
}

/*
 * One ops per case: ftrace_free_filter() frees an ops' filter without
 * forgetting it, so an ops is not registered again after it.
 */
static struct ftrace_ops ftrace_blocker = {
	.func = ftrace_blocker_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static struct ftrace_ops ftrace_join_blocker = {
	.func = ftrace_blocker_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static struct ftrace_ops ftrace_enable_blocker = {
	.func = ftrace_blocker_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/* @ops takes IPMODIFY at @site, so that ftrace refuses a probe there. */
static void ftrace_block(struct kunit *test, struct ftrace_ops *ops,
			 unsigned long site)
{
	KUNIT_ASSERT_NE(test, site, 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(ops, site, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(ops), 0);
}

static void ftrace_unblock(struct kunit *test, struct ftrace_ops *ops)
{
	KUNIT_EXPECT_EQ(test, unregister_ftrace_function(ops), 0);
	ftrace_free_filter(ops);
}
#endif

/*
 * ftrace refuses one site of a batch (a probe with a post_handler needs
 * IPMODIFY, which another ftrace user holds on that function): the batch
 * fails with ftrace's error and no site stays armed, the one ftrace
 * accepted included.
 */
static void ftrace_batch_refused(struct kunit *test)
{
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
	kunit_skip(test, "no IPMODIFY here; see ftrace_direct_shared");
#else
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, true);
	struct kprobe *kps[] = { &a->kp, &b->kp };
	unsigned long site1 = kprobe_ftrace_site_of_func((unsigned long)FTRACE_SITE_1);
	unsigned long site2 = kprobe_ftrace_site_of_func((unsigned long)FTRACE_SITE_2);

	ftrace_block(test, &ftrace_blocker, site2);
	kpt_expect_batch_refused(test, kps, ARRAY_SIZE(kps), -EBUSY);
	ftrace_unblock(test, &ftrace_blocker);
	KUNIT_EXPECT_NULL(test, table_entry((void *)site1));
	KUNIT_EXPECT_NULL(test, table_entry((void *)site2));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 0);
#endif
}

/*
 * enable_kprobes() where ftrace refuses one site (IPMODIFY is another
 * ftrace user's there): the error is ftrace's, the probe on the refused
 * site is left disabled as enable_kprobe() leaves it, and the other one
 * is armed all the same.
 */
static void ftrace_enable_together_refused(struct kunit *test)
{
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
	kunit_skip(test, "no IPMODIFY here; see ftrace_direct_shared");
#else
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, true);
	struct kprobe *kps[] = { &a->kp, &b->kp };
	unsigned long site2 = kprobe_ftrace_site_of_func((unsigned long)FTRACE_SITE_2);

	a->kp.flags = KPROBE_FLAG_DISABLED;
	b->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	ftrace_block(test, &ftrace_enable_blocker, site2);
	KUNIT_EXPECT_EQ(test, enable_kprobes(kps, ARRAY_SIZE(kps)), -EBUSY);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&a->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&b->kp));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 0);
	ftrace_unblock(test, &ftrace_enable_blocker);
	/* Nothing was left half done: b arms now that the site is free. */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b->kp), 0);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	kpt_unreg_kprobe(test, &a->kp);
	kpt_unreg_kprobe(test, &b->kp);
#endif
}

/*
 * A probe with a post_handler joins a disabled one at an ftrace site, and
 * arming the site fails (IPMODIFY is held by another ftrace user): the
 * newcomer is refused, and the probe already there must not keep the
 * post_handler it brought, or it could never be armed through the plain
 * ops again.
 */
static void ftrace_join_refused_leaves_no_post_handler(struct kunit *test)
{
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
	kunit_skip(test, "no IPMODIFY here; see ftrace_direct_shared");
#else
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_1, true);
	unsigned long site1 = kprobe_ftrace_site_of_func((unsigned long)FTRACE_SITE_1);
	struct kprobe *entry;

	a->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	ftrace_block(test, &ftrace_join_blocker, site1);
	kpt_expect_refused(test, &b->kp, -EBUSY);
	entry = table_entry((void *)site1);
	KUNIT_EXPECT_NOT_NULL(test, entry);
	if (entry)
		KUNIT_EXPECT_NULL(test, entry->post_handler);
	/* a, without a post_handler, needs no IPMODIFY */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a->kp), 0);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 0);
	ftrace_unblock(test, &ftrace_join_blocker);
	kpt_unreg_kprobe(test, &a->kp);
#endif
}

/*
 * A function's entry, asked for by name or by its first address, fires
 * through its ftrace site, wherever the architecture puts the probe
 * (entry_probe_addr()).
 */
static void ftrace_entry_is_the_site(struct kunit *test)
{
	struct site_probe *a = site_probe_at(test, NULL, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, false);
	unsigned long site1 = (unsigned long)entry_probe_addr(FTRACE_SITE_1);
	unsigned long site2 = (unsigned long)entry_probe_addr(FTRACE_SITE_2);

	KUNIT_ASSERT_NE(test, site1, 0);
	KUNIT_ASSERT_NE(test, site2, 0);
	a->kp.symbol_name = "register_kprobes";
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)a->kp.addr, site1);
	KUNIT_EXPECT_EQ(test, (unsigned long)b->kp.addr, site2);
	KUNIT_EXPECT_PTR_EQ(test, table_entry((void *)site1), &a->kp);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&a->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&b->kp));
	KUNIT_EXPECT_TRUE(test, a->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_TRUE(test, b->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);

	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	kpt_unreg_kprobe(test, &a->kp);
	kpt_unreg_kprobe(test, &b->kp);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
}

static struct kunit_case kprobes_ftrace_cases[] = {
	KUNIT_CASE(probe_on_rcu_lockdep_check),
	KUNIT_CASE(probe_on_rcu_list_check),
	KUNIT_CASE(hit_while_lockdep_lags),
	KUNIT_CASE(ftrace_missed_while_busy),
	KUNIT_CASE(ftrace_hit_from_interrupt_runs),
	KUNIT_CASE(ftrace_only_entry_follows_table),
	KUNIT_CASE(x86_int3_on_ftrace_site_not_ours),
	KUNIT_CASE(ftrace_entry_is_the_site),
	KUNIT_CASE(ftrace_batch),
	KUNIT_CASE(ftrace_batch_refused),
	KUNIT_CASE(ftrace_join_refused_leaves_no_post_handler),
	KUNIT_CASE(ftrace_enable_together),
	KUNIT_CASE(ftrace_enable_together_refused),
	{}
};

static struct kunit_suite kprobes_ftrace_suite = {
	.name = "kprobes_ftrace",
	.suite_init = kpt_suite_init,
	.test_cases = kprobes_ftrace_cases,
};

kunit_test_suites(&kprobes_ftrace_suite);
#endif /* CONFIG_KPROBES_ON_FTRACE && CONFIG_KRETPROBES */

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Waiting until no CPU can still run a removed probe's handlers.
 *
 * When unregister_kprobe() returns, its caller may free the probe, so no
 * CPU may be running the probe's handlers any more, nor be about to.  A
 * CPU uses a probe only during a hit: from the moment it finds the probe
 * (in the table, in an ftrace_ops' hint, in a detour buffer's aggregate,
 * through a kretprobe instance's holder) until its last handler returns,
 * with preemption disabled throughout.  Unregistration first makes the
 * probe unreachable for any hit that starts later, then waits for the
 * hits that may have found it earlier.
 *
 * An RCU grace period is such a wait, but it lasts milliseconds, and
 * tools remove thousands of probes one call at a time.  The hits are
 * short, and those that start with a breakpoint trap run with interrupts
 * off until they are over (the out-of-line step or the emulation that
 * follows the trap included): a CPU cannot take an interrupt in the
 * middle of one.  So once every other CPU has run an IPI sent after the
 * probe became unreachable, none of them is still in a trap-based hit
 * that may have found it; and the IPI orders the sender's stores before
 * everything the receiver does afterwards, so that later hits miss it.
 *
 * The hits that may run with interrupts on (ftrace sites, x86 detour
 * buffers, return trampolines, and kretprobe instances recycled from an
 * RCU callback) sit between kprobe_hit_begin() and kprobe_hit_end(), which
 * count them in the CPU's kprobe_hit_sections.  The IPI, running on that
 * CPU, reads the count without any barrier: a section it interrupted is
 * noted, and the waiter spins until the CPU has closed its outermost
 * section, which takes as long as the handlers do.
 *
 * An architecture whose hit paths all keep to this says so with
 * arch_kprobe_hits_counted().  Everywhere else unregistration waits for a
 * grace period, which covers any code that runs with preemption off.
 * Waiters take kprobe_hits_mutex, outside cpus_read_lock, with no other
 * kprobes lock held.
 *
 * The helpers that hits and the architectures' handlers call (counting a
 * miss, keeping probes off a CPU, reporting a recursion, letting a hit
 * from an interrupt run inside another's handling) are here too.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <kunit/visibility.h>
#include <linux/cpu.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "kprobes_internal.h"

DEFINE_PER_CPU(struct kprobe_hit_sections, kprobe_hit_sections);

/* One waiter at a time: they share each CPU's caught and seen. */
static DEFINE_MUTEX(kprobe_hits_mutex);

/* The IPI: is this CPU in a hit section it interrupted? */
static void kprobe_hits_look(void *unused)
{
	struct kprobe_hit_sections *s = this_cpu_ptr(&kprobe_hit_sections);

	s->caught = s->depth;
	s->seen = s->closed;
}

static void kprobe_hits_wait_cpu(int cpu)
{
	struct kprobe_hit_sections *s = per_cpu_ptr(&kprobe_hit_sections, cpu);

	if (!s->caught)
		return;
	/* Pairs with the release in kprobe_hit_end(). */
	while (smp_load_acquire(&s->closed) == s->seen)
		cpu_relax();
}

/**
 * kprobe_wait_for_hits() - wait for the hits that may use removed probes
 *
 * Called with no kprobes lock held, once the probes cannot be found by a
 * new hit.  On return no CPU runs or will run their handlers.
 */
void kprobe_wait_for_hits(void)
{
	int cpu;

	lockdep_assert_not_held(&kprobe_mutex);
	/* Rethook's handler runs in rethook's own section, not in ours. */
	if (!arch_kprobe_hits_counted() ||
	    IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK)) {
		synchronize_rcu();
		return;
	}

	guard(mutex)(&kprobe_hits_mutex);
	/*
	 * No CPU comes or goes meanwhile: one that is coming up runs with
	 * interrupts off until it is online, and would miss the IPI.
	 */
	cpus_read_lock();
	on_each_cpu(kprobe_hits_look, NULL, 1);
	for_each_online_cpu(cpu)
		kprobe_hits_wait_cpu(cpu);
	cpus_read_unlock();
}

static void kprobe_tasks_out_noop(struct work_struct *work)
{
}

/**
 * kprobe_wait_tasks_out() - wait until no task is stopped inside code
 *	that is about to be written over or given to another probe
 *
 * A task stopped there would resume in the middle of what is written
 * next.  It may have been preempted there, which tasks RCU waits for (a
 * preempted task has not switched voluntarily), or, on a kernel without
 * preemption, interrupted there.  Without preemption, tasks RCU is plain
 * RCU, and with CONFIG_PREEMPT_COUNT its tick counts a kernel context it
 * interrupted with no lock held as quiescent: the grace period can end
 * while the interrupt is still to return into the old code.  There, a
 * work item runs on every CPU instead: it runs only once the task it
 * found there has called into the scheduler, which it cannot do from
 * inside the code, nor from an interrupt, on such a kernel.
 *
 * Called with no kprobes lock held.
 */
void kprobe_wait_tasks_out(void)
{
	lockdep_assert_not_held(&kprobe_mutex);
	if (IS_ENABLED(CONFIG_TASKS_RCU))
		synchronize_rcu_tasks();
	else
		schedule_on_each_cpu(kprobe_tasks_out_noop);
}

/*
 * What current_kprobe points at while a CPU is in kprobe_busy_begin(): any
 * probe hit then is only counted.  Its address is never probed.
 */
struct kprobe kprobe_busy_marker = {
	.addr = (kprobe_opcode_t *)kprobe_busy_begin,
	.flags = KPROBE_FLAG_DISABLED,
};

static nokprobe_inline void kprobe_count_one_miss(struct kprobe *p,
						  enum kprobe_miss_cause cause)
{
	p->nmissed++;
	p->nmissed_by[cause]++;
}

/**
 * kprobe_count_miss() - count a hit whose handlers did not run, and why
 * @p: the table entry that was hit
 * @cause: why
 *
 * A miss at an aggregate is a miss for each probe in it.
 */
void kprobe_count_miss(struct kprobe *p, enum kprobe_miss_cause cause)
{
	struct kprobe *kp;

	if (kprobe_is_aggr(p))
		list_for_each_entry_rcu(kp, &p->list, list,
					kprobe_rcu_reader())
			kprobe_count_one_miss(kp, cause);
	else
		kprobe_count_one_miss(p, cause);
}
NOKPROBE_SYMBOL(kprobe_count_miss);

/**
 * kprobes_inc_nmissed_count() - count a hit while this CPU runs a probe
 * @p: the table entry that was hit
 *
 * What every architecture calls when a probe is hit from inside another's
 * handler or single step, or from kprobes' own code.
 */
void kprobes_inc_nmissed_count(struct kprobe *p)
{
	kprobe_count_miss(p, kprobe_running() == &kprobe_busy_marker ?
			     KPROBE_MISS_BUSY : KPROBE_MISS_RECURSION);
}
NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/**
 * kprobe_busy_begin() - mark this CPU as running a probe handler
 *
 * Until kprobe_busy_end(), probes hit on this CPU are only counted in
 * their nmissed (as KPROBE_MISS_BUSY).  Used around code that probes must
 * not re-enter.
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	__this_cpu_write(current_kprobe, &kprobe_busy_marker);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end the section begun by kprobe_busy_begin()
 */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_busy_end);

DEFINE_PER_CPU(struct kprobe_nesting, kprobe_nesting);

/* 0 in a task, 1 serving a softirq, 2 in a hardirq, 3 in an NMI. */
static nokprobe_inline unsigned int kprobe_context_level(unsigned int ctx)
{
	return !!(ctx & NMI_MASK) + !!(ctx & (NMI_MASK | HARDIRQ_MASK)) +
	       !!(ctx & KPROBE_CONTEXT_MASK);
}

/**
 * kprobe_nest_begin() - may a hit run inside another probe's handling?
 * @ctx: the new hit's context (kprobe_hit_context(), or for a trap the
 *	context the trap interrupted)
 *
 * For the architecture's hit paths, with preemption or interrupts off,
 * when a probe is hit while kprobe_running() is set.  Handlers that run
 * with interrupts on (ftrace sites, detour buffers, return handlers) can
 * be interrupted, and before this an interrupt's probes were lost there.
 * A hit from a deeper context than the running one's cannot be that
 * probe's own recursion, so it runs, as if no probe were running, and
 * the running probe's state waits in a frame on this CPU's stack of them
 * until kprobe_running_done() or kprobe_nest_end() ends the new hit.  Its
 * handlers interrupt the running ones as any interrupt handler would: a
 * lock they share must be taken with interrupts off (kprobes.rst says
 * so).  A hit in the same context, or while kprobes' own code holds the
 * CPU (kprobe_busy_begin()), is still a miss.
 *
 * current_kprobe keeps the running probe until the new hit's
 * kprobe_running_set(), and kprobe_nest_end() puts it back in one store:
 * it is never NULL while a frame is in use.  So a hit that finds it NULL
 * (an NMI in between included) is a first one, and finds no frame in use
 * when it ends: kprobe_running_done() may tell the two kinds apart by the
 * depth alone.
 *
 * Return: true when the new hit may run its handlers.
 */
bool kprobe_nest_begin(unsigned int ctx)
{
	struct kprobe_nesting *n = this_cpu_ptr(&kprobe_nesting);
	unsigned int level = kprobe_context_level(ctx);
	struct kprobe *running = kprobe_running();
	struct kprobe_nest_frame *f;

	if (running == &kprobe_busy_marker ||
	    level <= kprobe_context_level(n->owner_ctx) ||
	    WARN_ON_ONCE(n->depth == ARRAY_SIZE(n->frames)))
		return false;
	f = &n->frames[n->depth];
	f->kp = running;
	f->owner_ctx = n->owner_ctx;
	f->kcb = *get_kprobe_ctlblk();
	/* An NMI that nests now must find the frame filled, not reuse it. */
	barrier();
	n->depth++;
	return true;
}
NOKPROBE_SYMBOL(kprobe_nest_begin);

/**
 * kprobe_nest_or_miss() - may @p, hit while a probe runs here, run?
 * @p: the table entry hit, outside a trap (an ftrace site, a detour)
 *
 * Return: true when kprobe_nest_begin() lets the hit run its handlers,
 * which it then ends with kprobe_nest_end(); false when the hit is only
 * counted, as @p's miss.
 */
bool kprobe_nest_or_miss(struct kprobe *p)
{
	if (kprobe_nest_begin(kprobe_hit_context()))
		return true;
	kprobes_inc_nmissed_count(p);
	return false;
}
NOKPROBE_SYMBOL(kprobe_nest_or_miss);

/**
 * kprobe_nest_end() - a hit that kprobe_nest_begin() let run is over
 *
 * Called by kprobe_running_done() while a frame is in use.  Hits in
 * deeper contexts end before the hits they interrupted, so the hit ending
 * is the last one let run, and the probe it interrupted is on top of the
 * stack of frames.
 */
void kprobe_nest_end(void)
{
	struct kprobe_nesting *n = this_cpu_ptr(&kprobe_nesting);
	struct kprobe_nest_frame *f = &n->frames[n->depth - 1];

	*get_kprobe_ctlblk() = f->kcb;
	n->owner_ctx = f->owner_ctx;
	__this_cpu_write(current_kprobe, f->kp);
	/* The frame is read: only now may an NMI that nests reuse it. */
	barrier();
	n->depth--;
}
NOKPROBE_SYMBOL(kprobe_nest_end);

#ifdef CONFIG_OPTPROBES
/*
 * The pre_handlers of @op's aggregate.  With a single probe in it (the
 * usual case) call that one directly: what the aggregate's handler would
 * do, with one call and one list walk less.
 */
static __always_inline int kprobe_detour_handlers(struct optimized_kprobe *op,
						  struct pt_regs *regs)
{
	struct kprobe *kp = READ_ONCE(op->solo);

	if (!kp)
		return op->kp.pre_handler(&op->kp, regs);
	if (!kp->pre_handler || kprobe_disabled(kp))
		return 0;
	return kp->pre_handler(kp, regs);
}

/*
 * The hit's handlers, with this CPU taken for the probe meanwhile.
 * @nested is a constant: whether kprobe_nest_or_miss() let the hit run.
 */
static __always_inline int kprobe_detour_run(struct optimized_kprobe *op,
					     struct pt_regs *regs, bool nested)
{
	int moved;

	kprobe_running_set(&op->kp);
	__this_cpu_write(kprobe_ctlblk.kprobe_status, KPROBE_HIT_ACTIVE);
	moved = kprobe_detour_handlers(op, regs);
	kprobe_running_end(nested);
	return moved;
}

/*
 * A hit while a probe runs on this CPU: from a deeper context (an
 * interrupt in the running handler) it runs as a hit of its own, else it
 * is only counted.  Out of line, so that the first hit's path keeps no
 * registers for it.
 */
static noinline notrace int kprobe_detour_nested(struct optimized_kprobe *op,
						 struct pt_regs *regs)
{
	if (!kprobe_nest_or_miss(&op->kp))
		return 0;
	return kprobe_detour_run(op, regs, true);
}
NOKPROBE_SYMBOL(kprobe_detour_nested);

/**
 * kprobe_detour_hit() - a hit through an optimized probe's detour
 * @op: the optimized probe whose detour was entered
 * @regs: the registers at the probe, saved by the detour as a trap would
 *	have saved them, the instruction pointer on the probe
 *
 * The x86 and arm64 detours call this on the probed context's stack,
 * with its interrupt state, maybe preemptible.
 *
 * Return: non-zero when a pre_handler moved the instruction pointer, and
 * the detour must go on there instead of running the displaced code.
 */
int notrace kprobe_detour_hit(struct optimized_kprobe *op, struct pt_regs *regs)
{
	int moved = 0;

	/*
	 * Checked in a hit section: an unregistration marks the entry
	 * disabled before it waits for the hits in progress, so a task that
	 * was preempted earlier in the detour either sees the mark or is
	 * waited for.
	 */
	preempt_disable_notrace();
	kprobe_hit_begin();
	if (!kprobe_disabled(&op->kp)) {
		if (unlikely(kprobe_running()))
			moved = kprobe_detour_nested(op, regs);
		else
			moved = kprobe_detour_run(op, regs, false);
	}
	kprobe_hit_end();
	preempt_enable_notrace();
	return moved;
}
NOKPROBE_SYMBOL(kprobe_detour_hit);
#endif

#if IS_ENABLED(CONFIG_KUNIT)
/* For the KUnit modules: the per-CPU variables are not exported. */
struct kprobe *kprobe_running_kunit(void)
{
	return kprobe_running();
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_running_kunit);

unsigned int kprobe_nest_depth_kunit(int cpu)
{
	return per_cpu(kprobe_nesting.depth, cpu);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_nest_depth_kunit);

/* A hit's two ends, as the hit paths write them, for the frames' test. */
void kprobe_running_set_kunit(struct kprobe *p)
{
	kprobe_running_set(p);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_running_set_kunit);

void kprobe_running_done_kunit(void)
{
	kprobe_running_done();
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_running_done_kunit);

bool kprobe_nest_begin_kunit(void)
{
	return kprobe_nest_begin(kprobe_hit_context());
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_nest_begin_kunit);
#endif

/**
 * dump_kprobe() - print what a probe was asked to probe
 * @kp: the probe
 *
 * For the architecture's fatal-recursion report.
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("probe %s+%#x at %pS\n",
	       kp->symbol_name ?: "(addr)", kp->offset, kp->addr);
}
NOKPROBE_SYMBOL(dump_kprobe);

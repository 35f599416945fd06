// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Growing the instances of a kretprobe whose maxactive was left to the
 * core, so that calls which sleep in the probed function are not missed.
 *
 * The way of catching returns (kprobes_kretprobe_tramp.c or
 * kprobes_kretprobe_rethook.c) keeps the instances in pools and counts,
 * in a struct kretprobe_growth, the instances it has handed out.  When
 * half of all instances are out, an irq_work (a hit may come from an
 * NMI-like trap) schedules a worker, which asks the way, through
 * kretprobe_pool_add(), for a new pool as large as all the others
 * together, up to KRETPROBE_GROW_MAX instances or KRETPROBE_GROW_BYTES
 * of them.  The hit path only reads the pools published so far: it
 * neither allocates nor locks, and it asks for the worker once, not
 * again until the worker has run.
 */

#include <kunit/visibility.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/workqueue.h>

#include "kprobes_internal.h"

/*
 * Once per round of the worker.  A kick on every hit would raise an IPI
 * on every hit while the worker cannot run (all CPUs in stop_machine(),
 * say), and a probed function on the interrupt return path then makes
 * that CPU take its kicks for ever.
 *
 * Where irq_work has no interrupt of its own (mips), a kick queued on
 * this CPU waits for its next tick, and calls that sleep in the probed
 * function may use up the pool meanwhile; one queued on another CPU runs
 * at the IPI that queueing sends.  Not from an NMI: that IPI may not be
 * sent from one.
 */
void kretprobe_grow_ask(struct kretprobe_growth *g)
{
	unsigned int cpu;

	if (atomic_xchg(&g->asked, 1))
		return;
	if (!arch_irq_work_has_interrupt() && !in_nmi()) {
		cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
		if (cpu < nr_cpu_ids) {
			irq_work_queue_on(&g->kick, cpu);
			return;
		}
	}
	irq_work_queue(&g->kick);
}
NOKPROBE_SYMBOL(kretprobe_grow_ask);

/* Add pools while half the instances are out; no lock on the hit side. */
static void kretprobe_grow_work(struct work_struct *work)
{
	struct kretprobe_growth *g = container_of(work, struct kretprobe_growth,
						  work);
	int n;

	/*
	 * Before it looks (ordered, as the hit's ask is): a hit that the
	 * look misses can kick again.
	 */
	atomic_xchg(&g->asked, 0);
	while (g->nr_more < KRETPROBE_MORE_POOLS && kretprobe_grow_wanted(g)) {
		n = min(g->total, g->limit - g->total);
		if (kretprobe_pool_add(g, n))
			return;
		WRITE_ONCE(g->total, g->total + n);
		/* Publish the pool: the hit path reads pools below nr_more. */
		smp_store_release(&g->nr_more, g->nr_more + 1);
	}
}

static void kretprobe_grow_kick(struct irq_work *work)
{
	struct kretprobe_growth *g = container_of(work, struct kretprobe_growth,
						  kick);

	g->nr_kicks++;
	/*
	 * The calls that come before the worker runs live on the other
	 * half of the instances: a high-priority worker runs before the
	 * busy tasks on this CPU that make them.
	 */
	queue_work(system_highpri_wq, &g->work);
}

/**
 * kretprobe_growth_init() - set up the growth of a new pool
 * @g: the growth, zeroed
 * @first: the instances of the first pool
 * @spares: how many of them the CPUs may keep aside while idle
 * @obj_size: the size of one instance
 */
void kretprobe_growth_init(struct kretprobe_growth *g, int first, int spares,
			   int obj_size)
{
	g->total = first;
	g->spares = spares;
	g->limit = max(first, min(KRETPROBE_GROW_MAX,
				  KRETPROBE_GROW_BYTES / obj_size));
	init_irq_work(&g->kick, kretprobe_grow_kick);
	INIT_WORK(&g->work, kretprobe_grow_work);
}

/**
 * kretprobe_growth_stop() - wait until no pool is being added
 * @g: the growth
 *
 * Called once no hit can take instances any more, so that no new kick
 * comes after these.
 *
 * Context: may sleep.
 */
void kretprobe_growth_stop(struct kretprobe_growth *g)
{
	irq_work_sync(&g->kick);
	cancel_work_sync(&g->work);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kretprobe_grow_kicks() - how often a kretprobe's pool asked to grow
 * @rp: a registered kretprobe whose maxactive was left to the core
 *
 * For the KUnit suite.  Waits for a kick in flight first.
 *
 * Context: may sleep.
 * Return: the kicks run so far, or -EINVAL when @rp's pool cannot grow.
 */
int kretprobe_grow_kicks(struct kretprobe *rp)
{
	struct kretprobe_growth *g = kretprobe_growth_of(rp);

	if (!g)
		return -EINVAL;
	irq_work_sync(&g->kick);
	return READ_ONCE(g->nr_kicks);
}
EXPORT_SYMBOL_IF_KUNIT(kretprobe_grow_kicks);
#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes on rethook, for the architectures that catch returns
 * only that way (CONFIG_KRETPROBE_ON_RETHOOK).
 *
 * A kretprobe owns a rethook (rp->rh), whose nodes are its instances and
 * whose data is the kretprobe.  rethook keeps the per-task list of
 * pending returns, the return address the unwinders recover, and the
 * pool, and frees what is still in flight after rethook_free().  What is
 * left for us is to run the entry and return handlers as kprobe
 * handlers: with current_kprobe set, so a probe hit meanwhile is only
 * counted.
 *
 * A rethook's pool has a fixed size.  A kretprobe whose maxactive was
 * left to the core grows (kprobes_kretprobe_grow.c) by more rethooks,
 * made for the same kretprobe, kept with the first in a struct
 * kretprobe_rethooks (rp->rhs): a return through any of them finds it.
 * The instances handed out are counted when the entry takes one and when
 * its return handler runs; a task that exits inside the probed function
 * gives its instance back without a return, so the count may run high
 * and the pool grow more than it needs, never past its limit.
 */

#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <linux/slab.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

struct kretprobe_rethooks {
	struct kretprobe_growth growth;
	struct rethook *first;		/* rp->rh */
	struct rethook *more[KRETPROBE_MORE_POOLS];
	struct kretprobe *rp;
	int obj_size;
	bool grows;
	/* Of more[], how many kretprobe_pool_orphan() stopped. */
	int nr_stopped;
};

static nokprobe_inline struct kretprobe_rethooks *
kretprobe_rethooks_of(struct kretprobe_growth *g)
{
	return container_of(g, struct kretprobe_rethooks, growth);
}

/* The growth of a pool, or NULL when it has a fixed size. */
static nokprobe_inline struct kretprobe_growth *
kretprobe_rethooks_growth(struct kretprobe_rethooks *rhs)
{
	return rhs->grows ? &rhs->growth : NULL;
}

static struct kretprobe_instance *kretprobe_rethook_instance(struct rethook_node *node)
{
	return container_of(node, struct kretprobe_instance, node);
}
NOKPROBE_SYMBOL(kretprobe_rethook_instance);

/* No entry_handler, or one that lets this call be tracked. */
static bool kretprobe_rethook_wanted(struct kretprobe *rp,
				     struct rethook_node *node,
				     struct pt_regs *regs)
{
	return !rp->entry_handler ||
	       !rp->entry_handler(kretprobe_rethook_instance(node), regs);
}
NOKPROBE_SYMBOL(kretprobe_rethook_wanted);

/* The first rethook, then the ones added, the newest first. */
static struct rethook_node *kretprobe_rethook_get(struct kretprobe *rp)
{
	struct kretprobe_rethooks *rhs = rp->rhs;
	struct rethook_node *node = rethook_try_get(rp->rh);
	int i;

	if (node || !rhs->grows)
		return node;
	/* Pairs with the release in kretprobe_grow_work(): more[i] is set. */
	for (i = smp_load_acquire(&rhs->growth.nr_more) - 1; i >= 0; i--) {
		node = rethook_try_get(rhs->more[i]);
		if (node)
			break;
	}
	return node;
}
NOKPROBE_SYMBOL(kretprobe_rethook_get);

int kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_growth *g = kretprobe_rethooks_growth(rp->rhs);
	struct rethook_node *node = kretprobe_rethook_get(rp);

	if (unlikely(!node)) {
		rp->nmissed++;
		if (g)
			kretprobe_grow_if_wanted(g);
		return 0;
	}
	if (g)
		kretprobe_taken(g);
	if (kretprobe_rethook_wanted(rp, node, regs)) {
		/* At an ftrace site the return address is where mcount left it. */
		rethook_hook(node, regs, kprobe_ftrace(p));
		return 0;
	}
	rethook_recycle(node);
	if (g)
		kretprobe_given_back(g);
	return 0;
}
NOKPROBE_SYMBOL(kretprobe_entry);

/*
 * Called by rethook's trampoline with preemption off.  The return may
 * come from inside another probe's handler (an IRQ that hit it): give
 * that one its current_kprobe and status back afterwards.
 */
static void kretprobe_rethook_return(struct rethook_node *node, void *data,
				     unsigned long ret_addr,
				     struct pt_regs *regs)
{
	struct kretprobe *rp = data;
	struct kprobe_aside outer;
	/*
	 * No return handler runs once the kretprobe is orphaned and the
	 * wait for hits is over: rp->rhs is still there.
	 */
	struct kretprobe_growth *g = kretprobe_rethooks_growth(rp->rhs);

	if (g)
		kretprobe_given_back(g);
	if (!rp->handler)
		return;
	kprobe_running_aside(&outer);
	kprobe_running_set(&rp->kp);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	rp->handler(kretprobe_rethook_instance(node), regs);
	kprobe_running_back(&outer);
}
NOKPROBE_SYMBOL(kretprobe_rethook_return);

/*
 * rethook's trampoline handler recycles the node and then calls
 * preempt_enable_notrace(), which enters preempt_schedule_notrace() when
 * a reschedule is due.  A kretprobe on that function catches this call
 * too, and its return comes back through the same handler, which may
 * call it again: with a reschedule due each time (a busy, slow machine),
 * the calls nest until the stack overflows.  The recycled node means the
 * pool never runs dry to stop them.
 */
bool kretprobe_return_reenters(kprobe_opcode_t *func)
{
#ifdef CONFIG_PREEMPTION
	return func == dereference_kernel_function_descriptor(preempt_schedule_notrace);
#else
	return false;
#endif
}

/* Here the core's pool handle is the kretprobe_rethooks. */
static struct kretprobe_pool *kretprobe_pool_of_rethooks(struct kretprobe_rethooks *rhs)
{
	return (struct kretprobe_pool *)rhs;
}

static struct kretprobe_rethooks *kretprobe_rethooks_of_pool(struct kretprobe_pool *pool)
{
	return (struct kretprobe_rethooks *)pool;
}

/* Only rp's address is kept, for the return handler. */
static struct rethook *kretprobe_rethook_new(struct kretprobe_rethooks *rhs, int num)
{
	return rethook_alloc(rhs->rp, kretprobe_rethook_return, rhs->obj_size,
			     num);
}

/* The growth worker's step: rethook number g->nr_more, of @n instances. */
int kretprobe_pool_add(struct kretprobe_growth *g, int n)
{
	struct kretprobe_rethooks *rhs = kretprobe_rethooks_of(g);
	struct rethook *rh = kretprobe_rethook_new(rhs, n);

	if (IS_ERR(rh))
		return PTR_ERR(rh);
	rhs->more[g->nr_more] = rh;
	return 0;
}

struct kretprobe_growth *kretprobe_growth_of(struct kretprobe *rp)
{
	return rp->rhs ? kretprobe_rethooks_growth(rp->rhs) : NULL;
}

struct kretprobe_pool *kretprobe_pool_make(struct kretprobe *rp, int maxactive,
					   bool grow)
{
	struct kretprobe_rethooks *rhs = kzalloc(sizeof(*rhs), GFP_KERNEL);

	if (!rhs)
		return ERR_PTR(-ENOMEM);
	rhs->rp = rp;
	rhs->obj_size = sizeof(struct kretprobe_instance) + rp->data_size;
	rhs->first = kretprobe_rethook_new(rhs, maxactive);
	if (IS_ERR(rhs->first)) {
		struct kretprobe_pool *err = ERR_CAST(rhs->first);

		kfree(rhs);
		return err;
	}
	rhs->grows = grow;
	if (grow)
		kretprobe_growth_init(&rhs->growth, maxactive, 0, rhs->obj_size);
	return kretprobe_pool_of_rethooks(rhs);
}

void kretprobe_pool_attach(struct kretprobe *rp, struct kretprobe_pool *pool)
{
	struct kretprobe_rethooks *rhs = kretprobe_rethooks_of_pool(pool);

	rp->rhs = rhs;
	rp->rh = rhs->first;
	rp->nmissed = 0;
}

void kretprobe_pool_detach(struct kretprobe *rp)
{
	rp->rh = NULL;
	rp->rhs = NULL;
}

/*
 * Once no rethook is being added.  rethook frees the nodes still in
 * flight when they come back.
 */
static void kretprobe_rethooks_free(struct kretprobe_rethooks *rhs)
{
	int i;

	for (i = 0; i < rhs->growth.nr_more; i++)
		rethook_free(rhs->more[i]);
	rethook_free(rhs->first);
	kfree(rhs);
}

/* Stop the growth of a pool that no hit takes instances from any more. */
static void kretprobe_rethooks_stop_growth(struct kretprobe_rethooks *rhs)
{
	struct kretprobe_growth *g = kretprobe_rethooks_growth(rhs);

	if (g)
		kretprobe_growth_stop(g);
}

void kretprobe_pool_discard(struct kretprobe_pool *pool)
{
	struct kretprobe_rethooks *rhs = kretprobe_rethooks_of_pool(pool);

	kretprobe_rethooks_stop_growth(rhs);
	kretprobe_rethooks_free(rhs);
}

/*
 * No new instance, and no return handler, from here on.  The growth
 * worker may still publish a rethook after this look:
 * kretprobe_pool_finish() stops that one.
 */
void kretprobe_pool_orphan(struct kretprobe *rp)
{
	struct kretprobe_rethooks *rhs = rp->rhs;
	int i;

	if (!rhs)
		return;
	rethook_stop(rhs->first);
	/* Pairs with the release in kretprobe_grow_work(): more[i] is set. */
	rhs->nr_stopped = smp_load_acquire(&rhs->growth.nr_more);
	for (i = 0; i < rhs->nr_stopped; i++)
		rethook_stop(rhs->more[i]);
}

/* After the wait for hits that followed kretprobe_pool_orphan(). */
void kretprobe_pool_finish(struct kretprobe *rp)
{
	struct kretprobe_rethooks *rhs = rp->rhs;
	int i;

	if (!rhs)
		return;
	kretprobe_rethooks_stop_growth(rhs);
	if (rhs->growth.nr_more > rhs->nr_stopped) {
		/*
		 * A hit that was in flight at the orphaning may have taken an
		 * instance from a rethook added since: stop those, and wait
		 * for the return handlers that already saw them running.
		 */
		for (i = rhs->nr_stopped; i < rhs->growth.nr_more; i++)
			rethook_stop(rhs->more[i]);
		synchronize_rcu();
	}
	kretprobe_rethooks_free(rhs);
	kretprobe_pool_detach(rp);
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes on rethook, for the architectures that catch returns
 * only that way (CONFIG_KRETPROBE_ON_RETHOOK).
 *
 * A kretprobe owns one rethook, whose nodes are its instances and whose
 * data is the kretprobe.  rethook keeps the per-task list of pending
 * returns, the return address the unwinders recover, and the pool, and
 * frees what is still in flight after rethook_free().  What is left for
 * us is to run the entry and return handlers as kprobe handlers: with
 * current_kprobe set, so a probe hit meanwhile is only counted.
 */

#include <linux/kprobes.h>
#include <linux/rethook.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

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

int kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct rethook_node *node = rethook_try_get(rp->rh);

	if (unlikely(!node))
		rp->nmissed++;
	else if (kretprobe_rethook_wanted(rp, node, regs))
		/* At an ftrace site the return address is where mcount left it. */
		rethook_hook(node, regs, kprobe_ftrace(p));
	else
		rethook_recycle(node);
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
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *outer = __this_cpu_read(current_kprobe);
	unsigned long outer_status = kcb->kprobe_status;

	if (!rp->handler)
		return;
	__this_cpu_write(current_kprobe, &rp->kp);
	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	rp->handler(kretprobe_rethook_instance(node), regs);
	__this_cpu_write(current_kprobe, outer);
	kcb->kprobe_status = outer_status;
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

/* Here the core's pool handle is the rethook itself. */
static struct kretprobe_pool *kretprobe_pool_of_rethook(struct rethook *rh)
{
	return (struct kretprobe_pool *)rh;
}

static struct rethook *kretprobe_rethook_of_pool(struct kretprobe_pool *pool)
{
	return (struct rethook *)pool;
}

/* rethook's pool has a fixed size: @grow is not supported. */
struct kretprobe_pool *kretprobe_pool_make(struct kretprobe *rp, int maxactive,
					   bool grow)
{
	/* Only rp's address is kept, for the return handler. */
	return kretprobe_pool_of_rethook(rethook_alloc(rp, kretprobe_rethook_return,
						       sizeof(struct kretprobe_instance) +
						       rp->data_size, maxactive));
}

void kretprobe_pool_attach(struct kretprobe *rp, struct kretprobe_pool *pool)
{
	rp->rh = kretprobe_rethook_of_pool(pool);
	rp->nmissed = 0;
}

void kretprobe_pool_detach(struct kretprobe *rp)
{
	rp->rh = NULL;
}

/* rethook frees the nodes still in flight when they come back. */
void kretprobe_pool_discard(struct kretprobe_pool *pool)
{
	rethook_free(kretprobe_rethook_of_pool(pool));
}

/* No new instance, and no return handler, from here on. */
void kretprobe_pool_orphan(struct kretprobe *rp)
{
	if (rp->rh)
		rethook_stop(rp->rh);
}

void kretprobe_pool_finish(struct kretprobe *rp)
{
	if (!rp->rh)
		return;
	kretprobe_pool_discard(kretprobe_pool_of_rethook(rp->rh));
	rp->rh = NULL;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes through the architecture's own return trampoline.
 *
 * The kretprobe's entry probe takes an instance from the kretprobe's
 * pool, records the caller's return address in it and makes the
 * function return into the architecture's trampoline instead.  The
 * instance is pushed on the task's kretprobe_instances list; the
 * trampoline pops the instances that belong to the returning frame, runs
 * their handlers and jumps to the real return address.
 *
 * Each kretprobe owns a pool of maxactive instances, kept in a struct
 * kretprobe_holder, with one free instance per CPU set aside in front of
 * it.  Taking and returning an instance is lock-free.  When
 * the kretprobe is unregistered, the holder forgets it (rph->rp = NULL)
 * and its pool is finalized; instances still in flight are dropped as
 * they come back, and the last one frees the holder.
 *
 * A kretprobe whose maxactive was left to the core must not miss calls
 * because they sleep: its holder grows (kprobes_kretprobe_grow.c), by
 * pools kept in a struct kretprobe_tramp_pools.  Each instance knows its
 * pool (ri->pool) and goes back to it; the holder is freed with the last
 * of its pools.  A user-set maxactive stays fixed.
 *
 * The functions every hit runs, here and in the architecture's part, are
 * notrace: the function tracer's entry sites would cost each hit their
 * NOPs, and tracing them would only show the probe's own work.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpumask.h>
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/objpool.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

/* The pools a growing holder adds to its own. */
struct kretprobe_tramp_pools {
	struct kretprobe_growth growth;	/* rph->growth points here */
	struct objpool_head *more[KRETPROBE_MORE_POOLS];
	int obj_size;
	atomic_t pools;		/* pools not yet released */
	struct objpool_head *filling;	/* the pool objpool_init() fills */
	struct kretprobe_holder *rph;
};

static nokprobe_inline struct kretprobe_tramp_pools *
kretprobe_tramp_pools_of(struct kretprobe_growth *g)
{
	return container_of(g, struct kretprobe_tramp_pools, growth);
}

static struct kretprobe_instance *kretprobe_pop_more(struct kretprobe_growth *g)
{
	struct kretprobe_tramp_pools *tp = kretprobe_tramp_pools_of(g);
	struct kretprobe_instance *ri;
	/* Pairs with the release in kretprobe_grow_work(): more[i] is set. */
	int i, n = smp_load_acquire(&g->nr_more);

	for (i = n - 1; i >= 0; i--) {
		ri = objpool_pop(tp->more[i]);
		if (ri)
			return ri;
	}
	return NULL;
}
NOKPROBE_SYMBOL(kretprobe_pop_more);

/**
 * arch_kretprobe_fixup_return() - put the real return address back
 * @regs: registers saved by the trampoline
 * @correct_ret_addr: where the function really returns to
 *
 * Called after the return handlers and before the frame's instances leave
 * the task's list.  An architecture whose unwinder reads the trampoline's
 * frame stores @correct_ret_addr there, so that a stack walk between the
 * two, when kretprobe_find_ret_addr() no longer knows the frame, still
 * reaches the caller.  The default does nothing.
 */
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *correct_ret_addr)
{
}

/*
 * Each CPU keeps one free instance aside (rph->spare), so that a call and
 * its return on one CPU, the common case, cost one exchange each rather
 * than a trip through the pool with interrupts off.  The exchanges are
 * atomic, not merely per-CPU: a CPU that finds its spare and the pool
 * empty takes other CPUs' spares before it counts a miss, since an
 * instance set aside is not in use and maxactive counts those in use.
 */
static noinline struct kretprobe_instance *
kretprobe_get_slow(struct kretprobe_holder *rph)
{
	struct kretprobe_growth *g = rph->growth;
	struct kretprobe_instance *ri;
	int cpu;

	ri = objpool_pop(&rph->pool);
	if (!ri && g)
		ri = kretprobe_pop_more(g);
	if (ri) {
		if (g)
			kretprobe_taken(g);
		return ri;
	}
	for_each_possible_cpu(cpu) {
		ri = xchg(per_cpu_ptr(rph->spare, cpu), NULL);
		if (ri)
			return ri;
	}
	if (g)
		kretprobe_grow_if_wanted(g);
	return NULL;
}
NOKPROBE_SYMBOL(kretprobe_get_slow);

static nokprobe_inline void kretprobe_put(struct kretprobe_holder *rph,
					  struct kretprobe_instance *ri)
{
	if (!cmpxchg(this_cpu_ptr(rph->spare), NULL, ri))
		return;
	objpool_push(ri, ri->pool);
	if (rph->growth)
		kretprobe_given_back(rph->growth);
}

/* @ri tracks this call: the function returns through the trampoline. */
static nokprobe_inline void kretprobe_track(struct kretprobe_instance *ri,
					    struct pt_regs *regs)
{
	arch_kretprobe_divert(ri, regs);
	__llist_add(&ri->llist, &current->kretprobe_instances);
}

/*
 * kretprobe_entry() without a spare at hand (@ri is NULL), or with an
 * entry_handler to ask.
 */
static noinline int kretprobe_entry_slow(struct kretprobe *rp,
					 struct kretprobe_instance *ri,
					 struct pt_regs *regs)
{
	if (!ri)
		ri = kretprobe_get_slow(rp->rph);
	if (unlikely(!ri)) {
		rp->nmissed++;
		return 0;
	}
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		kretprobe_put(rp->rph, ri);
		return 0;
	}
	kretprobe_track(ri, regs);
	return 0;
}
NOKPROBE_SYMBOL(kretprobe_entry_slow);

/*
 * Called with preemption off, like the return to the pool.  The common
 * hit, with this CPU's spare at hand and no entry_handler, calls nothing
 * and so needs no frame.
 */
int notrace kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;

	ri = xchg(this_cpu_ptr(rp->rph->spare), NULL);
	if (unlikely(!ri || rp->entry_handler))
		return kretprobe_entry_slow(rp, ri, regs);
	kretprobe_track(ri, regs);
	return 0;
}
NOKPROBE_SYMBOL(kretprobe_entry);

/* The last drop frees the pool, which may sleep: not from a trap. */
static void kretprobe_drop_rcu(struct rcu_head *head)
{
	struct kretprobe_instance *ri =
		container_of(head, struct kretprobe_instance, rcu);

	objpool_drop(ri, ri->pool);
}

/*
 * Give an instance back, or drop it when its kretprobe is gone.  In a
 * hit section or a trap: unregistration waits for the hits in progress
 * between clearing rph->rp and finalizing the pool, and a push that
 * lands after the finalization would keep the holder alive for ever.
 */
static nokprobe_inline void kretprobe_recycle(struct kretprobe_instance *ri)
{
	struct kretprobe_holder *rph = ri->rph;

	lockdep_assert_preemption_disabled();
	if (likely(rcu_access_pointer(rph->rp)))
		kretprobe_put(rph, ri);
	else
		call_rcu(&ri->rcu, kretprobe_drop_rcu);
}

static struct kretprobe_instance *kretprobe_of(struct llist_node *node)
{
	return container_of(node, struct kretprobe_instance, llist);
}
NOKPROBE_SYMBOL(kretprobe_of);

/*
 * Instances for deeper frames that never returned through us (the stack
 * was unwound past them) sit above the returning frame's; drop them.
 */
static void kretprobe_drop_stale(struct llist_node **head, void *frame_pointer)
{
	struct llist_node *node;

	while (*head && kretprobe_of(*head)->fp != frame_pointer) {
		node = *head;
		*head = node->next;
		kretprobe_recycle(kretprobe_of(node));
	}
}
NOKPROBE_SYMBOL(kretprobe_drop_stale);

/*
 * Several kretprobes on one function stack up several instances for one
 * frame.  Only the first one pushed saw the real return address; the later
 * ones saw the trampoline.  So the frame's instances end at the first one
 * holding a real address.
 */
static struct llist_node *kretprobe_frame_end(struct llist_node *node,
					      void *frame_pointer)
{
	while (node && kretprobe_of(node)->ret_addr == kretprobe_trampoline_addr())
		node = node->next;
	if (!node || (frame_pointer && kretprobe_of(node)->fp != frame_pointer)) {
		pr_err("return trampoline reached with no return address for %p\n",
		       frame_pointer);
		BUG();
	}
	return node;
}
NOKPROBE_SYMBOL(kretprobe_frame_end);

/*
 * The last of the returning frame's instances, once those of deeper
 * frames are dropped.  With one kretprobe on the function, the usual
 * case, it is the instance on top of the list, and no walk is needed.
 */
static nokprobe_inline struct llist_node *
kretprobe_frame_last(struct llist_node **head, void *frame_pointer)
{
	struct llist_node *top = *head;

	if (likely(top &&
		   kretprobe_of(top)->ret_addr != kretprobe_trampoline_addr() &&
		   (kretprobe_of(top)->fp == frame_pointer || !frame_pointer)))
		return top;
	/*
	 * Checked here: stale instances are rare, and the call is not free.
	 * The sweep recycles, so it too needs preemption off, and the busy
	 * mark keeps a kretprobe hit in it off the list it is editing.
	 */
	if (frame_pointer && top && kretprobe_of(top)->fp != frame_pointer)
		kretprobe_drop_stale(head, frame_pointer);
	return kretprobe_frame_end(*head, frame_pointer);
}

/**
 * __kretprobe_trampoline_handler() - run the return handlers of a frame
 * @regs: registers at the trampoline; the return value is in them
 * @frame_pointer: where the returning frame kept its return address,
 *	as recorded by arch_prepare_kretprobe() in the instance's fp;
 *	NULL when the architecture records none
 *
 * A probe hit while the handlers run is only counted, unless it comes
 * from a deeper context (kprobe_nest_begin()).  A probe handler this
 * return interrupted (the return came from an IRQ) gets its
 * current_kprobe and status back afterwards.
 *
 * Return: the real return address.
 */
unsigned long notrace __kretprobe_trampoline_handler(struct pt_regs *regs,
						     void *frame_pointer)
{
	struct llist_node **head = &current->kretprobe_instances.first;
	struct llist_node *node, *last, *next;
	struct kretprobe_instance *ri;
	/* Only what kprobe_running_aside() fills in is read. */
	struct kprobe_aside outer __uninitialized;
	kprobe_opcode_t *real_ret;
	struct kretprobe *rp;

	preempt_disable();
	kprobe_hit_begin();
	kprobe_running_aside(&outer);
	/* Busy before the status is ours: a probe hit from an NMI only counts. */
	kprobe_running_set(&kprobe_busy_marker);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;

	last = kretprobe_frame_last(head, frame_pointer);
	real_ret = kretprobe_of(last)->ret_addr;
	instruction_pointer_set(regs, (unsigned long)real_ret);

	/* Handlers may unwind the stack: keep the list intact meanwhile. */
	node = *head;
	for (;;) {
		ri = kretprobe_of(node);
		ri->ret_addr = real_ret;
		rp = get_kretprobe(ri);
		if (rp && rp->handler) {
			__this_cpu_write(current_kprobe, &rp->kp);
			rp->handler(ri, regs);
			__this_cpu_write(current_kprobe, &kprobe_busy_marker);
		}
		if (node == last)
			break;
		node = node->next;
	}

	/*
	 * Before the unlink: a stack walk in between must find the real
	 * return address in the frame if no longer through an instance.
	 */
	arch_kretprobe_fixup_return(regs, real_ret);

	node = *head;
	*head = last->next;
	for (;;) {
		next = node->next;
		kretprobe_recycle(kretprobe_of(node));
		if (node == last)
			break;
		node = next;
	}

	kprobe_running_back(&outer);
	kprobe_hit_end();
	preempt_enable();
	return (unsigned long)real_ret;
}
NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/**
 * kretprobe_find_ret_addr() - the real return address behind a trampoline
 * @tsk: the task whose stack is being unwound
 * @fp: where the unwinder found the trampoline's address on the stack
 * @cur: position in @tsk's instances; NULL to start from the newest.
 *	Updated, so that the next call continues from there.
 *
 * Return: the return address the trampoline stands for, or 0.
 */
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	struct llist_node *node;
	struct kretprobe_instance *ri;

	if (WARN_ON_ONCE(!cur))
		return 0;

	node = *cur ? (*cur)->next : tsk->kretprobe_instances.first;
	for (; node; node = node->next) {
		ri = kretprobe_of(node);
		if (ri->ret_addr == kretprobe_trampoline_addr())
			continue;
		if (ri->fp == fp) {
			*cur = node;
			return (unsigned long)ri->ret_addr;
		}
	}
	return 0;
}
NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * kprobe_flush_task() - reclaim the instances of a dead task
 * @tk: the task, which will never return through them
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node, *next;

	if (!kprobes_initialized)
		return;

	/*
	 * Runs from an RCU callback, possibly on top of a probe handler, so
	 * it must leave current_kprobe alone.
	 */
	preempt_disable();
	kprobe_hit_begin();
	node = __llist_del_all(&tk->kretprobe_instances);
	for (; node; node = next) {
		next = node->next;
		kretprobe_recycle(kretprobe_of(node));
	}
	kprobe_hit_end();
	preempt_enable();
}
NOKPROBE_SYMBOL(kprobe_flush_task);

static int kretprobe_init_instance(void *obj, void *context)
{
	struct kretprobe_instance *ri = obj;
	struct kretprobe_holder *rph = context;

	ri->rph = rph;
	ri->pool = rph->growth ? kretprobe_tramp_pools_of(rph->growth)->filling :
				 &rph->pool;
	return 0;
}

/* A pool's last instance came home: the holder goes with its last pool. */
static int kretprobe_pool_release(struct objpool_head *head, void *context)
{
	struct kretprobe_holder *rph = context;
	struct kretprobe_tramp_pools *tp;

	if (!rph->growth) {
		kfree(rph);
		return 0;
	}
	tp = kretprobe_tramp_pools_of(rph->growth);
	if (head != &rph->pool)
		kfree(head);
	if (atomic_dec_and_test(&tp->pools)) {
		kfree(tp);
		kfree(rph);
	}
	return 0;
}

/* The growth worker's step: pool number g->nr_more, of @n instances. */
int kretprobe_pool_add(struct kretprobe_growth *g, int n)
{
	struct kretprobe_tramp_pools *tp = kretprobe_tramp_pools_of(g);
	struct objpool_head *head;
	int ret;

	head = kzalloc(sizeof(*head), GFP_KERNEL);
	if (!head)
		return -ENOMEM;
	tp->filling = head;
	ret = objpool_init(head, n, tp->obj_size, GFP_KERNEL, tp->rph,
			   kretprobe_init_instance, kretprobe_pool_release);
	if (ret) {
		kfree(head);
		return ret;
	}
	atomic_inc(&tp->pools);
	tp->more[g->nr_more] = head;
	return 0;
}

struct kretprobe_growth *kretprobe_growth_of(struct kretprobe *rp)
{
	return rp->rph ? rp->rph->growth : NULL;
}

static struct kretprobe_growth *kretprobe_growth_new(struct kretprobe_holder *rph,
						     int first, int spares,
						     int obj_size)
{
	struct kretprobe_tramp_pools *tp = kzalloc(sizeof(*tp), GFP_KERNEL);

	if (!tp)
		return NULL;
	kretprobe_growth_init(&tp->growth, first, spares, obj_size);
	tp->obj_size = obj_size;
	atomic_set(&tp->pools, 1);
	tp->filling = &rph->pool;
	tp->rph = rph;
	return &tp->growth;
}

/* Here the core's pool handle is the kretprobe_holder itself. */
static struct kretprobe_pool *kretprobe_pool_of_holder(struct kretprobe_holder *rph)
{
	return (struct kretprobe_pool *)rph;
}

static struct kretprobe_holder *kretprobe_holder_of_pool(struct kretprobe_pool *pool)
{
	return (struct kretprobe_holder *)pool;
}

struct kretprobe_pool *kretprobe_pool_make(struct kretprobe *rp, int maxactive,
					   bool grow)
{
	int obj_size = sizeof(struct kretprobe_instance) + rp->data_size;
	struct kretprobe_holder *rph;
	int ret;

	rph = kzalloc(sizeof(*rph), GFP_KERNEL);
	if (!rph)
		return ERR_PTR(-ENOMEM);
	rph->spare = alloc_percpu(struct kretprobe_instance *);
	/* A growing pool has room for the spares on top of maxactive. */
	if (grow) {
		maxactive += num_possible_cpus();
		rph->growth = kretprobe_growth_new(rph, maxactive,
						   num_possible_cpus(), obj_size);
	}
	if (!rph->spare || (grow && !rph->growth)) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = objpool_init(&rph->pool, maxactive, obj_size, GFP_KERNEL,
			   rph, kretprobe_init_instance, kretprobe_pool_release);
	if (!ret)
		return kretprobe_pool_of_holder(rph);
fail:
	free_percpu(rph->spare);
	if (rph->growth)
		kfree(kretprobe_tramp_pools_of(rph->growth));
	kfree(rph);
	return ERR_PTR(ret);
}

void kretprobe_pool_attach(struct kretprobe *rp, struct kretprobe_pool *pool)
{
	struct kretprobe_holder *rph = kretprobe_holder_of_pool(pool);

	rcu_assign_pointer(rph->rp, rp);
	rp->rph = rph;
	rp->nmissed = 0;
}

void kretprobe_pool_detach(struct kretprobe *rp)
{
	RCU_INIT_POINTER(rp->rph->rp, NULL);
	rp->rph = NULL;
}

/* Detach the holder from @rp; in-flight instances keep it alive. */
void kretprobe_pool_orphan(struct kretprobe *rp)
{
	if (rp->rph)
		RCU_INIT_POINTER(rp->rph->rp, NULL);
}

/*
 * Nobody takes from the pool or the spares any more, and instances
 * still in flight will be dropped, not given back.
 */
void kretprobe_pool_discard(struct kretprobe_pool *pool)
{
	struct kretprobe_holder *rph = kretprobe_holder_of_pool(pool);
	struct kretprobe_tramp_pools *tp = NULL;
	struct kretprobe_instance *ri;
	int cpu, i, nr_more = 0;

	if (rph->growth) {
		/* Nobody takes instances any more. */
		kretprobe_growth_stop(rph->growth);
		tp = kretprobe_tramp_pools_of(rph->growth);
		nr_more = rph->growth->nr_more;
	}
	/* Spares back into their pools, for objpool_fini() to free. */
	for_each_possible_cpu(cpu) {
		ri = *per_cpu_ptr(rph->spare, cpu);
		if (ri)
			objpool_push(ri, ri->pool);
	}
	free_percpu(rph->spare);
	rph->spare = NULL;
	/*
	 * Each may free rph: the last instance dropped frees its pool, and
	 * the last pool its holder.  The extra pools first, since the
	 * holder's own is part of it.
	 */
	for (i = 0; i < nr_more; i++)
		objpool_fini(tp->more[i]);
	objpool_fini(&rph->pool);
}

/* After the wait for hits that followed kretprobe_pool_orphan(). */
void kretprobe_pool_finish(struct kretprobe *rp)
{
	if (!rp->rph)
		return;
	kretprobe_pool_discard(kretprobe_pool_of_holder(rp->rph));
	rp->rph = NULL;
}

/*
 * __kretprobe_trampoline_handler() ends with preempt_enable(), whose
 * preempt_schedule() is NOKPROBE: nothing probeable is called on the way
 * back after current_kprobe is given back.
 */
bool kretprobe_return_reenters(kprobe_opcode_t *func)
{
	return false;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes: registration, common to both ways of catching the return.
 *
 * A kretprobe is a kprobe on the function's entry whose pre_handler,
 * kretprobe_entry(), takes an instance and diverts the function's return.
 * Where the instances live and how the return is caught depends on the
 * architecture: its own trampoline (kprobes_kretprobe_tramp.c) or rethook
 * (kprobes_kretprobe_rethook.c, CONFIG_KRETPROBE_ON_RETHOOK).  What a
 * user sees - maxactive, nmissed, entry_handler, data_size - is the same.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry;
}

/* As in Documentation/trace/kprobes.rst, preemptible kernel or not. */
static int kretprobe_default_maxactive(void)
{
	return max(10, 2 * (int)num_possible_cpus());
}

/*
 * The function @addr, a kretprobe's entry probe, belongs to.  The probe
 * may sit past the symbol (after an ENDBR, on an ftrace site), so the
 * checks below name functions, not addresses.  NULL where neither the
 * arch's list nor rethook's way back can refuse any: a kernel without
 * them does no kallsyms lookup per kretprobe.
 */
static kprobe_opcode_t *kretprobe_function(kprobe_opcode_t *addr)
{
	unsigned long offset;

	if (!kretprobe_blacklist_size &&
	    !(IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK) &&
	      IS_ENABLED(CONFIG_PREEMPTION)))
		return NULL;
	if (!kprobe_symbol_size_offset((unsigned long)addr, NULL, &offset))
		return NULL;
	return (kprobe_opcode_t *)((unsigned long)addr - offset);
}

static bool kretprobe_blacklisted(kprobe_opcode_t *func)
{
	int i;

	/* With the size a constant 0 the array reference compiles away. */
	if (!kretprobe_blacklist_size)
		return false;
	for (i = 0; kretprobe_blacklist[i].name; i++) {
		if (kretprobe_blacklist[i].addr &&
		    kretprobe_blacklist[i].addr == func)
			return true;
	}
	return false;
}

/* The architecture names the functions; their addresses are needed. */
void __init kretprobe_blacklist_init(void)
{
	int i;

	if (!kretprobe_blacklist_size)
		return;
	for (i = 0; kretprobe_blacklist[i].name; i++) {
		kretprobe_blacklist[i].addr =
			kprobe_lookup_name(kretprobe_blacklist[i].name, 0);
		if (!kretprobe_blacklist[i].addr)
			pr_warn("kretprobe blacklist: %s not found\n",
				kretprobe_blacklist[i].name);
	}
}

/*
 * @ahead: a look ahead without kprobe_mutex, quiet, adding the checks of
 * a kprobe that need no lock.  Registration checks again under the mutex.
 */
static int kretprobe_check(struct kretprobe *rp, bool ahead)
{
	kprobe_opcode_t *addr, *func;
	bool on_entry;

	addr = kprobe_resolve(rp->kp.addr, rp->kp.symbol_name, rp->kp.offset,
			      &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	if (!on_entry) {
		if (!ahead)
			pr_info("%pS: a kretprobe must sit on a function entry\n",
				addr);
		return -EINVAL;
	}
	func = kretprobe_function(addr);
	if (func && kretprobe_blacklisted(func)) {
		if (!ahead)
			pr_info("%pS: no kretprobe can be placed here\n", addr);
		return -EINVAL;
	}
	if (func && kretprobe_return_reenters(func)) {
		if (!ahead)
			pr_info("%pS: called on the way back from every return probe: a kretprobe here would recurse\n",
				addr);
		return -EINVAL;
	}
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;
	return ahead ? kprobe_check_unlocked(addr) : 0;
}

/* unregister_kprobes() took @p out: no new instance may use its pool. */
void kretprobe_detach(struct kprobe *p)
{
	if (kprobe_is_kretprobe(p))
		kretprobe_pool_orphan(container_of(p, struct kretprobe, kp));
}

/* After the wait for hits that followed kretprobe_detach(). */
void kretprobe_release(struct kprobe *p)
{
	if (kprobe_is_kretprobe(p))
		kretprobe_pool_finish(container_of(p, struct kretprobe, kp));
}

static struct kretprobe_pool *kretprobe_pool_for(struct kretprobe *rp)
{
	bool grow = rp->maxactive <= 0;

	return kretprobe_pool_make(rp, grow ? kretprobe_default_maxactive() :
					      rp->maxactive, grow);
}

/*
 * *@pool was made for @rp without the mutex, or is NULL when the look
 * ahead stopped before @rp.  On success it is @rp's, and *@pool is
 * cleared; otherwise the caller discards it.
 */
static int __register_kretprobe(struct kretprobe *rp,
				struct kretprobe_pool **pool)
{
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	/* Before touching rp->rph, which a registered rp is using. */
	if (kprobe_is_registered(&rp->kp)) {
		pr_info("%pS: this kretprobe is already registered\n",
			rp->kp.addr);
		return -EINVAL;
	}
	ret = kretprobe_check(rp, false);
	if (ret)
		return ret;
	if (!*pool)
		*pool = kretprobe_pool_for(rp);
	if (IS_ERR(*pool))
		return PTR_ERR(*pool);
	if (rp->maxactive <= 0)
		rp->maxactive = kretprobe_default_maxactive();
	kretprobe_pool_attach(rp, *pool);

	rp->kp.pre_handler = kretprobe_entry;
	rp->kp.post_handler = NULL;
	ret = __register_kprobe(&rp->kp);
	/* Never in the table, never hit: the pool is as it was made. */
	if (ret)
		kretprobe_pool_detach(rp);
	else
		*pool = NULL;
	return ret;
}

/*
 * Is a pool worth making for @rps[@i] before the mutex?  A batch stops at
 * its first refused entry, so the look ahead makes none from the first it
 * refuses.  A lone kretprobe has nothing behind it: a refusal costs only
 * a pool made for nothing, which is cheaper than what the look ahead asks
 * kallsyms (a module address is named by a walk of its symbol table).
 */
static bool kretprobe_pool_wanted(struct kretprobe **rps, int num, int i)
{
	if (rps[i]->data_size > KRETPROBE_MAX_DATA_SIZE)
		return false;
	return num == 1 || !kretprobe_check(rps[i], true);
}

/*
 * A pool for each of @rps, or an ERR_PTR where making one failed.  Should
 * the mutex's checks pass an entry the look ahead stopped at, registration
 * makes the missing pools.
 */
static void kretprobe_pools_make(struct kretprobe **rps, int num,
				 struct kretprobe_pool **pools)
{
	int i;

	for (i = 0; i < num && kretprobe_pool_wanted(rps, num, i); i++)
		pools[i] = kretprobe_pool_for(rps[i]);
}

static void kretprobe_pools_discard(struct kretprobe_pool **pools, int num)
{
	int i;

	for (i = 0; i < num; i++) {
		if (!IS_ERR_OR_NULL(pools[i]))
			kretprobe_pool_discard(pools[i]);
	}
}

struct kretprobe_batch {
	struct kprobe_batch batch;
	struct kretprobe **rps;
	struct kretprobe_pool **pools;
};

static int kretprobe_batch_entry(struct kprobe_batch *batch, int i)
{
	struct kretprobe_batch *b = container_of(batch, struct kretprobe_batch,
						 batch);

	return __register_kretprobe(b->rps[i], &b->pools[i]);
}

/*
 * Register @num kretprobes, all or none.  The pools are made before and
 * the unused ones discarded after kprobe_mutex is held, so that a module
 * load, which needs the mutex, does not wait on a large batch's
 * allocations.
 */
static int kretprobe_register_batch(struct kretprobe **rps, int num,
				    struct kretprobe_pool **pools)
{
	struct kretprobe_batch b = {
		.batch.reg = kretprobe_batch_entry,
		.rps = rps,
		.pools = pools,
	};
	int registered, ret;

	kretprobe_pools_make(rps, num, pools);
	ret = kprobe_register_batch(&b.batch, num, &registered);
	kretprobe_pools_discard(pools, num);
	if (ret && registered)
		unregister_kretprobes(rps, registered);
	return ret;
}

/**
 * register_kretprobe() - set a return probe
 * @rp: the kretprobe; @rp->kp says where, as for register_kprobe()
 *
 * Return: 0; -EINVAL when the address is not a function entry, cannot be
 * probed or @rp is registered already; -E2BIG when @rp->data_size is too
 * large; -EAGAIN before kprobes are initialized; or an error of
 * register_kprobe().
 */
int register_kretprobe(struct kretprobe *rp)
{
	struct kretprobe_pool *pool = NULL;

	if (!kprobes_initialized)
		return -EAGAIN;
	return kretprobe_register_batch(&rp, 1, &pool);
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/*
 * A kretprobe pointer is a pointer to its entry kprobe, so an array of
 * them can be handed to unregister_kprobes() as it is: no copy to
 * allocate, however long the batch.
 */
static_assert(offsetof(struct kretprobe, kp) == 0);

/**
 * unregister_kretprobes() - remove several return probes
 * @rps: the kretprobes
 * @num: how many
 *
 * Waits once for the whole batch, as unregister_kprobes() does.  Calls still in flight
 * return normally; their return handlers no longer run.  Entries that
 * were not registered get their kp.addr cleared.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	/* It detaches and releases the pools as it goes. */
	unregister_kprobes((struct kprobe **)rps, num);
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - remove a return probe
 * @rp: a kretprobe given to register_kretprobe()
 *
 * As unregister_kretprobes() for one kretprobe.
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);

/**
 * register_kretprobes() - set several return probes, all or none
 * @rps: the kretprobes
 * @num: how many
 *
 * Return: 0, -EINVAL when @num is not positive, -EAGAIN before kprobes
 * are initialized, -ENOMEM when there is no memory to track @num pools,
 * or the first error of register_kretprobe(); those registered before it
 * are removed.
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	struct kretprobe_pool **pools;
	int ret;

	if (num <= 0)
		return -EINVAL;
	if (!kprobes_initialized)
		return -EAGAIN;
	pools = kvcalloc(num, sizeof(*pools), GFP_KERNEL);
	if (!pools)
		return -ENOMEM;
	ret = kretprobe_register_batch(rps, num, pools);
	kvfree(pools);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

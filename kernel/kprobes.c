// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes: registration and the probe table.
 *
 * Every probed address has one entry in kprobe_table.  The entry is the
 * user's struct kprobe while it is alone; when a second probe arrives at
 * the same address the core puts an aggregate in the table instead, and
 * the users' probes hang on the aggregate's @list in registration order.
 * The table entry owns the architecture state (the breakpoint and the
 * out-of-line copy); handlers only ever see it through get_kprobe().
 *
 * Locks, outermost first:
 *
 *   event_mutex       trace_kprobe's and perf's, held around their calls
 *                     into kprobes; never taken here.
 *   kprobe_mutex      table membership, aggregation, every probe's
 *                     flags, the gone list, the blacklist and the
 *                     optimizer's states and lists.  Held by every
 *                     registration, enable/disable, the module and
 *                     debugfs paths and the optimizer (which waits for
 *                     its grace period with no lock held).
 *   ftrace_lock       ftrace's, taken by ftrace itself when
 *                     kprobes_ftrace.c changes a filter or an ops, under
 *                     kprobe_mutex and without the text lock: ftrace
 *                     takes text_mutex inside it.
 *   cpus_read_lock    taken before text_mutex so that text pokes do not
 *                     race with CPU hotplug (guard kprobe_text).
 *   jump_label_lock   only to ask whether an address is a jump label.
 *   text_mutex        every change of kernel text, the breakpoint and
 *                     the instruction slots.
 *   insn cache mutex  inside a kprobe_insn_cache; innermost.
 *
 * kprobe_hits_mutex (kprobes_hits.c) is taken with none of these held,
 * and cpus_read_lock inside it.
 *
 * Only code that runs in probe context is blacklisted.  The registration
 * API may be probed ("perf probe register_kprobe"): a probe at its entry
 * fires before any lock is taken, and handlers never take kprobe_mutex.
 *
 * The table is read without locks: the breakpoint handlers run with
 * interrupts off and walk a bucket under RCU.  Removal therefore unhooks
 * an entry, waits until no hit can still hold it (kprobes_hits.c), and
 * only then frees its state.
 *
 * Probes whose text goes away wait outside the table, on the gone list,
 * for their owners to unregister them (kprobes_text_gone.c).
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cacheflush.h>	/* parisc's flush_insn_slot() needs it */
#include <linux/hash.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <kunit/visibility.h>

#include "kprobes_internal.h"

/* The outermost lock of kprobes; see the lock order above. */
DEFINE_MUTEX(kprobe_mutex);

static struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];

bool kprobes_all_disarmed;
bool kprobes_initialized;

static struct hlist_head *kprobe_bucket(const void *addr)
{
	return &kprobe_table[hash_ptr(addr, KPROBE_HASH_BITS)];
}

/**
 * get_kprobe() - find the table entry at an address
 * @addr: the probed address
 *
 * Called from breakpoint context with preemption off, or with
 * kprobe_mutex held.  The result may be an aggregate.
 *
 * Return: the entry, or NULL when nothing is registered at @addr.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe *p;

	hlist_for_each_entry_rcu(p, kprobe_bucket(addr), hlist,
				 kprobe_rcu_reader() ||
				 lockdep_is_held(&kprobe_mutex)) {
		if (p->addr == addr)
			return p;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(get_kprobe);
NOKPROBE_SYMBOL(get_kprobe);

/*
 * The handlers of an aggregate's probes, in registration order.  A
 * pre_handler that moved the instruction pointer ends the walk: the rest
 * would see registers that no longer describe the probed instruction.
 */
static int aggr_pre_handler(struct kprobe *entry, struct pt_regs *regs)
{
	struct kprobe *kp;
	int moved = 0;

	list_for_each_entry_rcu(kp, &entry->list, list, kprobe_rcu_reader()) {
		if (kp->pre_handler && !kprobe_disabled(kp))
			moved = kp->pre_handler(kp, regs);
		if (moved)
			break;
	}
	return moved;
}
NOKPROBE_SYMBOL(aggr_pre_handler);

static void aggr_post_handler(struct kprobe *entry, struct pt_regs *regs,
			      unsigned long flags)
{
	struct kprobe *kp;

	list_for_each_entry_rcu(kp, &entry->list, list, kprobe_rcu_reader())
		if (kp->post_handler && !kprobe_disabled(kp))
			kp->post_handler(kp, regs, flags);
}
NOKPROBE_SYMBOL(aggr_post_handler);

bool kprobe_is_aggr(struct kprobe *p)
{
	return p->pre_handler == aggr_pre_handler;
}
NOKPROBE_SYMBOL(kprobe_is_aggr);

/* The table entry @p belongs to, wherever it is: table or gone list. */
static struct kprobe *kprobe_owner_in(struct hlist_head *head,
				      struct kprobe *p)
{
	struct kprobe *entry, *kp;

	hlist_for_each_entry(entry, head, hlist) {
		/* leaving with the batch being unregistered */
		if (entry->flags & KPROBE_FLAG_DISARM_PENDING)
			continue;
		if (entry == p)
			return entry;
		if (!kprobe_is_aggr(entry) || entry->addr != p->addr)
			continue;
		list_for_each_entry(kp, &entry->list, list) {
			if (kp == p)
				return entry;
		}
	}
	return NULL;
}

struct kprobe *kprobe_owner(struct kprobe *p)
{
	struct kprobe *entry;

	lockdep_assert_held(&kprobe_mutex);
	entry = kprobe_owner_in(kprobe_bucket(p->addr), p);
	return entry ?: kprobe_owner_in(&kprobe_gone_list, p);
}

bool kprobe_is_registered(struct kprobe *p)
{
	return kprobe_owner(p);
}

bool kprobe_should_be_armed(struct kprobe *entry)
{
	return !kprobes_all_disarmed && !kprobe_disabled(entry);
}

/* The breakpoint goes in; a jump may replace it later. */
int kprobe_arm(struct kprobe *entry)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace(entry))
		return kprobe_ftrace_arm(entry);

	scoped_guard(kprobe_text)
		arch_arm_kprobe(entry);
	kprobe_opt_update(entry);
	return 0;
}

/* A jump in place comes out first, then the breakpoint. */
int kprobe_disarm(struct kprobe *entry)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace(entry))
		return kprobe_ftrace_disarm(entry);
	/* Its breakpoint never went in. */
	if (entry->flags & KPROBE_FLAG_ARM_PENDING) {
		entry->flags &= ~KPROBE_FLAG_ARM_PENDING;
		return 0;
	}

	guard(kprobe_text)();
	__kprobe_opt_off(entry);
	arch_disarm_kprobe(entry);
	return 0;
}

static int kprobe_arch_prepare(struct kprobe *p)
{
	if (kprobe_ftrace(p))
		return arch_prepare_kprobe_ftrace(p);

	guard(kprobe_text)();
	return arch_prepare_kprobe(p);
}

/* An aggregate standing for @orig, not yet in the table. */
static struct kprobe_aggr *kprobe_aggr_alloc(struct kprobe *orig)
{
	struct kprobe_aggr *aggr = kzalloc(sizeof(*aggr), GFP_KERNEL);
	struct kprobe *entry;

	if (!aggr)
		return NULL;
	entry = &aggr->kp;
	entry->addr = orig->addr;
	entry->flags = orig->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_FTRACE |
				      KPROBE_FLAG_ON_FUNC_ENTRY |
				      KPROBE_FLAG_FTRACE_ARMED |
				      KPROBE_FLAG_FTRACE_IPMODIFY |
				      KPROBE_FLAG_FTRACE_TRAP |
				      KPROBE_FLAG_FTRACE_TRAP_READY |
				      KPROBE_FLAG_ARM_PENDING);
	entry->opcode = orig->opcode;
	entry->ainsn = orig->ainsn;
	flush_insn_slot(entry);
	entry->pre_handler = aggr_pre_handler;
	if (orig->post_handler)
		entry->post_handler = aggr_post_handler;
	INIT_LIST_HEAD(&entry->list);
	return aggr;
}

/* Put @aggr in the table where the lone @orig was, holding @orig. */
static void kprobe_aggr_install(struct kprobe_aggr *aggr, struct kprobe *orig)
{
	struct kprobe *entry = &aggr->kp;

	orig->flags &= ~(KPROBE_FLAG_FTRACE_ARMED | KPROBE_FLAG_FTRACE_IPMODIFY |
			 KPROBE_FLAG_FTRACE_TRAP | KPROBE_FLAG_ARM_PENDING);
	list_add_rcu(&orig->list, &entry->list);
	hlist_replace_rcu(&orig->hlist, &entry->hlist);
	if (entry->flags & KPROBE_FLAG_FTRACE_ARMED)
		kprobe_ftrace_handover(orig, entry);
}

/* Replace a lone probe in the table by an aggregate holding it. */
static struct kprobe *kprobe_make_aggr(struct kprobe *orig)
{
	struct kprobe_aggr *aggr = kprobe_aggr_alloc(orig);

	if (!aggr)
		return NULL;
	kprobe_aggr_install(aggr, orig);
	return &aggr->kp;
}

/**
 * kprobe_make_optimizable() - give a table entry a detour, if it may have one
 * @entry: a lone probe or an aggregate, in the table
 *
 * Only an aggregate carries the optimizer's state, so a lone probe is
 * wrapped in one.  Nothing is prepared while optimization is off: the
 * sysctl comes back here for every entry when it is switched on.  If the
 * architecture cannot prepare a detour, or memory is short, the entry
 * stays a breakpoint.
 *
 * A lone probe with a post_handler is left alone: it can never be
 * optimized while it is alone, and a wrapper would only add a walk of
 * the aggregate's list to each of its hits.  A second probe joining it
 * makes the aggregate, and comes back here.
 */
void kprobe_make_optimizable(struct kprobe *entry)
{
	struct kprobe_aggr *aggr;
	struct kprobe *first;

	lockdep_assert_held(&kprobe_mutex);
	if (!IS_ENABLED(CONFIG_OPTPROBES) || kprobe_ftrace(entry) ||
	    kprobe_gone(entry) || !kprobe_opt_is_on())
		return;

	if (kprobe_is_aggr(entry)) {
		aggr = container_of(entry, struct kprobe_aggr, kp);
		first = list_first_entry_or_null(&entry->list, struct kprobe,
						 list);
		if (first && kprobe_opt_unprepared(aggr) &&
		    kprobe_opt_prepare(aggr, first))
			kprobe_opt_update(entry);
		return;
	}

	if (entry->post_handler)
		return;
	aggr = kprobe_aggr_alloc(entry);
	if (!aggr)
		return;
	if (!kprobe_opt_prepare(aggr, entry)) {
		kfree(aggr);
		return;
	}
	kprobe_aggr_install(aggr, entry);
	kprobe_opt_update(&aggr->kp);
}

static int kprobe_join(struct kprobe *entry, struct kprobe *p)
{
	kprobe_post_handler_t had_post;
	int ret = 0;

	if (!kprobe_is_aggr(entry)) {
		entry = kprobe_make_aggr(entry);
		if (!entry)
			return -ENOMEM;
	}

	/*
	 * An armed ftrace site stays with the ops it was armed through, even
	 * the plain one: moving to the IPMODIFY ops would unhook the site for
	 * a moment, and calls through it would run no handler.  The plain
	 * ops serves a post_handler too, since the handler path puts regs->ip
	 * back after it; only a fresh arm picks the IPMODIFY ops for one.
	 */
	had_post = entry->post_handler;
	if (p->post_handler && !had_post) {
		/*
		 * The jump comes out first.  A hit that sees a post_handler
		 * steps the first instruction alone and resumes right after
		 * it, which must not be inside the jump's bytes.
		 */
		kprobe_opt_off(entry);
		WRITE_ONCE(entry->post_handler, aggr_post_handler);
	}

	list_add_tail_rcu(&p->list, &entry->list);
	kprobe_make_optimizable(entry);
	kprobe_opt_update(entry);
	if (!kprobe_disabled(p) && kprobe_disabled(entry)) {
		entry->flags &= ~KPROBE_FLAG_DISABLED;
		if (kprobe_should_be_armed(entry)) {
			ret = kprobe_arm(entry);
			if (ret) {
				entry->flags |= KPROBE_FLAG_DISABLED;
				list_del_rcu(&p->list);
				/* @p brought the only post_handler; it leaves too. */
				WRITE_ONCE(entry->post_handler, had_post);
				/* trace_kprobe takes a non-empty list as registered. */
				synchronize_rcu();
				INIT_LIST_HEAD(&p->list);
			}
		}
	}
	return ret;
}

static int kprobe_insert(struct kprobe *p)
{
	struct kprobe *entry = get_kprobe(p->addr);
	int ret;

	if (entry)
		return kprobe_join(entry, p);

	ret = kprobe_arch_prepare(p);
	if (ret)
		return ret;
	hlist_add_head_rcu(&p->hlist, kprobe_bucket(p->addr));
	/* A jump covering p->addr comes out before the breakpoint goes in. */
	kprobe_opt_neighbours(p->addr);
	if (kprobe_should_be_armed(p) && kprobe_batching) {
		kprobe_arm_later(p);
		return 0;
	}
	if (kprobe_should_be_armed(p)) {
		ret = kprobe_arm(p);
		if (ret) {
			hlist_del_rcu(&p->hlist);
			kprobe_opt_neighbours(p->addr);
			synchronize_rcu();
			arch_remove_kprobe(p);
			INIT_HLIST_NODE(&p->hlist);
			return ret;
		}
	}
	kprobe_make_optimizable(p);
	return 0;
}

/* Register one probe; kprobe_mutex is held by the caller. */
int __register_kprobe(struct kprobe *p)
{
	kprobe_opcode_t *addr;
	struct module *mod;
	bool on_entry;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_owner(p)) {
		pr_info("%pS: this kprobe is already registered\n", p->addr);
		return -EINVAL;
	}

	addr = kprobe_resolve(p->addr, p->symbol_name, p->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	p->addr = addr;
	p->flags &= KPROBE_FLAG_DISABLED;
	if (on_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	p->nmissed = 0;
	memset(p->nmissed_by, 0, sizeof(p->nmissed_by));
	INIT_LIST_HEAD(&p->list);

	ret = kprobe_check_location(p, &mod);
	if (ret)
		return ret;
	ret = kprobe_insert(p);
	module_put(mod);
	return ret;
}

bool kprobe_aggr_all_disabled(struct kprobe *entry)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &entry->list, list) {
		if (!kprobe_disabled(kp))
			return false;
	}
	return true;
}

void kprobe_unhooked_init(struct kprobe_unhooked *r)
{
	INIT_LIST_HEAD(&r->lone);
	INIT_LIST_HEAD(&r->aggrs);
}

void kprobe_unhooked_add(struct kprobe_unhooked *r, struct kprobe *entry)
{
	if (kprobe_is_aggr(entry))
		list_add_tail(&container_of(entry, struct kprobe_aggr, kp)->unhooked,
			      &r->aggrs);
	else
		list_add_tail(&entry->list, &r->lone);
}

/* Take an entry off @r, or NULL when none is left. */
struct kprobe *kprobe_unhooked_pop(struct kprobe_unhooked *r)
{
	struct kprobe_aggr *aggr;
	struct kprobe *p;

	p = list_first_entry_or_null(&r->lone, struct kprobe, list);
	if (p) {
		list_del_init(&p->list);
		return p;
	}
	aggr = list_first_entry_or_null(&r->aggrs, struct kprobe_aggr, unhooked);
	if (!aggr)
		return NULL;
	list_del(&aggr->unhooked);
	return &aggr->kp;
}

/* Runs on every CPU at once: none is inside a breakpoint hit. */
static int kprobe_aggr_post_handler_clear(void *entry)
{
	WRITE_ONCE(((struct kprobe *)entry)->post_handler, NULL);
	return 0;
}

/*
 * The last post_handler of a breakpoint aggregate left: the instruction
 * may be boosted or optimized again.  An ftrace site keeps its ops.  On
 * an architecture whose hits load the handler twice (test, then call),
 * a hit between the two loads would call NULL: there the handler is
 * cleared from stop_machine(), which no breakpoint hit (interrupts off)
 * can straddle, and only where that pays: an optimizer to wake up.
 * Elsewhere the entry keeps aggr_post_handler, which calls no one now.
 */
static void kprobe_aggr_drop_post_handler(struct kprobe *entry)
{
	struct kprobe *kp;

	if (!entry->post_handler || kprobe_ftrace(entry))
		return;
	if (!arch_kprobe_post_handler_read_once() &&
	    !IS_ENABLED(CONFIG_OPTPROBES))
		return;
	list_for_each_entry(kp, &entry->list, list) {
		if (kp->post_handler)
			return;
	}
	if (arch_kprobe_post_handler_read_once())
		WRITE_ONCE(entry->post_handler, NULL);
	else
		stop_machine(kprobe_aggr_post_handler_clear, entry, NULL);
}

/* @entry, disarmed, leaves the table; freed once no hit can hold it. */
void kprobe_leave_table(struct kprobe *entry)
{
	/* Disabled or all disarmed, its jump is out already; make sure. */
	kprobe_opt_off(entry);
	hlist_del_rcu(&entry->hlist);
	/* A task late in a detour buffer sees this and runs no handler. */
	if (kprobe_is_aggr(entry))
		entry->flags |= KPROBE_FLAG_DISABLED;
	if (!kprobe_gone(entry))
		kprobe_opt_neighbours(entry->addr);
}

/*
 * Unhook @p.  Returns the table entry that left the table and must be
 * torn down once no CPU can be in its handlers (NULL when others still
 * share the address), or an ERR_PTR when @p is not registered.  An
 * armed entry leaves only with kprobe_run_disarm_pass(), which the caller
 * runs before it waits for the hits in progress.
 */
struct kprobe *__unregister_kprobe_top(struct kprobe *p)
{
	struct kprobe *entry;

	lockdep_assert_held(&kprobe_mutex);
	entry = kprobe_owner(p);
	if (!entry)
		return ERR_PTR(-EINVAL);

	if (entry != p) {
		list_del_rcu(&p->list);
		if (!list_empty(&entry->list)) {
			if (!kprobe_disabled(entry) &&
			    kprobe_aggr_all_disabled(entry)) {
				if (kprobe_should_be_armed(entry))
					WARN_ON(kprobe_disarm(entry));
				entry->flags |= KPROBE_FLAG_DISABLED;
			}
			kprobe_aggr_drop_post_handler(entry);
			kprobe_opt_update(entry);
			return NULL;
		}
	}

	if (!kprobe_gone(entry) && kprobe_should_be_armed(entry)) {
		kprobe_disarm_later(entry);
		return entry;
	}
	kprobe_leave_table(entry);
	return entry;
}

/* Free what __unregister_kprobe_top() unhooked, once no hit can hold it. */
void __unregister_kprobe_bottom(struct kprobe *entry)
{
	if (IS_ERR_OR_NULL(entry))
		return;
	if (kprobe_is_aggr(entry)) {
		if (!kprobe_gone(entry))
			kprobe_opt_release(entry);
		/* Its slot goes with it: a detour may step from that slot. */
		kprobe_opt_free_aggr(container_of(entry, struct kprobe_aggr, kp));
		return;
	}
	if (!kprobe_gone(entry))
		arch_remove_kprobe(entry);
	INIT_HLIST_NODE(&entry->hlist);
}

/**
 * unregister_kprobe() - remove a probe
 * @p: a probe given to register_kprobe()
 *
 * Returns once no CPU can be running @p's handlers.  A probe that is not
 * registered only gets its addr cleared.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/* A batch of register_kprobes(), or register_kprobe()'s batch of one. */
struct kprobe_batch_kps {
	struct kprobe_batch batch;
	struct kprobe **kps;
};

static int register_kprobe_entry(struct kprobe_batch *batch, int i)
{
	return __register_kprobe(container_of(batch, struct kprobe_batch_kps,
					      batch)->kps[i]);
}

/**
 * register_kprobe() - set a probe
 * @p: the probe; either @p->addr or @p->symbol_name (plus @p->offset)
 *
 * Return: 0, or -EINVAL (bad or unprobeable address, already
 * registered), -ENOENT (unknown symbol, an address kallsyms cannot name,
 * module going), -EILSEQ (not an instruction boundary), -ENOMEM, -EAGAIN
 * (kprobes not initialized yet), or an error from the architecture or
 * from ftrace.
 */
int register_kprobe(struct kprobe *p)
{
	struct kprobe_batch_kps b = {
		.batch.reg = register_kprobe_entry,
		.kps = &p,
	};
	int registered;

	/* A batch of one keeps what it learns about the function. */
	return kprobe_register_batch(&b.batch, 1, &registered);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/**
 * register_kprobes() - set several probes, all or none
 * @kps: the probes
 * @num: how many
 *
 * Return: 0, -EINVAL when @num is not positive, -EAGAIN before kprobes
 * are initialized, or the first error of register_kprobe(); probes
 * registered before it are removed.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_batch_kps b = {
		.batch.reg = register_kprobe_entry,
		.kps = kps,
	};
	int registered;
	int ret = kprobe_register_batch(&b.batch, num, &registered);

	if (ret && registered)
		unregister_kprobes(kps, registered);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobes);

/*
 * Unhook the probes from *@next on into @unhooked, and disarm them, until
 * all are or the slice is over (kprobe_slice_end()).  Those that were not
 * registered get their addr cleared.
 */
static void kprobe_unregister_slice(struct kprobe **kps, int num, int *next,
				    struct kprobe_unhooked *unhooked)
{
	unsigned long end = kprobe_slice_end();
	struct kprobe *entry, *p;

	guard(kprobe_slice)();
	do {
		p = kps[(*next)++];
		entry = __unregister_kprobe_top(p);
		if (IS_ERR(entry)) {
			p->addr = NULL;
			continue;
		}
		if (entry)
			kprobe_unhooked_add(unhooked, entry);
		kretprobe_detach(p);
	} while (*next < num && !kprobe_slice_over(end));
	kprobe_run_disarm_pass();
}

/* Free unhooked entries for a slice; false once none is left. */
static bool kprobe_unhooked_free_slice(struct kprobe_unhooked *unhooked)
{
	unsigned long end = kprobe_slice_end();
	struct kprobe *entry;

	guard(kprobe_slice)();
	while ((entry = kprobe_unhooked_pop(unhooked))) {
		__unregister_kprobe_bottom(entry);
		if (kprobe_slice_over(end))
			return true;
	}
	return false;
}

/**
 * unregister_kprobes() - remove several probes
 * @kps: the probes
 * @num: how many
 *
 * Entries that were not registered get their addr cleared, silently: a
 * batch may be partly registered.  The entry probe of a kretprobe may be
 * given too: its instance pool goes with it.  Waits once for the whole
 * batch until no CPU can run their handlers (kprobe_wait_for_hits()).
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_unhooked unhooked;
	int i = 0;

	if (num <= 0)
		return;
	kprobe_unhooked_init(&unhooked);

	for (;;) {
		kprobe_unregister_slice(kps, num, &i, &unhooked);
		if (i == num)
			break;
		kprobe_slice_pause();
	}
	kprobe_wait_for_hits();
	while (kprobe_unhooked_free_slice(&unhooked))
		kprobe_slice_pause();
	/*
	 * Those left with an addr were registered.  Their pools are out of
	 * the table and idle: freeing many of them needs no kprobe_mutex.
	 */
	for (i = 0; i < num; i++) {
		if (kps[i]->addr)
			kretprobe_release(kps[i]);
	}
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/*
 * For the walks of every entry (debugfs, the optimizer, ftrace sites):
 * buckets of the table, then the gone list.
 */
struct hlist_head *kprobe_list_bucket(unsigned int idx)
{
	lockdep_assert_held(&kprobe_mutex);
	if (idx < KPROBE_TABLE_SIZE)
		return &kprobe_table[idx];
	return idx == KPROBE_TABLE_SIZE ? &kprobe_gone_list : NULL;
}

/**
 * kprobe_exceptions_notify() - die notifier for architectures that need it
 * @self: the notifier block
 * @val: the die event
 * @data: struct die_args
 *
 * Return: NOTIFY_DONE; an architecture overrides this to claim traps.
 */
int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}
NOKPROBE_SYMBOL(kprobe_exceptions_notify);

/* INT_MAX: ahead of uprobes (INT_MAX - 1), which gets what we leave. */
static struct notifier_block kprobe_exceptions_nb = {
	.priority = INT_MAX,
	.notifier_call = kprobe_exceptions_notify,
};

static int __init init_kprobes(void)
{
	int ret;

	ret = kprobe_blacklist_init();
	if (ret)
		pr_err("blacklist incomplete (%d): take care where you probe\n",
		       ret);
	kretprobe_blacklist_init();
	kprobe_opt_init();

	/* Some architectures register their own probes in arch_init_kprobes(). */
	kprobes_initialized = true;
	ret = arch_init_kprobes();
	if (!ret)
		ret = register_die_notifier(&kprobe_exceptions_nb);
	if (!ret)
		ret = kprobe_watch_modules();
	if (ret) {
		kprobes_initialized = false;
		pr_err("not available: %d\n", ret);
	}
	return ret;
}
early_initcall(init_kprobes);

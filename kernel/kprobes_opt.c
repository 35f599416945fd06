// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes: jump optimization.
 *
 * An architecture with HAVE_OPTPROBES can replace a probe's breakpoint by
 * a jump to a detour buffer made for that probe: the buffer saves the
 * registers, runs the handlers and then a copy of the instructions the
 * jump covers (the "region"), and jumps back.  A hit then costs no trap.
 *
 * Only an aggregate can be optimized (struct kprobe_aggr carries the
 * struct optimized_kprobe), so a probe that may be gets one at once, even
 * alone.  Its state (enum kprobe_opt_state) moves only under kprobe_mutex:
 *
 *   NONE     no buffer; never leaves this state
 *   IDLE     buffer ready; the jump is not wanted now
 *   QUEUED   wanted, on kprobe_opt_queue, or gathered for the end of a
 *            batch's arming pass (kprobe_opt_gather_begin())
 *   WAITING  on kprobe_opt_waiting while the optimizer waits, holding no
 *            lock, until no task can be inside the region
 *   ACTIVE   the jump is in place
 *
 * kprobe_opt_update() compares what is wanted with the state and moves
 * it: forward only as far as QUEUED (the worker does the rest), back to
 * IDLE at once, taking the jump out synchronously.  Whatever changes the
 * answer calls it: arming, disarming, a post_handler arriving or leaving,
 * a probe landing in or leaving someone's region, and the sysctl.
 *
 * Why waiting once for tasks to leave (kprobe_wait_tasks_out()) is
 * enough before the jump goes in: once a probe is QUEUED, its breakpoint
 * no longer lets a CPU into the middle of the region (the architecture
 * runs the buffer's copy of the whole region instead), and the region
 * admits no jump into it and no call out of it.  So only a task that was
 * already inside when the probe was queued can be there, and it leaves
 * before any voluntary switch.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/rcupdate_wait.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "kprobes_internal.h"

/* Batch requests that arrive together, as a batch registration does. */
#define KPROBE_OPT_DELAY	msecs_to_jiffies(20)

static LIST_HEAD(kprobe_opt_queue);
static LIST_HEAD(kprobe_opt_waiting);
static bool kprobe_opt_enabled = true;

static void kprobe_opt_run(struct work_struct *work);
static DECLARE_DELAYED_WORK(kprobe_opt_work, kprobe_opt_run);

static struct optimized_kprobe *kprobe_opt_of(struct kprobe *entry)
{
	struct optimized_kprobe *op;

	if (!kprobe_is_aggr(entry))
		return NULL;
	op = &container_of(entry, struct kprobe_aggr, kp)->op;
	return op->state == KPROBE_OPT_NONE ? NULL : op;
}

/* Is debug.kprobes-optimization on? */
bool kprobe_opt_is_on(void)
{
	lockdep_assert_held(&kprobe_mutex);
	return kprobe_opt_enabled;
}

/* An aggregate made without a detour (optimization was off, or failed). */
bool kprobe_opt_unprepared(struct kprobe_aggr *aggr)
{
	return aggr->op.state == KPROBE_OPT_NONE;
}

/**
 * opt_pre_handler() - run the handlers of an optimized probe
 * @p: the table entry the detour buffer belongs to
 * @regs: registers as the architecture saved them
 *
 * For architectures whose detour calls back into the core.  The caller
 * has set current_kprobe and disabled preemption.  Such a detour goes on
 * with the next instruction whatever a handler returns, so every enabled
 * pre_handler of the entry runs, even after one that returned non-zero.
 * Only an aggregate has a detour (kprobe_opt_of()).
 */
void opt_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe *kp;

	list_for_each_entry_rcu(kp, &p->list, list, kprobe_rcu_reader())
		if (kp->pre_handler && !kprobe_disabled(kp))
			kp->pre_handler(kp, regs);
}
EXPORT_SYMBOL_IF_KUNIT(opt_pre_handler);
NOKPROBE_SYMBOL(opt_pre_handler);

/*
 * Should @op's jump be in place?  Every condition here is re-evaluated
 * by kprobe_opt_update() when it may have changed.
 */
static bool kprobe_opt_wanted(struct optimized_kprobe *op)
{
	struct kprobe *entry = &op->kp;

	/* Not while its breakpoint waits for a batch's (dis)arming pass. */
	return kprobe_opt_enabled && !kprobes_all_disarmed &&
	       !(entry->flags & (KPROBE_FLAG_ARM_PENDING |
				 KPROBE_FLAG_DISARM_PENDING)) &&
	       !kprobe_disabled(entry) && !entry->post_handler &&
	       !arch_check_optimized_kprobe(op);
}

static void kprobe_opt_set_state(struct optimized_kprobe *op,
				 enum kprobe_opt_state state)
{
	lockdep_assert_held(&kprobe_mutex);
	if (state == KPROBE_OPT_ACTIVE)
		op->kp.flags |= KPROBE_FLAG_OPTIMIZED;
	else
		op->kp.flags &= ~KPROBE_FLAG_OPTIMIZED;
	/* The breakpoint path reads it to choose the region copy. */
	WRITE_ONCE(op->state, state);
}

/* Back to IDLE; the caller holds the text lock if @op may be ACTIVE. */
static void kprobe_opt_idle(struct optimized_kprobe *op)
{
	switch (op->state) {
	case KPROBE_OPT_QUEUED:
	case KPROBE_OPT_WAITING:
		list_del_init(&op->list);
		break;
	case KPROBE_OPT_ACTIVE:
		lockdep_assert_held(&text_mutex);
		arch_unoptimize_kprobe(op);
		break;
	default:
		return;
	}
	kprobe_opt_set_state(op, KPROBE_OPT_IDLE);
}

/**
 * __kprobe_opt_off() - take the jump out before the breakpoint goes
 * @entry: a table entry
 *
 * Called with kprobe_mutex and, if @entry may be optimized, the text lock.
 */
void __kprobe_opt_off(struct kprobe *entry)
{
	struct optimized_kprobe *op = kprobe_opt_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	if (!op)
		return;
	lockdep_assert_held(&text_mutex);
	kprobe_opt_idle(op);
}

/* The probe a detour may call directly: the aggregate's only one. */
static void kprobe_opt_solo_update(struct optimized_kprobe *op)
{
	struct list_head *probes = &op->kp.list;

	WRITE_ONCE(op->solo, list_is_singular(probes) ?
		   list_first_entry(probes, struct kprobe, list) : NULL);
}

/**
 * kprobe_opt_unjump() - take gathered jumps out together
 * @active: ACTIVE probes, from __kprobe_opt_off_gather()
 *
 * One text write of the architecture's for all of them, and the probes
 * move to IDLE.  They stay ACTIVE until the jumps are out: a hit meanwhile
 * needs the region copy.  Called with the text lock held.
 */
void kprobe_opt_unjump(struct list_head *active)
{
	struct optimized_kprobe *op, *next;
	LIST_HEAD(done);

	lockdep_assert_held(&text_mutex);
	if (list_empty(active))
		return;
	arch_unoptimize_kprobes(active, &done);
	list_splice_tail_init(active, &done);
	list_for_each_entry_safe(op, next, &done, list) {
		list_del_init(&op->list);
		kprobe_opt_set_state(op, KPROBE_OPT_IDLE);
	}
}

/**
 * __kprobe_opt_off_gather() - __kprobe_opt_off(), a jump in place gathered
 * @entry: a table entry
 * @active: the jumps gathered so far, for kprobe_opt_unjump()
 *
 * A jump in place joins @active, to come out with the others in one text
 * write rather than one each (on arm64 each is a stop_machine()); anything
 * else the optimizer holds of @entry is dropped now.  Called with
 * kprobe_mutex and the text lock held.
 */
void __kprobe_opt_off_gather(struct kprobe *entry, struct list_head *active)
{
	struct optimized_kprobe *op = kprobe_opt_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	lockdep_assert_held(&text_mutex);
	if (!op)
		return;
	if (op->state == KPROBE_OPT_ACTIVE)
		list_add_tail(&op->list, active);
	else
		kprobe_opt_idle(op);
}

/**
 * __kprobe_opt_off_many() - __kprobe_opt_off() for each of a pass's entries
 * @entries: table entries
 * @n: how many
 *
 * Their jumps in place come out together.  Called with kprobe_mutex and
 * the text lock held.
 */
void __kprobe_opt_off_many(struct kprobe **entries, int n)
{
	LIST_HEAD(active);
	int i;

	for (i = 0; i < n; i++)
		__kprobe_opt_off_gather(entries[i], &active);
	kprobe_opt_unjump(&active);
}

/**
 * kprobe_opt_cancel() - keep @entry's jump from going in
 * @entry: a table entry whose breakpoint waits for a disarming pass
 *
 * A jump already in place stays until the pass takes it out with the
 * others of its batch (__kprobe_opt_off_many()); meanwhile a hit through
 * it runs what a hit on the breakpoint would: the probes still on the
 * aggregate.  Called with kprobe_mutex held.
 */
void kprobe_opt_cancel(struct kprobe *entry)
{
	struct optimized_kprobe *op = kprobe_opt_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	if (!op)
		return;
	kprobe_opt_solo_update(op);
	if (op->state != KPROBE_OPT_ACTIVE)
		kprobe_opt_idle(op);
}

/**
 * kprobe_opt_off() - take the jump out, wherever the optimizer is with it
 * @entry: a table entry
 *
 * Called with kprobe_mutex held and the text lock not held.
 */
void kprobe_opt_off(struct kprobe *entry)
{
	struct optimized_kprobe *op = kprobe_opt_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	lockdep_assert_not_held(&text_mutex);
	if (!op)
		return;
	if (op->state == KPROBE_OPT_ACTIVE) {
		guard(kprobe_text)();
		kprobe_opt_idle(op);
	} else {
		kprobe_opt_idle(op);
	}
}

/*
 * Put the jumps of the probes on @ops in, in one batch of text writes:
 * each is ACTIVE from before its jump is in (a hit on the breakpoint
 * meanwhile needs the region copy), and back to IDLE if the architecture
 * could not put it in.  @ops is empty after.
 */
static void kprobe_opt_jump_in(struct list_head *ops)
{
	struct optimized_kprobe *op, *next;

	list_for_each_entry(op, ops, list)
		kprobe_opt_set_state(op, KPROBE_OPT_ACTIVE);
	scoped_guard(kprobe_text)
		arch_optimize_kprobes(ops);
	/* The architecture unlinks what it optimized; anything left failed. */
	list_for_each_entry_safe(op, next, ops, list) {
		list_del_init(&op->list);
		kprobe_opt_set_state(op, KPROBE_OPT_IDLE);
	}
}

/*
 * A batch's arming pass, and the sysctl turned on, gather here the jumps
 * that need no wait (arch_optimized_kprobe_needs_wait()), QUEUED, and put
 * them in together when done: one batch of text writes rather than one
 * per probe, which on arm64 is a stop_machine() each.
 */
static LIST_HEAD(kprobe_opt_gathered);
static bool kprobe_opt_gathering;

/* kprobe_mutex is held from here to kprobe_opt_gather_end(). */
void kprobe_opt_gather_begin(void)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_opt_gathering = true;
}

/* Put the gathered jumps in; the text lock is not held. */
void kprobe_opt_gather_end(void)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_opt_gathering = false;
	if (!list_empty(&kprobe_opt_gathered))
		kprobe_opt_jump_in(&kprobe_opt_gathered);
}

/* IDLE to ACTIVE without the optimizer's wait, or gathered for a pass. */
static void kprobe_opt_now(struct optimized_kprobe *op)
{
	LIST_HEAD(one);

	if (kprobe_opt_gathering) {
		kprobe_opt_set_state(op, KPROBE_OPT_QUEUED);
		list_add_tail(&op->list, &kprobe_opt_gathered);
		return;
	}
	list_add(&op->list, &one);
	kprobe_opt_jump_in(&one);
}

/**
 * kprobe_opt_update() - move @entry's optimizer state to what is wanted
 * @entry: a table entry; nothing happens unless it can be optimized
 *
 * Called with kprobe_mutex held and the text lock not held.
 */
void kprobe_opt_update(struct kprobe *entry)
{
	struct optimized_kprobe *op = kprobe_opt_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	lockdep_assert_not_held(&text_mutex);
	if (!op)
		return;

	kprobe_opt_solo_update(op);
	if (!kprobe_opt_wanted(op)) {
		kprobe_opt_off(entry);
		return;
	}
	if (op->state != KPROBE_OPT_IDLE)
		return;
	if (!arch_optimized_kprobe_needs_wait(op)) {
		kprobe_opt_now(op);
		return;
	}
	kprobe_opt_set_state(op, KPROBE_OPT_QUEUED);
	list_add_tail(&op->list, &kprobe_opt_queue);
	/*
	 * Unbound: the timer may fire on a CPU that a kernel thread holds
	 * without ever rescheduling (no preemption), and a bound worker
	 * there would wait as long.
	 */
	mod_delayed_work(system_unbound_wq, &kprobe_opt_work, KPROBE_OPT_DELAY);
}

/**
 * kprobe_opt_neighbours() - reconsider the regions that may cover @addr
 * @addr: where a table entry has just arrived or left
 *
 * An entry arriving inside a region takes the jump out first, so that
 * its breakpoint is never written over the jump; one leaving lets the
 * region's owner be optimized again.
 */
void kprobe_opt_neighbours(kprobe_opcode_t *addr)
{
	struct kprobe *entry;
	int back;

	lockdep_assert_held(&kprobe_mutex);
	/*
	 * A region is MAX_OPTIMIZED_LENGTH bytes at most, and starts on an
	 * instruction: it can start that far back, less one byte.
	 */
	for (back = 1; back * sizeof(*addr) < MAX_OPTIMIZED_LENGTH; back++) {
		entry = get_kprobe(addr - back);
		if (entry)
			kprobe_opt_update(entry);
	}
}

/**
 * kprobe_opt_prepare() - give a new aggregate its detour buffer
 * @aggr: the aggregate, filled in but not in the table yet
 * @orig: the probe it is going to hold, for the message
 *
 * Return: true when the architecture could prepare a detour; @aggr then
 * starts IDLE and must go through kprobe_opt_release() before it is freed.
 */
bool kprobe_opt_prepare(struct kprobe_aggr *aggr, struct kprobe *orig)
{
	struct optimized_kprobe *op = &aggr->op;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	INIT_LIST_HEAD(&op->list);
	op->state = KPROBE_OPT_NONE;

	/*
	 * The architecture prepares from the aggregate, which holds copies
	 * of the probe's address, opcode and instruction, and may note in
	 * that instruction how the detour runs it (arm: in place in the
	 * buffer, or stepped by its callback); the detour reads the
	 * aggregate's.  It takes jump_label_lock and text_mutex itself.
	 */
	scoped_guard(cpus_read_lock)
		ret = arch_prepare_optimized_kprobe(op, &aggr->kp);
	if (ret || !arch_prepared_optinsn(&op->optinsn)) {
		pr_debug("%pS: not optimizable (%d)\n", orig->addr, ret);
		arch_remove_optimized_kprobe(op);
		return false;
	}
	op->state = KPROBE_OPT_IDLE;
	aggr->detoured = true;
	return true;
}

/**
 * kprobe_opt_release() - free the detour buffer of an entry going away
 * @entry: an entry out of the table, after a grace period
 */
void kprobe_opt_release(struct kprobe *entry)
{
	struct optimized_kprobe *op = kprobe_opt_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	if (!op)
		return;
	if (WARN_ON(op->state != KPROBE_OPT_IDLE))
		kprobe_opt_off(entry);
	arch_remove_optimized_kprobe(op);
	op->state = KPROBE_OPT_NONE;
}

/*
 * Aggregates that had a detour, out of the table, waiting for every task
 * that may still be in their buffer.  Such a task passes the aggregate to
 * the handler path and, on arm, steps its instruction from the
 * aggregate's slot: both stay until kprobe_wait_tasks_out() returns.
 */
static LLIST_HEAD(kprobe_opt_reap_list);

static void kprobe_opt_reap(struct work_struct *work)
{
	struct llist_node *batch = llist_del_all(&kprobe_opt_reap_list);
	struct kprobe_aggr *aggr, *next;

	if (!batch)
		return;
	kprobe_wait_tasks_out();
	/* Every other arch_remove_kprobe() call is made under it too. */
	guard(mutex)(&kprobe_mutex);
	llist_for_each_entry_safe(aggr, next, batch, reap)
		kprobe_aggr_free_now(aggr);
}

static DECLARE_WORK(kprobe_opt_reap_work, kprobe_opt_reap);

/**
 * kprobe_opt_free_aggr() - free an aggregate out of the table
 * @aggr: the aggregate, after its grace period
 *
 * Its detour buffer passes its address to the handler path, and a task
 * preempted in the buffer before that path disables preemption holds no
 * RCU read side: such an aggregate, and its instruction slot, wait until
 * no task can be in the buffer.
 */
void kprobe_opt_free_aggr(struct kprobe_aggr *aggr)
{
	if (!aggr->detoured) {
		kprobe_aggr_free_now(aggr);
		return;
	}
	llist_add(&aggr->reap, &kprobe_opt_reap_list);
	queue_work(system_unbound_wq, &kprobe_opt_reap_work);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_opt_reap_wait_kunit() - wait until every detoured aggregate
 * given to kprobe_opt_free_aggr() so far is freed
 */
void kprobe_opt_reap_wait_kunit(void)
{
	flush_work(&kprobe_opt_reap_work);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_opt_reap_wait_kunit);
#endif

/*
 * The optimizer: everything QUEUED becomes WAITING, the tasks that may
 * be inside a region leave (no lock held meanwhile), and everything still
 * WAITING then gets its jump in one batch of text pokes.  Whatever left
 * WAITING during the wait (disabled, unregistered, blocked) is simply not
 * there.
 */
static void kprobe_opt_run(struct work_struct *work)
{
	struct optimized_kprobe *op;

	scoped_guard(mutex, &kprobe_mutex) {
		list_for_each_entry(op, &kprobe_opt_queue, list)
			kprobe_opt_set_state(op, KPROBE_OPT_WAITING);
		list_splice_tail_init(&kprobe_opt_queue, &kprobe_opt_waiting);
		if (list_empty(&kprobe_opt_waiting))
			return;
	}

	/* No task may resume inside a region once its jump is in. */
	kprobe_wait_tasks_out();

	guard(mutex)(&kprobe_mutex);
	if (list_empty(&kprobe_opt_waiting))
		return;
	kprobe_opt_jump_in(&kprobe_opt_waiting);
	if (!list_empty(&kprobe_opt_queue))
		mod_delayed_work(system_unbound_wq, &kprobe_opt_work,
				 KPROBE_OPT_DELAY);
}

/**
 * wait_for_kprobe_optimizer() - wait until no optimization is pending
 *
 * Every probe that was QUEUED or WAITING when this was called is ACTIVE,
 * or has gone back to IDLE, when it returns.  Must not be called with
 * kprobe_mutex held.
 */
void wait_for_kprobe_optimizer(void)
{
	lockdep_assert_not_held(&kprobe_mutex);
	for (;;) {
		scoped_guard(mutex, &kprobe_mutex) {
			if (list_empty(&kprobe_opt_queue) &&
			    list_empty(&kprobe_opt_waiting))
				return;
		}
		flush_delayed_work(&kprobe_opt_work);
	}
}
EXPORT_SYMBOL_IF_KUNIT(wait_for_kprobe_optimizer);

/**
 * kprobe_opt_set_enabled() - what debug.kprobes-optimization switches
 * @on: optimize every eligible probe, or none
 *
 * Switching off takes every jump out in one batch before it returns;
 * switching on queues every eligible probe for the optimizer.
 */
void kprobe_opt_set_enabled(bool on)
{
	struct optimized_kprobe *op;
	struct hlist_node *tmp;
	struct hlist_head *head;
	struct kprobe *entry;
	LIST_HEAD(active);
	unsigned int i;

	guard(mutex)(&kprobe_mutex);
	if (kprobe_opt_enabled == on)
		return;
	kprobe_opt_enabled = on;
	pr_info("jump optimization %s\n", on ? "on" : "off");

	kprobe_opt_gather_begin();
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		head = kprobe_list_bucket(i);
		/* Wrapping a lone probe replaces its node: the safe walk. */
		hlist_for_each_entry_safe(entry, tmp, head, hlist) {
			if (on)
				kprobe_make_optimizable(entry);
			op = kprobe_opt_of(entry);
			if (!op)
				continue;
			if (on || op->state != KPROBE_OPT_ACTIVE)
				kprobe_opt_update(entry);
			else
				list_add_tail(&op->list, &active);
		}
	}
	kprobe_opt_gather_end();
	scoped_guard(kprobe_text)
		kprobe_opt_unjump(&active);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_opt_set_enabled);

/**
 * kprobe_opt_state_of() - the optimizer state behind a registered probe
 * @p: a probe, alone or in an aggregate
 *
 * Return: the state of the table entry @p belongs to, KPROBE_OPT_NONE
 * when it cannot be optimized or is not in the table.
 */
enum kprobe_opt_state kprobe_opt_state_of(struct kprobe *p)
{
	struct optimized_kprobe *op;
	struct kprobe *entry;

	guard(mutex)(&kprobe_mutex);
	entry = get_kprobe(p->addr);
	op = entry ? kprobe_opt_of(entry) : NULL;
	return op ? op->state : KPROBE_OPT_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_opt_state_of);

/**
 * kprobe_opt_underway() - is @entry's jump in place, or on its way?
 * @entry: a table entry, kprobe_mutex held
 *
 * What the probe list marks [OPTIMIZED]: from the moment the probe is
 * queued for the optimizer, as the list has always shown it.
 *
 * Return: true when the entry is QUEUED, WAITING or ACTIVE.
 */
bool kprobe_opt_underway(struct kprobe *entry)
{
	struct optimized_kprobe *op = kprobe_opt_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	return op && op->state >= KPROBE_OPT_QUEUED;
}

/**
 * optprobe_queued_unopt() - is @op waiting for its jump to be taken out?
 * @op: an optimized probe
 *
 * Never here: a jump is taken out at once, under the caller's locks, by
 * whatever no longer wants it.
 *
 * Return: false.
 */
bool optprobe_queued_unopt(struct optimized_kprobe *op)
{
	return false;
}

/**
 * kprobe_disarmed() - has @p neither a breakpoint nor a jump in the text?
 * @p: a table entry, kprobe_mutex held
 *
 * A disabled entry is disarmed when it is disabled, and its jump taken
 * out first, so the flags tell.
 *
 * Return: true when nothing of @p is in the text.
 */
bool kprobe_disarmed(struct kprobe *p)
{
	return kprobe_disabled(p) && !kprobe_optimized(p);
}

static int kprobe_opt_sysctl(const struct ctl_table *table, int write,
			     void *buffer, size_t *length, loff_t *ppos)
{
	int value = READ_ONCE(kprobe_opt_enabled);
	struct ctl_table t = *table;
	int ret;

	t.data = &value;
	ret = proc_dointvec_minmax(&t, write, buffer, length, ppos);
	if (ret || !write)
		return ret;
	kprobe_opt_set_enabled(value);
	return 0;
}

static struct ctl_table kprobe_opt_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= kprobe_opt_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

void __init kprobe_opt_init(void)
{
	kprobe_optinsn_slots.insn_size = MAX_OPTINSN_SIZE;
	register_sysctl_init("debug", kprobe_opt_sysctls);
}

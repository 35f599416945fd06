// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Batches: register_kprobes() and unregister_kprobes(), and
 * register_kprobe() as a batch of one, patch the text for all their
 * probes in passes, as enable_kprobes() and disable_kprobes() do.  The
 * registrations hold kprobe_mutex for a slice of time at most
 * (kprobe_slice_end()), so that a lone registration beside a batch of
 * thousands waits for a slice, not for the whole batch.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/wait_bit.h>

#include "kprobes_internal.h"

/*
 * Batches patch the text in passes: register_kprobes() arms its new
 * entries together at the end, unregister_kprobes() disarms the entries
 * leaving together before they leave the table, each pass with one
 * cross-CPU synchronization instead of one per probe.  The entries
 * waiting for a pass are listed here (kprobe_mutex), a full list is
 * flushed early, so a batch of any size needs no allocation.
 */
#define KPROBE_PASS_MAX		512

static struct kprobe *kprobe_pass[KPROBE_PASS_MAX];
/* The first error of the batch's arming passes (ftrace may refuse). */
static int kprobe_pass_err;
static int kprobe_pass_nr;
/* register_kprobes() of more than one probe is under way */
bool kprobe_batching;

/*
 * Order the first @n entries of the pass: breakpoints first, then the
 * probes on ftrace sites, which ftrace arms and disarms in a pass of its
 * own.  Returns how many breakpoints there are.
 */
static int kprobe_pass_split(int n)
{
	int i, nr_brk = 0;

	for (i = 0; i < n; i++) {
		if (kprobe_ftrace(kprobe_pass[i]))
			continue;
		swap(kprobe_pass[i], kprobe_pass[nr_brk]);
		nr_brk++;
	}
	return nr_brk;
}

/*
 * The arming pass of a batch registration: the entries of the probes
 * listed (they may have been gathered into aggregates since) that still
 * wait get their breakpoints, then may be optimized.
 */
static void kprobe_run_arm_pass(void)
{
	struct kprobe *entry;
	int i, n = 0, nr_brk = 0, ret;

	lockdep_assert_held(&kprobe_mutex);
	for (i = 0; i < kprobe_pass_nr; i++) {
		entry = get_kprobe(kprobe_pass[i]->addr);
		if (!entry || !(entry->flags & KPROBE_FLAG_ARM_PENDING))
			continue;
		entry->flags &= ~KPROBE_FLAG_ARM_PENDING;
		kprobe_pass[n++] = entry;
	}
	kprobe_pass_nr = 0;
	nr_brk = kprobe_pass_split(n);

	/* ftrace takes the text lock itself. */
	if (n > nr_brk) {
		ret = kprobe_ftrace_arm_batch(kprobe_pass + nr_brk,
					      n - nr_brk);
		if (ret && !kprobe_pass_err)
			kprobe_pass_err = ret;
	}
	if (!nr_brk)
		return;
	scoped_guard(kprobe_text)
		arch_arm_kprobes(kprobe_pass, nr_brk);
	kprobe_opt_gather_begin();
	for (i = 0; i < nr_brk; i++) {
		entry = kprobe_pass[i];
		kprobe_opt_update(entry);
		kprobe_make_optimizable(entry);
	}
	kprobe_opt_gather_end();
}

/* @p, new in the table, is armed by the batch's pass. */
void kprobe_arm_later(struct kprobe *p)
{
	if (kprobe_pass_nr == KPROBE_PASS_MAX)
		kprobe_run_arm_pass();
	p->flags |= KPROBE_FLAG_ARM_PENDING;
	kprobe_pass[kprobe_pass_nr++] = p;
}

/*
 * Take the first @n entries of the pass out of the text: jumps first,
 * then the breakpoints, then the ftrace sites.
 */
static void kprobe_disarm_pass_entries(int n)
{
	int nr_brk = kprobe_pass_split(n);

	if (nr_brk) {
		guard(kprobe_text)();
		__kprobe_opt_off_many(kprobe_pass, nr_brk);
		arch_disarm_kprobes(kprobe_pass, nr_brk);
	}
	if (n > nr_brk)
		kprobe_ftrace_disarm_batch(kprobe_pass + nr_brk, n - nr_brk);
}

/*
 * The disarming pass of unregister_kprobes(): the entries listed are
 * still in the table, so that a CPU meeting one of their breakpoints
 * finds its owner, and leave it once disarmed.
 */
void kprobe_run_disarm_pass(void)
{
	struct kprobe *entry;
	int i;

	lockdep_assert_held(&kprobe_mutex);
	if (!kprobe_pass_nr)
		return;
	kprobe_disarm_pass_entries(kprobe_pass_nr);
	for (i = 0; i < kprobe_pass_nr; i++) {
		entry = kprobe_pass[i];
		entry->flags &= ~KPROBE_FLAG_DISARM_PENDING;
		kprobe_leave_table(entry);
	}
	kprobe_pass_nr = 0;
}

/* @entry, armed, is disarmed by the pass, then leaves the table. */
void kprobe_disarm_later(struct kprobe *entry)
{
	if (kprobe_pass_nr == KPROBE_PASS_MAX)
		kprobe_run_disarm_pass();
	/*
	 * No more a registered probe's owner, and never optimized again.  A
	 * jump in place comes out in the pass, with the batch's others.
	 */
	entry->flags |= KPROBE_FLAG_DISARM_PENDING;
	kprobe_opt_cancel(entry);
	kprobe_pass[kprobe_pass_nr++] = entry;
}

/*
 * The disarming pass of disable_kprobes(): the entries listed stay in
 * the table, disabled.
 */
static void kprobe_run_disable_pass(void)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_disarm_pass_entries(kprobe_pass_nr);
	kprobe_pass_nr = 0;
}

/* @entry, armed, is disarmed by the pass and stays in the table. */
void kprobe_disarm_in_place_later(struct kprobe *entry)
{
	if (kprobe_pass_nr == KPROBE_PASS_MAX)
		kprobe_run_disable_pass();
	kprobe_pass[kprobe_pass_nr++] = entry;
}

/*
 * A registration slice and enable_kprobes() gather their entries with
 * kprobe_arm_later() between kprobe_pass_begin() and kprobe_pass_end(),
 * which arms what is left and returns the first error of the arming
 * passes; disable_kprobes() gathers its own with
 * kprobe_disarm_in_place_later() and ends with kprobe_disable_pass_end().
 * All under one hold of kprobe_mutex.
 */
void kprobe_pass_begin(void)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_pass_err = 0;
	arch_kprobe_batch_begin();
}

int kprobe_pass_end(void)
{
	kprobe_run_arm_pass();
	arch_kprobe_batch_end();
	return kprobe_pass_err;
}

void kprobe_disable_pass_end(void)
{
	kprobe_run_disable_pass();
	arch_kprobe_batch_end();
}

/*
 * Callers between the start of kprobe_slice_lock() and holding the mutex.
 * A mutex queues a caller only once it sleeps: one that spins for it on
 * another CPU, as a lone registration does while the batch runs, may see
 * it locked each time it looks, when the batch unlocks it and locks it
 * again at once, and wait for the whole batch.
 */
static atomic_t kprobe_slice_waiting = ATOMIC_INIT(0);

void kprobe_slice_lock(void)
{
	atomic_inc(&kprobe_slice_waiting);
	mutex_lock(&kprobe_mutex);
	if (atomic_dec_and_test(&kprobe_slice_waiting))
		wake_up_var(&kprobe_slice_waiting);
}

/*
 * Between two slices of a batch: let those waiting take the mutex first.
 * A slice at most, should one of them be held up on the way (another
 * batch pauses for the same callers and finds them gone).
 */
void kprobe_slice_pause(void)
{
	cond_resched();
	wait_var_event_timeout(&kprobe_slice_waiting,
			       !atomic_read(&kprobe_slice_waiting),
			       KPROBE_SLICE_JIFFIES);
}

/*
 * Register entries from *@next on with @batch's ->reg() until all are,
 * one fails or the slice is over, then arm them.  *@next ends at the
 * first entry not registered.
 */
static int kprobe_register_slice(struct kprobe_batch *batch, int num,
				 int *next)
{
	unsigned long end = kprobe_slice_end();
	int ret, err;

	guard(kprobe_slice)();
	/* One probe too: its several questions about its symbol. */
	kprobe_sym_own(true);
	kprobe_pass_begin();
	kprobe_batching = num > 1;
	do {
		ret = batch->reg(batch, *next);
		if (!ret)
			(*next)++;
	} while (!ret && *next < num && !kprobe_slice_over(end));
	kprobe_batching = false;
	/* Also after a failure: the caller unregisters them as usual. */
	err = kprobe_pass_end();
	kprobe_sym_own(false);
	/* An ftrace site refused: the batch fails, all of it registered. */
	return ret ?: err;
}

/*
 * Register entries 0 to @num - 1 of @batch with its ->reg(), stopping at
 * the first failure.  *@registered tells the caller how many to roll back.
 */
int kprobe_register_batch(struct kprobe_batch *batch, int num,
			  int *registered)
{
	int ret = 0;

	*registered = 0;
	if (num <= 0)
		return -EINVAL;
	if (!kprobes_initialized)
		return -EAGAIN;

	for (;;) {
		ret = kprobe_register_slice(batch, num, registered);
		if (ret || *registered == num)
			return ret;
		kprobe_slice_pause();
	}
}

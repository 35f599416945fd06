// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Turning registered probes on and off without removing them:
 * enable_kprobe() and disable_kprobe(), their batch forms, which patch
 * the text for all their probes in one pass (kprobes_batch.c), and the
 * debugfs "enabled" knob, which disarms every probe and arms them again.
 *
 * A probe's own DISABLED flag says what its user asked for; an entry
 * (the table's, lone or aggregate) is disabled only once every probe on
 * it is, and is armed while it is enabled and the knob is on.  All under
 * kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>

#include "kprobes_internal.h"

/* Whether arming @entry took: only ftrace may refuse. */
static bool kprobe_armed(struct kprobe *entry)
{
	return !kprobe_ftrace(entry) ||
	       (entry->flags & (KPROBE_FLAG_FTRACE_ARMED |
				KPROBE_FLAG_FTRACE_TRAP));
}

/*
 * Clear @kp's disabled flag, and its entry's if @kp is the first of the
 * entry's probes to be enabled.  Returns the entry if it must now be
 * armed, NULL if nothing is to be armed, or an ERR_PTR.
 */
static struct kprobe *kprobe_enable_flags(struct kprobe *kp)
{
	struct kprobe *entry;

	lockdep_assert_held(&kprobe_mutex);
	entry = kprobe_owner(kp);
	if (!entry || kprobe_gone(kp))
		return ERR_PTR(-EINVAL);
	if (!(kp->flags & KPROBE_FLAG_DISABLED))
		return NULL;

	kp->flags &= ~KPROBE_FLAG_DISABLED;
	if (entry != kp) {
		if (!(entry->flags & KPROBE_FLAG_DISABLED))
			return NULL;
		entry->flags &= ~KPROBE_FLAG_DISABLED;
	}
	return kprobe_should_be_armed(entry) ? entry : NULL;
}

/* Arming @entry for @kp failed: both are disabled again. */
static void kprobe_enable_undo(struct kprobe *kp, struct kprobe *entry)
{
	entry->flags |= KPROBE_FLAG_DISABLED;
	kp->flags |= KPROBE_FLAG_DISABLED;
}

/**
 * enable_kprobe() - let a disabled probe fire again
 * @kp: a registered probe
 *
 * Return: 0, -EINVAL if @kp is not registered or its text is gone, or an
 * error from arming it.
 */
int enable_kprobe(struct kprobe *kp)
{
	struct kprobe *entry;
	int ret;

	guard(mutex)(&kprobe_mutex);
	entry = kprobe_enable_flags(kp);
	if (IS_ERR_OR_NULL(entry))
		return PTR_ERR_OR_ZERO(entry);

	ret = kprobe_arm(entry);
	if (ret)
		kprobe_enable_undo(kp, entry);
	return ret;
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/**
 * enable_kprobes() - let many disabled probes fire again, armed together
 * @kps: registered probes (a kretprobe's is its @kp)
 * @num: how many
 *
 * The same as enable_kprobe() on each, but their breakpoints go in with
 * one cross-CPU synchronization, and those on ftrace sites join ftrace
 * with one update, where enable_kprobe() makes one per probe.  Every
 * probe is armed when this returns.  A probe that is not registered does
 * not stop the others.
 *
 * Return: 0, or the first error: -EINVAL for a probe that is not
 * registered or whose text is gone, or an error from arming.  A probe
 * that could not be armed is left disabled, as enable_kprobe() leaves it.
 */
int enable_kprobes(struct kprobe **kps, int num)
{
	struct kprobe *entry;
	int i, ret = 0, err;

	if (num <= 0)
		return -EINVAL;

	guard(mutex)(&kprobe_mutex);
	kprobe_pass_begin();
	for (i = 0; i < num; i++) {
		entry = kprobe_enable_flags(kps[i]);
		if (IS_ERR(entry) && !ret)
			ret = PTR_ERR(entry);
		if (!IS_ERR_OR_NULL(entry))
			kprobe_arm_later(entry);
	}
	err = kprobe_pass_end();
	if (!err)
		return ret;

	/* ftrace refused some sites: find them by their flags. */
	for (i = 0; i < num; i++) {
		entry = kprobe_owner(kps[i]);
		if (entry && !kprobe_disabled(kps[i]) &&
		    !kprobes_all_disarmed && !kprobe_armed(entry))
			kprobe_enable_undo(kps[i], entry);
	}
	return ret ?: err;
}
EXPORT_SYMBOL_GPL(enable_kprobes);

/*
 * Set @kp's disabled flag, and its entry's if @kp was the last of the
 * entry's probes enabled.  Returns the entry if it is armed and must now
 * be disarmed, NULL if nothing is to be disarmed, or an ERR_PTR.  The
 * entry's own flag is then left to the caller.
 */
static struct kprobe *kprobe_disable_flags(struct kprobe *kp)
{
	struct kprobe *entry;
	bool armed;

	lockdep_assert_held(&kprobe_mutex);
	entry = kprobe_owner(kp);
	if (!entry)
		return ERR_PTR(-EINVAL);
	if (kp->flags & KPROBE_FLAG_DISABLED)
		return NULL;

	/* Asked first: for a lone probe, @kp's flag is the entry's. */
	armed = kprobe_should_be_armed(entry);
	kp->flags |= KPROBE_FLAG_DISABLED;
	if (entry != kp && !kprobe_aggr_all_disabled(entry))
		return NULL;
	if (!armed) {
		entry->flags |= KPROBE_FLAG_DISABLED;
		return NULL;
	}
	return entry;
}

/**
 * disable_kprobe() - stop a probe firing without removing it
 * @kp: a registered probe
 *
 * Return: 0, -EINVAL if @kp is not registered, or an error from
 * disarming it.
 */
int disable_kprobe(struct kprobe *kp)
{
	struct kprobe *entry;
	int ret;

	guard(mutex)(&kprobe_mutex);
	entry = kprobe_disable_flags(kp);
	if (IS_ERR_OR_NULL(entry))
		return PTR_ERR_OR_ZERO(entry);

	ret = kprobe_disarm(entry);
	if (ret) {
		kp->flags &= ~KPROBE_FLAG_DISABLED;
		return ret;
	}
	entry->flags |= KPROBE_FLAG_DISABLED;
	return 0;
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * disable_kprobes() - stop many probes firing, disarmed together
 * @kps: registered probes (a kretprobe's is its @kp)
 * @num: how many
 *
 * The same as disable_kprobe() on each, with one cross-CPU
 * synchronization for their breakpoints and one ftrace update for those
 * on ftrace sites.  As with disable_kprobe(), a handler that started
 * before may still be running when this returns.
 *
 * Return: 0, or -EINVAL if a probe is not registered (the others are
 * disabled all the same).
 */
int disable_kprobes(struct kprobe **kps, int num)
{
	struct kprobe *entry;
	int i, ret = 0;

	if (num <= 0)
		return -EINVAL;

	guard(mutex)(&kprobe_mutex);
	kprobe_pass_begin();
	for (i = 0; i < num; i++) {
		entry = kprobe_disable_flags(kps[i]);
		if (IS_ERR(entry) && !ret)
			ret = PTR_ERR(entry);
		if (IS_ERR_OR_NULL(entry))
			continue;
		entry->flags |= KPROBE_FLAG_DISABLED;
		kprobe_disarm_in_place_later(entry);
	}
	kprobe_disable_pass_end();
	return ret;
}
EXPORT_SYMBOL_GPL(disable_kprobes);

static int kprobe_set_all_armed(bool arm)
{
	struct kprobe *entry;
	int i, ret, failed = 0;

	lockdep_assert_held(&kprobe_mutex);
	if (kprobes_all_disarmed == !arm)
		return 0;

	/* Flip first so that kprobe_should_be_armed() agrees with us. */
	kprobes_all_disarmed = !arm;
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(entry, kprobe_list_bucket(i), hlist) {
			/* A return trampoline's own probe must stay. */
			if (kprobe_disabled(entry) || arch_trampoline_kprobe(entry))
				continue;
			ret = arm ? kprobe_arm(entry) : kprobe_disarm(entry);
			if (ret)
				failed++;
		}
	}
	if (failed) {
		pr_warn("%d probes could not be %s\n", failed,
			arm ? "armed" : "disarmed");
		return -EIO;
	}
	pr_info("all probes %s\n", arm ? "armed" : "disarmed");
	return 0;
}

int kprobe_arm_all(void)
{
	return kprobe_set_all_armed(true);
}

int kprobe_disarm_all(void)
{
	return kprobe_set_all_armed(false);
}

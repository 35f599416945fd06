// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes: text that goes away under them.
 *
 * A module's text goes when it is unloaded (or fails to load), its init
 * text once its init has run, and the kernel's init text once boot is
 * over.  Probes on that text leave the table before it is freed and wait
 * on kprobe_gone_list, marked GONE, until their owners unregister them:
 * the table never holds an address whose text may be reused, and a module
 * loaded at the same place later starts with no probe on it.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <kunit/visibility.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

/* Table entries whose text is gone; kprobe_mutex guards it. */
HLIST_HEAD(kprobe_gone_list);

/*
 * The jumps of the probes on text about to be freed come out first, all
 * in one text write: on arm64 each alone would stop the machine, and a
 * module may carry many optimized probes.
 */
static void kprobe_gone_unjump(bool (*doomed)(unsigned long addr, void *arg),
			       void *arg)
{
	struct kprobe *entry;
	LIST_HEAD(active);
	unsigned int i;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return;
	guard(kprobe_text)();
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(entry, kprobe_list_bucket(i), hlist) {
			if (doomed((unsigned long)entry->addr, arg))
				__kprobe_opt_off_gather(entry, &active);
		}
	}
	kprobe_opt_unjump(&active);
}

/*
 * Then their breakpoints, in one pass as disable_kprobes() does, where
 * code in that text can still be called until it is freed (@may_run: a
 * module's init text, from async work its init started), because a
 * breakpoint that no table entry claims would kill the kernel.  Probes on
 * ftrace sites always, as ftrace keeps its own records of the sites.
 */
static void kprobe_gone_disarm(bool (*doomed)(unsigned long addr, void *arg),
			       void *arg, bool may_run)
{
	struct kprobe *entry;
	unsigned int i;

	kprobe_pass_begin();
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(entry, kprobe_list_bucket(i), hlist) {
			if (doomed((unsigned long)entry->addr, arg) &&
			    kprobe_should_be_armed(entry) &&
			    (may_run || kprobe_ftrace(entry)))
				kprobe_disarm_in_place_later(entry);
		}
	}
	kprobe_disable_pass_end();
}

/*
 * The text under these probes is about to be freed.  Take them out of the
 * text where they must (above) and out of the table, wait until no CPU
 * can be in their handlers or slots, release their architecture state,
 * and keep them on the gone list for their owners to unregister.
 */
static void kprobe_mark_text_gone(bool (*doomed)(unsigned long addr, void *arg),
				  void *arg, bool may_run)
{
	struct kprobe_unhooked unhooked;
	struct kprobe *entry, *kp;
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);
	/* What was learned about functions may be about this text. */
	kprobe_site_forget_text();
	arch_kprobe_forget_text();
	kprobe_gone_unjump(doomed, arg);
	kprobe_gone_disarm(doomed, arg, may_run);
	kprobe_unhooked_init(&unhooked);
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		/* hlist_del_rcu() keeps the node's next: the walk goes on. */
		hlist_for_each_entry(entry, kprobe_list_bucket(i), hlist) {
			if (!doomed((unsigned long)entry->addr, arg))
				continue;
			hlist_del_rcu(&entry->hlist);
			kprobe_unhooked_add(&unhooked, entry);
		}
	}
	if (list_empty(&unhooked.lone) && list_empty(&unhooked.aggrs))
		return;
	synchronize_rcu();

	while ((entry = kprobe_unhooked_pop(&unhooked))) {
		kprobe_opt_release(entry);
		arch_remove_kprobe(entry);
		entry->flags |= KPROBE_FLAG_GONE;
		if (kprobe_is_aggr(entry)) {
			list_for_each_entry(kp, &entry->list, list)
				kp->flags |= KPROBE_FLAG_GONE;
		}
		hlist_add_head(&entry->hlist, &kprobe_gone_list);
	}
}

static bool kprobe_in_range(unsigned long addr, void *arg)
{
	unsigned long *range = arg;

	return addr >= range[0] && addr < range[1];
}

/**
 * kprobe_free_init_mem() - drop the probes on the kernel's init text
 *
 * Called just before that text is freed.
 */
void kprobe_free_init_mem(void)
{
	unsigned long range[2] = {
		(unsigned long)__init_begin, (unsigned long)__init_end
	};

	/* Nothing runs there any more: async init work has been waited for. */
	guard(mutex)(&kprobe_mutex);
	kprobe_mark_text_gone(kprobe_in_range, range, false);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_text_gone_kunit() - the probes on [@start, @end) go as if that
 * text were a module's init text about to be freed
 * @start: the first byte
 * @end: the byte past the last
 *
 * The text stays: with its probes taken out of it and [GONE], it runs
 * unprobed, and their owners unregister them as usual.
 */
void kprobe_text_gone_kunit(void *start, void *end)
{
	unsigned long range[2] = { (unsigned long)start, (unsigned long)end };

	guard(mutex)(&kprobe_mutex);
	kprobe_mark_text_gone(kprobe_in_range, range, true);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_text_gone_kunit);
#endif

#ifdef CONFIG_MODULES
static bool kprobe_in_module(unsigned long addr, void *arg)
{
	return within_module(addr, arg);
}

static bool kprobe_in_module_init(unsigned long addr, void *arg)
{
	return within_module_init(addr, arg);
}

static int kprobe_module_event(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct module *mod = data;

	if (val != MODULE_STATE_COMING && val != MODULE_STATE_LIVE &&
	    val != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	guard(mutex)(&kprobe_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_blacklist_add_module(mod);
		break;
	case MODULE_STATE_LIVE:
		/* The module's init text is freed next. */
		kprobe_mark_text_gone(kprobe_in_module_init, mod, true);
		break;
	case MODULE_STATE_GOING:
		/* Unloaded or failed to load: nothing may call into it now. */
		kprobe_mark_text_gone(kprobe_in_module, mod, false);
		kprobe_blacklist_remove_module(mod);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kprobe_module_nb = {
	.notifier_call = kprobe_module_event,
	.priority = 0,
};

int __init kprobe_watch_modules(void)
{
	return register_module_notifier(&kprobe_module_nb);
}
#endif

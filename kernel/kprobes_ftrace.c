// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes on ftrace call sites.  Such a site already calls into ftrace, so
 * the probe is "armed" by adding the site to ftrace, in one of two ways.
 *
 * Where ftrace hands its callbacks a full pt_regs (x86), the site joins the
 * filter of one of two ftrace_ops whose callback is the architecture's
 * kprobe_ftrace_handler().  A probe with a post_handler uses the IPMODIFY
 * ops: the handler path moves regs->ip past the call to imitate a
 * single-step, and ftrace must then honour the new ip.  IPMODIFY is
 * exclusive per function (livepatch wants it too), so probes without a
 * post_handler stay off it.
 *
 * Where it does not (arm64: ftrace_regs holds the argument registers and
 * little else), each probed site gets an ftrace direct call of its own to
 * arch_kprobe_ftrace_caller(), a trampoline that saves every register into
 * a pt_regs and honours the handlers' changes to it, the pc included
 * (CONFIG_KPROBES_ON_FTRACE_DIRECT).  A function has at most one direct
 * call, so such a probe and, say, a BPF trampoline exclude each other on
 * the same function: the second one gets -EBUSY.
 *
 * Everything here runs under kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "kprobes_internal.h"

bool kprobe_ftrace_disabled __read_mostly;

#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
/*
 * One direct-call ops per armed site, found again by address at disarm.
 * The table entry at the site may change (a lone probe becomes an
 * aggregate) while the site stays armed; the ops belongs to the address.
 */
struct kprobe_ftrace_site {
	struct ftrace_ops ops;
	unsigned long ip;
	struct hlist_node node;
};

static DEFINE_HASHTABLE(kprobe_ftrace_sites, 8);

static struct kprobe_ftrace_site *kprobe_ftrace_site_of(unsigned long ip)
{
	struct kprobe_ftrace_site *site;

	hash_for_each_possible(kprobe_ftrace_sites, site, node, ip) {
		if (site->ip == ip)
			return site;
	}
	return NULL;
}

int kprobe_ftrace_arm(struct kprobe *p)
{
	unsigned long tramp = (unsigned long)arch_kprobe_ftrace_caller;
	unsigned long ip = (unsigned long)p->addr;
	struct kprobe_ftrace_site *site;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (p->flags & KPROBE_FLAG_FTRACE_ARMED)
		return 0;
	if (unlikely(kprobe_ftrace_disabled))
		return -ENODEV;
	if (WARN_ON_ONCE(kprobe_ftrace_site_of(ip)))
		return -EBUSY;

	site = kzalloc(sizeof(*site), GFP_KERNEL);
	if (!site)
		return -ENOMEM;
	site->ip = ip;
	ret = ftrace_set_filter_ip(&site->ops, ip, 0, 0);
	if (ret) {
		pr_debug("%pS: ftrace filter refused (%d)\n", p->addr, ret);
		kfree(site);
		return ret;
	}
	ret = register_ftrace_direct(&site->ops, tramp);
	if (ret) {
		/* -EBUSY: another direct call (a BPF trampoline) owns it */
		pr_debug("%pS: ftrace direct call refused (%d)\n", p->addr,
			 ret);
		ftrace_free_filter(&site->ops);
		kfree(site);
		return ret;
	}
	hash_add(kprobe_ftrace_sites, &site->node, ip);
	p->flags |= KPROBE_FLAG_FTRACE_ARMED;
	return 0;
}

int kprobe_ftrace_disarm(struct kprobe *p)
{
	unsigned long tramp = (unsigned long)arch_kprobe_ftrace_caller;
	unsigned long ip = (unsigned long)p->addr;
	struct kprobe_ftrace_site *site;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (!(p->flags & KPROBE_FLAG_FTRACE_ARMED))
		return 0;
	/* After ftrace_kill() nothing calls us; there is nothing to undo. */
	if (unlikely(kprobe_ftrace_disabled))
		return 0;

	site = kprobe_ftrace_site_of(ip);
	if (WARN_ON_ONCE(!site))
		return -ENOENT;
	/*
	 * Waits for the CPUs that may still be on the way from the site
	 * into the trampoline (the ops is dynamic); those that got in find
	 * no probe or a disarmed one, the core's grace period covers them.
	 */
	ret = unregister_ftrace_direct(&site->ops, tramp, true);
	if (ret) {
		pr_warn("%pS: cannot leave ftrace (%d)\n", p->addr, ret);
		return ret;
	}
	hash_del(&site->node);
	kfree(site);
	p->flags &= ~KPROBE_FLAG_FTRACE_ARMED;
	return 0;
}

/* The site's ops belongs to its address, not to the entry: nothing moves. */
void kprobe_ftrace_handover(struct kprobe *orig, struct kprobe *agg)
{
	lockdep_assert_held(&kprobe_mutex);
}

#else /* !CONFIG_KPROBES_ON_FTRACE_DIRECT */

struct kprobe_ftrace_user {
	struct ftrace_ops ops;
	unsigned int nr_armed;
};

static struct kprobe_ftrace_user kprobe_ftrace_plain = {
	.ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS,
	},
};

static struct kprobe_ftrace_user kprobe_ftrace_ipmodify = {
	.ops = {
		.func = kprobe_ftrace_handler,
		.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	},
};

/* Name @entry the ops' only armed entry, or none with NULL. */
static void kprobe_ftrace_set_only(struct kprobe_ftrace_user *user,
				   struct kprobe *entry)
{
	/* The handler reads the entry through it: publish it whole. */
	smp_store_release(&user->ops.private, entry);
}

static struct kprobe_ftrace_user *kprobe_ftrace_user_of(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_FTRACE_IPMODIFY ?
	       &kprobe_ftrace_ipmodify : &kprobe_ftrace_plain;
}

/*
 * An entry records whether, and through which ops, it is armed, so that a
 * failed arm is never undone and disarm always leaves the ops it joined.
 */
int kprobe_ftrace_arm(struct kprobe *p)
{
	bool ipmodify = p->post_handler;
	struct kprobe_ftrace_user *user = ipmodify ? &kprobe_ftrace_ipmodify :
						     &kprobe_ftrace_plain;
	unsigned long ip = (unsigned long)p->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (p->flags & KPROBE_FLAG_FTRACE_ARMED)
		return 0;
	if (unlikely(kprobe_ftrace_disabled))
		return -ENODEV;

	/* A second entry: the handler must look each one up. */
	kprobe_ftrace_set_only(user, user->nr_armed ? NULL : p);
	ret = ftrace_set_filter_ip(&user->ops, ip, 0, 0);
	if (ret) {
		pr_debug("%pS: ftrace filter refused (%d)\n", p->addr, ret);
		goto refused;
	}
	if (user->nr_armed == 0) {
		ret = register_ftrace_function(&user->ops);
		if (ret) {
			ftrace_set_filter_ip(&user->ops, ip, 1, 0);
			pr_debug("%pS: ftrace ops refused (%d)\n", p->addr, ret);
			goto refused;
		}
	}
	user->nr_armed++;
	p->flags |= KPROBE_FLAG_FTRACE_ARMED;
	if (ipmodify)
		p->flags |= KPROBE_FLAG_FTRACE_IPMODIFY;
	return 0;

refused:
	if (user->ops.private == p)
		kprobe_ftrace_set_only(user, NULL);
	return ret;
}

int kprobe_ftrace_disarm(struct kprobe *p)
{
	struct kprobe_ftrace_user *user = kprobe_ftrace_user_of(p);
	unsigned long ip = (unsigned long)p->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (!(p->flags & KPROBE_FLAG_FTRACE_ARMED))
		return 0;
	/*
	 * Before anything can fail: the caller may go on to take @p out of
	 * the table whatever the outcome.
	 */
	if (user->ops.private == p)
		kprobe_ftrace_set_only(user, NULL);
	/* After ftrace_kill() nothing calls us; there is nothing to undo. */
	if (unlikely(kprobe_ftrace_disabled))
		return 0;

	if (user->nr_armed == 1) {
		ret = unregister_ftrace_function(&user->ops);
		if (ret) {
			pr_warn("%pS: cannot leave ftrace (%d)\n", p->addr, ret);
			return ret;
		}
	}
	user->nr_armed--;
	p->flags &= ~(KPROBE_FLAG_FTRACE_ARMED | KPROBE_FLAG_FTRACE_IPMODIFY);
	ret = ftrace_set_filter_ip(&user->ops, ip, 1, 0);
	if (ret)
		pr_debug("%pS: ftrace filter removal: %d\n", p->addr, ret);
	return 0;
}

/**
 * kprobe_ftrace_handover() - an aggregate takes an armed entry's place
 * @orig: the entry leaving the table, armed through an ops
 * @agg: the aggregate that holds @orig and replaced it in the table
 *
 * The aggregate inherits @orig's ops membership; the handler must find it
 * rather than @orig before another probe joins it.
 */
void kprobe_ftrace_handover(struct kprobe *orig, struct kprobe *agg)
{
	struct kprobe_ftrace_user *user = kprobe_ftrace_user_of(agg);

	lockdep_assert_held(&kprobe_mutex);
	if (user->ops.private == orig)
		kprobe_ftrace_set_only(user, agg);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_ftrace_only() - the probe the ftrace handler takes without a lookup
 * @ipmodify: ask about the ops for probes with a post_handler (which need
 *	ftrace's IPMODIFY) rather than the plain one
 *
 * For the KUnit suites: while one probe is alone on an ops, the handler
 * calls it directly instead of looking the address up in the table.
 *
 * Context: takes kprobe_mutex; may sleep.
 * Return: that probe, or NULL when the ops has none or more than one.
 */
struct kprobe *kprobe_ftrace_only(bool ipmodify)
{
	guard(mutex)(&kprobe_mutex);
	return ipmodify ? kprobe_ftrace_ipmodify.ops.private :
			  kprobe_ftrace_plain.ops.private;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_ftrace_only);
#endif

#endif /* CONFIG_KPROBES_ON_FTRACE_DIRECT */

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_ftrace_site_of_func() - where a function's ftrace site is
 * @func: the function's start address
 *
 * For the KUnit suites, which are modules and cannot call
 * ftrace_location(): it tells them where the core puts an entry probe
 * of a traced function (after ENDBR on x86 with IBT, after MOV X9, X30
 * on arm64).
 *
 * Return: the site's address, or 0 when the function has none.
 */
unsigned long kprobe_ftrace_site_of_func(unsigned long func)
{
	return ftrace_location(func);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_ftrace_site_of_func);
#endif

/**
 * kprobe_ftrace_kill() - ftrace is dead; stop every ftrace-based probe
 *
 * Called from ftrace_kill() when ftrace found itself corrupted.
 */
void kprobe_ftrace_kill(void)
{
	kprobe_ftrace_disabled = true;
}

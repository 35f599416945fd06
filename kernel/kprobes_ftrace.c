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
 * little else), the sites join the filter of one ftrace_ops whose callback
 * does not run the probe: it only asks ftrace to go on, once its other
 * callbacks are done, to arch_kprobe_ftrace_caller() as it would to a
 * direct-call trampoline (CONFIG_KPROBES_ON_FTRACE_DIRECT).  That
 * trampoline saves every register into a pt_regs and honours the
 * handlers' changes to it, the pc included.  A site has one direct
 * trampoline at most.  Where another's has it (say, a BPF trampoline),
 * or ftrace's calls are switched off, the probe becomes a breakpoint on
 * its own instruction instead ("Traps" below).
 *
 * A site thus only changes an ops' filter.  The ops are static, never
 * freed, so leaving one waits for no RCU-tasks grace period.
 *
 * Everything here runs under kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "kprobes_internal.h"

bool kprobe_ftrace_disabled __read_mostly;

/**
 * kprobe_ftrace_lookup() - find the probe of an ftrace-site hit in the table
 * @ip: the ftrace site
 * @parent_ip: the probed function's return address, for ftrace's records
 *
 * The slow half of kprobe_ftrace_hit_probe(), with preemption disabled,
 * which also makes it the table's RCU reader without asking lockdep
 * (kprobe_rcu_reader()).  It runs under ftrace's recursion lock all the
 * same, so that should a debug option ever put a probeable call into the
 * lookup, a hit from inside it nests once more at most.  The lock
 * is dropped on return: a hit from the handlers must still be seen, and
 * counted as missed.
 *
 * Return: the probe at @ip, or NULL when there is none or the lock is
 * already held twice on this CPU.
 */
struct kprobe *kprobe_ftrace_lookup(unsigned long ip, unsigned long parent_ip)
{
	struct kprobe *p;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return NULL;
	p = get_kprobe((kprobe_opcode_t *)ip);
	ftrace_test_recursion_unlock(bit);
	return p;
}
NOKPROBE_SYMBOL(kprobe_ftrace_lookup);

struct kprobe_ftrace_user {
	struct ftrace_ops ops;
	unsigned int nr_armed;
};

#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
static struct irq_work kprobe_ftrace_trap_kick;

/*
 * Send the site on to the probe trampoline, unless a direct trampoline of
 * someone else's owns it: ftrace has room for one.
 *
 * Under PROVE_RCU, ftrace_find_rec_direct() calls rcu_read_lock_sched_held(),
 * which has an ftrace site of its own.  With a probe there, each call
 * would come back here, without end, before any handler ran to notice:
 * a call from inside this function leaves its site alone.
 */
static void notrace kprobe_ftrace_redirect(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *ops,
					   struct ftrace_regs *fregs)
{
	unsigned long tramp = (unsigned long)arch_kprobe_ftrace_caller;
	unsigned long foreign;
	struct kprobe *p;
	int bit = -1;

	/*
	 * Both disable preemption, for the lookups below.  The lock costs a
	 * dozen instructions on every hit, so only PROVE_RCU pays for it.
	 */
	if (IS_ENABLED(CONFIG_PROVE_RCU)) {
		bit = ftrace_test_recursion_trylock(ip, parent_ip);
		if (bit < 0)
			return;
	} else {
		preempt_disable_notrace();
	}
	/*
	 * The site may be inside local_bh_disable(), where lockdep's record
	 * of the softirq state trails the CPU's and any question to lockdep
	 * warns and turns it off.  ftrace's lookup asks it whether this is
	 * an RCU-sched reader (it is: preemption is off), so it runs with
	 * lockdep off.
	 */
	if (IS_ENABLED(CONFIG_PROVE_RCU))
		lockdep_off();
	foreign = ftrace_find_rec_direct(ip);
	if (IS_ENABLED(CONFIG_PROVE_RCU))
		lockdep_on();
	if (likely(!foreign)) {
		arch_ftrace_set_direct_caller(fregs, tramp);
	} else {
		/* Another's trampoline took the site: the probe must move. */
		kprobe_hit_begin();
		p = get_kprobe(arch_kprobe_ftrace_addr(ip));
		if (p && !(READ_ONCE(p->flags) & KPROBE_FLAG_FTRACE_TRAP)) {
			kprobe_count_miss(p, KPROBE_MISS_SITE_TAKEN);
			irq_work_queue(&kprobe_ftrace_trap_kick);
		}
		kprobe_hit_end();
	}
	if (IS_ENABLED(CONFIG_PROVE_RCU))
		ftrace_test_recursion_unlock(bit);
	else
		preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_ftrace_redirect);

/*
 * One ops for every site, post_handler or not: the trampoline, not
 * ftrace, moves the pc, so the ops needs no IPMODIFY.
 */
static struct kprobe_ftrace_user kprobe_ftrace_redirected = {
	.ops = { .func = kprobe_ftrace_redirect },
};

static struct kprobe_ftrace_user *const kprobe_ftrace_users[] = {
	&kprobe_ftrace_redirected,
};

static struct kprobe_ftrace_user *kprobe_ftrace_user_for(bool ipmodify)
{
	return &kprobe_ftrace_redirected;
}

/* A copy of the ops' only armed entry (kprobe_ftrace_set_only()). */
struct kprobe *kprobe_ftrace_direct_only __read_mostly;
#else
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

static struct kprobe_ftrace_user *const kprobe_ftrace_users[] = {
	&kprobe_ftrace_plain,
	&kprobe_ftrace_ipmodify,
};

static struct kprobe_ftrace_user *kprobe_ftrace_user_for(bool ipmodify)
{
	return ipmodify ? &kprobe_ftrace_ipmodify : &kprobe_ftrace_plain;
}
#endif

/* Name @entry the ops' only armed entry, or none with NULL. */
static void kprobe_ftrace_set_only(struct kprobe_ftrace_user *user,
				   struct kprobe *entry)
{
	/* The handler reads the entry through it: publish it whole. */
	smp_store_release(&user->ops.private, entry);
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
	/* The same for the trampoline's hit, which has no ops to read. */
	smp_store_release(&kprobe_ftrace_direct_only, entry);
#endif
}

static struct kprobe_ftrace_user *kprobe_ftrace_user_of(struct kprobe *p)
{
	return kprobe_ftrace_user_for(p->flags & KPROBE_FLAG_FTRACE_IPMODIFY);
}

/* The ops @p joins when it is armed now. */
static struct kprobe_ftrace_user *kprobe_ftrace_user_to_join(struct kprobe *p)
{
	return kprobe_ftrace_user_for(p->post_handler &&
				      !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE_DIRECT));
}

/* Take the armed entry @p out of its ops' filter. */
static int kprobe_ftrace_leave(struct kprobe *p)
{
	struct kprobe_ftrace_user *user = kprobe_ftrace_user_of(p);
	unsigned long ip = arch_kprobe_ftrace_site(p);
	int ret;

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

#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
/*
 * Traps.  ftrace goes on to one direct trampoline per site at most.  When
 * another's (a BPF trampoline, a livepatch-free ftrace direct caller) has
 * the site of a probe, or ftrace's calls are switched off
 * (kernel.ftrace_enabled), the probe is armed as a breakpoint on its own
 * instruction instead: the function's first, which ftrace never patches
 * after boot.  It fires there, with every register, as on a kernel with
 * no kprobes on ftrace, and stays a breakpoint until it is disarmed.
 *
 * A probe armed on its site first finds out from the ops callback, which
 * sees the other trampoline on the site: that hit is counted missed, and
 * a work item moves every such probe to a breakpoint, the breakpoint
 * going in before the site leaves the ops, so that after it no hit is
 * lost.
 */

/* ftrace's calls are off, or may go off: every arm is a breakpoint. */
static bool kprobe_ftrace_traps_only;

static bool kprobe_ftrace_must_trap(unsigned long site)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace_traps_only || !READ_ONCE(ftrace_enabled))
		return true;
	/* The direct-call table is read with preemption off. */
	guard(preempt)();
	return ftrace_find_rec_direct(site);
}

/* Arm @p as a breakpoint on its instruction, prepared the first time. */
static int kprobe_ftrace_trap(struct kprobe *p)
{
	int ret;

	guard(kprobe_text)();
	if (!(p->flags & KPROBE_FLAG_FTRACE_TRAP_READY)) {
		ret = arch_prepare_kprobe(p);
		if (ret)
			return ret;
		p->flags |= KPROBE_FLAG_FTRACE_TRAP_READY;
	}
	arch_arm_kprobe(p);
	p->flags |= KPROBE_FLAG_FTRACE_TRAP;
	return 0;
}

static void kprobe_ftrace_untrap(struct kprobe *p)
{
	scoped_guard(kprobe_text)
		arch_disarm_kprobe(p);
	p->flags &= ~KPROBE_FLAG_FTRACE_TRAP;
}

/* @entry, armed on its site, becomes a breakpoint. */
static void kprobe_ftrace_move_to_trap(struct kprobe *entry)
{
	int ret = kprobe_ftrace_trap(entry);

	if (ret) {
		pr_warn("%pS: cannot become a breakpoint (%d); its site is not ours\n",
			entry->addr, ret);
		return;
	}
	if (kprobe_ftrace_leave(entry))
		pr_warn("%pS: a breakpoint now, but still in ftrace's filter\n",
			entry->addr);
}

/* Move the site-armed entries to breakpoints: all, or those that lost their site. */
static void kprobe_ftrace_retrap(bool all)
{
	struct hlist_head *head;
	struct kprobe *entry;
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		head = kprobe_list_bucket(i);
		hlist_for_each_entry(entry, head, hlist) {
			if (!(entry->flags & KPROBE_FLAG_FTRACE_ARMED))
				continue;
			if (all || kprobe_ftrace_must_trap(arch_kprobe_ftrace_site(entry)))
				kprobe_ftrace_move_to_trap(entry);
		}
	}
}

static void kprobe_ftrace_trap_work_fn(struct work_struct *work)
{
	guard(mutex)(&kprobe_mutex);
	kprobe_ftrace_retrap(false);
}

static DECLARE_WORK(kprobe_ftrace_trap_work, kprobe_ftrace_trap_work_fn);

/* From the ops callback, which may run in any context. */
static void kprobe_ftrace_trap_kick_fn(struct irq_work *work)
{
	schedule_work(&kprobe_ftrace_trap_work);
}

static struct irq_work kprobe_ftrace_trap_kick =
	IRQ_WORK_INIT(kprobe_ftrace_trap_kick_fn);

/**
 * kprobe_ftrace_calls_may_stop() - kernel.ftrace_enabled is being written
 *
 * Called by the sysctl before it takes ftrace_lock.  Every probe armed on
 * its site becomes a breakpoint, and so does every probe armed from now
 * on, until kprobe_ftrace_calls_settled() finds ftrace's calls on: the
 * write may switch them off, and the base's probes keep firing then.
 */
void kprobe_ftrace_calls_may_stop(void)
{
	guard(mutex)(&kprobe_mutex);
	kprobe_ftrace_traps_only = true;
	kprobe_ftrace_retrap(true);
}

/**
 * kprobe_ftrace_calls_settled() - the write to kernel.ftrace_enabled is done
 * @enabled: ftrace's calls are on
 *
 * Probes armed from now on ride their sites again if @enabled; those
 * already breakpoints stay so until they are disarmed.
 */
void kprobe_ftrace_calls_settled(bool enabled)
{
	guard(mutex)(&kprobe_mutex);
	kprobe_ftrace_traps_only = !enabled;
}

/**
 * kprobe_ftrace_trapped() - is @p armed as a breakpoint, not on its site?
 * @p: a registered probe
 *
 * For the KUnit suites.
 *
 * Context: takes kprobe_mutex; may sleep.
 * Return: true when @p's table entry is a breakpoint instead.
 */
bool kprobe_ftrace_trapped(struct kprobe *p)
{
	struct kprobe *entry;

	guard(mutex)(&kprobe_mutex);
	entry = get_kprobe(p->addr);
	return entry && (entry->flags & KPROBE_FLAG_FTRACE_TRAP);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_ftrace_trapped);

/**
 * kprobe_ftrace_trap_flush() - wait until lost sites have become breakpoints
 *
 * For the KUnit suites: the move that the ops callback asked for is done
 * when it returns.
 */
void kprobe_ftrace_trap_flush(void)
{
	irq_work_sync(&kprobe_ftrace_trap_kick);
	flush_work(&kprobe_ftrace_trap_work);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_ftrace_trap_flush);
#else
static bool kprobe_ftrace_must_trap(unsigned long site)
{
	return false;
}

static int kprobe_ftrace_trap(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static void kprobe_ftrace_untrap(struct kprobe *p) { }
#endif /* CONFIG_KPROBES_ON_FTRACE_DIRECT */

int kprobe_ftrace_disarm(struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	if (p->flags & KPROBE_FLAG_FTRACE_TRAP) {
		kprobe_ftrace_untrap(p);
		return 0;
	}
	if (!(p->flags & KPROBE_FLAG_FTRACE_ARMED))
		return 0;
	return kprobe_ftrace_leave(p);
}

/*
 * The ips of the entries in @entries that @user's ops takes (armed or
 * not, as @armed says), in @ips; they are moved to the front of @entries.
 */
static int kprobe_ftrace_gather(struct kprobe_ftrace_user *user,
				struct kprobe **entries, int num, bool armed,
				unsigned long *ips)
{
	struct kprobe *p;
	int i, n = 0;

	for (i = 0; i < num; i++) {
		p = entries[i];
		if (!!(p->flags & KPROBE_FLAG_FTRACE_ARMED) != armed)
			continue;
		if (user != (armed ? kprobe_ftrace_user_of(p) :
				     kprobe_ftrace_user_to_join(p)))
			continue;
		swap(entries[i], entries[n]);
		ips[n++] = arch_kprobe_ftrace_site(p);
	}
	return n;
}

/* Arm @num entries, all taken by @user, with one ftrace update. */
static int kprobe_ftrace_arm_some(struct kprobe_ftrace_user *user,
				  struct kprobe **entries, int num,
				  unsigned long *ips)
{
	bool ipmodify = user->ops.flags & FTRACE_OPS_FL_IPMODIFY;
	int i, ret;

	kprobe_ftrace_set_only(user, user->nr_armed || num > 1 ?
				     NULL : entries[0]);
	ret = ftrace_set_filter_ips(&user->ops, ips, num, 0, 0);
	if (!ret && !user->nr_armed) {
		ret = register_ftrace_function(&user->ops);
		if (ret)
			ftrace_set_filter_ips(&user->ops, ips, num, 1, 0);
	}
	if (ret) {
		kprobe_ftrace_set_only(user, NULL);
		return ret;
	}
	user->nr_armed += num;
	for (i = 0; i < num; i++) {
		entries[i]->flags |= KPROBE_FLAG_FTRACE_ARMED;
		if (ipmodify)
			entries[i]->flags |= KPROBE_FLAG_FTRACE_IPMODIFY;
	}
	return 0;
}

/*
 * An entry records whether, and through which ops, it is armed, so that a
 * failed arm is never undone and disarm always leaves the ops it joined.
 */
int kprobe_ftrace_arm(struct kprobe *p)
{
	unsigned long ip = arch_kprobe_ftrace_site(p);
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (p->flags & (KPROBE_FLAG_FTRACE_ARMED | KPROBE_FLAG_FTRACE_TRAP))
		return 0;
	if (unlikely(kprobe_ftrace_disabled))
		return -ENODEV;
	if (kprobe_ftrace_must_trap(ip))
		return kprobe_ftrace_trap(p);
	ret = kprobe_ftrace_arm_some(kprobe_ftrace_user_to_join(p), &p, 1, &ip);
	if (ret)
		pr_debug("%pS: ftrace refused the site (%d)\n", p->addr, ret);
	return ret;
}

/**
 * kprobe_ftrace_arm_batch() - arm entries on ftrace sites together
 * @entries: table entries on ftrace sites, not armed
 * @num: how many
 *
 * One ftrace update for all those that join the same ops, where
 * kprobe_ftrace_arm() makes one per entry.  When ftrace refuses the lot,
 * each is tried alone, so that one refused site leaves the others armed.
 *
 * Return: 0, or the first error.
 */
int kprobe_ftrace_arm_batch(struct kprobe **entries, int num)
{
	struct kprobe_ftrace_user *user;
	unsigned long *ips;
	int u, i, n, left, ret = 0, err;

	lockdep_assert_held(&kprobe_mutex);
	if (unlikely(kprobe_ftrace_disabled))
		return -ENODEV;
	/* Those whose site is not theirs to take go last, one by one. */
	for (i = 0, n = num; i < n;) {
		if (kprobe_ftrace_must_trap(arch_kprobe_ftrace_site(entries[i])))
			swap(entries[i], entries[--n]);
		else
			i++;
	}
	left = num - n;
	num = n;
	ips = kmalloc_array(num, sizeof(*ips), GFP_KERNEL);
	for (u = 0; ips && u < ARRAY_SIZE(kprobe_ftrace_users); u++) {
		user = kprobe_ftrace_users[u];
		n = kprobe_ftrace_gather(user, entries, num, false, ips);
		if (n && !kprobe_ftrace_arm_some(user, entries, n, ips)) {
			entries += n;
			num -= n;
		}
	}
	kfree(ips);
	/* What is left, one by one: each gets its own verdict. */
	for (i = 0; i < num + left; i++) {
		err = kprobe_ftrace_arm(entries[i]);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/**
 * kprobe_ftrace_disarm_batch() - disarm entries on ftrace sites together
 * @entries: table entries on ftrace sites
 * @num: how many
 *
 * One ftrace update per ops for all of them; those that ftrace does not
 * let go of together are disarmed one by one.
 */
void kprobe_ftrace_disarm_batch(struct kprobe **entries, int num)
{
	struct kprobe_ftrace_user *user;
	unsigned long *ips;
	int u, i, n, ret;

	lockdep_assert_held(&kprobe_mutex);
	ips = kprobe_ftrace_disabled ? NULL :
	      kmalloc_array(num, sizeof(*ips), GFP_KERNEL);
	for (u = 0; ips && u < ARRAY_SIZE(kprobe_ftrace_users); u++) {
		user = kprobe_ftrace_users[u];
		n = kprobe_ftrace_gather(user, entries, num, true, ips);
		if (!n)
			continue;
		/* The ops' last sites leave with it: no update for them. */
		ret = n == user->nr_armed ?
		      unregister_ftrace_function(&user->ops) :
		      ftrace_set_filter_ips(&user->ops, ips, n, 1, 0);
		if (ret) {
			pr_debug("%d sites cannot leave ftrace together (%d)\n",
				 n, ret);
			continue;
		}
		if (n == user->nr_armed)
			ftrace_set_filter_ips(&user->ops, ips, n, 1, 0);
		user->nr_armed -= n;
		for (i = 0; i < n; i++) {
			if (user->ops.private == entries[i])
				kprobe_ftrace_set_only(user, NULL);
			entries[i]->flags &= ~(KPROBE_FLAG_FTRACE_ARMED |
					       KPROBE_FLAG_FTRACE_IPMODIFY);
		}
	}
	kfree(ips);
	/* Those left (disarmed ones return at once) one by one. */
	for (i = 0; i < num; i++)
		WARN_ON(kprobe_ftrace_disarm(entries[i]));
}

/**
 * kprobe_ftrace_handover() - an aggregate takes an armed entry's place
 * @orig: the entry leaving the table, armed through an ops
 * @entry: the aggregate that holds @orig and replaced it in the table
 *
 * The aggregate inherits @orig's ops membership; the handler must find it
 * rather than @orig before another probe joins it.
 */
void kprobe_ftrace_handover(struct kprobe *orig, struct kprobe *entry)
{
	struct kprobe_ftrace_user *user = kprobe_ftrace_user_of(entry);

	lockdep_assert_held(&kprobe_mutex);
	if (user->ops.private == orig)
		kprobe_ftrace_set_only(user, entry);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_ftrace_only() - the probe the ftrace handler takes without a lookup
 * @ipmodify: ask about the ops for probes with a post_handler (which need
 *	ftrace's IPMODIFY) rather than the plain one; where sites are
 *	redirected to a trampoline there is no such ops, and the answer
 *	is NULL
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
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
	return ipmodify ? NULL : kprobe_ftrace_direct_only;
#else
	return ipmodify ? kprobe_ftrace_ipmodify.ops.private :
			  kprobe_ftrace_plain.ops.private;
#endif
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_ftrace_only);
#endif

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

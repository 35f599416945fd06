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

static bool kretprobe_blacklisted(kprobe_opcode_t *addr)
{
	unsigned long offset;
	kprobe_opcode_t *func;
	int i;

	/* With the size a constant 0 the array reference compiles away. */
	if (!kretprobe_blacklist_size)
		return false;
	/*
	 * The entry probe may sit past the symbol (after an ENDBR, on an
	 * ftrace site), so compare the functions, not the addresses.
	 */
	if (!kprobe_symbol_size_offset((unsigned long)addr, NULL, &offset))
		return false;
	func = (kprobe_opcode_t *)((unsigned long)addr - offset);
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

static int kretprobe_check(struct kretprobe *rp)
{
	kprobe_opcode_t *addr;
	bool on_entry;

	addr = kprobe_resolve(rp->kp.addr, rp->kp.symbol_name, rp->kp.offset,
			      &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	if (!on_entry) {
		pr_info("%pS: a kretprobe must sit on a function entry\n", addr);
		return -EINVAL;
	}
	if (kretprobe_blacklisted(addr)) {
		pr_info("%pS: no kretprobe can be placed here\n", addr);
		return -EINVAL;
	}
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;
	return 0;
}

/* unregister_kprobes() took @p out: no new instance may use its pool. */
void kretprobe_detach(struct kprobe *p)
{
	if (kprobe_is_kretprobe(p))
		kretprobe_pool_orphan(container_of(p, struct kretprobe, kp));
}

/* After the grace period that followed kretprobe_detach(). */
void kretprobe_release(struct kprobe *p)
{
	if (kprobe_is_kretprobe(p))
		kretprobe_pool_finish(container_of(p, struct kretprobe, kp));
}

static int __register_kretprobe(struct kretprobe *rp)
{
	bool grow;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	/* Before touching rp->rph, which a registered rp is using. */
	if (kprobe_is_registered(&rp->kp)) {
		pr_info("%pS: this kretprobe is already registered\n",
			rp->kp.addr);
		return -EINVAL;
	}
	ret = kretprobe_check(rp);
	if (ret)
		return ret;
	grow = rp->maxactive <= 0;
	if (grow)
		rp->maxactive = kretprobe_default_maxactive();
	ret = kretprobe_pool_create(rp, grow);
	if (ret)
		return ret;

	rp->kp.pre_handler = kretprobe_entry;
	rp->kp.post_handler = NULL;
	ret = __register_kprobe(&rp->kp);
	if (ret) {
		kretprobe_pool_orphan(rp);
		kretprobe_pool_finish(rp);
	}
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
	if (!kprobes_initialized)
		return -EAGAIN;
	guard(mutex)(&kprobe_mutex);
	return __register_kretprobe(rp);
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
 * Waits for one grace period for the whole batch.  Calls still in flight
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

static int register_kretprobe_entry(void *entries, int i)
{
	return __register_kretprobe(((struct kretprobe **)entries)[i]);
}

/**
 * register_kretprobes() - set several return probes, all or none
 * @rps: the kretprobes
 * @num: how many
 *
 * Return: 0, -EINVAL when @num is not positive, -EAGAIN before kprobes
 * are initialized, or the first error of register_kretprobe(); those
 * registered before it are removed.
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	int registered;
	int ret = kprobe_register_batch(rps, num, register_kretprobe_entry,
					&registered);

	if (ret && registered)
		unregister_kretprobes(rps, registered);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

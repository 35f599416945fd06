// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes on ftrace call sites.  Such a site already calls into ftrace, so
 * the probe is "armed" by adding its address to the filter of one of two
 * ftrace_ops whose callback is the architecture's kprobe_ftrace_handler().
 *
 * A probe with a post_handler uses the IPMODIFY ops: the handler path
 * moves regs->ip past the call to imitate a single-step, and ftrace must
 * then honour the new ip.  IPMODIFY is exclusive per function (livepatch
 * wants it too), so probes without a post_handler stay off it.
 *
 * Everything here runs under kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>

#include "kprobes_internal.h"

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

bool kprobe_ftrace_disabled __read_mostly;

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

	ret = ftrace_set_filter_ip(&user->ops, ip, 0, 0);
	if (ret) {
		pr_debug("%pS: ftrace filter refused (%d)\n", p->addr, ret);
		return ret;
	}
	if (user->nr_armed == 0) {
		ret = register_ftrace_function(&user->ops);
		if (ret) {
			ftrace_set_filter_ip(&user->ops, ip, 1, 0);
			pr_debug("%pS: ftrace ops refused (%d)\n", p->addr, ret);
			return ret;
		}
	}
	user->nr_armed++;
	p->flags |= KPROBE_FLAG_FTRACE_ARMED;
	if (ipmodify)
		p->flags |= KPROBE_FLAG_FTRACE_IPMODIFY;
	return 0;
}

int kprobe_ftrace_disarm(struct kprobe *p)
{
	struct kprobe_ftrace_user *user =
		p->flags & KPROBE_FLAG_FTRACE_IPMODIFY ?
		&kprobe_ftrace_ipmodify : &kprobe_ftrace_plain;
	unsigned long ip = (unsigned long)p->addr;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (!(p->flags & KPROBE_FLAG_FTRACE_ARMED))
		return 0;
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
 * kprobe_ftrace_kill() - ftrace is dead; stop every ftrace-based probe
 *
 * Called from ftrace_kill() when ftrace found itself corrupted.
 */
void kprobe_ftrace_kill(void)
{
	kprobe_ftrace_disabled = true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kpstress - races between probe registration and probe hits.
 *
 * Writing N to the "run" parameter runs the race for N seconds and returns
 * when it is over.  Caller threads (one per CPU) call three functions of
 * this module without pause.  Stable probes stay registered all along: a
 * kprobe at the entry of kps_target_a(), one in its body, and a kretprobe
 * on kps_target_b().  Churn threads meanwhile register and unregister
 * probes on the same addresses (so they aggregate with the stable ones),
 * in batches, disable and enable them, and put probes on kernel_clone,
 * which the guest's shell workload calls.
 *
 * With exact=1 (nothing else disarms probes meanwhile) every call must be
 * seen by every stable probe: hits == calls.  With exact=0 the guest flips
 * the debugfs "enabled" knob and the optimization sysctl during the run,
 * and a stable probe may only have seen fewer calls, never more.
 * The figures are read back from the parameters; "failures" counts the
 * broken rules, each also reported in the kernel log.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/slab.h>

static bool exact = true;
module_param(exact, bool, 0644);
MODULE_PARM_DESC(exact, "1: nothing else disarms probes, hits must equal calls");

static unsigned long calls_a, calls_b, hits_entry, hits_body, hits_ret;
static unsigned long missed_ret, churn_ops, churn_errors, failures;
module_param(calls_a, ulong, 0444);
module_param(calls_b, ulong, 0444);
module_param(hits_entry, ulong, 0444);
module_param(hits_body, ulong, 0444);
module_param(hits_ret, ulong, 0444);
module_param(missed_ret, ulong, 0444);
module_param(churn_ops, ulong, 0444);
module_param(churn_errors, ulong, 0444);
module_param(failures, ulong, 0444);

static atomic64_t kps_calls_a, kps_calls_b, kps_hits_entry, kps_hits_body;
static atomic64_t kps_hits_ret, kps_churn_hits;
static int kps_sink;
static unsigned int kps_body_offset;

static __attribute__((__noipa__)) int kps_target_a(int x)
{
	kps_sink += x;
	return kps_sink * 3 + x;
}

static __attribute__((__noipa__)) int kps_target_b(int x)
{
	kps_sink ^= x;
	return kps_sink + 1;
}

static __attribute__((__noipa__)) int kps_target_c(int x)
{
	return x * 7 + kps_sink;
}

static int kps_entry_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&kps_hits_entry);
	return 0;
}

static int kps_body_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&kps_hits_body);
	return 0;
}

static int kps_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&kps_hits_ret);
	return 0;
}

static int kps_churn_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&kps_churn_hits);
	return 0;
}

static void kps_churn_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	atomic64_inc(&kps_churn_hits);
}

static int kps_churn_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&kps_churn_hits);
	return 0;
}

static struct kprobe kps_stable_entry = {
	.symbol_name = "kps_target_a",
	.pre_handler = kps_entry_pre,
};

static struct kprobe kps_stable_body = {
	.symbol_name = "kps_target_a",
	.pre_handler = kps_body_pre,
};

static struct kretprobe kps_stable_ret = {
	.kp.symbol_name = "kps_target_b",
	.handler = kps_ret,
};

static bool kps_stop;

static int kps_caller(void *unused)
{
	int i = 0;

	while (!READ_ONCE(kps_stop)) {
		kps_target_a(i);
		atomic64_inc(&kps_calls_a);
		kps_target_b(i);
		atomic64_inc(&kps_calls_b);
		kps_target_c(i);
		if (!(++i & 63))
			cond_resched();
	}
	return 0;
}

static void kps_fail(const char *what, long ret)
{
	churn_errors++;
	pr_err("kpstress: %s failed: %ld\n", what, ret);
}

static void kps_kprobe_init(struct kprobe *p, const char *sym,
			    unsigned int offset, bool post)
{
	memset(p, 0, sizeof(*p));
	p->symbol_name = sym;
	p->offset = offset;
	p->pre_handler = kps_churn_pre;
	if (post)
		p->post_handler = kps_churn_post;
}

static void kps_kretprobe_init(struct kretprobe *rp, const char *sym)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = sym;
	rp->handler = kps_churn_ret;
}

/* One churn step; each leaves nothing registered behind. */
static void kps_churn_once(struct kprobe *kp, struct kretprobe *rp, u32 op)
{
	struct kprobe *batch[3];
	struct kretprobe *rbatch[2];
	long ret;

	switch (op % 7) {
	case 0:		/* aggregate on the stable entry probe */
		kps_kprobe_init(&kp[0], "kps_target_a", 0, op & 8);
		ret = register_kprobe(&kp[0]);
		if (ret) {
			kps_fail("register_kprobe(a)", ret);
			return;
		}
		unregister_kprobe(&kp[0]);
		break;
	case 1:		/* aggregate on the stable body probe */
		kps_kprobe_init(&kp[0], "kps_target_a", kps_body_offset, op & 8);
		ret = register_kprobe(&kp[0]);
		if (ret) {
			kps_fail("register_kprobe(a+body)", ret);
			return;
		}
		unregister_kprobe(&kp[0]);
		break;
	case 2:		/* a kretprobe beside the stable one */
		kps_kretprobe_init(&rp[0], "kps_target_b");
		ret = register_kretprobe(&rp[0]);
		if (ret) {
			kps_fail("register_kretprobe(b)", ret);
			return;
		}
		unregister_kretprobe(&rp[0]);
		break;
	case 3:		/* a batch over all three targets */
		kps_kprobe_init(&kp[0], "kps_target_a", 0, false);
		kps_kprobe_init(&kp[1], "kps_target_b", 0, true);
		kps_kprobe_init(&kp[2], "kps_target_c", 0, false);
		batch[0] = &kp[0];
		batch[1] = &kp[1];
		batch[2] = &kp[2];
		ret = register_kprobes(batch, 3);
		if (ret) {
			kps_fail("register_kprobes", ret);
			return;
		}
		unregister_kprobes(batch, 3);
		break;
	case 4:		/* disabled and enabled while registered */
		kps_kprobe_init(&kp[0], "kps_target_c", 0, op & 8);
		ret = register_kprobe(&kp[0]);
		if (ret) {
			kps_fail("register_kprobe(c)", ret);
			return;
		}
		ret = disable_kprobe(&kp[0]);
		if (!ret)
			ret = enable_kprobe(&kp[0]);
		if (ret)
			kps_fail("disable/enable_kprobe(c)", ret);
		unregister_kprobe(&kp[0]);
		break;
	case 5:		/* a batch of kretprobes */
		kps_kretprobe_init(&rp[0], "kps_target_b");
		kps_kretprobe_init(&rp[1], "kps_target_c");
		rbatch[0] = &rp[0];
		rbatch[1] = &rp[1];
		ret = register_kretprobes(rbatch, 2);
		if (ret) {
			kps_fail("register_kretprobes", ret);
			return;
		}
		unregister_kretprobes(rbatch, 2);
		break;
	case 6:		/* the kernel's own fork path, hit by the shell workload */
		kps_kprobe_init(&kp[0], "kernel_clone", 0, false);
		kps_kretprobe_init(&rp[0], "kernel_clone");
		ret = register_kprobe(&kp[0]);
		if (ret) {
			kps_fail("register_kprobe(kernel_clone)", ret);
			return;
		}
		ret = register_kretprobe(&rp[0]);
		if (ret)
			kps_fail("register_kretprobe(kernel_clone)", ret);
		usleep_range(100, 1000);
		if (!ret)
			unregister_kretprobe(&rp[0]);
		unregister_kprobe(&kp[0]);
		break;
	}
	churn_ops++;
}

static int kps_churner(void *unused)
{
	struct kprobe *kp = kcalloc(3, sizeof(*kp), GFP_KERNEL);
	struct kretprobe *rp = kcalloc(2, sizeof(*rp), GFP_KERNEL);

	while (kp && rp && !READ_ONCE(kps_stop)) {
		kps_churn_once(kp, rp, get_random_u32());
		cond_resched();
	}
	kfree(kp);
	kfree(rp);
	return 0;
}

/* The first instruction boundary after the entry that takes a probe. */
static int kps_find_body(void)
{
	unsigned int off;

	for (off = 1; off < 32; off++) {
		kps_stable_body.offset = off;
		kps_stable_body.addr = NULL;
		kps_stable_body.flags = 0;
		if (!register_kprobe(&kps_stable_body)) {
			kps_body_offset = off;
			return 0;
		}
	}
	return -ENOENT;
}

static void kps_check(const char *what, long seen, long calls)
{
	bool ok = exact ? seen == calls : seen <= calls && seen > 0;

	if (ok)
		return;
	failures++;
	pr_err("kpstress: %s saw %ld of %ld calls (%s)\n", what, seen, calls,
	       exact ? "must see all" : "must see some, never more");
}

#define KPS_MAX_THREADS 32

static int kps_run(unsigned int seconds)
{
	struct task_struct *threads[KPS_MAX_THREADS];
	int n = 0, i, ncallers = min(num_online_cpus(), 8U), ret;

	atomic64_set(&kps_calls_a, 0);
	atomic64_set(&kps_calls_b, 0);
	atomic64_set(&kps_hits_entry, 0);
	atomic64_set(&kps_hits_body, 0);
	atomic64_set(&kps_hits_ret, 0);
	churn_ops = churn_errors = failures = 0;
	/* Registration filled these in last time; start from the symbol. */
	kps_stable_entry.addr = NULL;
	kps_stable_entry.flags = 0;
	kps_stable_ret.kp.addr = NULL;
	kps_stable_ret.kp.flags = 0;
	kps_stable_ret.nmissed = 0;

	ret = register_kprobe(&kps_stable_entry);
	if (ret)
		return ret;
	ret = kps_find_body();
	if (ret)
		goto out_entry;
	/* Room for every caller at once: no return may be missed. */
	kps_stable_ret.maxactive = 2 * ncallers;
	ret = register_kretprobe(&kps_stable_ret);
	if (ret)
		goto out_body;

	WRITE_ONCE(kps_stop, false);
	for (i = 0; i < ncallers; i++)
		threads[n++] = kthread_run(kps_caller, NULL, "kps-call/%d", i);
	for (i = 0; i < 2; i++)
		threads[n++] = kthread_run(kps_churner, NULL, "kps-churn/%d", i);
	for (i = 0; i < n; i++) {
		if (IS_ERR(threads[i]))
			threads[i] = NULL;
		else
			get_task_struct(threads[i]);
	}
	msleep_interruptible(seconds * 1000);
	WRITE_ONCE(kps_stop, true);
	for (i = 0; i < n; i++) {
		if (threads[i]) {
			kthread_stop(threads[i]);
			put_task_struct(threads[i]);
		}
	}

	unregister_kretprobe(&kps_stable_ret);
out_body:
	unregister_kprobe(&kps_stable_body);
out_entry:
	unregister_kprobe(&kps_stable_entry);
	if (ret)
		return ret;

	calls_a = atomic64_read(&kps_calls_a);
	calls_b = atomic64_read(&kps_calls_b);
	hits_entry = atomic64_read(&kps_hits_entry);
	hits_body = atomic64_read(&kps_hits_body);
	hits_ret = atomic64_read(&kps_hits_ret);
	missed_ret = kps_stable_ret.nmissed;
	kps_check("the entry probe", hits_entry, calls_a);
	kps_check("the body probe", hits_body, calls_a);
	kps_check("the kretprobe", hits_ret + missed_ret, calls_b);
	if (missed_ret) {
		failures++;
		pr_err("kpstress: the kretprobe missed %lu returns with room for all\n",
		       missed_ret);
	}
	if (churn_errors)
		failures++;
	pr_info("kpstress: %us: %lu/%lu calls, hits %lu %lu %lu, missed %lu, %lu churn ops (%lld hits), %lu errors, %lu failures\n",
		seconds, calls_a, calls_b, hits_entry, hits_body, hits_ret,
		missed_ret, churn_ops, atomic64_read(&kps_churn_hits),
		churn_errors, failures);
	return 0;
}

static int kps_set_run(const char *val, const struct kernel_param *kp)
{
	unsigned int seconds;
	int ret = kstrtouint(val, 0, &seconds);

	if (ret)
		return ret;
	return kps_run(seconds);
}

static const struct kernel_param_ops kps_run_ops = {
	.set = kps_set_run,
};
module_param_cb(run, &kps_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write N: race for N seconds, then fill in the figures");

static int __init kps_init(void)
{
	return 0;
}

static void __exit kps_exit(void)
{
}

module_init(kps_init);
module_exit(kps_exit);
MODULE_DESCRIPTION("kprobes registration and hit races, for the harness");
MODULE_LICENSE("GPL");

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
 *
 * Writing N to "faults" runs the fault race for N seconds (see the
 * comment above kps_faults_run()), and writing 1 to "sleeper" arms, for
 * one call, a pre_handler that may sleep: the debug config must report it.
 *
 * /sys/kernel/debug/kpstress_sweep registers probes on given addresses in
 * batches, for kpsweep -m (see above kps_sweep_register()).
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/extable.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_ARM64
#include <asm/insn.h>
#endif

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

/*
 * Called by the caller threads on every round: sleep a tick now and then,
 * as kernel threads do.  One that never sleeps holds up every RCU-tasks
 * grace period, and removing an ftrace ops (arm64's probes on ftrace
 * sites) waits for one; cond_resched() does nothing under preempt=full.
 */
static void kps_breathe(unsigned int round)
{
	if (!(round & 16383))
		schedule_timeout_uninterruptible(1);
	else if (!(round & 63))
		cond_resched();
}

static int kps_caller(void *unused)
{
	int i = 0;

	while (!READ_ONCE(kps_stop)) {
		kps_target_a(i);
		atomic64_inc(&kps_calls_a);
		kps_target_b(i);
		atomic64_inc(&kps_calls_b);
		kps_target_c(i);
		kps_breathe(++i);
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
	/* A round with no call proves nothing: 0 == 0 is no hit seen. */
	bool ok = calls > 0 && (exact ? seen == calls : seen <= calls && seen > 0);

	if (ok)
		return;
	failures++;
	pr_err("kpstress: %s saw %ld of %ld calls (%s)\n", what, seen, calls,
	       exact ? "must see all" : "must see some, never more");
}

#define KPS_MAX_THREADS 32

static int callers = -1;
module_param(callers, int, 0644);
MODULE_PARM_DESC(callers, "caller threads in a round: -1 one per CPU (at most 8); 0 none, which the checks must fail");

static int kps_nr_callers(void)
{
	if (callers >= 0)
		return min(callers, 8);
	return min_t(int, num_online_cpus(), 8);
}

/* Start @count threads of @fn after the @n in @threads; returns the new n. */
static int kps_spawn(struct task_struct **threads, int n, int count,
		     int (*fn)(void *), void *data, const char *name)
{
	struct task_struct *t;
	int i;

	for (i = 0; i < count && n < KPS_MAX_THREADS; i++) {
		t = kthread_run(fn, data, "%s/%d", name, i);
		if (IS_ERR(t))
			continue;
		get_task_struct(t);
		threads[n++] = t;
	}
	return n;
}

/* Let the @n threads run for @seconds, then stop them all. */
static void kps_run_threads(struct task_struct **threads, int n,
			    unsigned int seconds)
{
	int i;

	msleep_interruptible(seconds * 1000);
	WRITE_ONCE(kps_stop, true);
	for (i = 0; i < n; i++) {
		kthread_stop(threads[i]);
		put_task_struct(threads[i]);
	}
}

static int kps_run(unsigned int seconds)
{
	struct task_struct *threads[KPS_MAX_THREADS];
	int n, ncallers = kps_nr_callers(), ret;

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
	n = kps_spawn(threads, 0, ncallers, kps_caller, NULL, "kps-call");
	n = kps_spawn(threads, n, 2, kps_churner, NULL, "kps-churn");
	kps_run_threads(threads, n, seconds);

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

/* A parameter written with a number of seconds runs @run for that long. */
static int kps_for_seconds(const char *val, int (*run)(unsigned int))
{
	unsigned int seconds;
	int ret = kstrtouint(val, 0, &seconds);

	return ret ? ret : run(seconds);
}

static int kps_set_run(const char *val, const struct kernel_param *kp)
{
	return kps_for_seconds(val, kps_run);
}

static const struct kernel_param_ops kps_run_ops = {
	.set = kps_set_run,
};
module_param_cb(run, &kps_run_ops, NULL, 0200);
MODULE_PARM_DESC(run, "write N: race for N seconds, then fill in the figures");

/*
 * Faults.  Caller threads (one per CPU, each borrowing the user address
 * space of the task that wrote "faults", so that user accesses are real)
 * call:
 *
 * - kps_target_f(), whose probes (an entry kprobe, a body kprobe with a
 *   post_handler, a kretprobe with an entry_handler) all read a bad user
 *   address and a bad kernel address (a vmalloc guard page) with the
 *   nofault accessors, as tracers do, and good ones beside them: each bad
 *   read must give -EFAULT, each good one the value, and every call must
 *   reach every handler.  The guest adds a kprobe event on the same
 *   function whose fetch args read the same bad addresses as strings.
 *
 * - kps_fault_kernel() and kps_fault_user(), each with one load that has
 *   an exception-table entry, called with a bad and a good pointer.  A
 *   kprobe sits exactly on each such load, and another on the instruction
 *   before the kernel one.  The load runs out of line from the probe and
 *   faults there: the fixup of the probed code must still run (the caller
 *   sees -EFAULT), the pre_handler must have run, and a post_handler (with
 *   fault_post=1) must run only for the loads that did not fault.
 */
#define KPS_BAD_UPTR	((const u8 __user *)0x10)
#define KPS_GOOD_WORD	0x5a17L
#define KPS_MAX_SITES	4

static bool fault_post;
module_param(fault_post, bool, 0644);
MODULE_PARM_DESC(fault_post, "1: the probes on faulting loads have a post_handler too");

static unsigned long fault_calls, fault_hits_entry, fault_hits_body;
static unsigned long fault_hits_post, fault_hits_ret_entry, fault_hits_ret;
static unsigned long fault_missed, fault_reads, fault_wrong;
static unsigned long ext_calls, ext_sites, ext_hits_pre, ext_hits_post;
static unsigned long ext_before, fault_failures;
module_param(fault_calls, ulong, 0444);
module_param(fault_hits_entry, ulong, 0444);
module_param(fault_hits_body, ulong, 0444);
module_param(fault_hits_post, ulong, 0444);
module_param(fault_hits_ret_entry, ulong, 0444);
module_param(fault_hits_ret, ulong, 0444);
module_param(fault_missed, ulong, 0444);
module_param(fault_reads, ulong, 0444);
module_param(fault_wrong, ulong, 0444);
module_param(ext_calls, ulong, 0444);
module_param(ext_sites, ulong, 0444);
module_param(ext_hits_pre, ulong, 0444);
module_param(ext_hits_post, ulong, 0444);
module_param(ext_before, ulong, 0444);
module_param(fault_failures, ulong, 0444);

static const long kps_good_word = KPS_GOOD_WORD;
static const void *kps_bad_kptr;
static const u8 __user *kps_good_uptr;
static u8 kps_good_uval;
static atomic64_t kps_fcalls, kps_xcalls, kps_freads, kps_fwrong;
static atomic64_t kps_f_entry, kps_f_body, kps_f_post, kps_f_rentry, kps_f_ret;

static __attribute__((__noipa__)) int kps_target_f(const u8 __user *ubad,
						   const void *kbad, int x)
{
	kps_sink += x;
	return kps_sink - 1;
}

/* The load of __get_kernel_nofault() has an exception-table entry. */
static __attribute__((__noipa__)) long kps_fault_kernel(const long *p)
{
	long v;

	__get_kernel_nofault(&v, p, long, efault);
	return v;
efault:
	return -EFAULT;
}

/* ... and so has the user load of unsafe_get_user(). */
#ifdef CONFIG_ARM
/*
 * Not on arm with CONFIG_CPU_SPECTRE, whose __get_user() is get_user(), a
 * call of __get_user_1: the load the probes must sit on would be the
 * kernel's, shared with every other user.  The module makes its own, with
 * the fixup arm's accessors use.
 */
static __attribute__((__noipa__)) long kps_fault_user(const u8 __user *p)
{
	unsigned long v;
	unsigned int flags;
	int err = 0;

	if (!access_ok(p, sizeof(*p)))
		return -EFAULT;
	flags = uaccess_save_and_enable();
	__get_user_asm_byte(v, (unsigned long)p, err, TUSER());
	uaccess_restore(flags);
	return err ?: (u8)v;
}
#else
static __attribute__((__noipa__)) long kps_fault_user(const u8 __user *p)
{
	u8 v;

	if (!user_access_begin(p, sizeof(v)))
		return -EFAULT;
	unsafe_get_user(v, p, efault);
	user_access_end();
	return v;
efault:
	user_access_end();
	return -EFAULT;
}
#endif

/* What a tracer's handler does: nofault reads, bad ones among them. */
static void kps_poke(void)
{
	long wrong = 0, v;
	u8 c;

	wrong += copy_from_user_nofault(&v, KPS_BAD_UPTR, sizeof(v)) != -EFAULT;
	wrong += copy_from_kernel_nofault(&v, kps_bad_kptr, sizeof(v)) != -EFAULT;
	wrong += get_kernel_nofault(c, (const u8 *)kps_bad_kptr + 5) != -EFAULT;
	wrong += copy_from_user_nofault(&c, kps_good_uptr, 1) ||
		 c != kps_good_uval;
	wrong += get_kernel_nofault(v, &kps_good_word) || v != KPS_GOOD_WORD;
	atomic64_add(5, &kps_freads);
	if (wrong)
		atomic64_add(wrong, &kps_fwrong);
}

static int kps_f_entry_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&kps_f_entry);
	kps_poke();
	return 0;
}

static int kps_f_body_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&kps_f_body);
	kps_poke();
	return 0;
}

static void kps_f_body_post(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
	atomic64_inc(&kps_f_post);
	kps_poke();
}

static int kps_f_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&kps_f_rentry);
	kps_poke();
	return 0;
}

static int kps_f_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&kps_f_ret);
	kps_poke();
	return 0;
}

static struct kprobe kps_f_entry_kp = {
	.symbol_name = "kps_target_f",
	.pre_handler = kps_f_entry_pre,
};

static struct kprobe kps_f_body_kp = {
	.symbol_name = "kps_target_f",
	.pre_handler = kps_f_body_pre,
	.post_handler = kps_f_body_post,
};

static struct kretprobe kps_f_rp = {
	.kp.symbol_name = "kps_target_f",
	.entry_handler = kps_f_ret_entry,
	.handler = kps_f_ret_handler,
};

/* A probe on a load with an exception-table entry, or just before one. */
struct kps_site {
	struct kprobe kp;
	atomic64_t pre, post;
};

static struct kps_site kps_sites[KPS_MAX_SITES];
static int kps_nsites;

static int kps_site_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&container_of(p, struct kps_site, kp)->pre);
	return 0;
}

static void kps_site_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	atomic64_inc(&container_of(p, struct kps_site, kp)->post);
}

static int kps_site_add(unsigned long addr)
{
	struct kps_site *s = &kps_sites[kps_nsites];
	int ret;

	if (kps_nsites == KPS_MAX_SITES)
		return -ENOSPC;
	memset(s, 0, sizeof(*s));
	s->kp.addr = (kprobe_opcode_t *)addr;
	s->kp.pre_handler = kps_site_pre;
	if (fault_post)
		s->kp.post_handler = kps_site_post;
	ret = register_kprobe(&s->kp);
	if (!ret)
		kps_nsites++;
	return ret;
}

/*
 * An exception-table entry's instruction: most arches keep its address
 * relative to the entry; arm (32-bit) keeps it whole.
 */
static unsigned long kps_extable_insn(const struct exception_table_entry *e)
{
#ifdef ARCH_HAS_RELATIVE_EXTABLE
	return (unsigned long)&e->insn + e->insn;
#else
	return e->insn;
#endif
}

/*
 * The loads of @fn that have an exception-table entry: this module's
 * table, entries whose instruction lies in @fn.
 */
static int kps_find_loads(const char *fn, unsigned long *out, int max)
{
	const struct exception_table_entry *e = THIS_MODULE->extable;
	char name[KSYM_SYMBOL_LEN];
	size_t len = strlen(fn);
	unsigned int i;
	int n = 0;

	for (i = 0; i < THIS_MODULE->num_exentries && n < max; i++) {
		unsigned long insn = kps_extable_insn(&e[i]);

		sprint_symbol_no_offset(name, insn);
		if (!strncmp(name, fn, len) && (!name[len] || name[len] == ' '))
			out[n++] = insn;
	}
	return n;
}

static void kps_sites_remove(void)
{
	while (kps_nsites)
		unregister_kprobe(&kps_sites[--kps_nsites].kp);
}

/* Probes on every such load of both functions, one before the first. */
static int kps_sites_add(void)
{
	unsigned long k[2], u[2], at;
	int nk = kps_find_loads("kps_fault_kernel", k, 2);
	int nu = kps_find_loads("kps_fault_user", u, 2);
	int i, ret;

	if (nk != 1 || nu != 1) {
		pr_err("kpstress: want one exception-table load in each function, found %d and %d\n",
		       nk, nu);
		return -ENOENT;
	}
	for (i = 0; i < nk; i++) {
		ret = kps_site_add(k[i]);
		if (ret) {
			pr_err("kpstress: no kprobe on the faulting load %pS: %d\n",
			       (void *)k[i], ret);
			goto fail;
		}
	}
	for (i = 0; i < nu; i++) {
		ret = kps_site_add(u[i]);
		if (ret) {
			pr_err("kpstress: no kprobe on the faulting load %pS: %d\n",
			       (void *)u[i], ret);
			goto fail;
		}
	}
	/*
	 * The nearest instruction before the kernel load that takes a probe:
	 * a jump-optimized probe there would copy the load into its detour.
	 */
	ext_before = 0;
	for (at = k[0] - 1; at >= (unsigned long)kps_fault_kernel &&
	     at + 16 > k[0]; at--) {
		if (!kps_site_add(at)) {
			ext_before = k[0] - at;
			break;
		}
	}
	return 0;
fail:
	kps_sites_remove();
	return ret;
}

static int kps_fault_caller(void *data)
{
	struct mm_struct *mm = data;
	long wrong = 0;
	int i = 0;

	kthread_use_mm(mm);
	while (!READ_ONCE(kps_stop)) {
		kps_target_f(KPS_BAD_UPTR, kps_bad_kptr, i);
		atomic64_inc(&kps_fcalls);
		wrong += kps_fault_kernel(kps_bad_kptr) != -EFAULT;
		wrong += kps_fault_kernel(&kps_good_word) != KPS_GOOD_WORD;
		wrong += kps_fault_user(KPS_BAD_UPTR) != -EFAULT;
		wrong += kps_fault_user(kps_good_uptr) != kps_good_uval;
		atomic64_inc(&kps_xcalls);
		kps_breathe(++i);
	}
	kthread_unuse_mm(mm);
	if (wrong)
		atomic64_add(wrong, &kps_fwrong);
	return 0;
}

static void kps_fcheck(const char *what, long seen, long want)
{
	if (seen == want)
		return;
	fault_failures++;
	pr_err("kpstress: %s: %ld, want %ld\n", what, seen, want);
}

static void kps_faults_reset(void)
{
	atomic64_set(&kps_fcalls, 0);
	atomic64_set(&kps_xcalls, 0);
	atomic64_set(&kps_freads, 0);
	atomic64_set(&kps_fwrong, 0);
	atomic64_set(&kps_f_entry, 0);
	atomic64_set(&kps_f_body, 0);
	atomic64_set(&kps_f_post, 0);
	atomic64_set(&kps_f_rentry, 0);
	atomic64_set(&kps_f_ret, 0);
	fault_failures = 0;
	kps_f_entry_kp.addr = NULL;
	kps_f_entry_kp.flags = 0;
	kps_f_rp.kp.addr = NULL;
	kps_f_rp.kp.flags = 0;
	kps_f_rp.nmissed = 0;
}

static void kps_faults_figures(unsigned int seconds)
{
	long x;
	int i;

	fault_calls = atomic64_read(&kps_fcalls);
	fault_hits_entry = atomic64_read(&kps_f_entry);
	fault_hits_body = atomic64_read(&kps_f_body);
	fault_hits_post = atomic64_read(&kps_f_post);
	fault_hits_ret_entry = atomic64_read(&kps_f_rentry);
	fault_hits_ret = atomic64_read(&kps_f_ret);
	fault_missed = kps_f_rp.nmissed;
	fault_reads = atomic64_read(&kps_freads);
	fault_wrong = atomic64_read(&kps_fwrong);
	ext_calls = x = atomic64_read(&kps_xcalls);
	ext_hits_pre = ext_hits_post = 0;
	for (i = 0; i < kps_nsites; i++) {
		ext_hits_pre += atomic64_read(&kps_sites[i].pre);
		ext_hits_post += atomic64_read(&kps_sites[i].post);
	}
	ext_sites = kps_nsites;

	/* The exact checks below hold trivially when nothing was called. */
	if (!fault_calls || !x || !kps_nsites) {
		fault_failures++;
		pr_err("kpstress: faults: %lu calls, %ld load rounds, %d probes on loads: a round must run each\n",
		       fault_calls, x, kps_nsites);
	}
	kps_fcheck("entry handler calls", fault_hits_entry, fault_calls);
	kps_fcheck("body pre_handler calls", fault_hits_body, fault_calls);
	kps_fcheck("body post_handler calls", fault_hits_post, fault_calls);
	kps_fcheck("kretprobe entry_handler calls", fault_hits_ret_entry, fault_calls);
	kps_fcheck("kretprobe handler calls + missed",
		   fault_hits_ret + fault_missed, fault_calls);
	kps_fcheck("kretprobe misses with room for all", fault_missed, 0);
	kps_fcheck("nofault reads by the handlers", fault_reads, 5 * 5 * fault_calls);
	kps_fcheck("wrong results (handlers' reads, callers' loads)", fault_wrong, 0);
	/* Each load is called twice per round, once with a bad pointer. */
	for (i = 0; i < kps_nsites; i++) {
		kps_fcheck("pre_handler calls on a faulting load",
			   atomic64_read(&kps_sites[i].pre), 2 * x);
		/* A load that faulted never completed: no post_handler. */
		if (fault_post)
			kps_fcheck("post_handler calls on a faulting load",
				   atomic64_read(&kps_sites[i].post),
				   i < 2 ? x : 2 * x);
	}
	pr_info("kpstress: faults %us: %lu calls (handlers %lu %lu %lu %lu %lu, missed %lu), %lu nofault reads, %lu wrong; %lu load rounds, %lu probes on loads (before: -%lu), pre %lu post %lu; %lu failures\n",
		seconds, fault_calls, fault_hits_entry, fault_hits_body,
		fault_hits_post, fault_hits_ret_entry, fault_hits_ret,
		fault_missed, fault_reads, fault_wrong, ext_calls, ext_sites,
		ext_before, ext_hits_pre, ext_hits_post, fault_failures);
}

static int kps_faults_run(unsigned int seconds)
{
	struct task_struct *threads[KPS_MAX_THREADS];
	int n, i, ncallers = kps_nr_callers(), ret;
	struct mm_struct *mm = get_task_mm(current);
	void *guarded;

	if (!mm)
		return -EINVAL;
	/* A byte of the writer's arguments: mapped and present. */
	kps_good_uptr = (const u8 __user *)mm->arg_start;
	ret = -EFAULT;
	if (get_user(kps_good_uval, kps_good_uptr))
		goto out_mm;
	/* The page after a vmalloc area is its unmapped guard. */
	ret = -ENOMEM;
	guarded = vmalloc(PAGE_SIZE);
	if (!guarded)
		goto out_mm;
	kps_bad_kptr = guarded + PAGE_SIZE;

	kps_faults_reset();
	ret = register_kprobe(&kps_f_entry_kp);
	if (ret)
		goto out_vfree;
	for (i = 1, ret = -ENOENT; i < 32 && ret; i++) {
		memset(&kps_f_body_kp, 0, sizeof(kps_f_body_kp));
		kps_f_body_kp.symbol_name = "kps_target_f";
		kps_f_body_kp.offset = i;
		kps_f_body_kp.pre_handler = kps_f_body_pre;
		kps_f_body_kp.post_handler = kps_f_body_post;
		ret = register_kprobe(&kps_f_body_kp);
	}
	if (ret)
		goto out_entry;
	kps_f_rp.maxactive = 2 * ncallers;
	ret = register_kretprobe(&kps_f_rp);
	if (ret)
		goto out_body;
	ret = kps_sites_add();
	if (ret)
		goto out_rp;

	WRITE_ONCE(kps_stop, false);
	n = kps_spawn(threads, 0, ncallers, kps_fault_caller, mm, "kps-fault");
	kps_run_threads(threads, n, seconds);
	kps_faults_figures(seconds);
	kps_sites_remove();
out_rp:
	unregister_kretprobe(&kps_f_rp);
out_body:
	unregister_kprobe(&kps_f_body_kp);
out_entry:
	unregister_kprobe(&kps_f_entry_kp);
out_vfree:
	vfree(guarded);
out_mm:
	mmput(mm);
	return ret;
}

static int kps_set_faults(const char *val, const struct kernel_param *kp)
{
	return kps_for_seconds(val, kps_faults_run);
}

static const struct kernel_param_ops kps_faults_ops = {
	.set = kps_set_faults,
};
module_param_cb(faults, &kps_faults_ops, NULL, 0200);
MODULE_PARM_DESC(faults, "write N: the fault race for N seconds, then fill in the figures");

/*
 * A pre_handler that may sleep, armed for one call: with
 * CONFIG_DEBUG_ATOMIC_SLEEP the kernel must report the sleeping call in
 * atomic context, and go on.  might_sleep() only checks; nothing sleeps.
 */
static bool atomic_sleep_check = IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP);
module_param(atomic_sleep_check, bool, 0444);
static unsigned long sleeper_hits;
module_param(sleeper_hits, ulong, 0444);

static int kps_sleepy_pre(struct kprobe *p, struct pt_regs *regs)
{
	sleeper_hits++;
	might_sleep();
	return 0;
}

static int kps_set_sleeper(const char *val, const struct kernel_param *kp)
{
	struct kprobe sleepy = {
		.symbol_name = "kps_target_c",
		.pre_handler = kps_sleepy_pre,
	};
	int ret;

	sleeper_hits = 0;
	ret = register_kprobe(&sleepy);
	if (ret)
		return ret;
	kps_target_c(1);
	unregister_kprobe(&sleepy);
	return 0;
}

static const struct kernel_param_ops kps_sleeper_ops = {
	.set = kps_set_sleeper,
};
module_param_cb(sleeper, &kps_sleeper_ops, NULL, 0200);
MODULE_PARM_DESC(sleeper, "write 1: one call through a pre_handler that may sleep");

/*
 * The batch sweep: kpsweep -m puts a kprobe (or kretprobe) on every
 * function of a batch with one register_kprobes() call, through
 * /sys/kernel/debug/kpstress_sweep:
 *
 *   "a ADDR ADDR ..."  adds addresses to the next batch (hex, any number
 *                      of writes, up to KPS_SWEEP_MAX in all);
 *   "p" or "r"         registers the batch as kprobes or kretprobes;
 *   "P"                the same as "p", with a post_handler too;
 *   "pe" or "Pe"       the same, registered disabled and then enabled
 *                      one at a time with enable_kprobe(), as kprobe
 *                      events arm theirs: a registration then runs none
 *                      of the batch's armed code (kpinsn, for functions
 *                      that registering a probe calls thousands of times);
 *   "c"                checks each address alone: registers it as a
 *                      disabled kprobe, which arms nothing, and keeps it;
 *                      then unregisters those taken in one call (for
 *                      kpinsn, which tries every byte of a function);
 *   "u"                unregisters and forgets it.
 *
 * Reading gives one line per address: "ADDR ERRNO HITS OPTIMIZED TEXT
 * ENTRIES EXTABLE MISSED FLAGS KMISSED SITE", ERRNO 0 for a probe that
 * registered, OPTIMIZED 1 for a kprobe that is jump-optimized now, TEXT
 * the four bytes there in hex (kpinsn compares the code it probed with
 * the base's), ENTRIES a kretprobe's entries (HITS counts its returns),
 * MISSED its nmissed and FLAGS its kprobe's flags in hex, KMISSED its
 * kprobe's nmissed and SITE, on arm64 for a probe that has not fired,
 * what its ftrace site would call (the last four for the report on a
 * probe that never fired).  A batch that register_*probes() refuses is
 * split in halves until each refused probe stands alone, so a refusal
 * names its own errno and the others still go in batches.
 */
#define KPS_SWEEP_MAX	4096

struct kps_sweep_probe {
	struct kprobe kp;
	struct kretprobe rp;
	unsigned long addr;
	atomic_long_t hits;
	atomic_long_t entries;	/* a kretprobe's entry handler's calls */
	int err;
};

static DEFINE_MUTEX(kps_sweep_lock);
static struct kps_sweep_probe *kps_sweep_probes;
static unsigned int kps_sweep_nr;
static char kps_sweep_kind;	/* 0 while nothing is registered */
static bool kps_sweep_enable_each;
/* How long register_*probes() calls took: each holds kprobe_mutex. */
static u64 kps_sweep_reg_ns, kps_sweep_reg_max_ns;
static unsigned int kps_sweep_reg_calls;
/*
 * The longest a register_kprobe() beside the batch took, in a thread of
 * its own: how long any other kprobe_mutex user, such as a module load's
 * notifier, may wait on a batch.
 */
static u64 kps_sweep_wait_max_ns;
static unsigned long kps_sweep_wait_tries;

static int kps_sweep_waiter(void *unused)
{
	struct kprobe kp = { .symbol_name = "kps_target_c" };
	u64 t0;

	while (!kthread_should_stop()) {
		t0 = ktime_get_ns();
		if (!register_kprobe(&kp)) {
			t0 = ktime_get_ns() - t0;
			unregister_kprobe(&kp);
			if (t0 > READ_ONCE(kps_sweep_wait_max_ns))
				WRITE_ONCE(kps_sweep_wait_max_ns, t0);
			WRITE_ONCE(kps_sweep_wait_tries,
				   kps_sweep_wait_tries + 1);
		}
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "kps_target_c";
		msleep(20);
	}
	return 0;
}

static struct task_struct *kps_sweep_waiter_start(void)
{
	struct task_struct *t;

	WRITE_ONCE(kps_sweep_wait_max_ns, 0);
	WRITE_ONCE(kps_sweep_wait_tries, 0);
	t = kthread_run(kps_sweep_waiter, NULL, "kps_sweep_waiter");
	if (IS_ERR(t))
		return NULL;
	get_task_struct(t);
	return t;
}

static void kps_sweep_waiter_stop(struct task_struct *t)
{
	if (!t)
		return;
	kthread_stop(t);
	put_task_struct(t);
}

static int kps_sweep_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&container_of(p, struct kps_sweep_probe, kp)->hits);
	return 0;
}

static void kps_sweep_post(struct kprobe *p, struct pt_regs *regs,
			   unsigned long flags)
{
}

static struct kps_sweep_probe *kps_sweep_of(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	return rp ? container_of(rp, struct kps_sweep_probe, rp) : NULL;
}

/* Counted apart: a function that does not return still enters. */
static int kps_sweep_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kps_sweep_probe *sp = kps_sweep_of(ri);

	if (sp)
		atomic_long_inc(&sp->entries);
	return 0;
}

static int kps_sweep_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kps_sweep_probe *sp = kps_sweep_of(ri);

	if (sp)
		atomic_long_inc(&sp->hits);
	return 0;
}

/* Register @n probes from @first, halving what is refused. */
static void kps_sweep_register(struct kps_sweep_probe *first, unsigned int n,
			       void **ptrs)
{
	unsigned int i;
	u64 t0;
	int ret;

	for (i = 0; i < n; i++) {
		struct kps_sweep_probe *sp = first + i;

		memset(&sp->kp, 0, sizeof(sp->kp));
		memset(&sp->rp, 0, sizeof(sp->rp));
		if (kps_sweep_kind != 'r') {
			sp->kp.addr = (kprobe_opcode_t *)sp->addr;
			sp->kp.pre_handler = kps_sweep_pre;
			if (kps_sweep_enable_each)
				sp->kp.flags = KPROBE_FLAG_DISABLED;
			if (kps_sweep_kind == 'P')
				sp->kp.post_handler = kps_sweep_post;
			ptrs[i] = &sp->kp;
		} else {
			sp->rp.kp.addr = (kprobe_opcode_t *)sp->addr;
			sp->rp.handler = kps_sweep_ret;
			sp->rp.entry_handler = kps_sweep_entry;
			ptrs[i] = &sp->rp;
		}
	}
	t0 = ktime_get_ns();
	ret = kps_sweep_kind != 'r' ?
	      register_kprobes((struct kprobe **)ptrs, n) :
	      register_kretprobes((struct kretprobe **)ptrs, n);
	t0 = ktime_get_ns() - t0;
	kps_sweep_reg_ns += t0;
	kps_sweep_reg_max_ns = max(kps_sweep_reg_max_ns, t0);
	kps_sweep_reg_calls++;
	if (!ret || n == 1) {
		for (i = 0; i < n; i++)
			first[i].err = ret;
		return;
	}
	kps_sweep_register(first, n / 2, ptrs);
	kps_sweep_register(first + n / 2, n - n / 2, ptrs);
}

/*
 * Arm the registered batch one probe at a time.  A probe that cannot be
 * enabled goes at once, with the errno, so that unregistering skips it.
 */
static void kps_sweep_enable(void)
{
	unsigned int i;
	u64 t0 = ktime_get_ns();
	int ret;

	for (i = 0; i < kps_sweep_nr; i++) {
		struct kps_sweep_probe *sp = &kps_sweep_probes[i];

		if (sp->err)
			continue;
		ret = enable_kprobe(&sp->kp);
		if (ret) {
			unregister_kprobe(&sp->kp);
			sp->err = ret;
		}
		cond_resched();
	}
	kps_sweep_reg_ns += ktime_get_ns() - t0;
}

static void kps_sweep_unregister(void)
{
	unsigned int i, n = 0;
	struct task_struct *waiter;
	u64 t0, reg_wait = kps_sweep_wait_max_ns;
	unsigned long reg_tries = kps_sweep_wait_tries;
	void **ptrs;

	ptrs = kvcalloc(kps_sweep_nr, sizeof(*ptrs), GFP_KERNEL);
	for (i = 0; i < kps_sweep_nr; i++) {
		struct kps_sweep_probe *sp = &kps_sweep_probes[i];

		if (sp->err)
			continue;
		if (!ptrs)	/* no memory for one call: one by one */
			kps_sweep_kind != 'r' ? unregister_kprobe(&sp->kp) :
						unregister_kretprobe(&sp->rp);
		else
			ptrs[n++] = kps_sweep_kind != 'r' ? (void *)&sp->kp :
							    (void *)&sp->rp;
	}
	waiter = kps_sweep_waiter_start();
	t0 = ktime_get_ns();
	if (n && kps_sweep_kind != 'r')
		unregister_kprobes((struct kprobe **)ptrs, n);
	else if (n)
		unregister_kretprobes((struct kretprobe **)ptrs, n);
	t0 = ktime_get_ns() - t0;
	kps_sweep_waiter_stop(waiter);
	kvfree(ptrs);
	pr_info("kpstress: sweep %s: %u of %u registered in %u calls, %llu ms (longest %llu ms; a register_kprobe() beside it: longest %llu ms of %lu); unregistered in %llu ms (beside it: longest %llu ms of %lu)\n",
		kps_sweep_kind != 'r' ? "kprobes" : "kretprobes", n,
		kps_sweep_nr, kps_sweep_reg_calls,
		div_u64(kps_sweep_reg_ns, NSEC_PER_MSEC),
		div_u64(kps_sweep_reg_max_ns, NSEC_PER_MSEC),
		div_u64(reg_wait, NSEC_PER_MSEC), reg_tries,
		div_u64(t0, NSEC_PER_MSEC),
		div_u64(kps_sweep_wait_max_ns, NSEC_PER_MSEC),
		kps_sweep_wait_tries);
	kps_sweep_kind = 0;
}

/*
 * Each address alone, as a disabled kprobe: what register_kprobe() takes
 * there, with no text patched, so that any byte may be tried, on any
 * kernel.  Those taken stay registered until the end, so that one
 * unregister_kprobes() call (one grace period) removes them all.
 */
static int kps_sweep_check(void)
{
	unsigned int i, n = 0;
	struct kprobe **ptrs;

	ptrs = kvcalloc(kps_sweep_nr, sizeof(*ptrs), GFP_KERNEL);
	if (!ptrs)
		return -ENOMEM;
	for (i = 0; i < kps_sweep_nr; i++) {
		struct kps_sweep_probe *sp = &kps_sweep_probes[i];

		memset(&sp->kp, 0, sizeof(sp->kp));
		sp->kp.addr = (kprobe_opcode_t *)sp->addr;
		sp->kp.pre_handler = kps_sweep_pre;
		sp->kp.flags = KPROBE_FLAG_DISABLED;
		sp->err = register_kprobe(&sp->kp);
		if (!sp->err)
			ptrs[n++] = &sp->kp;
		cond_resched();
	}
	if (n)
		unregister_kprobes(ptrs, n);
	kvfree(ptrs);
	return 0;
}

static int kps_sweep_add(char *buf)
{
	struct kps_sweep_probe *more;
	unsigned long addr;
	char *tok;

	while ((tok = strsep(&buf, " \n"))) {
		if (!*tok)
			continue;
		if (kstrtoul(tok, 16, &addr) || kps_sweep_nr >= KPS_SWEEP_MAX)
			return -EINVAL;
		if (!kps_sweep_probes) {
			more = kvcalloc(KPS_SWEEP_MAX, sizeof(*more), GFP_KERNEL);
			if (!more)
				return -ENOMEM;
			kps_sweep_probes = more;
		}
		kps_sweep_probes[kps_sweep_nr].addr = addr;
		atomic_long_set(&kps_sweep_probes[kps_sweep_nr].hits, 0);
		atomic_long_set(&kps_sweep_probes[kps_sweep_nr].entries, 0);
		kps_sweep_probes[kps_sweep_nr].err = -ENOENT;
		kps_sweep_nr++;
	}
	return 0;
}

static ssize_t kps_sweep_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct task_struct *waiter;
	char *buf;
	void **ptrs;
	int ret = 0;

	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&kps_sweep_lock);
	switch (buf[0]) {
	case 'a':
		ret = kps_sweep_kind ? -EBUSY : kps_sweep_add(buf + 1);
		break;
	case 'c':
		ret = kps_sweep_kind || !kps_sweep_nr ? -EBUSY : kps_sweep_check();
		break;
	case 'p':
	case 'P':
	case 'r':
		if (kps_sweep_kind || !kps_sweep_nr) {
			ret = -EBUSY;
			break;
		}
		ptrs = kvcalloc(kps_sweep_nr, sizeof(*ptrs), GFP_KERNEL);
		if (!ptrs) {
			ret = -ENOMEM;
			break;
		}
		kps_sweep_kind = buf[0];
		kps_sweep_enable_each = buf[0] != 'r' && buf[1] == 'e';
		kps_sweep_reg_ns = 0;
		kps_sweep_reg_max_ns = 0;
		kps_sweep_reg_calls = 0;
		waiter = kps_sweep_waiter_start();
		kps_sweep_register(kps_sweep_probes, kps_sweep_nr, ptrs);
		if (kps_sweep_enable_each)
			kps_sweep_enable();
		kps_sweep_waiter_stop(waiter);
		kvfree(ptrs);
		break;
	case 'u':
		if (kps_sweep_kind)
			kps_sweep_unregister();
		kps_sweep_nr = 0;
		break;
	default:
		ret = -EINVAL;
	}
	mutex_unlock(&kps_sweep_lock);
	kfree(buf);
	return ret ? ret : count;
}

/*
 * search_exception_tables(), which modules do not get: its address from
 * kallsyms_lookup_name(), which they do not get either, found by a
 * disabled kprobe on it.  The sweep's last column, so that kpinsn can tell
 * instructions with a fixup (arm64's base refuses them) from the rest.
 */
static const struct exception_table_entry *(*kps_search_extable)(unsigned long);

static void kps_find_extable(void)
{
	struct kprobe kp = {
		.symbol_name = "kallsyms_lookup_name",
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long (*lookup)(const char *name);

	if (register_kprobe(&kp))
		return;
	lookup = (void *)kp.addr;
	unregister_kprobe(&kp);
	kps_search_extable = (void *)lookup("search_exception_tables");
}

/*
 * For the report on a probe at a function's start that never fired: on
 * arm64 with ftrace call ops, the ops that the function's ftrace site
 * calls when enabled, from the pointer in the 8 bytes before the
 * function's patchable entry, and the site's instruction, a BL while it
 * is enabled ("-" elsewhere).
 */
static const char *kps_site_ops(unsigned long addr, char *buf, size_t size)
{
#if defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS)
	unsigned long pc = addr + AARCH64_INSN_SIZE, ops;
	u32 site;

	/*
	 * The site is the second instruction (no BTI first); ftrace keeps
	 * its ops pointer 8-aligned, 12 or 16 bytes before it, as
	 * arch/arm64/kernel/ftrace.c computes it.
	 */
	if (copy_from_kernel_nofault(&ops, (void *)ALIGN_DOWN(pc - 12, 8),
				     sizeof(ops)) ||
	    copy_from_kernel_nofault(&site, (void *)pc, sizeof(site)))
		return "-";
	/* aarch64_get_branch_offset() is not exported: imm26, in words. */
	if (aarch64_insn_is_bl(site))	/* enabled: name its target */
		snprintf(buf, size, "%ps/bl:%ps", (void *)ops,
			 (void *)(pc + sign_extend64((site & GENMASK(25, 0)) << 2, 27)));
	else
		snprintf(buf, size, "%ps/%08x", (void *)ops, site);
	strreplace(buf, ' ', '_');
	return buf;
#else
	return "-";
#endif
}

static int kps_sweep_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	mutex_lock(&kps_sweep_lock);
	for (i = 0; i < kps_sweep_nr; i++) {
		struct kps_sweep_probe *sp = &kps_sweep_probes[i];
		u8 text[4] = {};
		char ops[KSYM_SYMBOL_LEN];

		/* What is there (with no probe armed: the check's disabled ones). */
		copy_from_kernel_nofault(text, (void *)sp->addr, sizeof(text));
		struct kprobe *kp = kps_sweep_kind == 'r' ? &sp->rp.kp : &sp->kp;

		seq_printf(m, "%lx %d %lu %d %4phN %lu %d %lu %x %lu %s\n", sp->addr,
			   -sp->err, atomic_long_read(&sp->hits),
			   kps_sweep_kind && kps_sweep_kind != 'r' &&
			   (sp->kp.flags & KPROBE_FLAG_OPTIMIZED) ? 1 : 0, text,
			   atomic_long_read(&sp->entries),
			   !kps_search_extable ? -1 :
			   kps_search_extable(sp->addr) ? 1 : 0,
			   kps_sweep_kind == 'r' ? (unsigned long)sp->rp.nmissed :
			   kp->nmissed, kp->flags, kp->nmissed,
			   atomic_long_read(&sp->hits) || atomic_long_read(&sp->entries) ?
			   "-" : kps_site_ops(sp->addr, ops, sizeof(ops)));
	}
	mutex_unlock(&kps_sweep_lock);
	return 0;
}

static int kps_sweep_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kps_sweep_show, NULL,
				KPS_SWEEP_MAX * 160);
}

static const struct file_operations kps_sweep_fops = {
	.owner = THIS_MODULE,
	.open = kps_sweep_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = kps_sweep_write,
};

static struct dentry *kps_sweep_file;

static int __init kps_init(void)
{
	kps_find_extable();
	kps_sweep_file = debugfs_create_file("kpstress_sweep", 0600, NULL,
					     NULL, &kps_sweep_fops);
	return 0;
}

static void __exit kps_exit(void)
{
	debugfs_remove(kps_sweep_file);
	if (kps_sweep_kind)
		kps_sweep_unregister();
	kvfree(kps_sweep_probes);
}

module_init(kps_init);
module_exit(kps_exit);
MODULE_DESCRIPTION("kprobes registration and hit races, for the harness");
MODULE_LICENSE("GPL");

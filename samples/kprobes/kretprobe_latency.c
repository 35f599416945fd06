// SPDX-License-Identifier: GPL-2.0-only
/*
 * How long a kernel function takes, as a histogram with power-of-two
 * buckets: a kretprobe whose entry handler stores a timestamp in the
 * instance's private data and whose return handler files the elapsed time.
 *
 *	modprobe kretprobe_latency func=vfs_read pid=1234
 *	cat /sys/kernel/debug/kretprobe_latency/histogram
 *	rmmod kretprobe_latency
 *
 * kernel_clone() is timed when no function is named; pid, when not 0, keeps
 * only the calls made by that process (its thread group).  The histogram can
 * be read from debugfs at any time and is written to the kernel log when the
 * module is removed:
 *
 *	kernel_clone: 5 calls, 0 missed
 *	16384 .. 32767 ns: 1 |@@@@@@@@@@
 *	32768 .. 65535 ns: 4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
 *
 * "calls" counts the returns timed, so the buckets add up to it once no call
 * is in progress; "missed" counts calls that found no free instance.  With
 * maxactive left to the core, the instances grow with the calls in flight
 * where kretprobes use kprobes' own trampoline (x86, arm64), so misses are
 * rare there; elsewhere, set maxactive above the calls that may sleep in
 * the function at once.  The clock is ktime_get_mono_fast_ns(), which may be read
 * from any context, NMI included, as probe handlers may need.
 *
 * Documentation/trace/kprobes.rst describes entry_handler and data_size.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>

static char func_name[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func_name, sizeof(func_name), 0444);
MODULE_PARM_DESC(func, "Function whose latency is measured, kernel_clone by default");

static int pid;
module_param(pid, int, 0444);
MODULE_PARM_DESC(pid, "Only time the calls of this process (thread group id); 0 times every call");

/*
 * Bucket 0 holds calls that took 0 ns, bucket n (1..64) those that took
 * from 2^(n-1) to 2^n - 1 ns: n is fls64() of the duration.
 */
#define NR_BUCKETS	65
#define BAR_WIDTH	40

static atomic_long_t buckets[NR_BUCKETS];
static atomic_long_t calls;

/* The private data of one call, ri->data */
struct call_start {
	u64 ns;
};

static int latency_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_start *start = (struct call_start *)ri->data;

	/* A non-zero return drops this call: its return is not seen. */
	if (pid && task_tgid_nr(current) != pid)
		return 1;

	start->ns = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(latency_entry);

static int latency_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_start *start = (struct call_start *)ri->data;
	u64 took = ktime_get_mono_fast_ns() - start->ns;

	atomic_long_inc(&buckets[fls64(took)]);
	atomic_long_inc(&calls);
	return 0;
}
NOKPROBE_SYMBOL(latency_return);

static struct kretprobe latency_probe = {
	.entry_handler	= latency_entry,
	.handler	= latency_return,
	.data_size	= sizeof(struct call_start),
	/* 0: the core sizes the pool from the CPUs, and grows it if it can */
	.maxactive	= 0,
};

/* A bar of BAR_WIDTH marks, of which a bucket's line prints a share */
static const char bar[BAR_WIDTH + 1] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

/* One line of the histogram: to debugfs when m is given, else to the log */
static __printf(2, 3) void emit(struct seq_file *m, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	if (m) {
		seq_vprintf(m, fmt, args);
		seq_putc(m, '\n');
	} else {
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_info("%pV\n", &vaf);
	}
	va_end(args);
}

/*
 * The header, then one line per bucket from the first non-empty one to the
 * last: its range, its count and a bar scaled to the fullest bucket.
 */
static void walk_histogram(struct seq_file *m)
{
	long counts[NR_BUCKETS], most = 0;
	int n, first = -1, last = -1;

	for (n = 0; n < NR_BUCKETS; n++) {
		counts[n] = atomic_long_read(&buckets[n]);
		if (!counts[n])
			continue;
		if (first < 0)
			first = n;
		last = n;
		most = max(most, counts[n]);
	}

	emit(m, "%s: %ld calls, %d missed", func_name,
	     atomic_long_read(&calls), latency_probe.nmissed);
	for (n = first; first >= 0 && n <= last; n++) {
		u64 low = n ? 1ULL << (n - 1) : 0;
		u64 high = n ? low * 2 - 1 : 0;

		emit(m, "%llu .. %llu ns: %ld |%.*s", low, high, counts[n],
		     (int)(counts[n] * BAR_WIDTH / most), bar);
	}
}

static int histogram_show(struct seq_file *m, void *unused)
{
	walk_histogram(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(histogram);

static struct dentry *debugfs_dir;

static int __init latency_init(void)
{
	int err;

	latency_probe.kp.symbol_name = func_name;
	err = register_kretprobe(&latency_probe);
	if (err) {
		pr_err("register_kretprobe on %s failed, returned %d\n", func_name, err);
		return err;
	}
	/* Without debugfs these do nothing; the log still gets the histogram. */
	debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("histogram", 0444, debugfs_dir, NULL, &histogram_fops);
	pr_info("timing %s at %p\n", func_name, latency_probe.kp.addr);
	return 0;
}

static void __exit latency_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	/*
	 * Once this returns no handler runs any more: calls still in progress
	 * return without being timed, and the counts are final.
	 */
	unregister_kretprobe(&latency_probe);
	walk_histogram(NULL);
}

module_init(latency_init);
module_exit(latency_exit);
MODULE_DESCRIPTION("Sample: a kretprobe measuring a function's latency into a log2 histogram");
MODULE_LICENSE("GPL");

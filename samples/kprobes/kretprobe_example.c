// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kretprobe that logs what a function returned and how long it ran.
 *
 *	modprobe kretprobe_example func=<function>
 *
 * kernel_clone() is watched when no function is named.  The entry handler
 * stamps each call in the instance's private data (data_size bytes that
 * the core hands to both handlers of the same call); the return handler
 * reads the stamp back.  Calls made by kernel threads are not timed.
 *
 * Documentation/trace/kprobes.rst explains kretprobes and their limits.
 */

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

static char func_name[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func_name, sizeof(func_name), 0644);
MODULE_PARM_DESC(func, "Function to kretprobe; this module will report the function's execution time");

/* What the entry handler leaves for the return handler of the same call */
struct call_stamp {
	u64 entered;
};

static int stamp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;

	/* Non-zero: this call is not followed, its return is not reported. */
	if (!current->mm)
		return 1;

	/* The NMI-safe clock: the handler may interrupt timekeeping itself. */
	stamp->entered = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(stamp_entry);

/*
 * Where the clock is coarse, short functions may be reported as taking 0 ns
 * every time.
 */
static int report_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;
	s64 ns = ktime_get_mono_fast_ns() - stamp->entered;

	pr_info("%s returned %lu and took %lld ns to execute\n", func_name,
		(unsigned long)regs_return_value(regs), (long long)ns);
	return 0;
}
NOKPROBE_SYMBOL(report_return);

static struct kretprobe rp = {
	.entry_handler	= stamp_entry,
	.handler	= report_return,
	.data_size	= sizeof(struct call_stamp),
	/* Up to 20 calls followed at once; more are counted in nmissed. */
	.maxactive	= 20,
};

static int __init kretprobe_example_init(void)
{
	int err;

	rp.kp.symbol_name = func_name;
	err = register_kretprobe(&rp);
	if (err) {
		pr_err("register_kretprobe failed, returned %d\n", err);
		return err;
	}
	pr_info("Planted return probe at %s: %p\n", rp.kp.symbol_name, rp.kp.addr);
	return 0;
}

static void __exit kretprobe_example_exit(void)
{
	unregister_kretprobe(&rp);
	pr_info("kretprobe at %p unregistered\n", rp.kp.addr);
	/* Calls that found all 20 instances in use: raise maxactive. */
	pr_info("Missed probing %d instances of %s\n", rp.nmissed, rp.kp.symbol_name);
}

module_init(kretprobe_example_init);
module_exit(kretprobe_example_exit);
MODULE_DESCRIPTION("Sample: a kretprobe that reports a function's return value and run time");
MODULE_LICENSE("GPL");

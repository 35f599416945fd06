// SPDX-License-Identifier: GPL-2.0
/*
 * Functions for the kprobes selftest to put probes on.  Writing a number
 * to the "trigger" parameter calls kst_target_func() with it; "calls"
 * counts the calls.  The module also shows where its init function was
 * (it is freed once loading ends) and where a data object lives, so that
 * the selftest can offer those addresses to register_kprobe().
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/init.h>

static unsigned long calls;
module_param(calls, ulong, 0444);
MODULE_PARM_DESC(calls, "calls of kst_target_func() so far");

static unsigned long init_addr;
module_param(init_addr, ulong, 0444);
MODULE_PARM_DESC(init_addr, "address the init function had while loading");

static unsigned long data_addr;
module_param(data_addr, ulong, 0444);
MODULE_PARM_DESC(data_addr, "address of a data object of this module");

static int kst_target_data = 42;

/* Out of line and with a body, so probes have something to land on. */
static noinline int kst_target_func(int arg)
{
	calls++;
	barrier();
	return arg * 2 + 1;
}

static int kst_target_set_trigger(const char *val, const struct kernel_param *kp)
{
	int arg, ret;

	ret = kstrtoint(val, 0, &arg);
	if (ret)
		return ret;
	kst_target_func(arg);
	return 0;
}

static const struct kernel_param_ops kst_target_trigger_ops = {
	.set = kst_target_set_trigger,
};
module_param_cb(trigger, &kst_target_trigger_ops, NULL, 0200);
MODULE_PARM_DESC(trigger, "write N to call kst_target_func(N)");

static noinline int __init kst_target_init(void)
{
	init_addr = (unsigned long)kst_target_init;
	data_addr = (unsigned long)&kst_target_data;
	return kst_target_func(0) == 1 ? 0 : -EINVAL;
}

static void __exit kst_target_exit(void)
{
}

module_init(kst_target_init);
module_exit(kst_target_exit);
MODULE_DESCRIPTION("Probe targets for the kprobes selftest");
MODULE_LICENSE("GPL");

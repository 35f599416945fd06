// SPDX-License-Identifier: GPL-2.0
/*
 * kptarget - a module for the guest's suites to probe (the tools, the
 * users suite, the stress workload, which loads and unloads it in a loop).
 *
 * Writing N to /sys/module/kptarget/parameters/trigger calls kptarget_func()
 * and kptarget_ret() N times each, so a probe on either sees exactly N hits.
 *
 * kptarget_may_fail() returns 0 and is marked injectable, for fail_function
 * (the users suite): writing anything to .../parameters/may_fail calls it
 * once, the write returns what it returned, and may_fail_ret keeps it.
 */
#include <linux/error-injection.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

/*
 * Never inlined or cloned, so the symbols are what the suite names.  The
 * body is straight-line arithmetic: any instruction past the entry can take
 * a probe, and a jump-optimized one when the kernel has optimization.
 */
static __used noinline __noipa int kptarget_func(int x)
{
	int v = x * 7 + 3;

	v ^= v >> 3;
	v += x << 2;
	v ^= 0x5a5a;
	v -= v >> 5;
	return v;
}

static __used noinline __noipa int kptarget_ret(int x)
{
	return x * 2 + 1;
}

/* Not a constant to the caller: fail_function overrides its return. */
static __used noinline __noipa int kptarget_may_fail(int x)
{
	return x;
}
ALLOW_ERROR_INJECTION(kptarget_may_fail, ERRNO);

static unsigned int kptarget_calls;
module_param_named(calls, kptarget_calls, uint, 0444);
MODULE_PARM_DESC(calls, "how many calls the trigger has made");

/* Keeps the results alive so the calls cannot be dropped. */
static int kptarget_sink;

static int trigger_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > 10000)
		return -ERANGE;
	for (i = 0; i < n; i++) {
		kptarget_sink += kptarget_func(i);
		kptarget_sink += kptarget_ret(i);
	}
	kptarget_calls += n;
	return 0;
}

static const struct kernel_param_ops trigger_ops = {
	.set = trigger_set,
};
module_param_cb(trigger, &trigger_ops, NULL, 0200);
MODULE_PARM_DESC(trigger, "write N: call kptarget_func() and kptarget_ret() N times");

static int kptarget_may_fail_ret;
module_param_named(may_fail_ret, kptarget_may_fail_ret, int, 0444);
MODULE_PARM_DESC(may_fail_ret, "what the last call of kptarget_may_fail() returned");

static int may_fail_set(const char *val, const struct kernel_param *kp)
{
	kptarget_may_fail_ret = kptarget_may_fail(0);
	return kptarget_may_fail_ret;
}

static const struct kernel_param_ops may_fail_ops = {
	.set = may_fail_set,
};
module_param_cb(may_fail, &may_fail_ops, NULL, 0200);
MODULE_PARM_DESC(may_fail, "write anything: call kptarget_may_fail(), fail as it does");

MODULE_DESCRIPTION("Probe targets for the harness's module tests");
MODULE_LICENSE("GPL");

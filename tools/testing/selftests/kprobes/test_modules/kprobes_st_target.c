// SPDX-License-Identifier: GPL-2.0
/*
 * Functions for the kprobes selftest to put probes on.  Writing a number
 * to the "trigger" parameter calls kst_target_func() with it; "calls"
 * counts the calls.  The module also shows where its init function was
 * (it is freed once loading ends) and where a data object lives, so that
 * the selftest can offer those addresses to register_kprobe().  It also
 * has functions of nops for probes by the thousand.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/init.h>
#include <linux/stringify.h>

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

/*
 * KST_NR_MANY functions of nops, each its own symbol, for thousands of
 * probes on one module ("many" lists their addresses; writing anything to
 * "run_many" calls each once).  noipa keeps GCC from merging them.
 */
#define KST_NR_MANY	128
#define KST_MANY_NOPS	64

#define KST_MANY_FN(n)							\
static __attribute__((__noipa__)) void kst_many_##n(void)		\
{									\
	asm volatile(".rept " __stringify(KST_MANY_NOPS) "\n\tnop\n\t.endr"); \
}
#define KST_MANY_REF(n)	kst_many_##n,
#define KST_MANY4(m, n)	m(n##0) m(n##1) m(n##2) m(n##3)
#define KST_MANY16(m, n) KST_MANY4(m, n##0) KST_MANY4(m, n##1) \
			 KST_MANY4(m, n##2) KST_MANY4(m, n##3)
#define KST_MANY128(m)	KST_MANY16(m, 0) KST_MANY16(m, 1) KST_MANY16(m, 2) \
			KST_MANY16(m, 3) KST_MANY16(m, 4) KST_MANY16(m, 5) \
			KST_MANY16(m, 6) KST_MANY16(m, 7)

KST_MANY128(KST_MANY_FN)

static void (*const kst_many_fns[KST_NR_MANY])(void) = {
	KST_MANY128(KST_MANY_REF)
};

static unsigned long many[KST_NR_MANY];
static int nr_many;
module_param_array(many, ulong, &nr_many, 0444);
MODULE_PARM_DESC(many, "addresses of the kst_many_* functions");

static int kst_target_run_many(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < KST_NR_MANY; i++)
		kst_many_fns[i]();
	return 0;
}

static const struct kernel_param_ops kst_target_run_many_ops = {
	.set = kst_target_run_many,
};
module_param_cb(run_many, &kst_target_run_many_ops, NULL, 0200);
MODULE_PARM_DESC(run_many, "write anything to call every kst_many_* function once");

static noinline int __init kst_target_init(void)
{
	int i;

	for (i = 0; i < KST_NR_MANY; i++)
		many[i] = (unsigned long)kst_many_fns[i];
	nr_many = KST_NR_MANY;
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Functions for the kprobes selftest to put probes on.  Writing a number
 * to the "trigger" parameter calls kst_target_func() with it; "calls"
 * counts the calls.  The module also shows where its init function was
 * (it is freed once loading ends) and where a data object lives, so that
 * the selftest can offer those addresses to register_kprobe(), and how
 * far into a function its entry probe goes.  It also has functions of
 * nops for probes by the thousand.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/objtool.h>
#include <linux/init.h>
#include <linux/stringify.h>

#include "kprobes_st_entry.h"

static unsigned long calls;
module_param(calls, ulong, 0444);
MODULE_PARM_DESC(calls, "calls of kst_target_func() so far");

static unsigned long init_addr;
module_param(init_addr, ulong, 0444);
MODULE_PARM_DESC(init_addr, "address the init function had while loading");

static unsigned long data_addr;
module_param(data_addr, ulong, 0444);
MODULE_PARM_DESC(data_addr, "address of a data object of this module");

static unsigned int entry_off;
module_param(entry_off, uint, 0444);
MODULE_PARM_DESC(entry_off, "where a probe on a function's entry goes, as an offset");

static unsigned int init_entry_off;
module_param(init_entry_off, uint, 0444);
MODULE_PARM_DESC(init_entry_off, "the same for the init function, which may differ");

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
 * probes on one module ("many" lists where their nops begin; writing
 * anything to "run_many" calls each once).  noipa keeps GCC from merging
 * them.  Where the nops begin is an assembler-local label: the prologue
 * before them differs per arch, and on s390 its length is no multiple of
 * a nop's.  Its address is data, which objtool (with IBT) wants told that
 * no indirect branch goes there.
 */
#define KST_NR_MANY	32
#define KST_MANY_NOPS	160

#define KST_MANY_FN(n)							\
extern const char kst_many_nops_##n[] asm(".Lkst_many_nops_" #n);	\
static __attribute__((__noipa__)) void kst_many_##n(void)		\
{									\
	asm volatile(".Lkst_many_nops_" #n ":\n\t" ANNOTATE_NOENDBR	\
		     ".rept " __stringify(KST_MANY_NOPS) "\n\tnop\n\t.endr"); \
}

KST_MANY_FN(0)
KST_MANY_FN(1)
KST_MANY_FN(2)
KST_MANY_FN(3)
KST_MANY_FN(4)
KST_MANY_FN(5)
KST_MANY_FN(6)
KST_MANY_FN(7)
KST_MANY_FN(8)
KST_MANY_FN(9)
KST_MANY_FN(10)
KST_MANY_FN(11)
KST_MANY_FN(12)
KST_MANY_FN(13)
KST_MANY_FN(14)
KST_MANY_FN(15)
KST_MANY_FN(16)
KST_MANY_FN(17)
KST_MANY_FN(18)
KST_MANY_FN(19)
KST_MANY_FN(20)
KST_MANY_FN(21)
KST_MANY_FN(22)
KST_MANY_FN(23)
KST_MANY_FN(24)
KST_MANY_FN(25)
KST_MANY_FN(26)
KST_MANY_FN(27)
KST_MANY_FN(28)
KST_MANY_FN(29)
KST_MANY_FN(30)
KST_MANY_FN(31)

static void (*const kst_many_fns[KST_NR_MANY])(void) = {
	kst_many_0, kst_many_1, kst_many_2, kst_many_3, kst_many_4,
	kst_many_5, kst_many_6, kst_many_7, kst_many_8, kst_many_9,
	kst_many_10, kst_many_11, kst_many_12, kst_many_13, kst_many_14,
	kst_many_15, kst_many_16, kst_many_17, kst_many_18, kst_many_19,
	kst_many_20, kst_many_21, kst_many_22, kst_many_23, kst_many_24,
	kst_many_25, kst_many_26, kst_many_27, kst_many_28, kst_many_29,
	kst_many_30, kst_many_31,
};

static const char *const kst_many_nops[KST_NR_MANY] = {
	kst_many_nops_0, kst_many_nops_1, kst_many_nops_2, kst_many_nops_3,
	kst_many_nops_4, kst_many_nops_5, kst_many_nops_6, kst_many_nops_7,
	kst_many_nops_8, kst_many_nops_9, kst_many_nops_10, kst_many_nops_11,
	kst_many_nops_12, kst_many_nops_13, kst_many_nops_14, kst_many_nops_15,
	kst_many_nops_16, kst_many_nops_17, kst_many_nops_18, kst_many_nops_19,
	kst_many_nops_20, kst_many_nops_21, kst_many_nops_22, kst_many_nops_23,
	kst_many_nops_24, kst_many_nops_25, kst_many_nops_26, kst_many_nops_27,
	kst_many_nops_28, kst_many_nops_29, kst_many_nops_30, kst_many_nops_31,
};

static unsigned long many[KST_NR_MANY];
static int nr_many;
module_param_array(many, ulong, &nr_many, 0444);
MODULE_PARM_DESC(many, "where the nops of each kst_many_* function begin");

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
		many[i] = (unsigned long)kst_many_nops[i];
	nr_many = KST_NR_MANY;
	init_addr = (unsigned long)kst_target_init;
	entry_off = kst_entry_off(kst_target_func);
	init_entry_off = kst_entry_off(kst_target_init);
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

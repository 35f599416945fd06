// SPDX-License-Identifier: GPL-2.0
/*
 * Registers one kprobe or kretprobe from its parameters when it is loaded
 * and unregisters it when it is removed.  A registration that fails makes
 * the load fail with the same errno, which is how the selftest reads what
 * register_kprobe() and register_kretprobe() answered.
 *
 *   symbol=NAME offset=N | addr=0xADDR    where to probe
 *   kind=kprobe|kretprobe                 what to register
 *   maxactive=N data_size=N               kretprobe settings
 *   mode=once        register, keep it until the module is removed
 *   mode=twice       register the same probe a second time; load fails
 *                    with what the second call returned
 *   mode=never       unregister probes that were never registered; the
 *                    load succeeds if nothing else happened
 *   mode=batch       register_kprobes() of a good probe and this one; the
 *                    load fails with the batch's answer
 *   mode=many many=A1,A2,...  one register_kprobes() batch of per_func
 *                    probes in each run of nops given by its address (the
 *                    target's kst_many_*: probes on nops 16 and on),
 *                    kept until the module is removed
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *symbol;
module_param(symbol, charp, 0444);
static unsigned int offset;
module_param(offset, uint, 0444);
static unsigned long addr;
module_param(addr, ulong, 0444);
static char *kind = "kprobe";
module_param(kind, charp, 0444);
static int maxactive;
module_param(maxactive, int, 0444);
static unsigned long data_size;
module_param(data_size, ulong, 0444);
static char *mode = "once";
module_param(mode, charp, 0444);
static unsigned long many[128];
static int nr_many;
module_param_array(many, ulong, &nr_many, 0444);
static int per_func = 128;
module_param(per_func, int, 0444);
static unsigned long hits;
module_param(hits, ulong, 0444);
MODULE_PARM_DESC(hits, "times a handler of the registered probe ran");

static int kst_reg_pre(struct kprobe *p, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static int kst_reg_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static struct kprobe kst_reg_kp = { .pre_handler = kst_reg_pre };
static struct kretprobe kst_reg_rp = { .handler = kst_reg_ret };
/* The good half of mode=batch: a probe that always registers. */
static struct kprobe kst_reg_good = {
	.symbol_name = "kernel_clone",
	.pre_handler = kst_reg_pre,
};

static bool kst_reg_is_ret;
static bool kst_reg_held;
static struct kprobe *kst_reg_many_kps;
static struct kprobe **kst_reg_many_list;
static int kst_reg_many_nr;

/* The size of the "nop" the target's functions are made of. */
#if defined(CONFIG_X86)
#define KST_NOP_BYTES	1
#elif defined(CONFIG_RISCV_ISA_C)
#define KST_NOP_BYTES	2
#else
#define KST_NOP_BYTES	4
#endif

static void kst_reg_many_free(void)
{
	kvfree(kst_reg_many_list);
	kvfree(kst_reg_many_kps);
	kst_reg_many_list = NULL;
	kst_reg_many_kps = NULL;
}

/* per_func probes from nop 16 on: past what the compiler puts first */
static int kst_reg_many(void)
{
	int i, ret;

	if (nr_many <= 0 || per_func <= 0 || per_func > 128)
		return -EINVAL;
	kst_reg_many_nr = nr_many * per_func;
	kst_reg_many_kps = kvcalloc(kst_reg_many_nr, sizeof(*kst_reg_many_kps),
				    GFP_KERNEL);
	kst_reg_many_list = kvcalloc(kst_reg_many_nr,
				     sizeof(*kst_reg_many_list), GFP_KERNEL);
	if (!kst_reg_many_kps || !kst_reg_many_list) {
		kst_reg_many_free();
		return -ENOMEM;
	}
	for (i = 0; i < kst_reg_many_nr; i++) {
		struct kprobe *kp = &kst_reg_many_kps[i];

		kp->addr = (kprobe_opcode_t *)(many[i / per_func] +
				(16 + i % per_func) * KST_NOP_BYTES);
		kp->pre_handler = kst_reg_pre;
		kst_reg_many_list[i] = kp;
	}
	ret = register_kprobes(kst_reg_many_list, kst_reg_many_nr);
	pr_info("kprobes_st_reg: %d probes over %d functions: %d\n",
		kst_reg_many_nr, nr_many, ret);
	if (ret)
		kst_reg_many_free();
	return ret;
}

static void kst_reg_fill(struct kprobe *p)
{
	p->symbol_name = symbol;
	p->offset = offset;
	p->addr = (kprobe_opcode_t *)addr;
}

static int kst_reg_register(void)
{
	if (kst_reg_is_ret)
		return register_kretprobe(&kst_reg_rp);
	return register_kprobe(&kst_reg_kp);
}

static void kst_reg_unregister(void)
{
	if (kst_reg_is_ret)
		unregister_kretprobe(&kst_reg_rp);
	else
		unregister_kprobe(&kst_reg_kp);
}

static int kst_reg_batch(void)
{
	struct kprobe *batch[] = { &kst_reg_good, &kst_reg_kp };
	int ret;

	ret = register_kprobes(batch, ARRAY_SIZE(batch));
	if (!ret)
		unregister_kprobes(batch, ARRAY_SIZE(batch));
	return ret;
}

static int __init kst_reg_init(void)
{
	int ret;

	if (!strcmp(kind, "kretprobe")) {
		kst_reg_is_ret = true;
		kst_reg_fill(&kst_reg_rp.kp);
		kst_reg_rp.maxactive = maxactive;
		kst_reg_rp.data_size = data_size;
	} else if (!strcmp(kind, "kprobe")) {
		kst_reg_fill(&kst_reg_kp);
	} else {
		pr_err("kprobes_st_reg: kind=%s: use kprobe or kretprobe\n", kind);
		return -EINVAL;
	}

	if (!strcmp(mode, "never")) {
		/* Must be a quiet no-op: nothing was registered. */
		unregister_kprobe(&kst_reg_kp);
		unregister_kretprobe(&kst_reg_rp);
		return 0;
	}
	if (!strcmp(mode, "many"))
		return kst_reg_many();
	if (!strcmp(mode, "batch")) {
		ret = kst_reg_batch();
		pr_info("kprobes_st_reg: batch with %s+%u: %d\n",
			symbol ?: "(addr)", offset, ret);
		return ret;
	}

	ret = kst_reg_register();
	pr_info("kprobes_st_reg: %s at %s+%u addr %lx: %d\n", kind,
		symbol ?: "(addr)", offset, addr, ret);
	if (ret)
		return ret;

	if (!strcmp(mode, "twice")) {
		ret = kst_reg_register();
		pr_info("kprobes_st_reg: the same %s again: %d\n", kind, ret);
		kst_reg_unregister();
		return ret ?: -EEXIST;
	}
	if (strcmp(mode, "once")) {
		kst_reg_unregister();
		pr_err("kprobes_st_reg: mode=%s: use once, twice, never, batch or many\n",
		       mode);
		return -EINVAL;
	}
	kst_reg_held = true;
	return 0;
}

static void __exit kst_reg_exit(void)
{
	if (kst_reg_held)
		kst_reg_unregister();
	if (kst_reg_many_list) {
		unregister_kprobes(kst_reg_many_list, kst_reg_many_nr);
		kst_reg_many_free();
	}
}

module_init(kst_reg_init);
module_exit(kst_reg_exit);
MODULE_DESCRIPTION("Registers one probe from its parameters, for the kprobes selftest");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * kpwarn - a deliberate WARN from a kprobe handler, so that the harness can
 * prove that a splat fails a run whose tests all passed.  Only the
 * harness's own self-test loads it.
 */
#include <linux/kprobes.h>
#include <linux/module.h>

static int warn_once_pre(struct kprobe *p, struct pt_regs *regs)
{
	WARN_ONCE(1, "kpwarn: deliberate warning from a pre_handler\n");
	return 0;
}

static struct kprobe kpwarn_probe = {
	.symbol_name = "kernel_clone",
	.pre_handler = warn_once_pre,
};

static int __init kpwarn_init(void)
{
	return register_kprobe(&kpwarn_probe);
}

static void __exit kpwarn_exit(void)
{
	unregister_kprobe(&kpwarn_probe);
}

module_init(kpwarn_init);
module_exit(kpwarn_exit);
MODULE_DESCRIPTION("Harness self-test: a WARN in a probe handler");
MODULE_LICENSE("GPL");

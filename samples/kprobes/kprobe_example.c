// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kprobe with a pre- and a post-handler.
 *
 * By default the probe sits on the entry of kernel_clone(), so every fork
 * logs two lines: one before the probed instruction takes effect and one
 * after.  Another function can be named when loading:
 *
 *	modprobe kprobe_example symbol=do_sys_openat2
 *
 * Documentation/trace/kprobes.rst explains what the handlers may do.
 */

#define pr_fmt(fmt) "%s: " fmt, __func__

#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0644);
MODULE_PARM_DESC(symbol, "Function (or symbol) to probe, kernel_clone by default");

/*
 * Each architecture names its program counter and its status register
 * differently; the log uses the names its manuals use.
 */
#if defined(CONFIG_X86)
#define PC_NAME		"ip"
#define PC_FMT		"%lx"
#define STATUS_NAME	"flags"
#define STATUS(regs)	((regs)->flags)
#elif defined(CONFIG_PPC)
#define PC_NAME		"nip"
#define PC_FMT		"0x%lx"
#define STATUS_NAME	"msr"
#define STATUS(regs)	((regs)->msr)
#elif defined(CONFIG_MIPS)
#define PC_NAME		"epc"
#define PC_FMT		"0x%lx"
#define STATUS_NAME	"status"
#define STATUS(regs)	((regs)->cp0_status)
#elif defined(CONFIG_ARM64)
#define PC_NAME		"pc"
#define PC_FMT		"0x%lx"
#define STATUS_NAME	"pstate"
#define STATUS(regs)	((regs)->pstate)
#elif defined(CONFIG_ARM)
#define PC_NAME		"pc"
#define PC_FMT		"0x%lx"
#define STATUS_NAME	"cpsr"
#define STATUS(regs)	((regs)->ARM_cpsr)
#elif defined(CONFIG_RISCV)
#define PC_NAME		"pc"
#define PC_FMT		"0x%lx"
#define STATUS_NAME	"status"
#define STATUS(regs)	((regs)->status)
#elif defined(CONFIG_S390)
#define PC_NAME		"ip"
#define PC_FMT		"0x%lx"
#define STATUS_NAME	"flags"
#define STATUS(regs)	((regs)->flags)
#elif defined(CONFIG_LOONGARCH)
#define PC_NAME		"era"
#define PC_FMT		"0x%lx"
#define STATUS_NAME	"estat"
#define STATUS(regs)	((regs)->csr_estat)
#endif

/*
 * Runs before the probed instruction.  Returning 0 lets it run as usual;
 * a handler that changed the program counter would return 1 instead.  Put
 * dump_stack() here to see how the function was reached.
 */
static int handler_pre(struct kprobe *p, struct pt_regs *regs)
{
#ifdef STATUS_NAME
	pr_info("<%s> p->addr = 0x%p, " PC_NAME " = " PC_FMT ", " STATUS_NAME " = 0x%lx\n",
		p->symbol_name, p->addr, (unsigned long)instruction_pointer(regs),
		(unsigned long)STATUS(regs));
#else
	pr_info("<%s> p->addr = 0x%p, pc = 0x%lx\n", p->symbol_name, p->addr,
		(unsigned long)instruction_pointer(regs));
#endif
	return 0;
}
NOKPROBE_SYMBOL(handler_pre);

/* Runs once the probed instruction has taken effect. */
static void handler_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
#ifdef STATUS_NAME
	pr_info("<%s> p->addr = 0x%p, " STATUS_NAME " = 0x%lx\n",
		p->symbol_name, p->addr, (unsigned long)STATUS(regs));
#else
	pr_info("<%s> p->addr = 0x%p\n", p->symbol_name, p->addr);
#endif
}
NOKPROBE_SYMBOL(handler_post);

/* Named by symbol: registration looks the address up and stores it. */
static struct kprobe kp = {
	.symbol_name	= symbol,
	.pre_handler	= handler_pre,
	.post_handler	= handler_post,
};

static int __init kprobe_example_init(void)
{
	int err = register_kprobe(&kp);

	if (err) {
		pr_err("register_kprobe failed, returned %d\n", err);
		return err;
	}
	pr_info("Planted kprobe at %p\n", kp.addr);
	return 0;
}

static void __exit kprobe_example_exit(void)
{
	/* Returns once no CPU can be inside handler_pre or handler_post. */
	unregister_kprobe(&kp);
	pr_info("kprobe at %p unregistered\n", kp.addr);
}

module_init(kprobe_example_init);
module_exit(kprobe_example_exit);
MODULE_DESCRIPTION("Sample: a kprobe that logs every hit before and after the probed instruction");
MODULE_LICENSE("GPL");

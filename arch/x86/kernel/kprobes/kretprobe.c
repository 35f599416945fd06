// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kretprobes: at the entry of a probed function its return address is
 * swapped for __kretprobe_trampoline; the trampoline lets the kprobes core
 * run the return handlers and then returns to the real caller.
 */
#include <kunit/visibility.h>
#include <linux/kprobes.h>
#include <linux/objtool.h>
#include <linux/stringify.h>

#include <asm/asm.h>
#include <asm/linkage.h>
#include <asm/segment.h>
#include <asm/orc_types.h>
#include <asm/unwind_hints.h>

#include "common.h"

/*
 * __switch_to() is entered on the next task's stack while "current" is
 * still the previous task, so its return would be looked for in the wrong
 * task's kretprobe list.
 *
 * ret_from_fork() ends in a tail call of syscall_exit_to_user_mode(),
 * which has already told lockdep that interrupts are on: its return lands
 * in the entry code on the way to user space, with interrupts really off,
 * where no return handler (nor the lockdep-checked code it runs) may run.
 */
struct kretprobe_blackpoint kretprobe_blacklist[] = {
	{ .name = "__switch_to" },
	{ .name = "ret_from_fork" },
	{ }
};
EXPORT_SYMBOL_IF_KUNIT(kretprobe_blacklist);

const int kretprobe_blacklist_size = ARRAY_SIZE(kretprobe_blacklist);
EXPORT_SYMBOL_IF_KUNIT(kretprobe_blacklist_size);

/*
 * Called at function entry (int3 or ftrace site); either way regs->sp
 * addresses the return address.
 */
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	unsigned long *ret_slot = (unsigned long *)regs->sp;

	ri->ret_addr = (kprobe_opcode_t *)*ret_slot;
	ri->fp = ret_slot;
	*ret_slot = (unsigned long)&__kretprobe_trampoline;
}
NOKPROBE_SYMBOL(arch_prepare_kretprobe);

/*
 * The probed function's RET brings us here with the stack pointer one word
 * above "frame", the slot that held the return address (ri->fp):
 *
 *	frame + 1 word	the caller's stack, as after a plain return
 *	frame		__kretprobe_trampoline again, as a stand-in return
 *			address; the real one is stored here before the RET
 *	below frame	struct pt_regs, ss at the top and r15 (bx on
 *			32-bit) at the bottom, so that frame == regs + 1
 *
 * Unwind hints: on the first instruction the caller's frame starts at the
 * stack pointer and frame still holds __kretprobe_trampoline; once it is
 * pushed back the stack looks like the entry of a called function. An
 * unwinder that reads __kretprobe_trampoline from frame gets the real
 * address from kretprobe_find_ret_addr(). POPF restores the flags, and LEA
 * releases the stack without clobbering them.
 */
asm(".pushsection .text, \"ax\"\n"
	".globl __kretprobe_trampoline\n"
	".type __kretprobe_trampoline, @function\n"
	"__kretprobe_trampoline:\n"
	ANNOTATE_NOENDBR		/* only ever entered by RET */
	UNWIND_HINT(UNWIND_HINT_TYPE_CALL, ORC_REG_SP, 0, 0)
#ifdef CONFIG_X86_64
	"	pushq $__kretprobe_trampoline\n"
	UNWIND_HINT_FUNC
	"	leaq -2*8(%rsp), %rsp\n"	/* pt_regs::ss, pt_regs::sp */
	"	pushfq\n"
	SAVE_REGS_STRING
	"	movq %rsp, %rdi\n"
	"	call kretprobe_x86_return\n"
	RESTORE_REGS_STRING
	"	popfq\n"
	"	leaq 2*8(%rsp), %rsp\n"
#else
	"	pushl $__kretprobe_trampoline\n"
	UNWIND_HINT_FUNC
	"	leal -2*4(%esp), %esp\n"
	"	pushfl\n"
	SAVE_REGS_STRING
	"	movl %esp, %eax\n"
	"	call kretprobe_x86_return\n"
	RESTORE_REGS_STRING
	"	popfl\n"
	"	leal 2*4(%esp), %esp\n"
#endif
	ASM_RET
	".size __kretprobe_trampoline, .-__kretprobe_trampoline\n"
	".popsection\n"
);
NOKPROBE_SYMBOL(__kretprobe_trampoline);
/* It leaves the caller's frame pointer alone and builds no frame. */
STACK_FRAME_NON_STANDARD_FP(__kretprobe_trampoline);

/*
 * Complete the pt_regs the trampoline saved so that they describe the
 * moment just after the probed function returned, and run the return
 * handlers.  The core puts the real return address where the trampoline's
 * RET will take it, through arch_kretprobe_fixup_return().
 */
__visible void kretprobe_x86_return(struct pt_regs *regs)
{
	unsigned long *frame = (unsigned long *)(regs + 1);

	regs->sp = (unsigned long)(frame + 1);
	regs->ss = __KERNEL_DS;
	regs->cs = __KERNEL_CS;
	regs->orig_ax = -1;
	/* the core replaces it with the real return address */
	regs->ip = (unsigned long)&__kretprobe_trampoline;

	kretprobe_trampoline_handler(regs, frame);
}
NOKPROBE_SYMBOL(kretprobe_x86_return);

/*
 * Called by the core once the handlers have run and before it forgets the
 * frame's instances.  From then on the frame above the saved registers
 * holds the real return address, so an unwinder passing through the
 * trampoline finds the caller without the instances' help.
 */
void arch_kretprobe_fixup_return(struct pt_regs *regs,
				 kprobe_opcode_t *correct_ret_addr)
{
	unsigned long *frame = (unsigned long *)(regs + 1);

	*frame = (unsigned long)correct_ret_addr;
}
NOKPROBE_SYMBOL(arch_kretprobe_fixup_return);

/* No kprobe serves the trampoline: global disarming may skip none. */
int arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kretprobe return trampoline.
 *
 * arch_prepare_kretprobe() puts our address in x30 at a probed
 * function's entry, so the function's RET lands here, with its return
 * value in x0 (and x1) and the caller's x29 and sp restored.  We build a
 * pt_regs below sp, let arm64_kretprobe_return() run the return handlers,
 * and go on to the address it returns, with the registers the handlers
 * may have changed.  No exception is taken.
 *
 * The pt_regs carries a frame record naming the trampoline, chained to
 * the caller's x29, so stack walks from the handlers recover the real
 * return address through kretprobe_find_ret_addr().
 */

#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ptrace.h>

	.text

SYM_CODE_START(__kretprobe_trampoline)
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	stp	x8, x9, [sp, #S_X8]
	stp	x10, x11, [sp, #S_X10]
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
	stp	x18, x19, [sp, #S_X18]
	stp	x20, x21, [sp, #S_X20]
	stp	x22, x23, [sp, #S_X22]
	stp	x24, x25, [sp, #S_X24]
	stp	x26, x27, [sp, #S_X26]
	stp	x28, x29, [sp, #S_X28]

	/* x30 and sp as the function left them */
	add	x9, sp, #PT_REGS_SIZE
	stp	x30, x9, [sp, #S_LR]

	/* pc: here; PSTATE: EL1h with the live flags and DAIF bits */
	adr	x10, __kretprobe_trampoline
	mrs	x11, nzcv
	mrs	x12, daif
	orr	x11, x11, x12
	mov	x12, #PSR_MODE_EL1h
	orr	x11, x11, x12
	stp	x10, x11, [sp, #S_PC]

	stp	x29, x10, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x0, sp
	bl	arm64_kretprobe_return
	str	x0, [sp, #S_PC]

	/* the return handlers may have changed any of these */
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldp	x8, x9, [sp, #S_X8]
	ldp	x10, x11, [sp, #S_X10]
	ldp	x12, x13, [sp, #S_X12]
	ldp	x14, x15, [sp, #S_X14]
	ldp	x16, x17, [sp, #S_X16]
	ldp	x18, x19, [sp, #S_X18]
	ldp	x20, x21, [sp, #S_X20]
	ldp	x22, x23, [sp, #S_X22]
	ldp	x24, x25, [sp, #S_X24]
	ldp	x26, x27, [sp, #S_X26]
	ldp	x28, x29, [sp, #S_X28]
	/* x30 becomes the real return address, as after a plain RET */
	ldr	x30, [sp, #S_PC]
	ldp	x0, x1, [sp, #S_X0]
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(__kretprobe_trampoline)
NOKPROBE(__kretprobe_trampoline)

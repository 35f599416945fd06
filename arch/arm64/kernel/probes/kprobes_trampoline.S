/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kretprobe return trampoline.
 *
 * arch_prepare_kretprobe() puts our address in x30 at a probed
 * function's entry, so the function's RET lands here, with its return
 * value in x0 (and x1) and the caller's x29 and sp restored.  We build a
 * pt_regs below sp, let the core's __kretprobe_trampoline_handler() run
 * the return handlers, and go on to the address it returns, with the
 * registers the handlers may have changed.  No exception is taken.
 *
 * The pt_regs carries a frame record naming the trampoline, chained to
 * the caller's x29, so stack walks from the handlers recover the real
 * return address through kretprobe_find_ret_addr().
 */

#include <linux/linkage.h>
#include <asm/alternative.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/insn-def.h>
#include <asm/ptrace.h>

	.text

/*
 * \op (stp or ldp) the register pairs x2-x15 and x18-x29 at their pt_regs
 * slots from \base.  x0/x1 and x16/x17 are left to the callers, which
 * each treat them differently.
 */
	.macro	kp_x2_x15 op, base
	\op	x2, x3, [\base, #S_X2]
	\op	x4, x5, [\base, #S_X4]
	\op	x6, x7, [\base, #S_X6]
	\op	x8, x9, [\base, #S_X8]
	\op	x10, x11, [\base, #S_X10]
	\op	x12, x13, [\base, #S_X12]
	\op	x14, x15, [\base, #S_X14]
	.endm

	.macro	kp_x18_x29 op, base
	\op	x18, x19, [\base, #S_X18]
	\op	x20, x21, [\base, #S_X20]
	\op	x22, x23, [\base, #S_X22]
	\op	x24, x25, [\base, #S_X24]
	\op	x26, x27, [\base, #S_X26]
	\op	x28, x29, [\base, #S_X28]
	.endm

/* \dst: a pstate for EL1h with the live condition flags and DAIF bits */
	.macro	kp_el1h_pstate dst, tmp
	mrs	\dst, nzcv
	mrs	\tmp, daif
	orr	\dst, \dst, \tmp
	mov	\tmp, #PSR_MODE_EL1h
	orr	\dst, \dst, \tmp
	.endm

/*
 * What exception entry also gives a pt_regs at \base: not in a system
 * call, and where pseudo-NMIs mask interrupts in the GIC, its live
 * priority mask, which interrupts_enabled() reads with the DAIF bits.
 */
	.macro	kp_regs_rest base, xtmp, wtmp
	mov	\wtmp, #NO_SYSCALL
	str	\wtmp, [\base, #S_SYSCALLNO]
#ifdef CONFIG_ARM64_PSEUDO_NMI
alternative_if ARM64_HAS_GIC_PRIO_MASKING
	mrs_s	\xtmp, SYS_ICC_PMR_EL1
	str	\xtmp, [\base, #S_PMR_SAVE]
alternative_else_nop_endif
#endif
	.endm

SYM_CODE_START(__kretprobe_trampoline)
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	kp_x2_x15 stp, sp
	stp	x16, x17, [sp, #S_X16]
	kp_x18_x29 stp, sp

	/* x30 and sp as the function left them */
	add	x9, sp, #PT_REGS_SIZE
	stp	x30, x9, [sp, #S_LR]

	/* pc: here; PSTATE: EL1h with the live flags and DAIF bits */
	adr	x10, __kretprobe_trampoline
	kp_el1h_pstate x11, x12
	stp	x10, x11, [sp, #S_PC]
	kp_regs_rest sp, x12, w12

	/*
	 * The restored x29 is the frame pointer arch_prepare_kretprobe()
	 * recorded in the instance: the handler's second argument.
	 */
	mov	x1, x29
	stp	x29, x10, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x0, sp
	bl	__kretprobe_trampoline_handler
	str	x0, [sp, #S_PC]

	/* the return handlers may have changed any of these */
	kp_x2_x15 ldp, sp
	ldp	x16, x17, [sp, #S_X16]
	kp_x18_x29 ldp, sp
	/* x30 becomes the real return address, as after a plain RET */
	ldr	x30, [sp, #S_PC]
	ldp	x0, x1, [sp, #S_X0]
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(__kretprobe_trampoline)
NOKPROBE(__kretprobe_trampoline)

/*
 * arm64_kprobe_run_insn(regs, slot): run a register-only instruction
 * (arm64_insn_register_only()) from the BRK handler, every exception
 * masked.  The slot holds the instruction and RET.  x0-x29 and the
 * condition flags take the probed context's values from @regs, the slot
 * is called through x30 (which the instruction never names) and what the
 * instruction left in them goes back into @regs.  sp stays ours: the
 * instruction never names it.  x18 is saved and put back around it, in
 * case it is the shadow call stack pointer.
 */
#define KPR_REGS	96
#define KPR_X18		104
#define KPR_NZCV	0xf0000000

SYM_FUNC_START(arm64_kprobe_run_insn)
	stp	x29, x30, [sp, #-112]!
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	stp	x25, x26, [sp, #64]
	stp	x27, x28, [sp, #80]
	stp	x0, x18, [sp, #KPR_REGS]

	ldr	x2, [x0, #S_PSTATE]
	and	x2, x2, #KPR_NZCV
	msr	nzcv, x2
	mov	x30, x1
	kp_x2_x15 ldp, x0
	ldp	x16, x17, [x0, #S_X16]
	kp_x18_x29 ldp, x0
	ldp	x0, x1, [x0, #S_X0]
	blr	x30

	stp	x0, x1, [sp, #-16]!
	ldr	x0, [sp, #16 + KPR_REGS]
	kp_x2_x15 stp, x0
	stp	x16, x17, [x0, #S_X16]
	kp_x18_x29 stp, x0
	ldp	x2, x3, [sp], #16
	stp	x2, x3, [x0, #S_X0]
	mrs	x2, nzcv
	ldr	x3, [x0, #S_PSTATE]
	bic	x3, x3, #KPR_NZCV
	orr	x3, x3, x2
	str	x3, [x0, #S_PSTATE]

	ldr	x18, [sp, #KPR_X18]
	ldp	x19, x20, [sp, #16]
	ldp	x21, x22, [sp, #32]
	ldp	x23, x24, [sp, #48]
	ldp	x25, x26, [sp, #64]
	ldp	x27, x28, [sp, #80]
	ldp	x29, x30, [sp], #112
	ret
SYM_FUNC_END(arm64_kprobe_run_insn)
NOKPROBE(arm64_kprobe_run_insn)

#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
/*
 * arch_kprobe_ftrace_caller: where every probed ftrace site goes on to
 * (kernel/kprobes_ftrace.c).  ftrace_caller branches here with BR x17 once
 * its callbacks have run, in the state it promises a direct trampoline:
 * x30 is the instruction after the site, x9 the function's return address
 * (the MOV X9, X30 before the site), sp and every other register as at
 * the site, except the temporaries x10 to x17, which ftrace and its
 * callbacks may have used and no function reads at its entry.
 *
 * A pt_regs below sp takes every register, with x30 the function's return
 * address, pc the site and sp the site's.  Two frame records chain the
 * handlers' stack walks to the probed function and on to its caller.
 * Back from arm64_kprobe_ftrace_hit(), every register is reloaded from the
 * pt_regs (the handlers may have changed any), x30 included, and we go on
 * at regs->pc through x16, the one register not given back.  sp and
 * pstate are not reloaded.
 */
#define KPF_FRAME	(PT_REGS_SIZE + 16)
#define KPF_CALLER	PT_REGS_SIZE

SYM_CODE_START(arch_kprobe_ftrace_caller)
	bti	c
	sub	sp, sp, #KPF_FRAME
	stp	x0, x1, [sp, #S_X0]
	kp_x2_x15 stp, sp
	stp	x16, x17, [sp, #S_X16]
	kp_x18_x29 stp, sp

	/* x30 as the function has it, and the site's sp */
	add	x10, sp, #KPF_FRAME
	stp	x9, x10, [sp, #S_LR]

	/* pc: the site; pstate: EL1h with the live flags and DAIF bits */
	sub	x11, x30, #AARCH64_INSN_SIZE
	kp_el1h_pstate x12, x13
	stp	x11, x12, [sp, #S_PC]
	kp_regs_rest sp, x12, w12

	/*
	 * The caller's record {its fp, the return into it} above the
	 * pt_regs, the probed function's {that record, x30} in it.
	 */
	stp	x29, x9, [sp, #KPF_CALLER]
	add	x10, sp, #KPF_CALLER
	stp	x10, x30, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x0, sp
	bl	arm64_kprobe_ftrace_hit

	ldp	x0, x1, [sp, #S_X0]
	kp_x2_x15 ldp, sp
	ldr	x17, [sp, #S_X16 + 8]
	kp_x18_x29 ldp, sp
	ldr	x30, [sp, #S_LR]
	ldr	x16, [sp, #S_PC]
	add	sp, sp, #KPF_FRAME
	/* RET, not BR: the target need not be a BTI landing pad */
	ret	x16
SYM_CODE_END(arch_kprobe_ftrace_caller)
NOKPROBE(arch_kprobe_ftrace_caller)
#endif /* CONFIG_KPROBES_ON_FTRACE_DIRECT */

#ifdef CONFIG_OPTPROBES
/*
 * arm64_kprobe_detour_common: the part every detour shares (kprobes_opt.c).  The
 * detour calls it with BLR x30, having made a frame of KPD_FRAME bytes
 * below the probed context's sp and put x0, x1 and x30 in its pt_regs;
 * x0 holds the optimized_kprobe, x1 the probe address.  Every other
 * register is still the probed context's.
 *
 * The rest of pt_regs is filled in as at the ftrace site (pc the probe,
 * sp the context's, pstate EL1h with the live flags and DAIF bits), with
 * a frame record naming the probe chained to the context's x29, and
 * kprobe_detour_hit(op, regs), the core's, runs the hit.  x2 to x29 and
 * the condition flags, which may be live at the probe unlike at a
 * function's entry or return, come back from pt_regs as the handlers
 * left them; x0 is what kprobe_detour_hit() returned.  The detour reloads
 * x0, x1 and x30 itself.
 */
#define KPD_FRAME	(PT_REGS_SIZE + 16)
#define KPD_RETURN	PT_REGS_SIZE

SYM_FUNC_START(arm64_kprobe_detour_common)
	kp_x2_x15 stp, sp
	stp	x16, x17, [sp, #S_X16]
	kp_x18_x29 stp, sp
	str	x30, [sp, #KPD_RETURN]

	add	x9, sp, #KPD_FRAME
	str	x9, [sp, #S_SP]
	kp_el1h_pstate x10, x11
	stp	x1, x10, [sp, #S_PC]
	kp_regs_rest sp, x11, w11

	stp	x29, x1, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x1, sp
	bl	kprobe_detour_hit

	/*
	 * A pre_handler moved the pc.  Every register will be the context's
	 * again, so the new pc waits in this CPU's arm64_kprobe_moved for the
	 * detour's BRK, and nothing may come in on this CPU until then.
	 */
	cbz	w0, 1f
	msr	daifset, #0xf
	adr_this_cpu x10, arm64_kprobe_moved, x11
	ldp	x12, x13, [sp, #S_PC]
	stp	x12, x13, [x10]
1:
	/* The condition flags may be live here: the handlers' values. */
	ldr	x9, [sp, #S_PSTATE]
	msr	nzcv, x9
	kp_x2_x15 ldp, sp
	ldp	x16, x17, [sp, #S_X16]
	kp_x18_x29 ldp, sp
	ldr	x30, [sp, #KPD_RETURN]
	ret
SYM_FUNC_END(arm64_kprobe_detour_common)
NOKPROBE(arm64_kprobe_detour_common)
#endif /* CONFIG_OPTPROBES */

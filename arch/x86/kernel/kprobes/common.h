/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __X86_KERNEL_KPROBES_COMMON_H
#define __X86_KERNEL_KPROBES_COMMON_H

/*
 * Shared by the x86 kprobes files and by arch/x86/kernel/rethook.c, whose
 * return trampoline builds its struct pt_regs with the same macros.
 */

#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <asm/asm.h>
#include <asm/frame.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

/*
 * SAVE_REGS_STRING expects the stack pointer to address pt_regs::flags,
 * with pt_regs::sp and pt_regs::ss above it already reserved. It reserves
 * cs, ip and orig_ax (left for the caller to fill in), stores every
 * general-purpose register in its pt_regs slot and leaves the stack
 * pointer at the start of the complete struct pt_regs.
 *
 * RESTORE_REGS_STRING reloads the general-purpose registers from such a
 * frame and leaves the stack pointer at pt_regs::flags again. It moves
 * the stack pointer with LEA and so leaves the flags alone.
 *
 * Registers are addressed by their word index in struct pt_regs; the
 * static_asserts below keep the indices honest.
 */
#ifdef CONFIG_X86_64

#define KPROBE_STORE_GPR(reg, word)	"	movq %" #reg ", " #word "*8(%rsp)\n"
#define KPROBE_LOAD_GPR(reg, word)	"	movq " #word "*8(%rsp), %" #reg "\n"

#define SAVE_REGS_STRING						\
	"	leaq -18*8(%rsp), %rsp\n"				\
	KPROBE_STORE_GPR(r15, 0)  KPROBE_STORE_GPR(r14, 1)		\
	KPROBE_STORE_GPR(r13, 2)  KPROBE_STORE_GPR(r12, 3)		\
	KPROBE_STORE_GPR(rbp, 4)  KPROBE_STORE_GPR(rbx, 5)		\
	KPROBE_STORE_GPR(r11, 6)  KPROBE_STORE_GPR(r10, 7)		\
	KPROBE_STORE_GPR(r9, 8)   KPROBE_STORE_GPR(r8, 9)		\
	KPROBE_STORE_GPR(rax, 10) KPROBE_STORE_GPR(rcx, 11)		\
	KPROBE_STORE_GPR(rdx, 12) KPROBE_STORE_GPR(rsi, 13)		\
	KPROBE_STORE_GPR(rdi, 14)					\
	ENCODE_FRAME_POINTER

#define RESTORE_REGS_STRING						\
	KPROBE_LOAD_GPR(r15, 0)  KPROBE_LOAD_GPR(r14, 1)		\
	KPROBE_LOAD_GPR(r13, 2)  KPROBE_LOAD_GPR(r12, 3)		\
	KPROBE_LOAD_GPR(rbp, 4)  KPROBE_LOAD_GPR(rbx, 5)		\
	KPROBE_LOAD_GPR(r11, 6)  KPROBE_LOAD_GPR(r10, 7)		\
	KPROBE_LOAD_GPR(r9, 8)   KPROBE_LOAD_GPR(r8, 9)		\
	KPROBE_LOAD_GPR(rax, 10) KPROBE_LOAD_GPR(rcx, 11)		\
	KPROBE_LOAD_GPR(rdx, 12) KPROBE_LOAD_GPR(rsi, 13)		\
	KPROBE_LOAD_GPR(rdi, 14)					\
	"	leaq 18*8(%rsp), %rsp\n"

static_assert(offsetof(struct pt_regs, r15) == 0 * 8 &&
	      offsetof(struct pt_regs, r14) == 1 * 8 &&
	      offsetof(struct pt_regs, r13) == 2 * 8 &&
	      offsetof(struct pt_regs, r12) == 3 * 8 &&
	      offsetof(struct pt_regs, bp) == 4 * 8 &&
	      offsetof(struct pt_regs, bx) == 5 * 8 &&
	      offsetof(struct pt_regs, r11) == 6 * 8 &&
	      offsetof(struct pt_regs, r10) == 7 * 8 &&
	      offsetof(struct pt_regs, r9) == 8 * 8 &&
	      offsetof(struct pt_regs, r8) == 9 * 8 &&
	      offsetof(struct pt_regs, ax) == 10 * 8 &&
	      offsetof(struct pt_regs, cx) == 11 * 8 &&
	      offsetof(struct pt_regs, dx) == 12 * 8 &&
	      offsetof(struct pt_regs, si) == 13 * 8 &&
	      offsetof(struct pt_regs, di) == 14 * 8 &&
	      offsetof(struct pt_regs, flags) == 18 * 8);

#else /* CONFIG_X86_32 */

#define KPROBE_STORE_GPR(reg, word)	"	movl %" #reg ", " #word "*4(%esp)\n"
#define KPROBE_LOAD_GPR(reg, word)	"	movl " #word "*4(%esp), %" #reg "\n"

/* The data segment registers are recorded as well. */
#define SAVE_REGS_STRING						\
	"	leal -14*4(%esp), %esp\n"				\
	KPROBE_STORE_GPR(ebx, 0) KPROBE_STORE_GPR(ecx, 1)		\
	KPROBE_STORE_GPR(edx, 2) KPROBE_STORE_GPR(esi, 3)		\
	KPROBE_STORE_GPR(edi, 4) KPROBE_STORE_GPR(ebp, 5)		\
	KPROBE_STORE_GPR(eax, 6)					\
	"	movw %ds, 7*4(%esp)\n"					\
	"	movw %es, 8*4(%esp)\n"					\
	"	movw %fs, 9*4(%esp)\n"					\
	"	movw %gs, 10*4(%esp)\n"					\
	ENCODE_FRAME_POINTER

#define RESTORE_REGS_STRING						\
	KPROBE_LOAD_GPR(ebx, 0) KPROBE_LOAD_GPR(ecx, 1)		\
	KPROBE_LOAD_GPR(edx, 2) KPROBE_LOAD_GPR(esi, 3)		\
	KPROBE_LOAD_GPR(edi, 4) KPROBE_LOAD_GPR(ebp, 5)		\
	KPROBE_LOAD_GPR(eax, 6)					\
	"	leal 14*4(%esp), %esp\n"

static_assert(offsetof(struct pt_regs, bx) == 0 * 4 &&
	      offsetof(struct pt_regs, cx) == 1 * 4 &&
	      offsetof(struct pt_regs, dx) == 2 * 4 &&
	      offsetof(struct pt_regs, si) == 3 * 4 &&
	      offsetof(struct pt_regs, di) == 4 * 4 &&
	      offsetof(struct pt_regs, bp) == 5 * 4 &&
	      offsetof(struct pt_regs, ax) == 6 * 4 &&
	      offsetof(struct pt_regs, ds) == 7 * 4 &&
	      offsetof(struct pt_regs, es) == 8 * 4 &&
	      offsetof(struct pt_regs, fs) == 9 * 4 &&
	      offsetof(struct pt_regs, gs) == 10 * 4 &&
	      offsetof(struct pt_regs, flags) == 14 * 4);

#endif /* CONFIG_X86_64 */

#ifdef CONFIG_KPROBES

#include <linux/kprobes.h>

/*
 * What the int3 handler does with a probed instruction (ainsn.action).
 * Actions from KPX_JMP on are emulated and never run in the slot.
 */
enum kprobe_x86_action {
	KPX_STEP,	/* run the copy, then resume after the original */
	KPX_STEP_CALL,	/* the copy pushes an indirect call's target... */
	KPX_STEP_JMP,	/* ...or an indirect jump's; the handler branches */
	KPX_JMP,	/* relative jump */
	KPX_JCC,	/* conditional jump; cond is the condition code */
	KPX_LOOP,	/* LOOPNE/LOOPE/LOOP/JrCXZ; cond is opcode & 3 */
	KPX_CALL,	/* relative call */
	KPX_RET,	/* near return; rel is the extra bytes it releases */
	KPX_CLI,
	KPX_STI,
	KPX_PUSHF,
	KPX_POPF,
};

/* cond of KPX_LOOP: the low two bits of the opcode */
#define KPX_LOOPNE	0
#define KPX_LOOPE	1
#define KPX_JRCXZ	3

/*
 * Jcc with a 32-bit displacement: the 0x0f escape, then 0x80 plus the
 * condition code.  text-patching.h makes only unconditional jumps.
 */
#define KPX_JCC32_ESCAPE	0x0f
#define KPX_JCC32_OPCODE	0x80
#define KPX_JCC32_SIZE		6

static nokprobe_inline bool kprobe_x86_emulated(const struct kprobe *p)
{
	return p->ainsn.action >= KPX_JMP;
}

static nokprobe_inline unsigned long kprobe_x86_next_ip(const struct kprobe *p)
{
	return (unsigned long)p->addr + p->ainsn.len;
}

/* decode.c */
int kprobe_x86_fetch(unsigned long addr, u8 *buf, struct insn *insn);
int kprobe_x86_decode(struct kprobe *p, struct insn *insn, u8 *image);
int kprobe_x86_move_insn(unsigned long from, struct insn *insn, u8 *image,
			 unsigned long to);
int kprobe_x86_relocate(struct kprobe *p, struct insn *insn, u8 *image,
			kprobe_opcode_t *slot);
bool kprobe_x86_boostable(struct kprobe *p);
const char *kprobe_x86_copyable(unsigned long addr, struct insn *insn, u8 *buf);
bool kprobe_x86_batching(void);

/* opt.c */
#ifdef CONFIG_OPTPROBES
void kprobe_x86_opt_batch_end(void);
#if IS_ENABLED(CONFIG_KUNIT)
/* For kprobes_opt_kunit.c */
bool kprobe_x86_jump_may_be_indirect(unsigned long func, unsigned long size,
				     unsigned long target);
void kprobe_x86_thunk_arrays(unsigned long starts[4]);
#endif
#else
static inline void kprobe_x86_opt_batch_end(void) { }
#endif

/* emulate.c */
void kprobe_x86_emulate(struct kprobe *p, struct pt_regs *regs);
void kprobe_x86_complete_step(struct kprobe *p, struct pt_regs *regs);

/* kretprobe.c, called from __kretprobe_trampoline */
__visible void kretprobe_x86_return(struct pt_regs *regs);

#endif /* CONFIG_KPROBES */

#endif /* __X86_KERNEL_KPROBES_COMMON_H */

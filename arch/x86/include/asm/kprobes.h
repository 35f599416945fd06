/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H
/*
 * x86 kprobes: the types and hooks the generic kprobes core and the trap
 * handlers need from the architecture.
 *
 * A probe replaces the first byte of an instruction with int3. When it
 * fires, the instruction either runs out of line from an executable slot
 * that holds a copy of it followed by a second int3, or, if its effect
 * depends on where it runs, is emulated in the int3 handler.
 */

/* __kprobes, NOKPROBE_SYMBOL() and nokprobe_inline, with or without kprobes */
#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
/* Many users rely on getting these through <linux/kprobes.h>. */
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/types.h>
#include <asm/insn.h>		/* MAX_INSN_SIZE */
#include <asm/text-patching.h>

typedef u8 kprobe_opcode_t;

#define BREAKPOINT_INSTRUCTION	0xcc

/* Slots come from the generic kprobes instruction cache. */
#define __ARCH_WANT_KPROBES_INSN_SLOT

struct kprobe;
struct pt_regs;

/* Slots are written with text_poke(), which keeps the caches coherent. */
static inline void flush_insn_slot(struct kprobe *p) { }

/* kretprobe_blacklist[] has one entry and a terminator, see kretprobe.c. */
extern const int kretprobe_blacklist_size;

/*
 * Per-probe state. A slot is MAX_INSN_SIZE bytes: the copy of the probed
 * instruction, then the int3 that hands control back to the handler. A
 * boostable probe has a second slot whose copy is followed by a jump back
 * to the next original instruction instead. The
 * copy differs from the original only where running elsewhere demands it
 * (RIP-relative displacement, indirect branch turned into a push of its
 * target). ftrace-based probes have no slot.
 */
struct arch_specific_insn {
	kprobe_opcode_t *slot;
	/* the copy followed by a jump back, if it may run without a trap */
	kprobe_opcode_t *boost_slot;
	/*
	 * In an optimizable aggregate: the detour buffer's copy of the whole
	 * replaced region, followed by a jump back (see opt.c).
	 */
	kprobe_opcode_t *region_copy;
	u8 len;			/* length of the probed instruction */
	u8 action;		/* enum kprobe_x86_action, see kprobes/common.h */
	u8 cond;		/* jcc condition code or loop kind */
	u8 width;		/* LOOP family: bytes of rCX it counts with */
	s32 rel;		/* branch displacement or bytes RET releases */
};

/*
 * Jump optimization: the probed instruction and those after it, up to
 * the first boundary at least JMP32_INSN_SIZE bytes on (the "region"),
 * are replaced by a jump to a detour buffer of MAX_OPTINSN_SIZE bytes.
 */
#define MAX_OPTIMIZED_LENGTH	(MAX_INSN_SIZE + JMP32_INSN_SIZE - 1)
#define MAX_OPTINSN_SIZE	256

struct arch_optimized_insn {
	kprobe_opcode_t *buf;		/* the detour buffer */
	u8 size;			/* bytes in the region */
	bool std;			/* the function may set DF (STD) */
	u8 orig[JMP32_INSN_SIZE];	/* what the jump writes over */
};

/* State of an interrupted probe while a reentered one is handled. */
struct prev_kprobe {
	struct kprobe *kp;
	unsigned long status;
	unsigned long saved_if;
};

/* Per-cpu state of the probe being handled. */
struct kprobe_ctlblk {
	unsigned long kprobe_status;
	/* X86_EFLAGS_IF of the probed context while its slot runs IRQs-off */
	unsigned long saved_if;
	struct prev_kprobe prev_kprobe;
};

void arch_remove_kprobe(struct kprobe *p);
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);
int kprobe_int3_handler(struct pt_regs *regs);
#if IS_ENABLED(CONFIG_KUNIT)
void kprobe_x86_forget_hit(void);
#endif
void __kretprobe_trampoline(void);
/* The instruction map of the function probed last is kept until then. */
void arch_kprobe_forget_text(void);
#define arch_kprobe_forget_text arch_kprobe_forget_text
/*
 * Batches (kernel/kprobes_internal.h has the defaults): one text_poke
 * pass for all of a batch's int3s, and the function maps a registration
 * keeps.
 */
void arch_arm_kprobes(struct kprobe **entries, int num);
#define arch_arm_kprobes arch_arm_kprobes
void arch_disarm_kprobes(struct kprobe **entries, int num);
#define arch_disarm_kprobes arch_disarm_kprobes
void arch_kprobe_batch_begin(void);
#define arch_kprobe_batch_begin arch_kprobe_batch_begin
void arch_kprobe_batch_end(void);
#define arch_kprobe_batch_end arch_kprobe_batch_end
struct optimized_kprobe;
/* A jump over a single instruction goes in at once. */
bool arch_optimized_kprobe_needs_wait(struct optimized_kprobe *op);
#define arch_optimized_kprobe_needs_wait arch_optimized_kprobe_needs_wait
/*
 * A hit through int3 runs with interrupts off until it is over, its slot
 * included; the ftrace handler, detour buffers and the return trampoline
 * open hit sections (kernel/kprobes_hits.c).
 */
static inline bool arch_kprobe_hits_counted(void)
{
	return true;
}

#define arch_kprobe_hits_counted arch_kprobe_hits_counted

/* A hit from a deeper context than the running probe's runs its handlers. */
static inline bool arch_kprobe_nests(void)
{
	return true;
}

#define arch_kprobe_nests arch_kprobe_nests

/* Each hit loads a probe's post_handler once (READ_ONCE()). */
static inline bool arch_kprobe_post_handler_read_once(void)
{
	return true;
}

#define arch_kprobe_post_handler_read_once arch_kprobe_post_handler_read_once

#else /* !CONFIG_KPROBES */

struct pt_regs;

/* Kept for source compatibility: kprobes take no debug traps. */
static inline int kprobe_debug_handler(struct pt_regs *regs) { return 0; }

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */

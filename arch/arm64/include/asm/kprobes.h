/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 kprobes: breakpoint probes placed as BRK instructions.
 *
 * The core (include/linux/kprobes.h) includes this header; the debug
 * exception code (arch/arm64/kernel/debug-monitors.c) calls the BRK
 * handlers declared at the end.
 */
#ifndef __ASM_ARM64_KPROBES_H
#define __ASM_ARM64_KPROBES_H

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>

#define __ARCH_WANT_KPROBES_INSN_SLOT
/* A slot holds the copied instruction and the BRK that follows it. */
#define MAX_INSN_SIZE			2

/* Slots are written through the text-patching code, which cleans them. */
#define flush_insn_slot(p)		do { } while (0)
#define kretprobe_blacklist_size	0

#include <asm/probes.h>

/*
 * A probe hit while another probe's instruction is being run: what the
 * outer probe needs back once the inner one is done.
 */
struct arm64_kprobe_outer {
	struct kprobe *kp;
	unsigned int status;
	unsigned long daif;
	unsigned long pmr;
};

/**
 * struct kprobe_ctlblk - per-CPU state of the probe being handled
 * @kprobe_status: KPROBE_HIT_* or KPROBE_REENTER
 * @saved_daif: the probed context's DAIF bits while its instruction runs
 *	from the slot with every exception masked
 * @saved_pmr: likewise its GIC priority mask, with pseudo-NMIs
 * @outer: the interrupted probe during a reentered hit
 */
struct kprobe_ctlblk {
	unsigned int kprobe_status;
	unsigned long saved_daif;
	unsigned long saved_pmr;
	struct arm64_kprobe_outer outer;
};

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * A probe on a function's start rides the ftrace site that follows it
 * (kprobes_ftrace.c); the probe keeps the address it was given.
 */
unsigned long arch_kprobe_ftrace_site_at(unsigned long addr);
#define arch_kprobe_ftrace_site_at arch_kprobe_ftrace_site_at
#define arch_kprobe_ftrace_site(p)	((p)->ainsn.ftrace_site)
#endif

void arch_remove_kprobe(struct kprobe *p);
int kprobe_fault_handler(struct pt_regs *regs, unsigned int fsr);
void __kretprobe_trampoline(void);

/*
 * What arch_prepare_kretprobe() does, inline in each kretprobe entry hit
 * (arch_kretprobe_divert() in kernel/kprobes_internal.h), which then
 * needs no frame of its own.  The caller's x30 is where the function
 * returns, and its x29 the frame record the return will find restored.
 * Given the instance's fields, as struct kretprobe_instance is not
 * defined yet where this header is read.
 */
static __always_inline void arm64_kretprobe_divert(kprobe_opcode_t **ret_addr,
						   void **fp,
						   struct pt_regs *regs)
{
	*ret_addr = (kprobe_opcode_t *)regs->regs[30];
	*fp = (void *)regs->regs[29];
	regs->regs[30] = (unsigned long)__kretprobe_trampoline;
}

#define arch_kretprobe_divert(ri, regs) ({				\
	typeof(ri) __ri = (ri);						\
	arm64_kretprobe_divert(&__ri->ret_addr, &__ri->fp, regs);	\
})

/* Run the one-instruction slot @slot (ending in RET) on @regs. */
void arm64_kprobe_run_insn(struct pt_regs *regs, kprobe_opcode_t *slot);
/* Text writes batched under one stop_machine() (kprobes.c). */
void arm64_kprobe_poke_queue(kprobe_opcode_t *addr, u32 insn);
void arm64_kprobe_poke_flush(void);

#ifdef CONFIG_OPTPROBES
struct optimized_kprobe;

/* An optimized probe displaces one instruction: its B replaces the BRK. */
#define MAX_OPTIMIZED_LENGTH	AARCH64_INSN_SIZE
/* The words of a detour (kprobes_opt.c), literals included. */
#define MAX_OPTINSN_SIZE	24

/**
 * struct arch_optimized_insn - arm64 state of an optimized probe
 * @detour: the probe's detour, within a B of it; NULL until prepared
 * @written: the detour is in its slot; it is written with the first B
 */
struct arch_optimized_insn {
	kprobe_opcode_t *detour;
	bool written;
};

/* A one-instruction region has no middle for a task to wait in. */
static inline bool arch_optimized_kprobe_needs_wait(struct optimized_kprobe *op)
{
	return false;
}

#define arch_optimized_kprobe_needs_wait arch_optimized_kprobe_needs_wait

/*
 * A hit whose pre_handler moved the pc: where it goes on, and its pstate,
 * from arm64_kprobe_detour_common to the detour's BRK (kprobes_opt.c).
 */
struct arm64_kprobe_moved {
	unsigned long pc;
	unsigned long pstate;
};

DECLARE_PER_CPU(struct arm64_kprobe_moved, arm64_kprobe_moved);
bool arm64_kprobe_detour_moved(struct pt_regs *regs);
/* Every detour calls it; it calls the core's kprobe_detour_hit(). */
void arm64_kprobe_detour_common(void);
#else
static inline bool arm64_kprobe_detour_moved(struct pt_regs *regs)
{
	return false;
}
#endif

/* Boost slots within a B of their probe (kprobes.c). */
void *arch_alloc_insn_page_within(unsigned long start, unsigned long end);
#define arch_alloc_insn_page_within arch_alloc_insn_page_within
/* A batch's BRKs written with one stop_machine (the default: one each). */
void arch_arm_kprobes(struct kprobe **entries, int num);
#define arch_arm_kprobes arch_arm_kprobes
void arch_disarm_kprobes(struct kprobe **entries, int num);
#define arch_disarm_kprobes arch_disarm_kprobes
/*
 * A hit through BRK runs with every exception masked until it is over,
 * its step included; the ftrace-site trampoline and the return
 * trampoline open hit sections (kernel/kprobes_hits.c).
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

#endif /* CONFIG_KPROBES */

int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr);
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr);
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr);

#endif /* __ASM_ARM64_KPROBES_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 kprobes: jump optimization.
 *
 * An optimized probe's BRK becomes a B to a detour made for that probe
 * alone, in a page within the B's reach of 128 MB (kernel/kprobes_slots.c
 * places it):
 *
 *	stp	x0, x1, [sp, #-KPA_DETOUR_FRAME]!	a pt_regs below sp
 *	str	x30, [sp, #S_LR]
 *	ldr	x0, <op>				literals at the end
 *	ldr	x1, <probe address>
 *	ldr	x30, <arm64_kprobe_detour_common>
 *	blr	x30		the rest of pt_regs, then kprobe_detour_hit()
 *	cbnz	w0, moved	a pre_handler moved the pc
 *	ldr	x30, [sp, #S_LR]
 *	ldp	x0, x1, [sp], #KPA_DETOUR_FRAME
 *	<the probed instruction, or up to three that stand for it>
 *	b	<probe address + 4>
 * moved:
 *	ldr	x30, [sp, #S_LR]
 *	ldp	x0, x1, [sp], #KPA_DETOUR_FRAME
 *	brk	#KPROBES_BRK_SS_IMM
 *
 * No register is borrowed at the probe's instruction boundary, where any
 * may be live (x16 and x17 included): the detour only uses the stack,
 * which the kernel keeps 16-byte aligned with nothing live below sp.
 * Going on at a pc a pre_handler chose needs an indirect branch, so a
 * register; rather than clobber one, that rare case ends in a BRK: with
 * every register restored and every exception masked, the new pc waits in
 * a per-CPU record for the BRK's handler (arm64_kprobe_detour_moved()),
 * which resumes there with the context's interrupt mask.
 *
 * What is stepped out of line runs in the detour as it is, and so do the
 * steppable hints and RET, BR and their PAC forms.  What reads the pc is
 * rewritten (kpa_displace()): a branch becomes the same test and B's from
 * the detour, BL a literal load of x30 and a B, ADR/ADRP and literal loads
 * a literal load of the address.  BLR stays a BRK probe: from the detour
 * it would return into it.  So do a BTI landing pad (BTI or PACIxSP) where
 * the kernel uses BTI, since a B there would make every indirect branch to
 * it fault, an instruction with an exception-table entry (its fault would
 * be taken in the detour), and a rewrite whose B cannot reach.
 *
 * A B and a BRK are both instructions the architecture lets one CPU
 * replace with the other while others run it: a CPU that still sees the
 * BRK takes the ordinary BRK path, valid throughout.  A batch's detours
 * are written, and every CPU's instruction stream synchronized with them
 * (aarch64_insn_copy()), right before their Bs go in, and the jumps of a
 * batch go in, and come out, with one stop_machine() as BRKs do.  Each
 * copy ends with an IPI to every CPU, so neighbouring slots are written
 * with one copy rather than one per detour.  The
 * region is a single instruction: no task can be inside it, so the
 * optimizer needs no wait before the jump goes in.
 *
 * What a handler sees in pt_regs is listed in
 * Documentation/trace/kprobes.rst ("arm64: jump optimization").
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/extable.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/memory.h>
#include <linux/ptrace.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/ptrace.h>

#include "decode-insn.h"

/*
 * The detour's pt_regs, and a word pair arm64_kprobe_detour_common keeps
 * above it (PT_REGS_SIZE + 16 in kprobes_trampoline.S).
 */
#define KPA_DETOUR_FRAME	((int)sizeof(struct pt_regs) + 16)
static_assert(sizeof(struct pt_regs) % 16 == 0);

/* Words a rewritten instruction may take in the detour. */
#define KPA_D_INSN_WORDS	3

/* Word indexes in a detour; the literals are 8-byte aligned. */
enum {
	KPA_D_SAVE,
	KPA_D_SAVE_LR,
	KPA_D_LOAD_OP,
	KPA_D_LOAD_ADDR,
	KPA_D_LOAD_COMMON,
	KPA_D_CALL,
	KPA_D_TEST_MOVED,
	KPA_D_RESTORE_LR,
	KPA_D_RESTORE,
	KPA_D_INSN,		/* the instruction, or what stands for it */
	KPA_D_BACK = KPA_D_INSN + KPA_D_INSN_WORDS,
	KPA_D_MOVED,		/* a pre_handler moved the pc: */
	KPA_D_MOVED_RESTORE,	/* the frame goes too, */
	KPA_D_MOVED_BRK,	/* then the BRK that goes there */
	KPA_D_LIT_OP,
	KPA_D_LIT_ADDR = KPA_D_LIT_OP + 2,
	KPA_D_LIT_COMMON = KPA_D_LIT_ADDR + 2,
	KPA_D_LIT_INSN = KPA_D_LIT_COMMON + 2,	/* a value the rewrite loads */
	KPA_D_WORDS = KPA_D_LIT_INSN + 2,
};

static_assert(KPA_D_WORDS == MAX_OPTINSN_SIZE);
static_assert(KPA_D_LIT_OP % 2 == 0 && (KPA_D_WORDS * AARCH64_INSN_SIZE) % 8 == 0);

/*
 * Where a hit whose pre_handler moved the pc goes on, and the pstate it
 * had: arm64_kprobe_detour_common writes it with every exception masked,
 * and so it stays until the detour's BRK (arm64_kprobe_detour_moved())
 * reads it, on the same CPU.
 */
DEFINE_PER_CPU(struct arm64_kprobe_moved, arm64_kprobe_moved);
/* kprobes_trampoline.S stores the pair with one STP. */
static_assert(offsetof(struct arm64_kprobe_moved, pstate) ==
	      offsetof(struct arm64_kprobe_moved, pc) + sizeof(unsigned long));

/**
 * arm64_kprobe_detour_moved() - the BRK a detour ends in for a moved pc
 * @regs: the context at that BRK, every register as the handlers left it
 *
 * Called for BRK #KPROBES_BRK_SS_IMM when it ends no step.  The BRK is
 * taken with every exception masked (the detour masked them): the pc and
 * the interrupt mask come from this CPU's arm64_kprobe_moved, the rest is
 * already in place, sp included (an exception at EL1 cannot move sp, so
 * the detour has popped its frame first).
 *
 * Return: true when the BRK was a detour's.
 */
bool arm64_kprobe_detour_moved(struct pt_regs *regs)
{
	unsigned long pc = instruction_pointer(regs);
	struct arm64_kprobe_moved *moved = this_cpu_ptr(&arm64_kprobe_moved);

	if (offset_in_page(pc) % (KPA_D_WORDS * AARCH64_INSN_SIZE) !=
	    KPA_D_MOVED_BRK * AARCH64_INSN_SIZE || !is_kprobe_optinsn_slot(pc))
		return false;
	instruction_pointer_set(regs, moved->pc);
	/* BTYPE is zero after a pc move. */
	regs->pstate &= ~(DAIF_MASK | PSR_BTYPE_MASK);
	regs->pstate |= moved->pstate & DAIF_MASK;
	return true;
}
NOKPROBE_SYMBOL(arm64_kprobe_detour_moved);

/* x0 and x1 stored below sp (the frame made) or loaded (the frame gone). */
static u32 kpa_x0_x1(enum aarch64_insn_ldst_type type, int offset)
{
	return aarch64_insn_gen_load_store_pair(AARCH64_INSN_REG_0,
						AARCH64_INSN_REG_1,
						AARCH64_INSN_REG_SP, offset,
						AARCH64_INSN_VARIANT_64BIT, type);
}

/* x30 stored in, or loaded from, the frame's pt_regs. */
static u32 kpa_x30(enum aarch64_insn_ldst_type type)
{
	return aarch64_insn_gen_load_store_imm(AARCH64_INSN_REG_LR,
					       AARCH64_INSN_REG_SP,
					       offsetof(struct pt_regs, regs[30]),
					       AARCH64_INSN_SIZE_64, type);
}

/* The address of word @i of a detour at @at. */
static unsigned long kpa_word_at(unsigned long at, int i)
{
	return at + i * AARCH64_INSN_SIZE;
}

/* Word @i of a detour at @at loads the literal at word @lit into @reg. */
static u32 kpa_load_literal(unsigned long at, int i, int lit,
			    enum aarch64_insn_register reg)
{
	return aarch64_insn_gen_load_literal(kpa_word_at(at, i),
					     kpa_word_at(at, lit), reg, true);
}

static void kpa_detour_literal(u32 *words, int at, u64 value)
{
	memcpy(&words[at], &value, sizeof(value));
}

/* A B at @pc to @target into *@out, unless it is out of reach. */
static int kpa_b(unsigned long pc, unsigned long target, u32 *out)
{
	/* Checked first: the encoder logs every miss. */
	if (!arm64_b_reaches(pc, target))
		return -ERANGE;
	*out = aarch64_insn_gen_branch_imm(pc, target, AARCH64_INSN_BRANCH_NOLINK);
	return 0;
}

/* A landing pad for indirect branches, where BTI guards the kernel. */
static bool kpa_landing_pad(u32 insn)
{
	return IS_ENABLED(CONFIG_ARM64_BTI_KERNEL) &&
	       (aarch64_insn_is_bti(insn) ||
		insn == aarch64_insn_gen_hint(AARCH64_INSN_HINT_PACIASP) ||
		insn == aarch64_insn_gen_hint(AARCH64_INSN_HINT_PACIBSP));
}

/* Why @p's instruction cannot run from a detour, or NULL if it can. */
static const char *kpa_opt_refusal(struct kprobe *p)
{
	u32 insn = p->opcode;

	if (kpa_landing_pad(insn))
		return "a BTI landing pad";
	if (search_exception_tables((unsigned long)p->addr))
		return "has an exception-table entry";
	/* Stepped: it runs out of line as it is. */
	if (p->ainsn.api.insn)
		return NULL;
	/* Simulated: the hints that may be stepped (NOP, BTI, PAC signing). */
	if (aarch64_insn_is_steppable_hint(insn))
		return NULL;
	/*
	 * A call from the detour would return into it, where a task may
	 * sleep in the callee long after the detour is freed: BL is
	 * rewritten with x30 set to the instruction after the probe, and
	 * so would be BLR, but as a BR, which BTI's landing pads refuse.
	 */
	if (aarch64_insn_is_blr(insn) || aarch64_insn_is_blr_auth(insn))
		return "an indirect call";
	if (aarch64_insn_is_branch_imm(insn) || aarch64_insn_is_adr_adrp(insn) ||
	    aarch64_insn_is_ldr_lit(insn) || aarch64_insn_is_ldrsw_lit(insn) ||
	    aarch64_insn_is_prfm_lit(insn))
		return NULL;
	/* RET, BR and their PAC forms read registers only. */
	if (aarch64_insn_is_br(insn) || aarch64_insn_is_br_auth(insn) ||
	    aarch64_insn_is_ret(insn) || aarch64_insn_is_ret_auth(insn))
		return NULL;
	return "reads the pc in a way the detour does not rewrite";
}

/*
 * What stands for @p's instruction at words[KPA_D_INSN...] of a detour at
 * @at, and the value it loads, in *@lit.  Words it does not use stay NOPs:
 * the detour goes on to its B back.
 */
static int kpa_displace(struct kprobe *p, unsigned long at, u32 *words,
			u64 *lit)
{
	unsigned long addr = (unsigned long)p->addr;
	unsigned long w0 = kpa_word_at(at, KPA_D_INSN);
	unsigned long next = addr + AARCH64_INSN_SIZE;
	u32 insn = p->opcode, *out = &words[KPA_D_INSN];
	enum aarch64_insn_size_type size;
	enum aarch64_insn_ldst_type type;
	enum aarch64_insn_register rt;
	unsigned long target;
	s64 imm;

	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn)) {
		target = addr + aarch64_get_branch_offset(insn);
		if (aarch64_insn_is_bl(insn)) {
			/* BL: x30 as the probed BL would set it, then B. */
			*lit = next;
			*out++ = kpa_load_literal(at, KPA_D_INSN, KPA_D_LIT_INSN,
						  AARCH64_INSN_REG_LR);
		}
		return kpa_b(kpa_word_at(at, out - words), target, out);
	}
	if (aarch64_insn_is_branch_imm(insn)) {
		/*
		 * B.cond, CB(N)Z, TB(N)Z: the same test, taken to a B to the
		 * target two words on; not taken, a B to the next instruction.
		 */
		target = addr + aarch64_get_branch_offset(insn);
		out[0] = aarch64_set_branch_offset(insn, 2 * AARCH64_INSN_SIZE);
		return kpa_b(w0 + AARCH64_INSN_SIZE, next, &out[1]) ?:
		       kpa_b(w0 + 2 * AARCH64_INSN_SIZE, target, &out[2]);
	}
	rt = aarch64_insn_decode_register(AARCH64_INSN_REGTYPE_RT, insn);
	if (aarch64_insn_is_adr_adrp(insn)) {
		/* The address it computes, loaded. */
		imm = sign_extend64(aarch64_insn_decode_immediate(AARCH64_INSN_IMM_ADR,
								  insn), 20);
		*lit = aarch64_insn_is_adr(insn) ? addr + imm :
		       (addr & ~(SZ_4K - 1)) + imm * SZ_4K;
		*out = kpa_load_literal(at, KPA_D_INSN, KPA_D_LIT_INSN, rt);
		return 0;
	}
	if (aarch64_insn_is_prfm_lit(insn))
		return 0;
	if (aarch64_insn_is_ldr_lit(insn) || aarch64_insn_is_ldrsw_lit(insn)) {
		/* Into XZR: the rewrite's load would take register 31 as sp. */
		if (rt == AARCH64_INSN_REG_ZR)
			return -EILSEQ;
		/* The literal's address into the target register, then the load. */
		imm = sign_extend64(aarch64_insn_decode_immediate(AARCH64_INSN_IMM_19,
								  insn), 18);
		*lit = addr + imm * AARCH64_INSN_SIZE;
		if (aarch64_insn_is_ldrsw_lit(insn)) {
			size = AARCH64_INSN_SIZE_32;
			type = AARCH64_INSN_LDST_SIGNED_LOAD_IMM_OFFSET;
		} else {
			/* Bit 30 of LDR (literal): a 64-bit load. */
			size = insn & BIT(30) ? AARCH64_INSN_SIZE_64 :
						AARCH64_INSN_SIZE_32;
			type = AARCH64_INSN_LDST_LOAD_IMM_OFFSET;
		}
		out[0] = kpa_load_literal(at, KPA_D_INSN, KPA_D_LIT_INSN, rt);
		out[1] = aarch64_insn_gen_load_store_imm(rt, rt, 0, size, type);
		return 0;
	}
	/* Anything else runs as it is. */
	*out = insn;
	return 0;
}

/* Encode the detour for @op, to run at @detour, into @words. */
static int kpa_detour_encode(struct optimized_kprobe *op,
			     kprobe_opcode_t *detour, u32 *words)
{
	unsigned long at = (unsigned long)detour;
	unsigned long addr = (unsigned long)op->kp.addr;
	u64 lit = 0;
	int i, ret;

	words[KPA_D_SAVE] = kpa_x0_x1(AARCH64_INSN_LDST_STORE_PAIR_PRE_INDEX,
				      -KPA_DETOUR_FRAME);
	words[KPA_D_SAVE_LR] = kpa_x30(AARCH64_INSN_LDST_STORE_IMM_OFFSET);
	words[KPA_D_LOAD_OP] = kpa_load_literal(at, KPA_D_LOAD_OP, KPA_D_LIT_OP,
						AARCH64_INSN_REG_0);
	words[KPA_D_LOAD_ADDR] = kpa_load_literal(at, KPA_D_LOAD_ADDR,
						  KPA_D_LIT_ADDR,
						  AARCH64_INSN_REG_1);
	words[KPA_D_LOAD_COMMON] = kpa_load_literal(at, KPA_D_LOAD_COMMON,
						    KPA_D_LIT_COMMON,
						    AARCH64_INSN_REG_LR);
	words[KPA_D_CALL] = aarch64_insn_gen_branch_reg(AARCH64_INSN_REG_LR,
							AARCH64_INSN_BRANCH_LINK);
	words[KPA_D_TEST_MOVED] =
		aarch64_insn_gen_comp_branch_imm(kpa_word_at(at, KPA_D_TEST_MOVED),
						 kpa_word_at(at, KPA_D_MOVED),
						 AARCH64_INSN_REG_0,
						 AARCH64_INSN_VARIANT_32BIT,
						 AARCH64_INSN_BRANCH_COMP_NONZERO);
	words[KPA_D_RESTORE_LR] = kpa_x30(AARCH64_INSN_LDST_LOAD_IMM_OFFSET);
	words[KPA_D_RESTORE] = kpa_x0_x1(AARCH64_INSN_LDST_LOAD_PAIR_POST_INDEX,
					 KPA_DETOUR_FRAME);
	for (i = KPA_D_INSN; i < KPA_D_BACK; i++)
		words[i] = aarch64_insn_gen_nop();
	ret = kpa_displace(&op->kp, at, words, &lit);
	if (ret)
		return ret;
	words[KPA_D_BACK] =
		aarch64_insn_gen_branch_imm(kpa_word_at(at, KPA_D_BACK),
					    addr + AARCH64_INSN_SIZE,
					    AARCH64_INSN_BRANCH_NOLINK);
	words[KPA_D_MOVED] = kpa_x30(AARCH64_INSN_LDST_LOAD_IMM_OFFSET);
	words[KPA_D_MOVED_RESTORE] =
		kpa_x0_x1(AARCH64_INSN_LDST_LOAD_PAIR_POST_INDEX,
			  KPA_DETOUR_FRAME);
	words[KPA_D_MOVED_BRK] = BRK64_OPCODE_KPROBES_SS;

	for (i = 0; i < KPA_D_LIT_OP; i++) {
		if (words[i] == AARCH64_BREAK_FAULT)
			return -ERANGE;
		words[i] = (__force u32)cpu_to_le32(words[i]);
	}
	/* The literals are data: LDR reads them in the CPU's byte order. */
	kpa_detour_literal(words, KPA_D_LIT_OP, (unsigned long)op);
	kpa_detour_literal(words, KPA_D_LIT_ADDR, addr);
	kpa_detour_literal(words, KPA_D_LIT_COMMON,
			   (unsigned long)arm64_kprobe_detour_common);
	kpa_detour_literal(words, KPA_D_LIT_INSN, lit);
	return 0;
}

int arch_prepared_optinsn(struct arch_optimized_insn *optinsn)
{
	return !!optinsn->detour;
}

/* No other probe can be inside a one-instruction region. */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	return 0;
}

int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return addr == op->kp.addr;
}

/*
 * Called with kprobe_mutex and cpus_read_lock() held.  @op->kp is the
 * aggregate, with the probe's opcode and decoded instruction.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	unsigned long addr = (unsigned long)op->kp.addr;
	u32 words[KPA_D_WORDS];
	kprobe_opcode_t *detour;
	const char *why;
	int ret;

	why = kpa_opt_refusal(&op->kp);
	if (why) {
		pr_debug("cannot optimize %pS: %s\n", op->kp.addr, why);
		return -EILSEQ;
	}
	/* The B at the probe reaches the detour, and the detour's B back. */
	detour = __get_insn_slot_within(&kprobe_optinsn_slots,
					addr - (SZ_128M - PAGE_SIZE),
					addr + (SZ_128M - PAGE_SIZE));
	if (!detour)
		return -ENOMEM;
	/* Encoded here to refuse early; written with its B. */
	ret = kpa_detour_encode(op, detour, words);
	if (ret) {
		pr_debug("cannot optimize %pS: no detour (%d)\n", op->kp.addr, ret);
		free_optinsn_slot(detour, 0);
		return ret;
	}
	op->optinsn.detour = detour;
	op->optinsn.written = false;
	return 0;
}

/*
 * A task may still be in the detour, preempted in a handler: it is freed
 * dirty, and reused only once no task can be there.
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	if (!op->optinsn.detour)
		return;
	/* Never written, it was never reachable. */
	free_optinsn_slot(op->optinsn.detour, op->optinsn.written);
	op->optinsn.detour = NULL;
}

/*
 * The run of detours being gathered for one copy, under text_mutex: the
 * words of each, and its probe.  Their slots follow one another.
 */
#define KPA_RUN_DETOURS	(SZ_4K / (KPA_D_WORDS * AARCH64_INSN_SIZE))

static u32 kpa_run_words[KPA_RUN_DETOURS][KPA_D_WORDS];
static struct optimized_kprobe *kpa_run_ops[KPA_RUN_DETOURS];
static unsigned int kpa_run_len;

/* Write the run's detours to their slots with one copy. */
static void kpa_run_flush(void)
{
	unsigned int i;
	bool written;

	lockdep_assert_held(&text_mutex);
	if (!kpa_run_len)
		return;
	written = aarch64_insn_copy(kpa_run_ops[0]->optinsn.detour, kpa_run_words,
				    kpa_run_len * sizeof(kpa_run_words[0]));
	for (i = 0; i < kpa_run_len; i++)
		kpa_run_ops[i]->optinsn.written = written;
	kpa_run_len = 0;
}

/* Add @op's detour to the run, written first unless @op's slot goes on it. */
static void kpa_run_add(struct optimized_kprobe *op)
{
	kprobe_opcode_t *next;

	if (kpa_run_len) {
		next = kpa_run_ops[kpa_run_len - 1]->optinsn.detour + KPA_D_WORDS;
		if (op->optinsn.detour != next || kpa_run_len == KPA_RUN_DETOURS)
			kpa_run_flush();
	}
	/* It encoded when prepared; should it not now, it stays unwritten. */
	if (kpa_detour_encode(op, op->optinsn.detour, kpa_run_words[kpa_run_len]))
		return;
	kpa_run_ops[kpa_run_len++] = op;
}

/*
 * Put the B of every probe on @oplist in place, in one batch, once every
 * detour not yet written is.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *next;
	u32 b;

	list_for_each_entry(op, oplist, list) {
		if (!op->optinsn.written)
			kpa_run_add(op);
	}
	kpa_run_flush();

	list_for_each_entry_safe(op, next, oplist, list) {
		b = aarch64_insn_gen_branch_imm((unsigned long)op->kp.addr,
						(unsigned long)op->optinsn.detour,
						AARCH64_INSN_BRANCH_NOLINK);
		/* Left on the list: the core takes it as not optimized. */
		if (!op->optinsn.written || b == AARCH64_BREAK_FAULT)
			continue;
		arm64_kprobe_poke_queue(op->kp.addr, b);
		list_del_init(&op->list);
	}
	arm64_kprobe_poke_flush();
}

/* The BRK goes back over the B; a CPU still at the B finishes its detour. */
void arch_unoptimize_kprobe(struct optimized_kprobe *op)
{
	arm64_kprobe_poke_queue(op->kp.addr, BRK64_OPCODE_KPROBES);
	arm64_kprobe_poke_flush();
}

void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	struct optimized_kprobe *op;

	list_for_each_entry(op, oplist, list)
		arm64_kprobe_poke_queue(op->kp.addr, BRK64_OPCODE_KPROBES);
	arm64_kprobe_poke_flush();
	list_splice_tail_init(oplist, done_list);
}

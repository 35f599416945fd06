// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for arm64 jump optimization: which probed instructions get
 * a detour and how each runs there, what a handler sees and may change there, the condition flags
 * across it, a pc moved by a pre_handler, a probe hit from a handler, the
 * sysctl, a post_handler keeping the BRK, a kretprobe's entry, a batch's
 * Bs going in and out together, and a task preempted in a detour whose
 * probe goes away under it.
 *
 * The test functions are written below in assembly, so that the probed
 * instruction is known; kprobes_arm64_kunit.h says which word is probed.
 */
#include <kunit/test.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include <asm/asm-extable.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>

#include "kprobes_arm64_kunit.h"
#include "kprobes_arm64_preempt_kunit.h"

/* kprobe_opt_state_of(), the sysctl and the slots, for KUnit only */
#include "../../../../kernel/kprobes_internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

asm(".pushsection .text, \"ax\"\n"
	".balign 8\n"
	"kpo_load:\n\t"
	"hint #34\n\t"
	"ldr x0, [x0]\n\t"
	"add x0, x0, #1\n\t"
	"ret\n"
	".type kpo_load, %function\n.size kpo_load, . - kpo_load\n"

	"kpo_nop:\n\t"
	"hint #34\n\t"
	"nop\n\t"
	"add x0, x0, #4\n\t"
	"ret\n"
	".type kpo_nop, %function\n.size kpo_nop, . - kpo_nop\n"

	"kpo_adr:\n\t"
	"hint #34\n\t"
	"adr x0, kpo_adr\n\t"
	"ret\n"
	".type kpo_adr, %function\n.size kpo_adr, . - kpo_adr\n"

	"kpo_fixup:\n\t"
	"hint #34\n"
	"1:\tldr x0, [x0]\n"
	"2:\tret\n"
	_ASM_EXTABLE_KACCESS(1b, 2b) "\n"
	".type kpo_fixup, %function\n.size kpo_fixup, . - kpo_fixup\n"

	"kpo_pad:\n\t"
	"hint #34\n\t"
	"add x0, x0, #6\n\t"
	"ret\n"
	".type kpo_pad, %function\n.size kpo_pad, . - kpo_pad\n"

	/* The flags set by the CMP are live across the probed MOV. */
	"kpo_flags:\n\t"
	"hint #34\n\t"
	"cmp x0, x1\n\t"
	"mov x2, #3\n\t"
	"cset x0, eq\n\t"
	"ret\n"
	".type kpo_flags, %function\n.size kpo_flags, . - kpo_flags\n"

	"kpo_regs:\n\t"
	"hint #34\n\t"
	"add x0, x0, #9\n\t"
	"ret\n"
	".type kpo_regs, %function\n.size kpo_regs, . - kpo_regs\n"

	/*
	 * x16 and x17 hold the arguments across the probe, which a
	 * pre_handler may send to kpo_moved_to instead of the MOV.
	 */
	"kpo_moved:\n\t"
	"hint #34\n\t"
	"mov x16, x0\n\t"
	"mov x17, x1\n\t"
	"mov x0, #1\n\t"
	"add x0, x16, x17\n\t"
	"ret\n"
	"kpo_moved_to:\n\t"
	"sub x0, x16, x17\n\t"
	"ret\n"
	".type kpo_moved, %function\n.size kpo_moved, . - kpo_moved\n"

	"kpo_b:\n\t"
	"hint #34\n\t"
	"b 1f\n\t"
	"mov x0, #0\n"
	"1:\tadd x0, x0, #1\n\t"
	"ret\n"
	".type kpo_b, %function\n.size kpo_b, . - kpo_b\n"

	"kpo_bcond:\n\t"
	"hint #34\n\t"
	"cmp x0, #5\n\t"
	"b.eq 1f\n\t"
	"mov x0, #0\n\t"
	"ret\n"
	"1:\tmov x0, #1\n\t"
	"ret\n"
	".type kpo_bcond, %function\n.size kpo_bcond, . - kpo_bcond\n"

	"kpo_cbz:\n\t"
	"hint #34\n\t"
	"cbz x0, 1f\n\t"
	"mov x0, #7\n\t"
	"ret\n"
	"1:\tmov x0, #9\n\t"
	"ret\n"
	".type kpo_cbz, %function\n.size kpo_cbz, . - kpo_cbz\n"

	"kpo_tbnz:\n\t"
	"hint #34\n\t"
	"tbnz x0, #3, 1f\n\t"
	"mov x0, #7\n\t"
	"ret\n"
	"1:\tmov x0, #9\n\t"
	"ret\n"
	".type kpo_tbnz, %function\n.size kpo_tbnz, . - kpo_tbnz\n"

	"kpo_bl:\n\t"
	"hint #34\n\t"
	"stp x29, x30, [sp, #-16]!\n\t"
	"mov x29, sp\n\t"
	"bl kpo_callee\n\t"
	"add x0, x0, #1\n\t"
	"ldp x29, x30, [sp], #16\n\t"
	"ret\n"
	".type kpo_bl, %function\n.size kpo_bl, . - kpo_bl\n"

	"kpo_blr:\n\t"
	"hint #34\n\t"
	"stp x29, x30, [sp, #-16]!\n\t"
	"mov x29, sp\n\t"
	"blr x1\n\t"
	"ldp x29, x30, [sp], #16\n\t"
	"ret\n"
	".type kpo_blr, %function\n.size kpo_blr, . - kpo_blr\n"

	"kpo_callee:\n\t"
	"hint #34\n\t"
	"add x0, x0, #2\n\t"
	"ret\n"
	".type kpo_callee, %function\n.size kpo_callee, . - kpo_callee\n"

	"kpo_adrp:\n\t"
	"hint #34\n\t"
	"adrp x0, kpo_adrp\n\t"
	"ret\n"
	".type kpo_adrp, %function\n.size kpo_adrp, . - kpo_adrp\n"

	"kpo_ldr_x:\n\t"
	"hint #34\n\t"
	"ldr x0, .Lkpo_quad\n\t"
	"ret\n"
	".type kpo_ldr_x, %function\n.size kpo_ldr_x, . - kpo_ldr_x\n"

	"kpo_ldr_w:\n\t"
	"hint #34\n\t"
	"ldr w0, .Lkpo_word\n\t"
	"ret\n"
	".type kpo_ldr_w, %function\n.size kpo_ldr_w, . - kpo_ldr_w\n"

	"kpo_ldrsw:\n\t"
	"hint #34\n\t"
	"ldrsw x0, .Lkpo_word\n\t"
	"ret\n"
	".type kpo_ldrsw, %function\n.size kpo_ldrsw, . - kpo_ldrsw\n"

	"kpo_ret:\n\t"
	"hint #34\n\t"
	"mov x0, #11\n\t"
	"ret\n"
	".type kpo_ret, %function\n.size kpo_ret, . - kpo_ret\n"

	".balign 8\n"
	".Lkpo_quad:\t.quad 0x1122334455667788\n"
	".Lkpo_word:\t.word 0x89abcdef\n"
	".balign 4\n"

	/* Only ever called directly: no landing pad, an STP at its entry. */
	"kpo_entry:\n\t"
	"stp x29, x30, [sp, #-16]!\n\t"
	"mov x29, sp\n\t"
	"add x0, x0, #2\n\t"
	"ldp x29, x30, [sp], #16\n\t"
	"ret\n"
	".type kpo_entry, %function\n.size kpo_entry, . - kpo_entry\n"
	".popsection\n");

#define KPO_VALUE	0x0ddba11c0ffeeull

static u64 kpo_val = KPO_VALUE;

struct kpo_probe {
	struct kprobe kp;
	int pre;
	struct pt_regs seen;
};

static int kpo_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpo_probe *op = container_of(p, struct kpo_probe, kp);

	op->pre++;
	op->seen = *regs;
	return 0;
}

static void kpo_unregister_action(void *kp)
{
	unregister_kprobe(kp);
}

/* A probe at @addr, unregistered when the case ends. */
static struct kpo_probe *kpo_register(struct kunit *test, void *addr,
				      kprobe_pre_handler_t pre)
{
	struct kpo_probe *op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, op);
	op->kp.addr = addr;
	op->kp.pre_handler = pre ?: kpo_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&op->kp), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpo_unregister_action,
							&op->kp), 0);
	wait_for_kprobe_optimizer();
	return op;
}

static kprobe_opcode_t *kpo_word(void *func, int word)
{
	return (kprobe_opcode_t *)func + word;
}

/* The instruction at @at, as the CPU reads it. */
static u32 kpo_insn_at(const kprobe_opcode_t *at)
{
	return le32_to_cpu((__force __le32)READ_ONCE(*at));
}

/* A B's target: its 26-bit immediate counts words. */
static unsigned long kpo_b_target(const kprobe_opcode_t *at)
{
	u32 b = kpo_insn_at(at);

	return (unsigned long)at + sign_extend64((u64)(b & GENMASK(25, 0)) << 2, 27);
}

/*
 * @p is optimized: the text holds a B to a detour within reach, and the
 * detour's instruction after the restore is the probed one.
 */
static void kpo_expect_optimized(struct kunit *test, struct kprobe *p)
{
	u32 now = kpo_insn_at(p->addr);

	KUNIT_ASSERT_EQ(test, kprobe_opt_state_of(p), KPROBE_OPT_ACTIVE);
	KUNIT_ASSERT_TRUE_MSG(test, aarch64_insn_is_b(now),
			      "%pS holds %08x, not a B", p->addr, now);
	KUNIT_EXPECT_TRUE(test, is_kprobe_optinsn_slot(kpo_b_target(p->addr)));
}

/* @p is a BRK probe, and stays one. */
static void kpo_expect_brk(struct kunit *test, struct kprobe *p)
{
	u32 now = kpo_insn_at(p->addr);

	KUNIT_EXPECT_NE(test, kprobe_opt_state_of(p), KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, now, BRK64_OPCODE_KPROBES);
}

struct kpo_class {
	const char *desc;
	void *func;
	int word;
	bool optimized;
	u64 (*run)(void);	/* calls func; returns what it got wrong */
	int hits;		/* of the probe in one run; 0 for one */
};

static u64 kpo_run_load(void)
{
	return kpo_load(&kpo_val) ^ (KPO_VALUE + 1);
}

static u64 kpo_run_nop(void)
{
	return kpo_nop(38) ^ 42;
}

static u64 kpo_run_adr(void)
{
	return kpo_adr() ^ (u64)kpo_adr;
}

static u64 kpo_run_b(void)
{
	return kpo_b(41) ^ 42;
}

static u64 kpo_run_bcond(void)
{
	return (kpo_bcond(5) ^ 1) | kpo_bcond(6);
}

static u64 kpo_run_cbz(void)
{
	return (kpo_cbz(0) ^ 9) | (kpo_cbz(1) ^ 7);
}

static u64 kpo_run_tbnz(void)
{
	return (kpo_tbnz(8) ^ 9) | (kpo_tbnz(7) ^ 7);
}

static u64 kpo_run_bl(void)
{
	return kpo_bl(39) ^ 42;
}

static u64 kpo_run_blr(void)
{
	return kpo_blr(40, kpo_callee) ^ 42;
}

static u64 kpo_run_adrp(void)
{
	return kpo_adrp() ^ ((u64)kpo_adrp & ~(u64)(SZ_4K - 1));
}

static u64 kpo_run_ldr_x(void)
{
	return kpo_ldr_x() ^ 0x1122334455667788ull;
}

static u64 kpo_run_ldr_w(void)
{
	return kpo_ldr_w() ^ 0x89abcdefull;
}

static u64 kpo_run_ldrsw(void)
{
	return kpo_ldrsw() ^ 0xffffffff89abcdefull;
}

static u64 kpo_run_ret(void)
{
	return kpo_ret() ^ 11;
}

static u64 kpo_run_fixup(void)
{
	return kpo_fixup(&kpo_val) ^ KPO_VALUE;
}

static u64 kpo_run_pad(void)
{
	return kpo_pad(36) ^ 42;
}

static u64 kpo_run_entry(void)
{
	return kpo_entry(40) ^ 42;
}

static const struct kpo_class kpo_classes[] = {
	{ "LDR x0, [x0]: stepped, runs in the detour", kpo_load, 1, true,
	  kpo_run_load },
	{ "NOP: simulated, runs in the detour", kpo_nop, 1, true, kpo_run_nop },
	{ "STP x29, x30, [sp, #-16]! at an entry: runs in the detour",
	  kpo_entry, 0, true, kpo_run_entry },
	{ "RET: runs in the detour", kpo_ret, 2, true, kpo_run_ret },
	{ "B: a B from the detour", kpo_b, 1, true, kpo_run_b },
	{ "B.EQ, taken and not: the test, then B's from the detour", kpo_bcond,
	  2, true, kpo_run_bcond, 2 },
	{ "CBZ, taken and not: likewise", kpo_cbz, 1, true, kpo_run_cbz, 2 },
	{ "TBNZ, taken and not: likewise", kpo_tbnz, 1, true, kpo_run_tbnz, 2 },
	{ "BL: x30 from a literal, a B from the detour", kpo_bl, 3, true,
	  kpo_run_bl },
	{ "ADR: the address from a literal", kpo_adr, 1, true, kpo_run_adr },
	{ "ADRP: the page from a literal", kpo_adrp, 1, true, kpo_run_adrp },
	{ "LDR x0, literal: its address from a literal, then the load",
	  kpo_ldr_x, 1, true, kpo_run_ldr_x },
	{ "LDR w0, literal: likewise", kpo_ldr_w, 1, true, kpo_run_ldr_w },
	{ "LDRSW x0, literal: likewise", kpo_ldrsw, 1, true, kpo_run_ldrsw },
	/* From the detour a call would return into it. */
	{ "BLR: stays a BRK", kpo_blr, 3, false, kpo_run_blr },
	{ "LDR with an exception-table entry: stays a BRK", kpo_fixup, 1, false,
	  kpo_run_fixup },
	/* A B over a landing pad would fault every indirect call. */
	{ "BTI C: a landing pad, a BRK where the kernel uses BTI", kpo_pad, 0,
	  !IS_ENABLED(CONFIG_ARM64_BTI_KERNEL), kpo_run_pad },
};

static void kpo_class_desc(const struct kpo_class *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpo_class, kpo_classes, kpo_class_desc);

#define KPO_CALLS	3

/* Each class is optimized or not as kpa_opt_refusal() says, and works. */
static void opt_by_class(struct kunit *test)
{
	const struct kpo_class *c = test->param_value;
	struct kpo_probe *op = kpo_register(test, kpo_word(c->func, c->word),
					    NULL);
	int i;

	if (c->optimized)
		kpo_expect_optimized(test, &op->kp);
	else
		kpo_expect_brk(test, &op->kp);
	for (i = 0; i < KPO_CALLS; i++)
		KUNIT_EXPECT_EQ(test, c->run(), 0);
	KUNIT_EXPECT_EQ(test, op->pre, KPO_CALLS * (c->hits ?: 1));
	KUNIT_EXPECT_EQ(test, op->kp.nmissed, 0);
	/* Where the handler found the pc: on the probe, as with a BRK. */
	KUNIT_EXPECT_EQ(test, instruction_pointer(&op->seen),
			(unsigned long)op->kp.addr);
}

/*
 * The handler path changes the condition flags; the detour gives the
 * probed context back its own, live between a CMP and a CSET.
 */
static void opt_flags_kept(struct kunit *test)
{
	struct kpo_probe *op = kpo_register(test, kpo_word(kpo_flags, 2), NULL);

	kpo_expect_optimized(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_flags(5, 5), 1);
	KUNIT_EXPECT_EQ(test, kpo_flags(5, 6), 0);
	KUNIT_EXPECT_EQ(test, kpo_flags(0, 0), 1);
	KUNIT_EXPECT_EQ(test, kpo_flags(~0ull, 1), 0);
	KUNIT_EXPECT_EQ(test, op->pre, 4);
}

#define KPO_FLAGS	(PSR_N_BIT | PSR_Z_BIT | PSR_C_BIT | PSR_V_BIT)

static int kpo_pre_sets_flags(struct kprobe *p, struct pt_regs *regs)
{
	/* Z set, as though the CMP had found the operands equal. */
	regs->pstate = (regs->pstate & ~KPO_FLAGS) | PSR_Z_BIT;
	return kpo_pre(p, regs);
}

/* The flags in pt_regs are the context's: a handler that sets them, wins. */
static void opt_flags_set_by_handler(struct kunit *test)
{
	struct kpo_probe *op = kpo_register(test, kpo_word(kpo_flags, 2),
					    kpo_pre_sets_flags);

	kpo_expect_optimized(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_flags(5, 6), 1);
	KUNIT_EXPECT_EQ(test, op->pre, 1);
}

/* Run kpo_regs(x) once, from the one call site both paths share. */
static noinline u64 kpo_call_regs(u64 x)
{
	return kpo_regs(x);
}

static int kpo_pre_changes_x0(struct kprobe *p, struct pt_regs *regs)
{
	kpo_pre(p, regs);
	regs->regs[0] += 100;
	return 0;
}

/*
 * What the handler sees in the detour is what it sees through the BRK:
 * the pc, sp, the frame and link registers, the arguments, the interrupt
 * masks; and what it writes to a register is what the function goes on
 * with.
 */
static void opt_regs_as_brk(struct kunit *test)
{
	struct kpo_probe *op = kpo_register(test, kpo_word(kpo_regs, 1),
					    kpo_pre_changes_x0);
	struct pt_regs detour, brk;

	kpo_expect_optimized(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_call_regs(1), 110);
	detour = op->seen;

	kprobe_opt_set_enabled(false);
	kpo_expect_brk(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_call_regs(1), 110);
	brk = op->seen;
	kprobe_opt_set_enabled(true);
	wait_for_kprobe_optimizer();
	kpo_expect_optimized(test, &op->kp);

	KUNIT_EXPECT_EQ(test, op->pre, 2);
	KUNIT_EXPECT_EQ(test, detour.pc, brk.pc);
	KUNIT_EXPECT_EQ(test, detour.sp, brk.sp);
	KUNIT_EXPECT_EQ(test, detour.regs[0], 1);
	KUNIT_EXPECT_EQ(test, detour.regs[0], brk.regs[0]);
	KUNIT_EXPECT_EQ(test, detour.regs[29], brk.regs[29]);
	KUNIT_EXPECT_EQ(test, detour.regs[30], brk.regs[30]);
	KUNIT_EXPECT_EQ(test, detour.pstate & (PSR_MODE_MASK | DAIF_MASK),
			brk.pstate & (PSR_MODE_MASK | DAIF_MASK));
	KUNIT_EXPECT_EQ(test, detour.pstate & PSR_MODE_MASK, PSR_MODE_EL1h);
}

static int kpo_pre_moves(struct kprobe *p, struct pt_regs *regs)
{
	kpo_pre(p, regs);
	instruction_pointer_set(regs, (unsigned long)kpo_moved_to);
	regs->regs[16] += 100;
	return 1;
}

/*
 * A pre_handler that moves the pc: the detour goes on there, with every
 * register as the handler left it, x16 and x17 included (they are live
 * in the function, and the detour borrows no register to get there).
 */
static void opt_moved_pc(struct kunit *test)
{
	struct kpo_probe *op = kpo_register(test, kpo_word(kpo_moved, 3),
					    kpo_pre_moves);

	kpo_expect_optimized(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_moved(50, 8), 142);
	KUNIT_EXPECT_EQ(test, kpo_moved(7, 7), 100);
	KUNIT_EXPECT_EQ(test, op->pre, 2);
}

static u64 kpo_inner_got;

static int kpo_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpo_inner_got = kpo_load(&kpo_val);
	return kpo_pre(p, regs);
}

/*
 * An optimized probe hit inside another probe's handler runs no handler
 * and is counted as missed; its instruction still runs.
 */
static void opt_reentered(struct kunit *test)
{
	struct kpo_probe *inner, *outer;

	inner = kpo_register(test, kpo_word(kpo_load, 1), NULL);
	kpo_expect_optimized(test, &inner->kp);
	outer = kpo_register(test, kpo_word(kpo_nop, 1), kpo_outer_pre);
	kpo_expect_optimized(test, &outer->kp);

	kpo_inner_got = 0;
	KUNIT_EXPECT_EQ(test, kpo_run_nop(), 0);
	KUNIT_EXPECT_EQ(test, kpo_inner_got, KPO_VALUE + 1);
	KUNIT_EXPECT_EQ(test, outer->pre, 1);
	KUNIT_EXPECT_EQ(test, inner->pre, 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, kpo_run_load(), 0);
	KUNIT_EXPECT_EQ(test, inner->pre, 1);
}

/* The sysctl takes the B out and puts it back; hits work throughout. */
static void opt_sysctl_switch(struct kunit *test)
{
	struct kpo_probe *op = kpo_register(test, kpo_word(kpo_load, 1), NULL);

	kpo_expect_optimized(test, &op->kp);
	kprobe_opt_set_enabled(false);
	kpo_expect_brk(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_run_load(), 0);
	kprobe_opt_set_enabled(true);
	wait_for_kprobe_optimizer();
	kpo_expect_optimized(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_run_load(), 0);
	KUNIT_EXPECT_EQ(test, op->pre, 2);
}

static int kpo_post_calls;

static void kpo_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	kpo_post_calls++;
}

/*
 * A post_handler needs the exception: its probe stays a BRK, and one
 * joining an optimized probe takes the B out until it leaves.
 */
static void opt_post_handler_keeps_brk(struct kunit *test)
{
	struct kpo_probe *op = kpo_register(test, kpo_word(kpo_load, 1), NULL);
	struct kpo_probe *post;

	kpo_expect_optimized(test, &op->kp);
	post = kunit_kzalloc(test, sizeof(*post), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, post);
	post->kp.addr = op->kp.addr;
	post->kp.pre_handler = kpo_pre;
	post->kp.post_handler = kpo_post;
	kpo_post_calls = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&post->kp), 0);
	wait_for_kprobe_optimizer();
	kpo_expect_brk(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_run_load(), 0);
	KUNIT_EXPECT_EQ(test, kpo_post_calls, 1);
	unregister_kprobe(&post->kp);
	wait_for_kprobe_optimizer();
	kpo_expect_optimized(test, &op->kp);
	KUNIT_EXPECT_EQ(test, kpo_run_load(), 0);
	KUNIT_EXPECT_EQ(test, op->pre, 2);
	KUNIT_EXPECT_EQ(test, post->pre, 1);
}

/* The preempted case (kprobes_arm64_preempt_kunit.h), in a detour. */
struct kpo_catch {
	struct kpo_probe op;
	struct kpc_catch c;
};

static int kpo_catch_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpc_hit(&container_of(p, struct kpo_catch, op.kp)->c);
	return kpo_pre(p, regs);
}

/* A return address into the part every detour calls. */
static bool kpo_in_detour(unsigned long ip, const void *unused)
{
	char name[KSYM_SYMBOL_LEN];

	snprintf(name, sizeof(name), "%ps", (void *)ip);
	return !strcmp(name, "arm64_kprobe_detour_common");
}

/*
 * A task preempted in a detour (where its hit enables preemption again)
 * while the probe is unregistered: the detour is not handed out again
 * while the task can come back to it, and the task finishes the probed
 * instruction correctly when it does.
 */
static void opt_preempted_in_detour(struct kunit *test)
{
	bool in_detour, still_in, taken, went_on;
	kprobe_opcode_t *detour;
	struct kpo_catch *c;

	kpc_require(test);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->op.kp.addr = kpo_word(kpo_load, 1);
	c->op.kp.pre_handler = kpo_catch_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&c->op.kp), 0);
	/* Unregistered however the case ends, before @c is freed. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpo_unregister_action,
							&c->op.kp), 0);
	wait_for_kprobe_optimizer();
	kpo_expect_optimized(test, &c->op.kp);
	detour = (kprobe_opcode_t *)kpo_b_target(c->op.kp.addr);
	if (!kpc_start(test, &c->c, kpo_run_load))
		return;

	/* From here on no ASSERT: the threads must be stopped first. */
	in_detour = kpc_catch(&c->c) && kpc_runner_in(&c->c, kpo_in_detour, NULL);
	kunit_release_action(test, kpo_unregister_action, &c->op.kp);
	taken = kprobe_slot_taken_kunit(&kprobe_optinsn_slots, detour);
	/* It counts only if the runner stayed there all along. */
	still_in = READ_ONCE(c->c.hog_spin) &&
		   kpc_runner_in(&c->c, kpo_in_detour, NULL);
	/* Back in the detour, the runner loads and goes on. */
	went_on = kpc_finish(&c->c);

	kpc_expect(test, &c->c, "detour", in_detour, still_in, taken, went_on);
}

static int kpo_ret_entries, kpo_ret_returns;
static u64 kpo_ret_value;

static int kpo_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpo_ret_entries++;
	return 0;
}

static int kpo_ret_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpo_ret_returns++;
	kpo_ret_value = regs_return_value(regs);
	return 0;
}

static void kpo_unregister_kretprobe(void *rp)
{
	unregister_kretprobe(rp);
}

/* A kretprobe on an entry that is no ftrace site rides an optimized entry. */
static void opt_kretprobe_entry(struct kunit *test)
{
	struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rp);
	rp->kp.addr = (kprobe_opcode_t *)kpo_entry;
	rp->entry_handler = kpo_ret_entry;
	rp->handler = kpo_ret_return;
	kpo_ret_entries = 0;
	kpo_ret_returns = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(rp), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpo_unregister_kretprobe,
							rp), 0);
	wait_for_kprobe_optimizer();
	kpo_expect_optimized(test, &rp->kp);
	KUNIT_EXPECT_EQ(test, kpo_run_entry(), 0);
	KUNIT_EXPECT_EQ(test, kpo_ret_entries, 1);
	KUNIT_EXPECT_EQ(test, kpo_ret_returns, 1);
	KUNIT_EXPECT_EQ(test, kpo_ret_value, 42);
}

#define KPO_BATCH	4

static struct task_struct *kpo_stopper;
static int kpo_stops;

static int kpo_count_stop(struct kprobe *p, struct pt_regs *regs)
{
	if (current == kpo_stopper)
		kpo_stops++;
	return 0;
}

static int kpo_batch_register(struct kprobe **kps)
{
	return register_kprobes(kps, KPO_BATCH);
}

static int kpo_batch_disable(struct kprobe **kps)
{
	return disable_kprobes(kps, KPO_BATCH);
}

static int kpo_batch_unregister(struct kprobe **kps)
{
	unregister_kprobes(kps, KPO_BATCH);
	return 0;
}

/* The sysctl, off and on: every jump, the batch's among them. */
static int kpo_batch_opt_off(struct kprobe **kps)
{
	kprobe_opt_set_enabled(false);
	return 0;
}

static int kpo_batch_opt_on(struct kprobe **kps)
{
	kprobe_opt_set_enabled(true);
	return 0;
}

/*
 * @fn(@kps), named @what, returns 0 and stops the machine once or twice:
 * it wrote text, and not once per probe.
 */
static void kpo_expect_batch_stops(struct kunit *test, const char *what,
				   int (*fn)(struct kprobe **kps),
				   struct kprobe **kps)
{
	kpo_stops = 0;
	kpo_stopper = current;
	KUNIT_EXPECT_EQ_MSG(test, fn(kps), 0, "%s", what);
	kpo_stopper = NULL;
	KUNIT_EXPECT_GE_MSG(test, kpo_stops, 1, "%s wrote no text", what);
	KUNIT_EXPECT_LE_MSG(test, kpo_stops, 2, "%s: a stop per B", what);
}

/* Every probe of the batch is optimized. */
static void kpo_expect_batch_optimized(struct kunit *test, struct kprobe **kps)
{
	int i;

	for (i = 0; i < KPO_BATCH; i++)
		kpo_expect_optimized(test, kps[i]);
}

static void kpo_unregister_batch(void *kps)
{
	unregister_kprobes(kps, KPO_BATCH);
}

/* The words @at hold @orig again. */
static void kpo_expect_words(struct kunit *test, kprobe_opcode_t **at,
			     const u32 *orig)
{
	u32 now;
	int i;

	for (i = 0; i < KPO_BATCH; i++) {
		now = kpo_insn_at(at[i]);
		KUNIT_EXPECT_EQ_MSG(test, now, orig[i], "at %pS", at[i]);
	}
}

/*
 * The stop counter on stop_machine_cpuslocked(), which
 * aarch64_insn_patch_text() calls, counting this task's stops only, and
 * KPO_BATCH optimizable probes, not yet registered, on word 1 of four
 * functions: at[] their addresses, orig[] the words there.
 */
static struct kprobe **kpo_batch_make(struct kunit *test,
				      kprobe_opcode_t **at, u32 *orig)
{
	static void * const funcs[KPO_BATCH] = { kpo_load, kpo_nop, kpo_adr, kpo_b };
	struct kprobe **kps, *counter;
	struct kpo_probe *op;
	int i;

	counter = kunit_kzalloc(test, sizeof(*counter), GFP_KERNEL);
	kps = kunit_kcalloc(test, KPO_BATCH, sizeof(*kps), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, counter);
	KUNIT_ASSERT_NOT_NULL(test, kps);
	counter->symbol_name = "stop_machine_cpuslocked";
	counter->pre_handler = kpo_count_stop;
	for (i = 0; i < KPO_BATCH; i++) {
		op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, op);
		at[i] = kpo_word(funcs[i], 1);
		orig[i] = kpo_insn_at(at[i]);
		op->kp.addr = at[i];
		op->kp.pre_handler = kpo_pre;
		kps[i] = &op->kp;
	}
	KUNIT_ASSERT_EQ(test, register_kprobe(counter), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpo_unregister_action,
							counter), 0);
	return kps;
}

/*
 * A batch's jumps go in together, and come out together: registering
 * optimizable probes with register_kprobes() (or enabling them) stops the
 * machine once for their BRKs and once for their Bs, and disable_kprobes()
 * or unregister_kprobes() once for the Bs and once for the BRKs under
 * them, where each B going in or out on its own stopped the machine once
 * per probe.  The sysctl takes every B out, and puts them back, with one
 * stop each way.
 */
static void opt_batch_jumps_together(struct kunit *test)
{
	kprobe_opcode_t *at[KPO_BATCH];
	struct kprobe **kps;
	u32 orig[KPO_BATCH];
	int i;

	kps = kpo_batch_make(test, at, orig);
	kpo_expect_batch_stops(test, "register_kprobes()", kpo_batch_register, kps);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpo_unregister_batch,
							kps), 0);
	kpo_expect_batch_optimized(test, kps);

	kpo_expect_batch_stops(test, "disable_kprobes()", kpo_batch_disable, kps);
	kpo_expect_words(test, at, orig);

	KUNIT_ASSERT_EQ(test, enable_kprobes(kps, KPO_BATCH), 0);
	wait_for_kprobe_optimizer();
	kpo_expect_batch_optimized(test, kps);

	kpo_expect_batch_stops(test, "the sysctl off", kpo_batch_opt_off, kps);
	for (i = 0; i < KPO_BATCH; i++)
		kpo_expect_brk(test, kps[i]);
	kpo_expect_batch_stops(test, "the sysctl on", kpo_batch_opt_on, kps);
	kpo_expect_batch_optimized(test, kps);

	kpo_expect_batch_stops(test, "unregister_kprobes()", kpo_batch_unregister, kps);
	kpo_expect_words(test, at, orig);
	KUNIT_EXPECT_EQ(test, kpo_run_load(), 0);
}

/* The text under the batch goes, as a module's init text would. */
static int kpo_batch_text_gone(struct kprobe **kps)
{
	kprobe_opcode_t *lo = kps[0]->addr, *hi = kps[0]->addr;
	int i;

	for (i = 1; i < KPO_BATCH; i++) {
		lo = min(lo, kps[i]->addr);
		hi = max(hi, kps[i]->addr);
	}
	kprobe_text_gone_kunit(lo, hi + 1);
	return 0;
}

/*
 * Text that goes away (a module unloading, or its init text freed) takes
 * its probes' jumps out together, and, where that text may still run
 * until it is freed, their BRKs together: a stop for each, where each B
 * and each BRK stopped the machine on its own.  The text here stays: it
 * holds its own instructions again and runs unprobed, and the [GONE]
 * probes unregister as usual.
 */
static void opt_text_gone_together(struct kunit *test)
{
	kprobe_opcode_t *at[KPO_BATCH];
	struct kprobe **kps;
	u32 orig[KPO_BATCH];
	int i;

	kps = kpo_batch_make(test, at, orig);
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, KPO_BATCH), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpo_unregister_batch,
							kps), 0);
	kpo_expect_batch_optimized(test, kps);

	kpo_expect_batch_stops(test, "the text going", kpo_batch_text_gone, kps);
	kpo_expect_words(test, at, orig);
	for (i = 0; i < KPO_BATCH; i++)
		KUNIT_EXPECT_TRUE_MSG(test, kprobe_gone(kps[i]), "%pS",
				      kps[i]->addr);
	KUNIT_EXPECT_EQ(test, kpo_run_load(), 0);
	for (i = 0; i < KPO_BATCH; i++)
		KUNIT_EXPECT_EQ(test, container_of(kps[i], struct kpo_probe, kp)->pre, 0);
}

static int kpo_suite_init(struct kunit_suite *suite)
{
	/* Every case expects the sysctl's default. */
	kprobe_opt_set_enabled(true);
	return 0;
}

static struct kunit_case kpo_cases[] = {
	KUNIT_CASE_PARAM(opt_by_class, kpo_class_gen_params),
	KUNIT_CASE(opt_flags_kept),
	KUNIT_CASE(opt_flags_set_by_handler),
	KUNIT_CASE(opt_regs_as_brk),
	KUNIT_CASE(opt_moved_pc),
	KUNIT_CASE(opt_reentered),
	KUNIT_CASE(opt_sysctl_switch),
	KUNIT_CASE(opt_post_handler_keeps_brk),
	KUNIT_CASE(opt_kretprobe_entry),
	KUNIT_CASE(opt_batch_jumps_together),
	KUNIT_CASE(opt_text_gone_together),
	KUNIT_CASE_ATTR(opt_preempted_in_detour, { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite kpo_suite = {
	.name = "kprobes_arm64_opt",
	.suite_init = kpo_suite_init,
	.test_cases = kpo_cases,
};

kunit_test_suites(&kpo_suite);

MODULE_DESCRIPTION("KUnit cases for arm64 kprobes jump optimization");
MODULE_LICENSE("GPL");

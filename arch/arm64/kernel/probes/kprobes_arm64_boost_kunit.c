// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for arm64 boosting: which stepped instructions get a boost
 * slot, what a boosted hit does, a boosted probe hit from inside another
 * probe's handler, a boost slot for the kernel image's text, and a task
 * preempted inside a boost slot whose probe goes away under it.
 *
 * Each test function below opens with a BTI landing pad, and its probed
 * instruction is the next word.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

#include <asm/asm-extable.h>
#include <asm/insn.h>

#include "kprobes_arm64_kunit.h"
#include "kprobes_arm64_preempt_kunit.h"

/* kprobe_slot_taken_kunit() and the optimization sysctl, for KUnit only */
#include "../../../../kernel/kprobes_internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

asm(".pushsection .text, \"ax\"\n"
	".balign 8\n"
	"kpb_load:\n\t"
	"hint #34\n\t"
	"ldr x0, [x0]\n\t"
	"add x0, x0, #1\n\t"
	"ret\n"
	".type kpb_load, %function\n.size kpb_load, . - kpb_load\n"

	"kpb_store:\n\t"
	"hint #34\n\t"
	"str x1, [x0]\n\t"
	"ret\n"
	".type kpb_store, %function\n.size kpb_store, . - kpb_store\n"

	"kpb_push:\n\t"
	"hint #34\n\t"
	"stp x29, x30, [sp, #-16]!\n\t"
	"mov x29, sp\n\t"
	"add x0, x0, #2\n\t"
	"ldp x29, x30, [sp], #16\n\t"
	"ret\n"
	".type kpb_push, %function\n.size kpb_push, . - kpb_push\n"

	"kpb_mrs:\n\t"
	"hint #34\n\t"
	"mrs x0, sp_el0\n\t"
	"ret\n"
	".type kpb_mrs, %function\n.size kpb_mrs, . - kpb_mrs\n"

	"kpb_add:\n\t"
	"hint #34\n\t"
	"add x0, x0, #7\n\t"
	"ret\n"
	".type kpb_add, %function\n.size kpb_add, . - kpb_add\n"

	"kpb_fixup:\n\t"
	"hint #34\n"
	"1:\tldr x0, [x0]\n"
	"2:\tret\n"
	_ASM_EXTABLE_KACCESS(1b, 2b) "\n"
	".type kpb_fixup, %function\n.size kpb_fixup, . - kpb_fixup\n"
	".popsection\n");

/* The probed instruction of a test function: the word after its BTI. */
static kprobe_opcode_t *kpb_site(void *func)
{
	return (kprobe_opcode_t *)func + 1;
}

#define KPB_VALUE	0x5eed0000abcdull

struct kpb_probe {
	struct kprobe kp;
	atomic_t pre, post;
};

static int kpb_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&container_of(p, struct kpb_probe, kp)->pre);
	return 0;
}

static void kpb_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	atomic_inc(&container_of(p, struct kpb_probe, kp)->post);
}

static void kpb_unregister_action(void *kp)
{
	unregister_kprobe(kp);
}

/* A probe on @func's probed instruction, unregistered when the case ends. */
static struct kpb_probe *kpb_register(struct kunit *test, void *func,
				      bool with_post)
{
	struct kpb_probe *bp = kunit_kzalloc(test, sizeof(*bp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bp);
	bp->kp.addr = kpb_site(func);
	bp->kp.pre_handler = kpb_pre;
	if (with_post)
		bp->kp.post_handler = kpb_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&bp->kp), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpb_unregister_action,
							&bp->kp), 0);
	return bp;
}

static void kpb_unregister(struct kunit *test, struct kpb_probe *bp)
{
	kunit_release_action(test, kpb_unregister_action, &bp->kp);
}

/* A B's offset: its 26-bit immediate counts words (not exported by insn.c). */
static s64 kpb_branch_offset(u32 b)
{
	return sign_extend64((u64)(b & GENMASK(25, 0)) << 2, 27);
}

/* The boost slot holds the instruction, then a B to the next original one. */
static void kpb_expect_boost_slot(struct kunit *test, struct kprobe *kp)
{
	const kprobe_opcode_t *slot = kp->ainsn.boost_slot;
	u32 back;

	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_EXPECT_EQ(test, le32_to_cpu((__force __le32)slot[0]), kp->opcode);
	back = le32_to_cpu((__force __le32)slot[1]);
	KUNIT_ASSERT_TRUE_MSG(test, aarch64_insn_is_b(back),
			      "slot[1] is %08x, not a B", back);
	KUNIT_EXPECT_EQ(test, (unsigned long)(slot + 1) + kpb_branch_offset(back),
			(unsigned long)(kp->addr + 1));
}

struct kpb_class {
	const char *desc;
	void *func;
	bool boosts;
	u64 (*run)(void);	/* calls func; returns what it got wrong */
};

static u64 kpb_val = KPB_VALUE;

static u64 kpb_run_load(void)
{
	return kpb_load(&kpb_val) ^ (KPB_VALUE + 1);
}

static u64 kpb_run_store(void)
{
	u64 v = 0;

	kpb_store(&v, KPB_VALUE);
	return v ^ KPB_VALUE;
}

static u64 kpb_run_push(void)
{
	return kpb_push(40) ^ 42;
}

static u64 kpb_run_mrs(void)
{
	return kpb_mrs() ^ (u64)current;
}

static u64 kpb_run_add(void)
{
	return kpb_add(35) ^ 42;
}

static u64 kpb_run_fixup(void)
{
	return kpb_fixup(&kpb_val) ^ KPB_VALUE;
}

static const struct kpb_class kpb_classes[] = {
	{ "LDR x0, [x0]: a load, boosted", kpb_load, true, kpb_run_load },
	{ "STR x1, [x0]: a store, boosted", kpb_store, true, kpb_run_store },
	{ "STP x29, x30, [sp, #-16]!: a push, boosted", kpb_push, true,
	  kpb_run_push },
	{ "MRS x0, sp_el0: boosted", kpb_mrs, true, kpb_run_mrs },
	/* Run in the BRK handler already, except where BTI guards slots. */
	{ "ADD x0, x0, #7: register only, boosted with BTI", kpb_add,
	  IS_ENABLED(CONFIG_ARM64_BTI_KERNEL), kpb_run_add },
	{ "LDR with an exception-table entry: stepped", kpb_fixup, false,
	  kpb_run_fixup },
};

static void kpb_class_desc(const struct kpb_class *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpb_class, kpb_classes, kpb_class_desc);

#define KPB_CALLS	3

/*
 * Each class has a boost slot or not as kpa_boostable() says, and does
 * the same as unprobed either way.  A pre_handler alone lets a hit boost.
 */
static void boost_by_class(struct kunit *test)
{
	const struct kpb_class *c = test->param_value;
	struct kpb_probe *bp = kpb_register(test, c->func, false);
	int i;

	if (c->boosts)
		kpb_expect_boost_slot(test, &bp->kp);
	else
		KUNIT_EXPECT_NULL(test, bp->kp.ainsn.boost_slot);
	for (i = 0; i < KPB_CALLS; i++)
		KUNIT_EXPECT_EQ(test, c->run(), 0);
	kpb_unregister(test, bp);
	KUNIT_EXPECT_EQ(test, atomic_read(&bp->pre), KPB_CALLS);
	KUNIT_EXPECT_EQ(test, c->run(), 0);
}

/*
 * A post_handler joining a boosted probe is called: a hit boosts only
 * while no post_handler waits, and boosts again once it has gone.
 */
static void boost_post_handler_joins(struct kunit *test)
{
	struct kpb_probe *a = kpb_register(test, kpb_load, false);
	struct kpb_probe *b;

	kpb_expect_boost_slot(test, &a->kp);
	KUNIT_EXPECT_EQ(test, kpb_run_load(), 0);
	b = kpb_register(test, kpb_load, true);
	KUNIT_EXPECT_EQ(test, kpb_run_load(), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->post), 1);
	kpb_unregister(test, b);
	KUNIT_EXPECT_EQ(test, kpb_run_load(), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&a->pre), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->post), 1);
}

static int kpb_clone_fn(void *done)
{
	complete(done);
	return 0;
}

/* How far into kernel_clone() to look for a boostable instruction. */
#define KPB_TEXT_WORDS	32

/*
 * A probe on the kernel image's own text, not on module text as every
 * other case here may be, boosts too: its boost slot comes from a page
 * within a B of the probe even where the module area lies out of reach
 * (RANDOMIZE_MODULE_REGION_FULL with KASLR).  kernel_clone() is hit by
 * the kthread made here.
 */
static void boost_reaches_kernel_text(struct kunit *test)
{
	struct kpb_probe *bp = kunit_kzalloc(test, sizeof(*bp), GFP_KERNEL);
	DECLARE_COMPLETION_ONSTACK(done);
	struct task_struct *t;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, bp);
	bp->kp.symbol_name = "kernel_clone";
	bp->kp.pre_handler = kpb_pre;
	for (i = 0; i < KPB_TEXT_WORDS; i++) {
		bp->kp.offset = i * AARCH64_INSN_SIZE;
		bp->kp.addr = NULL;
		bp->kp.flags = 0;
		if (register_kprobe(&bp->kp))
			continue;
		/* A function's prologue has no exception-table entry. */
		if (bp->kp.ainsn.api.insn && !bp->kp.ainsn.in_handler)
			break;
		unregister_kprobe(&bp->kp);
	}
	KUNIT_ASSERT_LT_MSG(test, i, KPB_TEXT_WORDS,
			    "no stepped instruction in kernel_clone()'s first %d",
			    KPB_TEXT_WORDS);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpb_unregister_action,
							&bp->kp), 0);
	kpb_expect_boost_slot(test, &bp->kp);

	t = kthread_run(kpb_clone_fn, &done, "kpb_clone");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&done);
	KUNIT_EXPECT_GE(test, atomic_read(&bp->pre), 1);
}

/* What the outer probe's pre_handler got from the boosted function. */
static u64 kpb_inner_got;

static int kpb_outer_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpb_inner_got = kpb_load(&kpb_val);
	return kpb_pre(p, regs);
}

/*
 * A boosted probe hit inside another probe's handler runs no handler and
 * is counted as missed; its instruction runs from the boost slot, and the
 * outer probe, stepped for its post_handler, finishes as if alone.
 */
static void boost_reentered(struct kunit *test)
{
	struct kpb_probe *inner = kpb_register(test, kpb_load, false);
	struct kpb_probe *outer;

	kpb_expect_boost_slot(test, &inner->kp);
	outer = kunit_kzalloc(test, sizeof(*outer), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, outer);
	outer->kp.addr = kpb_site(kpb_push);
	outer->kp.pre_handler = kpb_outer_pre;
	outer->kp.post_handler = kpb_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer->kp), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpb_unregister_action,
							&outer->kp), 0);

	kpb_inner_got = 0;
	KUNIT_EXPECT_EQ(test, kpb_run_push(), 0);
	KUNIT_EXPECT_EQ(test, kpb_inner_got, KPB_VALUE + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->pre), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&outer->post), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->pre), 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1);
	/* And a hit of its own afterwards runs its handler. */
	KUNIT_EXPECT_EQ(test, kpb_run_load(), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&inner->pre), 1);
}

/* The preempted case (kprobes_arm64_preempt_kunit.h), on the boosted load. */
struct kpb_catch {
	struct kpb_probe bp;
	struct kpc_catch c;
};

static int kpb_catch_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpc_hit(&container_of(p, struct kpb_catch, bp.kp)->c);
	return kpb_pre(p, regs);
}

static bool kpb_at(unsigned long ip, const void *slot)
{
	return ip == (unsigned long)slot;
}

/*
 * A task preempted in a boost slot whose probe is unregistered under it:
 * the slot is not handed out again while the task can come back to it,
 * and the task finishes the instruction correctly when it does.
 */
static void boost_preempted_in_slot(struct kunit *test)
{
	bool in_slot, still_in, taken, went_on;
	kprobe_opcode_t *slot;
	struct kpb_catch *c;

	kpc_require(test);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->bp.kp.addr = kpb_site(kpb_load);
	c->bp.kp.pre_handler = kpb_catch_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&c->bp.kp), 0);
	/* Unregistered however the case ends, before @c is freed. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpb_unregister_action,
							&c->bp.kp), 0);
	slot = c->bp.kp.ainsn.boost_slot;
	KUNIT_ASSERT_NOT_NULL_MSG(test, slot, "the load got no boost slot");
	if (!kpc_start(test, &c->c, kpb_run_load))
		return;

	/* From here on no ASSERT: the threads must be stopped first. */
	in_slot = kpc_catch(&c->c) && kpc_runner_in(&c->c, kpb_at, slot);
	kunit_release_action(test, kpb_unregister_action, &c->bp.kp);
	taken = kprobe_slot_taken_kunit(&kprobe_insn_slots, slot);
	/* It counts only if the runner stayed there all along. */
	still_in = READ_ONCE(c->c.hog_spin) && kpc_runner_in(&c->c, kpb_at, slot);
	/* Back in the slot, the runner loads and goes on. */
	went_on = kpc_finish(&c->c);

	kpc_expect(test, &c->c, "boost slot", in_slot, still_in, taken, went_on);
}

static struct kunit_case kpb_cases[] = {
	KUNIT_CASE_PARAM(boost_by_class, kpb_class_gen_params),
	KUNIT_CASE(boost_post_handler_joins),
	KUNIT_CASE(boost_reentered),
	KUNIT_CASE(boost_reaches_kernel_text),
	KUNIT_CASE_ATTR(boost_preempted_in_slot, { .speed = KUNIT_SPEED_SLOW }),
	{}
};

/*
 * Boosting is what a BRK probe does: jump optimization (always built on
 * arm64), which would take the hits away from the BRK, stays off while the
 * suite runs.
 */
static int kpb_suite_init(struct kunit_suite *suite)
{
	kprobe_opt_set_enabled(false);
	return 0;
}

static void kpb_suite_exit(struct kunit_suite *suite)
{
	kprobe_opt_set_enabled(true);
}

static struct kunit_suite kpb_suite = {
	.name = "kprobes_arm64_boost",
	.suite_init = kpb_suite_init,
	.suite_exit = kpb_suite_exit,
	.test_cases = kpb_cases,
};

kunit_test_suites(&kpb_suite);

MODULE_DESCRIPTION("KUnit cases for arm64 kprobes boosting");
MODULE_LICENSE("GPL");

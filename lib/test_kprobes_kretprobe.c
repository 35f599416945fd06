// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kprobes_kretprobe: return probes, their instances and
 * maxactive, tasks that sleep or exit inside the probed function, and the
 * stack traces taken while a return is hijacked.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kmsg_dump.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/workqueue.h>

/* The core's internals that these cases look at, exported for KUnit only */
#include "../kernel/kprobes_internal.h"
#include "test_kprobes.h"

/* kretprobes, with KUnit cleanup as for kprobes */
KUNIT_DEFINE_ACTION_WRAPPER(unregister_kretprobe_action, unregister_kretprobe,
			    struct kretprobe *);

static int reg_kretprobe(struct kunit *test, struct kretprobe *rp)
{
	int ret = register_kretprobe(rp);

	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, unregister_kretprobe_action, rp);
}

static void unreg_kretprobe(struct kunit *test, struct kretprobe *rp)
{
	kunit_release_action(test, unregister_kretprobe_action, rp);
}

#define MAX_RETURNS	8

struct test_kretprobe {
	struct kretprobe rp;
	char id;
	struct call_log *log;
	int entry_hits;
	int ret_hits;
	bool filter_odd;		/* entry_handler refuses odd arguments */
	unsigned long retvals[MAX_RETURNS];
	unsigned long ret_retaddr;
	struct kretprobe *entry_rp;
	struct kretprobe *ret_rp;
	struct task_struct *entry_task;
	struct task_struct *ret_task;
	bool ret_preemptible;
	int data_mismatches;
	struct stack_capture *capture;	/* where the return handler saves a trace */
};

static struct test_kretprobe *to_test_kretprobe(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	return rp ? container_of(rp, struct test_kretprobe, rp) : NULL;
}

static int record_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct test_kretprobe *tr = to_test_kretprobe(ri);
	unsigned long arg = kpt_first_arg(regs);

	if (!tr)
		return 0;
	tr->entry_hits++;
	tr->entry_rp = get_kretprobe(ri);
	tr->entry_task = current;
	kpt_log_call(tr->log, tr->id);
	if (tr->rp.data_size >= sizeof(u32))
		*(u32 *)ri->data = arg;
	return tr->filter_odd && (arg & 1);
}

static int record_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct test_kretprobe *tr = to_test_kretprobe(ri);
	unsigned long retval = regs_return_value(regs);

	if (!tr)
		return 0;
	if (tr->ret_hits < MAX_RETURNS)
		tr->retvals[tr->ret_hits] = retval;
	tr->ret_hits++;
	tr->ret_rp = get_kretprobe(ri);
	tr->ret_retaddr = get_kretprobe_retaddr(ri);
	tr->ret_task = current;
	tr->ret_preemptible = preemptible();
	kpt_log_call(tr->log, tolower(tr->id));
	/* target() and recurse() both return their argument * 3 + 1. */
	if (tr->rp.data_size >= sizeof(u32) &&
	    lower_32_bits(retval) != *(u32 *)ri->data * 3 + 1)
		tr->data_mismatches++;
	if (tr->capture)
		kpt_capture_stack(tr->capture);
	return 0;
}

static struct test_kretprobe *new_kretprobe(struct kunit *test, char id,
					    void *addr)
{
	struct test_kretprobe *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	tr->id = id;
	tr->rp.kp.addr = kpt_entry(addr);
	tr->rp.entry_handler = record_entry;
	tr->rp.handler = record_return;
	return tr;
}

struct mixed_case {
	const char *desc;
	bool kprobe_first;
};

static const struct mixed_case mixed_cases[] = {
	{ "kprobe first", true },
	{ "kretprobe first", false },
};

KUNIT_ARRAY_PARAM_DESC(mixed, mixed_cases, desc);

static void kretprobe_on_kprobe_aggregate(struct kunit *test)
{
	const struct mixed_case *mc = test->param_value;
	struct call_log log = {};
	struct test_kretprobe *tr;
	struct test_probe *tp;

	tp = kpt_probe_at(test, 'K', &log, kprobes_test_target);
	tr = new_kretprobe(test, 'E', kprobes_test_target);
	tr->log = &log;
	if (mc->kprobe_first) {
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
		KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	} else {
		KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	}
	KUNIT_EXPECT_EQ(test, kprobes_test_target(2), 7u);
	/* pre_handlers in registration order, the post_handler, the return */
	KUNIT_EXPECT_STREQ(test, log.seq,
			   mc->kprobe_first ? "KEke" : "EKke");
	KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[0]), 7u);
	kpt_unreg_kprobe(test, &tp->kp);
	memset(&log, 0, sizeof(log));
	kprobes_test_target(2);
	KUNIT_EXPECT_STREQ(test, log.seq, "Ee");
}

static void register_kretprobes_rollback(struct kunit *test)
{
	struct test_kretprobe *a = new_kretprobe(test, 'A', kprobes_test_target);
	struct test_kretprobe *bad = new_kretprobe(test, 'X', NULL);
	struct test_kretprobe *c = new_kretprobe(test, 'C', kprobes_test_other);
	struct kretprobe *rps[] = { &a->rp, &bad->rp, &c->rp };

	bad->rp.kp.symbol_name = "kprobes_test_no_such_function";
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, ARRAY_SIZE(rps)), -ENOENT);
	kprobes_test_target(0);
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, a->entry_hits + a->ret_hits + c->entry_hits +
			c->ret_hits, 0);
	kpt_clear_for_reuse(&a->rp.kp);
	KUNIT_EXPECT_EQ(test, reg_kretprobe(test, &a->rp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, a->ret_hits, 1);
}

/* More kretprobes than an order-1 array of pointers holds. */
#define BIG_BATCH	1100

static struct kretprobe big_batch[BIG_BATCH];
static struct kretprobe *big_batch_ptrs[BIG_BATCH];
static int big_batch_returns;

static int count_big_batch_return(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	big_batch_returns++;
	return 0;
}

/* The instances a registered kretprobe owns, whichever way it catches returns. */
static void *kretprobe_pool_of(struct kretprobe *rp)
{
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	return rp->rh;
#else
	return rp->rph;
#endif
}

static void unregister_big_batch(void *rps)
{
	unregister_kretprobes(rps, BIG_BATCH);
}

/*
 * Unregistering a big batch of kretprobes waits once for the hits in
 * progress and allocates nothing large: a __GFP_NOFAIL array of that size
 * is an order-2 allocation, which warns under fragmentation.  Probes on
 * kprobe_wait_for_hits() and on the large-kmalloc paths count this task's
 * calls.
 */
static void unregister_kretprobes_big_batch(struct kunit *test)
{
	struct alloc_watch watch;
	int i;

	kpt_alloc_watch_start(test, &watch);
	memset(big_batch, 0, sizeof(big_batch));
	for (i = 0; i < BIG_BATCH; i++) {
		big_batch[i].kp.addr = kpt_entry(kprobes_test_target);
		big_batch[i].maxactive = 1;
		big_batch[i].handler = count_big_batch_return;
		big_batch_ptrs[i] = &big_batch[i];
	}
	KUNIT_ASSERT_EQ(test, register_kretprobes(big_batch_ptrs, BIG_BATCH), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_big_batch,
							big_batch_ptrs), 0);
	big_batch_returns = 0;
	KUNIT_EXPECT_EQ(test, kprobes_test_target(1), 4u);
	KUNIT_EXPECT_EQ(test, big_batch_returns, BIG_BATCH);

	WRITE_ONCE(kpt_sync_counted_task, current);
	kunit_release_action(test, unregister_big_batch, big_batch_ptrs);
	WRITE_ONCE(kpt_sync_counted_task, NULL);

	kpt_alloc_watch_expect(test, &watch);
	kprobes_test_target(1);
	KUNIT_EXPECT_EQ(test, big_batch_returns, BIG_BATCH);
	for (i = 0; i < BIG_BATCH; i++)
		if (kretprobe_pool_of(&big_batch[i]))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, BIG_BATCH, "kretprobe %d kept its instances", i);
	/* Really gone: the first of them registers again. */
	kpt_clear_for_reuse(&big_batch[0].kp);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &big_batch[0]), 0);
	kprobes_test_target(1);
	KUNIT_EXPECT_EQ(test, big_batch_returns, BIG_BATCH + 1);
}

/* As for kprobes, the kretprobe API can be probed. */
static void probe_on_the_kretprobe_api(struct kunit *test)
{
	static const char *const api[] = {
		"register_kretprobe", "register_kretprobes",
		"unregister_kretprobe", "unregister_kretprobes",
	};
	struct test_kretprobe *a = new_kretprobe(test, 'A', kprobes_test_target);
	struct test_kretprobe *b = new_kretprobe(test, 'B', kprobes_test_other);
	struct kretprobe *just_a[] = { &a->rp }, *just_b[] = { &b->rp };
	struct test_probe *watch[ARRAY_SIZE(api)];
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(api); i++) {
		watch[i] = kpt_new_probe(test, 'W', NULL);
		watch[i]->kp.symbol_name = api[i];
		watch[i]->kp.pre_handler = kpt_count_own_sync;
		watch[i]->kp.post_handler = NULL;
		KUNIT_ASSERT_EQ_MSG(test, kpt_reg_kprobe(test, &watch[i]->kp), 0,
				    "%s", api[i]);
	}

	WRITE_ONCE(kpt_sync_counted_task, current);
	KUNIT_EXPECT_EQ(test, reg_kretprobe(test, &a->rp), 0);
	ret = register_kretprobes(just_b, 1);
	if (!ret)
		ret = kunit_add_action_or_reset(test, unregister_kretprobe_action,
						&b->rp);
	KUNIT_EXPECT_EQ(test, ret, 0);
	kprobes_test_target(0);
	kprobes_test_other(0);
	unregister_kretprobes(just_a, 1);
	unregister_kretprobe(&b->rp);
	WRITE_ONCE(kpt_sync_counted_task, NULL);
	kunit_remove_action(test, unregister_kretprobe_action, &a->rp);
	kunit_remove_action(test, unregister_kretprobe_action, &b->rp);

	KUNIT_EXPECT_EQ(test, watch[0]->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, watch[1]->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, watch[2]->pre_hits, 1);
	/* unregister_kretprobe() may or may not go through it */
	KUNIT_EXPECT_GE(test, watch[3]->pre_hits, 1);
	KUNIT_EXPECT_LE(test, watch[3]->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, a->ret_hits, 1);
	KUNIT_EXPECT_EQ(test, b->ret_hits, 1);
}

/* kretprobes */

static void kretprobe_return_value(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_target);
	u32 i;

	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kprobes_test_target(i + 10), i * 3 + 31);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, 3);
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[i]), i * 3 + 31);
	KUNIT_EXPECT_FALSE(test, tr->ret_preemptible);
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed, 0);
}

static void kretprobe_entry_handler_refuses(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_target);
	u32 i;

	tr->filter_odd = true;
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	for (i = 0; i < 4; i++)
		kprobes_test_target(i);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, 4);
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 2);
	KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[0]), 1u);	/* target(0) */
	KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[1]), 7u);	/* target(2) */
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed, 0);
}

static void kretprobe_instance_data(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_recurse);
	struct call_log log = {};
	u32 i;

	tr->log = &log;
	tr->rp.data_size = sizeof(u32);
	tr->rp.maxactive = 8;
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_recurse(3), 10u);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, 4);
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 4);
	/* Each return found the data its own entry wrote. */
	KUNIT_EXPECT_EQ(test, tr->data_mismatches, 0);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[i]), i * 3 + 1);
	KUNIT_EXPECT_STREQ(test, log.seq, "RRRRrrrr");
}

static void kretprobe_data_size_limit(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_target);

	tr->rp.data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	KUNIT_EXPECT_EQ(test, reg_kretprobe(test, &tr->rp), -E2BIG);
	tr->rp.data_size = KRETPROBE_MAX_DATA_SIZE;
	kpt_clear_for_reuse(&tr->rp.kp);
	tr->rp.maxactive = 2;
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tr->ret_hits, 1);
}

static void kretprobe_maxactive_nested_miss(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_recurse);

	tr->rp.maxactive = 1;
	tr->rp.data_size = sizeof(u32);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_recurse(1), 4u);
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed, 1);
	/* Only the outer call had an instance, and only it was seen. */
	KUNIT_EXPECT_EQ(test, tr->entry_hits, 1);
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 1);
	KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[0]), 4u);
	KUNIT_EXPECT_EQ(test, tr->data_mismatches, 0);
}

/* The documented default, with or without CONFIG_PREEMPTION. */
static void kretprobe_default_maxactive(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_target);
	int want = max(10, 2 * (int)num_possible_cpus());

	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	KUNIT_EXPECT_EQ(test, tr->rp.maxactive, want);
	/* so is a negative value */
	unreg_kretprobe(test, &tr->rp);
	kpt_clear_for_reuse(&tr->rp.kp);
	tr->rp.maxactive = -1;
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	KUNIT_EXPECT_EQ(test, tr->rp.maxactive, want);
}

static void kretprobe_rejects_non_entry(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', NULL);

	kpt_require_mark(test);
	tr->rp.kp.addr = kpt_mark_addr();
	KUNIT_EXPECT_EQ(test, reg_kretprobe(test, &tr->rp), -EINVAL);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, tr->entry_hits + tr->ret_hits, 0);
}

/*
 * The arch's list of functions whose return cannot be intercepted: a
 * kretprobe on each is refused, a kprobe on each is not.
 */
static void kretprobe_arch_blacklist(struct kunit *test)
{
	int i, named = 0;

	if (!kretprobe_blacklist_size)
		kunit_skip(test, "this arch lists no function for kretprobes to refuse");
	for (i = 0; kretprobe_blacklist[i].name; i++) {
		struct test_kretprobe *tr = new_kretprobe(test, 'R', NULL);
		struct kprobe kp = { .symbol_name = kretprobe_blacklist[i].name };

		tr->rp.kp.symbol_name = kretprobe_blacklist[i].name;
		KUNIT_EXPECT_EQ_MSG(test, reg_kretprobe(test, &tr->rp), -EINVAL,
				    "kretprobe on %s", kretprobe_blacklist[i].name);
		KUNIT_EXPECT_EQ_MSG(test, kpt_reg_kprobe(test, &kp), 0,
				    "kprobe on %s", kretprobe_blacklist[i].name);
		kpt_unreg_kprobe(test, &kp);
		named++;
	}
	KUNIT_EXPECT_GT(test, named, 0);
}

/*
 * rethook's way back ends in preempt_enable_notrace(), which may call
 * preempt_schedule_notrace(): a kretprobe there is refused, as it would
 * be entered again by its own return.  Our trampoline ends in
 * preempt_enable() instead, so there it is taken.  A kprobe is taken on
 * both.
 */
static void kretprobe_return_path_refused(struct kunit *test)
{
	const char *sym = "preempt_schedule_notrace";
	struct test_kretprobe *tr = new_kretprobe(test, 'R', NULL);
	struct kprobe kp = { .symbol_name = sym };
	int want = IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK) ? -EINVAL : 0;

	if (!IS_ENABLED(CONFIG_PREEMPTION))
		kunit_skip(test, "no preempt_schedule_notrace() without CONFIG_PREEMPTION");
	tr->rp.kp.symbol_name = sym;
	KUNIT_EXPECT_EQ_MSG(test, reg_kretprobe(test, &tr->rp), want,
			    "kretprobe on %s", sym);
	if (!want)
		unreg_kretprobe(test, &tr->rp);
	KUNIT_EXPECT_EQ_MSG(test, kpt_reg_kprobe(test, &kp), 0, "kprobe on %s", sym);
	kpt_unreg_kprobe(test, &kp);
}

static void toggle_unregistered_kretprobe(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_target);

	KUNIT_EXPECT_EQ(test, enable_kretprobe(&tr->rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&tr->rp), -EINVAL);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&tr->rp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tr->ret_hits, 0);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&tr->rp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tr->ret_hits, 1);
	unreg_kretprobe(test, &tr->rp);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&tr->rp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&tr->rp), -EINVAL);
}

/*
 * The return addresses of outer() and inner() on an unprobed run.  The
 * functions are never inlined, so these lie in driver() and outer().
 */
static void stack_real_returns(struct kunit *test, unsigned long *real)
{
	unsigned long drv = (unsigned long)kprobes_test_stack_driver;
	unsigned long outer = (unsigned long)kprobes_test_stack_outer;

	memset(kpt_stack_seen_ret, 0, sizeof(kpt_stack_seen_ret));
	kprobes_test_stack_driver();
	memcpy(real, kpt_stack_seen_ret, sizeof(kpt_stack_seen_ret));
	KUNIT_ASSERT_LT(test, real[LEVEL_OUTER] - drv,
			kpt_symbol_size(kprobes_test_stack_driver));
	KUNIT_ASSERT_LT(test, real[LEVEL_INNER] - outer,
			kpt_symbol_size(kprobes_test_stack_outer));
}

static void require_kretprobe_unwinding(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_ARCH_CORRECT_STACKTRACE_ON_KRETPROBE) ||
	    !IS_ENABLED(CONFIG_STACKTRACE))
		kunit_skip(test, "stack traces do not see through kretprobes on this config");
}

static int find_entry(const struct stack_capture *c, unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < c->len; i++)
		if (c->entries[i] == addr)
			return i;
	return -1;
}

static void kretprobe_instance_fields(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R',
						  kprobes_test_stack_outer);
	unsigned long real[NR_LEVELS];

	stack_real_returns(test, real);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_stack_driver(), OUTER_VALUE + 1);
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 1);
	KUNIT_EXPECT_PTR_EQ(test, tr->entry_rp, &tr->rp);
	KUNIT_EXPECT_PTR_EQ(test, tr->ret_rp, &tr->rp);
	KUNIT_EXPECT_EQ(test, tr->ret_retaddr, real[LEVEL_OUTER]);
	KUNIT_EXPECT_PTR_EQ(test, tr->entry_task, current);
	KUNIT_EXPECT_PTR_EQ(test, tr->ret_task, current);
	KUNIT_EXPECT_EQ(test, tr->retvals[0], (unsigned long)OUTER_VALUE);
	/* While probed, outer() saw the trampoline as its return address. */
	KUNIT_EXPECT_NE(test, kpt_stack_seen_ret[LEVEL_OUTER], real[LEVEL_OUTER]);
}

static void kretprobe_stack_in_handler(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R',
						  kprobes_test_stack_outer);
	unsigned long real[NR_LEVELS];
	unsigned long trampoline;

	require_kretprobe_unwinding(test);
	tr->capture = kunit_kzalloc(test, sizeof(*tr->capture), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tr->capture);
	stack_real_returns(test, real);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	kprobes_test_stack_driver();
	trampoline = kpt_stack_seen_ret[LEVEL_OUTER];
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 1);
	KUNIT_ASSERT_NE(test, trampoline, real[LEVEL_OUTER]);
	KUNIT_EXPECT_GE(test, find_entry(tr->capture, real[LEVEL_OUTER]), 0);
	KUNIT_EXPECT_LT(test, find_entry(tr->capture, trampoline), 0);
}

/* A trace taken below a kretprobed function that has not returned yet. */
static void kretprobe_stack_below(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R',
						  kprobes_test_stack_outer);
	struct stack_capture *capture;
	unsigned long real[NR_LEVELS];
	unsigned long trampoline;

	require_kretprobe_unwinding(test);
	capture = kunit_kzalloc(test, sizeof(*capture), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, capture);
	stack_real_returns(test, real);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	kpt_inner_capture = capture;
	kprobes_test_stack_driver();
	kpt_inner_capture = NULL;
	trampoline = kpt_stack_seen_ret[LEVEL_OUTER];
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 1);
	KUNIT_ASSERT_NE(test, trampoline, real[LEVEL_OUTER]);
	KUNIT_EXPECT_GE(test, find_entry(capture, real[LEVEL_INNER]), 0);
	KUNIT_EXPECT_GE(test, find_entry(capture, real[LEVEL_OUTER]), 0);
	KUNIT_EXPECT_LT(test, find_entry(capture, trampoline), 0);
}

/*
 * The backtrace an oops or a WARN prints, taken below a kretprobed
 * function, read back from the log: outer()'s caller must be printed as a
 * reliable entry.  The trampoline may appear only as an unreliable "? "
 * entry: x86 prints the raw stack word as a hint next to the recovered
 * address.
 */
static void kretprobe_stack_in_dump(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R',
						  kprobes_test_stack_outer);
	bool in_dump = false, driver = false, bare_trampoline = false;
	bool ended = false;
	struct kmsg_dump_iter iter;
	const size_t size = 512;
	unsigned long real[NR_LEVELS];
	struct seq_buf seen;
	char *line, *text;
	char tramp[KSYM_SYMBOL_LEN];
	size_t len;

	require_kretprobe_unwinding(test);
	if (!IS_ENABLED(CONFIG_PRINTK))
		kunit_skip(test, "no printk: no log to read the backtrace from");
	line = kunit_kzalloc(test, size, GFP_KERNEL);
	text = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	KUNIT_ASSERT_NOT_NULL(test, text);
	stack_real_returns(test, real);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	WRITE_ONCE(kpt_inner_dump, true);
	kprobes_test_stack_driver();
	WRITE_ONCE(kpt_inner_dump, false);
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 1);
	/* what outer() saw as its return address: the trampoline */
	KUNIT_ASSERT_NE(test, kpt_stack_seen_ret[LEVEL_OUTER], real[LEVEL_OUTER]);

	/* As a backtrace prints it: %pB looks up the address before. */
	snprintf(tramp, sizeof(tramp), "%pB",
		 (void *)kpt_stack_seen_ret[LEVEL_OUTER]);

	/* Only the last backtrace in the log counts. */
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, size - 1, &len)) {
		line[len] = '\0';
		if (strstr(line, DUMP_BEGIN)) {
			in_dump = true;
			ended = false;
			driver = false;
			bare_trampoline = false;
			seq_buf_init(&seen, text, PAGE_SIZE);
		} else if (strstr(line, DUMP_END)) {
			in_dump = false;
			ended = true;
		} else if (in_dump) {
			seq_buf_puts(&seen, line);
			if (strstr(line, "kprobes_test_stack_driver+") &&
			    !strstr(line, "? "))
				driver = true;
			if (strstr(line, tramp) && !strstr(line, "? "))
				bare_trampoline = true;
		}
	}
	KUNIT_ASSERT_TRUE_MSG(test, ended, "the backtrace is not in the log");
	KUNIT_EXPECT_TRUE_MSG(test, driver, "backtrace:\n%s", text);
	KUNIT_EXPECT_FALSE_MSG(test, bare_trampoline, "backtrace:\n%s", text);
}

/* Both outer() and inner() kretprobed: the trace unwinds through both. */
static void kretprobe_stack_nested(struct kunit *test)
{
	struct test_kretprobe *outer = new_kretprobe(test, 'O',
						     kprobes_test_stack_outer);
	struct test_kretprobe *inner = new_kretprobe(test, 'I',
						     kprobes_test_stack_inner);
	unsigned long real[NR_LEVELS];
	unsigned long trampoline;
	int at_inner, at_outer;

	require_kretprobe_unwinding(test);
	inner->capture = kunit_kzalloc(test, sizeof(*inner->capture), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, inner->capture);
	stack_real_returns(test, real);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &outer->rp), 0);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &inner->rp), 0);
	kprobes_test_stack_driver();
	trampoline = kpt_stack_seen_ret[LEVEL_INNER];
	KUNIT_ASSERT_EQ(test, outer->ret_hits, 1);
	KUNIT_ASSERT_EQ(test, inner->ret_hits, 1);
	KUNIT_ASSERT_NE(test, trampoline, real[LEVEL_INNER]);
	KUNIT_EXPECT_EQ(test, kpt_stack_seen_ret[LEVEL_OUTER], trampoline);
	KUNIT_EXPECT_EQ(test, inner->ret_retaddr, real[LEVEL_INNER]);
	KUNIT_EXPECT_EQ(test, outer->ret_retaddr, real[LEVEL_OUTER]);
	at_inner = find_entry(inner->capture, real[LEVEL_INNER]);
	at_outer = find_entry(inner->capture, real[LEVEL_OUTER]);
	KUNIT_EXPECT_GE(test, at_inner, 0);
	KUNIT_EXPECT_GT(test, at_outer, at_inner);
	KUNIT_EXPECT_LT(test, find_entry(inner->capture, trampoline), 0);
}

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * A function tracer on call_rcu(), which the return path calls to drop the
 * instance of an unregistered kretprobe.  Unlike a probe handler it also
 * runs while the CPU is marked busy, so it sees what an interrupt arriving
 * there would see.  Only the first call from the watched task counts; it
 * notes how deeply preemption is disabled there and takes a stack trace.
 */
struct rcu_watch {
	struct ftrace_ops ops;
	struct task_struct *task;
	int hits;
	unsigned int depth;
	struct stack_capture capture;
};

static struct rcu_head watch_baseline_head;

static void watch_baseline_done(struct rcu_head *head)
{
}

static void watch_call_rcu(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct rcu_watch *w = container_of(ops, struct rcu_watch, ops);

	if (current != READ_ONCE(w->task) || w->hits++)
		return;
	w->depth = preempt_count() & PREEMPT_MASK;
	kpt_capture_stack(&w->capture);
}

static void rcu_watch_stop(void *arg)
{
	struct rcu_watch *w = arg;

	unregister_ftrace_function(&w->ops);
	ftrace_free_filter(&w->ops);
}

static struct rcu_watch *rcu_watch_start(struct kunit *test)
{
	unsigned char func[] = "call_rcu";
	struct rcu_watch *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->ops.func = watch_call_rcu;
	w->ops.flags = FTRACE_OPS_FL_RECURSION;
	ret = ftrace_set_filter(&w->ops, func, strlen(func), 1);
	if (!ret)
		ret = register_ftrace_function(&w->ops);
	if (ret) {
		ftrace_free_filter(&w->ops);
		KUNIT_FAIL_AND_ABORT(test, "cannot trace call_rcu(): %d", ret);
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rcu_watch_stop, w), 0);
	return w;
}

/* The depth the watch sees for a call_rcu() from plain task context. */
static unsigned int rcu_watch_baseline(struct kunit *test, struct rcu_watch *w)
{
	unsigned int depth;

	WRITE_ONCE(w->task, current);
	call_rcu(&watch_baseline_head, watch_baseline_done);
	WRITE_ONCE(w->task, NULL);
	rcu_barrier();
	KUNIT_ASSERT_EQ(test, w->hits, 1);
	depth = w->depth;
	w->hits = 0;
	return depth;
}

/*
 * What inner() does for the cases below, in this order: unregister a
 * kretprobe that has an instance in flight, return past its own
 * trampoline, and start the watch.
 */
static struct {
	struct kretprobe *unregister;
	bool escape;
	bool escaped;
	struct rcu_watch *watch;
} inner_plan;

/*
 * As if the stack were unwound past inner() (a longjmp, in effect): it
 * returns straight to outer(), and its kretprobe's instance stays on the
 * task's list.  x86 keeps the return address in the slot ri->fp names.
 */
static bool return_past_trampoline(void)
{
#ifdef CONFIG_X86
	struct llist_node *first = current->kretprobe_instances.first;
	struct kretprobe_instance *ri;
	unsigned long *slot;

	if (!first)
		return false;
	ri = container_of(first, struct kretprobe_instance, llist);
	slot = ri->fp;
	if (*slot != kpt_stack_seen_ret[LEVEL_INNER])
		return false;
	*slot = (unsigned long)ri->ret_addr;
	return true;
#else
	return false;
#endif
}

static void follow_inner_plan(void)
{
	if (inner_plan.unregister)
		unregister_kretprobe(inner_plan.unregister);
	if (inner_plan.escape)
		inner_plan.escaped = return_past_trampoline();
	if (inner_plan.watch)
		WRITE_ONCE(inner_plan.watch->task, current);
}

static void run_inner_plan(struct kunit *test, struct kretprobe *unregister,
			   bool escape, struct rcu_watch *w)
{
	inner_plan.unregister = unregister;
	inner_plan.escape = escape;
	inner_plan.escaped = false;
	inner_plan.watch = w;
	kpt_inner_hook = follow_inner_plan;
	KUNIT_EXPECT_EQ(test, kprobes_test_stack_driver(), OUTER_VALUE + 1);
	kpt_inner_hook = NULL;
	WRITE_ONCE(w->task, NULL);
	kunit_remove_action(test, unregister_kretprobe_action, unregister);
}

/*
 * inner() returns past its trampoline, and outer()'s return sweeps the
 * instance it left.  inner()'s kretprobe is unregistered by then, so the
 * sweep drops the instance through call_rcu(); it must do so with
 * preemption off (deeper than in plain task context), or an unregistration
 * could finalize a pool between the sweep's look at it and its push.
 */
static void kretprobe_stale_instance_swept(struct kunit *test)
{
	struct test_kretprobe *outer = new_kretprobe(test, 'O',
						     kprobes_test_stack_outer);
	struct test_kretprobe *inner = new_kretprobe(test, 'I',
						     kprobes_test_stack_inner);
	unsigned long real[NR_LEVELS];
	struct rcu_watch *w;
	unsigned int task_depth;

	if (!IS_ENABLED(CONFIG_X86))
		kunit_skip(test, "only x86 knows where to find the return address");
	stack_real_returns(test, real);
	w = rcu_watch_start(test);
	task_depth = rcu_watch_baseline(test, w);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &outer->rp), 0);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &inner->rp), 0);
	run_inner_plan(test, &inner->rp, true, w);
	KUNIT_ASSERT_TRUE(test, inner_plan.escaped);
	KUNIT_EXPECT_EQ(test, inner->entry_hits, 1);
	KUNIT_EXPECT_EQ(test, inner->ret_hits, 0);
	KUNIT_EXPECT_EQ(test, outer->ret_hits, 1);
	KUNIT_EXPECT_EQ(test, outer->ret_retaddr, real[LEVEL_OUTER]);
	KUNIT_EXPECT_NULL(test, current->kretprobe_instances.first);
	KUNIT_ASSERT_EQ(test, w->hits, 1);
	/* Without a preempt count every depth reads 0. */
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT))
		KUNIT_EXPECT_GT(test, w->depth, task_depth);
}

/*
 * A stack walk from the end of a kretprobe return, after the frame's
 * instances have left the task's list: outer()'s kretprobe is unregistered
 * while outer() runs, so its instance is dropped through call_rcu(), where
 * the watch takes a trace.  outer()'s caller must be in it.
 */
static void kretprobe_stack_after_unlink(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R',
						  kprobes_test_stack_outer);
	unsigned long real[NR_LEVELS];
	struct rcu_watch *w;

	require_kretprobe_unwinding(test);
	if (!IS_ENABLED(CONFIG_X86))
		kunit_skip(test, "this backend restores the return address late");
	stack_real_returns(test, real);
	w = rcu_watch_start(test);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	run_inner_plan(test, &tr->rp, false, w);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, 1);
	KUNIT_EXPECT_EQ(test, tr->ret_hits, 0);
	KUNIT_ASSERT_EQ(test, w->hits, 1);
	KUNIT_EXPECT_GE(test, find_entry(&w->capture, real[LEVEL_OUTER]), 0);
	KUNIT_EXPECT_LT(test, find_entry(&w->capture, kpt_stack_seen_ret[LEVEL_OUTER]), 0);
}
#else
static void kretprobe_stale_instance_swept(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_DYNAMIC_FTRACE");
}

static void kretprobe_stack_after_unlink(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_DYNAMIC_FTRACE");
}
#endif /* CONFIG_DYNAMIC_FTRACE */

static int sleeper_thread(void *arg)
{
	struct sleeper *s = arg;

	s->result = kprobes_test_sleeper(s);
	kthread_complete_and_exit(&s->done, 0);
}

static int exiting_thread(void *arg)
{
	kprobes_test_exit_inside(arg);
	return 0;
}

static struct sleeper *start_sleeper(struct kunit *test,
				     int (*fn)(void *arg))
{
	struct sleeper *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct task_struct *task;

	KUNIT_ASSERT_NOT_NULL(test, s);
	init_completion(&s->entered);
	init_completion(&s->release);
	init_completion(&s->done);
	task = kthread_run(fn, s, "kprobes_test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* The thread gives up by itself, so this wait is bounded too. */
	if (!wait_for_completion_timeout(&s->entered, SLEEPER_PATIENCE)) {
		complete(&s->release);
		wait_for_completion(&s->done);
		KUNIT_FAIL_AND_ABORT(test, "helper thread never reached its probe");
	}
	return s;
}

static void kretprobe_unregister_in_flight(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_sleeper);
	struct sleeper *s;

	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	s = start_sleeper(test, sleeper_thread);
	unreg_kretprobe(test, &tr->rp);
	complete(&s->release);
	wait_for_completion(&s->done);
	/* unregistering did not wait for the sleeper to return */
	KUNIT_EXPECT_FALSE(test, s->gave_up);
	KUNIT_EXPECT_EQ(test, s->result, SLEEPER_COOKIE);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, 1);
	KUNIT_EXPECT_EQ(test, tr->ret_hits, 0);
}

static void kretprobe_task_exit_reclaims(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R',
						  kprobes_test_exit_inside);
	struct sleeper *s;
	int tries;

	tr->rp.maxactive = 1;
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	s = start_sleeper(test, exiting_thread);
	/* The only instance is held by the sleeping thread. */
	KUNIT_EXPECT_EQ(test, kprobes_test_exit_inside(NULL), EXIT_COOKIE);
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, tr->ret_hits, 0);
	complete(&s->release);
	wait_for_completion(&s->done);
	KUNIT_EXPECT_FALSE(test, s->gave_up);
	/* Once the thread is reaped its instance is back in the pool. */
	for (tries = 0; tries < 250 && !tr->ret_hits; tries++) {
		msleep(20);
		kprobes_test_exit_inside(NULL);
	}
	KUNIT_EXPECT_EQ(test, tr->ret_hits, 1);
	KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[0]), EXIT_COOKIE);
}

static long call_target_here(void *unused)
{
	return kprobes_test_target(TEST_ARG);
}

/*
 * A returning instance is set aside on its CPU for the next call there.
 * With maxactive 1, a call on every other CPU in turn must still find it:
 * an instance set aside is not in use, and only those in use may make a
 * call go missed.
 */
#define MANY_SLEEPERS	256

static atomic_t sleeper_returns;

static int count_sleeper_return(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	atomic_inc(&sleeper_returns);
	return 0;
}

/*
 * @nr helper threads asleep in kprobes_test_sleeper() at once, under a
 * kretprobe with @maxactive, then released.  Returns the kretprobe's
 * nmissed while they all slept; sleeper_returns counts the return
 * handlers run.  @rp is unregistered and its instances freed at the end.
 */
static int sleep_many(struct kunit *test, struct kretprobe *rp, int nr)
{
	struct sleeper **s;
	int i, missed;

	s = kunit_kcalloc(test, nr, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	rp->kp.addr = kpt_entry(kprobes_test_sleeper);
	rp->handler = count_sleeper_return;
	atomic_set(&sleeper_returns, 0);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, rp), 0);
	for (i = 0; i < nr; i++)
		s[i] = start_sleeper(test, sleeper_thread);
	missed = rp->nmissed;
	for (i = 0; i < nr; i++)
		complete(&s[i]->release);
	for (i = 0; i < nr; i++) {
		wait_for_completion(&s[i]->done);
		KUNIT_EXPECT_FALSE(test, s[i]->gave_up);
		KUNIT_EXPECT_EQ(test, s[i]->result, SLEEPER_COOKIE);
	}
	unreg_kretprobe(test, rp);
	KUNIT_EXPECT_NULL(test, kretprobe_pool_of(rp));
	return missed;
}

/*
 * With maxactive left to the core, 256 tasks asleep in the probed function
 * at once miss nothing: the instances grow while they are in use.
 */
static void kretprobe_default_grows_for_sleepers(struct kunit *test)
{
	struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rp);
	KUNIT_EXPECT_EQ(test, sleep_many(test, rp, MANY_SLEEPERS), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&sleeper_returns), MANY_SLEEPERS);
	/* the starting size is written back, as documented */
	KUNIT_EXPECT_EQ(test, rp->maxactive,
			max(10, 2 * (int)num_possible_cpus()));
}

/*
 * A pool that cannot grow yet asks for its worker once, not on every hit.
 * A kick per hit is an interrupt per hit: with a probe on the interrupt
 * return path, and the worker unable to run (every CPU in stop_machine()),
 * that CPU would take kicks for ever.  Here the worker waits for the CPU
 * its kick ran on: this one, or on mips, which has no interrupt for
 * irq_work, another.  So while this CPU nests past the pool, every CPU
 * keeps preemption off with interrupts on (grow_recurse_held()): kicks
 * run at once, and the worker cannot.
 */
static int grow_hold_cpu(void *held)
{
	preempt_disable();
	complete(held);
	while (!kthread_should_stop())
		cpu_relax();
	preempt_enable();
	return 0;
}

static void grow_recurse_held(struct kunit *test, int depth)
{
	struct task_struct **holders;
	DECLARE_COMPLETION_ONSTACK(held);
	int cpu, nr = 0;

	holders = kunit_kcalloc(test, nr_cpu_ids, sizeof(*holders), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, holders);
	cpus_read_lock();
	/* This CPU nests; the holders keep every other one. */
	migrate_disable();
	for_each_online_cpu(cpu) {
		if (cpu == smp_processor_id())
			continue;
		holders[cpu] = kpt_kthread_on(test, cpu, grow_hold_cpu, &held,
					      "kpt_hold");
		if (holders[cpu])
			nr++;
	}
	while (nr--)
		wait_for_completion(&held);
	preempt_disable();
	kprobes_test_recurse(depth);
	preempt_enable();
	for_each_online_cpu(cpu) {
		if (holders[cpu])
			kthread_stop(holders[cpu]);
	}
	migrate_enable();
	cpus_read_unlock();
}

static void kretprobe_grow_asks_once(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_recurse);
	/* On a return trampoline, a spare per CPU on top of maxactive. */
	int spares = IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK) ? 0 : num_possible_cpus();
	int round, kicks, depth;

	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	depth = 3 * tr->rp.maxactive;

	grow_recurse_held(test, depth);
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed,
			depth + 1 - tr->rp.maxactive - spares);
	KUNIT_EXPECT_EQ(test, kretprobe_grow_kicks(&tr->rp), 1);

	/* Once the worker has run, a pool that runs short asks again. */
	for (round = 0, kicks = 1; round < 100 && kicks == 1; round++) {
		msleep(20);
		grow_recurse_held(test, depth);
		kicks = kretprobe_grow_kicks(&tr->rp);
	}
	KUNIT_EXPECT_EQ(test, kicks, 2);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, tr->ret_hits);
}

static void kretprobe_call_once(void *unused)
{
	kprobes_test_recurse(0);
}

/*
 * One call and return on every CPU leaves each CPU an idle spare instance:
 * nothing is in flight, so the pool must not grow.  It did once on every
 * machine of five CPUs or more, where the spares alone were half the pool.
 * On rethook, which keeps no spares, every return must be counted back.
 */
static void kretprobe_idle_spares_do_not_grow(struct kunit *test)
{
	struct test_kretprobe *tr;
	int cpu, calls = 0;

	if (!IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK) && num_online_cpus() < 5)
		kunit_skip(test, "needs 5 CPUs online for the spares to be half the pool");
	tr = new_kretprobe(test, 'R', kprobes_test_recurse);
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (!smp_call_function_single(cpu, kretprobe_call_once, NULL, 1))
			calls++;
	}
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, calls, (int)num_online_cpus());
	KUNIT_EXPECT_EQ(test, tr->ret_hits, calls);
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, kretprobe_grow_kicks(&tr->rp), 0);
}

/* A maxactive set by the user still limits, and counts what it misses. */
static void kretprobe_user_maxactive_limits_sleepers(struct kunit *test)
{
	struct kretprobe *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rp);
	rp->maxactive = 4;
	KUNIT_EXPECT_EQ(test, sleep_many(test, rp, 8), 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&sleeper_returns), 4);
	KUNIT_EXPECT_EQ(test, rp->maxactive, 4);
}

static void kretprobe_instance_follows_cpu(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_target);
	int cpu, calls = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	tr->rp.maxactive = 1;
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	cpus_read_lock();
	for (int round = 0; round < 2; round++) {
		for_each_online_cpu(cpu) {
			KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, call_target_here, NULL),
					(long)(TEST_ARG * 3 + 1));
			calls++;
		}
	}
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, calls);
	KUNIT_EXPECT_EQ(test, tr->ret_hits, calls);
}

static struct kunit_case kprobes_kretprobe_cases[] = {
	KUNIT_CASE(toggle_unregistered_kretprobe),
	KUNIT_CASE_PARAM(kretprobe_on_kprobe_aggregate, mixed_gen_params),
	KUNIT_CASE(register_kretprobes_rollback),
	KUNIT_CASE(unregister_kretprobes_big_batch),
	KUNIT_CASE(probe_on_the_kretprobe_api),
	KUNIT_CASE(kretprobe_return_value),
	KUNIT_CASE(kretprobe_entry_handler_refuses),
	KUNIT_CASE(kretprobe_instance_data),
	KUNIT_CASE(kretprobe_data_size_limit),
	KUNIT_CASE(kretprobe_instance_fields),
	KUNIT_CASE(kretprobe_maxactive_nested_miss),
	KUNIT_CASE(kretprobe_default_maxactive),
	KUNIT_CASE(kretprobe_rejects_non_entry),
	KUNIT_CASE(kretprobe_arch_blacklist),
	KUNIT_CASE(kretprobe_return_path_refused),
	KUNIT_CASE(kretprobe_unregister_in_flight),
	KUNIT_CASE(kretprobe_task_exit_reclaims),
	KUNIT_CASE(kretprobe_instance_follows_cpu),
	KUNIT_CASE(kretprobe_default_grows_for_sleepers),
	KUNIT_CASE(kretprobe_grow_asks_once),
	KUNIT_CASE(kretprobe_idle_spares_do_not_grow),
	KUNIT_CASE(kretprobe_user_maxactive_limits_sleepers),
	KUNIT_CASE(kretprobe_stack_in_handler),
	KUNIT_CASE(kretprobe_stack_below),
	KUNIT_CASE(kretprobe_stack_nested),
	KUNIT_CASE(kretprobe_stack_in_dump),
	KUNIT_CASE(kretprobe_stale_instance_swept),
	KUNIT_CASE(kretprobe_stack_after_unlink),
	{}
};

static struct kunit_suite kprobes_kretprobe_suite = {
	.name = "kprobes_kretprobe",
	.suite_init = kpt_suite_init,
	.test_cases = kprobes_kretprobe_cases,
};

kunit_test_suites(&kprobes_kretprobe_suite);

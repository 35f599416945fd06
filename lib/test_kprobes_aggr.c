// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kprobes_aggr: enabling and disabling a probe, and several
 * probes at one place, whose handlers run in the order they registered
 * in, whichever of them is removed, disabled or added back.
 */
#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/kprobes.h>
#include <linux/string.h>

#include "test_kprobes.h"

/* Enable and disable */

static void registered_disabled(struct kunit *test)
{
	struct test_probe *tp = kpt_probe_at(test, 'A', NULL, kprobes_test_target);

	tp->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&tp->kp));
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&tp->kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&tp->kp));
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
}

/* 'd' disables, 'e' enables; after each step one call shows the state. */
struct toggle_case {
	const char *desc;
	const char *steps;
};

static const struct toggle_case toggle_cases[] = {
	{ "disable, enable", "de" },
	{ "disable twice, enable", "dde" },
	{ "enable while enabled", "ed" },
	{ "disable, enable, twice", "dede" },
	{ "disable, enable twice, disable", "deed" },
};

KUNIT_ARRAY_PARAM_DESC(toggle, toggle_cases, desc);

static void disable_enable_sequence(struct kunit *test)
{
	const struct toggle_case *tc = test->param_value;
	struct test_probe *tp = kpt_probe_at(test, 'A', NULL, kprobes_test_target);
	int want = 0;
	const char *s;

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	for (s = tc->steps; *s; s++) {
		bool enable = *s == 'e';

		if (enable)
			KUNIT_EXPECT_EQ(test, enable_kprobe(&tp->kp), 0);
		else
			KUNIT_EXPECT_EQ(test, disable_kprobe(&tp->kp), 0);
		KUNIT_EXPECT_EQ(test, kprobe_disabled(&tp->kp), !enable);
		kprobes_test_target(0);
		want += enable;
		KUNIT_EXPECT_EQ_MSG(test, tp->pre_hits, want, "after step %d",
				    (int)(s - tc->steps));
	}
}

static void toggle_unregistered_kprobe(struct kunit *test)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_EXPECT_EQ(test, enable_kprobe(&tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&tp->kp), -EINVAL);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	kpt_unreg_kprobe(test, &tp->kp);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&tp->kp), -EINVAL);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
}

/* Aggregation */

/* Probes A, B and C at one place, registered in that order. */
static void add_three(struct kunit *test, struct test_probe **tps,
		      struct call_log *log, void *addr)
{
	int i;

	for (i = 0; i < 3; i++) {
		tps[i] = kpt_probe_at(test, 'A' + i, log, addr);
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tps[i]->kp), 0);
	}
}

static void call_logged(struct call_log *log, void *addr)
{
	memset(log, 0, sizeof(*log));
	if (addr == kprobes_test_target)
		kprobes_test_target(0);
	else
		kprobes_test_marked(0);
}

static void aggregate_order(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	void *addr = kpt_place_addr(test, pc->place);
	struct test_probe *tps[3];
	struct call_log log = {};

	add_three(test, tps, &log, addr);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "ABCabc");
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "ABCabc");
}

static void aggregate_remove_middle(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	void *addr = kpt_place_addr(test, pc->place);
	struct test_probe *tps[3];
	struct call_log log = {};

	add_three(test, tps, &log, addr);
	kpt_unreg_kprobe(test, &tps[1]->kp);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "ACac");
	kpt_unreg_kprobe(test, &tps[0]->kp);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "Cc");
	KUNIT_EXPECT_EQ(test, tps[2]->pre_hits, 2);
}

static void aggregate_disable_one(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	void *addr = kpt_place_addr(test, pc->place);
	struct test_probe *tps[3];
	struct call_log log = {};

	add_three(test, tps, &log, addr);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&tps[1]->kp), 0);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "ACac");
	KUNIT_ASSERT_EQ(test, enable_kprobe(&tps[1]->kp), 0);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "ABCabc");
	/* All three disabled, then one back. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&tps[0]->kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&tps[1]->kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&tps[2]->kp), 0);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "");
	KUNIT_ASSERT_EQ(test, enable_kprobe(&tps[2]->kp), 0);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "Cc");
}

/* Add A, B, C in the given order; remove the first; add it back. */
struct order_case {
	const char *desc;
};

static const struct order_case order_cases[] = {
	{ "ABC" }, { "ACB" }, { "BAC" }, { "BCA" }, { "CAB" }, { "CBA" },
};

KUNIT_ARRAY_PARAM_DESC(order, order_cases, desc);

static void expect_order(struct kunit *test, struct call_log *log,
			 const char *ids)
{
	char want[8];
	int i, n = strlen(ids);

	for (i = 0; i < n; i++) {
		want[i] = ids[i];
		want[n + i] = tolower(ids[i]);
	}
	want[2 * n] = '\0';
	call_logged(log, kprobes_test_target);
	KUNIT_EXPECT_STREQ(test, log->seq, want);
}

static void aggregate_add_remove_readd(struct kunit *test)
{
	const struct order_case *oc = test->param_value;
	const char *ids = oc->desc;
	struct test_probe *tps[3];
	struct call_log log = {};
	char rotated[4];
	int i;

	for (i = 0; i < 3; i++)
		tps[i] = kpt_probe_at(test, 'A' + i, &log, kprobes_test_target);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tps[ids[i] - 'A']->kp), 0);
	expect_order(test, &log, ids);

	kpt_unreg_kprobe(test, &tps[ids[0] - 'A']->kp);
	expect_order(test, &log, ids + 1);

	kpt_clear_for_reuse(&tps[ids[0] - 'A']->kp);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tps[ids[0] - 'A']->kp), 0);
	rotated[0] = ids[1];
	rotated[1] = ids[2];
	rotated[2] = ids[0];
	rotated[3] = '\0';
	expect_order(test, &log, rotated);
}

static struct kunit_case kprobes_aggr_cases[] = {
	KUNIT_CASE(registered_disabled),
	KUNIT_CASE_PARAM(disable_enable_sequence, toggle_gen_params),
	KUNIT_CASE(toggle_unregistered_kprobe),
	KUNIT_CASE_PARAM(aggregate_order, kpt_place_gen_params),
	KUNIT_CASE_PARAM(aggregate_remove_middle, kpt_place_gen_params),
	KUNIT_CASE_PARAM(aggregate_disable_one, kpt_place_gen_params),
	KUNIT_CASE_PARAM(aggregate_add_remove_readd, order_gen_params),
	{}
};

static struct kunit_suite kprobes_aggr_suite = {
	.name = "kprobes_aggr",
	.suite_init = kpt_suite_init,
	.test_cases = kprobes_aggr_cases,
};

kunit_test_suites(&kprobes_aggr_suite);

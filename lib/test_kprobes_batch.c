// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kprobes_batch: register_kprobes() and unregister_kprobes()
 * as one step each, rolling back, how long unregistration waits, and that
 * no handler runs on a probe's memory once its unregistration returned.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kmsg_dump.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>

/* The core's internals that these cases look at, exported for KUnit only */
#include "../kernel/kprobes_internal.h"
#include "test_kprobes.h"

static void register_kprobes_rollback(struct kunit *test)
{
	struct test_probe *a = kpt_probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *b = kpt_probe_at(test, 'B', NULL, kprobes_test_other);
	struct test_probe *bad = kpt_probe_at(test, 'X', NULL, kprobes_test_marked);
	struct test_probe *d = kpt_probe_at(test, 'D', NULL, kprobes_test_redirect);
	struct kprobe *kps[] = { &a->kp, &b->kp, &bad->kp, &d->kp };

	bad->kp.symbol_name = "kprobes_test_marked";	/* and an address */
	kpt_expect_batch_refused(test, kps, ARRAY_SIZE(kps), -EINVAL);
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	kprobes_test_redirect(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + bad->pre_hits +
			d->pre_hits, 0);
	/* The earlier entries were really taken out: they register again. */
	kpt_clear_for_reuse(&a->kp);
	kpt_clear_for_reuse(&b->kp);
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	kprobes_test_target(0);
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
}

#define QUIET_BEGIN	"kprobes_test: the core should be quiet from here"

/* How many lines the core (pr_fmt "kprobes: ") logged since QUIET_BEGIN. */
static int core_lines_since_quiet(struct kunit *test)
{
	const size_t size = 512;
	struct kmsg_dump_iter iter;
	char *line;
	size_t len;
	int n = -1;

	line = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, size - 1, &len)) {
		line[len] = '\0';
		if (strstr(line, QUIET_BEGIN))
			n = 0;
		else if (n >= 0 && strstr(line, "kprobes: "))
			n++;
	}
	return n;
}

/*
 * Batch users roll back with partly registered arrays: the entries never
 * registered get their addr cleared, silently, as in the base.
 */
static void unregister_kprobes_partly_registered(struct kunit *test)
{
	struct test_probe *a = kpt_probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *never = kpt_probe_at(test, 'N', NULL, kprobes_test_other);
	struct test_probe *b = kpt_probe_at(test, 'B', NULL, kprobes_test_marked);
	struct kprobe *kps[] = { &a->kp, &never->kp, &b->kp };

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	pr_info(QUIET_BEGIN "\n");
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	if (IS_ENABLED(CONFIG_PRINTK))
		KUNIT_EXPECT_EQ(test, core_lines_since_quiet(test), 0);
	kunit_remove_action(test, kpt_unregister_kprobe_action, &a->kp);
	kunit_remove_action(test, kpt_unregister_kprobe_action, &b->kp);
	KUNIT_EXPECT_NULL(test, never->kp.addr);
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits + never->pre_hits + b->pre_hits, 0);
	kpt_clear_for_reuse(&a->kp);
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
}

#define BATCH_PROBES	12

/*
 * Unregistering a batch waits once for the hits in progress, not once per
 * probe.  A probe on kprobe_wait_for_hits() counts the waits of this task.
 */
static void unregister_batch_waits_once(struct kunit *test)
{
	void *const targets[] = {
		kprobes_test_target, kprobes_test_other, kprobes_test_marked,
	};
	struct kprobe *kps[BATCH_PROBES];
	struct test_probe *sync, *tp;
	int i;

	sync = kpt_new_probe(test, 'S', NULL);
	sync->kp.symbol_name = "kprobe_wait_for_hits";
	sync->kp.pre_handler = kpt_count_own_sync;
	sync->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &sync->kp), 0);
	for (i = 0; i < BATCH_PROBES; i++) {
		tp = kpt_probe_at(test, 'A', NULL, targets[i % ARRAY_SIZE(targets)]);
		kps[i] = &tp->kp;
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, kps[i]), 0);
	}

	WRITE_ONCE(kpt_sync_counted_task, current);
	unregister_kprobes(kps, BATCH_PROBES);
	WRITE_ONCE(kpt_sync_counted_task, NULL);
	for (i = 0; i < BATCH_PROBES; i++)
		kunit_remove_action(test, kpt_unregister_kprobe_action, kps[i]);

	KUNIT_EXPECT_EQ(test, sync->pre_hits, 1);
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	for (i = 0; i < BATCH_PROBES; i++)
		KUNIT_EXPECT_EQ(test, to_test_probe(kps[i])->pre_hits, 0);
}

/*
 * A lone unregistration waits once for the hits in progress.  Where the
 * architecture counts its hits (x86, arm64) that wait is no RCU grace
 * period: that is what lets tools remove thousands of probes one by one.
 */
static void unregister_lone_without_grace_period(struct kunit *test)
{
	struct test_probe *wait, *sync, *tp;

	wait = kpt_new_probe(test, 'W', NULL);
	wait->kp.symbol_name = "kprobe_wait_for_hits";
	wait->kp.pre_handler = kpt_count_own_sync;
	wait->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &wait->kp), 0);
	sync = kpt_new_probe(test, 'S', NULL);
	sync->kp.symbol_name = "synchronize_rcu";
	sync->kp.pre_handler = kpt_count_own_sync;
	sync->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &sync->kp), 0);
	tp = kpt_probe_at(test, 'A', NULL, kprobes_test_target);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);

	WRITE_ONCE(kpt_sync_counted_task, current);
	kpt_unreg_kprobe(test, &tp->kp);
	WRITE_ONCE(kpt_sync_counted_task, NULL);

	KUNIT_EXPECT_EQ(test, wait->pre_hits, 1);
	if (IS_ENABLED(CONFIG_X86) || IS_ENABLED(CONFIG_ARM64))
		KUNIT_EXPECT_EQ(test, sync->pre_hits, 0);
	else
		KUNIT_EXPECT_GE(test, sync->pre_hits, 1);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
}

/*
 * unregister_kprobe() returns only once no CPU can still run the probe's
 * handlers, whichever way the probe is hit.  A kthread on every other CPU
 * calls the probed function without pause.  Each round registers a probe
 * in memory of its own, lets the callers hit it, unregisters it and at
 * once marks it dead, then frees it.  The handler reads the mark when it
 * starts and again after lingering a while: a handler that finds its
 * probe dead is counted, and KASAN reports one that touches the freed
 * memory.
 */
enum lifetime_kind {
	LIFETIME_INT3,		/* a breakpoint: a trap, interrupts off */
	LIFETIME_JUMP,		/* an optimized probe: its detour buffer */
	LIFETIME_FTRACE,	/* an ftrace site: the tracer's callback */
	LIFETIME_RETURN,	/* a kretprobe: its return trampoline too */
};

struct lifetime_case {
	const char *desc;
	enum lifetime_kind kind;
	int rounds;
};

static const struct lifetime_case lifetime_cases[] = {
	{ "breakpoint", LIFETIME_INT3, 200 },
#ifdef CONFIG_OPTPROBES
	/* Each round waits for the optimizer. */
	{ "optimized", LIFETIME_JUMP, 12 },
#endif
#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_KRETPROBES)
	{ "ftrace site", LIFETIME_FTRACE, 200 },
#endif
#ifdef CONFIG_KRETPROBES
	{ "kretprobe", LIFETIME_RETURN, 200 },
#endif
};

KUNIT_ARRAY_PARAM_DESC(lifetime, lifetime_cases, desc);

#define LIFETIME_LIVE	0x4c495645
#define LIFETIME_DEAD	0x44454144

struct lifetime_probe {
	struct kretprobe rp;	/* rp.kp for the kinds that are kprobes */
	u32 mark;
};

static atomic_t lifetime_hits, lifetime_late;

static void lifetime_check(struct lifetime_probe *lp)
{
	int i;

	if (READ_ONCE(lp->mark) != LIFETIME_LIVE)
		goto late;
	/* Give an unregistration time to return under our feet. */
	for (i = 0; i < 256; i++)
		cpu_relax();
	if (READ_ONCE(lp->mark) != LIFETIME_LIVE)
		goto late;
	atomic_inc(&lifetime_hits);
	return;
late:
	atomic_inc(&lifetime_late);
}

static int lifetime_pre(struct kprobe *kp, struct pt_regs *regs)
{
	lifetime_check(container_of(kp, struct lifetime_probe, rp.kp));
	return 0;
}

#ifdef CONFIG_KRETPROBES
static int lifetime_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	/* NULL: unregistered while this handler runs, which it waits for. */
	if (rp)
		lifetime_check(container_of(rp, struct lifetime_probe, rp));
	return 0;
}

static int lifetime_register(struct lifetime_probe *lp, enum lifetime_kind kind)
{
	if (kind != LIFETIME_RETURN)
		return register_kprobe(&lp->rp.kp);
	lp->rp.handler = lifetime_return;
	return register_kretprobe(&lp->rp);
}

static void lifetime_unregister(struct lifetime_probe *lp,
				enum lifetime_kind kind)
{
	if (kind == LIFETIME_RETURN)
		unregister_kretprobe(&lp->rp);
	else
		unregister_kprobe(&lp->rp.kp);
}
#else
static int lifetime_register(struct lifetime_probe *lp, enum lifetime_kind kind)
{
	return register_kprobe(&lp->rp.kp);
}

static void lifetime_unregister(struct lifetime_probe *lp,
				enum lifetime_kind kind)
{
	unregister_kprobe(&lp->rp.kp);
}
#endif

/*
 * This file has no ftrace sites: the ftrace kinds probe an API function
 * that returns at once when given nothing to do.  A kretprobe goes there
 * too where it can, so that both its entry and its return are hit with
 * interrupts on; else on kprobes_test_target().  The others probe the
 * marked instruction, which x86 can replace with a jump.
 */
static bool lifetime_on_api(enum lifetime_kind kind)
{
	return IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) &&
	       (kind == LIFETIME_FTRACE || kind == LIFETIME_RETURN);
}

static void *lifetime_addr(enum lifetime_kind kind)
{
	if (lifetime_on_api(kind))
		return register_kprobes;
	if (kind == LIFETIME_RETURN)
		return kprobes_test_target;
	return kpt_mark_addr();
}

struct lifetime_caller {
	struct task_struct *task;
	enum lifetime_kind kind;
	unsigned long calls;
};

static int lifetime_caller_fn(void *arg)
{
	struct lifetime_caller *c = arg;
	struct kprobe *none = NULL;

	while (!kthread_should_stop()) {
		if (lifetime_on_api(c->kind))
			(void)register_kprobes(&none, 0);
		else if (c->kind == LIFETIME_RETURN)
			kprobes_test_target(1);
		else
			kprobes_test_marked(1);
		c->calls++;
		/*
		 * Between calls this task is in no probed code: say so to
		 * Tasks RCU, which an optimizer waits on (arm, powerpc) and
		 * which a preemptible spin never satisfies on its own.
		 */
		if (!(c->calls & 255))
			cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/* One round; false when the probe could not be set up as the kind asks. */
static bool lifetime_round(struct kunit *test, enum lifetime_kind kind)
{
	struct lifetime_probe *lp = kzalloc(sizeof(*lp), GFP_KERNEL);
	int ret, hits = atomic_read(&lifetime_hits);
	unsigned long deadline;

	if (!lp)
		return false;
	lp->mark = LIFETIME_LIVE;
	lp->rp.kp.addr = lifetime_addr(kind);
	lp->rp.kp.pre_handler = lifetime_pre;
	ret = lifetime_register(lp, kind);
	if (ret) {
		kfree(lp);
		KUNIT_FAIL(test, "registering failed: %d", ret);
		return false;
	}
#ifdef CONFIG_OPTPROBES
	if (kind == LIFETIME_JUMP) {
		if (!kpt_optimized(&lp->rp.kp)) {
			unregister_kprobe(&lp->rp.kp);
			kfree(lp);
			KUNIT_FAIL(test, "the probe was not optimized");
			return false;
		}
	}
#endif
	/* Let the callers hit it, a few times at least. */
	deadline = jiffies + HZ / 10;
	while (atomic_read(&lifetime_hits) - hits < 4 &&
	       time_before(jiffies, deadline))
		cond_resched();

	lifetime_unregister(lp, kind);
	WRITE_ONCE(lp->mark, LIFETIME_DEAD);
	/* A late handler would be lingering now: let it see the mark. */
	usleep_range(20, 40);
	kfree(lp);
	return true;
}

#ifdef CONFIG_OPTPROBES
/*
 * Whether the optimized kind's instruction can be replaced by a jump at
 * all: powerpc, for one, reaches only the 32 MB around its detour buffer,
 * which lies in the kernel's own text, so module text stays a breakpoint.
 */
static bool lifetime_jump_possible(struct kunit *test)
{
	struct test_probe *tp;
	bool optimized;

	tp = kpt_probe_at(test, 'J', NULL, lifetime_addr(LIFETIME_JUMP));
	tp->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	optimized = kpt_optimized(&tp->kp);
	kpt_unreg_kprobe(test, &tp->kp);
	return optimized;
}
#endif

static void unregister_lifetime(struct kunit *test)
{
	const struct lifetime_case *lc = test->param_value;
	struct lifetime_caller *callers;
	int cpu, here, round, started = 0;
	unsigned long calls = 0;

	KUNIT_ASSERT_GE_MSG(test, num_online_cpus(), 2,
			    "the callers need CPUs of their own");
	if (!lifetime_on_api(lc->kind) && lc->kind != LIFETIME_RETURN)
		kpt_require_mark(test);
#ifdef CONFIG_OPTPROBES
	if (lc->kind == LIFETIME_JUMP && !lifetime_jump_possible(test))
		kunit_skip(test, "the marked instruction is not optimizable here");
#endif
	callers = kunit_kcalloc(test, nr_cpu_ids, sizeof(*callers), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, callers);
	here = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)), 0);
	atomic_set(&lifetime_hits, 0);
	atomic_set(&lifetime_late, 0);
#ifdef CONFIG_OPTPROBES
	/* Breakpoints stay breakpoints; the optimized kind wants jumps. */
	kprobe_opt_set_enabled(lc->kind == LIFETIME_JUMP);
#endif

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (cpu == here)
			continue;
		callers[cpu].kind = lc->kind;
		callers[cpu].task = kpt_kthread_on(test, cpu, lifetime_caller_fn,
						   &callers[cpu], "kp-lifetime");
		if (callers[cpu].task)
			started++;
	}
	cpus_read_unlock();

	/* From here on no ASSERT: the callers must be stopped first. */
	for (round = 0; started && round < lc->rounds; round++) {
		if (!lifetime_round(test, lc->kind))
			break;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (!callers[cpu].task)
			continue;
		kthread_stop(callers[cpu].task);
		calls += callers[cpu].calls;
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
#ifdef CONFIG_OPTPROBES
	kprobe_opt_set_enabled(true);
#endif

	KUNIT_EXPECT_GT(test, started, 0);
	KUNIT_EXPECT_EQ(test, round, lc->rounds);
	/* Every round's probe was hit: the race was run. */
	KUNIT_EXPECT_GE(test, atomic_read(&lifetime_hits), lc->rounds);
	KUNIT_EXPECT_EQ(test, atomic_read(&lifetime_late), 0);
	kunit_info(test, "%d rounds, %lu calls, %d hits, %d late\n", round,
		   calls, atomic_read(&lifetime_hits),
		   atomic_read(&lifetime_late));
}

/* Many more kprobes than an order-1 array of pointers holds */
#define LARGE_BATCH	4096

static struct kprobe large_batch[LARGE_BATCH];
static struct kprobe *large_batch_ptrs[LARGE_BATCH];
static int large_batch_hits;

static int count_large_batch_hit(struct kprobe *kp, struct pt_regs *regs)
{
	large_batch_hits++;
	return 0;
}

static void unregister_large_batch(void *kps)
{
	unregister_kprobes(kps, LARGE_BATCH);
}

/*
 * Unregistering thousands of kprobes at once allocates nothing large (a
 * __GFP_NOFAIL array that size warns under fragmentation) and still waits
 * once for the hits in progress.  Probes on kprobe_wait_for_hits() and on
 * the large-kmalloc paths count this task's calls meanwhile.
 */
static void unregister_kprobes_large_batch(struct kunit *test)
{
	void *const targets[] = {
		kprobes_test_target, kprobes_test_other, kprobes_test_marked,
	};
	struct alloc_watch watch;
	int i;

	kpt_alloc_watch_start(test, &watch);
	memset(large_batch, 0, sizeof(large_batch));
	for (i = 0; i < LARGE_BATCH; i++) {
		large_batch[i].addr = targets[i % ARRAY_SIZE(targets)];
		large_batch[i].pre_handler = count_large_batch_hit;
		large_batch_ptrs[i] = &large_batch[i];
	}
	KUNIT_ASSERT_EQ(test, register_kprobes(large_batch_ptrs, LARGE_BATCH), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unregister_large_batch,
							large_batch_ptrs), 0);
	large_batch_hits = 0;
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, large_batch_hits, LARGE_BATCH);

	WRITE_ONCE(kpt_sync_counted_task, current);
	kunit_release_action(test, unregister_large_batch, large_batch_ptrs);
	WRITE_ONCE(kpt_sync_counted_task, NULL);

	kpt_alloc_watch_expect(test, &watch);
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, large_batch_hits, LARGE_BATCH);
	/* Really gone: the first of them registers again. */
	large_batch[0].flags = 0;
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &large_batch[0]), 0);
}

/* A batch slowed down on purpose, and a lone call made beside it. */
struct slice_watch {
	struct kprobe slow;	/* on a function the batch calls per probe */
	struct kprobe lone;
	struct task_struct *batch_task;
	struct completion started;
	int calls;		/* the batch's calls of the slowed function */
	int calls_at_lone;	/* as many when the lone call returned */
	int lone_ret;
	bool unregister;
	bool lone_done;
};

/* Each call of the batch takes a millisecond until the lone call is done. */
static int slice_slow_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct slice_watch *w = container_of(kp, struct slice_watch, slow);

	if (current != READ_ONCE(w->batch_task))
		return 0;
	WRITE_ONCE(w->calls, w->calls + 1);
	if (!READ_ONCE(w->lone_done))
		mdelay(1);
	return 0;
}

/* Once the batch is under way, register or unregister the lone probe. */
static int slice_lone_fn(void *data)
{
	struct slice_watch *w = data;
	unsigned long give_up = jiffies + 10 * HZ;

	complete(&w->started);
	while (!READ_ONCE(w->calls)) {
		if (time_after(jiffies, give_up)) {
			w->calls_at_lone = -1;
			return 0;
		}
		usleep_range(1000, 2000);
	}
	if (w->unregister)
		unregister_kprobe(&w->lone);
	else
		w->lone_ret = register_kprobe(&w->lone);
	w->calls_at_lone = READ_ONCE(w->calls);
	WRITE_ONCE(w->lone_done, true);
	return 0;
}

/* Run @w's lone call beside the batch; @kps registers or leaves. */
static void slice_run(struct kunit *test, struct slice_watch *w,
		      const char *slowed, struct kprobe **kps, int n)
{
	struct task_struct *task;

	w->slow.symbol_name = slowed;
	w->slow.pre_handler = slice_slow_pre;
	w->calls = 0;
	w->calls_at_lone = 0;
	w->lone_done = false;
	init_completion(&w->started);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &w->slow), 0);
	task = kthread_run(slice_lone_fn, w, "kpt_lone");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	/* On one CPU without preemption it would start only at a slice's end. */
	wait_for_completion(&w->started);
	WRITE_ONCE(w->batch_task, current);
	if (w->unregister)
		unregister_kprobes(kps, n);
	else
		KUNIT_EXPECT_EQ(test, register_kprobes(kps, n), 0);
	WRITE_ONCE(w->batch_task, NULL);
	kthread_stop_put(task);
	kpt_unreg_kprobe(test, &w->slow);
	kpt_clear_for_reuse(&w->slow);
	KUNIT_EXPECT_EQ(test, w->calls, n);
	kunit_info(test, "beside %s: the lone call returned after %d of %d calls\n",
		   slowed, w->calls_at_lone, n);
	KUNIT_EXPECT_GT_MSG(test, w->calls_at_lone, 0,
			    "the lone call never started");
	KUNIT_EXPECT_LT_MSG(test, w->calls_at_lone, n,
			    "the lone call waited for the whole batch");
}

/*
 * A batch lets others take kprobe_mutex between slices of its work
 * (KPROBE_SLICE_JIFFIES): a lone register_kprobe() or unregister_kprobe()
 * made while a long batch runs returns before the batch does, as it would
 * beside the base's one-probe-at-a-time register_kprobes().  A probe on
 * the function a batch calls per probe makes each call take a millisecond
 * until the lone call is done: a batch of SLICE_BATCH probes would last
 * ten slices, and the rest of it runs at full speed once the lone call
 * got in, after two slices at most.
 */
#define SLICE_BATCH	1024

static void batch_lets_a_lone_call_in(struct kunit *test)
{
	struct slice_watch *w;
	int i;

	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	memset(large_batch, 0, sizeof(large_batch));
	for (i = 0; i < SLICE_BATCH; i++) {
		large_batch[i].addr = (kprobe_opcode_t *)kprobes_test_target;
		large_batch_ptrs[i] = &large_batch[i];
	}
	w->lone.addr = (kprobe_opcode_t *)kprobes_test_other;

	slice_run(test, w, "__register_kprobe", large_batch_ptrs, SLICE_BATCH);
	KUNIT_EXPECT_EQ(test, w->lone_ret, 0);
	w->unregister = true;
	slice_run(test, w, "__unregister_kprobe_top", large_batch_ptrs,
		  SLICE_BATCH);
	/* Both gone: the lone probe registers again. */
	kpt_clear_for_reuse(&w->lone);
	KUNIT_EXPECT_EQ(test, register_kprobe(&w->lone), 0);
	unregister_kprobe(&w->lone);
}

static int count_batch_hit(struct kprobe *kp, struct pt_regs *regs)
{
	to_test_probe(kp)->pre_hits++;
	return 0;
}

/* The largest function the batch cases probe at every byte */
#define BATCH_FN_MAX	512

/*
 * What register_kprobe() says, alone, at each byte of @fn (0 or an
 * errno); the size of @fn, or 0 when it is too large to try.
 */
static unsigned long single_answers(struct kunit *test, void *fn, int *answer)
{
	unsigned long size = kpt_symbol_size(fn), off;
	struct kprobe kp;

	if (!size || size > BATCH_FN_MAX)
		return 0;
	for (off = 0; off < size; off++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = (kprobe_opcode_t *)((u8 *)fn + off);
		kp.pre_handler = count_batch_hit;
		answer[off] = register_kprobe(&kp);
		if (!answer[off])
			unregister_kprobe(&kp);
	}
	return size;
}

/*
 * A batch may learn a function's instructions once for all its probes
 * (x86 decodes from the function's start to check a boundary).  At every
 * byte of a few functions, a batch must accept and refuse exactly what
 * register_kprobe() does alone: with a probe further on registered first
 * in the same batch (what the batch learned is looked up), and after it
 * (learned as it goes).
 */
static void batch_boundaries_as_single(struct kunit *test)
{
	void *const fns[] = {
		kprobes_test_marked, kprobes_test_recurse, kprobes_test_sleeper,
	};
	struct kprobe first, probe, *kps[2];
	unsigned long size, off, last = 0;
	int *answer, f, order, ret, accepted;

	answer = kunit_kcalloc(test, BATCH_FN_MAX, sizeof(*answer), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, answer);
	for (f = 0; f < ARRAY_SIZE(fns); f++) {
		size = single_answers(test, fns[f], answer);
		KUNIT_ASSERT_NE_MSG(test, size, 0UL, "%ps: no size, or too large",
				    fns[f]);
		accepted = 0;
		for (off = 0; off < size; off++) {
			if (!answer[off]) {
				last = off;
				accepted++;
			}
		}
		KUNIT_ASSERT_GE_MSG(test, accepted, 2, "%ps", fns[f]);

		for (order = 0; order < 2; order++) {
			for (off = 0; off < size; off++) {
				memset(&first, 0, sizeof(first));
				memset(&probe, 0, sizeof(probe));
				first.addr = (kprobe_opcode_t *)((u8 *)fns[f] + last);
				probe.addr = (kprobe_opcode_t *)((u8 *)fns[f] + off);
				first.pre_handler = count_batch_hit;
				probe.pre_handler = count_batch_hit;
				kps[order] = &first;
				kps[1 - order] = &probe;
				ret = register_kprobes(kps, 2);
				KUNIT_EXPECT_EQ_MSG(test, ret, answer[off],
						    "%ps+%#lx, order %d", fns[f],
						    off, order);
				if (!ret)
					unregister_kprobes(kps, 2);
			}
		}
	}
}

/*
 * Probes on every instruction of kprobes_test_marked() that a call runs
 * (not the padding after its return), each registered alone first.
 */
struct batch_set {
	struct test_probe **tps;
	struct kprobe **kps;
	int nr;
	u8 text[BATCH_FN_MAX];
	unsigned long size;
};

static void batch_set_fill(struct kunit *test, struct batch_set *set)
{
	void *fn = kprobes_test_marked;
	unsigned long off;
	int *answer;

	answer = kunit_kcalloc(test, BATCH_FN_MAX, sizeof(*answer), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, answer);
	set->size = single_answers(test, fn, answer);
	KUNIT_ASSERT_NE(test, set->size, 0UL);
	memcpy(set->text, fn, set->size);
	/* one more for a bad entry */
	set->tps = kunit_kcalloc(test, set->size + 1, sizeof(*set->tps),
				 GFP_KERNEL);
	set->kps = kunit_kcalloc(test, set->size + 1, sizeof(*set->kps),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set->tps);
	KUNIT_ASSERT_NOT_NULL(test, set->kps);
	set->nr = 0;
	for (off = 0; off < set->size; off++) {
		struct test_probe *tp;

		if (answer[off])
			continue;
		tp = kpt_probe_at(test, 'B', NULL, (u8 *)fn + off);
		tp->kp.pre_handler = count_batch_hit;
		tp->kp.post_handler = NULL;
		KUNIT_ASSERT_EQ(test, register_kprobe(&tp->kp), 0);
		kprobes_test_marked(0);
		unregister_kprobe(&tp->kp);
		if (!tp->pre_hits)
			continue;
		KUNIT_ASSERT_EQ(test, tp->pre_hits, 1);
		kpt_clear_for_reuse(&tp->kp);
		tp->kp.addr = (kprobe_opcode_t *)((u8 *)fn + off);
		tp->pre_hits = 0;
		set->tps[set->nr] = tp;
		set->kps[set->nr] = &tp->kp;
		set->nr++;
	}
	KUNIT_ASSERT_GE(test, set->nr, 2);
}

static int batch_set_hits(struct batch_set *set, int *min, int *max)
{
	int i, sum = 0;

	*min = INT_MAX;
	*max = 0;
	for (i = 0; i < set->nr; i++) {
		sum += set->tps[i]->pre_hits;
		*min = min(*min, set->tps[i]->pre_hits);
		*max = max(*max, set->tps[i]->pre_hits);
	}
	return sum;
}

/*
 * A batch is armed in one pass at its end and disarmed in one pass: every
 * probe of it fires once per call, and afterwards the text is as it was.
 */
static void batch_arms_and_disarms_all(struct kunit *test)
{
	struct batch_set *set;
	int lo, hi;

	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	batch_set_fill(test, set);

	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, set->nr), 0);
	kprobes_test_marked(0);
	batch_set_hits(set, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, 1);
	KUNIT_EXPECT_EQ(test, hi, 1);
	unregister_kprobes(set->kps, set->nr);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, batch_set_hits(set, &lo, &hi), set->nr);
}

/*
 * enable_kprobes() and disable_kprobes() on breakpoints, one on every
 * instruction, a second probe sharing the first one's address: disabled
 * probes leave the text as it was, each enabled one fires once per call,
 * and disabling them all puts every byte back.  A probe that is not
 * registered is reported without holding the others back.
 */
static void batch_enable_disable_together(struct kunit *test)
{
	struct test_probe *twin, *stray;
	struct batch_set *set;
	int i, lo, hi, nr;

	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	batch_set_fill(test, set);
	nr = set->nr;
	for (i = 0; i < nr; i++)
		set->kps[i]->flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, nr), 0);
	twin = kpt_probe_at(test, 'T', NULL, set->kps[0]->addr);
	twin->kp.pre_handler = count_batch_hit;
	twin->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &twin->kp), 0);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, batch_set_hits(set, &lo, &hi), 0);

	/* The twin and a stray, never registered, join the list. */
	KUNIT_ASSERT_LE(test, nr + 2, (int)set->size + 1);
	stray = kpt_probe_at(test, 'S', NULL, set->kps[1]->addr);
	stray->kp.pre_handler = count_batch_hit;
	set->kps[nr] = &stray->kp;
	set->kps[nr + 1] = &twin->kp;
	KUNIT_EXPECT_EQ(test, enable_kprobes(set->kps, nr + 2), -EINVAL);
	kprobes_test_marked(0);
	batch_set_hits(set, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, 1);
	KUNIT_EXPECT_EQ(test, hi, 1);
	KUNIT_EXPECT_EQ(test, twin->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, stray->pre_hits, 0);

	/* Half disabled: the other half and the twin still fire. */
	KUNIT_EXPECT_EQ(test, disable_kprobes(set->kps, nr / 2), 0);
	kprobes_test_marked(0);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ(test, set->tps[i]->pre_hits, i < nr / 2 ? 1 : 2);
	KUNIT_EXPECT_EQ(test, twin->pre_hits, 2);

	KUNIT_EXPECT_EQ(test, disable_kprobes(set->kps, nr + 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, twin->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, batch_set_hits(set, &lo, &hi), nr + nr - nr / 2);

	kpt_unreg_kprobe(test, &twin->kp);
	unregister_kprobes(set->kps, nr);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
}

/*
 * A batch failing in the middle leaves nothing registered and no byte of
 * the text changed; the entries before the bad one register again.
 */
static void batch_failure_leaves_text_alone(struct kunit *test)
{
	struct batch_set *set;
	struct test_probe *bad;
	int lo, hi, i, half;

	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	batch_set_fill(test, set);

	/* The bad entry goes in the middle: both an address and a symbol. */
	half = set->nr / 2;
	bad = kpt_probe_at(test, 'X', NULL, kprobes_test_other);
	bad->kp.symbol_name = "kprobes_test_other";
	bad->kp.pre_handler = count_batch_hit;
	for (i = set->nr; i > half; i--) {
		set->kps[i] = set->kps[i - 1];
		set->tps[i] = set->tps[i - 1];
	}
	set->kps[half] = &bad->kp;
	set->tps[half] = bad;
	set->nr++;

	kpt_expect_batch_refused(test, set->kps, set->nr, -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
	kprobes_test_marked(0);
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, batch_set_hits(set, &lo, &hi), 0);

	/* Really out of the table: the first half registers again. */
	for (i = 0; i < half; i++)
		kpt_clear_for_reuse(set->kps[i]);
	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, half), 0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, batch_set_hits(set, &lo, &hi), half);
	unregister_kprobes(set->kps, half);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
}

/*
 * A batch keeps the last probe's symbol from one probe to the next.  A
 * probe in another function must still be resolved and judged as on its
 * own: by symbol name right after the kept function, and on the
 * blacklisted function that follows it in the text.
 */
static void batch_other_function_as_single(struct kunit *test)
{
	struct test_probe *by_name, *bl;
	kprobe_opcode_t *single;
	struct batch_set *set;
	int lo, hi, i;

	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	batch_set_fill(test, set);

	by_name = kpt_new_probe(test, 'N', NULL);
	by_name->kp.symbol_name = "kprobes_test_other";
	by_name->kp.offset = 0;
	by_name->kp.pre_handler = count_batch_hit;
	by_name->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&by_name->kp), 0);
	single = by_name->kp.addr;
	unregister_kprobe(&by_name->kp);
	kpt_clear_for_reuse(&by_name->kp);
	by_name->pre_hits = 0;

	set->kps[set->nr] = &by_name->kp;
	set->tps[set->nr++] = by_name;
	KUNIT_ASSERT_EQ(test, register_kprobes(set->kps, set->nr), 0);
	KUNIT_EXPECT_PTR_EQ(test, by_name->kp.addr, single);
	kprobes_test_marked(0);
	kprobes_test_other(0);
	batch_set_hits(set, &lo, &hi);
	KUNIT_EXPECT_EQ(test, lo, 1);
	KUNIT_EXPECT_EQ(test, hi, 1);
	unregister_kprobes(set->kps, set->nr);

	bl = kpt_probe_at(test, 'L', NULL, kprobes_test_blacklisted);
	bl->kp.pre_handler = count_batch_hit;
	set->kps[set->nr - 1] = &bl->kp;
	set->tps[set->nr - 1] = bl;
	for (i = 0; i < set->nr - 1; i++)
		kpt_clear_for_reuse(set->kps[i]);
	kpt_expect_batch_refused(test, set->kps, set->nr, -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_blacklisted(0), 0x77U);
	KUNIT_EXPECT_EQ(test, bl->pre_hits, 0);
}

static struct kunit_case kprobes_batch_cases[] = {
	KUNIT_CASE(register_kprobes_rollback),
	KUNIT_CASE(unregister_kprobes_partly_registered),
	KUNIT_CASE(unregister_batch_waits_once),
	KUNIT_CASE(unregister_lone_without_grace_period),
	KUNIT_CASE_PARAM_ATTR(unregister_lifetime, lifetime_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(unregister_kprobes_large_batch),
	KUNIT_CASE(batch_lets_a_lone_call_in),
	KUNIT_CASE(batch_boundaries_as_single),
	KUNIT_CASE(batch_arms_and_disarms_all),
	KUNIT_CASE(batch_enable_disable_together),
	KUNIT_CASE(batch_failure_leaves_text_alone),
	KUNIT_CASE(batch_other_function_as_single),
	{}
};

static struct kunit_suite kprobes_batch_suite = {
	.name = "kprobes_batch",
	.suite_init = kpt_suite_init,
	.test_cases = kprobes_batch_cases,
};

kunit_test_suites(&kprobes_batch_suite);

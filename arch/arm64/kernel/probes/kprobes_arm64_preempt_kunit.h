/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the arm64 KUnit suites: a task preempted inside a probe's code out
 * of line (a boost slot, a detour) while the probe is unregistered.
 *
 * A runner calls the probed function in a loop on a CPU of its own.  Once
 * armed, the probe's pre_handler on that CPU queues an irq_work, whose
 * interrupt comes as soon as interrupts are on again: at the boost slot
 * after a BRK, at once inside a detour's handler.  The irq_work wakes a
 * FIFO hog bound to that CPU, which preempts the runner as soon as it may
 * (at the boost slot; where the detour's hit enables preemption again)
 * and holds the CPU until released, long enough to unregister the probe
 * under the runner and look at what was freed.
 */
#ifndef _ARM64_KPROBES_ARM64_PREEMPT_KUNIT_H
#define _ARM64_KPROBES_ARM64_PREEMPT_KUNIT_H

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>

struct kpc_catch {
	u64 (*run)(void);	/* calls the probed function; 0 when right */
	struct irq_work work;
	struct task_struct *hog, *runner;
	unsigned int cpu;
	bool armed;		/* the next hit on cpu queues the irq_work */
	bool hog_spin;		/* the hog holds the CPU while set */
	bool stop;		/* the runner's loop ends */
	bool wrong;		/* the runner got a wrong value */
	atomic_t calls;
	struct completion runner_done;
};

/* From the probe's pre_handler. */
static inline void kpc_hit(struct kpc_catch *c)
{
	if (READ_ONCE(c->armed) && raw_smp_processor_id() == c->cpu) {
		WRITE_ONCE(c->armed, false);
		irq_work_queue(&c->work);
	}
}

static inline void kpc_work(struct irq_work *work)
{
	struct kpc_catch *c = container_of(work, struct kpc_catch, work);

	WRITE_ONCE(c->hog_spin, true);
	wake_up_process(c->hog);
}

static inline int kpc_runner_fn(void *arg)
{
	struct kpc_catch *c = arg;
	unsigned int n;

	while (!READ_ONCE(c->stop)) {
		if (c->run())
			WRITE_ONCE(c->wrong, true);
		n = atomic_inc_return(&c->calls);
		/* A voluntary switch now and then lets tasks RCU go on. */
		if (n % 64 == 0)
			usleep_range(100, 200);
	}
	complete(&c->runner_done);
	return 0;
}

static inline int kpc_hog_fn(void *arg)
{
	struct kpc_catch *c = arg;
	unsigned long until;

	sched_set_fifo(current);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!READ_ONCE(c->hog_spin)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		/* Bounded: a lost release must not hold the CPU for ever. */
		until = jiffies + 5 * HZ;
		while (READ_ONCE(c->hog_spin) && time_before(jiffies, until))
			cpu_relax();
		WRITE_ONCE(c->hog_spin, false);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Is a return address of the sleeping runner one that @match accepts? */
static inline bool kpc_runner_in(struct kpc_catch *c,
				 bool (*match)(unsigned long ip, const void *data),
				 const void *data)
{
	unsigned long entries[32];
	unsigned int i, n;

	n = stack_trace_save_tsk(c->runner, entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		if (match(entries[i], data))
			return true;
	return false;
}

static inline bool kpc_wait_for(bool *flag, bool value)
{
	int i;

	for (i = 0; i < 2000 && READ_ONCE(*flag) != value; i++)
		usleep_range(1000, 2000);
	return READ_ONCE(*flag) == value;
}

/* Skip a case that cannot catch a task preempted where it wants one. */
static inline void kpc_require(struct kunit *test)
{
	if (!preempt_model_full())
		kunit_skip(test, "needs full preemption (preempt=full)");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");
}

/*
 * Start the hog and the runner on a CPU this case does not run on, for
 * the probe already registered.  Return: false, the case failed, when a
 * thread could not be made.
 */
static inline bool kpc_start(struct kunit *test, struct kpc_catch *c,
			     u64 (*run)(void))
{
	c->run = run;
	init_completion(&c->runner_done);
	c->work = IRQ_WORK_INIT_HARD(kpc_work);
	if (set_cpus_allowed_ptr(current, cpumask_of(raw_smp_processor_id()))) {
		KUNIT_FAIL(test, "cannot stay on one CPU");
		return false;
	}
	c->cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	c->hog = kthread_create(kpc_hog_fn, c, "kp-catch-hog");
	if (IS_ERR(c->hog)) {
		KUNIT_FAIL(test, "no hog thread");
		return false;
	}
	kthread_bind(c->hog, c->cpu);
	wake_up_process(c->hog);
	c->runner = kthread_create(kpc_runner_fn, c, "kp-catch-runner");
	if (IS_ERR(c->runner)) {
		kthread_stop(c->hog);
		KUNIT_FAIL(test, "no runner thread");
		return false;
	}
	kthread_bind(c->runner, c->cpu);
	wake_up_process(c->runner);
	usleep_range(5000, 6000);
	return true;
}

/* Arm the probe's handler; true once the hog holds the runner's CPU. */
static inline bool kpc_catch(struct kpc_catch *c)
{
	WRITE_ONCE(c->armed, true);
	return kpc_wait_for(&c->hog_spin, true);
}

/*
 * Release the runner, let it make 100 more calls, stop both threads.
 * Return: whether the runner made them.
 */
static inline bool kpc_finish(struct kpc_catch *c)
{
	int calls = atomic_read(&c->calls), i;

	WRITE_ONCE(c->hog_spin, false);
	for (i = 0; i < 10 * HZ && atomic_read(&c->calls) < calls + 100; i++)
		schedule_timeout_uninterruptible(1);
	WRITE_ONCE(c->stop, true);
	wait_for_completion(&c->runner_done);
	kthread_stop(c->hog);
	return atomic_read(&c->calls) >= calls + 100;
}

/*
 * What the case must have seen: the runner preempted in @where, there all
 * along while the probe went, @where not handed out meanwhile, and every
 * call right, 100 more once released.
 */
static inline void kpc_expect(struct kunit *test, struct kpc_catch *c,
			      const char *where, bool in, bool still_in,
			      bool taken, bool went_on)
{
	KUNIT_EXPECT_TRUE_MSG(test, in, "the runner was not preempted in the %s",
			      where);
	KUNIT_EXPECT_TRUE(test, still_in);
	KUNIT_EXPECT_TRUE_MSG(test, taken, "the %s was free while a task was in it",
			      where);
	KUNIT_EXPECT_FALSE(test, c->wrong);
	KUNIT_EXPECT_TRUE(test, went_on);
}

#endif /* _ARM64_KPROBES_ARM64_PREEMPT_KUNIT_H */

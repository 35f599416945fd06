// SPDX-License-Identifier: GPL-2.0
/*
 * A reproducer of a QEMU bug: a static key flipped in a loop (each flip is
 * a text_poke_bp() of one jump-label site) while a thread per CPU calls
 * the function holding the site.  On hardware nothing happens.  Under
 * QEMU's multi-threaded TCG a CPU may run the site's int3 after the batch
 * took it out; if the next batch puts it back before the kprobes int3
 * handler reads the byte, the kernel dies with "Oops: int3".
 */
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

/* Guest seconds are a poor measure under TCG: the flips count. */
static unsigned int seconds = 3600;
module_param(seconds, uint, 0444);
static unsigned long max_flips = 60000;
module_param(max_flips, ulong, 0444);

static DEFINE_STATIC_KEY_FALSE(kpstale_key);
static int kpstale_sink;
static bool kpstale_stop;
static atomic64_t kpstale_calls;

static noinline int kpstale_target(int x)
{
	if (static_branch_unlikely(&kpstale_key))
		return x + kpstale_sink;
	return x - 1;
}

static int kpstale_caller(void *unused)
{
	unsigned int i = 0;

	while (!READ_ONCE(kpstale_stop)) {
		kpstale_sink += kpstale_target(i);
		if (!(++i & 1023)) {
			atomic64_add(1024, &kpstale_calls);
			cond_resched();
		}
	}
	return 0;
}

static int __init kpstale_init(void)
{
	struct task_struct *t[8];
	unsigned long end = jiffies + seconds * HZ, flips = 0;
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		if (n == ARRAY_SIZE(t))
			break;
		t[n] = kthread_run(kpstale_caller, NULL, "kpstale/%d", cpu);
		if (!IS_ERR(t[n]))
			get_task_struct(t[n++]);
	}
	while (time_before(jiffies, end) && flips < max_flips) {
		static_branch_enable(&kpstale_key);
		static_branch_disable(&kpstale_key);
		flips += 2;
		if (!(flips & 4095)) {
			pr_info("kpstale: %lu flips, %lld calls\n", flips,
				atomic64_read(&kpstale_calls));
			cond_resched();
		}
	}
	WRITE_ONCE(kpstale_stop, true);
	while (n--) {
		kthread_stop(t[n]);
		put_task_struct(t[n]);
	}
	pr_info("kpstale: done: %lu flips, %lld calls, no oops\n", flips,
		atomic64_read(&kpstale_calls));
	return -EAGAIN;
}
module_init(kpstale_init);
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for kprobes and kretprobes: what their files share.
 *
 * Every probe sits on a function of this module, so the only calls that can
 * hit it are the ones a case makes.  Handlers run in probe context with
 * preemption off: they only record what they saw, and the case checks the
 * records once the probed call has returned.
 *
 * The suites, one file each: test_kprobes_core.c (where a probe may go,
 * handlers, faults, module init text), test_kprobes_aggr.c (enabling, and
 * several probes at one place), test_kprobes_batch.c (batches and
 * unregistration), test_kprobes_ftrace.c (probes on ftrace sites) and
 * test_kprobes_kretprobe.c.  x86's
 * instruction classes and boosting are tested beside its backend
 * (arch/x86/kernel/kprobes/kprobes_x86_kunit.c), as arm64's are.
 *
 * Module load and unload, the debugfs knobs and the probe list are covered
 * by the kprobes kselftest and the guest shell suites.
 */
#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>

#include "../kernel/kprobes_internal.h"
#include "test_kprobes.h"

#ifdef CONFIG_PPC64_ELF_ABI_V2
#include <asm/code-patching.h>
#endif

/*
 * Probe targets.  __noipa keeps gcc from inlining, cloning or specialising
 * them, so kallsyms names each one exactly and every call below really lands
 * on the symbol; __used keeps the ones only reached through a probe.  They
 * lie in memory in the order written (lib/Makefile builds this file with
 * -fno-toplevel-reorder): a "sym+N" case reaches kprobes_test_marked()
 * from kprobes_test_target().
 */
__used noinline __noipa u32 kprobes_test_target(u32 x)
{
	return x * 3 + 1;
}

__used noinline __noipa u32 kprobes_test_other(u32 x)
{
	return x * 5 + 2;
}

/* Where a redirecting pre_handler sends kprobes_test_target(). */
__used noinline __noipa u32 kprobes_test_redirect(u32 x)
{
	return ~x;
}

__used noinline __noipa u32 kprobes_test_marked(u32 x)
{
	return kpt_mark_moves() + x;
}

/* Listed in this module's _kprobe_blacklist: must never take a probe. */
__used noinline __noipa u32 kprobes_test_blacklisted(u32 x)
{
	return x ^ 0x77;
}

NOKPROBE_SYMBOL(kprobes_test_blacklisted);

/* Calls itself @depth times; the value identifies the level it returns from. */
__used noinline __noipa u32 kprobes_test_recurse(u32 depth)
{
	if (depth)
		kprobes_test_recurse(depth - 1);
	return depth * 3 + 1;
}

/* Sleeps inside the probed function until the case releases it. */
__used noinline __noipa u32 kprobes_test_sleeper(struct sleeper *s)
{
	complete(&s->entered);
	if (!wait_for_completion_timeout(&s->release, SLEEPER_PATIENCE))
		s->gave_up = true;
	return SLEEPER_COOKIE;
}

/* With @s, the calling kthread exits from inside the probed function. */
__used noinline __noipa u32 kprobes_test_exit_inside(struct sleeper *s)
{
	if (s) {
		complete(&s->entered);
		if (!wait_for_completion_timeout(&s->release, SLEEPER_PATIENCE))
			s->gave_up = true;
		kthread_complete_and_exit(&s->done, 0);
	}
	return EXIT_COOKIE;
}

unsigned long kpt_stack_seen_ret[NR_LEVELS];
struct stack_capture *kpt_inner_capture;
/* what a case wants done from inside inner(), see follow_inner_plan() */
void (*kpt_inner_hook)(void);
/* inner() prints a backtrace as an oops would, between these two lines */
bool kpt_inner_dump;

void kpt_capture_stack(struct stack_capture *c)
{
#ifdef CONFIG_STACKTRACE
	c->len = stack_trace_save(c->entries, STACK_DEPTH, 0);
#else
	c->len = 0;
#endif
}

__used noinline __noipa unsigned long kprobes_test_stack_inner(void)
{
	kpt_stack_seen_ret[LEVEL_INNER] = (unsigned long)__builtin_return_address(0);
	if (kpt_inner_capture)
		kpt_capture_stack(kpt_inner_capture);
	if (kpt_inner_hook)
		kpt_inner_hook();
	if (kpt_inner_dump) {
		pr_info(DUMP_BEGIN "\n");
		dump_stack_lvl(KERN_DEBUG);
		pr_info(DUMP_END "\n");
	}
	return INNER_VALUE;
}

__used noinline __noipa unsigned long kprobes_test_stack_outer(void)
{
	kpt_stack_seen_ret[LEVEL_OUTER] = (unsigned long)__builtin_return_address(0);
	kprobes_test_stack_inner();
	return OUTER_VALUE;
}

__used noinline __noipa unsigned long kprobes_test_stack_driver(void)
{
	/* Not a tail call: outer must return here. */
	return kprobes_test_stack_outer() + 1;
}

/* Layout facts about this module's own code, found once per suite. */
int kpt_mark_offset = -ENOENT;	/* of the MARK_AFTER move in marked() */

/**
 * kpt_symbol_of() - what kallsyms says of an address
 * @addr: the address
 * @name: KSYM_SYMBOL_LEN bytes, for the name of the symbol holding @addr
 * @off: @addr's offset in it
 * @size: the symbol's size
 *
 * Modules may call sprint_symbol() only, which writes all of it as
 * "name+0xOFF/0xSIZE [module]"; this reads it back.
 *
 * Return: false if kallsyms does not know @addr.
 */
bool kpt_symbol_of(unsigned long addr, char *name, unsigned long *off,
		   unsigned long *size)
{
	char *plus;

	sprint_symbol(name, addr);
	plus = strrchr(name, '+');
	if (!plus || sscanf(plus + 1, "0x%lx/0x%lx", off, size) != 2)
		return false;
	*plus = '\0';
	return true;
}

/* A function's size as kallsyms reports it, or 0. */
unsigned long kpt_symbol_size(const void *fn)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long off, size;

	if (!kpt_symbol_of((unsigned long)fn, name, &off, &size))
		return 0;
	return size;
}

#ifdef CONFIG_OPTPROBES
/* Whether @kp is optimized once the optimizer has done what it queued. */
bool kpt_optimized(struct kprobe *kp)
{
	wait_for_kprobe_optimizer();
	return kprobe_opt_state_of(kp) == KPROBE_OPT_ACTIVE;
}
#endif

#if HAVE_MARK
/*
 * The bytes of the MARK_AFTER move, as they sit in memory: s390 stores its
 * instructions big endian, the other marked arches little endian (arm and
 * arm64 also in a big-endian kernel).
 */
void kpt_mark_bytes(u8 *insn)
{
#if defined(CONFIG_X86)
	insn[0] = 0xb8;
	put_unaligned_le32(MARK_AFTER, insn + 1);
#elif defined(CONFIG_S390) || (defined(CONFIG_MIPS) && defined(CONFIG_CPU_BIG_ENDIAN))
	put_unaligned_be32(MARK_WORD, insn);
#else
	put_unaligned_le32(MARK_WORD, insn);
#endif
}

/* Where in @fn, a copy of kprobes_test_marked(), its MARK_AFTER move is. */
int kpt_find_mark_in(const void *fn)
{
	const u8 *text = fn;
	unsigned long size = kpt_symbol_size(text);
	u8 want[MARK_LEN];
	unsigned long off;

	kpt_mark_bytes(want);
	for (off = 0; off + MARK_LEN <= size; off += MARK_STEP)
		if (!memcmp(text + off, want, MARK_LEN))
			return off;
	return -ENOENT;
}
#else
int kpt_find_mark_in(const void *fn)
{
	return -EOPNOTSUPP;
}
#endif

static int find_mark(void)
{
	return kpt_find_mark_in(kprobes_test_marked);
}

static unsigned long mark_reg(struct pt_regs *regs)
{
#if defined(CONFIG_X86)
	return regs->ax;
#elif defined(CONFIG_ARM64)
	return regs->regs[9];
#elif defined(CONFIG_RISCV)
	return regs->t0;
#elif defined(CONFIG_ARM)
	return regs->ARM_r9;
#elif defined(CONFIG_PPC64) && defined(CONFIG_CPU_LITTLE_ENDIAN)
	return regs->gpr[9];
#elif defined(CONFIG_S390)
	return regs->gprs[9];
#elif defined(CONFIG_MIPS)
	return regs->regs[9];
#else
	return 0;
#endif
}

unsigned long kpt_first_arg(struct pt_regs *regs)
{
#if defined(CONFIG_ARM)
	return regs->ARM_r0;
#elif defined(CONFIG_MIPS)
	return regs->regs[4];
#elif defined(CONFIG_S390)
	return regs->gprs[2];
#elif HAVE_FIRST_ARG
	return regs_get_kernel_argument(regs, 0);
#else
	return 0;
#endif
}

void kpt_require_mark(struct kunit *test)
{
	if (kpt_mark_offset < 0)
		kunit_skip(test, "no known instruction inside a target on this arch");
}

kprobe_opcode_t *kpt_mark_addr(void)
{
	return (kprobe_opcode_t *)((u8 *)kprobes_test_marked + kpt_mark_offset);
}

static const struct kpt_place_case kpt_place_cases[] = {
	{ "function entry", KPT_PLACE_ENTRY },
	{ "inside the function", KPT_PLACE_BODY },
};

KUNIT_ARRAY_PARAM_DESC(kpt_place_array, kpt_place_cases, desc);

/*
 * The parameters of a case run at each place, for every suite: the
 * generator KUnit's macro writes is static to this file.
 */
const void *kpt_place_gen_params(const void *prev, char *desc)
{
	return kpt_place_array_gen_params(prev, desc);
}

/* Both places are in kprobes_test_marked(), which the case then calls. */
void *kpt_place_addr(struct kunit *test, enum kpt_place place)
{
	if (place == KPT_PLACE_ENTRY)
		return kprobes_test_marked;
	kpt_require_mark(test);
	return kpt_mark_addr();
}

void kpt_log_call(struct call_log *log, char c)
{
	if (log && log->len < sizeof(log->seq) - 1)
		log->seq[log->len++] = c;
}

int kpt_record_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->pre_hits++;
	tp->pre_ip = instruction_pointer(regs);
	tp->pre_arg = kpt_first_arg(regs);
	tp->pre_mark = mark_reg(regs);
	tp->pre_preemptible = preemptible();
	kpt_log_call(tp->log, tp->id);
	return 0;
}

void kpt_record_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->post_hits++;
	tp->post_ip = instruction_pointer(regs);
	tp->post_mark = mark_reg(regs);
	tp->post_flags = flags;
	kpt_log_call(tp->log, tolower(tp->id));
}

struct test_probe *kpt_new_probe(struct kunit *test, char id,
				 struct call_log *log)
{
	struct test_probe *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->id = id;
	tp->log = log;
	tp->kp.pre_handler = kpt_record_pre;
	tp->kp.post_handler = kpt_record_post;
	return tp;
}

/**
 * kpt_entry() - where a probe by address sees the calls of a function
 * @addr: an address; the suites' function pointers among them
 *
 * On powerpc64's ELFv2 ABI a call from the same module enters a function
 * after the TOC setup of its global entry, so a probe on the function's
 * first instruction never fires.  A start of function goes where a probe
 * by symbol goes there (kprobe_lookup_name()): its ftrace site, if in the
 * first 16 bytes, or else its local entry point.  Any other address, and
 * every address elsewhere, is returned as it is.
 *
 * Return: the address to probe.
 */
void *kpt_entry(void *addr)
{
#if defined(CONFIG_PPC64_ELF_ABI_V2)
	unsigned long fn = (unsigned long)addr, site = 0, off, size;
	char name[KSYM_SYMBOL_LEN];

	if (!addr || !kpt_symbol_of(fn, name, &off, &size) || off)
		return addr;
#ifdef CONFIG_KPROBES_ON_FTRACE
	site = kprobe_ftrace_site_of_func(fn);
#endif
	if (site && site - fn < 16)
		return (void *)site;
	return (void *)ppc_function_entry(addr);
#else
	return addr;
#endif
}

struct test_probe *kpt_probe_at(struct kunit *test, char id,
				struct call_log *log, void *addr)
{
	struct test_probe *tp = kpt_new_probe(test, id, log);

	tp->kp.addr = kpt_entry(addr);
	return tp;
}

/*
 * Registration through KUnit: a probe left registered by a failing case is
 * unregistered before the memory under it is freed.
 */
void kpt_unregister_kprobe_action(void *kp)
{
	unregister_kprobe(kp);
}

int kpt_reg_kprobe(struct kunit *test, struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, kpt_unregister_kprobe_action, kp);
}

void kpt_unreg_kprobe(struct kunit *test, struct kprobe *kp)
{
	kunit_release_action(test, kpt_unregister_kprobe_action, kp);
}

/*
 * A registration that must be refused with @want.  Should it succeed
 * instead, the probe leaves again at once: the case goes on to free it,
 * and a probe left in the table would be called in freed memory.
 */
void kpt_expect_refused(struct kunit *test, struct kprobe *kp, int want)
{
	int ret = register_kprobe(kp);

	KUNIT_EXPECT_EQ(test, ret, want);
	if (!ret)
		unregister_kprobe(kp);
}

/* As kpt_expect_refused(), for a batch. */
void kpt_expect_batch_refused(struct kunit *test, struct kprobe **kps, int num,
			      int want)
{
	int ret = register_kprobes(kps, num);

	KUNIT_EXPECT_EQ(test, ret, want);
	if (!ret)
		unregister_kprobes(kps, num);
}

/*
 * Before a struct kprobe is registered again: registration writes the
 * resolved address back and sets flags, as a user of the API must expect.
 */
void kpt_clear_for_reuse(struct kprobe *kp)
{
	if (kp->symbol_name)
		kp->addr = NULL;
	kp->flags = 0;
}

/*
 * The task whose calls kpt_count_own_sync() counts: of synchronize_rcu(), or
 * of whatever else the probe using it sits on.
 */
struct task_struct *kpt_sync_counted_task;

int kpt_count_own_sync(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(kpt_sync_counted_task))
		to_test_probe(kp)->pre_hits++;
	return 0;
}

void kpt_alloc_watch_start(struct kunit *test, struct alloc_watch *w)
{
	static const char *const large_kmalloc[] = {
		"__kmalloc_large_noprof", "__kmalloc_large_node_noprof",
	};
	int i;

	static_assert(ARRAY_SIZE(large_kmalloc) == ARRAY_SIZE(w->large));
	w->sync = kpt_new_probe(test, 'S', NULL);
	w->sync->kp.symbol_name = "kprobe_wait_for_hits";
	w->sync->kp.pre_handler = kpt_count_own_sync;
	w->sync->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &w->sync->kp), 0);
	for (i = 0; i < ARRAY_SIZE(w->large); i++) {
		w->large[i] = kpt_new_probe(test, 'L', NULL);
		w->large[i]->kp.symbol_name = large_kmalloc[i];
		w->large[i]->kp.pre_handler = kpt_count_own_sync;
		w->large[i]->kp.post_handler = NULL;
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &w->large[i]->kp), 0);
	}
}

/* One wait for the whole batch, and no large allocation. */
void kpt_alloc_watch_expect(struct kunit *test, struct alloc_watch *w)
{
	int i, large_hits = 0;

	KUNIT_EXPECT_EQ(test, w->sync->pre_hits, 1);
	for (i = 0; i < ARRAY_SIZE(w->large); i++)
		large_hits += w->large[i]->pre_hits;
	KUNIT_EXPECT_EQ(test, large_hits, 0);
}

int kpt_suite_init(struct kunit_suite *suite)
{
	kpt_mark_offset = find_mark();
	return 0;
}

/*
 * A kthread named @name/@cpu running @fn(@data), bound to @cpu and woken;
 * NULL, said in the test's log, when it cannot be made.  Cases that keep
 * every other CPU busy go on without that one, and their own checks fail
 * if it mattered; the log says why.
 */
struct task_struct *kpt_kthread_on(struct kunit *test, int cpu,
				   int (*fn)(void *), void *data,
				   const char *name)
{
	struct task_struct *task;

	task = kthread_create(fn, data, "%s/%d", name, cpu);
	if (IS_ERR(task)) {
		kunit_err(test, "no %s thread on CPU %d (%pe)\n", name, cpu,
			  task);
		return NULL;
	}
	kthread_bind(task, cpu);
	wake_up_process(task);
	return task;
}

/* For memory a case frees with KUnit's cleanup, from any of the files */
void kpt_vfree_action(void *addr)
{
	vfree(addr);
}

MODULE_DESCRIPTION("KUnit tests for kprobes and kretprobes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

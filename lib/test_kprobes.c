// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for kprobes and kretprobes.
 *
 * Every probe sits on a function of this module, so the only calls that can
 * hit it are the ones a case makes.  Handlers run in probe context with
 * preemption off: they only record what they saw, and the case checks the
 * records once the probed call has returned.
 *
 * Module load and unload, the debugfs knobs and the probe list are covered
 * by the guest shell suite (harness/guest/jobs/suite-modules.sh).
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kmsg_dump.h>
#include <linux/kprobes.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/ptrace.h>
#include <linux/static_call.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#ifdef CONFIG_X86_64
#include <asm/asm.h>
#include <asm/extable.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/processor-flags.h>

#include "test_kprobes.h"
#endif
#ifdef CONFIG_ARM64
#include <asm/asm-extable.h>
#endif

/* kprobe_bl_add_area(), exported for this suite only */
#include "../kernel/kprobes_internal.h"

/*
 * kprobes_test_marked() moves MARK_BEFORE and then MARK_AFTER into one fixed
 * register.  A probe on the second move sees MARK_BEFORE in that register
 * before the instruction and MARK_AFTER after it.
 */
#if defined(CONFIG_RISCV)
/* Small enough for one addi each */
#define MARK_BEFORE	0x123
#define MARK_AFTER	0x5a5
#else
#define MARK_BEFORE	0x1234
#define MARK_AFTER	0x5a5a
#endif

#if defined(CONFIG_X86)
#define HAVE_MARK	1
/* The int3 (or the ftrace call) has executed when the pre_handler runs. */
#define PROBE_IP_BIAS	1
/* mov $imm32, %eax: opcode 0xb8, then the immediate, little endian */
#define MARK_LEN	5
#define MARK_STEP	1
#elif defined(CONFIG_ARM64)
#define HAVE_MARK	1
#define PROBE_IP_BIAS	0
/* movz w9, #MARK_AFTER */
#define MARK_LEN	4
#define MARK_STEP	4
#define MARK_WORD	(0x52800000u | (MARK_AFTER << 5) | 9)
#elif defined(CONFIG_RISCV)
#define HAVE_MARK	1
#define PROBE_IP_BIAS	0
/* addi t0, zero, MARK_AFTER; compressed code aligns on two bytes */
#define MARK_LEN	4
#define MARK_STEP	2
#define MARK_WORD	((MARK_AFTER << 20) | (5 << 7) | 0x13)
#else
#define HAVE_MARK	0
#define PROBE_IP_BIAS	0
#define MARK_LEN	1
#define MARK_STEP	1
#endif

#define TEST_ARG	41u
#define SLEEPER_COOKIE	0x5ee9u
#define EXIT_COOKIE	0xe817u
#define OUTER_VALUE	0x0c7eu
#define INNER_VALUE	0x1eafu
#define STACK_DEPTH	32
/* How long a helper thread waits to be released before giving up. */
#define SLEEPER_PATIENCE	(10 * HZ)

/*
 * Probe targets.  __noipa keeps gcc from inlining, cloning or specialising
 * them, so kallsyms names each one exactly and every call below really lands
 * on the symbol; __used keeps the ones only reached through a probe.
 */
static __used noinline __noipa u32 kprobes_test_target(u32 x)
{
	return x * 3 + 1;
}

static __used noinline __noipa u32 kprobes_test_other(u32 x)
{
	return x * 5 + 2;
}

/* Where a redirecting pre_handler sends kprobes_test_target(). */
static __used noinline __noipa u32 kprobes_test_redirect(u32 x)
{
	return ~x;
}

/* The two moves, in every function that carries the mark */
static __always_inline u32 mark_moves(void)
{
	u32 v;

#if defined(CONFIG_X86)
	asm volatile("movl $" __stringify(MARK_BEFORE) ", %0\n\t"
		     "movl $" __stringify(MARK_AFTER) ", %0"
		     : "=a" (v));
#elif defined(CONFIG_ARM64)
	asm volatile("mov w9, #" __stringify(MARK_BEFORE) "\n\t"
		     "mov w9, #" __stringify(MARK_AFTER) "\n\t"
		     "mov %w0, w9"
		     : "=r" (v) : : "x9");
#elif defined(CONFIG_RISCV)
	asm volatile(".option push\n\t.option norvc\n\t"
		     "addi t0, zero, " __stringify(MARK_BEFORE) "\n\t"
		     "addi t0, zero, " __stringify(MARK_AFTER) "\n\t"
		     ".option pop\n\t"
		     "mv %0, t0"
		     : "=r" (v) : : "t0");
#else
	v = MARK_AFTER;
#endif
	return v;
}

static __used noinline __noipa u32 kprobes_test_marked(u32 x)
{
	return mark_moves() + x;
}

/* Listed in this module's _kprobe_blacklist: must never take a probe. */
static __used noinline __noipa u32 kprobes_test_blacklisted(u32 x)
{
	return x ^ 0x77;
}

NOKPROBE_SYMBOL(kprobes_test_blacklisted);

/* Calls itself @depth times; the value identifies the level it returns from. */
static __used noinline __noipa u32 kprobes_test_recurse(u32 depth)
{
	if (depth)
		kprobes_test_recurse(depth - 1);
	return depth * 3 + 1;
}

struct sleeper {
	struct completion entered;
	struct completion release;
	struct completion done;
	u32 result;
	bool gave_up;
};

/* Sleeps inside the probed function until the case releases it. */
static __used noinline __noipa u32 kprobes_test_sleeper(struct sleeper *s)
{
	complete(&s->entered);
	if (!wait_for_completion_timeout(&s->release, SLEEPER_PATIENCE))
		s->gave_up = true;
	return SLEEPER_COOKIE;
}

/* With @s, the calling kthread exits from inside the probed function. */
static __used noinline __noipa u32 kprobes_test_exit_inside(struct sleeper *s)
{
	if (s) {
		complete(&s->entered);
		if (!wait_for_completion_timeout(&s->release, SLEEPER_PATIENCE))
			s->gave_up = true;
		kthread_complete_and_exit(&s->done, 0);
	}
	return EXIT_COOKIE;
}

/*
 * driver -> outer -> inner, for the stack trace cases.  Each function notes
 * the return address it sees; inner can also take a stack trace.
 */
enum { LEVEL_OUTER, LEVEL_INNER, NR_LEVELS };

struct stack_capture {
	unsigned long entries[STACK_DEPTH];
	unsigned int len;
};

static unsigned long stack_seen_ret[NR_LEVELS];
static struct stack_capture *inner_capture;
/* what a case wants done from inside inner(), see follow_inner_plan() */
static void (*inner_hook)(void);
/* inner() prints a backtrace as an oops would, between these two lines */
static bool inner_dump;
#define DUMP_BEGIN	"kprobes_test: backtrace begins"
#define DUMP_END	"kprobes_test: backtrace ends"

static void capture_stack(struct stack_capture *c)
{
#ifdef CONFIG_STACKTRACE
	c->len = stack_trace_save(c->entries, STACK_DEPTH, 0);
#else
	c->len = 0;
#endif
}

static __used noinline __noipa unsigned long kprobes_test_stack_inner(void)
{
	stack_seen_ret[LEVEL_INNER] = (unsigned long)__builtin_return_address(0);
	if (inner_capture)
		capture_stack(inner_capture);
	if (inner_hook)
		inner_hook();
	if (inner_dump) {
		pr_info(DUMP_BEGIN "\n");
		dump_stack_lvl(KERN_DEBUG);
		pr_info(DUMP_END "\n");
	}
	return INNER_VALUE;
}

static __used noinline __noipa unsigned long kprobes_test_stack_outer(void)
{
	stack_seen_ret[LEVEL_OUTER] = (unsigned long)__builtin_return_address(0);
	kprobes_test_stack_inner();
	return OUTER_VALUE;
}

static __used noinline __noipa unsigned long kprobes_test_stack_driver(void)
{
	/* Not a tail call: outer must return here. */
	return kprobes_test_stack_outer() + 1;
}

/* Not text at all: registering a probe here must fail. */
static u32 kprobes_test_data_object = 1;

/* Layout facts about this module's own code, found once per suite. */
static int mark_offset = -ENOENT;	/* of the MARK_AFTER move in marked() */

/* A function's size as kallsyms reports it: "name+0x0/0xSIZE [module]". */
static unsigned long symbol_size(const void *fn)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long size;
	const char *slash;

	sprint_symbol(buf, (unsigned long)fn);
	slash = strchr(buf, '/');
	if (!slash || sscanf(slash + 1, "%lx", &size) != 1)
		return 0;
	return size;
}

#if HAVE_MARK
/* The bytes of the MARK_AFTER move, as they sit in memory. */
static void mark_bytes(u8 *insn)
{
	int i;

#if defined(CONFIG_X86)
	insn[0] = 0xb8;
	for (i = 0; i < 4; i++)
		insn[1 + i] = (MARK_AFTER >> (8 * i)) & 0xff;
#else
	for (i = 0; i < 4; i++)
		insn[i] = (MARK_WORD >> (8 * i)) & 0xff;
#endif
}

/* Where in @fn, a copy of kprobes_test_marked(), its MARK_AFTER move is. */
static int find_mark_in(const void *fn)
{
	const u8 *text = fn;
	unsigned long size = symbol_size(text);
	u8 want[MARK_LEN];
	unsigned long off;

	mark_bytes(want);
	for (off = 0; off + MARK_LEN <= size; off += MARK_STEP)
		if (!memcmp(text + off, want, MARK_LEN))
			return off;
	return -ENOENT;
}
#else
static int find_mark_in(const void *fn)
{
	return -EOPNOTSUPP;
}
#endif

static int find_mark(void)
{
	return find_mark_in(kprobes_test_marked);
}

static unsigned long mark_reg(struct pt_regs *regs)
{
#if defined(CONFIG_X86)
	return regs->ax;
#elif defined(CONFIG_ARM64)
	return regs->regs[9];
#elif defined(CONFIG_RISCV)
	return regs->t0;
#else
	return 0;
#endif
}

/* Where the suite knows how to read a function's first argument. */
#define HAVE_FIRST_ARG	(IS_ENABLED(CONFIG_X86) || IS_ENABLED(CONFIG_ARM64) || \
			 IS_ENABLED(CONFIG_RISCV))

static unsigned long first_arg(struct pt_regs *regs)
{
#if HAVE_FIRST_ARG
	return regs_get_kernel_argument(regs, 0);
#else
	return 0;
#endif
}

static void require_mark(struct kunit *test)
{
	if (mark_offset < 0)
		kunit_skip(test, "no known instruction inside a target on this arch");
}

static kprobe_opcode_t *mark_addr(void)
{
	return (kprobe_opcode_t *)((u8 *)kprobes_test_marked + mark_offset);
}

/* Handler order: pre_handlers log the probe's letter, post_handlers it in lower case. */
struct call_log {
	char seq[24];
	unsigned int len;
};

static void log_call(struct call_log *log, char c)
{
	if (log && log->len < sizeof(log->seq) - 1)
		log->seq[log->len++] = c;
}

struct test_probe {
	struct kprobe kp;
	char id;
	struct call_log *log;
	u32 (*reenter)(u32 x);	/* called by the reentering handlers */
	int pre_hits;
	int post_hits;
	unsigned long pre_ip;
	unsigned long pre_arg;
	unsigned long pre_mark;
	bool pre_preemptible;
	unsigned long post_ip;
	unsigned long post_mark;
	unsigned long post_flags;
};

static struct test_probe *to_test_probe(struct kprobe *kp)
{
	return container_of(kp, struct test_probe, kp);
}

static int record_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->pre_hits++;
	tp->pre_ip = instruction_pointer(regs);
	tp->pre_arg = first_arg(regs);
	tp->pre_mark = mark_reg(regs);
	tp->pre_preemptible = preemptible();
	log_call(tp->log, tp->id);
	return 0;
}

static void record_post(struct kprobe *kp, struct pt_regs *regs,
			unsigned long flags)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->post_hits++;
	tp->post_ip = instruction_pointer(regs);
	tp->post_mark = mark_reg(regs);
	tp->post_flags = flags;
	log_call(tp->log, tolower(tp->id));
}

static int reenter_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->pre_hits++;
	tp->reenter(TEST_ARG);
	return 0;
}

static void reenter_post(struct kprobe *kp, struct pt_regs *regs,
			 unsigned long flags)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->post_hits++;
	tp->reenter(TEST_ARG);
}

/* Skips the probed function: the call returns what the redirect returns. */
static int redirect_pre(struct kprobe *kp, struct pt_regs *regs)
{
	to_test_probe(kp)->pre_hits++;
	instruction_pointer_set(regs, (unsigned long)kprobes_test_redirect);
	return 1;
}

static struct test_probe *new_probe(struct kunit *test, char id,
				    struct call_log *log)
{
	struct test_probe *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->id = id;
	tp->log = log;
	tp->kp.pre_handler = record_pre;
	tp->kp.post_handler = record_post;
	return tp;
}

static struct test_probe *probe_at(struct kunit *test, char id,
				   struct call_log *log, void *addr)
{
	struct test_probe *tp = new_probe(test, id, log);

	tp->kp.addr = addr;
	return tp;
}

/*
 * Registration through KUnit: a probe left registered by a failing case is
 * unregistered before the memory under it is freed.
 */
KUNIT_DEFINE_ACTION_WRAPPER(unregister_kprobe_action, unregister_kprobe,
			    struct kprobe *);

static int reg_kprobe(struct kunit *test, struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret)
		return ret;
	return kunit_add_action_or_reset(test, unregister_kprobe_action, kp);
}

static void unreg_kprobe(struct kunit *test, struct kprobe *kp)
{
	kunit_release_action(test, unregister_kprobe_action, kp);
}

/*
 * Before a struct kprobe is registered again: registration writes the
 * resolved address back and sets flags, as a user of the API must expect.
 */
static void clear_for_reuse(struct kprobe *kp)
{
	if (kp->symbol_name)
		kp->addr = NULL;
	kp->flags = 0;
}

static unsigned long expected_ip(struct kprobe *kp)
{
	return (unsigned long)kp->addr + PROBE_IP_BIAS;
}

/* Where a case puts its probe: the entry, or an instruction further in. */
enum probe_place { PLACE_ENTRY, PLACE_BODY };

struct place_case {
	const char *desc;
	enum probe_place place;
};

static const struct place_case place_cases[] = {
	{ "function entry", PLACE_ENTRY },
	{ "inside the function", PLACE_BODY },
};

KUNIT_ARRAY_PARAM_DESC(place, place_cases, desc);

/* Both places are in kprobes_test_marked(), which the case then calls. */
static void *place_addr(struct kunit *test, enum probe_place place)
{
	if (place == PLACE_ENTRY)
		return kprobes_test_marked;
	require_mark(test);
	return mark_addr();
}

/* Registration */

/*
 * Where a function's entry probe goes: past an ENDBR, if it has one (x86
 * with IBT), since an int3 there would make an indirect call fault.  This
 * file is built without ftrace call sites, so its own functions need no
 * more than that.
 */
static unsigned long entry_probe_point(unsigned long fn)
{
#ifdef CONFIG_X86_64
	u32 insn;

	if (!copy_from_kernel_nofault(&insn, (void *)fn, sizeof(insn)) &&
	    is_endbr(insn))
		return fn + ENDBR_INSN_SIZE;
#endif
	return fn;
}

/*
 * The size of the compiler-made preamble symbol at @addr (__pfx_ padding
 * before a function with CALL_PADDING, __cfi_ with kCFI), or 0 when
 * @addr starts something else.
 */
static unsigned long preamble_size(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];

	sprint_symbol(buf, addr);
	if (!str_has_prefix(buf, "__pfx_") && !str_has_prefix(buf, "__cfi_"))
		return 0;
	return symbol_size((void *)addr);
}

static void register_by_symbol(struct kunit *test)
{
	struct test_probe *tp = new_probe(test, 'A', NULL);
	int i;

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)tp->kp.addr,
			entry_probe_point((unsigned long)kprobes_test_target));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kprobes_test_target(i), i * 3 + 1);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 3);
	KUNIT_EXPECT_TRUE(test, tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
}

static void register_by_address(struct kunit *test)
{
	const struct place_case *pc = test->param_value;
	struct test_probe *tp;
	int i;

	tp = probe_at(test, 'A', NULL, place_addr(test, pc->place));
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	for (i = 0; i < 2; i++)
		kprobes_test_marked(i);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 2);
	KUNIT_EXPECT_EQ(test, !!(tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY),
			pc->place == PLACE_ENTRY);
}

static void register_symbol_offset(struct kunit *test)
{
	struct test_probe *tp = new_probe(test, 'A', NULL);

	require_mark(test);
	tp->kp.symbol_name = "kprobes_test_marked";
	tp->kp.offset = mark_offset;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, tp->kp.addr, mark_addr());
	KUNIT_EXPECT_FALSE(test, tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(1), MARK_AFTER + 1);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	/* It fired at that very instruction, before it ran. */
	KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
}

/* addr plus offset, no symbol: what perf_event_open() passes. */
static void register_address_offset(struct kunit *test)
{
	struct test_probe *tp = probe_at(test, 'A', NULL, kprobes_test_marked);

	require_mark(test);
	tp->kp.offset = mark_offset;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, tp->kp.addr, mark_addr());
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
}

static void reject_address_and_symbol(struct kunit *test)
{
	struct test_probe *tp = probe_at(test, 'A', NULL, kprobes_test_target);

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
	/* Nothing was left behind: the address alone registers fine. */
	tp->kp.symbol_name = NULL;
	clear_for_reuse(&tp->kp);
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), 0);
}

static void reject_no_location(struct kunit *test)
{
	struct test_probe *tp = new_probe(test, 'A', NULL);

	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
	tp->kp.offset = 4;
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
}

static void reject_unknown_symbol(struct kunit *test)
{
	struct test_probe *tp = new_probe(test, 'A', NULL);

	tp->kp.symbol_name = "kprobes_test_no_such_function";
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -ENOENT);
}

static void reject_inside_instruction(struct kunit *test)
{
	struct test_probe *tp = new_probe(test, 'A', NULL);
	int off, ret;

	require_mark(test);
	for (off = 1; off < MARK_LEN; off++) {
		tp->kp.symbol_name = "kprobes_test_marked";
		tp->kp.offset = mark_offset + off;
		clear_for_reuse(&tp->kp);
		ret = reg_kprobe(test, &tp->kp);
		if (IS_ENABLED(CONFIG_X86))
			KUNIT_EXPECT_EQ_MSG(test, ret, -EILSEQ, "byte %d", off);
		else
			KUNIT_EXPECT_TRUE_MSG(test, ret == -EILSEQ || ret == -EINVAL,
					      "byte %d: %d", off, ret);
	}
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
}

enum past_end { PAST_END_NEXT_ENTRY, PAST_END_LATER_INSN };

struct offset_case {
	const char *desc;
	enum past_end where;
};

static const struct offset_case offset_cases[] = {
	{ "sym+size(sym): the next function's entry", PAST_END_NEXT_ENTRY },
	{ "sym+N: an instruction in a later function", PAST_END_LATER_INSN },
};

KUNIT_ARRAY_PARAM_DESC(offset, offset_cases, desc);

/*
 * "sym+N" past the end of sym is read through kallsyms, as the base does:
 * it names whatever follows sym, an entry when it is one (probepoint.tc
 * of ftracetest probes such offsets).
 */
static void offset_past_end_names_what_follows(struct kunit *test)
{
	const struct offset_case *oc = test->param_value;
	unsigned long target = (unsigned long)kprobes_test_target;
	unsigned long size = symbol_size(kprobes_test_target);
	struct test_probe *tp = new_probe(test, 'A', NULL);
	unsigned long want, pad;

	KUNIT_ASSERT_GT(test, size, 0);
	tp->kp.symbol_name = "kprobes_test_target";
	if (oc->where == PAST_END_NEXT_ENTRY) {
		/*
		 * kallsyms sizes a symbol up to the one that follows it.  With
		 * CALL_PADDING (or kCFI) that is the next function's preamble,
		 * which the blacklist holds: refused, as the base refuses it.
		 * The function itself starts right after.
		 */
		while ((pad = preamble_size(target + size))) {
			tp->kp.offset = size;
			KUNIT_EXPECT_EQ_MSG(test, reg_kprobe(test, &tp->kp), -EINVAL,
					    "a probe in the preamble at sym+%#lx", size);
			clear_for_reuse(&tp->kp);
			size += pad;
		}
		want = entry_probe_point(target + size);
		tp->kp.offset = size;
	} else {
		require_mark(test);
		want = (unsigned long)mark_addr();
		if (want < target + size)
			kunit_skip(test, "kprobes_test_marked() lies before kprobes_test_target()");
		tp->kp.offset = want - target;
	}
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)tp->kp.addr, want);
	KUNIT_EXPECT_EQ(test, !!(tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY),
			oc->where == PAST_END_NEXT_ENTRY);
	if (oc->where == PAST_END_LATER_INSN) {
		KUNIT_EXPECT_EQ(test, kprobes_test_marked(1), MARK_AFTER + 1);
		KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
		KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
	}
}

enum non_text { IN_DATA, ON_STACK, IN_HEAP };

/*
 * An address kallsyms cannot name is -ENOENT, as in the base; with
 * KALLSYMS_ALL it names module data, which is then refused as no text.
 */
struct non_text_case {
	const char *desc;
	enum non_text where;
	int err;
};

static const struct non_text_case non_text_cases[] = {
	{ "module data", IN_DATA,
	  IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT },
	{ "stack", ON_STACK, -ENOENT },
	{ "heap", IN_HEAP, -ENOENT },
};

KUNIT_ARRAY_PARAM_DESC(non_text, non_text_cases, desc);

static void reject_non_text(struct kunit *test)
{
	const struct non_text_case *nc = test->param_value;
	struct test_probe *tp = new_probe(test, 'A', NULL);
	u32 on_stack = 0;

	switch (nc->where) {
	case IN_DATA:
		tp->kp.addr = (kprobe_opcode_t *)&kprobes_test_data_object;
		break;
	case ON_STACK:
		tp->kp.addr = (kprobe_opcode_t *)&on_stack;
		break;
	case IN_HEAP:
		tp->kp.addr = (kprobe_opcode_t *)tp;
		break;
	}
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), nc->err);
	OPTIMIZER_HIDE_VAR(on_stack);
}

/* A symbol that must not take a probe, with the reason in @desc. */
struct symbol_case {
	const char *desc;
	const char *symbol;
};

static void expect_symbol_rejected(struct kunit *test, const char *symbol)
{
	struct test_probe *tp = new_probe(test, 'A', NULL);

	tp->kp.symbol_name = symbol;
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
}

static const struct symbol_case blacklist_cases[] = {
	{ "NOKPROBE_SYMBOL in this module", "kprobes_test_blacklisted" },
	{ "NOKPROBE_SYMBOL in the kernel", "notify_die" },
};

KUNIT_ARRAY_PARAM_DESC(blacklist, blacklist_cases, desc);

static void reject_blacklisted(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;

	expect_symbol_rejected(test, sc->symbol);
}

/* The same for the module's blacklisted function given by address. */
static void reject_blacklisted_address(struct kunit *test)
{
	struct test_probe *tp = probe_at(test, 'A', NULL,
					 kprobes_test_blacklisted);

	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
	kprobes_test_blacklisted(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
}

/* Do the blacklist entries on @list cover [@start, @end) without a gap? */
static bool bl_covers(struct list_head *list, unsigned long start,
		      unsigned long end)
{
	struct kprobe_blacklist_entry *ent;
	unsigned long addr = start;
	bool moved = true;

	while (addr < end && moved) {
		moved = false;
		list_for_each_entry(ent, list, list) {
			if (ent->start_addr <= addr && addr < ent->end_addr) {
				addr = ent->end_addr;
				moved = true;
			}
		}
	}
	return addr >= end;
}

static void bl_free(struct list_head *list)
{
	struct kprobe_blacklist_entry *ent, *tmp;

	list_for_each_entry_safe(ent, tmp, list, list) {
		list_del(&ent->list);
		kfree(ent);
	}
}

/*
 * A blacklisted area is covered to its end even where kallsyms cannot size
 * its text: an area that is no text at all, and one running from this
 * module's text past its end.  Walked onto a list of our own, so the
 * kernel's blacklist is left alone.
 */
static void blacklist_area_has_no_gap(struct kunit *test)
{
	unsigned long start, end;
	LIST_HEAD(list);
	void *buf;

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	start = (unsigned long)buf;
	KUNIT_EXPECT_EQ(test, kprobe_bl_add_area(&list, start, start + 64), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bl_covers(&list, start, start + 64),
			      "a gap in an area kallsyms cannot name");
	bl_free(&list);

	if (!IS_MODULE(CONFIG_KPROBES_SANITY_TEST))
		kunit_skip(test, "built in: no module text to walk past");
	start = (unsigned long)kprobes_test_blacklisted;
	end = (unsigned long)THIS_MODULE->mem[MOD_TEXT].base +
	      THIS_MODULE->mem[MOD_TEXT].size + PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, kprobe_bl_add_area(&list, start, end), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bl_covers(&list, start, end),
			      "a gap in an area running past the module's text");
	bl_free(&list);
}

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
static int insn_slots_dirty(void)
{
	guard(mutex)(&kprobe_insn_slots.mutex);
	return kprobe_insn_slots.nr_garbage;
}
#endif

/*
 * A slot freed dirty (a CPU may still run in it) becomes free again once
 * no task can be in it, without anyone having to allocate or free more
 * slots to get it collected: the cache's count of dirty slots drops to 0.
 */
static void insn_slot_dirty_reclaimed(struct kunit *test)
{
#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
	kprobe_opcode_t *slot;
	int i;

	slot = get_insn_slot();
	KUNIT_ASSERT_NOT_NULL(test, slot);
	free_insn_slot(slot, 1);
	KUNIT_EXPECT_GT(test, insn_slots_dirty(), 0);
	for (i = 0; i < 200 && insn_slots_dirty(); i++)
		msleep(50);
	KUNIT_EXPECT_EQ(test, insn_slots_dirty(), 0);
#else
	kunit_skip(test, "no instruction slots on this arch");
#endif
}

/* What runs in probe context; the API itself may be probed. */
static const struct symbol_case own_code_cases[] = {
	{ "get_kprobe", "get_kprobe" },
	{ "kprobes_inc_nmissed_count", "kprobes_inc_nmissed_count" },
};

KUNIT_ARRAY_PARAM_DESC(own_code, own_code_cases, desc);

static void reject_kprobes_code(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;

	expect_symbol_rejected(test, sc->symbol);
}

static const struct symbol_case noinstr_cases[] = {
#if defined(CONFIG_X86_64)
	{ "entry text", "entry_SYSCALL_64" },
	{ "noinstr function", "exc_int3" },
#elif defined(CONFIG_ARM64)
	{ "entry text", "el0t_64_sync" },
	{ "noinstr function", "el1h_64_sync_handler" },
#endif
	{ "cpuidle text", "default_idle_call" },
};

KUNIT_ARRAY_PARAM_DESC(noinstr, noinstr_cases, desc);

static void reject_noinstr(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;

	expect_symbol_rejected(test, sc->symbol);
}

static void reject_registered_again(struct kunit *test)
{
	struct test_probe *tp = probe_at(test, 'A', NULL, kprobes_test_target);

	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&tp->kp), -EINVAL);
	kprobes_test_target(0);
	kprobes_test_target(1);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 2);
}

static void unregister_unregistered(struct kunit *test)
{
	struct test_probe *live = probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *same_addr = probe_at(test, 'B', NULL,
						kprobes_test_target);
	struct test_probe *by_name = new_probe(test, 'C', NULL);

	by_name->kp.symbol_name = "kprobes_test_target";
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &live->kp), 0);
	unregister_kprobe(&same_addr->kp);
	unregister_kprobe(&by_name->kp);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, live->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, same_addr->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, by_name->pre_hits, 0);
}

static void register_again_after_unregister(struct kunit *test)
{
	struct test_probe *tp = new_probe(test, 'A', NULL);

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	unreg_kprobe(test, &tp->kp);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
	clear_for_reuse(&tp->kp);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
}

/* Handlers */

static void pre_handler_regs(struct kunit *test)
{
	const struct place_case *pc = test->param_value;
	struct test_probe *tp;

	tp = probe_at(test, 'A', NULL, place_addr(test, pc->place));
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	kprobes_test_marked(TEST_ARG);
	KUNIT_ASSERT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->pre_ip, expected_ip(&tp->kp));
	KUNIT_EXPECT_FALSE(test, tp->pre_preemptible);
	if (pc->place == PLACE_ENTRY) {
		if (HAVE_FIRST_ARG)
			KUNIT_EXPECT_EQ(test, tp->pre_arg, TEST_ARG);
	} else {
		KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
	}
}

static void pre_handler_redirect(struct kunit *test)
{
	struct test_probe *tp = probe_at(test, 'A', NULL, kprobes_test_target);

	tp->kp.pre_handler = redirect_pre;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_target(TEST_ARG), ~TEST_ARG);
	KUNIT_EXPECT_EQ(test, kprobes_test_target(7), ~7u);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	/* The probed instruction was skipped, and so was the post_handler. */
	KUNIT_EXPECT_EQ(test, tp->post_hits, 0);
	unreg_kprobe(test, &tp->kp);
	KUNIT_EXPECT_EQ(test, kprobes_test_target(TEST_ARG), TEST_ARG * 3 + 1);
}

static void post_handler_after_insn(struct kunit *test)
{
	struct call_log log = {};
	struct test_probe *tp;

	require_mark(test);
	tp = probe_at(test, 'A', &log, mark_addr());
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(2), MARK_AFTER + 2);
	KUNIT_ASSERT_EQ(test, tp->post_hits, 1);
	KUNIT_EXPECT_STREQ(test, log.seq, "Aa");
	KUNIT_EXPECT_EQ(test, tp->post_flags, 0);
	KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
	KUNIT_EXPECT_EQ(test, tp->post_mark, MARK_AFTER);
	KUNIT_EXPECT_EQ(test, tp->post_ip,
			(unsigned long)tp->kp.addr + MARK_LEN);
}

/* Both handlers call the probed function itself: two hits are missed. */
static void missed_in_own_handlers(struct kunit *test)
{
	const struct place_case *pc = test->param_value;
	struct test_probe *tp;

	tp = probe_at(test, 'A', NULL, place_addr(test, pc->place));
	tp->kp.pre_handler = reenter_pre;
	tp->kp.post_handler = reenter_post;
	tp->reenter = kprobes_test_marked;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->kp.nmissed, 2UL);
}

/* A handler calls a function another probe sits on: that one misses. */
static void missed_in_other_handler(struct kunit *test)
{
	struct test_probe *outer = probe_at(test, 'A', NULL,
					    kprobes_test_target);
	struct test_probe *inner = probe_at(test, 'B', NULL,
					    kprobes_test_other);

	outer->kp.pre_handler = reenter_pre;
	outer->kp.post_handler = NULL;
	outer->reenter = kprobes_test_other;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &outer->kp), 0);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &inner->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, outer->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0UL);
	/* Outside any handler the inner probe works. */
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
}

/* Enable and disable */

static void registered_disabled(struct kunit *test)
{
	struct test_probe *tp = probe_at(test, 'A', NULL, kprobes_test_target);

	tp->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
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
	struct test_probe *tp = probe_at(test, 'A', NULL, kprobes_test_target);
	int want = 0;
	const char *s;

	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
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
	struct test_probe *tp = new_probe(test, 'A', NULL);

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_EXPECT_EQ(test, enable_kprobe(&tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&tp->kp), -EINVAL);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	unreg_kprobe(test, &tp->kp);
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
		tps[i] = probe_at(test, 'A' + i, log, addr);
		KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tps[i]->kp), 0);
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
	const struct place_case *pc = test->param_value;
	void *addr = place_addr(test, pc->place);
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
	const struct place_case *pc = test->param_value;
	void *addr = place_addr(test, pc->place);
	struct test_probe *tps[3];
	struct call_log log = {};

	add_three(test, tps, &log, addr);
	unreg_kprobe(test, &tps[1]->kp);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "ACac");
	unreg_kprobe(test, &tps[0]->kp);
	call_logged(&log, addr);
	KUNIT_EXPECT_STREQ(test, log.seq, "Cc");
	KUNIT_EXPECT_EQ(test, tps[2]->pre_hits, 2);
}

static void aggregate_disable_one(struct kunit *test)
{
	const struct place_case *pc = test->param_value;
	void *addr = place_addr(test, pc->place);
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
		tps[i] = probe_at(test, 'A' + i, &log, kprobes_test_target);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tps[ids[i] - 'A']->kp), 0);
	expect_order(test, &log, ids);

	unreg_kprobe(test, &tps[ids[0] - 'A']->kp);
	expect_order(test, &log, ids + 1);

	clear_for_reuse(&tps[ids[0] - 'A']->kp);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tps[ids[0] - 'A']->kp), 0);
	rotated[0] = ids[1];
	rotated[1] = ids[2];
	rotated[2] = ids[0];
	rotated[3] = '\0';
	expect_order(test, &log, rotated);
}

/* Batches */

static void register_kprobes_rollback(struct kunit *test)
{
	struct test_probe *a = probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *b = probe_at(test, 'B', NULL, kprobes_test_other);
	struct test_probe *bad = probe_at(test, 'X', NULL, kprobes_test_marked);
	struct test_probe *d = probe_at(test, 'D', NULL, kprobes_test_redirect);
	struct kprobe *kps[] = { &a->kp, &b->kp, &bad->kp, &d->kp };

	bad->kp.symbol_name = "kprobes_test_marked";	/* and an address */
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), -EINVAL);
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	kprobes_test_redirect(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits + bad->pre_hits +
			d->pre_hits, 0);
	/* The earlier entries were really taken out: they register again. */
	clear_for_reuse(&a->kp);
	clear_for_reuse(&b->kp);
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &a->kp), 0);
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &b->kp), 0);
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
	struct test_probe *a = probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *never = probe_at(test, 'N', NULL, kprobes_test_other);
	struct test_probe *b = probe_at(test, 'B', NULL, kprobes_test_marked);
	struct kprobe *kps[] = { &a->kp, &never->kp, &b->kp };

	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &b->kp), 0);
	pr_info(QUIET_BEGIN "\n");
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	if (IS_ENABLED(CONFIG_PRINTK))
		KUNIT_EXPECT_EQ(test, core_lines_since_quiet(test), 0);
	kunit_remove_action(test, unregister_kprobe_action, &a->kp);
	kunit_remove_action(test, unregister_kprobe_action, &b->kp);
	KUNIT_EXPECT_NULL(test, never->kp.addr);
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits + never->pre_hits + b->pre_hits, 0);
	clear_for_reuse(&a->kp);
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &a->kp), 0);
}

/*
 * The task whose calls count_own_sync() counts: of synchronize_rcu(), or
 * of whatever else the probe using it sits on.
 */
static struct task_struct *sync_counted_task;

static int count_own_sync(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(sync_counted_task))
		to_test_probe(kp)->pre_hits++;
	return 0;
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

	sync = new_probe(test, 'S', NULL);
	sync->kp.symbol_name = "kprobe_wait_for_hits";
	sync->kp.pre_handler = count_own_sync;
	sync->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &sync->kp), 0);
	for (i = 0; i < BATCH_PROBES; i++) {
		tp = probe_at(test, 'A', NULL, targets[i % ARRAY_SIZE(targets)]);
		kps[i] = &tp->kp;
		KUNIT_ASSERT_EQ(test, reg_kprobe(test, kps[i]), 0);
	}

	WRITE_ONCE(sync_counted_task, current);
	unregister_kprobes(kps, BATCH_PROBES);
	WRITE_ONCE(sync_counted_task, NULL);
	for (i = 0; i < BATCH_PROBES; i++)
		kunit_remove_action(test, unregister_kprobe_action, kps[i]);

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

	wait = new_probe(test, 'W', NULL);
	wait->kp.symbol_name = "kprobe_wait_for_hits";
	wait->kp.pre_handler = count_own_sync;
	wait->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &wait->kp), 0);
	sync = new_probe(test, 'S', NULL);
	sync->kp.symbol_name = "synchronize_rcu";
	sync->kp.pre_handler = count_own_sync;
	sync->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &sync->kp), 0);
	tp = probe_at(test, 'A', NULL, kprobes_test_target);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);

	WRITE_ONCE(sync_counted_task, current);
	unreg_kprobe(test, &tp->kp);
	WRITE_ONCE(sync_counted_task, NULL);

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
	return mark_addr();
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
		if (!(c->calls & 255))
			cond_resched();
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
		wait_for_kprobe_optimizer();
		if (kprobe_opt_state_of(&lp->rp.kp) != KPROBE_OPT_ACTIVE) {
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

static void unregister_lifetime(struct kunit *test)
{
	const struct lifetime_case *lc = test->param_value;
	struct lifetime_caller *callers;
	int cpu, here, round, started = 0;
	unsigned long calls = 0;

	KUNIT_ASSERT_GE_MSG(test, num_online_cpus(), 2,
			    "the callers need CPUs of their own");
	if (!lifetime_on_api(lc->kind) && lc->kind != LIFETIME_RETURN)
		require_mark(test);
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
		callers[cpu].task = kthread_create(lifetime_caller_fn,
						   &callers[cpu], "kp-lifetime/%d",
						   cpu);
		if (IS_ERR(callers[cpu].task)) {
			callers[cpu].task = NULL;
			continue;
		}
		kthread_bind(callers[cpu].task, cpu);
		wake_up_process(callers[cpu].task);
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

/* Probes that count this task's waits for hits and large kmallocs. */
struct alloc_watch {
	struct test_probe *sync;
	struct test_probe *large[2];
};

static void alloc_watch_start(struct kunit *test, struct alloc_watch *w)
{
	static const char *const large_kmalloc[] = {
		"__kmalloc_large_noprof", "__kmalloc_large_node_noprof",
	};
	int i;

	static_assert(ARRAY_SIZE(large_kmalloc) == ARRAY_SIZE(w->large));
	w->sync = new_probe(test, 'S', NULL);
	w->sync->kp.symbol_name = "kprobe_wait_for_hits";
	w->sync->kp.pre_handler = count_own_sync;
	w->sync->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &w->sync->kp), 0);
	for (i = 0; i < ARRAY_SIZE(w->large); i++) {
		w->large[i] = new_probe(test, 'L', NULL);
		w->large[i]->kp.symbol_name = large_kmalloc[i];
		w->large[i]->kp.pre_handler = count_own_sync;
		w->large[i]->kp.post_handler = NULL;
		KUNIT_ASSERT_EQ(test, reg_kprobe(test, &w->large[i]->kp), 0);
	}
}

/* One wait for the whole batch, and no large allocation. */
static void alloc_watch_expect(struct kunit *test, struct alloc_watch *w)
{
	int i, large_hits = 0;

	KUNIT_EXPECT_EQ(test, w->sync->pre_hits, 1);
	for (i = 0; i < ARRAY_SIZE(w->large); i++)
		large_hits += w->large[i]->pre_hits;
	KUNIT_EXPECT_EQ(test, large_hits, 0);
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

	alloc_watch_start(test, &watch);
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

	WRITE_ONCE(sync_counted_task, current);
	kunit_release_action(test, unregister_large_batch, large_batch_ptrs);
	WRITE_ONCE(sync_counted_task, NULL);

	alloc_watch_expect(test, &watch);
	kprobes_test_target(0);
	kprobes_test_other(0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, large_batch_hits, LARGE_BATCH);
	/* Really gone: the first of them registers again. */
	large_batch[0].flags = 0;
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &large_batch[0]), 0);
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
	unsigned long size = symbol_size(fn), off;
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
		tp = probe_at(test, 'B', NULL, (u8 *)fn + off);
		tp->kp.pre_handler = count_batch_hit;
		tp->kp.post_handler = NULL;
		KUNIT_ASSERT_EQ(test, register_kprobe(&tp->kp), 0);
		kprobes_test_marked(0);
		unregister_kprobe(&tp->kp);
		if (!tp->pre_hits)
			continue;
		KUNIT_ASSERT_EQ(test, tp->pre_hits, 1);
		clear_for_reuse(&tp->kp);
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
	bad = probe_at(test, 'X', NULL, kprobes_test_other);
	bad->kp.symbol_name = "kprobes_test_other";
	bad->kp.pre_handler = count_batch_hit;
	for (i = set->nr; i > half; i--) {
		set->kps[i] = set->kps[i - 1];
		set->tps[i] = set->tps[i - 1];
	}
	set->kps[half] = &bad->kp;
	set->tps[half] = bad;
	set->nr++;

	KUNIT_EXPECT_EQ(test, register_kprobes(set->kps, set->nr), -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
	kprobes_test_marked(0);
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, batch_set_hits(set, &lo, &hi), 0);

	/* Really out of the table: the first half registers again. */
	for (i = 0; i < half; i++)
		clear_for_reuse(set->kps[i]);
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

	by_name = new_probe(test, 'N', NULL);
	by_name->kp.symbol_name = "kprobes_test_other";
	by_name->kp.offset = 0;
	by_name->kp.pre_handler = count_batch_hit;
	by_name->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&by_name->kp), 0);
	single = by_name->kp.addr;
	unregister_kprobe(&by_name->kp);
	clear_for_reuse(&by_name->kp);
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

	bl = probe_at(test, 'L', NULL, kprobes_test_blacklisted);
	bl->kp.pre_handler = count_batch_hit;
	set->kps[set->nr - 1] = &bl->kp;
	set->tps[set->nr - 1] = bl;
	for (i = 0; i < set->nr - 1; i++)
		clear_for_reuse(set->kps[i]);
	KUNIT_EXPECT_EQ(test, register_kprobes(set->kps, set->nr), -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(set->text, kprobes_test_marked, set->size), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_blacklisted(0), 0x77U);
	KUNIT_EXPECT_EQ(test, bl->pre_hits, 0);
}

/* The API is probeable: "perf probe register_kprobe" to debug a user. */
static const struct symbol_case api_cases[] = {
	{ "register_kprobe", "register_kprobe" },
	{ "register_kprobes", "register_kprobes" },
	{ "disable_kprobe", "disable_kprobe" },
	{ "enable_kprobe", "enable_kprobe" },
	{ "unregister_kprobes", "unregister_kprobes" },
};

KUNIT_ARRAY_PARAM_DESC(api, api_cases, desc);

#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_KRETPROBES)
/*
 * This file is built without ftrace call sites, so the ftrace cases probe
 * two API functions that return at once when given nothing to do, and
 * count only this task's calls.
 */
#define FTRACE_SITE_1	register_kprobes
#define FTRACE_SITE_2	register_kretprobes

struct site_probe {
	struct kprobe kp;
	struct task_struct *task;
	int pre_hits;
	int post_hits;
};

static int site_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct site_probe *sp = container_of(kp, struct site_probe, kp);

	if (current == sp->task)
		sp->pre_hits++;
	return 0;
}

static void site_post(struct kprobe *kp, struct pt_regs *regs,
		      unsigned long flags)
{
	struct site_probe *sp = container_of(kp, struct site_probe, kp);

	if (current == sp->task)
		sp->post_hits++;
}

static struct site_probe *site_probe_at(struct kunit *test, void *addr,
					bool post)
{
	struct site_probe *sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sp);
	sp->kp.addr = addr;
	sp->kp.pre_handler = site_pre;
	if (post)
		sp->kp.post_handler = site_post;
	sp->task = current;
	return sp;
}

static void call_site_1(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, FTRACE_SITE_1(NULL, 0), -EINVAL);
}

static void call_site_2(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, FTRACE_SITE_2(NULL, 0), -EINVAL);
}

static struct kprobe *table_entry(void *addr)
{
	guard(rcu)();
	return get_kprobe(addr);
}

/*
 * Where the entry probe of @func sits: on its ftrace site (x86: the first
 * byte, or after ENDBR), or, where a probe rides the site from the
 * function's first instruction (arm64, with MOV X9, X30 before the BL),
 * there.  NULL when @func has no site.
 */
static void *entry_probe_addr(void *func)
{
	unsigned long site = kprobe_ftrace_site_of_func((unsigned long)func);

	if (!site)
		return NULL;
	return IS_ENABLED(CONFIG_KPROBES_ON_FTRACE_DIRECT) ? func : (void *)site;
}

/*
 * A probe on a function that probe hits call themselves under the debug
 * config: ftrace's direct-call lookup checks rcu_read_lock_sched_held().
 * The hit from inside must be left alone, not followed without end (the
 * stack overflows, and on arm64 the machine hangs without a word).
 */
static void probe_on_rcu_lockdep_check(struct kunit *test)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct site_probe *sp = site_probe_at(test, rcu_read_lock_sched_held,
					      false);

	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &sp->kp), 0);
	preempt_disable();
	KUNIT_EXPECT_TRUE(test, rcu_read_lock_sched_held());
	preempt_enable();
	KUNIT_EXPECT_GE(test, sp->pre_hits, 1);
	unreg_kprobe(test, &sp->kp);
#else
	kunit_skip(test, "rcu_read_lock_sched_held() is inline without CONFIG_DEBUG_LOCK_ALLOC");
#endif
}

/*
 * Under CONFIG_PROVE_RCU_LIST the table lookup of an ftrace-site hit
 * calls rcu_read_lock_any_held(), itself an ftrace site.  A probe there
 * must not send the lookup back into itself.  A second armed site keeps
 * x86's handler off its one-probe shortcut, so the lookup does run.
 */
static void probe_on_rcu_list_check(struct kunit *test)
{
#ifdef CONFIG_PROVE_RCU_LIST
	struct site_probe *sp = site_probe_at(test, rcu_read_lock_any_held,
					      false);
	struct site_probe *other = site_probe_at(test, FTRACE_SITE_1, false);

	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &other->kp), 0);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &sp->kp), 0);
	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, rcu_read_lock_any_held());
	rcu_read_unlock();
	KUNIT_EXPECT_GE(test, sp->pre_hits, 1);
	unreg_kprobe(test, &sp->kp);
	unreg_kprobe(test, &other->kp);
#else
	kunit_skip(test, "the table lookup calls no probeable check without CONFIG_PROVE_RCU_LIST");
#endif
}

/*
 * An int3 trap at the ftrace site a probe rides is not the probe's: ftrace
 * puts int3s there while it patches the site, and a CPU may still run one
 * that has just been taken out again.  Such a probe has no copy of its
 * instruction to run, so taking the trap as its hit would jump to address
 * zero.  The trap is handed to the code at the site again, and the
 * probe's handlers do not run.
 */
static void x86_int3_on_ftrace_site_not_ours(struct kunit *test)
{
#ifdef CONFIG_X86_64
	struct site_probe *sp = site_probe_at(test, FTRACE_SITE_1, false);
	void *site = entry_probe_addr(FTRACE_SITE_1);
	struct pt_regs regs = {};
	unsigned long flags;
	int ours;

	KUNIT_ASSERT_NOT_NULL(test, site);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &sp->kp), 0);
	KUNIT_ASSERT_PTR_EQ(test, (void *)sp->kp.addr, site);
	/* The site holds ftrace's call, not an int3: as after a late trap. */
	KUNIT_ASSERT_NE(test, *(u8 *)site, INT3_INSN_OPCODE);
	regs.cs = __KERNEL_CS;
	regs.ip = (unsigned long)site + INT3_INSN_SIZE;
	local_irq_save(flags);
	ours = kprobe_int3_handler(&regs);
	/* On a kernel that took the trap as the probe's hit: undo it. */
	kprobe_x86_forget_hit();
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ours, 1);
	KUNIT_EXPECT_EQ(test, regs.ip, (unsigned long)site);
	KUNIT_EXPECT_EQ(test, sp->pre_hits, 0);
	unreg_kprobe(test, &sp->kp);
#else
	kunit_skip(test, "x86_64's int3 handler");
#endif
}

/*
 * The ftrace handler takes an ops' only armed entry without a table
 * lookup (kprobe_ftrace_only()).  That shortcut must name the table
 * entry or nothing through aggregation, a second site, disable, enable,
 * a post_handler and unregistration.  A post_handler joining an armed
 * site leaves it on its ops (moving would unhook it for a moment); a site
 * armed afresh for one takes the IPMODIFY ops, except where the sites are
 * redirected to a trampoline (arm64), whose hint stands for the one ops.
 */
static void ftrace_only_entry_follows_table(struct kunit *test)
{
	/* Redirected sites share one ops, post_handler or not. */
	const bool direct = IS_ENABLED(CONFIG_KPROBES_ON_FTRACE_DIRECT);
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *c = site_probe_at(test, FTRACE_SITE_2, false);
	struct site_probe *d = site_probe_at(test, FTRACE_SITE_2, true);
	void *site1 = entry_probe_addr(FTRACE_SITE_1);
	void *site2 = entry_probe_addr(FTRACE_SITE_2);

	KUNIT_ASSERT_NOT_NULL(test, site1);
	KUNIT_ASSERT_NOT_NULL(test, site2);
	/*
	 * Nothing else of this suite may be armed on an ftrace site here: a
	 * probe an earlier case left behind is a leak, not a reason to skip.
	 */
	KUNIT_ASSERT_NULL_MSG(test, kprobe_ftrace_only(false),
			      "a probe left armed on an ftrace site");
	KUNIT_ASSERT_NULL_MSG(test, kprobe_ftrace_only(true),
			      "a probe with a post_handler left armed on an ftrace site");
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_PTR_EQ(test, (void *)a->kp.addr, site1);
	KUNIT_ASSERT_TRUE(test, kprobe_ftrace(&a->kp));
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false), &a->kp);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);

	/* B joins: the aggregate takes A's place in the shortcut too. */
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &b->kp), 0);
	KUNIT_EXPECT_PTR_NE(test, table_entry(site1), &a->kp);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false),
			    table_entry(site1));
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);

	/* A second site in the same ops: each hit looks its entry up. */
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &c->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);

	unreg_kprobe(test, &a->kp);
	unreg_kprobe(test, &b->kp);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 2);

	/* Disabled, C leaves the ops; enabled again, it is alone there. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&c->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&c->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false), &c->kp);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 2);

	/* D's post_handler joins: the site stays on the plain ops. */
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &d->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(false),
			    table_entry(site2));
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(true));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, d->post_hits, 1);

	/* Disabled and enabled, it is armed afresh, for D's post_handler. */
	KUNIT_ASSERT_EQ(test, disable_kprobe(&c->kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&d->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	KUNIT_ASSERT_EQ(test, enable_kprobe(&d->kp), 0);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(direct));
	KUNIT_EXPECT_PTR_EQ(test, kprobe_ftrace_only(!direct),
			    table_entry(site2));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, d->post_hits, 2);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&c->kp), 0);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 4);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 3);

	unreg_kprobe(test, &c->kp);
	unreg_kprobe(test, &d->kp);
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(false));
	KUNIT_EXPECT_NULL(test, kprobe_ftrace_only(true));
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, d->pre_hits, 3);
}

/*
 * A batch's probes on ftrace sites are armed together and disarmed
 * together (one ftrace update each way): every one fires while the batch
 * is registered, two of them sharing a site, and none afterwards.
 */
static void ftrace_batch(struct kunit *test)
{
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, false);
	struct site_probe *c = site_probe_at(test, FTRACE_SITE_2, true);
	struct kprobe *kps[] = { &a->kp, &b->kp, &c->kp };

	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(table_entry(a->kp.addr)));
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(table_entry(b->kp.addr)));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->post_hits, 1);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_NULL(test, table_entry(a->kp.addr));
	KUNIT_EXPECT_NULL(test, table_entry(b->kp.addr));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, c->pre_hits, 1);
}

#ifndef CONFIG_KPROBES_ON_FTRACE_DIRECT
static void ftrace_blocker_func(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *ops,
				struct ftrace_regs *fregs)
{
}

/*
 * One ops per case: ftrace_free_filter() frees an ops' filter without
 * forgetting it, so an ops is not registered again after it.
 */
static struct ftrace_ops ftrace_blocker = {
	.func = ftrace_blocker_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static struct ftrace_ops ftrace_join_blocker = {
	.func = ftrace_blocker_func,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};
#endif

/*
 * ftrace refuses one site of a batch (a probe with a post_handler needs
 * IPMODIFY, which another ftrace user holds on that function): the batch
 * fails with ftrace's error and no site stays armed, the one ftrace
 * accepted included.
 */
static void ftrace_batch_refused(struct kunit *test)
{
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
	kunit_skip(test, "no IPMODIFY here; see ftrace_direct_shared");
#else
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, true);
	struct kprobe *kps[] = { &a->kp, &b->kp };
	unsigned long site1 = kprobe_ftrace_site_of_func((unsigned long)FTRACE_SITE_1);
	unsigned long site2 = kprobe_ftrace_site_of_func((unsigned long)FTRACE_SITE_2);

	KUNIT_ASSERT_NE(test, site2, 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&ftrace_blocker, site2, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&ftrace_blocker), 0);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), -EBUSY);
	KUNIT_EXPECT_EQ(test, unregister_ftrace_function(&ftrace_blocker), 0);
	ftrace_free_filter(&ftrace_blocker);
	KUNIT_EXPECT_NULL(test, table_entry((void *)site1));
	KUNIT_EXPECT_NULL(test, table_entry((void *)site2));
	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 0);
#endif
}

/*
 * A probe with a post_handler joins a disabled one at an ftrace site, and
 * arming the site fails (IPMODIFY is held by another ftrace user): the
 * newcomer is refused, and the probe already there must not keep the
 * post_handler it brought, or it could never be armed through the plain
 * ops again.
 */
static void ftrace_join_refused_leaves_no_post_handler(struct kunit *test)
{
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
	kunit_skip(test, "no IPMODIFY here; see ftrace_direct_shared");
#else
	struct site_probe *a = site_probe_at(test, FTRACE_SITE_1, false);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_1, true);
	unsigned long site1 = kprobe_ftrace_site_of_func((unsigned long)FTRACE_SITE_1);
	struct kprobe *entry;

	KUNIT_ASSERT_NE(test, site1, 0);
	a->kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&ftrace_join_blocker, site1, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, register_ftrace_function(&ftrace_join_blocker), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&b->kp), -EBUSY);
	entry = table_entry((void *)site1);
	KUNIT_EXPECT_NOT_NULL(test, entry);
	if (entry)
		KUNIT_EXPECT_NULL(test, entry->post_handler);
	/* a, without a post_handler, needs no IPMODIFY */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a->kp), 0);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, unregister_ftrace_function(&ftrace_join_blocker), 0);
	ftrace_free_filter(&ftrace_join_blocker);
	unreg_kprobe(test, &a->kp);
#endif
}

/*
 * A function's entry, asked for by name or by its first address, fires
 * through its ftrace site, wherever the architecture puts the probe
 * (entry_probe_addr()).
 */
static void ftrace_entry_is_the_site(struct kunit *test)
{
	struct site_probe *a = site_probe_at(test, NULL, true);
	struct site_probe *b = site_probe_at(test, FTRACE_SITE_2, false);
	unsigned long site1 = (unsigned long)entry_probe_addr(FTRACE_SITE_1);
	unsigned long site2 = (unsigned long)entry_probe_addr(FTRACE_SITE_2);

	KUNIT_ASSERT_NE(test, site1, 0);
	KUNIT_ASSERT_NE(test, site2, 0);
	a->kp.symbol_name = "register_kprobes";
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &a->kp), 0);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &b->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)a->kp.addr, site1);
	KUNIT_EXPECT_EQ(test, (unsigned long)b->kp.addr, site2);
	KUNIT_EXPECT_PTR_EQ(test, table_entry((void *)site1), &a->kp);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&a->kp));
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&b->kp));
	KUNIT_EXPECT_TRUE(test, a->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_TRUE(test, b->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);

	call_site_1(test);
	call_site_2(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, a->post_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	unreg_kprobe(test, &a->kp);
	unreg_kprobe(test, &b->kp);
	call_site_1(test);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
}
#endif

/*
 * A probe on an API function fires once for each call this task makes,
 * and the probes the calls manage behave as they would without it.
 */
static void probe_on_the_api(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;
	struct test_probe *watch = new_probe(test, 'W', NULL);
	struct test_probe *a = probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *b = probe_at(test, 'B', NULL, kprobes_test_other);
	struct kprobe *just_b[] = { &b->kp };
	struct kprobe *both[] = { &a->kp, &b->kp };
	int ret;

	watch->kp.symbol_name = sc->symbol;
	watch->kp.pre_handler = count_own_sync;
	watch->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &watch->kp), 0);

	/* Each API function is called once while this task is counted. */
	WRITE_ONCE(sync_counted_task, current);
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &a->kp), 0);
	ret = register_kprobes(just_b, 1);
	if (!ret)
		ret = kunit_add_action_or_reset(test, unregister_kprobe_action,
						&b->kp);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a->kp), 0);
	kprobes_test_target(0);
	kprobes_test_other(0);
	unregister_kprobes(both, ARRAY_SIZE(both));
	WRITE_ONCE(sync_counted_task, NULL);
	kunit_remove_action(test, unregister_kprobe_action, &a->kp);
	kunit_remove_action(test, unregister_kprobe_action, &b->kp);

	KUNIT_EXPECT_EQ(test, watch->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	kprobes_test_target(0);
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits, 2);
	/* and the API still works under the probe */
	clear_for_reuse(&a->kp);
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &a->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 2);
}

#ifdef CONFIG_KRETPROBES

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
	unsigned long arg = first_arg(regs);

	if (!tr)
		return 0;
	tr->entry_hits++;
	tr->entry_rp = get_kretprobe(ri);
	tr->entry_task = current;
	log_call(tr->log, tr->id);
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
	log_call(tr->log, tolower(tr->id));
	/* target() and recurse() both return their argument * 3 + 1. */
	if (tr->rp.data_size >= sizeof(u32) &&
	    lower_32_bits(retval) != *(u32 *)ri->data * 3 + 1)
		tr->data_mismatches++;
	if (tr->capture)
		capture_stack(tr->capture);
	return 0;
}

static struct test_kretprobe *new_kretprobe(struct kunit *test, char id,
					    void *addr)
{
	struct test_kretprobe *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	tr->id = id;
	tr->rp.kp.addr = addr;
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

	tp = probe_at(test, 'K', &log, kprobes_test_target);
	tr = new_kretprobe(test, 'E', kprobes_test_target);
	tr->log = &log;
	if (mc->kprobe_first) {
		KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
		KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	} else {
		KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
		KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	}
	KUNIT_EXPECT_EQ(test, kprobes_test_target(2), 7u);
	/* pre_handlers in registration order, the post_handler, the return */
	KUNIT_EXPECT_STREQ(test, log.seq,
			   mc->kprobe_first ? "KEke" : "EKke");
	KUNIT_EXPECT_EQ(test, lower_32_bits(tr->retvals[0]), 7u);
	unreg_kprobe(test, &tp->kp);
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
	clear_for_reuse(&a->rp.kp);
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

	alloc_watch_start(test, &watch);
	memset(big_batch, 0, sizeof(big_batch));
	for (i = 0; i < BIG_BATCH; i++) {
		big_batch[i].kp.addr = (kprobe_opcode_t *)kprobes_test_target;
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

	WRITE_ONCE(sync_counted_task, current);
	kunit_release_action(test, unregister_big_batch, big_batch_ptrs);
	WRITE_ONCE(sync_counted_task, NULL);

	alloc_watch_expect(test, &watch);
	kprobes_test_target(1);
	KUNIT_EXPECT_EQ(test, big_batch_returns, BIG_BATCH);
	for (i = 0; i < BIG_BATCH; i++)
		if (kretprobe_pool_of(&big_batch[i]))
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, BIG_BATCH, "kretprobe %d kept its instances", i);
	/* Really gone: the first of them registers again. */
	clear_for_reuse(&big_batch[0].kp);
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
		watch[i] = new_probe(test, 'W', NULL);
		watch[i]->kp.symbol_name = api[i];
		watch[i]->kp.pre_handler = count_own_sync;
		watch[i]->kp.post_handler = NULL;
		KUNIT_ASSERT_EQ_MSG(test, reg_kprobe(test, &watch[i]->kp), 0,
				    "%s", api[i]);
	}

	WRITE_ONCE(sync_counted_task, current);
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
	WRITE_ONCE(sync_counted_task, NULL);
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
	clear_for_reuse(&tr->rp.kp);
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
	clear_for_reuse(&tr->rp.kp);
	tr->rp.maxactive = -1;
	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	KUNIT_EXPECT_EQ(test, tr->rp.maxactive, want);
}

static void kretprobe_rejects_non_entry(struct kunit *test)
{
	struct test_kretprobe *tr = new_kretprobe(test, 'R', NULL);

	require_mark(test);
	tr->rp.kp.addr = mark_addr();
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
		KUNIT_EXPECT_EQ_MSG(test, reg_kprobe(test, &kp), 0,
				    "kprobe on %s", kretprobe_blacklist[i].name);
		unreg_kprobe(test, &kp);
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
	KUNIT_EXPECT_EQ_MSG(test, reg_kprobe(test, &kp), 0, "kprobe on %s", sym);
	unreg_kprobe(test, &kp);
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

	memset(stack_seen_ret, 0, sizeof(stack_seen_ret));
	kprobes_test_stack_driver();
	memcpy(real, stack_seen_ret, sizeof(stack_seen_ret));
	KUNIT_ASSERT_LT(test, real[LEVEL_OUTER] - drv,
			symbol_size(kprobes_test_stack_driver));
	KUNIT_ASSERT_LT(test, real[LEVEL_INNER] - outer,
			symbol_size(kprobes_test_stack_outer));
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
	KUNIT_EXPECT_NE(test, stack_seen_ret[LEVEL_OUTER], real[LEVEL_OUTER]);
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
	trampoline = stack_seen_ret[LEVEL_OUTER];
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
	inner_capture = capture;
	kprobes_test_stack_driver();
	inner_capture = NULL;
	trampoline = stack_seen_ret[LEVEL_OUTER];
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
	WRITE_ONCE(inner_dump, true);
	kprobes_test_stack_driver();
	WRITE_ONCE(inner_dump, false);
	KUNIT_ASSERT_EQ(test, tr->ret_hits, 1);
	/* what outer() saw as its return address: the trampoline */
	KUNIT_ASSERT_NE(test, stack_seen_ret[LEVEL_OUTER], real[LEVEL_OUTER]);

	/* As a backtrace prints it: %pB looks up the address before. */
	snprintf(tramp, sizeof(tramp), "%pB",
		 (void *)stack_seen_ret[LEVEL_OUTER]);

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
	trampoline = stack_seen_ret[LEVEL_INNER];
	KUNIT_ASSERT_EQ(test, outer->ret_hits, 1);
	KUNIT_ASSERT_EQ(test, inner->ret_hits, 1);
	KUNIT_ASSERT_NE(test, trampoline, real[LEVEL_INNER]);
	KUNIT_EXPECT_EQ(test, stack_seen_ret[LEVEL_OUTER], trampoline);
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
	capture_stack(&w->capture);
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
	if (*slot != stack_seen_ret[LEVEL_INNER])
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
	inner_hook = follow_inner_plan;
	KUNIT_EXPECT_EQ(test, kprobes_test_stack_driver(), OUTER_VALUE + 1);
	inner_hook = NULL;
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
	KUNIT_EXPECT_LT(test, find_entry(&w->capture, stack_seen_ret[LEVEL_OUTER]), 0);
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
	rp->kp.addr = (kprobe_opcode_t *)kprobes_test_sleeper;
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

	if (IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK))
		kunit_skip(test, "kretprobes on rethook keep a fixed pool");
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
 * that CPU would take kicks for ever.  Here the worker waits for this CPU,
 * which the test keeps with preemption off while it nests past the pool.
 */
static void kretprobe_grow_asks_once(struct kunit *test)
{
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	kunit_skip(test, "kretprobes on rethook keep a fixed pool");
#else
	struct test_kretprobe *tr = new_kretprobe(test, 'R', kprobes_test_recurse);
	int round, kicks, depth;

	KUNIT_ASSERT_EQ(test, reg_kretprobe(test, &tr->rp), 0);
	depth = 3 * tr->rp.maxactive;

	preempt_disable();
	kprobes_test_recurse(depth);
	preempt_enable();
	/* A growing pool holds a spare per CPU on top of maxactive. */
	KUNIT_EXPECT_EQ(test, tr->rp.nmissed,
			depth + 1 - tr->rp.maxactive - (int)num_possible_cpus());
	KUNIT_EXPECT_EQ(test, kretprobe_grow_kicks(&tr->rp), 1);

	/* Once the worker has run, a pool that runs short asks again. */
	for (round = 0, kicks = 1; round < 100 && kicks == 1; round++) {
		msleep(20);
		preempt_disable();
		kprobes_test_recurse(depth);
		preempt_enable();
		kicks = kretprobe_grow_kicks(&tr->rp);
	}
	KUNIT_EXPECT_EQ(test, kicks, 2);
	KUNIT_EXPECT_EQ(test, tr->entry_hits, tr->ret_hits);
#endif
}

#ifndef CONFIG_KRETPROBE_ON_RETHOOK
static void kretprobe_call_once(void *unused)
{
	kprobes_test_recurse(0);
}
#endif

/*
 * One call and return on every CPU leaves each CPU an idle spare instance:
 * nothing is in flight, so the pool must not grow.  It did once on every
 * machine of five CPUs or more, where the spares alone were half the pool.
 */
static void kretprobe_idle_spares_do_not_grow(struct kunit *test)
{
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	kunit_skip(test, "kretprobes on rethook keep a fixed pool");
#else
	struct test_kretprobe *tr;
	int cpu, calls = 0;

	if (num_online_cpus() < 5)
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
#endif
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

#endif /* CONFIG_KRETPROBES */

/* Module init text */

#if defined(MODULE) && HAVE_MARK
#define HAVE_INIT_PROBE	1
/*
 * kprobes_test_marked() again, in init text.  This module's init puts a
 * probe on its MARK_AFTER move, calls it once, and leaves the probe there.
 */
static __used noinline __noipa __init u32 kprobes_test_init_marked(u32 x)
{
	return mark_moves() + x;
}

static struct test_probe init_probe = {
	.id = 'I',
	.kp.pre_handler = record_pre,
};

static int init_probe_ret = -ENOENT;

static int __init kprobes_test_init(void)
{
	int off = find_mark_in(kprobes_test_init_marked);

	if (off < 0) {
		init_probe_ret = off;
		return 0;
	}
	init_probe.kp.addr = (kprobe_opcode_t *)((u8 *)kprobes_test_init_marked + off);
	init_probe_ret = register_kprobe(&init_probe.kp);
	if (!init_probe_ret)
		kprobes_test_init_marked(0);
	return 0;
}
module_init(kprobes_test_init);

static void __exit kprobes_test_exit(void)
{
	if (!init_probe_ret)
		unregister_kprobe(&init_probe.kp);
}
module_exit(kprobes_test_exit);
#else
#define HAVE_INIT_PROBE	0
#endif

/*
 * A module's init text is retired when the module goes live, yet async
 * work its init started may still run there until the text is freed: the
 * probe on it must be GONE with the original instruction back in place.
 * KUnit runs this suite from that same LIVE notification, after kprobes
 * has had it and before the text is freed.
 */
static void init_text_disarmed_when_retired(struct kunit *test)
{
#if HAVE_INIT_PROBE
	unsigned long at = (unsigned long)init_probe.kp.addr;
	u8 want[MARK_LEN], seen[MARK_LEN];

	KUNIT_ASSERT_EQ(test, init_probe_ret, 0);
	KUNIT_EXPECT_EQ(test, init_probe.pre_hits, 1);
	KUNIT_EXPECT_TRUE(test, kprobe_gone(&init_probe.kp));
	if (!within_module_init(at, THIS_MODULE))
		kunit_skip(test, "the init text is freed already");
	mark_bytes(want);
	KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(seen, (void *)at, MARK_LEN), 0);
	KUNIT_EXPECT_MEMEQ(test, seen, want, MARK_LEN);
#else
	kunit_skip(test, "needs module init text and a known instruction");
#endif
}

static int kprobes_test_suite_init(struct kunit_suite *suite)
{
	mark_offset = find_mark();
	return 0;
}

/*
 * x86: one probe on each kind of instruction the backend must emulate or
 * fix up, inside a function whose result shows whether the instruction
 * took effect as if it had run in place.  The label on the probed
 * instruction gives its address.
 */

/*
 * A global label on a probed instruction.  The tables below hold its
 * address as data; objtool, on a kernel with IBT, wants every address in
 * data to be an ENDBR unless told that no indirect branch goes there.
 */
#define KPT_AT(name)	".globl " #name "\n" #name ":\n\t" ANNOTATE_NOENDBR

#ifdef CONFIG_X86_64
/*
 * The test functions keep plain RETs and indirect branches, so that their
 * bytes are the same on every config: ANNOTATE_RETPOLINE_SAFE tells
 * objtool that they are meant on a kernel with return thunks and
 * retpolines.
 */
static u32 kpt_rip_word __used = 0x1234abcdu;

static __used noinline __noipa u32 kpt_callee(void)
{
	return 0x77u;
}

static __used noinline __noipa u32 kpt_insn_jcc(u32 x)
{
	u32 r;

	asm volatile("test %1, %1\n\t"
		     KPT_AT(kpt_at_jcc)
		     "jz 1f\n\t"
		     "mov $1, %0\n\t"
		     "jmp 2f\n"
		     "1:\tmov $2, %0\n"
		     "2:\n"
		     : "=r" (r) : "r" (x) : "cc");
	return r;
}

static __used noinline __noipa u32 kpt_insn_jmp(u32 x)
{
	u32 r = x;

	/* A non-zero x jumps over the probe into what it skips. */
	asm volatile("test %0, %0\n\t"
		     "jnz 2f\n\t"
		     KPT_AT(kpt_at_jmp)
		     "jmp 1f\n"
		     "2:\tmov $100, %0\n"
		     "1:\tadd $5, %0\n"
		     : "+r" (r) : : "cc");
	return r;
}

static __used noinline __noipa u32 kpt_insn_loop(u32 x)
{
	u32 r = 0;

	asm volatile("mov %1, %%ecx\n"
		     "1:\tadd $1, %0\n\t"
		     KPT_AT(kpt_at_loop)
		     "loop 1b\n"
		     : "+r" (r) : "r" (x) : "rcx", "cc");
	return r;
}

static __used noinline __noipa u32 kpt_insn_rip(u32 x)
{
	u32 r;

	asm volatile(KPT_AT(kpt_at_rip)
		     "movl kpt_rip_word(%%rip), %0\n"
		     : "=r" (r));
	return r + x;
}

static __used noinline __noipa u32 kpt_insn_call(u32 x)
{
	u32 r;

	asm volatile(KPT_AT(kpt_at_call)
		     "call kpt_callee\n"
		     : "=a" (r), ASM_CALL_CONSTRAINT
		     : : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
		       "r11", "memory", "cc");
	return r + x;
}

static __used noinline __noipa u32 kpt_insn_icall(u32 x)
{
	u32 (*fn)(void) = kpt_callee;
	u32 r;

	OPTIMIZER_HIDE_VAR(fn);
	asm volatile(KPT_AT(kpt_at_icall)
		     ANNOTATE_RETPOLINE_SAFE "call *%%rdx\n"
		     : "=a" (r), "+d" (fn), ASM_CALL_CONSTRAINT
		     : : "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11",
		       "memory", "cc");
	return r + x;
}

/* pushf in the slot would see IF clear; emulated, it sees the caller's. */
static __used noinline __noipa u32 kpt_insn_pushf(u32 x)
{
	unsigned long flags;

	asm volatile(KPT_AT(kpt_at_pushf)
		     "pushf\n\t"
		     "pop %0\n"
		     : "=r" (flags), ASM_CALL_CONSTRAINT);
	return !!(flags & X86_EFLAGS_IF) + x;
}

/* CLI under a probe: IF must read clear afterwards, as in place. */
static __used noinline __noipa u32 kpt_insn_cli(u32 x)
{
	unsigned long saved, flags;

	asm volatile("pushf\n\t"
		     "pop %0\n\t"
		     KPT_AT(kpt_at_cli)
		     "cli\n\t"
		     "pushf\n\t"
		     "pop %1\n\t"
		     "push %0\n\t"
		     "popf\n"
		     : "=&r" (saved), "=&r" (flags), ASM_CALL_CONSTRAINT
		     : : "memory", "cc");
	return !!(flags & X86_EFLAGS_IF) + x;
}

/*
 * STI and POPF under a probe, from IRQs off: IF must read set afterwards.
 * The raw CLI puts IRQs back off before lockdep hears of it again.
 */
static __used noinline __noipa u32 kpt_insn_sti(u32 x)
{
	unsigned long flags;

	local_irq_disable();
	asm volatile(KPT_AT(kpt_at_sti)
		     "sti\n\t"
		     "pushf\n\t"
		     "pop %0\n\t"
		     "cli\n"
		     : "=r" (flags), ASM_CALL_CONSTRAINT : : "memory");
	local_irq_enable();
	return !!(flags & X86_EFLAGS_IF) + x;
}

static __used noinline __noipa u32 kpt_insn_popf(u32 x)
{
	unsigned long flags;

	local_irq_disable();
	asm volatile("pushf\n\t"
		     "orq %[if_bit], (%%rsp)\n\t"
		     KPT_AT(kpt_at_popf)
		     "popf\n\t"
		     "pushf\n\t"
		     "pop %0\n\t"
		     "cli\n"
		     : "=r" (flags), ASM_CALL_CONSTRAINT
		     : [if_bit] "i" (X86_EFLAGS_IF) : "memory", "cc");
	local_irq_enable();
	return !!(flags & X86_EFLAGS_IF) + x;
}

/*
 * Returns, indirect jumps and a prefixed call are written as whole
 * functions, which C cannot express.  kpt_insn_retimm() passes its
 * argument on the stack to a callee that pops it with RET imm16: a RET
 * that ignored the count would return into the argument.
 */
asm(".pushsection .text, \"ax\"\n"
	".globl kpt_insn_ret\n"
	".type kpt_insn_ret, @function\n"
	"kpt_insn_ret:\n\t"
	ASM_ENDBR
	"lea 6(%rdi), %eax\n"
	KPT_AT(kpt_at_ret)
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpt_insn_ret, .-kpt_insn_ret\n"

	".type kpt_retimm_callee, @function\n"
	"kpt_retimm_callee:\n\t"
	"mov 8(%rsp), %eax\n\t"
	"add $7, %eax\n"
	KPT_AT(kpt_at_retimm)
	ANNOTATE_RETPOLINE_SAFE "ret $8\n"
	".size kpt_retimm_callee, .-kpt_retimm_callee\n"

	".globl kpt_insn_retimm\n"
	".type kpt_insn_retimm, @function\n"
	"kpt_insn_retimm:\n\t"
	ASM_ENDBR
	"push %rdi\n\t"
	"call kpt_retimm_callee\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpt_insn_retimm, .-kpt_insn_retimm\n"

	/* x == ~0 takes the branch, so that nothing is unreachable */
	".globl kpt_insn_ijmp\n"
	".type kpt_insn_ijmp, @function\n"
	"kpt_insn_ijmp:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n\t"
	"cmp $-1, %edi\n\t"
	"je 2f\n\t"
	"lea 1f(%rip), %rdx\n"
	KPT_AT(kpt_at_ijmp)
	ANNOTATE_RETPOLINE_SAFE "jmp *%rdx\n"
	"2:\tadd $100, %eax\n"
	"1:\t" ASM_ENDBR
	"add $8, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpt_insn_ijmp, .-kpt_insn_ijmp\n"

	/*
	 * A call with a CS prefix: gcc's -mindirect-branch-cs-prefix writes
	 * every call to a retpoline thunk so, six bytes long.  The callee
	 * hands back the return address it was given and then returns where
	 * the call should, so a wrong return address shows in the result
	 * instead of sending the caller into the call's displacement.
	 */
	".type kpt_cscall_callee, @function\n"
	"kpt_cscall_callee:\n\t"
	"mov (%rsp), %rax\n\t"
	"lea .Lkpt_cscall_back(%rip), %rdx\n\t"
	"mov %rdx, (%rsp)\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpt_cscall_callee, .-kpt_cscall_callee\n"

	/* x plus how far the return address was from the right one */
	".globl kpt_insn_cscall\n"
	".type kpt_insn_cscall, @function\n"
	"kpt_insn_cscall:\n\t"
	ASM_ENDBR
	"push %rdi\n"
	KPT_AT(kpt_at_cscall)
	".byte 0x2e\n\t"
	"call kpt_cscall_callee\n"
	".Lkpt_cscall_back:\n\t"
	"lea .Lkpt_cscall_back(%rip), %rdx\n\t"
	"sub %edx, %eax\n\t"
	"pop %rdi\n\t"
	"add %edi, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpt_insn_cscall, .-kpt_insn_cscall\n"

	".globl kpt_insn_ijmp_mem\n"
	".type kpt_insn_ijmp_mem, @function\n"
	"kpt_insn_ijmp_mem:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n\t"
	"cmp $-1, %edi\n\t"
	"je 2f\n"
	KPT_AT(kpt_at_ijmp_mem)
	ANNOTATE_RETPOLINE_SAFE "jmp *kpt_ijmp_target(%rip)\n"
	"2:\tadd $100, %eax\n"
	".Lkpt_ijmp_mem_to:\n\t" ASM_ENDBR
	"add $9, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpt_insn_ijmp_mem, .-kpt_insn_ijmp_mem\n"
	".popsection\n"

	".pushsection .data, \"aw\"\n"
	".balign 8\n"
	"kpt_ijmp_target:\n\t"
	".quad .Lkpt_ijmp_mem_to\n"
	".popsection\n");

/* Its stack is one word deeper across the call: by design. */
STACK_FRAME_NON_STANDARD(kpt_insn_retimm);
/* Likewise, across the call it saves x around. */
STACK_FRAME_NON_STANDARD(kpt_insn_cscall);

/*
 * An int3 that kprobes did not place: what a text_poke_bp() in flight, a
 * debugger or a compiled-in breakpoint leaves.  It never runs.
 */
static __used noinline __noipa u32 kpt_foreign_int3(u32 x)
{
	asm volatile("jmp 1f\n"
		     KPT_AT(kpt_at_int3)
		     "int3\n"
		     "1:\n");
	return x;
}

#define KPT_FAULT_LOAD		"movl (%1), %0"
#define KPT_FAULT_FIXUP		_ASM_EXTABLE(1b, 2b)
#endif

#ifdef CONFIG_ARM64
/* arm64 steps the load in an XOL slot; the fixup only moves the pc. */
#define KPT_FAULT_LOAD		"ldr %w0, [%1]"
#define KPT_FAULT_FIXUP		_ASM_EXTABLE_KACCESS(1b, 2b)
#endif

#ifdef KPT_FAULT_LOAD
/*
 * A load with an exception-table fixup: a fault skips to the end and
 * leaves the value the caller put in.
 */
static __used noinline __noipa u32 kpt_insn_fault(const u32 *src)
{
	u32 r = 0xdeadu;

	asm volatile(KPT_AT(kpt_at_fault)
		     "1:\t" KPT_FAULT_LOAD "\n"
		     "2:\n"
		     KPT_FAULT_FIXUP
		     : "+r" (r) : "r" (src) : "memory");
	return r;
}

extern const u8 kpt_at_fault[];
#endif

struct insn_case {
	const char *desc;
	const u8 *at;
	u32 (*fn)(u32 x);
	u32 arg;
	u32 want;
	int hits;
};

static const struct insn_case insn_cases[] = {
#ifdef CONFIG_X86_64
	{ "jcc taken", kpt_at_jcc, kpt_insn_jcc, 0, 2, 1 },
	{ "jcc not taken", kpt_at_jcc, kpt_insn_jcc, 3, 1, 1 },
	{ "jmp rel8", kpt_at_jmp, kpt_insn_jmp, 0, 5, 1 },
	{ "loop", kpt_at_loop, kpt_insn_loop, 3, 3, 3 },
	{ "rip-relative load", kpt_at_rip, kpt_insn_rip, 1, 0x1234abceu, 1 },
	{ "call rel32", kpt_at_call, kpt_insn_call, 1, 0x78u, 1 },
	{ "cs call rel32 (retpoline thunk call)", kpt_at_cscall, kpt_insn_cscall, 11, 11, 1 },
	{ "indirect call", kpt_at_icall, kpt_insn_icall, 2, 0x79u, 1 },
	{ "pushf sees IF", kpt_at_pushf, kpt_insn_pushf, 0, 1, 1 },
	{ "cli clears IF", kpt_at_cli, kpt_insn_cli, 2, 2, 1 },
	{ "sti sets IF", kpt_at_sti, kpt_insn_sti, 2, 3, 1 },
	{ "popf sets IF", kpt_at_popf, kpt_insn_popf, 2, 3, 1 },
	{ "ret", kpt_at_ret, kpt_insn_ret, 1, 7, 1 },
	{ "ret imm16", kpt_at_retimm, kpt_insn_retimm, 1, 8, 1 },
	{ "indirect jmp reg", kpt_at_ijmp, kpt_insn_ijmp, 1, 9, 1 },
	{ "indirect jmp rip-relative mem", kpt_at_ijmp_mem, kpt_insn_ijmp_mem, 1, 10, 1 },
#else
	{ "not x86_64", NULL, NULL, 0, 0, 0 },
#endif
};

KUNIT_ARRAY_PARAM_DESC(insn, insn_cases, desc);

/*
 * The probed instruction faults in its slot: the fault must look as if it
 * happened in place, so that the function's own fixup applies.
 */
static void fault_in_probed_insn(struct kunit *test)
{
#ifdef KPT_FAULT_LOAD
	struct test_probe *tp;
	u32 *page, good = 5;

	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	tp = probe_at(test, 'A', NULL, (void *)kpt_at_fault);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_insn_fault(&good), 5u);
	/* The guard page after a vmalloc area is never mapped. */
	KUNIT_EXPECT_EQ(test, kpt_insn_fault(page + PAGE_SIZE / sizeof(u32)),
			0xdeadu);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	/* The faulting run never completes the instruction: no post. */
	KUNIT_EXPECT_EQ(test, tp->post_hits, 1);
	unreg_kprobe(test, &tp->kp);
	vfree(page);
	KUNIT_EXPECT_EQ(test, kpt_insn_fault(&good), 5u);
#else
	kunit_skip(test, "the fault case has an exception-table load for x86_64 and arm64 only");
#endif
}

/* Handlers that read an unmapped address through an exception fixup. */
struct faulting_probe {
	struct test_probe tp;
	const u32 *bad;
	long pre_err;
	long post_err;
};

static struct faulting_probe *to_faulting_probe(struct kprobe *kp)
{
	return container_of(kp, struct faulting_probe, tp.kp);
}

static int faulting_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct faulting_probe *fp = to_faulting_probe(kp);
	u32 val;

	fp->pre_err = copy_from_kernel_nofault(&val, fp->bad, sizeof(val));
	return record_pre(kp, regs);
}

static void faulting_post(struct kprobe *kp, struct pt_regs *regs,
			  unsigned long flags)
{
	struct faulting_probe *fp = to_faulting_probe(kp);
	u32 val;

	fp->post_err = copy_from_kernel_nofault(&val, fp->bad, sizeof(val));
	record_post(kp, regs, flags);
}

KUNIT_DEFINE_ACTION_WRAPPER(vfree_action, vfree, const void *);

#ifdef KPT_FAULT_LOAD
/* What the fault handling after a faulting step sees of interrupts. */
static struct {
	struct kprobe kp;
	struct task_struct *task;
	int hits;
	bool irqs_off;
} fault_watch;

static int fault_watch_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == fault_watch.task) {
		fault_watch.hits++;
		fault_watch.irqs_off = irqs_disabled();
	}
	return 0;
}
#endif

/*
 * The probed code had interrupts masked when its stepped load faulted:
 * the fault is handled with them still masked.  On arm64 with pseudo-NMIs
 * (irqchip.gicv3_pseudo_nmi=1, as the test boot has it) the mask is in
 * the interrupt controller's priority mask, not in DAIF.  A probe on the
 * entry of fixup_exception(), which the fault handling calls, looks.
 */
static void fault_in_probed_insn_irqs_off(struct kunit *test)
{
#ifdef KPT_FAULT_LOAD
	struct test_probe *tp;
	unsigned long flags;
	u32 *page, got;

	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	tp = probe_at(test, 'A', NULL, (void *)kpt_at_fault);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	memset(&fault_watch, 0, sizeof(fault_watch));
	fault_watch.kp.symbol_name = "fixup_exception";
	fault_watch.kp.pre_handler = fault_watch_pre;
	fault_watch.task = current;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &fault_watch.kp), 0);

	local_irq_save(flags);
	got = kpt_insn_fault(page + PAGE_SIZE / sizeof(u32));
	local_irq_restore(flags);

	unreg_kprobe(test, &fault_watch.kp);
	unreg_kprobe(test, &tp->kp);
	vfree(page);
	KUNIT_EXPECT_EQ(test, got, 0xdeadu);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, fault_watch.hits, 1);
	KUNIT_EXPECT_TRUE(test, fault_watch.irqs_off);
#else
	kunit_skip(test, "the fault case has an exception-table load for x86_64 and arm64 only");
#endif
}

/*
 * A fault taken inside a handler belongs to the handler: its own fixup
 * applies, and the probe must not mistake it for a fault of the probed
 * instruction.
 */
static void fault_in_handler(struct kunit *test)
{
	const struct place_case *pc = test->param_value;
	struct faulting_probe *fp;
	u32 *page;

	fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fp);
	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_action, page), 0);
	/* The guard page after a vmalloc area is never mapped. */
	fp->bad = page + PAGE_SIZE / sizeof(u32);
	fp->pre_err = 1;
	fp->post_err = 1;
	fp->tp.id = 'A';
	fp->tp.kp.addr = place_addr(test, pc->place);
	fp->tp.kp.pre_handler = faulting_pre;
	fp->tp.kp.post_handler = faulting_post;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &fp->tp.kp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(1), MARK_AFTER + 1);
	KUNIT_EXPECT_EQ(test, fp->tp.pre_hits, 1);
	KUNIT_EXPECT_EQ(test, fp->tp.post_hits, 1);
	KUNIT_EXPECT_EQ(test, fp->pre_err, -EFAULT);
	KUNIT_EXPECT_EQ(test, fp->post_err, -EFAULT);
	if (pc->place == PLACE_BODY)
		KUNIT_EXPECT_EQ(test, fp->tp.post_mark, MARK_AFTER);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(2), MARK_AFTER + 2);
	KUNIT_EXPECT_EQ(test, fp->tp.pre_hits, 2);
}

/* An int3 someone else put there is theirs: no probe on it. */
static void reject_foreign_int3(struct kunit *test)
{
#ifdef CONFIG_X86_64
	struct test_probe *tp = probe_at(test, 'A', NULL, (void *)kpt_at_int3);

	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_foreign_int3(3), 3u);
	KUNIT_EXPECT_EQ(test, *kpt_at_int3, INT3_INSN_OPCODE);
#else
	kunit_skip(test, "x86_64 decodes the int3 byte");
#endif
}

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
static u32 kpt_sc_impl(u32 x)
{
	return x + 2;
}

DEFINE_STATIC_CALL(kpt_sc, kpt_sc_impl);

static __used noinline __noipa u32 kpt_static_caller(u32 x)
{
	return static_call(kpt_sc)(x) + 1;
}

static unsigned long kpt_static_call_site(void)
{
	struct static_call_site *site = THIS_MODULE->static_call_sites;
	struct static_call_site *end = site + THIS_MODULE->num_static_call_sites;
	unsigned long key;

	for (; site < end; site++) {
		key = ((long)&site->key + site->key) & ~STATIC_CALL_SITE_FLAGS;
		if (key == (unsigned long)&STATIC_CALL_KEY(kpt_sc))
			return (long)&site->addr + site->addr;
	}
	return 0;
}
#endif

/* An inline static call site is rewritten by static_call_update(). */
static void reject_static_call_site(struct kunit *test)
{
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	struct test_probe *tp;
	unsigned long site;

	if (!IS_MODULE(CONFIG_KPROBES_SANITY_TEST))
		kunit_skip(test, "built in: the sites are the kernel's");
	site = kpt_static_call_site();
	KUNIT_ASSERT_NE_MSG(test, site, 0, "no static call site for kpt_sc");
	KUNIT_ASSERT_TRUE(test, site >= (unsigned long)kpt_static_caller &&
			  site < (unsigned long)kpt_static_caller +
				 symbol_size(kpt_static_caller));
	tp = probe_at(test, 'A', NULL, (void *)site);
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_static_caller(1), 4u);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
#else
	kunit_skip(test, "no inline static calls on this arch");
#endif
}

static DEFINE_STATIC_KEY_FALSE(kpt_key);

static __used noinline __noipa u32 kpt_keyed(u32 x)
{
	if (static_branch_unlikely(&kpt_key))
		return x + 1;
	return x;
}

/* A jump label site belongs to the jump label code: no probe there. */
static void reject_jump_label_site(struct kunit *test)
{
#ifdef CONFIG_JUMP_LABEL
	struct jump_entry *e, *end;
	struct test_probe *tp;

	if (!IS_MODULE(CONFIG_KPROBES_SANITY_TEST))
		kunit_skip(test, "built in: the sites are the kernel's");
	e = THIS_MODULE->jump_entries;
	end = e + THIS_MODULE->num_jump_entries;
	while (e < end && jump_entry_key(e) != &kpt_key.key)
		e++;
	KUNIT_ASSERT_TRUE_MSG(test, e < end, "no jump entry for kpt_key");
	tp = probe_at(test, 'A', NULL, (void *)jump_entry_code(e));
	KUNIT_EXPECT_EQ(test, reg_kprobe(test, &tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_keyed(1), 1u);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
#else
	kunit_skip(test, "CONFIG_JUMP_LABEL is off: no jump label sites");
#endif
}

static void x86_insn_in_place(struct kunit *test)
{
	const struct insn_case *ic = test->param_value;
	struct test_probe *tp;

	if (!ic->at)
		kunit_skip(test, "the instruction classes are x86_64's");
	tp = probe_at(test, 'A', NULL, (void *)ic->at);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, ic->fn(ic->arg), ic->want);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, ic->hits);
	KUNIT_EXPECT_EQ(test, tp->post_hits, ic->hits);
	unreg_kprobe(test, &tp->kp);
	KUNIT_EXPECT_EQ(test, ic->fn(ic->arg), ic->want);
}

/*
 * Boosting (x86_64): which probed instructions get a copy that jumps back
 * by itself, and what happens to a task preempted inside that copy.
 */
#ifdef CONFIG_X86_64
static u64 kpt_long_buf[80];

static __used noinline __noipa u32 kpt_insn_plain(u32 x)
{
	u32 r = x;

	asm volatile(KPT_AT(kpt_at_plain)
		     "addl $3, %0\n"
		     : "+r" (r) : : "cc");
	return r;
}

/* 12 bytes: with the 5-byte jump back it does not fit one slot. */
static __used noinline __noipa u32 kpt_insn_long(u32 x)
{
	u64 *buf = kpt_long_buf;
	unsigned long zero = 0;

	asm volatile(KPT_AT(kpt_at_long)
		     ".byte 0x48, 0xc7, 0x84, 0xf7\n\t"	/* movq $imm32, */
		     ".long 0x200, 0x5a5a\n"		/* 0x200(%rdi,%rsi,8) */
		     : : "D" (buf), "S" (zero) : "memory");
	return (u32)READ_ONCE(kpt_long_buf[0x200 / 8]) + x;
}

/* A long, interruptible instruction: rep movsb of @n bytes. */
static __used noinline __noipa unsigned long kpt_insn_repmovs(void *dst,
							      const void *src,
							      unsigned long n)
{
	asm volatile(KPT_AT(kpt_at_repmovs)
		     "rep movsb\n"
		     : "+D" (dst), "+S" (src), "+c" (n) : : "memory");
	return n;
}

static u32 kpt_repmovs_small(u32 x)
{
	u8 src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, dst[8] = { };

	return kpt_insn_repmovs(dst, src, sizeof(src)) + dst[7] + x;
}

extern const u8 kpt_at_plain[], kpt_at_long[], kpt_at_repmovs[];
#endif

struct boost_case {
	const char *desc;
	const u8 *at;
	u32 (*fn)(u32 x);
	u32 arg;
	u32 want;
	bool boosts;
};

static const struct boost_case boost_cases[] = {
#ifdef CONFIG_X86_64
	{ "register arithmetic", kpt_at_plain, kpt_insn_plain, 1, 4, true },
	{ "rip-relative load", kpt_at_rip, kpt_insn_rip, 1, 0x1234abceu, true },
	{ "rep movsb", kpt_at_repmovs, kpt_repmovs_small, 1, 9, true },
	{ "12 bytes: no room for the jump", kpt_at_long, kpt_insn_long, 1, 0x5a5b, false },
	{ "jcc: emulated", kpt_at_jcc, kpt_insn_jcc, 0, 2, false },
	{ "call: emulated", kpt_at_call, kpt_insn_call, 1, 0x78u, false },
	{ "cs call: emulated", kpt_at_cscall, kpt_insn_cscall, 11, 11, false },
	{ "ret: emulated", kpt_at_ret, kpt_insn_ret, 1, 7, false },
	{ "pushf: emulated", kpt_at_pushf, kpt_insn_pushf, 0, 1, false },
	{ "cli: emulated", kpt_at_cli, kpt_insn_cli, 2, 2, false },
	{ "indirect call: finished by the handler", kpt_at_icall, kpt_insn_icall, 2, 0x79u, false },
	{ "indirect jmp: finished by the handler", kpt_at_ijmp, kpt_insn_ijmp, 1, 9, false },
#else
	{ "not x86_64", NULL, NULL, 0, 0, false },
#endif
};

KUNIT_ARRAY_PARAM_DESC(boost, boost_cases, desc);

#ifdef CONFIG_X86_64
/* The boost slot holds the copy and a jump to the next original byte. */
static void expect_boost_slot(struct kunit *test, struct kprobe *kp)
{
	const u8 *slot = kp->ainsn.boost_slot;
	unsigned int len = kp->ainsn.len;
	long target;

	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_EXPECT_EQ(test, slot[len], JMP32_INSN_OPCODE);
	target = (long)(slot + len + JMP32_INSN_SIZE) +
		 get_unaligned((const s32 *)(slot + len + 1));
	KUNIT_EXPECT_EQ(test, target, (long)kp->addr + len);
	KUNIT_EXPECT_EQ(test, slot[0], kp->opcode);
}
#endif

/*
 * Each class boosts or not as written in kprobe_x86_boostable(), and does
 * the same as in place either way.  A pre_handler alone allows boosting;
 * a post_handler needs the trap after the copy.
 */
static void x86_boost_by_class(struct kunit *test)
{
#ifdef CONFIG_X86_64
	const struct boost_case *bc = test->param_value;
	struct test_probe *tp = probe_at(test, 'A', NULL, (void *)bc->at);

	tp->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	if (bc->boosts)
		expect_boost_slot(test, &tp->kp);
	else
		KUNIT_EXPECT_NULL(test, tp->kp.ainsn.boost_slot);
	KUNIT_EXPECT_EQ(test, bc->fn(bc->arg), bc->want);
	KUNIT_EXPECT_EQ(test, bc->fn(bc->arg), bc->want);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	unreg_kprobe(test, &tp->kp);
	KUNIT_EXPECT_EQ(test, bc->fn(bc->arg), bc->want);
#else
	kunit_skip(test, "boosting is x86's");
#endif
}

/*
 * A post_handler joining a boosted probe is called: a hit chooses the
 * trapping copy whenever the address has a post_handler to call.
 */
static void x86_boost_post_handler_joins(struct kunit *test)
{
#ifdef CONFIG_X86_64
	struct test_probe *a = probe_at(test, 'A', NULL, (void *)kpt_at_plain);
	struct test_probe *b = probe_at(test, 'B', NULL, (void *)kpt_at_plain);

	a->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &a->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_insn_plain(1), 4u);
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &b->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_insn_plain(2), 5u);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->post_hits, 1);
	unreg_kprobe(test, &b->kp);
	KUNIT_EXPECT_EQ(test, kpt_insn_plain(3), 6u);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, b->post_hits, 1);
#else
	kunit_skip(test, "boosting is x86's");
#endif
}

#ifdef CONFIG_X86_64
#define BOOST_COPY_BYTES	(4UL << 20)

/* Copies in a loop through the boosted rep movsb; checks every copy. */
struct boost_runner {
	u8 *src;
	u8 *dst;
	atomic_t copies;
	bool stop;
	bool corrupt;
	struct completion done;
};

static int boost_runner_fn(void *arg)
{
	struct boost_runner *r = arg;

	while (!READ_ONCE(r->stop)) {
		r->dst[BOOST_COPY_BYTES - 1] = 0;
		if (kpt_insn_repmovs(r->dst, r->src, BOOST_COPY_BYTES) ||
		    r->dst[BOOST_COPY_BYTES - 1] != 0xa5)
			WRITE_ONCE(r->corrupt, true);
		/* a voluntary switch now and then lets RCU-tasks go on */
		if (atomic_inc_return(&r->copies) % 4 == 0)
			schedule_timeout_uninterruptible(1);
	}
	complete(&r->done);
	return 0;
}

/* Spins at FIFO priority on the runner's CPU while asked to. */
struct boost_hog {
	struct task_struct *task;
	bool spin;
};

static int boost_hog_fn(void *arg)
{
	struct boost_hog *h = arg;
	unsigned long deadline;

	sched_set_fifo(current);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!READ_ONCE(h->spin)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		/* bounded: RT throttling would let the runner go anyway */
		deadline = jiffies + HZ / 2;
		while (READ_ONCE(h->spin) && time_before(jiffies, deadline))
			cpu_relax();
		WRITE_ONCE(h->spin, false);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static bool task_stopped_in(struct task_struct *t, const u8 *start,
			    unsigned int len)
{
	unsigned long entries[32];
	unsigned int i, n;

	n = stack_trace_save_tsk(t, entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i < n; i++)
		if (entries[i] >= (unsigned long)start &&
		    entries[i] < (unsigned long)start + len)
			return true;
	return false;
}

/* Takes two pages' worth of slots of @c: is the one holding @busy among them? */
static bool slot_handed_out(struct kprobe_insn_cache *c, const u8 *busy)
{
	size_t bytes = c->insn_size * sizeof(kprobe_opcode_t);
	unsigned int i, n = 2 * PAGE_SIZE / bytes;
	kprobe_opcode_t **taken;
	bool found = false;

	taken = kcalloc(n, sizeof(*taken), GFP_KERNEL);
	if (!taken)
		return false;
	for (i = 0; i < n; i++) {
		taken[i] = __get_insn_slot(c);
		if (!taken[i])
			break;
		if (busy >= (const u8 *)taken[i] &&
		    busy < (const u8 *)taken[i] + bytes)
			found = true;
	}
	while (i--)
		__free_insn_slot(c, taken[i], 0);
	kfree(taken);
	return found;
}

struct preempted_case {
	const char *desc;
	bool optimize;
};

static const struct preempted_case preempted_cases[] = {
	{ "boost slot (optimization off)", false },
#ifdef CONFIG_OPTPROBES
	{ "detour buffer (optimization on)", true },
#endif
};

KUNIT_ARRAY_PARAM_DESC(preempted, preempted_cases, desc);

/*
 * Where a hit of @kp goes on without a second trap: its boost slot, or
 * with optimization on, the region copy in the table entry's detour.
 */
static const u8 *boost_target(struct kprobe *kp, bool optimize,
			      struct kprobe_insn_cache **cache)
{
#ifdef CONFIG_OPTPROBES
	struct kprobe *entry;

	if (optimize) {
		*cache = &kprobe_optinsn_slots;
		guard(rcu)();
		entry = get_kprobe(kp->addr);
		return entry ? entry->ainsn.region_copy : NULL;
	}
#endif
	*cache = &kprobe_insn_slots;
	return kp->ainsn.boost_slot;
}

static void optimization_action(void *on)
{
#ifdef CONFIG_OPTPROBES
	kprobe_opt_set_enabled(on);
#endif
}
#else
KUNIT_ARRAY_PARAM_DESC(preempted, boost_cases, desc);
#endif

/*
 * A task preempted inside a boost slot, or inside the copy of an
 * optimized region in a detour buffer, whose probe is unregistered under
 * it: the slot or buffer is not handed out again while the task can come
 * back to it, and the task finishes the instruction correctly when it
 * does.  The hog keeps the task off its CPU while the probe goes.
 */
static void x86_boost_preempted_in_slot(struct kunit *test)
{
#ifdef CONFIG_X86_64
	const struct preempted_case *pc = test->param_value;
	unsigned int here, cpu, attempt, caught = 0, reused = 0;
	struct kprobe_insn_cache *cache;
	unsigned long pause;
	struct task_struct *runner;
	struct boost_runner *r;
	struct test_probe *tp;
	struct boost_hog *h;
	bool registered;
	const u8 *slot;
	int ret = 0;

	if (!preempt_model_full())
		kunit_skip(test, "needs full preemption (preempt=full)");
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs a second CPU");

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, h);
	r->src = vmalloc(BOOST_COPY_BYTES);
	r->dst = vmalloc(BOOST_COPY_BYTES);
	KUNIT_ASSERT_NOT_NULL(test, r->src);
	KUNIT_ASSERT_NOT_NULL(test, r->dst);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_action, r->src), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_action, r->dst), 0);
	memset(r->src, 0xa5, BOOST_COPY_BYTES);
	init_completion(&r->done);
	optimization_action((void *)(uintptr_t)pc->optimize);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, optimization_action,
							(void *)true), 0);

	tp = probe_at(test, 'A', NULL, (void *)kpt_at_repmovs);
	tp->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, reg_kprobe(test, &tp->kp), 0);
	registered = true;

	/* The runner and the hog share a CPU that this test does not use. */
	here = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)), 0);
	cpu = cpumask_any_but(cpu_online_mask, here);
	KUNIT_ASSERT_LT(test, cpu, nr_cpu_ids);
	h->task = kthread_create(boost_hog_fn, h, "kp-boost-hog");
	KUNIT_ASSERT_FALSE(test, IS_ERR(h->task));
	kthread_bind(h->task, cpu);
	wake_up_process(h->task);
	runner = kthread_create(boost_runner_fn, r, "kp-boost-runner");
	if (IS_ERR(runner)) {
		kthread_stop(h->task);
		KUNIT_FAIL(test, "no runner thread");
		return;
	}
	kthread_bind(runner, cpu);
	wake_up_process(runner);

	/* From here on no ASSERT: the threads must be stopped first. */
	for (attempt = 0; attempt < 40 && caught < 3 && !ret; attempt++) {
		if (!registered) {
			clear_for_reuse(&tp->kp);
			ret = reg_kprobe(test, &tp->kp);
			registered = !ret;
			if (ret)
				break;
		}
		slot = boost_target(&tp->kp, pc->optimize, &cache);
		if (!slot) {
			ret = -ENOENT;
			break;
		}
		/* vary where in its loop the runner is caught */
		pause = 3000 + 1000 * (attempt % 7);
		usleep_range(pause, pause + 1000);
		/* the hog's wakeup preempts the runner wherever it is */
		WRITE_ONCE(h->spin, true);
		wake_up_process(h->task);
		usleep_range(2000, 3000);
		if (task_stopped_in(runner, slot, tp->kp.ainsn.len)) {
			bool handed;

			unreg_kprobe(test, &tp->kp);
			registered = false;
			handed = slot_handed_out(cache, slot);
			/* it counts only if the runner was in it all along */
			if (READ_ONCE(h->spin) &&
			    task_stopped_in(runner, slot, tp->kp.ainsn.len)) {
				caught++;
				reused += handed;
			}
		}
		WRITE_ONCE(h->spin, false);
	}

	WRITE_ONCE(r->stop, true);
	wait_for_completion(&r->done);
	kthread_stop(h->task);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_GE(test, caught, 1u);
	KUNIT_EXPECT_EQ(test, reused, 0u);
	KUNIT_EXPECT_FALSE(test, r->corrupt);
	KUNIT_EXPECT_GT(test, atomic_read(&r->copies), 0);
	kunit_info(test, "preempted in the %s %u times in %u tries, %d copies\n",
		   pc->optimize ? "detour" : "boost slot", caught, attempt,
		   atomic_read(&r->copies));
#else
	kunit_skip(test, "boosting is x86's");
#endif
}

static struct kunit_case kprobes_test_cases[] = {
	KUNIT_CASE_PARAM(x86_insn_in_place, insn_gen_params),
	KUNIT_CASE(fault_in_probed_insn),
	KUNIT_CASE(fault_in_probed_insn_irqs_off),
	KUNIT_CASE_PARAM(x86_boost_by_class, boost_gen_params),
	KUNIT_CASE(x86_boost_post_handler_joins),
	KUNIT_CASE_PARAM_ATTR(x86_boost_preempted_in_slot, preempted_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(reject_jump_label_site),
	KUNIT_CASE(reject_static_call_site),
	KUNIT_CASE(reject_foreign_int3),
	KUNIT_CASE_PARAM(fault_in_handler, place_gen_params),
	KUNIT_CASE(register_by_symbol),
	KUNIT_CASE_PARAM(register_by_address, place_gen_params),
	KUNIT_CASE(register_symbol_offset),
	KUNIT_CASE(register_address_offset),
	KUNIT_CASE(reject_address_and_symbol),
	KUNIT_CASE(reject_no_location),
	KUNIT_CASE(reject_unknown_symbol),
	KUNIT_CASE(reject_inside_instruction),
	KUNIT_CASE_PARAM(offset_past_end_names_what_follows, offset_gen_params),
	KUNIT_CASE_PARAM(reject_non_text, non_text_gen_params),
	KUNIT_CASE_PARAM(reject_blacklisted, blacklist_gen_params),
	KUNIT_CASE(reject_blacklisted_address),
	KUNIT_CASE(blacklist_area_has_no_gap),
	KUNIT_CASE(insn_slot_dirty_reclaimed),
	KUNIT_CASE_PARAM(reject_kprobes_code, own_code_gen_params),
	KUNIT_CASE_PARAM(reject_noinstr, noinstr_gen_params),
	KUNIT_CASE(reject_registered_again),
	KUNIT_CASE(unregister_unregistered),
	KUNIT_CASE(register_again_after_unregister),
	KUNIT_CASE_PARAM(pre_handler_regs, place_gen_params),
	KUNIT_CASE(pre_handler_redirect),
	KUNIT_CASE(post_handler_after_insn),
	KUNIT_CASE_PARAM(missed_in_own_handlers, place_gen_params),
	KUNIT_CASE(missed_in_other_handler),
	KUNIT_CASE(registered_disabled),
	KUNIT_CASE_PARAM(disable_enable_sequence, toggle_gen_params),
	KUNIT_CASE(toggle_unregistered_kprobe),
	KUNIT_CASE_PARAM(aggregate_order, place_gen_params),
	KUNIT_CASE_PARAM(aggregate_remove_middle, place_gen_params),
	KUNIT_CASE_PARAM(aggregate_disable_one, place_gen_params),
	KUNIT_CASE_PARAM(aggregate_add_remove_readd, order_gen_params),
	KUNIT_CASE(register_kprobes_rollback),
	KUNIT_CASE(unregister_kprobes_partly_registered),
	KUNIT_CASE(unregister_batch_waits_once),
	KUNIT_CASE(unregister_lone_without_grace_period),
	KUNIT_CASE_PARAM_ATTR(unregister_lifetime, lifetime_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(unregister_kprobes_large_batch),
	KUNIT_CASE(batch_boundaries_as_single),
	KUNIT_CASE(batch_arms_and_disarms_all),
	KUNIT_CASE(batch_failure_leaves_text_alone),
	KUNIT_CASE(batch_other_function_as_single),
	KUNIT_CASE_PARAM(probe_on_the_api, api_gen_params),
	KUNIT_CASE(init_text_disarmed_when_retired),
#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_KRETPROBES)
	KUNIT_CASE(probe_on_rcu_lockdep_check),
	KUNIT_CASE(probe_on_rcu_list_check),
	KUNIT_CASE(ftrace_only_entry_follows_table),
	KUNIT_CASE(x86_int3_on_ftrace_site_not_ours),
	KUNIT_CASE(ftrace_entry_is_the_site),
	KUNIT_CASE(ftrace_batch),
	KUNIT_CASE(ftrace_batch_refused),
	KUNIT_CASE(ftrace_join_refused_leaves_no_post_handler),
#endif
#ifdef CONFIG_KRETPROBES
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
#endif
	{}
};

static struct kunit_suite kprobes_test_suite = {
	.name = "kprobes_test",
	.suite_init = kprobes_test_suite_init,
	.test_cases = kprobes_test_cases,
};

kunit_test_suites(&kprobes_test_suite);

MODULE_DESCRIPTION("KUnit tests for kprobes and kretprobes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the kprobes KUnit module (lib/test_kprobes_*.c) share:
 * the functions the probes sit on, the probe that records what its
 * handlers saw, and registration that KUnit undoes when a case fails.
 * test_kprobes_common.c defines them.
 */
#ifndef _LIB_TEST_KPROBES_H
#define _LIB_TEST_KPROBES_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kprobes.h>
#include <linux/objtool.h>
#include <linux/ptrace.h>
#include <linux/types.h>

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
#elif defined(CONFIG_ARM) && !defined(CONFIG_THUMB2_KERNEL)
#define HAVE_MARK	1
#define PROBE_IP_BIAS	0
/* movw r9, #MARK_AFTER (ARM mode, always executed) */
#define MARK_LEN	4
#define MARK_STEP	4
#define MARK_WORD	(0xe3000000u | ((MARK_AFTER >> 12) << 16) | (9 << 12) | \
			 (MARK_AFTER & 0xfff))
#elif defined(CONFIG_PPC64) && defined(CONFIG_CPU_LITTLE_ENDIAN)
#define HAVE_MARK	1
/* The trap's interrupt leaves the nip on the trap itself. */
#define PROBE_IP_BIAS	0
/* li r9, MARK_AFTER (addi r9, 0, imm), a word stored little endian */
#define MARK_LEN	4
#define MARK_STEP	4
#define MARK_WORD	(0x39200000u | MARK_AFTER)
#elif defined(CONFIG_S390)
#define HAVE_MARK	1
/*
 * The breakpoint's program check leaves the PSW after its two bytes, and
 * the backend hands the pre_handler that; its ftrace handler sets the
 * site's own address.
 */
#define PROBE_IP_BIAS	2
#define PROBE_FTRACE_IP_BIAS	0
/*
 * lghi %r9, MARK_AFTER: opcode a7, r9 and op 9, the immediate; big endian.
 * LGHI sets the whole register (LHI would leave its upper half alone).
 */
#define MARK_LEN	4
#define MARK_STEP	2
#define MARK_WORD	(0xa7990000u | MARK_AFTER)
#elif defined(CONFIG_MIPS) && !defined(CONFIG_CPU_MICROMIPS)
#define HAVE_MARK	1
/* The break's exception leaves the EPC on the break itself. */
#define PROBE_IP_BIAS	0
/* addiu $9, $zero, MARK_AFTER: opcode 9, rs 0, rt 9, the immediate */
#define MARK_LEN	4
#define MARK_STEP	4
#define MARK_WORD	(0x24090000u | MARK_AFTER)
#else
#define HAVE_MARK	0
#define PROBE_IP_BIAS	0
#define MARK_LEN	1
#define MARK_STEP	1
#endif

/* Where an ftrace site's pre_handler finds the ip, if not as a breakpoint's */
#ifndef PROBE_FTRACE_IP_BIAS
#define PROBE_FTRACE_IP_BIAS	PROBE_IP_BIAS
#endif

/*
 * Where the suites know how to read a function's first argument: with
 * regs_get_kernel_argument(), or from its register where a module cannot
 * call it (s390's calls an unexported function) or it does not exist (arm,
 * mips).
 */
#define HAVE_FIRST_ARG	(IS_ENABLED(CONFIG_X86) || IS_ENABLED(CONFIG_ARM64) || \
			 IS_ENABLED(CONFIG_RISCV) || IS_ENABLED(CONFIG_ARM) ||	\
			 IS_ENABLED(CONFIG_PPC) || IS_ENABLED(CONFIG_S390) ||	\
			 IS_ENABLED(CONFIG_LOONGARCH) || IS_ENABLED(CONFIG_MIPS))

#define TEST_ARG	41u
#define SLEEPER_COOKIE	0x5ee9u
#define EXIT_COOKIE	0xe817u
#define OUTER_VALUE	0x0c7eu
#define INNER_VALUE	0x1eafu
#define STACK_DEPTH	32
/* How long a helper thread waits to be released before giving up. */
#define SLEEPER_PATIENCE	(10 * HZ)

/* kprobes_test_stack_inner() prints a backtrace between these two lines. */
#define DUMP_BEGIN	"kprobes_test: backtrace begins"
#define DUMP_END	"kprobes_test: backtrace ends"

/*
 * A global label on a probed instruction.  The tables of cases hold its
 * address as data; objtool, on a kernel with IBT, wants every address in
 * data to be an ENDBR unless told that no indirect branch goes there.
 */
#define KPT_AT(name)	".globl " #name "\n" #name ":\n\t" ANNOTATE_NOENDBR

/* The two moves, in every function that carries the mark */
static __always_inline u32 kpt_mark_moves(void)
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
#elif defined(CONFIG_ARM) && !defined(CONFIG_THUMB2_KERNEL)
	asm volatile("movw r9, #" __stringify(MARK_BEFORE) "\n\t"
		     "movw r9, #" __stringify(MARK_AFTER) "\n\t"
		     "mov %0, r9"
		     : "=r" (v) : : "r9");
#elif defined(CONFIG_PPC64) && defined(CONFIG_CPU_LITTLE_ENDIAN)
	/*
	 * powerpc64 takes any offset up to 16 as the function's entry (its
	 * TOC setup and ftrace site live there): the moves come after it.
	 */
	asm volatile(".rept 5\n\tnop\n\t.endr\n\t"
		     "li 9, " __stringify(MARK_BEFORE) "\n\t"
		     "li 9, " __stringify(MARK_AFTER) "\n\t"
		     "mr %0, 9"
		     : "=r" (v) : : "r9");
#elif defined(CONFIG_S390)
	asm volatile("lghi %%r9, " __stringify(MARK_BEFORE) "\n\t"
		     "lghi %%r9, " __stringify(MARK_AFTER) "\n\t"
		     "lr %0, %%r9"
		     : "=d" (v) : : "r9");
#elif defined(CONFIG_MIPS) && !defined(CONFIG_CPU_MICROMIPS)
	/* In order, and neither move in a branch's delay slot. */
	asm volatile(".set push\n\t.set noreorder\n\t"
		     "addiu $9, $0, " __stringify(MARK_BEFORE) "\n\t"
		     "addiu $9, $0, " __stringify(MARK_AFTER) "\n\t"
		     "move %0, $9\n\t"
		     ".set pop"
		     : "=r" (v) : : "$9");
#else
	v = MARK_AFTER;
#endif
	return v;
}

struct sleeper {
	struct completion entered;
	struct completion release;
	struct completion done;
	u32 result;
	bool gave_up;
};

/* The levels of driver -> outer -> inner that note their return address */
enum { LEVEL_OUTER, LEVEL_INNER, NR_LEVELS };

struct stack_capture {
	unsigned long entries[STACK_DEPTH];
	unsigned int len;
};

/* Handler order: pre_handlers log the probe's letter, post_handlers it in lower case. */
struct call_log {
	char seq[24];
	unsigned int len;
};

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

static inline struct test_probe *to_test_probe(struct kprobe *kp)
{
	return container_of(kp, struct test_probe, kp);
}

/* Probes that count this task's waits for hits and large kmallocs. */
struct alloc_watch {
	struct test_probe *sync;
	struct test_probe *large[2];
};

/* The functions the probes sit on */
u32 kprobes_test_target(u32 x);
u32 kprobes_test_other(u32 x);
u32 kprobes_test_redirect(u32 x);
u32 kprobes_test_marked(u32 x);
u32 kprobes_test_blacklisted(u32 x);
u32 kprobes_test_recurse(u32 depth);
u32 kprobes_test_sleeper(struct sleeper *s);
u32 kprobes_test_exit_inside(struct sleeper *s);
unsigned long kprobes_test_stack_inner(void);
unsigned long kprobes_test_stack_outer(void);
unsigned long kprobes_test_stack_driver(void);

/* What the stack functions note, and what a case asks of inner() */
extern unsigned long kpt_stack_seen_ret[NR_LEVELS];
extern struct stack_capture *kpt_inner_capture;
extern void (*kpt_inner_hook)(void);
extern bool kpt_inner_dump;
void kpt_capture_stack(struct stack_capture *c);

/* Layout facts about this module's own code */
extern int kpt_mark_offset;
bool kpt_symbol_of(unsigned long addr, char *name, unsigned long *off,
		   unsigned long *size);
unsigned long kpt_symbol_size(const void *fn);
#ifdef CONFIG_OPTPROBES
bool kpt_optimized(struct kprobe *kp);
#endif
void kpt_mark_bytes(u8 *insn);
int kpt_find_mark_in(const void *fn);
void kpt_require_mark(struct kunit *test);
kprobe_opcode_t *kpt_mark_addr(void);

/* Where a case puts its probe: the entry, or an instruction further in. */
enum kpt_place { KPT_PLACE_ENTRY, KPT_PLACE_BODY };

struct kpt_place_case {
	const char *desc;
	enum kpt_place place;
};

const void *kpt_place_gen_params(const void *prev, char *desc);
void *kpt_place_addr(struct kunit *test, enum kpt_place place);
unsigned long kpt_first_arg(struct pt_regs *regs);
int kpt_suite_init(struct kunit_suite *suite);

/* The recording probe, and registration undone by KUnit */
void kpt_log_call(struct call_log *log, char c);
int kpt_record_pre(struct kprobe *kp, struct pt_regs *regs);
void kpt_record_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags);
struct test_probe *kpt_new_probe(struct kunit *test, char id,
				 struct call_log *log);
void *kpt_entry(void *addr);
struct test_probe *kpt_probe_at(struct kunit *test, char id,
				struct call_log *log, void *addr);
void kpt_unregister_kprobe_action(void *kp);
int kpt_reg_kprobe(struct kunit *test, struct kprobe *kp);
void kpt_unreg_kprobe(struct kunit *test, struct kprobe *kp);
void kpt_expect_refused(struct kunit *test, struct kprobe *kp, int want);
void kpt_expect_batch_refused(struct kunit *test, struct kprobe **kps, int num,
			      int want);
void kpt_clear_for_reuse(struct kprobe *kp);
void kpt_vfree_action(void *addr);
struct task_struct *kpt_kthread_on(struct kunit *test, int cpu,
				   int (*fn)(void *), void *data,
				   const char *name);

/* Counting this task's calls of a function, and its large allocations */
extern struct task_struct *kpt_sync_counted_task;
int kpt_count_own_sync(struct kprobe *kp, struct pt_regs *regs);
void kpt_alloc_watch_start(struct kunit *test, struct alloc_watch *w);
void kpt_alloc_watch_expect(struct kunit *test, struct alloc_watch *w);

/* A load with an exception-table fixup, on x86 and arm64 */
extern const u8 kpt_at_fault[];

#endif /* _LIB_TEST_KPROBES_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * kpbench - cost of one probe hit, for the harness benchmark.
 *
 * Loaded once per measurement with kind=<what to measure>.  It times a loop
 * that calls a small function NR_CALLS times, first without a probe and
 * then with one, and prints the difference per call.  Under QEMU with
 * "-icount shift=0" a virtual nanosecond is one guest instruction, so the
 * figures are instructions per hit and repeat exactly between runs.
 *
 * Only the public kprobes API is used: the same source measures the base
 * kernel and the project.
 */
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/slab.h>
#include <linux/string.h>

#define NR_CALLS	100000
#define NR_REPEAT	3
#define NR_CROWD	4096
/* Generated functions for the probes spread over many functions. */
#define NR_PAD_FUNCS	256
#define PER_FUNC	64
#define NR_SPREAD	(64 * PER_FUNC)
#define NR_SPREAD_BIG	(NR_PAD_FUNCS * PER_FUNC)

#ifdef CONFIG_ARM64
#define NOP_BYTES	4
#else
#define NOP_BYTES	1
#endif

static char *kind = "int3";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "floor, floorregs, entry, int3, int3post, branch, load, opt, optpost, kretprobe, kr, optret, crowd, crowd1k, spread, spread16k, entries, lone or loneret");

static unsigned long pre_hits, post_hits, ret_hits;
static int kpbench_sink;

/* The probed function: straight-line arithmetic, never inlined or cloned. */
static __attribute__((__noipa__)) int kpbench_target(int a, int b)
{
	int x = a * 7 + b;

	x ^= x >> 5;
	x += a << 3;
	x ^= b * 13;
	x -= x >> 7;
	x ^= a + 0x5bd1e995;
	return x;
}

/* The same with no ftrace site: its entry is an ordinary instruction. */
static __attribute__((__noipa__)) notrace int kpbench_target_nt(int a, int b)
{
	int x = a * 7 + b;

	x ^= x >> 5;
	x += a << 3;
	x ^= b * 13;
	x -= x >> 7;
	x ^= a + 0x5bd1e995;
	return x;
}

/*
 * The same work with two instructions of known class in the middle, whose
 * addresses the asm leaves in kpbench_branch_at and kpbench_load_at: a
 * branch to the next instruction, which arm64 simulates in its handler,
 * and a load, which it steps out of line (two exceptions per hit).
 */
#if defined(CONFIG_ARM64)
#define KPBENCH_BRANCH	"b 662f"
#define KPBENCH_LOAD	"ldr %w0, [%1]"
#elif defined(CONFIG_X86)
#define KPBENCH_BRANCH	"jmp 662f"
#define KPBENCH_LOAD	"movl (%1), %0"
#endif

#ifdef KPBENCH_BRANCH
/* The labels' addresses are kept as words of the kernel's width. */
#ifdef CONFIG_64BIT
#define KPBENCH_PTR	".quad"
#else
#define KPBENCH_PTR	".long"
#endif
extern unsigned long kpbench_branch_at, kpbench_load_at;
static int kpbench_word = 3;

static __attribute__((__noipa__)) int kpbench_target_asm(int a, int b)
{
	int x = a * 7 + b, y;

	x ^= x >> 5;
	/* The labels' addresses are data: no indirect branch goes there. */
	asm volatile("661:\n\t" ANNOTATE_NOENDBR KPBENCH_BRANCH "\n662:\n\t"
		     ANNOTATE_NOENDBR KPBENCH_LOAD "\n\t"
		     ".pushsection .data\n\t.balign 8\n"
		     "kpbench_branch_at:\n\t" KPBENCH_PTR " 661b\n"
		     "kpbench_load_at:\n\t" KPBENCH_PTR " 662b\n\t.popsection"
		     : "=&r" (y) : "r" (&kpbench_word) : "memory");
	x += y + (a << 3);
	x ^= b * 13;
	x -= x >> 7;
	x ^= a + 0x5bd1e995;
	return x;
}
#else
/* Other arches have no bench for these kinds; bench_asm() says so. */
static unsigned long kpbench_branch_at, kpbench_load_at;
static int kpbench_target_asm(int a, int b) { return a + b; }
#endif

/* Never called: a run of one-instruction slots for the crowd of probes. */
static __attribute__((__noipa__)) void kpbench_pad(void)
{
	asm volatile(".rept " __stringify(NR_CROWD + 32) "\n\tnop\n\t.endr");
}

/*
 * NR_PAD_FUNCS more such functions, each its own symbol, for probes spread
 * over many functions (PER_FUNC in each).  noipa keeps GCC from folding
 * the identical bodies into one.
 */
#define PAD_FN(n)							\
static __attribute__((__noipa__)) void kpbench_pad_##n(void)		\
{									\
	asm volatile(".rept " __stringify(PER_FUNC + 32) "\n\tnop\n\t.endr"); \
}
#define PAD_REF(n)	kpbench_pad_##n,
#define PAD4(m, n)	m(n##0) m(n##1) m(n##2) m(n##3)
#define PAD16(m, n)	PAD4(m, n##0) PAD4(m, n##1) PAD4(m, n##2) PAD4(m, n##3)
#define PAD64(m, n)	PAD16(m, n##0) PAD16(m, n##1) PAD16(m, n##2) PAD16(m, n##3)
#define PAD256(m)	PAD64(m, 0) PAD64(m, 1) PAD64(m, 2) PAD64(m, 3)

PAD256(PAD_FN)

static void (*const kpbench_pads[NR_PAD_FUNCS])(void) = { PAD256(PAD_REF) };

/* Inlined for each target, so that the loop calls it directly. */
static __always_inline u64 time_loop(int (*target)(int, int))
{
	u64 best = U64_MAX, t0, t1;
	int r, i, acc = 0;

	for (r = 0; r < NR_REPEAT; r++) {
		t0 = ktime_get_ns();
		for (i = 0; i < NR_CALLS; i++)
			acc += target(i, acc);
		t1 = ktime_get_ns();
		best = min(best, t1 - t0);
	}
	kpbench_sink = acc;
	return best;
}

static u64 time_calls(void)
{
	return time_loop(kpbench_target);
}

static u64 time_calls_nt(void)
{
	return time_loop(kpbench_target_nt);
}

static u64 time_calls_asm(void)
{
	return time_loop(kpbench_target_asm);
}

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	pre_hits++;
	return 0;
}

static void count_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	post_hits++;
}

static int count_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ret_hits++;
	return 0;
}

/* How the probe point is patched right now, read from the text itself. */
static const char *patch_mode(struct kprobe *p)
{
	const u8 *b __maybe_unused = (const u8 *)p->addr;

	if (p->flags & KPROBE_FLAG_FTRACE)
		return "ftrace";
#if defined(CONFIG_X86)
	if (b[0] == 0xcc)
		return "int3";
	if (b[0] == 0xe9)
		return "jump";
#elif defined(CONFIG_ARM64)
	if (aarch64_insn_is_brk(le32_to_cpu(*(const __le32 *)b)))
		return "brk";
	if (aarch64_insn_is_b(le32_to_cpu(*(const __le32 *)b)))
		return "jump";
#endif
	return "other";
}

/* The first instruction boundary past the entry (and its ftrace site). */
static int inner_offset(void)
{
	struct kprobe kp;
	int off, err;

	for (off = 1; off < 64; off++) {
		memset(&kp, 0, sizeof(kp));
		kp.symbol_name = "kpbench_target";
		kp.offset = off;
		err = register_kprobe(&kp);
		if (err)
			continue;
		err = kp.flags & KPROBE_FLAG_FTRACE;
		unregister_kprobe(&kp);
		if (!err)
			return off;
	}
	return -ENOENT;
}

static void report(const char *mode, u64 bare, u64 probed, unsigned long hits,
		   const char *extra)
{
	u64 d = probed > bare ? probed - bare : 0;
	u32 rem;
	u64 per_hit = div_u64_rem(d, NR_CALLS, &rem);

	/* div_u64(): a 32-bit kernel has no 64-bit division of its own. */
	pr_info("kpbench: kind=%s mode=%s hits=%lu bare=%llu per_hit=%llu.%02u%s\n",
		kind, mode, hits, div_u64(bare, NR_CALLS), per_hit,
		rem * 100 / NR_CALLS, extra);
}

/* Wait for the optimizer to replace the breakpoint with a jump. */
static void wait_for_jump(struct kprobe *kp)
{
	int i;

	for (i = 0; i < 100 && strcmp(patch_mode(kp), "jump"); i++)
		msleep(50);
}

/* Time @timer's calls without and then with @kp registered. */
static int bench_one(struct kprobe *kp, u64 (*timer)(void), bool want_jump)
{
	u64 bare, probed;
	int err;

	bare = timer();
	err = register_kprobe(kp);
	if (err) {
		pr_err("kpbench: kind=%s register_kprobe(%s%pS+%u) failed: %d\n",
		       kind, kp->symbol_name ?: "", kp->addr, kp->offset, err);
		return err;
	}
	if (want_jump)
		wait_for_jump(kp);
	pre_hits = 0;
	probed = timer();
	report(patch_mode(kp), bare, probed, pre_hits / NR_REPEAT, "");
	unregister_kprobe(kp);
	return 0;
}

static int bench_kprobe(int offset, bool post, bool want_jump)
{
	struct kprobe kp = {
		.symbol_name = "kpbench_target",
		.offset = offset,
		.pre_handler = count_pre,
		.post_handler = post ? count_post : NULL,
	};

	return bench_one(&kp, time_calls, want_jump);
}

/* A probe on @addr in kpbench_target_asm(), optimization off. */
static int bench_asm(unsigned long addr)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)addr,
		.pre_handler = count_pre,
	};

	if (!addr) {
		pr_err("kpbench: kind=%s has a target on x86 and arm64 only\n",
		       kind);
		return -EOPNOTSUPP;
	}
	return bench_one(&kp, time_calls_asm, false);
}

/* @nt: on kpbench_target_nt(), where a jump may replace the entry */
static int bench_kretprobe(bool nt)
{
	struct kretprobe rp = {
		.kp.symbol_name = nt ? "kpbench_target_nt" : "kpbench_target",
		.handler = count_ret,
		.maxactive = 8,
	};
	u64 bare, probed;
	int err;

	bare = nt ? time_calls_nt() : time_calls();
	err = register_kretprobe(&rp);
	if (err) {
		pr_err("kpbench: kind=%s register failed: %d\n", kind, err);
		return err;
	}
	if (nt)
		wait_for_jump(&rp.kp);
	ret_hits = 0;
	probed = nt ? time_calls_nt() : time_calls();
	report(patch_mode(&rp.kp), bare, probed, ret_hits / NR_REPEAT, "");
	unregister_kretprobe(&rp);
	return 0;
}

/*
 * A kprobe and a kretprobe on the entry of the same function, as the
 * kprobes sample's "kr" pair: the kprobe joins the kretprobe's entry
 * probe, and the row shows what it adds to the kretprobe alone.  Each
 * call must hit both.
 */
static int bench_kprobe_and_kretprobe(void)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpbench_target",
		.handler = count_ret,
		.maxactive = 8,
	};
	struct kprobe kp = {
		.symbol_name = "kpbench_target",
		.pre_handler = count_pre,
	};
	u64 bare, probed;
	int err;

	bare = time_calls();
	err = register_kretprobe(&rp);
	if (err) {
		pr_err("kpbench: kind=%s register_kretprobe failed: %d\n", kind, err);
		return err;
	}
	err = register_kprobe(&kp);
	if (err) {
		pr_err("kpbench: kind=%s register_kprobe failed: %d\n", kind, err);
		unregister_kretprobe(&rp);
		return err;
	}
	pre_hits = 0;
	ret_hits = 0;
	probed = time_calls();
	if (pre_hits != ret_hits)
		pr_err("kpbench: kind=%s failed: %lu kprobe hits, %lu returns\n",
		       kind, pre_hits, ret_hits);
	else
		report(patch_mode(&kp), bare, probed, ret_hits / NR_REPEAT, "");
	unregister_kprobe(&kp);
	unregister_kretprobe(&rp);
	return 0;
}

/*
 * The floors under the entry rows: ftrace direct calls from the target's
 * ftrace site (the way a BPF trampoline is called), no kprobe involved.
 * "floor" goes to a trampoline that counts the call and goes back, the
 * least any call out of the site costs; it touches only what a function's
 * entry may clobber.  "floorregs" goes to one that saves a whole pt_regs,
 * calls a C function with it, and restores every register from it: the
 * least a probe whose handlers get a pt_regs can cost there.
 */
#if defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) && \
	(defined(CONFIG_X86_64) || defined(CONFIG_ARM64))
#ifdef CONFIG_X86_64
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#include <asm/segment.h>
#endif

unsigned long kpbench_floor_hits;
void kpbench_floor_tramp(void);
void kpbench_floor_regs_tramp(void);
void kpbench_floor_regs_hit(struct pt_regs *regs);

void kpbench_floor_regs_hit(struct pt_regs *regs)
{
	kpbench_floor_hits++;
}

#ifdef CONFIG_X86_64
/* Called from the site: only the flags change, which no caller keeps. */
asm(".pushsection .text, \"ax\", @progbits\n"
    ".type kpbench_floor_tramp, @function\n"
    ".globl kpbench_floor_tramp\n"
    "kpbench_floor_tramp:\n\t"
    ASM_ENDBR
    CALL_DEPTH_ACCOUNT
    "incq kpbench_floor_hits(%rip)\n\t"
    ASM_RET
    ".size kpbench_floor_tramp, .-kpbench_floor_tramp\n"
    ".popsection\n");

/*
 * pt_regs from its last field down (ss first): the segments, the flags
 * and the return address as a trap at the site would give them, then the
 * general registers.  168 bytes keep the call's stack 16-byte aligned.
 */
asm(".pushsection .text, \"ax\", @progbits\n"
    ".type kpbench_floor_regs_tramp, @function\n"
    ".globl kpbench_floor_regs_tramp\n"
    "kpbench_floor_regs_tramp:\n\t"
    ASM_ENDBR
    CALL_DEPTH_ACCOUNT
    "pushq $" __stringify(__KERNEL_DS) "\n\t"
    "pushq %rsp\n\t"
    "pushfq\n\t"
    "pushq $" __stringify(__KERNEL_CS) "\n\t"
    "pushq 32(%rsp)\n\t"
    "pushq $-1\n\t"
    "pushq %rdi\n\tpushq %rsi\n\tpushq %rdx\n\tpushq %rcx\n\t"
    "pushq %rax\n\tpushq %r8\n\tpushq %r9\n\tpushq %r10\n\t"
    "pushq %r11\n\tpushq %rbx\n\tpushq %rbp\n\tpushq %r12\n\t"
    "pushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
    "movq %rsp, %rdi\n\t"
    "call kpbench_floor_regs_hit\n\t"
    "popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\t"
    "popq %rbp\n\tpopq %rbx\n\tpopq %r11\n\tpopq %r10\n\t"
    "popq %r9\n\tpopq %r8\n\tpopq %rax\n\tpopq %rcx\n\t"
    "popq %rdx\n\tpopq %rsi\n\tpopq %rdi\n\t"
    "addq $48, %rsp\n\t"
    ASM_RET
    ".size kpbench_floor_regs_tramp, .-kpbench_floor_regs_tramp\n"
    ".popsection\n");
#else
/*
 * The site left the function's return address in x9 and its own in x30
 * (as ftrace_caller does on its way to a direct trampoline); x10 and x11
 * are scratch registers no argument lives in.  BTI C: ftrace_caller may
 * come with a BR.
 */
asm(".pushsection .text, \"ax\", %progbits\n"
    ".type kpbench_floor_tramp, %function\n"
    ".globl kpbench_floor_tramp\n"
    "kpbench_floor_tramp:\n\t"
    "hint 34\n\t"
    "adrp x10, kpbench_floor_hits\n\t"
    "ldr x11, [x10, :lo12:kpbench_floor_hits]\n\t"
    "add x11, x11, #1\n\t"
    "str x11, [x10, :lo12:kpbench_floor_hits]\n\t"
    "mov x10, x30\n\t"
    "mov x30, x9\n\t"
    "ret x10\n"
    ".size kpbench_floor_tramp, .-kpbench_floor_tramp\n"
    ".popsection\n");

/*
 * x0 to x29 in regs[], the function's own return address (x9) as x30,
 * then sp, pc (the instruction after the site) and the flags, at the
 * offsets kpbench_floor_check() pins; the frame is rounded up to 512.
 */
#define KPB_REGS_FRAME	512
asm(".pushsection .text, \"ax\", %progbits\n"
    ".type kpbench_floor_regs_tramp, %function\n"
    ".globl kpbench_floor_regs_tramp\n"
    "kpbench_floor_regs_tramp:\n\t"
    "hint 34\n\t"
    "sub sp, sp, #" __stringify(KPB_REGS_FRAME) "\n\t"
    "stp x0, x1, [sp, #0]\n\tstp x2, x3, [sp, #16]\n\t"
    "stp x4, x5, [sp, #32]\n\tstp x6, x7, [sp, #48]\n\t"
    "stp x8, x9, [sp, #64]\n\tstp x10, x11, [sp, #80]\n\t"
    "stp x12, x13, [sp, #96]\n\tstp x14, x15, [sp, #112]\n\t"
    "stp x16, x17, [sp, #128]\n\tstp x18, x19, [sp, #144]\n\t"
    "stp x20, x21, [sp, #160]\n\tstp x22, x23, [sp, #176]\n\t"
    "stp x24, x25, [sp, #192]\n\tstp x26, x27, [sp, #208]\n\t"
    "stp x28, x29, [sp, #224]\n\t"
    "add x10, sp, #" __stringify(KPB_REGS_FRAME) "\n\t"
    "stp x9, x10, [sp, #240]\n\t"
    "mrs x11, nzcv\n\t"
    "stp x30, x11, [sp, #256]\n\t"
    "mov x0, sp\n\t"
    "bl kpbench_floor_regs_hit\n\t"
    "ldp x0, x1, [sp, #0]\n\tldp x2, x3, [sp, #16]\n\t"
    "ldp x4, x5, [sp, #32]\n\tldp x6, x7, [sp, #48]\n\t"
    "ldp x8, x9, [sp, #64]\n\tldp x10, x11, [sp, #80]\n\t"
    "ldp x12, x13, [sp, #96]\n\tldp x14, x15, [sp, #112]\n\t"
    "ldp x16, x17, [sp, #128]\n\tldp x18, x19, [sp, #144]\n\t"
    "ldp x20, x21, [sp, #160]\n\tldp x22, x23, [sp, #176]\n\t"
    "ldp x24, x25, [sp, #192]\n\tldp x26, x27, [sp, #208]\n\t"
    "ldp x28, x29, [sp, #224]\n\t"
    "ldr x30, [sp, #240]\n\t"
    "ldr x10, [sp, #256]\n\t"
    "add sp, sp, #" __stringify(KPB_REGS_FRAME) "\n\t"
    "ret x10\n"
    ".size kpbench_floor_regs_tramp, .-kpbench_floor_regs_tramp\n"
    ".popsection\n");

/* The offsets the trampoline writes at are pt_regs'. */
static void __maybe_unused kpbench_floor_check(void)
{
	BUILD_BUG_ON(offsetof(struct pt_regs, regs[30]) != 240);
	BUILD_BUG_ON(offsetof(struct pt_regs, sp) != 248);
	BUILD_BUG_ON(offsetof(struct pt_regs, pc) != 256);
	BUILD_BUG_ON(offsetof(struct pt_regs, pstate) != 264);
	BUILD_BUG_ON(sizeof(struct pt_regs) > KPB_REGS_FRAME);
}
#endif

static struct ftrace_ops kpbench_floor_ops;

/* The target's calls timed with a direct call from its site to @tramp. */
static int bench_floor(void (*tramp_fn)(void))
{
	unsigned long tramp = (unsigned long)tramp_fn;
	u64 bare, probed;
	int err;

	bare = time_calls();
	err = ftrace_set_filter_ip(&kpbench_floor_ops,
				   (unsigned long)kpbench_target, 0, 0);
	if (!err)
		err = register_ftrace_direct(&kpbench_floor_ops, tramp);
	if (err) {
		pr_err("kpbench: kind=%s failed: a direct call on kpbench_target: %d\n",
		       kind, err);
		ftrace_free_filter(&kpbench_floor_ops);
		return err;
	}
	kpbench_floor_hits = 0;
	probed = time_calls();
	report("direct", bare, probed, kpbench_floor_hits / NR_REPEAT, "");
	unregister_ftrace_direct(&kpbench_floor_ops, tramp, true);
	return 0;
}
#define KPBENCH_FLOOR		kpbench_floor_tramp
#define KPBENCH_FLOOR_REGS	kpbench_floor_regs_tramp
#else
static int bench_floor(void (*tramp_fn)(void))
{
	pr_err("kpbench: kind=%s failed: no ftrace direct calls in this kernel\n",
	       kind);
	return -EOPNOTSUPP;
}
#define KPBENCH_FLOOR		NULL
#define KPBENCH_FLOOR_REGS	NULL
#endif

enum batch_shape { BATCH_CROWD, BATCH_SPREAD, BATCH_ENTRIES };

/*
 * Where the @i-th probe of a batch goes: nop 16 on of its function, past
 * whatever the compiler put before the nops.  A crowd fills kpbench_pad;
 * a spread puts PER_FUNC in each generated function; entries put one on
 * each generated function's entry (its ftrace site, where it has one).
 */
static kprobe_opcode_t *batch_addr(int i, enum batch_shape shape)
{
	unsigned long fn = (unsigned long)kpbench_pad;
	int nop = i;

	if (shape == BATCH_ENTRIES)
		return (kprobe_opcode_t *)kpbench_pads[i];
	if (shape == BATCH_SPREAD) {
		fn = (unsigned long)kpbench_pads[i / PER_FUNC];
		nop = i % PER_FUNC;
	}
	return (kprobe_opcode_t *)(fn + (nop + 16) * NOP_BYTES);
}

/*
 * Register @list one probe per call, as perf, bpftrace and trace_kprobe
 * do; on a failure, unregister those already in.
 */
static int register_lone(struct kprobe **list, int nr)
{
	int i, err;

	for (i = 0; i < nr; i++) {
		err = register_kprobe(list[i]);
		if (err) {
			pr_err("kpbench: kind=%s register_kprobe(%pS) failed: %d\n",
			       kind, list[i]->addr, err);
			while (i--)
				unregister_kprobe(list[i]);
			return err;
		}
	}
	return 0;
}

static void unregister_lone(struct kprobe **list, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		unregister_kprobe(list[i]);
}

/*
 * One probe in the target, then @nr more in one register_kprobes() batch
 * (see batch_addr()), or with @lone one register_kprobe() call each.  The
 * hit cost is the target's, with all of them registered; the batch's
 * register and unregister times are reported.
 */
static int bench_batch(int offset, int nr, enum batch_shape shape,
		       bool keep_brk, bool lone)
{
	struct kprobe kp = {
		.symbol_name = "kpbench_target",
		.offset = offset,
		.pre_handler = count_pre,
	};
	struct kprobe *crowd, **list;
	u64 bare, probed, t_reg, t_unreg, t0;
	char extra[96];
	int i, err;

	/*
	 * Measured with optimization on: keep the target's probe a breakpoint.
	 * On the base, a probe optimized at the address the later kinds probe
	 * trips a WARN there once the module is reloaded (see bench.sh).
	 */
	if (keep_brk)
		kp.post_handler = count_post;
	crowd = kvcalloc(nr, sizeof(*crowd), GFP_KERNEL);
	list = kvcalloc(nr, sizeof(*list), GFP_KERNEL);
	if (!crowd || !list) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		crowd[i].addr = batch_addr(i, shape);
		crowd[i].pre_handler = count_pre;
		list[i] = &crowd[i];
	}
	bare = time_calls();
	err = register_kprobe(&kp);
	if (err)
		goto out;
	t0 = ktime_get_ns();
	err = lone ? register_lone(list, nr) : register_kprobes(list, nr);
	t_reg = ktime_get_ns() - t0;
	if (err) {
		pr_err("kpbench: register_kprobes(%d, shape %d) failed: %d\n",
		       nr, shape, err);
		unregister_kprobe(&kp);
		goto out;
	}
	pre_hits = 0;
	probed = time_calls();
	t0 = ktime_get_ns();
	if (lone)
		unregister_lone(list, nr);
	else
		unregister_kprobes(list, nr);
	t_unreg = ktime_get_ns() - t0;
	snprintf(extra, sizeof(extra), " register_us=%llu unregister_us=%llu",
		 div_u64(t_reg, 1000), div_u64(t_unreg, 1000));
	report(patch_mode(&kp), bare, probed, pre_hits / NR_REPEAT, extra);
	unregister_kprobe(&kp);
out:
	kvfree(list);
	kvfree(crowd);
	return err;
}

/*
 * A kretprobe on the target, then NR_SPREAD more on the entries of the
 * first NR_SPREAD / PER_FUNC generated functions (PER_FUNC on each), one
 * register_kretprobe() call each and then one unregister_kretprobe()
 * call each, maxactive left to the core.  The target's return hits are
 * timed with all of them registered.  arming_us is the share of the
 * registrations that armed a site, the first on each function.
 */
static int bench_lone_kretprobes(void)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpbench_target",
		.handler = count_ret,
		.maxactive = 8,
	};
	struct kretprobe *crowd;
	u64 bare, probed, t_reg, t_unreg, t0, t_arm = 0;
	char extra[128];
	int i, err;

	crowd = kvcalloc(NR_SPREAD, sizeof(*crowd), GFP_KERNEL);
	if (!crowd)
		return -ENOMEM;
	bare = time_calls();
	err = register_kretprobe(&rp);
	if (err)
		goto out;
	t0 = ktime_get_ns();
	for (i = 0; i < NR_SPREAD; i++) {
		crowd[i].kp.addr = (kprobe_opcode_t *)
			kpbench_pads[i % (NR_SPREAD / PER_FUNC)];
		crowd[i].handler = count_ret;
		err = register_kretprobe(&crowd[i]);
		/* The first on each function arms its site; the rest join. */
		if (i == NR_SPREAD / PER_FUNC - 1)
			t_arm = ktime_get_ns() - t0;
		if (err) {
			pr_err("kpbench: kind=%s register_kretprobe(%pS) failed: %d\n",
			       kind, crowd[i].kp.addr, err);
			while (i--)
				unregister_kretprobe(&crowd[i]);
			unregister_kretprobe(&rp);
			goto out;
		}
	}
	t_reg = ktime_get_ns() - t0;
	ret_hits = 0;
	probed = time_calls();
	t0 = ktime_get_ns();
	for (i = 0; i < NR_SPREAD; i++)
		unregister_kretprobe(&crowd[i]);
	t_unreg = ktime_get_ns() - t0;
	snprintf(extra, sizeof(extra),
		 " register_us=%llu unregister_us=%llu arming_us=%llu",
		 div_u64(t_reg, 1000), div_u64(t_unreg, 1000),
		 div_u64(t_arm, 1000));
	report(patch_mode(&rp.kp), bare, probed, ret_hits / NR_REPEAT, extra);
	unregister_kretprobe(&rp);
out:
	kvfree(crowd);
	return err;
}

static int __init kpbench_init(void)
{
	int off = inner_offset();

	if (off < 0) {
		pr_err("kpbench: no probeable instruction inside kpbench_target\n");
		return off;
	}
	if (!strcmp(kind, "floor"))
		return bench_floor(KPBENCH_FLOOR);
	if (!strcmp(kind, "floorregs"))
		return bench_floor(KPBENCH_FLOOR_REGS);
	if (!strcmp(kind, "entry"))
		return bench_kprobe(0, false, false);
	if (!strcmp(kind, "int3"))
		return bench_kprobe(off, false, false);
	if (!strcmp(kind, "int3post"))
		return bench_kprobe(off, true, false);
	if (!strcmp(kind, "opt"))
		return bench_kprobe(off, false, true);
	if (!strcmp(kind, "optpost"))
		return bench_kprobe(off, true, false);
	if (!strcmp(kind, "branch"))
		return bench_asm(kpbench_branch_at);
	if (!strcmp(kind, "load"))
		return bench_asm(kpbench_load_at);
	if (!strcmp(kind, "kretprobe"))
		return bench_kretprobe(false);
	if (!strcmp(kind, "kr"))
		return bench_kprobe_and_kretprobe();
	if (!strcmp(kind, "optret"))
		return bench_kretprobe(true);
	if (!strcmp(kind, "crowd"))
		return bench_batch(off, NR_CROWD, BATCH_CROWD, false, false);
	if (!strcmp(kind, "spread"))
		return bench_batch(off, NR_SPREAD, BATCH_SPREAD, false, false);
	if (!strcmp(kind, "lone"))
		return bench_batch(off, NR_SPREAD, BATCH_SPREAD, false, true);
	if (!strcmp(kind, "loneret"))
		return bench_lone_kretprobes();
	if (!strcmp(kind, "spread16k"))
		return bench_batch(off, NR_SPREAD_BIG, BATCH_SPREAD, false, false);
	if (!strcmp(kind, "crowd1k"))
		return bench_batch(off, NR_CROWD / 4, BATCH_CROWD, true, false);
	if (!strcmp(kind, "entries"))
		return bench_batch(off, NR_PAD_FUNCS, BATCH_ENTRIES, false, false);
	pr_err("kpbench: unknown kind '%s'\n", kind);
	return -EINVAL;
}

static void __exit kpbench_exit(void)
{
}

module_init(kpbench_init);
module_exit(kpbench_exit);
MODULE_DESCRIPTION("Instructions per kprobe hit, for the kprobes harness");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for x86 jump optimization (opt.c): each rule on a function
 * written for it, and what an optimized probe does when it fires.
 *
 * The functions are assembly, so that the bytes around each probe are
 * known. Probe points inside them are not symbols (a symbol would end the
 * function for kallsyms, and with it the region): their offsets are kept
 * in kpo_offsets[].
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>

#include <asm/asm.h>
#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/processor-flags.h>
#include <asm/text-patching.h>

#include "../../../../kernel/kprobes_internal.h"
#include "common.h"
#include "kprobes_opt_kunit.h"

enum {
	KPO_PLAIN,	/* add, add: a region of six bytes */
	KPO_PLAIN_2,	/* the second add, inside that region */
	KPO_PLAIN_3,	/* the third add, after it */
	KPO_OTHER,	/* the same shape in another function */
	KPO_EDGE,	/* the region would run into the next function */
	KPO_JUMPIN,	/* a jcc lands inside the region */
	KPO_INDIRECT,	/* the function has an indirect jump */
	KPO_EXTABLE,	/* the region holds a load with a fixup */
	KPO_FIXUP,	/* another load's fixup lands inside the region */
	KPO_JL,		/* a jump label site inside the region */
	KPO_CALL,	/* a call inside the region */
	KPO_COPY,	/* mov, rep movsb: a long stay inside the region */
	KPO_REGS,	/* every register holds a known value */
	KPO_LONG,	/* one 5-byte instruction: a region of its own */
	KPO_JLT,	/* a static branch may jump inside the region */
	KPO_COLD,	/* the function's .cold part jumps inside the region */
	KPO_COLD_IN,	/* a region inside a .cold part */
	KPO_RETPOLINE,	/* a jump table through a retpoline thunk */
	KPO_NAMELESS,	/* ... through code no symbol starts at */
	KPO_NR
};

/*
 * Only the assembly below uses the keys when jump labels are off: keep
 * them, or the module would not link.
 */
static __used DEFINE_STATIC_KEY_FALSE(kpo_jl_key);
static __used DEFINE_STATIC_KEY_FALSE(kpo_jlt_key);

/*
 * An indirect jump as the compiler writes it with retpolines, which objtool
 * lists for the boot code to patch (to "jmp *%rdx", or to another flavour
 * of thunk).  The other flavours cannot be jumped to from here: objtool
 * would list such a jump too, and the boot code does not expect them
 * (opt_jump_out_classified() checks those).  Without retpolines, the
 * function jumps through the nameless thunk instead, and its case is
 * skipped.
 */
#ifdef CONFIG_MITIGATION_RETPOLINE
#define KPO_RETPOLINE_THUNK	"__x86_indirect_thunk_rdx"
#else
#define KPO_RETPOLINE_THUNK	".Lkpo_nameless_thunk"
#endif

/*
 * x + 3, as two adds; x == ~0 also jumps through @thunk to the second
 * add, inside the region a probe on the first would cover, as a jump
 * table's entry could (with edi cleared, so that it does not loop).
 */
#define KPO_THUNKED(name, thunk)					\
	".globl " name "\n"						\
	".type " name ", @function\n"					\
	name ":\n\t"							\
	ASM_ENDBR							\
	"mov %edi, %eax\n"						\
	".L" name ":\n\t"						\
	"add $1, %eax\n"						\
	".L" name "_mid:\n\t"						\
	"add $2, %eax\n\t"						\
	"cmp $-1, %edi\n\t"						\
	"jne 1f\n\t"							\
	"xor %edi, %edi\n\t"						\
	"lea .L" name "_mid(%rip), %rdx\n\t"				\
	"jmp " thunk "\n"						\
	"1:\t" ANNOTATE_RETPOLINE_SAFE "ret\n"				\
	".size " name ", .-" name "\n"

/* kpo_regs() loads 0xa0 + n into register n (ax = 0, ..., r15 = 15, not sp) */
#define KPO_REG(n)	(0xa0ul + (n))

asm(".pushsection .text, \"ax\"\n"
	".globl kpo_plain\n"
	".type kpo_plain, @function\n"
	"kpo_plain:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	".Lkpo_plain:\n\t"
	"add $1, %eax\n"
	".Lkpo_plain_2:\n\t"
	"add $2, %eax\n"
	".Lkpo_plain_3:\n\t"
	"add $4, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_plain, .-kpo_plain\n"

	".globl kpo_other\n"
	".type kpo_other, @function\n"
	"kpo_other:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	".Lkpo_other:\n\t"
	"add $1, %eax\n\t"
	"add $2, %eax\n\t"
	"add $4, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_other, .-kpo_other\n"

	/* kpo_edge_tail is a symbol of its own: kpo_edge ends before it. */
	".globl kpo_edge\n"
	".type kpo_edge, @function\n"
	"kpo_edge:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	".Lkpo_edge:\n\t"
	"add $2, %eax\n"
	".globl kpo_edge_tail\n"
	"kpo_edge_tail:\n\t"
	"add $4, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_edge, .-kpo_edge\n"

	".globl kpo_jumpin\n"
	".type kpo_jumpin, @function\n"
	"kpo_jumpin:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n\t"
	"test %edi, %edi\n\t"
	"jz 1f\n"
	".Lkpo_jumpin:\n\t"
	"add $1, %eax\n"
	"1:\tadd $2, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_jumpin, .-kpo_jumpin\n"

	/* x == ~0 takes the indirect jump, so that nothing is unreachable */
	".globl kpo_indirect\n"
	".type kpo_indirect, @function\n"
	"kpo_indirect:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	".Lkpo_indirect:\n\t"
	"add $1, %eax\n\t"
	"add $2, %eax\n\t"
	"cmp $-1, %edi\n\t"
	"jne 1f\n\t"
	"lea 1f(%rip), %rdx\n\t"
	ANNOTATE_RETPOLINE_SAFE "jmp *%rdx\n"
	"1:\t" ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_indirect, .-kpo_indirect\n"

	".globl kpo_extable\n"
	".type kpo_extable, @function\n"
	"kpo_extable:\n\t"
	ASM_ENDBR
	"mov $0xdead, %eax\n"
	".Lkpo_extable:\n\t"
	"add $0, %ecx\n"
	"1:\tmovl (%rdi), %eax\n"
	"2:\t" ANNOTATE_RETPOLINE_SAFE "ret\n"
	_ASM_EXTABLE(1b, 2b)
	".size kpo_extable, .-kpo_extable\n"

	".globl kpo_fixup\n"
	".type kpo_fixup, @function\n"
	"kpo_fixup:\n\t"
	ASM_ENDBR
	"mov $0xdead, %eax\n"
	"1:\tmovl (%rdi), %eax\n"
	".Lkpo_fixup:\n\t"
	"add $1, %eax\n"
	"2:\tadd $2, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	_ASM_EXTABLE(1b, 2b)
	".size kpo_fixup, .-kpo_fixup\n"

	/* a static branch written out: a 5-byte nop, or a jump to 2f */
	".globl kpo_jl\n"
	".type kpo_jl, @function\n"
	"kpo_jl:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	".Lkpo_jl:\n\t"
	"add $1, %eax\n"
	"1:\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
	"add $2, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	"2:\tadd $100, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".pushsection __jump_table, \"aw\"\n\t"
	".balign 8\n\t"
	".long 1b - .\n\t"
	".long 2b - .\n\t"
	".quad kpo_jl_key - .\n"
	".popsection\n"
	".size kpo_jl, .-kpo_jl\n"

	".type kpo_call_helper, @function\n"
	"kpo_call_helper:\n\t"
	"add $2, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_call_helper, .-kpo_call_helper\n"

	".globl kpo_call\n"
	".type kpo_call, @function\n"
	"kpo_call:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	".Lkpo_call:\n\t"
	"add $1, %eax\n\t"
	"call kpo_call_helper\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_call, .-kpo_call\n"

	/* out[n] = register n after the region; sp's slot is unused */
	".globl kpo_regs\n"
	".type kpo_regs, @function\n"
	"kpo_regs:\n\t"
	ASM_ENDBR
	"push %rbx\n\t"
	"push %rbp\n\t"
	"push %r12\n\t"
	"push %r13\n\t"
	"push %r14\n\t"
	"push %r15\n\t"
	"push %rdi\n\t"
	"mov $0xa0, %eax\n\t"
	"mov $0xa1, %ecx\n\t"
	"mov $0xa2, %edx\n\t"
	"mov $0xa3, %ebx\n\t"
	"mov $0xa5, %ebp\n\t"
	"mov $0xa6, %esi\n\t"
	"mov $0xa7, %edi\n\t"
	"mov $0xa8, %r8d\n\t"
	"mov $0xa9, %r9d\n\t"
	"mov $0xaa, %r10d\n\t"
	"mov $0xab, %r11d\n\t"
	"mov $0xac, %r12d\n\t"
	"mov $0xad, %r13d\n\t"
	"mov $0xae, %r14d\n\t"
	"mov $0xaf, %r15d\n"
	".Lkpo_regs:\n\t"
	"add $1, %eax\n\t"
	"add $2, %eax\n\t"
	"xchg (%rsp), %rdi\n\t"
	"mov %rax, 0*8(%rdi)\n\t"
	"mov %rcx, 1*8(%rdi)\n\t"
	"mov %rdx, 2*8(%rdi)\n\t"
	"mov %rbx, 3*8(%rdi)\n\t"
	"mov %rbp, 5*8(%rdi)\n\t"
	"mov %rsi, 6*8(%rdi)\n\t"
	"mov %r8, 8*8(%rdi)\n\t"
	"mov %r9, 9*8(%rdi)\n\t"
	"mov %r10, 10*8(%rdi)\n\t"
	"mov %r11, 11*8(%rdi)\n\t"
	"mov %r12, 12*8(%rdi)\n\t"
	"mov %r13, 13*8(%rdi)\n\t"
	"mov %r14, 14*8(%rdi)\n\t"
	"mov %r15, 15*8(%rdi)\n\t"
	"pop %rax\n\t"
	"mov %rax, 7*8(%rdi)\n\t"
	"pop %r15\n\t"
	"pop %r14\n\t"
	"pop %r13\n\t"
	"pop %r12\n\t"
	"pop %rbp\n\t"
	"pop %rbx\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_regs, .-kpo_regs\n"

	".globl kpo_long\n"
	".type kpo_long, @function\n"
	"kpo_long:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	".Lkpo_long:\n\t"
	".byte 0x05\n\t"			/* add $imm32, %eax */
	".long 0x1000\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_long, .-kpo_long\n"

	/* a static branch (a nop now) whose target is inside the region */
	".globl kpo_jlt\n"
	".type kpo_jlt, @function\n"
	"kpo_jlt:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n"
	"1:\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	".Lkpo_jlt:\n\t"
	"add $1, %eax\n"
	"2:\tadd $2, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".pushsection __jump_table, \"aw\"\n\t"
	".balign 8\n\t"
	".long 1b - .\n\t"
	".long 2b - .\n\t"
	".quad kpo_jlt_key - .\n"
	".popsection\n"
	".size kpo_jlt, .-kpo_jlt\n"

	/* as a compiler splits off an unlikely path: kpo_cold.cold */
	".globl kpo_cold\n"
	".type kpo_cold, @function\n"
	"kpo_cold:\n\t"
	ASM_ENDBR
	"mov %edi, %eax\n\t"
	"test %edi, %edi\n\t"
	"jz kpo_cold.cold\n"
	".Lkpo_cold:\n\t"
	"add $1, %eax\n"
	".Lkpo_cold_back:\n\t"
	"add $2, %eax\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_cold, .-kpo_cold\n"
	".type kpo_cold.cold, @function\n"
	"kpo_cold.cold:\n"
	".Lkpo_cold_in:\n\t"
	"add $100, %eax\n\t"
	"add $0, %ecx\n\t"
	"jmp .Lkpo_cold_back\n"
	".size kpo_cold.cold, .-kpo_cold.cold\n"

	KPO_THUNKED("kpo_retpoline", KPO_RETPOLINE_THUNK)
	KPO_THUNKED("kpo_nameless", ".Lkpo_nameless_thunk")

	/* an indirect jump that no symbol starts at, like an ITS thunk made at boot */
	".globl kpo_nameless_host\n"
	".type kpo_nameless_host, @function\n"
	"kpo_nameless_host:\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".Lkpo_nameless_thunk:\n\t"
	ANNOTATE_NOENDBR	/* opt_jump_out_classified() takes its address */
	ANNOTATE_RETPOLINE_SAFE "jmp *%rdx\n\t"
	"int3\n"
	".size kpo_nameless_host, .-kpo_nameless_host\n"

	".globl kpo_copy\n"
	".type kpo_copy, @function\n"
	"kpo_copy:\n\t"
	ASM_ENDBR
	".Lkpo_copy:\n\t"
	"mov %rdx, %rcx\n\t"
	"rep movsb\n\t"
	ANNOTATE_RETPOLINE_SAFE "ret\n"
	".size kpo_copy, .-kpo_copy\n"
	".popsection\n"

	".pushsection .rodata, \"a\"\n"
	".balign 4\n"
	".globl kpo_offsets\n"
	"kpo_offsets:\n\t"
	".long .Lkpo_plain - kpo_plain\n\t"
	".long .Lkpo_plain_2 - kpo_plain\n\t"
	".long .Lkpo_plain_3 - kpo_plain\n\t"
	".long .Lkpo_other - kpo_other\n\t"
	".long .Lkpo_edge - kpo_edge\n\t"
	".long .Lkpo_jumpin - kpo_jumpin\n\t"
	".long .Lkpo_indirect - kpo_indirect\n\t"
	".long .Lkpo_extable - kpo_extable\n\t"
	".long .Lkpo_fixup - kpo_fixup\n\t"
	".long .Lkpo_jl - kpo_jl\n\t"
	".long .Lkpo_call - kpo_call\n\t"
	".long .Lkpo_copy - kpo_copy\n\t"
	".long .Lkpo_regs - kpo_regs\n\t"
	".long .Lkpo_long - kpo_long\n\t"
	".long .Lkpo_jlt - kpo_jlt\n\t"
	".long .Lkpo_cold - kpo_cold\n\t"
	".long .Lkpo_cold_in - kpo_cold\n\t"
	".long .Lkpo_retpoline - kpo_retpoline\n\t"
	".long .Lkpo_nameless - kpo_nameless\n"
	".popsection\n");

/*
 * The jump-table functions jump into the middle of kpo_nameless_host(),
 * as code patched at boot may reach a thunk no symbol names: a shape
 * objtool does not follow, and need not, since nothing unwinds them.
 */
STACK_FRAME_NON_STANDARD(kpo_retpoline);
STACK_FRAME_NON_STANDARD(kpo_nameless);
STACK_FRAME_NON_STANDARD(kpo_nameless_host);

static void *const kpo_funcs[KPO_NR] = {
	[KPO_PLAIN] = kpo_plain,	[KPO_PLAIN_2] = kpo_plain,
	[KPO_PLAIN_3] = kpo_plain,	[KPO_OTHER] = kpo_other,
	[KPO_EDGE] = kpo_edge,		[KPO_JUMPIN] = kpo_jumpin,
	[KPO_INDIRECT] = kpo_indirect,	[KPO_EXTABLE] = kpo_extable,
	[KPO_FIXUP] = kpo_fixup,	[KPO_JL] = kpo_jl,
	[KPO_CALL] = kpo_call,		[KPO_COPY] = kpo_copy,
	[KPO_REGS] = kpo_regs,		[KPO_LONG] = kpo_long,
	[KPO_JLT] = kpo_jlt,		[KPO_COLD] = kpo_cold,
	[KPO_COLD_IN] = kpo_cold,	[KPO_RETPOLINE] = kpo_retpoline,
	[KPO_NAMELESS] = kpo_nameless,
};

static u8 *kpo_at(int point)
{
	return (u8 *)kpo_funcs[point] + kpo_offsets[point];
}

/* What the handlers saw, per probe. */
struct kpo_probe {
	struct kprobe kp;
	int hits;
	int posts;
	struct pt_regs regs;
	unsigned long stack_top;	/* the word at regs->sp, at the hit */
	unsigned long move_to;	/* if set, the pre_handler moves ip there */
	bool edit_regs;		/* if set, the pre_handler changes cx and r9 */
};

static int kpo_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpo_probe *p = container_of(kp, struct kpo_probe, kp);

	p->hits++;
	p->regs = *regs;
	p->stack_top = *(unsigned long *)regs->sp;
	if (p->edit_regs) {
		regs->cx = 0x77;
		regs->r9 = 0x99;
	}
	if (!p->move_to)
		return 0;
	regs->ip = p->move_to;
	return 1;
}

static void kpo_post(struct kprobe *kp, struct pt_regs *regs,
		     unsigned long flags)
{
	container_of(kp, struct kpo_probe, kp)->posts++;
}

static void kpo_probe_init(struct kpo_probe *p, int point, bool post)
{
	memset(p, 0, sizeof(*p));
	p->kp.addr = (kprobe_opcode_t *)kpo_at(point);
	p->kp.pre_handler = kpo_pre;
	if (post)
		p->kp.post_handler = kpo_post;
}

/* Let the optimizer finish, then check the state and the text agree. */
static void kpo_expect_state(struct kunit *test, struct kprobe *kp,
			     enum kprobe_opt_state want)
{
	enum kprobe_opt_state got;
	u8 *addr = (u8 *)kp->addr;

	wait_for_kprobe_optimizer();
	got = kprobe_opt_state_of(kp);
	KUNIT_EXPECT_EQ_MSG(test, got, want, "at %pS", addr);
	if (want == KPROBE_OPT_ACTIVE) {
		KUNIT_EXPECT_EQ(test, addr[0], JMP32_INSN_OPCODE);
		KUNIT_EXPECT_TRUE(test, is_kprobe_optinsn_slot((unsigned long)addr +
				  JMP32_INSN_SIZE +
				  get_unaligned((s32 *)(addr + 1))));
	} else {
		KUNIT_EXPECT_EQ(test, addr[0], INT3_INSN_OPCODE);
	}
}

static int kpo_suite_init(struct kunit_suite *suite)
{
	kprobe_opt_set_enabled(true);
	return 0;
}

/* A probe in the body: optimized, fires once, the text comes back. */
static void opt_optimized_fires(struct kunit *test)
{
	struct kpo_probe p;
	u8 orig[JMP32_INSN_SIZE];

	kpo_probe_init(&p, KPO_PLAIN, false);
	memcpy(orig, p.kp.addr, sizeof(orig));
	KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
	kpo_expect_state(test, &p.kp, KPROBE_OPT_ACTIVE);

	KUNIT_EXPECT_EQ(test, kpo_plain(10), 17u);
	KUNIT_EXPECT_EQ(test, p.hits, 1);
	KUNIT_EXPECT_EQ(test, p.regs.ip, (unsigned long)p.kp.addr + 1);
	KUNIT_EXPECT_EQ(test, p.regs.ax, 10ul);
	KUNIT_EXPECT_EQ(test, p.regs.di, 10ul);
	KUNIT_EXPECT_EQ(test, p.regs.cs, (u16)__KERNEL_CS);
	KUNIT_EXPECT_FALSE(test, user_mode(&p.regs));

	unregister_kprobe(&p.kp);
	KUNIT_EXPECT_EQ(test, memcmp(orig, kpo_at(KPO_PLAIN), sizeof(orig)), 0);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, p.hits, 1);
}

#ifdef CONFIG_DEBUG_LOCKDEP
/* Calls the other function from inside the hit, once: that hit is missed. */
static int kpo_nest_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpo_probe *p = container_of(kp, struct kpo_probe, kp);

	if (!p->hits++)
		kpo_other(1);
	return 0;
}
#endif

/*
 * An optimized probe hits without a trap, in the probed task's context.
 * Where lockdep's record of the softirq state trails the CPU's (inside
 * local_bh_disable()), lockdep must not be asked: neither by the walk of
 * an aggregate's probes nor by the count of a hit missed in its handler.
 * The case opens such a window by raising the softirq count behind
 * lockdep's back.
 */
static void opt_hit_while_lockdep_lags(struct kunit *test)
{
#ifdef CONFIG_DEBUG_LOCKDEP
	struct kpo_probe *p = kunit_kcalloc(test, 4, sizeof(*p), GFP_KERNEL);
	struct kprobe *kps[4];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (!debug_locks)
		kunit_skip(test, "lockdep is off already: an earlier report turned it off");
	kpo_probe_init(&p[0], KPO_PLAIN, false);
	p[0].kp.pre_handler = kpo_nest_pre;
	kpo_probe_init(&p[1], KPO_PLAIN, false);
	kpo_probe_init(&p[2], KPO_OTHER, false);
	kpo_probe_init(&p[3], KPO_OTHER, false);
	for (i = 0; i < 4; i++)
		kps[i] = &p[i].kp;
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 4), 0);
	kpo_expect_state(test, &p[0].kp, KPROBE_OPT_ACTIVE);
	kpo_expect_state(test, &p[2].kp, KPROBE_OPT_ACTIVE);

	__preempt_count_add(SOFTIRQ_DISABLE_OFFSET);
	kpo_plain(10);
	__preempt_count_sub(SOFTIRQ_DISABLE_OFFSET);

	KUNIT_EXPECT_TRUE_MSG(test, debug_locks,
			      "lockdep was asked from inside the hit");
	KUNIT_EXPECT_EQ(test, p[0].hits, 1);
	KUNIT_EXPECT_EQ(test, p[1].hits, 1);
	KUNIT_EXPECT_EQ(test, p[2].hits, 0);
	KUNIT_EXPECT_EQ(test, p[2].kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, p[3].kp.nmissed, 1UL);
	unregister_kprobes(kps, 4);
#else
	kunit_skip(test, "lockdep checks its irq state only under CONFIG_DEBUG_LOCKDEP");
#endif
}

/* pt_regs fields in the encoding's register order (sp has none here) */
static unsigned long kpo_reg_of(const struct pt_regs *regs, int n)
{
	const unsigned long r[16] = {
		regs->ax, regs->cx, regs->dx, regs->bx, 0, regs->bp, regs->si,
		regs->di, regs->r8, regs->r9, regs->r10, regs->r11, regs->r12,
		regs->r13, regs->r14, regs->r15,
	};

	return r[n];
}

/* Hit the probe on kpo_regs() once; @out gets the registers after it. */
static void kpo_regs_hit(struct kunit *test, bool optimized,
			 struct kpo_probe *p, unsigned long *out)
{
	kprobe_opt_set_enabled(optimized);
	kpo_probe_init(p, KPO_REGS, false);
	p->edit_regs = true;
	KUNIT_ASSERT_EQ(test, register_kprobe(&p->kp), 0);
	/* registered with optimization off: not even a detour */
	kpo_expect_state(test, &p->kp,
			 optimized ? KPROBE_OPT_ACTIVE : KPROBE_OPT_NONE);
	kpo_regs(out);
	unregister_kprobe(&p->kp);
	kprobe_opt_set_enabled(true);
	KUNIT_EXPECT_EQ(test, p->hits, 1);
}

/*
 * The detour saves every register into a pt_regs that looks like the one
 * the int3 trap builds, gives the handler's changes to the code after it,
 * and the region then runs on the registers as they were.
 */
static void opt_regs_like_trap(struct kunit *test)
{
	unsigned long out[16], trap_out[16];
	struct kpo_probe trap, p;
	int n;

	kpo_regs_hit(test, false, &trap, trap_out);
	kpo_regs_hit(test, true, &p, out);

	for (n = 0; n < 16; n++) {
		if (n == 4)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, kpo_reg_of(&p.regs, n), KPO_REG(n),
				    "register %d", n);
		KUNIT_EXPECT_EQ_MSG(test, kpo_reg_of(&trap.regs, n), KPO_REG(n),
				    "register %d (trap)", n);
		KUNIT_EXPECT_EQ_MSG(test, out[n], trap_out[n], "register %d", n);
	}
	/* the region's two adds, and the handler's changes */
	KUNIT_EXPECT_EQ(test, out[0], KPO_REG(0) + 3);
	KUNIT_EXPECT_EQ(test, out[1], 0x77ul);
	KUNIT_EXPECT_EQ(test, out[9], 0x99ul);

	KUNIT_EXPECT_EQ(test, p.regs.ip, (unsigned long)kpo_at(KPO_REGS) + 1);
	KUNIT_EXPECT_EQ(test, p.regs.ip, trap.regs.ip);
	KUNIT_EXPECT_EQ(test, p.regs.sp, trap.regs.sp);
	KUNIT_EXPECT_EQ(test, p.regs.cs, trap.regs.cs);
	KUNIT_EXPECT_EQ(test, p.regs.flags & X86_EFLAGS_IF,
			trap.regs.flags & X86_EFLAGS_IF);
	/* pt_regs::sp points at the saved out pointer, in both */
	KUNIT_EXPECT_EQ(test, p.stack_top, (unsigned long)out);
	KUNIT_EXPECT_EQ(test, trap.stack_top, (unsigned long)trap_out);
}

/*
 * An interrupt taken in an optimized probe's handler (which runs with the
 * probed context's interrupts on) hits a probe on its own path: that hit
 * runs its handlers, whether it is optimized too or a breakpoint that
 * steps its instruction, and the interrupted handler goes on as itself.
 * The same probe hit from the handler itself is recursion, only counted.
 */
static struct {
	struct kpo_probe outer, inner;
	struct irq_work work;
	bool recurse, irqs_on, work_ran, outer_running_after;
	int inner_in_irq;
} kpo_irq;

static void kpo_irq_work(struct irq_work *work)
{
	kpo_other(1);
	WRITE_ONCE(kpo_irq.work_ran, true);
}

static int kpo_irq_outer_pre(struct kprobe *kp, struct pt_regs *regs)
{
	/* An optimized probe runs as its aggregate: the table's entry. */
	struct kprobe *running = kprobe_running_kunit();
	int us;

	kpo_pre(kp, regs);
	if (kpo_irq.recurse) {
		kpo_other(1);
		return 0;
	}
	kpo_irq.irqs_on = !irqs_disabled();
	irq_work_queue(&kpo_irq.work);
	/* A self-IPI comes at once; without one, the next tick runs it. */
	for (us = 0; us < 200000 && !READ_ONCE(kpo_irq.work_ran); us++)
		udelay(1);
	kpo_irq.outer_running_after = running &&
				      kprobe_running_kunit() == running;
	return 0;
}

static int kpo_irq_inner_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (in_hardirq())
		kpo_irq.inner_in_irq++;
	return kpo_pre(kp, regs);
}

static void opt_hit_from_interrupt_runs(struct kunit *test)
{
	/* The inner probe optimized, then a breakpoint with a post_handler. */
	bool inner_post = test->param_value && *(bool *)test->param_value;
	struct kpo_probe *outer = &kpo_irq.outer, *inner = &kpo_irq.inner;

	memset(&kpo_irq, 0, sizeof(kpo_irq));
	kpo_irq.work = IRQ_WORK_INIT_HARD(kpo_irq_work);
	kpo_probe_init(outer, KPO_PLAIN, false);
	outer->kp.pre_handler = kpo_irq_outer_pre;
	kpo_probe_init(inner, KPO_OTHER, inner_post);
	inner->kp.pre_handler = kpo_irq_inner_pre;
	KUNIT_ASSERT_EQ(test, register_kprobe(&outer->kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&inner->kp), 0);
	kpo_expect_state(test, &outer->kp, KPROBE_OPT_ACTIVE);
	kpo_expect_state(test, &inner->kp, inner_post ? KPROBE_OPT_NONE :
			 KPROBE_OPT_ACTIVE);

	KUNIT_EXPECT_EQ(test, kpo_plain(10), 17u);
	KUNIT_ASSERT_EQ(test, outer->hits, 1);
	KUNIT_ASSERT_TRUE_MSG(test, kpo_irq.irqs_on,
			      "the optimized handler ran with interrupts off");
	KUNIT_ASSERT_TRUE_MSG(test, kpo_irq.work_ran,
			      "the irq_work did not run within 200 ms");
	KUNIT_EXPECT_EQ(test, inner->hits, 1);
	KUNIT_EXPECT_EQ(test, kpo_irq.inner_in_irq, 1);
	KUNIT_EXPECT_EQ(test, inner->posts, inner_post ? 1 : 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 0UL);
	KUNIT_EXPECT_TRUE(test, kpo_irq.outer_running_after);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0UL);

	kpo_irq.recurse = true;
	KUNIT_EXPECT_EQ(test, kpo_plain(10), 17u);
	KUNIT_EXPECT_EQ(test, outer->hits, 2);
	KUNIT_EXPECT_EQ(test, inner->hits, 1);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed_by[KPROBE_MISS_RECURSION], 1UL);

	unregister_kprobe(&inner->kp);
	unregister_kprobe(&outer->kp);
	irq_work_sync(&kpo_irq.work);
	KUNIT_EXPECT_EQ(test, kpo_other(1), 8u);
}

static const bool kpo_irq_inner_posts[] = { false, true };

static void kpo_irq_inner_desc(const bool *post, char *desc)
{
	strscpy(desc, *post ? "breakpoint with a post_handler" : "optimized",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpo_irq_inner, kpo_irq_inner_posts, kpo_irq_inner_desc);

/*
 * A jump over one whole instruction needs no grace period: it is in place
 * when register_kprobe() returns. Two instructions wait for the optimizer.
 */
static void opt_one_insn_at_once(struct kunit *test)
{
	struct kpo_probe p, q;

	kpo_probe_init(&p, KPO_LONG, false);
	kpo_probe_init(&q, KPO_PLAIN, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&q.kp), 0);
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&p.kp), KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, *(u8 *)p.kp.addr, JMP32_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&q.kp), KPROBE_OPT_QUEUED);
	KUNIT_EXPECT_EQ(test, kpo_long(1), 0x1001u);
	KUNIT_EXPECT_EQ(test, p.hits, 1);
	kpo_expect_state(test, &q.kp, KPROBE_OPT_ACTIVE);
	unregister_kprobe(&p.kp);
	unregister_kprobe(&q.kp);
	KUNIT_EXPECT_EQ(test, kpo_long(1), 0x1001u);
	KUNIT_EXPECT_EQ(test, p.hits, 1);
}

/* A pre_handler that moves ip is followed from the detour too. */
static void opt_handler_moves_ip(struct kunit *test)
{
	struct kpo_probe p;

	kpo_probe_init(&p, KPO_PLAIN, false);
	p.move_to = (unsigned long)kpo_at(KPO_PLAIN_3);
	KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
	kpo_expect_state(test, &p.kp, KPROBE_OPT_ACTIVE);
	/* add $1 and add $2 are skipped */
	KUNIT_EXPECT_EQ(test, kpo_plain(10), 14u);
	KUNIT_EXPECT_EQ(test, p.hits, 1);
	unregister_kprobe(&p.kp);
}

/* A post_handler joining takes the jump out at once; leaving, it returns. */
static void opt_post_handler_unoptimizes(struct kunit *test)
{
	struct kpo_probe a, b;

	kpo_probe_init(&a, KPO_PLAIN, false);
	kpo_probe_init(&b, KPO_PLAIN, true);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);

	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	/* no waiting: the state is checked as register_kprobe() left it */
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&a.kp), KPROBE_OPT_IDLE);
	KUNIT_EXPECT_EQ(test, *(u8 *)a.kp.addr, INT3_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 1);
	KUNIT_EXPECT_EQ(test, b.hits, 1);
	KUNIT_EXPECT_EQ(test, b.posts, 1);

	unregister_kprobe(&b.kp);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 2);
	KUNIT_EXPECT_EQ(test, b.posts, 1);
	unregister_kprobe(&a.kp);
}

/* The table entry at @addr, looked up as a reader of the table. */
static struct kprobe *kpo_table_entry(void *addr)
{
	guard(rcu)();
	return get_kprobe(addr);
}

/*
 * A probe with a post_handler, registered alone, stays a lone table entry:
 * it could never be optimized, and a wrapper would cost each hit a walk.
 * A probe joining it makes the aggregate, which is optimized once the
 * post_handler's probe leaves.
 */
static void opt_post_handler_alone_unwrapped(struct kunit *test)
{
	struct kpo_probe a, b;

	kpo_probe_init(&b, KPO_PLAIN, true);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_PTR_EQ(test, kpo_table_entry(b.kp.addr), &b.kp);
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&b.kp), KPROBE_OPT_NONE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, b.hits, 1);
	KUNIT_EXPECT_EQ(test, b.posts, 1);

	kpo_probe_init(&a, KPO_PLAIN, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	KUNIT_EXPECT_PTR_NE(test, kpo_table_entry(a.kp.addr), &b.kp);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_IDLE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 1);
	KUNIT_EXPECT_EQ(test, b.posts, 2);

	unregister_kprobe(&b.kp);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 2);
	KUNIT_EXPECT_EQ(test, b.posts, 2);
	unregister_kprobe(&a.kp);
}

/*
 * A probe on text_poke_sync() that, once armed, calls kpo_plain(1) from
 * the first sync of the task that armed it, noting the bytes at @at.
 */
struct kpo_window {
	struct kprobe kp;
	struct task_struct *task;
	u8 *at;
	u8 seen[JMP32_INSN_SIZE];
	u32 result;
	int calls;
	bool armed;
};

static struct kpo_window kpo_window;

static int kpo_window_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kpo_window *w = container_of(kp, struct kpo_window, kp);

	if (!READ_ONCE(w->armed) || current != w->task)
		return 0;
	WRITE_ONCE(w->armed, false);
	memcpy(w->seen, w->at, sizeof(w->seen));
	w->result = kpo_plain(1);
	w->calls++;
	return 0;
}

/*
 * A post_handler joining an optimized probe: the jump comes out before
 * the post_handler shows.  The first sync while it comes out finds the
 * int3 written over the jump's opcode and its displacement still behind
 * it; a hit then must run the whole region from the copy, since stepping
 * the first instruction alone would resume inside the displacement.
 */
static void opt_post_handler_joins_safely(struct kunit *test)
{
	struct kpo_window *w = &kpo_window;
	u8 jump[JMP32_INSN_SIZE];
	struct kpo_probe a, b;

	kpo_probe_init(&a, KPO_PLAIN, false);
	kpo_probe_init(&b, KPO_PLAIN, true);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);
	memcpy(jump, a.kp.addr, sizeof(jump));

	memset(w, 0, sizeof(*w));
	w->kp.symbol_name = "text_poke_sync";
	w->kp.pre_handler = kpo_window_pre;
	w->task = current;
	w->at = (u8 *)a.kp.addr;
	KUNIT_ASSERT_EQ(test, register_kprobe(&w->kp), 0);
	WRITE_ONCE(w->armed, true);
	KUNIT_EXPECT_EQ(test, register_kprobe(&b.kp), 0);
	WRITE_ONCE(w->armed, false);
	unregister_kprobe(&w->kp);

	/* the hit came with the int3 in front of the displacement */
	KUNIT_ASSERT_EQ(test, w->calls, 1);
	KUNIT_EXPECT_EQ(test, w->seen[0], INT3_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, memcmp(w->seen + 1, jump + 1,
				     JMP32_INSN_SIZE - 1), 0);
	KUNIT_EXPECT_EQ(test, w->result, 8u);

	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&a.kp), KPROBE_OPT_IDLE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 1);
	KUNIT_EXPECT_EQ(test, b.posts, 1);
	unregister_kprobe(&b.kp);
	unregister_kprobe(&a.kp);
}

/* Disabling takes jump and breakpoint out; enabling optimizes again. */
static void opt_disable_enable(struct kunit *test)
{
	struct kpo_probe p;
	u8 orig[JMP32_INSN_SIZE];

	kpo_probe_init(&p, KPO_PLAIN, false);
	memcpy(orig, p.kp.addr, sizeof(orig));
	KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
	kpo_expect_state(test, &p.kp, KPROBE_OPT_ACTIVE);

	KUNIT_ASSERT_EQ(test, disable_kprobe(&p.kp), 0);
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&p.kp), KPROBE_OPT_IDLE);
	KUNIT_EXPECT_EQ(test, memcmp(orig, p.kp.addr, sizeof(orig)), 0);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, p.hits, 0);

	KUNIT_ASSERT_EQ(test, enable_kprobe(&p.kp), 0);
	kpo_expect_state(test, &p.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, p.hits, 1);
	unregister_kprobe(&p.kp);
}

/*
 * A probe landing inside an optimized region unoptimizes it before its
 * own breakpoint goes in; when it leaves, the first is optimized again.
 * In the other order the first is never optimized while the second is
 * there. The second probe's own region (the second and third add) holds
 * no probe: it is optimized all along.
 */
static void opt_probe_in_region(struct kunit *test)
{
	struct kpo_probe a, b;

	kpo_probe_init(&a, KPO_PLAIN, false);
	kpo_probe_init(&b, KPO_PLAIN_2, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);

	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&a.kp), KPROBE_OPT_IDLE);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_IDLE);
	kpo_expect_state(test, &b.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 1);
	KUNIT_EXPECT_EQ(test, b.hits, 1);

	unregister_kprobe(&b.kp);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);
	unregister_kprobe(&a.kp);

	kpo_probe_init(&a, KPO_PLAIN, false);
	kpo_probe_init(&b, KPO_PLAIN_2, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_IDLE);
	kpo_expect_state(test, &b.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 1);
	KUNIT_EXPECT_EQ(test, b.hits, 1);
	unregister_kprobe(&b.kp);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1), 8u);
	KUNIT_EXPECT_EQ(test, a.hits, 2);
	unregister_kprobe(&a.kp);
}

/* Places the region rules refuse: the probe stays a working breakpoint. */
struct kpo_refusal {
	const char *desc;
	int point;
	u32 (*call)(void);
	u32 want;
	const char *missing;	/* why this kernel cannot have the case */
};

#define KPO_NEEDS(option) (IS_ENABLED(option) ? NULL : #option " is off")

static u32 kpo_good_word = 5;

static u32 kpo_call_edge(void) { return kpo_edge(1); }
static u32 kpo_call_jumpin(void) { return kpo_jumpin(1) + kpo_jumpin(0); }
static u32 kpo_call_indirect(void) { return kpo_indirect(1); }
static u32 kpo_call_extable(void) { return kpo_extable(&kpo_good_word); }
static u32 kpo_call_fixup(void) { return kpo_fixup(&kpo_good_word); }
static u32 kpo_call_jl(void) { return kpo_jl(1); }
static u32 kpo_call_call(void) { return kpo_call(1); }
static u32 kpo_call_jlt(void) { return kpo_jlt(1); }
static u32 kpo_call_cold(void) { return kpo_cold(1) + kpo_cold(0); }
static u32 kpo_call_retpoline(void) { return kpo_retpoline(1) + kpo_retpoline(~0u); }
static u32 kpo_call_nameless(void) { return kpo_nameless(1) + kpo_nameless(~0u); }

static const struct kpo_refusal kpo_refusals[] = {
	{ "region would leave the function", KPO_EDGE, kpo_call_edge, 7 },
	{ "a jcc lands inside the region", KPO_JUMPIN, kpo_call_jumpin, 6 },
	{ "indirect jump in the function", KPO_INDIRECT, kpo_call_indirect, 4 },
	{ "exception-table entry in the region", KPO_EXTABLE, kpo_call_extable, 5 },
	{ "exception fixup lands inside the region", KPO_FIXUP, kpo_call_fixup, 8 },
	{ "jump label site in the region", KPO_JL, kpo_call_jl, 4,
	  KPO_NEEDS(CONFIG_JUMP_LABEL) },
	{ "call in the region", KPO_CALL, kpo_call_call, 4 },
	{ "a static branch may jump into the region", KPO_JLT, kpo_call_jlt, 4,
	  KPO_NEEDS(CONFIG_JUMP_LABEL) },
	{ "the .cold part jumps into the region", KPO_COLD, kpo_call_cold, 106 },
	{ "region inside a .cold part", KPO_COLD_IN, kpo_call_cold, 106 },
	/* x + 3 for x = 1; for x = ~0, 2 more from the second add again */
	{ "a jump table through a retpoline thunk", KPO_RETPOLINE,
	  kpo_call_retpoline, 8, KPO_NEEDS(CONFIG_MITIGATION_RETPOLINE) },
	{ "a jump table through nameless code", KPO_NAMELESS,
	  kpo_call_nameless, 8 },
};

KUNIT_ARRAY_PARAM_DESC(kpo_refusal, kpo_refusals, desc);

static void opt_region_refused(struct kunit *test)
{
	const struct kpo_refusal *c = test->param_value;
	struct kpo_probe p;

	if (c->missing)
		kunit_skip(test, "%s: no such code in this kernel", c->missing);
	KUNIT_ASSERT_EQ(test, c->call(), c->want);
	kpo_probe_init(&p, c->point, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
	kpo_expect_state(test, &p.kp, KPROBE_OPT_NONE);
	KUNIT_EXPECT_EQ(test, c->call(), c->want);
	KUNIT_EXPECT_GE(test, p.hits, 1);
	unregister_kprobe(&p.kp);
}

/* The jump label site really is one: flipping the key takes its branch. */
static void opt_jump_label_site_works(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_JUMP_LABEL))
		kunit_skip(test, "CONFIG_JUMP_LABEL is off: no jump label sites");
	KUNIT_EXPECT_EQ(test, kpo_jl(1), 4u);
	static_branch_enable(&kpo_jl_key);
	KUNIT_EXPECT_EQ(test, kpo_jl(1), 102u);
	static_branch_disable(&kpo_jl_key);
	KUNIT_EXPECT_EQ(test, kpo_jl(1), 4u);

	KUNIT_EXPECT_EQ(test, kpo_jlt(1), 4u);
	static_branch_enable(&kpo_jlt_key);
	KUNIT_EXPECT_EQ(test, kpo_jlt(1), 3u);
	static_branch_disable(&kpo_jlt_key);
	KUNIT_EXPECT_EQ(test, kpo_jlt(1), 4u);
}

/*
 * A direct jump out of a function may be an indirect one in disguise: one
 * into any of the kernel's thunk arrays, or into code no symbol starts
 * at (a thunk made at boot), counts as one; one to a symbol's start (a
 * tail call, a return through the return thunk) or into the function's
 * .cold part does not.
 */
/* Does a jump from kpo_plain() to @to count as a possible indirect one? */
static bool kpo_jump_from_plain(unsigned long to)
{
	return kprobe_x86_jump_may_be_indirect((unsigned long)kpo_plain, 1, to);
}

static void opt_jump_out_classified(struct kunit *test)
{
	static const char *const arrays[] = {
		"retpoline", "call depth jump", "call depth call", "ITS",
	};
	unsigned long starts[4], rdx;
	int i, seen = 0;

	KUNIT_EXPECT_FALSE(test, kpo_jump_from_plain((unsigned long)kpo_other));
	KUNIT_EXPECT_TRUE(test, kpo_jump_from_plain((unsigned long)kpo_other + 1));
	KUNIT_EXPECT_FALSE(test,
			   kpo_jump_from_plain((unsigned long)kpo_at(KPO_COLD_IN) + 3));
	KUNIT_EXPECT_TRUE(test,
			  kpo_jump_from_plain((unsigned long)kpo_nameless_host + 1));
	kprobe_x86_thunk_arrays(starts);
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		if (!starts[i])
			continue;
		seen++;
		/* the thunk for rdx, the third, as a jump table's would be */
		rdx = starts[i] + 2 * (i == 3 ? ITS_THUNK_SIZE : RETPOLINE_THUNK_SIZE);
		KUNIT_EXPECT_TRUE_MSG(test, kpo_jump_from_plain(rdx),
				      "the %s thunks", arrays[i]);
	}
	kunit_info(test, "%d thunk arrays in this kernel", seen);
}

/*
 * debug.kprobes-optimization: off takes every jump out before it returns
 * and keeps new probes breakpoints; on optimizes them all again.
 */
static void opt_sysctl_switch(struct kunit *test)
{
	struct kpo_probe a, b;

	kpo_probe_init(&a, KPO_PLAIN, false);
	kpo_probe_init(&b, KPO_OTHER, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);

	kprobe_opt_set_enabled(false);
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&a.kp), KPROBE_OPT_IDLE);
	KUNIT_EXPECT_EQ(test, *(u8 *)a.kp.addr, INT3_INSN_OPCODE);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	kpo_expect_state(test, &b.kp, KPROBE_OPT_NONE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1) + kpo_other(1), 16u);
	KUNIT_EXPECT_EQ(test, a.hits + b.hits, 2);

	kprobe_opt_set_enabled(true);
	kpo_expect_state(test, &a.kp, KPROBE_OPT_ACTIVE);
	kpo_expect_state(test, &b.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_plain(1) + kpo_other(1), 16u);
	KUNIT_EXPECT_EQ(test, a.hits + b.hits, 4);
	unregister_kprobe(&a.kp);
	unregister_kprobe(&b.kp);
}

static int kpo_ret_hits;
static unsigned long kpo_retval;

static int kpo_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpo_ret_hits++;
	kpo_retval = regs_return_value(regs);
	return 0;
}

/* A kretprobe on a function that is no ftrace site: its entry jumps. */
static void opt_kretprobe_entry(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpo_other,
		.handler = kpo_ret_handler,
	};

	kpo_ret_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	kpo_expect_state(test, &rp.kp, KPROBE_OPT_ACTIVE);
	KUNIT_EXPECT_EQ(test, kpo_other(5), 12u);
	KUNIT_EXPECT_EQ(test, kpo_ret_hits, 1);
	KUNIT_EXPECT_EQ(test, kpo_retval, 12ul);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	unregister_kretprobe(&rp);
}

struct kpo_runner {
	void *dst, *src;
	unsigned long n;
	unsigned long rounds;
};

/*
 * Copies without ever calling into the scheduler: a task the optimizer
 * must wait for on any kernel.  Without preemption, an interrupt may
 * stop it inside the region, and RCU's tick may count that as quiescent
 * (CONFIG_PREEMPT_COUNT): the wait must not end there either.
 */
static int kpo_runner_fn(void *arg)
{
	struct kpo_runner *r = arg;

	while (!kthread_should_stop()) {
		kpo_copy(r->dst, r->src, r->n);
		r->rounds++;
	}
	return 0;
}

/* Start a runner on @r and wait for its first round; an ERR_PTR if none. */
static struct task_struct *kpo_runner_start(struct kpo_runner *r)
{
	struct task_struct *t = kthread_run(kpo_runner_fn, r, "kpo_runner");

	if (IS_ERR(t))
		return t;
	get_task_struct(t);
	while (!READ_ONCE(r->rounds))
		usleep_range(1000, 2000);
	return t;
}

static void kpo_runner_stop(struct task_struct *t)
{
	kthread_stop(t);
	put_task_struct(t);
}

/*
 * The jump goes in only once no task can be inside the region. A task
 * that keeps running kpo_copy() (and its rep movsb, inside the region)
 * without ever switching voluntarily holds the optimizer at WAITING;
 * when it is gone, the jump goes in.
 */
static void opt_waits_for_running_task(struct kunit *test)
{
	struct kpo_runner r = { .n = SZ_1M };
	struct task_struct *t;
	struct kpo_probe p;
	int i;

	/*
	 * The runner never gives the CPU up: with one CPU and no preemption
	 * this case would never run again (kunit.py's default kernel).
	 */
	if (num_online_cpus() < 2 && !preempt_model_preemptible())
		kunit_skip(test, "needs a second CPU or a preemptible kernel");

	r.dst = vzalloc(r.n);
	r.src = vmalloc(r.n);
	KUNIT_ASSERT_NOT_NULL(test, r.dst);
	KUNIT_ASSERT_NOT_NULL(test, r.src);
	memset(r.src, 0x5a, r.n);

	t = kpo_runner_start(&r);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	kpo_probe_init(&p, KPO_COPY, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
	/* The optimizer's pass starts after a delay; a busy guest stretches it. */
	for (i = 0; i < 200 && kprobe_opt_state_of(&p.kp) == KPROBE_OPT_QUEUED; i++)
		msleep(100);
	KUNIT_EXPECT_EQ(test, kprobe_opt_state_of(&p.kp), KPROBE_OPT_WAITING);
	KUNIT_EXPECT_EQ(test, *(u8 *)p.kp.addr, INT3_INSN_OPCODE);
	KUNIT_EXPECT_GT(test, p.hits, 0);

	kpo_runner_stop(t);
	kpo_expect_state(test, &p.kp, KPROBE_OPT_ACTIVE);
	memset(r.dst, 0, r.n);
	kpo_copy(r.dst, r.src, r.n);
	KUNIT_EXPECT_EQ(test, memcmp(r.dst, r.src, r.n), 0);
	unregister_kprobe(&p.kp);
	vfree(r.dst);
	vfree(r.src);
}

/*
 * A task preempted in an aggregate's detour buffer may still hand the
 * aggregate to the handler path and, on arm, step the probed instruction
 * from the aggregate's slot.  So while a task that never switches
 * voluntarily runs, the slot stays taken after unregister_kprobe()
 * returns, and it is given back once that task is gone.
 */
static void opt_slot_kept_for_preempted_tasks(struct kunit *test)
{
	struct kpo_runner r = { .n = SZ_64K };
	kprobe_opcode_t *slot = NULL;
	struct task_struct *t;
	struct kprobe *entry;
	struct kpo_probe p;
	bool kept;

	if (num_online_cpus() < 2 && !preempt_model_preemptible())
		kunit_skip(test, "needs a second CPU or a preemptible kernel");

	r.dst = vzalloc(r.n);
	r.src = vzalloc(r.n);
	KUNIT_ASSERT_NOT_NULL(test, r.dst);
	KUNIT_ASSERT_NOT_NULL(test, r.src);
	kpo_probe_init(&p, KPO_PLAIN, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
	kpo_expect_state(test, &p.kp, KPROBE_OPT_ACTIVE);
	scoped_guard(rcu) {
		entry = get_kprobe(p.kp.addr);
		if (entry)
			slot = entry->ainsn.slot;
	}
	KUNIT_EXPECT_NOT_NULL(test, slot);

	t = kpo_runner_start(&r);
	if (IS_ERR(t)) {
		unregister_kprobe(&p.kp);
		KUNIT_FAIL(test, "no runner thread");
		vfree(r.dst);
		vfree(r.src);
		return;
	}

	unregister_kprobe(&p.kp);
	kept = slot && kprobe_slot_taken_kunit(&kprobe_insn_slots, slot);
	kpo_runner_stop(t);
	kprobe_opt_reap_wait_kunit();

	KUNIT_EXPECT_TRUE_MSG(test, kept,
			      "the slot was free while a task could still be in the buffer");
	if (slot)
		KUNIT_EXPECT_FALSE(test, kprobe_slot_taken_kunit(&kprobe_insn_slots, slot));
	vfree(r.dst);
	vfree(r.src);
}

static struct kunit_case kpo_cases[] = {
	KUNIT_CASE(opt_optimized_fires),
	KUNIT_CASE(opt_regs_like_trap),
	KUNIT_CASE(opt_hit_while_lockdep_lags),
	KUNIT_CASE_PARAM(opt_hit_from_interrupt_runs, kpo_irq_inner_gen_params),
	KUNIT_CASE(opt_one_insn_at_once),
	KUNIT_CASE(opt_handler_moves_ip),
	KUNIT_CASE(opt_post_handler_unoptimizes),
	KUNIT_CASE(opt_post_handler_alone_unwrapped),
	KUNIT_CASE(opt_post_handler_joins_safely),
	KUNIT_CASE(opt_disable_enable),
	KUNIT_CASE(opt_probe_in_region),
	KUNIT_CASE_PARAM(opt_region_refused, kpo_refusal_gen_params),
	KUNIT_CASE(opt_jump_label_site_works),
	KUNIT_CASE(opt_jump_out_classified),
	KUNIT_CASE(opt_sysctl_switch),
	KUNIT_CASE(opt_kretprobe_entry),
	KUNIT_CASE_SLOW(opt_waits_for_running_task),
	KUNIT_CASE(opt_slot_kept_for_preempted_tasks),
	{}
};

static struct kunit_suite kpo_suite = {
	.name = "kprobes_x86_opt",
	.suite_init = kpo_suite_init,
	.test_cases = kpo_cases,
};

kunit_test_suites(&kpo_suite);

MODULE_DESCRIPTION("KUnit cases for x86 kprobes jump optimization");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kprobes_x86 (x86_64): the instruction classes the backend
 * emulates or fixes up, boosting, a task preempted inside a boosted copy,
 * and an int3 that is not kprobes'.  The core's suites are in
 * lib/test_kprobes_*.c, the optimizer's in kprobes_opt_kunit.c.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/objtool.h>
#include <linux/sched.h>
#include <linux/unaligned.h>
#include <linux/vmalloc.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>
#include <asm/processor-flags.h>
#include <asm/text-patching.h>

/* The core's internals that these cases look at, exported for KUnit only */
#include "../../../../kernel/kprobes_internal.h"
/* The backend's instruction actions and encodings */
#include "common.h"
#include "kprobes_x86_kunit.h"

/*
 * A global label on a probed instruction.  The tables of cases hold its
 * address as data, which objtool, on a kernel with IBT, wants to be an
 * ENDBR unless told that no indirect branch lands there.
 */
#define KPT_AT(name)	".globl " #name "\n" #name ":\n\t" ANNOTATE_NOENDBR

/* A probe that counts its handlers' calls, freed by KUnit with the case. */
struct test_probe {
	struct kprobe kp;
	int pre_hits;
	int post_hits;
};

static int kpt_count_pre(struct kprobe *kp, struct pt_regs *regs)
{
	container_of(kp, struct test_probe, kp)->pre_hits++;
	return 0;
}

static void kpt_count_post(struct kprobe *kp, struct pt_regs *regs,
			   unsigned long flags)
{
	container_of(kp, struct test_probe, kp)->post_hits++;
}

static struct test_probe *kpt_probe_at(struct kunit *test, const void *addr)
{
	struct test_probe *tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->kp.addr = (kprobe_opcode_t *)addr;
	tp->kp.pre_handler = kpt_count_pre;
	tp->kp.post_handler = kpt_count_post;
	return tp;
}

/*
 * Registered through KUnit, so that a probe a failing case leaves behind
 * is unregistered before its memory goes.
 */
KUNIT_DEFINE_ACTION_WRAPPER(kpt_unregister_action, unregister_kprobe,
			    struct kprobe *);
KUNIT_DEFINE_ACTION_WRAPPER(kpt_vfree_action, vfree, const void *);

static int kpt_reg_kprobe(struct kunit *test, struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	return ret ?: kunit_add_action_or_reset(test, kpt_unregister_action, kp);
}

static void kpt_unreg_kprobe(struct kunit *test, struct kprobe *kp)
{
	kunit_release_action(test, kpt_unregister_action, kp);
}

/*
 * One probe on each kind of instruction the backend must emulate or fix
 * up, inside a function whose result shows whether the instruction took
 * effect as if it had run in place.  The label on the probed instruction
 * gives its address.
 */
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

/*
 * A call through a table, "call *disp8(%reg)": the base refuses a probe
 * on an indirect call or jmp with a memory operand, which a kernel
 * without retpolines has wherever it calls through an ops structure.
 * The copy pushes the target read from memory; the handler calls it.
 */
static u32 (*const kpt_icall_table[2])(void) = { NULL, kpt_callee };

static __used noinline __noipa u32 kpt_insn_icall_mem(u32 x)
{
	const void *table = kpt_icall_table;
	u32 r;

	OPTIMIZER_HIDE_VAR(table);
	asm volatile(KPT_AT(kpt_at_icall_mem)
		     ANNOTATE_RETPOLINE_SAFE "call *8(%%rdx)\n"
		     : "=a" (r), "+d" (table), ASM_CALL_CONSTRAINT
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

struct insn_case {
	const char *desc;
	const u8 *at;
	u32 (*fn)(u32 x);
	u32 arg;
	u32 want;
	int hits;
};

static const struct insn_case kpt_insn_cases[] = {
	{ "jcc taken", kpt_at_jcc, kpt_insn_jcc, 0, 2, 1 },
	{ "jcc not taken", kpt_at_jcc, kpt_insn_jcc, 3, 1, 1 },
	{ "jmp rel8", kpt_at_jmp, kpt_insn_jmp, 0, 5, 1 },
	{ "loop", kpt_at_loop, kpt_insn_loop, 3, 3, 3 },
	{ "rip-relative load", kpt_at_rip, kpt_insn_rip, 1, 0x1234abceu, 1 },
	{ "call rel32", kpt_at_call, kpt_insn_call, 1, 0x78u, 1 },
	{ "cs call rel32 (retpoline thunk call)", kpt_at_cscall, kpt_insn_cscall, 11, 11, 1 },
	{ "indirect call", kpt_at_icall, kpt_insn_icall, 2, 0x79u, 1 },
	{ "indirect call through memory", kpt_at_icall_mem, kpt_insn_icall_mem, 2, 0x79u, 1 },
	{ "pushf sees IF", kpt_at_pushf, kpt_insn_pushf, 0, 1, 1 },
	{ "cli clears IF", kpt_at_cli, kpt_insn_cli, 2, 2, 1 },
	{ "sti sets IF", kpt_at_sti, kpt_insn_sti, 2, 3, 1 },
	{ "popf sets IF", kpt_at_popf, kpt_insn_popf, 2, 3, 1 },
	{ "ret", kpt_at_ret, kpt_insn_ret, 1, 7, 1 },
	{ "ret imm16", kpt_at_retimm, kpt_insn_retimm, 1, 8, 1 },
	{ "indirect jmp reg", kpt_at_ijmp, kpt_insn_ijmp, 1, 9, 1 },
	{ "indirect jmp rip-relative mem", kpt_at_ijmp_mem, kpt_insn_ijmp_mem, 1, 10, 1 },
};

KUNIT_ARRAY_PARAM_DESC(kpt_insn, kpt_insn_cases, desc);

/* An int3 someone else put there is theirs: no probe on it. */
static void reject_foreign_int3(struct kunit *test)
{
	struct test_probe *tp = kpt_probe_at(test, kpt_at_int3);

	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_foreign_int3(3), 3u);
	KUNIT_EXPECT_EQ(test, *kpt_at_int3, INT3_INSN_OPCODE);
}

static void x86_insn_in_place(struct kunit *test)
{
	const struct insn_case *ic = test->param_value;
	struct test_probe *tp;

	tp = kpt_probe_at(test, ic->at);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, ic->fn(ic->arg), ic->want);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, ic->hits);
	KUNIT_EXPECT_EQ(test, tp->post_hits, ic->hits);
	kpt_unreg_kprobe(test, &tp->kp);
	KUNIT_EXPECT_EQ(test, ic->fn(ic->arg), ic->want);
}

/*
 * Boosting (x86_64): which probed instructions get a copy that jumps back
 * by itself, and what happens to a task preempted inside that copy.
 */
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

struct boost_case {
	const char *desc;
	const u8 *at;
	u32 (*fn)(u32 x);
	u32 arg;
	u32 want;
	bool boosts;
};

static const struct boost_case kpt_boost_cases[] = {
	{ "register arithmetic", kpt_at_plain, kpt_insn_plain, 1, 4, true },
	{ "rip-relative load", kpt_at_rip, kpt_insn_rip, 1, 0x1234abceu, true },
	{ "rep movsb", kpt_at_repmovs, kpt_repmovs_small, 1, 9, true },
	{ "12 bytes: no room for the jump", kpt_at_long, kpt_insn_long, 1, 0x5a5b, false },
	{ "jcc taken: boosted as a jcc", kpt_at_jcc, kpt_insn_jcc, 0, 2, true },
	{ "jcc not taken: boosted as a jcc", kpt_at_jcc, kpt_insn_jcc, 3, 1, true },
	{ "jmp rel8: boosted as a jmp", kpt_at_jmp, kpt_insn_jmp, 0, 5, true },
	{ "call: emulated", kpt_at_call, kpt_insn_call, 1, 0x78u, false },
	{ "cs call: emulated", kpt_at_cscall, kpt_insn_cscall, 11, 11, false },
	{ "ret: emulated", kpt_at_ret, kpt_insn_ret, 1, 7, false },
	{ "pushf: emulated", kpt_at_pushf, kpt_insn_pushf, 0, 1, false },
	{ "cli: emulated", kpt_at_cli, kpt_insn_cli, 2, 2, false },
	{ "indirect call: finished by the handler", kpt_at_icall, kpt_insn_icall, 2, 0x79u, false },
	{ "indirect jmp: finished by the handler", kpt_at_ijmp, kpt_insn_ijmp, 1, 9, false },
};

KUNIT_ARRAY_PARAM_DESC(kpt_boost, kpt_boost_cases, desc);

/* Where the rel32 jump that ends at @end goes. */
static long kpt_rel32_dest(const u8 *end)
{
	return (long)end + get_unaligned((const s32 *)(end - sizeof(s32)));
}

/*
 * A relative jump's boost slot holds the same jump to the same target
 * with a 32-bit displacement, and after a jcc, a jump to the next original
 * byte for when it is not taken.  The probed jumps are the two-byte rel8
 * forms, which the assembler picks for these short distances.
 */
static void kpt_expect_branch_boost_slot(struct kunit *test, struct kprobe *kp)
{
	const u8 *slot = kp->ainsn.boost_slot;
	const u8 *addr = (const u8 *)kp->addr;
	long next = (long)addr + kp->ainsn.len;
	long target = next + (s8)addr[1];

	KUNIT_ASSERT_EQ(test, kp->ainsn.len, 2);
	if (kp->ainsn.action == KPX_JMP) {
		KUNIT_EXPECT_EQ(test, slot[0], JMP32_INSN_OPCODE);
		KUNIT_EXPECT_EQ(test, kpt_rel32_dest(slot + JMP32_INSN_SIZE), target);
		return;
	}
	KUNIT_ASSERT_EQ(test, kp->ainsn.action, KPX_JCC);
	KUNIT_EXPECT_EQ(test, slot[0], KPX_JCC32_ESCAPE);
	/* rel8 and rel32 jccs keep the condition code in the opcode's low nibble */
	KUNIT_EXPECT_EQ(test, slot[1], KPX_JCC32_OPCODE | (kp->opcode & 0xf));
	KUNIT_EXPECT_EQ(test, kpt_rel32_dest(slot + KPX_JCC32_SIZE), target);
	slot += KPX_JCC32_SIZE;
	KUNIT_EXPECT_EQ(test, slot[0], JMP32_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpt_rel32_dest(slot + JMP32_INSN_SIZE), next);
}

/*
 * The boost slot holds the copy and a jump to the next original byte, or
 * for a relative jump, the jump itself written again.
 */
static void kpt_expect_boost_slot(struct kunit *test, struct kprobe *kp)
{
	const u8 *slot = kp->ainsn.boost_slot;
	unsigned int len = kp->ainsn.len;

	KUNIT_ASSERT_NOT_NULL(test, slot);
	if (kprobe_x86_emulated(kp)) {
		kpt_expect_branch_boost_slot(test, kp);
		return;
	}
	KUNIT_EXPECT_EQ(test, slot[len], JMP32_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpt_rel32_dest(slot + len + JMP32_INSN_SIZE),
			(long)kp->addr + len);
	KUNIT_EXPECT_EQ(test, slot[0], kp->opcode);
}

/*
 * Each class boosts or not as written in kprobe_x86_boostable(), and does
 * the same as in place either way.  A pre_handler alone allows boosting;
 * a post_handler needs the trap after the copy.
 */
static void x86_boost_by_class(struct kunit *test)
{
	const struct boost_case *bc = test->param_value;
	struct test_probe *tp = kpt_probe_at(test, bc->at);

	tp->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	if (bc->boosts)
		kpt_expect_boost_slot(test, &tp->kp);
	else
		KUNIT_EXPECT_NULL(test, tp->kp.ainsn.boost_slot);
	KUNIT_EXPECT_EQ(test, bc->fn(bc->arg), bc->want);
	KUNIT_EXPECT_EQ(test, bc->fn(bc->arg), bc->want);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	kpt_unreg_kprobe(test, &tp->kp);
	KUNIT_EXPECT_EQ(test, bc->fn(bc->arg), bc->want);
}

/*
 * A post_handler joining a boosted probe is called: a hit chooses the
 * trapping copy whenever the address has a post_handler to call.
 */
static void x86_boost_post_handler_joins(struct kunit *test)
{
	struct test_probe *a = kpt_probe_at(test, kpt_at_plain);
	struct test_probe *b = kpt_probe_at(test, kpt_at_plain);

	a->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_insn_plain(1), 4u);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_insn_plain(2), 5u);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->post_hits, 1);
	kpt_unreg_kprobe(test, &b->kp);
	KUNIT_EXPECT_EQ(test, kpt_insn_plain(3), 6u);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, b->post_hits, 1);
}

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

static int kpt_boost_runner_fn(void *arg)
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

static int kpt_boost_hog_fn(void *arg)
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

static bool kpt_task_stopped_in(struct task_struct *t, const u8 *start,
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
static bool kpt_slot_handed_out(struct kprobe_insn_cache *c, const u8 *busy)
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

static const struct preempted_case kpt_preempted_cases[] = {
	{ "boost slot (optimization off)", false },
#ifdef CONFIG_OPTPROBES
	{ "detour buffer (optimization on)", true },
#endif
};

KUNIT_ARRAY_PARAM_DESC(kpt_preempted, kpt_preempted_cases, desc);

/*
 * Where a hit of @kp goes on without a second trap: its boost slot, or
 * with optimization on, the region copy in the table entry's detour.
 */
static const u8 *kpt_boost_target(struct kprobe *kp, bool optimize,
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

static void kpt_optimization_action(void *on)
{
#ifdef CONFIG_OPTPROBES
	kprobe_opt_set_enabled(on);
#endif
}

/*
 * A task preempted inside a boost slot, or inside the copy of an
 * optimized region in a detour buffer, whose probe is unregistered under
 * it: the slot or buffer is not handed out again while the task can come
 * back to it, and the task finishes the instruction correctly when it
 * does.  The hog keeps the task off its CPU while the probe goes.
 */
static void x86_boost_preempted_in_slot(struct kunit *test)
{
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
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_vfree_action, r->src), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_vfree_action, r->dst), 0);
	memset(r->src, 0xa5, BOOST_COPY_BYTES);
	init_completion(&r->done);
	kpt_optimization_action((void *)(uintptr_t)pc->optimize);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, kpt_optimization_action,
						  (void *)true), 0);

	tp = kpt_probe_at(test, kpt_at_repmovs);
	tp->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	registered = true;

	/* The runner and the hog share a CPU that this test does not use. */
	here = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)), 0);
	cpu = cpumask_any_but(cpu_online_mask, here);
	KUNIT_ASSERT_LT(test, cpu, nr_cpu_ids);
	h->task = kthread_create(kpt_boost_hog_fn, h, "kp-boost-hog");
	KUNIT_ASSERT_FALSE(test, IS_ERR(h->task));
	kthread_bind(h->task, cpu);
	wake_up_process(h->task);
	runner = kthread_create(kpt_boost_runner_fn, r, "kp-boost-runner");
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
			tp->kp.flags = 0;	/* as registration left them */
			ret = kpt_reg_kprobe(test, &tp->kp);
			registered = !ret;
			if (ret)
				break;
		}
		slot = kpt_boost_target(&tp->kp, pc->optimize, &cache);
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
		if (kpt_task_stopped_in(runner, slot, tp->kp.ainsn.len)) {
			bool handed;

			kpt_unreg_kprobe(test, &tp->kp);
			registered = false;
			handed = kpt_slot_handed_out(cache, slot);
			/* it counts only if the runner was in it all along */
			if (READ_ONCE(h->spin) &&
			    kpt_task_stopped_in(runner, slot, tp->kp.ainsn.len)) {
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
}

static struct kunit_case kprobes_x86_cases[] = {
	KUNIT_CASE_PARAM(x86_insn_in_place, kpt_insn_gen_params),
	KUNIT_CASE_PARAM(x86_boost_by_class, kpt_boost_gen_params),
	KUNIT_CASE(x86_boost_post_handler_joins),
	KUNIT_CASE_PARAM_ATTR(x86_boost_preempted_in_slot,
			      kpt_preempted_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(reject_foreign_int3),
	{}
};

static struct kunit_suite kprobes_x86_suite = {
	.name = "kprobes_x86",
	.test_cases = kprobes_x86_cases,
};

kunit_test_suites(&kprobes_x86_suite);

MODULE_DESCRIPTION("KUnit cases for the x86 kprobes backend");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

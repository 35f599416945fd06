// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases for the arm64 probe classes: the decoder on single
 * encodings, and live probes on functions written in assembly for them,
 * one case per class and instruction kind.
 *
 * Probe points inside the functions are local labels, so that kallsyms
 * still sees one function each; their offsets from kpa_text are kept in
 * kpa_off[].
 */
#include <kunit/test.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>

#include <asm/cpufeature.h>
#include <asm/insn.h>
#include <asm/neon.h>
#include <asm/simd.h>

#include "kprobes_arm64_kunit.h"
#include "decode-insn.h"
/* kprobe_ftrace_site_of_func(), exported for the KUnit suites only */
#include "../../../../kernel/kprobes_internal.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

enum {
	KPA_B, KPA_B_TGT,		/* B forward */
	KPA_BL, KPA_LEAF,		/* BL kpa_leaf */
	KPA_BCOND, KPA_BCOND_TGT,	/* B.EQ */
	KPA_CBNZ, KPA_CBNZ_TGT,		/* CBNZ w0 */
	KPA_TBNZ, KPA_TBNZ_TGT,		/* TBNZ x0, #33 */
	KPA_BR, KPA_BR_TGT,		/* BR x1 */
	KPA_BLR,			/* BLR x1 (to kpa_leaf) */
	KPA_RET,			/* RET */
	KPA_RETAA,			/* RETAA */
	KPA_PACI, KPA_AUTI,		/* PACIASP, AUTIASP */
	KPA_ADR, KPA_ADRP,		/* ADR x0, kpa_text; ADRP x0, . */
	KPA_LDR_X, KPA_LDR_W, KPA_LDRSW,
	KPA_LDR_Q, KPA_LDR_S,
	KPA_NOP, KPA_BTI, KPA_PRFM,
	KPA_ADD, KPA_LOAD, KPA_MRS,	/* stepped */
	KPA_LDXR, KPA_EXCL_MID, KPA_STXR, KPA_AFTER_EXCL,
	KPA_SVC, KPA_BRK, KPA_MSR_DAIF, KPA_MRS_DAIF, KPA_MSR_REG,
	KPA_HINT_UNK, KPA_UDF,
	KPA_SUBS, KPA_CSEL,		/* run in the handler */
	KPA_AFTER_LDAR, KPA_AFTER_CAS,	/* after one-instruction atomics */
	KPA_AFTER_STLR,			/* after LDXR, then STLR */
	KPA_NR
};

#define LIT64	0x1122334455667788ull
#define LIT32	0x89abcdefu

asm(".pushsection .text, \"ax\"\n"
	".balign 16\n"
	"kpa_text:\n"

	"kpa_b:\n\t"
	"hint #34\n"
	".Lb: b .Lb_t\n\t"
	"mov x0, #99\n"
	".Lb_t: add x0, x0, #1\n\t"
	"ret\n"
	".type kpa_b, %function\n.size kpa_b, . - kpa_b\n"

	"kpa_leaf:\n\t"
	"hint #34\n\t"
	"add x0, x0, #3\n\t"
	"ret\n"
	".type kpa_leaf, %function\n.size kpa_leaf, . - kpa_leaf\n"

	"kpa_bl:\n\t"
	"hint #34\n\t"
	"mov x9, x30\n"
	".Lbl: bl kpa_leaf\n\t"
	"mov x30, x9\n\t"
	"ret\n"
	".type kpa_bl, %function\n.size kpa_bl, . - kpa_bl\n"

	"kpa_bcond:\n\t"
	"hint #34\n\t"
	"cmp x0, #5\n"
	".Lbcond: b.eq .Lbcond_t\n\t"
	"mov x0, #0\n\t"
	"ret\n"
	".Lbcond_t: mov x0, #1\n\t"
	"ret\n"
	".type kpa_bcond, %function\n.size kpa_bcond, . - kpa_bcond\n"

	"kpa_cbnz:\n\t"
	"hint #34\n"
	".Lcbnz: cbnz w0, .Lcbnz_t\n\t"
	"mov x0, #0\n\t"
	"ret\n"
	".Lcbnz_t: mov x0, #1\n\t"
	"ret\n"
	".type kpa_cbnz, %function\n.size kpa_cbnz, . - kpa_cbnz\n"

	"kpa_tbnz:\n\t"
	"hint #34\n"
	".Ltbnz: tbnz x0, #33, .Ltbnz_t\n\t"
	"mov x0, #0\n\t"
	"ret\n"
	".Ltbnz_t: mov x0, #1\n\t"
	"ret\n"
	".type kpa_tbnz, %function\n.size kpa_tbnz, . - kpa_tbnz\n"

	"kpa_br:\n\t"
	"hint #34\n\t"
	"adr x1, .Lbr_t\n"
	".Lbr: br x1\n\t"
	"mov x0, #0\n\t"
	"ret\n"
	".Lbr_t: hint #36\n\t"
	"mov x0, #5\n\t"
	"ret\n"
	".type kpa_br, %function\n.size kpa_br, . - kpa_br\n"

	"kpa_blr:\n\t"
	"hint #34\n\t"
	"mov x9, x30\n\t"
	"adr x1, kpa_leaf\n"
	".Lblr: blr x1\n\t"
	"mov x30, x9\n\t"
	"ret\n"
	".type kpa_blr, %function\n.size kpa_blr, . - kpa_blr\n"

	"kpa_ret:\n\t"
	"hint #34\n\t"
	"mov x0, #11\n"
	".Lret: ret\n"
	".type kpa_ret, %function\n.size kpa_ret, . - kpa_ret\n"

	"kpa_retaa:\n\t"
	"hint #25\n\t"			/* PACIASP */
	"mov x0, #21\n"
	".Lretaa: .inst 0xd65f0bff\n"	/* RETAA */
	".type kpa_retaa, %function\n.size kpa_retaa, . - kpa_retaa\n"

	"kpa_pac:\n\t"
	"hint #34\n\t"
	"mov x9, x30\n\t"
	"mov x30, x0\n"
	".Lpaci: hint #25\n\t"		/* PACIASP */
	"str x30, [x1]\n"
	".Lauti: hint #29\n\t"		/* AUTIASP */
	"mov x0, x30\n\t"
	"mov x30, x9\n\t"
	"ret\n"
	".type kpa_pac, %function\n.size kpa_pac, . - kpa_pac\n"

	"kpa_adr:\n\t"
	"hint #34\n"
	".Ladr: adr x0, kpa_text\n\t"
	"ret\n"
	".type kpa_adr, %function\n.size kpa_adr, . - kpa_adr\n"

	"kpa_adrp:\n\t"
	"hint #34\n"
	".Ladrp: adrp x0, .\n\t"
	"ret\n"
	".type kpa_adrp, %function\n.size kpa_adrp, . - kpa_adrp\n"

	"kpa_ldr_x:\n\t"
	"hint #34\n"
	".Lldrx: ldr x0, .Llit64\n\t"
	"ret\n"
	".type kpa_ldr_x, %function\n.size kpa_ldr_x, . - kpa_ldr_x\n"

	"kpa_ldr_w:\n\t"
	"hint #34\n\t"
	"mov x0, #-1\n"
	".Lldrw: ldr w0, .Llit32\n\t"
	"ret\n"
	".type kpa_ldr_w, %function\n.size kpa_ldr_w, . - kpa_ldr_w\n"

	"kpa_ldrsw:\n\t"
	"hint #34\n"
	".Lldrsw: ldrsw x0, .Llit32\n\t"
	"ret\n"
	".type kpa_ldrsw, %function\n.size kpa_ldrsw, . - kpa_ldrsw\n"

	"kpa_ldr_q:\n\t"
	"hint #34\n"
	".Lldrq: ldr q0, .Llitq\n\t"
	"movi v1.16b, #0xff\n"
	".Lldrs: ldr s1, .Llit32\n\t"
	"stp q0, q1, [x0]\n\t"
	"ret\n"
	".type kpa_ldr_q, %function\n.size kpa_ldr_q, . - kpa_ldr_q\n"

	"kpa_hints:\n\t"
	"hint #34\n"
	".Lnop: nop\n"
	".Lbti: hint #36\n"
	".Lprfm: prfm pldl1keep, .Llit64\n\t"
	"ret\n"
	".type kpa_hints, %function\n.size kpa_hints, . - kpa_hints\n"

	"kpa_step:\n\t"
	"hint #34\n"
	".Lload: ldr x0, [x0]\n"
	".Ladd: add x0, x0, #5\n\t"
	"ret\n"
	".type kpa_step, %function\n.size kpa_step, . - kpa_step\n"

	"kpa_min:\n\t"
	"hint #34\n"
	".Lsubs: subs x2, x0, x1\n"
	".Lcsel: csel x0, x0, x1, lt\n\t"
	"ret\n"
	".type kpa_min, %function\n.size kpa_min, . - kpa_min\n"

	"kpa_mrs:\n\t"
	"hint #34\n"
	".Lmrs: mrs x0, sp_el0\n\t"
	"ret\n"
	".type kpa_mrs, %function\n.size kpa_mrs, . - kpa_mrs\n"

	"kpa_excl:\n\t"
	"hint #34\n"
	".Lldxr: ldxr x2, [x0]\n"
	".Lmid: add x2, x2, #1\n"
	".Lstxr: stxr w3, x2, [x0]\n"
	".Lafter: cbnz w3, .Lldxr\n\t"
	"mov x0, x2\n\t"
	"ret\n"
	".type kpa_excl, %function\n.size kpa_excl, . - kpa_excl\n"

	"kpa_rejects:\n\t"
	"hint #34\n"
	".Lsvc: svc #0\n"
	".Lbrk: brk #0x7ff\n"
	".Lmsrdaif: msr daifset, #2\n"
	".Lmrsdaif: mrs x0, daif\n"
	".Lmsrreg: msr tpidr_el1, x0\n"
	".Lhintunk: hint #0x70\n"
	".Ludf: .inst 0x00000000\n\t"
	"ret\n"
	".type kpa_rejects, %function\n.size kpa_rejects, . - kpa_rejects\n"

	"kpa_acquire:\n\t"
	"hint #34\n\t"
	"ldar x2, [x0]\n"
	".Lafter_ldar: add x2, x2, #1\n\t"
	"stlr x2, [x0]\n\t"
	"mov x0, x2\n\t"
	"ret\n"
	".type kpa_acquire, %function\n.size kpa_acquire, . - kpa_acquire\n"

	"kpa_atomics:\n\t"
	"hint #34\n\t"
	".inst 0x88e17c02\n"		/* CASA w1, w2, [x0] */
	".Lafter_cas: add x2, x2, #1\n\t"
	"ldxr w4, [x0]\n\t"		/* as a WFE wait has it: no store */
	"stlr w2, [x0]\n"
	".Lafter_stlr: add x2, x2, #1\n\t"
	"ret\n"
	".type kpa_atomics, %function\n.size kpa_atomics, . - kpa_atomics\n"

	".balign 16\n"
	".Llitq: .quad 0x0123456789abcdef, 0xfedcba9876543210\n"
	".Llit64: .quad 0x1122334455667788\n"
	".Llit32: .long 0x89abcdef\n"
	".popsection\n"

	".pushsection .rodata, \"a\"\n"
	".balign 4\n"
	"kpa_off:\n\t"
	".long .Lb - kpa_text\n"
	".long .Lb_t - kpa_text\n"
	".long .Lbl - kpa_text\n"
	".long kpa_leaf - kpa_text\n"
	".long .Lbcond - kpa_text\n"
	".long .Lbcond_t - kpa_text\n"
	".long .Lcbnz - kpa_text\n"
	".long .Lcbnz_t - kpa_text\n"
	".long .Ltbnz - kpa_text\n"
	".long .Ltbnz_t - kpa_text\n"
	".long .Lbr - kpa_text\n"
	".long .Lbr_t - kpa_text\n"
	".long .Lblr - kpa_text\n"
	".long .Lret - kpa_text\n"
	".long .Lretaa - kpa_text\n"
	".long .Lpaci - kpa_text\n"
	".long .Lauti - kpa_text\n"
	".long .Ladr - kpa_text\n"
	".long .Ladrp - kpa_text\n"
	".long .Lldrx - kpa_text\n"
	".long .Lldrw - kpa_text\n"
	".long .Lldrsw - kpa_text\n"
	".long .Lldrq - kpa_text\n"
	".long .Lldrs - kpa_text\n"
	".long .Lnop - kpa_text\n"
	".long .Lbti - kpa_text\n"
	".long .Lprfm - kpa_text\n"
	".long .Ladd - kpa_text\n"
	".long .Lload - kpa_text\n"
	".long .Lmrs - kpa_text\n"
	".long .Lldxr - kpa_text\n"
	".long .Lmid - kpa_text\n"
	".long .Lstxr - kpa_text\n"
	".long .Lafter - kpa_text\n"
	".long .Lsvc - kpa_text\n"
	".long .Lbrk - kpa_text\n"
	".long .Lmsrdaif - kpa_text\n"
	".long .Lmrsdaif - kpa_text\n"
	".long .Lmsrreg - kpa_text\n"
	".long .Lhintunk - kpa_text\n"
	".long .Ludf - kpa_text\n"
	".long .Lsubs - kpa_text\n"
	".long .Lcsel - kpa_text\n"
	".long .Lafter_ldar - kpa_text\n"
	".long .Lafter_cas - kpa_text\n"
	".long .Lafter_stlr - kpa_text\n"
	".popsection\n");

static void *kpa_addr(int site)
{
	return kpa_text + kpa_off[site];
}

static unsigned long kpa_at(int site)
{
	return (unsigned long)kpa_addr(site);
}

/* One probe at a time; what its handlers saw. */
static struct {
	struct kprobe kp;
	int pre, post;
	unsigned long pre_pc;
	u64 pre_lr;
	struct pt_regs regs;	/* at the post_handler */
} hit;

static int kpa_pre(struct kprobe *p, struct pt_regs *regs)
{
	hit.pre++;
	hit.pre_pc = instruction_pointer(regs);
	hit.pre_lr = regs->regs[30];
	return 0;
}

static void kpa_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	hit.post++;
	hit.regs = *regs;
}

static int kpa_register(int site)
{
	memset(&hit, 0, sizeof(hit));
	hit.kp.addr = kpa_addr(site);
	hit.kp.pre_handler = kpa_pre;
	hit.kp.post_handler = kpa_post;
	return register_kprobe(&hit.kp);
}

/* A probe that must be accepted, and run in @class. */
static void kpa_arm(struct kunit *test, int site, enum arm64_probe_class class)
{
	KUNIT_ASSERT_EQ(test, kpa_register(site), 0);
	if (class == ARM64_PROBE_SIMULATED) {
		KUNIT_EXPECT_NULL(test, hit.kp.ainsn.api.insn);
		KUNIT_EXPECT_NOT_NULL(test, hit.kp.ainsn.api.handler);
	} else {
		KUNIT_EXPECT_NOT_NULL(test, hit.kp.ainsn.api.insn);
		KUNIT_EXPECT_NULL(test, hit.kp.ainsn.api.handler);
	}
}

static void kpa_disarm(void)
{
	unregister_kprobe(&hit.kp);
}

/* Both handlers ran @n times, the pre_handler at the probe. */
static void kpa_expect_hits(struct kunit *test, int site, int n)
{
	KUNIT_EXPECT_EQ(test, hit.pre, n);
	KUNIT_EXPECT_EQ(test, hit.post, n);
	KUNIT_EXPECT_EQ(test, hit.pre_pc, kpa_at(site));
}

static void kpa_expect_next(struct kunit *test, int site)
{
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(site) + 4);
}

static void sim_b(struct kunit *test)
{
	kpa_arm(test, KPA_B, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_b(10), 11);
	kpa_disarm();
	kpa_expect_hits(test, KPA_B, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(KPA_B_TGT));
}

static void sim_bl(struct kunit *test)
{
	kpa_arm(test, KPA_BL, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_bl(1), 4);
	kpa_disarm();
	kpa_expect_hits(test, KPA_BL, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(KPA_LEAF));
	KUNIT_EXPECT_EQ(test, hit.regs.regs[30], kpa_at(KPA_BL) + 4);
}

static void sim_b_cond(struct kunit *test)
{
	kpa_arm(test, KPA_BCOND, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_bcond(5), 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(KPA_BCOND_TGT));
	KUNIT_EXPECT_EQ(test, kpa_bcond(4), 0);
	kpa_expect_next(test, KPA_BCOND);
	kpa_disarm();
	kpa_expect_hits(test, KPA_BCOND, 2);
}

static void sim_cbnz(struct kunit *test)
{
	kpa_arm(test, KPA_CBNZ, ARM64_PROBE_SIMULATED);
	/* w0 is zero although x0 is not */
	KUNIT_EXPECT_EQ(test, kpa_cbnz(1ull << 32), 0);
	kpa_expect_next(test, KPA_CBNZ);
	KUNIT_EXPECT_EQ(test, kpa_cbnz(3), 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(KPA_CBNZ_TGT));
	kpa_disarm();
	kpa_expect_hits(test, KPA_CBNZ, 2);
}

static void sim_tbnz(struct kunit *test)
{
	kpa_arm(test, KPA_TBNZ, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_tbnz(1ull << 33), 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(KPA_TBNZ_TGT));
	KUNIT_EXPECT_EQ(test, kpa_tbnz(1ull << 32), 0);
	kpa_expect_next(test, KPA_TBNZ);
	kpa_disarm();
	kpa_expect_hits(test, KPA_TBNZ, 2);
}

static void sim_br(struct kunit *test)
{
	kpa_arm(test, KPA_BR, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_br(0), 5);
	kpa_disarm();
	kpa_expect_hits(test, KPA_BR, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(KPA_BR_TGT));
}

static void sim_blr(struct kunit *test)
{
	kpa_arm(test, KPA_BLR, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_blr(2), 5);
	kpa_disarm();
	kpa_expect_hits(test, KPA_BLR, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, kpa_at(KPA_LEAF));
	KUNIT_EXPECT_EQ(test, hit.regs.regs[30], kpa_at(KPA_BLR) + 4);
}

static void sim_ret(struct kunit *test)
{
	kpa_arm(test, KPA_RET, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_ret(0), 11);
	kpa_disarm();
	kpa_expect_hits(test, KPA_RET, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc, hit.pre_lr);
}

static void sim_retaa(struct kunit *test)
{
	if (!system_supports_address_auth())
		kunit_skip(test,
			   "pointer authentication not in use (ARM64_PTR_AUTH off or CPU without it)");
	kpa_arm(test, KPA_RETAA, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_retaa(0), 21);
	kpa_disarm();
	kpa_expect_hits(test, KPA_RETAA, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.pc,
			ptrauth_strip_kernel_insn_pac(hit.pre_lr));
}

/* PACIASP and AUTIASP give what they give unprobed, key and all. */
static void sim_pac(struct kunit *test)
{
	u64 val = (u64)kpa_text, want, got;

	KUNIT_ASSERT_EQ(test, kpa_pac(val, &want), val);

	kpa_arm(test, KPA_PACI, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_pac(val, &got), val);
	kpa_disarm();
	kpa_expect_hits(test, KPA_PACI, 1);
	KUNIT_EXPECT_EQ(test, got, want);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[30], want);
	kpa_expect_next(test, KPA_PACI);

	kpa_arm(test, KPA_AUTI, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_pac(val, &got), val);
	kpa_disarm();
	kpa_expect_hits(test, KPA_AUTI, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[30], val);
	kpa_expect_next(test, KPA_AUTI);
}

static void sim_adr(struct kunit *test)
{
	kpa_arm(test, KPA_ADR, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_adr(), (u64)kpa_text);
	kpa_disarm();
	kpa_expect_hits(test, KPA_ADR, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[0], (u64)kpa_text);
	kpa_expect_next(test, KPA_ADR);
}

static void sim_adrp(struct kunit *test)
{
	u64 page = kpa_at(KPA_ADRP) & ~0xfffull;

	kpa_arm(test, KPA_ADRP, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_adrp(), page);
	kpa_disarm();
	kpa_expect_hits(test, KPA_ADRP, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[0], page);
	kpa_expect_next(test, KPA_ADRP);
}

static void sim_ldr_lit(struct kunit *test)
{
	static const struct {
		int site;
		u64 (*fn)(void);
		u64 want;
	} cases[] = {
		{ KPA_LDR_X, kpa_ldr_x, LIT64 },
		{ KPA_LDR_W, kpa_ldr_w, LIT32 },	/* upper half cleared */
		{ KPA_LDRSW, kpa_ldrsw, (u64)(s64)(s32)LIT32 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		kpa_arm(test, cases[i].site, ARM64_PROBE_SIMULATED);
		KUNIT_EXPECT_EQ(test, cases[i].fn(), cases[i].want);
		kpa_disarm();
		kpa_expect_hits(test, cases[i].site, 1);
		KUNIT_EXPECT_EQ(test, hit.regs.regs[0], cases[i].want);
		kpa_expect_next(test, cases[i].site);
	}
}

static void sim_ldr_lit_fp(struct kunit *test)
{
	static const int sites[] = { KPA_LDR_Q, KPA_LDR_S };
	u64 out[4];
	int i;

	if (!may_use_simd())
		kunit_skip(test, "no kernel-mode SIMD here");
	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		kpa_arm(test, sites[i], ARM64_PROBE_SIMULATED);
		memset(out, 0x5a, sizeof(out));
		kernel_neon_begin();
		kpa_ldr_q(out);
		kernel_neon_end();
		kpa_disarm();
		kpa_expect_hits(test, sites[i], 1);
		kpa_expect_next(test, sites[i]);
		KUNIT_EXPECT_EQ(test, out[0], 0x0123456789abcdefull);
		KUNIT_EXPECT_EQ(test, out[1], 0xfedcba9876543210ull);
		/* LDR S clears the rest of v1, which MOVI had set */
		KUNIT_EXPECT_EQ(test, out[2], (u64)LIT32);
		KUNIT_EXPECT_EQ(test, out[3], 0);
	}
}

static void sim_hints(struct kunit *test)
{
	static const int sites[] = { KPA_NOP, KPA_BTI, KPA_PRFM };
	int i;

	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		kpa_arm(test, sites[i], ARM64_PROBE_SIMULATED);
		KUNIT_EXPECT_EQ(test, kpa_hints(7), 7);
		kpa_disarm();
		kpa_expect_hits(test, sites[i], 1);
		kpa_expect_next(test, sites[i]);
	}
}

static void step_alu_load(struct kunit *test)
{
	u64 v = 10;

	kpa_arm(test, KPA_LOAD, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_FALSE(test, hit.kp.ainsn.in_handler);
	KUNIT_EXPECT_EQ(test, kpa_step(&v), 15);
	kpa_disarm();
	kpa_expect_hits(test, KPA_LOAD, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[0], 10);
	kpa_expect_next(test, KPA_LOAD);

	kpa_arm(test, KPA_ADD, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_EQ(test, hit.kp.ainsn.in_handler,
			!IS_ENABLED(CONFIG_ARM64_BTI_KERNEL));
	KUNIT_EXPECT_EQ(test, kpa_step(&v), 15);
	kpa_disarm();
	kpa_expect_hits(test, KPA_ADD, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[0], 15);
	kpa_expect_next(test, KPA_ADD);
}

/*
 * Register-only instructions run in the BRK handler: the flags SUBS sets
 * reach the probed context and the post_handler, and CSEL reads the
 * flags of the probed context.
 */
static void in_handler_flags(struct kunit *test)
{
	if (IS_ENABLED(CONFIG_ARM64_BTI_KERNEL))
		kunit_skip(test, "with BTI every instruction is stepped");

	kpa_arm(test, KPA_SUBS, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_TRUE(test, hit.kp.ainsn.in_handler);
	KUNIT_EXPECT_EQ(test, kpa_min(3, 9), 3);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[2], (u64)-6);
	KUNIT_EXPECT_TRUE(test, hit.regs.pstate & PSR_N_BIT);
	KUNIT_EXPECT_EQ(test, kpa_min(9, -4), (u64)-4);
	kpa_disarm();
	kpa_expect_hits(test, KPA_SUBS, 2);
	KUNIT_EXPECT_FALSE(test, hit.regs.pstate & PSR_N_BIT);
	kpa_expect_next(test, KPA_SUBS);

	kpa_arm(test, KPA_CSEL, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_TRUE(test, hit.kp.ainsn.in_handler);
	KUNIT_EXPECT_EQ(test, kpa_min(-7, 2), (u64)-7);
	KUNIT_EXPECT_EQ(test, kpa_min(7, 2), 2);
	kpa_disarm();
	kpa_expect_hits(test, KPA_CSEL, 2);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[0], 2);
	kpa_expect_next(test, KPA_CSEL);
}

struct kpa_reg_only {
	u32 insn;
	bool in_handler;
	const char *what;
};

static const struct kpa_reg_only kpa_reg_only_list[] = {
	{ 0x91001400, true, "ADD x0, x0, 5" },
	{ 0x910003e0, false, "MOV x0, sp (ADD from SP)" },
	{ 0x9100001f, false, "MOV sp, x0 (ADD to SP)" },
	{ 0xf100041f, true, "CMP x0, 1 (SUBS to XZR)" },
	{ 0xeb010002, true, "SUBS x2, x0, x1" },
	{ 0x9a81b000, true, "CSEL x0, x0, x1, lt" },
	{ 0xd2800020, true, "MOVZ x0, 1" },
	{ 0xb2400000, false, "ORR x0, x0, 1 (logical immediate)" },
	{ 0xaa0103e0, true, "MOV x0, x1 (ORR shifted register)" },
	{ 0x9b017c00, true, "MUL x0, x0, x1" },
	{ 0x9ac10800, true, "UDIV x0, x0, x1" },
	{ 0xdac01000, true, "CLZ x0, x0" },
	{ 0xd37df000, true, "LSL x0, x0, 3 (UBFM)" },
	{ 0x8b1e0000, false, "ADD x0, x0, x30" },
	{ 0xf9400000, false, "LDR x0, [x0]" },
	{ 0x1e602000, false, "FCMP d0, d0" },
	{ 0x8b2063e0, false, "ADD x0, sp, x0 (extended register)" },
};

static void kpa_reg_only_desc(const struct kpa_reg_only *r, char *desc)
{
	strscpy(desc, r->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpa_reg_only, kpa_reg_only_list, kpa_reg_only_desc);

static void register_only(struct kunit *test)
{
	const struct kpa_reg_only *r = test->param_value;

	KUNIT_EXPECT_EQ(test, arm64_insn_register_only(r->insn), r->in_handler);
}

static void step_mrs(struct kunit *test)
{
	kpa_arm(test, KPA_MRS, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_EQ(test, kpa_mrs(), (u64)current);
	kpa_disarm();
	kpa_expect_hits(test, KPA_MRS, 1);
	KUNIT_EXPECT_EQ(test, hit.regs.regs[0], (u64)current);
	kpa_expect_next(test, KPA_MRS);
}

struct kpa_reject {
	int site;
	enum arm64_probe_reason reason;
	const char *what;
};

static const struct kpa_reject kpa_rejects_list[] = {
	{ KPA_LDXR, ARM64_PROBE_EXCLUSIVE, "exclusive load" },
	{ KPA_EXCL_MID, ARM64_PROBE_EXCLUSIVE, "between exclusive load and store" },
	{ KPA_STXR, ARM64_PROBE_EXCLUSIVE, "exclusive store" },
	{ KPA_SVC, ARM64_PROBE_EXCEPTION, "exception generating" },
	{ KPA_BRK, ARM64_PROBE_EXCEPTION, "another BRK" },
	{ KPA_MSR_DAIF, ARM64_PROBE_SYSTEM, "MSR DAIFSet" },
	{ KPA_MRS_DAIF, ARM64_PROBE_SYSTEM, "MRS DAIF" },
	{ KPA_MSR_REG, ARM64_PROBE_SYSTEM, "system register write" },
	{ KPA_HINT_UNK, ARM64_PROBE_HINT, "unallocated hint" },
	{ KPA_UDF, ARM64_PROBE_UNKNOWN, "undefined" },
};

static void kpa_reject_desc(const struct kpa_reject *r, char *desc)
{
	strscpy(desc, r->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpa_reject, kpa_rejects_list, kpa_reject_desc);

static void rejected(struct kunit *test)
{
	const struct kpa_reject *r = test->param_value;
	struct arch_specific_insn asi = {};
	struct arm64_probe_verdict v;
	int ret = kpa_register(r->site);

	if (!ret)
		kpa_disarm();
	/* The base's errno for every rejection; the reason is the decoder's. */
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	v = arm_kprobe_decode_insn(kpa_addr(r->site), &asi);
	KUNIT_EXPECT_EQ(test, v.class, ARM64_PROBE_REJECTED);
	KUNIT_EXPECT_EQ(test, v.reason, r->reason);
}

/* The exclusive sequence still works with a probe right after it. */
static void after_exclusive(struct kunit *test)
{
	u64 v = 41;

	kpa_arm(test, KPA_AFTER_EXCL, ARM64_PROBE_SIMULATED);
	KUNIT_EXPECT_EQ(test, kpa_excl(&v), 42);
	kpa_disarm();
	KUNIT_EXPECT_EQ(test, v, 42);
	KUNIT_EXPECT_GE(test, hit.pre, 1);
}

/*
 * A load-acquire or a compare-and-swap is a whole atomic access in one
 * instruction, not the start of an exclusive sequence: the instruction
 * after it may carry a probe.  (The base refuses everything from either
 * up to the next store-release or exclusive store.)  A store-release
 * ends a sequence, as in the base: an exclusive load that no exclusive
 * store follows (a WFE wait) leaves the code after the STLR probeable.
 */
static void after_acquire(struct kunit *test)
{
	struct arch_specific_insn asi = {};
	struct arm64_probe_verdict v;
	u64 v41 = 41;

	kpa_arm(test, KPA_AFTER_LDAR, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_EQ(test, kpa_acquire(&v41), 42);
	kpa_disarm();
	KUNIT_EXPECT_EQ(test, v41, 42);
	kpa_expect_hits(test, KPA_AFTER_LDAR, 1);

	v = arm_kprobe_decode_insn(kpa_addr(KPA_AFTER_CAS), &asi);
	KUNIT_EXPECT_EQ(test, v.class, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_EQ(test, v.reason, ARM64_PROBE_OK);
	v = arm_kprobe_decode_insn(kpa_addr(KPA_AFTER_STLR), &asi);
	KUNIT_EXPECT_EQ(test, v.class, ARM64_PROBE_STEPPED);
	KUNIT_EXPECT_EQ(test, v.reason, ARM64_PROBE_OK);
}

struct kpa_decode {
	u32 insn;
	int where;
	struct arm64_probe_verdict want;
	const char *what;
};

#define K ARM64_PROBE_KERNEL
#define U ARM64_PROBE_USER
#define SIMD { ARM64_PROBE_SIMULATED, ARM64_PROBE_OK }
#define STEPD { ARM64_PROBE_STEPPED, ARM64_PROBE_OK }
#define REJ(r) { ARM64_PROBE_REJECTED, ARM64_PROBE_##r }

static const struct kpa_decode kpa_decode_list[] = {
	{ 0x14000000, K, SIMD, "B" },
	{ 0xd65f03c0, U, SIMD, "RET (user)" },
	{ 0x58000040, K, SIMD, "LDR literal" },
	{ 0x58000040, U, REJ(PC_RELATIVE), "LDR literal (user)" },
	{ 0x1c000040, K, SIMD, "LDR S literal" },
	{ 0xdc000000, K, REJ(UNKNOWN), "unallocated literal load" },
	{ 0xd503233f, K, SIMD, "PACIASP" },
	{ 0xd503233f, U, STEPD, "PACIASP (user)" },
	{ 0xd65f0bff, K, SIMD, "RETAA" },
	{ 0xd65f0bff, U, REJ(SYSTEM), "RETAA (user)" },
	{ 0xc85f7c20, K, REJ(EXCLUSIVE), "LDXR" },
	{ 0xc8027c20, K, REJ(EXCLUSIVE), "STXR" },
	{ 0xc8dffc20, K, STEPD, "LDAR" },
	{ 0x19000400, K, REJ(EXCLUSIVE), "memory copy" },
	{ 0xd4000001, K, REJ(EXCEPTION), "SVC" },
	{ 0xd69f03e0, K, REJ(EXCEPTION), "ERET" },
	{ 0xd50342df, K, REJ(SYSTEM), "MSR DAIFSet" },
	{ 0xd53b4220, K, REJ(SYSTEM), "MRS DAIF" },
	{ 0xd5384100, K, STEPD, "MRS SP_EL0" },
	{ 0xd518d080, K, REJ(SYSTEM), "MSR TPIDR_EL1" },
	{ 0xd503201f, K, SIMD, "NOP" },
	{ 0xd503245f, K, SIMD, "BTI c" },
	{ 0xd5032e1f, K, REJ(HINT), "HINT 0x70" },
	{ 0xd5033fdf, K, STEPD, "ISB" },
	{ 0xd5031000, U, STEPD, "WFET (user)" },
	{ 0xd5031021, K, STEPD, "WFIT" },
	{ 0xc00800ff, U, STEPD, "SME ZERO {ZA} (user)" },
	{ 0xd503477f, U, REJ(SYSTEM), "SMSTART (user)" },
	{ 0x8b010000, K, STEPD, "ADD" },
	{ 0xf9400020, K, STEPD, "LDR" },
	{ 0x10000000, U, SIMD, "ADR (user)" },
	{ 0x90000000, K, SIMD, "ADRP" },
	{ 0x00000000, K, REJ(UNKNOWN), "UDF" },
};

static void kpa_decode_desc(const struct kpa_decode *d, char *desc)
{
	strscpy(desc, d->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpa_decode, kpa_decode_list, kpa_decode_desc);

static void decoder(struct kunit *test)
{
	const struct kpa_decode *d = test->param_value;
	struct arch_probe_insn api = { };
	struct arm64_probe_verdict v;

	v = arm_probe_decode_insn(d->insn, &api, d->where);
	KUNIT_EXPECT_EQ(test, v.class, d->want.class);
	KUNIT_EXPECT_EQ(test, v.reason, d->want.reason);
	KUNIT_EXPECT_EQ(test, !!api.handler, d->want.class == ARM64_PROBE_SIMULATED);
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * Probes on ftrace sites.  This file is built with ftrace, so its C
 * functions start with MOV X9, X30 and the BL ftrace patches (the site);
 * kpa_ft_marked(), in assembly, calls kpa_ft_target() with a mark in every
 * callee-saved register and returns the x19 it has afterwards.
 */
#define KPA_FT_MARK(n)	(0x1900ull + (n))
#define KPA_NOP_WORD	0xd503201fu

noinline __noipa u64 kpa_ft_target(u64 a, u64 b, u64 c, u64 d, u64 e, u64 f,
				   u64 g, u64 h)
{
	return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

static noinline __noipa u64 kpa_ft_other(u64 a, u64 b, u64 c, u64 d, u64 e,
					 u64 f, u64 g, u64 h)
{
	return a ^ 0x5a5a;
}

asm(".pushsection .text, \"ax\"\n"
	".balign 8\n"
	".type kpa_ft_marked, %function\n"
	"kpa_ft_marked:\n\t"
	"hint #34\n\t"
	"stp x29, x30, [sp, #-96]!\n\t"
	"mov x29, sp\n\t"
	"stp x19, x20, [sp, #16]\n\t"
	"stp x21, x22, [sp, #32]\n\t"
	"stp x23, x24, [sp, #48]\n\t"
	"stp x25, x26, [sp, #64]\n\t"
	"stp x27, x28, [sp, #80]\n\t"
	"mov x19, #0x1900\n\t"
	"mov x20, #0x1901\n\t"
	"mov x21, #0x1902\n\t"
	"mov x22, #0x1903\n\t"
	"mov x23, #0x1904\n\t"
	"mov x24, #0x1905\n\t"
	"mov x25, #0x1906\n\t"
	"mov x26, #0x1907\n\t"
	"mov x27, #0x1908\n\t"
	"mov x28, #0x1909\n\t"
	"mov x1, xzr\n\t"
	"mov x2, xzr\n\t"
	"mov x3, xzr\n\t"
	"mov x4, xzr\n\t"
	"mov x5, xzr\n\t"
	"mov x6, xzr\n\t"
	"mov x7, xzr\n\t"
	"bl kpa_ft_target\n\t"
	"mov x0, x19\n\t"
	"ldp x19, x20, [sp, #16]\n\t"
	"ldp x21, x22, [sp, #32]\n\t"
	"ldp x23, x24, [sp, #48]\n\t"
	"ldp x25, x26, [sp, #64]\n\t"
	"ldp x27, x28, [sp, #80]\n\t"
	"ldp x29, x30, [sp], #96\n\t"
	"ret\n"
	".size kpa_ft_marked, . - kpa_ft_marked\n"
	".popsection\n");

static u64 kpa_ft_sink;

/* The store after the call keeps it a BL, so x30 names this function. */
static noinline __noipa u64 kpa_ft_call(void)
{
	u64 r = kpa_ft_target(1, 2, 3, 4, 5, 6, 7, 8);

	WRITE_ONCE(kpa_ft_sink, r);
	return r;
}

#define KPA_FT_SUM	(1 + 4 + 9 + 16 + 25 + 36 + 49 + 64)

enum kpa_ft_action {
	KPA_FT_WATCH,		/* record, return 0 */
	KPA_FT_MARKS,		/* check x19-x28, then change x19 */
	KPA_FT_REDIRECT,	/* go to kpa_ft_other() instead */
	KPA_FT_RETURN,		/* return 42 at once, as fail_function does */
	KPA_FT_NEST,		/* call the probed function from the handler */
};

static struct {
	struct kprobe kp;
	enum kpa_ft_action action;
	int pre, post, marks_ok;
	struct pt_regs pre_regs, post_regs;
	unsigned long post_flags;
} ft;

static int kpa_ft_pre(struct kprobe *p, struct pt_regs *regs)
{
	int i;

	ft.pre++;
	ft.pre_regs = *regs;
	switch (ft.action) {
	case KPA_FT_MARKS:
		ft.marks_ok = 1;
		for (i = 0; i < 10; i++) {
			if (regs->regs[19 + i] != KPA_FT_MARK(i))
				ft.marks_ok = 0;
		}
		regs->regs[19] = 0x7777;
		return 0;
	case KPA_FT_REDIRECT:
		instruction_pointer_set(regs, (unsigned long)kpa_ft_other);
		return 1;
	case KPA_FT_RETURN:
		regs->regs[0] = 42;
		instruction_pointer_set(regs, regs->regs[30]);
		return 1;
	case KPA_FT_NEST:
		kpa_ft_call();
		return 0;
	default:
		return 0;
	}
}

static void kpa_ft_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	ft.post++;
	ft.post_regs = *regs;
	ft.post_flags = flags;
}

/* The site in kpa_ft_target(), which a probe on its start rides. */
static unsigned long kpa_ft_site(struct kunit *test)
{
	unsigned long func = (unsigned long)kpa_ft_target;
	unsigned long site = kprobe_ftrace_site_of_func(func);

	KUNIT_ASSERT_NE_MSG(test, site, 0, "kpa_ft_target has no ftrace site");
	KUNIT_ASSERT_GT(test, site, func);
	KUNIT_ASSERT_LE(test, site - func, 2 * AARCH64_INSN_SIZE);
	return site;
}

static void kpa_ft_register(struct kunit *test, enum kpa_ft_action action,
			    bool post)
{
	memset(&ft, 0, sizeof(ft));
	ft.action = action;
	ft.kp.symbol_name = "kpa_ft_target";
	ft.kp.pre_handler = kpa_ft_pre;
	if (post)
		ft.kp.post_handler = kpa_ft_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&ft.kp), 0);
}

/* No word from the function's start to the site is a BRK. */
static void kpa_ft_expect_no_brk(struct kunit *test, unsigned long site)
{
	unsigned long a;

	for (a = (unsigned long)kpa_ft_target; a <= site; a += 4) {
		u32 insn = le32_to_cpu(*(__le32 *)a);

		KUNIT_EXPECT_FALSE(test, aarch64_insn_is_brk(insn));
	}
}

/*
 * "kpa_ft_target" by name keeps the function's start as its address (as
 * BPF's bpf_get_func_ip(), perf and the list show it), counts as the
 * entry, is armed through ftrace (the site is a BL, no BRK anywhere
 * before it), and the pre_handler sees the arguments, the return address
 * and the pc of a BRK on the function's first instruction.
 */
static void ftrace_entry_no_brk(struct kunit *test)
{
	unsigned long site = kpa_ft_site(test);
	unsigned long func = (unsigned long)kpa_ft_target;
	char name[KSYM_SYMBOL_LEN];
	u64 got;

	kpa_ft_register(test, KPA_FT_WATCH, false);
	KUNIT_EXPECT_EQ(test, (unsigned long)ft.kp.addr, func);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&ft.kp));
	KUNIT_EXPECT_TRUE(test, ft.kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_TRUE(test, aarch64_insn_is_bl(le32_to_cpu(*(__le32 *)site)));
	kpa_ft_expect_no_brk(test, site);

	got = kpa_ft_call();
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_EQ(test, got, KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.pc, func);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.regs[0], 1);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.regs[3], 4);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.regs[7], 8);
	/* the return address, in x30 as the function has it, and in x9 */
	KUNIT_EXPECT_EQ(test, ft.pre_regs.regs[30], ft.pre_regs.regs[9]);
	sprint_symbol_no_offset(name, ft.pre_regs.regs[30]);
	/* followed by " [kprobes_arm64_kunit]" when built as a module */
	KUNIT_EXPECT_TRUE_MSG(test, !strcmp(name, "kpa_ft_call") ||
			      str_has_prefix(name, "kpa_ft_call ["),
			      "x30 is in %s", name);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.sp % 16, 0);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.pstate & PSR_MODE_MASK,
			PSR_MODE_EL1h);
	/* gone: the site is a NOP again */
	KUNIT_EXPECT_TRUE(test, le32_to_cpu(*(__le32 *)site) ==
			  KPA_NOP_WORD);
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
}

/* x19-x28 are the caller's at the site, and a change to one sticks. */
static void ftrace_callee_saved(struct kunit *test)
{
	u64 x19;

	kpa_ft_site(test);
	kpa_ft_register(test, KPA_FT_MARKS, false);
	x19 = kpa_ft_marked(5);
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	KUNIT_EXPECT_EQ(test, ft.marks_ok, 1);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.regs[0], 5);
	KUNIT_EXPECT_EQ(test, x19, 0x7777);
	KUNIT_EXPECT_EQ(test, kpa_ft_marked(5), KPA_FT_MARK(0));
}

/* A pre_handler that moves the pc and returns 1 sends the call there. */
static void ftrace_redirect(struct kunit *test)
{
	u64 got;

	kpa_ft_site(test);
	kpa_ft_register(test, KPA_FT_REDIRECT, true);
	got = kpa_ft_call();
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_EQ(test, got, 1 ^ 0x5a5a);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	KUNIT_EXPECT_EQ(test, ft.post, 0);
}

/* pc = lr and x0 = the value: the function returns it, not run at all. */
static void ftrace_override_return(struct kunit *test)
{
	u64 got;

	kpa_ft_site(test);
	kpa_ft_register(test, KPA_FT_RETURN, false);
	got = kpa_ft_call();
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_EQ(test, got, 42);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
}

/* The post_handler runs after the site, as after a stepped NOP. */
static void ftrace_post_handler(struct kunit *test)
{
	unsigned long site = kpa_ft_site(test);
	u64 got;

	kpa_ft_register(test, KPA_FT_WATCH, true);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&ft.kp));
	got = kpa_ft_call();
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_EQ(test, got, KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	KUNIT_EXPECT_EQ(test, ft.post, 1);
	KUNIT_EXPECT_EQ(test, ft.post_flags, 0);
	KUNIT_EXPECT_EQ(test, ft.post_regs.pc, site + AARCH64_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, ft.post_regs.regs[0], 1);
}

/* The probed function called from its own handler: missed, not run. */
static void ftrace_nested_missed(struct kunit *test)
{
	u64 got;

	kpa_ft_site(test);
	kpa_ft_register(test, KPA_FT_NEST, false);
	got = kpa_ft_call();
	KUNIT_EXPECT_EQ(test, ft.kp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, ft.kp.nmissed_by[KPROBE_MISS_RECURSION], 1);
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_EQ(test, got, KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
}

static struct {
	int entries, returns;
	u64 arg, retval;
} ftr;

static int kpa_ft_rp_entry(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	ftr.entries++;
	ftr.arg = regs->regs[1];
	return 0;
}

static int kpa_ft_rp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	ftr.returns++;
	ftr.retval = regs_return_value(regs);
	return 0;
}

/* A kretprobe's entry rides the site too; the return is seen once. */
static void ftrace_kretprobe(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpa_ft_target",
		.entry_handler = kpa_ft_rp_entry,
		.handler = kpa_ft_rp_ret,
	};
	unsigned long site = kpa_ft_site(test);
	u64 got;

	if (!IS_ENABLED(CONFIG_KRETPROBES))
		kunit_skip(test, "CONFIG_KRETPROBES is off");
	memset(&ftr, 0, sizeof(ftr));
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)rp.kp.addr,
			(unsigned long)kpa_ft_target);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&rp.kp));
	kpa_ft_expect_no_brk(test, site);
	got = kpa_ft_call();
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, got, KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ftr.entries, 1);
	KUNIT_EXPECT_EQ(test, ftr.returns, 1);
	KUNIT_EXPECT_EQ(test, ftr.arg, 2);
	KUNIT_EXPECT_EQ(test, ftr.retval, KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

/* Calls through kpa_other_direct, which counts them. */
static u64 kpa_other_calls __used;

/*
 * A direct-call trampoline of someone else's that only counts: entered
 * with x9 the function's return address and x30 the instruction after
 * the site, it goes back there with x30 restored.  x10-x12 are free at a
 * function's entry, as ftrace's own trampolines take them.
 */
asm(".pushsection .text, \"ax\"\n"
	".type kpa_other_direct, %function\n"
	"kpa_other_direct:\n\t"
	"hint #34\n\t"		/* BTI C */
	"adrp x11, kpa_other_calls\n\t"
	"ldr x12, [x11, :lo12:kpa_other_calls]\n\t"
	"add x12, x12, #1\n\t"
	"str x12, [x11, :lo12:kpa_other_calls]\n\t"
	"mov x10, x30\n\t"
	"mov x30, x9\n\t"
	"ret x10\n"
	".size kpa_other_direct, . - kpa_other_direct\n"
	".popsection\n");

static unsigned long kpa_other_direct_addr(void)
{
	unsigned long addr;

	asm("adr %0, kpa_other_direct" : "=r" (addr));
	return addr;
}

static struct ftrace_ops kpa_other_ops;

static int kpa_other_take(unsigned long site)
{
	int ret;

	memset(&kpa_other_ops, 0, sizeof(kpa_other_ops));
	ret = ftrace_set_filter_ip(&kpa_other_ops, site, 0, 0);
	if (ret)
		return ret;
	ret = register_ftrace_direct(&kpa_other_ops, kpa_other_direct_addr());
	if (ret)
		ftrace_free_filter(&kpa_other_ops);
	return ret;
}

static void kpa_other_leave(struct kunit *test)
{
	unsigned long tramp = kpa_other_direct_addr();

	KUNIT_EXPECT_EQ(test,
			unregister_ftrace_direct(&kpa_other_ops, tramp, true),
			0);
}

/* The probe's own instruction holds a BRK (a trap), or what it held. */
static bool kpa_ft_first_is_brk(void)
{
	return aarch64_insn_is_brk(le32_to_cpu(*(__le32 *)kpa_ft_target));
}

/*
 * ftrace goes on to one direct trampoline at most.  A probe on a site
 * that another's has, alone or in a batch, becomes a breakpoint on its
 * own instruction; one that was there first moves to one when the other
 * arrives (the hit that finds out is counted missed).  Both fire, the
 * other trampoline and the probe, in either order, and the breakpoint
 * goes when the probe does.
 */
static void ftrace_direct_shared(struct kunit *test)
{
	struct kprobe other = {
		.symbol_name = "kpa_ft_other",
		.pre_handler = kpa_ft_pre,
	};
	struct kprobe *kps[] = { &other, &ft.kp };
	unsigned long site = kpa_ft_site(test);

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS))
		kunit_skip(test, "no ftrace direct calls");

	/* The probe first: it moves to a breakpoint once it finds out. */
	WRITE_ONCE(kpa_other_calls, 0);
	kpa_ft_register(test, KPA_FT_WATCH, false);
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	KUNIT_ASSERT_EQ(test, kpa_other_take(site), 0);
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	kprobe_ftrace_trap_flush();
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace_trapped(&ft.kp));
	KUNIT_EXPECT_TRUE(test, kpa_ft_first_is_brk());
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 2);
	KUNIT_EXPECT_EQ(test, ft.kp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, ft.kp.nmissed_by[KPROBE_MISS_SITE_TAKEN], 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpa_other_calls), 2);
	/* the probe's address is still the function's start */
	KUNIT_EXPECT_EQ(test, ft.pre_regs.pc, (unsigned long)kpa_ft_target);
	KUNIT_EXPECT_EQ(test, ft.pre_regs.regs[1], 2);
	kpa_other_leave(test);
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 3);
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_FALSE(test, kpa_ft_first_is_brk());
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 3);

	/* The other first: the probe is a breakpoint at once. */
	WRITE_ONCE(kpa_other_calls, 0);
	KUNIT_ASSERT_EQ(test, kpa_other_take(site), 0);
	kpa_ft_register(test, KPA_FT_WATCH, true);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace_trapped(&ft.kp));
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	KUNIT_EXPECT_EQ(test, ft.post, 1);
	KUNIT_EXPECT_EQ(test, ft.kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpa_other_calls), 1);
	unregister_kprobe(&ft.kp);
	KUNIT_EXPECT_FALSE(test, kpa_ft_first_is_brk());

	/* In a batch: the free site is ridden, the taken one trapped. */
	memset(&ft, 0, sizeof(ft));
	ft.kp.symbol_name = "kpa_ft_target";
	ft.kp.pre_handler = kpa_ft_pre;
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace_trapped(&ft.kp));
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace_trapped(&other));
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&other));
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	KUNIT_EXPECT_EQ(test, READ_ONCE(kpa_other_calls), 2);
	KUNIT_EXPECT_FALSE(test, kpa_ft_first_is_brk());
	kpa_other_leave(test);
}

/*
 * With call ops, the two words before a function hold the ops that ftrace
 * calls for it, and ftrace_caller loads them on every call through the
 * site.  A probe there would be a BRK in the middle of that pointer: both
 * words are refused, and the pointer stays whole while the function's
 * entry probe rides the site.
 */
static void ftrace_ops_literal(struct kunit *test)
{
	unsigned long func = (unsigned long)kpa_ft_target;
	u64 *literal = (u64 *)(func - 2 * AARCH64_INSN_SIZE);
	u64 ops, now;
	int i, ret;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS))
		kunit_skip(test, "no call ops: nothing is kept before a function");

	kpa_ft_site(test);
	kpa_ft_register(test, KPA_FT_WATCH, false);
	ops = READ_ONCE(*literal);
	for (i = 1; i <= 2; i++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)(func - i * AARCH64_INSN_SIZE),
			.pre_handler = kpa_ft_pre,
		};

		ret = register_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL,
				    "a probe %d words before the function", i);
		/* What a BRK there does to the pointer, before the call. */
		now = READ_ONCE(*literal);
		KUNIT_EXPECT_EQ_MSG(test, now, ops, "ops %llx became %llx",
				    ops, now);
		if (!ret)
			unregister_kprobe(&kp);
	}
	KUNIT_EXPECT_EQ(test, kpa_ft_call(), KPA_FT_SUM);
	KUNIT_EXPECT_EQ(test, ft.pre, 1);
	unregister_kprobe(&ft.kp);
}
#endif /* CONFIG_KPROBES_ON_FTRACE */

static struct kunit_case kpa_cases[] = {
#ifdef CONFIG_KPROBES_ON_FTRACE
	KUNIT_CASE(ftrace_entry_no_brk),
	KUNIT_CASE(ftrace_callee_saved),
	KUNIT_CASE(ftrace_redirect),
	KUNIT_CASE(ftrace_override_return),
	KUNIT_CASE(ftrace_post_handler),
	KUNIT_CASE(ftrace_nested_missed),
	KUNIT_CASE(ftrace_kretprobe),
	KUNIT_CASE(ftrace_direct_shared),
	KUNIT_CASE(ftrace_ops_literal),
#endif
	KUNIT_CASE_PARAM(decoder, kpa_decode_gen_params),
	KUNIT_CASE_PARAM(rejected, kpa_reject_gen_params),
	KUNIT_CASE(after_exclusive),
	KUNIT_CASE(after_acquire),
	KUNIT_CASE(sim_b),
	KUNIT_CASE(sim_bl),
	KUNIT_CASE(sim_b_cond),
	KUNIT_CASE(sim_cbnz),
	KUNIT_CASE(sim_tbnz),
	KUNIT_CASE(sim_br),
	KUNIT_CASE(sim_blr),
	KUNIT_CASE(sim_ret),
	KUNIT_CASE(sim_retaa),
	KUNIT_CASE(sim_pac),
	KUNIT_CASE(sim_adr),
	KUNIT_CASE(sim_adrp),
	KUNIT_CASE(sim_ldr_lit),
	KUNIT_CASE(sim_ldr_lit_fp),
	KUNIT_CASE(sim_hints),
	KUNIT_CASE(step_alu_load),
	KUNIT_CASE(in_handler_flags),
	KUNIT_CASE_PARAM(register_only, kpa_reg_only_gen_params),
	KUNIT_CASE(step_mrs),
	{}
};

static struct kunit_suite kpa_suite = {
	.name = "kprobes_arm64",
	.test_cases = kpa_cases,
};

kunit_test_suite(kpa_suite);

MODULE_DESCRIPTION("KUnit cases for the arm64 kprobe instruction classes");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arm64 probe decoder, shared by kprobes and uprobes.
 *
 * Every A64 encoding falls in one of three classes:
 *
 *  - rejected: a probe there would break the code or could not be
 *    handled: exclusive sequences, exception generation, state the BRK
 *    and the step themselves change, and whatever is not known here;
 *  - simulated: the instruction reads or writes the pc, so it cannot run
 *    from a slot, and the BRK handler applies it to pt_regs instead
 *    (branches, ADR/ADRP, literal loads, harmless hints);
 *  - stepped: everything else runs unchanged from an out-of-line slot.
 *
 * The rules are a table, read top down, first match wins; the few
 * classes that an encoding alone does not settle have a helper.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <kunit/visibility.h>

#include <asm/insn.h>
#include <asm/sysreg.h>

#include "decode-insn.h"
#include "simulate-insn.h"

/* How a rule's verdict is refined by a helper, or changes for user space. */
enum rule_kind {
	RULE_PLAIN,		/* the class and handler as written */
	RULE_PAC_BRANCH,	/* simulated in the kernel, system for users */
	RULE_EXCL,		/* exclusive pair or CAS: see kpa_excl_verdict() */
	RULE_HINT,		/* see kpa_hint_verdict() */
	RULE_SYSREG,		/* MRS/MSR: see kpa_sysreg_verdict() */
	RULE_LITERAL,		/* literal loads: see kpa_literal_verdict() */
};

/*
 * A rule names its encoding by a predicate of asm/insn.h (or a union of
 * them, below) wherever the header has one with exactly the rule's mask
 * and value, so that the numbers are written in one place only; @match is
 * NULL for the groups the header has no name for, matched by @mask and
 * @value instead.
 */
struct kpa_rule {
	bool (*match)(u32 insn);
	u32 mask;
	u32 value;
	u8 kind;
	u8 class;
	u8 reason;
	probes_handler_t *handler;
};

#define SIM(is, h)		{ is, 0, 0, RULE_PLAIN, ARM64_PROBE_SIMULATED, 0, h }
#define REJECT(is, r)		{ is, 0, 0, RULE_PLAIN, ARM64_PROBE_REJECTED, r, NULL }
#define HELPER(is, k)		{ is, 0, 0, k, ARM64_PROBE_REJECTED, ARM64_PROBE_UNKNOWN, NULL }
#define PAC_BRANCH(is)		{ is, 0, 0, RULE_PAC_BRANCH, ARM64_PROBE_SIMULATED, 0, \
				  arm64_sim_br_auth }

#define STEP_RAW(m, v)		{ NULL, m, v, RULE_PLAIN, ARM64_PROBE_STEPPED, 0, NULL }
#define REJECT_RAW(m, v, r)	{ NULL, m, v, RULE_PLAIN, ARM64_PROBE_REJECTED, r, NULL }
#define HELPER_RAW(m, v, k)	{ NULL, m, v, k, ARM64_PROBE_REJECTED, ARM64_PROBE_UNKNOWN, NULL }
#define PAC_BRANCH_RAW(m, v)	{ NULL, m, v, RULE_PAC_BRANCH, ARM64_PROBE_SIMULATED, 0, \
				  arm64_sim_br_auth }

/* asm/insn.h names these one by one; each rule below takes both alike. */
static bool kpa_is_cbz_cbnz(u32 insn)
{
	return aarch64_insn_is_cbz(insn) || aarch64_insn_is_cbnz(insn);
}

static bool kpa_is_tbz_tbnz(u32 insn)
{
	return aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn);
}

static bool kpa_is_mrs_msr_reg(u32 insn)
{
	return aarch64_insn_is_mrs(insn) || aarch64_insn_is_msr_reg(insn);
}

/* The whole group: exclusives, but also ordered accesses (LDAR, STLR) and CAS. */
static bool kpa_is_excl_group(u32 insn)
{
	return aarch64_insn_is_load_ex(insn) || aarch64_insn_is_store_ex(insn);
}

static const struct kpa_rule kpa_rules[] = {
	/* Branches, exception generation, system instructions */
	SIM(aarch64_insn_is_b, arm64_sim_b),
	SIM(aarch64_insn_is_bl, arm64_sim_bl),
	SIM(aarch64_insn_is_bcond, arm64_sim_b_cond),		/* B.cond, BC.cond */
	SIM(kpa_is_cbz_cbnz, arm64_sim_cbz),
	SIM(kpa_is_tbz_tbnz, arm64_sim_tbz),
	SIM(aarch64_insn_is_br, arm64_sim_br),
	SIM(aarch64_insn_is_blr, arm64_sim_br),
	SIM(aarch64_insn_is_ret, arm64_sim_br),
	PAC_BRANCH(aarch64_insn_is_ret_auth),			/* RETAA, RETAB */
	/*
	 * The header's br_auth and blr_auth would also take the zero-modifier
	 * forms with an Rm other than 31, which are unallocated.
	 */
	PAC_BRANCH_RAW(0xffdff81f, 0xd61f081f),			/* BRAAZ, BRABZ, BLRAAZ, BLRABZ */
	PAC_BRANCH_RAW(0xffdff800, 0xd71f0800),			/* BRAA, BRAB, BLRAA, BLRAB */
	REJECT_RAW(0xfe000000, 0xd6000000, ARM64_PROBE_EXCEPTION),	/* ERET*, DRPS, others */
	REJECT(aarch64_insn_is_exception, ARM64_PROBE_EXCEPTION),	/* SVC, HVC, BRK, ... */
	HELPER(aarch64_insn_is_hint, RULE_HINT),
	/* The header names single barriers only, not the whole group stepped here. */
	STEP_RAW(0xfffff01f, 0xd503301f),			/* CLREX, DSB, DMB, ISB, SB */
	STEP_RAW(0xffffffc0, 0xd5031000),			/* WFET, WFIT */
	REJECT(aarch64_insn_is_msr_imm, ARM64_PROBE_SYSTEM),	/* writes PSTATE fields */
	STEP_RAW(0xffd80000, 0xd5080000),			/* SYS, SYSL: DC, IC, TLBI, AT */
	HELPER(kpa_is_mrs_msr_reg, RULE_SYSREG),

	/* Data processing, immediate */
	SIM(aarch64_insn_is_adr, arm64_sim_adr),
	SIM(aarch64_insn_is_adrp, arm64_sim_adr),
	STEP_RAW(0x1c000000, 0x10000000),			/* ADD, MOVZ, BFM, ... */

	/* Loads and stores */
	/* The header names the general-register forms only, not LDR (literal, SIMD&FP). */
	HELPER_RAW(0x3b000000, 0x18000000, RULE_LITERAL),	/* LDR (literal) and kin */
	HELPER(kpa_is_excl_group, RULE_EXCL),
	REJECT(aarch64_insn_is_mops, ARM64_PROBE_EXCLUSIVE),	/* CPY*, SET* (a triple) */
	STEP_RAW(0x0a000000, 0x08000000),			/* every other load/store */

	/* Data processing, register and SIMD/FP; SVE; SME */
	STEP_RAW(0x9e000000, 0x80000000),			/* SME */
	STEP_RAW(0x0e000000, 0x0a000000),			/* data processing, register */
	STEP_RAW(0x0e000000, 0x0e000000),			/* SIMD and floating point */
	STEP_RAW(0x1e000000, 0x04000000),			/* SVE */
};

static struct arm64_probe_verdict kpa_verdict(enum arm64_probe_class class,
					      enum arm64_probe_reason reason)
{
	return (struct arm64_probe_verdict){ .class = class, .reason = reason };
}

#define REJECTED(r)	kpa_verdict(ARM64_PROBE_REJECTED, r)
#define STEPPED()	kpa_verdict(ARM64_PROBE_STEPPED, ARM64_PROBE_OK)
#define SIMULATED()	kpa_verdict(ARM64_PROBE_SIMULATED, ARM64_PROBE_OK)

/*
 * Bits 23 (o2), 21 (o1) and 31 tell the exclusives (LDXR, STXR, LDAXP,
 * ...) from the ordered accesses (LDAR, STLR) and compare-and-swap
 * (CAS, CASP) that share the group.  An exclusive store must follow its
 * load without an exception in between, or it fails forever.
 */
static struct arm64_probe_verdict kpa_excl_verdict(u32 insn)
{
	bool o2 = insn & BIT(23), o1 = insn & BIT(21), wide = insn & BIT(31);

	if (!o2 && (!o1 || wide))
		return REJECTED(ARM64_PROBE_EXCLUSIVE);
	return STEPPED();
}

/* The HINT number, CRm:op2, in place: what AARCH64_INSN_HINT_* hold. */
#define KPA_HINT_FIELD	GENMASK(11, 5)

static struct arm64_probe_verdict kpa_hint_verdict(u32 insn,
						   struct arch_probe_insn *api,
						   int where)
{
	switch (insn & KPA_HINT_FIELD) {
	case AARCH64_INSN_HINT_NOP:
	case AARCH64_INSN_HINT_YIELD:
	case AARCH64_INSN_HINT_BTI:
	case AARCH64_INSN_HINT_BTIC:
	case AARCH64_INSN_HINT_BTIJ:
	case AARCH64_INSN_HINT_BTIJC:
		api->handler = arm64_sim_nop;
		return SIMULATED();
	case AARCH64_INSN_HINT_PACIAZ ... AARCH64_INSN_HINT_AUTIBSP:
		/* x30 signed or authenticated with key A or B */
		if (where == ARM64_PROBE_USER)
			return STEPPED();	/* the user's keys are not loaded */
		api->handler = arm64_sim_pac_hint;
		return SIMULATED();
	case AARCH64_INSN_HINT_WFE:
	case AARCH64_INSN_HINT_WFI:
	case AARCH64_INSN_HINT_SEV:
	case AARCH64_INSN_HINT_SEVL:
	case AARCH64_INSN_HINT_XPACLRI:
	case AARCH64_INSN_HINT_PACIA_1716:
	case AARCH64_INSN_HINT_PACIB_1716:
	case AARCH64_INSN_HINT_AUTIA_1716:
	case AARCH64_INSN_HINT_AUTIB_1716:
	case AARCH64_INSN_HINT_ESB:
	case AARCH64_INSN_HINT_PSB:
	case AARCH64_INSN_HINT_TSB:
	case AARCH64_INSN_HINT_CSDB:
	case AARCH64_INSN_HINT_CLEARBHB:
		return STEPPED();
	default:
		/* Future hints may read the pc or change PSTATE. */
		return REJECTED(ARM64_PROBE_HINT);
	}
}

/*
 * System registers a stepped MRS would read wrong: the BRK exception
 * overwrites the exception registers, and the step runs with DAIF and
 * the debug state of the handler, not of the probed code.
 */
static const u32 kpa_sysreg_clobbered[] = {
	SYS_ELR_EL1, SYS_SPSR_EL1, SYS_ESR_EL1, SYS_FAR_EL1,
	SYS_MDSCR_EL1, sys_reg(3, 3, 4, 2, 1) /* DAIF */,
};

static struct arm64_probe_verdict kpa_sysreg_verdict(u32 insn)
{
	u32 reg = insn & GENMASK(20, 5);
	int i;

	/* Writes: the step's exception return would undo or trip on them. */
	if (aarch64_insn_is_msr_reg(insn))
		return REJECTED(ARM64_PROBE_SYSTEM);
	for (i = 0; i < ARRAY_SIZE(kpa_sysreg_clobbered); i++)
		if (reg == kpa_sysreg_clobbered[i])
			return REJECTED(ARM64_PROBE_SYSTEM);
	return STEPPED();
}

/*
 * opc (bits 31:30) and V (bit 26): LDR Wt, LDR Xt, LDRSW, PRFM; LDR St,
 * Dt, Qt.  The simulation reads kernel memory, so user space gets none.
 */
static struct arm64_probe_verdict kpa_literal_verdict(u32 insn,
						      struct arch_probe_insn *api,
						      int where)
{
	unsigned int opc = insn >> 30;
	bool fp = insn & BIT(26);

	if (fp && opc == 3)
		return REJECTED(ARM64_PROBE_UNKNOWN);
	if (where == ARM64_PROBE_USER)
		return REJECTED(ARM64_PROBE_PC_RELATIVE);
	if (fp)
		api->handler = arm64_sim_ldr_lit_fp;
	else if (aarch64_insn_is_prfm_lit(insn))
		api->handler = arm64_sim_nop;	/* a prefetch changes nothing */
	else
		api->handler = arm64_sim_ldr_lit;
	return SIMULATED();
}

static bool kpa_rule_matches(const struct kpa_rule *r, u32 insn)
{
	if (r->match)
		return r->match(insn);
	return (insn & r->mask) == r->value;
}

/**
 * arm_probe_decode_insn() - classify one instruction for a probe
 * @insn: the instruction
 * @api: filled in with the simulation routine, if any
 * @where: ARM64_PROBE_KERNEL or ARM64_PROBE_USER
 *
 * Looks at the instruction alone; kprobes add the check of its
 * surroundings (arm_kprobe_decode_insn()).
 *
 * Return: the class, and for a rejected instruction the reason.
 */
struct arm64_probe_verdict arm_probe_decode_insn(probe_opcode_t insn,
						 struct arch_probe_insn *api,
						 int where)
{
	const struct kpa_rule *r;

	api->handler = NULL;
	for (r = kpa_rules; r < kpa_rules + ARRAY_SIZE(kpa_rules); r++) {
		if (!kpa_rule_matches(r, insn))
			continue;
		switch (r->kind) {
		case RULE_EXCL:
			return kpa_excl_verdict(insn);
		case RULE_HINT:
			return kpa_hint_verdict(insn, api, where);
		case RULE_SYSREG:
			return kpa_sysreg_verdict(insn);
		case RULE_LITERAL:
			return kpa_literal_verdict(insn, api, where);
		case RULE_PAC_BRANCH:
			if (where == ARM64_PROBE_USER)
				return REJECTED(ARM64_PROBE_SYSTEM);
			break;
		}
		api->handler = r->handler;
		return kpa_verdict(r->class, r->reason);
	}
	return REJECTED(ARM64_PROBE_UNKNOWN);
}
EXPORT_SYMBOL_IF_KUNIT(arm_probe_decode_insn);

/**
 * arm64_probe_reason_str() - a rejection reason, for the kernel log
 * @reason: the decoder's reason
 *
 * Return: a short English phrase.
 */
const char *arm64_probe_reason_str(enum arm64_probe_reason reason)
{
	switch (reason) {
	case ARM64_PROBE_OK:
		return "accepted";
	case ARM64_PROBE_EXCLUSIVE:
		return "inside an exclusive load/store or memory copy sequence";
	case ARM64_PROBE_PC_RELATIVE:
		return "reads the pc and is not simulated";
	case ARM64_PROBE_EXCEPTION:
		return "generates or returns from an exception";
	case ARM64_PROBE_SYSTEM:
		return "touches processor state the breakpoint changes";
	case ARM64_PROBE_HINT:
		return "a hint not known to be safe";
	case ARM64_PROBE_FTRACE_OPS:
		return "is the ftrace ops pointer of the next function";
	case ARM64_PROBE_UNKNOWN:
	default:
		return "an instruction the decoder does not know";
	}
}

/**
 * arm64_probe_reason_errno() - the error a rejection returns
 * @reason: the decoder's reason
 *
 * Every rejection is -EINVAL, as it always was on arm64: tools and users
 * key on that errno.  The reason goes to the kernel log instead.
 *
 * Return: -EINVAL, or 0 for ARM64_PROBE_OK.
 */
int arm64_probe_reason_errno(enum arm64_probe_reason reason)
{
	return reason == ARM64_PROBE_OK ? 0 : -EINVAL;
}

#ifdef CONFIG_KPROBES
/*
 * ARM recommends at most 128 bytes between an exclusive load and its
 * store: look that far back, never before the start of the function.
 */
#define EXCL_WINDOW	(128 / AARCH64_INSN_SIZE)

static bool kpa_is_excl_load(u32 insn)
{
	return aarch64_insn_is_load_ex(insn) &&
	       kpa_excl_verdict(insn).class == ARM64_PROBE_REJECTED;
}

/*
 * Any store of the exclusive class ends a sequence, a store-release
 * (STLR) too: no sequence has one inside, and an exclusive load with no
 * store after it (a WFE wait arming the monitor) would otherwise fence
 * off the code behind it for the whole window.
 */
static bool kpa_ends_excl_sequence(u32 insn)
{
	return aarch64_insn_is_store_ex(insn);
}

/*
 * True when @addr follows an exclusive load whose store has not come yet.
 * Other probes' BRKs in the window stand for instructions that are not
 * exclusives (those are never probed), so they end nothing.
 */
static bool kpa_in_excl_sequence(kprobe_opcode_t *addr)
{
	unsigned long size, offset;
	int back, i;

	if (!kprobe_symbol_size_offset((unsigned long)addr, &size, &offset))
		return false;
	back = min_t(unsigned long, offset / AARCH64_INSN_SIZE, EXCL_WINDOW);
	for (i = 1; i <= back; i++) {
		u32 insn = le32_to_cpu((__force __le32)addr[-i]);

		if (kpa_ends_excl_sequence(insn))
			return false;
		if (kpa_is_excl_load(insn))
			return true;
	}
	return false;
}

/* Register fields; in immediate forms some of these bits are the immediate. */
#define INSN_RD(insn)	((insn) & 0x1f)
#define INSN_RN(insn)	(((insn) >> 5) & 0x1f)
#define INSN_RA(insn)	(((insn) >> 10) & 0x1f)
#define INSN_RM(insn)	(((insn) >> 16) & 0x1f)

/* Register 31 is SP, not XZR, in these positions of these forms. */
static bool kpa_uses_sp(u32 insn, bool rd_is_sp_unless_flags, bool rn_is_sp)
{
	bool sets_flags = insn & BIT(29);

	if (rn_is_sp && INSN_RN(insn) == 31)
		return true;
	return rd_is_sp_unless_flags && !sets_flags && INSN_RD(insn) == 31;
}

/* The header names each opc and N of these groups, not the groups. */
static bool kpa_is_logical_shifted(u32 insn)
{
	return aarch64_insn_is_and(insn) || aarch64_insn_is_bic(insn) ||
	       aarch64_insn_is_orr(insn) || aarch64_insn_is_orn(insn) ||
	       aarch64_insn_is_eor(insn) || aarch64_insn_is_eon(insn) ||
	       aarch64_insn_is_ands(insn) || aarch64_insn_is_bics(insn);
}

static bool kpa_is_add_sub_shifted(u32 insn)
{
	return aarch64_insn_is_add(insn) || aarch64_insn_is_adds(insn) ||
	       aarch64_insn_is_sub(insn) || aarch64_insn_is_subs(insn);
}

/**
 * arm64_insn_register_only() - can a stepped instruction run in the handler?
 * @insn: an instruction the decoder steps
 *
 * True for integer data processing that reads and writes general
 * registers and the condition flags only, never SP and never x30, and
 * cannot fault or be undefined: the BRK handler then runs it on the
 * saved registers (arm64_kprobe_run_insn()) instead of taking a second
 * exception for a step.  Any 5-bit field equal to 30 counts as x30,
 * immediates included, and logical immediates (whose reserved bitmasks
 * would need decoding) are left out: that only sends a few more
 * instructions to the step.
 *
 * Return: whether @insn may run in the handler.
 */
bool arm64_insn_register_only(u32 insn)
{
	bool sf = insn & BIT(31);
	unsigned int op;

	if (INSN_RD(insn) == 30 || INSN_RN(insn) == 30 ||
	    INSN_RA(insn) == 30 || INSN_RM(insn) == 30)
		return false;

	/* ADD/SUB (immediate), not the tag-adding forms the header's add_imm takes too */
	if ((insn & 0x1f800000) == 0x11000000)
		return !kpa_uses_sp(insn, true, true);
	/* MOVN/MOVZ/MOVK: for W, hw >= 2 is unallocated */
	if (aarch64_insn_is_movn(insn) || aarch64_insn_is_movz(insn) ||
	    aarch64_insn_is_movk(insn))
		return sf || !(insn & BIT(22));
	/* SBFM/BFM/UBFM, EXTR: N == sf; for W, 6-bit fields below 32 */
	if (aarch64_insn_is_sbfm(insn) || aarch64_insn_is_bfm(insn) ||
	    aarch64_insn_is_ubfm(insn) || aarch64_insn_is_extr(insn)) {
		if (!!(insn & BIT(22)) != sf)
			return false;
		return sf || !(insn & (BIT(21) | BIT(15)));
	}
	/* logical (shifted register): 31 is XZR */
	if (kpa_is_logical_shifted(insn))
		return sf || !(insn & BIT(15));
	/* ADD/SUB (shifted register): 31 is XZR, shift 11 is reserved */
	if (kpa_is_add_sub_shifted(insn))
		return (insn & 0x00c00000) != 0x00c00000 && (sf || !(insn & BIT(15)));
	/* ADD/SUB (extended register): opt 00, shift at most 4 */
	if ((insn & 0x1fe00000) == 0x0b200000)
		return ((insn >> 10) & 7) <= 4 && !kpa_uses_sp(insn, true, true);
	/* ADC/SBC(S), CCMN/CCMP, CSEL/CSINC/CSINV/CSNEG */
	if ((insn & 0x1fe0fc00) == 0x1a000000 ||
	    (insn & 0x3fe00410) == 0x3a400000 ||
	    (insn & 0x3fe00800) == 0x1a800000)
		return true;
	if (aarch64_insn_is_udiv(insn) || aarch64_insn_is_sdiv(insn) ||
	    aarch64_insn_is_lslv(insn) || aarch64_insn_is_lsrv(insn) ||
	    aarch64_insn_is_asrv(insn) || aarch64_insn_is_rorv(insn))
		return true;
	/* RBIT, REV16, REV32 (X), REV, CLZ, CLS */
	if ((insn & 0x7fff0000) == 0x5ac00000) {
		op = (insn >> 10) & 0x3f;
		return op <= 5 && (sf || op != 3);
	}
	/* MADD/MSUB; for X also [SU]M{ADD,SUB}L and [SU]MULH */
	if ((insn & 0x7f000000) == 0x1b000000) {
		op = (insn >> 21) & 7;
		if (op == 0)
			return true;
		if (!sf)
			return false;
		if (op == 1 || op == 5)
			return true;
		return (op == 2 || op == 6) && !(insn & BIT(15));
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(arm64_insn_register_only);

/*
 * With call ops, the compiler puts two words before each function that
 * ftrace can trace, and ftrace keeps there a pointer to the ops that
 * handle the function: ftrace_caller loads it on every call through the
 * site.  kallsyms counts those words in the function before, and as
 * instructions they may well decode, but a BRK over either half turns the
 * pointer into garbage as soon as the function is traced (a probe riding
 * its site is enough), and ftrace rewrites both halves behind the probe's
 * back.  The site is at most two instructions past the function's start
 * (BTI C, MOV X9, X30), so it is within 16 bytes of either word.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
static bool kpa_in_ftrace_ops_literal(kprobe_opcode_t *addr)
{
	unsigned long a = (unsigned long)addr, site, func;

	site = ftrace_location_range(a + AARCH64_INSN_SIZE,
				     a + 4 * AARCH64_INSN_SIZE);
	if (!site)
		return false;
	func = arm64_ftrace_site_func(site);
	return a < func && a >= func - 2 * AARCH64_INSN_SIZE;
}
#else
static bool kpa_in_ftrace_ops_literal(kprobe_opcode_t *addr)
{
	return false;
}
#endif

/**
 * arm_kprobe_decode_insn() - classify a kernel instruction for a kprobe
 * @addr: where it is
 * @asi: filled in with the simulation routine, if any
 *
 * Adds to arm_probe_decode_insn() what only the kernel has: the ftrace
 * ops pointer before a function is no instruction, and one inside an
 * exclusive sequence (found by the instructions before @addr) is rejected
 * too.
 *
 * Return: the class, and for a rejected instruction the reason.
 */
struct arm64_probe_verdict arm_kprobe_decode_insn(kprobe_opcode_t *addr,
						  struct arch_specific_insn *asi)
{
	struct arm64_probe_verdict v;

	if (kpa_in_ftrace_ops_literal(addr))
		return REJECTED(ARM64_PROBE_FTRACE_OPS);
	v = arm_probe_decode_insn(le32_to_cpu((__force __le32)*addr), &asi->api,
				  ARM64_PROBE_KERNEL);
	if (v.class != ARM64_PROBE_REJECTED && kpa_in_excl_sequence(addr))
		v = REJECTED(ARM64_PROBE_EXCLUSIVE);
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(arm_kprobe_decode_insn);
#endif /* CONFIG_KPROBES */

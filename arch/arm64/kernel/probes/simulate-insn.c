// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulation of the instructions that read or write the pc.
 *
 * Each routine gets the instruction, its address and the registers of
 * the probed context, and leaves them as the instruction would have: the
 * destination registers written and the pc at the next instruction or the
 * branch target.  Routines used by uprobes too touch nothing but pt_regs;
 * the literal loads and the pointer authentication ones are kernel-only
 * (the decoder sees to it), as they read kernel memory and use the keys
 * currently loaded.
 */

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sizes.h>
#include <linux/unaligned.h>

#include <asm/insn.h>
#include <asm/ptrace.h>

#include "simulate-insn.h"

/* Register 31 reads as zero and discards writes, where it is not SP. */
static u64 kpa_xreg(const struct pt_regs *regs, unsigned int n)
{
	return n < 31 ? regs->regs[n] : 0;
}

static void kpa_set_xreg(struct pt_regs *regs, unsigned int n, u64 val)
{
	if (n < 31)
		regs->regs[n] = val;
}

/*
 * A new pc.  The trap saved PSTATE.BTYPE of an indirect branch that led
 * to the probe; the instruction after it must not be checked against it.
 */
static void kpa_goto_pc(struct pt_regs *regs, u64 pc)
{
	regs->pstate &= ~PSR_BTYPE_MASK;
	instruction_pointer_set(regs, pc);
}

/* A branch offset: the field at [lsb, lsb + bits) in words, sign-extended. */
static s64 kpa_branch_offset(u32 insn, unsigned int lsb, unsigned int bits)
{
	return sign_extend64((insn >> lsb) & GENMASK(bits - 1, 0), bits - 1) * 4;
}

#define RT(insn)	((insn) & 0x1f)
#define RN(insn)	(((insn) >> 5) & 0x1f)
#define NEXT(addr)	((addr) + AARCH64_INSN_SIZE)

/* NOP, YIELD, BTI, PRFM (literal): only the pc moves. */
void arm64_sim_nop(u32 insn, long addr, struct pt_regs *regs)
{
	kpa_goto_pc(regs, NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_nop);

/* B: imm26. */
void arm64_sim_b(u32 insn, long addr, struct pt_regs *regs)
{
	kpa_goto_pc(regs, addr + kpa_branch_offset(insn, 0, 26));
}
NOKPROBE_SYMBOL(arm64_sim_b);

/* BL: B that leaves the next address in x30. */
void arm64_sim_bl(u32 insn, long addr, struct pt_regs *regs)
{
	regs->regs[30] = NEXT(addr);
	kpa_goto_pc(regs, addr + kpa_branch_offset(insn, 0, 26));
}
NOKPROBE_SYMBOL(arm64_sim_bl);

/* B.cond and BC.cond: imm19, the condition in bits 3:0. */
void arm64_sim_b_cond(u32 insn, long addr, struct pt_regs *regs)
{
	bool taken = aarch32_opcode_cond_checks[insn & 0xf](regs->pstate);

	kpa_goto_pc(regs, taken ? addr + kpa_branch_offset(insn, 5, 19) : NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_b_cond);

/* CBZ, CBNZ: bit 31 picks X or W, imm19. */
void arm64_sim_cbz(u32 insn, long addr, struct pt_regs *regs)
{
	u64 val = kpa_xreg(regs, RT(insn));
	bool zero;

	if (!(insn & BIT(31)))
		val = (u32)val;
	zero = val == 0;
	if (zero != aarch64_insn_is_cbnz(insn))
		kpa_goto_pc(regs, addr + kpa_branch_offset(insn, 5, 19));
	else
		kpa_goto_pc(regs, NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_cbz);

/* TBZ, TBNZ: the bit number is b5:b40 (bits 31, 23:19), imm14. */
void arm64_sim_tbz(u32 insn, long addr, struct pt_regs *regs)
{
	unsigned int bit = ((insn >> 26) & 0x20) | ((insn >> 19) & 0x1f);
	bool set = kpa_xreg(regs, RT(insn)) & BIT_ULL(bit);

	if (set == aarch64_insn_is_tbnz(insn))
		kpa_goto_pc(regs, addr + kpa_branch_offset(insn, 5, 14));
	else
		kpa_goto_pc(regs, NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_tbz);

/* BR, BLR, RET: the target in Xn, read before BLR writes x30. */
void arm64_sim_br(u32 insn, long addr, struct pt_regs *regs)
{
	u64 target = kpa_xreg(regs, RN(insn));

	if (aarch64_insn_is_blr(insn))
		regs->regs[30] = NEXT(addr);
	kpa_goto_pc(regs, target);
}
NOKPROBE_SYMBOL(arm64_sim_br);

/*
 * The pointer authentication instructions, through their HINT-space
 * forms on x17 with the modifier in x16: these use the keys in force, as
 * the probed instruction would have, and do nothing where pointer
 * authentication is absent or off, as the probed one would have too.
 */
static u64 kpa_pac_1716(bool auth, bool key_b, u64 ptr, u64 modifier)
{
	register u64 x17 asm("x17") = ptr;
	register u64 x16 asm("x16") = modifier;

	if (!auth && !key_b)		/* PACIA1716 */
		asm volatile("hint #8" : "+r" (x17) : "r" (x16));
	else if (!auth)			/* PACIB1716 */
		asm volatile("hint #10" : "+r" (x17) : "r" (x16));
	else if (!key_b)		/* AUTIA1716 */
		asm volatile("hint #12" : "+r" (x17) : "r" (x16));
	else				/* AUTIB1716 */
		asm volatile("hint #14" : "+r" (x17) : "r" (x16));
	return x17;
}
NOKPROBE_SYMBOL(kpa_pac_1716);

/*
 * PACIAZ ... AUTIBSP (HINT 24 to 31) sign or authenticate x30.  Of the
 * hint number, bit 0 picks SP as modifier (else zero), bit 1 key B, bit 2
 * authentication.
 */
void arm64_sim_pac_hint(u32 insn, long addr, struct pt_regs *regs)
{
	unsigned int nr = (insn >> 5) & 7;
	u64 modifier = (nr & 1) ? regs->sp : 0;

	regs->regs[30] = kpa_pac_1716(nr & 4, nr & 2, regs->regs[30], modifier);
	kpa_goto_pc(regs, NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_pac_hint);

/*
 * RETAA, RETAB (x30, modifier SP); BRAAZ, BLRAAZ, ... (Xn, modifier zero);
 * BRAA, BLRAA, ... (Xn, modifier Xm or SP).  Bit 10 picks key B, bit 24
 * the register modifier.
 */
void arm64_sim_br_auth(u32 insn, long addr, struct pt_regs *regs)
{
	unsigned int rm = RT(insn);
	u64 target, modifier;

	if (aarch64_insn_is_ret_auth(insn)) {
		target = regs->regs[30];
		modifier = regs->sp;
	} else {
		target = kpa_xreg(regs, RN(insn));
		if (!(insn & BIT(24)))
			modifier = 0;
		else
			modifier = rm == 31 ? regs->sp : regs->regs[rm];
	}
	target = kpa_pac_1716(true, insn & BIT(10), target, modifier);
	if (aarch64_insn_is_blr_auth(insn))
		regs->regs[30] = NEXT(addr);
	kpa_goto_pc(regs, target);
}
NOKPROBE_SYMBOL(arm64_sim_br_auth);

/* ADR: immhi:immlo (bits 23:5, 30:29) bytes; ADRP: 4K pages. */
void arm64_sim_adr(u32 insn, long addr, struct pt_regs *regs)
{
	u64 imm = (((insn >> 5) & GENMASK(18, 0)) << 2) | ((insn >> 29) & 3);
	s64 off = sign_extend64(imm, 20);
	u64 val;

	if (aarch64_insn_is_adrp(insn))
		val = (addr & ~0xfffUL) + off * SZ_4K;
	else
		val = addr + off;
	kpa_set_xreg(regs, RT(insn), val);
	kpa_goto_pc(regs, NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_adr);

/* LDR Wt, LDR Xt, LDRSW (opc 00, 01, 10 in bits 31:30) from pc + imm19. */
void arm64_sim_ldr_lit(u32 insn, long addr, struct pt_regs *regs)
{
	const void *src = (const void *)(addr + kpa_branch_offset(insn, 5, 19));
	u64 val;

	switch (insn >> 30) {
	case 0:
		val = get_unaligned((const u32 *)src);
		break;
	case 1:
		val = get_unaligned((const u64 *)src);
		break;
	default:
		val = (s64)(s32)get_unaligned((const u32 *)src);
		break;
	}
	kpa_set_xreg(regs, RT(insn), val);
	kpa_goto_pc(regs, NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_ldr_lit);

/*
 * Loading Vn with LDR Qn from a zero-padded copy has the effect of LDR
 * St, Dt or Qt: the bits above the loaded size become zero.  The BRK
 * handler runs with the probed context's SIMD registers live (the kernel
 * itself is built without them), so the register is written directly.
 */
#define LDR_Q(n)							\
	case n:								\
		asm volatile(".arch_extension fp\n\t"			\
			     "ldr q" #n ", [%0]" : : "r" (buf) : "memory"); \
		break

static void kpa_load_vreg(unsigned int n, const u64 *buf)
{
	switch (n) {
	LDR_Q(0); LDR_Q(1); LDR_Q(2); LDR_Q(3);
	LDR_Q(4); LDR_Q(5); LDR_Q(6); LDR_Q(7);
	LDR_Q(8); LDR_Q(9); LDR_Q(10); LDR_Q(11);
	LDR_Q(12); LDR_Q(13); LDR_Q(14); LDR_Q(15);
	LDR_Q(16); LDR_Q(17); LDR_Q(18); LDR_Q(19);
	LDR_Q(20); LDR_Q(21); LDR_Q(22); LDR_Q(23);
	LDR_Q(24); LDR_Q(25); LDR_Q(26); LDR_Q(27);
	LDR_Q(28); LDR_Q(29); LDR_Q(30); LDR_Q(31);
	}
}
NOKPROBE_SYMBOL(kpa_load_vreg);

/* LDR St, Dt, Qt (opc 00, 01, 10) from pc + imm19. */
void arm64_sim_ldr_lit_fp(u32 insn, long addr, struct pt_regs *regs)
{
	const void *src = (const void *)(addr + kpa_branch_offset(insn, 5, 19));
	u64 buf[2] __aligned(16) = { 0, 0 };

	memcpy(buf, src, 4 << (insn >> 30));
	kpa_load_vreg(RT(insn), buf);
	kpa_goto_pc(regs, NEXT(addr));
}
NOKPROBE_SYMBOL(arm64_sim_ldr_lit_fp);

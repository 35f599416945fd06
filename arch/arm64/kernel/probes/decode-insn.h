/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The arm64 probe decoder: which instructions can carry a probe, and how
 * the probed instruction is then run.
 */
#ifndef __ARM64_KERNEL_PROBES_DECODE_INSN_H
#define __ARM64_KERNEL_PROBES_DECODE_INSN_H

#include <linux/sizes.h>

#include <asm/insn.h>
#include <asm/probes.h>

/**
 * enum arm64_probe_class - what happens to a probed instruction
 * @ARM64_PROBE_REJECTED: it cannot carry a probe
 * @ARM64_PROBE_SIMULATED: the BRK handler applies its effect to pt_regs
 * @ARM64_PROBE_STEPPED: it runs from an out-of-line slot
 */
enum arm64_probe_class {
	ARM64_PROBE_REJECTED,
	ARM64_PROBE_SIMULATED,
	ARM64_PROBE_STEPPED,
};

/**
 * enum arm64_probe_reason - why an instruction is rejected
 * @ARM64_PROBE_OK: it is not
 * @ARM64_PROBE_UNKNOWN: the decoder does not know the encoding
 * @ARM64_PROBE_EXCLUSIVE: part of an exclusive load/store sequence (or
 *	a memory copy/set triple), which a trap in the middle breaks
 * @ARM64_PROBE_PC_RELATIVE: reads the pc in a way not simulated here
 * @ARM64_PROBE_EXCEPTION: generates an exception or returns from one
 * @ARM64_PROBE_SYSTEM: reads or writes processor state that the trap and
 *	the out-of-line step change (DAIF, PSTATE fields, exception and
 *	debug registers, system register writes)
 * @ARM64_PROBE_HINT: a hint that is neither known to be harmless nor
 *	simulated
 * @ARM64_PROBE_FTRACE_OPS: not an instruction but the ftrace ops pointer
 *	kept just before a function with call ops, which ftrace_caller loads
 */
enum arm64_probe_reason {
	ARM64_PROBE_OK,
	ARM64_PROBE_UNKNOWN,
	ARM64_PROBE_EXCLUSIVE,
	ARM64_PROBE_PC_RELATIVE,
	ARM64_PROBE_EXCEPTION,
	ARM64_PROBE_SYSTEM,
	ARM64_PROBE_HINT,
	ARM64_PROBE_FTRACE_OPS,
};

/**
 * struct arm64_probe_verdict - the decoder's answer
 * @class: rejected, simulated or stepped
 * @reason: for a rejected instruction, why
 */
struct arm64_probe_verdict {
	enum arm64_probe_class class;
	enum arm64_probe_reason reason;
};

/* Where the instruction runs: user space has other keys and other memory. */
#define ARM64_PROBE_KERNEL	0
#define ARM64_PROBE_USER	1

struct arm64_probe_verdict arm_probe_decode_insn(probe_opcode_t insn,
						 struct arch_probe_insn *api,
						 int where);
const char *arm64_probe_reason_str(enum arm64_probe_reason reason);
int arm64_probe_reason_errno(enum arm64_probe_reason reason);

#ifdef CONFIG_KPROBES
/*
 * The start of the function whose ftrace site is @site: one instruction
 * before it (MOV X9, X30), or two when the function starts with BTI C.
 * With call ops the word two before a function without BTI is the high
 * half of its ops pointer, never a BTI.
 */
static __always_inline unsigned long arm64_ftrace_site_func(unsigned long site)
{
	u32 insn = le32_to_cpu(*(__le32 *)(site - 2 * AARCH64_INSN_SIZE));

	if (aarch64_insn_is_bti(insn))
		return site - 2 * AARCH64_INSN_SIZE;
	return site - AARCH64_INSN_SIZE;
}

/* Whether a B at @from reaches @to: 128 MB either way. */
static inline bool arm64_b_reaches(unsigned long from, unsigned long to)
{
	long offset = (long)to - (long)from;

	return offset >= -SZ_128M && offset < SZ_128M;
}

bool arm64_insn_register_only(u32 insn);
struct arm64_probe_verdict arm_kprobe_decode_insn(kprobe_opcode_t *addr,
						  struct arch_specific_insn *asi);
#endif

#endif /* __ARM64_KERNEL_PROBES_DECODE_INSN_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Simulation routines for the instructions a probe cannot run out of
 * line: each applies one instruction to a pt_regs, the pc included.
 */
#ifndef __ARM64_KERNEL_PROBES_SIMULATE_INSN_H
#define __ARM64_KERNEL_PROBES_SIMULATE_INSN_H

#include <asm/probes.h>

probes_handler_t arm64_sim_nop;
probes_handler_t arm64_sim_b;
probes_handler_t arm64_sim_bl;
probes_handler_t arm64_sim_b_cond;
probes_handler_t arm64_sim_cbz;
probes_handler_t arm64_sim_tbz;
probes_handler_t arm64_sim_br;
probes_handler_t arm64_sim_br_auth;
probes_handler_t arm64_sim_adr;
probes_handler_t arm64_sim_ldr_lit;
probes_handler_t arm64_sim_ldr_lit_fp;
probes_handler_t arm64_sim_pac_hint;

#endif /* __ARM64_KERNEL_PROBES_SIMULATE_INSN_H */

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: jump optimization.
 *
 * An optimized probe's first five bytes become "jmp rel32" to a detour
 * buffer built for it alone, by the emitter below, not copied from a
 * template:
 *
 *	entry:	build a struct pt_regs on the stack, as the int3 trap does
 *		call kprobe_detour_hit(op, regs)   (the buffer knows its probe)
 *		if a handler moved regs->ip, go to "moved"
 *		restore the registers and flags
 *	region:	the instructions the jump covers, relocated
 *		jmp back to the first instruction after them
 *	moved:	restore the registers and flags, continue at regs->ip
 *
 * The covered instructions (the region) are whole instructions from the
 * probe on, at least five bytes, inside one function. Every instruction in
 * it must be able to run from the copy unchanged (kprobe_x86_copyable()),
 * no direct branch, exception fixup or jump table of the function may land
 * strictly inside it, and no jump label, static call, ftrace site or
 * alternative may lie in it. Another kprobe in it keeps the probe a
 * breakpoint for as long as it is there (arch_check_optimized_kprobe()).
 *
 * The breakpoint of a probe that is queued for optimization, or optimized,
 * sends a boosted hit to "region" rather than to a copy of the first
 * instruction alone, so no CPU enters the middle of the region by way of
 * the probe while the optimizer waits for those already there to leave.
 *
 * Handlers of an optimized probe run with interrupts as the probed code
 * had them, and with preemption disabled.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cpu.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include <kunit/visibility.h>

#include <asm/cpufeature.h>
#include <asm/nospec-branch.h>
#include <asm/segment.h>
#include <asm/text-patching.h>

#include "common.h"

/* The detour emitter: @img is built in memory to run at @at. */
struct kpx_emit {
	u8 *img;
	unsigned long at;
	unsigned int len;
};

/* Register numbers as the instruction set encodes them. */
enum {
	KPX_AX, KPX_CX, KPX_DX, KPX_BX, KPX_SP, KPX_BP, KPX_SI, KPX_DI,
	KPX_R8, KPX_R9, KPX_R10, KPX_R11, KPX_R12, KPX_R13, KPX_R14, KPX_R15
};

/*
 * Pushed in this order right below pt_regs::orig_ax (on 32-bit, below the
 * data segment registers), they leave the general-purpose part of struct
 * pt_regs (see the asserts in common.h).
 */
static const u8 kpx_saved_regs[] = {
#ifdef CONFIG_X86_64
	KPX_DI, KPX_SI, KPX_DX, KPX_CX, KPX_AX, KPX_R8, KPX_R9, KPX_R10,
	KPX_R11, KPX_BX, KPX_BP, KPX_R12, KPX_R13, KPX_R14, KPX_R15,
#else
	KPX_AX, KPX_BP, KPX_DI, KPX_SI, KPX_DX, KPX_CX, KPX_BX,
#endif
};

/* A word of the stack, and the number of words of pt_regs past these. */
#define KPX_WORD		sizeof(long)
#define KPX_REGS_WORDS_FROM(field)					\
	((sizeof(struct pt_regs) - offsetof(struct pt_regs, field)) / KPX_WORD)

/*
 * The data segment registers of a 32-bit pt_regs (gs, fs, es, ds, pushed
 * in that order) are recorded for the handlers, never reloaded: no handler
 * has a reason to change them.
 */
#define KPX_SEGMENT_WORDS	(IS_ENABLED(CONFIG_X86_64) ? 0 : 4)

static void kpx_put(struct kpx_emit *e, const u8 *bytes, unsigned int n)
{
	memcpy(e->img + e->len, bytes, n);
	e->len += n;
}

#define kpx_emit(e, ...)						\
	do {								\
		static const u8 __bytes[] = { __VA_ARGS__ };		\
		kpx_put(e, __bytes, sizeof(__bytes));			\
	} while (0)

/* lea disp8(%rsp), %rsp: moves the stack pointer, leaves the flags. */
static void kpx_emit_sp_add(struct kpx_emit *e, s8 bytes)
{
	if (IS_ENABLED(CONFIG_X86_64))
		kpx_emit(e, 0x48);				/* REX.W */
	kpx_emit(e, 0x8d, 0x64, 0x24);
	kpx_put(e, (u8 *)&bytes, 1);
}

static void kpx_emit_s32(struct kpx_emit *e, s32 value)
{
	put_unaligned(value, (s32 *)(e->img + e->len));
	e->len += sizeof(value);
}

/* jmp or call rel32 to @target; false if it is out of reach */
static bool kpx_emit_rel32(struct kpx_emit *e, u8 opcode, const void *target)
{
	unsigned long to = (unsigned long)target;
	long disp;

	/*
	 * Hidden, so that the compiler does not fold the "- 5" into an
	 * address before the target's ENDBR, which objtool reports on IBT.
	 */
	OPTIMIZER_HIDE_VAR(to);
	disp = (long)to - (long)(e->at + e->len + 5);

	if (disp != (s32)disp)
		return false;
	kpx_put(e, &opcode, 1);
	kpx_emit_s32(e, disp);
	return true;
}

/* push (0x50 + reg) or pop (0x58 + reg), REX.B for r8-r15 */
static void kpx_emit_push_pop(struct kpx_emit *e, u8 reg, u8 opcode)
{
	u8 op = opcode + (reg & 7);

	if (reg >= KPX_R8)
		kpx_emit(e, 0x41);
	kpx_put(e, &op, 1);
}

static void kpx_emit_pushes(struct kpx_emit *e)
{
	int i;

	if (KPX_SEGMENT_WORDS) {
		kpx_emit(e, 0x0f, 0xa8);			/* push %gs */
		kpx_emit(e, 0x0f, 0xa0);			/* push %fs */
		kpx_emit(e, 0x06);				/* push %es */
		kpx_emit(e, 0x1e);				/* push %ds */
	}
	for (i = 0; i < ARRAY_SIZE(kpx_saved_regs); i++)
		kpx_emit_push_pop(e, kpx_saved_regs[i], 0x50);
}

/* in the reverse order */
static void kpx_emit_pops(struct kpx_emit *e)
{
	int i;

	for (i = ARRAY_SIZE(kpx_saved_regs) - 1; i >= 0; i--)
		kpx_emit_push_pop(e, kpx_saved_regs[i], 0x58);
	if (KPX_SEGMENT_WORDS)
		kpx_emit_sp_add(e, KPX_SEGMENT_WORDS * KPX_WORD);
}

/* The pops, then the flags: the stack pointer ends at pt_regs::sp. */
static void kpx_emit_restore(struct kpx_emit *e)
{
	kpx_emit_pops(e);
	/* orig_ax, ip and cs, then the flags */
	kpx_emit_sp_add(e, 3 * KPX_WORD);
	kpx_emit(e, 0x9d);
}

/*
 * The arguments of kprobe_detour_hit(@op, regs), regs being the stack
 * pointer: %rdi and %rsi on x86_64, %eax and %edx on i386 (regparm).
 */
static void kpx_emit_enter_args(struct kpx_emit *e, struct optimized_kprobe *op)
{
	unsigned long arg = (unsigned long)op;

	if (IS_ENABLED(CONFIG_X86_64)) {
		kpx_emit(e, 0x48, 0x89, 0xe6);			/* mov %rsp, %rsi */
		kpx_emit(e, 0x48, 0xbf);			/* movabs $op, %rdi */
	} else {
		kpx_emit(e, 0x89, 0xe2);			/* mov %esp, %edx */
		kpx_emit(e, 0xb8);				/* mov $op, %eax */
	}
	kpx_put(e, (u8 *)&arg, sizeof(arg));
}

/*
 * The unwinder's mark of a pt_regs frame in the frame pointer, as the
 * entry code leaves it: its address plus one on x86_64, its address with
 * the top bit clear on i386.
 */
static void kpx_emit_frame_mark(struct kpx_emit *e)
{
	if (!IS_ENABLED(CONFIG_FRAME_POINTER))
		return;
	if (IS_ENABLED(CONFIG_X86_64)) {
		kpx_emit(e, 0x48, 0x8d, 0x6c, 0x24, 0x01);	/* lea 1(%rsp), %rbp */
	} else {
		kpx_emit(e, 0x89, 0xe5);			/* mov %esp, %ebp */
		kpx_emit(e, 0x81, 0xe5);			/* and $~top, %ebp */
		kpx_emit_s32(e, 0x7fffffff);
	}
}

/*
 * Leave for @regs->ip with the registers and flags of pt_regs, the stack
 * pointer at the top of the registers.  x86_64's IRET does it in one.  An
 * IRET at the same privilege on i386 restores no stack pointer, so there
 * the ip and the flags are copied to the two words below the probed
 * code's stack pointer (pt_regs::ss and ::sp), the flags popped, and RET
 * taken; a handler's change of regs->sp is not followed there.
 */
static void kpx_emit_leave_to_regs_ip(struct kpx_emit *e)
{
	kpx_emit_pops(e);
	kpx_emit_sp_add(e, KPX_WORD);				/* orig_ax */
	if (IS_ENABLED(CONFIG_X86_64)) {
		kpx_emit(e, 0x48, 0xcf);			/* iretq */
		return;
	}
	kpx_emit(e, 0xff, 0x34, 0x24);				/* push (%esp) */
	kpx_emit(e, 0x8f, 0x44, 0x24, 4 * KPX_WORD);		/* pop to ::ss */
	kpx_emit(e, 0xff, 0x74, 0x24, 2 * KPX_WORD);		/* push ::flags */
	kpx_emit(e, 0x8f, 0x44, 0x24, 3 * KPX_WORD);		/* pop to ::sp */
	kpx_emit_sp_add(e, 3 * KPX_WORD);
	kpx_emit(e, 0x9d);					/* popf */
	kpx_emit(e, RET_INSN_OPCODE);
}

/*
 * Build the whole buffer for @op in @img; @region is the relocated copy
 * of the region, @size bytes. Returns the offset of the region copy, or
 * a negative errno when something is out of rel32 reach.
 */
static int kpx_emit_detour(struct optimized_kprobe *op, u8 *img,
			   const u8 *region, unsigned int size)
{
	unsigned long back = (unsigned long)op->kp.addr + size;
	long ip = (long)op->kp.addr + INT3_INSN_SIZE;
	struct kpx_emit e = { .img = img, .at = (unsigned long)op->optinsn.buf };
	unsigned int jnz, region_at;

	/* Kernel text is in the top 2 GiB: its addresses sign-extend. */
	if (ip != (s32)ip)
		return -ERANGE;

	/*
	 * pt_regs::ss and ::sp both get the probed code's stack pointer
	 * (push (%rsp) reads before it moves), then the flags, before
	 * anything can change them; then cs, ip just past where the int3
	 * would be, and orig_ax, as the trap would leave them; then the
	 * general-purpose registers. ss is fixed up last.
	 */
	kpx_emit(&e, 0x54);					/* push %rsp */
	kpx_emit(&e, 0xff, 0x34, 0x24);				/* push (%rsp) */
	kpx_emit(&e, 0x9c);					/* pushfq */
	/* C code wants DF clear; only a function with STD can have it set */
	if (op->optinsn.std)
		kpx_emit(&e, 0xfc);				/* cld */
	kpx_emit(&e, 0x6a, __KERNEL_CS);			/* push $cs */
	kpx_emit(&e, 0x68);					/* push $ip */
	kpx_emit_s32(&e, ip);
	kpx_emit(&e, 0x6a, 0xff);				/* push $-1 */
	kpx_emit_pushes(&e);
	if (IS_ENABLED(CONFIG_X86_64))
		kpx_emit(&e, 0x48);				/* REX.W */
	kpx_emit(&e, 0xc7, 0x84, 0x24);				/* mov $ss, ..(%rsp) */
	kpx_emit_s32(&e, offsetof(struct pt_regs, ss));
	kpx_emit_s32(&e, __KERNEL_DS);
	kpx_emit_frame_mark(&e);
	if (cpu_feature_enabled(X86_FEATURE_SMAP))
		kpx_emit(&e, 0x0f, 0x01, 0xca);			/* clac */

	kpx_emit_enter_args(&e, op);
	if (!kpx_emit_rel32(&e, CALL_INSN_OPCODE, kprobe_detour_hit))
		return -ERANGE;
	kpx_emit(&e, 0x85, 0xc0);				/* test %eax, %eax */
	kpx_emit(&e, 0x0f, 0x85);				/* jnz moved */
	jnz = e.len;
	kpx_emit_s32(&e, 0);

	kpx_emit_restore(&e);
	kpx_emit_sp_add(&e, KPX_REGS_WORDS_FROM(sp) * KPX_WORD);
	region_at = e.len;
	kpx_put(&e, region, size);
	if (!kpx_emit_rel32(&e, JMP32_INSN_OPCODE, (void *)back))
		return -ERANGE;

	/*
	 * moved: leave as the trap would, honouring the registers the
	 * handler changed (the path is rare: its cost does not matter).
	 */
	put_unaligned((s32)(e.len - jnz - 4), (s32 *)(img + jnz));
	kpx_emit_leave_to_regs_ip(&e);

	if (WARN_ON_ONCE(e.len > MAX_OPTINSN_SIZE))
		return -ENOSPC;
	return region_at;
}

/*
 * Opcodes the scan looks for that text-patching.h does not name: group 5
 * (whose /4 and /5 are indirect JMPs) and STD, which sets DF.
 */
#define KPX_GRP5_OPCODE		0xff
#define KPX_STD_OPCODE		0xfd

/* Where a direct branch at @pos goes, or 0 if @insn is none. */
static unsigned long kpx_branch_target(struct insn *insn, unsigned long pos)
{
	u8 op0 = insn->opcode.bytes[0];
	u8 op1 = insn->opcode.bytes[1];

	switch (op0) {
	case 0x70 ... 0x7f:		/* Jcc rel8 */
	case 0xe0 ... 0xe3:		/* LOOP family, JrCXZ */
	case CALL_INSN_OPCODE:
	case JMP32_INSN_OPCODE:
	case JMP8_INSN_OPCODE:
		break;
	case 0x0f:
		if (op1 >= 0x80 && op1 <= 0x8f)	/* Jcc rel32 */
			break;
		return 0;
	default:
		return 0;
	}
	return pos + insn->length + insn->immediate.value;
}

static bool kpx_indirect_jump(struct insn *insn)
{
	u8 reg = X86_MODRM_REG(insn->modrm.bytes[0]);

	return insn->opcode.bytes[0] == KPX_GRP5_OPCODE && (reg == 4 || reg == 5);
}

/*
 * What a scan of a function (and of its cold part) learned: why no region
 * of it can be optimized, if something forbids them all, whether an STD
 * may have set DF, and every address inside the function where a direct
 * branch or an exception fixup lands, sorted.  During a batch the scan of
 * the function probed last is kept: a crowd of probes in one function
 * scans it once, not once per probe.  kprobe_mutex keeps its text from
 * going; what others patch keeps its instructions' lengths and targets.
 */
struct kpx_scan {
	unsigned long start, end;
	const char *why;
	bool std;
	unsigned int nr, max;
	unsigned long *landing;
};

static struct kpx_scan *kpx_scan_kept;

/* Is @target inside one of the kernel's arrays of indirect-branch thunks? */
static bool kpx_in_thunk_array(unsigned long target)
{
	unsigned long rp = sizeof(retpoline_thunk_t) * 16;

	if (IS_ENABLED(CONFIG_MITIGATION_RETPOLINE) &&
	    target - (unsigned long)__x86_indirect_thunk_array < rp)
		return true;
	if (IS_ENABLED(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) &&
	    (target - (unsigned long)__x86_indirect_jump_thunk_array < rp ||
	     target - (unsigned long)__x86_indirect_call_thunk_array < rp))
		return true;
	return IS_ENABLED(CONFIG_MITIGATION_ITS) &&
	       target - (unsigned long)__x86_indirect_its_thunk_array <
	       sizeof(its_thunk_t) * 16;
}

/*
 * May a direct jump from @scan's function to @target be an indirect one,
 * say through a jump table?  The compiler writes those as jumps to a
 * retpoline thunk, and the boot code may point them at another flavour
 * of thunk (call depth tracking, ITS), some of which it allocates and no
 * symbol names.  So a jump out of the function counts as indirect unless
 * it lands on the start of a symbol that is no thunk (a tail call), or
 * inside a compiler-made cold part, which the scan covers itself.
 */
static bool kpx_jump_may_be_indirect(struct kpx_scan *scan,
				     unsigned long target)
{
	char name[KSYM_NAME_LEN];
	unsigned long size, offset;

	if (target >= scan->start && target < scan->end)
		return false;
	if (kpx_in_thunk_array(target))
		return true;
	if (!kallsyms_lookup_size_offset(target, &size, &offset))
		return true;
	if (!offset)
		return false;
	return lookup_symbol_name(target - offset, name) ||
	       !strstr(name, ".cold");
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_x86_jump_may_be_indirect() - the optimizer's view of a jump out
 * @func: start of the function the jump is in
 * @size: the function's size
 * @target: where the jump goes
 *
 * For the KUnit suite, which cannot place a direct jump to every kind of
 * thunk in its own code: objtool takes such a jump for a retpoline site.
 *
 * Return: true when the jump counts as a possible indirect one.
 */
bool kprobe_x86_jump_may_be_indirect(unsigned long func, unsigned long size,
				     unsigned long target)
{
	struct kpx_scan scan = { .start = func, .end = func + size };

	return kpx_jump_may_be_indirect(&scan, target);
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_x86_jump_may_be_indirect);

/**
 * kprobe_x86_thunk_arrays() - the indirect-branch thunk arrays of this kernel
 * @starts: gets each array's start, or 0 where the kernel has none: the
 *	retpoline thunks, call depth tracking's jump and call thunks, and
 *	the ITS thunks
 *
 * For the KUnit suite: the arrays are not exported to modules.
 */
void kprobe_x86_thunk_arrays(unsigned long starts[4])
{
	starts[0] = IS_ENABLED(CONFIG_MITIGATION_RETPOLINE) ?
		    (unsigned long)__x86_indirect_thunk_array : 0;
	starts[1] = IS_ENABLED(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) ?
		    (unsigned long)__x86_indirect_jump_thunk_array : 0;
	starts[2] = IS_ENABLED(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) ?
		    (unsigned long)__x86_indirect_call_thunk_array : 0;
	starts[3] = IS_ENABLED(CONFIG_MITIGATION_ITS) ?
		    (unsigned long)__x86_indirect_its_thunk_array : 0;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_x86_thunk_arrays);
#endif

static void kpx_scan_free(struct kpx_scan *scan)
{
	if (scan)
		kvfree(scan->landing);
	kfree(scan);
}

void kprobe_x86_opt_batch_end(void)
{
	kpx_scan_free(kpx_scan_kept);
	kpx_scan_kept = NULL;
}

/* Note that something may land at @to; false when out of memory. */
static bool kpx_scan_lands(struct kpx_scan *scan, unsigned long to)
{
	unsigned long *more;
	unsigned int max;

	if (to < scan->start || to >= scan->end)
		return true;
	if (scan->nr == scan->max) {
		max = scan->max * 2 + 64;
		more = kvmalloc_array(max, sizeof(*more), GFP_KERNEL);
		if (!more)
			return false;
		if (scan->nr)
			memcpy(more, scan->landing, scan->nr * sizeof(*more));
		kvfree(scan->landing);
		scan->landing = more;
		scan->max = max;
	}
	scan->landing[scan->nr++] = to;
	return true;
}

/* Walk [@from, @to), part of @scan's function or of its cold part. */
static const char *kpx_scan_walk(struct kpx_scan *scan, unsigned long from,
				 unsigned long to)
{
	const struct exception_table_entry *ex;
	u8 buf[MAX_INSN_SIZE];
	unsigned long pos, dest;
	struct insn insn;

	for (pos = from; pos < to; pos += insn.length) {
		if (kprobe_x86_fetch(pos, buf, &insn))
			return "bytes in the function that do not decode";
		if (insn.opcode.bytes[0] == KPX_STD_OPCODE)
			scan->std = true;
		if (kpx_indirect_jump(&insn))
			return "an indirect jump in the function (a jump table?)";
		dest = kpx_branch_target(&insn, pos);
		if (dest && insn.opcode.bytes[0] != CALL_INSN_OPCODE &&
		    kpx_jump_may_be_indirect(scan, dest))
			return "a jump out of the function that may be indirect (a jump table?)";
		if (dest && !kpx_scan_lands(scan, dest))
			return "no memory for the branch scan";
		ex = search_exception_tables(pos);
		if (ex && !kpx_scan_lands(scan, (unsigned long)&ex->fixup +
						ex->fixup))
			return "no memory for the branch scan";
	}
	return NULL;
}

static int kpx_scan_one_cold(void *data, unsigned long addr)
{
	struct kpx_scan *scan = data;
	unsigned long size, offset;

	if (kallsyms_lookup_size_offset(addr, &size, &offset) && !offset)
		scan->why = kpx_scan_walk(scan, addr, addr + size);
	return scan->why ? 1 : 0;
}

/*
 * The function's cold part, placed elsewhere by the compiler, branches
 * back into the function's body: it is scanned too. In the kernel
 * image the name may be shared by several static functions, so every
 * cold part of that name is. A probe in a cold part itself is refused:
 * the hot part's branches into it are not worth finding.
 */
static const char *kpx_scan_cold_part(struct kpx_scan *scan)
{
	char name[KSYM_NAME_LEN + 8], modname[MODULE_NAME_LEN + 1];
	struct module *mod;
	unsigned long cold;

	if (lookup_symbol_name(scan->start, name))
		return "a function kallsyms cannot name";
	if (strstr(name, ".cold"))
		return "in a function's cold part";
	if (strlcat(name, ".cold", sizeof(name)) >= sizeof(name))
		return "a name too long to look for its cold part";

	scoped_guard(preempt) {
		mod = __module_text_address(scan->start);
		if (mod)
			strscpy(modname, module_name(mod), sizeof(modname));
	}
	if (!mod) {
		kallsyms_on_each_match_symbol(kpx_scan_one_cold, name, scan);
		return scan->why;
	}
	/* "module:symbol" looks in that module only */
	if (strlen(modname) + 1 + strlen(name) >= KSYM_NAME_LEN)
		return "a name too long to look for its cold part";
	memmove(name + strlen(modname) + 1, name, strlen(name) + 1);
	memcpy(name, modname, strlen(modname));
	name[strlen(modname)] = ':';
	cold = kallsyms_lookup_name(name);
	if (cold)
		kpx_scan_one_cold(scan, cold);
	return scan->why;
}

static int kpx_scan_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* The scan of the function [@start, @start + @size), kept or made anew. */
static struct kpx_scan *kpx_scan_of(unsigned long start, unsigned long size)
{
	struct kpx_scan *scan = kpx_scan_kept;

	if (scan && scan->start == start && scan->end == start + size)
		return scan;
	scan = kzalloc(sizeof(*scan), GFP_KERNEL);
	if (!scan)
		return NULL;
	scan->start = start;
	scan->end = start + size;
	scan->why = kpx_scan_walk(scan, start, start + size);
	if (!scan->why)
		scan->why = kpx_scan_cold_part(scan);
	if (!scan->why)
		sort(scan->landing, scan->nr, sizeof(*scan->landing),
		     kpx_scan_cmp, NULL);
	if (kprobe_x86_batching()) {
		kpx_scan_free(kpx_scan_kept);
		kpx_scan_kept = scan;
	}
	return scan;
}

/* Does anything land strictly inside (@lo, @hi)? */
static bool kpx_scan_lands_in(struct kpx_scan *scan, unsigned long lo,
			      unsigned long hi)
{
	unsigned int first = 0, past = scan->nr, mid;

	/* the first landing past @lo */
	while (first < past) {
		mid = first + (past - first) / 2;
		if (scan->landing[mid] <= lo)
			first = mid + 1;
		else
			past = mid;
	}
	return first < scan->nr && scan->landing[first] < hi;
}

#ifdef CONFIG_JUMP_LABEL
#ifdef CONFIG_MODULES
/* The jump table of the module whose text holds @addr, if one does. */
static void kpx_module_jump_table(unsigned long addr, struct jump_entry **entry,
				  struct jump_entry **stop)
{
	struct module *mod;

	guard(preempt)();
	mod = __module_text_address(addr);
	if (mod) {
		*entry = mod->jump_entries;
		*stop = *entry + mod->num_jump_entries;
	}
}
#else
static void kpx_module_jump_table(unsigned long addr, struct jump_entry **entry,
				  struct jump_entry **stop)
{
}
#endif

/*
 * A static branch that is a nop today may become a jump tomorrow: none
 * of the text's may jump strictly inside (@lo, @hi). Called with
 * jump_label_lock() held.
 */
static bool kpx_jump_label_into(unsigned long lo, unsigned long hi)
{
	struct jump_entry *entry = __start___jump_table;
	struct jump_entry *stop = __stop___jump_table;
	unsigned long to;

	kpx_module_jump_table(lo, &entry, &stop);
	/* The module cannot go: kprobes holds a reference on it. */
	for (; entry < stop; entry++) {
		to = jump_entry_target(entry);
		if (to > lo && to < hi)
			return true;
	}
	return false;
}
#else
static bool kpx_jump_label_into(unsigned long lo, unsigned long hi)
{
	return false;
}
#endif

/* Other users of the text who patch it, or whose addresses must stay. */
static const char *kpx_region_reserved(void *start, void *last)
{
	const char *why = NULL;

	jump_label_lock();
	if (jump_label_text_reserved(start, last))
		why = "a jump label in the region";
	else if (kpx_jump_label_into((unsigned long)start,
				     (unsigned long)last + 1))
		why = "a static branch may jump into the region";
	jump_label_unlock();
	if (!why && static_call_text_reserved(start, last))
		why = "a static call in the region";
	if (!why && ftrace_text_reserved(start, last))
		why = "an ftrace site in the region";
	return why;
}

/*
 * Work out @op's region and copy its original bytes (as they read with no
 * probe) to @raw. Returns its size, or a negative errno; says why at
 * pr_debug level. Called with text_mutex held.
 */
static int kpx_opt_region(struct optimized_kprobe *op, u8 *raw)
{
	unsigned long addr = (unsigned long)op->kp.addr;
	unsigned long size, offset, func_end, pos = addr;
	u8 buf[MAX_INSN_SIZE];
	const char *why = NULL;
	struct kpx_scan *scan;
	struct insn insn;

	if (!kprobe_symbol_size_offset(addr, &size, &offset))
		return -ENOENT;
	func_end = addr - offset + size;

	while (!why && pos < addr + JMP32_INSN_SIZE) {
		why = kprobe_x86_copyable(pos, &insn, buf);
		if (!why && pos + insn.length > func_end)
			why = "the region leaves the function";
		if (!why)
			memcpy(raw + pos - addr, buf, insn.length);
		pos += insn.length;
	}
	if (!why) {
		scan = kpx_scan_of(addr - offset, size);
		if (!scan)
			return -ENOMEM;
		why = scan->why;
		if (!why && kpx_scan_lands_in(scan, addr, pos))
			why = "a branch or an exception fixup into the region";
		op->optinsn.std = scan->std;
		if (scan != kpx_scan_kept)
			kpx_scan_free(scan);
	}
	if (why) {
		pr_debug("cannot optimize %pS: %s\n", op->kp.addr, why);
		return -EINVAL;
	}
	return pos - addr;
}

/* Relocate the @size bytes of region in @code, from @from to @to. */
static int kpx_move_region(unsigned long from, u8 *code, unsigned int size,
			   unsigned long to)
{
	unsigned int done;
	struct insn insn;

	for (done = 0; done < size; done += insn.length) {
		if (insn_decode_kernel(&insn, code + done) < 0 ||
		    kprobe_x86_move_insn(from + done, &insn, code + done,
					 to + done))
			return -ERANGE;
	}
	return 0;
}

/* Emit @op's detour for the region in @raw and write it to its buffer. */
static int kpx_write_detour(struct optimized_kprobe *op, const u8 *raw,
			    unsigned int size)
{
	unsigned long buf = (unsigned long)op->optinsn.buf;
	u8 code[MAX_OPTIMIZED_LENGTH];
	int at, ret;
	u8 *img;

	img = kzalloc(MAX_OPTINSN_SIZE, GFP_KERNEL);
	if (!img)
		return -ENOMEM;

	memcpy(code, raw, size);
	at = kpx_emit_detour(op, img, code, size);
	ret = at < 0 ? at :
	      kpx_move_region((unsigned long)op->kp.addr, img + at, size,
			      buf + at);
	if (!ret) {
		guard(mutex)(&text_mutex);
		perf_event_text_poke(op->optinsn.buf, NULL, 0, img,
				     MAX_OPTINSN_SIZE);
		text_poke(op->optinsn.buf, img, MAX_OPTINSN_SIZE);
		op->kp.ainsn.region_copy = op->optinsn.buf + at;
	}
	kfree(img);
	return ret;
}

int arch_prepared_optinsn(struct arch_optimized_insn *optinsn)
{
	return !!optinsn->buf;
}

/*
 * Another probe inside the region keeps this one a breakpoint: the jump
 * would overwrite its int3, or skip it.
 */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	int i;

	for (i = 1; i < op->optinsn.size; i++) {
		if (get_kprobe(op->kp.addr + i))
			return -EEXIST;
	}
	return 0;
}

/*
 * A region of one instruction has no middle for a task to be preempted
 * in: its jump needs no grace period, only text_poke_bp()'s care for CPUs
 * arriving at its first byte meanwhile.
 */
bool arch_optimized_kprobe_needs_wait(struct optimized_kprobe *op)
{
	return op->optinsn.size != op->kp.ainsn.len;
}

int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return addr >= op->kp.addr && addr < op->kp.addr + op->optinsn.size;
}

/*
 * Called with kprobe_mutex and cpus_read_lock() held. text_mutex is taken
 * only around what needs it, since the checks for jump labels and static
 * calls take locks that come before it in the lock order.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	u8 raw[MAX_OPTIMIZED_LENGTH];
	kprobe_opcode_t *buf;
	const char *why;
	long disp;
	int size;

	lockdep_assert_cpus_held();
	scoped_guard(mutex, &text_mutex)
		size = kpx_opt_region(op, raw);
	if (size < 0)
		return size;
	why = kpx_region_reserved(op->kp.addr, op->kp.addr + size - 1);
	if (why) {
		pr_debug("cannot optimize %pS: %s\n", op->kp.addr, why);
		return -EBUSY;
	}

	buf = get_optinsn_slot();
	if (!buf)
		return -ENOMEM;
	disp = (long)buf - (long)(op->kp.addr + JMP32_INSN_SIZE);
	op->optinsn.buf = buf;
	op->optinsn.size = size;
	memcpy(op->optinsn.orig, raw, JMP32_INSN_SIZE);
	if (disp != (s32)disp || kpx_write_detour(op, raw, size)) {
		op->optinsn.buf = NULL;
		op->kp.ainsn.region_copy = NULL;
		free_optinsn_slot(buf, 0);
		return -ERANGE;
	}
	return 0;
}

/*
 * The buffer may still be running on a preempted task: it is freed
 * dirty, reused only after a tasks-RCU grace period.
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	kprobe_opcode_t *buf = op->optinsn.buf;

	if (!buf)
		return;
	op->kp.ainsn.region_copy = NULL;
	op->optinsn.buf = NULL;
	perf_event_text_poke(buf, buf, MAX_OPTINSN_SIZE, NULL, 0);
	free_optinsn_slot(buf, 1);
}

static void kpx_jump_bytes(struct optimized_kprobe *op, u8 *insn)
{
	__text_gen_insn(insn, JMP32_INSN_OPCODE, op->kp.addr, op->optinsn.buf,
			JMP32_INSN_SIZE);
}

/* Put the jumps of every probe on @oplist in place, in one batch. */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *next;
	u8 insn[JMP32_INSN_SIZE];

	list_for_each_entry_safe(op, next, oplist, list) {
		kpx_jump_bytes(op, insn);
		/* text_poke_bp's batch reports the change to perf itself */
		text_poke_queue(op->kp.addr, insn, JMP32_INSN_SIZE, NULL);
		list_del_init(&op->list);
	}
	text_poke_finish();
}

/*
 * Undo jumps without text_poke_bp(), whose emulation knows no int3 that
 * stays: first the int3 over each jump's opcode, so that a CPU arriving
 * traps into the probe (and runs the region copy, the state still being
 * ACTIVE); once every CPU has seen that, the original bytes after it.
 * No CPU can be inside a jump's displacement bytes meanwhile.
 */
static void kpx_unjump(struct list_head *oplist, struct optimized_kprobe *one)
{
	static const u8 int3 = INT3_INSN_OPCODE;
	struct optimized_kprobe *op;
	u8 jump[JMP32_INSN_SIZE], now[JMP32_INSN_SIZE];

	lockdep_assert_held(&text_mutex);
	if (one) {
		text_poke(one->kp.addr, &int3, INT3_INSN_SIZE);
	} else {
		list_for_each_entry(op, oplist, list)
			text_poke(op->kp.addr, &int3, INT3_INSN_SIZE);
	}
	text_poke_sync();

	op = one ?: list_first_entry_or_null(oplist, struct optimized_kprobe,
					     list);
	while (op) {
		kpx_jump_bytes(op, jump);
		text_poke(op->kp.addr + INT3_INSN_SIZE,
			  op->optinsn.orig + INT3_INSN_SIZE,
			  JMP32_INSN_SIZE - INT3_INSN_SIZE);
		memcpy(now, op->optinsn.orig, JMP32_INSN_SIZE);
		now[0] = INT3_INSN_OPCODE;
		perf_event_text_poke(op->kp.addr, jump, JMP32_INSN_SIZE, now,
				     JMP32_INSN_SIZE);
		if (one || list_is_last(&op->list, oplist))
			break;
		op = list_next_entry(op, list);
	}
	text_poke_sync();
}

void arch_unoptimize_kprobe(struct optimized_kprobe *op)
{
	kpx_unjump(NULL, op);
}

void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	kpx_unjump(oplist, NULL);
	list_splice_tail_init(oplist, done_list);
}

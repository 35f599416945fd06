// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: deciding whether an address can be probed, and how.
 *
 * Everything here runs at registration, with kprobe_mutex, cpus_read_lock()
 * and text_mutex held: no text_poke_bp() can be in flight, and no probe
 * can be armed or disarmed under our feet.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/cfi.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kgdb.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/unaligned.h>

#include <asm/alternative.h>
#include <asm/ibt.h>
#include <asm/insn.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

#include "common.h"

#define KPX_OPERAND_SIZE_PREFIX	0x66

/* Copy up to MAX_INSN_SIZE bytes of text, stopping at an unreadable page. */
static int kpx_read_text(unsigned long addr, u8 *buf)
{
	int got = 0;

	while (got < MAX_INSN_SIZE) {
		unsigned long pos = addr + got;
		int chunk = min_t(unsigned long, MAX_INSN_SIZE - got,
				  PAGE_SIZE - offset_in_page(pos));

		if (copy_from_kernel_nofault(buf + got, (void *)pos, chunk))
			break;
		got += chunk;
	}
	return got;
}

/* The byte that an armed kprobe's int3 at @addr hides, else @byte itself. */
static u8 kpx_byte_under_int3(unsigned long addr, u8 byte)
{
	struct kprobe *kp;

	guard(rcu)();
	kp = get_kprobe((void *)addr);
	if (kp && !kprobe_gone(kp) && !kprobe_ftrace(kp))
		return kp->opcode;
	return byte;
}

/*
 * Bytes that an optimized probe's jump covers read as what it replaced.
 * The jump starts at an instruction boundary, so only an instruction
 * starting inside it can see it. Callers hold text_mutex, under which
 * KPROBE_FLAG_OPTIMIZED and the jump come and go together.
 */
static void kpx_recover_jump(unsigned long addr, u8 *buf, int len)
{
#ifdef CONFIG_OPTPROBES
	struct optimized_kprobe *op;
	struct kprobe *kp;
	int back, i;

	guard(rcu)();
	for (back = 0; back < JMP32_INSN_SIZE; back++) {
		kp = get_kprobe((void *)(addr - back));
		if (!kp || !kprobe_optimized(kp))
			continue;
		op = container_of(kp, struct optimized_kprobe, kp);
		for (i = back; i < JMP32_INSN_SIZE && i - back < len; i++)
			buf[i - back] = op->optinsn.orig[i];
		return;
	}
#endif
}

/*
 * Decode the instruction at @addr as it reads without kprobes: the int3 of
 * an armed probe, or the jump of an optimized one, gives way to the bytes
 * it replaced, and an ftrace site reads as the 5-byte nop it is while
 * untraced. @buf gets the bytes.
 */
int kprobe_x86_fetch(unsigned long addr, u8 *buf, struct insn *insn)
{
	int len = kpx_read_text(addr, buf);

	kpx_recover_jump(addr, buf, len);
	/*
	 * The site is the 5-byte call to __fentry__ (CALL_INSN_SIZE, not
	 * ftrace's MCOUNT_INSN_SIZE, which kernels without a function tracer
	 * do not define).
	 */
	if (ftrace_location(addr) == addr) {
		if (len < CALL_INSN_SIZE)
			return -EFAULT;
		memcpy(buf, x86_nops[CALL_INSN_SIZE], CALL_INSN_SIZE);
	} else if (len && buf[0] == INT3_INSN_OPCODE) {
		buf[0] = kpx_byte_under_int3(addr, buf[0]);
	}

	if (!len || insn_decode(insn, buf, len, INSN_MODE_KERN) < 0)
		return -EILSEQ;
	return 0;
}

static bool kpx_kgdb_breakpoint(unsigned long addr)
{
#ifdef CONFIG_KGDB
	return kgdb_has_hit_break(addr);
#else
	return false;
#endif
}

/*
 * The instruction starts of the function probed last, as far as a walk
 * has gone: probing a function in many places, in one batch or one probe
 * per call, walks it once, not once per probe.  Its instructions stay
 * where they are: what others patch (jump labels, static calls, ftrace,
 * other probes) keeps their lengths, and the map is forgotten when some
 * text goes (arch_kprobe_forget_text(), with kprobe_mutex held) or when
 * the walk stopped on an error, which may not last (a kgdb breakpoint).
 * Only kernel and module text gets here (kprobe_check_location() refuses
 * the rest first), and only that text is retired.  Under text_mutex, and
 * kprobe_mutex, which every registration holds.
 */
struct kpx_func_map {
	unsigned long start;
	unsigned long size;
	unsigned long next;	/* where the walk goes on, or ended */
	int stop;		/* the error that ended it, or 0 */
	unsigned long starts[];	/* a bit per byte: an instruction starts */
};

/*
 * Walk the instructions of a function from @pos, one of their starts, up
 * to @addr; mark each start in @map, if given. *@end gets where the walk
 * stopped: the first start at or past @addr, or the instruction that
 * ended it early with an error.
 */
static int kpx_walk(unsigned long pos, unsigned long addr, unsigned long *end,
		    struct kpx_func_map *map)
{
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	for (; pos < addr; pos += insn.length) {
		if (map)
			__set_bit(pos - map->start, map->starts);
		*end = pos;
		if (kprobe_x86_fetch(pos, buf, &insn))
			return -EILSEQ;
		/* kgdb keeps what its int3 replaced to itself */
		if (buf[0] == INT3_INSN_OPCODE && kpx_kgdb_breakpoint(pos))
			return -EINVAL;
	}
	if (map && pos - map->start < map->size)
		__set_bit(pos - map->start, map->starts);
	*end = pos;
	return 0;
}

/* Not for huge symbols (a section's end): walk those as before. */
#define KPX_MAP_MAX_SIZE	SZ_256K

static bool kpx_batch;
static struct kpx_func_map *kpx_map;

void arch_kprobe_batch_begin(void)
{
	kpx_batch = true;
}

static void kpx_map_forget(void)
{
	kvfree(kpx_map);
	kpx_map = NULL;
}

void arch_kprobe_batch_end(void)
{
	kpx_batch = false;
	if (kpx_map && kpx_map->stop)
		kpx_map_forget();
	kprobe_x86_opt_batch_end();
}

void arch_kprobe_forget_text(void)
{
	kpx_map_forget();
}

/* Whether a registration runs: what is learned may be kept. */
bool kprobe_x86_batching(void)
{
	return kpx_batch;
}

static struct kpx_func_map *kpx_map_of(unsigned long start, unsigned long size)
{
	struct kpx_func_map *map = kpx_map;

	if (!kpx_batch || size > KPX_MAP_MAX_SIZE)
		return NULL;
	if (map && map->start == start && map->size == size)
		return map;

	kvfree(map);
	map = kvzalloc(struct_size(map, starts, BITS_TO_LONGS(size)),
		       GFP_KERNEL);
	kpx_map = map;
	if (map) {
		map->start = start;
		map->size = size;
		map->next = start;
	}
	return map;
}

static int kpx_boundary_error(unsigned long addr, unsigned long at, int err)
{
	if (err == -EINVAL)
		pr_info("cannot probe %pS: kgdb breakpoint at %pS\n",
			(void *)addr, (void *)at);
	else
		pr_debug("%pS is not at an instruction boundary\n",
			 (void *)addr);
	return err;
}

/*
 * Is @addr where one of the instructions of its function starts? Walk the
 * function from its first byte, or look it up in the map of a batch.
 */
static int kpx_check_boundary(unsigned long addr)
{
	unsigned long size, offset, end;
	struct kpx_func_map *map;
	int ret;

	lockdep_assert_held(&text_mutex);
	if (!kprobe_symbol_size_offset(addr, &size, &offset))
		return -EILSEQ;

	map = kpx_map_of(addr - offset, size);
	if (!map) {
		ret = kpx_walk(addr - offset, addr, &end, NULL);
		if (!ret && end != addr)
			ret = -EILSEQ;
		return ret ? kpx_boundary_error(addr, end, ret) : 0;
	}

	if (addr >= map->next && !map->stop)
		map->stop = kpx_walk(map->next, addr, &map->next, map);
	if (addr > map->next)
		return kpx_boundary_error(addr, map->next, map->stop ?: -EILSEQ);
	if (!test_bit(addr - map->start, map->starts))
		return kpx_boundary_error(addr, addr, -EILSEQ);
	return 0;
}

static bool kpx_has_prefix(struct insn *insn, insn_byte_t wanted)
{
	insn_byte_t prefix;
	int i;

	for_each_insn_prefix(insn, i, prefix) {
		if (prefix == wanted)
			return true;
	}
	return false;
}

/* One-byte opcodes. Returns why @insn cannot be probed, or NULL. */
static const char *kpx_classify_onebyte(struct arch_specific_insn *ai,
					struct insn *insn)
{
	u8 opcode = insn->opcode.bytes[0];
	u8 modrm = insn->modrm.bytes[0];

	switch (opcode) {
	case 0x70 ... 0x7f:		/* Jcc rel8 */
		ai->action = KPX_JCC;
		ai->cond = opcode & 0xf;
		ai->rel = insn->immediate.value;
		break;
	case 0xe0 ... 0xe3:		/* LOOPNE, LOOPE, LOOP, JrCXZ */
		ai->action = KPX_LOOP;
		ai->cond = opcode & 3;
		ai->width = insn->addr_bytes;
		ai->rel = insn->immediate.value;
		break;
	case CALL_INSN_OPCODE:		/* rel32 */
		ai->action = KPX_CALL;
		ai->rel = insn->immediate.value;
		break;
	case JMP32_INSN_OPCODE:
	case JMP8_INSN_OPCODE:
		ai->action = KPX_JMP;
		ai->rel = insn->immediate.value;
		break;
	case 0xc2:			/* RET imm16 */
		ai->action = KPX_RET;
		ai->rel = (u16)insn->immediate.value;
		break;
	case RET_INSN_OPCODE:
		ai->action = KPX_RET;
		break;
	case 0xfa:
		ai->action = KPX_CLI;
		break;
	case 0xfb:
		ai->action = KPX_STI;
		break;
	case 0x9c:
		ai->action = KPX_PUSHF;
		break;
	case 0x9d:
		ai->action = KPX_POPF;
		break;
	case 0xff:			/* group 5 */
		switch (X86_MODRM_REG(modrm)) {
		case 2:
			ai->action = KPX_STEP_CALL;
			break;
		case 4:
			ai->action = KPX_STEP_JMP;
			break;
		case 3:
		case 5:
			return "far branch";
		}
		break;
	case 0x9a:			/* far CALL, far JMP, far RET */
	case 0xea:
	case 0xca:
	case 0xcb:
		return "far branch";
	case 0xcf:
		return "IRET";
	case INT3_INSN_OPCODE:
		return "int3 not placed by kprobes";
	case 0xcd:			/* INT n, INTO, INT1 */
	case 0xce:
	case 0xf1:
		return "software interrupt";
	case 0xf4:
		/* the slot runs with IRQs off: nothing would end the halt */
		return "HLT";
	case 0x17:			/* POP SS */
		return "loads SS";
	case MOV_SREG_OPCODE:		/* MOV Sreg, r/m */
		if (X86_MODRM_REG(modrm) == 2)
			return "loads SS";
		break;
	case 0xc7:
		if (modrm == 0xf8)
			return "XBEGIN";
		break;
	}
	return NULL;
}

/* Two- and three-byte opcodes (0x0f escape). */
static const char *kpx_classify_escaped(struct arch_specific_insn *ai,
					struct insn *insn)
{
	u8 opcode = insn->opcode.bytes[1];
	u8 modrm = insn->modrm.bytes[0];

	switch (opcode) {
	case 0x80 ... 0x8f:		/* Jcc rel32 */
		ai->action = KPX_JCC;
		ai->cond = opcode & 0xf;
		ai->rel = insn->immediate.value;
		break;
	case 0x0b:			/* UD2, UD1, UD0 */
	case 0xb9:
	case 0xff:
		return "undefined opcode (UD)";
	case 0x05:			/* SYSCALL, SYSRET, SYSENTER, SYSEXIT */
	case 0x07:
	case 0x34:
	case 0x35:
		return "system call or return";
	case 0xaa:
		return "RSM";
	case 0x01:
		if (X86_MODRM_MOD(modrm) != 3)
			break;
		/* VMX and SVM: VMCALL, VMLAUNCH, VMRUN, STGI, ... */
		if (X86_MODRM_REG(modrm) == 0 || X86_MODRM_REG(modrm) == 3)
			return "virtualization instruction";
		if (modrm == 0xf8)
			return "SWAPGS";
		if (modrm == 0xc9 || modrm == 0xfb)
			return "MWAIT";
		break;
	}
	return NULL;
}

/* Set up p->ainsn for @insn. Returns why it cannot be probed, or NULL. */
static const char *kpx_classify(struct kprobe *p, struct insn *insn)
{
	struct arch_specific_insn *ai = &p->ainsn;
	const char *why;

	ai->len = insn->length;
	ai->action = KPX_STEP;

	if (insn_has_emulate_prefix(insn))
		return "forced-emulation prefix";
	if (insn_is_rex2(insn))
		return "REX2 prefix";
	/* VEX and EVEX encode no branch and nothing that touches IF */
	if (insn_is_avx(insn))
		return NULL;

	if (insn->opcode.bytes[0] == 0x0f)
		why = kpx_classify_escaped(ai, insn);
	else
		why = kpx_classify_onebyte(ai, insn);
	if (why)
		return why;

	/* 16-bit branches, calls and flag images are not worth emulating */
	if (ai->action != KPX_STEP &&
	    kpx_has_prefix(insn, KPX_OPERAND_SIZE_PREFIX))
		return "operand-size prefix";
	return NULL;
}

/* An int3 over an ENDBR would make an indirect branch to it fault. */
static bool kpx_is_endbr(struct insn *insn, const u8 *buf)
{
	return insn->length == 4 && is_endbr(get_unaligned((const u32 *)buf));
}

/*
 * The kCFI check before an indirect call is "movl $-hash, %r10d; addl
 * -4(%reg), %r10d; je 1f; ud2". The trap handler decodes the first two to
 * report the types, so an int3 must not hide them: refuse @addr if one of
 * the next three instructions is a registered CFI trap.
 */
static bool kpx_in_cfi_check(unsigned long addr, unsigned int len)
{
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;
	int i;

	if (!IS_ENABLED(CONFIG_CFI_CLANG))
		return false;

	addr += len;
	for (i = 0; i < 3; i++, addr += insn.length) {
		if (is_cfi_trap(addr))
			return true;
		if (kprobe_x86_fetch(addr, buf, &insn))
			return false;
	}
	return false;
}

/*
 * Why the instruction @insn (bytes in @buf) at p->addr cannot carry a
 * probe, or NULL; sets up p->ainsn for it.
 */
static const char *kpx_refuse(struct kprobe *p, struct insn *insn,
			      const u8 *buf)
{
	const char *why = kpx_classify(p, insn);

	if (!why && alternatives_text_reserved(p->addr,
					       p->addr + insn->length - 1))
		why = "alternatives site";
	if (!why && kpx_is_endbr(insn, buf))
		why = "ENDBR";
	if (!why && kpx_in_cfi_check((unsigned long)p->addr, insn->length))
		why = "part of a CFI check";
	return why;
}

/*
 * Check that p->addr can be probed and decide how to handle a hit. On
 * success p->opcode and p->ainsn (but for the slot) are set, @insn is the
 * decoded instruction and @image the bytes to copy to the slot, still to
 * be relocated for its address.
 */
int kprobe_x86_decode(struct kprobe *p, struct insn *insn, u8 *image)
{
	unsigned long addr = (unsigned long)p->addr;
	const char *why;
	int ret;

	ret = kpx_check_boundary(addr);
	if (ret)
		return ret;
	if (kprobe_x86_fetch(addr, image, insn))
		return -EILSEQ;

	why = kpx_refuse(p, insn, image);
	if (why) {
		pr_info("cannot probe %pS: %s\n", p->addr, why);
		return -EINVAL;
	}

	/* the slot needs room for the int3 after the copy */
	if (insn->length + INT3_INSN_SIZE > MAX_INSN_SIZE) {
		pr_info("cannot probe %pS: instruction too long\n", p->addr);
		return -ENOSPC;
	}

	p->opcode = image[0];

	/*
	 * An indirect CALL or JMP (FF /2, FF /4) becomes PUSH r/m (FF /6)
	 * with the same operand: the slot fetches the target, the handler
	 * branches to it.
	 */
	if (p->ainsn.action == KPX_STEP_CALL || p->ainsn.action == KPX_STEP_JMP) {
		int at = insn_offset_modrm(insn);

		image[at] = (image[at] & ~0x38) | (6 << 3);
	}
	return 0;
}

/*
 * Make a RIP-relative operand of the copy of @insn, from @from, in
 * @image, to run at @to, address what the original does. Fails if @to
 * is out of its reach.
 */
int kprobe_x86_move_insn(unsigned long from, struct insn *insn, u8 *image,
			 unsigned long to)
{
	long target, disp;

	if (!IS_ENABLED(CONFIG_X86_64) || !insn_rip_relative(insn))
		return 0;

	target = (long)from + insn->length + insn->displacement.value;
	disp = target - ((long)to + insn->length);
	if (disp != (s32)disp)
		return -EINVAL;
	put_unaligned((s32)disp, (s32 *)(image + insn_offset_displacement(insn)));
	return 0;
}

/* The same for a probe's instruction copied to @slot. */
int kprobe_x86_relocate(struct kprobe *p, struct insn *insn, u8 *image,
			kprobe_opcode_t *slot)
{
	return kprobe_x86_move_insn((unsigned long)p->addr, insn, image,
				    (unsigned long)slot);
}

/*
 * May a copy run with the probed context's flags and go straight on, with
 * no second trap (a boost slot, an optimized probe's detour)? Only a
 * plain instruction can: a branch, a call or anything touching IF is
 * emulated, an indirect branch needs finishing in the handler, and an
 * instruction with an exception-table entry must fault at its own
 * address, which only the trapping path can pretend.
 */
static bool kpx_runs_anywhere(struct kprobe *p)
{
	return p->ainsn.action == KPX_STEP &&
	       !search_exception_tables((unsigned long)p->addr);
}

/*
 * ... and for boosting, the copy and the jump back must fit one slot.  A
 * relative JMP or Jcc boosts as well: its boost slot holds the jump written
 * again to reach the same target from there (core.c).  It still does not
 * run anywhere: an optimized probe's detour copies no branch.
 */
bool kprobe_x86_boostable(struct kprobe *p)
{
	if (p->ainsn.action == KPX_JMP || p->ainsn.action == KPX_JCC)
		return true;
	return kpx_runs_anywhere(p) &&
	       p->ainsn.len + JMP32_INSN_SIZE <= MAX_INSN_SIZE;
}

/*
 * May the instruction at @addr run from a copy anywhere else, with no trap
 * before or after it, as every instruction an optimized probe's detour
 * copies must? The same classes as boosting allow, and nothing another
 * part of the kernel patches. @insn and @buf get the decoded instruction.
 *
 * Return: NULL if it may, else why not.
 */
const char *kprobe_x86_copyable(unsigned long addr, struct insn *insn, u8 *buf)
{
	struct kprobe tmp = { .addr = (kprobe_opcode_t *)addr };
	const char *why;

	if (kprobe_x86_fetch(addr, buf, insn))
		return "not an instruction";
	why = kpx_refuse(&tmp, insn, buf);
	if (why)
		return why;
	if (!kpx_runs_anywhere(&tmp))
		return "a branch, touches IF, or has an exception-table entry";
	return NULL;
}

/*
 * Where a probe asked for at @addr + @offset goes. With IBT a function
 * starts with ENDBR, which must not be replaced; offsets 0 and 4 then both
 * mean the entry and land after it.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long entry = 0;
	u32 head;

	if (copy_from_kernel_nofault(&head, (void *)addr, sizeof(head)))
		return NULL;
	if (is_endbr(head))
		entry = ENDBR_INSN_SIZE;

	*on_func_entry = !offset || offset == entry;
	if (*on_func_entry)
		offset = entry;
	return (kprobe_opcode_t *)(addr + offset);
}

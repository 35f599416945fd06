// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kprobes_core: where a probe may go and where it may not,
 * what its handlers see, faults in the probed instruction and in
 * handlers, and a probe on this module's init text.
 */
#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/asm.h>
#include <asm/extable.h>
#include <asm/ibt.h>
#include <asm/text-patching.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/asm-extable.h>
#endif

/* The core's internals that these cases look at, exported for KUnit only */
#include "../kernel/kprobes_internal.h"
#include "test_kprobes.h"

/* Not text at all: registering a probe here must fail. */
static u32 kprobes_test_data_object = 1;

static int reenter_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->pre_hits++;
	tp->reenter(TEST_ARG);
	return 0;
}

static void reenter_post(struct kprobe *kp, struct pt_regs *regs,
			 unsigned long flags)
{
	struct test_probe *tp = to_test_probe(kp);

	tp->post_hits++;
	tp->reenter(TEST_ARG);
}

/* Skips the probed function: the call returns what the redirect returns. */
static int redirect_pre(struct kprobe *kp, struct pt_regs *regs)
{
	to_test_probe(kp)->pre_hits++;
	instruction_pointer_set(regs, (unsigned long)kprobes_test_redirect);
	return 1;
}

static unsigned long expected_ip(struct kprobe *kp)
{
	return (unsigned long)kp->addr +
	       (kprobe_ftrace(kp) ? PROBE_FTRACE_IP_BIAS : PROBE_IP_BIAS);
}

/* Registration */

/*
 * Where a function's entry probe goes: past an ENDBR, if it has one (x86
 * with IBT), since an int3 there would make an indirect call fault.  This
 * file is built without ftrace call sites, so its own functions need no
 * more than that.
 */
static unsigned long entry_probe_point(unsigned long fn)
{
#ifdef CONFIG_X86_64
	u32 insn;

	if (!copy_from_kernel_nofault(&insn, (void *)fn, sizeof(insn)) &&
	    is_endbr(insn))
		return fn + ENDBR_INSN_SIZE;
#endif
	return fn;
}

/*
 * The size of the compiler-made preamble symbol at @addr (__pfx_ padding
 * before a function with CALL_PADDING, __cfi_ with kCFI), or 0 when
 * @addr starts something else.
 */
static unsigned long preamble_size(unsigned long addr)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long off, size;

	if (!kpt_symbol_of(addr, name, &off, &size))
		return 0;
	if (!str_has_prefix(name, "__pfx_") && !str_has_prefix(name, "__cfi_"))
		return 0;
	return size;
}

static void register_by_symbol(struct kunit *test)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);
	int i;

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)tp->kp.addr,
			entry_probe_point((unsigned long)kprobes_test_target));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kprobes_test_target(i), i * 3 + 1);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 3);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 3);
	KUNIT_EXPECT_TRUE(test, tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
}

static void register_by_address(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	struct test_probe *tp;
	int i;

	tp = kpt_probe_at(test, 'A', NULL, kpt_place_addr(test, pc->place));
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	for (i = 0; i < 2; i++)
		kprobes_test_marked(i);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 2);
	KUNIT_EXPECT_EQ(test, !!(tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY),
			pc->place == KPT_PLACE_ENTRY);
}

static void register_symbol_offset(struct kunit *test)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);

	kpt_require_mark(test);
	tp->kp.symbol_name = "kprobes_test_marked";
	tp->kp.offset = kpt_mark_offset;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, tp->kp.addr, kpt_mark_addr());
	KUNIT_EXPECT_FALSE(test, tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(1), MARK_AFTER + 1);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	/* It fired at that very instruction, before it ran. */
	KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
}

/* addr plus offset, no symbol: what perf_event_open() passes. */
static void register_address_offset(struct kunit *test)
{
	struct test_probe *tp = kpt_probe_at(test, 'A', NULL, kprobes_test_marked);

	kpt_require_mark(test);
	tp->kp.offset = kpt_mark_offset;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, tp->kp.addr, kpt_mark_addr());
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
}

static void reject_address_and_symbol(struct kunit *test)
{
	struct test_probe *tp = kpt_probe_at(test, 'A', NULL, kprobes_test_target);

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
	/* Nothing was left behind: the address alone registers fine. */
	tp->kp.symbol_name = NULL;
	kpt_clear_for_reuse(&tp->kp);
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
}

static void reject_no_location(struct kunit *test)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);

	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
	tp->kp.offset = 4;
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
}

static void reject_unknown_symbol(struct kunit *test)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);

	tp->kp.symbol_name = "kprobes_test_no_such_function";
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -ENOENT);
}

static void reject_inside_instruction(struct kunit *test)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);
	int off, ret;

	kpt_require_mark(test);
	for (off = 1; off < MARK_LEN; off++) {
		tp->kp.symbol_name = "kprobes_test_marked";
		tp->kp.offset = kpt_mark_offset + off;
		kpt_clear_for_reuse(&tp->kp);
		ret = kpt_reg_kprobe(test, &tp->kp);
		if (IS_ENABLED(CONFIG_X86))
			KUNIT_EXPECT_EQ_MSG(test, ret, -EILSEQ, "byte %d", off);
		else
			KUNIT_EXPECT_TRUE_MSG(test, ret == -EILSEQ || ret == -EINVAL,
					      "byte %d: %d", off, ret);
	}
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
}

enum past_end { PAST_END_NEXT_ENTRY, PAST_END_LATER_INSN };

struct offset_case {
	const char *desc;
	enum past_end where;
};

static const struct offset_case offset_cases[] = {
	{ "sym+size(sym): the next function's entry", PAST_END_NEXT_ENTRY },
	{ "sym+N: an instruction in a later function", PAST_END_LATER_INSN },
};

KUNIT_ARRAY_PARAM_DESC(offset, offset_cases, desc);

/*
 * "sym+N" past the end of sym is read through kallsyms, as the base does:
 * it names whatever follows sym, an entry when it is one (probepoint.tc
 * of ftracetest probes such offsets).
 */
static void offset_past_end_names_what_follows(struct kunit *test)
{
	const struct offset_case *oc = test->param_value;
	unsigned long target = (unsigned long)kprobes_test_target;
	unsigned long size = kpt_symbol_size(kprobes_test_target);
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);
	unsigned long want, pad;

	KUNIT_ASSERT_GT(test, size, 0);
	tp->kp.symbol_name = "kprobes_test_target";
	if (oc->where == PAST_END_NEXT_ENTRY) {
		/*
		 * kallsyms sizes a symbol up to the one that follows it.  With
		 * CALL_PADDING (or kCFI) that is the next function's preamble,
		 * which the blacklist holds: refused, as the base refuses it.
		 * The function itself starts right after.
		 */
		while ((pad = preamble_size(target + size))) {
			tp->kp.offset = size;
			KUNIT_EXPECT_EQ_MSG(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL,
					    "a probe in the preamble at sym+%#lx", size);
			kpt_clear_for_reuse(&tp->kp);
			size += pad;
		}
		want = entry_probe_point(target + size);
		tp->kp.offset = size;
	} else {
		kpt_require_mark(test);
		want = (unsigned long)kpt_mark_addr();
		KUNIT_ASSERT_GE_MSG(test, want, target + size,
				    "kprobes_test_marked() must follow kprobes_test_target()");
		tp->kp.offset = want - target;
	}
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)tp->kp.addr, want);
	KUNIT_EXPECT_EQ(test, !!(tp->kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY),
			oc->where == PAST_END_NEXT_ENTRY);
	if (oc->where == PAST_END_LATER_INSN) {
		KUNIT_EXPECT_EQ(test, kprobes_test_marked(1), MARK_AFTER + 1);
		KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
		KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
	}
}

enum non_text { IN_DATA, ON_STACK, IN_HEAP };

/*
 * An address kallsyms cannot name is -ENOENT, as in the base; with
 * KALLSYMS_ALL it names module data, which is then refused as no text.
 */
struct non_text_case {
	const char *desc;
	enum non_text where;
	int err;
};

static const struct non_text_case non_text_cases[] = {
	{ "module data", IN_DATA,
	  IS_ENABLED(CONFIG_KALLSYMS_ALL) ? -EINVAL : -ENOENT },
	{ "stack", ON_STACK, -ENOENT },
	{ "heap", IN_HEAP, -ENOENT },
};

KUNIT_ARRAY_PARAM_DESC(non_text, non_text_cases, desc);

static void reject_non_text(struct kunit *test)
{
	const struct non_text_case *nc = test->param_value;
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);
	u32 on_stack = 0;

	switch (nc->where) {
	case IN_DATA:
		tp->kp.addr = (kprobe_opcode_t *)&kprobes_test_data_object;
		break;
	case ON_STACK:
		tp->kp.addr = (kprobe_opcode_t *)&on_stack;
		break;
	case IN_HEAP:
		tp->kp.addr = (kprobe_opcode_t *)tp;
		break;
	}
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), nc->err);
	OPTIMIZER_HIDE_VAR(on_stack);
}

/* A symbol that must not take a probe, with the reason in @desc. */
struct symbol_case {
	const char *desc;
	const char *symbol;
};

static void expect_symbol_rejected(struct kunit *test, const char *symbol)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);

	tp->kp.symbol_name = symbol;
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
}

static const struct symbol_case blacklist_cases[] = {
	{ "NOKPROBE_SYMBOL in this module", "kprobes_test_blacklisted" },
	{ "NOKPROBE_SYMBOL in the kernel", "notify_die" },
};

KUNIT_ARRAY_PARAM_DESC(blacklist, blacklist_cases, desc);

static void reject_blacklisted(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;

	expect_symbol_rejected(test, sc->symbol);
}

/* The same for the module's blacklisted function given by address. */
static void reject_blacklisted_address(struct kunit *test)
{
	struct test_probe *tp = kpt_probe_at(test, 'A', NULL,
					 kprobes_test_blacklisted);

	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
	kprobes_test_blacklisted(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
}

/* Do the blacklist entries on @list cover [@start, @end) without a gap? */
static bool bl_covers(struct list_head *list, unsigned long start,
		      unsigned long end)
{
	struct kprobe_blacklist_entry *ent;
	unsigned long addr = start;
	bool moved = true;

	while (addr < end && moved) {
		moved = false;
		list_for_each_entry(ent, list, list) {
			if (ent->start_addr <= addr && addr < ent->end_addr) {
				addr = ent->end_addr;
				moved = true;
			}
		}
	}
	return addr >= end;
}

static void bl_free(struct list_head *list)
{
	struct kprobe_blacklist_entry *ent, *tmp;

	list_for_each_entry_safe(ent, tmp, list, list) {
		list_del(&ent->list);
		kfree(ent);
	}
}

/*
 * From a function of this module past the end of the module's text.  Built
 * in, THIS_MODULE is NULL, and without modules struct module has no body.
 */
#if IS_MODULE(CONFIG_KPROBES_SANITY_TEST)
static void blacklist_area_past_module_text(struct kunit *test)
{
	unsigned long start = (unsigned long)kprobes_test_blacklisted;
	unsigned long end = (unsigned long)THIS_MODULE->mem[MOD_TEXT].base +
			    THIS_MODULE->mem[MOD_TEXT].size + PAGE_SIZE;
	LIST_HEAD(list);

	KUNIT_EXPECT_EQ(test, kprobe_bl_add_area(&list, start, end), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bl_covers(&list, start, end),
			      "a gap in an area running past the module's text");
	bl_free(&list);
}
#else
static void blacklist_area_past_module_text(struct kunit *test)
{
	kunit_skip(test, "built in: no module text to walk past");
}
#endif

/*
 * A blacklisted area is covered to its end even where kallsyms cannot size
 * its text: an area that is no text at all, and one running from this
 * module's text past its end.  Walked onto a list of our own, so the
 * kernel's blacklist is left alone.
 */
static void blacklist_area_has_no_gap(struct kunit *test)
{
	unsigned long start;
	LIST_HEAD(list);
	void *buf;

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	start = (unsigned long)buf;
	KUNIT_EXPECT_EQ(test, kprobe_bl_add_area(&list, start, start + 64), 0);
	KUNIT_EXPECT_TRUE_MSG(test, bl_covers(&list, start, start + 64),
			      "a gap in an area kallsyms cannot name");
	bl_free(&list);

	blacklist_area_past_module_text(test);
}

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
/*
 * Read without the cache's mutex: waiting for it is a voluntary context
 * switch, after which the reclaim worker may already be done with a slot
 * this test has only just freed.
 */
static int insn_slots_dirty(void)
{
	return data_race(kprobe_insn_slots.nr_garbage);
}
#endif

/*
 * A slot freed dirty (a CPU may still run in it) becomes free again once
 * no task can be in it, without anyone having to allocate or free more
 * slots to get it collected: the cache's count of dirty slots drops to 0.
 * The reclaim cannot finish before this task has switched voluntarily,
 * so the count read right after the free still holds the slot.
 */
static void insn_slot_dirty_reclaimed(struct kunit *test)
{
#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
	kprobe_opcode_t *slot;
	int i;

	slot = get_insn_slot();
	KUNIT_ASSERT_NOT_NULL(test, slot);
	free_insn_slot(slot, 1);
	KUNIT_EXPECT_GT(test, insn_slots_dirty(), 0);
	for (i = 0; i < 200 && insn_slots_dirty(); i++)
		msleep(50);
	KUNIT_EXPECT_EQ(test, insn_slots_dirty(), 0);
#else
	kunit_skip(test, "no instruction slots on this arch");
#endif
}

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
/* How many pages the insn cache has, as kallsyms counts them. */
static unsigned int insn_slot_pages(void)
{
	char sym[KSYM_NAME_LEN], type;
	unsigned int n = 0, symnum;
	unsigned long addr;

	for (;;) {
		symnum = n;
		if (kprobe_cache_get_kallsym(&kprobe_insn_slots, &symnum, &addr,
					     &type, sym))
			return n;
		n++;
	}
}
#endif

/*
 * The last page without a busy slot is kept: a lone slot taken and given
 * back in a loop, as a tool adding and removing one probe does, comes from
 * the same page every time, and no page is allocated or freed meanwhile.
 * Every free slot of the pages there are is taken first, so that the
 * test's slot comes from a page of its own.
 */
#define INSN_SLOT_FILL_MAX	4096

static void insn_slot_page_kept(struct kunit *test)
{
#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
	unsigned int pages, nr_fill = 0, i;
	kprobe_opcode_t **fill, *slot;
	unsigned long page;
	int round;

	fill = kunit_kcalloc(test, INSN_SLOT_FILL_MAX, sizeof(*fill), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fill);
	pages = insn_slot_pages();
	for (;;) {
		slot = get_insn_slot();
		if (!slot || insn_slot_pages() > pages ||
		    nr_fill == INSN_SLOT_FILL_MAX)
			break;
		fill[nr_fill++] = slot;
	}
	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_ASSERT_LT_MSG(test, nr_fill, INSN_SLOT_FILL_MAX,
			    "no new page after %d slots", nr_fill);
	page = (unsigned long)slot & PAGE_MASK;
	pages++;
	for (round = 0; round < 5; round++) {
		free_insn_slot(slot, 0);
		KUNIT_EXPECT_EQ_MSG(test, insn_slot_pages(), pages,
				    "pages once the slot is back, round %d", round);
		KUNIT_EXPECT_TRUE_MSG(test, __is_insn_slot_addr(&kprobe_insn_slots, page),
				      "the idle page was freed, round %d", round);
		slot = get_insn_slot();
		KUNIT_ASSERT_NOT_NULL(test, slot);
		KUNIT_EXPECT_EQ_MSG(test, (unsigned long)slot & PAGE_MASK, page,
				    "the slot came from another page, round %d",
				    round);
	}
	free_insn_slot(slot, 0);
	for (i = 0; i < nr_fill; i++)
		free_insn_slot(fill[i], 0);
#else
	kunit_skip(test, "no instruction slots on this arch");
#endif
}

/* What runs in probe context; the API itself may be probed. */
static const struct symbol_case own_code_cases[] = {
	{ "get_kprobe", "get_kprobe" },
	{ "kprobes_inc_nmissed_count", "kprobes_inc_nmissed_count" },
};

KUNIT_ARRAY_PARAM_DESC(own_code, own_code_cases, desc);

static void reject_kprobes_code(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;

	expect_symbol_rejected(test, sc->symbol);
}

static const struct symbol_case noinstr_cases[] = {
#if defined(CONFIG_X86_64)
	{ "entry text", "entry_SYSCALL_64" },
	{ "noinstr function", "exc_int3" },
#elif defined(CONFIG_X86_32)
	{ "entry text", "entry_INT80_32" },
	{ "noinstr function", "exc_int3" },
#elif defined(CONFIG_ARM64)
	{ "entry text", "el0t_64_sync" },
	{ "noinstr function", "el1h_64_sync_handler" },
#endif
	{ "cpuidle text", "default_idle_call" },
};

KUNIT_ARRAY_PARAM_DESC(noinstr, noinstr_cases, desc);

static void reject_noinstr(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;

	expect_symbol_rejected(test, sc->symbol);
}

static void reject_registered_again(struct kunit *test)
{
	struct test_probe *tp = kpt_probe_at(test, 'A', NULL, kprobes_test_target);

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	kpt_expect_refused(test, &tp->kp, -EINVAL);
	kprobes_test_target(0);
	kprobes_test_target(1);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 2);
}

static void unregister_unregistered(struct kunit *test)
{
	struct test_probe *live = kpt_probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *same_addr = kpt_probe_at(test, 'B', NULL,
						kprobes_test_target);
	struct test_probe *by_name = kpt_new_probe(test, 'C', NULL);

	by_name->kp.symbol_name = "kprobes_test_target";
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &live->kp), 0);
	unregister_kprobe(&same_addr->kp);
	unregister_kprobe(&by_name->kp);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, live->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, same_addr->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, by_name->pre_hits, 0);
}

static void register_again_after_unregister(struct kunit *test)
{
	struct test_probe *tp = kpt_new_probe(test, 'A', NULL);

	tp->kp.symbol_name = "kprobes_test_target";
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	kpt_unreg_kprobe(test, &tp->kp);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
	kpt_clear_for_reuse(&tp->kp);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
}

/* Handlers */

static void pre_handler_regs(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	struct test_probe *tp;

	tp = kpt_probe_at(test, 'A', NULL, kpt_place_addr(test, pc->place));
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	kprobes_test_marked(TEST_ARG);
	KUNIT_ASSERT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->pre_ip, expected_ip(&tp->kp));
	KUNIT_EXPECT_FALSE(test, tp->pre_preemptible);
	if (pc->place == KPT_PLACE_ENTRY) {
		if (HAVE_FIRST_ARG)
			KUNIT_EXPECT_EQ(test, tp->pre_arg, TEST_ARG);
	} else {
		KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
	}
}

static void pre_handler_redirect(struct kunit *test)
{
	struct test_probe *tp = kpt_probe_at(test, 'A', NULL, kprobes_test_target);

	tp->kp.pre_handler = redirect_pre;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_target(TEST_ARG), ~TEST_ARG);
	KUNIT_EXPECT_EQ(test, kprobes_test_target(7), ~7u);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	/* The probed instruction was skipped, and so was the post_handler. */
	KUNIT_EXPECT_EQ(test, tp->post_hits, 0);
	kpt_unreg_kprobe(test, &tp->kp);
	KUNIT_EXPECT_EQ(test, kprobes_test_target(TEST_ARG), TEST_ARG * 3 + 1);
}

/*
 * Where a post_handler finds the ip: after the probed instruction, in
 * place.  mips calls it at the break that follows the instruction's copy
 * in its slot, before it moves the EPC back to the text.
 */
static unsigned long post_handler_ip(struct kprobe *kp)
{
#ifdef CONFIG_MIPS
	return (unsigned long)&kp->ainsn.insn[1];
#else
	return (unsigned long)kp->addr + MARK_LEN;
#endif
}

static void post_handler_after_insn(struct kunit *test)
{
	struct call_log log = {};
	struct test_probe *tp;

	kpt_require_mark(test);
	tp = kpt_probe_at(test, 'A', &log, kpt_mark_addr());
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(2), MARK_AFTER + 2);
	KUNIT_ASSERT_EQ(test, tp->post_hits, 1);
	KUNIT_EXPECT_STREQ(test, log.seq, "Aa");
	KUNIT_EXPECT_EQ(test, tp->post_flags, 0);
	KUNIT_EXPECT_EQ(test, tp->pre_mark, MARK_BEFORE);
	KUNIT_EXPECT_EQ(test, tp->post_mark, MARK_AFTER);
	KUNIT_EXPECT_EQ(test, tp->post_ip, post_handler_ip(&tp->kp));
}

/*
 * An optimized probe on an instruction that its detour runs in place (on
 * arm, the push that begins the marked function): the instruction must run
 * once.  Should the architecture's callback also step it, as it does when
 * the detour it reads and the one it prepared disagree, the push runs
 * twice and the function returns on a moved stack.
 */
static void optimized_insn_runs_once(struct kunit *test)
{
#ifdef CONFIG_OPTPROBES
	struct test_probe *tp;
	void *at;
	int i;

	at = (void *)entry_probe_point((unsigned long)kprobes_test_marked);
	tp = kpt_probe_at(test, 'A', NULL, at);
	tp->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	if (!kpt_optimized(&tp->kp))
		kunit_skip(test, "the marked function's entry is not optimizable here");
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, kprobes_test_marked(i), MARK_AFTER + i);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 4);
	KUNIT_EXPECT_EQ(test, tp->kp.nmissed, 0);
#else
	kunit_skip(test, "no jump optimization in this kernel");
#endif
}

#ifdef CONFIG_OPTPROBES
static int opt_moving_pre(struct kprobe *kp, struct pt_regs *regs)
{
	to_test_probe(kp)->pre_hits++;
	return 1;
}
#endif

/*
 * opt_pre_handler(), which the detours of arm and powerpc call: a detour
 * goes on with the next instruction whatever a handler returns, so each
 * pre_handler of an aggregate runs, after one that returned non-zero too,
 * and a disabled one does not.  Called here with registers made up.
 */
static void opt_pre_handler_runs_every_handler(struct kunit *test)
{
#ifdef CONFIG_OPTPROBES
	struct test_probe *moving, *after, *off;
	struct pt_regs regs = {};
	struct kprobe *entry;

	kpt_require_mark(test);
	moving = kpt_probe_at(test, 'A', NULL, kpt_mark_addr());
	moving->kp.pre_handler = opt_moving_pre;
	after = kpt_probe_at(test, 'B', NULL, kpt_mark_addr());
	off = kpt_probe_at(test, 'C', NULL, kpt_mark_addr());
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &moving->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &after->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &off->kp), 0);
	KUNIT_ASSERT_EQ(test, disable_kprobe(&off->kp), 0);
	scoped_guard(preempt) {
		entry = get_kprobe(kpt_mark_addr());
		if (entry) {
			kprobe_running_set_kunit(entry);
			opt_pre_handler(entry, &regs);
			kprobe_running_done_kunit();
		}
	}
	KUNIT_ASSERT_NOT_NULL(test, entry);
	KUNIT_EXPECT_EQ(test, moving->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, after->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, off->pre_hits, 0);
#else
	kunit_skip(test, "no jump optimization in this kernel");
#endif
}

/*
 * The last post_handler leaves an armed breakpoint aggregate: the entry
 * drops it, so that the instruction may be boosted or optimized again.
 * Where each hit loads the handler once that is a plain store; where a
 * hit may test it and load it again to call it, the store waits for no
 * hit to be under way (stop_machine()), and is worth it only with an
 * optimizer: without one the entry keeps a handler that calls no one.
 */
static void post_handler_leaves_armed_aggregate(struct kunit *test)
{
	struct test_probe *stays, *leaves;
	struct call_log log = {};
	struct kprobe *entry;
	bool dropped;

	kpt_require_mark(test);
	stays = kpt_probe_at(test, 'A', &log, kpt_mark_addr());
	stays->kp.post_handler = NULL;
	leaves = kpt_probe_at(test, 'B', &log, kpt_mark_addr());
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &stays->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &leaves->kp), 0);
	kpt_unreg_kprobe(test, &leaves->kp);
	scoped_guard(rcu) {
		entry = get_kprobe(kpt_mark_addr());
		KUNIT_ASSERT_NOT_NULL(test, entry);
		dropped = !READ_ONCE(entry->post_handler);
	}
	KUNIT_EXPECT_EQ(test, dropped, arch_kprobe_post_handler_read_once() ||
			IS_ENABLED(CONFIG_OPTPROBES));
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(2), MARK_AFTER + 2);
	KUNIT_EXPECT_STREQ(test, log.seq, "A");
	KUNIT_EXPECT_EQ(test, leaves->post_hits, 0);
}

/* Both handlers call the probed function itself: two hits are missed. */
static void missed_in_own_handlers(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	struct test_probe *tp;

	tp = kpt_probe_at(test, 'A', NULL, kpt_place_addr(test, pc->place));
	tp->kp.pre_handler = reenter_pre;
	tp->kp.post_handler = reenter_post;
	tp->reenter = kprobes_test_marked;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->post_hits, 1);
	KUNIT_EXPECT_EQ(test, tp->kp.nmissed, 2UL);
	KUNIT_EXPECT_EQ(test, tp->kp.nmissed_by[KPROBE_MISS_RECURSION], 2UL);
	KUNIT_EXPECT_EQ(test, tp->kp.nmissed_by[KPROBE_MISS_BUSY], 0UL);
}

/* A handler calls a function another probe sits on: that one misses. */
static void missed_in_other_handler(struct kunit *test)
{
	struct test_probe *outer = kpt_probe_at(test, 'A', NULL,
					    kprobes_test_target);
	struct test_probe *inner = kpt_probe_at(test, 'B', NULL,
					    kprobes_test_other);

	outer->kp.pre_handler = reenter_pre;
	outer->kp.post_handler = NULL;
	outer->reenter = kprobes_test_other;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &outer->kp), 0);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &inner->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, outer->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed_by[KPROBE_MISS_RECURSION], 1UL);
	KUNIT_EXPECT_EQ(test, outer->kp.nmissed, 0UL);
	/* Outside any handler the inner probe works. */
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, inner->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, inner->kp.nmissed, 1UL);
}

/* One hit of the frames' test, as a trap's hit path takes the CPU. */
static bool nest_frames_hit(struct kprobe *p)
{
	if (kprobe_running_kunit() && !kprobe_nest_begin_kunit())
		return false;
	kprobe_running_set_kunit(p);
	return true;
}

/*
 * The nesting frames as the hit paths drive them, in contexts made up
 * with preempt_count(): a task's hit; a hit from a hardirq that nests in
 * it; and, between the hardirq hit's kprobe_nest_begin() and its
 * kprobe_running_set(), a hit from an NMI.  The task's probe still runs
 * there, so the NMI's hit nests as well, and each hit's end gives the CPU
 * back to the hit it interrupted, the task's last.
 */
static void nest_frames_nmi_in_window(struct kunit *test)
{
	static struct kprobe task_kp, irq_kp, nmi_kp;
	struct kprobe *in_window, *after_nmi, *after_irq;
	unsigned int depth_after_nmi, depth_after_irq;
	bool irq_ran, nmi_ran;
	int cpu;

	if (!arch_kprobe_nests())
		kunit_skip(test, "the arch's backend misses hits from interrupts in handlers");
	local_irq_disable();
	cpu = smp_processor_id();
	kprobe_running_set_kunit(&task_kp);

	__preempt_count_add(HARDIRQ_OFFSET);
	irq_ran = kprobe_running_kunit() && kprobe_nest_begin_kunit();
	in_window = kprobe_running_kunit();

	__preempt_count_add(NMI_OFFSET + HARDIRQ_OFFSET);
	nmi_ran = nest_frames_hit(&nmi_kp);
	if (nmi_ran)
		kprobe_running_done_kunit();
	__preempt_count_sub(NMI_OFFSET + HARDIRQ_OFFSET);
	after_nmi = kprobe_running_kunit();
	depth_after_nmi = kprobe_nest_depth_kunit(cpu);

	kprobe_running_set_kunit(&irq_kp);
	kprobe_running_done_kunit();
	__preempt_count_sub(HARDIRQ_OFFSET);
	after_irq = kprobe_running_kunit();
	depth_after_irq = kprobe_nest_depth_kunit(cpu);

	kprobe_running_done_kunit();
	local_irq_enable();

	KUNIT_EXPECT_TRUE(test, irq_ran);
	KUNIT_EXPECT_PTR_EQ(test, in_window, &task_kp);
	KUNIT_EXPECT_TRUE(test, nmi_ran);
	KUNIT_EXPECT_PTR_EQ(test, after_nmi, &task_kp);
	KUNIT_EXPECT_EQ(test, depth_after_nmi, 1U);
	KUNIT_EXPECT_PTR_EQ(test, after_irq, &task_kp);
	KUNIT_EXPECT_EQ(test, depth_after_irq, 0U);
	KUNIT_EXPECT_NULL(test, kprobe_running_kunit());
	KUNIT_EXPECT_EQ(test, kprobe_nest_depth_kunit(cpu), 0U);
}

/*
 * Hit while kprobes' own code holds the CPU (kprobe_busy_begin()), at
 * each place a probe can sit: missed, and counted as busy.  A probe that
 * shares its address with another is counted in both.
 */
static void missed_while_busy(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	void *addr = kpt_place_addr(test, pc->place);
	struct test_probe *a = kpt_probe_at(test, 'A', NULL, addr);
	struct test_probe *b = kpt_probe_at(test, 'B', NULL, addr);

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	kprobe_busy_begin();
	kprobes_test_marked(0);
	kprobe_busy_end();
	KUNIT_EXPECT_EQ(test, a->pre_hits, 0);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed_by[KPROBE_MISS_BUSY], 1UL);
	KUNIT_EXPECT_EQ(test, a->kp.nmissed_by[KPROBE_MISS_RECURSION], 0UL);

	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &b->kp), 0);
	kprobe_busy_begin();
	kprobes_test_marked(0);
	kprobe_busy_end();
	KUNIT_EXPECT_EQ(test, a->kp.nmissed_by[KPROBE_MISS_BUSY], 2UL);
	KUNIT_EXPECT_EQ(test, b->kp.nmissed_by[KPROBE_MISS_BUSY], 1UL);
	KUNIT_EXPECT_EQ(test, b->kp.nmissed, 1UL);
	/* Outside the busy section both fire. */
	kprobes_test_marked(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
}

/* The API is probeable: "perf probe register_kprobe" to debug a user. */
static const struct symbol_case api_cases[] = {
	{ "register_kprobe", "register_kprobe" },
	{ "register_kprobes", "register_kprobes" },
	{ "disable_kprobe", "disable_kprobe" },
	{ "enable_kprobe", "enable_kprobe" },
	{ "unregister_kprobes", "unregister_kprobes" },
};

KUNIT_ARRAY_PARAM_DESC(api, api_cases, desc);

/*
 * A probe on an API function fires once for each call this task makes,
 * and the probes the calls manage behave as they would without it.
 */
static void probe_on_the_api(struct kunit *test)
{
	const struct symbol_case *sc = test->param_value;
	struct test_probe *watch = kpt_new_probe(test, 'W', NULL);
	struct test_probe *a = kpt_probe_at(test, 'A', NULL, kprobes_test_target);
	struct test_probe *b = kpt_probe_at(test, 'B', NULL, kprobes_test_other);
	struct kprobe *just_b[] = { &b->kp };
	struct kprobe *both[] = { &a->kp, &b->kp };
	int ret;

	watch->kp.symbol_name = sc->symbol;
	watch->kp.pre_handler = kpt_count_own_sync;
	watch->kp.post_handler = NULL;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &watch->kp), 0);

	/* Each API function is called once while this task is counted. */
	WRITE_ONCE(kpt_sync_counted_task, current);
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	ret = register_kprobes(just_b, 1);
	if (!ret)
		ret = kunit_add_action_or_reset(test, kpt_unregister_kprobe_action,
						&b->kp);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a->kp), 0);
	kprobes_test_target(0);
	kprobes_test_other(0);
	unregister_kprobes(both, ARRAY_SIZE(both));
	WRITE_ONCE(kpt_sync_counted_task, NULL);
	kunit_remove_action(test, kpt_unregister_kprobe_action, &a->kp);
	kunit_remove_action(test, kpt_unregister_kprobe_action, &b->kp);

	KUNIT_EXPECT_EQ(test, watch->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, b->pre_hits, 1);
	kprobes_test_target(0);
	kprobes_test_other(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits + b->pre_hits, 2);
	/* and the API still works under the probe */
	kpt_clear_for_reuse(&a->kp);
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &a->kp), 0);
	kprobes_test_target(0);
	KUNIT_EXPECT_EQ(test, a->pre_hits, 2);
}

/* Module init text */

#if defined(MODULE) && HAVE_MARK
#define HAVE_INIT_PROBE	1
/*
 * kprobes_test_marked() again, in init text.  This module's init puts a
 * probe on its MARK_AFTER move, calls it once, and leaves the probe there.
 */
static __used noinline __noipa __init u32 kprobes_test_init_marked(u32 x)
{
	return kpt_mark_moves() + x;
}

static struct test_probe init_probe = {
	.id = 'I',
	.kp.pre_handler = kpt_record_pre,
};

static int init_probe_ret = -ENOENT;
static bool init_probe_in_init_text;

static int __init kprobes_test_init(void)
{
	int off = kpt_find_mark_in(kprobes_test_init_marked);

	if (off < 0) {
		init_probe_ret = off;
		return 0;
	}
	init_probe.kp.addr = (kprobe_opcode_t *)((u8 *)kprobes_test_init_marked + off);
	init_probe_in_init_text = within_module_init((unsigned long)init_probe.kp.addr,
						     THIS_MODULE);
	init_probe_ret = register_kprobe(&init_probe.kp);
	if (!init_probe_ret)
		kprobes_test_init_marked(0);
	return 0;
}
module_init(kprobes_test_init);

static void __exit kprobes_test_exit(void)
{
	if (!init_probe_ret)
		unregister_kprobe(&init_probe.kp);
}
module_exit(kprobes_test_exit);
#else
#define HAVE_INIT_PROBE	0
#endif

/*
 * A module's init text is retired when the module goes live, yet async
 * work its init started may still run there until the text is freed: the
 * probe on it must be GONE with the original instruction back in place.
 * KUnit runs this suite from that same LIVE notification, after kprobes
 * has had it and before the text is freed.
 */
static void init_text_disarmed_when_retired(struct kunit *test)
{
#if HAVE_INIT_PROBE
	unsigned long at = (unsigned long)init_probe.kp.addr;
	u8 want[MARK_LEN], seen[MARK_LEN];

	KUNIT_ASSERT_EQ(test, init_probe_ret, 0);
	KUNIT_EXPECT_EQ(test, init_probe.pre_hits, 1);
	/* powerpc64's module loader puts no section in the init text. */
	if (!init_probe_in_init_text)
		kunit_skip(test, "this arch keeps a module's init code with its core text");
	KUNIT_EXPECT_TRUE(test, kprobe_gone(&init_probe.kp));
	if (!within_module_init(at, THIS_MODULE))
		kunit_skip(test, "the init text is freed already");
	kpt_mark_bytes(want);
	KUNIT_ASSERT_EQ(test, copy_from_kernel_nofault(seen, (void *)at, MARK_LEN), 0);
	KUNIT_EXPECT_MEMEQ(test, seen, want, MARK_LEN);
#else
	kunit_skip(test, "needs module init text and a known instruction");
#endif
}

/* A load that faults, for the cases below, where a fixup can be written */
#ifdef CONFIG_X86
#define KPT_FAULT_LOAD		"movl (%1), %0"
#define KPT_FAULT_FIXUP		_ASM_EXTABLE(1b, 2b)
#endif

#ifdef CONFIG_ARM64
/* arm64 steps the load in an XOL slot; the fixup only moves the pc. */
#define KPT_FAULT_LOAD		"ldr %w0, [%1]"
#define KPT_FAULT_FIXUP		_ASM_EXTABLE_KACCESS(1b, 2b)
#endif

#ifdef KPT_FAULT_LOAD
/*
 * A load with an exception-table fixup: a fault skips to the end and
 * leaves the value the caller put in.
 */
static __used noinline __noipa u32 kpt_insn_fault(const u32 *src)
{
	u32 r = 0xdeadu;

	asm volatile(KPT_AT(kpt_at_fault)
		     "1:\t" KPT_FAULT_LOAD "\n"
		     "2:\n"
		     KPT_FAULT_FIXUP
		     : "+r" (r) : "r" (src) : "memory");
	return r;
}

#endif

/*
 * The probed instruction faults in its slot: the fault must look as if it
 * happened in place, so that the function's own fixup applies.
 */
static void fault_in_probed_insn(struct kunit *test)
{
#ifdef KPT_FAULT_LOAD
	struct test_probe *tp;
	u32 *page, good = 5;

	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	tp = kpt_probe_at(test, 'A', NULL, (void *)kpt_at_fault);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_insn_fault(&good), 5u);
	/* The guard page after a vmalloc area is never mapped. */
	KUNIT_EXPECT_EQ(test, kpt_insn_fault(page + PAGE_SIZE / sizeof(u32)),
			0xdeadu);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 2);
	/* The faulting run never completes the instruction: no post. */
	KUNIT_EXPECT_EQ(test, tp->post_hits, 1);
	kpt_unreg_kprobe(test, &tp->kp);
	vfree(page);
	KUNIT_EXPECT_EQ(test, kpt_insn_fault(&good), 5u);
#else
	kunit_skip(test, "the fault case has an exception-table load for x86 and arm64 only");
#endif
}

/* Handlers that read an unmapped address through an exception fixup. */
struct faulting_probe {
	struct test_probe tp;
	const u32 *bad;
	long pre_err;
	long post_err;
};

static struct faulting_probe *to_faulting_probe(struct kprobe *kp)
{
	return container_of(kp, struct faulting_probe, tp.kp);
}

static int faulting_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct faulting_probe *fp = to_faulting_probe(kp);
	u32 val;

	fp->pre_err = copy_from_kernel_nofault(&val, fp->bad, sizeof(val));
	return kpt_record_pre(kp, regs);
}

static void faulting_post(struct kprobe *kp, struct pt_regs *regs,
			  unsigned long flags)
{
	struct faulting_probe *fp = to_faulting_probe(kp);
	u32 val;

	fp->post_err = copy_from_kernel_nofault(&val, fp->bad, sizeof(val));
	kpt_record_post(kp, regs, flags);
}

#ifdef KPT_FAULT_LOAD
/* What the fault handling after a faulting step sees of interrupts. */
static struct {
	struct kprobe kp;
	struct task_struct *task;
	int hits;
	bool irqs_off;
} fault_watch;

static int fault_watch_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == fault_watch.task) {
		fault_watch.hits++;
		fault_watch.irqs_off = irqs_disabled();
	}
	return 0;
}
#endif

/*
 * The probed code had interrupts masked when its stepped load faulted:
 * the fault is handled with them still masked.  On arm64 with pseudo-NMIs
 * (irqchip.gicv3_pseudo_nmi=1, as the test boot has it) the mask is in
 * the interrupt controller's priority mask, not in DAIF.  A probe on the
 * entry of fixup_exception(), which the fault handling calls, looks.
 */
static void fault_in_probed_insn_irqs_off(struct kunit *test)
{
#ifdef KPT_FAULT_LOAD
	struct test_probe *tp;
	unsigned long flags;
	u32 *page, got;

	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	tp = kpt_probe_at(test, 'A', NULL, (void *)kpt_at_fault);
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &tp->kp), 0);
	memset(&fault_watch, 0, sizeof(fault_watch));
	fault_watch.kp.symbol_name = "fixup_exception";
	fault_watch.kp.pre_handler = fault_watch_pre;
	fault_watch.task = current;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &fault_watch.kp), 0);

	local_irq_save(flags);
	got = kpt_insn_fault(page + PAGE_SIZE / sizeof(u32));
	local_irq_restore(flags);

	kpt_unreg_kprobe(test, &fault_watch.kp);
	kpt_unreg_kprobe(test, &tp->kp);
	vfree(page);
	KUNIT_EXPECT_EQ(test, got, 0xdeadu);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 1);
	KUNIT_EXPECT_EQ(test, fault_watch.hits, 1);
	KUNIT_EXPECT_TRUE(test, fault_watch.irqs_off);
#else
	kunit_skip(test, "the fault case has an exception-table load for x86 and arm64 only");
#endif
}

/*
 * A fault taken inside a handler belongs to the handler: its own fixup
 * applies, and the probe must not mistake it for a fault of the probed
 * instruction.
 */
static void fault_in_handler(struct kunit *test)
{
	const struct kpt_place_case *pc = test->param_value;
	struct faulting_probe *fp;
	u32 *page;

	fp = kunit_kzalloc(test, sizeof(*fp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fp);
	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kpt_vfree_action, page), 0);
	/* The guard page after a vmalloc area is never mapped. */
	fp->bad = page + PAGE_SIZE / sizeof(u32);
	fp->pre_err = 1;
	fp->post_err = 1;
	fp->tp.id = 'A';
	fp->tp.kp.addr = kpt_place_addr(test, pc->place);
	fp->tp.kp.pre_handler = faulting_pre;
	fp->tp.kp.post_handler = faulting_post;
	KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &fp->tp.kp), 0);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(1), MARK_AFTER + 1);
	KUNIT_EXPECT_EQ(test, fp->tp.pre_hits, 1);
	KUNIT_EXPECT_EQ(test, fp->tp.post_hits, 1);
	KUNIT_EXPECT_EQ(test, fp->pre_err, -EFAULT);
	KUNIT_EXPECT_EQ(test, fp->post_err, -EFAULT);
	if (pc->place == KPT_PLACE_BODY)
		KUNIT_EXPECT_EQ(test, fp->tp.post_mark, MARK_AFTER);
	KUNIT_EXPECT_EQ(test, kprobes_test_marked(2), MARK_AFTER + 2);
	KUNIT_EXPECT_EQ(test, fp->tp.pre_hits, 2);
}

#if defined(CONFIG_HAVE_STATIC_CALL_INLINE) && IS_MODULE(CONFIG_KPROBES_SANITY_TEST)
static u32 kpt_sc_impl(u32 x)
{
	return x + 2;
}

DEFINE_STATIC_CALL(kpt_sc, kpt_sc_impl);

static __used noinline __noipa u32 kpt_static_caller(u32 x)
{
	return static_call(kpt_sc)(x) + 1;
}

static unsigned long kpt_static_call_site(void)
{
	struct static_call_site *site = THIS_MODULE->static_call_sites;
	struct static_call_site *end = site + THIS_MODULE->num_static_call_sites;
	unsigned long key;

	for (; site < end; site++) {
		key = ((long)&site->key + site->key) & ~STATIC_CALL_SITE_FLAGS;
		if (key == (unsigned long)&STATIC_CALL_KEY(kpt_sc))
			return (long)&site->addr + site->addr;
	}
	return 0;
}
#endif

/* An inline static call site is rewritten by static_call_update(). */
static void reject_static_call_site(struct kunit *test)
{
#if !defined(CONFIG_HAVE_STATIC_CALL_INLINE)
	kunit_skip(test, "no inline static calls on this arch");
#elif !IS_MODULE(CONFIG_KPROBES_SANITY_TEST)
	kunit_skip(test, "built in: the sites are the kernel's");
#else
	struct test_probe *tp;
	unsigned long site;

	site = kpt_static_call_site();
	KUNIT_ASSERT_NE_MSG(test, site, 0, "no static call site for kpt_sc");
	KUNIT_ASSERT_TRUE(test, site >= (unsigned long)kpt_static_caller &&
			  site < (unsigned long)kpt_static_caller +
				 kpt_symbol_size(kpt_static_caller));
	tp = kpt_probe_at(test, 'A', NULL, (void *)site);
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_static_caller(1), 4u);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
#endif
}

static DEFINE_STATIC_KEY_FALSE(kpt_key);

static __used noinline __noipa u32 kpt_keyed(u32 x)
{
	if (static_branch_unlikely(&kpt_key))
		return x + 1;
	return x;
}

/* A jump label site belongs to the jump label code: no probe there. */
static void reject_jump_label_site(struct kunit *test)
{
#if !defined(CONFIG_JUMP_LABEL)
	kunit_skip(test, "CONFIG_JUMP_LABEL is off: no jump label sites");
#elif !IS_MODULE(CONFIG_KPROBES_SANITY_TEST)
	kunit_skip(test, "built in: the sites are the kernel's");
#else
	struct jump_entry *e, *end;
	struct test_probe *tp;

	e = THIS_MODULE->jump_entries;
	end = e + THIS_MODULE->num_jump_entries;
	while (e < end && jump_entry_key(e) != &kpt_key.key)
		e++;
	KUNIT_ASSERT_TRUE_MSG(test, e < end, "no jump entry for kpt_key");
	tp = kpt_probe_at(test, 'A', NULL, (void *)jump_entry_code(e));
	KUNIT_EXPECT_EQ(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_keyed(1), 1u);
	KUNIT_EXPECT_EQ(test, tp->pre_hits, 0);
#endif
}

#ifdef CONFIG_GENERIC_BUG
static __used noinline __noipa u32 kpt_warns_twice(u32 x)
{
	WARN_ON_ONCE(x == 0xbad00001);
	WARN_ON_ONCE(x == 0xbad00002);
	return x + 1;
}

/* More WARN() sites than a registration keeps for one function. */
static __used noinline __noipa u32 kpt_warns_often(u32 x)
{
	WARN_ON_ONCE(x == 0xbad00001);
	WARN_ON_ONCE(x == 0xbad00002);
	WARN_ON_ONCE(x == 0xbad00003);
	WARN_ON_ONCE(x == 0xbad00004);
	WARN_ON_ONCE(x == 0xbad00005);
	WARN_ON_ONCE(x == 0xbad00006);
	WARN_ON_ONCE(x == 0xbad00007);
	WARN_ON_ONCE(x == 0xbad00008);
	WARN_ON_ONCE(x == 0xbad00009);
	WARN_ON_ONCE(x == 0xbad0000a);
	WARN_ON_ONCE(x == 0xbad0000b);
	return x + 1;
}

/*
 * Is @addr a BUG() or WARN() site, as the table holding this suite's
 * sites says: the module's own, or, built in, the kernel's.
 */
static bool kpt_bug_site(unsigned long addr)
{
#if IS_MODULE(CONFIG_KPROBES_SANITY_TEST)
	const struct bug_entry *bug = THIS_MODULE->bug_table;
	const struct bug_entry *end = bug + THIS_MODULE->num_bugs;
	unsigned long at;

	for (; bug < end; bug++) {
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
		at = (unsigned long)&bug->bug_addr_disp + bug->bug_addr_disp;
#else
		at = bug->bug_addr;
#endif
		if (at == addr)
			return true;
	}
	return false;
#else
	return find_bug(addr);
#endif
}

/*
 * @fn's entry takes a probe and none of its BUG() sites does, in either
 * order: the sites first (what registration learns of @fn comes with the
 * first site) or the entry first (the sites are answered from what it
 * learnt).
 * The decoders refuse the trap instruction with the same errno, so the
 * site check is also asked on its own, in and out of a batch.
 */
static void kpt_reject_bug_sites(struct kunit *test, u32 (*fn)(u32),
				 int min_sites, bool entry_first)
{
	unsigned long start = (unsigned long)fn;
	unsigned long size = kpt_symbol_size(fn);
	struct test_probe *entry = kpt_probe_at(test, 'A', NULL, fn);
	struct test_probe *tp;
	unsigned long at;
	int sites = 0;
	u8 *site;

	if (entry_first) {
		KUNIT_EXPECT_FALSE(test, kprobe_site_reserved_kunit(fn, true));
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &entry->kp), 0);
	}
	for (at = start; at < start + size; at++) {
		if (!kpt_bug_site(at))
			continue;
		sites++;
		site = (u8 *)at;
		KUNIT_EXPECT_TRUE_MSG(test, kprobe_site_reserved_kunit(site, true),
				      "the WARN() site %pS, in a batch", site);
		KUNIT_EXPECT_TRUE_MSG(test, kprobe_site_reserved_kunit(site, false),
				      "the WARN() site %pS, alone", site);
		KUNIT_EXPECT_FALSE_MSG(test,
				       kprobe_site_reserved_kunit(site + 1, true),
				       "the byte after the WARN() site %pS", site);
		tp = kpt_probe_at(test, 'B', NULL, site);
		KUNIT_EXPECT_EQ_MSG(test, kpt_reg_kprobe(test, &tp->kp), -EINVAL,
				    "a probe on the WARN() site %pS", tp->kp.addr);
	}
	KUNIT_EXPECT_GE(test, sites, min_sites);
	if (!entry_first) {
		KUNIT_EXPECT_FALSE(test, kprobe_site_reserved_kunit(fn, true));
		KUNIT_ASSERT_EQ(test, kpt_reg_kprobe(test, &entry->kp), 0);
	}
	KUNIT_EXPECT_EQ(test, fn(1), 2u);
	KUNIT_EXPECT_EQ(test, entry->pre_hits, 1);
}
#endif

/* A BUG() or WARN() site belongs to the kernel's trap handler. */
static void reject_bug_site(struct kunit *test)
{
#if !defined(CONFIG_GENERIC_BUG)
	kunit_skip(test, "no BUG() table on this arch");
#else
	kpt_reject_bug_sites(test, kpt_warns_twice, 2, false);
	kpt_reject_bug_sites(test, kpt_warns_often, 11, true);
#endif
}

static struct kunit_case kprobes_core_cases[] = {
	KUNIT_CASE(fault_in_probed_insn),
	KUNIT_CASE(fault_in_probed_insn_irqs_off),
	KUNIT_CASE(reject_jump_label_site),
	KUNIT_CASE(reject_static_call_site),
	KUNIT_CASE(reject_bug_site),
	KUNIT_CASE_PARAM(fault_in_handler, kpt_place_gen_params),
	KUNIT_CASE(register_by_symbol),
	KUNIT_CASE_PARAM(register_by_address, kpt_place_gen_params),
	KUNIT_CASE(register_symbol_offset),
	KUNIT_CASE(register_address_offset),
	KUNIT_CASE(reject_address_and_symbol),
	KUNIT_CASE(reject_no_location),
	KUNIT_CASE(reject_unknown_symbol),
	KUNIT_CASE(reject_inside_instruction),
	KUNIT_CASE_PARAM(offset_past_end_names_what_follows, offset_gen_params),
	KUNIT_CASE_PARAM(reject_non_text, non_text_gen_params),
	KUNIT_CASE_PARAM(reject_blacklisted, blacklist_gen_params),
	KUNIT_CASE(reject_blacklisted_address),
	KUNIT_CASE(blacklist_area_has_no_gap),
	KUNIT_CASE(insn_slot_dirty_reclaimed),
	KUNIT_CASE(insn_slot_page_kept),
	KUNIT_CASE_PARAM(reject_kprobes_code, own_code_gen_params),
	KUNIT_CASE_PARAM(reject_noinstr, noinstr_gen_params),
	KUNIT_CASE(reject_registered_again),
	KUNIT_CASE(unregister_unregistered),
	KUNIT_CASE(register_again_after_unregister),
	KUNIT_CASE_PARAM(pre_handler_regs, kpt_place_gen_params),
	KUNIT_CASE(pre_handler_redirect),
	KUNIT_CASE(post_handler_after_insn),
	KUNIT_CASE(optimized_insn_runs_once),
	KUNIT_CASE(opt_pre_handler_runs_every_handler),
	KUNIT_CASE(post_handler_leaves_armed_aggregate),
	KUNIT_CASE_PARAM(missed_in_own_handlers, kpt_place_gen_params),
	KUNIT_CASE(missed_in_other_handler),
	KUNIT_CASE(nest_frames_nmi_in_window),
	KUNIT_CASE_PARAM(missed_while_busy, kpt_place_gen_params),
	KUNIT_CASE_PARAM(probe_on_the_api, api_gen_params),
	KUNIT_CASE(init_text_disarmed_when_retired),
	{}
};

static struct kunit_suite kprobes_core_suite = {
	.name = "kprobes_core",
	.suite_init = kpt_suite_init,
	.test_cases = kprobes_core_cases,
};

kunit_test_suites(&kprobes_core_suite);

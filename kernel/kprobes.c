// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel probes: registration and the probe table.
 *
 * Every probed address has one entry in kprobe_table.  The entry is the
 * user's struct kprobe while it is alone; when a second probe arrives at
 * the same address the core puts an aggregate in the table instead, and
 * the users' probes hang on the aggregate's @list in registration order.
 * The table entry owns the architecture state (the breakpoint and the
 * out-of-line copy); handlers only ever see it through get_kprobe().
 *
 * Locks, outermost first:
 *
 *   kprobe_mutex      table membership, aggregation, every probe's
 *                     flags, the gone list, the blacklist and the
 *                     optimizer's states and lists.  Held by every
 *                     registration, enable/disable, the module and
 *                     debugfs paths and the optimizer (which waits for
 *                     its grace period with no lock held).
 *   cpus_read_lock    taken before text_mutex so that text pokes do not
 *                     race with CPU hotplug (guard kprobe_text).
 *   jump_label_lock   only to ask whether an address is a jump label.
 *   text_mutex        every change of kernel text, the breakpoint and
 *                     the instruction slots.
 *   insn cache mutex  inside a kprobe_insn_cache; innermost.
 *
 * kprobe_hits_mutex (kprobes_hits.c) is taken with none of these held,
 * and cpus_read_lock inside it.
 *
 * Only code that runs in probe context is blacklisted.  The registration
 * API may be probed ("perf probe register_kprobe"): a probe at its entry
 * fires before any lock is taken, and handlers never take kprobe_mutex.
 *
 * The table is read without locks: the breakpoint handlers run with
 * interrupts off and walk a bucket under RCU.  Removal therefore unhooks
 * an entry, waits until no hit can still hold it (kprobes_hits.c), and
 * only then frees its state.
 *
 * A probe whose text goes away (module unload, freed init text) leaves the
 * table at once and waits on kprobe_gone_list, marked GONE, until its
 * owner unregisters it.  So the table never holds stale addresses and a
 * module loaded at the same place starts from a clean slate.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/bug.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/kdebug.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <asm/sections.h>
#include <kunit/visibility.h>

#include "kprobes_internal.h"

/* The outermost lock of kprobes; see the lock order above. */
DEFINE_MUTEX(kprobe_mutex);

static struct hlist_head kprobe_table[KPROBE_TABLE_SIZE];
static HLIST_HEAD(kprobe_gone_list);

/*
 * Table entries unhooked and waiting for the hits in progress, chained
 * without allocating (a batch may hold thousands).  Their hlist nodes stay
 * as they are until then, since a lookup may stand on one; a lone probe
 * is chained through its own @list instead, which only an aggregate's
 * readers walk, and an aggregate through its @retired.
 */
struct kprobe_retired {
	struct list_head lone;
	struct list_head aggrs;
};

bool kprobes_all_disarmed;
bool kprobes_initialized;

/*
 * Batches patch the text in passes: register_kprobes() arms its new
 * entries together at the end, unregister_kprobes() disarms the entries
 * leaving together before they leave the table, each pass with one
 * cross-CPU synchronization instead of one per probe.  The entries
 * waiting for a pass are listed here (kprobe_mutex), a full list is
 * flushed early, so a batch of any size needs no allocation.
 */
#define KPROBE_PASS_MAX		512

static struct kprobe *kprobe_pass[KPROBE_PASS_MAX];
/* The first error of the batch's arming passes (ftrace may refuse). */
static int kprobe_pass_err;
static int kprobe_pass_nr;
/* register_kprobes() of more than one probe is under way */
static bool kprobe_batching;

/*
 * What current_kprobe points at while a CPU is in kprobe_busy_begin(): any
 * probe hit then is only counted.  Its address is never probed.
 */
struct kprobe kprobe_busy_marker = {
	.addr = (kprobe_opcode_t *)kprobe_busy_begin,
	.flags = KPROBE_FLAG_DISABLED,
};

static struct hlist_head *kprobe_bucket(const void *addr)
{
	return &kprobe_table[hash_ptr(addr, KPROBE_HASH_BITS)];
}

/**
 * get_kprobe() - find the table entry at an address
 * @addr: the probed address
 *
 * Called from breakpoint context with preemption off, or with
 * kprobe_mutex held.  The result may be an aggregate.
 *
 * Return: the entry, or NULL when nothing is registered at @addr.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe *p;

	hlist_for_each_entry_rcu(p, kprobe_bucket(addr), hlist,
				 lockdep_is_held(&kprobe_mutex)) {
		if (p->addr == addr)
			return p;
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(get_kprobe);
NOKPROBE_SYMBOL(get_kprobe);

/*
 * The handlers of an aggregate's probes, in registration order.  A
 * pre_handler that moved the instruction pointer ends the walk: the rest
 * would see registers that no longer describe the probed instruction.
 */
static int aggr_pre_handler(struct kprobe *agg, struct pt_regs *regs)
{
	struct kprobe *kp;
	int moved = 0;

	list_for_each_entry_rcu(kp, &agg->list, list) {
		if (kp->pre_handler && !kprobe_disabled(kp))
			moved = kp->pre_handler(kp, regs);
		if (moved)
			break;
	}
	return moved;
}
NOKPROBE_SYMBOL(aggr_pre_handler);

static void aggr_post_handler(struct kprobe *agg, struct pt_regs *regs,
			      unsigned long flags)
{
	struct kprobe *kp;

	list_for_each_entry_rcu(kp, &agg->list, list)
		if (kp->post_handler && !kprobe_disabled(kp))
			kp->post_handler(kp, regs, flags);
}
NOKPROBE_SYMBOL(aggr_post_handler);

bool kprobe_is_aggr(struct kprobe *p)
{
	return p->pre_handler == aggr_pre_handler;
}
NOKPROBE_SYMBOL(kprobe_is_aggr);

/**
 * kprobes_inc_nmissed_count() - count a hit whose handlers did not run
 * @p: the table entry that was hit
 *
 * A miss at an aggregate is a miss for each probe in it.
 */
void kprobes_inc_nmissed_count(struct kprobe *p)
{
	struct kprobe *kp;

	if (kprobe_is_aggr(p))
		list_for_each_entry_rcu(kp, &p->list, list)
			kp->nmissed++;
	else
		p->nmissed++;
}
NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/**
 * kprobe_busy_begin() - mark this CPU as running a probe handler
 *
 * Until kprobe_busy_end(), probes hit on this CPU are only counted in
 * their nmissed.  Used around code that probes must not re-enter.
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	__this_cpu_write(current_kprobe, &kprobe_busy_marker);
}

/**
 * kprobe_busy_end() - end the section begun by kprobe_busy_begin()
 */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}

/*
 * kallsyms names a module address by walking the module's whole symbol
 * table, and one registration asks about its address several times (to
 * resolve it, for the blacklist and preamble names, for patched sites and
 * in the architecture's decoder).  Batches register runs of probes in one
 * function, so the task running a batch keeps the last text symbol's
 * answer.  The symbol's module is held while it is kept, so no other
 * text can come to lie under the kept name.
 */
static struct {
	struct task_struct *owner;	/* the batch's task, or NULL */
	unsigned long start, size;	/* size 0: nothing kept */
	struct module *mod;
	int clean;			/* see kprobe_site_func_clean() */
	char name[KSYM_NAME_LEN];
} kprobe_sym;

static void kprobe_sym_forget(void)
{
	module_put(kprobe_sym.mod);
	kprobe_sym.mod = NULL;
	kprobe_sym.size = 0;
}

static void kprobe_sym_own(bool own)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_sym_forget();
	WRITE_ONCE(kprobe_sym.owner, own ? current : NULL);
}

/* Keep the text symbol around @addr; false if it cannot be kept. */
static bool kprobe_sym_fill(unsigned long addr)
{
	unsigned long size, off;
	struct module *mod;

	kprobe_sym_forget();
	scoped_guard(preempt) {
		mod = __module_text_address(addr);
		if (mod ? !try_module_get(mod) : !core_kernel_text(addr))
			return false;
	}
	if (!kallsyms_lookup(addr, &size, &off, NULL, kprobe_sym.name) ||
	    !size) {
		module_put(mod);
		return false;
	}
	kprobe_sym.mod = mod;
	kprobe_sym.start = addr - off;
	kprobe_sym.size = size;
	kprobe_sym.clean = -1;
	return true;
}

/* Is the symbol around @addr kept?  It is refilled if need be. */
static bool kprobe_sym_kept(unsigned long addr)
{
	if (READ_ONCE(kprobe_sym.owner) != current)
		return false;
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_sym.size && addr - kprobe_sym.start < kprobe_sym.size)
		return true;
	return kprobe_sym_fill(addr);
}

/**
 * kprobe_symbol_size_offset() - kallsyms_lookup_size_offset() for probes
 * @addr: the address
 * @size: where the size of the symbol around @addr goes, or NULL
 * @offset: where @addr's offset in that symbol goes, or NULL
 *
 * The same answer, kept from one probe to the next during a batch
 * registration.
 *
 * Return: true when kallsyms names @addr.
 */
bool kprobe_symbol_size_offset(unsigned long addr, unsigned long *size,
			       unsigned long *offset)
{
	unsigned long sz, off;

	if (!kprobe_sym_kept(addr))
		return kallsyms_lookup_size_offset(addr, size ?: &sz,
						   offset ?: &off);
	if (size)
		*size = kprobe_sym.size;
	if (offset)
		*offset = addr - kprobe_sym.start;
	return true;
}

/*
 * lookup_symbol_name() for probes: @name (KSYM_NAME_LEN bytes) gets the
 * name of the symbol around @addr.  Returns 0, or -ERANGE if unknown.
 */
int kprobe_symbol_name(unsigned long addr, char *name)
{
	if (!kprobe_sym_kept(addr))
		return lookup_symbol_name(addr, name);
	strscpy(name, kprobe_sym.name, KSYM_NAME_LEN);
	return 0;
}

/**
 * dump_kprobe() - print what a probe was asked to probe
 * @kp: the probe
 *
 * For the architecture's fatal-recursion report.
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("probe %s+%#x at %pS\n",
	       kp->symbol_name ?: "(addr)", kp->offset, kp->addr);
}
NOKPROBE_SYMBOL(dump_kprobe);

/**
 * kprobe_lookup_name() - resolve a symbol for a probe
 * @name: symbol, possibly "module:symbol"
 * @offset: the probe's offset (architectures may need it)
 *
 * Return: the symbol's address, or NULL.
 */
kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/**
 * arch_adjust_kprobe_addr() - turn symbol start + offset into a probe point
 * @addr: start of the function
 * @offset: offset into it
 * @on_func_entry: set when the result counts as the function's entry
 *
 * Return: the address to probe, or NULL if it cannot be computed.
 */
kprobe_opcode_t * __weak arch_adjust_kprobe_addr(unsigned long addr,
						 unsigned long offset,
						 bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Turn what the user gave (an address, or a symbol, plus an offset) into
 * the probe address.  Both forms are renamed through kallsyms to "start
 * of the containing symbol + offset", so "sym+N" past the end of sym is a
 * point in whatever follows (its entry when N is sym's size), and the
 * architecture can tell whether the result is a function's entry.
 */
kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr, const char *sym,
				unsigned long offset, bool *on_func_entry)
{
	unsigned long where, off;
	kprobe_opcode_t *probe_addr;

	if ((sym && addr) || (!sym && !addr))
		return ERR_PTR(-EINVAL);

	if (sym) {
		addr = kprobe_lookup_name(sym, offset);
		if (!addr)
			return ERR_PTR(-ENOENT);
	}

	where = (unsigned long)addr + offset;
	if (!kprobe_symbol_size_offset(where, NULL, &off))
		return ERR_PTR(-ENOENT);

	probe_addr = arch_adjust_kprobe_addr(where - off, off, on_func_entry);
	return probe_addr ?: ERR_PTR(-EINVAL);
}

/**
 * kprobe_on_func_entry() - is this probe point a function's entry?
 * @addr: address, or NULL when @sym is given
 * @sym: symbol name, or NULL
 * @offset: offset from @addr or @sym
 *
 * Return: 0 at the entry, -EINVAL elsewhere, -ENOENT when @sym is unknown
 * or kallsyms cannot name the address.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	bool on_entry;
	kprobe_opcode_t *probe_addr;

	probe_addr = kprobe_resolve(addr, sym, offset, &on_entry);
	if (IS_ERR(probe_addr))
		return PTR_ERR(probe_addr);
	return on_entry ? 0 : -EINVAL;
}

/* The table entry @p belongs to, wherever it is: table or gone list. */
static struct kprobe *kprobe_owner_in(struct hlist_head *head,
				      struct kprobe *p)
{
	struct kprobe *entry, *kp;

	hlist_for_each_entry(entry, head, hlist) {
		/* leaving with the batch being unregistered */
		if (entry->flags & KPROBE_FLAG_RETIRING)
			continue;
		if (entry == p)
			return entry;
		if (!kprobe_is_aggr(entry) || entry->addr != p->addr)
			continue;
		list_for_each_entry(kp, &entry->list, list) {
			if (kp == p)
				return entry;
		}
	}
	return NULL;
}

static struct kprobe *kprobe_owner(struct kprobe *p)
{
	struct kprobe *entry;

	lockdep_assert_held(&kprobe_mutex);
	entry = kprobe_owner_in(kprobe_bucket(p->addr), p);
	return entry ?: kprobe_owner_in(&kprobe_gone_list, p);
}

bool kprobe_is_registered(struct kprobe *p)
{
	return kprobe_owner(p);
}

static bool kprobe_should_be_armed(struct kprobe *entry)
{
	return !kprobes_all_disarmed && !kprobe_disabled(entry);
}

/**
 * arch_arm_kprobes() - arm several table entries in one pass
 * @entries: breakpoint (not ftrace) entries, none armed
 * @num: how many
 *
 * Called with the text lock held.  An architecture that can synchronize
 * the other CPUs once for all of them overrides this.
 */
void __weak arch_arm_kprobes(struct kprobe **entries, int num)
{
	int i;

	for (i = 0; i < num; i++)
		arch_arm_kprobe(entries[i]);
}

/**
 * arch_disarm_kprobes() - disarm several table entries in one pass
 * @entries: armed breakpoint entries, none optimized
 * @num: how many
 *
 * As arch_arm_kprobes(), the other way.
 */
void __weak arch_disarm_kprobes(struct kprobe **entries, int num)
{
	int i;

	for (i = 0; i < num; i++)
		arch_disarm_kprobe(entries[i]);
}

/**
 * arch_kprobe_batch_begin() - a registration starts, of a batch or one probe
 *
 * Called with kprobe_mutex held, which is held until
 * arch_kprobe_batch_end(): until then no probed text is freed, and what
 * the architecture learns about a function's instructions stays true.
 * What it keeps longer it forgets in arch_kprobe_forget_text().
 */
void __weak arch_kprobe_batch_begin(void)
{
}

/**
 * arch_kprobe_batch_end() - the registration is over
 */
void __weak arch_kprobe_batch_end(void)
{
}

/* The breakpoint goes in; a jump may replace it later. */
static int kprobe_arm(struct kprobe *entry)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace(entry))
		return kprobe_ftrace_arm(entry);

	scoped_guard(kprobe_text)
		arch_arm_kprobe(entry);
	kprobe_opt_update(entry);
	return 0;
}

/* A jump in place comes out first, then the breakpoint. */
static int kprobe_disarm(struct kprobe *entry)
{
	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_ftrace(entry))
		return kprobe_ftrace_disarm(entry);
	/* Its breakpoint never went in. */
	if (entry->flags & KPROBE_FLAG_ARM_PENDING) {
		entry->flags &= ~KPROBE_FLAG_ARM_PENDING;
		return 0;
	}

	guard(kprobe_text)();
	kprobe_opt_stop(entry);
	arch_disarm_kprobe(entry);
	return 0;
}

static int kprobe_arch_prepare(struct kprobe *p)
{
	if (kprobe_ftrace(p))
		return arch_prepare_kprobe_ftrace(p);

	guard(kprobe_text)();
	return arch_prepare_kprobe(p);
}

/*
 * Does an ftrace call site start exactly at @a?  ftrace_location() would
 * also map a function's first byte to its site, which may lie further in
 * (arm64 pads the entry), and asks kallsyms for every other address.
 */
static bool kprobe_is_ftrace_site(unsigned long a)
{
#ifdef CONFIG_DYNAMIC_FTRACE
	return ftrace_location_range(a, a) == a;
#else
	return false;
#endif
}

#ifndef arch_kprobe_ftrace_site_at
/*
 * Where ftrace's call is the function's first instruction (x86, after
 * ENDBR), a probe rides the site it is on.
 */
static unsigned long arch_kprobe_ftrace_site_at(unsigned long addr)
{
	return kprobe_is_ftrace_site(addr) ? addr : 0;
}
#endif

/*
 * A probe that rides an ftrace call site fires through ftrace; a site
 * that no probe can ride is ftrace's alone.
 */
static int kprobe_check_ftrace_site(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr;

	if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) &&
	    arch_kprobe_ftrace_site_at(addr)) {
		p->flags |= KPROBE_FLAG_FTRACE;
		return 0;
	}
	return kprobe_is_ftrace_site(addr) ? -EINVAL : 0;
}

/* Compiler-made entry sequences for CFI and patchable padding. */
static bool kprobe_in_preamble_symbol(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (kprobe_symbol_name(addr, name))
		return false;
	return str_has_prefix(name, "__cfi_") || str_has_prefix(name, "__pfx_");
}

#ifdef CONFIG_GENERIC_BUG
extern struct bug_entry __start___bug_table[], __stop___bug_table[];

static unsigned long kprobe_bug_addr(const struct bug_entry *bug)
{
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
	return (unsigned long)&bug->bug_addr_disp + bug->bug_addr_disp;
#else
	return bug->bug_addr;
#endif
}

/* Does [@start, @end) hold a BUG() or WARN() trap of @mod (or the core)? */
static bool kprobe_range_has_bug(unsigned long start, unsigned long end,
				 struct module *mod)
{
	const struct bug_entry *bug = __start___bug_table;
	const struct bug_entry *last = __stop___bug_table;

	if (mod) {
		bug = mod->bug_table;
		last = bug + mod->num_bugs;
	}
	for (; bug < last; bug++) {
		unsigned long a = kprobe_bug_addr(bug);

		if (a >= start && a < end)
			return true;
	}
	return false;
}
#else
static bool kprobe_range_has_bug(unsigned long start, unsigned long end,
				 struct module *mod)
{
	return false;
}
#endif

/*
 * Jump labels, static calls and BUG() traps are found by walking every
 * site the kernel (or the module) has, and x86 decodes each jump label
 * on the way: a registration asks once for the kept symbol's whole
 * function, and asks again for each probe only in a function that holds
 * one.  Sites do not come or go in a function whose text stays, so the
 * last function's answer is also kept from one registration to the next
 * (tools register one probe per call), until kprobe_retire_text() says
 * that some text goes.  Under kprobe_mutex.
 */
static struct {
	unsigned long start, size;	/* size 0: nothing kept */
	bool clean;
} kprobe_clean_memo;

static bool kprobe_site_func_clean(unsigned long a)
{
	unsigned long start, end;

	if (!kprobe_sym_kept(a))
		return false;
	start = kprobe_sym.start;
	end = start + kprobe_sym.size;
	if (kprobe_sym.clean < 0 && kprobe_clean_memo.start == start &&
	    kprobe_clean_memo.size == kprobe_sym.size)
		kprobe_sym.clean = kprobe_clean_memo.clean;
	if (kprobe_sym.clean < 0) {
		kprobe_sym.clean =
			!jump_label_text_reserved((void *)start, (void *)(end - 1)) &&
			!static_call_text_reserved((void *)start, (void *)(end - 1)) &&
			!kprobe_range_has_bug(start, end, kprobe_sym.mod);
		kprobe_clean_memo.start = start;
		kprobe_clean_memo.size = kprobe_sym.size;
		kprobe_clean_memo.clean = kprobe_sym.clean;
	}
	return kprobe_sym.clean;
}

static bool kprobe_site_reserved(kprobe_opcode_t *addr)
{
	unsigned long a = (unsigned long)addr;
	bool reserved;

	jump_label_lock();
	reserved = !kprobe_site_func_clean(a) &&
		   (jump_label_text_reserved(addr, addr) ||
		    static_call_text_reserved(addr, addr) || find_bug(a));
	jump_label_unlock();
	return reserved;
}

/*
 * The checks of kprobe_check_location() that take no lock, for @addr as
 * kprobe_resolve() gave it: why no probe may go there, or NULL.  A batch
 * also looks ahead with them, so as not to allocate for the probes
 * behind one that is refused; passing them then promises nothing.
 */
static const char *kprobe_unlocked_refusal(unsigned long addr)
{
	if (!core_kernel_text(addr) && !is_module_text_address(addr))
		return "is not kernel text";
	if (within_kprobe_blacklist(addr) || kprobe_in_preamble_symbol(addr))
		return "is blacklisted";
	return NULL;
}

int kprobe_check_unlocked(kprobe_opcode_t *addr)
{
	return kprobe_unlocked_refusal((unsigned long)addr) ? -EINVAL : 0;
}

/*
 * Is @p->addr somewhere a probe may go?  On success, *@modp holds a
 * reference on the module that contains it (or NULL for the kernel), so
 * the text cannot go away while the probe is set up.
 */
static int kprobe_check_location(struct kprobe *p, struct module **modp)
{
	unsigned long addr = (unsigned long)p->addr;
	const char *refusal;
	struct module *mod;
	int ret;

	*modp = NULL;
	ret = kprobe_check_ftrace_site(p);
	if (ret) {
		pr_info("%pS: an ftrace site that no kprobe can ride\n",
			p->addr);
		return ret;
	}
	refusal = kprobe_unlocked_refusal(addr);
	if (refusal) {
		pr_info("%pS %s\n", p->addr, refusal);
		return -EINVAL;
	}
	if (kprobe_site_reserved(p->addr)) {
		pr_info("%pS is patched by someone else\n", p->addr);
		return -EINVAL;
	}

	scoped_guard(preempt) {
		mod = __module_text_address(addr);
		if (mod && !try_module_get(mod))
			return -ENOENT;
	}
	/* Init text of a module that finished loading is freed or going. */
	if (mod && within_module_init(addr, mod) &&
	    mod->state != MODULE_STATE_COMING) {
		module_put(mod);
		return -ENOENT;
	}
	*modp = mod;
	return 0;
}

/* An aggregate standing for @orig, not yet in the table. */
static struct kprobe_aggr *kprobe_aggr_alloc(struct kprobe *orig)
{
	struct kprobe_aggr *aggr = kzalloc(sizeof(*aggr), GFP_KERNEL);
	struct kprobe *agg;

	if (!aggr)
		return NULL;
	agg = &aggr->kp;
	agg->addr = orig->addr;
	agg->flags = orig->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_FTRACE |
				    KPROBE_FLAG_ON_FUNC_ENTRY |
				    KPROBE_FLAG_FTRACE_ARMED |
				    KPROBE_FLAG_FTRACE_IPMODIFY |
				    KPROBE_FLAG_FTRACE_TRAP |
				    KPROBE_FLAG_FTRACE_TRAP_READY |
				    KPROBE_FLAG_ARM_PENDING);
	agg->opcode = orig->opcode;
	agg->ainsn = orig->ainsn;
	flush_insn_slot(agg);
	agg->pre_handler = aggr_pre_handler;
	if (orig->post_handler)
		agg->post_handler = aggr_post_handler;
	INIT_LIST_HEAD(&agg->list);
	return aggr;
}

/* Put @aggr in the table where the lone @orig was, holding @orig. */
static void kprobe_aggr_install(struct kprobe_aggr *aggr, struct kprobe *orig)
{
	struct kprobe *agg = &aggr->kp;

	orig->flags &= ~(KPROBE_FLAG_FTRACE_ARMED | KPROBE_FLAG_FTRACE_IPMODIFY |
			 KPROBE_FLAG_FTRACE_TRAP | KPROBE_FLAG_ARM_PENDING);
	list_add_rcu(&orig->list, &agg->list);
	hlist_replace_rcu(&orig->hlist, &agg->hlist);
	if (agg->flags & KPROBE_FLAG_FTRACE_ARMED)
		kprobe_ftrace_handover(orig, agg);
}

/* Replace a lone probe in the table by an aggregate holding it. */
static struct kprobe *kprobe_make_aggr(struct kprobe *orig)
{
	struct kprobe_aggr *aggr = kprobe_aggr_alloc(orig);

	if (!aggr)
		return NULL;
	kprobe_aggr_install(aggr, orig);
	return &aggr->kp;
}

/**
 * kprobe_make_optimizable() - give a table entry a detour, if it may have one
 * @entry: a lone probe or an aggregate, in the table
 *
 * Only an aggregate carries the optimizer's state, so a lone probe is
 * wrapped in one.  Nothing is prepared while optimization is off: the
 * sysctl comes back here for every entry when it is switched on.  If the
 * architecture cannot prepare a detour, or memory is short, the entry
 * stays a breakpoint.
 */
void kprobe_make_optimizable(struct kprobe *entry)
{
	struct kprobe_aggr *aggr;
	struct kprobe *first;

	lockdep_assert_held(&kprobe_mutex);
	if (!IS_ENABLED(CONFIG_OPTPROBES) || kprobe_ftrace(entry) ||
	    kprobe_gone(entry) || !kprobe_opt_is_on())
		return;

	if (kprobe_is_aggr(entry)) {
		aggr = container_of(entry, struct kprobe_aggr, kp);
		first = list_first_entry_or_null(&entry->list, struct kprobe,
						 list);
		if (first && kprobe_opt_unprepared(aggr) &&
		    kprobe_opt_prepare(aggr, first))
			kprobe_opt_update(entry);
		return;
	}

	aggr = kprobe_aggr_alloc(entry);
	if (!aggr)
		return;
	if (!kprobe_opt_prepare(aggr, entry)) {
		kfree(aggr);
		return;
	}
	kprobe_aggr_install(aggr, entry);
	kprobe_opt_update(&aggr->kp);
}

static int kprobe_join(struct kprobe *entry, struct kprobe *p)
{
	kprobe_post_handler_t had_post;
	int ret = 0;

	if (!kprobe_is_aggr(entry)) {
		entry = kprobe_make_aggr(entry);
		if (!entry)
			return -ENOMEM;
	}

	/*
	 * An armed ftrace site stays with the ops it was armed through, even
	 * the plain one: moving to the IPMODIFY ops would unhook the site for
	 * a moment, and calls through it would run no handler.  The plain
	 * ops serves a post_handler too, since the handler path puts regs->ip
	 * back after it; only a fresh arm picks the IPMODIFY ops for one.
	 */
	had_post = entry->post_handler;
	if (p->post_handler && !had_post) {
		/*
		 * The jump comes out first.  A hit that sees a post_handler
		 * steps the first instruction alone and resumes right after
		 * it, which must not be inside the jump's bytes.
		 */
		kprobe_opt_off(entry);
		WRITE_ONCE(entry->post_handler, aggr_post_handler);
	}

	list_add_tail_rcu(&p->list, &entry->list);
	kprobe_make_optimizable(entry);
	kprobe_opt_update(entry);
	if (!kprobe_disabled(p) && kprobe_disabled(entry)) {
		entry->flags &= ~KPROBE_FLAG_DISABLED;
		if (kprobe_should_be_armed(entry)) {
			ret = kprobe_arm(entry);
			if (ret) {
				entry->flags |= KPROBE_FLAG_DISABLED;
				list_del_rcu(&p->list);
				/* @p brought the only post_handler; it leaves too. */
				WRITE_ONCE(entry->post_handler, had_post);
				/* trace_kprobe takes a non-empty list as registered. */
				synchronize_rcu();
				INIT_LIST_HEAD(&p->list);
			}
		}
	}
	return ret;
}

/*
 * Order the first @n entries of the pass: breakpoints first, then the
 * probes on ftrace sites, which ftrace arms and disarms in a pass of its
 * own.  Returns how many breakpoints there are.
 */
static int kprobe_pass_split(int n)
{
	int i, nr_brk = 0;

	for (i = 0; i < n; i++) {
		if (kprobe_ftrace(kprobe_pass[i]))
			continue;
		swap(kprobe_pass[i], kprobe_pass[nr_brk]);
		nr_brk++;
	}
	return nr_brk;
}

/*
 * The arming pass of a batch registration: the entries of the probes
 * listed (they may have been gathered into aggregates since) that still
 * wait get their breakpoints, then may be optimized.
 */
static void kprobe_arm_pending(void)
{
	struct kprobe *entry;
	int i, n = 0, nr_brk = 0, ret;

	lockdep_assert_held(&kprobe_mutex);
	for (i = 0; i < kprobe_pass_nr; i++) {
		entry = get_kprobe(kprobe_pass[i]->addr);
		if (!entry || !(entry->flags & KPROBE_FLAG_ARM_PENDING))
			continue;
		entry->flags &= ~KPROBE_FLAG_ARM_PENDING;
		kprobe_pass[n++] = entry;
	}
	kprobe_pass_nr = 0;
	nr_brk = kprobe_pass_split(n);

	/* ftrace takes the text lock itself. */
	if (n > nr_brk) {
		ret = kprobe_ftrace_arm_batch(kprobe_pass + nr_brk,
					      n - nr_brk);
		if (ret && !kprobe_pass_err)
			kprobe_pass_err = ret;
	}
	if (!nr_brk)
		return;
	scoped_guard(kprobe_text)
		arch_arm_kprobes(kprobe_pass, nr_brk);
	for (i = 0; i < nr_brk; i++) {
		entry = kprobe_pass[i];
		kprobe_opt_update(entry);
		kprobe_make_optimizable(entry);
	}
}

/* @p, new in the table, is armed by the batch's pass. */
static void kprobe_arm_later(struct kprobe *p)
{
	if (kprobe_pass_nr == KPROBE_PASS_MAX)
		kprobe_arm_pending();
	p->flags |= KPROBE_FLAG_ARM_PENDING;
	kprobe_pass[kprobe_pass_nr++] = p;
}

static int kprobe_insert(struct kprobe *p)
{
	struct kprobe *entry = get_kprobe(p->addr);
	int ret;

	if (entry)
		return kprobe_join(entry, p);

	ret = kprobe_arch_prepare(p);
	if (ret)
		return ret;
	hlist_add_head_rcu(&p->hlist, kprobe_bucket(p->addr));
	/* A jump covering p->addr comes out before the breakpoint goes in. */
	kprobe_opt_neighbours(p->addr);
	if (kprobe_should_be_armed(p) && kprobe_batching) {
		kprobe_arm_later(p);
		return 0;
	}
	if (kprobe_should_be_armed(p)) {
		ret = kprobe_arm(p);
		if (ret) {
			hlist_del_rcu(&p->hlist);
			kprobe_opt_neighbours(p->addr);
			synchronize_rcu();
			arch_remove_kprobe(p);
			INIT_HLIST_NODE(&p->hlist);
			return ret;
		}
	}
	kprobe_make_optimizable(p);
	return 0;
}

/* Register one probe; kprobe_mutex is held by the caller. */
int __register_kprobe(struct kprobe *p)
{
	kprobe_opcode_t *addr;
	struct module *mod;
	bool on_entry;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (kprobe_owner(p)) {
		pr_info("%pS: this kprobe is already registered\n", p->addr);
		return -EINVAL;
	}

	addr = kprobe_resolve(p->addr, p->symbol_name, p->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	p->addr = addr;
	p->flags &= KPROBE_FLAG_DISABLED;
	if (on_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	p->nmissed = 0;
	INIT_LIST_HEAD(&p->list);

	ret = kprobe_check_location(p, &mod);
	if (ret)
		return ret;
	ret = kprobe_insert(p);
	module_put(mod);
	return ret;
}

static bool kprobe_aggr_all_disabled(struct kprobe *agg)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &agg->list, list) {
		if (!kprobe_disabled(kp))
			return false;
	}
	return true;
}

static void kprobe_retired_init(struct kprobe_retired *r)
{
	INIT_LIST_HEAD(&r->lone);
	INIT_LIST_HEAD(&r->aggrs);
}

static void kprobe_retired_add(struct kprobe_retired *r, struct kprobe *entry)
{
	if (kprobe_is_aggr(entry))
		list_add_tail(&container_of(entry, struct kprobe_aggr, kp)->retired,
			      &r->aggrs);
	else
		list_add_tail(&entry->list, &r->lone);
}

/* Take an entry off @r, or NULL when none is left. */
static struct kprobe *kprobe_retired_pop(struct kprobe_retired *r)
{
	struct kprobe_aggr *aggr;
	struct kprobe *p;

	p = list_first_entry_or_null(&r->lone, struct kprobe, list);
	if (p) {
		list_del_init(&p->list);
		return p;
	}
	aggr = list_first_entry_or_null(&r->aggrs, struct kprobe_aggr, retired);
	if (!aggr)
		return NULL;
	list_del(&aggr->retired);
	return &aggr->kp;
}

/*
 * The last post_handler of a breakpoint aggregate left: the instruction
 * may be boosted or optimized again.  An ftrace site keeps its ops.
 */
static void kprobe_aggr_drop_post_handler(struct kprobe *agg)
{
	struct kprobe *kp;

	if (!agg->post_handler || kprobe_ftrace(agg))
		return;
	list_for_each_entry(kp, &agg->list, list) {
		if (kp->post_handler)
			return;
	}
	WRITE_ONCE(agg->post_handler, NULL);
}

/* @entry, disarmed, leaves the table; freed once no hit can hold it. */
static void kprobe_leave_table(struct kprobe *entry)
{
	/* Disabled or all disarmed, its jump is out already; make sure. */
	kprobe_opt_off(entry);
	hlist_del_rcu(&entry->hlist);
	/* A task late in a detour buffer sees this and runs no handler. */
	if (kprobe_is_aggr(entry))
		entry->flags |= KPROBE_FLAG_DISABLED;
	if (!kprobe_gone(entry))
		kprobe_opt_neighbours(entry->addr);
}

/*
 * The disarming pass of unregister_kprobes(): the entries listed are
 * still in the table, so that a CPU meeting one of their breakpoints
 * finds its owner.  Jumps come out first, then the breakpoints, then
 * the entries leave the table.
 */
static void kprobe_disarm_pending(void)
{
	struct kprobe *entry;
	int i, nr_brk;

	lockdep_assert_held(&kprobe_mutex);
	if (!kprobe_pass_nr)
		return;
	nr_brk = kprobe_pass_split(kprobe_pass_nr);
	if (nr_brk) {
		guard(kprobe_text)();
		for (i = 0; i < nr_brk; i++)
			kprobe_opt_stop(kprobe_pass[i]);
		arch_disarm_kprobes(kprobe_pass, nr_brk);
	}
	if (kprobe_pass_nr > nr_brk)
		kprobe_ftrace_disarm_batch(kprobe_pass + nr_brk,
					   kprobe_pass_nr - nr_brk);
	for (i = 0; i < kprobe_pass_nr; i++) {
		entry = kprobe_pass[i];
		entry->flags &= ~KPROBE_FLAG_RETIRING;
		kprobe_leave_table(entry);
	}
	kprobe_pass_nr = 0;
}

/* @entry, armed, is disarmed by the pass, then leaves the table. */
static void kprobe_disarm_later(struct kprobe *entry)
{
	if (kprobe_pass_nr == KPROBE_PASS_MAX)
		kprobe_disarm_pending();
	/* No more a registered probe's owner; no jump from now on. */
	entry->flags |= KPROBE_FLAG_RETIRING;
	kprobe_opt_off(entry);
	kprobe_pass[kprobe_pass_nr++] = entry;
}

/*
 * Unhook @p.  Returns the table entry that left the table and must be
 * torn down once no CPU can be in its handlers (NULL when others still
 * share the address), or an ERR_PTR when @p is not registered.  An
 * armed entry leaves only with kprobe_disarm_pending(), which the caller
 * runs before it waits for the hits in progress.
 */
struct kprobe *__unregister_kprobe_top(struct kprobe *p)
{
	struct kprobe *entry;

	lockdep_assert_held(&kprobe_mutex);
	entry = kprobe_owner(p);
	if (!entry)
		return ERR_PTR(-EINVAL);

	if (entry != p) {
		list_del_rcu(&p->list);
		if (!list_empty(&entry->list)) {
			if (!kprobe_disabled(entry) &&
			    kprobe_aggr_all_disabled(entry)) {
				if (kprobe_should_be_armed(entry))
					WARN_ON(kprobe_disarm(entry));
				entry->flags |= KPROBE_FLAG_DISABLED;
			}
			kprobe_aggr_drop_post_handler(entry);
			kprobe_opt_update(entry);
			return NULL;
		}
	}

	if (!kprobe_gone(entry) && kprobe_should_be_armed(entry)) {
		kprobe_disarm_later(entry);
		return entry;
	}
	kprobe_leave_table(entry);
	return entry;
}

/* Free what __unregister_kprobe_top() unhooked, once no hit can hold it. */
void __unregister_kprobe_bottom(struct kprobe *retired)
{
	if (IS_ERR_OR_NULL(retired))
		return;
	if (!kprobe_gone(retired)) {
		kprobe_opt_release(retired);
		arch_remove_kprobe(retired);
	}
	if (kprobe_is_aggr(retired))
		kprobe_opt_free_aggr(container_of(retired, struct kprobe_aggr, kp));
	else
		INIT_HLIST_NODE(&retired->hlist);
}

/**
 * unregister_kprobe() - remove a probe
 * @p: a probe given to register_kprobe()
 *
 * Returns once no CPU can be running @p's handlers.  A probe that is not
 * registered only gets its addr cleared.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/*
 * Register entries 0 to @num - 1 of a batch with @reg, stopping at the
 * first failure.  *@registered tells the caller how many to roll back.
 */
int kprobe_register_batch(void *entries, int num,
			  int (*reg)(void *entries, int i), int *registered)
{
	int i, ret = 0;

	*registered = 0;
	if (num <= 0)
		return -EINVAL;
	if (!kprobes_initialized)
		return -EAGAIN;

	guard(mutex)(&kprobe_mutex);
	kprobe_pass_err = 0;
	/* One probe too: its several questions about its symbol. */
	kprobe_sym_own(true);
	arch_kprobe_batch_begin();
	kprobe_batching = num > 1;
	for (i = 0; i < num && !ret; i++)
		ret = reg(entries, i);
	*registered = ret ? i - 1 : i;
	/* Also after a failure: the caller unregisters them as usual. */
	kprobe_arm_pending();
	/* An ftrace site refused: the batch fails, all of it registered. */
	if (!ret && kprobe_pass_err) {
		ret = kprobe_pass_err;
		*registered = i;
	}
	kprobe_batching = false;
	arch_kprobe_batch_end();
	kprobe_sym_own(false);
	return ret;
}

static int register_kprobe_entry(void *entries, int i)
{
	return __register_kprobe(((struct kprobe **)entries)[i]);
}

/**
 * register_kprobe() - set a probe
 * @p: the probe; either @p->addr or @p->symbol_name (plus @p->offset)
 *
 * Return: 0, or -EINVAL (bad or unprobeable address, already
 * registered), -ENOENT (unknown symbol, an address kallsyms cannot name,
 * module going), -EILSEQ (not an instruction boundary), -ENOMEM, -EAGAIN
 * (kprobes not initialized yet), or an error from the architecture or
 * from ftrace.
 */
int register_kprobe(struct kprobe *p)
{
	int registered;

	/* A batch of one keeps what it learns about the function. */
	return kprobe_register_batch(&p, 1, register_kprobe_entry, &registered);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/**
 * register_kprobes() - set several probes, all or none
 * @kps: the probes
 * @num: how many
 *
 * Return: 0, -EINVAL when @num is not positive, -EAGAIN before kprobes
 * are initialized, or the first error of register_kprobe(); probes
 * registered before it are removed.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	int registered;
	int ret = kprobe_register_batch(kps, num, register_kprobe_entry,
					&registered);

	if (ret && registered)
		unregister_kprobes(kps, registered);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * unregister_kprobes() - remove several probes
 * @kps: the probes
 * @num: how many
 *
 * Entries that were not registered get their addr cleared, silently: a
 * batch may be partly registered.  The entry probe of a kretprobe may be
 * given too: its instance pool goes with it.  Waits once for the whole
 * batch until no CPU can run their handlers (kprobe_wait_for_hits()).
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_retired retired;
	struct kprobe *entry;
	int i;

	if (num <= 0)
		return;
	kprobe_retired_init(&retired);

	scoped_guard(mutex, &kprobe_mutex) {
		for (i = 0; i < num; i++) {
			entry = __unregister_kprobe_top(kps[i]);
			if (IS_ERR(entry)) {
				kps[i]->addr = NULL;
				continue;
			}
			if (entry)
				kprobe_retired_add(&retired, entry);
			kretprobe_detach(kps[i]);
		}
		kprobe_disarm_pending();
	}

	kprobe_wait_for_hits();
	scoped_guard(mutex, &kprobe_mutex) {
		while ((entry = kprobe_retired_pop(&retired)))
			__unregister_kprobe_bottom(entry);
	}
	/*
	 * Those left with an addr were registered.  Their pools are out of
	 * the table and idle: freeing many of them needs no kprobe_mutex.
	 */
	for (i = 0; i < num; i++) {
		if (kps[i]->addr)
			kretprobe_release(kps[i]);
	}
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * enable_kprobe() - let a disabled probe fire again
 * @kp: a registered probe
 *
 * Return: 0, -EINVAL if @kp is not registered or its text is gone, or an
 * error from arming it.
 */
int enable_kprobe(struct kprobe *kp)
{
	struct kprobe *entry;
	int ret;

	guard(mutex)(&kprobe_mutex);
	entry = kprobe_owner(kp);
	if (!entry || kprobe_gone(kp))
		return -EINVAL;
	if (!(kp->flags & KPROBE_FLAG_DISABLED))
		return 0;

	kp->flags &= ~KPROBE_FLAG_DISABLED;
	if (entry != kp) {
		if (!(entry->flags & KPROBE_FLAG_DISABLED))
			return 0;
		entry->flags &= ~KPROBE_FLAG_DISABLED;
	}
	if (!kprobe_should_be_armed(entry))
		return 0;

	ret = kprobe_arm(entry);
	if (ret) {
		entry->flags |= KPROBE_FLAG_DISABLED;
		kp->flags |= KPROBE_FLAG_DISABLED;
	}
	return ret;
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/**
 * disable_kprobe() - stop a probe firing without removing it
 * @kp: a registered probe
 *
 * Return: 0, -EINVAL if @kp is not registered, or an error from
 * disarming it.
 */
int disable_kprobe(struct kprobe *kp)
{
	struct kprobe *entry;
	bool armed;
	int ret;

	guard(mutex)(&kprobe_mutex);
	entry = kprobe_owner(kp);
	if (!entry)
		return -EINVAL;
	if (kp->flags & KPROBE_FLAG_DISABLED)
		return 0;

	armed = kprobe_should_be_armed(entry);
	kp->flags |= KPROBE_FLAG_DISABLED;
	if (entry != kp && !kprobe_aggr_all_disabled(entry))
		return 0;

	if (armed) {
		ret = kprobe_disarm(entry);
		if (ret) {
			kp->flags &= ~KPROBE_FLAG_DISABLED;
			return ret;
		}
	}
	entry->flags |= KPROBE_FLAG_DISABLED;
	return 0;
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/* For debugfs: buckets of the table, then the gone list. */
struct hlist_head *kprobe_list_bucket(unsigned int idx)
{
	lockdep_assert_held(&kprobe_mutex);
	if (idx < KPROBE_TABLE_SIZE)
		return &kprobe_table[idx];
	return idx == KPROBE_TABLE_SIZE ? &kprobe_gone_list : NULL;
}

static int kprobe_set_all_armed(bool arm)
{
	struct kprobe *entry;
	int i, ret, failed = 0;

	lockdep_assert_held(&kprobe_mutex);
	if (kprobes_all_disarmed == !arm)
		return 0;

	/* Flip first so that kprobe_should_be_armed() agrees with us. */
	kprobes_all_disarmed = !arm;
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		hlist_for_each_entry(entry, &kprobe_table[i], hlist) {
			/* A return trampoline's own probe must stay. */
			if (kprobe_disabled(entry) || arch_trampoline_kprobe(entry))
				continue;
			ret = arm ? kprobe_arm(entry) : kprobe_disarm(entry);
			if (ret)
				failed++;
		}
	}
	if (failed) {
		pr_warn("%d probes could not be %s\n", failed,
			arm ? "armed" : "disarmed");
		return -EIO;
	}
	pr_info("all probes %s\n", arm ? "armed" : "disarmed");
	return 0;
}

int kprobe_arm_all(void)
{
	return kprobe_set_all_armed(true);
}

int kprobe_disarm_all(void)
{
	return kprobe_set_all_armed(false);
}

/*
 * The text under these probes is about to be freed.  Take them out of the
 * table, wait until no CPU can be in their handlers or slots, release
 * their architecture state, and keep them on the gone list for their
 * owners to unregister.
 *
 * With @may_run, code in that text can still be called until it is freed
 * (a module's init text, from async work its init started), so the
 * original instructions are put back first: a breakpoint that no table
 * entry claims would kill the kernel.  Otherwise only ftrace, which keeps
 * its own records, needs telling.
 */
static void kprobe_retire_text(bool (*doomed)(unsigned long addr, void *arg),
			       void *arg, bool may_run)
{
	struct kprobe_retired retired;
	struct kprobe *entry, *kp;
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);
	/* What was learned about functions may be about this text. */
	kprobe_clean_memo.size = 0;
	arch_kprobe_forget_text();
	kprobe_retired_init(&retired);
	for (i = 0; i < KPROBE_TABLE_SIZE; i++) {
		/* hlist_del_rcu() keeps the node's next: the walk goes on. */
		hlist_for_each_entry(entry, &kprobe_table[i], hlist) {
			if (!doomed((unsigned long)entry->addr, arg))
				continue;
			if (kprobe_should_be_armed(entry) &&
			    (may_run || kprobe_ftrace(entry)))
				kprobe_disarm(entry);
			/* Out of the optimizer's hands before the text goes. */
			kprobe_opt_off(entry);
			hlist_del_rcu(&entry->hlist);
			kprobe_retired_add(&retired, entry);
		}
	}
	if (list_empty(&retired.lone) && list_empty(&retired.aggrs))
		return;
	synchronize_rcu();

	while ((entry = kprobe_retired_pop(&retired))) {
		kprobe_opt_release(entry);
		arch_remove_kprobe(entry);
		entry->flags |= KPROBE_FLAG_GONE;
		if (kprobe_is_aggr(entry)) {
			list_for_each_entry(kp, &entry->list, list)
				kp->flags |= KPROBE_FLAG_GONE;
		}
		hlist_add_head(&entry->hlist, &kprobe_gone_list);
	}
}

static bool kprobe_in_range(unsigned long addr, void *arg)
{
	unsigned long *range = arg;

	return addr >= range[0] && addr < range[1];
}

static bool kprobe_in_module(unsigned long addr, void *arg)
{
	return within_module(addr, arg);
}

static bool kprobe_in_module_init(unsigned long addr, void *arg)
{
	return within_module_init(addr, arg);
}

/**
 * kprobe_free_init_mem() - drop the probes on the kernel's init text
 *
 * Called just before that text is freed.
 */
void kprobe_free_init_mem(void)
{
	unsigned long range[2] = {
		(unsigned long)__init_begin, (unsigned long)__init_end
	};

	/* Nothing runs there any more: async init work has been waited for. */
	guard(mutex)(&kprobe_mutex);
	kprobe_retire_text(kprobe_in_range, range, false);
}

static int kprobe_module_event(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct module *mod = data;

	if (val != MODULE_STATE_COMING && val != MODULE_STATE_LIVE &&
	    val != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	guard(mutex)(&kprobe_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_blacklist_add_module(mod);
		break;
	case MODULE_STATE_LIVE:
		/* The module's init text is freed next. */
		kprobe_retire_text(kprobe_in_module_init, mod, true);
		break;
	case MODULE_STATE_GOING:
		/* Unloaded or failed to load: nothing may call into it now. */
		kprobe_retire_text(kprobe_in_module, mod, false);
		kprobe_blacklist_remove_module(mod);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kprobe_module_nb = {
	.notifier_call = kprobe_module_event,
	.priority = 0,
};

/**
 * kprobe_exceptions_notify() - die notifier for architectures that need it
 * @self: the notifier block
 * @val: the die event
 * @data: struct die_args
 *
 * Return: NOTIFY_DONE; an architecture overrides this to claim traps.
 */
int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}
NOKPROBE_SYMBOL(kprobe_exceptions_notify);

/* INT_MAX: ahead of uprobes (INT_MAX - 1), which gets what we leave. */
static struct notifier_block kprobe_exceptions_nb = {
	.priority = INT_MAX,
	.notifier_call = kprobe_exceptions_notify,
};

static int __init init_kprobes(void)
{
	int ret;

	ret = kprobe_blacklist_init();
	if (ret)
		pr_err("blacklist incomplete (%d): take care where you probe\n",
		       ret);
	kretprobe_blacklist_init();
	kprobe_opt_init();

	/* Some architectures register their own probes in arch_init_kprobes(). */
	kprobes_initialized = true;
	ret = arch_init_kprobes();
	if (!ret)
		ret = register_die_notifier(&kprobe_exceptions_nb);
	if (!ret)
		ret = register_module_notifier(&kprobe_module_nb);
	if (ret) {
		kprobes_initialized = false;
		pr_err("not available: %d\n", ret);
	}
	return ret;
}
early_initcall(init_kprobes);

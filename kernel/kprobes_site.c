// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a probe may go, and at what address.
 *
 * A registration turns what the user gave (an address or a symbol, plus
 * an offset) into a probe address, then asks whether a probe may sit
 * there: not on an ftrace site it cannot ride, not outside kernel text,
 * not on the blacklist, not where someone else patches the text (jump
 * labels, static calls, BUG() traps), not in init text already freed.
 * Most of these questions go through kallsyms, whose answers a batch
 * keeps from one probe to the next (kprobe_sym below).
 *
 * kprobe_check_location() runs under kprobe_mutex.  kprobe_resolve(),
 * kprobe_on_func_entry() and kprobe_check_unlocked() may also be called
 * without it; a caller that is not the batch's task asks kallsyms itself.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <kunit/visibility.h>
#include <linux/bug.h>
#include <linux/bug_table.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/static_call.h>
#include <linux/string.h>

#include "kprobes_internal.h"

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
	char name[KSYM_NAME_LEN];
} kprobe_sym;

static void kprobe_sym_forget(void)
{
	module_put(kprobe_sym.mod);
	kprobe_sym.mod = NULL;
	kprobe_sym.size = 0;
}

void kprobe_sym_own(bool own)
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
	return true;
}

/*
 * Keep the symbol around @addr, refilling the cache if need be.  False
 * when this task keeps none (it runs no batch) or kallsyms has none.
 */
static bool kprobe_sym_keep(unsigned long addr)
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

	if (!kprobe_sym_keep(addr))
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
	if (!kprobe_sym_keep(addr))
		return lookup_symbol_name(addr, name);
	strscpy(name, kprobe_sym.name, KSYM_NAME_LEN);
	return 0;
}

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
static bool kprobe_is_preamble_name(const char *name)
{
	return str_has_prefix(name, "__cfi_") || str_has_prefix(name, "__pfx_");
}

/*
 * Jump labels, static calls and BUG() traps are found by walking every
 * site the kernel (or the module) has, and x86 decodes each jump label
 * on the way.  A registration walks each table once for the kept
 * symbol's whole function, as costly as one address's walk: the BUG()
 * sites found are kept, and the others are asked about again for each
 * probe only in a function that has some.  Sites do not come or go in a
 * function whose text stays, so the last function's answer is also kept
 * from one registration to the next (tools register one probe per call),
 * until kprobe_mark_text_gone() says that some text goes.  Under
 * kprobe_mutex.
 */
#define KPROBE_FUNC_BUGS	8

static struct {
	unsigned long start, size;	/* size 0: nothing kept */
	bool patched;			/* a jump label or static call in it */
	int nr_bugs;			/* its BUG() sites, in bugs[] if they fit */
	unsigned long bugs[KPROBE_FUNC_BUGS];
} kprobe_func_sites;

/* Some text goes away: what was learned about its functions goes too. */
void kprobe_site_forget_text(void)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_func_sites.size = 0;
}

/* Does a jump label or static call site lie in [@first, @last]? */
static bool kprobe_patched_in(void *first, void *last)
{
	return jump_label_text_reserved(first, last) ||
	       static_call_text_reserved(first, last);
}

/* Learn the sites of the kept symbol's function, unless already known. */
static void kprobe_func_sites_learn(void)
{
	unsigned long start = kprobe_sym.start, end = start + kprobe_sym.size;

	if (kprobe_func_sites.start == start &&
	    kprobe_func_sites.size == kprobe_sym.size)
		return;
	kprobe_func_sites.patched = kprobe_patched_in((void *)start,
						      (void *)(end - 1));
	kprobe_func_sites.nr_bugs =
		bug_sites_in_range(start, end, kprobe_sym.mod,
				   kprobe_func_sites.bugs, KPROBE_FUNC_BUGS);
	kprobe_func_sites.start = start;
	kprobe_func_sites.size = kprobe_sym.size;
}

static bool kprobe_func_bug_at(unsigned long a)
{
	int i;

	if (kprobe_func_sites.nr_bugs > KPROBE_FUNC_BUGS)
		return find_bug(a);
	for (i = 0; i < kprobe_func_sites.nr_bugs; i++) {
		if (kprobe_func_sites.bugs[i] == a)
			return true;
	}
	return false;
}

/* Jump label and static call sites stay put while this is held. */
DEFINE_LOCK_GUARD_0(kprobe_jump_label, jump_label_lock(), jump_label_unlock())

static bool kprobe_site_reserved(kprobe_opcode_t *addr)
{
	unsigned long a = (unsigned long)addr;

	guard(kprobe_jump_label)();
	if (!kprobe_sym_keep(a))
		return kprobe_patched_in(addr, addr) || find_bug(a);
	kprobe_func_sites_learn();
	return (kprobe_func_sites.patched && kprobe_patched_in(addr, addr)) ||
	       kprobe_func_bug_at(a);
}

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * For the KUnit modules: is @addr a site that others patch or trap at,
 * asked as a registration asks it (@in_batch: one that keeps its symbol,
 * and so learns its function's sites)?  The decoders refuse a trap
 * instruction too, with the same errno, so a test of this check asks it.
 */
bool kprobe_site_reserved_kunit(void *addr, bool in_batch)
{
	bool reserved;

	guard(mutex)(&kprobe_mutex);
	kprobe_sym_own(in_batch);
	reserved = kprobe_site_reserved(addr);
	kprobe_sym_own(false);
	return reserved;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_site_reserved_kunit);
#endif

/*
 * The checks of kprobe_check_location() that take no lock, for @addr as
 * kprobe_resolve() gave it: why no probe may go there, or NULL.  A batch
 * also looks ahead with them, so as not to allocate for the probes
 * behind one that is refused; passing them then promises nothing.
 */
static const char *kprobe_unlocked_refusal(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (!core_kernel_text(addr) && !is_module_text_address(addr))
		return "is not kernel text";
	if (kprobe_bl_addr(addr))
		return "is blacklisted";
	/* One name for both checks; the second cuts it short. */
	if (!kprobe_symbol_name(addr, name) &&
	    (kprobe_is_preamble_name(name) || kprobe_bl_part_of(name)))
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
int kprobe_check_location(struct kprobe *p, struct module **modp)
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
	if (mod && within_module_init(addr, mod) && !module_is_coming(mod)) {
		module_put(mod);
		return -ENOENT;
	}
	*modp = mod;
	return 0;
}

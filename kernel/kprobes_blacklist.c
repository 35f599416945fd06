// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where probes may not go: functions marked NOKPROBE_SYMBOL() in the
 * kernel and in modules, the .kprobes.text and noinstr sections, and what
 * the architecture adds (entry code and the like).
 *
 * The list keeps one entry per symbol, for debugfs.  Lookups use a
 * separate sorted array of merged ranges, published under RCU, so that a
 * check costs a binary search whatever the number of entries.  The array
 * is rebuilt whenever the list changes (boot, module load and unload),
 * always under kprobe_mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <asm/sections.h>

#include "kprobes_internal.h"

struct kprobe_bl_range {
	unsigned long start;
	unsigned long end;
};

struct kprobe_bl_index {
	struct rcu_head rcu;
	unsigned int nr;
	struct kprobe_bl_range range[] __counted_by(nr);
};

static LIST_HEAD(kprobe_blacklist);
static struct kprobe_bl_index __rcu *kprobe_bl_index;

struct list_head *kprobe_blacklist_entries(void)
{
	lockdep_assert_held(&kprobe_mutex);
	return &kprobe_blacklist;
}

static bool kprobe_bl_search(unsigned long addr)
{
	const struct kprobe_bl_index *idx;
	unsigned int lo = 0, hi, mid;

	guard(rcu)();
	idx = rcu_dereference(kprobe_bl_index);
	if (!idx)
		return false;

	/* Find the last range starting at or below addr. */
	hi = idx->nr;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (idx->range[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < idx->range[lo - 1].end;
}

static int kprobe_bl_cmp(const void *a, const void *b)
{
	const struct kprobe_bl_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static void kprobe_bl_reindex(void)
{
	struct kprobe_blacklist_entry *ent;
	struct kprobe_bl_index *idx, *old;
	unsigned int n = 0, i, out;

	list_for_each_entry(ent, &kprobe_blacklist, list)
		n++;
	idx = kvmalloc(struct_size(idx, range, n), GFP_KERNEL);
	if (!idx) {
		/* The old index still covers the kernel; say what is missing. */
		pr_err("no memory to index the blacklist\n");
		return;
	}
	idx->nr = n;
	i = 0;
	list_for_each_entry(ent, &kprobe_blacklist, list) {
		idx->range[i].start = ent->start_addr;
		idx->range[i].end = ent->end_addr;
		i++;
	}
	sort(idx->range, n, sizeof(idx->range[0]), kprobe_bl_cmp, NULL);

	/* Merge overlapping and touching ranges so the search is exact. */
	for (i = 0, out = 0; i < n; i++) {
		if (out && idx->range[i].start <= idx->range[out - 1].end) {
			idx->range[out - 1].end = max(idx->range[out - 1].end,
						      idx->range[i].end);
			continue;
		}
		idx->range[out++] = idx->range[i];
	}
	idx->nr = out;

	old = rcu_replace_pointer(kprobe_bl_index, idx,
				  lockdep_is_held(&kprobe_mutex));
	if (old)
		kvfree_rcu(old, rcu);
}

/**
 * arch_within_kprobe_blacklist() - architecture-specific forbidden text
 * @addr: the address to check
 *
 * Return: true when @addr lies in the kprobes' own text section.
 */
bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return addr >= (unsigned long)__kprobes_text_start &&
	       addr < (unsigned long)__kprobes_text_end;
}

/**
 * within_kprobe_blacklist() - may no probe be placed at @addr?
 * @addr: the address to check
 *
 * Compiler-made parts of a function ("foo.cold", "foo.part.0", ...)
 * share the verdict of the function itself.
 *
 * Return: true when @addr is blacklisted.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (kprobe_bl_addr(addr))
		return true;
	return !kprobe_symbol_name(addr, name) && kprobe_bl_part_of(name);
}

/* The checks of within_kprobe_blacklist() that need no symbol name. */
bool kprobe_bl_addr(unsigned long addr)
{
	return arch_within_kprobe_blacklist(addr) || kprobe_bl_search(addr);
}

/*
 * Is @name a compiler-made part of a blacklisted function?  The caller
 * names the symbol itself, so that it can ask kallsyms once for several
 * checks: naming a module address walks the module's whole symbol table.
 * @name is cut at its first '.'.
 */
bool kprobe_bl_part_of(char *name)
{
	unsigned long base;
	char *dot;

	dot = strchr(name, '.');
	if (!dot)
		return false;
	*dot = '\0';
	base = kallsyms_lookup_name(name);
	return base && kprobe_bl_addr(base);
}

static int kprobe_bl_add_range(struct list_head *list, unsigned long start,
			       unsigned long end)
{
	struct kprobe_blacklist_entry *ent;

	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent)
		return -ENOMEM;
	ent->start_addr = start;
	ent->end_addr = end;
	list_add_tail(&ent->list, list);
	return 0;
}

/* Blacklist, on @list, the symbol around @entry; see below. */
static int kprobe_bl_add_ksym(struct list_head *list, unsigned long entry)
{
	unsigned long size, off;
	int ret;

	if (!kernel_text_address(entry) ||
	    !kallsyms_lookup_size_offset(entry, &size, &off))
		return -EINVAL;

	ret = kprobe_bl_add_range(list, entry - off, entry - off + size);
	return ret ?: size - off;
}

/**
 * kprobe_add_ksym_blacklist() - blacklist the symbol containing an address
 * @entry: an address inside a function
 *
 * Return: the number of bytes from @entry to the end of that symbol, or
 * -EINVAL if @entry is not in a known text symbol, or -ENOMEM.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	return kprobe_bl_add_ksym(&kprobe_blacklist, entry);
}

/**
 * kprobe_bl_add_area() - blacklist an area of text, symbol by symbol
 * @list: the blacklist to add to (kprobe_blacklist, or a test's own list)
 * @start: first address of the area
 * @end: first address past the area
 *
 * Adds one entry per symbol of [@start, @end), so that debugfs can name
 * them.  Where kallsyms cannot size a symbol, the rest of the area goes in
 * as one range: a gap here would let probes into code that must not take
 * them.  Visible to lib/test_kprobes_core.c, which walks areas onto a list
 * of its own.
 *
 * Context: may sleep (allocates with GFP_KERNEL); the caller serializes
 * changes to @list.
 * Return: 0, or -ENOMEM; the entries added before a failure stay on @list.
 */
VISIBLE_IF_KUNIT int kprobe_bl_add_area(struct list_head *list,
					unsigned long start, unsigned long end)
{
	unsigned long addr = start;
	int ret;

	while (addr < end) {
		ret = kprobe_bl_add_ksym(list, addr);
		if (ret == -ENOMEM)
			return ret;
		if (ret <= 0)
			return kprobe_bl_add_range(list, addr, end);
		addr += ret;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_bl_add_area);

/**
 * kprobe_add_area_blacklist() - blacklist every symbol in a range
 * @start: first address
 * @end: first address past the range
 *
 * The whole range is covered even where kallsyms cannot name its text.
 *
 * Return: 0, or -ENOMEM.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	return kprobe_bl_add_area(&kprobe_blacklist, start, end);
}

/**
 * arch_populate_kprobe_blacklist() - add the architecture's forbidden text
 *
 * Return: 0, or an error from kprobe_add_area_blacklist().
 */
int __weak __init arch_populate_kprobe_blacklist(void)
{
	return 0;
}

static int kprobe_blacklist_add_marked(unsigned long *start,
				       unsigned long *stop)
{
	unsigned long *iter, addr;
	int ret;

	for (iter = start; iter < stop; iter++) {
		addr = (unsigned long)dereference_symbol_descriptor((void *)*iter);
		ret = kprobe_add_ksym_blacklist(addr);
		if (ret == -EINVAL)
			continue;
		if (ret < 0)
			return ret;
	}
	return 0;
}

int __init kprobe_blacklist_init(void)
{
	int ret;

	guard(mutex)(&kprobe_mutex);
	ret = kprobe_blacklist_add_marked(__start_kprobe_blacklist,
					  __stop_kprobe_blacklist);
	if (!ret)
		ret = kprobe_add_area_blacklist((unsigned long)__kprobes_text_start,
						(unsigned long)__kprobes_text_end);
	if (!ret)
		ret = kprobe_add_area_blacklist((unsigned long)__noinstr_text_start,
						(unsigned long)__noinstr_text_end);
	if (!ret)
		ret = arch_populate_kprobe_blacklist();
	kprobe_bl_reindex();
	return ret;
}

#ifdef CONFIG_MODULES
void kprobe_blacklist_add_module(struct module *mod)
{
	unsigned long start;

	lockdep_assert_held(&kprobe_mutex);
	kprobe_blacklist_add_marked(mod->kprobe_blacklist,
				    mod->kprobe_blacklist + mod->num_kprobe_blacklist);
	start = (unsigned long)mod->kprobes_text_start;
	if (start)
		kprobe_add_area_blacklist(start, start + mod->kprobes_text_size);
	start = (unsigned long)mod->noinstr_text_start;
	if (start)
		kprobe_add_area_blacklist(start, start + mod->noinstr_text_size);
	kprobe_bl_reindex();
}

void kprobe_blacklist_remove_module(struct module *mod)
{
	struct kprobe_blacklist_entry *ent, *tmp;
	bool changed = false;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry_safe(ent, tmp, &kprobe_blacklist, list) {
		if (!within_module(ent->start_addr, mod))
			continue;
		list_del(&ent->list);
		kfree(ent);
		changed = true;
	}
	if (changed)
		kprobe_bl_reindex();
}
#endif

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Executable slots for out-of-line copies of probed instructions.
 *
 * A cache hands out fixed-size slots cut from executable pages that the
 * architecture allocates.  A slot freed "dirty" may still have a CPU
 * executing in it, so it only becomes reusable after every task has been
 * through a voluntary context switch; such slots are collected in
 * batches.  A page is given back as soon as none of its slots is used or
 * dirty.
 *
 * The page list is walked without locks under RCU by the unwinders (via
 * kernel_text_address()) and by kallsyms; everything else holds the
 * cache's mutex.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/execmem.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/rcupdate_wait.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT

enum kprobe_slot_state {
	KPROBE_SLOT_FREE,
	KPROBE_SLOT_USED,
	KPROBE_SLOT_DIRTY,
};

struct kprobe_slot_page {
	struct list_head node;
	struct rcu_head rcu;
	kprobe_opcode_t *base;
	unsigned int nr_busy;	/* used or dirty */
	u8 state[];
};

static unsigned int kprobe_slots_per_page(struct kprobe_insn_cache *c)
{
	return PAGE_SIZE / (c->insn_size * sizeof(kprobe_opcode_t));
}

static void kprobe_slot_page_free(struct kprobe_insn_cache *c,
				  struct kprobe_slot_page *page)
{
	list_del_rcu(&page->node);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)page->base, PAGE_SIZE, true, c->sym);
	c->free(page->base);
	kfree_rcu(page, rcu);
}

static struct kprobe_slot_page *kprobe_slot_page_new(struct kprobe_insn_cache *c)
{
	unsigned int n = kprobe_slots_per_page(c);
	struct kprobe_slot_page *page;

	page = kzalloc(struct_size(page, state, n), GFP_KERNEL);
	if (!page)
		return NULL;
	page->base = c->alloc();
	if (!page->base) {
		kfree(page);
		return NULL;
	}
	list_add_rcu(&page->node, &c->pages);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
			   (unsigned long)page->base, PAGE_SIZE, false, c->sym);
	return page;
}

static kprobe_opcode_t *kprobe_slot_take(struct kprobe_insn_cache *c,
					 struct kprobe_slot_page *page)
{
	unsigned int i, n = kprobe_slots_per_page(c);

	if (page->nr_busy == n)
		return NULL;
	for (i = 0; i < n; i++) {
		if (page->state[i] == KPROBE_SLOT_FREE) {
			page->state[i] = KPROBE_SLOT_USED;
			page->nr_busy++;
			return page->base + i * c->insn_size;
		}
	}
	return NULL;
}

/* Make dirty slots reusable once no task can still be running in them. */
static void kprobe_slot_collect(struct kprobe_insn_cache *c)
{
	struct kprobe_slot_page *page, *tmp;
	unsigned int i, n = kprobe_slots_per_page(c);

	lockdep_assert_held(&c->mutex);
	/* Out-of-line code may be preempted: plain RCU is not enough. */
	if (IS_ENABLED(CONFIG_TASKS_RCU))
		synchronize_rcu_tasks();
	else
		synchronize_rcu();

	list_for_each_entry_safe(page, tmp, &c->pages, node) {
		for (i = 0; i < n; i++) {
			if (page->state[i] != KPROBE_SLOT_DIRTY)
				continue;
			page->state[i] = KPROBE_SLOT_FREE;
			page->nr_busy--;
		}
		if (!page->nr_busy)
			kprobe_slot_page_free(c, page);
	}
	c->nr_garbage = 0;
}

/**
 * __get_insn_slot() - take a slot from a cache
 * @c: the cache
 *
 * Return: the slot, or NULL when no page could be allocated.
 */
kprobe_opcode_t *__get_insn_slot(struct kprobe_insn_cache *c)
{
	struct kprobe_slot_page *page;
	kprobe_opcode_t *slot;

	guard(mutex)(&c->mutex);
	list_for_each_entry(page, &c->pages, node) {
		slot = kprobe_slot_take(c, page);
		if (slot)
			return slot;
	}
	if (c->nr_garbage) {
		kprobe_slot_collect(c);
		list_for_each_entry(page, &c->pages, node) {
			slot = kprobe_slot_take(c, page);
			if (slot)
				return slot;
		}
	}
	page = kprobe_slot_page_new(c);
	return page ? kprobe_slot_take(c, page) : NULL;
}

/**
 * __free_insn_slot() - give a slot back
 * @c: the cache it came from
 * @slot: the slot
 * @dirty: non-zero if a CPU may still be executing in @slot
 */
void __free_insn_slot(struct kprobe_insn_cache *c, kprobe_opcode_t *slot,
		      int dirty)
{
	size_t span = kprobe_slots_per_page(c) * c->insn_size;
	struct kprobe_slot_page *page;
	unsigned int i;

	guard(mutex)(&c->mutex);
	list_for_each_entry(page, &c->pages, node) {
		if (slot < page->base || slot >= page->base + span)
			continue;
		i = (slot - page->base) / c->insn_size;
		if (WARN_ON_ONCE(page->state[i] != KPROBE_SLOT_USED))
			return;
		if (dirty) {
			page->state[i] = KPROBE_SLOT_DIRTY;
			if (++c->nr_garbage > kprobe_slots_per_page(c))
				kprobe_slot_collect(c);
			return;
		}
		page->state[i] = KPROBE_SLOT_FREE;
		if (!--page->nr_busy)
			kprobe_slot_page_free(c, page);
		return;
	}
	WARN_ONCE(1, "slot %pS is not from the %s cache\n", slot, c->sym);
}

/**
 * __is_insn_slot_addr() - does an address lie in one of a cache's pages?
 * @c: the cache
 * @addr: the address
 *
 * Safe in any context, including NMI: it takes no lock.
 *
 * Return: true when @addr is inside a page of @c.
 */
bool __is_insn_slot_addr(struct kprobe_insn_cache *c, unsigned long addr)
{
	struct kprobe_slot_page *page;
	bool found = false;

	rcu_read_lock_sched_notrace();
	list_for_each_entry_rcu(page, &c->pages, node) {
		if (addr >= (unsigned long)page->base &&
		    addr < (unsigned long)page->base + PAGE_SIZE) {
			found = true;
			break;
		}
	}
	rcu_read_unlock_sched_notrace();
	return found;
}
NOKPROBE_SYMBOL(__is_insn_slot_addr);

/**
 * kprobe_cache_get_kallsym() - name a cache's pages for kallsyms
 * @c: the cache
 * @symnum: index of the wanted page; reduced by the pages of @c when the
 *	index lies beyond them
 * @value: set to the page's address
 * @type: set to 't'
 * @sym: set to the cache's symbol name
 *
 * Return: 0 when the page was found, -ERANGE otherwise.
 */
int kprobe_cache_get_kallsym(struct kprobe_insn_cache *c, unsigned int *symnum,
			     unsigned long *value, char *type, char *sym)
{
	struct kprobe_slot_page *page;

	guard(rcu)();
	list_for_each_entry_rcu(page, &c->pages, node) {
		if ((*symnum)--)
			continue;
		strscpy(sym, c->sym, KSYM_NAME_LEN);
		*type = 't';
		*value = (unsigned long)page->base;
		return 0;
	}
	return -ERANGE;
}

/**
 * alloc_insn_page() - allocate one executable page for instruction slots
 *
 * Return: the page, or NULL.  execmem keeps it within reach of the kernel
 * image, which rip-relative fix-ups in slots depend on.
 */
void __weak *alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

static void kprobe_insn_page_free(void *page)
{
	execmem_free(page);
}

/* The cache every architecture with out-of-line copies uses. */
struct kprobe_insn_cache kprobe_insn_slots = {
	.sym = KPROBE_INSN_PAGE_SYM,
	.insn_size = MAX_INSN_SIZE,
	.alloc = alloc_insn_page,
	.free = kprobe_insn_page_free,
	.pages = LIST_HEAD_INIT(kprobe_insn_slots.pages),
	.mutex = __MUTEX_INITIALIZER(kprobe_insn_slots.mutex),
};
#endif /* __ARCH_WANT_KPROBES_INSN_SLOT */

/**
 * kprobe_get_kallsym() - the @symnum-th symbol kprobes adds to kallsyms
 * @symnum: index, counted over every slot cache and then the architecture
 * @value: address of the symbol
 * @type: kallsyms type letter
 * @sym: name of the symbol
 *
 * Return: 0, or -ERANGE past the last symbol.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
	static struct kprobe_insn_cache *const caches[] = {
		&kprobe_insn_slots,
#ifdef CONFIG_OPTPROBES
		&kprobe_optinsn_slots,
#endif
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(caches); i++) {
		if (!kprobe_cache_get_kallsym(caches[i], &symnum, value, type,
					      sym))
			return 0;
	}
#endif
	return arch_kprobe_get_kallsym(&symnum, value, type, sym);
}

/**
 * arch_kprobe_get_kallsym() - symbols an architecture adds to kallsyms
 * @symnum: index of the wanted symbol among the architecture's
 * @value: set to the symbol's address
 * @type: set to its kallsyms type letter
 * @sym: set to its name
 *
 * Return: -ERANGE; the default adds no symbol.
 */
int __weak arch_kprobe_get_kallsym(unsigned int *symnum, unsigned long *value,
				   char *type, char *sym)
{
	return -ERANGE;
}

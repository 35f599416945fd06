// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Executable slots for out-of-line copies of probed instructions.
 *
 * A cache hands out fixed-size slots cut from executable pages that the
 * architecture allocates.  A slot freed "dirty" may still have a CPU
 * executing in it, so it only becomes reusable after every task has been
 * through a voluntary context switch; a worker waits for that with no
 * lock held, for all such slots at once.  A page none of whose slots is
 * used or dirty is given back, except the last such page, which is kept
 * for the next probe.
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
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "kprobes_internal.h"

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT

enum kprobe_slot_state {
	KPROBE_SLOT_FREE,
	KPROBE_SLOT_USED,
	KPROBE_SLOT_DIRTY,	/* freed, a CPU may still run in it */
	KPROBE_SLOT_RECLAIM,	/* dirty, and its grace period has begun */
};

struct kprobe_slot_page {
	struct list_head node;
	struct rcu_head rcu;
	kprobe_opcode_t *base;
	unsigned int nr_busy;	/* used or dirty */
	u8 state[];
};

static struct kprobe_insn_cache *const kprobe_slot_caches[] = {
	&kprobe_insn_slots,
#ifdef CONFIG_OPTPROBES
	&kprobe_optinsn_slots,
#endif
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

/*
 * @page has no busy slot left.  Keep it while it is the only such page:
 * whoever adds and removes a lone probe in a loop then reuses it, instead
 * of allocating an executable page and flushing every TLB each time.
 */
static void kprobe_slot_page_idle(struct kprobe_insn_cache *c,
				  struct kprobe_slot_page *page)
{
	struct kprobe_slot_page *other;

	list_for_each_entry(other, &c->pages, node) {
		if (other != page && !other->nr_busy) {
			kprobe_slot_page_free(c, page);
			return;
		}
	}
}

/* Cut @base, a new page from the architecture (or NULL), into slots. */
static struct kprobe_slot_page *kprobe_slot_page_add(struct kprobe_insn_cache *c,
						     void *base)
{
	unsigned int n = kprobe_slots_per_page(c);
	struct kprobe_slot_page *page;

	if (!base)
		return NULL;
	page = kzalloc(struct_size(page, state, n), GFP_KERNEL);
	if (!page) {
		c->free(base);
		return NULL;
	}
	page->base = base;
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

/* Move every slot of @c in state @from to @to; return how many moved. */
static unsigned int kprobe_slot_move(struct kprobe_insn_cache *c,
				     enum kprobe_slot_state from,
				     enum kprobe_slot_state to)
{
	unsigned int i, moved, total = 0, n = kprobe_slots_per_page(c);
	struct kprobe_slot_page *page, *tmp;

	lockdep_assert_held(&c->mutex);
	list_for_each_entry_safe(page, tmp, &c->pages, node) {
		moved = 0;
		for (i = 0; i < n; i++) {
			if (page->state[i] == from) {
				page->state[i] = to;
				moved++;
			}
		}
		total += moved;
		if (to != KPROBE_SLOT_FREE || !moved)
			continue;
		page->nr_busy -= moved;
		if (!page->nr_busy)
			kprobe_slot_page_idle(c, page);
	}
	return total;
}

/*
 * Make dirty slots reusable once no task can still be running in them.
 * Whoever frees a dirty slot may hold text_mutex, and slots are taken
 * under it: the wait for tasks to leave runs here with neither
 * that nor any cache's mutex held.
 */
static void kprobe_slot_reclaim(struct work_struct *work)
{
	struct kprobe_insn_cache *c;
	unsigned int i, pending = 0;

	for (i = 0; i < ARRAY_SIZE(kprobe_slot_caches); i++) {
		c = kprobe_slot_caches[i];
		scoped_guard(mutex, &c->mutex)
			pending += kprobe_slot_move(c, KPROBE_SLOT_DIRTY,
						    KPROBE_SLOT_RECLAIM);
	}
	if (!pending)
		return;

	lockdep_assert_not_held(&text_mutex);
	for (i = 0; i < ARRAY_SIZE(kprobe_slot_caches); i++)
		lockdep_assert_not_held(&kprobe_slot_caches[i]->mutex);
	/* Out-of-line code may be preempted or interrupted. */
	kprobe_wait_tasks_out();

	for (i = 0; i < ARRAY_SIZE(kprobe_slot_caches); i++) {
		c = kprobe_slot_caches[i];
		scoped_guard(mutex, &c->mutex)
			c->nr_garbage -= kprobe_slot_move(c, KPROBE_SLOT_RECLAIM,
							  KPROBE_SLOT_FREE);
	}
}

static DECLARE_WORK(kprobe_slot_reclaim_work, kprobe_slot_reclaim);

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

	/* Never waits for dirty slots: callers may hold text_mutex. */
	guard(mutex)(&c->mutex);
	list_for_each_entry(page, &c->pages, node) {
		slot = kprobe_slot_take(c, page);
		if (slot)
			return slot;
	}
	page = kprobe_slot_page_add(c, c->alloc());
	return page ? kprobe_slot_take(c, page) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(__get_insn_slot);

/**
 * __get_insn_slot_within() - take a slot that lies inside an address range
 * @c: the cache
 * @start: the lowest address the slot's page may start at
 * @end: the address the slot's page must end at or before
 *
 * For a slot that branches back to its probe with a branch of limited
 * reach.  It is cut from a page of @c inside the range, or else from a
 * page the architecture allocates there (arch_alloc_insn_page_within()),
 * which then serves any request on @c: one list of pages, so dirty slots
 * are reclaimed as they are for every other slot.
 *
 * Return: the slot, or NULL when no page inside the range has a free slot
 * and none could be allocated there.
 */
kprobe_opcode_t *__get_insn_slot_within(struct kprobe_insn_cache *c,
					unsigned long start, unsigned long end)
{
	struct kprobe_slot_page *page;
	kprobe_opcode_t *slot;
	unsigned long base;

	guard(mutex)(&c->mutex);
	list_for_each_entry(page, &c->pages, node) {
		base = (unsigned long)page->base;
		if (base < start || base + PAGE_SIZE > end)
			continue;
		slot = kprobe_slot_take(c, page);
		if (slot)
			return slot;
	}
	page = kprobe_slot_page_add(c, arch_alloc_insn_page_within(start, end));
	return page ? kprobe_slot_take(c, page) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(__get_insn_slot_within);

/* The page of @c that holds @slot, and the slot's index in it. */
static struct kprobe_slot_page *
kprobe_slot_page_of(struct kprobe_insn_cache *c, kprobe_opcode_t *slot,
		    unsigned int *index)
{
	size_t span = kprobe_slots_per_page(c) * c->insn_size;
	struct kprobe_slot_page *page;

	lockdep_assert_held(&c->mutex);
	list_for_each_entry(page, &c->pages, node) {
		if (slot >= page->base && slot < page->base + span) {
			*index = (slot - page->base) / c->insn_size;
			return page;
		}
	}
	return NULL;
}

/**
 * __free_insn_slot() - give a slot back
 * @c: the cache it came from
 * @slot: the slot
 * @dirty: non-zero if a CPU may still be executing in @slot
 *
 * A dirty slot is handed out again only once every task has been through a
 * voluntary context switch; a worker waits for that, so this never sleeps
 * longer than it takes to get the cache's mutex.  @c->nr_garbage counts
 * the dirty slots until then.  Only the caches kprobes defines (insn and
 * optinsn) take dirty slots: the worker knows no other.
 */
void __free_insn_slot(struct kprobe_insn_cache *c, kprobe_opcode_t *slot,
		      int dirty)
{
	struct kprobe_slot_page *page;
	unsigned int i;

	guard(mutex)(&c->mutex);
	page = kprobe_slot_page_of(c, slot, &i);
	if (!page) {
		WARN_ONCE(1, "slot %pS is not from the %s cache\n", slot, c->sym);
		return;
	}
	if (WARN_ON_ONCE(page->state[i] != KPROBE_SLOT_USED))
		return;
	if (dirty) {
		page->state[i] = KPROBE_SLOT_DIRTY;
		c->nr_garbage++;
		schedule_work(&kprobe_slot_reclaim_work);
		return;
	}
	page->state[i] = KPROBE_SLOT_FREE;
	if (!--page->nr_busy)
		kprobe_slot_page_idle(c, page);
}
EXPORT_SYMBOL_IF_KUNIT(__free_insn_slot);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * kprobe_slot_taken_kunit() - may @slot not be handed out now?
 * @c: the cache it came from
 * @slot: the slot
 *
 * Return: true while @slot is in use, or freed dirty and not yet reclaimed.
 */
bool kprobe_slot_taken_kunit(struct kprobe_insn_cache *c,
			     kprobe_opcode_t *slot)
{
	struct kprobe_slot_page *page;
	unsigned int i;

	guard(mutex)(&c->mutex);
	page = kprobe_slot_page_of(c, slot, &i);
	return page && page->state[i] != KPROBE_SLOT_FREE;
}
EXPORT_SYMBOL_IF_KUNIT(kprobe_slot_taken_kunit);
#endif

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
EXPORT_SYMBOL_IF_KUNIT(__is_insn_slot_addr);

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
EXPORT_SYMBOL_IF_KUNIT(kprobe_cache_get_kallsym);

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
EXPORT_SYMBOL_IF_KUNIT(kprobe_insn_slots);

#ifdef CONFIG_OPTPROBES
/**
 * alloc_optinsn_page() - allocate one executable page for detour buffers
 *
 * Return: the page, or NULL.  By default the same as alloc_insn_page().
 */
void __weak *alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

/**
 * free_optinsn_page() - release a page from alloc_optinsn_page()
 * @page: the page
 */
void __weak free_optinsn_page(void *page)
{
	kprobe_insn_page_free(page);
}

/* Detour buffers of optimized probes; the size is set at boot. */
struct kprobe_insn_cache kprobe_optinsn_slots = {
	.sym = KPROBE_OPTINSN_PAGE_SYM,
	.alloc = alloc_optinsn_page,
	.free = free_optinsn_page,
	.pages = LIST_HEAD_INIT(kprobe_optinsn_slots.pages),
	.mutex = __MUTEX_INITIALIZER(kprobe_optinsn_slots.mutex),
};
EXPORT_SYMBOL_IF_KUNIT(kprobe_optinsn_slots);
#endif
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
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprobe_slot_caches); i++) {
		if (!kprobe_cache_get_kallsym(kprobe_slot_caches[i], &symnum,
					      value, type, sym))
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

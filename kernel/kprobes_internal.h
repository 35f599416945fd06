/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between kernel/kprobes.c and its companions (where probes may
 * go, batches, hits, text going away, kretprobes, ftrace-based probes,
 * jump optimization, blacklist, instruction slots, debugfs).
 * The lock order is written down at the top of kernel/kprobes.c.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/bits.h>
#include <linux/cleanup.h>
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

extern struct mutex kprobe_mutex;

/*
 * A hit runs with preemption off, which makes it an RCU reader.  Its
 * walks of the table say so first, so that lockdep is not asked: a probe
 * may sit where lockdep's record of the softirq state trails the CPU's
 * (inside local_bh_disable(), between the count's change and
 * lockdep_softirqs_off()), and any question put to lockdep there is
 * answered with a warning.
 */
#define kprobe_rcu_reader()	(!preemptible())

/*
 * How long a batch holds kprobe_mutex before it lets the others in.  A
 * debug kernel may spend seconds on a few hundred probes, and a lone
 * registration waiting behind a batch of thousands would be a hung task;
 * the base's register_kprobes() takes the mutex once per probe.
 */
#define KPROBE_SLICE_JIFFIES	(HZ / 10)

static inline unsigned long kprobe_slice_end(void)
{
	return jiffies + KPROBE_SLICE_JIFFIES;
}

static inline bool kprobe_slice_over(unsigned long end)
{
	return time_after_eq(jiffies, end);
}

/*
 * A slice takes kprobe_mutex through kprobe_slice_lock(), which counts
 * its caller as waiting until it holds the mutex; a batch calls
 * kprobe_slice_pause() between its slices, so that the callers counted
 * get their turn before it goes on.
 */
void kprobe_slice_lock(void);
void kprobe_slice_pause(void);

DEFINE_LOCK_GUARD_0(kprobe_slice, kprobe_slice_lock(),
		    mutex_unlock(&kprobe_mutex))

/*
 * Core-private bits of kprobe.flags, above the public KPROBE_FLAG_*: an
 * ftrace-based entry is in an ftrace_ops filter, and in which ops.
 */
#define KPROBE_FLAG_FTRACE_ARMED	BIT(30)
#define KPROBE_FLAG_FTRACE_IPMODIFY	BIT(31)
/*
 * A table entry of a batch registration waiting for the batch's one
 * arming pass, or of a batch unregistration waiting, still in the table,
 * for the one disarming pass.  Only while kprobe_mutex is held.
 */
#define KPROBE_FLAG_ARM_PENDING		BIT(29)
#define KPROBE_FLAG_DISARM_PENDING	BIT(28)
/*
 * An entry that rides an ftrace site is armed as a breakpoint on its own
 * instruction instead (kprobes_ftrace.c, "Traps"); that breakpoint has
 * been prepared.
 */
#define KPROBE_FLAG_FTRACE_TRAP		BIT(27)
#define KPROBE_FLAG_FTRACE_TRAP_READY	BIT(26)

/* Patching kernel text: CPU hotplug held off, then text_mutex. */
static inline void kprobe_text_lock(void)
{
	cpus_read_lock();
	mutex_lock(&text_mutex);
}

static inline void kprobe_text_unlock(void)
{
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

DEFINE_LOCK_GUARD_0(kprobe_text, kprobe_text_lock(), kprobe_text_unlock())

/*
 * 16384 buckets: with as many probes registered, a bucket holds about one
 * entry, so a hit costs what it costs with a single probe.
 */
#define KPROBE_HASH_BITS	14
#define KPROBE_TABLE_SIZE	BIT(KPROBE_HASH_BITS)

/*
 * An aggregate: the table entry when several probes share an address, or
 * when one probe may be optimized.  Being the core's own allocation, it
 * has room for a link the breakpoint path never reads (@unhooked, see
 * struct kprobe_unhooked below), and, with jump optimization, for
 * the optimizer's state: @op.kp is @kp.
 */
struct kprobe_aggr {
	union {
		struct kprobe kp;
#ifdef CONFIG_OPTPROBES
		struct optimized_kprobe op;
#endif
	};
	struct list_head unhooked;
	/* it had a detour: a task may still run its buffer, which knows it */
	bool detoured;
	/* on kprobe_opt_reap_list once it leaves, if it had a detour */
	struct llist_node reap;
};

/* Free @aggr, out of the table, and its slot unless its text is gone. */
static inline void kprobe_aggr_free_now(struct kprobe_aggr *aggr)
{
	if (!kprobe_gone(&aggr->kp))
		arch_remove_kprobe(&aggr->kp);
	kfree(aggr);
}

/* Set by the "enabled" debugfs knob: every probe is disarmed. */
extern bool kprobes_all_disarmed;
extern bool kprobes_initialized;
/* current_kprobe while a CPU must not run probe handlers */
extern struct kprobe kprobe_busy_marker;

/* kprobes.c */
bool kprobe_is_aggr(struct kprobe *p);
struct hlist_head *kprobe_list_bucket(unsigned int idx);
struct kprobe *kprobe_owner(struct kprobe *p);
bool kprobe_is_registered(struct kprobe *p);
bool kprobe_should_be_armed(struct kprobe *entry);
bool kprobe_aggr_all_disabled(struct kprobe *entry);
int kprobe_arm(struct kprobe *entry);
int kprobe_disarm(struct kprobe *entry);
int __register_kprobe(struct kprobe *p);
void kprobe_make_optimizable(struct kprobe *entry);
struct kprobe *__unregister_kprobe_top(struct kprobe *p);
void __unregister_kprobe_bottom(struct kprobe *entry);
void kprobe_leave_table(struct kprobe *entry);

/*
 * Table entries unhooked and waiting for the hits in progress, chained
 * without allocating (a batch may hold thousands).  Their hlist nodes stay
 * as they are until then, since a lookup may stand on one; a lone probe
 * is chained through its own @list instead, which only an aggregate's
 * readers walk, and an aggregate through its @unhooked.
 */
struct kprobe_unhooked {
	struct list_head lone;
	struct list_head aggrs;
};

void kprobe_unhooked_init(struct kprobe_unhooked *r);
void kprobe_unhooked_add(struct kprobe_unhooked *r, struct kprobe *entry);
struct kprobe *kprobe_unhooked_pop(struct kprobe_unhooked *r);

/* kprobes_enable.c */
int kprobe_arm_all(void);
int kprobe_disarm_all(void);

/* kprobes_text_gone.c */
extern struct hlist_head kprobe_gone_list;
void kprobe_text_gone_kunit(void *start, void *end);
#ifdef CONFIG_MODULES
int kprobe_watch_modules(void);
#else
/* Without modules, the only text that goes away is the kernel's init text. */
static inline int kprobe_watch_modules(void)
{
	return 0;
}
#endif

/*
 * The architecture's side of a batch.  An architecture that has its own
 * defines the name in <asm/kprobes.h> (#define arch_arm_kprobes
 * arch_arm_kprobes) and declares the function there.
 */
#ifndef arch_arm_kprobes
/*
 * Arm @num breakpoint entries, none armed yet, in one pass over the text,
 * with the text lock held.  An architecture that can synchronize the
 * other CPUs once for all of them has its own.
 */
static inline void arch_arm_kprobes(struct kprobe **entries, int num)
{
	int i;

	lockdep_assert_held(&text_mutex);
	for (i = 0; i < num; i++)
		arch_arm_kprobe(entries[i]);
}
#endif

#ifndef arch_disarm_kprobes
/* As arch_arm_kprobes(), the other way: the entries are not optimized. */
static inline void arch_disarm_kprobes(struct kprobe **entries, int num)
{
	int i;

	lockdep_assert_held(&text_mutex);
	for (i = 0; i < num; i++)
		arch_disarm_kprobe(entries[i]);
}
#endif

#ifndef arch_kprobe_batch_begin
/*
 * A registration starts, of a batch or of one probe.  kprobe_mutex is
 * held until arch_kprobe_batch_end(): until then no probed text is freed,
 * and what the architecture learns about a function's instructions stays
 * true.  What it keeps longer it forgets in arch_kprobe_forget_text().
 */
static inline void arch_kprobe_batch_begin(void) { }
#endif

#ifndef arch_kprobe_batch_end
static inline void arch_kprobe_batch_end(void) { }
#endif

#ifndef arch_alloc_insn_page_within
/*
 * One executable page for instruction slots, inside [@start, @end), or
 * NULL.  Only an architecture whose slots branch back with a short reach
 * and whose slot pages may otherwise land out of it needs one.
 */
static inline void *arch_alloc_insn_page_within(unsigned long start,
						unsigned long end)
{
	return NULL;
}
#endif

/* kprobes_batch.c: one pass over the text for many probes */
extern bool kprobe_batching;
/*
 * A batch registration: ->reg() registers its entry @i, with kprobe_mutex
 * held.  Callers embed it beside their array of entries.
 */
struct kprobe_batch {
	int (*reg)(struct kprobe_batch *batch, int i);
};

int kprobe_register_batch(struct kprobe_batch *batch, int num,
			  int *registered);
void kprobe_arm_later(struct kprobe *p);
void kprobe_disarm_later(struct kprobe *entry);
void kprobe_run_disarm_pass(void);
void kprobe_disarm_in_place_later(struct kprobe *entry);
void kprobe_pass_begin(void);
int kprobe_pass_end(void);
void kprobe_disable_pass_end(void);

/* kprobes_site.c: where a probe may go, and at what address */
kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr, const char *sym,
				unsigned long offset, bool *on_func_entry);
int kprobe_symbol_name(unsigned long addr, char *name);
int kprobe_check_unlocked(kprobe_opcode_t *addr);
int kprobe_check_location(struct kprobe *p, struct module **modp);
void kprobe_sym_own(bool own);
void kprobe_site_forget_text(void);
bool kprobe_site_reserved_kunit(void *addr, bool in_batch);

/* kprobes_hits.c */
void kprobe_wait_for_hits(void);
void kprobe_wait_tasks_out(void);
void kprobe_count_miss(struct kprobe *p, enum kprobe_miss_cause cause);
struct kprobe *kprobe_running_kunit(void);
unsigned int kprobe_nest_depth_kunit(int cpu);
void kprobe_running_set_kunit(struct kprobe *p);
void kprobe_running_done_kunit(void);
bool kprobe_nest_begin_kunit(void);

/*
 * The architecture's hits that may run with interrupts on all sit in hit
 * sections (kprobe_hit_begin()), and the others run with interrupts off.
 */
#ifndef arch_kprobe_hits_counted
static inline bool arch_kprobe_hits_counted(void)
{
	return false;
}
#endif

#ifndef arch_kprobe_nests
/*
 * Does a probe hit from a deeper context than the running probe's run its
 * handlers (kprobe_nest_begin())?  Every hit path of the architecture's
 * must then take the CPU with kprobe_running_set() and give it back with
 * kprobe_running_done() (or, where the path knows which kind of hit it
 * runs, reset_current_kprobe() or kprobe_nest_end()).  Elsewhere such a
 * hit is counted as missed.
 */
static inline bool arch_kprobe_nests(void)
{
	return false;
}
#endif

/*
 * What a return handler's run sets aside of the hit it may have
 * interrupted (a return from an interrupt taken inside a handler), and
 * gives back afterwards.
 */
struct kprobe_aside {
	struct kprobe *kp;
	unsigned long status;
	/* A long: no padding, which an init-stack kernel would zero. */
	unsigned long ctx;
};

/*
 * Only a probe that was running has a status and a context to get back:
 * on the common path, where none was, the return handlers save and
 * restore nothing but current_kprobe.
 */
static __always_inline void kprobe_running_aside(struct kprobe_aside *a)
{
	a->kp = kprobe_running();
	if (unlikely(a->kp)) {
		a->status = get_kprobe_ctlblk()->kprobe_status;
		a->ctx = __this_cpu_read(kprobe_nesting.owner_ctx);
	}
}

static __always_inline void kprobe_running_back(const struct kprobe_aside *a)
{
	if (likely(!a->kp)) {
		reset_current_kprobe();
		return;
	}
	__this_cpu_write(kprobe_nesting.owner_ctx, a->ctx);
	__this_cpu_write(current_kprobe, a->kp);
	get_kprobe_ctlblk()->kprobe_status = a->status;
}

#ifndef arch_kprobe_post_handler_read_once
/*
 * Does every hit of the architecture's load a probe's post_handler once,
 * to test it and call it?  A backend that tests it and loads it again for
 * the call would call NULL if the core cleared it in between; such an
 * architecture says no here, and keeps this default.
 */
static inline bool arch_kprobe_post_handler_read_once(void)
{
	return false;
}
#endif

/* kprobes_opt.c: jump optimization, see the lock order in kprobes.c */
#ifdef CONFIG_OPTPROBES
#ifndef arch_optimized_kprobe_needs_wait
/*
 * May a task be inside @op's region, so that the optimizer must wait for
 * a grace period before the jump goes in?  Not when the jump replaces a
 * single instruction; the architecture that knows says so.
 */
static inline bool arch_optimized_kprobe_needs_wait(struct optimized_kprobe *op)
{
	return true;
}
#endif

void __init kprobe_opt_init(void);
bool kprobe_opt_is_on(void);
bool kprobe_opt_unprepared(struct kprobe_aggr *aggr);
bool kprobe_opt_prepare(struct kprobe_aggr *aggr, struct kprobe *orig);
void kprobe_opt_update(struct kprobe *entry);
void kprobe_opt_gather_begin(void);
void kprobe_opt_gather_end(void);
void __kprobe_opt_off(struct kprobe *entry);
void __kprobe_opt_off_many(struct kprobe **entries, int n);
void __kprobe_opt_off_gather(struct kprobe *entry, struct list_head *active);
void kprobe_opt_unjump(struct list_head *active);
void kprobe_opt_cancel(struct kprobe *entry);
void kprobe_opt_off(struct kprobe *entry);
void kprobe_opt_release(struct kprobe *entry);
void kprobe_opt_free_aggr(struct kprobe_aggr *aggr);
void kprobe_opt_neighbours(kprobe_opcode_t *addr);
bool kprobe_opt_underway(struct kprobe *entry);
/* The sysctl's work, and what tests look at. */
void kprobe_opt_set_enabled(bool on);
enum kprobe_opt_state kprobe_opt_state_of(struct kprobe *p);
#if IS_ENABLED(CONFIG_KUNIT)
void kprobe_opt_reap_wait_kunit(void);
#endif
#else
static inline void kprobe_opt_init(void) { }
static inline bool kprobe_opt_is_on(void)
{
	return false;
}

static inline bool kprobe_opt_unprepared(struct kprobe_aggr *aggr)
{
	return false;
}

static inline bool kprobe_opt_prepare(struct kprobe_aggr *aggr,
				      struct kprobe *orig)
{
	return false;
}

static inline void kprobe_opt_update(struct kprobe *entry) { }
static inline void kprobe_opt_gather_begin(void) { }
static inline void kprobe_opt_gather_end(void) { }
static inline void __kprobe_opt_off(struct kprobe *entry) { }
static inline void __kprobe_opt_off_many(struct kprobe **entries, int n) { }
static inline void __kprobe_opt_off_gather(struct kprobe *entry,
					   struct list_head *active) { }
static inline void kprobe_opt_unjump(struct list_head *active) { }
static inline void kprobe_opt_cancel(struct kprobe *entry) { }
static inline void kprobe_opt_off(struct kprobe *entry) { }
static inline void kprobe_opt_release(struct kprobe *entry) { }
static inline bool kprobe_opt_underway(struct kprobe *entry)
{
	return false;
}

static inline void kprobe_opt_free_aggr(struct kprobe_aggr *aggr)
{
	kprobe_aggr_free_now(aggr);
}

static inline void kprobe_opt_neighbours(kprobe_opcode_t *addr) { }
#endif

/* kprobes_kretprobe.c */
#ifdef CONFIG_KRETPROBES
bool kprobe_is_kretprobe(struct kprobe *p);
void __init kretprobe_blacklist_init(void);
void kretprobe_detach(struct kprobe *p);
void kretprobe_release(struct kprobe *p);

/*
 * Where instances come from and how the return is caught:
 * kprobes_kretprobe_tramp.c or kprobes_kretprobe_rethook.c.  A pool (a
 * kretprobe_holder or a kretprobe_rethooks) is made for @maxactive
 * instances before kprobe_mutex is taken, since a batch makes many and
 * allocating is slow (@grow: more while in use).  It is attached
 * under the mutex, orphaned when the kretprobe leaves the table and
 * finished one grace period later, without the mutex again.  One that
 * was never used is discarded.
 */
int kretprobe_entry(struct kprobe *p, struct pt_regs *regs);

#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK) && \
	!defined(arch_kretprobe_divert)
/*
 * Make the function that @regs entered return into the trampoline, with
 * where it would have returned kept in @ri.  An architecture may do it
 * inline, as every kretprobe hit does it.  Only the trampoline way needs
 * it; on rethook the arch's rethook code diverts the return.
 */
static __always_inline void arch_kretprobe_divert(struct kretprobe_instance *ri,
						  struct pt_regs *regs)
{
	arch_prepare_kretprobe(ri, regs);
}
#endif

/*
 * The core holds a pool only between making and attaching it (or
 * discarding it), as this handle; each way defines what is behind it.
 */
struct kretprobe_pool;
struct kretprobe_pool *kretprobe_pool_make(struct kretprobe *rp, int maxactive,
					   bool grow);
void kretprobe_pool_attach(struct kretprobe *rp, struct kretprobe_pool *pool);
void kretprobe_pool_detach(struct kretprobe *rp);
void kretprobe_pool_discard(struct kretprobe_pool *pool);
void kretprobe_pool_orphan(struct kretprobe *rp);
void kretprobe_pool_finish(struct kretprobe *rp);
/* Whether the way back from a return probe may call @func itself. */
bool kretprobe_return_reenters(kprobe_opcode_t *func);

/*
 * A pool whose maxactive was left to the core grows while in use
 * (kprobes_kretprobe_grow.c).  Its way of catching returns counts the
 * instances it hands out and gives back here, and adds a pool when the
 * worker asks with kretprobe_pool_add().
 */
#define KRETPROBE_GROW_MAX	4096
#define KRETPROBE_GROW_BYTES	SZ_4M
/* Each added pool doubles the total: enough to go from 1 to the maximum. */
#define KRETPROBE_MORE_POOLS	13

struct kretprobe_growth {
	int nr_more;		/* pools added; published with release */
	int total;		/* instances in all the pools */
	int spares;		/* of those, the CPUs' spares' share */
	int limit;		/* the most instances it may have */
	atomic_t out;		/* taken from a pool, not yet given back */
	atomic_t asked;		/* kicked, and the worker has not yet run */
	unsigned int nr_kicks;	/* kicks run, for the KUnit suite */
	struct irq_work kick;
	struct work_struct work;
};

void kretprobe_growth_init(struct kretprobe_growth *g, int first, int spares,
			   int obj_size);
void kretprobe_growth_stop(struct kretprobe_growth *g);
void kretprobe_grow_ask(struct kretprobe_growth *g);
/* Add pool number g->nr_more, of @n instances; 0 or a -errno. */
int kretprobe_pool_add(struct kretprobe_growth *g, int n);
/* The growth of @rp's pool, or NULL when it has a fixed size. */
struct kretprobe_growth *kretprobe_growth_of(struct kretprobe *rp);

/*
 * Half of the instances in use.  An instance a CPU keeps aside as its
 * spare is out of the pools but idle, and up to one per CPU may be: their
 * share is left out of both sides, so that a pool with nothing in flight
 * never grows on a machine of many CPUs.
 */
static nokprobe_inline bool kretprobe_grow_wanted(struct kretprobe_growth *g)
{
	int total = READ_ONCE(g->total);

	return total < g->limit &&
	       (atomic_read(&g->out) - g->spares) * 2 >= total - g->spares;
}

/* Ask for more instances when half of them are out. */
static nokprobe_inline void kretprobe_grow_if_wanted(struct kretprobe_growth *g)
{
	if (kretprobe_grow_wanted(g))
		kretprobe_grow_ask(g);
}

/* An instance left a pool. */
static nokprobe_inline void kretprobe_taken(struct kretprobe_growth *g)
{
	atomic_inc(&g->out);
	kretprobe_grow_if_wanted(g);
}

static nokprobe_inline void kretprobe_given_back(struct kretprobe_growth *g)
{
	atomic_dec(&g->out);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* Exported for lib/test_kprobes_kretprobe.c only. */
int kretprobe_grow_kicks(struct kretprobe *rp);
#endif
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}

static inline void kretprobe_blacklist_init(void) { }
static inline void kretprobe_detach(struct kprobe *p) { }
static inline void kretprobe_release(struct kprobe *p) { }
#endif

/* kprobes_ftrace.c */

#ifndef arch_kprobe_ftrace_site
/* The ftrace site an entry rides: where it is, unless the arch says. */
#define arch_kprobe_ftrace_site(p)	((unsigned long)(p)->addr)
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_arm(struct kprobe *p);
int kprobe_ftrace_disarm(struct kprobe *p);
void kprobe_ftrace_handover(struct kprobe *orig, struct kprobe *entry);
int kprobe_ftrace_arm_batch(struct kprobe **entries, int num);
void kprobe_ftrace_disarm_batch(struct kprobe **entries, int num);
#if IS_ENABLED(CONFIG_KUNIT)
/* Exported for the KUnit suites only. */
struct kprobe *kprobe_ftrace_only(bool ipmodify);
unsigned long kprobe_ftrace_site_of_func(unsigned long func);
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
bool kprobe_ftrace_trapped(struct kprobe *p);
void kprobe_ftrace_trap_flush(void);
#endif
#endif
#else
static inline int kprobe_ftrace_arm(struct kprobe *p)
{
	return -ENODEV;
}

static inline int kprobe_ftrace_disarm(struct kprobe *p)
{
	return -ENODEV;
}

static inline void kprobe_ftrace_handover(struct kprobe *orig,
					  struct kprobe *entry) { }

static inline int kprobe_ftrace_arm_batch(struct kprobe **entries, int num)
{
	return -ENODEV;
}

static inline void kprobe_ftrace_disarm_batch(struct kprobe **entries,
					      int num) { }
#endif

/* kprobes_blacklist.c */
bool kprobe_bl_addr(unsigned long addr);
bool kprobe_bl_part_of(char *name);
int __init kprobe_blacklist_init(void);
#ifdef CONFIG_MODULES
void kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod);
#endif
struct list_head *kprobe_blacklist_entries(void);
#if IS_ENABLED(CONFIG_KUNIT)
/* Exported for lib/test_kprobes_core.c only. */
int kprobe_bl_add_area(struct list_head *list, unsigned long start,
		       unsigned long end);
#endif

/* kprobes_slots.c */
#if defined(__ARCH_WANT_KPROBES_INSN_SLOT) && IS_ENABLED(CONFIG_KUNIT)
/* What tests look at. */
bool kprobe_slot_taken_kunit(struct kprobe_insn_cache *c,
			     kprobe_opcode_t *slot);
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */

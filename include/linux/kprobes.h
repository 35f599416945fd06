/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel dynamic probes: the interface for probe users (modules, the
 * tracers, BPF) and for the architecture backends.
 *
 * A struct kprobe names one instruction.  When the CPU reaches it, the
 * pre_handler runs, then the instruction, then the post_handler.  A
 * struct kretprobe adds a handler that runs when the probed function
 * returns.  See Documentation/trace/kprobes.rst.
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/ftrace.h>
#include <linux/objpool.h>
#include <linux/rethook.h>
#include <asm/kprobes.h>

#ifdef CONFIG_KPROBES
/* Values of kprobe_ctlblk.kprobe_status; some backends test them as bits. */
#define KPROBE_HIT_ACTIVE	0x00000001
#define KPROBE_HIT_SS		0x00000002
#define KPROBE_REENTER		0x00000004
#define KPROBE_HIT_SSDONE	0x00000008
#else
#include <asm-generic/kprobes.h>
typedef int kprobe_opcode_t;
struct arch_specific_insn {
	int dummy;
};
#endif

struct kprobe;
struct pt_regs;
struct kretprobe;
struct kretprobe_instance;
struct task_struct;

typedef int (*kprobe_pre_handler_t)(struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t)(struct kprobe *, struct pt_regs *,
				      unsigned long flags);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *,
				   struct pt_regs *);

/**
 * enum kprobe_miss_cause - why a hit ran none of a probe's handlers
 * @KPROBE_MISS_RECURSION: another probe's handler, or its single step,
 *	was running on the CPU
 * @KPROBE_MISS_BUSY: kprobes' own code was running on the CPU, between
 *	kprobe_busy_begin() and kprobe_busy_end()
 * @KPROBE_MISS_SITE_TAKEN: the probe rides an ftrace site whose call
 *	another ftrace user's trampoline took; the probe moves to a
 *	breakpoint, and the hits until then are missed
 * @KPROBE_MISS_CAUSES: the number of causes
 */
enum kprobe_miss_cause {
	KPROBE_MISS_RECURSION,
	KPROBE_MISS_BUSY,
	KPROBE_MISS_SITE_TAKEN,
	KPROBE_MISS_CAUSES
};

/**
 * struct kprobe - one probe on one kernel instruction
 * @hlist: link in the core's probe table while registered
 * @list: link in the handler list when several probes share an address
 * @nmissed: hits whose handlers could not run (recursion, busy CPU)
 * @nmissed_by: @nmissed by cause, indexed by enum kprobe_miss_cause
 * @addr: the probed address; set by the core from @symbol_name + @offset
 * @symbol_name: symbol to probe, as an alternative to @addr
 * @offset: byte offset from @symbol_name (or from @addr)
 * @pre_handler: runs before the instruction; non-zero return means it
 *	changed the instruction pointer and the instruction is skipped
 * @post_handler: runs after the instruction (flags is always 0)
 * @opcode: the original opcode replaced by the breakpoint
 * @ainsn: architecture state (out-of-line copy and how to run it)
 * @flags: KPROBE_FLAG_*; owned by the core once registered
 */
struct kprobe {
	struct hlist_node hlist;
	struct list_head list;
	unsigned long nmissed;
	unsigned long nmissed_by[KPROBE_MISS_CAUSES];
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
	u32 flags;
};

#define KPROBE_FLAG_GONE		1  /* its text was freed */
#define KPROBE_FLAG_DISABLED		2  /* registered but not firing */
#define KPROBE_FLAG_OPTIMIZED		4  /* a jump replaces the breakpoint */
#define KPROBE_FLAG_FTRACE		8  /* fires through an ftrace call site */
#define KPROBE_FLAG_ON_FUNC_ENTRY	16 /* sits on the function's entry */

static inline bool kprobe_gone(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_GONE;
}

static inline bool kprobe_disabled(struct kprobe *p)
{
	return p->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

static inline bool kprobe_optimized(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_OPTIMIZED;
}

static inline bool kprobe_ftrace(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_FTRACE;
}

struct kretprobe_holder;
struct kretprobe_rethooks;

/**
 * struct kretprobe - a probe on a function's return
 * @kp: the entry probe; set @kp.symbol_name or @kp.addr
 * @handler: runs when the function returns
 * @entry_handler: runs at entry; non-zero return skips @handler for
 *	that call
 * @maxactive: calls that can be tracked at once; 0 or less picks
 *	max(10, 2 * num_possible_cpus()), which is written back on registration,
 *	and lets the pool grow while in use
 * @nmissed: calls not tracked because every instance was in use
 * @data_size: bytes of private data in each instance
 * @rh: the instances, on architectures whose kretprobes ride on rethook
 *	(the first of them, when the pool grows); owned by the core
 * @rhs: there, the rethooks the pool has grown by; owned by the core
 * @rph: the instances, on the others; owned by the core
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	struct rethook *rh;
	struct kretprobe_rethooks *rhs;
#else
	struct kretprobe_holder *rph;
#endif
};

#define KRETPROBE_MAX_DATA_SIZE	4096

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
/*
 * struct kretprobe_instance, on rethook: @node is the rethook entry, which
 * holds the caller's return address; @data as below.  (One kernel-doc
 * comment per structure: the other variant carries it.)
 */
struct kretprobe_instance {
	struct rethook_node node;
	char data[];
};
#else
/**
 * struct kretprobe_instance - one call of a kretprobed function in flight
 * @rcu: for freeing after the owning kretprobe is gone
 * @llist: link in the task's list of pending returns
 * @rph: the holder the instance came from
 * @pool: the holder's pool it belongs to
 * @ret_addr: the caller's return address
 * @fp: where that return address was stored on the stack
 * @data: the kretprobe's private per-call data
 *
 * This is the layout with kprobes' own return trampoline.  Where kretprobes
 * ride on rethook (CONFIG_KRETPROBE_ON_RETHOOK), the instance is a
 * struct rethook_node followed by @data.  Either way handlers use only
 * @data, get_kretprobe() and get_kretprobe_retaddr().
 */
struct kretprobe_instance {
	struct rcu_head rcu;
	struct llist_node llist;
	struct kretprobe_holder *rph;
	struct objpool_head *pool;
	kprobe_opcode_t *ret_addr;
	void *fp;
	char data[];
};
#endif

struct kretprobe_growth;

/**
 * struct kretprobe_holder - the instances of one kretprobe
 * @rp: the kretprobe, or NULL once it is unregistered
 * @spare: one free instance per CPU, used before @pool
 * @pool: free instances, lock-free on the hit path
 * @growth: more pools, added while it runs low, when maxactive was left
 *	to the core; NULL otherwise
 *
 * Instances in flight keep the holder alive after the kretprobe is gone.
 */
struct kretprobe_holder {
	struct kretprobe __rcu *rp;
	struct kretprobe_instance * __percpu *spare;
	struct objpool_head pool;
	struct kretprobe_growth *growth;
};

struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

/**
 * struct kprobe_blacklist_entry - a range no probe may be placed in
 * @list: link in the blacklist
 * @start_addr: first byte of the range
 * @end_addr: first byte after the range
 * @rcu: deferred freeing
 */
struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
	struct rcu_head rcu;
};

#ifdef CONFIG_KPROBES
DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* The probe whose handlers run on this CPU, if any. */
static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

/**
 * struct kprobe_nest_frame - a hit set aside while a deeper context's runs
 * @kp: its current_kprobe
 * @owner_ctx: its context, as in struct kprobe_nesting
 * @kcb: its control block
 */
struct kprobe_nest_frame {
	struct kprobe *kp;
	unsigned int owner_ctx;
	struct kprobe_ctlblk kcb;
};

/**
 * struct kprobe_nesting - a CPU's hits that interrupted another's handling
 * @owner_ctx: the context that the handlers of the hit current_kprobe
 *	belongs to run in: the interrupt bits of preempt_count() there
 *	(KPROBE_CONTEXT_MASK)
 * @depth: frames in use
 * @frames: the interrupted hits, a stack: the last one on top
 *
 * A probe hit in the same context as the running handlers is recursion,
 * and only counted.  A hit from a deeper context (an interrupt taken
 * while a handler runs with interrupts on, or an NMI) runs its handlers:
 * the interrupted hit's state waits in a frame until the deeper hit is
 * over.  Each frame is a deeper context than the one below it, so there
 * are three at most (softirq, hardirq, NMI).  See kernel/kprobes_hits.c.
 */
struct kprobe_nesting {
	unsigned int owner_ctx;
	unsigned int depth;
	struct kprobe_nest_frame frames[3];
};
DECLARE_PER_CPU(struct kprobe_nesting, kprobe_nesting);

#define KPROBE_CONTEXT_MASK	(NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)

/* The context of a hit that did not come through a trap. */
static __always_inline unsigned int kprobe_hit_context(void)
{
	return preempt_count() & KPROBE_CONTEXT_MASK;
}

/**
 * kprobe_running_set() - a hit takes this CPU for @p
 * @p: the probe whose handlers are about to run, in the current context
 */
static __always_inline void kprobe_running_set(struct kprobe *p)
{
	__this_cpu_write(kprobe_nesting.owner_ctx, kprobe_hit_context());
	__this_cpu_write(current_kprobe, p);
}

bool kprobe_nest_begin(unsigned int ctx);
void kprobe_nest_end(void);
bool kprobe_nest_or_miss(struct kprobe *p);

/**
 * kprobe_running_end() - the hit begun with kprobe_running_set() is over
 * @nested: whether kprobe_nest_begin() let the hit run inside another's
 *	handling; a constant on the paths that know it
 *
 * A nested hit gives the hit it interrupted its state back; otherwise no
 * probe runs on this CPU any more.
 */
static __always_inline void kprobe_running_end(bool nested)
{
	if (unlikely(nested))
		kprobe_nest_end();
	else
		reset_current_kprobe();
}

/**
 * kprobe_running_done() - the same, for a hit that may be either kind
 *
 * current_kprobe is never NULL while a frame is in use, so a first hit
 * finds none when it ends, and a nested one finds its own.
 */
static __always_inline void kprobe_running_done(void)
{
	kprobe_running_end(__this_cpu_read(kprobe_nesting.depth));
}

void kprobe_busy_begin(void);
void kprobe_busy_end(void);

/**
 * struct kprobe_hit_sections - a CPU's count of hits in progress
 * @depth: hit sections open on this CPU, nested ones included
 * @closed: how many times @depth came back to zero
 * @caught: a waiter's IPI found a section open here...
 * @seen: ...and @closed as it was then
 *
 * See kernel/kprobes_hits.c.  The first two belong to the CPU's hits,
 * the last two to the waiter that holds kprobe_hits_mutex.
 */
struct kprobe_hit_sections {
	unsigned int depth;
	unsigned int closed;
	bool caught;
	unsigned int seen;
};
DECLARE_PER_CPU(struct kprobe_hit_sections, kprobe_hit_sections);

/**
 * kprobe_hit_begin() - a hit that may run with interrupts on starts
 *
 * For the architecture's and the core's hit paths that may run with
 * interrupts enabled (ftrace sites, detour buffers, return trampolines),
 * with preemption already disabled and before the hit looks up any probe.
 * unregister_kprobe() waits for a section that was open when it looked.
 * Hits in a breakpoint trap, which run with interrupts off, need none.
 */
static __always_inline void kprobe_hit_begin(void)
{
	__this_cpu_inc(kprobe_hit_sections.depth);
	/* The count is read by an IPI on this CPU: program order is enough. */
	barrier();
}

/**
 * kprobe_hit_end() - the hit begun by kprobe_hit_begin() is over
 *
 * After the hit's last use of any probe, before preemption is enabled.
 */
static __always_inline void kprobe_hit_end(void)
{
	barrier();
	if (!__this_cpu_dec_return(kprobe_hit_sections.depth))
		/* A waiter that reads it also sees what the hit did. */
		smp_store_release(this_cpu_ptr(&kprobe_hit_sections.closed),
				  __this_cpu_read(kprobe_hit_sections.closed) + 1);
}

#ifdef CONFIG_KRETPROBES
int arch_trampoline_kprobe(struct kprobe *p);
#endif

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
/* The rethook outlives its kretprobe; rethook_stop() marks it gone. */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	struct rethook *rh = ri->node.rethook;

	return rcu_access_pointer(rh->handler) ? rh->data : NULL;
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return ri->node.ret_addr;
}
#elif defined(CONFIG_KRETPROBES)
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
void arch_kretprobe_fixup_return(struct pt_regs *regs,
				 kprobe_opcode_t *correct_ret_addr);
void __kretprobe_trampoline(void);

/* Function descriptors (on some arches) hide the code address. */
static nokprobe_inline void *kretprobe_trampoline_addr(void)
{
	return dereference_kernel_function_descriptor(__kretprobe_trampoline);
}

unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer);

/* Called by the architecture's return trampoline: the real return address. */
static nokprobe_inline
unsigned long kretprobe_trampoline_handler(struct pt_regs *regs,
					   void *frame_pointer)
{
	return __kretprobe_trampoline_handler(regs, frame_pointer);
}

static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return rcu_dereference_check(ri->rph->rp, rcu_read_lock_any_held());
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->ret_addr;
}
#else
static inline void arch_prepare_kretprobe(struct kretprobe *rp,
					  struct pt_regs *regs)
{
}

static inline int arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}
#endif /* CONFIG_KRETPROBE_ON_RETHOOK, CONFIG_KRETPROBES */

/* Bounds of the _kprobe_blacklist section, one address per entry. */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

extern struct kretprobe_blackpoint kretprobe_blacklist[];

int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobe(struct kprobe *p);
void arch_disarm_kprobe(struct kprobe *p);
#ifndef arch_kprobe_forget_text
/*
 * Some text goes (a module, init text): forget what was kept about the
 * instructions of functions from one registration to the next.  Called
 * with kprobe_mutex held, before the text is freed.
 */
static inline void arch_kprobe_forget_text(void)
{
}
#endif
int arch_init_kprobes(void);
void kprobes_inc_nmissed_count(struct kprobe *p);
bool arch_within_kprobe_blacklist(unsigned long addr);
int arch_populate_kprobe_blacklist(void);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
bool kprobe_symbol_size_offset(unsigned long addr, unsigned long *size,
			       unsigned long *offset);

bool within_kprobe_blacklist(unsigned long addr);
int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

/**
 * struct kprobe_insn_cache - executable pages cut into instruction slots
 * @mutex: serializes allocation and freeing of slots and pages
 * @alloc: returns one new executable page
 * @free: releases a page from @alloc
 * @sym: the name the pages get in kallsyms
 * @pages: the pages, walked under RCU by address lookups
 * @insn_size: slot size in kprobe_opcode_t units
 * @nr_garbage: slots freed while a CPU may still run in them
 */
struct kprobe_insn_cache {
	struct mutex mutex;
	void *(*alloc)(void);
	void (*free)(void *page);
	const char *sym;
	struct list_head pages;
	size_t insn_size;
	int nr_garbage;
};

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
kprobe_opcode_t *__get_insn_slot(struct kprobe_insn_cache *c);
kprobe_opcode_t *__get_insn_slot_within(struct kprobe_insn_cache *c,
					unsigned long start, unsigned long end);
void __free_insn_slot(struct kprobe_insn_cache *c, kprobe_opcode_t *slot,
		      int dirty);
/* Safe from any context: it neither sleeps nor takes a lock. */
bool __is_insn_slot_addr(struct kprobe_insn_cache *c, unsigned long addr);

#define DEFINE_INSN_CACHE_OPS(__name)					\
extern struct kprobe_insn_cache kprobe_##__name##_slots;		\
static inline kprobe_opcode_t *get_##__name##_slot(void)		\
{									\
	return __get_insn_slot(&kprobe_##__name##_slots);		\
}									\
static inline void free_##__name##_slot(kprobe_opcode_t *slot, int dirty) \
{									\
	__free_insn_slot(&kprobe_##__name##_slots, slot, dirty);	\
}									\
static inline bool is_kprobe_##__name##_slot(unsigned long addr)	\
{									\
	return __is_insn_slot_addr(&kprobe_##__name##_slots, addr);	\
}

#define KPROBE_INSN_PAGE_SYM		"kprobe_insn_page"
#define KPROBE_OPTINSN_PAGE_SYM		"kprobe_optinsn_page"
int kprobe_cache_get_kallsym(struct kprobe_insn_cache *c, unsigned int *symnum,
			     unsigned long *value, char *type, char *sym);
#else
#define DEFINE_INSN_CACHE_OPS(__name)					\
static inline bool is_kprobe_##__name##_slot(unsigned long addr)	\
{									\
	return false;							\
}
#endif

DEFINE_INSN_CACHE_OPS(insn);

#ifdef CONFIG_OPTPROBES
/**
 * enum kprobe_opt_state - how far an optimizable probe is from its jump
 * @KPROBE_OPT_NONE: no detour buffer: the breakpoint is all there is
 * @KPROBE_OPT_IDLE: the detour is ready, but the jump is not wanted now
 *	(optimization off, probe disabled, a post_handler, another probe in
 *	the replaced region)
 * @KPROBE_OPT_QUEUED: wanted; waiting for the optimizer's next pass
 * @KPROBE_OPT_WAITING: the optimizer waits until no task can be inside
 *	the replaced region
 * @KPROBE_OPT_ACTIVE: the jump is in place
 *
 * Moved only under kprobe_mutex.  From QUEUED on, the replaced region
 * holds no other probe and no post_handler waits for the instruction,
 * so a breakpoint hit may run the detour's copy of the whole region.
 */
enum kprobe_opt_state {
	KPROBE_OPT_NONE,
	KPROBE_OPT_IDLE,
	KPROBE_OPT_QUEUED,
	KPROBE_OPT_WAITING,
	KPROBE_OPT_ACTIVE,
};

/**
 * struct optimized_kprobe - a probe whose breakpoint a jump can replace
 * @kp: the probe, as seen by the table and the handlers
 * @list: link in the optimizer's work list
 * @optinsn: architecture state of the jump and its detour buffer
 * @state: see enum kprobe_opt_state
 * @solo: the only probe at the address, or NULL when there are several;
 *	a detour may call its pre_handler directly (read under RCU)
 */
struct optimized_kprobe {
	struct kprobe kp;
	struct list_head list;
	struct arch_optimized_insn optinsn;
	enum kprobe_opt_state state;
	struct kprobe *solo;
};

int arch_prepared_optinsn(struct arch_optimized_insn *optinsn);
int arch_check_optimized_kprobe(struct optimized_kprobe *op);
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig);
void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
void arch_optimize_kprobes(struct list_head *oplist);
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list);
void arch_unoptimize_kprobe(struct optimized_kprobe *op);
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr);
void opt_pre_handler(struct kprobe *p, struct pt_regs *regs);
int kprobe_detour_hit(struct optimized_kprobe *op, struct pt_regs *regs);

DEFINE_INSN_CACHE_OPS(optinsn);

void wait_for_kprobe_optimizer(void);
bool optprobe_queued_unopt(struct optimized_kprobe *op);
bool kprobe_disarmed(struct kprobe *p);
#else
static inline void wait_for_kprobe_optimizer(void) { }
#endif /* CONFIG_OPTPROBES */

#ifdef CONFIG_KPROBES_ON_FTRACE
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
/*
 * The direct-call target of every probed ftrace site: saves a full
 * pt_regs, runs the probe, resumes where the handlers left the pc.
 * Not called from C.
 */
void arch_kprobe_ftrace_caller(void);
/*
 * The table entry of the only armed ftrace-site probe, NULL when there
 * are none or several: the hint for kprobe_ftrace_hit_probe(), which
 * the trampoline's hit cannot take from an ftrace_ops.
 */
extern struct kprobe *kprobe_ftrace_direct_only __read_mostly;
/* The probe address that rides the ftrace site @site. */
kprobe_opcode_t *arch_kprobe_ftrace_addr(unsigned long site);
#else
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);
#endif
int arch_prepare_kprobe_ftrace(struct kprobe *p);
struct kprobe *kprobe_ftrace_lookup(unsigned long ip, unsigned long parent_ip);
/* Set once ftrace has been killed; ftrace-based probes then stay quiet. */
extern bool kprobe_ftrace_disabled __read_mostly;

/**
 * kprobe_ftrace_hit_probe() - the probe whose handlers an ftrace-site hit runs
 * @ip: the address of the probe that rides the ftrace site hit: the site
 *	itself, unless the architecture puts probes before it
 * @parent_ip: the probed function's return address, for ftrace's records
 * @hint: a probe that is likely the one at @ip, or NULL
 *
 * For the architecture's handler of a probed site, with preemption
 * disabled, before it runs any handler.  Inline, because it is on every
 * hit: with a @hint at @ip it calls nothing that can be probed.  The
 * table lookup otherwise goes through kprobe_ftrace_lookup().
 *
 * Return: the armed probe at @ip, or NULL when there is none, when ftrace
 * has been killed, and when the lookup is nested too deep.  When no probe
 * runs on this CPU (kprobe_running() is NULL), the caller runs the probe
 * returned as a first hit: kprobe_running_set(), its handlers, then
 * reset_current_kprobe().  Otherwise the hit interrupted another probe's
 * handling, and kprobe_nest_or_miss() says whether it runs (ending with
 * kprobe_nest_end()) or is only counted.  The test is the caller's, so
 * that the first hit's path carries nothing for the nested one.
 */
static nokprobe_inline struct kprobe *
kprobe_ftrace_hit_probe(unsigned long ip, unsigned long parent_ip,
			struct kprobe *hint)
{
	struct kprobe *p = hint;

	if (!p || p->addr != (kprobe_opcode_t *)ip)
		p = kprobe_ftrace_lookup(ip, parent_ip);
	if (!p || kprobe_disabled(p) || unlikely(kprobe_ftrace_disabled))
		return NULL;
	return p;
}
void kprobe_ftrace_kill(void);
#else
static inline int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	return -EINVAL;
}

static inline void kprobe_ftrace_kill(void) { }
#endif /* CONFIG_KPROBES_ON_FTRACE */

struct kprobe *get_kprobe(void *addr);

kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);

int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);

/* With rethook, the exiting task's rethook_flush_task() does this. */
#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KRETPROBE_ON_RETHOOK)
void kprobe_flush_task(struct task_struct *tk);
#else
static inline void kprobe_flush_task(struct task_struct *tk) { }
#endif

void kprobe_free_init_mem(void);

int disable_kprobe(struct kprobe *kp);
int enable_kprobe(struct kprobe *kp);
int disable_kprobes(struct kprobe **kps, int num);
int enable_kprobes(struct kprobe **kps, int num);

void dump_kprobe(struct kprobe *kp);

void *alloc_insn_page(void);
void *alloc_optinsn_page(void);
void free_optinsn_page(void *page);

int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);
int arch_kprobe_get_kallsym(unsigned int *symnum, unsigned long *value,
			    char *type, char *sym);

int kprobe_exceptions_notify(struct notifier_block *self,
			     unsigned long val, void *data);

#else /* !CONFIG_KPROBES */

static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

static inline struct kprobe *get_kprobe(void *addr)
{
	return NULL;
}

static inline struct kprobe *kprobe_running(void)
{
	return NULL;
}

#define kprobe_busy_begin()	do {} while (0)
#define kprobe_busy_end()	do {} while (0)

static inline int register_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static inline int register_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobe(struct kprobe *p) { }
static inline void unregister_kprobes(struct kprobe **kps, int num) { }

static inline int register_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline int register_kretprobes(struct kretprobe **rps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobe(struct kretprobe *rp) { }
static inline void unregister_kretprobes(struct kretprobe **rps, int num) { }
static inline void kprobe_flush_task(struct task_struct *tk) { }
static inline void kprobe_free_init_mem(void) { }
static inline void kprobe_ftrace_kill(void) { }

static inline int disable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int enable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int disable_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline int enable_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

/* Without kprobes nobody checks addresses, so refuse everything. */
static inline bool within_kprobe_blacklist(unsigned long addr)
{
	return true;
}

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}

static inline bool is_kprobe_insn_slot(unsigned long addr)
{
	return false;
}
#endif /* CONFIG_KPROBES */

/* For ftrace's sysctl, which is there with kprobes or without. */
#ifdef CONFIG_KPROBES_ON_FTRACE_DIRECT
void kprobe_ftrace_calls_may_stop(void);
void kprobe_ftrace_calls_settled(bool enabled);
#else
static inline void kprobe_ftrace_calls_may_stop(void) { }
static inline void kprobe_ftrace_calls_settled(bool enabled) { }
#endif

static inline int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}

static inline int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}

#ifndef CONFIG_OPTPROBES
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}
#endif

#ifdef CONFIG_KRETPROBE_ON_RETHOOK
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return is_rethook_trampoline(addr);
}

static nokprobe_inline
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	return rethook_find_ret_addr(tsk, (unsigned long)fp, cur);
}
#elif defined(CONFIG_KRETPROBES)
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return (void *)addr == kretprobe_trampoline_addr();
}

unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur);
#else
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}

static nokprobe_inline
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
				      struct llist_node **cur)
{
	return 0;
}
#endif

/*
 * For the arch page-fault paths: true when a kprobe owns the fault.
 * Only a non-preemptible context can have a kprobe running.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trap)
{
	if (!IS_ENABLED(CONFIG_KPROBES) || user_mode(regs) || preemptible())
		return false;
	if (!kprobe_running())
		return false;
	return kprobe_fault_handler(regs, trap);
}

#endif /* _LINUX_KPROBES_H */

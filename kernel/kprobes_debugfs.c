// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /sys/kernel/debug/kprobes/: "list" shows every registered probe,
 * "stats" the hits each missed and why, "enabled" arms or disarms them
 * all at once, "blacklist" shows where probes may not go (perf probe
 * reads it).
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "kprobes_internal.h"

/* Addresses are shown only to readers allowed to see kernel addresses. */
static void *kprobe_debugfs_shown_addr(struct seq_file *m, void *addr)
{
	return kallsyms_show_value(m->file->f_cred) ? addr : NULL;
}

/*
 * The columns scripts have always parsed at the start of a "list" line:
 *   "ADDR  TYPE  SYMBOL+0xOFF  MODULE ", where MODULE is the module
 *   name, or a lone space for kernel text;
 *   "ADDR  TYPE  %pS " when kallsyms cannot name the address.
 * TYPE is k for a kprobe and r for a kretprobe.  "stats" starts the same.
 */
static void kprobe_debugfs_show_where(struct seq_file *m, struct kprobe *p)
{
	void *addr = kprobe_debugfs_shown_addr(m, p->addr);
	char type = kprobe_is_kretprobe(p) ? 'r' : 'k';
	char name[KSYM_NAME_LEN];
	unsigned long offset;
	const char *sym;
	char *modname;

	sym = kallsyms_lookup((unsigned long)p->addr, NULL, &offset, &modname,
			      name);
	if (sym)
		seq_printf(m, "%px  %c  %s+0x%lx  %s ", addr, type, sym, offset,
			   modname ?: " ");
	else
		seq_printf(m, "%px  %c  %pS ", addr, type, p->addr);
}

/*
 * One "list" line per user probe: where it is, then FLAGS run together:
 * [GONE][DISABLED][OPTIMIZED][FTRACE], the last two describing the
 * breakpoint, which the table entry (@entry) owns.
 */
static void kprobe_debugfs_show_one(struct seq_file *m, struct kprobe *p,
				    struct kprobe *entry)
{
	kprobe_debugfs_show_where(m, p);
	seq_printf(m, "%s%s%s%s\n",
		   kprobe_gone(p) ? "[GONE]" : "",
		   (p->flags & KPROBE_FLAG_DISABLED) && !kprobe_gone(p) ?
			"[DISABLED]" : "",
		   kprobe_opt_underway(entry) ? "[OPTIMIZED]" : "",
		   kprobe_ftrace(entry) ? "[FTRACE]" : "");
}

static void *kprobe_debugfs_list_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return *pos <= KPROBE_TABLE_SIZE ? pos : NULL;
}

static void *kprobe_debugfs_list_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return *pos <= KPROBE_TABLE_SIZE ? pos : NULL;
}

static void kprobe_debugfs_list_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_mutex);
}

/* Call @show for each user probe in the table bucket *@v. */
static void kprobe_debugfs_walk_bucket(struct seq_file *m, void *v,
				       void (*show)(struct seq_file *m,
						    struct kprobe *p,
						    struct kprobe *entry))
{
	struct hlist_head *head = kprobe_list_bucket(*(loff_t *)v);
	struct kprobe *entry, *kp;

	hlist_for_each_entry(entry, head, hlist) {
		if (!kprobe_is_aggr(entry)) {
			show(m, entry, entry);
			continue;
		}
		list_for_each_entry(kp, &entry->list, list)
			show(m, kp, entry);
	}
}

static int kprobe_debugfs_list_show(struct seq_file *m, void *v)
{
	kprobe_debugfs_walk_bucket(m, v, kprobe_debugfs_show_one);
	return 0;
}

static const struct seq_operations kprobe_debugfs_list_sops = {
	.start = kprobe_debugfs_list_start,
	.next = kprobe_debugfs_list_next,
	.stop = kprobe_debugfs_list_stop,
	.show = kprobe_debugfs_list_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_debugfs_list);

/*
 * One "stats" line per user probe: where it is, as in "list", then
 * "missed=N" (its nmissed) and that count by cause, each as NAME=N.  A
 * kretprobe adds "no_instance=N", the calls its full pool did not track
 * (its nmissed).  The names are the enum's, in its order.
 */
static const char *const kprobe_debugfs_miss_names[KPROBE_MISS_CAUSES] = {
	[KPROBE_MISS_RECURSION] = "recursion",
	[KPROBE_MISS_BUSY] = "busy",
	[KPROBE_MISS_SITE_TAKEN] = "site_taken",
};

static void kprobe_debugfs_show_stats(struct seq_file *m, struct kprobe *p,
				      struct kprobe *entry)
{
	int cause;

	kprobe_debugfs_show_where(m, p);
	seq_printf(m, "missed=%lu", p->nmissed);
	for (cause = 0; cause < KPROBE_MISS_CAUSES; cause++)
		seq_printf(m, " %s=%lu", kprobe_debugfs_miss_names[cause],
			   p->nmissed_by[cause]);
	if (kprobe_is_kretprobe(p))
		seq_printf(m, " no_instance=%d",
			   container_of(p, struct kretprobe, kp)->nmissed);
	seq_putc(m, '\n');
}

static int kprobe_debugfs_stats_show(struct seq_file *m, void *v)
{
	kprobe_debugfs_walk_bucket(m, v, kprobe_debugfs_show_stats);
	return 0;
}

static const struct seq_operations kprobe_debugfs_stats_sops = {
	.start = kprobe_debugfs_list_start,
	.next = kprobe_debugfs_list_next,
	.stop = kprobe_debugfs_list_stop,
	.show = kprobe_debugfs_stats_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_debugfs_stats);

static void *kprobe_debugfs_bl_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return seq_list_start(kprobe_blacklist_entries(), *pos);
}

static void *kprobe_debugfs_bl_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, kprobe_blacklist_entries(), pos);
}

/* perf probe parses "0xSTART-0xEND\tSYMBOL". */
static int kprobe_debugfs_bl_show(struct seq_file *m, void *v)
{
	struct kprobe_blacklist_entry *ent =
		list_entry(v, struct kprobe_blacklist_entry, list);

	seq_printf(m, "0x%px-0x%px\t%ps\n",
		   kprobe_debugfs_shown_addr(m, (void *)ent->start_addr),
		   kprobe_debugfs_shown_addr(m, (void *)ent->end_addr),
		   (void *)ent->start_addr);
	return 0;
}

static const struct seq_operations kprobe_debugfs_bl_sops = {
	.start = kprobe_debugfs_bl_start,
	.next = kprobe_debugfs_bl_next,
	.stop = kprobe_debugfs_list_stop,
	.show = kprobe_debugfs_bl_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobe_debugfs_bl);

static ssize_t kprobe_debugfs_enabled_read(struct file *file, char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	char buf[3] = { kprobes_all_disarmed ? '0' : '1', '\n', '\0' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, 2);
}

static ssize_t kprobe_debugfs_enabled_write(struct file *file,
					    const char __user *ubuf, size_t count,
					    loff_t *ppos)
{
	bool enable;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &enable);
	if (ret)
		return ret;

	scoped_guard(mutex, &kprobe_mutex)
		ret = enable ? kprobe_arm_all() : kprobe_disarm_all();
	return ret ?: count;
}

static const struct file_operations kprobe_debugfs_enabled_fops = {
	.read = kprobe_debugfs_enabled_read,
	.write = kprobe_debugfs_enabled_write,
	.llseek = default_llseek,
};

/* debugfs itself comes up after the core (an early initcall). */
static int __init kprobe_debugfs_init(void)
{
	struct dentry *dir;

	if (!kprobes_initialized)
		return 0;
	dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &kprobe_debugfs_list_fops);
	debugfs_create_file("stats", 0400, dir, NULL, &kprobe_debugfs_stats_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &kprobe_debugfs_enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL, &kprobe_debugfs_bl_fops);
	return 0;
}
late_initcall(kprobe_debugfs_init);

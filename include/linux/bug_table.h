/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Questions about the table of BUG() and WARN() sites (lib/bug.c) that
 * find_bug() does not answer.  Kept apart from <linux/bug.h>, which
 * nearly every file includes, since only code that patches text asks.
 */
#ifndef _LINUX_BUG_TABLE_H
#define _LINUX_BUG_TABLE_H

#include <linux/types.h>

struct module;

#ifdef CONFIG_GENERIC_BUG
int bug_sites_in_range(unsigned long start, unsigned long end,
		       struct module *mod, unsigned long *sites, int max);
#else
static inline int bug_sites_in_range(unsigned long start, unsigned long end,
				     struct module *mod, unsigned long *sites,
				     int max)
{
	return 0;
}
#endif

#endif /* _LINUX_BUG_TABLE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The name of a registration's errno as the base's records and
 * harness/stress/differences.txt write it, shared by the guest programs
 * that read them.
 */
#ifndef KP_ERRNAME_H
#define KP_ERRNAME_H

#include <errno.h>
#include <stdio.h>

static inline const char *kp_errname(int e)
{
	static char buf[16];

	switch (e) {
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case EILSEQ: return "EILSEQ";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENOMEM: return "ENOMEM";
	case ENODEV: return "ENODEV";
	case E2BIG: return "E2BIG";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case 524: return "ENOTSUPP";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * kpsweep - a kprobe event (or with -r a kretprobe event) on every function
 * of the kernel, batch after batch, each batch enabled while the guest's
 * workload runs.  For each batch: every event that was accepted must show
 * its probe in the debugfs list, and after the batch is removed no probe of
 * it may remain.  Prints a summary: how many functions were tried, taken,
 * fired, and the refusals grouped by errno.  Exit status 1 when a rule was
 * broken, 2 on a setup error.
 *
 *   kpsweep [-r] [-s STRIDE] [-o FIRST] [-b BATCH] [-t SECONDS]
 *
 * STRIDE n tries every n-th function (by address) starting with the FIRST.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACING "/sys/kernel/tracing"
#define LIST "/sys/kernel/debug/kprobes/list"

struct fn {
	unsigned long addr;
	char name[128];
	int taken;
	unsigned long hits;
};

static struct fn *fns;
static size_t nr_fns;

static const char *errname(int e)
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

#define MAX_ERR 256
static int refused[MAX_ERR];

static int write_str(const char *file, const char *s)
{
	int fd = open(file, O_WRONLY | O_APPEND);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	if (n < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static unsigned long text_lo, text_hi, init_lo, init_hi;
static size_t outside;

static int in_named_text(unsigned long a)
{
	if (!text_hi)	/* no _etext in kallsyms: no way to tell */
		return 1;
	return (a >= text_lo && a < text_hi) || (a >= init_lo && a < init_hi);
}

/* Core kernel text symbols, one per address, padding symbols left out. */
static int read_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], type, name[128], mod[64];
	unsigned long addr;
	size_t cap = 0, i, j;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		if (sscanf(line, "%lx %c %127s %63s", &addr, &type, name, mod) < 3)
			continue;
		if (!strcmp(name, "_stext"))
			text_lo = addr;
		else if (!strcmp(name, "_etext"))
			text_hi = addr;
		else if (!strcmp(name, "_sinittext"))
			init_lo = addr;
		else if (!strcmp(name, "_einittext"))
			init_hi = addr;
		if ((type != 't' && type != 'T') || mod[0] || !addr)
			continue;
		if (!strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6))
			continue;
		if (nr_fns == cap) {
			cap = cap ? 2 * cap : 65536;
			fns = realloc(fns, cap * sizeof(*fns));
			if (!fns)
				return -1;
		}
		fns[nr_fns].addr = addr;
		snprintf(fns[nr_fns].name, sizeof(fns[nr_fns].name), "%s", name);
		fns[nr_fns].taken = 0;
		fns[nr_fns].hits = 0;
		nr_fns++;
	}
	fclose(f);
	qsort(fns, nr_fns, sizeof(*fns), by_addr);
	/*
	 * One per address, and only inside the text kallsyms can name an
	 * address in (_stext.._etext, _sinittext.._einittext): a probe
	 * elsewhere (riscv's __pi_ copies, for one) is refused with ENOENT,
	 * which trace_kprobe takes for a module not loaded yet and accepts
	 * as a pending event that registers nothing.
	 */
	for (i = j = 0; i < nr_fns; i++) {
		if (j && fns[j - 1].addr == fns[i].addr)
			continue;
		if (!in_named_text(fns[i].addr)) {
			outside++;
			continue;
		}
		fns[j++] = fns[i];
	}
	nr_fns = j;
	return 0;
}

/*
 * How many of the batch's taken functions have a line in the list.  A
 * probe asked for at a function's first byte may be listed a little
 * further in (arm64 moves it onto the ftrace site), so a line counts for
 * the function whose span holds its address.
 */
static size_t count_listed(struct fn **batch, size_t n)
{
	FILE *f = fopen(LIST, "r");
	char line[512];
	unsigned long addr, end;
	size_t found = 0, i;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx", &addr) != 1)
			continue;
		for (i = 0; i < n; i++) {
			end = batch[i] + 1 < fns + nr_fns ? batch[i][1].addr : ~0UL;
			if (batch[i]->taken && addr >= batch[i]->addr && addr < end) {
				found++;
				break;
			}
		}
	}
	fclose(f);
	return found;
}

static void read_hits(struct fn **batch, size_t n)
{
	FILE *f = fopen(TRACING "/kprobe_profile", "r");
	char line[512], name[128];
	unsigned long hits, missed;
	size_t idx;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lu %lu", name, &hits, &missed) != 3)
			continue;
		if (sscanf(name, "f%zu", &idx) != 1 || idx >= n)
			continue;
		batch[idx]->hits = hits;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	size_t stride = 1, first = 0, bsize = 500, i, b, n, taken = 0, fired = 0;
	size_t tried = 0, broken = 0;
	unsigned int seconds = 2;
	int ret = 0, opt, e;
	char def[160];
	struct fn **batch;
	time_t t0 = time(NULL);

	while ((opt = getopt(argc, argv, "rs:o:b:t:")) != -1) {
		switch (opt) {
		case 'r': ret = 1; break;
		case 's': stride = strtoul(optarg, NULL, 0); break;
		case 'o': first = strtoul(optarg, NULL, 0); break;
		case 'b': bsize = strtoul(optarg, NULL, 0); break;
		case 't': seconds = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: kpsweep [-r] [-s STRIDE] [-o FIRST] [-b BATCH] [-t SECONDS]\n");
			return 2;
		}
	}
	if (!stride || !bsize || read_kallsyms()) {
		fprintf(stderr, "kpsweep: cannot read /proc/kallsyms (or bad options)\n");
		return 2;
	}
	batch = calloc(bsize, sizeof(*batch));
	if (!batch)
		return 2;
	printf("# kpsweep: %s events on %zu of %zu kernel functions (every %zu-th from %zu), %zu per batch, %us each; %zu outside the text kallsyms names left out\n",
	       ret ? "kretprobe" : "kprobe", (nr_fns - first + stride - 1) / stride,
	       nr_fns, stride, first, bsize, seconds, outside);
	fflush(stdout);
	for (i = first, b = 0; i < nr_fns; b++) {
		size_t listed, left;

		for (n = 0; n < bsize && i < nr_fns; i += stride, n++) {
			batch[n] = &fns[i];
			snprintf(def, sizeof(def), "%c:sweep/f%zu 0x%lx",
				 ret ? 'r' : 'p', n, fns[i].addr);
			e = write_str(TRACING "/kprobe_events", def);
			tried++;
			if (e) {
				refused[e < MAX_ERR ? e : 0]++;
				continue;
			}
			fns[i].taken = 1;
			taken++;
		}
		listed = count_listed(batch, n);
		e = write_str(TRACING "/events/sweep/enable", "1");
		sleep(seconds);
		write_str(TRACING "/events/sweep/enable", "0");
		read_hits(batch, n);
		for (size_t k = 0; k < n; k++) {
			if (batch[k]->taken) {
				fired += batch[k]->hits > 0;
				snprintf(def, sizeof(def), "-:sweep/f%zu", k);
				write_str(TRACING "/kprobe_events", def);
			}
		}
		left = count_listed(batch, n);
		{
			size_t want = 0;

			for (size_t k = 0; k < n; k++)
				want += batch[k]->taken;
			if (listed != want || left || (want && e)) {
				broken++;
				printf("# batch %zu (%s..%s): %zu taken, %zu listed, enable: %s, %zu left after removal\n",
				       b, batch[0]->name, batch[n - 1]->name, want, listed,
				       e ? errname(e) : "ok", left);
			}
		}
		for (size_t k = 0; k < n; k++)
			batch[k]->taken = 0;
		if (!(b % 10))
			printf("# batch %zu: %zu tried so far, %zu taken, %zu fired, %lds\n",
			       b, tried, taken, fired, (long)(time(NULL) - t0));
		fflush(stdout);
	}
	printf("# kpsweep: %zu tried, %zu taken, %zu fired, %zu batches broke a rule, %lds\n",
	       tried, taken, fired, broken, (long)(time(NULL) - t0));
	printf("# kpsweep: refused:");
	for (e = 0; e < MAX_ERR; e++)
		if (refused[e])
			printf(" %s=%d", e ? errname(e) : "other", refused[e]);
	printf("\n");
	return broken ? 1 : 0;
}

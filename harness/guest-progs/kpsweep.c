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
 *   kpsweep [-r] [-m] [-s STRIDE] [-o FIRST] [-b BATCH] [-t SECONDS]
 *
 * STRIDE n tries every n-th function (by address) starting with the FIRST.
 *
 * What can be probed is an interface: with -R FILE the sweep writes each
 * refused function (by its name, where the name is unique) with its errno,
 * as the record of a kernel; with -x FILE it compares every function it
 * tried with such a record (the base's, harness/stress/), and a function
 * the record and this kernel treat differently breaks a rule.  The
 * kprobes subsystem's own functions differ between kernels: -n FILE names
 * this kernel's (its kprobes objects' symbols).  A record also lists the
 * ones of them it took, so that a function of this kernel's own that the
 * record does not know is new here, and is not compared.  With -p the
 * record is of another config of this arch (the default one, for a debug
 * kernel, whose functions are more): only the functions the record names
 * are compared, since one it does not name may not exist there.  With
 * -w NAME,NAME... those functions, which the workload runs, are probed in
 * a batch of their own at the end: each must be taken and fire.  With
 * -D FILE the differences kprobes.rst documents are not rules broken:
 * lines "NAME HERE" in a record's format, HERE what this kernel gives (an
 * errno's name, or "taken"); harness/lib/guest.sh writes one such file per
 * kind from harness/stress/differences.txt.
 *
 * With -m the probes are not events: the kpstress module registers each
 * batch with one register_kprobes() (or register_kretprobes()) call and
 * counts the hits itself, and a refusal reports the errno that kprobes
 * gave, where trace_kprobe says EINVAL for most.  Only the functions that
 * a kprobe event accepts are tried (those with an ftrace site, unless the
 * kernel allows events on notrace functions), so that the two modes
 * sweep the same set: one event at a time costs an ftrace update each,
 * a batch one in all, which is what lets -m cover every function.
 *
 * A refused batch is split in halves until each refusal stands alone,
 * and each failed call first registers and then rolls back the probes
 * before the refused one: a few refusals make a batch cost many times
 * its size.  So with -m the functions that the debugfs blacklist names,
 * and their compiler-made parts ("foo.part.0", which the kernel refuses
 * with "foo" but the file does not name), go in a batch of their own,
 * beside the others': every call on it fails at its first probe, with
 * nothing to roll back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kp_errname.h"

#define TRACING "/sys/kernel/tracing"
#define LIST "/sys/kernel/debug/kprobes/list"
#define SWEEP "/sys/kernel/debug/kpstress_sweep"
#define BLACKLIST "/sys/kernel/debug/kprobes/blacklist"

struct fn {
	unsigned long addr;
	char name[128];
	int taken;
	unsigned long hits;
	int tried;
	int err;	/* the refusal's errno, 0 if taken */
	int dup;	/* another function has the same name */
	/* For the report on a probe that never fired: */
	unsigned long entries, missed;	/* a kretprobe's entries, nmissed */
	unsigned long kmissed;		/* its kprobe's nmissed */
	char site[96];			/* arm64: what its ftrace site calls */
	unsigned int flags;		/* its kprobe's flags */
};

static struct fn *fns;
static size_t nr_fns;

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
static size_t outside, notrace;

/* Room for one more element in the array at *@arr, which holds @n of @cap. */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? 2 * *cap : 65536;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*arr, want * size);
	if (!p)
		return -1;
	*arr = p;
	*cap = want;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static unsigned long min_ul(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

/* Where the text region (_stext.._etext or _sinittext.._einittext) of @a ends. */
static unsigned long region_end(unsigned long a)
{
	if (text_hi && a >= text_lo && a < text_hi)
		return text_hi;
	if (init_hi && a >= init_lo && a < init_hi)
		return init_hi;
	return ~0UL;
}

/*
 * Keep the functions whose span holds an ftrace site: the ones a kprobe
 * event accepts on a kernel with dynamic ftrace and without
 * CONFIG_KPROBE_EVENTS_ON_NOTRACE.  Without dynamic ftrace (no list of
 * sites) an event accepts any function, and so does the sweep.
 */
static int keep_traceable(void)
{
	FILE *f = fopen(TRACING "/available_filter_functions_addrs", "r");
	unsigned long *ips = NULL, ip;
	size_t n = 0, cap = 0, i, j, k = 0;
	char line[256];

	if (!f)
		return access(TRACING "/available_filter_functions", F_OK) ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx", &ip) != 1 || strchr(line, '['))
			continue;
		if (grow((void **)&ips, &cap, n, sizeof(*ips)))
			return -1;
		ips[n++] = ip;
	}
	fclose(f);
	qsort(ips, n, sizeof(*ips), by_value);
	for (i = j = 0; i < nr_fns; i++) {
		unsigned long end = i + 1 < nr_fns ? fns[i + 1].addr : ~0UL;

		/*
		 * The last function of a text region ends with it: past
		 * _einittext lies what kallsyms does not name, and a module
		 * going away while the file is read lists its sites there
		 * without the "[module]" that marks them.
		 */
		end = min_ul(end, region_end(fns[i].addr));
		while (k < n && ips[k] < fns[i].addr)
			k++;
		if (k < n && ips[k] < end)
			fns[j++] = fns[i];
		else
			notrace++;
	}
	nr_fns = j;
	free(ips);
	return 0;
}

/* The blacklist's ranges, sorted by start: see the top of the file. */
static struct bl_range {
	unsigned long start, end;	/* start first: by_value() sorts them */
} *bl;
static size_t nr_bl;
/* The names the file gives them, sorted, for the compiler-made parts. */
static char (*bl_names)[128];
static size_t nr_bl_names;

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int read_blacklist(void)
{
	FILE *f = fopen(BLACKLIST, "r");
	size_t cap = 0, name_cap = 0;
	char line[512], sym[128];
	unsigned long a, e;
	int n;

	if (!f)
		return 0;	/* no blacklist file: one batch, as before */
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "0x%lx-0x%lx %127s", &a, &e, sym);
		if (n < 2)
			continue;
		if (grow((void **)&bl, &cap, nr_bl, sizeof(*bl)))
			return -1;
		bl[nr_bl].start = a;
		bl[nr_bl++].end = e;
		if (n < 3)
			continue;
		if (grow((void **)&bl_names, &name_cap, nr_bl_names,
			 sizeof(*bl_names)))
			return -1;
		snprintf(bl_names[nr_bl_names++], sizeof(*bl_names), "%s", sym);
	}
	fclose(f);
	qsort(bl, nr_bl, sizeof(*bl), by_value);
	qsort(bl_names, nr_bl_names, sizeof(*bl_names), by_name);
	return 0;
}

static int blacklisted(unsigned long a)
{
	size_t lo = 0, hi = nr_bl, mid;

	/* The last range starting at or below a; ranges may overlap. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (bl[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo > 0; lo--) {
		if (a < bl[lo - 1].end)
			return 1;
	}
	return 0;
}

/* As the kernel decides: "foo.part.0" goes with "foo". */
static int blacklisted_fn(const struct fn *f)
{
	char base[sizeof(f->name)];
	char *dot;

	if (blacklisted(f->addr))
		return 1;
	snprintf(base, sizeof(base), "%s", f->name);
	dot = strchr(base, '.');
	if (!dot || dot == base)
		return 0;
	*dot = '\0';
	return bsearch(base, bl_names, nr_bl_names, sizeof(*bl_names),
		       by_name) != NULL;
}

/* Blacklisted functions to the end of the batch; how many others lead. */
static size_t blacklisted_last(struct fn **batch, size_t n)
{
	struct fn *tmp[n];
	size_t i, m = 0, k = 0;

	for (i = 0; i < n; i++) {
		if (blacklisted_fn(batch[i]))
			tmp[k++] = batch[i];
		else
			batch[m++] = batch[i];
	}
	memcpy(batch + m, tmp, k * sizeof(*tmp));
	return m;
}

/*
 * One batch through the kpstress module: register, let the workload run,
 * read each probe's verdict and hits.  Returns the registration's errno
 * for a setup error, else 0.
 */
static int module_batch(struct fn **batch, size_t n, int ret, unsigned int seconds)
{
	char buf[4096], line[256];
	size_t len = 0, i;
	unsigned long addr, hits;
	int err, e;
	FILE *f;

	for (i = 0; i <= n; i++) {
		if (i == n || len > sizeof(buf) - 40) {
			e = write_str(SWEEP, buf);
			if (e)
				return e;
			len = 0;
		}
		if (i == n)
			break;
		if (!len)
			len = snprintf(buf, sizeof(buf), "a");
		len += snprintf(buf + len, sizeof(buf) - len, " %lx", batch[i]->addr);
	}
	e = write_str(SWEEP, ret ? "r" : "p");
	if (e)
		return e;
	sleep(seconds);
	f = fopen(SWEEP, "r");
	if (!f)
		return errno;
	for (i = 0; i < n && fgets(line, sizeof(line), f); i++) {
		unsigned long entries = 0, missed = 0, kmissed = 0;
		unsigned int flags = 0;

		strcpy(batch[i]->site, "-");
		/* OPTIMIZED, TEXT and EXTABLE are kpinsn's, skipped here. */
		if (sscanf(line, "%lx %d %lu %*d %*x %lu %*d %lu %x %lu %95s", &addr,
			   &err, &hits, &entries, &missed, &flags, &kmissed,
			   batch[i]->site) < 3 ||
		    addr != batch[i]->addr)
			break;
		batch[i]->kmissed = kmissed;
		batch[i]->entries = entries;
		batch[i]->missed = missed;
		batch[i]->flags = flags;
		batch[i]->tried = 1;
		batch[i]->err = err;
		if (err) {
			refused[err < MAX_ERR ? err : 0]++;
			continue;
		}
		batch[i]->taken = 1;
		batch[i]->hits = hits;
	}
	fclose(f);
	return i == n ? 0 : EPROTO;
}

static int in_named_text(unsigned long a)
{
	if (!text_hi)	/* no _etext in kallsyms: no way to tell */
		return 1;
	return (a >= text_lo && a < text_hi) || (a >= init_lo && a < init_hi);
}

static int by_fn_name(const void *a, const void *b)
{
	return strcmp((*(struct fn *const *)a)->name, (*(struct fn *const *)b)->name);
}

/* A name shared by two functions cannot say which one a record means. */
static void mark_duplicates(void)
{
	struct fn **by = malloc(nr_fns * sizeof(*by));
	size_t i;

	if (!by) {
		for (i = 0; i < nr_fns; i++)
			fns[i].dup = 1;	/* compare nothing rather than guess */
		return;
	}
	for (i = 0; i < nr_fns; i++)
		by[i] = &fns[i];
	qsort(by, nr_fns, sizeof(*by), by_fn_name);
	for (i = 1; i < nr_fns; i++) {
		if (!strcmp(by[i - 1]->name, by[i]->name))
			by[i - 1]->dup = by[i]->dup = 1;
	}
	free(by);
}

/*
 * A record: refused functions by name, with the errno's name.  The name
 * comes first, so by_name() sorts and finds records as it does names.
 */
static struct rec {
	char name[128];
	char err[16];
} *recs, *owns, *docs;	/* docs: -D's, the err being this kernel's */
static size_t nr_recs, nr_owns, nr_docs;

/* Lines "NAME [ERR]" of @path, sorted by name, into *@out. */
static int read_names(const char *path, struct rec **out, size_t *nr)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	char line[256];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (grow((void **)out, &cap, *nr, sizeof(**out)))
			return -1;
		(*out)[*nr].err[0] = '\0';
		if (sscanf(line, "%127s %15s", (*out)[*nr].name, (*out)[*nr].err) >= 1)
			(*nr)++;
	}
	fclose(f);
	qsort(*out, *nr, sizeof(**out), by_name);
	return 0;
}

static struct rec *find_name(struct rec *in, size_t nr, const char *name)
{
	struct rec key;

	snprintf(key.name, sizeof(key.name), "%s", name);
	return nr ? bsearch(&key, in, nr, sizeof(*in), by_name) : NULL;
}

static void write_record(const char *path, size_t tried, size_t taken)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f) {
		printf("# kpsweep: cannot write %s\n", path);
		return;
	}
	fprintf(f, "# %zu tried, %zu taken; those with a unique name that were refused,\n",
		tried, taken);
	fprintf(f, "# and the kprobes subsystem's own that were taken:\n");
	for (i = 0; i < nr_fns; i++) {
		if (!fns[i].tried || fns[i].dup)
			continue;
		if (fns[i].err)
			fprintf(f, "%s %s\n", fns[i].name, kp_errname(fns[i].err));
		else if (find_name(owns, nr_owns, fns[i].name))
			fprintf(f, "%s taken\n", fns[i].name);
	}
	fclose(f);
}

/*
 * Every tried function with a unique name against the record: refused
 * with the same errno, or taken by both.  Prints each difference; returns
 * how many there were.
 */
static size_t compare_record(int partial)
{
	size_t i, diff = 0, compared = 0, new_here = 0, documented = 0;
	const char *here;
	struct rec *r, *doc;

	for (i = 0; i < nr_fns; i++) {
		if (!fns[i].tried || fns[i].dup)
			continue;
		r = find_name(recs, nr_recs, fns[i].name);
		if (!r && (partial || find_name(owns, nr_owns, fns[i].name))) {
			new_here++;
			continue;
		}
		compared++;
		here = fns[i].err ? kp_errname(fns[i].err) : "taken";
		if (!strcmp(here, r ? r->err : "taken"))
			continue;
		doc = find_name(docs, nr_docs, fns[i].name);
		if (doc && !strcmp(doc->err, here)) {
			documented++;
			printf("# kpsweep: %s: %s here, %s in the record, as documented\n",
			       fns[i].name, here, r ? r->err : "taken");
			continue;
		}
		if (diff++ < 20)
			printf("# kpsweep: %s: %s here, %s in the record\n",
			       fns[i].name, here, r ? r->err : "taken");
	}
	printf("# kpsweep: %zu functions compared with the record, %zu differ (and %zu as documented); %zu not compared (%s)\n",
	       compared, diff, documented, new_here,
	       partial ? "the record, of another config, does not name them" :
			 "this kernel's kprobes functions the base does not have");
	return diff;
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
		if (grow((void **)&fns, &cap, nr_fns, sizeof(*fns)))
			return -1;
		fns[nr_fns].addr = addr;
		snprintf(fns[nr_fns].name, sizeof(fns[nr_fns].name), "%s", name);
		fns[nr_fns].taken = 0;
		fns[nr_fns].hits = 0;
		fns[nr_fns].tried = 0;
		fns[nr_fns].err = 0;
		fns[nr_fns].dup = 0;
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
	mark_duplicates();
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

/*
 * Each event of the batch is enabled (or disabled) through its own file:
 * the group's file would hold event_mutex while every probe of the batch
 * is armed, which on a slow host keeps the workload's insmod, whose
 * module notifier takes the same mutex, waiting past the hung-task
 * timeout.  Returns the first error, or 0.
 */
static int enable_batch(struct fn **batch, size_t n, const char *val)
{
	char file[96];
	int first_err = 0, e;

	for (size_t k = 0; k < n; k++) {
		if (!batch[k]->taken)
			continue;
		snprintf(file, sizeof(file), TRACING "/events/sweep/f%zu/enable", k);
		e = write_str(file, val);
		if (e && !first_err)
			first_err = e;
	}
	return first_err;
}

/*
 * The functions NAMES (comma separated), which the workload runs, probed
 * in a batch of their own through the module: each must be taken and
 * fire.  Returns how many did not.
 */
static size_t workload_fires(const char *names, int by_module, int ret,
			     unsigned int seconds)
{
	char list[1024], *name, *save;
	struct fn *batch[32];
	size_t n = 0, i, bad = 0;

	if (!by_module) {
		printf("# kpsweep: -w needs -m\n");
		return 1;
	}
	snprintf(list, sizeof(list), "%s", names);
	for (name = strtok_r(list, ",", &save); name && n < 32;
	     name = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nr_fns && strcmp(fns[i].name, name); i++)
			;
		if (i == nr_fns) {
			printf("# kpsweep: workload function %s: not a traceable kernel function\n",
			       name);
			bad++;
			continue;
		}
		fns[i].taken = 0;
		fns[i].hits = 0;
		batch[n++] = &fns[i];
	}
	if (module_batch(batch, n, ret, seconds)) {
		write_str(SWEEP, "u");
		printf("# kpsweep: the kpstress module refused the workload batch\n");
		return bad + 1;
	}
	write_str(SWEEP, "u");
	for (i = 0; i < n; i++) {
		if (batch[i]->taken && batch[i]->hits)
			continue;
		if (batch[i]->taken)
			printf("# kpsweep: workload function %s: never fired (%s: %lu entries, %lu missed, %lu missed as a kprobe, flags %x, site %s)\n",
			       batch[i]->name, ret ? "kretprobe" : "kprobe",
			       batch[i]->entries, batch[i]->missed,
			       batch[i]->kmissed, batch[i]->flags, batch[i]->site);
		else
			printf("# kpsweep: workload function %s: %s\n", batch[i]->name,
			       kp_errname(batch[i]->err));
		bad++;
	}
	printf("# kpsweep: %zu workload functions probed, %zu taken and fired\n",
	       n, n - bad);
	return bad;
}

int main(int argc, char **argv)
{
	size_t stride = 1, first = 0, bsize = 500, i, b, n, m, taken = 0, fired = 0;
	size_t tried = 0, broken = 0;
	unsigned int seconds = 2;
	int ret = 0, by_module = 0, opt, e;
	const char *record_out = NULL, *record_in = NULL, *workload = NULL;
	const char *own_names = NULL, *documented = NULL;
	int partial = 0;
	char def[160];
	struct fn **batch;
	time_t t0 = time(NULL);

	while ((opt = getopt(argc, argv, "rms:o:b:t:R:x:w:n:pD:")) != -1) {
		switch (opt) {
		case 'r': ret = 1; break;
		case 'm': by_module = 1; break;
		case 's': stride = strtoul(optarg, NULL, 0); break;
		case 'o': first = strtoul(optarg, NULL, 0); break;
		case 'b': bsize = strtoul(optarg, NULL, 0); break;
		case 't': seconds = strtoul(optarg, NULL, 0); break;
		case 'R': record_out = optarg; break;
		case 'x': record_in = optarg; break;
		case 'w': workload = optarg; break;
		case 'n': own_names = optarg; break;
		case 'p': partial = 1; break;
		case 'D': documented = optarg; break;
		default:
			fprintf(stderr, "usage: kpsweep [-r] [-m] [-s STRIDE] [-o FIRST] [-b BATCH] [-t SECONDS] [-R RECORD_OUT] [-x RECORD] [-n OWN_NAMES] [-p] [-D DIFFERENCES] [-w FUNC,...]\n");
			return 2;
		}
	}
	if (!stride || !bsize || read_kallsyms()) {
		fprintf(stderr, "kpsweep: cannot read /proc/kallsyms (or bad options)\n");
		return 2;
	}
	if (by_module && (keep_traceable() || read_blacklist() ||
			  access(SWEEP, W_OK))) {
		fprintf(stderr, "kpsweep: -m needs " TRACING "/available_filter_functions_addrs and kpstress.ko's " SWEEP "\n");
		return 2;
	}
	if (own_names && read_names(own_names, &owns, &nr_owns)) {
		printf("# kpsweep: cannot read %s\n", own_names);
		return 2;
	}
	if (documented && read_names(documented, &docs, &nr_docs)) {
		printf("# kpsweep: cannot read the documented differences %s (harness/stress/differences.txt, written out by harness/lib/guest.sh)\n",
		       documented);
		return 2;
	}
	if (record_in && read_names(record_in, &recs, &nr_recs)) {
		printf("# kpsweep: cannot read the base's record %s: make it with \"harness/kp sweep-record --arch ARCH\" (with --debug for the debug config) and commit it\n",
		       record_in);
		return 2;
	}
	batch = calloc(bsize, sizeof(*batch));
	if (!batch)
		return 2;
	printf("# kpsweep: %s %s on %zu of %zu kernel functions (every %zu-th from %zu), %zu per batch, %us each; %zu outside the text kallsyms names and %zu notrace left out\n",
	       ret ? "kretprobe" : "kprobe",
	       by_module ? "batches (register_*probes())" : "events",
	       first < nr_fns ? (nr_fns - first + stride - 1) / stride : 0,
	       nr_fns, stride, first, bsize, seconds, outside, notrace);
	fflush(stdout);
	for (i = first, b = 0; i < nr_fns; b++) {
		size_t listed, left;

		if (by_module) {
			for (n = 0; n < bsize && i < nr_fns; i += stride, n++)
				batch[n] = &fns[i];
			tried += n;
			m = blacklisted_last(batch, n);
			listed = left = 0;
			e = 0;
			for (int part = 0; part < 2; part++) {
				struct fn **sub = part ? batch + m : batch;
				size_t len = part ? n - m : m;
				int ue;

				if (!len)
					continue;
				ue = module_batch(sub, len, ret, seconds);
				if (ue) {
					printf("# kpsweep: the kpstress module refused a batch: %s\n",
					       kp_errname(ue));
					write_str(SWEEP, "u");
					return 2;
				}
				listed += count_listed(sub, len);
				ue = write_str(SWEEP, "u");
				if (ue && !e)
					e = ue;
				left += count_listed(sub, len);
			}
			goto check;
		}
		for (n = 0; n < bsize && i < nr_fns; i += stride, n++) {
			batch[n] = &fns[i];
			snprintf(def, sizeof(def), "%c:sweep/f%zu 0x%lx",
				 ret ? 'r' : 'p', n, fns[i].addr);
			e = write_str(TRACING "/kprobe_events", def);
			tried++;
			fns[i].tried = 1;
			fns[i].err = e;
			if (e) {
				refused[e < MAX_ERR ? e : 0]++;
				continue;
			}
			fns[i].taken = 1;
			taken++;
		}
		listed = count_listed(batch, n);
		e = enable_batch(batch, n, "1");
		sleep(seconds);
		enable_batch(batch, n, "0");
		read_hits(batch, n);
		for (size_t k = 0; k < n; k++) {
			if (batch[k]->taken) {
				fired += batch[k]->hits > 0;
				snprintf(def, sizeof(def), "-:sweep/f%zu", k);
				write_str(TRACING "/kprobe_events", def);
			}
		}
		left = count_listed(batch, n);
check:
		for (size_t k = 0; k < n; k++) {
			taken += by_module && batch[k]->taken;
			fired += by_module && batch[k]->hits > 0;
		}
		{
			size_t want = 0;

			for (size_t k = 0; k < n; k++)
				want += batch[k]->taken;
			if (listed != want || left || (want && e)) {
				broken++;
				printf("# batch %zu (%s..%s): %zu taken, %zu listed, enable: %s, %zu left after removal\n",
				       b, batch[0]->name, batch[n - 1]->name, want, listed,
				       e ? kp_errname(e) : "ok", left);
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
			printf(" %s=%d", e ? kp_errname(e) : "other", refused[e]);
	printf("\n");
	if (record_out)
		write_record(record_out, tried, taken);
	if (record_in && compare_record(partial))
		broken++;
	if (workload && workload_fires(workload, by_module, ret, seconds))
		broken++;
	return broken ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kpinsn - a kprobe on every instruction boundary of real kernel functions.
 *
 *   kpinsn -f FUNCS -R RECORD [-S MAXSIZE] [-n COUNT]
 *   kpinsn -x RECORD [-f FUNCS [-S MAXSIZE]] [-t SECONDS] [-W FILE] [-N MIN]
 *          [-G FILE] [-D FILE]
 *
 * FUNCS names functions, one a line (with -x the record's functions come
 * first).  Their sizes come from /proc/kallsyms (the distance to
 * the next symbol), and every byte of each (every fourth on arm64) is
 * tried with the kpstress module's "c" command (harness/modules/kpstress):
 * a disabled kprobe, registered alone, which patches no text, so any byte
 * may be tried on any kernel.  What is taken are the function's boundaries.
 *
 * With -R RECORD only that is done, and written: one line a function,
 * "NAME SIZE OFF,OFF,...", then its code in lines "NAME SIZE =OFF:HEX",
 * the record of a kernel (the base's, by "harness/kp sweep-record").  Of FUNCS, only functions of at most MAXSIZE
 * bytes are tried there (default 1024: on x86 each try decodes the
 * function from its start, so a byte costs as much as the bytes before
 * it), and of those COUNT (default all) evenly spread over the sorted list.
 * With -x and -f, FUNCS adds functions of at most MAXSIZE bytes to the
 * record's, all of them tried and probed, compared where the record has
 * them.
 *
 * With -x RECORD the boundaries taken here are compared with the
 * record's, function by function (where both kernels have the function,
 * with the same size, and the same code around each difference; an ENDBR
 * that only this kernel refuses is its documented rule, and so are, on
 * arm64, the next function's ftrace ops pointer and zero words, refused,
 * and one-instruction atomics and what follows them, hints and
 * instructions with a fixup, taken, and on x86 indirect calls and jmps
 * through memory, taken), and then four
 * rounds run while the
 * guest's workload does, each round's probes registered in batches of the
 * kpstress module's size with register_kprobes() or register_kretprobes():
 *
 *   pre     every boundary, a pre_handler only (boosting, emulation, and
 *           jump optimization where the arch has it);
 *   post    every boundary with a post_handler too (each instruction
 *           single-stepped or emulated);
 *   sparse  boundaries at least 16 bytes apart, pre_handler only, left
 *           SECONDS, and where the kernel jump-optimizes up to 30 more
 *           while the optimizer makes progress: how many the debugfs
 *           list shows optimized is printed, and on x86_64, which
 *           optimizes, none is a failure;
 *   ret     a kretprobe on each function.
 *
 * Before them, the function tracer counts how often registering and
 * unregistering a probe calls each function; the post round, and on a
 * kernel with lockdep or kmemleak the pre and sparse rounds too, fill a
 * batch only up to a number of breakpoint hits that each of its
 * registrations would meet on its own batch's probes (trace_register()).
 *
 * In every round every probe must register, the function's first probe
 * (or its kretprobe) must fire, as the workload runs each function (one
 * that neither its probe nor the function tracer saw called did not run,
 * and one whose every call the tracer saw its probe counted missed only
 * ran inside another probe's handler: each named, and a failure when
 * more than one in 32 of a round's functions are either), and
 * once the round's probes are unregistered the debugfs list must be as
 * before.  With -W FILE, the workload's own failure file must not exist
 * after a round: the workload checks its results (file contents, pipe
 * data, exit codes), so that a wrongly emulated instruction shows as data.
 * With -N MIN, fewer than MIN functions compared with the record is a
 * failure.  With -G FILE, kpinsn creates FILE.ready once every address
 * is tried and waits (up to a minute) for FILE before the rounds, so
 * that the workload can start only then.  With -D FILE ("NAME ERRNO"
 * lines: harness/stress/differences.txt's kretprobe refusals for this
 * arch), a function named there must have its kretprobe refused with
 * that errno in the ret round, as kprobes.rst documents, and is not
 * expected to fire.  Exit status 1 when a rule was broken, 2 on a setup
 * error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kp_errname.h"

#define LIST "/sys/kernel/debug/kprobes/list"
#define SWEEP "/sys/kernel/debug/kpstress_sweep"
#define BATCH 4096
#define SPARSE_GAP 16

struct func {
	char name[128];
	unsigned long addr;
	unsigned long size;
	int found;		/* once in this kernel's kallsyms */
	unsigned char *taken;	/* per byte: a boundary taken here */
	unsigned char *want;	/* per byte: taken in the record */
	unsigned char *image;	/* the function's bytes here */
	signed char *extable;	/* per byte tried: a fixup there (-1: unknown) */
	unsigned char *rec_image; /* and in the record's kernel */
	unsigned char *rec_seen; /* which bytes of rec_image the record has */
	int in_record;
	unsigned long rec_size;
	unsigned long first_hits;
	unsigned long reg_calls; /* calls by a traced registration */
	unsigned long round_calls; /* calls the tracer saw while it waited */
	int unfired;		/* its first probe had not fired yet */
	int watched;		/* and the tracer took it (witness_start()) */
	char ret_refusal[32];	/* -D: the errno its kretprobe is refused with */
};

static struct func *funcs;
static size_t nr_funcs;
static unsigned int step = 1;
static int x86_64;		/* REX prefixes, not INC and DEC */
static int broken;

/* A broken rule: printed, and the exit status is 1. */
static void rule(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	broken = 1;
}

static int write_str(const char *s)
{
	int fd = open(SWEEP, O_WRONLY);
	ssize_t n;
	int e = 0;

	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		e = errno;
	close(fd);
	return e;
}

static int list_lines(void)
{
	FILE *f = fopen(LIST, "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/* How many probes the debugfs list shows jump-optimized. */
static unsigned long list_optimized(void)
{
	FILE *f = fopen(LIST, "r");
	char line[512];
	unsigned long n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "[OPTIMIZED]") != NULL;
	fclose(f);
	return n;
}

static struct func *find(const char *name)
{
	size_t i;

	for (i = 0; i < nr_funcs; i++)
		if (!strcmp(funcs[i].name, name))
			return &funcs[i];
	return NULL;
}

static struct func *add_func(const char *name)
{
	struct func *fn = find(name);

	if (fn)
		return fn;
	funcs = realloc(funcs, (nr_funcs + 1) * sizeof(*funcs));
	if (!funcs) {
		perror("kpinsn: realloc");
		exit(2);
	}
	fn = &funcs[nr_funcs++];
	memset(fn, 0, sizeof(*fn));
	snprintf(fn->name, sizeof(fn->name), "%s", name);
	return fn;
}

static void read_names(const char *path)
{
	char line[256], name[128];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "kpinsn: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s", name) == 1 && name[0] != '#')
			add_func(name);
	fclose(f);
}

/* -D: the documented kretprobe refusals of the functions swept. */
static void read_ret_refusals(const char *path)
{
	char line[256], name[128], err[32];
	struct func *fn;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "kpinsn: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %31s", name, err) != 2 || name[0] == '#')
			continue;
		fn = find(name);
		/* "taken": the series takes what the base refuses */
		if (fn && strcmp(err, "taken"))
			snprintf(fn->ret_refusal, sizeof(fn->ret_refusal), "%s", err);
	}
	fclose(f);
}

/* The function whose entry is @addr. */
static const struct func *func_at(unsigned long addr)
{
	size_t i;

	for (i = 0; i < nr_funcs; i++)
		if (funcs[i].addr == addr && funcs[i].size)
			return &funcs[i];
	return NULL;
}

/* "OFF:HEX" of a record's "NAME SIZE =OFF:HEX" line: the base's code. */
static void read_image(struct func *fn, const char *p)
{
	unsigned long off, size = fn->rec_size;
	unsigned int byte;
	char *end;

	if (!fn->rec_image) {
		fn->rec_image = calloc(size + 4, 1);
		fn->rec_seen = calloc(size + 4, 1);
		if (!fn->rec_image || !fn->rec_seen)
			exit(2);
	}
	off = strtoul(p, &end, 10);
	if (*end != ':')
		return;
	for (p = end + 1; off < size && sscanf(p, "%2x", &byte) == 1; p += 2, off++) {
		fn->rec_image[off] = byte;
		fn->rec_seen[off] = 1;
	}
}

/* A record line: "NAME SIZE OFF,OFF,..." ("-" for none taken). */
static void read_record(const char *path)
{
	char *line = NULL, name[128], *offs, *tok;
	size_t cap = 0;
	unsigned long size, off;
	struct func *fn;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "kpinsn: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#' || sscanf(line, "%127s %lu", name, &size) != 2)
			continue;
		offs = strchr(strchr(line, ' ') + 1, ' ');
		fn = add_func(name);
		if (!fn->want) {
			fn->in_record = 1;
			fn->rec_size = size;
			fn->want = calloc(size + 1, 1);
			if (!fn->want)
				exit(2);
		}
		if (size != fn->rec_size)
			continue;
		if (offs[1] == '=') {	/* " =OFF:HEX": the code there */
			read_image(fn, offs + 2);
			continue;
		}
		for (tok = strtok(offs, ", \n"); tok; tok = strtok(NULL, ", \n"))
			if (sscanf(tok, "%lu", &off) == 1 && off < size)
				fn->want[off] = 1;
	}
	free(line);
	fclose(f);
}

/*
 * Addresses and sizes from /proc/kallsyms: a function's size is the
 * distance to the next symbol, as the kernel's own kallsyms lookups have it.  A name given twice is not used.
 */
static void read_kallsyms(void)
{
	char line[512], name[256], type;
	unsigned long addr, prev_addr = 0;
	struct func *prev = NULL, *fn;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		perror("kpinsn: /proc/kallsyms");
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &type, name) != 3)
			continue;
		if (strchr(line, '['))	/* a module's */
			continue;
		/* Any next symbol ends a function: a weak one ("W") too. */
		if (prev && addr > prev_addr) {
			prev->size = addr - prev_addr;
			prev = NULL;
		}
		if (type != 't' && type != 'T' && type != 'W')
			continue;
		fn = find(name);
		if (!fn)
			continue;
		if (fn->found++) {
			fn->size = 0;
			continue;
		}
		fn->addr = addr;
		prev = fn;
		prev_addr = addr;
	}
	fclose(f);
}

/*
 * Keep the functions of at most @max bytes, and of those @count (0: all),
 * evenly spread: the k-th that fits is kept where k * count / fit steps.
 * A function of the record given with -x is always kept.
 */
static void select_funcs(unsigned long max, size_t count)
{
	size_t i, n = 0, fit = 0, k = 0;

	for (i = 0; i < nr_funcs; i++)
		fit += funcs[i].size && funcs[i].size <= max && !funcs[i].in_record;
	if (!count || count > fit)
		count = fit;
	for (i = 0; i < nr_funcs; i++) {
		if (funcs[i].in_record) {
			funcs[n++] = funcs[i];
			continue;
		}
		if (!funcs[i].size || funcs[i].size > max)
			continue;
		if (k * count / fit != (k + 1) * count / fit)
			funcs[n++] = funcs[i];
		k++;
	}
	nr_funcs = n;
}

/*
 * What the module read back for the batch: ERRNO, HITS, OPTIMIZED, the
 * TEXT there, a kretprobe's ENTRIES and EXTABLE (an exception-table entry
 * there: 1, none: 0, not known: -1), then the probe's MISSED and FLAGS,
 * its kprobe's KMISSED and, on arm64, what its ftrace SITE calls.
 */
struct result {
	unsigned long addr, hits, entries, missed, kmissed;
	int err, opt, extable;
	unsigned int flags;
	unsigned char text[4];
	char site[96];	/* arm64: the ops its ftrace site calls, the site's insn */
};

static struct result *results;

static size_t read_results(size_t n)
{
	char line[256];
	size_t i = 0;
	FILE *f = fopen(SWEEP, "r");

	if (!f)
		return 0;
	while (i < n && fgets(line, sizeof(line), f)) {
		unsigned int t = 0;

		results[i].opt = 0;
		results[i].entries = 0;
		results[i].extable = -1;
		results[i].missed = 0;
		results[i].flags = 0;
		results[i].kmissed = 0;
		strcpy(results[i].site, "-");
		if (sscanf(line, "%lx %d %lu %d %8x %lu %d %lu %x %lu %95s",
			   &results[i].addr, &results[i].err, &results[i].hits,
			   &results[i].opt, &t, &results[i].entries,
			   &results[i].extable, &results[i].missed,
			   &results[i].flags, &results[i].kmissed,
			   results[i].site) >= 3) {
			/* The hex is the bytes in memory order. */
			results[i].text[0] = t >> 24;
			results[i].text[1] = t >> 16;
			results[i].text[2] = t >> 8;
			results[i].text[3] = t;
			i++;
		}
	}
	fclose(f);
	return i;
}

static unsigned long *batch;
static size_t batch_n;

static int send_batch(void)
{
	char buf[64 * 24];
	size_t i = 0, len;

	while (i < batch_n) {
		len = snprintf(buf, sizeof(buf), "a");
		for (; i < batch_n && len < sizeof(buf) - 24; i++)
			len += snprintf(buf + len, sizeof(buf) - len, " %lx", batch[i]);
		if (write_str(buf))
			return -1;
	}
	return 0;
}

/* Check every step-th byte of each function: which are boundaries. */
static int check_round(void)
{
	size_t i, k, n;
	unsigned long off;

	for (i = 0; i < nr_funcs; i++) {
		struct func *fn = &funcs[i];

		if (!fn->size)
			continue;
		fn->taken = calloc(fn->size + 1, 1);
		fn->image = calloc(fn->size + 4, 1);
		fn->extable = calloc(fn->size + 1, 1);
		if (!fn->taken || !fn->image || !fn->extable)
			return -1;
		for (off = 0; off < fn->size; off += BATCH * step) {
			batch_n = 0;
			for (k = off; k < fn->size && batch_n < BATCH; k += step)
				batch[batch_n++] = fn->addr + k;
			if (send_batch() || write_str("c"))
				return -1;
			n = read_results(batch_n);
			write_str("u");
			if (n != batch_n)
				return -1;
			for (k = 0; k < n; k++) {
				unsigned long o = results[k].addr - fn->addr;

				if (!results[k].err)
					fn->taken[o] = 1;
				memcpy(fn->image + o, results[k].text, 4);
				fn->extable[o] = results[k].extable;
			}
		}
	}
	batch_n = 0;
	return 0;
}

static void write_record(const char *path)
{
	FILE *f = fopen(path, "w");
	unsigned long off;
	size_t i;
	int any;

	if (!f) {
		fprintf(stderr, "kpinsn: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fprintf(f, "# %zu tried: the functions a workload ran, each as \"NAME SIZE\" and\n"
		"# the offsets that register_kprobe() takes (\"-\": none); a long list\n"
		"# goes on over more lines with the same NAME SIZE.\n", nr_funcs);
	for (i = 0; i < nr_funcs; i++) {
		struct func *fn = &funcs[i];

		if (!fn->size)
			continue;
		fprintf(f, "%s %lu ", fn->name, fn->size);
		any = 0;
		for (off = 0; off < fn->size; off++) {
			if (!fn->taken[off])
				continue;
			/* Lines short enough for one kernel log record each. */
			if (any && any % 64 == 0)
				fprintf(f, "\n%s %lu ", fn->name, fn->size);
			fprintf(f, "%s%lu", any++ % 64 ? "," : "", off);
		}
		fprintf(f, "%s\n", any ? "" : "-");
		/* The code, so that a kernel whose code differs is told apart. */
		for (off = 0; off < fn->size; off++) {
			if (off % 256 == 0)
				fprintf(f, "%s%s %lu =%lu:", off ? "\n" : "", fn->name,
					fn->size, off);
			fprintf(f, "%02x", fn->image[off]);
		}
		fprintf(f, "\n");
	}
	fclose(f);
}

static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
static unsigned long allowed_endbr, allowed_ops, allowed_udf, allowed_atomic;
static unsigned long allowed_hint, allowed_extable, allowed_indirect_mem;
static unsigned long code_differs;

/* The little-endian instruction word at @off of the function here. */
static unsigned int word_at(const struct func *fn, unsigned long off)
{
	const unsigned char *b = fn->image + off;

	return b[0] | b[1] << 8 | b[2] << 16 | (unsigned int)b[3] << 24;
}

/*
 * arm64 with ftrace call ops: the last two words before the next function
 * hold that function's ftrace ops, a kernel pointer, which only this
 * kernel refuses (a BRK there breaks ftrace_caller).
 */
static int ftrace_ops_word(const struct func *fn, unsigned long off)
{
	if (step != 4 || fn->size < 8 || off < fn->size - 8)
		return 0;
	/* the pointer's high half, its top 16 bits set */
	return word_at(fn, fn->size - 4) >> 16 == 0xffff;
}

/*
 * arm64: the base takes every instruction of the load/store-exclusive
 * class (LDAR, STLR and CAS too) for part of an exclusive sequence, and
 * refuses it and everything after such a load, up to 32 instructions
 * back, until a store of the class.  This kernel refuses only real
 * exclusive sequences: one-instruction atomics and what follows them are
 * its documented rule.
 */
static int base_atomic_window(const struct func *fn, unsigned long off)
{
	unsigned long o;
	unsigned int w;

	if (step != 4 || off + 4 > fn->size)
		return 0;
	if ((word_at(fn, off) & 0x3f000000) == 0x08000000)
		return 1;
	for (o = off; o >= 4 && off - o < 128; o -= 4) {
		w = word_at(fn, o - 4) & 0x3f400000;
		if (w == 0x08000000)
			return 0;
		if (w == 0x08400000)
			return 1;
	}
	return 0;
}

/* Do this kernel's bytes differ from the record's in [from, to]? */
static int code_differs_in(struct func *fn, unsigned long from, unsigned long to)
{
	unsigned long off;

	if (!fn->rec_image)
		return 0;
	for (off = from; off <= to && off < fn->size; off++)
		if (fn->rec_seen[off] && fn->rec_image[off] != fn->image[off])
			return 1;
	return 0;
}

/*
 * x86: is the instruction at @off an indirect CALL or JMP (FF /2, FF /4)
 * with a memory operand, after REX or segment prefixes?  The base
 * refuses those; here they are probed (kprobes.rst).
 */
static int indirect_mem_branch(const struct func *fn, unsigned long off)
{
	unsigned long at = off;
	unsigned char modrm;

	while (at < fn->size && ((x86_64 && (fn->image[at] & 0xf0) == 0x40) ||
				 fn->image[at] == 0x2e || fn->image[at] == 0x3e))
		at++;
	if (at + 1 >= fn->size || fn->image[at] != 0xff)
		return 0;
	modrm = fn->image[at + 1];
	return (modrm >> 6) != 3 && (((modrm >> 3) & 7) == 2 || ((modrm >> 3) & 7) == 4);
}

/*
 * The boundaries taken here against the record's: 0 alike, 1 not, -1 not
 * compared (not in the record, another size, or other code where they
 * differ).  Where only this kernel refuses an ENDBR, that is the rule
 * Documentation/trace/kprobes.rst gives (an int3 over it would make an
 * indirect branch to it fault), and no difference; so are, on arm64,
 * the next function's ftrace ops pointer (ftrace_ops_word()) and zero
 * words, refused here, and one-instruction atomics
 * (base_atomic_window()), hints and instructions with a fixup, taken
 * here, and on x86 an indirect call or jmp through memory, taken here:
 * kprobes.rst lists them.
 */
static int compare(struct func *fn)
{
	unsigned long off, lo;
	int differ = 0;

	if (!fn->in_record || !fn->size || fn->size != fn->rec_size)
		return -1;
	for (off = 0; off < fn->size; off++) {
		if (fn->taken[off] == fn->want[off])
			continue;
		if (step == 1 && !fn->taken[off] && !memcmp(fn->image + off, endbr64, 4)) {
			allowed_endbr++;
			continue;
		}
		if (!fn->taken[off] && ftrace_ops_word(fn, off)) {
			allowed_ops++;
			continue;
		}
		/* arm64: zero padding (UDF #0), which the base steps */
		if (step == 4 && !fn->taken[off] && !word_at(fn, off)) {
			allowed_udf++;
			continue;
		}
		if (fn->taken[off] && base_atomic_window(fn, off)) {
			allowed_atomic++;
			continue;
		}
		if (step == 1 && fn->taken[off] && indirect_mem_branch(fn, off)) {
			allowed_indirect_mem++;
			continue;
		}
		/* arm64: hints the base refuses, stepped or simulated here */
		if (step == 4 && fn->taken[off] &&
		    (word_at(fn, off) & 0xfffff01f) == 0xd503201f) {
			allowed_hint++;
			continue;
		}
		/* arm64: the base refuses what has a fixup; here it is stepped */
		if (step == 4 && fn->taken[off] && fn->extable[off] == 1) {
			allowed_extable++;
			continue;
		}
		/* The instruction there, or one before it, is other code. */
		lo = off >= 15 ? off - 15 : 0;
		if (code_differs_in(fn, lo, off + 3)) {
			printf("# kpinsn: %s+%lu: %s here, %s in the record, where the code is not the base's: not compared\n",
			       fn->name, off, fn->taken[off] ? "taken" : "refused",
			       fn->want[off] ? "taken" : "refused");
			code_differs++;
			return -1;
		}
		if (differ++ < 3)
			rule("# kpinsn: %s+%lu: %s here, %s in the record\n", fn->name, off,
			     fn->taken[off] ? "taken" : "refused",
			     fn->want[off] ? "taken" : "refused");
	}
	return differ ? 1 : 0;
}

static void sleep_s(int s)
{
	struct timespec ts = { .tv_sec = s };

	nanosleep(&ts, NULL);
}

/*
 * The probes of one round in @fn: its boundaries taken here, every one or
 * with @gap at least that far apart ('r': the entry only).  Returns how
 * many, and writes their addresses to @out unless it is NULL.
 */
static size_t pick_probes(const struct func *fn, char kind, unsigned long gap,
			  unsigned long *out)
{
	unsigned long off, last = 0;
	size_t n = 0;

	if (!fn->size || !fn->taken)
		return 0;
	for (off = 0; off < fn->size; off++) {
		if (!fn->taken[off])
			continue;
		if (kind == 'r' ? off != 0 : n && off - last < gap)
			continue;
		if (out)
			out[n] = fn->addr + off;
		n++;
		last = off;
	}
	return n;
}

/* Does this kernel jump-optimize?  The sysctl exists only then. */
static int can_optimize(void)
{
	return access("/proc/sys/debug/kprobes-optimization", F_OK) == 0;
}

/*
 * Where @f's first probe is in the batch's @n results (@n if nowhere): the
 * batch is in list order, not by address.
 */
static size_t first_probe(const struct func *f, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (results[k].addr >= f->addr && results[k].addr < f->addr + f->size)
			break;
	return k;
}

/* The hits of @f's first probe in the batch's @n results. */
static unsigned long first_probe_hits(const struct func *f, char kind, size_t n)
{
	size_t k = first_probe(f, n);

	if (k == n)
		return 0;
	/* A kretprobe fires on entry: some never return. */
	return kind == 'r' ? results[k].entries : results[k].hits;
}

/*
 * Has @f probes in the round, expected to fire (not a kretprobe refused
 * as documented), and its first has not fired in the batch's @n results?
 */
static int func_unfired(const struct func *f, char kind, unsigned long gap,
			size_t n)
{
	return !(kind == 'r' && f->ret_refusal[0]) &&
	       pick_probes(f, kind, gap, NULL) && !first_probe_hits(f, kind, n);
}

/* Is any function of funcs[first, end) in the batch not fired yet? */
static int batch_unfired(size_t first, size_t end, char kind,
			 unsigned long gap, size_t n)
{
	for (; first < end; first++)
		if (func_unfired(&funcs[first], kind, gap, n))
			return 1;
	return 0;
}

/*
 * The @n-th name of a list (from 0), six a line: the guest writes each
 * line as one kernel log record, which a few names keep short.  The
 * caller ends the last line.
 */
static void list_name(size_t n, const char *name)
{
	printf("%s %s", n % 6 ? "" : n ? "\n# kpinsn:  " : "# kpinsn:  ", name);
}

/*
 * A batch that takes this long to register is named, function by function,
 * so that what makes registration slow can be looked for: a batch of every
 * other round takes a second or two.
 */
#define SLOW_BATCH_S 30

static void name_slow_batch(const char *label, long seconds, size_t first,
			    size_t end)
{
	size_t n = 0;

	printf("# kpinsn: %s round: a batch took %ld s to register; its %zu functions:\n",
	       label, seconds, end - first);
	for (; first < end; first++, n++)
		list_name(n, funcs[first].name);
	printf("\n");
	fflush(stdout);
}

/*
 * A batch registers in slices, each armed before the next registers
 * (Documentation/trace/kprobes.rst), so every function that registering
 * a probe calls, once armed on every boundary, makes each later
 * registration of the batch hit as many breakpoints as the instructions
 * it runs there: on a debug kernel (__might_sleep, the spinlocks, RCU's
 * read lock, the unwinder behind kmemleak's stack traces) thousands a
 * probe, and a batch took half an hour.  So before the rounds the
 * function tracer, filtered to the sweep's functions and to this
 * process, counts the calls of registering and unregistering
 * TRACE_PROBES probes, and the rounds but ret close a batch before the
 * hits each registration would meet (calls per probe times probes, over
 * the batch's functions) pass REG_HITS_MAX: the busiest functions go in
 * batches of their own.  A function that alone passes it (the unwinder,
 * RCU's read lock, the spinlocks: __orc_find's 78 probes once took more
 * than 17 minutes to register) is registered disabled and then enabled
 * probe by probe, as kprobe events arm theirs, which allocates nothing
 * and so runs almost none of it.  Without the tracer, batches are as full
 * as BATCH allows.
 *
 * On other kernels only the post round needs the budget, each of its hits
 * two exceptions and a handler: in full batches its first one, over the
 * scheduler's and the allocator's hottest functions, took 5 to 10 minutes
 * to register on arm64's distro kernel, and the whole round 56 s in
 * budgeted batches.
 */
#define TRACING "/sys/kernel/tracing/"
#define TRACE_PROBES 16
#define REG_HITS_MAX 256

static size_t traced_probes;

static int tracing_write(const char *file, const char *s)
{
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), TRACING "%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * The sweep's functions that the tracer takes (with @unfired_only, those
 * whose first probe has not fired): how many.
 */
static size_t trace_filter(int unfired_only)
{
	int fd = open(TRACING "set_ftrace_filter", O_WRONLY | O_TRUNC);
	char line[160];
	size_t i, n = 0;

	if (fd < 0)
		return 0;
	for (i = 0; i < nr_funcs; i++) {
		snprintf(line, sizeof(line), "%s\n", funcs[i].name);
		if (!funcs[i].size || (unfired_only && !funcs[i].unfired))
			continue;
		funcs[i].watched = write(fd, line, strlen(line)) > 0;
		n += funcs[i].watched;
	}
	close(fd);
	return n;
}

/*
 * Count each traced call ("NAME <-CALLER") of a sweep function, in its
 * reg_calls or, with @in_round, its round_calls.
 */
static void trace_count(int in_round)
{
	FILE *f = fopen(TRACING "trace", "r");
	char line[512], *at, *name;
	struct func *fn;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, " <-");
		if (line[0] == '#' || !at)
			continue;
		*at = 0;
		name = strrchr(line, ' ');
		fn = name ? find(name + 1) : NULL;
		if (fn && in_round)
			fn->round_calls++;
		else if (fn)
			fn->reg_calls++;
	}
	fclose(f);
}

/*
 * The pre and sparse rounds keep to the budget only where any breakpoint
 * hit is dear: with lockdep or kmemleak each hit runs their checks.  On a
 * distro kernel, where their probes are boosted or jump-optimized, the
 * whole pre round took 25 s in full batches on x86_64, 156 s budgeted.
 */
static int debug_kernel(void)
{
	return access("/proc/lockdep", F_OK) == 0 ||
	       access("/sys/kernel/debug/kmemleak", F_OK) == 0;
}

/* The boundary taken nearest the middle of @fn, past its entry. */
static size_t middle_probe(const struct func *fn, unsigned long *out)
{
	unsigned long off;

	if (!fn->taken)
		return 0;
	for (off = fn->size / 2; off < fn->size; off++) {
		if (fn->taken[off]) {
			*out = fn->addr + off;
			return 1;
		}
	}
	return 0;
}

/* The tracer back as the boot left it: nop, unfiltered, empty, on. */
static void tracer_reset(void)
{
	tracing_write("current_tracer", "nop");
	tracing_write("set_ftrace_pid", "");
	tracing_write("set_ftrace_filter", "");
	tracing_write("trace", "");
	tracing_write("tracing_on", "1");
}

static void trace_register(void)
{
	char pid[24];
	size_t i;

	/*
	 * A boundary in the middle of each of the first functions: not an
	 * ftrace site, so a breakpoint with its slot and its detour, as
	 * the rounds register them.
	 */
	batch_n = 0;
	for (i = 0; i < nr_funcs && batch_n < TRACE_PROBES; i++)
		batch_n += middle_probe(&funcs[i], batch + batch_n);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (!batch_n || tracing_write("tracing_on", "0") ||
	    !trace_filter(0) || tracing_write("set_ftrace_pid", pid) ||
	    tracing_write("trace", "") ||
	    tracing_write("current_tracer", "function")) {
		printf("# kpinsn: no function tracer to count a registration's calls: batches as full as they fit\n");
	} else {
		tracing_write("tracing_on", "1");
		if (send_batch() || write_str("p"))
			rule("# kpinsn: the kpstress module refused the traced batch\n");
		write_str("u");
		tracing_write("tracing_on", "0");
		trace_count(0);
		traced_probes = batch_n;
	}
	tracer_reset();
	batch_n = 0;
}

/* The hits a registration would meet on all of @fn's probes, armed. */
static unsigned long reg_hits(const struct func *fn, size_t probes)
{
	return traced_probes ? fn->reg_calls * probes / traced_probes : 0;
}

/* Name the functions that the pre round gives batches of their own. */
static void trace_report(void)
{
	size_t i, alone = 0, called = 0;
	char entry[160];

	if (!traced_probes)
		return;
	for (i = 0; i < nr_funcs; i++)
		called += funcs[i].reg_calls != 0;
	printf("# kpinsn: registering and unregistering %zu probes ran %zu of the functions; a batch meets at most %d hits a registration, so with every boundary probed these go alone, registered disabled and enabled one by one (calls a probe):\n",
	       traced_probes, called, REG_HITS_MAX);
	for (i = 0; i < nr_funcs; i++) {
		if (reg_hits(&funcs[i], pick_probes(&funcs[i], 'p', 1, NULL)) <= REG_HITS_MAX)
			continue;
		snprintf(entry, sizeof(entry), "%s (%.1f)", funcs[i].name,
			 (double)funcs[i].reg_calls / traced_probes);
		list_name(alone++, entry);
	}
	printf("%s", alone ? "\n" : "# kpinsn:  none\n");
}

/* The tracer off, its calls counted with @count, its filter cleared. */
static void witness_stop(int count)
{
	tracing_write("tracing_on", "0");
	if (count)
		trace_count(1);
	tracer_reset();
}

/*
 * A function whose first probe has not fired once the round's SECONDS are
 * over may not have run at all: the record's boot ran it, this one need
 * not (a device's interrupt handler, a path another preemption model
 * takes).  For the rest of the wait the function tracer watches those
 * functions, so that one the tracer sees called while its probe does not
 * fire is told from one that did not run.  Returns whether it watches.
 */
static int witness_start(size_t first, size_t end, char kind,
			 unsigned long gap, size_t n)
{
	size_t i;

	for (i = 0; i < nr_funcs; i++) {
		struct func *f = &funcs[i];

		f->round_calls = 0;
		f->watched = 0;
		f->unfired = i >= first && i < end &&
			     func_unfired(f, kind, gap, n);
	}
	if (tracing_write("tracing_on", "0") || !trace_filter(1) ||
	    tracing_write("trace", "") ||
	    tracing_write("current_tracer", "function")) {
		witness_stop(0);
		for (i = 0; i < nr_funcs; i++)
			funcs[i].watched = 0;
		return 0;
	}
	tracing_write("tracing_on", "1");
	return 1;
}

/*
 * One round: KIND 'p', 'P' or 'r' on each function's boundaries taken
 * here (every one, or with GAP at least that far apart; 'r': the entry).
 * Its batches also stop at REG_HITS_MAX (trace_register()), but for the
 * ret round's, a kretprobe on each function's entry, which registered in
 * seconds on every kernel.
 */
static void probe_round(const char *label, char kind, unsigned long gap,
			int seconds, const char *wl_fail)
{
	unsigned long probes = 0, optimized = 0, fired_fns = 0, tried_fns = 0;
	unsigned long documented = 0, not_run = 0;
	const struct func *f_at;
	size_t i, first = 0, k, n;
	int before = list_lines(), after, waited, watching;
	unsigned long opt_before = list_optimized(), now, prev;
	char cmd[3] = { kind, 0, 0 };
	unsigned long batch_hits = 0, hits_max = ~0UL;
	unsigned int nr_batch = 0;
	time_t t0 = time(NULL);

	if (traced_probes && (kind == 'P' || (kind == 'p' && debug_kernel())))
		hits_max = REG_HITS_MAX;

	for (i = 0; i <= nr_funcs; i++) {
		struct func *fn = i < nr_funcs ? &funcs[i] : NULL;
		size_t need = fn ? pick_probes(fn, kind, gap, NULL) : 0;
		unsigned long hits = fn ? reg_hits(fn, need) : 0;

		/*
		 * Flush the batch when this function would not fit, in probes
		 * or in hits, or at the end.
		 */
		if (batch_n && (!fn || batch_n + need > BATCH ||
				batch_hits + hits > hits_max)) {
			time_t t_reg = time(NULL), t_unreg;
			size_t nr_fns = i - first;
			long took;

			/* One function, over the budget alone: enabled one by one. */
			cmd[1] = batch_hits > hits_max ? 'e' : 0;
			if (send_batch() || write_str(cmd)) {
				rule("# kpinsn: %s round: the kpstress module refused the batch\n",
				     label);
				write_str("u");
				return;
			}
			took = (long)(time(NULL) - t_reg);
			if (took >= SLOW_BATCH_S)
				name_slow_batch(label, took, first, i);
			sleep_s(seconds);
			/*
			 * The optimizer works in the background, each pass
			 * after an RCU-tasks grace period, which a busy TCG
			 * guest stretches to many seconds: while it makes
			 * progress, give it up to half a minute more.
			 */
			now = list_optimized();
			for (waited = 0; gap > 1 && can_optimize() && waited < 30;
			     waited += 2) {
				sleep_s(2);
				prev = now;
				now = list_optimized();
				if (now == prev && now)
					break;
			}
			optimized += now > opt_before ? now - opt_before : 0;
			n = read_results(batch_n);
			for (k = 0; k < n; k++) {
				f_at = kind == 'r' ? func_at(results[k].addr) : NULL;
				if (f_at && f_at->ret_refusal[0] && results[k].err &&
				    !strcmp(kp_errname(results[k].err), f_at->ret_refusal)) {
					documented++;
					continue;
				}
				if (f_at && f_at->ret_refusal[0])
					rule("# kpinsn: %s round: %s: %s, where kprobes.rst documents %s\n",
					     label, f_at->name,
					     results[k].err ? kp_errname(results[k].err) : "registered",
					     f_at->ret_refusal);
				else if (results[k].err)
					rule("# kpinsn: %s round: %lx refused, errno %d\n", label,
					     results[k].addr, results[k].err);
			}
			/*
			 * A function the workload runs only now and then may
			 * not have run yet with every instruction probed: up
			 * to 20 s more for the batch's last ones, watched by
			 * the tracer.  The results are read once it stopped,
			 * so that a call it saw has been counted as a hit.
			 */
			watching = batch_unfired(first, i, kind, gap, n) &&
				   witness_start(first, i, kind, gap, n);
			for (waited = 0; waited < 20 &&
			     batch_unfired(first, i, kind, gap, n); waited++) {
				sleep_s(1);
				n = read_results(batch_n);
			}
			if (watching) {
				witness_stop(1);
				n = read_results(batch_n);
			}
			for (; first < i; first++) {
				struct func *f = &funcs[first];

				if (!pick_probes(f, kind, gap, NULL) ||
				    (kind == 'r' && f->ret_refusal[0]))
					continue;
				tried_fns++;
				f->first_hits = first_probe_hits(f, kind, n);
				if (f->first_hits)
					fired_fns++;
				else if ((k = first_probe(f, n)) < n &&
					 f->watched && !f->round_calls) {
					printf("# kpinsn: %s round: %s did not run: neither its first probe nor the function tracer saw a call\n",
					       label, f->name);
					not_run++;
				} else if (k < n && f->watched &&
					   f->round_calls <= results[k].kmissed +
					   (kind == 'r' ? results[k].missed : 0)) {
					/*
					 * Every call the tracer saw came while
					 * another probe's handler ran on its CPU
					 * (or, for a kretprobe, with no instance
					 * free): counted missed, as kprobes.rst
					 * says.  A kprobe's MISSED is its KMISSED.
					 */
					printf("# kpinsn: %s round: %s ran %lu times, each counted missed (%lu, %lu as a kprobe)\n",
					       label, f->name, f->round_calls,
					       results[k].missed, results[k].kmissed);
					not_run++;
				} else if (k < n)
					rule("# kpinsn: %s round: %s's first probe never fired (%lu hits, %lu entries, %lu missed, %lu missed as a kprobe, flags %x, site %s; the function tracer %s %lu calls)\n",
					     label, f->name, results[k].hits,
					     results[k].entries, results[k].missed,
					     results[k].kmissed, results[k].flags,
					     results[k].site,
					     f->watched ? "saw" : "could not watch it:",
					     f->round_calls);
				else
					rule("# kpinsn: %s round: %s's first probe is not in the batch\n",
					     label, f->name);
			}
			probes += n;
			t_unreg = time(NULL);
			write_str("u");
			printf("# kpinsn: %s batch %u: %zu probes on %zu functions",
			       label, ++nr_batch, batch_n, nr_fns);
			if (hits_max != ~0UL)
				printf(", %lu hits a registration%s", batch_hits,
				       cmd[1] ? ", so enabled one by one" : "");
			printf("; registered in %ld s, unregistered in %ld s\n",
			       took, (long)(time(NULL) - t_unreg));
			batch_n = 0;
			batch_hits = 0;
		}
		if (need) {
			batch_n += pick_probes(fn, kind, gap, batch + batch_n);
			batch_hits += hits;
		}
	}
	after = list_lines();
	if (after != before)
		rule("# kpinsn: %s round: the debugfs list had %d lines before, %d after\n",
		     label, before, after);
	if (wl_fail && access(wl_fail, F_OK) == 0)
		rule("# kpinsn: %s round: the workload saw wrong results (%s)\n", label, wl_fail);
	/*
	 * The workload must still run nearly all of the record's functions,
	 * and their probes see it.
	 */
	if (not_run * 32 > tried_fns)
		rule("# kpinsn: %s round: %lu of %lu functions did not run or only missed, more than one in 32\n",
		     label, not_run, tried_fns);
	printf("# kpinsn: %s: %lu probes on %lu functions, %lu fired, %lu did not run or only missed, %lu optimized, %lu refused as kprobes.rst documents, %lds\n",
	       label, probes, tried_fns, fired_fns, not_run, optimized,
	       documented, (long)(time(NULL) - t0));
	/* x86_64 jump-optimizes (arm64 does not yet): sparse probes must be. */
	if (gap > 1 && (step == 1 || can_optimize()) && !optimized)
		rule("# kpinsn: %s round: no probe was optimized\n", label);
}

/*
 * -G FILE: the check is done (FILE.ready appears); wait up to a minute
 * for FILE, which says that the workload the rounds need is running.
 * The check itself runs faster with nothing else on the CPUs.
 */
static int wait_for_go(const char *file)
{
	char ready[4096];
	FILE *f;
	int s;

	snprintf(ready, sizeof(ready), "%s.ready", file);
	f = fopen(ready, "w");
	if (!f) {
		printf("# kpinsn: cannot create %s: %s\n", ready, strerror(errno));
		return -1;
	}
	fclose(f);
	for (s = 0; s < 60 && access(file, F_OK); s++)
		sleep_s(1);
	if (access(file, F_OK)) {
		printf("# kpinsn: %s did not appear within 60 s: no workload for the rounds\n",
		       file);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *names = NULL, *rec_out = NULL, *rec_in = NULL, *wl_fail = NULL;
	const char *go_file = NULL, *ret_refusals = NULL;
	unsigned long compared = 0, differ = 0, boundaries = 0;
	int opt, seconds = 2, min = 0, r;
	unsigned long max_size = 1024;
	long checked_s;
	time_t t0;
	size_t count = 0;
	struct utsname u;
	size_t i;

	while ((opt = getopt(argc, argv, "f:R:x:t:W:N:S:n:G:D:")) != -1) {
		switch (opt) {
		case 'f': names = optarg; break;
		case 'R': rec_out = optarg; break;
		case 'x': rec_in = optarg; break;
		case 't': seconds = atoi(optarg); break;
		case 'W': wl_fail = optarg; break;
		case 'N': min = atoi(optarg); break;
		case 'S': max_size = strtoul(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'G': go_file = optarg; break;
		case 'D': ret_refusals = optarg; break;
		default:
			fprintf(stderr, "usage: kpinsn -f FUNCS -R RECORD [-S MAXSIZE] [-n COUNT]\n"
				"       kpinsn -x RECORD [-f FUNCS [-S MAXSIZE]] [-t S] [-W FILE] [-N MIN]\n"
				"              [-G FILE] [-D FILE]\n");
			return 2;
		}
	}
	if (!rec_out == !rec_in || (rec_out && !names)) {
		fprintf(stderr, "kpinsn: give -R with -f, or -x\n");
		return 2;
	}
	/* A line at a time: the guest passes each on to the kernel log. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!uname(&u) && !strcmp(u.machine, "aarch64"))
		step = 4;
	x86_64 = !strcmp(u.machine, "x86_64");
	if (names)
		read_names(names);
	if (rec_in)
		read_record(rec_in);
	read_kallsyms();
	select_funcs(max_size, count);
	if (ret_refusals)
		read_ret_refusals(ret_refusals);
	batch = calloc(BATCH, sizeof(*batch));
	results = calloc(BATCH, sizeof(*results));
	if (!batch || !results)
		return 2;
	write_str("u");
	t0 = time(NULL);
	if (check_round()) {
		printf("# kpinsn: the kpstress module's check failed (is it loaded?)\n");
		return 2;
	}
	checked_s = (long)(time(NULL) - t0);
	for (i = 0; i < nr_funcs; i++) {
		unsigned long off;

		for (off = 0; funcs[i].taken && off < funcs[i].size; off++)
			boundaries += funcs[i].taken[off];
	}
	if (rec_out) {
		write_record(rec_out);
		printf("# kpinsn: recorded %zu functions, %lu boundaries taken, %lds\n",
		       nr_funcs, boundaries, checked_s);
		return 0;
	}
	for (i = 0; i < nr_funcs; i++) {
		r = compare(&funcs[i]);
		if (r < 0)
			continue;
		compared++;
		differ += r;
	}
	printf("# kpinsn: %zu functions, %lu boundaries taken in %lds; %lu compared with the record, %lu differ; by rule %lu ENDBRs, %lu ftrace ops words and %lu zero words refused, %lu words in or after one-instruction atomics, %lu hints, %lu with a fixup and %lu indirect branches through memory taken; %lu not compared, their code not the base's\n",
	       nr_funcs, boundaries, checked_s, compared, differ, allowed_endbr,
	       allowed_ops, allowed_udf, allowed_atomic, allowed_hint,
	       allowed_extable, allowed_indirect_mem, code_differs);
	if ((long)compared < min) {
		printf("# kpinsn: only %lu functions compared, fewer than %d\n", compared, min);
		broken = 1;
	}
	if (go_file && wait_for_go(go_file))
		return 2;
	trace_register();
	trace_report();
	probe_round("pre", 'p', 1, seconds, wl_fail);
	probe_round("post", 'P', 1, seconds, wl_fail);
	probe_round("sparse", 'p', SPARSE_GAP, seconds, wl_fail);
	probe_round("ret", 'r', 1, seconds, wl_fail);
	return broken;
}

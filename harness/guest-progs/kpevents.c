// SPDX-License-Identifier: GPL-2.0
/*
 * kpevents - what the tracing tools' ways of making probes cost, for the
 * benchmark (harness/guest/jobs/bench.sh): kprobe events through tracefs,
 * and the perf kprobe PMU, each probe on a function of its own.  Timed
 * with the guest's clock, which under -icount counts guest instructions
 * (a microsecond is a thousand of them).
 *
 *   kpevents events N   N "p:" events written one per write() to
 *                       kprobe_events, their group enabled and disabled,
 *                       then removed one per write() (kind=events); then
 *                       the same N in one write(), enabled, disabled and
 *                       removed by truncating kprobe_events (kind=eventsw)
 *   kpevents pmu N      N kprobe PMU events opened and enabled one at a
 *                       time, then closed one at a time (kind=pmu)
 *
 * The functions: those the function tracer lists once by name (kprobe
 * events refuse a name kallsyms has twice), picked by a hash of the name
 * so that two kernels whose lists differ in a few functions (the base's
 * kprobes and ours) pick nearly the same ones, in the order of the list.
 * One more is the getppid system call, which the program then calls
 * NR_CALLS times with the probes enabled; each line's "hits=" is what
 * that probe counted, so a row whose probes never armed fails
 * (harness/lib/bench.py).  A line is
 * "kpbench: kind=KIND hits=H taken=T refused=R register_us=... ...",
 * after a "kpevents: kind=KIND refused FUNCTION: ERROR" line for each
 * function the kernel would not probe, to compare kernels by.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define TRACING "/sys/kernel/tracing"
#define EVENTS TRACING "/kprobe_events"
#define GROUP "kpb"
#define PPID_EVENT "kpb_ppid"
#define KPROBE_PMU_TYPE "/sys/bus/event_source/devices/kprobe/type"
/* harness/lib/bench.py's NR_CALLS: the calls every row's probe counts. */
#define NR_CALLS 100000
/* One name in (1 << PICK_BITS): about 2500 of a small kernel's 20000. */
#define PICK_BITS 3

/* The row being measured, for die(). */
static const char *kind = "events";
static char **names;
static int nr_names;
static const char *ppid_func;

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* A row that cannot be measured: bench.py prints it as failed. */
static void die(const char *kind, const char *what)
{
	printf("kpbench: kind=%s failed: %s: %s\n", kind, what, strerror(errno));
	exit(1);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The getppid system call's own symbol, not a compat one. */
static int is_ppid(const char *name)
{
	size_t n = strlen(name);

	return n > 12 && !strcmp(name + n - 12, "_sys_getppid") &&
	       !strstr(name, "ia32") && !strstr(name, "compat");
}

/*
 * Up to @want of the functions listed once by name, and the getppid
 * system call's: names[] in the list's order, ppid_func.
 */
static void pick_functions(int want)
{
	FILE *f = fopen(TRACING "/available_filter_functions", "r");
	char line[256], **all = NULL, **sorted;
	int nr_all = 0, cap = 0, i;

	if (!f)
		die(kind, "reading the function list");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \n")] = 0;	/* " [module]" */
		if (nr_all == cap) {
			cap = cap ? 2 * cap : 4096;
			all = realloc(all, cap * sizeof(*all));
			if (!all)
				die(kind, "reading the function list");
		}
		all[nr_all++] = strdup(line);
	}
	fclose(f);
	sorted = malloc(nr_all * sizeof(*sorted));
	names = malloc((want + 1) * sizeof(*names));
	if (!sorted || !names)
		die(kind, "reading the function list");
	memcpy(sorted, all, nr_all * sizeof(*sorted));
	qsort(sorted, nr_all, sizeof(*sorted), by_name);
	for (i = 0; i < nr_all; i++) {
		const char *name = all[i];
		char **hit = bsearch(&name, sorted, nr_all, sizeof(*sorted), by_name);

		/* bsearch() finds one of the equal names: look both ways. */
		if ((hit > sorted && !strcmp(hit[-1], name)) ||
		    (hit < sorted + nr_all - 1 && !strcmp(hit[1], name)))
			continue;
		if (is_ppid(name) && !ppid_func) {
			ppid_func = name;
			continue;
		}
		if (strchr(name, '.') || nr_names == want ||
		    name_hash(name) & ((1u << PICK_BITS) - 1))
			continue;
		names[nr_names++] = (char *)name;
	}
	free(sorted);
	if (!ppid_func) {
		errno = ENOENT;
		die(kind, "no getppid system call in the function list");
	}
}

static void refused(const char *func)
{
	printf("kpevents: kind=%s refused %s: %s\n", kind, func, strerror(errno));
}

static int write_str(int fd, const char *s)
{
	return write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
}

static void set_group(const char *on)
{
	int fd = open(TRACING "/events/" GROUP "/enable", O_WRONLY);

	if (fd < 0 || write_str(fd, on))
		die(kind, "writing the group's enable");
	close(fd);
}

static void call_ppid(void)
{
	int i;

	for (i = 0; i < NR_CALLS; i++)
		syscall(SYS_getppid);
}

/* What kprobe_profile says the getppid event hit. */
static unsigned long ppid_event_hits(void)
{
	FILE *f = fopen(TRACING "/kprobe_profile", "r");
	char name[128];
	unsigned long hits, missed;

	if (!f)
		die(kind, "reading kprobe_profile");
	while (fscanf(f, "%127s %lu %lu", name, &hits, &missed) == 3)
		if (!strcmp(name, PPID_EVENT)) {
			fclose(f);
			return hits;
		}
	fclose(f);
	return 0;
}

static int event_line(char *buf, size_t len, int i)
{
	if (i == nr_names)
		return snprintf(buf, len, "p:" GROUP "/" PPID_EVENT " %s\n", ppid_func);
	return snprintf(buf, len, "p:" GROUP "/e%d %s\n", i, names[i]);
}

/* Enabled, the getppid probe counted, disabled: the times of both. */
static unsigned long enabled_round(long long *enable_us, long long *disable_us)
{
	long long t = now_us();
	unsigned long hits;

	set_group("1");
	*enable_us = now_us() - t;
	call_ppid();
	hits = ppid_event_hits();
	t = now_us();
	set_group("0");
	*disable_us = now_us() - t;
	return hits;
}

static void events(void)
{
	char line[256], *all, *p;
	char *taken = calloc(nr_names + 1, 1);
	long long reg = 0, unreg = 0, en, dis, t;
	unsigned long hits;
	int fd, i, ok, nr_taken = 0;

	fd = open(EVENTS, O_WRONLY | O_APPEND);
	if (fd < 0 || !taken)
		die(kind, "opening kprobe_events");
	/* One write() a probe, as perf probe and bpftrace make them. */
	for (i = 0; i <= nr_names; i++) {
		event_line(line, sizeof(line), i);
		t = now_us();
		ok = !write_str(fd, line);
		reg += now_us() - t;
		if (ok) {
			taken[i] = 1;
			nr_taken++;
		} else if (i == nr_names) {
			die(kind, "writing the getppid event");
		} else {
			refused(names[i]);
		}
	}
	hits = enabled_round(&en, &dis);
	for (i = 0; i <= nr_names; i++) {
		if (!taken[i])
			continue;
		if (i == nr_names)
			snprintf(line, sizeof(line), "-:" GROUP "/" PPID_EVENT "\n");
		else
			snprintf(line, sizeof(line), "-:" GROUP "/e%d\n", i);
		t = now_us();
		if (write_str(fd, line))
			die(kind, "removing an event");
		unreg += now_us() - t;
	}
	printf("kpbench: kind=events hits=%lu taken=%d refused=%d register_us=%lld enable_us=%lld disable_us=%lld unregister_us=%lld\n",
	       hits, nr_taken, nr_names + 1 - nr_taken, reg, en, dis, unreg);

	/* The same probes in one write(), gone in one truncation. */
	kind = "eventsw";
	all = malloc((nr_names + 1) * 256);
	if (!all)
		die(kind, "no memory");
	for (i = 0, p = all; i <= nr_names; i++)
		if (taken[i])
			p += event_line(p, 256, i);
	t = now_us();
	if (write(fd, all, p - all) != p - all)
		die(kind, "writing every event at once");
	reg = now_us() - t;
	close(fd);
	hits = enabled_round(&en, &dis);
	t = now_us();
	fd = open(EVENTS, O_WRONLY | O_TRUNC);
	if (fd < 0)
		die(kind, "truncating kprobe_events");
	close(fd);
	unreg = now_us() - t;
	printf("kpbench: kind=eventsw hits=%lu taken=%d refused=0 register_us=%lld enable_us=%lld disable_us=%lld unregister_us=%lld\n",
	       hits, nr_taken, reg, en, dis, unreg);
	free(all);
	free(taken);
}

static int pmu_open(int type, const char *func)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uint64_t)(uintptr_t)func;	/* kprobe_func */
	attr.disabled = 1;
	/* Counting, this task only, as the row's own calls are. */
	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void pmu(void)
{
	int *fds = malloc((nr_names + 1) * sizeof(int));
	long long reg = 0, unreg = 0, t;
	int i, type, err, nr_taken = 0;
	uint64_t count = 0;
	FILE *f = fopen(KPROBE_PMU_TYPE, "r");

	if (!f || fscanf(f, "%d", &type) != 1 || !fds)
		die(kind, "reading " KPROBE_PMU_TYPE);
	fclose(f);
	for (i = 0; i <= nr_names; i++) {
		t = now_us();
		fds[i] = pmu_open(type, i == nr_names ? ppid_func : names[i]);
		if (fds[i] >= 0 && ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			err = errno;
			close(fds[i]);
			fds[i] = -1;
			errno = err;
		}
		reg += now_us() - t;
		if (fds[i] < 0 && i < nr_names)
			refused(names[i]);
		nr_taken += fds[i] >= 0;
	}
	if (fds[nr_names] < 0)
		die(kind, "opening the getppid probe");
	call_ppid();
	if (read(fds[nr_names], &count, sizeof(count)) != sizeof(count))
		die(kind, "reading the getppid count");
	for (i = 0; i <= nr_names; i++) {
		if (fds[i] < 0)
			continue;
		t = now_us();
		close(fds[i]);
		unreg += now_us() - t;
	}
	printf("kpbench: kind=pmu hits=%llu taken=%d refused=%d register_us=%lld unregister_us=%lld\n",
	       (unsigned long long)count, nr_taken, nr_names + 1 - nr_taken, reg, unreg);
	free(fds);
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[2]) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (n < 1 || (strcmp(argv[1], "events") && strcmp(argv[1], "pmu"))) {
		fprintf(stderr, "usage: kpevents events|pmu N\n");
		return 2;
	}
	/* N probes in all: N - 1 picked, and getppid's. */
	kind = argv[1];
	pick_functions(n - 1);
	if (!strcmp(argv[1], "events"))
		events();
	else
		pmu();
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kpusers - drive the in-kernel users of kprobes from user space, for the
 * guest's "users" suite.  Static, no libbpf: raw perf_event_open(2) and
 * bpf(2) through syscall(2).
 *
 *   kpusers perf-kprobe    FUNC N [FILE]   perf's kprobe PMU counts N hits
 *   kpusers perf-kretprobe FUNC N [FILE]   the same with the retprobe bit
 *   kpusers bpf-kprobe     FUNC N [FILE]   a BPF kprobe program runs N times
 *   kpusers uprobe-offset                  the file offset of this program's
 *                                          uprobe target function
 *   kpusers uprobe-run     N X             call the target N times with X,
 *                                          check each result, print it
 *
 * One trigger is a fork() whose child exits at once (kernel_clone runs in
 * the parent), or, when FILE is given, a write of "1" to FILE.  While the
 * probe is open, /sys/kernel/debug/kprobes/list (when readable) must show
 * it on FUNC's entry.  Exit status 0 iff the count is at least N.
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
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe"
#define KPROBE_LIST "/sys/kernel/debug/kprobes/list"

/* Older uapi headers lack these. */
#ifndef BPF_ATOMIC
#define BPF_ATOMIC 0xc0
#endif
#ifndef PERF_EVENT_IOC_SET_BPF
#define PERF_EVENT_IOC_SET_BPF _IOW('$', 8, __u32)
#endif

static int fail(const char *what)
{
	printf("kpusers: %s: %s\n", what, strerror(errno));
	return 2;
}

/* The first decimal number in FILE (after SKIP, when SKIP is given). */
static long read_num(const char *file, const char *skip)
{
	char buf[128], *p;
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = buf;
	if (skip) {
		if (strncmp(p, skip, strlen(skip)))
			return -1;
		p += strlen(skip);
	}
	return strtol(p, NULL, 10);
}

static int perf_kprobe_open(const char *func, int retprobe, int bpf)
{
	struct perf_event_attr attr;
	long type, bit = 0;
	int fd;

	type = read_num(KPROBE_PMU "/type", NULL);
	if (type < 0) {
		printf("kpusers: no kprobe PMU (%s/type)\n", KPROBE_PMU);
		return -1;
	}
	if (retprobe) {
		bit = read_num(KPROBE_PMU "/format/retprobe", "config:");
		if (bit < 0 || bit > 63) {
			printf("kpusers: cannot read %s/format/retprobe\n", KPROBE_PMU);
			return -1;
		}
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = retprobe ? 1ULL << bit : 0;
	attr.config1 = (__u64)(unsigned long)func;	/* kprobe_func */
	attr.config2 = 0;				/* probe_offset */
	attr.disabled = 1;
	if (bpf) {
		/* As libbpf attaches: one CPU, every task, a sample a hit. */
		attr.sample_period = 1;
		attr.wakeup_events = 1;
		fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	} else {
		/* Counting, this task only: its own kernel_clone calls. */
		fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		fail("perf_event_open");
	return fd;
}

/*
 * A function's entry probe is listed at the function's start, FUNC+0x0:
 * on x86 that is its ftrace site, and arm64's rides the site from there,
 * as bpf_get_func_ip() and perf report it.  On x86 with IBT it is the
 * instruction after the function's ENDBR: the suite passes that offset
 * in KP_ENTRY_OFF ("0x4"), as the guest's entry_off() works it out.
 */
static const char *entry_off(void)
{
	const char *off = getenv("KP_ENTRY_OFF");

	return off && *off ? off : "0x0";
}

/* @line lists a probe of type @type on @func's entry. */
static int at_entry(const char *line, char type, const char *func)
{
	char want[300];

	snprintf(want, sizeof(want), "  %c  %s+%s  ", type, func, entry_off());
	return strstr(line, want) != NULL;
}

/* The probe on FUNC's entry, of type k or r, is in the debugfs list. */
static int listed(const char *func, int retprobe)
{
	char line[512], want[300];
	int found = 0;
	FILE *f;

	f = fopen(KPROBE_LIST, "r");
	if (!f) {
		printf("# %s not readable: %s\n", KPROBE_LIST, strerror(errno));
		return 0;
	}
	snprintf(want, sizeof(want), "  %c  %s+%s  ", retprobe ? 'r' : 'k', func,
		 entry_off());
	while (fgets(line, sizeof(line), f)) {
		if (at_entry(line, retprobe ? 'r' : 'k', func)) {
			printf("listed: %s", line);
			found = 1;
		}
	}
	fclose(f);
	if (!found)
		printf("kpusers: no line with '%s' in %s\n", want, KPROBE_LIST);
	return found;
}

static int trigger(const char *file, long n)
{
	long i;
	pid_t pid;
	int fd, st;

	for (i = 0; i < n; i++) {
		if (file) {
			fd = open(file, O_WRONLY);
			if (fd < 0)
				return fail(file);
			if (write(fd, "1", 1) != 1) {
				close(fd);
				return fail(file);
			}
			close(fd);
			continue;
		}
		pid = fork();
		if (pid < 0)
			return fail("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &st, 0) != pid)
			return fail("waitpid");
	}
	return 0;
}

/*
 * A per-task count must be exactly @n; a system-wide one (a BPF program
 * sees every task's calls) at least @n.
 */
static int verdict(const char *what, const char *func, unsigned long long got,
		   long n, int exact)
{
	printf("%s %s: %llu hits for %ld triggers (want %s%ld)\n",
	       what, func, got, n, exact ? "" : ">= ", n);
	if (exact)
		return got == (unsigned long long)n ? 0 : 1;
	return got >= (unsigned long long)n ? 0 : 1;
}

/*
 * Enable the event, cause @n hits and disable it.  *@ok says whether
 * debugfs listed the probe while it was set.
 */
static int count_while_enabled(int fd, const char *func, int retprobe,
			       const char *file, long n, int *ok)
{
	int rc;

	*ok = listed(func, retprobe);
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return fail("PERF_EVENT_IOC_ENABLE");
	rc = trigger(file, n);
	if (rc)
		return rc;
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		return fail("PERF_EVENT_IOC_DISABLE");
	return 0;
}

static int cmd_perf(const char *func, long n, const char *file, int retprobe)
{
	unsigned long long count = 0;
	int fd, ok, rc;

	fd = perf_kprobe_open(func, retprobe, 0);
	if (fd < 0)
		return 2;
	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0))
		return fail("PERF_EVENT_IOC_RESET");
	rc = count_while_enabled(fd, func, retprobe, file, n, &ok);
	if (rc)
		return rc;
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return fail("read counter");
	close(fd);
	rc = verdict(retprobe ? "perf-kretprobe" : "perf-kprobe", func, count, n,
		     1);
	return ok ? rc : 1;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

static int cmd_bpf(const char *func, long n, const char *file)
{
	static char log[65536];
	union bpf_attr attr;
	__u64 value = 0;
	__u32 key = 0;
	int map, prog, fd, ok, rc;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(__u32);
	attr.value_size = sizeof(__u64);
	attr.max_entries = 1;
	map = sys_bpf(BPF_MAP_CREATE, &attr);
	if (map < 0)
		return fail("BPF_MAP_CREATE");

	/* value = lookup(map, &(u32){0}); if (value) atomic add 1; return 0 */
	struct bpf_insn insns[] = {
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (__u64)(unsigned long)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	attr.license = (__u64)(unsigned long)"GPL";
	prog = sys_bpf(BPF_PROG_LOAD, &attr);
	if (prog < 0) {
		/* Again with the verifier's log, to print it. */
		int err = errno;

		attr.log_buf = (__u64)(unsigned long)log;
		attr.log_size = sizeof(log);
		attr.log_level = 1;
		prog = sys_bpf(BPF_PROG_LOAD, &attr);
		printf("kpusers: BPF_PROG_LOAD: %s; verifier log:\n%s\n",
		       strerror(err), log);
		if (prog < 0)
			return 2;
	}

	fd = perf_kprobe_open(func, 0, 1);
	if (fd < 0)
		return 2;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		return fail("PERF_EVENT_IOC_SET_BPF");
	rc = count_while_enabled(fd, func, 0, file, n, &ok);
	if (rc)
		return rc;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map;
	attr.key = (__u64)(unsigned long)&key;
	attr.value = (__u64)(unsigned long)&value;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		return fail("BPF_MAP_LOOKUP_ELEM");
	close(fd);
	close(prog);
	close(map);
	rc = verdict("bpf-kprobe", func, value, n, 0);
	return ok ? rc : 1;
}

/*
 * The uprobe target: out of line, with a loop and a branch, so that its
 * entry and its return run through the uprobe machinery of the arch
 * (on arm64 our decoder and simulation, shared with kprobes).
 */
__attribute__((noipa)) long kpusers_uprobe_target(long x)
{
	long acc = 0, i;

	for (i = 0; i <= (x & 7); i++)
		acc += (i & 1) ? x : -i;
	return acc + 1;
}

/* The same sum, worked out another way, for checking. */
static long uprobe_expected(long x)
{
	long n = (x & 7) + 1, odd = n / 2, evens = 0, i;

	for (i = 0; i < n; i += 2)
		evens += i;
	return odd * x - evens + 1;
}

static int cmd_uprobe_offset(void)
{
	unsigned long addr = (unsigned long)kpusers_uprobe_target;
	unsigned long lo, hi, off;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return fail("open /proc/self/maps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &off) != 4)
			continue;
		if (addr >= lo && addr < hi && perm[2] == 'x') {
			printf("0x%lx\n", addr - lo + off);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	fprintf(stderr, "kpusers: %#lx is in no executable mapping\n", addr);
	return 1;
}

static int cmd_uprobe_run(long n, long x)
{
	long i, got, want = uprobe_expected(x);

	for (i = 0; i < n; i++) {
		got = kpusers_uprobe_target(x);
		if (got != want) {
			fprintf(stderr, "kpusers: call %ld of the target gave %ld, want %ld\n",
				i, got, want);
			return 1;
		}
	}
	printf("retval 0x%lx\n", (unsigned long)want);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: kpusers perf-kprobe|perf-kretprobe|bpf-kprobe FUNC N [FILE]\n"
		"       kpusers uprobe-offset\n"
		"       kpusers uprobe-run N X\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *func, *file;
	char *end;
	long n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "uprobe-offset"))
		return cmd_uprobe_offset();
	if (argc == 4 && !strcmp(argv[1], "uprobe-run")) {
		n = strtol(argv[2], &end, 10);
		if (*end || n < 1)
			return usage();
		return cmd_uprobe_run(n, strtol(argv[3], NULL, 0));
	}
	if (argc < 4 || argc > 5)
		return usage();
	func = argv[2];
	n = strtol(argv[3], &end, 10);
	if (*end || n < 1)
		return usage();
	file = argc == 5 ? argv[4] : NULL;
	if (!strcmp(argv[1], "perf-kprobe"))
		return cmd_perf(func, n, file, 0);
	if (!strcmp(argv[1], "perf-kretprobe"))
		return cmd_perf(func, n, file, 1);
	if (!strcmp(argv[1], "bpf-kprobe"))
		return cmd_bpf(func, n, file);
	return usage();
}

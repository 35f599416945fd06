// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_try: do one thing the kernel may refuse and print the errno's
 * name ("OK" when it was accepted), so that shell tests can compare errnos
 * without depending on the C library's wording of them.
 *
 *   kprobes_try write FILE TEXT     append TEXT to FILE in one write()
 *   kprobes_try load MODULE.ko ARGS finit_module() with ARGS as parameters
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "../kselftest.h"

#define NAME(e) { e, #e }

static const struct {
	int err;
	const char *name;
} names[] = {
	NAME(EPERM), NAME(ENOENT), NAME(EIO), NAME(E2BIG), NAME(ENOEXEC),
	NAME(EAGAIN), NAME(ENOMEM), NAME(EACCES), NAME(EFAULT), NAME(EBUSY),
	NAME(EEXIST), NAME(ENODEV), NAME(EINVAL), NAME(ENOSPC), NAME(ERANGE),
	NAME(ENOSYS), NAME(EILSEQ), NAME(EOPNOTSUPP), NAME(ENAMETOOLONG),
	/* The kernel-internal ENOTSUPP leaks to user space as 524. */
	{ 524, "ENOTSUPP" },
};

static int report(int ret)
{
	unsigned int i;

	if (ret >= 0) {
		puts("OK");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i].err == errno) {
			puts(names[i].name);
			return 0;
		}
	}
	printf("E%d\n", errno);
	return 0;
}

static int try_write(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_APPEND);

	if (fd < 0) {
		fprintf(stderr, "kprobes_try: cannot open %s: %s\n", file, strerror(errno));
		return 2;
	}
	report(write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1);
	close(fd);
	return 0;
}

static int try_load(const char *ko, const char *args)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "kprobes_try: cannot open %s: %s\n", ko, strerror(errno));
		return 2;
	}
	report(syscall(__NR_finit_module, fd, args, 0) ? -1 : 0);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "write"))
		return try_write(argv[2], argc > 3 ? argv[3] : "");
	if (argc >= 3 && !strcmp(argv[1], "load"))
		return try_load(argv[2], argc > 3 ? argv[3] : "");
	fprintf(stderr, "usage: kprobes_try write FILE TEXT | load MODULE.ko [ARGS]\n");
	return 2;
}

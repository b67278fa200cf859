#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static const char *log_program = "oz0fs";
static bool log_syslog;
static int log_max = LOG_INFO;

void log_init(const char *program)
{
	log_program = program;
}

void log_to_syslog(void)
{
	openlog(log_program, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	log_syslog = true;
}

void log_set_max_level(int max)
{
	log_max = max;
}

bool log_is_syslog(void)
{
	return log_syslog;
}

void log_msg(int priority, const char *fmt, ...)
{
	int saved = errno; /* keep %m meaningful for the caller's format */
	va_list ap;

	if (priority > log_max)
		return;
	va_start(ap, fmt);
	errno = saved;
	if (log_syslog) {
		vsyslog(priority, fmt, ap);
	} else {
		fprintf(stderr, "%s: ", log_program);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
	errno = saved;
}

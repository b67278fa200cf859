#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/write-refusal.h"

int write_refuse(struct write_refusal *no, const char *rule, const char *fmt, ...)
{
	va_list ap;
	int r;

	free(no->reason);
	va_start(ap, fmt);
	r = vasprintf(&no->reason, fmt, ap);
	va_end(ap);
	if (r < 0) {
		*no = (struct write_refusal){0};
		return -ENOMEM;
	}
	no->rule = rule;
	return 1;
}

void write_refusal_clear(struct write_refusal *no)
{
	free(no->reason);
	*no = (struct write_refusal){0};
}

#include "config.h"

/* libFuzzer harness for the config reader and the config-change judge.
 *
 * The input is parsed whole; then its first byte picks a cut, and the bytes
 * on either side are judged as an old and a new config. Properties checked
 * beyond "no crash, no leak": every entry has a name, section and key; a
 * file judged against itself is safe when it parses and an error when not. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "git/config-change.h"
#include "git/config-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_entry(const struct gitcfg_entry *e, void *userdata)
{
	(void)userdata;
	if (!e->name || !e->section || !e->key || e->line < 1)
		abort();
	return 0;
}

static void judge_halves(const char *buf, size_t size)
{
	size_t cut = size ? (size_t)(unsigned char)buf[0] * (size - 1) / 255 : 0;
	const char *why = NULL;

	if (size == 0)
		return;
	(void)gitcfg_change_is_safe(buf + 1, cut, buf + 1 + cut, size - 1 - cut, &why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *why = NULL;
	int parsed = gitcfg_parse(buf, size, "fuzz", check_entry, NULL, NULL);
	int same = gitcfg_change_is_safe(buf, size, buf, size, &why);

	/* Unchanged bytes are safe; an old file that does not parse is an error. */
	if (same != -ENOMEM && (parsed >= 0 ? same != 1 : same >= 0))
		abort();
	judge_halves(buf, size);
	return 0;
}

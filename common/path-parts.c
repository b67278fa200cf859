#include "config.h"

#include <string.h>

#include "path-parts.h"

bool path_next_part(const char **cursor, const char **name, size_t *len)
{
	const char *p = *cursor + strspn(*cursor, "/");

	*name = p;
	*len = strcspn(p, "/");
	*cursor = p + *len;
	return *len > 0;
}

#!/bin/sh
# gen-build.sh DIR N: a C project of N generated files and a Makefile, for
# the build workload. Generated rather than cut from the kernel so that it
# builds with nothing but a compiler, and every file costs about the same.
set -eu
dir=$1
n=$2
mkdir -p "$dir"

# One translation unit: a few functions with loops and a table, enough work
# for the compiler that a file takes tens of milliseconds at -O2.
gen_unit() {
	i=$1
	cat <<EOC
#include <stddef.h>
#include <string.h>
#include "common.h"

static const unsigned table_${i}[64] = { $(seq -s, "$i" "$((i + 63))") };

unsigned unit_$i(const char *s)
{
	unsigned h = $i;
	for (size_t k = 0; s[k]; k++)
		h = (h ^ (unsigned char)s[k]) * 16777619u + table_${i}[k & 63];
	return h;
}

static int cmp_$i(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

void sort_$i(struct item *v, size_t n)
{
	for (size_t k = 0; k < n; k++)
		v[k].key = unit_$i(v[k].name) % (k + 1);
	qsort(v, n, sizeof *v, cmp_$i);
}
EOC
}

cat >"$dir/common.h" <<'EOC'
#include <stdlib.h>
struct item { unsigned key; char name[32]; };
EOC
i=0
objs=
while [ "$i" -lt "$n" ]; do
	gen_unit "$i" >"$dir/u$i.c"
	objs="$objs u$i.o"
	i=$((i + 1))
done
printf 'int main(void) { return 0; }\n' >"$dir/main.c"
cat >"$dir/Makefile" <<EOM
CFLAGS = -O2 -Wall
OBJS = main.o$objs
prog: \$(OBJS)
	\$(CC) -o \$@ \$(OBJS)
%.o: %.c common.h
	\$(CC) \$(CFLAGS) -c -o \$@ \$<
EOM

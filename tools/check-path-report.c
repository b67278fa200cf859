#include "config.h"

#include <stdio.h>

#include "tools/check-path-report.h"
#include "tools/json.h"

void path_report_text(const struct path_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].rule)
			printf("%s: refused (%s): %s\n", v[i].asked, v[i].rule, v[i].reason);
		else
			printf("%s: allowed\n", v[i].asked);
}

static void print_forms(const struct path_forms *f)
{
	fputs(",\"forms\":[", stdout);
	for (size_t i = 0; i < f->n; i++) {
		printf("%s{\"path\":", i ? "," : "");
		json_string(stdout, f->form[i]);
		printf(",\"folds_case\":%s}", f->folds_case[i] ? "true" : "false");
	}
	putchar(']');
}

void path_report_json(const struct path_verdict *v, size_t n, bool write, const char *tree)
{
	bool allowed = true;

	for (size_t i = 0; i < n; i++)
		allowed &= !v[i].rule;
	printf("{\"access\":\"%s\",\"tree\":", write ? "write" : "read");
	json_string(stdout, tree);
	printf(",\"allowed\":%s,\"paths\":[", allowed ? "true" : "false");
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"path\":", i ? "," : "");
		json_string(stdout, v[i].asked);
		printf(",\"allowed\":%s,\"rule\":", v[i].rule ? "false" : "true");
		json_string(stdout, v[i].rule);
		fputs(",\"reason\":", stdout);
		json_string(stdout, v[i].reason);
		print_forms(&v[i].forms);
		putchar('}');
	}
	puts("]}");
}

/* The little JSON the tools print: strings escaped as RFC 8259 wants. */
#pragma once

#include <stdio.h>

/* Writes S as a JSON string, or null for NULL. */
void json_string(FILE *out, const char *s);

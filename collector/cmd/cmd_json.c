/* cmd_json.c - JSON written straight to a stream by the commands that
 * print their own documents (see cmd.h). */
#include <math.h>
#include <stdio.h>

#include "cmd.h"

void
cmd_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void
cmd_json_num(FILE *f, const char *key, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.6g%s", key, v, sep);
	else
		fprintf(f, "\"%s\": null%s", key, sep);
}

#include <string.h>

#include "html.h"

void
html_escape(FILE *f, const char *s)
{
	for (; s != NULL && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

void
html_url_escape(FILE *f, const char *s)
{
	for (; s != NULL && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-_.~", c) != NULL)
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t
html_url_unescape(char *s)
{
	char *w = s;
	const char *r = s;
	int hi, lo;

	while (*r != '\0') {
		if (r[0] == '%' && (hi = hexval(r[1])) != -1 &&
		    (lo = hexval(r[2])) != -1 && (hi | lo) != 0) {
			*w++ = (char)(hi << 4 | lo);
			r += 3;
		} else
			*w++ = *r++;
	}
	*w = '\0';
	return (size_t)(w - s);
}

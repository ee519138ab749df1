/*
 * html.h - the exposition's escaping, in one place: text into HTML or SVG
 * (& < > " ' as entities) and into a URL query value (percent-encoding
 * all but the unreserved characters).  NULL writes nothing.  And the
 * other way: a request's path or query value decoded in place.
 */
#ifndef WP_HTML_H
#define WP_HTML_H

#include <stdio.h>

void	 html_escape(FILE *f, const char *s);
void	 html_url_escape(FILE *f, const char *s);
/* Decodes %XX in s in place and returns its new length.  %00 stays as it
 * is (a NUL would cut the name short: gpu-001%00.json is no node), and so
 * does a % not followed by two hex digits. */
size_t	 html_url_unescape(char *s);

#endif

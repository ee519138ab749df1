/*
 * html.h - the exposition's escaping, in one place: text into HTML or SVG
 * (& < > " ' as entities) and into a URL query value (percent-encoding
 * all but the unreserved characters).  NULL writes nothing.
 */
#ifndef WP_HTML_H
#define WP_HTML_H

#include <stdio.h>

void	 html_escape(FILE *f, const char *s);
void	 html_url_escape(FILE *f, const char *s);

#endif

/*
 * datafile.h - where wattpath's data files (PDU profiles, meter maps) are.
 *
 * The search, first hit wins: maps_dir (collector.maps_dir; the config
 * reader makes it absolute), then the config file's own directory, then
 * the source tree's etc/ (a build run from its tree: found from the
 * binary's own location, /proc/self/exe, never the working directory),
 * then the installed $PREFIX/share/wattpath.  So a profile is found the
 * same whatever directory wattpath is started from.
 */
#ifndef WP_DATAFILE_H
#define WP_DATAFILE_H

#include <stddef.h>

/* How messages name the search. */
#define DATAFILE_SEARCH	"maps_dir, the config file's directory, the " \
	"source tree's etc/ or " WP_PREFIX "/share/wattpath"

/*
 * Finds data file "<stem><ext>" under subdir ("pdu-profiles", "meter-maps")
 * of each directory of the search (maps_dir, conf_dir: NULL to skip).
 * Returns 0 with the path in out, or -1 (a stem with '/' or starting with
 * '.' is never looked up).
 */
int	 datafile_find(const char *maps_dir, const char *conf_dir,
	    const char *subdir, const char *stem, const char *ext, char *out,
	    size_t len);
/*
 * The i-th directory of the search (0-based) joined with subdir into out:
 * 0 written, 1 that step has no directory (skip it), -1 past the last.
 */
int	 datafile_dir(size_t i, const char *maps_dir, const char *conf_dir,
	    const char *subdir, char *out, size_t len);
/* The source tree's etc/ the running binary was built in ("<tree>/etc":
 * the binary's directory or one of its two parents holding etc/ with
 * pdu-profiles/ and a Makefile beside it) into out: 0, or -1 none. */
int	 datafile_source_etc(char *out, size_t len);

#endif

/*
 * datafile.h - where wattpath's data files (PDU profiles, meter maps) are.
 */
#ifndef WP_DATAFILE_H
#define WP_DATAFILE_H

#include <stddef.h>

/*
 * Finds data file "<stem><ext>" under subdir ("pdu-profiles", "meter-maps"):
 * in maps_dir (if non-NULL), then ./etc/<subdir>/, then the installed
 * $PREFIX/share/wattpath/<subdir>/.  Returns 0 with the path in out, or -1
 * (a stem with '/' or starting with '.' is never looked up).
 */
int	 datafile_find(const char *maps_dir, const char *subdir,
	    const char *stem, const char *ext, char *out, size_t len);

#endif

/*
 * secret.h - secrets from files or the environment, never from the config.
 *
 * A secrets file must be a regular file owned by root or by us with no
 * group or world permission bits; anything else is refused with a message
 * that names the file (never its content).  One trailing newline (and CR)
 * is stripped.  Secrets are zeroed when freed and never logged.
 *
 * systemd credentials (LoadCredential=NAME:PATH) are a third source: the
 * file NAME in $CREDENTIALS_DIRECTORY, which systemd fills before the
 * service starts.  A file directly inside that directory is checked as a
 * credential: as above, except that its group may read it (systemd gives
 * the service's user read access by an ACL, whose mask shows as the group
 * bits: mode 0440); the directory itself must be owned by root or us and
 * writable by nobody else.
 */
#ifndef WP_SECRET_H
#define WP_SECRET_H

#include <stddef.h>

#include "err.h"

/* Checks that path exists, is private, is not empty and not over the size
 * secret_load takes (4 KiB), without reading it; 0 or -1 with a reason. */
int	 secret_check_file(const char *path, struct wp_err *err);
/*
 * Loads a secret from path (if non-NULL) or from the environment variable
 * env.  Returns a new string (caller frees with secret_free), or NULL.
 */
char	*secret_load(const char *path, const char *env, struct wp_err *err);
/*
 * Writes $CREDENTIALS_DIRECTORY/name into buf (n bytes) after checking the
 * name (1..255 printable ASCII characters, no '/', ':' or space, not "."
 * or "..") and the directory; 0 or -1 with a reason.
 */
int	 secret_cred_path(const char *name, char *buf, size_t n,
	    struct wp_err *err);
/* Whether name is a valid credential name (as above). */
int	 secret_cred_name_ok(const char *name);
/* Zeroes and frees s; NULL-safe. */
void	 secret_free(char *s);

#endif

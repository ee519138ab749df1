/*
 * jseg.h - the journal's on-disk format, shared by its writer (journal.c)
 * and readers (journal_scan.c): the record encoding, the SHA-256 chain,
 * segment names and record-by-record reading, and the MANIFEST.  The
 * format is documented in docs/journal.md.  Internal to collector/store.
 */
#ifndef WP_JSEG_H
#define WP_JSEG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <openssl/evp.h>

#include "../lib/clock.h"
#include "../lib/err.h"
#include "../lib/sertext.h"
#include "../lib/wire.h"
#include "record.h"

#define HASH_LEN	32
#define SEG_HDR_LEN	56
#define FRAME_HDR_LEN	8
#define FRAME_VERSION	1	/* a record on its own (jseg.c) */
#define FRAME_VERSION2	2	/* against the segment's context (jcodec.c) */
#define FRAME_RECORD	1
#define SEG_VERSION	1	/* plain: frames with their chain hashes */
#define SEG_VERSION_Z	2	/* closed and compressed (jzst.c) */
#define SEG_ZHDR_LEN	(SEG_HDR_LEN + 8 + HASH_LEN)	/* + count, final */
#define BODY_MAX	(4u << 20)	/* bytes */
#define VALUES_MAX	8192
#define TARGET_MAX	255
#define ERROR_MAX	1023
#define NAME_MAX_WPJ	32
#define DEFAULT_RETENTION (90LL * 86400 * WP_SEC)	/* docs/journal.md */
#define DEFAULT_SEGMENT	(3600LL * WP_SEC)

/* Presence bits of a value's optional fields (docs/journal.md). */
#define P_RAW_VALUE	0x0001
#define P_RAW_UNIT	0x0002
#define P_RESOLUTION	0x0004
#define P_WRAP		0x0008
#define P_DEVICE_TIME	0x0010
#define P_RESET_TIME	0x0020
#define P_AVG_WINDOW	0x0040
#define P_T_REAL	0x0080
#define P_T_MONO	0x0100
#define P_LABELS	0x0200
#define P_DELTA		0x0400
#define P_CUM		0x0800
#define P_CTR_FLAGS	0x1000
#define P_LABELS_PREV	0x2000	/* labels as an edit of the previous value's */
#define P_ALL		0x3fff

enum mstate { M_OPEN, M_CLOSED, M_EXPIRED };

struct mentry {
	char		 name[NAME_MAX_WPJ];
	wp_time		 start;
	int		 state;		/* enum mstate */
	uint64_t	 count;
	uint8_t		 in[HASH_LEN], fin[HASH_LEN];
};

struct manifest {
	struct mentry	*e;
	size_t		 n, cap;
	uint8_t		 last[HASH_LEN];	/* hash of the last full line */
	size_t		 lines;
	off_t		 good_len;		/* bytes up to the last full line */
	bool		 partial;		/* a partial last line follows */
	bool		 exists;		/* the file exists */
};

/*
 * The version-2 record context of one segment (jcodec.c): per target, its
 * index in the segment and its previous record.  Built the same way by the
 * writer (jctx_commit after each append) and every reader (after each
 * record read), from the segment's first record on.  A reader keeps the
 * previous values whole (v: decoding copies from them); the writer's
 * context is compact (jctx_compact): per value only what the encoder
 * predicts from (struct jc_val, 48 bytes against 352), its strings in the
 * target's sertext (sertext.h: the record's own, held, when it has one,
 * which the target's last samples hold too), the numbers a poll's values
 * mostly share (resolution, wrap...) once for each run of values having
 * them (struct jc_rare), and encodes against that without expanding it.
 */
struct jc_val;
struct jc_rare;

struct jc_target {
	char		*name;		/* owned, at its size */
	char		*error;		/* owned; NULL: none ("") */
	bool		 seen;
	wp_time		 t_real, dt;	/* last t_real, and the step to it */
	wp_time		 off;		/* t_mono - t_real */
	wp_time		 duration;
	struct journal_value *v;	/* reader: the last record's values,
					   owned */
	struct jc_val	*cv;		/* writer: them compact, owned */
	struct jc_rare	*rare;		/* writer: their shared numbers, owned */
	uint32_t	 nrare, rcap;
	struct sertext	*text;		/* writer: cv's strings, held */
	size_t		 n, vcap;
};

struct jctx {
	wp_time		 seg_start;
	bool		 compact;	/* the writer's (jctx_compact) */
	struct jc_target *t;
	size_t		 n, cap;
	uint32_t	*slot;		/* name hash -> index + 1 */
	size_t		 scap;
	/* compact: what jctx_encode found unchanged in each value (its
	 * M_SAME_* bits) of the record it encoded last, and their presence
	 * bits, so that jctx_commit of that record keeps the strings it
	 * already has and computes no presence bits again */
	const struct journal_record *enc_r;	/* NULL: none */
	long		 enc_k;
	size_t		 enc_n;
	uint8_t		*enc_m;		/* owned, enc_mcap */
	uint16_t	*enc_p;		/* their presence bits, owned, enc_mcap */
	size_t		 enc_mcap;
};

struct seg_file {
	char	 name[NAME_MAX_WPJ];
	wp_time	 start;
};

/* A segment being read, record by record. */
struct seg_rd {
	FILE		*f;
	char		 name[NAME_MAX_WPJ];
	wp_time		 start, len;
	uint8_t		 in[HASH_LEN], h[HASH_LEN];
	uint8_t		*body;
	size_t		 cap;
	struct journal_value *v;
	size_t		 vcap;
	char		 target[TARGET_MAX + 1], error[ERROR_MAX + 1];
	struct journal_record rec;
	uint8_t		 rec_hash[HASH_LEN];
	uint64_t	 count;
	off_t		 good_end;
	EVP_MD_CTX	*md;
	struct jctx	 ctx;
	bool		 packed;	/* SEG_VERSION_Z: hashes not stored */
	uint64_t	 z_count;	/* packed: record count and */
	uint8_t		 z_fin[HASH_LEN];	/* final hash from the header */
	void		*z;		/* packed: the decompressor (jzst.c) */
};

enum { RD_RECORD = 1, RD_END = 0, RD_ERROR = -1, RD_TRUNCATED = 2 };

/* Appends r as a version-1 frame (no hash) to b (tests: old segments). */
int	 jseg_encode_record(struct wire_buf *b, const struct journal_record *r,
	    struct wp_err *err);
/* Ends the frame b holds (its body after FRAME_HDR_LEN bytes): the body
 * length patched in, or -1 with err (out of memory, over BODY_MAX). */
int	 jseg_frame_finish(struct wire_buf *b, struct wp_err *err);
/* Checks what both encodings refuse (target name, value count). 0/-1. */
int	 jseg_check_record(const struct journal_record *r, struct wp_err *err);
/* Shared by both encodings (docs/journal.md, presence bits, labels). */
uint16_t jseg_value_present(const struct journal_record *r,
	    const struct journal_value *v, bool edit);
bool	 jseg_labels_as_edit(const char *a, const char *b, size_t *pre,
	    size_t *suf);
void	 jseg_put_labels_edit(struct wire_buf *w, const char *b, size_t pre,
	    size_t suf);
void	 jseg_rd_labels_edit(struct wire_rd *d, const char *prev,
	    char out[WP_LABEL_MAX]);

/* Version-2 records (jcodec.c).  init/reset: an empty context for the
 * segment starting at seg_start (reset keeps it compact if it was); fini
 * frees it. */
void	 jctx_init(struct jctx *c, wp_time seg_start);
void	 jctx_reset(struct jctx *c, wp_time seg_start);
void	 jctx_fini(struct jctx *c);
/* Makes c a writer's context: the previous records it holds (a reader's,
 * on resume) and commits from now on kept compact.  It encodes and no
 * longer decodes.  0, or -1 (out of memory: c left empty, whole). */
int	 jctx_compact(struct jctx *c);
/* Encodes r as a version-2 frame (header + body, no hash) into b, against
 * a compact context (-1 with err otherwise).  Commit r (the same record,
 * unchanged) after the write: it reuses what the encoding found. */
int	 jctx_encode(struct jctx *c, struct wire_buf *b,
	    const struct journal_record *r, struct wp_err *err);
/* Decodes a version-2 body into r (strings in target, error; values in
 * *v, grown), against a reader's (whole) context.  0 or -1 (malformed). */
int	 jctx_decode(struct jctx *c, const uint8_t *body, size_t len,
	    struct journal_record *r, char target[TARGET_MAX + 1],
	    char error[ERROR_MAX + 1], struct journal_value **v, size_t *vcap);
/* Makes r (written or read) its target's previous record.  0 or -1. */
int	 jctx_commit(struct jctx *c, const struct journal_record *r);

/* Compression of a closed segment (jzst.c).  jzst_pack rewrites dir/name
 * (plain, chain starting at in, count records ending at fin) as
 * SEG_VERSION_Z via a temporary file and rename; 0, 1 (left plain: not a
 * plain segment whose chain matches), or -1 with err.  sync: fsync the
 * file and dir. */
int	 jzst_pack(const char *dir, const char *name, uint64_t count,
	    const uint8_t fin[HASH_LEN], bool sync, struct wp_err *err);
/* Wraps raw (positioned after the SEG_VERSION_Z header) in a reading
 * stream that decompresses; takes raw.  NULL on failure (raw closed). */
FILE	*jzst_reader(FILE *raw, void **state);
/* The decompressor's error for a failed read, or NULL. */
const char *jzst_error(void *state);
/* All n bytes of p to fd (EINTR retried).  0, or -1 with errno (EIO for
 * a write that makes no progress). */
int	 jseg_write_all(int fd, const void *p, size_t n);
/* A file written whole or not at all: fill(fd, arg) writes it (0, or -1
 * with errno) into path.tmp, fdatasync when sync, renamed to path;
 * path.tmp removed on failure.  0, or -1 with errno. */
int	 jseg_write_file(const char *path, bool sync,
	    int (*fill)(int fd, void *arg), void *arg);
struct jsum;
/*
 * s encoded (jsum_write, with fin and count as its segment's) into path,
 * then the trailer SHA-256(fin || bytes), as jseg_write_file writes, a
 * piece at a time: a fleet's summary is never held encoded.  file, when
 * not NULL, gets SHA-256 of the file (trailer included).  0, or -1 with
 * errno (no file left).
 */
int	 jseg_write_summary(struct jsum *s, const uint8_t fin[HASH_LEN],
	    uint64_t count, const char *path, bool sync,
	    uint8_t file[HASH_LEN]);
/* The SHA-256 of the file jseg_write_summary would write, into file,
 * nothing written.  0, or -1 (out of memory). */
int	 jseg_hash_summary(struct jsum *s, const uint8_t fin[HASH_LEN],
	    uint64_t count, uint8_t file[HASH_LEN]);
/* out = SHA-256(prev || p[0..n)).  0, or -1 (OpenSSL failed). */
int	 jseg_chain_hash(EVP_MD_CTX *md, const uint8_t prev[HASH_LEN],
	    const void *p, size_t n, uint8_t out[HASH_LEN]);
void	 jseg_hex(const uint8_t *h, char out[2 * HASH_LEN + 1]);
int	 jseg_unhex(const char *s, uint8_t out[HASH_LEN]);
/* Segment file names: YYYYMMDDTHH.wpj, or YYYYMMDDTHHMMSS.wpj when len
 * is not a whole hour. */
void	 jseg_name(wp_time start, wp_time len, char out[NAME_MAX_WPJ]);
int	 jseg_parse_name(const char *name, wp_time *start);
/* The segments in dir, oldest first; *out malloc'd (caller frees). */
int	 jseg_list(const char *dir, struct seg_file **out, size_t *n,
	    struct wp_err *err);
/* Reading a segment: init, open, next until not RD_RECORD, fini. */
int	 jseg_rd_init(struct seg_rd *sr, struct wp_err *err);
void	 jseg_rd_fini(struct seg_rd *sr);
/* jseg_open: errno ENOENT when the file is gone, ENODATA when its header
 * is not written whole yet (the newest segment, just created). */
int	 jseg_open(struct seg_rd *sr, const char *dir, const char *name,
	    struct wp_err *err);
int	 jseg_next(struct seg_rd *sr, struct wp_err *err);
/* The MANIFEST, read and checked line by line (absent: empty).  -1 with
 * err: a bad line, or a read error (never the lines before it as all). */
int	 jseg_manifest_read(const char *dir, struct manifest *m,
	    struct wp_err *err);
int	 jseg_manifest_apply(struct manifest *m, const char *verb, const char *name,
	    uint64_t count, const uint8_t in[HASH_LEN], const uint8_t fin[HASH_LEN]);
struct mentry *jseg_manifest_find(struct manifest *m, const char *name);
void	 jseg_manifest_fini(struct manifest *m);

#endif

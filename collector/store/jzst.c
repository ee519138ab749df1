/*
 * jzst.c - compression of closed journal segments with libzstd (jseg.h,
 * docs/journal.md "Compressed segments").  A closed segment is rewritten
 * as a SEG_VERSION_Z file: its header (version 2), its record count and
 * final chain hash, then one zstd frame (with its content checksum) of
 * the record frames without their stored hashes.  The chain is over the
 * uncompressed frames, as in a plain segment, so compressing changes no
 * hash: a reader recomputes each record's and compares the last with the
 * header and the MANIFEST.  libzstd is used only here.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "jseg.h"

#define ZLEVEL		3	/* docs/benchmarks.md: size and CPU */
#define ZBUF		(128u << 10)

/* ---- reading ---- */

struct zrd {
	FILE		*raw;
	ZSTD_DCtx	*dc;
	uint8_t		*in;
	ZSTD_inBuffer	 ib;
	size_t		 last;		/* ZSTD_decompressStream's hint */
	bool		 eof;
	const char	*error;
};

static ssize_t
zrd_read(void *cookie, char *buf, size_t size)
{
	struct zrd *z = cookie;
	ZSTD_outBuffer ob = { buf, size, 0 };
	size_t n, ret;

	for (;;) {
		if (z->ib.pos == z->ib.size && !z->eof) {
			n = fread(z->in, 1, ZBUF, z->raw);
			if (n == 0) {
				if (ferror(z->raw)) {
					z->error = "read error";
					errno = EIO;
					return -1;
				}
				z->eof = true;
			}
			z->ib.src = z->in;
			z->ib.size = n;
			z->ib.pos = 0;
		}
		if (z->ib.pos == z->ib.size && z->eof) {
			if (z->last != 0 && ob.pos == 0) {
				z->error = "truncated";
				errno = EIO;
				return -1;
			}
			return (ssize_t)ob.pos;
		}
		ret = ZSTD_decompressStream(z->dc, &ob, &z->ib);
		if (ZSTD_isError(ret)) {
			z->error = ZSTD_getErrorName(ret);
			errno = EIO;
			return -1;
		}
		z->last = ret;
		if (ob.pos == ob.size || (ob.pos > 0 && ret == 0))
			return (ssize_t)ob.pos;
	}
}

static int
zrd_close(void *cookie)
{
	struct zrd *z = cookie;

	fclose(z->raw);
	ZSTD_freeDCtx(z->dc);
	free(z->in);
	free(z);
	return 0;
}

FILE *
jzst_reader(FILE *raw, void **state)
{
	cookie_io_functions_t io = { .read = zrd_read, .close = zrd_close };
	struct zrd *z = calloc(1, sizeof(*z));
	FILE *f;

	*state = NULL;
	if (z == NULL || (z->dc = ZSTD_createDCtx()) == NULL ||
	    (z->in = malloc(ZBUF)) == NULL) {
		if (z)
			ZSTD_freeDCtx(z->dc);
		free(z);
		fclose(raw);
		return NULL;
	}
	z->raw = raw;
	z->last = 1;	/* a frame is due */
	if ((f = fopencookie(z, "rb", io)) == NULL) {
		zrd_close(z);
		return NULL;
	}
	*state = z;
	return f;
}

const char *
jzst_error(void *state)
{
	return state ? ((struct zrd *)state)->error : NULL;
}

/* ---- packing ---- */

struct zwr {
	ZSTD_CCtx	*cc;
	uint8_t		*out;
	int		 fd;
};

/* Feeds n bytes (end: the last, finishing the frame) to the compressor. */
static int
zwr_put(struct zwr *w, const void *p, size_t n, bool end)
{
	ZSTD_inBuffer ib = { p, n, 0 };
	ZSTD_outBuffer ob;
	size_t left;

	do {
		ob.dst = w->out;
		ob.size = ZBUF;
		ob.pos = 0;
		left = ZSTD_compressStream2(w->cc, &ob, &ib, end ? ZSTD_e_end :
		    ZSTD_e_continue);
		if (ZSTD_isError(left) || jseg_write_all(w->fd, w->out, ob.pos) != 0)
			return -1;
	} while (end ? left != 0 : ib.pos < ib.size);
	return 0;
}

/*
 * Copies the frames of plain segment f (after its header, chain from in)
 * into w without their hashes, checking each hash.  0, 1 (the chain or
 * the count does not match: left as it is), or -1 (I/O).
 */
static int
pack_frames(FILE *f, const uint8_t in[HASH_LEN], uint64_t count,
    const uint8_t fin[HASH_LEN], struct zwr *w)
{
	uint8_t fh[FRAME_HDR_LEN], stored[HASH_LEN], h[HASH_LEN], *body = NULL;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	size_t len, cap = 0;
	uint64_t n = 0;
	int rc = 1;

	memcpy(h, in, HASH_LEN);
	if (md == NULL)
		return -1;
	while (fread(fh, 1, FRAME_HDR_LEN, f) == FRAME_HDR_LEN) {
		len = (size_t)wire_get_le(fh + 4, 4) + FRAME_HDR_LEN;
		if (len > BODY_MAX + FRAME_HDR_LEN)
			goto out;
		if (len > cap) {
			uint8_t *nb = realloc(body, len);

			if (nb == NULL) {
				rc = -1;
				goto out;
			}
			body = nb;
			cap = len;
		}
		memcpy(body, fh, FRAME_HDR_LEN);
		if (fread(body + FRAME_HDR_LEN, 1, len - FRAME_HDR_LEN, f) !=
		    len - FRAME_HDR_LEN || fread(stored, 1, HASH_LEN, f) !=
		    HASH_LEN || jseg_chain_hash(md, h, body, len, h) != 0 ||
		    memcmp(h, stored, HASH_LEN) != 0)
			goto out;
		if (zwr_put(w, body, len, false) != 0) {
			rc = -1;
			goto out;
		}
		n++;
	}
	if (ferror(f))
		rc = -1;
	else if (n == count && memcmp(h, fin, HASH_LEN) == 0)
		rc = zwr_put(w, NULL, 0, true) == 0 ? 0 : -1;
out:
	free(body);
	EVP_MD_CTX_free(md);
	return rc;
}

static int
fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Writes the SEG_VERSION_Z header for plain header h to fd. */
static int
put_header(int fd, const uint8_t h[SEG_HDR_LEN], uint64_t count,
    const uint8_t fin[HASH_LEN])
{
	uint8_t zh[SEG_ZHDR_LEN];
	int i;

	memcpy(zh, h, SEG_HDR_LEN);
	zh[4] = SEG_VERSION_Z;
	for (i = 0; i < 8; i++)
		zh[SEG_HDR_LEN + i] = (uint8_t)(count >> (8 * i));
	memcpy(zh + SEG_HDR_LEN + 8, fin, HASH_LEN);
	return jseg_write_all(fd, zh, sizeof(zh));
}

int
jzst_pack(const char *dir, const char *name, uint64_t count,
    const uint8_t fin[HASH_LEN], bool sync, struct wp_err *err)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	uint8_t h[SEG_HDR_LEN];
	struct zwr w = { 0 };
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.z", dir, name);
	if ((f = fopen(path, "rb")) == NULL)
		return err_set(err, WP_E_TRANSIENT, "%s: %s", path,
		    strerror(errno));
	if (fread(h, 1, SEG_HDR_LEN, f) != SEG_HDR_LEN ||
	    memcmp(h, "WPJS", 4) != 0 || h[4] != SEG_VERSION) {
		fclose(f);
		return 1;
	}
	w.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	w.cc = ZSTD_createCCtx();
	w.out = malloc(ZBUF);
	if (w.fd < 0 || w.cc == NULL || w.out == NULL ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w.cc, ZSTD_c_compressionLevel,
	    ZLEVEL)) || ZSTD_isError(ZSTD_CCtx_setParameter(w.cc,
	    ZSTD_c_checksumFlag, 1)) || put_header(w.fd, h, count, fin) != 0)
		goto out;
	rc = pack_frames(f, h + 24, count, fin, &w);
	if (rc == 0 && sync && fsync(w.fd) != 0)
		rc = -1;
	if (close(w.fd) != 0 && rc == 0)
		rc = -1;
	w.fd = -1;
	if (rc == 0 && (rename(tmp, path) != 0 ||
	    (sync && fsync_dir(dir) != 0)))
		rc = -1;
out:
	if (rc != 0 && rc != 1)
		err_set(err, WP_E_TRANSIENT, "journal: compressing %s: %s",
		    name, strerror(errno ? errno : EIO));
	if (w.fd >= 0)
		close(w.fd);
	if (rc != 0)
		unlink(tmp);
	fclose(f);
	ZSTD_freeCCtx(w.cc);
	free(w.out);
	return rc;
}

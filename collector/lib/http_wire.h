/*
 * http_wire.h - HTTP/1.1 on the wire, pure: the bytes of a request, and a
 * streaming parser of the response (status line, headers, a body framed by
 * Content-Length, chunked encoding or the end of the connection).  No I/O:
 * http.c feeds it what it receives on libcurl's connection.
 *
 * The parser takes bytes as they arrive (any split), skips interim 1xx
 * responses, enforces caps on the header block and the body, decodes
 * chunked bodies, and tells whether the connection may be used again.
 * Every refusal is an error message; nothing it is given can make it read
 * out of bounds or allocate past its caps.
 */
#ifndef WP_HTTP_WIRE_H
#define WP_HTTP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer, always NUL-terminated past len when p != NULL. */
struct wbuf {
	char	*p;
	size_t	 len, cap;
};

int	 wbuf_add(struct wbuf *b, const void *p, size_t n);	/* 0 or -1 */
void	 wbuf_free(struct wbuf *b);

struct http_wire_req {
	const char	*method;	/* "GET", "POST", "DELETE"... */
	const char	*target;	/* origin form: "/path?query" */
	const char	*host;		/* Host header value: "h", "h:port" */
	const char *const *headers;	/* "Name: value", NULL-ended, or NULL */
	const char	*basic_user;	/* HTTP Basic when non-NULL */
	const char	*basic_password;
	const char	*body;		/* or NULL */
	size_t		 body_len;
	const char	*content_type;	/* for body; default application/json */
	const char	*user_agent;	/* or NULL */
};

/*
 * Appends the request's bytes to out.  Returns 0, or -1 with a message in
 * msg (a header or target holding CR, LF or NUL, or out of memory).
 */
int	 http_wire_request(struct wbuf *out, const struct http_wire_req *r,
	    char *msg, size_t msglen);

enum { HTTP_RX_MORE, HTTP_RX_DONE, HTTP_RX_ERROR };

struct http_rx {
	/* set before the first byte */
	size_t		 max_head;	/* header block cap (bytes) */
	size_t		 max_body;	/* decoded body cap (bytes) */
	bool		 no_body;	/* a HEAD request: no body follows */
	/* results */
	long		 status;	/* final status, once headers are in */
	bool		 keep_alive;	/* the connection may carry another */
	struct wbuf	 head;		/* final header block, NUL-terminated */
	struct wbuf	 body;		/* decoded body, NUL-terminated */
	size_t		 received;	/* bytes fed so far */
	char		 msg[160];	/* why HTTP_RX_ERROR */
	/* parser state */
	int		 st;
	int		 minor;		/* HTTP/1.minor */
	bool		 chunked, until_eof, conn_close, conn_keep;
	int64_t		 length;	/* Content-Length, -1 none */
	uint64_t	 left;		/* body or chunk bytes still to come */
	size_t		 ls;		/* header block: current line start */
	char		 line[256];	/* chunk-size line */
	size_t		 nline;
	size_t		 trailer;	/* trailer bytes, counted against max_head */
};

/* Starts a parse; rx is zeroed or was initialised before (its buffers
 * are freed). */
void	 http_rx_init(struct http_rx *rx, size_t max_head, size_t max_body,
	    bool no_body);
void	 http_rx_free(struct http_rx *rx);

/*
 * Feeds n received bytes.  Returns HTTP_RX_MORE (wants more), HTTP_RX_DONE
 * (a whole response; bytes past it make keep_alive false) or HTTP_RX_ERROR
 * (msg says why; the connection must be closed).
 */
int	 http_rx_feed(struct http_rx *rx, const char *p, size_t n);
/* The peer closed the connection: DONE for a body that ends there, else
 * ERROR. */
int	 http_rx_eof(struct http_rx *rx);

/* Base64 (RFC 4648) of n bytes into out (4 * ceil(n / 3) + 1 bytes). */
void	 http_base64(const unsigned char *in, size_t n, char *out);

#endif

/*
 * sim_tls.c - CA and leaf certificate generation with OpenSSL 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "sim_tls.h"

/* Caller frees with EVP_PKEY_free. */
static EVP_PKEY *
new_key(void)
{
	return EVP_EC_gen("P-256");
}

static int
add_ext(X509 *issuer, X509 *cert, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int rc;

	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	if ((ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value)) == NULL)
		return -1;
	rc = X509_add_ext(cert, ext, -1) == 1 ? 0 : -1;
	X509_EXTENSION_free(ext);
	return rc;
}

/* An unsigned certificate for key, issued by ca (itself if NULL). */
static X509 *
new_cert(EVP_PKEY *key, X509 *ca, const char *cn, long serial)
{
	X509 *x;
	X509_NAME *name;

	if ((x = X509_new()) == NULL)
		return NULL;
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 30L * 86400);
	X509_set_pubkey(x, key);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
	    (const unsigned char *)"wattpath-sim", -1, -1, 0);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, ca != NULL ? X509_get_subject_name(ca) : name);
	return x;
}

/* PEM text of a key or a certificate; caller frees. */
static char *
to_pem(EVP_PKEY *key, X509 *cert)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data, *out = NULL;
	long len;
	int ok;

	if (b == NULL)
		return NULL;
	ok = key != NULL ? PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0,
	    NULL, NULL) : PEM_write_bio_X509(b, cert);
	len = BIO_get_mem_data(b, &data);
	if (ok == 1 && len > 0 && (out = malloc(len + 1)) != NULL) {
		memcpy(out, data, len);
		out[len] = '\0';
	}
	BIO_free(b);
	return out;
}

static int
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (f == NULL)
		return -1;
	rc = fputs(text, f) < 0 ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static int
make_ca(EVP_PKEY **ca_key, X509 **ca)
{
	if ((*ca_key = new_key()) == NULL ||
	    (*ca = new_cert(*ca_key, NULL, "wattpath-sim CA", 1)) ==
	    NULL)
		return -1;
	if (add_ext(*ca, *ca, NID_basic_constraints, "critical,CA:TRUE") ||
	    add_ext(*ca, *ca, NID_key_usage, "critical,keyCertSign,cRLSign") ||
	    add_ext(*ca, *ca, NID_subject_key_identifier, "hash"))
		return -1;
	return X509_sign(*ca, *ca_key, EVP_sha256()) > 0 ? 0 : -1;
}

int
sim_tls_leaf_der(const struct sim_tls *t, uint32_t addr, long serial,
    unsigned char **der)
{
	X509 *leaf;
	char san[40];
	int len = -1;

	*der = NULL;
	snprintf(san, sizeof(san), "IP:%u.%u.%u.%u", addr >> 24,
	    (addr >> 16) & 255, (addr >> 8) & 255, addr & 255);
	if ((leaf = new_cert(t->leaf_key, t->ca, san + 3, serial)) == NULL)
		return -1;
	if (add_ext(t->ca, leaf, NID_subject_alt_name, san) == 0 &&
	    add_ext(t->ca, leaf, NID_basic_constraints, "CA:FALSE") == 0 &&
	    add_ext(t->ca, leaf, NID_ext_key_usage, "serverAuth") == 0 &&
	    X509_sign(leaf, t->ca_key, EVP_sha256()) > 0)
		len = i2d_X509(leaf, der);
	X509_free(leaf);
	return len > 0 ? len : -1;
}

int
sim_tls_init(struct sim_tls *t, const char *ca_path, char *err,
    size_t errlen)
{
	EVP_PKEY *ca_key = NULL;
	X509 *ca = NULL;
	char *ca_pem = NULL;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (make_ca(&ca_key, &ca) == -1 || (t->leaf_key = new_key()) == NULL) {
		snprintf(err, errlen, "certificate generation failed");
		goto out;
	}
	t->ca_key = ca_key;
	t->ca = ca;
	ca_key = NULL;
	ca = NULL;
	ca_pem = to_pem(NULL, t->ca);
	t->key_pem = to_pem(t->leaf_key, NULL);
	if (ca_pem == NULL || t->key_pem == NULL) {
		snprintf(err, errlen, "PEM encoding failed");
		goto out;
	}
	if (write_file(ca_path, ca_pem) == -1) {
		snprintf(err, errlen, "cannot write %s", ca_path);
		goto out;
	}
	rc = 0;
out:
	free(ca_pem);
	EVP_PKEY_free(ca_key);
	X509_free(ca);
	if (rc == -1)
		sim_tls_fini(t);
	return rc;
}

void
sim_tls_fini(struct sim_tls *t)
{
	EVP_PKEY_free(t->ca_key);
	EVP_PKEY_free(t->leaf_key);
	X509_free(t->ca);
	free(t->key_pem);
	memset(t, 0, sizeof(*t));
}

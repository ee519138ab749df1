/*
 * sim_tls.h - a throwaway CA and a server certificate for the simulator.
 *
 * The simulator serves HTTPS like a real BMC.  At start it makes an EC
 * P-256 CA (written to a file for the collector's ca_file) and one leaf
 * key.  Each BMC gets its own certificate, made on first use, whose
 * subjectAltName is that BMC's IP address (so curl's normal host
 * verification passes and a handshake carries one small certificate even
 * with 10,000 BMCs); the HTTPS server picks it by the connection's local
 * address.
 */
#ifndef SIM_TLS_H
#define SIM_TLS_H

#include <stddef.h>
#include <stdint.h>

struct sim_tls {
	void	*ca_key, *ca, *leaf_key;	/* OpenSSL objects */
	char	*key_pem;	/* the leaf private key, PEM */
};

/*
 * Makes the CA and the leaf key; writes the CA PEM to ca_path.  Returns 0,
 * or -1 with a message in err.  Caller frees with sim_tls_fini.
 */
int	 sim_tls_init(struct sim_tls *t, const char *ca_path, char *err,
	    size_t errlen);
/*
 * A certificate (DER) for the leaf key naming IP address addr (host
 * order), signed by the CA.  Returns its length and sets *der (caller
 * frees with free), or -1.  Thread-safe.
 */
int	 sim_tls_leaf_der(const struct sim_tls *t, uint32_t addr, long serial,
	    unsigned char **der);
void	 sim_tls_fini(struct sim_tls *t);

#endif

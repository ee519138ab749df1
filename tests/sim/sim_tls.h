/*
 * sim_tls.h - a throwaway CA and a server certificate for the simulator.
 *
 * The simulator serves HTTPS like a real BMC.  At start it makes an EC
 * P-256 CA and a leaf certificate whose subjectAltName lists every IP
 * address it serves (so curl's normal host verification passes), writes
 * the CA certificate to a file for the collector's ca_file, and hands the
 * leaf key and certificate (PEM) to libmicrohttpd in memory.
 */
#ifndef SIM_TLS_H
#define SIM_TLS_H

#include <stddef.h>
#include <stdint.h>

struct sim_tls {
	char	*key_pem;	/* leaf private key */
	char	*cert_pem;	/* leaf certificate */
};

/*
 * Makes the CA and a leaf for addrs (IPv4, host order); writes the CA PEM
 * to ca_path.  Returns 0, or -1 with a message in err.  Caller frees the
 * result with sim_tls_fini.
 */
int	 sim_tls_init(struct sim_tls *t, const uint32_t *addrs, size_t n,
	    const char *ca_path, char *err, size_t errlen);
void	 sim_tls_fini(struct sim_tls *t);

#endif

/* OpenSSL, loaded with dlopen when the broker first needs it (egress only):
 * linked in, libssl and libcrypto cost every revrun command ~3 ms of
 * relocations and ~130 page faults at start-up (full RELRO binds every
 * symbol then), which `revrun diff` on a small change set must not pay.
 * Loaded before the broker confines itself (egress_broker_new), from the
 * host's library path, with RTLD_NOW: every symbol below is bound at load.
 *
 * Files of egress/ include this header instead of <openssl/...>: it maps
 * each OpenSSL name they call onto the table, so the code reads as plain
 * OpenSSL. A name called but missing from the table fails the link (revrun
 * no longer links libssl), and one in the table that OpenSSL lacks fails
 * the load with its name. */
#ifndef REVRUN_EGRESS_OSSL_H
#define REVRUN_EGRESS_OSSL_H

#include <stdbool.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "common/error.h"

#define EG_OSSL_FUNCS(X)                                                                           \
    X(ERR_clear_error)                                                                             \
    X(ERR_get_error)                                                                               \
    X(ERR_reason_error_string)                                                                     \
    X(EVP_Digest)                                                                                  \
    X(EVP_EncodeBlock)                                                                             \
    X(EVP_sha1)                                                                                    \
    X(SSL_CTX_ctrl)                                                                                \
    X(SSL_CTX_free)                                                                                \
    X(SSL_CTX_load_verify_locations)                                                               \
    X(SSL_CTX_new)                                                                                 \
    X(SSL_CTX_set_default_verify_paths)                                                            \
    X(SSL_CTX_set_options)                                                                         \
    X(SSL_CTX_set_verify)                                                                          \
    X(SSL_SESSION_free)                                                                            \
    X(SSL_SESSION_is_resumable)                                                                    \
    X(SSL_SESSION_up_ref)                                                                          \
    X(SSL_connect)                                                                                 \
    X(SSL_ctrl)                                                                                    \
    X(SSL_free)                                                                                    \
    X(SSL_get0_param)                                                                              \
    X(SSL_get0_peer_certificate)                                                                   \
    X(SSL_get1_session)                                                                            \
    X(SSL_get_error)                                                                               \
    X(SSL_get_verify_result)                                                                       \
    X(SSL_new)                                                                                     \
    X(SSL_read)                                                                                    \
    X(SSL_set1_host)                                                                               \
    X(SSL_set_fd)                                                                                  \
    X(SSL_set_hostflags)                                                                           \
    X(SSL_set_session)                                                                             \
    X(SSL_write)                                                                                   \
    X(TLS_client_method)                                                                           \
    X(X509_VERIFY_PARAM_set1_ip_asc)                                                               \
    X(X509_verify_cert_error_string)

struct eg_ossl {
#define EG_OSSL_FIELD(name) __typeof__(name) *name;
    EG_OSSL_FUNCS(EG_OSSL_FIELD)
#undef EG_OSSL_FIELD
};

extern struct eg_ossl eg_ossl_table;

/* Load it once per process (later calls return at once). */
int eg_ossl_load(struct rr_error *err);
bool eg_ossl_loaded(void);

#ifndef EG_OSSL_TABLE_ITSELF
#define ERR_clear_error (eg_ossl_table.ERR_clear_error)
#define ERR_get_error (eg_ossl_table.ERR_get_error)
#define ERR_reason_error_string (eg_ossl_table.ERR_reason_error_string)
#define EVP_Digest (eg_ossl_table.EVP_Digest)
#define EVP_EncodeBlock (eg_ossl_table.EVP_EncodeBlock)
#define EVP_sha1 (eg_ossl_table.EVP_sha1)
#define SSL_CTX_ctrl (eg_ossl_table.SSL_CTX_ctrl)
#define SSL_CTX_free (eg_ossl_table.SSL_CTX_free)
#define SSL_CTX_load_verify_locations (eg_ossl_table.SSL_CTX_load_verify_locations)
#define SSL_CTX_new (eg_ossl_table.SSL_CTX_new)
#define SSL_CTX_set_default_verify_paths (eg_ossl_table.SSL_CTX_set_default_verify_paths)
#define SSL_CTX_set_options (eg_ossl_table.SSL_CTX_set_options)
#define SSL_CTX_set_verify (eg_ossl_table.SSL_CTX_set_verify)
#define SSL_SESSION_free (eg_ossl_table.SSL_SESSION_free)
#define SSL_SESSION_is_resumable (eg_ossl_table.SSL_SESSION_is_resumable)
#define SSL_SESSION_up_ref (eg_ossl_table.SSL_SESSION_up_ref)
#define SSL_connect (eg_ossl_table.SSL_connect)
#define SSL_ctrl (eg_ossl_table.SSL_ctrl)
#define SSL_free (eg_ossl_table.SSL_free)
#define SSL_get0_param (eg_ossl_table.SSL_get0_param)
#define SSL_get0_peer_certificate (eg_ossl_table.SSL_get0_peer_certificate)
#define SSL_get1_session (eg_ossl_table.SSL_get1_session)
#define SSL_get_error (eg_ossl_table.SSL_get_error)
#define SSL_get_verify_result (eg_ossl_table.SSL_get_verify_result)
#define SSL_new (eg_ossl_table.SSL_new)
#define SSL_read (eg_ossl_table.SSL_read)
#define SSL_set1_host (eg_ossl_table.SSL_set1_host)
#define SSL_set_fd (eg_ossl_table.SSL_set_fd)
#define SSL_set_hostflags (eg_ossl_table.SSL_set_hostflags)
#define SSL_set_session (eg_ossl_table.SSL_set_session)
#define SSL_write (eg_ossl_table.SSL_write)
#define TLS_client_method (eg_ossl_table.TLS_client_method)
#define X509_VERIFY_PARAM_set1_ip_asc (eg_ossl_table.X509_VERIFY_PARAM_set1_ip_asc)
#define X509_verify_cert_error_string (eg_ossl_table.X509_verify_cert_error_string)
#endif

#endif

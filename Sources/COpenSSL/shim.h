#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Macros Swift cannot import, as functions. */

static inline int COpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline int COpenSSL_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

static inline long COpenSSL_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

/* No TLS compression (CRIME), the server's cipher order, no renegotiation. SSL_OP_* are built by a
   macro Swift cannot import. */
static inline void COpenSSL_SSL_CTX_set_server_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION);
}

/* A client reads responses framed by HTTP (Content-Length, chunks), so a peer that closes without
   close_notify after its last byte, as many HTTP/1.1 servers do on "Connection: close", ends the stream
   instead of failing it. */
static inline void COpenSSL_SSL_CTX_set_client_options(SSL_CTX *ctx) {
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
#else
    (void)ctx;
#endif
}

static inline void COpenSSL_X509V3_set_ctx_nodb(X509V3_CTX *ctx) {
    X509V3_set_ctx_nodb(ctx);
}

static inline void COpenSSL_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

/* ALPN: the server speaks HTTP/1.1 only. A client offering no http/1.1 gets no ALPN answer and
   proceeds without ALPN, as RFC 7301 §3.2 allows. */
static int COpenSSL_select_http11(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                  const unsigned char *in, unsigned int inlen, void *arg) {
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char *selected = NULL;
    (void)ssl;
    (void)arg;
    if (SSL_select_next_proto(&selected, outlen, http11, sizeof(http11), in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

static inline void COpenSSL_SSL_CTX_use_http11_alpn(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, COpenSSL_select_http11, NULL);
}

/* SNI for a client connection (a macro over SSL_ctrl). */
static inline int COpenSSL_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

#endif

#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H

#include <string.h>
#include <nghttp2/nghttp2.h>

/* The calls whose signatures changed in nghttp2 1.60 (ssize_t became nghttp2_ssize, and the old forms
   are deprecated there), behind one name each, so the Swift side compiles against Debian 12's 1.52 and
   Homebrew's current release alike. */

#if NGHTTP2_VERSION_NUM >= 0x013c00
typedef nghttp2_ssize CNGHTTP2_ssize;
#else
typedef ssize_t CNGHTTP2_ssize;
#endif

/* The bytes nghttp2 wants sent next; 0 when there are none, negative on error. */
static inline long CNGHTTP2_mem_send(nghttp2_session *session, const uint8_t **data) {
#if NGHTTP2_VERSION_NUM >= 0x013c00
    return (long)nghttp2_session_mem_send2(session, data);
#else
    return (long)nghttp2_session_mem_send(session, data);
#endif
}

/* Feeds received bytes; the count consumed, negative on a protocol error. */
static inline long CNGHTTP2_mem_recv(nghttp2_session *session, const uint8_t *data, size_t length) {
#if NGHTTP2_VERSION_NUM >= 0x013c00
    return (long)nghttp2_session_mem_recv2(session, data, length);
#else
    return (long)nghttp2_session_mem_recv(session, data, length);
#endif
}

/* A request body, owned by the caller until the stream has closed or the session is deleted; nghttp2
   reads it out from `offset`. */
typedef struct {
    const uint8_t *bytes;
    size_t length;
    size_t offset;
} CNGHTTP2_body;

static inline CNGHTTP2_ssize CNGHTTP2_read_body(nghttp2_session *session, int32_t stream_id, uint8_t *buffer,
                                         size_t length, uint32_t *flags, nghttp2_data_source *source,
                                         void *user_data) {
    CNGHTTP2_body *body = (CNGHTTP2_body *)source->ptr;
    size_t count = body->length - body->offset;
    (void)session;
    (void)stream_id;
    (void)user_data;
    if (count > length) count = length;
    if (count > 0) memcpy(buffer, body->bytes + body->offset, count);
    body->offset += count;
    if (body->offset == body->length) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (CNGHTTP2_ssize)count;
}

/* Submits a request, with `body` unless it is NULL; the new stream's id, or a negative nghttp2 error
   code. The header names and values are copied by nghttp2. */
static inline int32_t CNGHTTP2_submit_request(nghttp2_session *session, const nghttp2_nv *headers,
                                              size_t count, CNGHTTP2_body *body) {
#if NGHTTP2_VERSION_NUM >= 0x013c00
    nghttp2_data_provider2 provider;
#else
    nghttp2_data_provider provider;
#endif
    if (body == NULL) {
#if NGHTTP2_VERSION_NUM >= 0x013c00
        return nghttp2_submit_request2(session, NULL, headers, count, NULL, NULL);
#else
        return nghttp2_submit_request(session, NULL, headers, count, NULL, NULL);
#endif
    }
    provider.source.ptr = body;
    provider.read_callback = CNGHTTP2_read_body;
#if NGHTTP2_VERSION_NUM >= 0x013c00
    return nghttp2_submit_request2(session, NULL, headers, count, &provider, NULL);
#else
    return nghttp2_submit_request(session, NULL, headers, count, &provider, NULL);
#endif
}

/* The stream id of a frame (nghttp2_frame is a union Swift reads awkwardly). */
static inline int32_t CNGHTTP2_frame_stream_id(const nghttp2_frame *frame) { return frame->hd.stream_id; }

/* Whether a frame ends its stream (HEADERS or DATA with END_STREAM): for a sent frame, the request is
   complete once its bytes are written. */
static inline int CNGHTTP2_frame_ends_stream(const nghttp2_frame *frame) {
    return (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA)
        && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
}

/* Whether a received frame is a GOAWAY: the server will take no new streams on this connection. */
static inline int CNGHTTP2_frame_is_goaway(const nghttp2_frame *frame) { return frame->hd.type == NGHTTP2_GOAWAY; }

/* Whether a received frame is the acknowledgement of a PING this side sent. */
static inline int CNGHTTP2_frame_is_ping_ack(const nghttp2_frame *frame) {
    return frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK) != 0;
}

#endif

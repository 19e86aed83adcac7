import COpenSSL
package import CampaignMockSystem

/// One TLS server session, driven through memory buffers: the connection feeds it the bytes it read
/// from the socket and sends whatever it produces, so TLS is a transformation of bytes and the socket
/// code stays the same for both schemes. Owned by one connection, on one event-loop thread.
package final class TLSSession {
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private var scratch = [UInt8](repeating: 0, count: 16384)

    /// Whether the handshake finished (application data may flow).
    package private(set) var isHandshakeComplete = false
    /// Whether the client sent close_notify.
    package private(set) var receivedCloseNotify = false

    package init(context: TLSContext) throws(TLSError) {
        guard let ssl = SSL_new(context.handle) else { throw TLSError("SSL_new") }
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw TLSError("BIO_new")
        }
        // An empty input buffer means "wait for more", not end of stream (BIO_set_mem_eof_return).
        _ = BIO_ctrl(incoming, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        _ = BIO_ctrl(outgoing, BIO_C_SET_BUF_MEM_EOF_RETURN, -1, nil)
        SSL_set_bio(ssl, incoming, outgoing)  // the session now owns both buffers
        SSL_set_accept_state(ssl)
        self.ssl = ssl
        self.incoming = incoming
        self.outgoing = outgoing
    }

    deinit {
        SSL_free(ssl)
    }

    /// Takes bytes read from the socket; returns the application data they completed (often none
    /// during the handshake). Afterwards, ``takeOutput()`` holds what must be sent back.
    ///
    /// - Throws: ``TLSError`` for a failed handshake or a broken record; the connection must close.
    package func receive(_ ciphertext: UnsafeRawBufferPointer) throws(TLSError) -> [UInt8] {
        if ciphertext.count > 0 {
            guard BIO_write(incoming, ciphertext.baseAddress, Int32(ciphertext.count)) == ciphertext.count else {
                throw TLSError("buffering received bytes")
            }
        }
        if !isHandshakeComplete {
            let result = SSL_do_handshake(ssl)
            if result != 1 {
                try check(result, "TLS handshake")
                return []
            }
            isHandshakeComplete = true
        }
        var plaintext: [UInt8] = []
        while true {
            let count = scratch.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext.append(contentsOf: scratch[0..<Int(count)])
                continue
            }
            if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN {
                receivedCloseNotify = true
                return plaintext
            }
            try check(count, "TLS read")
            return plaintext
        }
    }

    /// Encrypts `plaintext` and returns the records to send (with anything else pending).
    package func encrypt(_ plaintext: [UInt8]) throws(TLSError) -> [UInt8] {
        var offset = 0
        while offset < plaintext.count {
            let written = plaintext.withUnsafeBytes {
                SSL_write(ssl, $0.baseAddress! + offset, Int32($0.count - offset))
            }
            guard written > 0 else {
                try check(written, "TLS write")
                break
            }
            offset += Int(written)
        }
        return takeOutput()
    }

    /// The close_notify alert, to send before closing a connection whose handshake completed.
    package func closeNotify() -> [UInt8] {
        guard isHandshakeComplete else { return [] }
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        return takeOutput()
    }

    /// Everything the session produced and has not been sent yet (handshake messages, tickets, alerts).
    package func takeOutput() -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(outgoing))
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32(pending)) }
        return read > 0 ? Array(bytes[0..<Int(read)]) : []
    }

    /// The protocol version, e.g. `TLSv1.3`, once the handshake completed.
    package var protocolVersion: String {
        String(cString: SSL_get_version(ssl))
    }

    /// Wants-more results are fine; anything else is a failure.
    private func check(_ result: Int32, _ operation: String) throws(TLSError) {
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
        throw TLSError(operation)
    }
}

@available(*, unavailable)
extension TLSSession: Sendable {}

import Testing

@testable import CampaignMockNetwork

/// A server's frames, handed out one per read; what the client writes is kept.
private final class FrameServer: HTTP2Transport {
    private var frames: [[UInt8]]
    private(set) var written: [UInt8] = []

    init(_ frames: [[UInt8]]) {
        self.frames = frames
    }

    func writeAll(_ bytes: [UInt8]) { written += bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !frames.isEmpty else { return 0 }
        let frame = frames.removeFirst()
        buffer.copyBytes(from: frame)
        return frame.count
    }

    func close() {}
}

/// An HTTP/2 frame (RFC 9113 §4.1).
private func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
    let length = UInt32(payload.count)
    return [UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags]
        + [UInt8(stream >> 24), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
}

/// An HPACK field with a new name, not Huffman-coded (RFC 7541 §6.2.2).
private func literal(_ name: String, _ value: String) -> [UInt8] {
    [0, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
}

private let settings = frame(4)
private let settingsAcknowledged = frame(4, flags: 1)
private let endStream: UInt8 = 1
private let endHeaders: UInt8 = 4

@Suite("HTTP/2 client over a transport")
struct HTTP2ConnectionTests {
    @Test func theAnswerIsReadFromTheServersFrames() throws {
        let reason = Array(#"{"reason":"BadDeviceToken"}"#.utf8)
        let server = FrameServer([
            settings, settingsAcknowledged,
            // :status 400 is entry 12 of HPACK's static table.
            frame(1, flags: endHeaders, stream: 1, [0x8C] + literal("apns-id", "0F4E6B3C")),
            frame(0, flags: endStream, stream: 1, reason),
        ])
        let connection = try HTTP2Connection(transport: server, authority: "api.push.apple.com")
        let response = try connection.send(
            "POST", "/3/device/6e6577", headers: [.init("apns-topic", "com.example.app")], body: Array("{}".utf8))
        #expect(response == .init(status: 400, headers: [.init("apns-id", "0F4E6B3C")], body: reason))
        #expect(server.written.starts(with: Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)))
        #expect(connection.isUsable)
    }

    @Test func aRefusedStreamWasNotProcessedAndAGoawayEndsTheConnection() throws {
        let refusedStream: [UInt8] = [0, 0, 0, 7]
        let server = FrameServer([
            settings, settingsAcknowledged, frame(3, stream: 1, refusedStream),
            frame(7, [0, 0, 0, 0, 0, 0, 0, 0]),
        ])
        let connection = try HTTP2Connection(transport: server, authority: "api.push.apple.com")
        do {
            _ = try connection.send("POST", "/3/device/6e6577", headers: [], body: [])
            Issue.record("a reset stream gave an answer")
        } catch {
            #expect(!error.processed)
        }
        #expect(throws: HTTP2Error.self) { try connection.send("POST", "/3/device/6e6577", headers: [], body: []) }
        #expect(!connection.isUsable)
    }
}

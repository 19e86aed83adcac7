/// Writes bytes into room reserved up front: each string is one copy, with no check of the array's
/// uniqueness and capacity per append (what `[UInt8].append(contentsOf:)` costs, about a hundred
/// instructions per call, more than the copy of a header line).
///
/// Made by ``make(capacity:_:)`` for a caller that knows an upper bound of what it writes; writing past
/// that bound stops the program rather than writing out of the room.
///
/// Its members are inlinable: the HTTP serializer and the stream events write through them from other
/// targets, a few calls per header line, too small to pay for a call each (docs/performance.md).
@usableFromInline package struct ByteWriter: ~Copyable {
    @usableFromInline let room: UnsafeMutableBufferPointer<UInt8>
    @usableFromInline var count = 0

    @inlinable init(room: UnsafeMutableBufferPointer<UInt8>) { self.room = room }

    /// The bytes `write` writes into a writer of at most `capacity` bytes.
    @inlinable package static func make(capacity: Int, _ write: (inout ByteWriter) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var writer = ByteWriter(room: buffer)
            write(&writer)
            initialized = writer.count
        }
    }

    @inlinable @inline(__always) package mutating func append(_ byte: UInt8) {
        precondition(count < room.count, "ByteWriter: more bytes than its capacity")
        room[count] = byte
        count += 1
    }

    @inlinable @inline(__always) package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= room.count - count, "ByteWriter: more bytes than its capacity")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        (room.baseAddress! + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inlinable @inline(__always) package mutating func append(text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            var text = text
            text.withUTF8 { append($0) }
        }
    }

    @inlinable @inline(__always) package mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    @inlinable @inline(__always) package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// The decimal digits of `value`, with its sign.
    @inlinable @inline(__always) package mutating func append(decimal value: Int) {
        ASCII.withDecimal(Int64(value)) { append($0.assumingMemoryBound(to: UInt8.self)) }
    }
}

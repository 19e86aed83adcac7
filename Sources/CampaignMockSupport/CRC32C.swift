/// CRC-32C (Castagnoli, the checksum of iSCSI, ext4 and LevelDB's log records): what the request
/// journal's records carry so that a start can tell a damaged record from a whole one. Slicing-by-8:
/// eight table look-ups per eight bytes.
package enum CRC32C {
    /// The checksum of `bytes`, continuing from `crc` (the checksum of what came before them).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc = ~crc
            var position = 0
            let count = bytes.count
            while count - position >= 8 {
                let low = bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian ^ crc
                let high = bytes.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).littleEndian
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                position += 8
            }
            while position < count {
                crc = table[Int((crc ^ UInt32(bytes[position])) & 0xFF)] ^ (crc >> 8)
                position += 1
            }
            return ~crc
        }
    }

    /// The checksum of `bytes[range]`, continuing from `crc`.
    package static func checksum(_ bytes: [UInt8], _ range: Range<Int>, continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[range]), continuing: crc) }
    }

    /// Eight tables of 256: the first for one byte (reflected polynomial 0x82F63B78), each next one for
    /// a byte one position further back.
    private static let tables: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            table[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = table[(slice - 1) * 256 + index]
                table[slice * 256 + index] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()
}

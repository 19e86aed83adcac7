/// How an issued message id (`_mId`) and the hex an SDK sends for it correspond (docs/product.md §10, U11).
///
/// A v7 id is a signed decimal. The SDKs send its 64-bit form (newer Android, positives everywhere), its
/// 32-bit two's complement (iOS and Android ≥ 3.1.4 for negative ids), or, on iOS, possibly only its
/// low 32 bits. Hex cannot tell -673096100 from 3621871196, so a hit matches an issued id when any form
/// agrees.
package enum MessageIdentity {
    /// The values an issued decimal id is stored under: its 64-bit value and its low 32 bits.
    package static func storedForms(of decimal: Int64) -> (value: Int64, low32: Int64) {
        (decimal, Int64(UInt32(truncatingIfNeeded: decimal)))
    }

    /// The stored 64-bit values an issued id may have when the SDK sent `hexValue`.
    package static func candidateValues(forHex hexValue: UInt64) -> [Int64] {
        var values = [Int64(bitPattern: hexValue)]
        if hexValue <= UInt64(UInt32.max) {
            // 32-bit two's complement of a negative id.
            let signed = Int64(Int32(bitPattern: UInt32(hexValue)))
            if signed != values[0] { values.append(signed) }
        }
        return values
    }

    /// Whether a hex value can be the iOS truncation of a 64-bit id (then `low32` is compared too).
    package static func mayBeTruncated(_ hexValue: UInt64) -> Bool {
        hexValue <= UInt64(UInt32.max)
    }

    /// The hex values an SDK may send for `decimal` (for the `messageId` filter of the admin API).
    package static func hexValues(forDecimal decimal: Int64) -> [UInt64] {
        var values = [UInt64(bitPattern: decimal), UInt64(UInt32(truncatingIfNeeded: decimal))]
        if values[0] == values[1] { values.removeLast() }
        return values
    }
}

/// Compares without an early exit, so timing does not reveal how much of the token matched. The lengths are
/// compared apart: folded into the byte difference, two lengths 256 apart compared equal with NUL padding.
package func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    var difference: UInt8 = 0
    for index in 0..<max(lhs.count, rhs.count) {
        let left = index < lhs.count ? lhs[index] : 0
        let right = index < rhs.count ? rhs[index] : 0
        difference |= left ^ right
    }
    return difference == 0 && lhs.count == rhs.count
}

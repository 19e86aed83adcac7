import CampaignMockModel
import Testing

@testable import CampaignMockStorage

@Suite struct TrackingIDTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let id: String
        let hex: String?
        let value: UInt64?
        let uuid: String?
        let delivery: String
        let tag: TrackingEvent.Kind
        var testDescription: String { id }
    }

    /// Every row of docs/protocol.md §4.4, with the value the hex stands for.
    static let vectors: [Vector] = [
        .init(
            id: "h3039,testDeliveryId,1", hex: "3039", value: 12345, uuid: nil, delivery: "testDeliveryId",
            tag: .receive),
        .init(
            id: "h3039,testDeliveryId,2", hex: "3039", value: 12345, uuid: nil, delivery: "testDeliveryId", tag: .open
        ),
        .init(
            id: "h6b6499a8-9d43-4bc5-acf0-b6aeb96846f6,testDeliveryId,1", hex: nil, value: nil,
            uuid: "6b6499a8-9d43-4bc5-acf0-b6aeb96846f6", delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "h6b6499a8-9d43-4bc5-acf0-b6aeb96846f6,testDeliveryId,2", hex: nil, value: nil,
            uuid: "6b6499a8-9d43-4bc5-acf0-b6aeb96846f6", delivery: "testDeliveryId", tag: .open),
        .init(
            id: "hd7e15e5c,testDeliveryId,1", hex: "d7e15e5c", value: 3_621_871_196, uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "h281ea1a4,testDeliveryId,1", hex: "281ea1a4", value: 673_096_100, uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "h34aa061c0c56,testDeliveryId,1", hex: "34aa061c0c56", value: 57_904_851_586_134, uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "h80000000,testDeliveryId,1", hex: "80000000", value: 2_147_483_648, uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "h7fffffffffffffff,testDeliveryId,1", hex: "7fffffffffffffff", value: 9_223_372_036_854_775_807,
            uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "hbb9ae1d2,testDeliveryId,1", hex: "bb9ae1d2", value: 3_147_489_746, uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "h9a1c61c0,testDeliveryId,1", hex: "9a1c61c0", value: 2_585_551_296, uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(
            id: "h65e39e40,testDeliveryId,1", hex: "65e39e40", value: 1_709_416_000, uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(id: "hd828,deliveryId,2", hex: "d828", value: 55336, uuid: nil, delivery: "deliveryId", tag: .open),
        .init(
            id: "hffffffffd7e15e5c,testDeliveryId,1", hex: "ffffffffd7e15e5c", value: 18_446_744_073_036_455_516,
            uuid: nil,
            delivery: "testDeliveryId", tag: .receive),
        .init(id: "h05,7a3f1,1", hex: "05", value: 5, uuid: nil, delivery: "7a3f1", tag: .receive),
        .init(
            id: "h6B6499A8-9D43-4BC5-ACF0-B6AEB96846F6,d,1", hex: nil, value: nil,
            uuid: "6b6499a8-9d43-4bc5-acf0-b6aeb96846f6", delivery: "d", tag: .receive),
    ]

    @Test("decodes the SDK vectors", arguments: vectors)
    func decodesVector(_ vector: Vector) throws {
        let id = try TrackingID(parsing: vector.id)
        #expect(id.raw == vector.id)
        #expect(id.deliveryID == vector.delivery)
        #expect(id.tag == vector.tag)
        switch id.message {
        case .numeric(let hex, let value):
            #expect(hex == vector.hex)
            #expect(value == vector.value)
        case .uuid(let uuid):
            #expect(uuid == vector.uuid)
        }
    }

    @Test(arguments: [
        ("", "empty id"),
        ("3039,d,1", "must start with 'h'"),
        ("H3039,d,1", "must start with 'h'"),
        ("h3039,d", "3 comma-separated fields"),
        ("h3039,d,1,x", "3 comma-separated fields"),
        ("h,d,1", "empty message id"),
        ("hxyz,d,1", "neither hex nor a UUID"),
        ("h-1,d,1", "neither hex nor a UUID"),
        ("h1ffffffffffffffff,d,1", "larger than 64 bits"),
        ("h3039,,1", "empty delivery id"),
        ("h3039,d,3", "tag must be 1"),
        ("h3039,d,01", "tag must be 1"),
        ("h3039,d,", "tag must be 1"),
        ("h6b6499a8-9d43-4bc5-acf0,d,1", "neither hex nor a UUID"),
    ])
    func refusesMalformedIDs(_ raw: String, _ fragment: String) {
        do {
            _ = try TrackingID(parsing: raw)
            Issue.record("accepted \(raw)")
        } catch {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func acceptsLeadingZerosBeyondSixteenDigits() throws {
        let id = try TrackingID(parsing: "h0000000000000000003039,d,1")
        #expect(id.message == .numeric(hex: "0000000000000000003039", value: 12345))
    }
}

@Suite struct MessageIdentityTests {
    /// docs/product.md §10, U11: the hex forms an SDK may send for an issued decimal id all lead back to it.
    @Test(arguments: [
        (Int64(-673_096_100), ["d7e15e5c", "ffffffffd7e15e5c"]),
        (Int64(673_096_100), ["281ea1a4"]),
        (Int64(57_904_851_586_134), ["34aa061c0c56", "61c0c56"]),
        (Int64(2_147_483_648), ["80000000"]),
        (Int64.max, ["7fffffffffffffff", "ffffffff"]),
        (Int64(55336), ["d828"]),
    ])
    func everySDKFormMatchesTheIssuedID(_ issued: Int64, _ hexForms: [String]) throws {
        let stored = MessageIdentity.storedForms(of: issued)
        for hex in hexForms {
            let value = try #require(UInt64(hex, radix: 16))
            let matches =
                MessageIdentity.candidateValues(forHex: value).contains(stored.value)
                || (MessageIdentity.mayBeTruncated(value) && Int64(value) == stored.low32)
            #expect(matches, "\(hex) should match \(issued)")
            #expect(MessageIdentity.hexValues(forDecimal: issued).contains(value) || hexForms.count > 1)
        }
    }

    @Test func anUnrelatedIDDoesNotMatch() {
        let stored = MessageIdentity.storedForms(of: 12345)
        let value: UInt64 = 0x3040
        #expect(!MessageIdentity.candidateValues(forHex: value).contains(stored.value))
        #expect(Int64(value) != stored.low32)
    }
}

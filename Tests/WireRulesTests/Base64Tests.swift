import Testing
import WireRules

@Suite struct Base64Tests {
    @Test(arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
    ])
    func rfc4648Vectors(_ text: String, _ encoded: String) {
        #expect(String(decoding: Base64.encode(Array(text.utf8)), as: UTF8.self) == encoded)
        #expect(Base64.decode(encoded) == Array(text.utf8))
        #expect(Base64.encodedLength(Int64(text.utf8.count)) == Int64(encoded.count))
    }

    @Test func everyByteRoundTrips() {
        let bytes = (0..<770).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 256) }
        for count in [0, 1, 2, 3, 255, 256, 257, 770] {
            let part = Array(bytes.prefix(count))
            #expect(Base64.decode(String(decoding: Base64.encode(part), as: UTF8.self)) == part)
        }
    }

    @Test func onlyPaddedBase64IsRead() {
        for bad in [
            "Zg", "Zg=", "Z===", "====", "Zg==Zg==", "Zm9v\n", " Zm9v", "Zm9-", "Zm9_", "Zm9v=", "Zm\u{0}v", "Zé==",
        ] {
            #expect(Base64.decode(bad) == nil, "\(bad.debugDescription)")
        }
    }
}

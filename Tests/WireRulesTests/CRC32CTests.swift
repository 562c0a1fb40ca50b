import Testing
import WireRules

/// CRC-32C as Cloud Storage computes it, shared by the receiver and the engine.
@Suite struct CRC32CTests {
    @Test func crc32cOfTheCheckString() {
        var crc = CRC32C()
        Array("123456789".utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.value == 0xE306_9283)
        #expect(crc.bigEndianBytes == [0xE3, 0x06, 0x92, 0x83])
        // Fed in pieces, the same.
        var pieces = CRC32C()
        for piece in ["1234", "", "56789"] { Array(piece.utf8).withUnsafeBytes { pieces.update($0) } }
        #expect(pieces.value == 0xE306_9283)
        #expect(CRC32C().value == 0)
        #expect(CRC32C(value: 0xE306_9283).base64 == "4waSgw==")
    }
}

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum Cloud Storage reports as `crc32c`.
/// One table lookup per byte: the receiver hashes at disk speed, not at memory speed.
struct CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        return value
    }

    private var state: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = state
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        state = crc
    }

    var value: UInt32 { ~state }

    /// The 4 bytes big-endian, as Cloud Storage base64-encodes them.
    var bigEndianBytes: [UInt8] {
        let value = self.value
        return [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

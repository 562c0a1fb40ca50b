/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum
/// Cloud Storage keeps of each object as `crc32c`: one table lookup per
/// byte (the engine computes it in hardware where the CPU can).
public struct CRC32C: Sendable, Hashable {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        return value
    }

    /// The checksum of the bytes so far.
    public private(set) var value: UInt32

    public init(value: UInt32 = 0) {
        self.value = value
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = ~value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        value = ~crc
    }

    public static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32C()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    /// The 4 bytes big-endian, as Cloud Storage base64-encodes them.
    public var bigEndianBytes: [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// As Cloud Storage writes it: `crc32c` of an object, `x-goog-hash: crc32c=…`.
    public var base64: String { String(decoding: Base64.encode(bigEndianBytes), as: UTF8.self) }
}

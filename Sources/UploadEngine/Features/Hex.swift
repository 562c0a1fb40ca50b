/// Bytes as lowercase hexadecimal: digests in the history, SigV4's hashes
/// and signatures, an ETag's MD5.
public enum Hex {
    /// Any bytes (a digest): copied once, then written as `lowercase(_:)` of a buffer.
    /// Generic code called from another module runs unspecialized, a witness
    /// call per byte: 5% of the history's time went here.
    public static func lowercase<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Array(bytes).withUnsafeBytes { lowercase($0) }
    }

    public static func lowercase(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = digit(byte >> 4)
                text[2 * index + 1] = digit(byte & 15)
            }
            return bytes.count * 2
        }
    }

    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
